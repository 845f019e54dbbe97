//! The `-android uiautomator` locator: a Java expression as Appium users write it —
//! `new UiSelector().resourceId("a:id/b").instance(1)`, or `new UiScrollable(new
//! UiSelector().scrollable(true)).scrollIntoView(new UiSelector().text("Wi-Fi"))` —
//! read into the calls it makes (uiautomator2's `Selector` dict: method name →
//! argument), and those calls as a [`Selector`] that matches any [`View`] as
//! UiAutomator does (`text` exactly, `textContains`, `textStartsWith`, `textMatches`
//! the whole text, the same for description, class, package and resource id; the
//! states; `index` among siblings; `instance` the nth match). Bounded: at most
//! [`MOST_CHARS`] characters and [`MOST_DEPTH`] nested constructors, patterns at
//! 1 MiB compiled; what it cannot read (child and parent selectors, other
//! `UiScrollable` calls) is an error naming it.

use serde_json::{Map, Value};

const MOST_CHARS: usize = 4096;
pub const MOST_DEPTH: usize = 4;
/// `UiScrollable`'s own default for how many swipes a search may take.
const DEFAULT_SWIPES: usize = 30;

/// Why a locator could not be read or compiled.
#[derive(Debug, thiserror::Error)]
pub enum UiSelectorError {
    #[error("longer than {max} characters")]
    TooLong { max: usize },
    #[error("more than {max} nested constructors")]
    TooDeep { max: usize },
    #[error("'{text}' is not a number")]
    NotANumber { text: String },
    #[error("unexpected character '{found}'")]
    UnexpectedCharacter { found: char },
    #[error("a string is not closed")]
    UnclosedString,
    #[error("bad escape \\u{hex}")]
    BadEscape { hex: String },
    #[error("expected {what}, found {found}")]
    Expected { what: String, found: String },
    #[error("unexpected {found} after the selector")]
    Trailing { found: String },
    #[error("UiScrollable takes a UiSelector")]
    ScrollableNeedsSelector,
    #[error("a UiScrollable needs scrollIntoView(new UiSelector()...) to find something")]
    NoScrollTarget,
    #[error("UiScrollable.{method} is not supported (use scrollIntoView)")]
    UnsupportedScrollable { method: String },
    #[error("{method}: too many arguments")]
    TooManyArguments { method: String },
    #[error("UiSelector.{method}: the arguments do not fit")]
    ArgumentsDoNotFit { method: String },
    #[error("UiSelector.{method} is not supported: find the parent, then below it")]
    Unsupported { method: String },
    #[error("UiSelector has no method {method}")]
    NoSuchMethod { method: String },
    #[error("UiSelector.{method} takes a number")]
    NeedsNumber { method: String },
    #[error("UiSelector.{method}: not a regular expression")]
    BadPattern {
        method: String,
        #[source]
        source: regex::Error,
    },
}

/// A `UiSelector`'s calls: each method's name and its one argument (`true` for
/// none), as uiautomator2's `Selector` dict names them.
pub type Fields = Map<String, Value>;

/// What a locator asks for.
#[derive(Debug, Clone)]
pub enum Query {
    Plain(Fields),
    Scroll(Scroll),
}

/// A `UiScrollable` search: scroll `within` until `target` shows.
#[derive(Debug, Clone)]
pub struct Scroll {
    pub within: Fields,
    pub target: Fields,
    pub max_swipes: usize,
    pub horizontal: bool,
}

/// The `UiSelector` methods a locator may call.
pub const METHODS: &[&str] = &[
    "text",
    "textContains",
    "textMatches",
    "textStartsWith",
    "className",
    "classNameMatches",
    "description",
    "descriptionContains",
    "descriptionMatches",
    "descriptionStartsWith",
    "checkable",
    "checked",
    "clickable",
    "longClickable",
    "scrollable",
    "enabled",
    "focusable",
    "focused",
    "selected",
    "packageName",
    "packageNameMatches",
    "resourceId",
    "resourceIdMatches",
    "index",
    "instance",
];

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Text(String),
    Number(i64),
    Punct(char),
}

fn tokens(text: &str) -> Result<Vec<Token>, UiSelectorError> {
    if text.chars().count() > MOST_CHARS {
        return Err(UiSelectorError::TooLong { max: MOST_CHARS });
    }
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_alphanumeric() || **c == '_') {
                word.push(c);
                chars.next();
            }
            out.push(Token::Word(word));
        } else if c.is_ascii_digit() || c == '-' {
            let mut digits = String::from(c);
            chars.next();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(d);
                chars.next();
            }
            out.push(Token::Number(digits.parse().map_err(|_| UiSelectorError::NotANumber { text: digits.clone() })?));
        } else if c == '"' {
            chars.next();
            out.push(Token::Text(string(&mut chars)?));
        } else if "().,;".contains(c) {
            out.push(Token::Punct(c));
            chars.next();
        } else {
            return Err(UiSelectorError::UnexpectedCharacter { found: c });
        }
    }
    Ok(out)
}

/// A Java string literal's body, after its opening quote.
fn string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, UiSelectorError> {
    let mut out = String::new();
    loop {
        match chars.next().ok_or(UiSelectorError::UnclosedString)? {
            '"' => return Ok(out),
            '\\' => match chars.next().ok_or(UiSelectorError::UnclosedString)? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                    let bad = || UiSelectorError::BadEscape { hex: hex.clone() };
                    let code = u32::from_str_radix(&hex, 16).map_err(|_| bad())?;
                    out.push(char::from_u32(code).ok_or_else(bad)?);
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
}

/// An argument of a call.
enum Arg {
    Text(String),
    Number(i64),
    Bool(bool),
    Selector(Map<String, Value>),
    Scrollable,
}

/// A `UiScrollable` as read so far: its selector dicts, before they are selectors.
struct ScrollFields {
    within: Map<String, Value>,
    target: Option<Map<String, Value>>,
    max_swipes: usize,
    horizontal: bool,
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    scroll: Option<ScrollFields>,
}

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn expect(&mut self, c: char) -> Result<(), UiSelectorError> {
        match self.next() {
            Some(Token::Punct(p)) if p == c => Ok(()),
            other => Err(UiSelectorError::Expected { what: format!("'{c}'"), found: shown(other) }),
        }
    }

    /// `[new] UiSelector() .call(...)...` or `[new] UiScrollable(SEL) .call(...)...`.
    fn object(&mut self, depth: usize) -> Result<Arg, UiSelectorError> {
        if depth > MOST_DEPTH {
            return Err(UiSelectorError::TooDeep { max: MOST_DEPTH });
        }
        let mut word = self.next();
        if word == Some(Token::Word("new".into())) {
            word = self.next();
        }
        let scrollable = match word {
            Some(Token::Word(w)) if w == "UiSelector" => false,
            Some(Token::Word(w)) if w == "UiScrollable" => true,
            other => {
                return Err(UiSelectorError::Expected {
                    what: "UiSelector or UiScrollable".into(),
                    found: shown(other),
                });
            }
        };
        self.expect('(')?;
        let mut fields = Map::new();
        if scrollable {
            let Arg::Selector(within) = self.object(depth + 1)? else {
                return Err(UiSelectorError::ScrollableNeedsSelector);
            };
            self.scroll = Some(ScrollFields { within, target: None, max_swipes: DEFAULT_SWIPES, horizontal: false });
        }
        self.expect(')')?;
        while self.tokens.get(self.at) == Some(&Token::Punct('.')) {
            self.at += 1;
            let name = match self.next() {
                Some(Token::Word(w)) => w,
                other => {
                    return Err(UiSelectorError::Expected { what: "a method name".into(), found: shown(other) });
                }
            };
            self.expect('(')?;
            let mut args = Vec::new();
            while self.tokens.get(self.at) != Some(&Token::Punct(')')) {
                args.push(match self.tokens.get(self.at).cloned() {
                    Some(Token::Text(t)) => (self.at += 1, Arg::Text(t)).1,
                    Some(Token::Number(n)) => (self.at += 1, Arg::Number(n)).1,
                    Some(Token::Word(w)) if w == "true" || w == "false" => (self.at += 1, Arg::Bool(w == "true")).1,
                    _ => self.object(depth + 1)?,
                });
                if self.tokens.get(self.at) == Some(&Token::Punct(',')) {
                    self.at += 1;
                }
                if args.len() > 4 {
                    return Err(UiSelectorError::TooManyArguments { method: name });
                }
            }
            self.expect(')')?;
            if scrollable { self.scroll_call(&name, args)? } else { selector_call(&mut fields, &name, args)? }
        }
        Ok(if scrollable { Arg::Scrollable } else { Arg::Selector(fields) })
    }

    fn scroll_call(&mut self, name: &str, mut args: Vec<Arg>) -> Result<(), UiSelectorError> {
        let Some(scroll) = self.scroll.as_mut() else { return Err(UiSelectorError::ScrollableNeedsSelector) };
        match (name, args.pop()) {
            ("scrollIntoView" | "getChildByText" | "getChildByDescription", Some(Arg::Selector(target))) => {
                scroll.target = Some(target)
            }
            ("scrollIntoView", _) if args.len() == 1 => {
                if let Some(Arg::Selector(target)) = args.pop() {
                    scroll.target = Some(target)
                }
            }
            ("scrollTextIntoView", Some(Arg::Text(text))) => {
                scroll.target = Some(field("textContains", Value::String(text)))
            }
            ("scrollDescriptionIntoView", Some(Arg::Text(text))) => {
                scroll.target = Some(field("descriptionContains", Value::String(text)))
            }
            ("setMaxSearchSwipes", Some(Arg::Number(n))) => scroll.max_swipes = n.clamp(0, 100) as usize,
            ("setAsHorizontalList", None) => scroll.horizontal = true,
            ("setAsVerticalList", None) => scroll.horizontal = false,
            ("setSwipeDeadZonePercentage", Some(_)) => {}
            _ => return Err(UiSelectorError::UnsupportedScrollable { method: name.to_string() }),
        }
        Ok(())
    }
}

fn field(name: &str, value: Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert(name.into(), value);
    fields
}

/// One `UiSelector` method as the selector dict's field.
fn selector_call(fields: &mut Map<String, Value>, name: &str, args: Vec<Arg>) -> Result<(), UiSelectorError> {
    let value = match args.as_slice() {
        [Arg::Text(t)] => Value::String(t.clone()),
        [Arg::Bool(b)] => Value::Bool(*b),
        [Arg::Number(n)] if *n >= 0 => Value::from(*n),
        [] => Value::Bool(true),
        _ => return Err(UiSelectorError::ArgumentsDoNotFit { method: name.to_string() }),
    };
    if matches!(name, "childSelector" | "fromParent") {
        return Err(UiSelectorError::Unsupported { method: name.to_string() });
    }
    if !METHODS.contains(&name) {
        return Err(UiSelectorError::NoSuchMethod { method: name.to_string() });
    }
    fields.insert(name.into(), value);
    Ok(())
}

fn shown(token: Option<Token>) -> String {
    match token {
        None => "the end".into(),
        Some(Token::Word(w)) => format!("'{w}'"),
        Some(Token::Text(t)) => format!("\"{}\"", t.chars().take(40).collect::<String>()),
        Some(Token::Number(n)) => n.to_string(),
        Some(Token::Punct(c)) => format!("'{c}'"),
    }
}

/// Reads a locator.
pub fn parse(text: &str) -> Result<Query, UiSelectorError> {
    let mut parser = Parser { tokens: tokens(text)?, at: 0, scroll: None };
    let object = parser.object(0)?;
    while parser.tokens.get(parser.at) == Some(&Token::Punct(';')) {
        parser.at += 1;
    }
    if parser.at < parser.tokens.len() {
        return Err(UiSelectorError::Trailing { found: shown(parser.next()) });
    }
    match (object, parser.scroll) {
        (Arg::Selector(fields), _) => Ok(Query::Plain(fields)),
        (_, Some(ScrollFields { within, target: Some(target), max_swipes, horizontal })) => {
            Ok(Query::Scroll(Scroll { within, target, max_swipes, horizontal }))
        }
        _ => Err(UiSelectorError::NoScrollTarget),
    }
}

/// A view a selector is matched against: its words and its states.
pub trait View {
    fn text(&self) -> &str;
    fn class(&self) -> &str;
    fn description(&self) -> &str;
    fn package(&self) -> &str;
    fn resource_id(&self) -> &str;
    /// `checkable`, `checked`, `clickable`, `longClickable`, `scrollable`,
    /// `enabled`, `focusable`, `focused`, `selected`.
    fn state(&self, name: &str) -> bool;
}

/// One condition of a selector.
#[derive(Debug)]
enum Condition {
    Text(String, String),
    Pattern(String, regex::Regex),
    Flag(String, bool),
    Index(usize),
}

/// A selector ready to match: its conditions and which match it wants.
#[derive(Debug)]
pub struct Selector {
    conditions: Vec<Condition>,
    instance: Option<usize>,
}

impl Selector {
    /// The calls of a `UiSelector` (see [`METHODS`]) as conditions; a call that
    /// does not fit its method (a pattern that is not one, a text where a number
    /// goes) is an error naming it.
    pub fn compile(fields: &Fields) -> Result<Self, UiSelectorError> {
        let mut conditions = Vec::new();
        let mut instance = None;
        for (name, value) in fields {
            if !METHODS.contains(&name.as_str()) {
                return Err(UiSelectorError::NoSuchMethod { method: name.clone() });
            }
            let count = || {
                value.as_u64().map(|n| n as usize).ok_or_else(|| UiSelectorError::NeedsNumber { method: name.clone() })
            };
            match (name.as_str(), value) {
                ("index", _) => conditions.push(Condition::Index(count()?)),
                ("instance", _) => instance = Some(count()?),
                (n, Value::String(pattern)) if n.ends_with("Matches") => {
                    // Java's String.matches: the whole text must match.
                    let anchored = format!("^(?:{pattern})$");
                    let compiled = regex::RegexBuilder::new(&anchored)
                        .size_limit(1 << 20)
                        .build()
                        .map_err(|source| UiSelectorError::BadPattern { method: n.to_string(), source })?;
                    conditions.push(Condition::Pattern(n.to_string(), compiled));
                }
                (n, Value::Bool(b)) => conditions.push(Condition::Flag(n.to_string(), *b)),
                (n, Value::String(s)) if !n.ends_with("Matches") => {
                    conditions.push(Condition::Text(n.to_string(), s.clone()))
                }
                (n, _) => return Err(UiSelectorError::ArgumentsDoNotFit { method: n.to_string() }),
            }
        }
        Ok(Selector { conditions, instance })
    }

    /// Whether `view`, the `index`-th child of its parent, meets every condition.
    pub fn accepts(&self, view: &impl View, index: usize) -> bool {
        self.conditions.iter().all(|c| meets(view, index, c))
    }

    /// Which of the matches the selector names, when it names one.
    pub fn instance(&self) -> Option<usize> {
        self.instance
    }
}

fn meets(view: &impl View, index: usize, condition: &Condition) -> bool {
    let field = |name: &str| -> &str {
        match name {
            n if n.starts_with("text") => view.text(),
            n if n.starts_with("className") => view.class(),
            n if n.starts_with("description") => view.description(),
            n if n.starts_with("packageName") => view.package(),
            _ => view.resource_id(),
        }
    };
    match condition {
        Condition::Text(name, want) => {
            let have = field(name);
            if name.ends_with("Contains") {
                have.contains(want.as_str())
            } else if name.ends_with("StartsWith") {
                have.starts_with(want.as_str())
            } else {
                have == want
            }
        }
        Condition::Pattern(name, pattern) => pattern.is_match(field(name)),
        Condition::Flag(name, want) => view.state(name) == *want,
        Condition::Index(want) => index == *want,
    }
}

#[cfg(test)]
#[path = "uiselector_tests.rs"]
mod tests;
