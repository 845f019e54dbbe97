//! The dumps benches measure on: the virtual phone's that the repository keeps
//! (`tests/fixtures/dumps/`), so every bench measures something on a bare clone,
//! and real phones' when a folder of them is there (`$CODEACT_REAL_DUMPS`, else the
//! fixtures folder beside the checkout), which add cases.

use std::path::{Path, PathBuf};

/// The virtual phone's dumps the repository keeps.
pub const OURS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/dumps");

/// The folder of real phones' dumps, when there is one.
pub fn real_folder() -> Option<PathBuf> {
    let folder = std::env::var_os("CODEACT_REAL_DUMPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/real-dumps"));
    folder.is_dir().then_some(folder)
}

/// The `.xml` files of `folder`, by name, with their bytes.
fn read_folder(folder: &Path, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .filter_map(|p| Some((format!("{prefix}{}", p.file_name()?.to_string_lossy()), std::fs::read(&p).ok()?)))
        .collect();
    files.sort();
    files
}

/// Every dump: ours (`sim/NAME`), then the real ones (`real/NAME`) when there are.
pub fn all() -> Vec<(String, Vec<u8>)> {
    let mut dumps = read_folder(Path::new(OURS), "sim/");
    if let Some(folder) = real_folder() {
        dumps.extend(read_folder(&folder, "real/"));
    }
    dumps
}

/// Settings screens to measure on: the virtual phone's, and a real phone's
/// (developer options) when the real dumps are there. (name, XML)
pub fn settings() -> Vec<(&'static str, String)> {
    let mut screens = Vec::new();
    if let Ok(xml) = std::fs::read_to_string(Path::new(OURS).join("settings.xml")) {
        screens.push(("virtual phone's Settings dump", xml));
    }
    let real = real_folder().map(|f| f.join("01-settings-developer-options.xml"));
    if let Some(xml) = real.and_then(|p| std::fs::read_to_string(p).ok()) {
        screens.push(("real Settings dump", xml));
    }
    screens
}
