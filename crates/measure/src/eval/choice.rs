//! Which templates a run of the suite takes: the suite's files (or the built-in
//! ones), the id patterns, the difficulties and categories asked for, and on iOS
//! only those the iPhone can show (the others left out, each with why). `codeact
//! eval` runs, lists and measures survival on what this chooses. Not the running
//! (`suite.rs`, `survival/`) nor how a choice is printed (the binary's `cli/`).

use std::collections::BTreeSet;
use std::path::Path;

use super::task::{TaskError, TaskSpec, load, select};

/// What a run asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Choice<'a> {
    /// A folder of task files instead of the built-in suite.
    pub suite: Option<&'a Path>,
    /// Template ids or patterns (`settings_wifi_*`), comma-separated.
    pub tasks: Option<&'a str>,
    /// Difficulties to keep (all when empty).
    pub difficulty: &'a [String],
    /// Categories to keep (all when empty).
    pub category: &'a [String],
    /// On the virtual iPhone: templates it cannot show are left out.
    pub ios: bool,
}

/// The templates chosen, and those left out on iOS with why.
#[derive(Debug, Clone, Default)]
pub struct Chosen {
    pub tasks: Vec<TaskSpec>,
    pub not_on_ios: Vec<(String, String)>,
}

/// Why nothing, or nothing valid, was chosen.
#[derive(Debug, thiserror::Error)]
pub enum ChoiceError {
    #[error(transparent)]
    Task(#[from] TaskError),
    #[error("no template has the category {category:?}; the categories are: {known}")]
    UnknownCategory { category: String, known: String },
    #[error("no template has that difficulty and category; the categories are: {known}")]
    NoneTagged { known: String },
    #[error("no template chosen runs on iOS; choose others with --tasks")]
    NoneOnIos,
}

impl Choice<'_> {
    /// The templates this choice takes, in the suite's order.
    pub fn resolve(&self) -> Result<Chosen, ChoiceError> {
        let tasks = select(load(self.suite)?, self.tasks)?;
        let tasks = by_tags(tasks, self.difficulty, self.category)?;
        if !self.ios {
            return Ok(Chosen { tasks, not_on_ios: Vec::new() });
        }
        let (left, kept): (Vec<TaskSpec>, Vec<TaskSpec>) = tasks.into_iter().partition(|t| t.not_on_ios.is_some());
        if kept.is_empty() {
            return Err(ChoiceError::NoneOnIos);
        }
        let not_on_ios = left.into_iter().map(|t| (t.id, t.not_on_ios.unwrap_or_default())).collect();
        Ok(Chosen { tasks: kept, not_on_ios })
    }
}

/// The templates whose difficulty and category are among those asked for (all when
/// none are); an error when nothing is left, naming the categories there are.
fn by_tags(tasks: Vec<TaskSpec>, difficulty: &[String], category: &[String]) -> Result<Vec<TaskSpec>, ChoiceError> {
    let known: BTreeSet<String> = tasks.iter().filter_map(|t| t.category.clone()).collect();
    let known_list = || known.iter().cloned().collect::<Vec<_>>().join(", ");
    if let Some(unknown) = category.iter().find(|c| !known.contains(*c)) {
        return Err(ChoiceError::UnknownCategory { category: unknown.clone(), known: known_list() });
    }
    let kept: Vec<TaskSpec> = tasks
        .into_iter()
        .filter(|t| difficulty.is_empty() || t.difficulty.is_some_and(|d| difficulty.iter().any(|w| w == d.as_str())))
        .filter(|t| category.is_empty() || t.category.as_ref().is_some_and(|c| category.contains(c)))
        .collect();
    if kept.is_empty() {
        return Err(ChoiceError::NoneTagged { known: known_list() });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_narrow_the_suite_and_an_unknown_category_names_the_known_ones() {
        let all = Choice::default().resolve().unwrap().tasks.len();
        let easy = ["easy".to_string()];
        let chosen = Choice { difficulty: &easy, ..Choice::default() }.resolve().unwrap();
        assert!(!chosen.tasks.is_empty() && chosen.tasks.len() < all);
        let bogus = ["no-such-category".to_string()];
        let e = Choice { category: &bogus, ..Choice::default() }.resolve().unwrap_err();
        assert!(
            matches!(e, ChoiceError::UnknownCategory { .. }) && e.to_string().contains("the categories are"),
            "{e}"
        );
        let ios = Choice { ios: true, ..Choice::default() }.resolve().unwrap();
        assert_eq!(ios.tasks.len() + ios.not_on_ios.len(), all);
        assert!(ios.tasks.iter().all(|t| t.not_on_ios.is_none()));
    }
}
