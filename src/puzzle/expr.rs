//! Arithmetic over a test's scalars, for `[bench] flops = "2 * size * size * size"`: numbers,
//! scalar names, `+ - * /`, unary minus and parentheses. Kept tiny on purpose; it only has to
//! state how much work a launch does in terms of its problem size.

use std::collections::BTreeMap;

/// Evaluate `text` with `vars`; the error says what is wrong, in words.
pub fn eval(text: &str, vars: &BTreeMap<String, f64>) -> Result<f64, String> {
    evaluate(text, vars)
}

/// Evaluate `text` in whole numbers, as C would for `int`s: `/` truncates, and every
/// variable must be whole. For launch shapes and scratch sizes (`"(size + TPB - 1) / TPB"`).
pub fn eval_int(text: &str, vars: &BTreeMap<String, f64>) -> Result<i64, String> {
    evaluate(text, vars)
}

fn evaluate<N: Arith>(text: &str, vars: &BTreeMap<String, f64>) -> Result<N, String> {
    let tokens = lex(text)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        vars,
        number: std::marker::PhantomData,
    };
    let v = p.sum()?;
    match p.tokens.get(p.at) {
        None => Ok(v),
        Some(t) => Err(format!("unexpected `{}`", t.text())),
    }
}

const OVERFLOW: &str = "the value overflows a 64-bit integer";

/// The arithmetic an expression is evaluated in: plain `f64` (FLOP counts), or checked whole
/// numbers (`i64`, launch shapes). The grammar is the same for both (`Parser`).
trait Arith: Copy {
    /// A number or a variable's value; `what` names it in an error.
    fn from_f64(v: f64, what: &str) -> Result<Self, String>;
    /// `self op r` for `op` one of `+ - * /`.
    fn apply(self, op: char, r: Self) -> Result<Self, String>;
    fn negate(self) -> Result<Self, String>;
}

impl Arith for f64 {
    fn from_f64(v: f64, _what: &str) -> Result<f64, String> {
        Ok(v)
    }

    fn apply(self, op: char, r: f64) -> Result<f64, String> {
        Ok(match op {
            '+' => self + r,
            '-' => self - r,
            '*' => self * r,
            _ => self / r,
        })
    }

    fn negate(self) -> Result<f64, String> {
        Ok(-self)
    }
}

impl Arith for i64 {
    fn from_f64(v: f64, what: &str) -> Result<i64, String> {
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            Ok(v as i64)
        } else {
            Err(format!("{what} is {v}, not a whole number"))
        }
    }

    fn apply(self, op: char, r: i64) -> Result<i64, String> {
        if op == '/' && r == 0 {
            return Err("division by zero".into());
        }
        match op {
            '+' => self.checked_add(r),
            '-' => self.checked_sub(r),
            '*' => self.checked_mul(r),
            _ => self.checked_div(r),
        }
        .ok_or_else(|| OVERFLOW.into())
    }

    fn negate(self) -> Result<i64, String> {
        self.checked_neg().ok_or_else(|| OVERFLOW.into())
    }
}

fn unknown_name(name: &str, vars: &BTreeMap<String, f64>) -> String {
    let known: Vec<&str> = vars.keys().map(String::as_str).collect();
    format!(
        "`{name}` is not a scalar of this launch (scalars: {})",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    )
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Op(char),
}

impl Tok {
    fn text(&self) -> String {
        match self {
            Tok::Num(n) => n.to_string(),
            Tok::Name(s) => s.clone(),
            Tok::Op(c) => c.to_string(),
        }
    }
}

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            out.push(Tok::Num(
                s.parse().map_err(|_| format!("`{s}` is not a number"))?,
            ));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(chars[start..i].iter().collect()));
        } else if "+-*/()".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else {
            return Err(format!(
                "`{c}` is not allowed (use numbers, scalar names, + - * / and parentheses)"
            ));
        }
    }
    if out.is_empty() {
        return Err("the expression is empty".into());
    }
    Ok(out)
}

/// Recursive descent: `sum := product (('+'|'-') product)*`, `product := unary (('*'|'/')
/// unary)*`, `unary := '-' unary | atom`, `atom := number | name | '(' sum ')'`.
struct Parser<'a, N> {
    tokens: &'a [Tok],
    at: usize,
    vars: &'a BTreeMap<String, f64>,
    number: std::marker::PhantomData<N>,
}

impl<N: Arith> Parser<'_, N> {
    fn peek_op(&self) -> Option<char> {
        match self.tokens.get(self.at) {
            Some(Tok::Op(c)) => Some(*c),
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<N, String> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek_op() {
            self.at += 1;
            v = v.apply(op, self.product()?)?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<N, String> {
        let mut v = self.unary()?;
        while let Some(op @ ('*' | '/')) = self.peek_op() {
            self.at += 1;
            v = v.apply(op, self.unary()?)?;
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<N, String> {
        if self.peek_op() == Some('-') {
            self.at += 1;
            return self.unary()?.negate();
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<N, String> {
        let t = self
            .tokens
            .get(self.at)
            .ok_or("the expression ends too early")?;
        self.at += 1;
        match t {
            Tok::Num(n) => N::from_f64(*n, &format!("`{n}`")),
            Tok::Name(name) => match self.vars.get(name) {
                Some(v) => N::from_f64(*v, &format!("`{name}`")),
                None => Err(unknown_name(name, self.vars)),
            },
            Tok::Op('(') => {
                let v = self.sum()?;
                if self.peek_op() != Some(')') {
                    return Err("a `(` is not closed".into());
                }
                self.at += 1;
                Ok(v)
            }
            Tok::Op(c) => Err(format!("unexpected `{c}`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> BTreeMap<String, f64> {
        [("size".to_string(), 128.0), ("b_size".to_string(), 4.0)]
            .into_iter()
            .collect()
    }

    #[test]
    fn evaluates_with_precedence_and_parentheses() {
        assert_eq!(
            eval("2 * size * size * size", &vars()),
            Ok(2.0 * 128f64.powi(3))
        );
        assert_eq!(eval("1 + 2 * 3", &vars()), Ok(7.0));
        assert_eq!(eval("(1 + 2) * 3", &vars()), Ok(9.0));
        assert_eq!(eval("size / 2 - -1", &vars()), Ok(65.0));
        assert_eq!(eval("2*size*b_size", &vars()), Ok(1024.0));
        assert_eq!(eval("1.5e3", &vars()), Ok(1500.0));
    }

    #[test]
    fn mistakes_are_explained() {
        let e = eval("2 * n", &vars()).unwrap_err();
        assert!(
            e.contains("`n` is not a scalar") && e.contains("b_size, size"),
            "{e}"
        );
        assert!(eval("", &vars()).unwrap_err().contains("empty"));
        assert!(eval("(1 + 2", &vars()).unwrap_err().contains("not closed"));
        assert!(eval("1 +", &vars()).unwrap_err().contains("ends too early"));
        assert!(eval("2 ^ 3", &vars())
            .unwrap_err()
            .contains("`^` is not allowed"));
        assert!(eval("2 3", &vars()).unwrap_err().contains("unexpected"));
    }

    #[test]
    fn whole_number_evaluation_truncates_like_c() {
        assert_eq!(eval_int("(size + b_size - 1) / b_size", &vars()), Ok(32));
        assert_eq!(eval_int("(15 + 8 - 1) / 8", &vars()), Ok(2));
        assert_eq!(eval_int("-7 / 2", &vars()), Ok(-3));
        assert!(eval_int("1 / 0", &vars())
            .unwrap_err()
            .contains("division by zero"));
        assert!(eval_int("1.5", &vars())
            .unwrap_err()
            .contains("not a whole number"));
        assert!(eval_int("n + 1", &vars())
            .unwrap_err()
            .contains("`n` is not a scalar"));
        assert!(eval_int("9000000000 * 9000000000", &vars())
            .unwrap_err()
            .contains("overflows"));
    }
}
