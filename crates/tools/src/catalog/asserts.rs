//! Assertions: a script's checks that the screen shows, or no longer shows, what a
//! selector describes — waiting up to a timeout for it, as Maestro's
//! `assertVisible` does, so content that arrives a moment after an action passes.
//! A miss fails the test (FAIL), it is not an error. Not here: `wait_for` and
//! `wait_gone`, which return the element and miss as errors (`selectors.rs`).

use rhai::Dynamic;

use super::selectors::wait;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, ParamKind, ParamSpec, Replay, Role, ToolSpec, common};
use crate::context::ToolContext;
use crate::error::{Awaited, ToolError};

/// How long an assertion waits unless told: a short settle.
const ASSERT_WAIT_MS: i64 = 1000;

const WITHIN_MS: ParamSpec = ParamSpec::optional(
    "timeout_ms",
    ParamKind::Integer,
    "how long to keep looking, in milliseconds (default 1000; 0 does not wait)",
);

/// Looks until `sel` is there (or gone) or `ms` pass; a timeout is the test's failure.
fn assert_on_screen(c: &mut ToolContext, sel: &Dynamic, ms: i64, awaited: Awaited) -> Result<(), ToolError> {
    match wait(c, sel, ms, awaited) {
        Ok(_) => Ok(()),
        Err(ToolError::WaitTimedOut { selector, awaited, ms, cut_by_limit, near }) => {
            let state = match awaited {
                Awaited::Appear => "is not on screen",
                Awaited::GoAway => "is on screen",
            };
            let waited = match (ms, cut_by_limit) {
                (0, _) => String::new(),
                (_, false) => format!(" (looked for {ms} ms)"),
                (_, true) => format!(" (looked until the snippet's time limit, before {ms} ms)"),
            };
            Err(ToolError::Assertion(format!("{selector} {state}{waited}{near}")))
        }
        Err(e) => Err(e),
    }
}

pub(crate) const ASSERT_VISIBLE: ToolSpec = ToolSpec {
    name: "assert_visible",
    params: &[common::SEL, WITHIN_MS],
    doc: "Fail the script unless a selector matches on screen within timeout_ms (default 1000; it keeps looking until then).",
    access: Access::Asserts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Check,
    register: |r| {
        tool!(r, |c, sel: Dynamic| assert_on_screen(c, &sel, ASSERT_WAIT_MS, Awaited::Appear));
        tool!(r, |c, sel: Dynamic, timeout_ms: i64| assert_on_screen(c, &sel, timeout_ms, Awaited::Appear));
    },
};

pub(crate) const ASSERT_NOT_VISIBLE: ToolSpec = ToolSpec {
    name: "assert_not_visible",
    params: &[common::SEL, WITHIN_MS],
    doc: "Fail the script unless nothing matches a selector within timeout_ms (default 1000; it keeps looking until then).",
    access: Access::Asserts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Check,
    register: |r| {
        tool!(r, |c, sel: Dynamic| assert_on_screen(c, &sel, ASSERT_WAIT_MS, Awaited::GoAway));
        tool!(r, |c, sel: Dynamic, timeout_ms: i64| assert_on_screen(c, &sel, timeout_ms, Awaited::GoAway));
    },
};
