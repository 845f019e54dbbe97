//! The memory database: one SQLite file (`--memory PATH`, by default in the user's
//! data directory), its schema versioned in `PRAGMA user_version` and migrated
//! forward on open, in WAL mode with a busy timeout so concurrent runs (several
//! `codeact run`s, `eval --parallel`) read and write it safely. Experiences are
//! searchable by task and app words (FTS5, BM25).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::experience::{Experience, task_key};

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
}

/// The schema version this build writes.
const SCHEMA: i64 = 1;

/// Each migration takes the database from the version before it to its index + 1.
const MIGRATIONS: &[&str] = &[
    // 1: experiences (with full-text search), widget knowledge, reflections, app cards.
    "CREATE TABLE experiences (
        id INTEGER PRIMARY KEY,
        task TEXT NOT NULL,
        task_key TEXT NOT NULL,
        apps TEXT NOT NULL,
        steps TEXT NOT NULL,
        created TEXT NOT NULL,
        healed INTEGER NOT NULL DEFAULT 0,
        replays INTEGER NOT NULL DEFAULT 0
     );
     CREATE INDEX experiences_by_key ON experiences(task_key);
     CREATE VIRTUAL TABLE experiences_fts USING fts5(task, apps, content='experiences', content_rowid='id');
     CREATE TRIGGER experiences_ai AFTER INSERT ON experiences BEGIN
        INSERT INTO experiences_fts(rowid, task, apps) VALUES (new.id, new.task, new.apps);
     END;
     CREATE TRIGGER experiences_ad AFTER DELETE ON experiences BEGIN
        INSERT INTO experiences_fts(experiences_fts, rowid, task, apps) VALUES ('delete', old.id, old.task, old.apps);
     END;
     CREATE TABLE widget_knowledge (
        app TEXT NOT NULL, screen TEXT NOT NULL, element TEXT NOT NULL, effect TEXT NOT NULL,
        seen INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (app, screen, element)
     );
     CREATE TABLE reflections (id INTEGER PRIMARY KEY, task TEXT NOT NULL, text TEXT NOT NULL, created TEXT NOT NULL);
     CREATE TABLE app_cards (package TEXT PRIMARY KEY, markdown TEXT NOT NULL, updated TEXT NOT NULL);",
];

/// `codeact`'s memory in the user's data directory (`$XDG_DATA_HOME/codeact`, else
/// `~/.local/share/codeact`), or `None` when there is no home.
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".local/share"))
    })?;
    Some(base.join("codeact").join("memory.sqlite"))
}

/// One stored experience, as listings show it.
#[derive(Debug, Clone)]
pub struct ExperienceRow {
    pub id: i64,
    pub created: String,
    pub healed: bool,
    pub replays: i64,
    pub experience: Experience,
}

/// An open memory database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating, and migrating forward) the database at `path`.
    pub fn open(path: &Path) -> Result<Self, MemoryError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| MemoryError::Folder { path: dir.to_path_buf(), source })?;
        }
        let open = |source| MemoryError::Open { path: path.to_path_buf(), source };
        let conn = Connection::open(path).map_err(open)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(open)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(open)?;
        let mut store = Self { conn, path: path.to_path_buf() };
        store.migrate()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn migrate(&mut self) -> Result<(), MemoryError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA {
            return Err(MemoryError::Newer { path: self.path.clone(), found: version, known: SCHEMA });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Keeps `experience`; returns its id.
    pub fn add(&self, experience: &Experience) -> Result<i64, MemoryError> {
        let steps = serde_json::to_string(&experience.steps).unwrap_or_default();
        self.conn.execute(
            "INSERT INTO experiences (task, task_key, apps, steps, created) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![experience.task, task_key(&experience.task), experience.apps.join(" "), steps, now()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The newest experience of exactly this task (by its words), if any.
    pub fn find_task(&self, task: &str) -> Result<Option<ExperienceRow>, MemoryError> {
        let id: Option<i64> = self
            .conn
            .query_row(
                "SELECT id FROM experiences WHERE task_key = ?1 ORDER BY id DESC LIMIT 1",
                params![task_key(task)],
                |r| r.get(0),
            )
            .optional()?;
        id.map(|id| self.get(id)).transpose()
    }

    /// Experience `id`.
    pub fn get(&self, id: i64) -> Result<ExperienceRow, MemoryError> {
        let row = self
            .conn
            .query_row(
                "SELECT task, apps, steps, created, healed, replays FROM experiences WHERE id = ?1",
                params![id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                    ))
                },
            )
            .optional()?
            .ok_or(MemoryError::NoSuch(id))?;
        let (task, apps, steps, created, healed, replays) = row;
        let steps = serde_json::from_str(&steps).map_err(|_| MemoryError::Damaged(id))?;
        let apps = apps.split_whitespace().map(str::to_string).collect();
        Ok(ExperienceRow { id, created, healed: healed != 0, replays, experience: Experience { task, apps, steps } })
    }

    /// Replaces experience `id`'s steps with healed ones.
    pub fn heal(&self, id: i64, experience: &Experience) -> Result<(), MemoryError> {
        let steps = serde_json::to_string(&experience.steps).unwrap_or_default();
        let n = self.conn.execute(
            "UPDATE experiences SET steps = ?2, healed = healed + 1, replays = replays + 1 WHERE id = ?1",
            params![id, steps],
        )?;
        if n == 0 { Err(MemoryError::NoSuch(id)) } else { Ok(()) }
    }

    /// Counts a replay of experience `id` that needed no healing.
    pub fn replayed(&self, id: i64) -> Result<(), MemoryError> {
        self.conn.execute("UPDATE experiences SET replays = replays + 1 WHERE id = ?1", params![id])?;
        Ok(())
    }

    /// The experiences whose task or apps share words with `query`, best first
    /// (BM25), at most `limit`.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<(i64, String, f64)>, MemoryError> {
        // Each word as a quoted FTS5 term, any of them: a task's words are not syntax.
        let terms: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| format!("\"{}\"", w.to_lowercase()))
            .collect();
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT rowid, task, bm25(experiences_fts) FROM experiences_fts WHERE experiences_fts MATCH ?1 \
             ORDER BY bm25(experiences_fts) LIMIT ?2",
        )?;
        let rows =
            stmt.query_map(params![terms.join(" OR "), limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every experience, newest first.
    pub fn list(&self) -> Result<Vec<ExperienceRow>, MemoryError> {
        let ids: Vec<i64> = {
            let mut stmt = self.conn.prepare("SELECT id FROM experiences ORDER BY id DESC")?;
            stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?
        };
        ids.into_iter().map(|id| self.get(id)).collect()
    }

    /// Removes experience `id`.
    pub fn forget(&self, id: i64) -> Result<(), MemoryError> {
        let n = self.conn.execute("DELETE FROM experiences WHERE id = ?1", params![id])?;
        if n == 0 { Err(MemoryError::NoSuch(id)) } else { Ok(()) }
    }
}

fn now() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::ReplayStep;

    fn experience(task: &str) -> Experience {
        let step = ReplayStep {
            intent: "open Settings".into(),
            code: "start_app(\"com.android.settings\");".into(),
            app: "com.android.launcher3".into(),
            activity: ".Launcher".into(),
            anchor: None,
        };
        Experience { task: task.into(), apps: vec!["com.android.settings".into()], steps: vec![step] }
    }

    #[test]
    fn experiences_are_kept_found_searched_healed_and_forgotten() {
        let dir = std::env::temp_dir().join(format!("codeact-memory-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("deep/memory.sqlite");
        let store = Store::open(&path).unwrap();
        let id = store.add(&experience("Turn off Wi-Fi")).unwrap();
        store.add(&experience("Add an alarm at 7:30")).unwrap();
        let found = store.find_task("turn off wi-fi.").unwrap().unwrap();
        assert_eq!((found.id, found.experience.steps.len()), (id, 1));
        let hits = store.search("switch wi-fi off", 5).unwrap();
        assert_eq!(hits.first().map(|h| h.0), Some(id));
        assert!(store.search("\"; DROP TABLE experiences; --", 5).unwrap().is_empty());
        store.heal(id, &experience("Turn off Wi-Fi")).unwrap();
        assert!(store.get(id).unwrap().healed);
        // A second connection, as a concurrent run has, sees and writes the same data.
        let other = Store::open(&path).unwrap();
        assert_eq!(other.list().unwrap().len(), 2);
        other.forget(id).unwrap();
        assert!(store.find_task("Turn off Wi-Fi").unwrap().is_none());
        assert!(matches!(store.forget(id), Err(MemoryError::NoSuch(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
