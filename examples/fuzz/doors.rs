//! Fuzz targets for HarmonyOS's wire: codeact's hdc client and HarmonyOS backend
//! against a loopback peer that answers fuzzed bytes (`hdc-client`), and the
//! virtual phone's hdc door fed fuzzed requests (`hdc-sim`), which must still serve
//! a real client afterwards.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::Duration;

use codeact::device::Device as _;
use codeact::device::hdc::client::HdcClient;

use crate::adb::EvilPeer;
use crate::{PANICS, Rng, Stats, drive};

/// A frame as hdc sends it: a big-endian length, then the bytes.
fn frame(bytes: &[u8]) -> Vec<u8> {
    let mut f = (bytes.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(bytes);
    f
}

fn handshake() -> Vec<u8> {
    let mut hello = b"OHOS HDC\0\0\0H".to_vec();
    hello.resize(44, 0);
    frame(&hello)
}

/// The first words of an error: what a finding's outcome is keyed by.
fn gist(e: impl std::fmt::Display) -> String {
    e.to_string().split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

pub(crate) fn fuzz_hdc_client(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let Ok(peer) = EvilPeer::start() else {
        return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: ", no loopback".into() };
    };
    let with = |parts: &[&[u8]]| -> Vec<u8> {
        let mut out = handshake();
        for p in parts {
            out.extend(frame(p));
        }
        out
    };
    let layout: &[u8] = br#"DumpLayout saved to:/data/local/tmp/l.json
{"attributes":{"bounds":"[0,0][1080,2400]","type":""},"children":[{"attributes":{"bundleName":"a.b","bounds":"[0,0][1080,2400]","type":"root"},"children":[{"attributes":{"text":"Hi","type":"Text","bounds":"[1,2][3,4]"},"children":[]}]}]}
__codeact_section__
User ID #100
    Mission ID #1  mission name #[#a.b:entry:Main]
        main name [Main]
        bundle name [a.b]
        state #FOREGROUND  start time [1]
__codeact_hdc_end_0
"#;
    let corpus = vec![
        with(&[b"codeact-sim\n"]),
        with(&[layout]),
        with(&[b"[Fail]Not match target founded, check connect-key please\r\n"]),
        with(&[b"[Empty]\r\n"]),
        with(&[b"process: display 0\nsuccess: snapshot display 0\n__codeact_section__\n\x89PNG\r\n\x1a\n"]),
        handshake(),
    ];
    let dict: &[&[u8]] = &[
        b"OHOS HDC",
        b"[Fail]",
        b"__codeact_section__",
        b"__codeact_hdc_end_",
        b"state #FOREGROUND",
        b"bundle name [",
        b"{\"children\":[",
        b"\xff\xff\xff\xff",
        b"\0\0\0\0",
    ];
    let reply = peer.reply.clone();
    let addr = peer.addr.clone();
    let mut turn = 0u64;
    drive("hdc-client", rng, budget, corpus, dict, findings, |input| {
        if let Ok(mut r) = reply.lock() {
            *r = input.to_vec();
        }
        turn += 1;
        let timeout = Duration::from_millis(200);
        match turn % 2 {
            0 => match HdcClient::new(&addr, "any", timeout).and_then(|c| c.shell("echo hi")) {
                Ok(r) => format!("shell {} {:?}", r.output.len().min(8), r.status),
                Err(e) => format!("shell err {}", gist(e)),
            },
            _ => match codeact::device::HarmonyDevice::connect_at(&addr, None, timeout) {
                Ok(mut d) => format!("device {}", d.observe().map(|o| o.ui.elements.len().min(8)).is_ok()),
                Err(e) => format!("device err {}", gist(e)),
            },
        }
    })
}

pub(crate) fn fuzz_hdc_sim(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let config = codeact_sim::SimConfig { platform: codeact_sim::SimPlatform::Harmony, ..Default::default() };
    let sim = match codeact_sim::VirtualDevice::start(config) {
        Ok(sim) => sim,
        Err(e) => return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: format!(", no sim: {e}") },
    };
    let addr = sim.addr();
    let mut answer = b"OHOS HDC\0\0\0H".to_vec();
    answer.extend_from_slice(b"any");
    answer.resize(44, 0);
    let shell = |cmd: &[u8]| {
        let mut out = frame(&answer);
        out.extend(frame(cmd));
        out
    };
    let corpus = vec![
        shell(b"list targets\0"),
        shell(b"checkserver"),
        shell(b"shell uitest uiInput click 10 10"),
        shell(b"shell uitest dumpLayout -p /data/local/tmp/x.json"),
        shell(b"shell aa dump -l"),
        shell(b"shell \"bm dump -a\""),
        frame(&answer),
    ];
    let dict: &[&[u8]] = &[
        b"OHOS HDC",
        b"shell ",
        b"uitest uiInput ",
        b"keyEvent 2072 2017",
        b"snapshot_display -f /data/local/tmp/a.png -t png",
        b"aa start -b com.android.settings -a Settings",
        b"\xff\xff\xff\xff",
        b"\0",
    ];
    let mut stats = drive("hdc-sim", rng, budget, corpus, dict, findings, |input| {
        let Ok(mut stream) = TcpStream::connect(addr) else { return "no connect".into() };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(30)));
        let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
        let _ = stream.write_all(input);
        let mut buf = vec![0u8; 64 * 1024];
        let mut got = 0;
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            got += n;
        }
        format!("{}", got.min(256) / 16)
    });
    // The door must still serve a real client after all that (faults the inputs
    // injected with `simctl fault` cleared first).
    let client = HdcClient::new(&addr.to_string(), "any", Duration::from_secs(5));
    let _ = client.as_ref().map(|c| c.shell("simctl reset"));
    let alive = HdcClient::new(&addr.to_string(), "any", Duration::from_secs(5)).and_then(|c| c.shell("echo alive"));
    stats.note = match alive {
        Ok(r) if String::from_utf8_lossy(&r.output).contains("alive") => ", the door still answers".into(),
        Ok(r) => {
            PANICS.fetch_add(1, Ordering::Relaxed);
            format!(", THE DOOR ANSWERS WRONGLY: {:?}", String::from_utf8_lossy(&r.output))
        }
        Err(e) => {
            PANICS.fetch_add(1, Ordering::Relaxed);
            format!(", THE DOOR STOPPED ANSWERING: {e}")
        }
    };
    stats
}
