//! XPath 1.0's grammar read into an expression tree, by recursive descent whose
//! depth is bounded ([`MOST_DEPTH`] nested expressions, predicates or calls), so
//! no expression can overflow the stack here or when it is evaluated. Not the
//! tokens (`lexer.rs`) or what an expression means (`eval.rs`).

use super::error::XPathError;
use super::lexer::Token;

/// How deep expressions may nest (parentheses, predicates, calls, unary minus).
pub(super) const MOST_DEPTH: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    Child,
    Descendant,
    DescendantOrSelf,
    Parent,
    Ancestor,
    AncestorOrSelf,
    FollowingSibling,
    PrecedingSibling,
    Following,
    Preceding,
    Attribute,
    Itself,
    Namespace,
}

impl Axis {
    fn named(name: &str) -> Option<Axis> {
        Some(match name {
            "child" => Axis::Child,
            "descendant" => Axis::Descendant,
            "descendant-or-self" => Axis::DescendantOrSelf,
            "parent" => Axis::Parent,
            "ancestor" => Axis::Ancestor,
            "ancestor-or-self" => Axis::AncestorOrSelf,
            "following-sibling" => Axis::FollowingSibling,
            "preceding-sibling" => Axis::PrecedingSibling,
            "following" => Axis::Following,
            "preceding" => Axis::Preceding,
            "attribute" => Axis::Attribute,
            "self" => Axis::Itself,
            "namespace" => Axis::Namespace,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum NodeTest {
    /// `*`, or a name (its prefix, if any, kept).
    Any,
    Name(String),
    PrefixAny(String),
    Node,
    Text,
    Comment,
    Instruction(Option<String>),
}

#[derive(Debug, Clone)]
pub(super) struct Step {
    pub axis: Axis,
    pub test: NodeTest,
    pub predicates: Vec<Expr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Or,
    And,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Debug, Clone)]
pub(super) enum Expr {
    Binary(Op, Box<Expr>, Box<Expr>),
    Negate(Box<Expr>),
    Union(Box<Expr>, Box<Expr>),
    Literal(String),
    Number(f64),
    Variable(String),
    Call(String, Vec<Expr>),
    /// A path: from the root (absolute) or the context node, its steps.
    Path {
        absolute: bool,
        steps: Vec<Step>,
    },
    /// A primary expression with predicates, then steps from what it selects.
    Filter {
        primary: Box<Expr>,
        predicates: Vec<Expr>,
        steps: Vec<Step>,
    },
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

pub(super) fn parse(tokens: Vec<Token>) -> Result<Expr, XPathError> {
    if tokens.is_empty() {
        return Err(XPathError::Empty);
    }
    let mut p = Parser { tokens, at: 0, depth: 0 };
    let e = p.expr()?;
    if let Some(t) = p.peek() {
        return Err(p.bad(format!("{t:?} is not expected here")));
    }
    // The tree's real depth (chains of operators at several levels add up), which
    // its evaluation recurses through: bounded too.
    if tree_depth(&e) > MOST_TREE_DEPTH {
        return Err(XPathError::TooDeep { max: MOST_TREE_DEPTH });
    }
    Ok(e)
}

/// How deep an expression tree may be.
pub(super) const MOST_TREE_DEPTH: usize = 96;

/// The depth of `e`'s tree, counted without recursion.
fn tree_depth<'a>(e: &'a Expr) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&'a Expr, usize)> = vec![(e, 1)];
    while let Some((e, d)) = stack.pop() {
        deepest = deepest.max(d);
        let mut push = |child: &'a Expr| stack.push((child, d + 1));
        match e {
            Expr::Binary(_, a, b) | Expr::Union(a, b) => {
                push(a);
                push(b);
            }
            Expr::Negate(a) => push(a),
            Expr::Call(_, args) => args.iter().for_each(&mut push),
            Expr::Path { steps, .. } => steps.iter().flat_map(|s| &s.predicates).for_each(&mut push),
            Expr::Filter { primary, predicates, steps } => {
                push(primary);
                predicates.iter().for_each(&mut push);
                steps.iter().flat_map(|s| &s.predicates).for_each(&mut push);
            }
            Expr::Literal(_) | Expr::Number(_) | Expr::Variable(_) => {}
        }
    }
    deepest
}

fn descendant_or_self() -> Step {
    Step { axis: Axis::DescendantOrSelf, test: NodeTest::Node, predicates: Vec::new() }
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, t: &Token) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn bad(&self, why: String) -> XPathError {
        XPathError::Expression { why }
    }

    fn expect(&mut self, t: &Token, what: &str) -> Result<(), XPathError> {
        if self.eat(t) { Ok(()) } else { Err(self.bad(format!("{what} expected"))) }
    }

    /// Enters one level of nesting, refusing to go deeper than [`MOST_DEPTH`].
    fn enter(&mut self) -> Result<(), XPathError> {
        self.depth += 1;
        if self.depth > MOST_DEPTH {
            return Err(XPathError::TooDeep { max: MOST_DEPTH });
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, XPathError> {
        self.enter()?;
        let e = self.binary(0);
        self.depth -= 1;
        e
    }

    /// Binary operators by precedence level: or, and, equality, relational,
    /// additive, multiplicative.
    fn binary(&mut self, level: usize) -> Result<Expr, XPathError> {
        const LEVELS: [&[(Token, Op)]; 6] = [
            &[(Token::Or, Op::Or)],
            &[(Token::And, Op::And)],
            &[(Token::Eq, Op::Eq), (Token::Neq, Op::Neq)],
            &[(Token::Lt, Op::Lt), (Token::Le, Op::Le), (Token::Gt, Op::Gt), (Token::Ge, Op::Ge)],
            &[(Token::Plus, Op::Add), (Token::Minus, Op::Sub)],
            &[(Token::Multiply, Op::Mul), (Token::Div, Op::Div), (Token::Mod, Op::Mod)],
        ];
        let Some(ops) = LEVELS.get(level) else { return self.unary() };
        let mut left = self.binary(level + 1)?;
        // Each operator in a chain nests the tree one deeper (`1+1+1...`): counted.
        let mut chained = 0;
        let out = loop {
            let Some(op) = ops.iter().find(|(t, _)| self.peek() == Some(t)).map(|(_, op)| *op) else {
                break Ok(left);
            };
            self.at += 1;
            chained += 1;
            if let Err(e) = self.enter() {
                break Err(e);
            }
            let right = match self.binary(level + 1) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        };
        self.depth -= chained;
        out
    }

    fn unary(&mut self) -> Result<Expr, XPathError> {
        if self.eat(&Token::Minus) {
            self.enter()?;
            let inner = self.unary();
            self.depth -= 1;
            return Ok(Expr::Negate(Box::new(inner?)));
        }
        let mut left = self.path()?;
        let mut chained = 0;
        let out = loop {
            if !self.eat(&Token::Pipe) {
                break Ok(left);
            }
            chained += 1;
            if let Err(e) = self.enter() {
                break Err(e);
            }
            match self.path() {
                Ok(right) => left = Expr::Union(Box::new(left), Box::new(right)),
                Err(e) => break Err(e),
            }
        };
        self.depth -= chained;
        out
    }

    /// A location path, or a filter expression with the steps after it.
    fn path(&mut self) -> Result<Expr, XPathError> {
        let primary_starts = matches!(
            self.peek(),
            Some(Token::LParen | Token::Literal(_) | Token::Number(_) | Token::Variable(_) | Token::Function(_))
        );
        if primary_starts {
            let primary = self.primary()?;
            let predicates = self.predicates()?;
            let mut steps = Vec::new();
            if matches!(self.peek(), Some(Token::Slash | Token::DoubleSlash)) {
                self.relative(&mut steps, true)?;
            }
            if predicates.is_empty() && steps.is_empty() {
                return Ok(primary);
            }
            return Ok(Expr::Filter { primary: Box::new(primary), predicates, steps });
        }
        let mut steps = Vec::new();
        match self.peek() {
            Some(Token::Slash) => {
                self.at += 1;
                if self.step_starts() {
                    self.relative(&mut steps, false)?;
                }
                Ok(Expr::Path { absolute: true, steps })
            }
            Some(Token::DoubleSlash) => {
                self.relative(&mut steps, true)?;
                Ok(Expr::Path { absolute: true, steps })
            }
            _ if self.step_starts() => {
                self.relative(&mut steps, false)?;
                Ok(Expr::Path { absolute: false, steps })
            }
            Some(t) => Err(self.bad(format!("{t:?} cannot start an expression"))),
            None => Err(self.bad("the expression ends too soon".into())),
        }
    }

    fn step_starts(&self) -> bool {
        matches!(
            self.peek(),
            Some(
                Token::Dot
                    | Token::DotDot
                    | Token::At
                    | Token::Axis(_)
                    | Token::AnyName
                    | Token::PrefixAny(_)
                    | Token::Name(_)
                    | Token::NodeType(_)
            )
        )
    }

    /// Steps separated by `/` or `//`; `leading` says a separator comes first.
    fn relative(&mut self, steps: &mut Vec<Step>, leading: bool) -> Result<(), XPathError> {
        let mut separator = leading;
        loop {
            if separator {
                match self.peek() {
                    Some(Token::Slash) => self.at += 1,
                    Some(Token::DoubleSlash) => {
                        self.at += 1;
                        steps.push(descendant_or_self());
                    }
                    _ => return Ok(()),
                }
            }
            steps.push(self.step()?);
            separator = true;
            if !matches!(self.peek(), Some(Token::Slash | Token::DoubleSlash)) {
                return Ok(());
            }
        }
    }

    fn step(&mut self) -> Result<Step, XPathError> {
        if self.eat(&Token::Dot) {
            return Ok(Step { axis: Axis::Itself, test: NodeTest::Node, predicates: Vec::new() });
        }
        if self.eat(&Token::DotDot) {
            return Ok(Step { axis: Axis::Parent, test: NodeTest::Node, predicates: Vec::new() });
        }
        let axis = match self.peek().cloned() {
            Some(Token::At) => {
                self.at += 1;
                Axis::Attribute
            }
            Some(Token::Axis(name)) => {
                self.at += 1;
                Axis::named(&name).ok_or_else(|| self.bad(format!("{name}:: is not an axis")))?
            }
            _ => Axis::Child,
        };
        let test = match self.peek().cloned() {
            Some(Token::AnyName) => NodeTest::Any,
            Some(Token::PrefixAny(p)) => NodeTest::PrefixAny(p),
            Some(Token::Name(n)) => NodeTest::Name(n),
            Some(Token::NodeType(kind)) => {
                self.at += 1;
                self.expect(&Token::LParen, "(")?;
                let test = match kind.as_str() {
                    "node" => NodeTest::Node,
                    "text" => NodeTest::Text,
                    "comment" => NodeTest::Comment,
                    _ => match self.peek().cloned() {
                        Some(Token::Literal(target)) => {
                            self.at += 1;
                            NodeTest::Instruction(Some(target))
                        }
                        _ => NodeTest::Instruction(None),
                    },
                };
                self.expect(&Token::RParen, ")")?;
                return Ok(Step { axis, test, predicates: self.predicates()? });
            }
            _ => return Err(self.bad("a name, * or node() expected after an axis".into())),
        };
        self.at += 1;
        Ok(Step { axis, test, predicates: self.predicates()? })
    }

    fn predicates(&mut self) -> Result<Vec<Expr>, XPathError> {
        let mut out = Vec::new();
        while self.eat(&Token::LBracket) {
            out.push(self.expr()?);
            self.expect(&Token::RBracket, "]")?;
        }
        Ok(out)
    }

    fn primary(&mut self) -> Result<Expr, XPathError> {
        match self.peek().cloned() {
            Some(Token::LParen) => {
                self.at += 1;
                let e = self.expr()?;
                self.expect(&Token::RParen, ")")?;
                Ok(e)
            }
            Some(Token::Literal(s)) => {
                self.at += 1;
                Ok(Expr::Literal(s))
            }
            Some(Token::Number(n)) => {
                self.at += 1;
                Ok(Expr::Number(n))
            }
            Some(Token::Variable(v)) => {
                self.at += 1;
                Ok(Expr::Variable(v))
            }
            Some(Token::Function(name)) => {
                self.at += 1;
                self.expect(&Token::LParen, "(")?;
                let mut args = Vec::new();
                if !self.eat(&Token::RParen) {
                    loop {
                        args.push(self.expr()?);
                        if self.eat(&Token::RParen) {
                            break;
                        }
                        self.expect(&Token::Comma, ", or )")?;
                    }
                }
                Ok(Expr::Call(name, args))
            }
            other => Err(self.bad(format!("{other:?} cannot start an expression"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::tokens;
    use super::*;

    fn read(expr: &str) -> Result<Expr, XPathError> {
        parse(tokens(expr)?)
    }

    #[test]
    fn paths_filters_and_operators_are_read_and_nesting_is_bounded() {
        assert!(matches!(read("//a/b[1]").unwrap(), Expr::Path { absolute: true, ref steps } if steps.len() == 3));
        assert!(matches!(read("(//a)[last()]/b").unwrap(), Expr::Filter { .. }));
        assert!(matches!(read("1 + 2 * 3").unwrap(), Expr::Binary(Op::Add, _, _)));
        assert!(matches!(read("/").unwrap(), Expr::Path { absolute: true, ref steps } if steps.is_empty()));
        assert!(matches!(read("a | b | c").unwrap(), Expr::Union(..)));
        assert!(matches!(read("-count(//a)").unwrap(), Expr::Negate(_)));
        assert!(read("ancestor::*[1]/following-sibling::node()").is_ok());
        assert!(read("//a[").is_err());
        assert!(read("foo::a").is_err());
        assert!(read("").is_err());
        assert!(read("//a]").is_err());
        let deep = format!("{}1{}", "(".repeat(40), ")".repeat(40));
        assert!(matches!(read(&deep), Err(XPathError::TooDeep { .. })));
        let deep = "//*[".repeat(40) + &"]".repeat(40);
        assert!(matches!(read(&deep), Err(XPathError::TooDeep { .. })));
        assert!(matches!(read(&"-".repeat(100)), Err(XPathError::TooDeep { .. })));
        assert!(matches!(read(&vec!["1"; 100].join("+")), Err(XPathError::TooDeep { .. })), "a long chain");
        assert!(read(&vec!["1"; 20].join("+")).is_ok());
        // Chains at every level of precedence, nested in parentheses: the tree's
        // depth is what is bounded, however it is reached.
        let mut deep = String::from("1");
        for _ in 0..30 {
            deep = format!("({deep}*1*1*1+1+1+1=1=1)");
        }
        assert!(matches!(read(&deep), Err(XPathError::TooDeep { .. })), "{}", deep.len());
        assert!(matches!(read(&vec!["a"; 100].join("|")), Err(XPathError::TooDeep { .. })));
    }
}
