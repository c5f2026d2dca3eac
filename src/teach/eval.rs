//! A small evaluator of the integer C expressions a kernel indexes with (`blockIdx.x *
//! blockDim.x + threadIdx.x`, `i + 1 < size`, `row * size + col`), for one thread: the names it
//! knows are the thread's coordinates, the puzzle's defines and scalars, and the locals set
//! before the line. Anything else (a loop variable, a float, a call it does not know) makes the
//! value unknown (`None`), and the help then says what was seen instead of a computed value.

/// Values by name; later entries shadow earlier ones.
#[derive(Clone, Debug, Default)]
pub struct Env {
    vars: Vec<(String, Option<i64>)>,
}

impl Env {
    pub fn set(&mut self, name: impl Into<String>, v: i64) {
        self.vars.push((name.into(), Some(v)));
    }

    /// A name whose value is not known here (a local set from memory): it hides any outer
    /// value of the same name.
    pub fn set_unknown(&mut self, name: impl Into<String>) {
        self.vars.push((name.into(), None));
    }

    pub fn get(&self, name: &str) -> Option<i64> {
        self.vars.iter().rev().find(|(n, _)| n == name)?.1
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Name(String),
    Op(&'static str),
}

const OPS: [&str; 24] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "(", ")",
    "!", "?", ":", ",", "&", "|", "^",
];

fn lex(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            let t = s[start..i].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = t.strip_prefix("0x") {
                i64::from_str_radix(h, 16).ok()?
            } else {
                t.parse::<i64>().ok()?
            };
            out.push(Tok::Num(v));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            out.push(Tok::Name(s[start..i].to_string()));
        } else {
            let op = OPS.iter().find(|o| s[i..].starts_with(**o))?;
            out.push(Tok::Op(op));
            i += op.len();
        }
    }
    Some(out)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    env: &'a Env,
}

fn prec(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek() == Some(&Tok::Op(op_static(op))) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Option<i64> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.expr()?;
            if !self.eat(":") {
                return None;
            }
            let b = self.expr()?;
            return Some(if c != 0 { a } else { b });
        }
        Some(c)
    }

    fn binary(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary()?;
        loop {
            let Some(Tok::Op(op)) = self.peek().cloned() else {
                return Some(lhs);
            };
            let Some(p) = prec(op) else {
                return Some(lhs);
            };
            if p < min {
                return Some(lhs);
            }
            self.at += 1;
            let rhs = self.binary(p + 1)?;
            lhs = apply(op, lhs, rhs)?;
        }
    }

    fn unary(&mut self) -> Option<i64> {
        match self.next()? {
            Tok::Num(v) => Some(v),
            Tok::Op("-") => self.unary().map(|v| v.wrapping_neg()),
            Tok::Op("+") => self.unary(),
            Tok::Op("!") => self.unary().map(|v| (v == 0) as i64),
            Tok::Op("(") => {
                // A cast such as `(int)` is skipped.
                if let Some(Tok::Name(n)) = self.peek().cloned() {
                    if is_type(&n) && self.toks.get(self.at + 1) == Some(&Tok::Op(")")) {
                        self.at += 2;
                        return self.unary();
                    }
                }
                let v = self.expr()?;
                self.eat(")").then_some(v)
            }
            Tok::Name(n) => {
                if self.eat("(") {
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.expr()?);
                            if self.eat(")") {
                                break;
                            }
                            if !self.eat(",") {
                                return None;
                            }
                        }
                    }
                    return call(&n, &args);
                }
                match n.as_str() {
                    "true" => Some(1),
                    "false" => Some(0),
                    _ => self.env.get(&n),
                }
            }
            Tok::Op(_) => None,
        }
    }
}

fn op_static(op: &str) -> &'static str {
    OPS.iter().find(|o| **o == op).copied().unwrap_or("")
}

fn is_type(n: &str) -> bool {
    matches!(
        n,
        "int" | "unsigned" | "long" | "size_t" | "short" | "char" | "uint32_t" | "int64_t"
    )
}

fn apply(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
        ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
        "<" => (a < b) as i64,
        ">" => (a > b) as i64,
        "<=" => (a <= b) as i64,
        ">=" => (a >= b) as i64,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "&&" => (a != 0 && b != 0) as i64,
        "||" => (a != 0 || b != 0) as i64,
        "&" => a & b,
        "|" => a | b,
        "^" => a ^ b,
        _ => return None,
    })
}

fn call(name: &str, args: &[i64]) -> Option<i64> {
    match (name, args) {
        ("min", [a, b]) => Some(*a.min(b)),
        ("max", [a, b]) => Some(*a.max(b)),
        ("abs", [a]) => Some(a.abs()),
        _ => None,
    }
}

/// The value of `expr` in `env`, or `None` when any part of it is unknown.
pub fn eval(expr: &str, env: &Env) -> Option<i64> {
    let toks = lex(expr)?;
    let mut p = Parser { toks, at: 0, env };
    let v = p.expr()?;
    (p.at == p.toks.len()).then_some(v)
}

/// The identifiers `expr` uses (`threadIdx.x` counts as one).
pub fn names(expr: &str) -> Vec<String> {
    lex(expr)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|t| match t {
            Tok::Name(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// `expr` with its spaces normalised, for comparing two expressions as written.
pub fn canonical(expr: &str) -> String {
    expr.split_whitespace().collect()
}

/// `row * stride + col` (or `col + row * stride`) split at the top level: (row, stride, col).
pub fn row_major(expr: &str) -> Option<(String, String, String)> {
    let terms = split_top(expr, '+');
    if terms.len() < 2 {
        return None;
    }
    // The one product of two factors is the row times the stride; the other terms the column.
    let at = terms.iter().position(|t| split_top(t, '*').len() == 2)?;
    let f = split_top(&terms[at], '*');
    let col: Vec<&str> = terms
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, t)| t.trim())
        .collect();
    Some((
        f[0].trim().to_string(),
        f[1].trim().to_string(),
        col.join(" + "),
    ))
}

/// `text` split at `sep` outside parentheses and brackets.
pub fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for ch in text.chars() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if ch == sep && depth == 0 {
            out.push(String::new());
        } else if let Some(last) = out.last_mut() {
            last.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        let mut e = Env::default();
        e.set("threadIdx.x", 5);
        e.set("blockIdx.x", 1);
        e.set("blockDim.x", 4);
        e.set("size", 8);
        e
    }

    #[test]
    fn evaluates_index_arithmetic_and_conditions() {
        let e = env();
        assert_eq!(eval("blockIdx.x * blockDim.x + threadIdx.x", &e), Some(9));
        assert_eq!(eval("(threadIdx.x + 1) % 4", &e), Some(2));
        assert_eq!(eval("threadIdx.x + 1 < size", &e), Some(1));
        assert_eq!(eval("threadIdx.x <= size && size > 0 ? 3 : 4", &e), Some(3));
        assert_eq!(eval("max(threadIdx.x - 7, 0)", &e), Some(0));
        assert_eq!(eval("(int)size / 2", &e), Some(4));
        assert_eq!(eval("1u << 3", &e), Some(8));
    }

    #[test]
    fn an_unknown_name_or_bad_text_gives_nothing() {
        let e = env();
        assert_eq!(eval("i + 1", &e), None);
        assert_eq!(eval("size +", &e), None);
        assert_eq!(eval("size / 0", &e), None);
        assert_eq!(eval("a[3]", &e), None);
    }

    #[test]
    fn later_values_shadow_earlier_ones_and_names_are_found() {
        let mut e = env();
        e.set("size", 3);
        assert_eq!(eval("size", &e), Some(3));
        assert_eq!(
            names("row * size + threadIdx.x"),
            ["row", "size", "threadIdx.x"]
        );
        assert_eq!(canonical(" i +  1"), "i+1");
    }
    #[test]
    fn a_row_major_index_is_split_into_its_parts() {
        assert_eq!(
            row_major("out_row * rows + out_col"),
            Some(("out_row".into(), "rows".into(), "out_col".into()))
        );
        assert_eq!(
            row_major("c + (r) * w"),
            Some(("(r)".into(), "w".into(), "c".into()))
        );
        assert_eq!(row_major("a[i + 1] * 2"), None);
        assert_eq!(
            row_major("row * size + t0 + tx"),
            Some(("row".into(), "size".into(), "t0 + tx".into()))
        );
    }
}
