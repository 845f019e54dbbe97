//! `--strategy tree`: one kind of node is the whole agent. A node works on its
//! goal: the model either writes code (a terminal node: steps until `complete()`)
//! or splits the goal into sub-goals (`{"subgoals": [{"goal": .., "expect": ..}]}`,
//! a branch node), each a node of the same kind, run depth-first in the same
//! session (sandbox variables carry), each with a step budget cut from its
//! parent's. A node may split only above `--tree-depth`. A child that fails makes
//! its parent split again (at most [`MAX_RESPLITS`] times) from what happened,
//! else the failure goes up with its reason. Events carry each node's path
//! (`1.2.1`). Memory works at every node (`tree_memory.rs`): a remembered way to
//! the node's goal is replayed first, a node that succeeds is kept, and a failure
//! leaves a note (the reviewer's reflection when the run has one) the next attempt
//! at that goal reads. A node that says it is done is judged against its expected
//! screen (`tree_review.rs`): success, partial (the parent goes on, told so) or
//! failure (as if it had failed). A sub-goal given as one plain call (`"do"`:
//! opening an app or a link, going home, a wait) runs without a look or a model
//! call, consecutive ones in one step (`fire_and_forget.rs`).

use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;

use super::react::{Stepped, Stop, steps_until};
use super::tree_review::{self, Verdict};
use super::{fire_and_forget, tree_memory};
use crate::outcome::Ending;
use crate::progress::{Progress, ProgressSink};
use crate::run::Run;
use codeact_engine::sandbox::Completion;
use codeact_record::trajectory::{Event, PlanItem};

/// How many times a node splits again after a sub-goal failed.
const MAX_RESPLITS: usize = 1;

/// One goal of the tree.
#[derive(Debug, Clone)]
struct Node {
    /// `1`, `1.2`, `1.2.1`.
    path: String,
    goal: String,
    expect: Option<String>,
    depth: usize,
    /// The steps this node and its children may take.
    steps: usize,
}

/// What the model reads beside the task while it works on `node`.
fn focus(node: &Node, parents: &[String], history: &[String], max_depth: usize, unasked: &[&str]) -> String {
    let mut text = format!("You work on one goal of the task (node {}): {}\n", node.path, node.goal);
    if let Some(expect) = &node.expect {
        let _ = writeln!(text, "Expected when it is done: {expect}");
    }
    if !parents.is_empty() {
        let _ = writeln!(text, "It is part of: {}", parents.join(" → "));
    }
    for line in history {
        let _ = writeln!(text, "- {line}");
    }
    if node.depth < max_depth {
        text.push_str(
            "If the goal takes one screen or a few actions, write code and call complete(true, \"...\") when it \
             is done (complete(false, \"why\") if it cannot be). If it needs several distinct stages (other apps, \
             other screens), answer instead with JSON only, no code: {\"subgoals\": [{\"goal\": \"...\", \
             \"expect\": \"the screen when it is done\"}]} (2 to 6 sub-goals, in order).",
        );
        if !unasked.is_empty() {
            let _ = write!(
                text,
                " A sub-goal that is one {} call may say so and runs at once, without you: {{\"goal\": \"Go home\", \
                 \"do\": \"home()\"}}.",
                unasked.join(", ")
            );
        }
    } else {
        text.push_str(
            "Write code for this goal and call complete(true, \"...\") when it is done (complete(false, \"why\") \
             if it cannot be); it cannot be split further.",
        );
    }
    text
}

/// How a node ended.
enum NodeEnd {
    /// Done, and `partly` why not wholly when it was judged partial.
    Done {
        completion: Completion,
        partly: Option<String>,
    },
    Failed {
        why: String,
        ending: Ending,
    },
    /// The run ends whatever the tree (the budget, Ctrl-C, the LLM or the device).
    End(Ending),
}

pub(crate) async fn run(run: &mut Run<'_>, progress: &mut ProgressSink<'_>) -> Ending {
    let root =
        Node { path: "1".into(), goal: run.options.task.clone(), expect: None, depth: 1, steps: run.options.max_steps };
    let ended = solve(run, progress, root, Vec::new()).await;
    run.node = None;
    match ended {
        NodeEnd::Done { completion, .. } => Ending::Completed(completion),
        NodeEnd::Failed { ending, .. } | NodeEnd::End(ending) => ending,
    }
}

type Solving<'r> = Pin<Box<dyn Future<Output = NodeEnd> + Send + 'r>>;

/// Works on `node` until it is done, failed, or the run ends.
fn solve<'r, 'a: 'r, 'p: 'r>(
    run: &'r mut Run<'a>,
    progress: &'r mut ProgressSink<'p>,
    node: Node,
    parents: Vec<String>,
) -> Solving<'r> {
    Box::pin(async move {
        let max_depth = run.options.tree_depth.max(1);
        node_event(run, &node, "start", None);
        progress(Progress::Note { step: run.steps_taken(), text: &format!("node {}: {}", node.path, node.goal) });
        let first = run.steps_taken();
        let memory = run.options.memory.clone();
        let mut history: Vec<String> =
            tree_memory::notes(memory.as_deref(), &node.goal).into_iter().map(|n| format!("Earlier: {n}")).collect();
        // A remembered way to this very goal goes first (the task's own is the run's).
        if node.depth > 1
            && let Some(row) = tree_memory::remembered(memory.as_deref(), &node.goal)
        {
            let text = format!("node {}: replaying a remembered way ({} steps)", node.path, row.experience.steps.len());
            progress(Progress::Note { step: run.steps_taken(), text: &text });
            run.node = Some(label(&node));
            match tree_memory::replay(run, &row, progress) {
                Ok(Ok(c)) => {
                    node_event(run, &node, "replayed", Some(c.reason.clone()));
                    return NodeEnd::Done { completion: c, partly: None };
                }
                Ok(Err(why)) => history.push(format!("{why}; go on from the screen as it is now")),
                Err(ending) => return NodeEnd::End(ending),
            }
        }
        // Children are numbered on across re-splits, so each path names one node.
        let (mut resplits, mut numbered) = (0, 0);
        loop {
            let left = node.steps.saturating_sub(run.steps_taken() - first);
            if left == 0 {
                let why = format!("node {} spent its {} steps", node.path, node.steps);
                let ending = Ending::BudgetSpent { max_steps: run.options.max_steps };
                return failed(run, &node, first, why, ending).await;
            }
            run.history.new_phase();
            let unasked = fire_and_forget::offered(|t| run.persona.allows(t));
            run.set_focus(Some(focus(&node, &parents, &history, max_depth, &unasked)));
            run.checks.reset_stall();
            run.node = Some(label(&node));
            let items = match steps_until(run, progress, Some(left), true, node.depth < max_depth).await {
                Stepped::Stopped(Stop::Done(c)) => return finished(run, &node, first, c, None).await,
                Stepped::Stopped(Stop::Failed { why, ending }) => return failed(run, &node, first, why, ending).await,
                Stepped::Stopped(Stop::End(ending)) => return NodeEnd::End(ending),
                Stepped::Split(items) => items,
            };
            node_event(run, &node, "branch", Some(PlanItem::one_line(&items)));
            let mut lineage = parents.clone();
            lineage.push(node.goal.clone());
            let (mut child_failed, mut partly) = (None, Vec::new());
            let mut i = 0;
            while i < items.len() {
                let child = |i: usize, steps: usize| Node {
                    path: format!("{}.{}", node.path, numbered + i + 1),
                    goal: items[i].goal.clone(),
                    expect: items[i].expect.clone(),
                    depth: node.depth + 1,
                    steps,
                };
                // Sub-goals that are one plain call each run together, unasked.
                let batch: Vec<(Node, String)> = items[i..]
                    .iter()
                    .map_while(|item| {
                        item.action.as_deref().and_then(|a| fire_and_forget::statement(a, |t| run.persona.allows(t)))
                    })
                    .enumerate()
                    .map(|(k, code)| (child(i + k, 1), code))
                    .collect();
                if !batch.is_empty() {
                    if run.budget_spent() {
                        return NodeEnd::End(Ending::BudgetSpent { max_steps: run.options.max_steps });
                    }
                    if run.interrupted() {
                        return NodeEnd::End(Ending::Interrupted { during: "" });
                    }
                    i += batch.len();
                    match fire(run, progress, &batch) {
                        Ok(()) => history.extend(batch.iter().map(|(c, _)| format!("sub-goal \"{}\": done", c.goal))),
                        Err((goal, why, ending)) => {
                            history.push(format!("sub-goal \"{goal}\": failed ({why})"));
                            child_failed = Some((goal, why, ending));
                            break;
                        }
                    }
                    continue;
                }
                // What is left, shared among the children still to run.
                let left = node.steps.saturating_sub(run.steps_taken() - first);
                let share = (left / (items.len() - i)).max(1);
                let goal = items[i].goal.clone();
                i += 1;
                match solve(run, progress, child(i - 1, share), lineage.clone()).await {
                    NodeEnd::Done { completion, partly: None } => {
                        history.push(format!("sub-goal \"{goal}\": done ({})", completion.reason));
                    }
                    NodeEnd::Done { partly: Some(why), .. } => {
                        history.push(format!("sub-goal \"{goal}\": done only in part ({why})"));
                        partly.push(format!("\"{goal}\": {why}"));
                    }
                    NodeEnd::Failed { why, ending } => {
                        history.push(format!("sub-goal \"{goal}\": failed ({why})"));
                        child_failed = Some((goal, why, ending));
                        break;
                    }
                    NodeEnd::End(ending) => return NodeEnd::End(ending),
                }
            }
            run.node = Some(label(&node));
            numbered += items.len();
            let Some((goal, why, ending)) = child_failed else {
                let reason = format!("its {} sub-goals are done", items.len());
                let partly =
                    (!partly.is_empty()).then(|| format!("sub-goals done only in part: {}", partly.join("; ")));
                return finished(run, &node, first, Completion { success: true, reason }, partly).await;
            };
            if resplits == MAX_RESPLITS {
                return failed(run, &node, first, format!("sub-goal \"{goal}\" failed: {why}"), ending).await;
            }
            resplits += 1;
            history.push("Split the goal again from the screen as it is now, or act on it directly.".into());
        }
    })
}

/// `1.2 Open Settings`: what a step record says of its node.
fn label(node: &Node) -> String {
    format!("{} {}", node.path, node.goal)
}

/// Runs a batch of fire-and-forget sub-goals as one step, one line each; the
/// first that fails (known by its line) fails there.
fn fire(
    run: &mut Run<'_>,
    progress: &mut ProgressSink<'_>,
    batch: &[(Node, String)],
) -> Result<(), (String, String, Ending)> {
    for (child, _) in batch {
        node_event(run, child, "start", None);
    }
    let code: Vec<&str> = batch.iter().map(|(_, code)| code.as_str()).collect();
    let goals: Vec<&str> = batch.iter().map(|(c, _)| c.goal.as_str()).collect();
    let paths: Vec<&str> = batch.iter().map(|(c, _)| c.path.as_str()).collect();
    run.node = Some(format!("{} {}", paths.join(" + "), goals.join("; ")));
    let error = run.fire(&code.join("\n"), &format!("(no model call) {}", goals.join("; ")), progress);
    let failed_at = error.as_ref().map(|e| e.line.unwrap_or(1).clamp(1, batch.len()) - 1);
    for (k, (child, _)) in batch.iter().enumerate() {
        match (failed_at, &error) {
            (Some(at), Some(e)) if at == k => {
                let why = format!("{} failed: {}", batch[k].1, e.message);
                node_event(run, child, "failed", Some(why.clone()));
                let ending = Ending::Completed(Completion { success: false, reason: why.clone() });
                return Err((child.goal.clone(), why, ending));
            }
            _ => node_event(run, child, "done", Some("run without a model call".into())),
        }
    }
    Ok(())
}

fn node_event(run: &Run<'_>, node: &Node, state: &str, detail: Option<String>) {
    run.event(&Event::Node {
        step: run.steps_taken(),
        path: node.path.as_str().into(),
        goal: node.goal.as_str().into(),
        state: state.into(),
        detail: detail.map(Into::into),
    });
}

/// A node that says it is done: judged against its expected screen (not the root,
/// whose completion the run checks), kept in memory when it succeeded.
async fn finished(
    run: &mut Run<'_>,
    node: &Node,
    first: usize,
    completion: Completion,
    partly: Option<String>,
) -> NodeEnd {
    if node.depth == 1 {
        node_event(run, node, "done", Some(completion.reason.clone()));
        return NodeEnd::Done { completion, partly };
    }
    let verdict = match tree_review::judge(run, &node.goal, node.expect.as_deref(), first, &completion.reason).await {
        Verdict::Success => partly.map_or(Verdict::Success, Verdict::Partial),
        judged => judged,
    };
    match verdict {
        Verdict::Success => {
            node_event(run, node, "done", Some(completion.reason.clone()));
            tree_memory::keep_node(run, &node.goal, first);
            NodeEnd::Done { completion, partly: None }
        }
        Verdict::Partial(why) => {
            node_event(run, node, "partial", Some(why.clone()));
            NodeEnd::Done { completion, partly: Some(why) }
        }
        Verdict::Failure(why) => {
            let ending = Ending::Completed(Completion { success: false, reason: why.clone() });
            failed(run, node, first, why, ending).await
        }
    }
}

/// The node failed: its event, and a note on its goal for the next attempt. With a
/// reviewer, its reflection on the node's steps joins both the note and the reason
/// the parent reads before it splits again (the root's only when memory keeps it).
async fn failed(run: &mut Run<'_>, node: &Node, first: usize, why: String, ending: Ending) -> NodeEnd {
    node_event(run, node, "failed", Some(why.clone()));
    let read_later = node.depth > 1 || run.options.memory.is_some();
    let reflection = match read_later {
        true => tree_review::reflection(run, &node.goal, &why, first).await,
        false => None,
    };
    let mut note = format!("this goal failed once: {why}");
    let mut why = why;
    if let Some(reflection) = reflection {
        run.event(&Event::Reflection { step: run.steps_taken(), text: reflection.as_str().into() });
        note = format!("{note}. Reviewer: {reflection}");
        why = format!("{why}; the reviewer: {reflection}");
    }
    tree_memory::keep_note(run.options.memory.as_deref(), &node.goal, &note);
    NodeEnd::Failed { why, ending }
}
