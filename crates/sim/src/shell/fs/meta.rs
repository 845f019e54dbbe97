//! What the file system reports and the fixed numbers behind it: [`Meta`] (what `stat`
//! says), [`FsError`] (with the strerror text toybox prints), the mode bits, the path and
//! name limits, the quota and which roots may be written. Not the tree (`store`), the
//! rules that apply these (`rules`) nor the file operations (`mod.rs`).

use std::fmt;

/// `st_mode` type bits.
pub(crate) const S_IFDIR: u32 = 0o040000;
pub(crate) const S_IFREG: u32 = 0o100000;
pub(crate) const S_IFCHR: u32 = 0o020000;

pub(super) const WRITABLE_ROOTS: &[&str] = &["/sdcard", "/data/local/tmp"];
pub(super) const DEV_NULL: &str = "/dev/null";
/// Longest path accepted (Linux `PATH_MAX`).
pub(crate) const PATH_MAX: usize = 4096;
/// Longest path component accepted (Linux `NAME_MAX`).
pub(crate) const NAME_MAX: usize = 255;
/// Total bytes the tree may hold: file contents plus, per node, its path and [`NODE_COST`].
pub(crate) const QUOTA: usize = 512 << 20;
/// What a node costs against [`QUOTA`] besides its path and contents (its "inode").
pub(super) const NODE_COST: usize = 256;

/// What `stat` reports about a path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Meta {
    pub(crate) is_dir: bool,
    pub(crate) size: u64,
    /// Full `st_mode`, including the `S_IFDIR` / `S_IFREG` type bits.
    pub(crate) mode: u32,
    /// Seconds since the Unix epoch.
    pub(crate) mtime: u32,
}

/// File-system errors; `Display` gives the strerror text toybox prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FsError {
    NotFound,
    IsADirectory,
    NotADirectory,
    PermissionDenied,
    ReadOnly,
    AlreadyExists,
    /// A path over [`PATH_MAX`] bytes or a component over [`NAME_MAX`].
    NameTooLong,
    /// The [`QUOTA`] would be exceeded.
    NoSpace,
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FsError::NotFound => "No such file or directory",
            FsError::IsADirectory => "Is a directory",
            FsError::NotADirectory => "Not a directory",
            FsError::PermissionDenied => "Permission denied",
            FsError::ReadOnly => "Read-only file system",
            FsError::AlreadyExists => "File exists",
            FsError::NameTooLong => "File name too long",
            FsError::NoSpace => "No space left on device",
        })
    }
}

impl std::error::Error for FsError {}
