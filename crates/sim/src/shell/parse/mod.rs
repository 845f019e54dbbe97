//! The parser for the subset of mksh syntax the simulated `/system/bin/sh` runs, and the tree
//! it builds: pipelines, `;` / newline / `&&` / `||`, `!`, redirections on simple commands.
//! Not the tree's types (`ast`), the tokens (`lex`) nor evaluation (`super`); no control
//! flow, functions, subshells or here-documents.

mod ast;
mod lex;

use ast::err;
pub(crate) use ast::{Command, Op, ParseError, Part, Pipeline, Redir, RedirKind, Script, Word};
use lex::{Tok, describe, lex};

fn is_bang(w: &Word) -> bool {
    matches!(w.parts.as_slice(), [Part::Lit { text, quoted: false }] if text == "!")
}

/// Parses a whole command line.
pub(crate) fn parse(src: &str) -> Result<Script, ParseError> {
    let mut script = Script::default();
    let mut op = Op::Seq;
    let mut pl = Pipeline::default();
    let mut cmd = Command::default();
    // An operator was seen that needs a command after it.
    let mut need = false;
    let mut toks = lex(src)?.into_iter();
    while let Some(t) = toks.next() {
        match t {
            Tok::Word(w) => {
                if cmd.is_empty() && pl.commands.is_empty() && !pl.negate && is_bang(&w) {
                    pl.negate = true;
                } else {
                    cmd.words.push(w);
                }
                need = cmd.is_empty();
            }
            Tok::Redir(fd, kind) => match toks.next() {
                Some(Tok::Word(target)) => {
                    cmd.redirs.push(Redir { fd, kind, target });
                    need = false;
                }
                Some(other) => return err(&format!("'{}' unexpected", describe(&other))),
                None => return err("unexpected EOF"),
            },
            Tok::Op(o) => {
                if cmd.is_empty() {
                    if o == "\n" {
                        continue;
                    }
                    return err(&format!("'{o}' unexpected"));
                }
                pl.commands.push(std::mem::take(&mut cmd));
                if o == "|" {
                    need = true;
                    continue;
                }
                script.items.push((op, std::mem::take(&mut pl)));
                (op, need) = match o {
                    "&&" => (Op::And, true),
                    "||" => (Op::Or, true),
                    _ => (Op::Seq, false),
                };
            }
        }
    }
    if !cmd.is_empty() {
        pl.commands.push(cmd);
        script.items.push((op, pl));
    } else if need || !pl.commands.is_empty() || pl.negate {
        return err("unexpected EOF");
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str, quoted: bool) -> Part {
        Part::Lit { text: s.into(), quoted }
    }

    fn msg(src: &str) -> String {
        parse(src).err().map(|e| e.0).unwrap_or_default()
    }

    #[test]
    fn words_and_quotes() {
        let s = parse(r#"echo 'it'\''s' "a  b"c '' x\ y"#).unwrap();
        let words = &s.items[0].1.commands[0].words;
        assert_eq!(words.len(), 5);
        assert_eq!(words[1].parts, vec![lit("it's", true)]);
        assert_eq!(words[2].parts, vec![lit("a  b", true), lit("c", false)]);
        assert_eq!(words[3].parts, vec![lit("", true)]);
        assert_eq!(words[4].parts, vec![lit("x", false), lit(" ", true), lit("y", false)]);
    }

    #[test]
    fn vars_and_subst() {
        let s = parse(r#"echo $? "${HOME}x" $(echo a) `b` $ a#b # c"#).unwrap();
        let words = &s.items[0].1.commands[0].words;
        assert_eq!(words.len(), 7);
        assert_eq!(words[1].parts, vec![Part::Var { name: "?".into(), quoted: false }]);
        assert!(matches!(&words[2].parts[1], Part::Var { name, quoted: true } if name == "HOME"));
        assert!(matches!(&words[3].parts[0], Part::Subst { script, .. } if script == "echo a"));
        assert!(matches!(&words[4].parts[0], Part::Subst { script, .. } if script == "b"));
        assert_eq!(words[5].parts, vec![lit("$", false)]);
        assert_eq!(words[6].parts, vec![lit("a#b", false)]);
        let s = parse(r#"echo $(echo \)) "$(echo "\")")" $(echo '\')"#).unwrap();
        let words = &s.items[0].1.commands[0].words;
        assert!(matches!(&words[1].parts[0], Part::Subst { script, .. } if script == r"echo \)"));
        assert!(matches!(&words[2].parts[1], Part::Subst { script, .. } if script == r#"echo "\")""#));
        assert!(matches!(&words[3].parts[0], Part::Subst { script, .. } if script == r"echo '\'"));
        assert_eq!(msg("echo $(a \\"), "syntax error: unexpected EOF");
    }

    #[test]
    fn operators_and_redirs() {
        let s = parse("! a | b && c || d; e\n\nf 2>&1 >/x <in &>/y 2>>z").unwrap();
        let ops: Vec<Op> = s.items.iter().map(|i| i.0).collect();
        assert_eq!(ops, [Op::Seq, Op::And, Op::Or, Op::Seq, Op::Seq]);
        assert!(s.items[0].1.negate);
        assert_eq!(s.items[0].1.commands.len(), 2);
        let r = &s.items[4].1.commands[0].redirs;
        let kinds: Vec<(u32, RedirKind)> = r.iter().map(|r| (r.fd, r.kind)).collect();
        assert_eq!(
            kinds,
            [
                (2, RedirKind::Dup),
                (1, RedirKind::Out),
                (0, RedirKind::In),
                (1, RedirKind::Both),
                (2, RedirKind::Append)
            ]
        );
        assert!(parse("a |\n b &&\n c").is_ok());
        let s = parse("a &>> /x &> /y").unwrap();
        let kinds: Vec<RedirKind> = s.items[0].1.commands[0].redirs.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [RedirKind::BothAppend, RedirKind::Both]);
        assert_eq!(parse("").unwrap().items.len(), 0);
        assert_eq!(parse("a;").unwrap().items.len(), 1);
    }

    #[test]
    fn errors() {
        assert_eq!(msg("echo 'abc"), "syntax error: unterminated quoted string");
        assert_eq!(msg("echo \"abc"), "syntax error: unterminated quoted string");
        assert_eq!(msg("echo |"), "syntax error: unexpected EOF");
        assert_eq!(msg("echo &&"), "syntax error: unexpected EOF");
        assert_eq!(msg("| echo"), "syntax error: '|' unexpected");
        assert_eq!(msg("; echo"), "syntax error: ';' unexpected");
        assert_eq!(msg("echo >"), "syntax error: unexpected EOF");
        assert_eq!(msg("echo > |"), "syntax error: '|' unexpected");
        assert_eq!(msg("echo $(ls"), "syntax error: unexpected EOF");
    }
}
