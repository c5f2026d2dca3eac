//! Splits PTX text into tokens, each with its 1-based PTX line (for `.loc`, which ends at a newline).

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifiers, opcodes with their dotted modifiers (`ld.global.v4.f32`), directives
    /// (`.reg`), registers (`%r1`, `%tid.x`) and labels (`$L__BB0_2`).
    Ident(String),
    /// Integer literal (decimal, hex, octal, binary), with its sign folded in by the parser.
    Int(u64),
    /// `0fXXXXXXXX` / `0dXXXXXXXXXXXXXXXX` and decimal float literals, as f64 bits plus width.
    Float32(u32),
    Float64(u64),
    Str(String),
    Punct(char),
}

/// A token as it was written, for messages (`found `]``, not `found Some(Punct(']'))`).
impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Tok::Ident(w) => write!(f, "`{w}`"),
            Tok::Int(v) => write!(f, "`{v}`"),
            Tok::Float32(b) => write!(f, "`0f{b:08X}`"),
            Tok::Float64(b) => write!(f, "`0d{b:016X}`"),
            Tok::Str(s) => write!(f, "the string \"{s}\""),
            Tok::Punct(c) => write!(f, "`{c}`"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%' || c == b'.'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

/// Tokenise PTX. Errors carry the line and what was unexpected.
pub fn lex(text: &str) -> Result<Vec<Token>, (usize, String)> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut line = 1;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == b'"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            let s = text.get(start..i.min(b.len())).unwrap_or("").to_string();
            i += 1;
            out.push(Token {
                tok: Tok::Str(s),
                line,
            });
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            // 0f / 0d float bit patterns.
            if c == b'0'
                && matches!(
                    b.get(i + 1),
                    Some(b'f') | Some(b'F') | Some(b'd') | Some(b'D')
                )
            {
                let is64 = matches!(b[i + 1], b'd' | b'D');
                let mut j = i + 2;
                while j < b.len() && b[j].is_ascii_hexdigit() {
                    j += 1;
                }
                let hex = &text[i + 2..j];
                let want = if is64 { 16 } else { 8 };
                if hex.len() != want {
                    return Err((
                        line,
                        format!("malformed float literal `{}`", &text[start..j]),
                    ));
                }
                let v = u64::from_str_radix(hex, 16).map_err(|e| (line, e.to_string()))?;
                out.push(Token {
                    tok: if is64 {
                        Tok::Float64(v)
                    } else {
                        Tok::Float32(v as u32)
                    },
                    line,
                });
                i = j;
                continue;
            }
            let mut j = i;
            let (radix, digits_start) =
                if c == b'0' && matches!(b.get(i + 1), Some(b'x') | Some(b'X')) {
                    (16, i + 2)
                } else if c == b'0' && matches!(b.get(i + 1), Some(b'b') | Some(b'B')) {
                    (2, i + 2)
                } else {
                    (10, i)
                };
            j = j.max(digits_start);
            while j < b.len() && (b[j].is_ascii_hexdigit() || (radix == 10 && (b[j] == b'.'))) {
                if radix == 10 && b[j].is_ascii_alphabetic() && !matches!(b[j], b'e' | b'E') {
                    break;
                }
                j += 1;
            }
            // decimal float with exponent sign
            if radix == 10
                && j < b.len()
                && (b[j] == b'-' || b[j] == b'+')
                && matches!(b[j - 1], b'e' | b'E')
            {
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            let lit = &text[digits_start..j];
            // Trailing `U` suffix on integers.
            let mut k = j;
            if k < b.len() && (b[k] == b'U' || b[k] == b'u') {
                k += 1;
            }
            if radix == 10 && (lit.contains('.') || lit.contains('e') || lit.contains('E')) {
                let v: f64 = lit
                    .parse()
                    .map_err(|_| (line, format!("malformed number `{lit}`")))?;
                out.push(Token {
                    tok: Tok::Float64(v.to_bits()),
                    line,
                });
            } else {
                let v = if radix == 10 && lit.len() > 1 && lit.starts_with('0') {
                    u64::from_str_radix(&lit[1..], 8)
                } else {
                    u64::from_str_radix(lit, radix)
                }
                .map_err(|_| (line, format!("malformed number `{}`", &text[start..j])))?;
                out.push(Token {
                    tok: Tok::Int(v),
                    line,
                });
            }
            i = k;
            continue;
        }
        if is_ident_start(c) {
            let start = i;
            i += 1;
            loop {
                while i < b.len() && is_ident_char(b[i]) {
                    i += 1;
                }
                // Qualifiers such as `.L2::evict_last` or `.L2::cache_hint` belong to the
                // opcode (a label's single `:` does not).
                if b.get(i) == Some(&b':')
                    && b.get(i + 1) == Some(&b':')
                    && b.get(i + 2).is_some_and(|&n| is_ident_char(n))
                {
                    i += 2;
                    continue;
                }
                break;
            }
            out.push(Token {
                tok: Tok::Ident(text[start..i].to_string()),
                line,
            });
            continue;
        }
        if b",;:[]{}()+-@!<>=|*".contains(&c) {
            out.push(Token {
                tok: Tok::Punct(c as char),
                line,
            });
            i += 1;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err((line, format!("unexpected character `{ch}`")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_instructions_and_literals() {
        let t = lex("@%p1 bra $L__BB0_2;\n\tfma.rn.f32 %f3, %f2, %f1, 0f3F800000; // c\n").unwrap();
        assert_eq!(t[0].tok, Tok::Punct('@'));
        assert_eq!(t[1].tok, Tok::Ident("%p1".into()));
        assert_eq!(t[2].tok, Tok::Ident("bra".into()));
        assert_eq!(t[5].tok, Tok::Ident("fma.rn.f32".into()));
        assert_eq!(t[5].line, 2);
        assert_eq!(
            t.iter()
                .find(|t| matches!(t.tok, Tok::Float32(_)))
                .unwrap()
                .tok,
            Tok::Float32(0x3F80_0000)
        );
    }

    #[test]
    fn lexes_hex_and_negative_pieces() {
        let t = lex("mov.u32 %r1, 0xFF; add.s64 %rd1, %rd2, -4;").unwrap();
        assert!(t.contains(&Token {
            tok: Tok::Int(255),
            line: 1
        }));
        assert!(t.contains(&Token {
            tok: Tok::Punct('-'),
            line: 1
        }));
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        assert!(lex("mov.u32 %r1, 0fZZ;").is_err());
        assert!(lex("\u{1F600}").is_err());
    }
}
