//! Hostile snippets (`tests/hostile/*.rhai`): each ends with a clear error within its
//! limit, nothing panics, and the session stays usable afterwards.

use std::time::{Duration, Instant};

use codeact::sandbox::{Limits, Sandbox};

/// Small limits so every case ends quickly; the time limit is what `busy_sleep` hits.
fn limits() -> Limits {
    Limits {
        max_operations: 200_000,
        timeout_ms: 500,
        max_output: 4096,
        max_array_size: 1000,
        max_map_size: 1000,
        ..Limits::default()
    }
}

/// (file, code, what the error must mention; `a|b` accepts either)
const CASES: &[(&str, &str, &str)] = &[
    ("endless_loop", include_str!("hostile/endless_loop.rhai"), "operations"),
    ("busy_sleep", include_str!("hostile/busy_sleep.rhai"), "time limit"),
    ("deep_recursion", include_str!("hostile/deep_recursion.rhai"), "levels"),
    ("doubling_string", include_str!("hostile/doubling_string.rhai"), "limit"),
    ("growing_array", include_str!("hostile/growing_array.rhai"), "limit"),
    // Rhai checks map sizes in `for`/`while` but not in `loop`: there the operations
    // limit bounds it.
    ("growing_map", include_str!("hostile/growing_map.rhai"), "limit|operations"),
    ("endless_print", include_str!("hostile/endless_print.rhai"), "operations"),
    ("eval", include_str!("hostile/eval.rhai"), "eval"),
    ("import", include_str!("hostile/import.rhai"), "import"),
    ("file_and_network", include_str!("hostile/file_and_network.rhai"), "open_file"),
    ("deep_expression", include_str!("hostile/deep_expression.rhai"), "syntax error"),
    ("wrong_types", include_str!("hostile/wrong_types.rhai"), "complete"),
];

#[test]
fn every_hostile_snippet_ends_with_a_clear_error_and_the_session_survives() {
    let limits = limits();
    let mut sb = Sandbox::new(limits.clone()).expect("sandbox");
    // Time limit ×1.2, plus a fixed allowance for starting the script thread on a
    // loaded 2-core CI machine.
    let bound = limits.timeout().mul_f64(1.2) + Duration::from_millis(150);
    for (name, code, expected) in CASES {
        let started = Instant::now();
        let r = sb.run(code);
        let elapsed = started.elapsed();
        let err = r.error.unwrap_or_else(|| panic!("{name}: no error"));
        let message = err.message.to_lowercase();
        assert!(
            expected.split('|').any(|word| message.contains(&word.to_lowercase())),
            "{name}: error {:?} should mention {expected:?}",
            err.message
        );
        assert!(elapsed <= bound, "{name}: took {elapsed:?}, limit {bound:?}");
        if *name == "endless_print" {
            assert!(r.output.len() <= 4096 + 64, "{name}: output is bounded");
            assert!(r.output.contains("[output cut at"), "{name}: says it was cut");
        }
        // The session is still usable and keeps its state.
        let after = sb.run("let ok = 1 + 1; print(ok);");
        assert_eq!(after.output, "2\n", "{name}: session unusable afterwards: {:?}", after.error);
    }
}
