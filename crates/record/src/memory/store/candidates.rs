//! Heals kept aside: when a model heals a replay but the healed run does not end
//! with the effects the experience recorded, the experience stays as it was and
//! the heal is kept here, unverified, until a person accepts it (`codeact memory
//! accept`) or the experience is forgotten. Only the newest few per experience are
//! kept. Not the decision to keep one aside (the agent's `recall.rs`).

use rusqlite::{OptionalExtension, params};

use super::handle::{MemoryError, Store, effects_json, now, parse_effects};
use crate::memory::experience::{Experience, ReplayStep};
use crate::trajectory::RunEffects;

/// How many unverified heals one experience keeps (the newest).
const KEPT_PER_EXPERIENCE: i64 = 3;

/// A heal kept aside.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: i64,
    /// The experience it would heal.
    pub experience: i64,
    pub created: String,
    pub steps: Vec<ReplayStep>,
    /// What the healed run ended with.
    pub effects: Option<RunEffects>,
    /// What of the experience's effects the healed run did not end with.
    pub missing: Vec<String>,
}

impl Store {
    /// Keeps `healed` aside as an unverified heal of experience `id` (`missing`: what
    /// it did not reproduce); the oldest past the few kept go. Returns its id.
    pub fn add_candidate(&self, id: i64, healed: &Experience, missing: &[String]) -> Result<i64, MemoryError> {
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO heal_candidates (experience, steps, effects, missing, created) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                id,
                serde_json::to_string(&healed.steps).unwrap_or_default(),
                effects_json(healed.effects.as_ref()),
                serde_json::to_string(missing).unwrap_or_default(),
                now()
            ],
        )?;
        let candidate = tx.last_insert_rowid();
        tx.execute(
            "DELETE FROM heal_candidates WHERE experience = ?1 AND id NOT IN \
             (SELECT id FROM heal_candidates WHERE experience = ?1 ORDER BY id DESC LIMIT ?2)",
            params![id, KEPT_PER_EXPERIENCE],
        )?;
        tx.commit()?;
        Ok(candidate)
    }

    /// The unverified heals of experience `id`, newest first.
    pub fn candidates(&self, id: i64) -> Result<Vec<Candidate>, MemoryError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, created, steps, effects, missing FROM heal_candidates WHERE experience = ?1 ORDER BY id DESC",
        )?;
        let rows =
            stmt.query_map(params![id], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (cid, created, steps, effects, missing): (i64, String, String, Option<String>, String) = row?;
            out.push(Candidate {
                id: cid,
                experience: id,
                created,
                steps: serde_json::from_str(&steps).map_err(|_| MemoryError::Damaged(id))?,
                effects: parse_effects(effects.as_deref()).ok_or(MemoryError::Damaged(id))?,
                missing: serde_json::from_str(&missing).unwrap_or_default(),
            });
        }
        Ok(out)
    }

    /// A person accepts unverified heal `candidate`: it becomes its experience's
    /// steps and effects, and leaves the candidates. Returns the experience's id.
    pub fn accept_candidate(&self, candidate: i64) -> Result<i64, MemoryError> {
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)?;
        let row: Option<(i64, String, Option<String>)> = tx
            .query_row(
                "SELECT experience, steps, effects FROM heal_candidates WHERE id = ?1",
                params![candidate],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let (id, steps, effects) = row.ok_or(MemoryError::NoCandidate(candidate))?;
        let n = tx.execute(
            "UPDATE experiences SET steps = ?2, effects = ?3, healed = healed + 1 WHERE id = ?1",
            params![id, steps, effects],
        )?;
        if n == 0 {
            return Err(MemoryError::NoSuch(id));
        }
        tx.execute("DELETE FROM heal_candidates WHERE id = ?1", params![candidate])?;
        tx.commit()?;
        Ok(id)
    }
}
