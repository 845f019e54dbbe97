//! The memory database: one SQLite file (`--memory PATH`, by default in the user's
//! data directory), its schema versioned in `PRAGMA user_version` and migrated
//! forward on open, in WAL mode with a busy timeout so concurrent runs (several
//! `codeact run`s, `eval --parallel`) read and write it safely. Experiences are
//! searchable by task and app words (FTS5, BM25).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::experience::{Experience, task_key};
use crate::trajectory::RunEffects;
use schema::{MIGRATIONS, SCHEMA};

mod candidates;
mod handle;
mod schema;

pub use candidates::Candidate;
pub use handle::{MemoryError, Store};
use handle::{effects_json, now, parse_effects};

/// Words left out of a search.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "and", "or", "my", "me", "it", "is", "with", "from", "by",
    "this", "that", "all", "please",
];

/// The most postings (experiences holding the search's words) ranked by BM25 in
/// one search; more are taken newest first.
const RANKED_POSTINGS: i64 = 600;

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
    /// Heals of it kept aside because they did not reproduce its effects.
    pub unverified: usize,
    pub experience: Experience,
}

/// What acting on an element did, as the effect check saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidgetFact {
    pub app: String,
    /// The activity the element was on.
    pub screen: String,
    /// The selector (Rhai source) that found it, with the call: `tap(#{id: "send"})`.
    pub element: String,
    /// `opened .ComposeActivity; keyboard shown`.
    pub effect: String,
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
            "INSERT INTO experiences (task, task_key, apps, steps, created, effects) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                experience.task,
                task_key(&experience.task),
                experience.apps.join(" "),
                steps,
                now(),
                effects_json(experience.effects.as_ref())
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Keeps `experiences` all together or none of them (one transaction); one that
    /// memory already holds (the same task and steps) is not kept again. Returns
    /// how many were added and how many were already there.
    pub fn import(&self, experiences: &[Experience]) -> Result<(usize, usize), MemoryError> {
        // Immediate: it reads, then writes, beside concurrent runs (a deferred one could
        // fail to upgrade its snapshot without waiting out the busy timeout).
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)?;
        let (mut added, mut present) = (0, 0);
        for experience in experiences {
            let steps = serde_json::to_string(&experience.steps).unwrap_or_default();
            let held: bool = tx.query_row(
                "SELECT EXISTS(SELECT 1 FROM experiences WHERE task_key = ?1 AND steps = ?2)",
                params![task_key(&experience.task), steps],
                |r| r.get(0),
            )?;
            if held {
                present += 1;
                continue;
            }
            self.add(experience)?;
            added += 1;
        }
        tx.commit()?;
        Ok((added, present))
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
                "SELECT task, apps, steps, created, healed, replays, effects, \
                 (SELECT COUNT(*) FROM heal_candidates WHERE experience = ?1) FROM experiences WHERE id = ?1",
                params![id],
                |r| {
                    Ok((
                        (r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?),
                        (r.get::<_, String>(3)?, r.get::<_, i64>(4)?, r.get::<_, i64>(5)?),
                        (r.get::<_, Option<String>>(6)?, r.get::<_, i64>(7)?),
                    ))
                },
            )
            .optional()?
            .ok_or(MemoryError::NoSuch(id))?;
        let ((task, apps, steps), (created, healed, replays), (effects, unverified)) = row;
        let steps = serde_json::from_str(&steps).map_err(|_| MemoryError::Damaged(id))?;
        let effects = parse_effects(effects.as_deref()).ok_or(MemoryError::Damaged(id))?;
        let apps = apps.split_whitespace().map(str::to_string).collect();
        Ok(ExperienceRow {
            id,
            created,
            healed: healed != 0,
            replays,
            unverified: unverified as usize,
            experience: Experience { task, apps, steps, effects },
        })
    }

    /// Replaces experience `id`'s steps (and effects) with healed ones.
    pub fn heal(&self, id: i64, experience: &Experience) -> Result<(), MemoryError> {
        let steps = serde_json::to_string(&experience.steps).unwrap_or_default();
        let n = self.conn.execute(
            "UPDATE experiences SET steps = ?2, effects = ?3, healed = healed + 1, replays = replays + 1 WHERE id = ?1",
            params![id, steps, effects_json(experience.effects.as_ref())],
        )?;
        if n == 0 { Err(MemoryError::NoSuch(id)) } else { Ok(()) }
    }

    /// Counts a replay of experience `id` that needed no healing; `effects` (what
    /// the replay ended with) become its effects when it had none recorded.
    pub fn replayed(&self, id: i64, effects: Option<&RunEffects>) -> Result<(), MemoryError> {
        self.conn.execute(
            "UPDATE experiences SET replays = replays + 1, effects = COALESCE(effects, ?2) WHERE id = ?1",
            params![id, effects_json(effects)],
        )?;
        Ok(())
    }

    /// The experiences whose task or apps share words with `query`, best first
    /// (BM25), at most `limit`; the rarest words lead (a word's count of
    /// experiences comes from the index itself).
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<(i64, String, f64)>, MemoryError> {
        let mut words: Vec<String> =
            query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
        words.sort();
        words.dedup();
        // Words every task has say nothing about which one this is.
        words.retain(|w| !STOP_WORDS.contains(&w.as_str()));
        let mut counted = Vec::with_capacity(words.len());
        {
            let mut stmt = self.conn.prepare_cached("SELECT doc FROM experiences_vocab WHERE term = ?1")?;
            for w in words {
                let docs: i64 = stmt.query_row(params![w], |r| r.get(0)).optional()?.unwrap_or(0);
                if docs > 0 {
                    counted.push((docs, w));
                }
            }
        }
        counted.sort();
        // Each word as a quoted FTS5 term: a task's words are not syntax.
        let quoted: Vec<String> = counted.iter().map(|(_, w)| format!("\"{}\"", w.replace('"', ""))).collect();
        if quoted.is_empty() {
            return Ok(Vec::new());
        }
        // First the experiences holding both of the two rarest words, then any of
        // the three rarest. BM25 ranks a candidate set only while its postings are
        // few enough to stay under a millisecond; past that, the newest matches
        // come first (a word that common says little about the task anyway).
        let docs = |n: usize| counted.iter().take(n).map(|(d, _)| *d).sum::<i64>();
        let both = quoted[..quoted.len().min(2)].join(" AND ");
        let mut found = self.matches(&both, limit, docs(1) <= RANKED_POSTINGS)?;
        if found.len() < limit {
            let any = quoted[..quoted.len().min(3)].join(" OR ");
            for hit in self.matches(&any, limit, docs(3) <= RANKED_POSTINGS)? {
                if found.len() < limit && !found.iter().any(|f| f.0 == hit.0) {
                    found.push(hit);
                }
            }
        }
        Ok(found)
    }

    /// The best `limit` matches of an FTS5 query: by BM25 when `ranked`, else the
    /// newest (their score is 0).
    fn matches(&self, query: &str, limit: usize, ranked: bool) -> Result<Vec<(i64, String, f64)>, MemoryError> {
        let sql = if ranked {
            "SELECT rowid, task, bm25(experiences_fts) FROM experiences_fts WHERE experiences_fts MATCH ?1 \
             ORDER BY bm25(experiences_fts) LIMIT ?2"
        } else {
            "SELECT rowid, task, 0.0 FROM experiences_fts WHERE experiences_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2"
        };
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map(params![query, limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Up to `limit` experiences like `task` (sharing words with it, best first),
    /// other than one of exactly this task: worked examples for the prompt.
    pub fn similar(&self, task: &str, limit: usize) -> Result<Vec<ExperienceRow>, MemoryError> {
        let key = task_key(task);
        let mut out = Vec::new();
        for (id, _, _) in self.search(task, limit + 4)? {
            let row = self.get(id)?;
            if task_key(&row.experience.task) != key && !row.experience.steps.is_empty() {
                out.push(row);
            }
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }

    /// Keeps the embedding of experience `id`'s task by `model` (normalised, so a
    /// search is one dot product per experience).
    pub fn set_embedding(&self, id: i64, model: &str, vector: &[f32]) -> Result<(), MemoryError> {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let scale = if norm > 0.0 { 1.0 / norm } else { 0.0 };
        let bytes: Vec<u8> = vector.iter().flat_map(|x| (x * scale).to_le_bytes()).collect();
        self.conn.execute(
            "INSERT INTO embeddings (experience, model, vector) VALUES (?1, ?2, ?3) \
             ON CONFLICT(experience) DO UPDATE SET model = excluded.model, vector = excluded.vector",
            params![id, model, bytes],
        )?;
        Ok(())
    }

    /// The experiences (other than of this very task) whose task embeddings by
    /// `model` are nearest `vector` (cosine), nearest first.
    pub fn nearest(
        &self,
        task: &str,
        model: &str,
        vector: &[f32],
        limit: usize,
    ) -> Result<Vec<ExperienceRow>, MemoryError> {
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let wanted = norm(vector);
        if wanted == 0.0 {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached("SELECT experience, vector FROM embeddings WHERE model = ?1")?;
        let mut scored: Vec<(f32, i64)> = Vec::new();
        let mut rows = stmt.query(params![model])?;
        while let Some(row) = rows.next()? {
            let bytes = row.get_ref(1)?.as_blob().unwrap_or_default();
            if bytes.len() != vector.len() * 4 {
                continue;
            }
            let dot: f32 =
                bytes.chunks_exact(4).zip(vector).map(|(c, a)| a * f32::from_le_bytes([c[0], c[1], c[2], c[3]])).sum();
            scored.push((dot / wanted, row.get(0)?));
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let key = task_key(task);
        let mut out = Vec::new();
        for (_, id) in scored {
            let Ok(row) = self.get(id) else { continue };
            if task_key(&row.experience.task) != key && !row.experience.steps.is_empty() {
                out.push(row);
            }
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }

    /// The app card of `package` (Markdown a user wrote), if there is one.
    pub fn card(&self, package: &str) -> Result<Option<String>, MemoryError> {
        Ok(self
            .conn
            .query_row("SELECT markdown FROM app_cards WHERE package = ?1", params![package], |r| r.get(0))
            .optional()?)
    }

    /// Every app card, by package.
    pub fn cards(&self) -> Result<Vec<(String, String)>, MemoryError> {
        let mut stmt = self.conn.prepare("SELECT package, markdown FROM app_cards ORDER BY package")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Sets (or, with empty text, removes) the app card of `package`.
    pub fn set_card(&self, package: &str, markdown: &str) -> Result<(), MemoryError> {
        if markdown.trim().is_empty() {
            self.conn.execute("DELETE FROM app_cards WHERE package = ?1", params![package])?;
        } else {
            self.conn.execute(
                "INSERT INTO app_cards (package, markdown, updated) VALUES (?1, ?2, ?3)                  ON CONFLICT(package) DO UPDATE SET markdown = excluded.markdown, updated = excluded.updated",
                params![package, markdown, now()],
            )?;
        }
        Ok(())
    }

    /// Keeps what acting on elements did (each fact once per app, screen and
    /// element: the newest effect, and how often it was seen), in one transaction.
    pub fn learn_widgets(&self, facts: &[WidgetFact]) -> Result<(), MemoryError> {
        // Immediate: it reads, then writes, beside concurrent runs (a deferred one could
        // fail to upgrade its snapshot without waiting out the busy timeout).
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)?;
        for f in facts {
            tx.execute(
                "INSERT INTO widget_knowledge (app, screen, element, effect) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT(app, screen, element) DO UPDATE SET effect = excluded.effect, seen = seen + 1",
                params![f.app, f.screen, f.element, f.effect],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The widget knowledge, most seen first (at most `limit` facts).
    pub fn widgets(&self, limit: usize) -> Result<Vec<WidgetFact>, MemoryError> {
        let mut stmt = self.conn.prepare(
            "SELECT app, screen, element, effect FROM widget_knowledge ORDER BY seen DESC, rowid DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map(params![limit as i64], |r| {
            Ok(WidgetFact { app: r.get(0)?, screen: r.get(1)?, element: r.get(2)?, effect: r.get(3)? })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The widget knowledge of one app, most seen first (at most `limit` facts).
    pub fn widgets_of(&self, app: &str, limit: usize) -> Result<Vec<WidgetFact>, MemoryError> {
        let mut stmt = self.conn.prepare(
            "SELECT app, screen, element, effect FROM widget_knowledge WHERE app = ?1 \
             ORDER BY seen DESC, rowid DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![app, limit as i64], |r| {
            Ok(WidgetFact { app: r.get(0)?, screen: r.get(1)?, element: r.get(2)?, effect: r.get(3)? })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Keeps a reviewer's note on a run of `task`.
    pub fn add_reflection(&self, task: &str, text: &str) -> Result<(), MemoryError> {
        self.conn.execute(
            "INSERT INTO reflections (task, text, created) VALUES (?1, ?2, ?3)",
            params![task_key(task), text, now()],
        )?;
        Ok(())
    }

    /// The newest reviewer's notes on earlier runs of exactly this task.
    pub fn reflections(&self, task: &str, limit: usize) -> Result<Vec<String>, MemoryError> {
        let mut stmt = self.conn.prepare("SELECT text FROM reflections WHERE task = ?1 ORDER BY id DESC LIMIT ?2")?;
        let rows = stmt.query_map(params![task_key(task), limit as i64], |r| r.get(0))?;
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
        self.conn.execute("DELETE FROM embeddings WHERE experience = ?1", params![id])?;
        self.conn.execute("DELETE FROM heal_candidates WHERE experience = ?1", params![id])?;
        let n = self.conn.execute("DELETE FROM experiences WHERE id = ?1", params![id])?;
        if n == 0 { Err(MemoryError::NoSuch(id)) } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests;
