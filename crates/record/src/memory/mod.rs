//! Memory that pays: what successful runs did, kept in SQLite so the next run of
//! the same task can replay it instead of asking the model (`store/`: the
//! schema, its migrations, safe concurrent use, and heals kept aside unverified;
//! `experience.rs`: a run as a list of replayable steps, each with the
//! precondition a replay checks, and the effects a replay must end with;
//! `import.rs`: an export file checked whole before any of it is kept).
//!
//! Not here: running a replay (the agent's `replay.rs`) or printing (the CLI).

mod experience;
mod import;
mod store;
mod widgets;

pub use experience::{Experience, ExperienceProblem, ReplayStep, task_key};
pub use import::{ImportError, parse_export};
pub use store::{Candidate, ExperienceRow, MemoryError, Store, WidgetFact, default_path};
pub use widgets::{WidgetHints, element_call, facts_from_records};
