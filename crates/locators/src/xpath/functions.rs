//! XPath 1.0's core function library (§4): node-set, string, boolean and number
//! functions, each checking its arguments' count and charging the text it reads
//! or makes to the evaluation's budget. `id()` finds nothing (a page source has
//! no DTD). Not the evaluation of paths (`eval.rs`).

use super::error::XPathError;
use super::eval::{Ctx, Eval, Value, XNode};
use super::parser::Expr;

fn wrong(name: &str, takes: &str) -> XPathError {
    XPathError::Expression { why: format!("{name}() takes {takes}") }
}

impl Eval<'_, '_> {
    pub(super) fn call(&self, name: &str, args: &[Expr], c: Ctx) -> Result<Value, XPathError> {
        let n = args.len();
        let arity = |ok: bool, takes: &str| if ok { Ok(()) } else { Err(wrong(name, takes)) };
        let arg = |i: usize| self.eval(&args[i], c);
        let text = |i: usize| -> Result<String, XPathError> { self.string(&arg(i)?) };
        // The context node as a one-node set: what a function without its argument reads.
        let this = || Value::Nodes(vec![c.node]);
        let text_or_this = || -> Result<String, XPathError> { if n == 0 { self.string(&this()) } else { text(0) } };
        let nodes = |i: usize| -> Result<Vec<XNode>, XPathError> {
            match arg(i)? {
                Value::Nodes(nodes) => Ok(nodes),
                _ => Err(wrong(name, "a node-set")),
            }
        };
        Ok(match name {
            "last" => {
                arity(n == 0, "no argument")?;
                Value::Num(c.size as f64)
            }
            "position" => {
                arity(n == 0, "no argument")?;
                Value::Num(c.position as f64)
            }
            "count" => {
                arity(n == 1, "one node-set")?;
                Value::Num(nodes(0)?.len() as f64)
            }
            "id" => {
                arity(n == 1, "one argument")?;
                arg(0)?;
                Value::Nodes(Vec::new())
            }
            "local-name" | "name" => {
                arity(n <= 1, "at most one node-set")?;
                let first = if n == 0 { Some(c.node) } else { nodes(0)?.first().copied() };
                Value::Str(first.map(|x| self.name_of(x)).unwrap_or_default())
            }
            "namespace-uri" => {
                arity(n <= 1, "at most one node-set")?;
                if n == 1 {
                    nodes(0)?;
                }
                Value::Str(String::new())
            }
            "string" => {
                arity(n <= 1, "at most one argument")?;
                Value::Str(text_or_this()?)
            }
            "concat" => {
                arity(n >= 2, "two arguments or more")?;
                let mut out = String::new();
                for i in 0..n {
                    let part = text(i)?;
                    self.charge_text(part.len())?;
                    out.push_str(&part);
                }
                Value::Str(out)
            }
            "starts-with" | "contains" | "ends-with" => {
                arity(n == 2, "two strings")?;
                let (a, b) = (text(0)?, text(1)?);
                self.charge_text(a.len() + b.len())?;
                Value::Bool(match name {
                    "starts-with" => a.starts_with(&b),
                    "ends-with" => a.ends_with(&b),
                    _ => a.contains(&b),
                })
            }
            "substring-before" | "substring-after" => {
                arity(n == 2, "two strings")?;
                let (a, b) = (text(0)?, text(1)?);
                self.charge_text(a.len() + b.len())?;
                Value::Str(match (a.find(&b), name) {
                    (Some(at), "substring-before") => a[..at].to_string(),
                    (Some(at), _) => a[at + b.len()..].to_string(),
                    (None, _) => String::new(),
                })
            }
            "substring" => {
                arity(n == 2 || n == 3, "a string, a start and an optional length")?;
                let s = text(0)?;
                let start = round(self.number(&arg(1)?)?);
                let end = if n == 3 { start + round(self.number(&arg(2)?)?) } else { f64::INFINITY };
                self.charge_text(s.len())?;
                // Characters at positions p (from 1) with start <= p < end.
                Value::Str(
                    s.chars()
                        .enumerate()
                        .filter(|(i, _)| {
                            let p = (*i + 1) as f64;
                            p >= start && p < end
                        })
                        .map(|(_, ch)| ch)
                        .collect(),
                )
            }
            "string-length" => {
                arity(n <= 1, "at most one string")?;
                Value::Num(text_or_this()?.chars().count() as f64)
            }
            "normalize-space" => {
                arity(n <= 1, "at most one string")?;
                let s = text_or_this()?;
                self.charge_text(s.len())?;
                // XPath's white space is these four, not Unicode's.
                let words = s.split([' ', '\t', '\r', '\n']).filter(|w| !w.is_empty());
                Value::Str(words.collect::<Vec<_>>().join(" "))
            }
            "translate" => {
                arity(n == 3, "three strings")?;
                let (s, from, to) = (text(0)?, text(1)?, text(2)?);
                self.charge_text(s.len().saturating_add(from.len()).saturating_add(to.len()))?;
                // The first place of each character of `from` decides (XPath 1.0).
                let to: Vec<char> = to.chars().collect();
                let mut map: std::collections::HashMap<char, Option<char>> = std::collections::HashMap::new();
                for (i, f) in from.chars().enumerate() {
                    map.entry(f).or_insert_with(|| to.get(i).copied());
                }
                Value::Str(s.chars().filter_map(|ch| map.get(&ch).copied().unwrap_or(Some(ch))).collect())
            }
            "boolean" => {
                arity(n == 1, "one argument")?;
                Value::Bool(self.truth(&arg(0)?))
            }
            "not" => {
                arity(n == 1, "one argument")?;
                Value::Bool(!self.truth(&arg(0)?))
            }
            "true" | "false" => {
                arity(n == 0, "no argument")?;
                Value::Bool(name == "true")
            }
            "lang" => {
                arity(n == 1, "one string")?;
                arg(0)?;
                Value::Bool(false)
            }
            "number" => {
                arity(n <= 1, "at most one argument")?;
                Value::Num(if n == 0 { self.number(&this())? } else { self.number(&arg(0)?)? })
            }
            "sum" => {
                arity(n == 1, "one node-set")?;
                let mut total = 0.0;
                for x in nodes(0)? {
                    total += super::eval::number_of(&self.string_of(x)?);
                }
                Value::Num(total)
            }
            "floor" | "ceiling" | "round" => {
                arity(n == 1, "one number")?;
                let x = self.number(&arg(0)?)?;
                Value::Num(match name {
                    "floor" => x.floor(),
                    "ceiling" => x.ceil(),
                    _ => round(x),
                })
            }
            other => {
                return Err(XPathError::Expression {
                    why: format!("{}() is not an XPath 1.0 function", super::error::clip(other, 40)),
                });
            }
        })
    }

    /// A node's name (a page source has no namespaces: `name` and `local-name` agree).
    fn name_of(&self, x: XNode) -> String {
        match x {
            XNode::Attr(id, i) => {
                self.node(id).and_then(|n| n.attributes().nth(i as usize)).map(|a| a.name().to_string())
            }
            XNode::Node(id) => self.node(id).map(|n| {
                if n.is_element() {
                    n.tag_name().name().to_string()
                } else {
                    n.pi().map(|pi| pi.target.to_string()).unwrap_or_default()
                }
            }),
        }
        .unwrap_or_default()
    }
}

/// XPath's round: halves go up; NaN and infinities stay.
fn round(x: f64) -> f64 {
    if x.is_nan() || x.is_infinite() { x } else { (x + 0.5).floor() }
}
