//! What `--strategy llm` learns and reads back, in the same memory database every
//! run uses: the agent keeps what each widget did and each completed task (as an
//! experience it can replay) by itself; the explorer adds the reflector's notes on
//! the app, and reads all three back for the planner — so a second exploration of
//! an app starts from what the first learned. Not the database (`memory/store`).

use std::path::Path;

use codeact_record::memory::{MemoryError, Store};

/// How many facts of each kind the planner is shown.
const WIDGETS_SHOWN: usize = 30;
const TASKS_SHOWN: usize = 30;
const NOTES_SHOWN: usize = 3;

/// The key the reflector's notes on an app are kept under.
fn notes_key(app: &str) -> String {
    format!("codeact explore {app}")
}

/// The memory database, when the exploration has one.
pub struct Knowledge {
    store: Option<Store>,
}

impl Knowledge {
    /// Opens the database at `path`; `None`: an exploration that neither reads nor
    /// keeps anything.
    pub fn open(path: Option<&Path>) -> Result<Self, MemoryError> {
        Ok(Self { store: path.map(Store::open).transpose()? })
    }

    /// No database: nothing read back, nothing kept.
    pub fn none() -> Self {
        Self { store: None }
    }

    pub fn is_on(&self) -> bool {
        self.store.is_some()
    }

    /// What acting on the app's widgets did: `.Screen: tap(#{id: "fab"}) → opened .Editor`.
    pub fn widgets(&self, app: &str) -> Vec<String> {
        let Some(store) = &self.store else { return Vec::new() };
        store
            .widgets_of(app, WIDGETS_SHOWN)
            .unwrap_or_default()
            .into_iter()
            .map(|f| format!("{}: {} → {}", f.screen, f.element, f.effect))
            .collect()
    }

    /// Tasks completed in the app before (their experiences), newest first.
    pub fn tasks_done(&self, app: &str) -> Vec<String> {
        let Some(store) = &self.store else { return Vec::new() };
        let mut tasks: Vec<String> = Vec::new();
        for row in store.list().unwrap_or_default() {
            if row.experience.apps.iter().any(|a| a == app) && !tasks.contains(&row.experience.task) {
                tasks.push(row.experience.task);
            }
            if tasks.len() == TASKS_SHOWN {
                break;
            }
        }
        tasks
    }

    /// The reflector's notes on the app, newest first.
    pub fn notes(&self, app: &str) -> Vec<String> {
        let Some(store) = &self.store else { return Vec::new() };
        store.reflections(&notes_key(app), NOTES_SHOWN).unwrap_or_default()
    }

    pub fn keep_note(&self, app: &str, note: &str) -> Result<(), MemoryError> {
        match &self.store {
            Some(store) => store.add_reflection(&notes_key(app), note),
            None => Ok(()),
        }
    }
}
