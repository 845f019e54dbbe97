//! In-memory file system behind the simulated device's shell and sync (push/pull) service.
//!
//! It is not a real VFS: there are no symlinks (only the fixed `/storage/emulated/0` and
//! `/storage/self/primary` aliases of `/sdcard`), no owners and no permission checks beyond the
//! rule that only `/sdcard/**` and `/data/local/tmp/**` are writable. `/dev/null` is the only
//! device node; `/dev/tty` and friends are left to callers.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// `st_mode` type bits.
pub const S_IFDIR: u32 = 0o040000;
pub const S_IFREG: u32 = 0o100000;
pub const S_IFCHR: u32 = 0o020000;

const INITIAL_DIRS: &[&str] = &[
    "/",
    "/sdcard",
    "/sdcard/Download",
    "/sdcard/Pictures",
    "/sdcard/DCIM",
    "/data",
    "/data/local",
    "/data/local/tmp",
    "/system",
    "/system/bin",
    "/dev",
    "/storage",
    "/storage/emulated",
    // Stored under their raw names so they show up in listings; every other use of these
    // paths is normalised to /sdcard.
    "/storage/emulated/0",
    "/storage/self",
    "/storage/self/primary",
];
const WRITABLE_ROOTS: &[&str] = &["/sdcard", "/data/local/tmp"];
const SDCARD_ALIASES: &[&str] = &["/storage/emulated/0", "/storage/self/primary"];
const DEV_NULL: &str = "/dev/null";

/// What `stat` reports about a path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Meta {
    pub is_dir: bool,
    pub size: u64,
    /// Full `st_mode`, including the `S_IFDIR` / `S_IFREG` type bits.
    pub mode: u32,
    /// Seconds since the Unix epoch.
    pub mtime: u32,
}

/// File-system errors; `Display` gives the strerror text toybox prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsError {
    NotFound,
    IsADirectory,
    NotADirectory,
    PermissionDenied,
    ReadOnly,
    NotEmpty,
    AlreadyExists,
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FsError::NotFound => "No such file or directory",
            FsError::IsADirectory => "Is a directory",
            FsError::NotADirectory => "Not a directory",
            FsError::PermissionDenied => "Permission denied",
            FsError::ReadOnly => "Read-only file system",
            FsError::NotEmpty => "Directory not empty",
            FsError::AlreadyExists => "File exists",
        })
    }
}

impl std::error::Error for FsError {}

#[derive(Debug, Clone)]
struct Node {
    /// `None` for directories.
    data: Option<Vec<u8>>,
    mode: u32,
    mtime: u32,
}

impl Node {
    fn meta(&self) -> Meta {
        Meta {
            is_dir: self.data.is_none(),
            size: self.data.as_ref().map_or(4096, |d| d.len() as u64),
            mode: self.mode,
            mtime: self.mtime,
        }
    }
}

type Tree = BTreeMap<String, Node>;

/// The device's files. All methods take `&self` and hold the inner lock only for the call.
pub struct MemFs {
    nodes: Mutex<Tree>,
}

impl Default for MemFs {
    fn default() -> Self {
        Self::new()
    }
}

fn now() -> u32 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX)).unwrap_or(0)
}

fn under(path: &str, root: &str) -> bool {
    path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
}

fn in_sdcard(path: &str) -> bool {
    path == "/sdcard" || under(path, "/sdcard")
}

/// Whether `path` itself may be created, changed or removed.
fn check_writable(path: &str) -> Result<(), FsError> {
    if WRITABLE_ROOTS.iter().any(|r| under(path, r)) {
        Ok(())
    } else if path == "/system" || under(path, "/system") {
        Err(FsError::ReadOnly)
    } else {
        Err(FsError::PermissionDenied)
    }
}

fn parent_of(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((p, _)) => p,
    }
}

fn dir_mode(path: &str) -> u32 {
    S_IFDIR
        | if in_sdcard(path) {
            0o770
        } else if path.starts_with("/data/local/tmp") {
            0o771
        } else {
            0o755
        }
}

fn file_mode(path: &str) -> u32 {
    S_IFREG | if in_sdcard(path) { 0o660 } else { 0o666 }
}

fn new_dir(path: &str) -> Node {
    Node { data: None, mode: dir_mode(path), mtime: now() }
}

/// Checks that `dir` exists and is a directory.
fn lookup_dir(t: &Tree, dir: &str) -> Result<(), FsError> {
    match t.get(dir) {
        Some(n) if n.data.is_none() => Ok(()),
        Some(_) => Err(FsError::NotADirectory),
        None if dir == "/" => Ok(()),
        None => match lookup_dir(t, parent_of(dir)) {
            Err(FsError::NotADirectory) => Err(FsError::NotADirectory),
            _ => Err(FsError::NotFound),
        },
    }
}

fn initial_tree() -> Tree {
    let mut t = Tree::new();
    for d in INITIAL_DIRS {
        t.insert((*d).to_string(), new_dir(d));
    }
    t.insert(DEV_NULL.to_string(), Node { data: Some(Vec::new()), mode: S_IFCHR | 0o666, mtime: now() });
    t
}

impl MemFs {
    pub fn new() -> Self {
        MemFs { nodes: Mutex::new(initial_tree()) }
    }

    fn lock(&self) -> MutexGuard<'_, Tree> {
        self.nodes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `path` absolute against `cwd`, resolving `.`, `..`, repeated and trailing
    /// slashes, and mapping the `/sdcard` aliases onto `/sdcard`.
    pub fn normalize(path: &str, cwd: &str) -> String {
        let mut parts: Vec<&str> = Vec::new();
        let base = if path.starts_with('/') { "" } else { cwd };
        for seg in base.split('/').chain(path.split('/')) {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        let mut out = String::new();
        for p in parts {
            out.push('/');
            out.push_str(p);
        }
        if out.is_empty() {
            out.push('/');
        }
        for alias in SDCARD_ALIASES {
            if let Some(rest) = out.strip_prefix(alias)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return format!("/sdcard{rest}");
            }
        }
        out
    }

    fn abs(path: &str) -> String {
        Self::normalize(path, "/")
    }

    pub fn read(&self, path: &str) -> Result<Vec<u8>, FsError> {
        let p = Self::abs(path);
        let t = self.lock();
        match t.get(&p) {
            Some(Node { data: Some(d), .. }) => Ok(if p == DEV_NULL { Vec::new() } else { d.clone() }),
            Some(_) => Err(FsError::IsADirectory),
            None => {
                lookup_dir(&t, parent_of(&p))?;
                Err(FsError::NotFound)
            }
        }
    }

    /// Shared body of write/append: validates and returns the node to modify.
    fn file_for_write<'t>(t: &'t mut Tree, p: &str) -> Result<&'t mut Node, FsError> {
        lookup_dir(t, parent_of(p))?;
        if t.get(p).is_some_and(|n| n.data.is_none()) {
            return Err(FsError::IsADirectory);
        }
        check_writable(p)?;
        let node =
            t.entry(p.to_string()).or_insert_with(|| Node { data: Some(Vec::new()), mode: file_mode(p), mtime: 0 });
        node.mtime = now();
        Ok(node)
    }

    /// Creates or truncates a file; its parent must exist.
    pub fn write(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let p = Self::abs(path);
        if p == DEV_NULL {
            return Ok(());
        }
        let mut t = self.lock();
        Self::file_for_write(&mut t, &p)?.data = Some(data.to_vec());
        Ok(())
    }

    /// Appends to a file, creating it if needed; its parent must exist.
    pub fn append(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let p = Self::abs(path);
        if p == DEV_NULL {
            return Ok(());
        }
        let mut t = self.lock();
        let node = Self::file_for_write(&mut t, &p)?;
        if let Some(d) = node.data.as_mut() {
            d.extend_from_slice(data);
        }
        Ok(())
    }

    /// For `adb push`: creates missing parent directories and keeps the permission bits of
    /// `mode` and the given `mtime`.
    pub fn write_with_mode(&self, path: &str, data: &[u8], mode: u32, mtime: u32) -> Result<(), FsError> {
        let p = Self::abs(path);
        if p == DEV_NULL {
            return Ok(());
        }
        let mut t = self.lock();
        Self::make_parents(&mut t, &p)?;
        let node = Self::file_for_write(&mut t, &p)?;
        node.data = Some(data.to_vec());
        node.mode = S_IFREG | (mode & 0o7777);
        node.mtime = mtime;
        Ok(())
    }

    /// Creates every missing ancestor of `p` (not `p` itself).
    fn make_parents(t: &mut Tree, p: &str) -> Result<(), FsError> {
        for (i, _) in p.match_indices('/').skip(1) {
            let anc = p.get(..i).unwrap_or("/");
            match t.get(anc) {
                Some(n) if n.data.is_some() => return Err(FsError::NotADirectory),
                Some(_) => {}
                None => {
                    check_writable(anc)?;
                    t.insert(anc.to_string(), new_dir(anc));
                }
            }
        }
        Ok(())
    }

    pub fn stat(&self, path: &str) -> Option<Meta> {
        self.lock().get(&Self::abs(path)).map(Node::meta)
    }

    /// Direct children of `dir`, sorted by name.
    pub fn list(&self, dir: &str) -> Result<Vec<(String, Meta)>, FsError> {
        let p = Self::abs(dir);
        let t = self.lock();
        match t.get(&p) {
            None => {
                lookup_dir(&t, parent_of(&p))?;
                return Err(FsError::NotFound);
            }
            Some(n) if n.data.is_some() => return Err(FsError::NotADirectory),
            Some(_) => {}
        }
        let prefix = if p == "/" { p } else { format!("{p}/") };
        Ok(t.range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(k, n)| {
                let rest = k.get(prefix.len()..)?;
                (!rest.is_empty() && !rest.contains('/')).then(|| (rest.to_string(), n.meta()))
            })
            .collect())
    }

    pub fn mkdir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        let p = Self::abs(path);
        let mut t = self.lock();
        if let Some(n) = t.get(&p) {
            return if parents && n.data.is_none() { Ok(()) } else { Err(FsError::AlreadyExists) };
        }
        if parents {
            Self::make_parents(&mut t, &p)?;
        } else {
            lookup_dir(&t, parent_of(&p))?;
        }
        check_writable(&p)?;
        t.insert(p.clone(), new_dir(&p));
        Ok(())
    }

    /// Removes a file, or a directory with everything under it when `recursive`.
    pub fn remove(&self, path: &str, recursive: bool) -> Result<(), FsError> {
        let p = Self::abs(path);
        let mut t = self.lock();
        let is_dir = match t.get(&p) {
            None => {
                lookup_dir(&t, parent_of(&p))?;
                return Err(FsError::NotFound);
            }
            Some(n) => n.data.is_none(),
        };
        check_writable(&p)?;
        if is_dir {
            if !recursive {
                return Err(FsError::IsADirectory);
            }
            let prefix = format!("{p}/");
            t.retain(|k, _| !k.starts_with(&prefix));
        }
        t.remove(&p);
        Ok(())
    }

    /// Wipes everything under the writable roots back to the initial tree.
    pub fn clear_writable(&self) {
        let mut t = self.lock();
        t.retain(|k, _| !WRITABLE_ROOTS.iter().any(|r| under(k, r)));
        for (k, n) in initial_tree() {
            t.entry(k).or_insert(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_paths() {
        assert_eq!(MemFs::normalize("a/b/../c/", "/sdcard"), "/sdcard/a/c");
        assert_eq!(MemFs::normalize("//sdcard///x/./y", "/"), "/sdcard/x/y");
        assert_eq!(MemFs::normalize("../../..", "/a"), "/");
        assert_eq!(MemFs::normalize("/storage/emulated/0/a", "/"), "/sdcard/a");
        assert_eq!(MemFs::normalize("/storage/self/primary", "/"), "/sdcard");
        assert_eq!(MemFs::normalize("/storage/emulated/01", "/"), "/storage/emulated/01");
        assert_eq!(MemFs::normalize("", "/"), "/");
    }

    #[test]
    fn write_read_alias() {
        let fs = MemFs::new();
        fs.write("/storage/emulated/0/a", b"hi").unwrap();
        assert_eq!(fs.read("/sdcard/a").unwrap(), b"hi");
        fs.append("/sdcard/a", b"!").unwrap();
        assert_eq!(fs.read("/storage/emulated/0/a").unwrap(), b"hi!");
        let m = fs.stat("/sdcard/a").unwrap();
        assert!(!m.is_dir);
        assert_eq!(m.size, 3);
        assert_eq!(m.mode, 0o100660);
        assert!(m.mtime > 0);
        assert_eq!(fs.read("/sdcard/none"), Err(FsError::NotFound));
        assert_eq!(fs.read("/sdcard"), Err(FsError::IsADirectory));
        assert_eq!(fs.read("/sdcard/a/b"), Err(FsError::NotADirectory));
    }

    #[test]
    fn permissions() {
        let fs = MemFs::new();
        assert_eq!(fs.write("/system/x", b""), Err(FsError::ReadOnly));
        assert_eq!(fs.write("/data/x", b""), Err(FsError::PermissionDenied));
        assert_eq!(fs.write("/nope/x", b""), Err(FsError::NotFound));
        assert_eq!(fs.write("/sdcard", b""), Err(FsError::IsADirectory));
        assert_eq!(fs.remove("/sdcard", true), Err(FsError::PermissionDenied));
        assert_eq!(fs.mkdir("/system/d", false), Err(FsError::ReadOnly));
        fs.write("/data/local/tmp/t", b"x").unwrap();
        fs.write("/dev/null", b"gone").unwrap();
        assert_eq!(fs.read("/dev/null").unwrap(), b"");
    }

    #[test]
    fn dirs_list_remove_clear() {
        let fs = MemFs::new();
        assert_eq!(fs.mkdir("/sdcard/a/b", false), Err(FsError::NotFound));
        fs.mkdir("/sdcard/a/b", true).unwrap();
        fs.mkdir("/sdcard/a/b", true).unwrap();
        assert_eq!(fs.mkdir("/sdcard/a", false), Err(FsError::AlreadyExists));
        fs.write("/sdcard/a/f", b"1").unwrap();
        let names: Vec<String> = fs.list("/sdcard/a").unwrap().into_iter().map(|e| e.0).collect();
        assert_eq!(names, ["b", "f"]);
        let root: Vec<String> = fs.list("/storage/emulated").unwrap().into_iter().map(|e| e.0).collect();
        assert_eq!(root, ["0"]);
        assert_eq!(fs.list("/sdcard/a/f"), Err(FsError::NotADirectory));
        assert_eq!(fs.remove("/sdcard/a", false), Err(FsError::IsADirectory));
        fs.remove("/sdcard/a", true).unwrap();
        assert!(fs.stat("/sdcard/a/b").is_none());
        fs.write("/sdcard/Download/x", b"1").unwrap();
        fs.remove("/sdcard/DCIM", true).unwrap();
        fs.clear_writable();
        assert!(fs.stat("/sdcard/Download/x").is_none());
        assert!(fs.stat("/sdcard/DCIM").is_some_and(|m| m.is_dir));
    }

    #[test]
    fn push_creates_parents_with_mode() {
        let fs = MemFs::new();
        fs.write_with_mode("/sdcard/x/y/z.bin", b"abc", 0o100755, 42).unwrap();
        let m = fs.stat("/sdcard/x/y/z.bin").unwrap();
        assert_eq!((m.mode, m.mtime, m.size), (0o100755, 42, 3));
        assert!(fs.stat("/sdcard/x/y").unwrap().is_dir);
        assert_eq!(fs.write_with_mode("/system/a/b", b"", 0o644, 1), Err(FsError::ReadOnly));
    }
}
