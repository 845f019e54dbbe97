//! `replace` on strings, in place of rhai's: that one builds its whole result before
//! the engine's size limit sees it, so two lines (a 1 MB string, each character
//! replaced by it) asked for a terabyte. This one works out the result's size first
//! and refuses one past `max_string_size`, as the limit would.
//!
//! Not here: the other built-ins, which check sizes as they grow (`pad`, `+=`), and
//! the memory cap on the worker process, which stops what no check foresees.

use rhai::{Engine, EvalAltResult, ImmutableString, NativeCallContext, Position};

type Fallible<T> = Result<T, Box<EvalAltResult>>;

/// Registers the replacements (they shadow the standard package's).
pub(crate) fn register(engine: &mut Engine) {
    engine.register_fn(
        "replace",
        |ctx: NativeCallContext, s: &mut ImmutableString, find: ImmutableString, with: ImmutableString| {
            replace_within_limit(&ctx, s, &find, &with)
        },
    );
    engine.register_fn(
        "replace",
        |ctx: NativeCallContext, s: &mut ImmutableString, find: ImmutableString, with: char| {
            replace_within_limit(&ctx, s, &find, with.encode_utf8(&mut [0; 4]))
        },
    );
    engine.register_fn(
        "replace",
        |ctx: NativeCallContext, s: &mut ImmutableString, find: char, with: ImmutableString| {
            replace_within_limit(&ctx, s, find.encode_utf8(&mut [0; 4]), &with)
        },
    );
    engine.register_fn("replace", |ctx: NativeCallContext, s: &mut ImmutableString, find: char, with: char| {
        replace_within_limit(&ctx, s, find.encode_utf8(&mut [0; 4]), with.encode_utf8(&mut [0; 4]))
    });
}

/// Replaces every `find` in `s` with `with`, unless the result would be longer than
/// the engine's string limit.
fn replace_within_limit(ctx: &NativeCallContext, s: &mut ImmutableString, find: &str, with: &str) -> Fallible<()> {
    if s.is_empty() {
        return Ok(());
    }
    let max = ctx.engine().max_string_size();
    if max > 0 && with.len() > find.len() {
        let count = s.matches(find).count();
        let grows_by = count.saturating_mul(with.len() - find.len());
        if s.len().saturating_add(grows_by) > max {
            return Err(EvalAltResult::ErrorDataTooLarge("Length of string".to_string(), Position::NONE).into());
        }
    }
    *s = s.replace(find, with).into();
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::sandbox::{ErrorKind, Limit, Limits, Sandbox};

    #[test]
    fn replace_works_and_refuses_a_result_past_the_string_limit_before_building_it() {
        let mut sb = Sandbox::new(Limits { max_string_size: 1000, ..Limits::default() }).unwrap();
        let r = sb.eval(r#"let t = "hello, world"; t.replace("l", "(^)"); t.replace('o', '0'); t.replace('w', "W"); t.replace("d", 'D'); t"#);
        assert_eq!(r.value.as_deref(), Some(r#""he(^)(^)0, W0r(^)D""#), "{:?}", r.error);
        let r = sb.eval(r#"let s = ""; s.pad(500, 'a'); s.replace("a", s);"#);
        assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Limit { limit: Limit::Size }));
        let r = sb.eval(r#"let s = "abc"; s.replace("", "xy"); s"#);
        assert_eq!(r.value.as_deref(), Some(r#""xyaxybxycxy""#), "an empty pattern matches between characters");
    }
}
