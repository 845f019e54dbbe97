//! The tree of nodes behind [`MemFs`](super::MemFs) and its quota accounting: what a node
//! costs, the directories a fresh phone has, and how a directory is looked up. Not the rules
//! for which paths may be written (`rules`) nor the file operations (`mod.rs`).

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use super::meta::{DEV_NULL, FsError, Meta, NODE_COST, S_IFCHR};
use super::rules::{dir_mode, parent_of};

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

#[derive(Debug, Clone)]
pub(super) struct Node {
    /// `None` for directories.
    pub(super) data: Option<Vec<u8>>,
    pub(super) mode: u32,
    pub(super) mtime: u32,
}

impl Node {
    pub(super) fn meta(&self) -> Meta {
        Meta {
            is_dir: self.data.is_none(),
            size: self.data.as_ref().map_or(4096, |d| d.len() as u64),
            mode: self.mode,
            mtime: self.mtime,
        }
    }
}

pub(super) type Tree = BTreeMap<String, Node>;

/// What `path -> node` costs against the quota.
pub(super) fn cost(path: &str, node: &Node) -> usize {
    path.len() + NODE_COST + node.data.as_ref().map_or(0, Vec::len)
}

/// The tree plus its quota accounting.
pub(super) struct Store {
    pub(super) t: Tree,
    /// Sum of [`cost`] over `t`.
    pub(super) used: usize,
    pub(super) quota: usize,
}

impl Store {
    pub(super) fn new(quota: usize) -> Store {
        let t = initial_tree();
        let used = t.iter().map(|(k, n)| cost(k, n)).sum();
        Store { t, used, quota }
    }

    /// Fails with `NoSpace` unless `add` more bytes fit after `remove` are freed.
    pub(super) fn reserve(&self, add: usize, remove: usize) -> Result<(), FsError> {
        let after = self.used.saturating_sub(remove).saturating_add(add);
        if add > remove && after > self.quota { Err(FsError::NoSpace) } else { Ok(()) }
    }

    pub(super) fn insert_dir(&mut self, path: &str) -> Result<(), FsError> {
        let node = new_dir(path);
        self.reserve(cost(path, &node), 0)?;
        self.used += cost(path, &node);
        self.t.insert(path.to_string(), node);
        Ok(())
    }

    /// Drops the nodes for which `keep` is false, keeping the accounting right.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
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

pub(super) fn now() -> u32 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| u32::try_from(d.as_secs()).unwrap_or(u32::MAX)).unwrap_or(0)
}

fn new_dir(path: &str) -> Node {
    Node { data: None, mode: dir_mode(path), mtime: now() }
}

/// Checks that `dir` exists and is a directory. When it is missing, the error is
/// `NotADirectory` if some existing ancestor is a file, else `NotFound` (iterative: the path
/// may have many components).
pub(super) fn lookup_dir(t: &Tree, dir: &str) -> Result<(), FsError> {
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

pub(super) fn initial_tree() -> Tree {
    let mut t = Tree::new();
    for d in INITIAL_DIRS {
        t.insert((*d).to_string(), new_dir(d));
    }
    t.insert(DEV_NULL.to_string(), Node { data: Some(Vec::new()), mode: S_IFCHR | 0o666, mtime: now() });
    t
}
