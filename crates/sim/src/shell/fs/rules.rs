//! The phone's rules for paths: which may be written (only under `/sdcard` and
//! `/data/local/tmp`; `/system` is read-only), the modes new nodes get there, and which
//! names are too long. Not the tree itself (`store`) nor path normalising (`MemFs::normalize`).

use super::meta::{FsError, NAME_MAX, PATH_MAX, S_IFDIR, S_IFREG, WRITABLE_ROOTS};

pub(super) fn under(path: &str, root: &str) -> bool {
    path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
}

fn in_sdcard(path: &str) -> bool {
    path == "/sdcard" || under(path, "/sdcard")
}

/// Whether `path` itself may be created, changed or removed.
pub(super) fn check_writable(path: &str) -> Result<(), FsError> {
    if WRITABLE_ROOTS.iter().any(|r| under(path, r)) {
        Ok(())
    } else if path == "/system" || under(path, "/system") {
        Err(FsError::ReadOnly)
    } else {
        Err(FsError::PermissionDenied)
    }
}

pub(super) fn parent_of(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((p, _)) => p,
    }
}

pub(super) fn dir_mode(path: &str) -> u32 {
    S_IFDIR
        | if in_sdcard(path) {
            0o770
        } else if path.starts_with("/data/local/tmp") {
            0o771
        } else {
            0o755
        }
}

pub(super) fn file_mode(path: &str) -> u32 {
    S_IFREG | if in_sdcard(path) { 0o660 } else { 0o666 }
}

/// Rejects paths the kernel would refuse with `ENAMETOOLONG`.
pub(super) fn check_name(path: &str) -> Result<(), FsError> {
    if path.len() > PATH_MAX || path.split('/').any(|c| c.len() > NAME_MAX) {
        return Err(FsError::NameTooLong);
    }
    Ok(())
}
