//! In-memory file system behind the simulated device's shell and sync (push/pull) service:
//! [`MemFs`] and what it reports. Not a real VFS: no symlinks (only the fixed `/sdcard`
//! aliases), no owners, no permission checks beyond `rules`; `/dev/null` is the only device
//! node (`/dev/tty` and friends are left to callers). The nodes and quota live in `store`.

mod meta;
mod rules;
mod store;

#[cfg(test)]
mod tests;

use std::sync::{Mutex, MutexGuard};

use meta::{DEV_NULL, NODE_COST, WRITABLE_ROOTS};
pub(crate) use meta::{FsError, Meta, NAME_MAX, PATH_MAX, QUOTA, S_IFREG};
use rules::{check_name, check_writable, file_mode, parent_of, under};
use store::{Node, Store, cost, initial_tree, lookup_dir, now};

const SDCARD_ALIASES: &[&str] = &["/storage/emulated/0", "/storage/self/primary"];

/// The device's files. All methods take `&self` and hold the inner lock only for the call.
pub(crate) struct MemFs {
    nodes: Mutex<Store>,
}

impl Default for MemFs {
    fn default() -> Self {
        Self::new()
    }
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
