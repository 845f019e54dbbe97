//! `complete(success, reason)`: the script (or the model) says the task is over. Not
//! a device call: it records no action, and ends the snippet at once.

use rhai::{EvalAltResult, ImmutableString};

use crate::sandbox::FailureKind;
use crate::tools::error::ToolError;
use crate::tools::{Effect, ToolSpec};

pub(crate) const COMPLETE: ToolSpec = ToolSpec {
    name: "complete",
    signature: "complete(success[, reason])",
    doc: "Finish the task: complete(true, \"why\") or complete(false, \"why it failed\").",
    effect: Effect::Finishes,
    register: |r| {
        let (engine, shared, tool) = r.host(1);
        let s = shared.clone();
        let finish = move |success: bool, reason: &str| -> Box<EvalAltResult> {
            if !success && reason.trim().is_empty() {
                return s.fail(tool, FailureKind::BadArgument, format!("{tool}: {}", ToolError::NoReason));
            }
            s.complete(success, reason)
        };
        let f = finish.clone();
        engine.register_fn(tool, move |success: bool| -> Result<(), Box<EvalAltResult>> { Err(f(success, "")) });
        let (engine, _, _) = r.host(2);
        engine.register_fn(tool, move |success: bool, reason: ImmutableString| -> Result<(), Box<EvalAltResult>> {
            Err(finish(success, &reason))
        });
    },
};
