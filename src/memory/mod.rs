//! Memory that pays: what successful runs did, kept in SQLite so the next run of
//! the same task can replay it instead of asking the model (`store.rs`: the
//! schema, its migrations, and safe concurrent use; `experience.rs`: a run as a
//! list of replayable steps, each with the precondition a replay checks;
//! `import.rs`: an export file checked whole before any of it is kept).
//!
//! Not here: running a replay (the agent's `replay.rs`) or printing (the CLI).

mod experience;
mod import;
mod store;
mod widgets;

pub use experience::{Experience, ExperienceProblem, ReplayStep, task_key};
pub use import::{ImportError, parse_export};
pub use store::{ExperienceRow, MemoryError, Store, WidgetFact, default_path};
pub use widgets::{WidgetHints, facts_from_records};
