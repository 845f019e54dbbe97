//! Word expansion: variables (with the phone's default environment), `$((...))`, `$(...)`,
//! field splitting on IFS and globbing of unquoted `* ? [`. Not matching globs against the
//! files (`glob`) nor parsing words (`parse`).

use super::arith;
use super::env::{MAX_DEPTH, SH, ShellEnv};
use super::glob::glob;
use super::output::Output;
use super::parse::{Part, Word};
use super::state::{Nested, State, var};

/// Field separators for unquoted expansions (the default `IFS`).
fn is_ifs(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

/// Expands one word into fields: variables, command substitution, field splitting of
/// unquoted expansions, and globbing of unquoted `* ? [`; `$(...)` runs in `run_nested`.
pub(super) fn expand(word: &Word, env: &ShellEnv, st: &State, stderr: &mut Vec<u8>, run_nested: Nested) -> Vec<String> {
    // Characters with their "quoted" flag; a field exists once it has any quoted part.
    let mut fields: Vec<Vec<(char, bool)>> = Vec::new();
    let mut cur: Vec<(char, bool)> = Vec::new();
    let mut has = false;
    for part in &word.parts {
        if st.budget.stopped() {
            return Vec::new();
        }
        let (value, quoted) = match part {
            Part::Lit { text, quoted } => {
                cur.extend(text.chars().map(|c| (c, *quoted)));
                has |= *quoted || !text.is_empty();
                continue;
            }
            Part::Var { name, quoted } => {
                let v = var(name, st);
                // `$A$A$A...` can repeat one large value many times: count it as output.
                if !st.budget.charge(v.len()) {
                    return Vec::new();
                }
                (v, *quoted)
            }
            Part::Arith { expr, quoted } => match arith::evaluate(expr, &|name| var(name, st)) {
                Ok(n) => (n.to_string(), *quoted),
                Err(why) => {
                    stderr.extend(format!("{SH}: {expr}: {why}\n").into_bytes());
                    (String::new(), *quoted)
                }
            },
            Part::Subst { script, quoted } => {
                let out = if st.depth >= MAX_DEPTH {
                    Output::error(&format!("{SH}: too many nested shells"), 1)
                } else {
                    run_nested(script, env, &[], st.child(true))
                };
                stderr.extend(out.stderr);
                let s = String::from_utf8_lossy(&out.stdout);
                (s.trim_end_matches('\n').to_string(), *quoted)
            }
        };
        if quoted {
            cur.extend(value.chars().map(|c| (c, true)));
            has = true;
            continue;
        }
        for c in value.chars() {
            if is_ifs(c) {
                if has {
                    fields.push(std::mem::take(&mut cur));
                    has = false;
                }
            } else {
                cur.push((c, true));
                has = true;
            }
        }
    }
    if has {
        fields.push(cur);
    }
    let mut out = Vec::new();
    for f in fields {
        let matches = if f.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '[')) {
            glob(&f, env.fs, &st.cwd)
        } else {
            Vec::new()
        };
        if matches.is_empty() {
            out.push(f.iter().map(|&(c, _)| c).collect());
        } else {
            out.extend(matches);
        }
    }
    out
}
