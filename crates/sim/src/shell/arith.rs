//! `$((...))` in the simulated shell: whole-number arithmetic with `+ - * / %`,
//! parentheses, unary minus, and variables by name (`$x` or `x`; unset is 0), as
//! mksh does it for the expressions scripts write. Not here: assignment operators,
//! comparisons, bit operations.

/// The value of `expr`, or why it has none.
pub(super) fn evaluate(expr: &str, var: &dyn Fn(&str) -> String) -> Result<i64, String> {
    let mut p = Parser { cs: expr.chars().collect(), i: 0, var, depth: 0 };
    let v = p.sum()?;
    p.spaces();
    if p.i < p.cs.len() {
        return Err(format!("unexpected '{}'", p.cs[p.i]));
    }
    Ok(v)
}

struct Parser<'a> {
    cs: Vec<char>,
    i: usize,
    var: &'a dyn Fn(&str) -> String,
    depth: usize,
}

impl Parser<'_> {
    fn spaces(&mut self) {
        while self.cs.get(self.i).is_some_and(|c| c.is_whitespace()) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.spaces();
        self.cs.get(self.i).copied()
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.i += 1;
            let r = self.product()?;
            v = if op == '+' { v.wrapping_add(r) } else { v.wrapping_sub(r) };
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.unary()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek() {
            self.i += 1;
            let r = self.unary()?;
            v = match op {
                '*' => v.wrapping_mul(r),
                _ if r == 0 => return Err("division by zero".into()),
                '/' => v.wrapping_div(r),
                _ => v.wrapping_rem(r),
            };
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<i64, String> {
        match self.peek() {
            Some('-') => {
                self.i += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some('+') => {
                self.i += 1;
                self.unary()
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<i64, String> {
        match self.peek() {
            Some('(') => {
                self.depth += 1;
                if self.depth > 64 {
                    return Err("expression too deep".into());
                }
                self.i += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return Err("missing ')'".into());
                }
                self.i += 1;
                self.depth -= 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.cs.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric()) {
                    self.i += 1;
                }
                let text: String = self.cs[start..self.i].iter().collect();
                text.parse::<i64>().map_err(|_| format!("bad number {text}"))
            }
            Some(c) if c == '$' || c == '_' || c.is_ascii_alphabetic() => {
                if c == '$' {
                    self.i += 1;
                }
                let braced = self.cs.get(self.i) == Some(&'{');
                if braced {
                    self.i += 1;
                }
                let start = self.i;
                while self.cs.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_') {
                    self.i += 1;
                }
                let name: String = self.cs[start..self.i].iter().collect();
                if braced {
                    if self.cs.get(self.i) != Some(&'}') {
                        return Err("missing '}'".into());
                    }
                    self.i += 1;
                }
                let value = (self.var)(&name);
                let value = value.trim();
                if value.is_empty() { Ok(0) } else { value.parse::<i64>().map_err(|_| format!("{name}: not a number")) }
            }
            Some(c) => Err(format!("unexpected '{c}'")),
            None => Err("missing operand".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::evaluate;

    #[test]
    fn arithmetic_as_scripts_write_it() {
        let var = |name: &str| if name == "x" { "7".to_string() } else { String::new() };
        assert_eq!(evaluate("1 + 2 * 3", &var), Ok(7));
        assert_eq!(evaluate("(1 + 2) * 3", &var), Ok(9));
        assert_eq!(evaluate("$x % 4 - -1", &var), Ok(4));
        assert_eq!(evaluate("x * ${x} + unset", &var), Ok(49));
        assert_eq!(evaluate("10 / 0", &var), Err("division by zero".to_string()));
        assert!(evaluate("1 +", &var).is_err());
        assert!(evaluate(&"(".repeat(100), &var).is_err());
    }
}
