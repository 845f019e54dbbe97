//! Steps written as one script: a session keeps each snippet's functions, a later
//! definition of a name replacing the earlier one, but one Rhai file may not define
//! a function twice ("Function ... already exists"). So a function a step defines
//! again is renamed from that step on (`check` → `check_2`), its definition and the
//! calls after it, and the script replays what the session did. Calls are found as
//! text outside strings and comments: a name followed by `(`. Not the rest of the
//! export (`export.rs`).

use std::collections::{HashMap, HashSet};

/// The functions `code` defines, by name and number of parameters (none when it
/// does not parse).
fn defined_in(code: &str) -> Vec<(String, usize)> {
    if !code.contains("fn ") {
        return Vec::new();
    }
    let mut engine = rhai::Engine::new_raw();
    engine.set_max_expr_depths(64, 64);
    match engine.compile(code) {
        Ok(ast) => ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect(),
        Err(_) => Vec::new(),
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// How many arguments the call whose `(` is at `open` passes (commas at its own
/// level, strings and comments aside); `None` when it never closes.
fn arguments(code: &str, open: usize, spans: &[(usize, usize)]) -> Option<usize> {
    let bytes = code.as_bytes();
    let (mut depth, mut commas, mut any) = (0usize, 0usize, false);
    let mut i = open + 1;
    while i < bytes.len() {
        // The spans are in order: the one that holds `i`, if any, by a search.
        let k = spans.partition_point(|(s, _)| *s <= i);
        if k > 0 && spans[k - 1].1 > i {
            any = true;
            i = spans[k - 1].1;
            continue;
        }
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return Some(if any { commas + 1 } else { 0 }),
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => commas += 1,
            c if !c.is_ascii_whitespace() => any = true,
            _ => {}
        }
        i += 1;
    }
    None
}

/// `code` with every call or definition of a function in `renamed` (by name and
/// number of parameters: a name, then `(`, outside strings and comments; `x.f(a)`
/// passes `x` too) under its new name.
fn rename(code: &str, renamed: &HashMap<(String, usize), String>) -> String {
    let spans = codeact_base::literals::literal_spans(code);
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let bytes = code.as_bytes();
    while i < code.len() {
        let c = code[i..].chars().next().unwrap_or(' ');
        let starts_word = is_ident(c) && !c.is_ascii_digit() && !code[..i].chars().next_back().is_some_and(is_ident);
        if !starts_word || codeact_base::literals::inside_spans(&spans, i, i + 1) {
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let end = code[i..].find(|ch: char| !is_ident(ch)).map_or(code.len(), |n| i + n);
        let word = &code[i..end];
        let mut after = end;
        while after < bytes.len() && bytes[after].is_ascii_whitespace() {
            after += 1;
        }
        let method = code[..i].trim_end().ends_with('.');
        let new = match bytes.get(after) {
            Some(b'(') => arguments(code, after, &spans)
                .map(|n| n + usize::from(method))
                .and_then(|n| renamed.get(&(word.to_string(), n))),
            _ => None,
        };
        out.push_str(new.map_or(word, String::as_str));
        i = end;
    }
    out
}

/// Renames, step by step, what a script of many steps defines twice.
#[derive(Default)]
pub struct Redefinitions {
    /// Each function ever defined (name, parameters), with the name it goes by now.
    current: HashMap<(String, usize), String>,
    /// Each name given out or defined.
    taken: HashSet<String>,
    /// The names given out for a redefinition (a step defining one of these
    /// itself redefines it too).
    given: HashSet<String>,
}

impl Redefinitions {
    /// A step's code as the one script holds it.
    pub fn step(&mut self, code: &str) -> String {
        for (name, params) in defined_in(code) {
            let key = (name.clone(), params);
            // Defined again with the same parameters, or under a name given out.
            let again = self.current.contains_key(&key) || self.given.contains(&name);
            if again {
                let mut k = 2;
                let mut new = format!("{name}_{k}");
                while self.taken.contains(&new) || code.contains(&new) {
                    k += 1;
                    new = format!("{name}_{k}");
                }
                self.taken.insert(new.clone());
                self.given.insert(new.clone());
                self.current.insert(key, new);
            } else {
                self.current.insert(key, name.clone());
            }
            self.taken.insert(name);
        }
        // Calls go to the newest name of each function, by its number of parameters.
        let renamed: HashMap<(String, usize), String> =
            self.current.iter().filter(|((old, _), new)| old != *new).map(|(k, v)| (k.clone(), v.clone())).collect();
        if renamed.is_empty() { code.to_string() } else { rename(code, &renamed) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_defined_again_is_renamed_from_there_on() {
        let mut r = Redefinitions::default();
        let steps = [
            "fn check(x) { x > 1 }\nlet a = check(2);",
            "print(check(3)); // check(4) stays in a comment",
            "fn check(x) { x > 10 }\nlet b = check (20); let s = \"check(1)\";",
            "fn check(x) { x > 100 }\nlet c = 5.check();",
        ];
        let out: Vec<String> = steps.iter().map(|s| r.step(s)).collect();
        assert_eq!(out[0], steps[0]);
        assert_eq!(out[1], steps[1]);
        assert_eq!(out[2], "fn check_2(x) { x > 10 }\nlet b = check_2 (20); let s = \"check(1)\";");
        assert_eq!(out[3], "fn check_3(x) { x > 100 }\nlet c = 5.check_3();");
        let whole = out.join("\n");
        assert!(rhai::Engine::new_raw().compile(&whole).is_ok(), "one script: {whole}");
    }

    #[test]
    fn other_parameters_are_another_function_and_a_given_name_defined_again_is_renamed() {
        let mut r = Redefinitions::default();
        assert_eq!(r.step("fn check(x) { x }"), "fn check(x) { x }");
        assert_eq!(r.step("fn check(x, y) { x + y }\ncheck(1, 2);"), "fn check(x, y) { x + y }\ncheck(1, 2);");
        let again = r.step("fn check(x) { x * 2 }\ncheck(3);\ncheck(f(1, 2), [3, 4]);\n5.check();");
        assert_eq!(again, "fn check_2(x) { x * 2 }\ncheck_2(3);\ncheck(f(1, 2), [3, 4]);\n5.check_2();");
        let given = r.step("fn check_2(x) { 0 }");
        assert!(given.starts_with("fn check_2_2(x)"), "{given}");
    }
}
