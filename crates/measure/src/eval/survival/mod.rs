//! The replay-survival measurement (`codeact eval --survival`): one recorded run per
//! operation template, replayed under the virtual phone's layout variants in four
//! forms — coordinates, `ui_state` indices, selectors, and selectors replayed by
//! memory with the LLM healing only the steps that no longer fit. `forms.rs` makes
//! the forms from recorded actions, `table.rs` sums results up, `measure.rs` runs
//! it all. Running one suite is `runner.rs`'s.

mod forms;
mod measure;
mod table;

pub use forms::{Form, LAST_VARIANT, coordinates_script, experience, indices_script, selectors_script};
pub use measure::{Healer, Survival, SurvivalError, SurvivalProgress, SurvivalRequest, measure};
pub use table::{Cell, Table};
