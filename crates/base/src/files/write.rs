//! Where codeact writes, and how: a name taken from a script's file, a task or a
//! capture becomes one safe path component (never `.`, `..`, a separator or a
//! control character); a folder codeact makes for a run is created, not found
//! (never a planted symlink); a file it writes beside others' is written under a
//! random name and renamed into place (a symlink waiting at the name is replaced,
//! never written through; a reader never sees half a file); a file in a folder it
//! made is created new, never opened through a link.
//! Not here: reading (`read.rs`).

use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The longest name component made from a name (bytes).
const COMPONENT_BYTES: usize = 100;

/// `name` as one path component: letters and digits (any alphabet), `-`, `_`, and
/// `.` inside it; anything else (a leading dot too) becomes `_`; empty gives
/// `fallback`. `..` (the stem of a script called `...rhai`) becomes `__`: it can
/// never climb out of its folder.
pub fn safe_component(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    let mut named = false;
    for c in name.chars() {
        named |= c.is_alphanumeric();
        let kept = if c.is_alphanumeric() || c == '-' || c == '_' || (c == '.' && named) { c } else { '_' };
        if out.len() + kept.len_utf8() > COMPONENT_BYTES {
            break;
        }
        out.push(kept);
    }
    let out = out.trim_end_matches('.').to_string();
    if out.is_empty() { fallback.to_string() } else { out }
}

/// Creates the folder `dir` for a run, whose parent may be the user's own (it is
/// created if missing). `dir` itself must be new, or an empty folder (not a link).
pub fn create_run_folder(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = std::fs::symlink_metadata(dir)?;
            if meta.file_type().is_symlink() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "it is a symbolic link; name the folder itself (codeact writes only into folders it can see are real)",
                ));
            }
            if !meta.is_dir() {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, "it is a file, not a folder"));
            }
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// A fresh folder `base`, `base-2`, `base-3`... created now (claimed atomically:
/// two runs never share one, and a symlink at a name is a taken name).
pub fn create_fresh_folder(base: &Path) -> io::Result<PathBuf> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut dir = base.to_path_buf();
    for n in 2..10_000 {
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                dir = PathBuf::from(format!("{}-{n}", base.display()));
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "ten thousand folders of that name exist"))
}

/// Creates `path` as a new file (it must not exist, not even as a link) and
/// writes `bytes` into it.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)?;
    file.write_all(bytes)
}

/// Writes `bytes` as the whole of `path`: into a new file of a random name in the
/// same folder, then renamed over `path`. A symlink at `path` is replaced, not
/// followed; a reader sees the old file or the new one, never half of one.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    // Readable like any file the user writes (a tempfile is 0600).
    let mode = 0o666 & !current_umask();
    std::fs::set_permissions(tmp.path(), std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The process's umask, read once (by setting it and putting it back at once).
fn current_umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        use nix::sys::stat::{Mode, umask};
        let old = umask(Mode::from_bits_truncate(0o022));
        umask(old);
        old.bits()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_one_safe_component() {
        assert_eq!(safe_component("..", "script"), "__");
        assert_eq!(safe_component(".", "script"), "_");
        assert_eq!(safe_component("", "script"), "script");
        assert_eq!(safe_component("a/../b", "script"), "a_.._b");
        assert_eq!(safe_component("javascript:alert(1)", "script"), "javascript_alert_1_");
        assert_eq!(safe_component("turn_off-wifi.v2", "script"), "turn_off-wifi.v2");
        assert_eq!(safe_component("发送", "script"), "发送");
        assert_eq!(safe_component(".hidden", "script"), "_hidden");
        assert!(safe_component(&"x".repeat(500), "script").len() <= COMPONENT_BYTES);
    }

    #[test]
    fn no_planted_link_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let planted = dir.path().join("out.rhai");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_replacing(&planted, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&planted).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
        let link = dir.path().join("shot.png");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(write_new(&link, b"x").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let folder_link = dir.path().join("runs-link");
        std::os::unix::fs::symlink(dir.path(), &folder_link).unwrap();
        assert!(create_run_folder(&folder_link).is_err());
        let fresh = create_fresh_folder(&folder_link).unwrap();
        assert_eq!(fresh, PathBuf::from(format!("{}-2", folder_link.display())));
    }
}
