//! The house's rule inside every crate, kept by the build: no circle between files,
//! no arrow up between folders (each crate read by `house_graph.rs`), and every
//! module with a `//!` header and at most 500 lines. Test code is not part of the
//! house.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::house_graph::{Crate, faults};

fn roots() -> Vec<PathBuf> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![top.join("src/lib.rs"), top.join("src/main.rs"), top.join("bindings/python/src/lib.rs")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(top.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path().join("src/lib.rs"))
        .collect();
    crates.sort();
    roots.extend(crates.into_iter().filter(|p| p.exists()));
    roots
}

#[test]
fn no_crate_has_a_circle_between_files_or_an_arrow_up_between_folders() {
    let mut said = Vec::new();
    for root in roots() {
        for fault in faults(&root) {
            said.push(format!("{}: {fault}", root.display()));
        }
    }
    assert!(said.is_empty(), "{} faults of the house:\n{}", said.len(), said.join("\n"));
}

/// The checker finds what it must: a circle of two files, and an arrow up between
/// two folders made only through a parent's re-export.
#[test]
fn the_house_check_finds_a_circle_and_an_arrow_up() {
    let dir = tempfile::tempdir().expect("dir");
    let write = |path: &str, text: &str| {
        let at = dir.path().join(path);
        std::fs::create_dir_all(at.parent().expect("parent")).expect("folders");
        std::fs::write(at, text).expect("write");
    };
    write("src/lib.rs", "mod a;\nmod b;\nmod up;\nmod down;\n");
    write("src/a.rs", "pub fn f() { crate::b::g() }\n");
    write("src/b.rs", "use super::a;\npub fn g() { a::f() }\n");
    write("src/up/mod.rs", "mod top;\npub use top::Top;\n");
    write("src/up/top.rs", "pub struct Top(pub crate::down::Low);\n");
    write("src/down/mod.rs", "mod low;\npub use low::Low;\n");
    write("src/down/low.rs", "pub struct Low;\npub fn make() -> crate::up::Top { crate::up::Top(Low) }\n");
    let said = faults(&dir.path().join("src/lib.rs"));
    assert_eq!(said.len(), 3, "{said:#?}");
    assert!(said[0].contains("a.rs -> b.rs: g") && said[0].contains("b.rs -> a.rs: f"), "{said:#?}");
    assert!(said.iter().any(|s| s.contains("down/low.rs -> up/top.rs: Top")), "{said:#?}");
    // Without the way back up, the same shape is clean.
    write("src/down/low.rs", "pub struct Low;\n");
    write("src/b.rs", "pub fn g() {}\n");
    assert!(faults(&dir.path().join("src/lib.rs")).is_empty());
    // A child that takes a sibling's name through its parent's re-export, while the
    // parent calls the child: a circle with the parent's file.
    write("src/lib.rs", "mod p;\n");
    write("src/p/mod.rs", "mod c;\nmod d;\npub use d::D;\npub fn run() -> D { c::go() }\n");
    write("src/p/c.rs", "use super::D;\npub fn go() -> D { D }\n");
    write("src/p/d.rs", "pub struct D;\n");
    let said = faults(&dir.path().join("src/lib.rs"));
    assert!(said.len() == 1 && said[0].contains("p/c.rs -> p/mod.rs: D (through its re-export)"), "{said:#?}");
    write("src/p/c.rs", "use super::d::D;\npub fn go() -> D { D }\n");
    assert!(faults(&dir.path().join("src/lib.rs")).is_empty());
}

/// Every module of every crate opens with a `//!` header (what it is for, what it
/// is not) and holds at most 500 lines; test modules aside.
#[test]
fn every_module_has_a_header_and_at_most_500_lines() {
    let mut said = Vec::new();
    for root in roots() {
        let house = Crate::read(&root);
        let files: BTreeSet<&PathBuf> = house.modules.values().map(|m| &m.file).collect();
        for file in files {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if !text.trim_start().starts_with("//!") {
                said.push(format!("{}: no //! header saying what it is for and what it is not", file.display()));
            }
            let lines = text.lines().count();
            if lines > 500 {
                said.push(format!("{}: {lines} lines, over 500", file.display()));
            }
        }
    }
    assert!(said.is_empty(), "{}", said.join("\n"));
}
