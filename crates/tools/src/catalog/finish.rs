//! `complete(success, reason)`: the script (or the model) says the task is over. Not
//! a device call: it records no action, and ends the snippet at once.

use rhai::{Dynamic, EvalAltResult, ImmutableString};

use crate::catalog::registry::take;
use codeact_engine::isolation::Param;

use crate::catalog::spec::{Access, ParamKind, ParamSpec, Replay, Role, ToolSpec};
use crate::error::ToolError;
use codeact_engine::sandbox::FailureKind;

pub(crate) const COMPLETE: ToolSpec = ToolSpec {
    name: "complete",
    params: &[
        ParamSpec::new("success", ParamKind::Boolean, "whether the task is done"),
        ParamSpec::optional("reason", ParamKind::Text, "what was achieved, or why it failed"),
    ],
    doc: "Finish the task: complete(true, \"why\") or complete(false, \"why it failed\").",
    access: Access::Finishes,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        let (_, shared, tool, _) = r.context();
        let finish = move |success: bool, reason: &str| -> Box<EvalAltResult> {
            if !success && reason.trim().is_empty() {
                return shared.fail(tool, FailureKind::BadArgument, format!("{tool}: {}", ToolError::NoReason));
            }
            shared.complete(success, reason)
        };
        let f = finish.clone();
        r.add(
            vec![Param::Bool],
            Box::new(move |args: Vec<Dynamic>| {
                let mut args = args.into_iter();
                Err(f(take(tool, &mut args)?, ""))
            }),
        );
        r.add(
            vec![Param::Bool, Param::Str],
            Box::new(move |args: Vec<Dynamic>| {
                let mut args = args.into_iter();
                let success = take(tool, &mut args)?;
                let reason: ImmutableString = take(tool, &mut args)?;
                Err(finish(success, &reason))
            }),
        );
    },
};
