//! The memory database's handle ([`Store`]: a connection and where its file is),
//! what can go wrong with it ([`MemoryError`]), and how every query file writes
//! and reads a run's effects and a timestamp. Not here: opening and migrating
//! (`mod.rs`), the schema (`schema.rs`) or any query.

use std::path::PathBuf;

use rusqlite::Connection;

use crate::trajectory::RunEffects;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("cannot create the memory folder {path}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the memory database {path} cannot be used (another program's file, or damaged?); give another with --memory PATH or run with --no-memory"
    )]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "the memory database {path} was written by a newer codeact (schema {found}, this one knows {known}); upgrade, or use another --memory PATH"
    )]
    Newer { path: PathBuf, found: i64, known: i64 },
    #[error("the memory database failed")]
    Sql(#[from] rusqlite::Error),
    #[error("an experience in memory is damaged (id {0}); `codeact memory forget {0}` removes it")]
    Damaged(i64),
    #[error("no experience {0} in memory; `codeact memory list` shows them")]
    NoSuch(i64),
    #[error("no unverified heal {0} in memory; `codeact memory show ID` lists an experience's")]
    NoCandidate(i64),
}

/// An open memory database.
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// Effects as the `effects` column holds them (NULL: none recorded).
pub(super) fn effects_json(effects: Option<&RunEffects>) -> Option<String> {
    effects.and_then(|e| serde_json::to_string(e).ok())
}

/// The `effects` column read back; `None` when it is damaged.
pub(super) fn parse_effects(json: Option<&str>) -> Option<Option<RunEffects>> {
    match json {
        None => Some(None),
        Some(text) => serde_json::from_str(text).ok().map(Some),
    }
}

pub(super) fn now() -> String {
    jiff::Timestamp::now().to_string()
}
