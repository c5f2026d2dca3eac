//! Just enough of the Itanium C++ ABI demangler to name kernels the way a learner wrote them:
//! `_Z7poolingPfS_i` → `pooling`, `_ZN3geo5shiftEPii` → `geo::shift`,
//! `_Z4tmplILi128EEvPi` → `tmpl<128>`, `_Z6tscaleIfEvPT_PKS0_S0_` → `tscale<float>`.
//! Kernels are chosen by name and template arguments; `param_kinds` tells a parameter that is
//! a pointer from one that is a value (exec's argument check). Anything unexpected gives `None`,
//! and the caller falls back to the mangled name.

/// The qualified name with template arguments of a mangled function name, if it is one.
pub fn kernel_name(mangled: &str) -> Option<String> {
    let rest = mangled.strip_prefix("_Z")?;
    let mut c = Cursor {
        s: rest.as_bytes(),
        i: 0,
        reliable_subs: false,
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

/// What a kernel parameter is, as its mangled type says: a pointer, a value of a built-in
/// type (`int`, `long long`, `float`), or something else (a struct, a template parameter, a
/// type this reader does not follow).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Pointer(String),
    Scalar(String),
    Other(String),
}

/// The text of a type this reader could not follow (inside `ParamKind`'s text).
pub const UNKNOWN: &str = "?";

/// The kinds of a mangled function's parameters, in order: `_Z2llPfx` → a pointer (`float*`)
/// and a scalar (`long long`). `None` when the name is not mangled or does not parse; a
/// substitution (`S_`) counts as a pointer when it stands for one.
pub fn param_kinds(mangled: &str) -> Option<Vec<ParamKind>> {
    let rest = mangled.strip_prefix("_Z")?;
    let mut c = Cursor {
        s: rest.as_bytes(),
        i: 0,
        reliable_subs: false,
    };
    // The name, as `kernel_name` reads it; a template's return type comes first.
    // The name's prefixes are substitutions too (`geo` in `geo::shift`); a template's
    // arguments add their own, which this reader does not follow: in a template, a
    // substitution counts as unknown (`Other`).
    let mut subs: Vec<ParamKind> = Vec::new();
    let templated = if c.eat(b'N') {
        while c.eat(b'K') || c.eat(b'V') {}
        let mut templated = false;
        loop {
            if c.eat(b'E') {
                break;
            }
            if c.peek() == Some(b'I') {
                c.template_args()?;
                templated = true;
                continue;
            }
            subs.push(ParamKind::Other(c.source_name()?));
            templated = false;
        }
        if !templated {
            // The function's own name is not a substitution.
            subs.pop();
        }
        templated
    } else {
        c.source_name()?;
        c.peek() == Some(b'I') && c.template_args().is_some()
    };
    c.reliable_subs = !templated;
    if templated {
        c.param_type(&mut subs)?;
    }
    let mut kinds = Vec::new();
    while c.peek().is_some() {
        kinds.push(c.param_type(&mut subs)?);
        if kinds.len() > 256 {
            return None;
        }
    }
    // `v` alone: no parameters.
    if kinds == [ParamKind::Scalar("void".into())] {
        kinds.clear();
    }
    Some(kinds)
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
    /// The substitutions `param_kinds` collects are all there are (not in a template).
    reliable_subs: bool,
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

    /// One parameter type, adding what the ABI makes substitutable to `subs` (pointers,
    /// qualified and named types, in the order they complete).
    fn param_type(&mut self, subs: &mut Vec<ParamKind>) -> Option<ParamKind> {
        let kind = match self.peek()? {
            b'P' => {
                self.i += 1;
                let inner = self.param_type(subs)?;
                let text = match &inner {
                    ParamKind::Pointer(t) | ParamKind::Scalar(t) | ParamKind::Other(t) => {
                        format!("{t}*")
                    }
                };
                ParamKind::Pointer(text)
            }
            b'K' | b'V' | b'r' => {
                self.i += 1;
                match self.param_type(subs)? {
                    ParamKind::Pointer(t) => ParamKind::Pointer(format!("{t} const")),
                    ParamKind::Scalar(t) => ParamKind::Scalar(format!("const {t}")),
                    ParamKind::Other(t) => ParamKind::Other(format!("const {t}")),
                }
            }
            b'S' => {
                self.i += 1;
                let n = if self.eat(b'_') {
                    0
                } else {
                    let mut n = 0usize;
                    while let Some(b) = self.peek().filter(|b| b.is_ascii_alphanumeric()) {
                        let d = if b.is_ascii_digit() {
                            b - b'0'
                        } else if b.is_ascii_uppercase() {
                            b - b'A' + 10
                        } else {
                            return None;
                        };
                        n = n.checked_mul(36)?.checked_add(d as usize)?;
                        self.i += 1;
                    }
                    if !self.eat(b'_') {
                        return None;
                    }
                    n + 1
                };
                // A reference to a substitution is not itself substitutable.
                if !self.reliable_subs {
                    return Some(ParamKind::Other(UNKNOWN.into()));
                }
                return Some(
                    subs.get(n)
                        .cloned()
                        .unwrap_or_else(|| ParamKind::Other(UNKNOWN.into())),
                );
            }
            b'T' => {
                self.i += 1;
                while self.peek().is_some_and(|b| b != b'_') {
                    self.i += 1;
                }
                self.eat(b'_');
                ParamKind::Other("T".into())
            }
            b'0'..=b'9' | b'N' => ParamKind::Other(self.ty()?),
            _ => {
                let t = self.builtin_type()?;
                return Some(ParamKind::Scalar(t.to_string()));
            }
        };
        subs.push(kind.clone());
        Some(kind)
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
    fn tells_pointers_from_values() {
        use ParamKind::*;
        let p = |t: &str| Pointer(t.to_string());
        let v = |t: &str| Scalar(t.to_string());
        assert_eq!(
            param_kinds("_Z2llPfxyPKim"),
            Some(vec![
                p("float*"),
                v("long long"),
                v("unsigned long long"),
                p("const int*"),
                v("unsigned long")
            ])
        );
        assert_eq!(
            param_kinds("_Z7poolingPfS_i"),
            Some(vec![p("float*"), p("float*"), v("int")])
        );
        assert_eq!(
            param_kinds("_Z4tmplILi128EEvP6float4PiPKhPfi"),
            Some(vec![
                p("float4*"),
                p("int*"),
                p("const unsigned char*"),
                p("float*"),
                v("int")
            ])
        );
        assert_eq!(
            param_kinds("_ZN3geo5shiftEPiS0_i"),
            Some(vec![p("int*"), p("int*"), v("int")])
        );
        // In a template, a substitution is not followed (its table has the arguments' too).
        assert_eq!(
            param_kinds("_Z6tscaleIfEvPT_PKS0_S0_"),
            Some(vec![p("T*"), p("const ?*"), Other("?".into())])
        );
        assert_eq!(param_kinds("_Z1kv"), Some(vec![]));
        assert_eq!(param_kinds("kernel"), None);
    }

    #[test]
    fn compares_without_spaces() {
        assert!(same_name("tmpl< 128 >", "tmpl<128>"));
        assert!(same_name("r<unsigned int,256>", "r<unsigned int, 256>"));
        assert!(!same_name("tmpl<12>", "tmpl<128>"));
        assert_eq!(without_template_args("tmpl<1>"), "tmpl");
    }
}
