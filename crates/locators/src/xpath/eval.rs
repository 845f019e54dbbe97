//! What an XPath 1.0 expression selects on a parsed page, under a budget of
//! steps: every node an axis walks, every predicate tried, every 64 bytes of text
//! read or made costs one, and an evaluation that spends [`Eval::limit`] stops
//! with an error at once — whatever axes it nests, however long the page — so a
//! runaway expression never holds a session. Node-sets are kept in document order
//! without duplicates. Not the grammar (`parser.rs`) or the functions
//! (`functions.rs`).

use std::cell::Cell;

use roxmltree::{Document, Node, NodeId};

use super::error::XPathError;
use super::parser::{Axis, Expr, NodeTest, Op, Step};

/// A node of the page: a node of the tree (by its id), or an element's attribute
/// (by its element's id and its place among the attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum XNode {
    Node(u32),
    Attr(u32, u32),
}

impl XNode {
    /// Its place in document order: an element's attributes come after it and
    /// before its children (whose ids are greater).
    fn order(self) -> (u32, u32) {
        match self {
            XNode::Node(id) => (id, 0),
            XNode::Attr(id, i) => (id, i.saturating_add(1)),
        }
    }
}

/// A value an expression has.
#[derive(Debug, Clone)]
pub(super) enum Value {
    Nodes(Vec<XNode>),
    Bool(bool),
    Num(f64),
    Str(String),
}

/// Where an expression is evaluated: a node, its position (from 1) and the size
/// of the set it is in.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub node: XNode,
    pub position: usize,
    pub size: usize,
}

pub(super) struct Eval<'a, 'input> {
    pub doc: &'a Document<'input>,
    pub spent: Cell<u64>,
    pub limit: u64,
}

/// Sorts node-sets into document order without duplicates.
pub(super) fn in_order(mut nodes: Vec<XNode>) -> Vec<XNode> {
    nodes.sort_unstable_by_key(|n| n.order());
    nodes.dedup();
    nodes
}

impl<'a, 'input> Eval<'a, 'input> {
    /// Spends `n` steps of the budget.
    pub fn charge(&self, n: u64) -> Result<(), XPathError> {
        let spent = self.spent.get().saturating_add(n);
        self.spent.set(spent);
        if spent > self.limit {
            return Err(XPathError::TooMuchWork { steps: self.limit, elements: 0 });
        }
        Ok(())
    }

    /// The budget for text of `bytes` bytes.
    pub fn charge_text(&self, bytes: usize) -> Result<(), XPathError> {
        self.charge(1 + (bytes as u64) / 64)
    }

    pub fn node(&self, id: u32) -> Option<Node<'a, 'input>> {
        self.doc.get_node(NodeId::new(id))
    }

    pub fn eval(&self, e: &Expr, c: Ctx) -> Result<Value, XPathError> {
        self.charge(1)?;
        Ok(match e {
            Expr::Literal(s) => Value::Str(s.clone()),
            Expr::Number(n) => Value::Num(*n),
            Expr::Variable(v) => {
                return Err(XPathError::Expression { why: format!("${v}: no variables are bound") });
            }
            Expr::Negate(inner) => Value::Num(-self.number(&self.eval(inner, c)?)?),
            Expr::Union(a, b) => {
                let (Value::Nodes(mut a), Value::Nodes(b)) = (self.eval(a, c)?, self.eval(b, c)?) else {
                    return Err(XPathError::Expression { why: "| joins node-sets only".into() });
                };
                self.charge(b.len() as u64)?;
                a.extend(b);
                Value::Nodes(in_order(a))
            }
            Expr::Binary(Op::Or, a, b) => Value::Bool(self.truth(&self.eval(a, c)?) || self.truth(&self.eval(b, c)?)),
            Expr::Binary(Op::And, a, b) => Value::Bool(self.truth(&self.eval(a, c)?) && self.truth(&self.eval(b, c)?)),
            Expr::Binary(op @ (Op::Eq | Op::Neq | Op::Lt | Op::Le | Op::Gt | Op::Ge), a, b) => {
                Value::Bool(self.compare(*op, &self.eval(a, c)?, &self.eval(b, c)?)?)
            }
            Expr::Binary(op, a, b) => {
                let (x, y) = (self.number(&self.eval(a, c)?)?, self.number(&self.eval(b, c)?)?);
                Value::Num(match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => x / y,
                    _ => x % y,
                })
            }
            Expr::Call(name, args) => self.call(name, args, c)?,
            Expr::Path { absolute, steps } => {
                let start = if *absolute { XNode::Node(self.doc.root().id().get()) } else { c.node };
                Value::Nodes(self.steps(vec![start], steps)?)
            }
            Expr::Filter { primary, predicates, steps } => {
                let Value::Nodes(mut nodes) = self.eval(primary, c)? else {
                    if predicates.is_empty() && steps.is_empty() {
                        return self.eval(primary, c);
                    }
                    return Err(XPathError::Expression { why: "predicates and steps follow node-sets only".into() });
                };
                for p in predicates {
                    nodes = self.filter(nodes, p)?;
                }
                Value::Nodes(self.steps(nodes, steps)?)
            }
        })
    }

    /// The nodes `steps` lead to from `start`, in document order.
    fn steps(&self, start: Vec<XNode>, steps: &[Step]) -> Result<Vec<XNode>, XPathError> {
        let mut nodes = start;
        for step in steps {
            let mut out = Vec::new();
            for &from in &nodes {
                let mut along = Vec::new();
                self.axis(from, step, &mut along)?;
                for p in &step.predicates {
                    along = self.filter(along, p)?;
                }
                out.extend(along);
            }
            nodes = in_order(out);
        }
        Ok(nodes)
    }

    /// The nodes of `nodes` (in the order their positions count) for which `p` holds.
    fn filter(&self, nodes: Vec<XNode>, p: &Expr) -> Result<Vec<XNode>, XPathError> {
        let size = nodes.len();
        let mut kept = Vec::new();
        for (i, node) in nodes.into_iter().enumerate() {
            let c = Ctx { node, position: i + 1, size };
            let holds = match self.eval(p, c)? {
                Value::Num(n) => n == (i + 1) as f64,
                other => self.truth(&other),
            };
            if holds {
                kept.push(node);
            }
        }
        Ok(kept)
    }

    /// Pushes the nodes of `step`'s axis from `from` that pass its test, in the
    /// axis's order (a reverse axis nearest first).
    fn axis(&self, from: XNode, step: &Step, out: &mut Vec<XNode>) -> Result<(), XPathError> {
        let (owner, attribute) = match from {
            XNode::Node(id) => (id, false),
            XNode::Attr(id, _) => (id, true),
        };
        let Some(node) = self.node(owner) else { return Ok(()) };
        let push = |n: Node<'_, '_>, out: &mut Vec<XNode>| -> Result<(), XPathError> {
            self.charge(1)?;
            if passes(n, &step.test) {
                out.push(XNode::Node(n.id().get()));
            }
            Ok(())
        };
        match step.axis {
            Axis::Itself if attribute => {
                self.charge(1)?;
                if matches!(step.test, NodeTest::Node) {
                    out.push(from);
                }
            }
            Axis::Itself => push(node, out)?,
            Axis::Attribute if attribute => {}
            Axis::Attribute => {
                for (i, a) in node.attributes().enumerate() {
                    self.charge(1)?;
                    let fits = match &step.test {
                        NodeTest::Any | NodeTest::Node => true,
                        NodeTest::Name(name) => a.name() == name && a.namespace().is_none(),
                        _ => false,
                    };
                    if fits {
                        out.push(XNode::Attr(owner, i as u32));
                    }
                }
            }
            Axis::Namespace => {}
            Axis::Child | Axis::FollowingSibling | Axis::PrecedingSibling | Axis::Descendant if attribute => {}
            Axis::Child => {
                for n in node.children() {
                    push(n, out)?;
                }
            }
            Axis::Descendant => {
                for n in node.descendants().skip(1) {
                    push(n, out)?;
                }
            }
            Axis::DescendantOrSelf if attribute => {
                self.charge(1)?;
                if matches!(step.test, NodeTest::Node) {
                    out.push(from);
                }
            }
            Axis::DescendantOrSelf => {
                for n in node.descendants() {
                    push(n, out)?;
                }
            }
            Axis::Parent if attribute => push(node, out)?,
            Axis::Parent => {
                if let Some(p) = node.parent() {
                    push(p, out)?;
                }
            }
            Axis::Ancestor | Axis::AncestorOrSelf => {
                if attribute && step.axis == Axis::AncestorOrSelf {
                    self.charge(1)?;
                    if matches!(step.test, NodeTest::Node) {
                        out.push(from);
                    }
                }
                let skip = usize::from(!attribute && step.axis == Axis::Ancestor);
                for n in node.ancestors().skip(skip) {
                    push(n, out)?;
                }
            }
            Axis::FollowingSibling => {
                for n in node.next_siblings().skip(1) {
                    push(n, out)?;
                }
            }
            Axis::PrecedingSibling => {
                for n in node.prev_siblings().skip(1) {
                    push(n, out)?;
                }
            }
            Axis::Following => {
                // An attribute's element's descendants come after the attribute.
                if attribute {
                    for n in node.descendants().skip(1) {
                        push(n, out)?;
                    }
                }
                for a in node.ancestors() {
                    for sibling in a.next_siblings().skip(1) {
                        for n in sibling.descendants() {
                            push(n, out)?;
                        }
                    }
                }
            }
            Axis::Preceding => {
                for a in node.ancestors() {
                    for sibling in a.prev_siblings().skip(1) {
                        // Nearest first: the sibling's subtree from its end.
                        for n in sibling.descendants().rev() {
                            push(n, out)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A node's string value (an element's: its text below it, joined).
    pub fn string_of(&self, x: XNode) -> Result<String, XPathError> {
        let text = match x {
            XNode::Attr(id, i) => {
                self.node(id).and_then(|n| n.attributes().nth(i as usize)).map(|a| a.value().to_string())
            }
            XNode::Node(id) => match self.node(id) {
                Some(n) if n.is_element() || n.is_root() => {
                    let mut s = String::new();
                    for d in n.descendants() {
                        self.charge(1)?;
                        if d.is_text() {
                            let t = d.text().unwrap_or("");
                            self.charge_text(t.len())?;
                            s.push_str(t);
                        }
                    }
                    Some(s)
                }
                Some(n) if n.is_pi() => n.pi().and_then(|pi| pi.value).map(str::to_string),
                Some(n) => n.text().map(str::to_string),
                None => None,
            },
        };
        let text = text.unwrap_or_default();
        self.charge_text(text.len())?;
        Ok(text)
    }

    pub fn string(&self, v: &Value) -> Result<String, XPathError> {
        Ok(match v {
            Value::Str(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Num(n) => number_text(*n),
            Value::Nodes(nodes) => match nodes.first() {
                Some(first) => self.string_of(*first)?,
                None => String::new(),
            },
        })
    }

    pub fn number(&self, v: &Value) -> Result<f64, XPathError> {
        Ok(match v {
            Value::Num(n) => *n,
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Str(s) => number_of(s),
            Value::Nodes(_) => number_of(&self.string(v)?),
        })
    }

    pub fn truth(&self, v: &Value) -> bool {
        match v {
            Value::Bool(b) => *b,
            Value::Num(n) => *n != 0.0 && !n.is_nan(),
            Value::Str(s) => !s.is_empty(),
            Value::Nodes(n) => !n.is_empty(),
        }
    }

    /// XPath 1.0's comparisons (§3.4): a node-set compares by any of its nodes.
    fn compare(&self, op: Op, a: &Value, b: &Value) -> Result<bool, XPathError> {
        match (a, b) {
            (Value::Nodes(x), Value::Nodes(y)) => {
                let xs: Vec<String> = x.iter().map(|n| self.string_of(*n)).collect::<Result<_, _>>()?;
                let ys: Vec<String> = y.iter().map(|n| self.string_of(*n)).collect::<Result<_, _>>()?;
                Ok(match op {
                    Op::Eq => {
                        let set: std::collections::HashSet<&str> = xs.iter().map(String::as_str).collect();
                        ys.iter().any(|s| set.contains(s.as_str()))
                    }
                    Op::Neq => {
                        // Some pair differs unless both hold one and the same value.
                        let distinct = |v: &[String]| v.iter().collect::<std::collections::HashSet<_>>().len();
                        !xs.is_empty() && !ys.is_empty() && (distinct(&xs) > 1 || distinct(&ys) > 1 || xs[0] != ys[0])
                    }
                    _ => {
                        let nums =
                            |v: &[String]| v.iter().map(|s| number_of(s)).filter(|n| !n.is_nan()).collect::<Vec<_>>();
                        let (xn, yn) = (nums(&xs), nums(&ys));
                        let (Some(min_x), Some(max_x)) = (fold(&xn, f64::min), fold(&xn, f64::max)) else {
                            return Ok(false);
                        };
                        let (Some(min_y), Some(max_y)) = (fold(&yn, f64::min), fold(&yn, f64::max)) else {
                            return Ok(false);
                        };
                        match op {
                            Op::Lt => min_x < max_y,
                            Op::Le => min_x <= max_y,
                            Op::Gt => max_x > min_y,
                            _ => max_x >= min_y,
                        }
                    }
                })
            }
            (Value::Nodes(nodes), other) | (other, Value::Nodes(nodes)) => {
                let flipped = matches!(b, Value::Nodes(_)) && !matches!(a, Value::Nodes(_));
                if let Value::Bool(_) = other {
                    let set = Value::Bool(!nodes.is_empty());
                    return Ok(if flipped { self.scalar(op, other, &set) } else { self.scalar(op, &set, other) });
                }
                for n in nodes {
                    let value = match other {
                        Value::Num(_) => Value::Num(number_of(&self.string_of(*n)?)),
                        _ => Value::Str(self.string_of(*n)?),
                    };
                    let holds = if flipped { self.scalar(op, other, &value) } else { self.scalar(op, &value, other) };
                    if holds {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Ok(self.scalar(op, a, b)),
        }
    }

    /// A comparison of two values that are not node-sets.
    fn scalar(&self, op: Op, a: &Value, b: &Value) -> bool {
        let num = |v: &Value| match v {
            Value::Num(n) => *n,
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Str(s) => number_of(s),
            Value::Nodes(_) => f64::NAN,
        };
        let text = |v: &Value| match v {
            Value::Str(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Num(n) => number_text(*n),
            Value::Nodes(_) => String::new(),
        };
        match op {
            Op::Eq | Op::Neq => {
                let same = match (a, b) {
                    (Value::Bool(_), _) | (_, Value::Bool(_)) => self.truth(a) == self.truth(b),
                    (Value::Num(_), _) | (_, Value::Num(_)) => num(a) == num(b),
                    _ => text(a) == text(b),
                };
                same == (op == Op::Eq)
            }
            Op::Lt => num(a) < num(b),
            Op::Le => num(a) <= num(b),
            Op::Gt => num(a) > num(b),
            _ => num(a) >= num(b),
        }
    }
}

/// Whether node `n` passes `test` (on any axis but the attribute axis, whose
/// principal kind is the element).
fn passes(n: Node<'_, '_>, test: &NodeTest) -> bool {
    match test {
        NodeTest::Node => true,
        NodeTest::Any => n.is_element(),
        NodeTest::Name(name) => n.is_element() && n.tag_name().namespace().is_none() && n.tag_name().name() == name,
        NodeTest::PrefixAny(_) => false,
        NodeTest::Text => n.is_text(),
        NodeTest::Comment => n.is_comment(),
        NodeTest::Instruction(target) => n.pi().is_some_and(|pi| target.as_deref().is_none_or(|t| pi.target == t)),
    }
}

fn fold(values: &[f64], f: fn(f64, f64) -> f64) -> Option<f64> {
    values.iter().copied().reduce(f)
}

/// A string as XPath reads a number: optional white space, `-`, digits with an
/// optional point; anything else is NaN.
pub(super) fn number_of(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\r' | '\n'));
    let digits = t.strip_prefix('-').unwrap_or(t);
    let well_formed = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.matches('.').count() <= 1
        && digits != ".";
    if !well_formed {
        return f64::NAN;
    }
    t.parse().unwrap_or(f64::NAN)
}

/// A number as XPath writes it: integers without a point, NaN and Infinity by name.
pub(super) fn number_text(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else if n == n.trunc() && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}
