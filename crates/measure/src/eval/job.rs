//! The instances a suite runs: every template's instances and repeats in a fixed
//! order, this machine's shard of them, the options they share, and the faults
//! injected into each. Not running them (`runner.rs`, `instance.rs`) or their
//! results (`results.rs`).

use std::path::PathBuf;

use super::task::TaskSpec;

/// Faults a run can add to every instance, through simctl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// A blocker at the first screen change: "isn't responding", "keeps stopping",
    /// a permission request, a rate or an update popup (which one follows from the
    /// instance's seed).
    Dialog,
    /// Every screen change settles over 300 ms, in steps.
    SlowUi,
    /// 30 ms before every device command.
    Latency,
}

/// The blockers `--faults dialog` picks from.
const DIALOG_KINDS: [&str; 5] = ["anr", "crash", "permission", "rate", "update"];

impl Fault {
    /// The simctl command that injects the fault into an instance with `seed`.
    pub(super) fn command(self, seed: u64) -> String {
        match self {
            Fault::Dialog => {
                format!("simctl fault dialog {}", DIALOG_KINDS[(seed % DIALOG_KINDS.len() as u64) as usize])
            }
            Fault::SlowUi => "simctl slow-ui 300".into(),
            Fault::Latency => "simctl fault latency 30".into(),
        }
    }
}
/// What every instance of a suite shares.
pub struct EvalOptions {
    pub seed: u64,
    pub instances: usize,
    pub repeat: usize,
    pub parallel: usize,
    /// Run only this shard's instances (`--shard I/N`, from 1: instance k of the
    /// plan is shard `k mod N + 1`'s).
    pub shard: Option<codeact_flows::shard::Shard>,
    pub faults: Vec<Fault>,
    /// The virtual phone's layout variant (`simctl variant`; 0: the apps as written).
    pub variant: u32,
    pub out_dir: PathBuf,
    /// Export every instance's run (the oracle's script, or the agent's run) as a
    /// trace (`--otlp`).
    pub traces: Option<std::sync::Arc<codeact_record::trace::Traces>>,
}

/// One instance to run.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    pub task: usize,
    pub instance: usize,
    pub repeat: usize,
}
/// Every instance of the suite in a fixed order, then this machine's shard.
pub fn plan(tasks: &[TaskSpec], options: &EvalOptions) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (t, _) in tasks.iter().enumerate() {
        for instance in 0..options.instances {
            for repeat in 0..options.repeat {
                jobs.push(Job { task: t, instance, repeat });
            }
        }
    }
    match options.shard {
        Some(shard) if shard.count > 1 => {
            jobs.into_iter().enumerate().filter(|(k, _)| shard.takes(*k)).map(|(_, j)| j).collect()
        }
        _ => jobs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::task;

    #[test]
    fn shards_split_the_plan_without_overlap() {
        let tasks = task::load(None).unwrap();
        let mut options = EvalOptions {
            seed: 1,
            instances: 2,
            repeat: 1,
            parallel: 1,
            shard: None,
            faults: vec![],
            variant: 0,
            out_dir: PathBuf::new(),
            traces: None,
        };
        let all = plan(&tasks, &options).len();
        options.shard = Some(codeact_flows::shard::Shard { index: 1, count: 3 });
        let a = plan(&tasks, &options).len();
        options.shard = Some(codeact_flows::shard::Shard { index: 2, count: 3 });
        let b = plan(&tasks, &options).len();
        options.shard = Some(codeact_flows::shard::Shard { index: 3, count: 3 });
        let c = plan(&tasks, &options).len();
        assert_eq!(a + b + c, all);
    }
}
