//! XPath 1.0's tokens, with the specification's rules for telling them apart
//! (§3.7): after a token that ends an operand, `*` multiplies and `and`, `or`,
//! `mod`, `div` are operators; a name followed by `(` is a function or a node
//! type; followed by `::`, an axis. Not the grammar (`parser.rs`).

use super::error::XPathError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    Slash,
    DoubleSlash,
    Dot,
    DotDot,
    At,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Pipe,
    Plus,
    Minus,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `*` as a name test.
    AnyName,
    /// `prefix:*`.
    PrefixAny(String),
    Multiply,
    And,
    Or,
    Mod,
    Div,
    Literal(String),
    Number(f64),
    /// A name test (`android.widget.TextView`, `p:name`).
    Name(String),
    /// A name before `(` that is not a node type.
    Function(String),
    /// `node`, `text`, `comment`, `processing-instruction` before `(`.
    NodeType(String),
    /// A name before `::`.
    Axis(String),
    Variable(String),
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '\u{B7}')
}

/// Whether the token before decides that `*` multiplies and a name is an operator.
fn ends_operand(previous: Option<&Token>) -> bool {
    !matches!(
        previous,
        None | Some(
            Token::At
                | Token::Axis(_)
                | Token::LParen
                | Token::LBracket
                | Token::Comma
                | Token::Slash
                | Token::DoubleSlash
                | Token::Pipe
                | Token::Plus
                | Token::Minus
                | Token::Eq
                | Token::Neq
                | Token::Lt
                | Token::Le
                | Token::Gt
                | Token::Ge
                | Token::Multiply
                | Token::And
                | Token::Or
                | Token::Mod
                | Token::Div
        )
    )
}

pub(super) fn tokens(expr: &str) -> Result<Vec<Token>, XPathError> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let bad = |what: String| XPathError::Expression { why: what };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).copied();
        let (token, width) = match c {
            '/' if next == Some('/') => (Token::DoubleSlash, 2),
            '/' => (Token::Slash, 1),
            '.' if next == Some('.') => (Token::DotDot, 2),
            '.' if next.is_some_and(|n| n.is_ascii_digit()) => number(&chars, i)?,
            '.' => (Token::Dot, 1),
            '@' => (Token::At, 1),
            ',' => (Token::Comma, 1),
            '(' => (Token::LParen, 1),
            ')' => (Token::RParen, 1),
            '[' => (Token::LBracket, 1),
            ']' => (Token::RBracket, 1),
            '|' => (Token::Pipe, 1),
            '+' => (Token::Plus, 1),
            '-' => (Token::Minus, 1),
            '=' => (Token::Eq, 1),
            '!' if next == Some('=') => (Token::Neq, 2),
            '<' if next == Some('=') => (Token::Le, 2),
            '<' => (Token::Lt, 1),
            '>' if next == Some('=') => (Token::Ge, 2),
            '>' => (Token::Gt, 1),
            '*' if ends_operand(out.last()) => (Token::Multiply, 1),
            '*' => (Token::AnyName, 1),
            '"' | '\'' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&q| q == c)
                    .ok_or_else(|| bad(format!("a string opened at character {} is not closed", i + 1)))?;
                (Token::Literal(chars[i + 1..i + 1 + end].iter().collect()), end + 2)
            }
            '$' => {
                let name: String = chars[i + 1..].iter().take_while(|c| is_name_char(**c) || **c == ':').collect();
                if name.is_empty() {
                    return Err(bad("a $ names no variable".into()));
                }
                let width = name.chars().count() + 1;
                (Token::Variable(name), width)
            }
            c if c.is_ascii_digit() => number(&chars, i)?,
            c if is_name_start(c) => name(&chars, i, out.last())?,
            other => return Err(bad(format!("{other:?} at character {} is not XPath", i + 1))),
        };
        out.push(token);
        i += width;
    }
    Ok(out)
}

fn number(chars: &[char], at: usize) -> Result<(Token, usize), XPathError> {
    let text: String = chars[at..].iter().take_while(|c| c.is_ascii_digit() || **c == '.').collect();
    let value = text.parse::<f64>().map_err(|_| XPathError::Expression { why: format!("{text} is not a number") })?;
    Ok((Token::Number(value), text.chars().count()))
}

/// A name, and what it is by what precedes and follows it.
fn name(chars: &[char], at: usize, previous: Option<&Token>) -> Result<(Token, usize), XPathError> {
    let mut end = at;
    while end < chars.len() && is_name_char(chars[end]) {
        end += 1;
    }
    let mut local: String = chars[at..end].iter().collect();
    // `prefix:local` or `prefix:*` (but not `axis::`).
    if chars.get(end) == Some(&':') && chars.get(end + 1) != Some(&':') {
        match chars.get(end + 1) {
            Some('*') => return Ok((Token::PrefixAny(local), end + 2 - at)),
            Some(&c) if is_name_start(c) => {
                let mut tail = end + 1;
                while tail < chars.len() && is_name_char(chars[tail]) {
                    tail += 1;
                }
                local = chars[at..tail].iter().collect();
                end = tail;
            }
            _ => {}
        }
    }
    let width = end - at;
    if ends_operand(previous) {
        let operator = match local.as_str() {
            "and" => Some(Token::And),
            "or" => Some(Token::Or),
            "mod" => Some(Token::Mod),
            "div" => Some(Token::Div),
            _ => None,
        };
        return operator.map(|t| (t, width)).ok_or_else(|| XPathError::Expression {
            why: format!("{local:?} stands where an operator (and, or, =, |, /...) is expected"),
        });
    }
    let mut after = end;
    while after < chars.len() && chars[after].is_whitespace() {
        after += 1;
    }
    let token = match (chars.get(after), chars.get(after + 1)) {
        (Some('('), _) if matches!(local.as_str(), "node" | "text" | "comment" | "processing-instruction") => {
            Token::NodeType(local)
        }
        (Some('('), _) => Token::Function(local),
        (Some(':'), Some(':')) => {
            return Ok((Token::Axis(local), after + 2 - at));
        }
        _ => Token::Name(local),
    };
    Ok((token, width))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_names_are_told_apart_by_what_comes_before() {
        use Token::*;
        let t = tokens("//*[@a * 2 = div div 3]").unwrap();
        assert_eq!(
            t,
            [
                DoubleSlash,
                AnyName,
                LBracket,
                At,
                Name("a".into()),
                Multiply,
                Number(2.0),
                Eq,
                Name("div".into()),
                Div,
                Number(3.0),
                RBracket
            ]
        );
        let t = tokens("child::android.widget.TextView[contains(@text, 'a b')] | ../x:*").unwrap();
        assert_eq!(t[0], Axis("child".into()));
        assert_eq!(t[1], Name("android.widget.TextView".into()));
        assert_eq!(t[3], Function("contains".into()));
        assert_eq!(t[8], Literal("a b".into()));
        assert_eq!(t.last(), Some(&PrefixAny("x".into())));
        assert!(tokens("//*[@a='open").is_err());
        assert!(tokens("//a b").is_err(), "a name where an operator goes");
        assert_eq!(tokens("text ( )").unwrap()[0], NodeType("text".into()));
    }
}
