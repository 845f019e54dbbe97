//! Which scripts a suite runs: the files and folders named (a folder's `*.rhai`
//! and Maestro flows, `*.yaml`/`*.yml`, found recursively, sorted, leaving out
//! hidden entries, Maestro's `config.yaml`, the modules its scripts import and the
//! flows its flows run), the tags each script declares in its header comment
//! (`// tags: smoke, settings`) or flow config (`tags:`), `--include-tags` /
//! `--exclude-tags`, and one shard of N. Not here: running them (`workers.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::error::ScriptError;
use super::vocab::Script;

pub use codeact_flows::shard::{BadShard, Shard};

/// What to keep of the scripts found.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Keep a script with any of these tags (every script when empty).
    pub include: Vec<String>,
    /// Leave out a script with any of these tags.
    pub exclude: Vec<String>,
    pub shard: Option<Shard>,
}

/// The scripts a suite runs, in order, and what was left out.
#[derive(Debug)]
pub struct Selection {
    pub scripts: Vec<Script>,
    /// Scripts found before the tags and the shard chose.
    pub found: usize,
    /// Scripts the tags kept (the whole suite the shards split).
    pub tagged: usize,
}

/// The tags a script declares: `// tags: a, b` (commas or spaces between) in the
/// comment block it opens with, lower-cased; several such lines add up.
pub fn tags_of(code: &str) -> Vec<String> {
    let mut tags = Vec::new();
    for line in code.lines().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix("//") else { break };
        let comment = comment.trim_start_matches(['/', '!']).trim();
        let Some(rest) = comment.get(..5).filter(|head| head.eq_ignore_ascii_case("tags:")).map(|_| &comment[5..])
        else {
            continue;
        };
        for tag in rest.split([',', ' ', '\t']).map(str::trim).filter(|t| !t.is_empty()) {
            let tag = tag.to_lowercase();
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
    }
    tags
}

/// The script files `paths` name: a file as it is (any name), a folder's `*.rhai`
/// and flows recursively, sorted by path, hidden entries (`.git`, `.x.rhai`) left out, and so
/// are files another script found in a folder imports (`import "lib/login" as l;`
/// makes `lib/login.rhai` a module, not a test).
pub fn script_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ScriptError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        walk(path, &mut found, 0)?;
        found.sort();
        let modules: BTreeSet<PathBuf> = found
            .iter()
            .filter_map(|f| {
                codeact_base::files::read_text(f, codeact_base::files::TEXT_BYTES).ok().map(|code| (f, code))
            })
            .flat_map(|(f, code)| match codeact_flows::maestro::is_flow(f) {
                true => codeact_flows::maestro::flows_run_by(f, &code),
                false => super::subflows::imported_files(f, &import_root(f, std::slice::from_ref(path)), &code),
            })
            .collect();
        let before = found.len();
        found.retain(|f| f.canonicalize().map_or(true, |real| !modules.contains(&real)));
        if found.is_empty() {
            return Err(ScriptError::NoScripts { dir: path.clone(), modules: before });
        }
        files.extend(found);
    }
    // The same file named twice (a folder and a file in it) runs once.
    let mut seen = BTreeSet::new();
    files.retain(|f| seen.insert(f.canonicalize().unwrap_or_else(|_| f.clone())));
    Ok(files)
}

/// A script, or a Maestro flow (not Maestro's workspace `config.yaml`).
fn is_suite_file(path: &Path) -> bool {
    let config = path.file_stem().is_some_and(|s| s == "config");
    path.extension().is_some_and(|e| e == "rhai") || (codeact_flows::maestro::is_flow(path) && !config)
}

/// Folders nest at most this deep (a link loop ends here, not in a stack overflow).
const MAX_DEPTH: usize = 32;

fn walk(dir: &Path, found: &mut Vec<PathBuf>, depth: usize) -> Result<(), ScriptError> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|source| ScriptError::Read { path: dir.to_path_buf(), source })?;
    for entry in entries {
        let entry = entry.map_err(|source| ScriptError::Read { path: dir.to_path_buf(), source })?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        // A link to a folder is not followed (it may lead back up); a link to a file is.
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            walk(&path, found, depth + 1)?;
        } else if is_suite_file(&path) && path.is_file() {
            found.push(path);
        }
    }
    Ok(())
}

/// The folder the scripts `paths` name have in common (a file stands for its
/// folder): where their project's `codeact.toml` is looked for, from there up.
pub fn suite_folder(paths: &[PathBuf]) -> Option<PathBuf> {
    let folders = paths.iter().map(|p| {
        let folder = if p.is_dir() { p.as_path() } else { p.parent().unwrap_or(Path::new(".")) };
        let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
        std::path::absolute(folder).ok().map(|f| f.canonicalize().unwrap_or(f))
    });
    folders.reduce(|common, next| {
        let (common, next) = (common?, next?);
        common.ancestors().find(|a| next.starts_with(a)).map(Path::to_path_buf)
    })?
}

/// Where the imports of the scripts in `path` resolve: a folder named on the
/// command line is the suite's root; a file's root is its project's (the folder of
/// the nearest `codeact.toml` above it), else its own folder. Imports never leave it.
pub(crate) fn import_root(path: &Path, named: &[PathBuf]) -> PathBuf {
    let real = |p: &Path| std::path::absolute(p).ok().map(|a| a.canonicalize().unwrap_or(a));
    let file = real(path).unwrap_or_else(|| path.to_path_buf());
    let folder = file.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let suites = named.iter().filter(|n| n.is_dir()).filter_map(|n| real(n)).filter(|d| file.starts_with(d));
    if let Some(root) = suites.min_by_key(|d| d.components().count()) {
        return root;
    }
    codeact_runtime::config::FileConfig::folder_above(&folder).filter(|r| folder.starts_with(r)).unwrap_or(folder)
}

/// Reads the scripts `paths` name and keeps those the filter chooses, in order.
pub fn select(paths: &[PathBuf], filter: &Filter) -> Result<Selection, ScriptError> {
    let mut scripts = read_scripts(&script_files(paths)?)?;
    for s in &mut scripts {
        s.root = Some(import_root(&s.path, paths));
    }
    let found = scripts.len();
    let lower = |tags: &[String]| tags.iter().map(|t| t.to_lowercase()).collect::<Vec<_>>();
    let (include, exclude) = (lower(&filter.include), lower(&filter.exclude));
    let tagged: Vec<Script> = scripts
        .into_iter()
        .filter(|s| include.is_empty() || s.tags.iter().any(|t| include.contains(t)))
        .filter(|s| !s.tags.iter().any(|t| exclude.contains(t)))
        .collect();
    if tagged.is_empty() && found > 0 {
        let all: BTreeSet<String> = read_scripts(&script_files(paths)?)?.into_iter().flat_map(|s| s.tags).collect();
        let asked = [("--include-tags", &filter.include), ("--exclude-tags", &filter.exclude)]
            .iter()
            .filter(|(_, tags)| !tags.is_empty())
            .map(|(flag, tags)| format!("{flag} {}", tags.join(",")))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(ScriptError::NoneTagged {
            asked,
            tags: match all.is_empty() {
                true => "none (a script declares them in its header comment: // tags: smoke, settings)".into(),
                false => all.into_iter().collect::<Vec<_>>().join(", "),
            },
        });
    }
    let mut tagged = tagged;
    name_folders(&mut tagged);
    let count = tagged.len();
    let scripts = match filter.shard {
        // Round robin over the sorted suite: shards differ by one script at most.
        Some(shard) => tagged.into_iter().enumerate().filter(|(k, _)| shard.takes(*k)).map(|(_, s)| s).collect(),
        None => tagged,
    };
    Ok(Selection { scripts, found, tagged: count })
}

/// Scripts named alike (`a/login.rhai`, `b/login.yaml`) get trajectory folders
/// named after their whole paths (`a-login-rhai`), so one run can hold them all.
fn name_folders(scripts: &mut [Script]) {
    let stems: Vec<String> = scripts.iter().map(Script::folder_name).collect();
    for (i, script) in scripts.iter_mut().enumerate() {
        if stems.iter().filter(|s| **s == stems[i]).count() < 2 {
            continue;
        }
        let parts: Vec<String> = script
            .path
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(p) => Some(p.to_string_lossy().replace('.', "-")),
                _ => None,
            })
            .collect();
        script.folder = Some(codeact_base::files::safe_component(&parts.join("-"), "script"));
    }
}

/// Reads every script first, so a typo in the last name fails before anything runs.
/// A Maestro flow (`.yaml`, `.yml`) is read as the script it translates into.
pub fn read_scripts(paths: &[PathBuf]) -> Result<Vec<Script>, ScriptError> {
    paths
        .iter()
        .map(|path| {
            if codeact_flows::maestro::is_flow(path) {
                let flow = codeact_flows::maestro::convert_file(path)
                    .map_err(|source| ScriptError::Flow { path: path.clone(), source })?;
                return Ok(Script {
                    path: path.clone(),
                    code: flow.script,
                    tags: flow.tags,
                    folder: None,
                    root: None,
                    screenshot_files: flow.screenshots,
                });
            }
            match codeact_base::files::read_text(path, codeact_base::files::TEXT_BYTES) {
                Ok(code) => Ok(Script {
                    path: path.clone(),
                    tags: tags_of(&code),
                    code,
                    folder: None,
                    root: None,
                    screenshot_files: Vec::new(),
                }),
                Err(source) => Err(ScriptError::Read { path: path.clone(), source }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_come_from_the_header_comment_only() {
        assert_eq!(tags_of("// Turns Wi-Fi off.\n// tags: smoke, Settings\n\ntap(\"x\");\n"), ["smoke", "settings"]);
        assert_eq!(tags_of("//! TAGS: a b,c\n// tags: a, d\nlet x = 1;"), ["a", "b", "c", "d"]);
        assert!(tags_of("let x = 1;\n// tags: late\n").is_empty());
        assert!(tags_of("// no tags here\n").is_empty());
        assert!(tags_of("// tagsx: y\n").is_empty());
        assert!(tags_of("// ü\n// tågs: x\n").is_empty());
    }

    #[test]
    fn folders_are_walked_sorted_without_modules_or_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("b/lib")).unwrap();
        std::fs::create_dir_all(d.join(".hidden")).unwrap();
        std::fs::write(d.join("b/z.rhai"), "// tags: slow\nimport \"lib/login\" as l;\n").unwrap();
        std::fs::write(d.join("b/lib/login.rhai"), "fn go() {}\n").unwrap();
        std::fs::write(d.join("a.rhai"), "// tags: smoke\n").unwrap();
        std::fs::write(d.join("notes.txt"), "").unwrap();
        std::fs::write(d.join(".hidden/x.rhai"), "").unwrap();
        let files = script_files(&[d.to_path_buf()]).unwrap();
        assert_eq!(files, [d.join("a.rhai"), d.join("b/z.rhai")]);
        // Named on its own, a module is a script like any other; named twice, it runs once.
        let files = script_files(&[d.join("b/lib/login.rhai"), d.join("b/lib/login.rhai")]).unwrap();
        assert_eq!(files.len(), 1);
        let smoke = Filter { include: vec!["SMOKE".into()], ..Filter::default() };
        let picked = select(&[d.to_path_buf()], &smoke).unwrap();
        assert_eq!((picked.scripts.len(), picked.found, picked.tagged), (1, 2, 1));
        let none = Filter { exclude: vec!["smoke".into(), "slow".into()], ..Filter::default() };
        let e = select(&[d.to_path_buf()], &none).unwrap_err().to_string();
        assert!(e.contains("(--exclude-tags smoke,slow); the scripts' tags: slow, smoke"), "{e}");
        // Named alike: each gets a folder of its own.
        std::fs::write(d.join("b/a.rhai"), "").unwrap();
        let picked = select(&[d.to_path_buf()], &Filter::default()).unwrap();
        let folders: Vec<String> = picked.scripts.iter().map(Script::folder_name).collect();
        assert_eq!(folders.len(), 3);
        assert!(
            folders[0].ends_with("-a-rhai") && folders[1].ends_with("-b-a-rhai") && folders[2] == "z",
            "{folders:?}"
        );
        std::fs::create_dir_all(d.join("empty")).unwrap();
        assert!(matches!(script_files(&[d.join("empty")]), Err(ScriptError::NoScripts { .. })));
    }

    #[test]
    fn shards_split_the_suite_without_overlap() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..7 {
            std::fs::write(dir.path().join(format!("s{i}.rhai")), "").unwrap();
        }
        let mut union = Vec::new();
        for index in 1..=3 {
            let shard = Filter { shard: Some(Shard { index, count: 3 }), ..Filter::default() };
            let part = select(&[dir.path().to_path_buf()], &shard).unwrap();
            assert!(part.scripts.len() == 2 || part.scripts.len() == 3);
            union.extend(part.scripts.into_iter().map(|s| s.path));
        }
        union.sort();
        assert_eq!(union, script_files(&[dir.path().to_path_buf()]).unwrap());
    }
}
