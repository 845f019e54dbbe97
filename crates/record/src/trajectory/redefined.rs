//! Steps written as one script: a session keeps each snippet's functions, a later
//! definition of a name replacing the earlier one, but one Rhai file may not define
//! a function twice ("Function ... already exists"). So a function a step defines
//! again is renamed from that step on (`check` → `check_2`), its definition and the
//! calls after it, and the script replays what the session did. Calls are found as
//! text outside strings and comments: a name followed by `(`. Not the rest of the
//! export (`export.rs`).

use std::collections::{HashMap, HashSet};

/// The names the functions of `code` are defined under (none when it does not parse).
fn defined_in(code: &str) -> Vec<String> {
    if !code.contains("fn ") {
        return Vec::new();
    }
    let mut engine = rhai::Engine::new_raw();
    engine.set_max_expr_depths(64, 64);
    match engine.compile(code) {
        Ok(ast) => ast.iter_functions().map(|f| f.name.to_string()).collect(),
        Err(_) => Vec::new(),
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `code` with every call or definition of a name in `renamed` (a name, then `(`,
/// outside strings and comments) under its new name.
fn rename(code: &str, renamed: &HashMap<String, String>) -> String {
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
        match renamed.get(word) {
            Some(new) if bytes.get(after) == Some(&b'(') => out.push_str(new),
            _ => out.push_str(word),
        }
        i = end;
    }
    out
}

/// Renames, step by step, what a script of many steps defines twice.
#[derive(Default)]
pub struct Redefinitions {
    /// Each name ever defined, with the name it goes by now.
    current: HashMap<String, String>,
    /// Names given out, and every name a step defined.
    taken: HashSet<String>,
}

impl Redefinitions {
    /// A step's code as the one script holds it.
    pub fn step(&mut self, code: &str) -> String {
        for name in defined_in(code) {
            let again = self.current.contains_key(&name);
            if again {
                let mut k = 2;
                let mut new = format!("{name}_{k}");
                while self.taken.contains(&new) || code.contains(&new) {
                    k += 1;
                    new = format!("{name}_{k}");
                }
                self.taken.insert(new.clone());
                self.current.insert(name.clone(), new);
            } else {
                self.current.insert(name.clone(), name.clone());
            }
            self.taken.insert(name);
        }
        let renamed: HashMap<String, String> =
            self.current.iter().filter(|(old, new)| old != new).map(|(o, n)| (o.clone(), n.clone())).collect();
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
}
