//! Just enough of the Itanium C++ ABI demangler to name kernels the way a learner wrote them:
//! `_Z7poolingPfS_i` → `pooling`, `_ZN3geo5shiftEPii` → `geo::shift`,
//! `_Z4tmplILi128EEvPi` → `tmpl<128>`, `_Z6tscaleIfEvPT_PKS0_S0_` → `tscale<float>`.
//! Parameter types are not decoded (kernels are chosen by name and template arguments);
//! anything unexpected gives `None`, and the caller falls back to the mangled name.

/// The qualified name with template arguments of a mangled function name, if it is one.
pub fn kernel_name(mangled: &str) -> Option<String> {
    let rest = mangled.strip_prefix("_Z")?;
    let mut c = Cursor {
        s: rest.as_bytes(),
        i: 0,
    };
    let name = if c.eat(b'N') {
        // Nested name: qualifiers (const/volatile of member functions) then components.
        while c.eat(b'K') || c.eat(b'V') {}
        let mut parts: Vec<String> = Vec::new();
        loop {
            if c.eat(b'E') {
                break;
            }
            if c.peek() == Some(b'I') {
                let args = c.template_args()?;
                let last = parts.last_mut()?;
                last.push_str(&args);
                continue;
            }
            parts.push(c.source_name()?);
        }
        if parts.is_empty() {
            return None;
        }
        parts.join("::")
    } else {
        let mut n = c.source_name()?;
        if c.peek() == Some(b'I') {
            n.push_str(&c.template_args()?);
        }
        n
    };
    Some(name)
}

/// `tmpl<128>` → `tmpl`; `geo::shift` stays.
pub fn without_template_args(name: &str) -> &str {
    match name.find('<') {
        Some(i) => &name[..i],
        None => name,
    }
}

/// Names compare without whitespace (`tmpl< 128 >` matches `tmpl<128>`).
pub fn same_name(a: &str, b: &str) -> bool {
    a.chars()
        .filter(|c| !c.is_whitespace())
        .eq(b.chars().filter(|c| !c.is_whitespace()))
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    /// `<len><identifier>`.
    fn source_name(&mut self) -> Option<String> {
        let n = self.number()?;
        let end = self.i.checked_add(n)?;
        let id = std::str::from_utf8(self.s.get(self.i..end)?).ok()?;
        self.i = end;
        Some(id.to_string())
    }

    /// `I <arg>+ E` → `<a, b>`.
    fn template_args(&mut self) -> Option<String> {
        if !self.eat(b'I') {
            return None;
        }
        let mut args = Vec::new();
        while !self.eat(b'E') {
            args.push(self.template_arg()?);
            if args.len() > 64 {
                return None;
            }
        }
        Some(format!("<{}>", args.join(", ")))
    }

    fn template_arg(&mut self) -> Option<String> {
        if self.eat(b'L') {
            // A literal: `L <type> <value> E`, negative values with an `n` prefix.
            let ty = self.builtin_type()?;
            let neg = self.eat(b'n');
            let start = self.i;
            while self.peek().is_some_and(|b| b != b'E') {
                self.i += 1;
            }
            let digits = std::str::from_utf8(&self.s[start..self.i])
                .ok()?
                .to_string();
            self.eat(b'E');
            return Some(match ty {
                "bool" => if digits == "0" { "false" } else { "true" }.to_string(),
                _ if digits.bytes().all(|b| b.is_ascii_digit()) && !digits.is_empty() => {
                    format!("{}{digits}", if neg { "-" } else { "" })
                }
                _ => return None,
            });
        }
        self.ty()
    }

    /// A type as C spells it (only the forms template arguments of kernels use).
    fn ty(&mut self) -> Option<String> {
        if self.eat(b'P') {
            return Some(format!("{}*", self.ty()?));
        }
        if self.eat(b'K') {
            return Some(format!("const {}", self.ty()?));
        }
        if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            let mut n = self.source_name()?;
            if self.peek() == Some(b'I') {
                n.push_str(&self.template_args()?);
            }
            return Some(n);
        }
        if self.peek() == Some(b'N') {
            self.i += 1;
            let mut parts = Vec::new();
            while !self.eat(b'E') {
                parts.push(self.source_name()?);
            }
            return Some(parts.join("::"));
        }
        self.builtin_type().map(str::to_string)
    }

    fn builtin_type(&mut self) -> Option<&'static str> {
        let b = self.peek()?;
        let t = match b {
            b'v' => "void",
            b'b' => "bool",
            b'c' => "char",
            b'a' => "signed char",
            b'h' => "unsigned char",
            b's' => "short",
            b't' => "unsigned short",
            b'i' => "int",
            b'j' => "unsigned int",
            b'l' => "long",
            b'm' => "unsigned long",
            b'x' => "long long",
            b'y' => "unsigned long long",
            b'f' => "float",
            b'd' => "double",
            b'e' => "long double",
            b'D' => {
                return match self.s.get(self.i + 1) {
                    Some(b'h') => {
                        self.i += 2;
                        Some("__half")
                    }
                    _ => None,
                }
            }
            _ => return None,
        };
        self.i += 1;
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_kernels_like_their_source() {
        assert_eq!(kernel_name("_Z7poolingPfS_i").as_deref(), Some("pooling"));
        assert_eq!(
            kernel_name("_Z4tmplILi128EEvPi").as_deref(),
            Some("tmpl<128>")
        );
        assert_eq!(
            kernel_name("_Z4tmplILin3EEvPi").as_deref(),
            Some("tmpl<-3>")
        );
        assert_eq!(
            kernel_name("_Z6tscaleIfEvPT_PKS0_S0_").as_deref(),
            Some("tscale<float>")
        );
        assert_eq!(
            kernel_name("_Z7reduce0IjLj256ELb1EEvPT_S1_j").as_deref(),
            Some("reduce0<unsigned int, 256, true>")
        );
        assert_eq!(
            kernel_name("_ZN3geo5shiftEPii").as_deref(),
            Some("geo::shift")
        );
        assert_eq!(
            kernel_name("_ZN3geo4tmplILi3EEEvPi").as_deref(),
            Some("geo::tmpl<3>")
        );
        assert_eq!(
            kernel_name("_Z4tmplILi128EEvP6float4PiPKhPfi").as_deref(),
            Some("tmpl<128>")
        );
        assert_eq!(
            kernel_name("_Z1kI6float4EvPT_").as_deref(),
            Some("k<float4>")
        );
        assert_eq!(kernel_name("pooling"), None);
        assert_eq!(kernel_name("_Z"), None);
        assert_eq!(kernel_name("_Z99x"), None);
        assert_eq!(kernel_name("_ZN3geoE"), Some("geo".into()));
        assert_eq!(kernel_name("_Z4tmplI"), None);
    }

    #[test]
    fn compares_without_spaces() {
        assert!(same_name("tmpl< 128 >", "tmpl<128>"));
        assert!(same_name("r<unsigned int,256>", "r<unsigned int, 256>"));
        assert!(!same_name("tmpl<12>", "tmpl<128>"));
        assert_eq!(without_template_args("tmpl<1>"), "tmpl");
    }
}
