//! Paths a client names below a server's folder (a run to replay, a picture of it,
//! a recording to save): plain relative paths only, and checked as the file system
//! really is — links resolved, so a link that leads out of the folder (planted as
//! a run folder, a picture, a subfolder to save into) is refused, never followed.
//! Not the reading or writing itself (`read.rs`, `write.rs`).

use std::io;
use std::path::{Component, Path, PathBuf};

/// `relative` as plain components (no `..`, `.`, root or prefix), if it is one.
fn plain(relative: &str) -> Option<&Path> {
    let p = Path::new(relative);
    let ok = !relative.is_empty()
        && relative.len() <= 4096
        && !relative.contains('\0')
        && p.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then_some(p)
}

/// The real path of what `relative` names below `root`, when it exists and lies
/// below `root`'s real path once every link is resolved; `None` otherwise.
pub fn existing_below(root: &Path, relative: &str) -> Option<PathBuf> {
    let p = plain(relative)?;
    let real_root = root.canonicalize().ok()?;
    let real = real_root.join(p).canonicalize().ok()?;
    (real != real_root && real.starts_with(&real_root)).then_some(real)
}

/// Where to write `relative` below `root`: its folders made one at a time, each a
/// real folder (a link or a file in the way is refused, not followed); the file's
/// own name is the caller's to write without following (`write_new`,
/// `write_replacing`). `root` itself is made when missing.
pub fn new_below(root: &Path, relative: &str) -> io::Result<PathBuf> {
    let p = plain(relative).ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "not a plain relative path (no .., no leading /)")
    })?;
    std::fs::create_dir_all(root)?;
    let mut at = root.canonicalize()?;
    let components: Vec<&std::ffi::OsStr> = p.iter().collect();
    let Some((name, folders)) = components.split_last() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "an empty path"));
    };
    for folder in folders {
        at.push(folder);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_dir() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is a link or a file, not a folder", at.display()),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => match std::fs::create_dir(&at) {
                Ok(()) => {}
                // Made by someone else meanwhile: it must be a real folder too.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if !std::fs::symlink_metadata(&at)?.file_type().is_dir() {
                        return Err(io::Error::new(io::ErrorKind::InvalidInput, "a link appeared in the path"));
                    }
                }
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    at.push(name);
    if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_dir()) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is a folder", at.display())));
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_out_of_the_folder_are_refused_and_folders_are_made_inside() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.png"), b"x").unwrap();
        std::fs::create_dir(root.path().join("run")).unwrap();
        std::fs::write(root.path().join("run/shot.png"), b"x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("linked_run")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.png"), root.path().join("run/linked.png")).unwrap();
        std::os::unix::fs::symlink(root.path().join("run"), root.path().join("inner_link")).unwrap();
        assert!(existing_below(root.path(), "run/shot.png").is_some());
        assert!(existing_below(root.path(), "inner_link/shot.png").is_some(), "a link that stays inside is fine");
        for bad in ["linked_run/secret.png", "run/linked.png", "linked_run", "../x", "/etc/passwd", "", "run/../run"] {
            assert!(existing_below(root.path(), bad).is_none(), "{bad}");
        }
        let made = new_below(root.path(), "tests/deep/wifi.rhai").unwrap();
        assert!(made.starts_with(root.path().canonicalize().unwrap()) && root.path().join("tests/deep").is_dir());
        assert!(new_below(root.path(), "linked_run/escape.rhai").is_err(), "a linked folder is not followed");
        assert!(!outside.path().join("escape.rhai").exists());
        assert!(new_below(root.path(), "run/shot.png/x.rhai").is_err(), "a file in the way");
        assert!(new_below(root.path(), "../up.rhai").is_err());
        assert!(new_below(root.path(), "run").is_err(), "a folder is not a file");
    }
}
