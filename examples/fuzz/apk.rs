//! Fuzz targets for APK reading: the binary manifest parser (`apk-manifest`: mutated
//! `AndroidManifest.xml` bytes, alone and with a resource table) and the whole
//! archive (`apk-zip`: mutated APK files). Seeds are the virtual phone's APKs,
//! pulled over ADB, and any real APKs in `$CODEACT_REAL_APKS`.

use std::io::{Cursor, Read};
use std::time::Duration;

use crate::{Rng, Stats, drive};

/// The virtual phone's APKs, pulled as a user would.
fn sim_apks() -> Vec<Vec<u8>> {
    let Ok(mut device) = codeact::device::open(&codeact::device::DeviceSpec::Sim, Duration::from_secs(10)) else {
        return Vec::new();
    };
    let Ok(listed) = device.shell("pm list packages -f") else { return Vec::new() };
    let mut apks = Vec::new();
    for line in listed.stdout_text().lines() {
        let Some((path, _)) = line.trim_start_matches("package:").rsplit_once('=') else { continue };
        let mut bytes = Vec::new();
        if device.pull_file(path, &mut bytes, 1 << 20).is_ok() {
            apks.push(bytes);
        }
    }
    apks
}

/// Real APKs, if the tests' folder of them is there (the big ones are skipped).
fn real_apks() -> Vec<Vec<u8>> {
    let Some(dir) = std::env::var_os("CODEACT_REAL_APKS") else { return Vec::new() };
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.metadata().is_ok_and(|m| m.len() < 64 << 20))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect()
}

fn entry(apk: &[u8], name: &str) -> Option<Vec<u8>> {
    let mut zip = zip::ZipArchive::new(Cursor::new(apk)).ok()?;
    let mut bytes = Vec::new();
    zip.by_name(name).ok()?.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

fn gist(result: Result<codeact::apk::ApkInfo, codeact::apk::ApkError>) -> String {
    match result {
        Ok(info) => format!("ok {} {}", info.activities.len().min(32), info.anomalies.len().min(8)),
        Err(e) => format!("err {}", e.to_string().chars().take(40).collect::<String>()),
    }
}

/// Chunk headers and values a binary manifest is made of.
const AXML_DICT: &[&[u8]] = &[
    b"\x03\x00\x08\x00",
    b"\x01\x00\x1c\x00",
    b"\x80\x01\x08\x00",
    b"\x00\x01\x10\x00",
    b"\x02\x01\x10\x00",
    b"\x03\x01\x10\x00",
    b"\xff\xff\xff\xff",
    b"\xff\xff\xff\x7f",
    b"\x14\x00\x14\x00",
    b"\x08\x00\x00\x03",
    b"\x08\x00\x00\x12",
];

pub fn fuzz_manifest(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let apks: Vec<Vec<u8>> = sim_apks().into_iter().chain(real_apks()).collect();
    let corpus: Vec<Vec<u8>> = apks.iter().filter_map(|a| entry(a, "AndroidManifest.xml")).collect();
    // One small real resource table, so references resolve through mutated manifests.
    let table = apks.iter().filter_map(|a| entry(a, "resources.arsc")).min_by_key(Vec::len);
    let mut with_table = false;
    drive("apk-manifest", rng, budget, corpus, AXML_DICT, findings, |input| {
        with_table = !with_table;
        let resources = if with_table { table.as_deref() } else { None };
        gist(codeact::apk::from_manifest(input, resources, "fuzz.apk"))
    })
}

pub fn fuzz_zip(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let corpus = sim_apks();
    let dict: &[&[u8]] =
        &[b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"\xff\xff\xff\xff", b"\x08\x00"];
    drive("apk-zip", rng, budget, corpus, dict, findings, |input| {
        gist(codeact::apk::read(Cursor::new(input), "fuzz.apk"))
    })
}
