//! Subflows for `codeact exec`: the modules a script's `import "helpers" as h;`
//! names, each name read from the script's folder (`"lib/steps"`, `"../lib/x"`:
//! a suite shares a helper folder) and never from outside the suite's root (no
//! absolute path, no `..` or link leading out of it), nested imports included and
//! named the same way, in an order where each comes after the ones it imports, at
//! most 16 MiB of them in all. The engine compiles and runs them under the snippet
//! limits; LLM snippets and the REPL never get a module. Not here: the engine side
//! (`Sandbox::set_modules`).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// The most modules one script may bring in, and how deep imports may nest.
const MAX_MODULES: usize = 32;
const MAX_DEPTH: usize = 8;
/// The most source all of one script's modules may hold.
const MAX_TOTAL_BYTES: usize = codeact_base::files::TEXT_BYTES;

static IMPORT: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(r#"(?m)^\s*import\s+"([^"\\]*)""#).ok());

/// Why a script's imports cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SubflowError {
    #[error(
        "import {name:?}: only files inside {} can be imported (the suite's folder: a name like \"helpers\", \"lib/steps\" or \"../lib/x\" from the script's folder, no absolute path)",
        .root.display()
    )]
    OutsideFolder { name: String, root: PathBuf },
    #[error("import {name:?}: cannot read {}", .path.display())]
    Read {
        name: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("import {0:?}: modules import each other in a circle")]
    Circle(String),
    #[error("a script may bring in at most {MAX_MODULES} modules, nested at most {MAX_DEPTH} deep")]
    TooMany,
    #[error("the modules a script brings in hold more than {} MiB in all", MAX_TOTAL_BYTES >> 20)]
    TooBig,
}

/// Where names resolve (the script's folder) and the folder none may leave.
struct Place {
    folder: PathBuf,
    root: PathBuf,
}

impl Place {
    fn of(script: &Path, root: Option<&Path>) -> Self {
        let folder = script.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let folder = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
        let root = root.map_or_else(|| folder.clone(), |r| r.canonicalize().unwrap_or_else(|_| r.to_path_buf()));
        // A root the script is not in is no root of its: its own folder is.
        let root = if folder.starts_with(&root) { root } else { folder.clone() };
        Place { folder, root }
    }
}

/// The modules `code` (the script at `script`) imports, as (name, source), each after
/// its own imports; `root` is the folder they must be in (`None`: the script's).
pub fn collect(script: &Path, root: Option<&Path>, code: &str) -> Result<Vec<(String, String)>, SubflowError> {
    let place = Place::of(script, root);
    let mut loaded = Vec::new();
    let mut open = Vec::new();
    for name in imports(code) {
        load(&place, &name, &mut loaded, &mut open)?;
    }
    Ok(loaded)
}

/// The files `code` (the script at `script`) imports directly, as real paths; names
/// that do not resolve are left out (running the script says why).
pub fn imported_files(script: &Path, root: &Path, code: &str) -> Vec<PathBuf> {
    let place = Place::of(script, Some(root));
    imports(code).iter().filter_map(|name| inside(&place, name).ok()).collect()
}

fn imports(code: &str) -> Vec<String> {
    IMPORT.as_ref().map_or(Vec::new(), |re| re.captures_iter(code).map(|c| c[1].to_string()).collect())
}

fn load(
    place: &Place,
    name: &str,
    loaded: &mut Vec<(String, String)>,
    open: &mut Vec<String>,
) -> Result<(), SubflowError> {
    if loaded.iter().any(|(n, _)| n == name) {
        return Ok(());
    }
    if open.iter().any(|n| n == name) {
        return Err(SubflowError::Circle(name.to_string()));
    }
    if open.len() >= MAX_DEPTH || loaded.len() >= MAX_MODULES {
        return Err(SubflowError::TooMany);
    }
    let path = inside(place, name)?;
    let source = codeact_base::files::read_text(&path, codeact_base::files::TEXT_BYTES)
        .map_err(|source| SubflowError::Read { name: name.to_string(), path: path.clone(), source })?;
    let total: usize = loaded.iter().map(|(_, s)| s.len()).sum::<usize>() + source.len();
    if total > MAX_TOTAL_BYTES {
        return Err(SubflowError::TooBig);
    }
    open.push(name.to_string());
    for inner in imports(&source) {
        load(place, &inner, loaded, open)?;
    }
    open.pop();
    loaded.push((name.to_string(), source));
    Ok(())
}

/// The file `name` names from the script's folder (`.rhai` added when missing),
/// inside the root, or why not.
fn inside(place: &Place, name: &str) -> Result<PathBuf, SubflowError> {
    let outside = || SubflowError::OutsideFolder { name: name.to_string(), root: place.root.clone() };
    let relative = Path::new(name);
    let plain = !name.is_empty()
        && !name.contains('\\')
        && relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::ParentDir));
    if !plain {
        return Err(outside());
    }
    let folder = &place.folder;
    let file = if relative.extension().is_some() { folder.join(relative) } else { folder.join(format!("{name}.rhai")) };
    // Held to the root as written (nothing outside it is even looked at), then
    // resolved whole (links too) and held to it again.
    if !lexically(&file).starts_with(&place.root) {
        return Err(outside());
    }
    match file.canonicalize() {
        Ok(real) if real.starts_with(&place.root) => Ok(real),
        Ok(_) => Err(outside()),
        Err(source) => Err(SubflowError::Read { name: name.to_string(), path: file, source }),
    }
}

/// `path` with its `..` and `.` taken away as written (links are not followed).
fn lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_come_from_the_script_folder_only_in_dependency_order() {
        let dir = std::env::temp_dir().join(format!("codeact-subflows-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("helpers.rhai"), "import \"lib/steps\" as s;\nfn twice(x) { s::add(x, x) }\n").unwrap();
        std::fs::write(dir.join("lib/steps.rhai"), "fn add(a, b) { a + b }\n").unwrap();
        std::fs::write(dir.join("loop_a.rhai"), "import \"loop_b\" as b;\n").unwrap();
        std::fs::write(dir.join("loop_b.rhai"), "import \"loop_a\" as a;\n").unwrap();
        let script = dir.join("main.rhai");
        let names =
            |code: &str| collect(&script, None, code).map(|m| m.into_iter().map(|(n, _)| n).collect::<Vec<_>>());
        assert_eq!(names("import \"helpers\" as h;\nprint(h::twice(2));").unwrap(), ["lib/steps", "helpers"]);
        assert!(names("let x = 1;").unwrap().is_empty());
        for bad in ["../etc/passwd", "/etc/passwd", "lib/../../x", ""] {
            let e = names(&format!("import \"{bad}\" as h;")).unwrap_err();
            assert!(matches!(e, SubflowError::OutsideFolder { .. }), "{bad}: {e}");
        }
        assert_eq!(names("import \"lib/../helpers\" as h;").unwrap(), ["lib/steps", "lib/../helpers"]);
        // A script deeper in the suite reaches a shared folder, never past the root.
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        let deep = dir.join("tests/t.rhai");
        let from_tests = |code: &str| collect(&deep, Some(&dir), code).map(|m| m.len());
        assert_eq!(from_tests("import \"../lib/steps\" as s;").unwrap(), 1);
        assert!(matches!(from_tests("import \"../../x\" as s;"), Err(SubflowError::OutsideFolder { .. })));
        assert!(matches!(
            collect(&deep, None, "import \"../lib/steps\" as s;"),
            Err(SubflowError::OutsideFolder { .. })
        ));
        assert!(matches!(names("import \"loop_a\" as a;"), Err(SubflowError::Circle(_))));
        assert!(matches!(names("import \"missing\" as m;"), Err(SubflowError::Read { .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
