//! What memory does for a run, before and after it, in one place. Before: open the
//! store, find a successful run of the same task to replay, embed the task, and
//! lend the prompts worked examples, reviewers' lessons, app cards and widget
//! knowledge. After: keep what elements did and what the reviewer said, and keep a
//! successful run as an experience (or mark the replayed one replayed or healed).
//! Not the store (`memory/`) or the replay itself (`strategy/replay.rs`).

use std::collections::HashMap;

use super::outcome::Ending;
use super::progress::{Progress, ProgressSink};
use super::roles::Models;
use codeact_base::error_text::full_message;
use codeact_record::memory::{Experience, ExperienceRow, Store, WidgetFact, WidgetHints};
use codeact_record::trajectory::{RunEffects, StepRecord};

/// Reviewers' notes on earlier runs of the same task a prompt carries (and a run keeps).
const LESSONS: usize = 2;
/// Widget facts loaded for a run's hints (the most seen first).
const WIDGET_FACTS: usize = 5000;
/// How many worked examples from memory a prompt carries.
const EXAMPLES: usize = 2;

/// What memory lends a run's prompts.
#[derive(Debug, Default)]
pub(super) struct LentMemory {
    /// Worked examples of similar tasks.
    pub examples: Option<String>,
    /// Reviewers' notes on earlier runs of this task.
    pub lessons: Vec<String>,
    /// The app cards (shown for the app in front), by package.
    pub cards: HashMap<String, String>,
    /// What acting on elements did in earlier runs.
    pub widgets: WidgetHints,
}

/// What a run learned, for memory to keep after it.
pub(super) struct Learned<'r> {
    pub ending: &'r Ending,
    pub widget_facts: Vec<WidgetFact>,
    pub reflections: &'r [String],
    /// The run as an experience: built only for a successful run (the one kept)
    /// and for a heal that did not reproduce its experience (kept aside).
    pub experience: Option<Experience>,
    /// Requests any model answered during the run (0: a replay that needed none).
    pub llm_calls: usize,
    /// The step a note about keeping is filed under.
    pub steps: usize,
    /// Why the run's reviewer judged a heal that did not reproduce its experience
    /// good all the same (`None`: it was not asked, or did not).
    pub judged: Option<String>,
}

/// Memory's part in one run.
pub(super) struct Recall {
    task: String,
    store: Option<Store>,
    /// A successful run of the same task, to replay.
    recalled: Option<ExperienceRow>,
    /// The task's embedding: its model and vector.
    embedded: Option<(String, Vec<f32>)>,
}

/// The worked examples for `task`: the nearest by embedding when there is one,
/// then the best by BM25, [`EXAMPLES`] in all, as the prompt shows them.
fn worked_examples(store: &Store, task: &str, embedded: Option<&(String, Vec<f32>)>) -> Option<String> {
    let mut rows = match embedded {
        Some((model, vector)) => store.nearest(task, model, vector, EXAMPLES).unwrap_or_default(),
        None => Vec::new(),
    };
    if rows.len() < EXAMPLES {
        for row in store.similar(task, EXAMPLES).unwrap_or_default() {
            if rows.len() < EXAMPLES && !rows.iter().any(|r| r.id == row.id) {
                rows.push(row);
            }
        }
    }
    (!rows.is_empty()).then(|| rows.iter().map(|r| r.experience.as_example()).collect::<Vec<_>>().join("\n"))
}

impl Recall {
    /// Opens the memory at `path` (none: memory is off) and looks `task` up. One
    /// embeddings request per run, made before the run starts its clock. Memory
    /// that cannot be opened or embedded is a note, never the run's end.
    pub(super) async fn before(
        path: Option<&std::path::Path>,
        task: &str,
        embeddings: Option<&str>,
        models: &Models,
        progress: &mut ProgressSink<'_>,
    ) -> Self {
        let store = path.and_then(|path| match Store::open(path) {
            Ok(store) => Some(store),
            Err(e) => {
                let text = format!("memory is off for this run: {}", full_message(&e));
                progress(Progress::Note { step: 0, text: &text });
                None
            }
        });
        let recalled = store
            .as_ref()
            .and_then(|s| s.find_task(task).ok().flatten())
            .filter(|row| !row.experience.steps.is_empty());
        let embedded = match (&store, embeddings) {
            (Some(_), Some(model)) => match models.actor.embed(model, task).await {
                Ok(vector) => Some((model.to_string(), vector)),
                Err(e) => {
                    let text = format!("memory: no embedding for this run, BM25 alone: {}", full_message(&e));
                    progress(Progress::Note { step: 0, text: &text });
                    None
                }
            },
            _ => None,
        };
        Self { task: task.to_string(), store, recalled, embedded }
    }

    /// Whether the run has memory (the store opened).
    pub(super) fn is_on(&self) -> bool {
        self.store.is_some()
    }

    /// The successful run of the same task to replay, if memory holds one.
    pub(super) fn recalled(&self) -> Option<&ExperienceRow> {
        self.recalled.as_ref()
    }

    /// What the prompts borrow (nothing without memory): worked examples only when
    /// nothing is replayed; lessons, cards and widget knowledge always.
    pub(super) fn lend(&self) -> Option<LentMemory> {
        let store = self.store.as_ref()?;
        let examples = match &self.recalled {
            Some(_) => None,
            None => worked_examples(store, &self.task, self.embedded.as_ref()),
        };
        Some(LentMemory {
            examples,
            lessons: store.reflections(&self.task, LESSONS).unwrap_or_default(),
            cards: store.cards().unwrap_or_default().into_iter().collect(),
            widgets: WidgetHints::new(store.widgets(WIDGET_FACTS).unwrap_or_default()),
        })
    }

    /// `ending`, held to what the replayed experience recorded: a replay (healed or
    /// not) that completes without the toggles it left flipped or the screen it
    /// ended on did not do the task, whatever the completion says.
    pub(super) fn hold_to_recorded(&self, ending: Ending, records: &[StepRecord]) -> Ending {
        let recorded = self.recalled.as_ref().and_then(|row| row.experience.effects.as_ref());
        match (&ending, recorded) {
            (Ending::Completed(c), Some(recorded)) if c.success => {
                let missing = recorded.missing_in(&RunEffects::of_records(records));
                if missing.is_empty() { ending } else { Ending::NotReproduced { claimed: c.reason.clone(), missing } }
            }
            _ => ending,
        }
    }

    /// Keeps what the run learned; what memory did, for the summary (nothing
    /// without memory).
    pub(super) fn after(&self, learned: Learned, progress: &mut ProgressSink<'_>) -> Option<String> {
        let Some(store) = &self.store else {
            return None;
        };
        // What elements did, and what the reviewer said, are worth keeping from
        // any run; a failed run's memory note says if they could not be kept.
        let kept_facts = store.learn_widgets(&learned.widget_facts);
        let reviewed =
            learned.reflections.iter().rev().take(LESSONS).try_for_each(|r| store.add_reflection(&self.task, r));
        if let Err(e) = kept_facts.and(reviewed) {
            let text = format!("memory: what this run learned was not kept: {}", full_message(&e));
            progress(Progress::Note { step: learned.steps, text: &text });
        }
        let Some(experience) = learned.experience else {
            return self
                .recalled
                .as_ref()
                .map(|row| format!("replayed experience {}; the run failed, so memory is unchanged", row.id));
        };
        let kept = match (&self.recalled, learned.ending) {
            // The model healed it, and the healed run did not end with what the
            // experience did: the experience stays; the heal waits for a person.
            (Some(row), Ending::NotReproduced { missing, .. }) if learned.llm_calls > 0 => {
                store.add_candidate(row.id, &experience, missing).map(|c| {
                    format!(
                        "replayed experience {id}; the model's heal did not end with what it recorded, so it stays \
                         as it was and the heal is kept unverified (candidate {c}: `codeact memory show {id}`)",
                        id = row.id
                    )
                })
            }
            (Some(row), Ending::NotReproduced { .. }) => Ok(format!(
                "replayed experience {}; the replay did not end with what it recorded, so memory is unchanged",
                row.id
            )),
            (Some(row), _) if let Some(why) = &learned.judged => store.heal(row.id, &experience).map(|()| {
                format!(
                    "replayed experience {}, healed by the model; it did not end with what it recorded, but the \
                     reviewer judged it did the task ({why})",
                    row.id
                )
            }),
            (Some(row), _) if learned.llm_calls == 0 => {
                store.replayed(row.id, experience.effects.as_ref()).map(|()| format!("replayed experience {}", row.id))
            }
            // Nothing recorded to hold the heal to: kept aside for a person to judge.
            (Some(row), _) if row.experience.effects.is_none() => {
                let why = ["its effects (kept before effects were recorded)".to_string()];
                store.add_candidate(row.id, &experience, &why).map(|c| {
                    format!(
                        "replayed experience {id}, healed by the model; it recorded no effects to check the heal \
                         against, so the heal is kept unverified (candidate {c}: `codeact memory show {id}`)",
                        id = row.id
                    )
                })
            }
            (Some(row), _) => store.heal(row.id, &experience).map(|()| {
                format!("replayed experience {}, healed by the model (it ends with what it recorded)", row.id)
            }),
            (None, _) => store.add(&experience).map(|id| format!("kept as experience {id}")),
        };
        let id = self
            .recalled
            .as_ref()
            .map(|row| row.id)
            .or_else(|| store.find_task(&self.task).ok().flatten().map(|r| r.id));
        if let (Some((model, vector)), Some(id)) = (&self.embedded, id) {
            let _ = store.set_embedding(id, model, vector);
        }
        Some(match kept {
            Ok(note) => note,
            Err(e) => format!("not kept: {}", full_message(&e)),
        })
    }
}
