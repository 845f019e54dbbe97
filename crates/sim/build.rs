//! Embeds `data/world.toml` and `data/apps/*.toml` into the binary, so that a new app
//! file is picked up without touching Rust code.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    println!("cargo:rerun-if-changed={}", root.display());
    println!("cargo:rerun-if-changed={}", root.join("apps").display());
    let mut files = vec![("world.toml".to_string(), root.join("world.toml"))];
    let mut apps: Vec<_> = std::fs::read_dir(root.join("apps"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    apps.sort();
    for path in apps.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        files.push((format!("apps/{name}"), path));
    }
    let mut out = String::from("&[\n");
    for (name, path) in files {
        let _ = writeln!(out, "    ({name:?}, include_str!({:?})),", path.display().to_string());
    }
    out.push(']');
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("bundled_world.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo:warning=cannot write {}: {e}", dest.display());
    }
}
