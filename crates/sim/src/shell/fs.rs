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
pub(crate) const S_IFDIR: u32 = 0o040000;
pub(crate) const S_IFREG: u32 = 0o100000;
pub(crate) const S_IFCHR: u32 = 0o020000;

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
/// Longest path accepted (Linux `PATH_MAX`).
pub(crate) const PATH_MAX: usize = 4096;
/// Longest path component accepted (Linux `NAME_MAX`).
pub(crate) const NAME_MAX: usize = 255;
/// Total bytes the tree may hold: file contents plus, per node, its path and [`NODE_COST`].
pub(crate) const QUOTA: usize = 512 << 20;
/// What a node costs against [`QUOTA`] besides its path and contents (its "inode").
const NODE_COST: usize = 256;

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

/// What `path -> node` costs against the quota.
fn cost(path: &str, node: &Node) -> usize {
    path.len() + NODE_COST + node.data.as_ref().map_or(0, Vec::len)
}

/// The tree plus its quota accounting.
struct Store {
    t: Tree,
    /// Sum of [`cost`] over `t`.
    used: usize,
    quota: usize,
}

impl Store {
    fn new(quota: usize) -> Store {
        let t = initial_tree();
        let used = t.iter().map(|(k, n)| cost(k, n)).sum();
        Store { t, used, quota }
    }

    /// Fails with `NoSpace` unless `add` more bytes fit after `remove` are freed.
    fn reserve(&self, add: usize, remove: usize) -> Result<(), FsError> {
        let after = self.used.saturating_sub(remove).saturating_add(add);
        if add > remove && after > self.quota { Err(FsError::NoSpace) } else { Ok(()) }
    }

    fn insert_dir(&mut self, path: &str) -> Result<(), FsError> {
        let node = new_dir(path);
        self.reserve(cost(path, &node), 0)?;
        self.used += cost(path, &node);
        self.t.insert(path.to_string(), node);
        Ok(())
    }

    /// Drops the nodes for which `keep` is false, keeping the accounting right.
    fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let mut freed = 0;
        self.t.retain(|k, n| {
            let k_ = keep(k);
            if !k_ {
                freed += cost(k, n);
            }
            k_
        });
        self.used = self.used.saturating_sub(freed);
    }
}

/// The device's files. All methods take `&self` and hold the inner lock only for the call.
pub(crate) struct MemFs {
    nodes: Mutex<Store>,
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

/// Checks that `dir` exists and is a directory. When it is missing, the error is
/// `NotADirectory` if some existing ancestor is a file, else `NotFound` (iterative: the path
/// may have many components).
fn lookup_dir(t: &Tree, dir: &str) -> Result<(), FsError> {
    let mut cur = dir;
    let mut missing = false;
    loop {
        match t.get(cur) {
            Some(n) if n.data.is_none() => return if missing { Err(FsError::NotFound) } else { Ok(()) },
            Some(_) => return Err(FsError::NotADirectory),
            None if cur == "/" => return if missing { Err(FsError::NotFound) } else { Ok(()) },
            None => {
                missing = true;
                cur = parent_of(cur);
            }
        }
    }
}

/// Rejects paths the kernel would refuse with `ENAMETOOLONG`.
fn check_name(path: &str) -> Result<(), FsError> {
    if path.len() > PATH_MAX || path.split('/').any(|c| c.len() > NAME_MAX) {
        return Err(FsError::NameTooLong);
    }
    Ok(())
}

fn initial_tree() -> Tree {
    let mut t = Tree::new();
    for d in INITIAL_DIRS {
        t.insert((*d).to_string(), new_dir(d));
    }
    t.insert(DEV_NULL.to_string(), Node { data: Some(Vec::new()), mode: S_IFCHR | 0o666, mtime: now() });
    t
}

impl std::fmt::Debug for MemFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemFs")
    }
}

impl MemFs {
    pub(crate) fn new() -> Self {
        Self::with_quota(QUOTA)
    }

    /// A file system holding at most `quota` bytes (see [`QUOTA`]).
    fn with_quota(quota: usize) -> Self {
        MemFs { nodes: Mutex::new(Store::new(quota)) }
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        self.nodes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `path` absolute against `cwd`, resolving `.`, `..`, repeated and trailing
    /// slashes, and mapping the `/sdcard` aliases onto `/sdcard`.
    pub(crate) fn normalize(path: &str, cwd: &str) -> String {
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

    /// The absolute form of `path`, after the length checks.
    fn abs(path: &str) -> Result<String, FsError> {
        check_name(path)?;
        Ok(Self::normalize(path, "/"))
    }

    pub(crate) fn read(&self, path: &str) -> Result<Vec<u8>, FsError> {
        let p = Self::abs(path)?;
        let st = self.lock();
        match st.t.get(&p) {
            Some(Node { data: Some(d), .. }) => Ok(if p == DEV_NULL { Vec::new() } else { d.clone() }),
            Some(_) => Err(FsError::IsADirectory),
            None => {
                lookup_dir(&st.t, parent_of(&p))?;
                Err(FsError::NotFound)
            }
        }
    }

    /// Shared body of write/append/write_with_mode: validates, checks the quota, then
    /// replaces (or with `append` extends) the contents and optionally sets (mode, mtime).
    fn store(st: &mut Store, p: &str, append: bool, data: &[u8], mode: Option<(u32, u32)>) -> Result<(), FsError> {
        lookup_dir(&st.t, parent_of(p))?;
        let old = match st.t.get(p) {
            Some(n) if n.data.is_none() => return Err(FsError::IsADirectory),
            Some(n) => Some(cost(p, n)),
            None => None,
        };
        check_writable(p)?;
        let old_cost = old.unwrap_or(0);
        let kept = if append { old_cost.saturating_sub(p.len() + NODE_COST) } else { 0 };
        let new_cost = p.len() + NODE_COST + kept + data.len();
        st.reserve(new_cost, old_cost)?;
        st.used = st.used.saturating_sub(old_cost).saturating_add(new_cost);
        let node =
            st.t.entry(p.to_string()).or_insert_with(|| Node { data: Some(Vec::new()), mode: file_mode(p), mtime: 0 });
        node.mtime = now();
        if let Some(d) = node.data.as_mut() {
            if !append {
                d.clear();
            }
            d.extend_from_slice(data);
        }
        if let Some((mode, mtime)) = mode {
            node.mode = S_IFREG | (mode & 0o7777);
            node.mtime = mtime;
        }
        Ok(())
    }

    /// Creates or truncates a file; its parent must exist.
    pub(crate) fn write(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let p = Self::abs(path)?;
        if p == DEV_NULL {
            return Ok(());
        }
        Self::store(&mut self.lock(), &p, false, data, None)
    }

    /// Appends to a file, creating it if needed; its parent must exist.
    pub(crate) fn append(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let p = Self::abs(path)?;
        if p == DEV_NULL {
            return Ok(());
        }
        Self::store(&mut self.lock(), &p, true, data, None)
    }

    /// For `adb push`: creates missing parent directories and keeps the permission bits of
    /// `mode` and the given `mtime`.
    pub(crate) fn write_with_mode(&self, path: &str, data: &[u8], mode: u32, mtime: u32) -> Result<(), FsError> {
        let p = Self::abs(path)?;
        if p == DEV_NULL {
            return Ok(());
        }
        let mut st = self.lock();
        Self::make_parents(&mut st, &p)?;
        Self::store(&mut st, &p, false, data, Some((mode, mtime)))
    }

    /// Creates every missing ancestor of `p` (not `p` itself); iterative.
    fn make_parents(st: &mut Store, p: &str) -> Result<(), FsError> {
        for (i, _) in p.match_indices('/').skip(1) {
            let anc = p.get(..i).unwrap_or("/");
            match st.t.get(anc) {
                Some(n) if n.data.is_some() => return Err(FsError::NotADirectory),
                Some(_) => {}
                None => {
                    check_writable(anc)?;
                    st.insert_dir(anc)?;
                }
            }
        }
        Ok(())
    }

    /// Puts a file where the system keeps it (an app's APK under `/system` or
    /// `/data/app`), read-only to the shell: the phone's own doing, so the rule that
    /// only `/sdcard` and `/data/local/tmp` are writable does not apply.
    pub(crate) fn install_system_file(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let p = Self::abs(path)?;
        let mut st = self.lock();
        for (i, _) in p.match_indices('/').skip(1) {
            let anc = p.get(..i).unwrap_or("/");
            match st.t.get(anc) {
                Some(n) if n.data.is_some() => return Err(FsError::NotADirectory),
                Some(_) => {}
                None => st.insert_dir(anc)?,
            }
        }
        let node = Node { data: Some(data.to_vec()), mode: S_IFREG | 0o644, mtime: now() };
        let old = st.t.get(&p).map_or(0, |n| cost(&p, n));
        st.reserve(cost(&p, &node), old)?;
        st.used = st.used.saturating_sub(old).saturating_add(cost(&p, &node));
        st.t.insert(p, node);
        Ok(())
    }

    pub(crate) fn stat(&self, path: &str) -> Option<Meta> {
        let p = Self::abs(path).ok()?;
        self.lock().t.get(&p).map(Node::meta)
    }

    /// Direct children of `dir`, sorted by name.
    pub(crate) fn list(&self, dir: &str) -> Result<Vec<(String, Meta)>, FsError> {
        let p = Self::abs(dir)?;
        let st = self.lock();
        match st.t.get(&p) {
            None => {
                lookup_dir(&st.t, parent_of(&p))?;
                return Err(FsError::NotFound);
            }
            Some(n) if n.data.is_some() => return Err(FsError::NotADirectory),
            Some(_) => {}
        }
        let prefix = if p == "/" { p } else { format!("{p}/") };
        Ok(st
            .t
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter_map(|(k, n)| {
                let rest = k.get(prefix.len()..)?;
                (!rest.is_empty() && !rest.contains('/')).then(|| (rest.to_string(), n.meta()))
            })
            .collect())
    }

    pub(crate) fn mkdir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        let p = Self::abs(path)?;
        let mut st = self.lock();
        if let Some(n) = st.t.get(&p) {
            return if parents && n.data.is_none() { Ok(()) } else { Err(FsError::AlreadyExists) };
        }
        if parents {
            Self::make_parents(&mut st, &p)?;
        } else {
            lookup_dir(&st.t, parent_of(&p))?;
        }
        check_writable(&p)?;
        st.insert_dir(&p)
    }

    /// Removes a file, or a directory with everything under it when `recursive`.
    pub(crate) fn remove(&self, path: &str, recursive: bool) -> Result<(), FsError> {
        let p = Self::abs(path)?;
        let mut st = self.lock();
        let is_dir = match st.t.get(&p) {
            None => {
                lookup_dir(&st.t, parent_of(&p))?;
                return Err(FsError::NotFound);
            }
            Some(n) => n.data.is_none(),
        };
        check_writable(&p)?;
        if is_dir && !recursive {
            return Err(FsError::IsADirectory);
        }
        let prefix = format!("{p}/");
        st.retain(|k| k != p.as_str() && !k.starts_with(&prefix));
        Ok(())
    }

    /// Wipes everything under the writable roots back to the initial tree.
    pub(crate) fn clear_writable(&self) {
        let mut st = self.lock();
        st.retain(|k| !WRITABLE_ROOTS.iter().any(|r| under(k, r)));
        for (k, n) in initial_tree() {
            if !st.t.contains_key(&k) {
                st.used = st.used.saturating_add(cost(&k, &n));
                st.t.insert(k, n);
            }
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

    #[test]
    fn name_too_long() {
        let fs = MemFs::new();
        let long = format!("/sdcard/{}", "a".repeat(256));
        assert_eq!(fs.write(&long, b""), Err(FsError::NameTooLong));
        assert_eq!(FsError::NameTooLong.to_string(), "File name too long");
        fs.write(&format!("/sdcard/{}", "a".repeat(255)), b"ok").unwrap();
        let deep = format!("/sdcard{}", "/a".repeat(2100));
        assert_eq!(fs.mkdir(&deep, true), Err(FsError::NameTooLong));
        assert_eq!(fs.read(&deep), Err(FsError::NameTooLong));
        assert!(fs.stat(&deep).is_none());
        assert_eq!(fs.list(&deep), Err(FsError::NameTooLong));
        // 100k components: rejected by length, and normalize/lookup never recurse.
        let huge = "/x".repeat(100_000);
        assert_eq!(fs.write_with_mode(&huge, b"", 0o644, 0), Err(FsError::NameTooLong));
        assert_eq!(MemFs::normalize(&huge, "/").len(), huge.len());
        let t = initial_tree();
        let missing = format!("/sdcard{}", "/m".repeat(100_000));
        assert_eq!(lookup_dir(&t, &missing), Err(FsError::NotFound));
        assert_eq!(lookup_dir(&t, "/dev/null/x/y"), Err(FsError::NotADirectory));
        // A deep but legal tree works.
        let ok = format!("/sdcard{}", "/d".repeat(2000));
        fs.mkdir(&ok, true).unwrap();
        fs.write(&format!("{ok}/f"), b"1").unwrap();
        assert_eq!(fs.read(&format!("{ok}/f")).unwrap(), b"1");
    }

    #[test]
    fn quota() {
        let fs = MemFs::with_quota(Store::new(usize::MAX).used + 10_000);
        assert_eq!(FsError::NoSpace.to_string(), "No space left on device");
        fs.write("/sdcard/a", &[0; 5000]).unwrap();
        assert_eq!(fs.append("/sdcard/a", &[0; 5000]), Err(FsError::NoSpace));
        assert_eq!(fs.write("/sdcard/b", &[0; 5000]), Err(FsError::NoSpace));
        // Rewriting in place and shrinking are allowed; freed space is reusable.
        fs.write("/sdcard/a", &[1; 5100]).unwrap();
        fs.remove("/sdcard/a", false).unwrap();
        fs.write("/sdcard/b", &[0; 9600]).unwrap();
        assert_eq!(fs.mkdir("/sdcard/d", false), Err(FsError::NoSpace));
        fs.clear_writable();
        fs.write("/sdcard/c", &[0; 9000]).unwrap();
        let mut n = 0;
        while fs.mkdir(&format!("/sdcard/d{n}"), false).is_ok() {
            n += 1;
        }
        assert!(n < 10, "{n}");
        assert_eq!(MemFs::new().lock().quota, QUOTA);
    }
}
