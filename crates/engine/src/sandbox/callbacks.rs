//! `sort` and `dedup` with a comparer, in place of rhai's: those turn any error of the
//! comparer (a `throw`, a wrong type, a limit, `complete()`) into "keep going", so a
//! broken comparer sorted silently and a stop was lost. These hand every error on.
//!
//! Counting the callbacks' operations and making a swallowed stop stick is done for
//! every built-in by `Shared::tick`; this module only fixes the two whose results
//! were wrong. Not here: the other higher-order built-ins (`map`, `filter`, `reduce`,
//! …), which already pass their callbacks' errors on.

use std::cmp::Ordering;

use rhai::{Array, Dynamic, Engine, EvalAltResult, FnPtr, NativeCallContext};

type Fallible<T> = Result<T, Box<EvalAltResult>>;

/// Registers the replacements (they shadow the standard package's).
pub(crate) fn register(engine: &mut Engine) {
    engine.register_fn("sort", sort_with);
    engine.register_fn("sort_by", sort_with);
    engine.register_fn("dedup", dedup_with);
}

/// `array.sort(|a, b| ..)`: a stable sort; the comparer answers a number (< 0, 0,
/// > 0) or a bool (`true`: `a` goes first).
fn sort_with(ctx: NativeCallContext, array: &mut Array, comparer: FnPtr) -> Fallible<()> {
    if array.len() <= 1 {
        return Ok(());
    }
    let compare = |a: &Dynamic, b: &Dynamic| -> Fallible<Ordering> {
        let answer = comparer.call_raw(&ctx, None, [a.clone(), b.clone()])?;
        if let Ok(n) = answer.as_int() {
            return Ok(n.cmp(&0));
        }
        match answer.as_bool() {
            Ok(true) => Ok(Ordering::Less),
            Ok(false) => Ok(Ordering::Greater),
            Err(got) => Err(format!("sort: the comparer must return a number or true/false, not {got}").into()),
        }
    };
    let items = std::mem::take(array);
    *array = merge_sort(items, &compare)?;
    Ok(())
}

/// A stable merge sort whose comparison may fail: the first failure ends it. (The
/// standard library's sorts take an infallible comparer and may panic on one that is
/// not a total order; a script's comparer can be anything.)
fn merge_sort(
    mut items: Vec<Dynamic>,
    compare: &impl Fn(&Dynamic, &Dynamic) -> Fallible<Ordering>,
) -> Fallible<Vec<Dynamic>> {
    if items.len() <= 1 {
        return Ok(items);
    }
    let right = items.split_off(items.len() / 2);
    let left = merge_sort(items, compare)?;
    let right = merge_sort(right, compare)?;
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(a), Some(b)) = (left.peek(), right.peek()) {
        // Equal keeps the left one first: stable.
        let next = if compare(a, b)? == Ordering::Greater { right.next() } else { left.next() };
        merged.extend(next);
    }
    merged.extend(left);
    merged.extend(right);
    Ok(merged)
}

/// `array.dedup(|previous, next| ..)`: drops each element for which the comparer,
/// given the element kept before it, answers `true`.
fn dedup_with(ctx: NativeCallContext, array: &mut Array, comparer: FnPtr) -> Fallible<()> {
    let mut kept: Array = Vec::with_capacity(array.len());
    for item in std::mem::take(array) {
        let duplicate = match kept.last() {
            Some(previous) => {
                let answer = comparer.call_raw(&ctx, None, [previous.clone(), item.clone()])?;
                answer.as_bool().map_err(|got| format!("dedup: the comparer must return true or false, not {got}"))?
            }
            None => false,
        };
        if !duplicate {
            kept.push(item);
        }
    }
    *array = kept;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::sandbox::{ErrorKind, Limit, Limits, Sandbox};

    fn value(code: &str) -> String {
        let mut sb = Sandbox::new(Limits::default()).unwrap();
        let r = sb.eval(code);
        assert!(r.error.is_none(), "{code}: {:?}", r.error);
        r.value.unwrap_or_default()
    }

    #[test]
    fn sorts_and_dedups_like_the_package_did() {
        assert_eq!(value("let a = [3, 1, 2, 1]; a.sort(|x, y| x - y); a"), "[1, 1, 2, 3]");
        assert_eq!(value("let a = [3, 1, 2]; a.sort(|x, y| x > y); a"), "[3, 2, 1]");
        assert_eq!(
            value(r#"let a = [[1, "b"], [0, "x"], [1, "a"]]; a.sort_by(|x, y| x[0] - y[0]); a"#),
            r#"[[0, "x"], [1, "b"], [1, "a"]]"#,
            "stable"
        );
        assert_eq!(value("let a = [1, 2, 2, 2, 3, 1, 2, 3, 4, 3, 3, 2, 1]; a.dedup(|a, b| a >= b); a"), "[1, 2, 3, 4]");
        assert_eq!(value("let a = []; a.sort(|x, y| x - y); a.dedup(|a, b| a == b); a"), "[]");
        assert_eq!(value("let a = [2, 1]; a.sort(); a"), "[1, 2]", "the comparer-less sort is untouched");
    }

    #[test]
    fn a_comparer_that_fails_fails_the_snippet() {
        let mut sb = Sandbox::new(Limits::default()).unwrap();
        let e = sb.eval("let a = [3, 1, 2]; a.sort(|x, y| throw \"broken comparer\"); print(\"went on\");");
        assert!(e.output.is_empty());
        assert!(e.error.unwrap().message.contains("broken comparer"));
        let e = sb.eval("let a = [3, 1, 2]; a.sort(|x, y| \"text\");").error.unwrap();
        assert!(e.message.contains("must return a number or true/false, not string"), "{}", e.message);
        let e = sb.eval("let a = [1, 1]; a.dedup(|x, y| x.no_such());").error.unwrap();
        assert!(e.message.contains("no_such"), "{}", e.message);
        let mut small = Sandbox::new(Limits { max_operations: 10_000, ..Limits::default() }).unwrap();
        let r = small.eval("let a = [3, 1, 2, 5, 4]; a.sort(|x, y| { loop {} }); print(\"went on\");");
        assert_eq!(r.error.unwrap().kind, ErrorKind::Limit { limit: Limit::Operations });
        assert!(r.output.is_empty());
    }
}
