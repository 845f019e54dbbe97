//! The tree the parser builds: words and their parts, redirections, simple commands,
//! pipelines and the script that joins them, and the syntax error. Not the tokens
//! (`lex`) nor the grammar that builds the tree (`mod.rs`).

use std::fmt;

/// One piece of a word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Literal text; `quoted` text came from quotes or backslashes and is never globbed.
    Lit { text: String, quoted: bool },
    /// `$NAME`, `${NAME}`, `$?`, `$$`, ...
    Var { name: String, quoted: bool },
    /// `$(...)` or backquotes: the inner script.
    Subst { script: String, quoted: bool },
    /// `$((...))`: an integer expression.
    Arith { expr: String, quoted: bool },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Word {
    pub(crate) parts: Vec<Part>,
}

impl Word {
    pub(super) fn push(&mut self, part: Part) {
        if let (Some(Part::Lit { text, quoted }), Part::Lit { text: t, quoted: q }) = (self.parts.last_mut(), &part)
            && quoted == q
        {
            text.push_str(t);
            return;
        }
        self.parts.push(part);
    }

    pub(super) fn push_char(&mut self, c: char, quoted: bool) {
        self.push(Part::Lit { text: c.to_string(), quoted });
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum RedirKind {
    /// `<`
    In,
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `&>`: stdout and stderr to the file.
    Both,
    /// `&>>`: stdout and stderr appended to the file.
    BothAppend,
    /// `N>&M` / `N<&M`: the target word names a descriptor.
    Dup,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Redir {
    pub(crate) fd: u32,
    pub(crate) kind: RedirKind,
    pub(crate) target: Word,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Command {
    pub(crate) words: Vec<Word>,
    pub(crate) redirs: Vec<Redir>,
}

impl Command {
    pub(super) fn is_empty(&self) -> bool {
        self.words.is_empty() && self.redirs.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Pipeline {
    /// Leading `!`.
    pub(crate) negate: bool,
    pub(crate) commands: Vec<Command>,
}

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Op {
    Seq,
    And,
    Or,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Script {
    pub(crate) items: Vec<(Op, Pipeline)>,
}

/// A syntax error; the text is what follows `/system/bin/sh: `.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(super) fn err<T>(msg: &str) -> Result<T, ParseError> {
    Err(ParseError(format!("syntax error: {msg}")))
}
