//! The tokenizer for the shell's command lines: words with their quoting and `$` expansions
//! (`$VAR`, `${VAR}`, `$(...)`, `$((...))`, backquotes), operators and redirections. Not how
//! tokens make commands and pipelines (that is `mod.rs`).

use super::ast::{ParseError, Part, RedirKind, Word, err};

const UNTERMINATED: &str = "unterminated quoted string";

#[derive(Debug, PartialEq)]
pub(super) enum Tok {
    Word(Word),
    /// `|`, `||`, `&&`, `;`, `&`, newline.
    Op(&'static str),
    Redir(u32, RedirKind),
}

struct Lexer {
    cs: Vec<char>,
    i: usize,
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.cs.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<char> {
        self.cs.get(self.i.saturating_add(k)).copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        if c.is_some() {
            self.i += 1;
        }
        c
    }
    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn redir(&mut self, fd: Option<u32>) -> Result<Tok, ParseError> {
        if self.bump() == Some('<') {
            if self.peek() == Some('<') {
                return err("here documents are not supported");
            }
            let kind = if self.eat('&') { RedirKind::Dup } else { RedirKind::In };
            return Ok(Tok::Redir(fd.unwrap_or(0), kind));
        }
        let kind = if self.eat('>') {
            RedirKind::Append
        } else if self.eat('&') {
            RedirKind::Dup
        } else {
            self.eat('|');
            RedirKind::Out
        };
        Ok(Tok::Redir(fd.unwrap_or(1), kind))
    }

    /// After a `$`.
    fn dollar(&mut self, quoted: bool) -> Result<Part, ParseError> {
        let var = |name: String| Part::Var { name, quoted };
        match self.peek() {
            Some(c @ ('?' | '$' | '#' | '!' | '@' | '*' | '-' | '0'..='9')) => {
                self.i += 1;
                Ok(var(c.to_string()))
            }
            Some('{') => {
                self.i += 1;
                let mut name = String::new();
                loop {
                    match self.bump() {
                        None => return err("missing '}'"),
                        Some('}') => return Ok(var(name)),
                        Some(c) => name.push(c),
                    }
                }
            }
            Some('(') if self.peek_at(1) == Some('(') => {
                self.i += 2;
                let mut depth = 0usize;
                let mut expr = String::new();
                loop {
                    match self.bump() {
                        None => return err("unexpected EOF"),
                        Some(')') if depth == 0 => {
                            if self.bump() != Some(')') {
                                return err("missing ')'");
                            }
                            return Ok(Part::Arith { expr, quoted });
                        }
                        Some(c) => {
                            match c {
                                '(' => depth += 1,
                                ')' => depth -= 1,
                                _ => {}
                            }
                            expr.push(c);
                        }
                    }
                }
            }
            Some('(') => {
                self.i += 1;
                let mut depth = 1usize;
                let mut script = String::new();
                let mut quote: Option<char> = None;
                loop {
                    let c = match self.bump() {
                        None => return err("unexpected EOF"),
                        Some(c) => c,
                    };
                    match (quote, c) {
                        // A backslash keeps the next character from closing anything.
                        (None | Some('"'), '\\') => {
                            script.push(c);
                            match self.bump() {
                                Some(n) => script.push(n),
                                None => return err("unexpected EOF"),
                            }
                            continue;
                        }
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), _) => {}
                        (None, '\'' | '"') => quote = Some(c),
                        (None, '(') => depth += 1,
                        (None, ')') => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(Part::Subst { script, quoted });
                            }
                        }
                        _ => {}
                    }
                    script.push(c);
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let mut name = String::new();
                while let Some(c) = self.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
                    name.push(c);
                    self.i += 1;
                }
                Ok(var(name))
            }
            _ => Ok(Part::Lit { text: "$".into(), quoted }),
        }
    }

    /// After an opening backquote.
    fn backquote(&mut self, quoted: bool) -> Result<Part, ParseError> {
        let mut script = String::new();
        loop {
            match self.bump() {
                None => return err(UNTERMINATED),
                Some('`') => return Ok(Part::Subst { script, quoted }),
                Some('\\') if matches!(self.peek(), Some('`' | '\\' | '$')) => {
                    script.extend(self.bump());
                }
                Some(c) => script.push(c),
            }
        }
    }

    fn word(&mut self) -> Result<Word, ParseError> {
        let mut w = Word::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '|' | '&' | '<' | '>' | '(' | ')' => break,
                '\'' => {
                    self.i += 1;
                    let mut text = String::new();
                    loop {
                        match self.bump() {
                            None => return err(UNTERMINATED),
                            Some('\'') => break,
                            Some(ch) => text.push(ch),
                        }
                    }
                    w.push(Part::Lit { text, quoted: true });
                }
                '"' => {
                    self.i += 1;
                    // Always record the (possibly empty) quoted part so `""` is an argument.
                    w.push(Part::Lit { text: String::new(), quoted: true });
                    loop {
                        match self.bump() {
                            None => return err(UNTERMINATED),
                            Some('"') => break,
                            Some('\\') => match self.peek() {
                                Some(n @ ('"' | '\\' | '$' | '`')) => {
                                    self.i += 1;
                                    w.push_char(n, true);
                                }
                                Some('\n') => self.i += 1,
                                _ => w.push_char('\\', true),
                            },
                            Some('$') => {
                                let part = self.dollar(true)?;
                                w.push(part);
                            }
                            Some('`') => {
                                let part = self.backquote(true)?;
                                w.push(part);
                            }
                            Some(ch) => w.push_char(ch, true),
                        }
                    }
                }
                '\\' => {
                    self.i += 1;
                    match self.bump() {
                        Some('\n') => {}
                        Some(ch) => w.push_char(ch, true),
                        None => w.push_char('\\', true),
                    }
                }
                '$' => {
                    self.i += 1;
                    let part = self.dollar(false)?;
                    w.push(part);
                }
                '`' => {
                    self.i += 1;
                    let part = self.backquote(false)?;
                    w.push(part);
                }
                _ => {
                    self.i += 1;
                    w.push_char(c, false);
                }
            }
        }
        Ok(w)
    }
}

pub(super) fn lex(src: &str) -> Result<Vec<Tok>, ParseError> {
    let mut lx = Lexer { cs: src.chars().collect(), i: 0 };
    let mut toks = Vec::new();
    while let Some(c) = lx.peek() {
        match c {
            ' ' | '\t' | '\r' => lx.i += 1,
            '\\' if lx.peek_at(1) == Some('\n') => lx.i += 2,
            '#' => {
                while lx.peek().is_some_and(|c| c != '\n') {
                    lx.i += 1;
                }
            }
            '\n' => {
                lx.i += 1;
                toks.push(Tok::Op("\n"));
            }
            ';' => {
                lx.i += 1;
                if lx.peek() == Some(';') {
                    return err("';;' unexpected");
                }
                toks.push(Tok::Op(";"));
            }
            '|' => {
                lx.i += 1;
                toks.push(Tok::Op(if lx.eat('|') { "||" } else { "|" }));
            }
            '&' => {
                lx.i += 1;
                if lx.eat('&') {
                    toks.push(Tok::Op("&&"));
                } else if lx.eat('>') {
                    let kind = if lx.eat('>') { RedirKind::BothAppend } else { RedirKind::Both };
                    toks.push(Tok::Redir(1, kind));
                } else {
                    // Background jobs run to completion in order here.
                    toks.push(Tok::Op("&"));
                }
            }
            '<' | '>' => toks.push(lx.redir(None)?),
            '(' | ')' => return err(&format!("'{c}' unexpected")),
            _ => {
                if c.is_ascii_digit() {
                    let mut k = 0;
                    while lx.peek_at(k).is_some_and(|c| c.is_ascii_digit()) {
                        k += 1;
                    }
                    if matches!(lx.peek_at(k), Some('<' | '>')) {
                        let digits: String = lx.cs.iter().skip(lx.i).take(k).collect();
                        if let Ok(fd) = digits.parse::<u32>() {
                            lx.i += k;
                            toks.push(lx.redir(Some(fd))?);
                            continue;
                        }
                    }
                }
                toks.push(Tok::Word(lx.word()?));
            }
        }
    }
    Ok(toks)
}

pub(super) fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(_) => "word".into(),
        Tok::Op("\n") => "newline".into(),
        Tok::Op(o) => (*o).into(),
        Tok::Redir(..) => "redirection".into(),
    }
}
