//! Where a run's folder goes: `runs/20261122-073512-turn-off-wi-fi`, the UTC time it
//! started and the task's words, never an existing folder.

use std::path::{Path, PathBuf};

/// A run directory name: `20261122-073512-turn-off-wi-fi`.
pub fn run_dir_name(task: &str) -> String {
    let started = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    let slug: String = task
        .chars()
        .map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .take(40)
        .collect();
    format!("{started}-{}", if slug.is_empty() { "run" } else { &slug })
}

/// A fresh directory for `task` under `out` (`-2`, `-3`... when the name is
/// taken), created now: a name is claimed atomically, and a symlink there is a
/// taken name. When it cannot be created, the name is returned all the same and
/// creating the run's files says why.
pub fn new_run_dir(out: &Path, task: &str) -> PathBuf {
    let base = out.join(run_dir_name(task));
    codeact_base::files::create_fresh_folder(&base).unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_directories_are_dated_and_named_after_the_task() {
        let name = run_dir_name("Turn off Wi-Fi!");
        let (date, rest) = name.split_at(15);
        assert!(date.chars().filter(|c| c.is_ascii_digit()).count() == 14 && date.as_bytes()[8] == b'-', "{name}");
        assert_eq!(rest, "-turn-off-wi-fi");
        assert!(run_dir_name("发送你好").ends_with("-发送你好"), "letters of any script are kept");
        assert!(run_dir_name("???").ends_with("-run"));
    }
}
