//! The arithmetic behind the demo `calculate` tool.
//!
//! A model will happily send `__import__('os')` to anything called "calculate", so this is a
//! closed grammar and nothing else: numbers with an optional decimal part, `+ - * /`,
//! parentheses and unary signs, evaluated in `f64`. Inputs are bounded in length and nesting so
//! a hostile expression cannot exhaust the stack, and every failure is a [`CalcError`] the tool
//! turns into an `isError` result rather than a protocol error.
//!
//! Grammar (recursive descent, usual precedence, left-associative):
//!
//! ```text
//! expr   = term   (("+" | "-") term)*
//! term   = unary  (("*" | "/") unary)*
//! unary  = ("-" | "+") unary | atom
//! atom   = number | "(" expr ")"
//! number = digits ["." digits] | "." digits
//! ```

/// The longest expression accepted, in characters.
pub const MAX_LEN: usize = 1_000;
/// How deeply parentheses and unary signs may nest.
pub const MAX_DEPTH: usize = 64;

/// Why an expression could not be evaluated. Positions are 1-based character columns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalcError {
    #[error("the expression is empty")]
    Empty,
    #[error("the expression is longer than {MAX_LEN} characters")]
    TooLong,
    #[error("unexpected `{found}` at column {column}")]
    Unexpected { found: char, column: usize },
    #[error("the expression ends where a number or `(` was expected")]
    UnexpectedEnd,
    #[error("missing `)` for the `(` at column {column}")]
    UnclosedParen { column: usize },
    #[error("`{text}` at column {column} is not a number")]
    BadNumber { text: String, column: usize },
    #[error("division by zero")]
    DivisionByZero,
    #[error("the expression nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("the result is too large to represent")]
    Overflow,
}

/// Evaluates `input` under the grammar in the module docs.
pub fn evaluate(input: &str) -> Result<f64, CalcError> {
    if input.chars().count() > MAX_LEN {
        return Err(CalcError::TooLong);
    }
    let tokens = tokenize(input)?;
    if tokens.is_empty() {
        return Err(CalcError::Empty);
    }
    let mut parser = Parser {
        tokens,
        next: 0,
        depth: 0,
    };
    let value = parser.expr()?;
    match parser.peek() {
        None => Ok(value),
        Some(token) => Err(token.unexpected()),
    }
}

/// Renders a result the way a person writes it: `3`, not `3.0`; `0.30000000000000004` stays
/// exact so nobody is misled about floating point.
pub fn format_number(value: f64) -> String {
    if value == 0.0 {
        // Also turns -0 into 0.
        return "0".to_owned();
    }
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Number(f64),
    Plus,
    Minus,
    Star,
    Slash,
    Open,
    Close,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    /// 1-based character column.
    column: usize,
    /// The character that started the token, for error messages.
    first: char,
}

impl Token {
    fn unexpected(&self) -> CalcError {
        CalcError::Unexpected {
            found: self.first,
            column: self.column,
        }
    }
}

fn tokenize(input: &str) -> Result<Vec<Token>, CalcError> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        let kind = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '+' => Kind::Plus,
            '-' => Kind::Minus,
            '*' => Kind::Star,
            '/' => Kind::Slash,
            '(' => Kind::Open,
            ')' => Kind::Close,
            '0'..='9' | '.' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                let text: String = chars[start..i].iter().collect();
                tokens.push(Token {
                    kind: Kind::Number(parse_number(&text, column)?),
                    column,
                    first: c,
                });
                continue;
            }
            found => return Err(CalcError::Unexpected { found, column }),
        };
        tokens.push(Token {
            kind,
            column,
            first: c,
        });
        i += 1;
    }
    Ok(tokens)
}

/// Accepts `12`, `12.5` and `.5`; rejects `1.`, `1.2.3` and a lone `.`. Rust's `f64` parser
/// would also take `inf` and `1e5`, which is why the shape is checked first.
fn parse_number(text: &str, column: usize) -> Result<f64, CalcError> {
    let bad = || CalcError::BadNumber {
        text: text.to_owned(),
        column,
    };
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let shape_ok = match fraction {
        None => digits(whole),
        Some(fraction) => (whole.is_empty() || digits(whole)) && digits(fraction),
    };
    if !shape_ok {
        return Err(bad());
    }
    let value: f64 = text.parse().map_err(|_| bad())?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(CalcError::Overflow)
    }
}

struct Parser {
    tokens: Vec<Token>,
    next: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.next).copied()
    }

    fn bump(&mut self) -> Option<Token> {
        let token = self.peek()?;
        self.next += 1;
        Some(token)
    }

    fn expr(&mut self) -> Result<f64, CalcError> {
        let mut value = self.term()?;
        while let Some(token) = self.peek() {
            let op = match token.kind {
                Kind::Plus | Kind::Minus => token.kind,
                _ => break,
            };
            self.next += 1;
            let rhs = self.term()?;
            value = finite(if op == Kind::Plus {
                value + rhs
            } else {
                value - rhs
            })?;
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<f64, CalcError> {
        let mut value = self.unary()?;
        while let Some(token) = self.peek() {
            let op = match token.kind {
                Kind::Star | Kind::Slash => token.kind,
                _ => break,
            };
            self.next += 1;
            let rhs = self.unary()?;
            value = if op == Kind::Star {
                finite(value * rhs)?
            } else if rhs == 0.0 {
                return Err(CalcError::DivisionByZero);
            } else {
                finite(value / rhs)?
            };
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<f64, CalcError> {
        match self.peek().map(|t| t.kind) {
            Some(Kind::Minus) => {
                self.next += 1;
                self.nested(|p| p.unary()).map(|v| -v)
            }
            Some(Kind::Plus) => {
                self.next += 1;
                self.nested(|p| p.unary())
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<f64, CalcError> {
        let token = self.bump().ok_or(CalcError::UnexpectedEnd)?;
        match token.kind {
            Kind::Number(value) => Ok(value),
            Kind::Open => {
                let value = self.nested(|p| p.expr())?;
                match self.bump() {
                    Some(Token {
                        kind: Kind::Close, ..
                    }) => Ok(value),
                    Some(other) => Err(other.unexpected()),
                    None => Err(CalcError::UnclosedParen {
                        column: token.column,
                    }),
                }
            }
            _ => Err(token.unexpected()),
        }
    }

    /// Runs one level of recursion, refusing to go past [`MAX_DEPTH`].
    fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<f64, CalcError>,
    ) -> Result<f64, CalcError> {
        if self.depth >= MAX_DEPTH {
            return Err(CalcError::TooDeep);
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }
}

fn finite(value: f64) -> Result<f64, CalcError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(CalcError::Overflow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(s: &str) -> f64 {
        evaluate(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval("1 + 2 * 3"), 7.0);
        assert_eq!(eval("(1 + 2) * 3"), 9.0);
        assert_eq!(eval("10 - 4 - 3"), 3.0);
        assert_eq!(eval("100 / 10 / 5"), 2.0);
        assert_eq!(eval("2 * 3 + 4 * 5"), 26.0);
        assert_eq!(eval("((((7))))"), 7.0);
    }

    #[test]
    fn unary_signs_and_decimals() {
        assert_eq!(eval("-3"), -3.0);
        assert_eq!(eval("--3"), 3.0);
        assert_eq!(eval("-(2 + 3) * 2"), -10.0);
        assert_eq!(eval("2 * -3"), -6.0);
        assert_eq!(eval("+4"), 4.0);
        assert_eq!(eval("1.5 + .5"), 2.0);
        assert_eq!(eval("7 / 2"), 3.5);
        assert_eq!(eval("  12\t*\n2 "), 24.0);
    }

    #[test]
    fn errors_say_what_and_where() {
        assert_eq!(evaluate(""), Err(CalcError::Empty));
        assert_eq!(evaluate("   "), Err(CalcError::Empty));
        assert_eq!(evaluate("1 / 0"), Err(CalcError::DivisionByZero));
        assert_eq!(evaluate("1 / (2 - 2)"), Err(CalcError::DivisionByZero));
        assert_eq!(evaluate("1 +"), Err(CalcError::UnexpectedEnd));
        assert_eq!(
            evaluate("(1 + 2"),
            Err(CalcError::UnclosedParen { column: 1 })
        );
        assert_eq!(
            evaluate("1 + 2)"),
            Err(CalcError::Unexpected {
                found: ')',
                column: 6
            })
        );
        assert_eq!(
            evaluate("2 ^ 3"),
            Err(CalcError::Unexpected {
                found: '^',
                column: 3
            })
        );
        assert_eq!(
            evaluate("1 2"),
            Err(CalcError::Unexpected {
                found: '2',
                column: 3
            })
        );
        assert!(matches!(
            evaluate("1.2.3"),
            Err(CalcError::BadNumber { .. })
        ));
        assert!(matches!(evaluate("1."), Err(CalcError::BadNumber { .. })));
        assert!(matches!(evaluate("."), Err(CalcError::BadNumber { .. })));
    }

    #[test]
    fn nothing_but_arithmetic_is_evaluated() {
        for input in [
            "__import__('os').system('ls')",
            "inf",
            "NaN",
            "1e5",
            "abs(1)",
            "x + 1",
            "1; 2",
            "０",
        ] {
            assert!(evaluate(input).is_err(), "{input} was accepted");
        }
    }

    #[test]
    fn hostile_sizes_are_refused_without_overflowing_the_stack() {
        assert_eq!(evaluate(&"1+".repeat(600)), Err(CalcError::TooLong));
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(evaluate(&deep), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"-".repeat(500)), Err(CalcError::TooDeep));
        let within = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert_eq!(evaluate(&within), Ok(1.0));
    }

    #[test]
    fn overflow_is_an_error_not_infinity() {
        let huge = "9".repeat(300);
        assert_eq!(
            evaluate(&format!("{huge} * {huge}")),
            Err(CalcError::Overflow)
        );
        assert_eq!(evaluate(&"9".repeat(400)), Err(CalcError::Overflow));
    }

    #[test]
    fn numbers_are_formatted_for_people() {
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(-0.0), "0");
        assert_eq!(format_number(3.5), "3.5");
        assert_eq!(format_number(-12.0), "-12");
        assert_eq!(format_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_number(1e20), "100000000000000000000");
    }
}
