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
//! leaves a note the next attempt at that goal reads.

use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;

use super::react::{Stepped, Stop, steps_until};
use super::tree_memory;
use crate::agent::outcome::Ending;
use crate::agent::progress::{Progress, ProgressSink};
use crate::agent::run::Run;
use crate::sandbox::Completion;
use crate::trajectory::{Event, PlanItem};

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
fn focus(node: &Node, parents: &[String], history: &[String], max_depth: usize) -> String {
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
    } else {
        text.push_str(
            "Write code for this goal and call complete(true, \"...\") when it is done (complete(false, \"why\") \
             if it cannot be); it cannot be split further.",
        );
    }
    text
}

pub(in crate::agent) async fn run(run: &mut Run<'_>, progress: &mut ProgressSink<'_>) -> Ending {
    let root =
        Node { path: "1".into(), goal: run.options.task.clone(), expect: None, depth: 1, steps: run.options.max_steps };
    match solve(run, progress, root, Vec::new()).await {
        Stop::Done(c) => Ending::Completed(c),
        Stop::Failed { ending, .. } | Stop::End(ending) => ending,
    }
}

type Solving<'r> = Pin<Box<dyn Future<Output = Stop> + Send + 'r>>;

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
            match tree_memory::replay(run, &row, progress) {
                Ok(Ok(c)) => {
                    node_event(run, &node, "replayed", Some(c.reason.clone()));
                    return Stop::Done(c);
                }
                Ok(Err(why)) => history.push(format!("{why}; go on from the screen as it is now")),
                Err(ending) => return Stop::End(ending),
            }
        }
        let mut resplits = 0;
        loop {
            let left = node.steps.saturating_sub(run.steps_taken() - first);
            if left == 0 {
                let why = format!("node {} spent its {} steps", node.path, node.steps);
                return failed(run, &node, why, Ending::BudgetSpent { max_steps: run.options.max_steps });
            }
            run.history.new_phase();
            run.set_focus(Some(focus(&node, &parents, &history, max_depth)));
            run.checks.reset_stall();
            let items = match steps_until(run, progress, Some(left), true, node.depth < max_depth).await {
                Stepped::Stopped(Stop::Done(c)) => {
                    node_event(run, &node, "done", Some(c.reason.clone()));
                    if node.depth > 1 {
                        tree_memory::keep_node(run, &node.goal, first);
                    }
                    return Stop::Done(c);
                }
                Stepped::Stopped(Stop::Failed { why, ending }) => return failed(run, &node, why, ending),
                Stepped::Stopped(Stop::End(ending)) => return Stop::End(ending),
                Stepped::Split(items) => items,
            };
            node_event(run, &node, "branch", Some(PlanItem::one_line(&items)));
            let mut lineage = parents.clone();
            lineage.push(node.goal.clone());
            let mut child_failed = None;
            for (i, item) in items.iter().enumerate() {
                // What is left, shared among the children still to run.
                let left = node.steps.saturating_sub(run.steps_taken() - first);
                let share = (left / (items.len() - i)).max(1);
                let child = Node {
                    path: format!("{}.{}", node.path, i + 1),
                    goal: item.goal.clone(),
                    expect: item.expect.clone(),
                    depth: node.depth + 1,
                    steps: share,
                };
                match solve(run, progress, child, lineage.clone()).await {
                    Stop::Done(c) => history.push(format!("sub-goal \"{}\": done ({})", item.goal, c.reason)),
                    Stop::Failed { why, ending } => {
                        history.push(format!("sub-goal \"{}\": failed ({why})", item.goal));
                        child_failed = Some((item.goal.clone(), why, ending));
                        break;
                    }
                    Stop::End(ending) => return Stop::End(ending),
                }
            }
            let Some((goal, why, ending)) = child_failed else {
                let reason = format!("its {} sub-goals are done", items.len());
                node_event(run, &node, "done", Some(reason.clone()));
                if node.depth > 1 {
                    tree_memory::keep_node(run, &node.goal, first);
                }
                return Stop::Done(Completion { success: true, reason });
            };
            if resplits == MAX_RESPLITS {
                return failed(run, &node, format!("sub-goal \"{goal}\" failed: {why}"), ending);
            }
            resplits += 1;
            history.push("Split the goal again from the screen as it is now, or act on it directly.".into());
        }
    })
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

/// The node failed: its event, and a note on its goal for the next attempt.
fn failed(run: &Run<'_>, node: &Node, why: String, ending: Ending) -> Stop {
    node_event(run, node, "failed", Some(why.clone()));
    tree_memory::keep_note(run.options.memory.as_deref(), &node.goal, &format!("this goal failed once: {why}"));
    Stop::Failed { why, ending }
}
