//! `codeact memory import`: a file written by `codeact memory export` read back
//! whole and checked before any of it is kept. Every line must be an experience
//! within the sizes a recorded run has, with preconditions that read as selector
//! literals; one bad line keeps nothing and names the line. An experience memory
//! already holds (the same task and steps) is not kept twice, so importing a file
//! again adds nothing.
//! Not here: the transaction itself (`store.rs`) or printing (the CLI).

use super::experience::{Experience, ExperienceProblem};

/// Why an export file cannot be imported (nothing of it was kept).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("line {line} is not an experience written by `codeact memory export`; nothing was imported")]
    NotAnExperience {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("line {line}: the experience cannot be kept; nothing was imported")]
    Refused {
        line: usize,
        #[source]
        problem: ExperienceProblem,
    },
}

/// The experiences of an export file's text, each checked; blank lines are skipped.
pub fn parse_export(text: &str) -> Result<Vec<Experience>, ImportError> {
    let mut experiences = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let experience: Experience =
            serde_json::from_str(line).map_err(|source| ImportError::NotAnExperience { line: n + 1, source })?;
        experience.check().map_err(|problem| ImportError::Refused { line: n + 1, problem })?;
        experiences.push(experience);
    }
    Ok(experiences)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r##"{"task":"Turn off Wi-Fi","apps":["com.android.settings"],"steps":[{"intent":"open","code":"tap(#{id: \"wifi_switch\"});","app":"com.android.settings","activity":".Settings","anchor":"#{\"id\": \"wifi_switch\"}"}]}"##;

    #[test]
    fn a_file_is_read_whole_or_not_at_all() {
        assert_eq!(parse_export(&format!("{GOOD}\n\n{GOOD}\n")).unwrap().len(), 2);
        let err = parse_export(&format!("{GOOD}\nnot json\n")).unwrap_err();
        assert!(matches!(err, ImportError::NotAnExperience { line: 2, .. }), "{err}");
        let looping = GOOD.replace(r##""anchor":"#{\"id\": \"wifi_switch\"}""##, r#""anchor":"loop { }""#);
        let err = parse_export(&format!("{GOOD}\n{looping}")).unwrap_err();
        assert!(matches!(err, ImportError::Refused { line: 2, problem: ExperienceProblem::Anchor { step: 1, .. } }));
        let huge = GOOD.replace("tap(#{id: \\\"wifi_switch\\\"});", &"x".repeat(2 << 20));
        let err = parse_export(&huge).unwrap_err();
        assert!(matches!(err, ImportError::Refused { problem: ExperienceProblem::TooLarge { .. }, .. }), "{err}");
    }
}
