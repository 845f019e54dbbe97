//! A run directory read back, typed: its events in their owned form and the facts
//! of its summary. A line that does not parse (the last one of a killed run, cut
//! mid-write) is skipped; an event this version does not know reads as
//! [`Event::Unknown`]; a summary field of another type reads as absent. Reading
//! never fails: a run with no events has none. Not the writing (`mod.rs`).

use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::event::Event;

/// The events of the run in `dir`, in the order they were written.
pub fn read_events(dir: &Path) -> Vec<Event<'static>> {
    let text =
        codeact_base::files::read_text(&dir.join("events.jsonl"), codeact_base::files::DATA_BYTES).unwrap_or_default();
    events_of(&text)
}

/// The events among the lines of `text` (those that parse).
pub fn events_of(text: &str) -> Vec<Event<'static>> {
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

/// What a run's summary says of it, for reports and traces: the fields a
/// `codeact run` summary and a `codeact exec` summary share or have alone, each
/// absent when missing or of another type.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RunFacts {
    #[serde(default, deserialize_with = "lenient")]
    pub outcome: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub reason: Option<String>,
    /// A script's error.
    #[serde(default, deserialize_with = "lenient")]
    pub error: Option<String>,
    /// The command that replays the run.
    #[serde(default, deserialize_with = "lenient")]
    pub replay: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub run_dir: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub steps: Option<u64>,
    /// A script's duration.
    #[serde(default, deserialize_with = "lenient")]
    pub duration_ms: Option<f64>,
    #[serde(default, deserialize_with = "lenient")]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub persona: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub device: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub strategy: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub memory: Option<String>,
}

/// A field that reads as absent when it holds another type (one odd field does not
/// lose the others).
fn lenient<'de, D: serde::Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(value).ok())
}

impl RunFacts {
    /// The facts of a summary (a `run_end` event's, or `summary.json`'s).
    pub fn of(summary: &serde_json::Value) -> Self {
        Self::deserialize(summary).unwrap_or_default()
    }

    /// The facts of `summary.json` in `dir`; `None` while the run has not finished.
    pub fn read(dir: &Path) -> Option<Self> {
        let text = codeact_base::files::read_text(&dir.join("summary.json"), codeact_base::files::TEXT_BYTES).ok()?;
        let summary: serde_json::Value = serde_json::from_str(&text).ok()?;
        Some(Self::of(&summary))
    }

    /// The facts a report's header lists, in order: (name, value).
    pub fn header(&self) -> [(&'static str, Option<&str>); 5] {
        [
            ("model", self.model.as_deref()),
            ("persona", self.persona.as_deref()),
            ("device", self.device.as_deref()),
            ("strategy", self.strategy.as_deref()),
            ("memory", self.memory.as_deref()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn a_killed_run_reads_up_to_its_cut_line_and_unknown_events_are_kept_as_such() {
        let text = concat!(
            r#"{"event":"step_start","step":1,"t_ms":0.1}"#,
            "\n",
            r#"{"event":"from_a_later_version","step":1,"whatever":[1,2]}"#,
            "\n",
            r#"{"event":"llm_reply","step":1,"text":"Thought: x","prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"ms":3.0,"attempts":1}"#,
            "\n",
            r#"{"event":"step_end","step":1,"wall_ms":9.0,"llm_ms":3.0,"device_ms":1.0,"overhead_ms":5.0}"#,
            "\n",
            r#"{"event":"action","step":2,"tool":"tap","ar"#,
        );
        let events = events_of(text);
        assert_eq!(events.len(), 4, "{events:?}");
        assert!(matches!(events[0], Event::StepStart { step: 1 }));
        assert!(matches!(events[1], Event::Unknown));
        // A reply from before roles were recorded is the actor's.
        assert!(matches!(&events[2], Event::LlmReply { role, prompt_tokens: 5, .. } if role == "actor"));
        // A field left out when zero reads as zero.
        assert!(matches!(events[3], Event::StepEnd { more_actions: 0, .. }));
    }

    #[test]
    fn what_is_written_reads_back_the_same() {
        let items = vec![crate::trajectory::PlanItem {
            goal: "open Settings".into(),
            expect: None,
            app: Some("com.android.settings".into()),
            carry: Vec::new(),
            action: None,
        }];
        let written = Event::Plan { step: 0, replan: 1, items: Cow::Borrowed(&items), why: Some("stuck".into()) };
        let line = serde_json::to_string(&written).unwrap();
        let read: Event<'static> = serde_json::from_str(&line).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), line);
    }

    #[test]
    fn summary_facts_of_another_type_read_as_absent() {
        let facts = RunFacts::of(&serde_json::json!({
            "outcome": "success", "steps": 3, "persona": null, "memory": {"odd": true}, "extra": 1
        }));
        assert_eq!(facts.outcome.as_deref(), Some("success"));
        assert_eq!(facts.steps, Some(3));
        assert_eq!((facts.persona, facts.memory), (None, None));
    }
}
