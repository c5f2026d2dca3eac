//! Splits PTX text into what the instrumenter edits: where the module header ends, each function's
//! parameter list and body, and the body's statements (instructions, labels, `.loc`, declarations)
//! with their byte spans, so everything left alone is copied through verbatim.
//!
//! This is deliberately shallow: it knows statement boundaries and operand lists, not semantics.
//! `crate::ptx` has already checked that the text is well-formed PTX before this runs.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    pub line: usize,
    pub message: String,
}

type SResult<T> = Result<T, ScanError>;

#[derive(Debug)]
pub struct ScannedModule {
    /// Offset just after the `.address_size` line (or `.target`): where module-level helpers go.
    pub header_end: usize,
    pub functions: Vec<FunctionText>,
    /// Identifiers used as instruction operands anywhere (to find the module variables in use).
    pub referenced: HashSet<String>,
}

#[derive(Debug)]
pub struct FunctionText {
    pub name: String,
    pub is_entry: bool,
    /// Offset of the `)` closing the parameter list, and whether the list is empty.
    pub params_close: usize,
    pub params_empty: bool,
    pub stmts: Vec<Stmt>,
    /// Names of the `.shared` variables declared inside the body (NVRTC's demoted `__shared__`).
    pub shared_decls: Vec<String>,
}

#[derive(Debug)]
pub struct Stmt {
    /// Bytes of the statement in the module text (an instruction's span includes its guard and `;`).
    pub span: Range<usize>,
    /// 1-based PTX line of the statement's start.
    pub line: usize,
    pub kind: StmtKind,
}

#[derive(Debug, PartialEq)]
pub enum StmtKind {
    Loc {
        file: u32,
        line: u32,
    },
    Label(String),
    /// `.reg` declarations: (name, `<N>` count if a range, bits).
    Reg(Vec<(String, Option<u32>, u32)>),
    /// Any other directive inside a body (`.local`, `.shared`, `.param`, `.pragma`, ...).
    Decl,
    Open,
    Close,
    Instr(Instr),
}

#[derive(Debug, PartialEq)]
pub struct Instr {
    /// Guard predicate as written after `@` (`%p1` or `!%p1`).
    pub guard: Option<String>,
    /// Opcode with its modifiers (`ld.global.nc.v4.f32`).
    pub opcode: String,
    /// Operands split at top-level commas, trimmed.
    pub operands: Vec<String>,
    /// Offset where the instruction proper starts (after the guard).
    pub start: usize,
}

impl Instr {
    /// The opcode's parts: `ld.global.v4.f32` → `["ld", "global", "v4", "f32"]`.
    pub fn parts(&self) -> Vec<&str> {
        self.opcode.split('.').collect()
    }
}

/// Size in bytes of a PTX type name (without the dot).
pub fn type_size(t: &str) -> Option<u32> {
    Some(match t {
        "b8" | "u8" | "s8" | "pred" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

struct Cursor<'a> {
    b: &'a [u8],
    text: &'a str,
    /// Offsets of every `\n`, for line numbers.
    newlines: Vec<usize>,
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'%' || c == b'.'
}

impl<'a> Cursor<'a> {
    fn line(&self, at: usize) -> usize {
        self.newlines.partition_point(|&n| n < at) + 1
    }

    fn err<T>(&self, at: usize, message: impl Into<String>) -> SResult<T> {
        Err(ScanError {
            line: self.line(at),
            message: message.into(),
        })
    }

    /// Skip whitespace and comments.
    fn trivia(&self, mut p: usize) -> usize {
        let b = self.b;
        while p < b.len() {
            if b[p].is_ascii_whitespace() {
                p += 1;
            } else if b[p] == b'/' && b.get(p + 1) == Some(&b'/') {
                while p < b.len() && b[p] != b'\n' {
                    p += 1;
                }
            } else if b[p] == b'/' && b.get(p + 1) == Some(&b'*') {
                p += 2;
                while p < b.len() && !(b[p] == b'*' && b.get(p + 1) == Some(&b'/')) {
                    p += 1;
                }
                p = (p + 2).min(b.len());
            } else {
                break;
            }
        }
        p
    }

    fn end_of_line(&self, mut p: usize) -> usize {
        while p < self.b.len() && self.b[p] != b'\n' {
            p += 1;
        }
        p
    }

    fn word(&self, p: usize) -> &'a str {
        let mut e = p;
        while e < self.b.len() && is_ident(self.b[e]) {
            e += 1;
        }
        &self.text[p..e]
    }

    /// Past the closing quote of a string starting at `p`.
    fn string_end(&self, mut p: usize) -> SResult<usize> {
        let start = p;
        p += 1;
        while p < self.b.len() && self.b[p] != b'"' {
            if self.b[p] == b'\\' {
                p += 1;
            }
            p += 1;
        }
        if p >= self.b.len() {
            return self.err(start, "unterminated string");
        }
        Ok(p + 1)
    }

    /// Offset just past the `;` ending the statement at `p` (strings and comments skipped).
    fn statement_end(&self, mut p: usize) -> SResult<usize> {
        let start = p;
        while p < self.b.len() {
            match self.b[p] {
                b';' => return Ok(p + 1),
                b'"' => p = self.string_end(p)?,
                b'/' if matches!(self.b.get(p + 1), Some(b'/') | Some(b'*')) => p = self.trivia(p),
                _ => p += 1,
            }
        }
        self.err(start, "statement without a closing `;`")
    }

    /// Offset of the bracket matching the opening one at `p`.
    fn matching(&self, mut p: usize, open: u8, close: u8) -> SResult<usize> {
        let start = p;
        let mut depth = 0;
        while p < self.b.len() {
            match self.b[p] {
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(p);
                    }
                }
                b'"' => {
                    p = self.string_end(p)?;
                    continue;
                }
                b'/' if matches!(self.b.get(p + 1), Some(b'/') | Some(b'*')) => {
                    p = self.trivia(p);
                    continue;
                }
                _ => {}
            }
            p += 1;
        }
        self.err(start, format!("unclosed `{}`", open as char))
    }
}

/// Scan a whole module.
pub fn scan(text: &str) -> SResult<ScannedModule> {
    let c = Cursor {
        b: text.as_bytes(),
        text,
        newlines: text
            .bytes()
            .enumerate()
            .filter(|&(_, ch)| ch == b'\n')
            .map(|(i, _)| i)
            .collect(),
    };
    let mut header_end = None;
    let mut target_end = None;
    let mut functions = Vec::new();
    let mut referenced = HashSet::new();
    let mut p = 0;
    loop {
        p = c.trivia(p);
        if p >= c.b.len() {
            break;
        }
        let w = c.word(p);
        if matches!(w, ".version" | ".target" | ".address_size" | ".file") {
            let e = c.end_of_line(p);
            match w {
                ".address_size" => header_end = Some(e),
                ".target" => target_end = Some(e),
                _ => {}
            }
            p = e;
            continue;
        }
        if w == ".section" {
            // Debug sections (`.section .debug_str { … }`, emitted with code inlined from
            // NVRTC's built-in header) hold no code: left as they are.
            let Some(open) = c.b[p..].iter().position(|&ch| ch == b'{').map(|o| p + o) else {
                return c.err(p, "`.section` without a `{` body");
            };
            p = c.matching(open, b'{', b'}')? + 1;
            continue;
        }
        // A declaration ending in `;`, or a function ending in its body's `}`.
        let start = p;
        let mut func: Option<bool> = None;
        loop {
            p = c.trivia(p);
            if p >= c.b.len() {
                return c.err(start, "declaration without a closing `;`");
            }
            match c.b[p] {
                b';' => {
                    p += 1;
                    break;
                }
                b'"' => p = c.string_end(p)?,
                b'(' => p = c.matching(p, b'(', b')')? + 1,
                b'{' => {
                    let close = c.matching(p, b'{', b'}')?;
                    if let Some(is_entry) = func {
                        functions.push(function(&c, start, p, close, is_entry, &mut referenced)?);
                        p = close + 1;
                        break;
                    }
                    // An initialiser: `= {1, 2, 3};`
                    p = close + 1;
                }
                ch if is_ident(ch) => {
                    let w = c.word(p);
                    match w {
                        ".entry" => func = Some(true),
                        ".func" => func = Some(false),
                        _ => {}
                    }
                    p += w.len();
                }
                _ => p += 1,
            }
        }
    }
    let header_end = match header_end.or(target_end) {
        Some(e) => e,
        None => return c.err(0, "no `.target` or `.address_size` directive"),
    };
    Ok(ScannedModule {
        header_end,
        functions,
        referenced,
    })
}

/// A function whose header starts at `start` and whose body is `open..=close` (the braces).
fn function(
    c: &Cursor,
    start: usize,
    open: usize,
    close: usize,
    is_entry: bool,
    referenced: &mut HashSet<String>,
) -> SResult<FunctionText> {
    let kw = if is_entry { ".entry" } else { ".func" };
    // Find the keyword as a whole word in the header.
    let mut p = start;
    loop {
        p = c.trivia(p);
        if p >= open {
            return c.err(start, format!("`{kw}` header without a name"));
        }
        if c.b[p] == b'(' {
            p = c.matching(p, b'(', b')')? + 1;
            continue;
        }
        let w = c.word(p);
        if w.is_empty() {
            p += 1;
            continue;
        }
        p += w.len();
        if w == kw {
            break;
        }
    }
    p = c.trivia(p);
    if p < open && c.b[p] == b'(' {
        // `(.param .b32 func_retval0)`
        p = c.matching(p, b'(', b')')? + 1;
        p = c.trivia(p);
    }
    let name = c.word(p).to_string();
    if name.is_empty() {
        return c.err(p, format!("`{kw}` without a name"));
    }
    p = c.trivia(p + name.len());
    if p >= open || c.b[p] != b'(' {
        return c.err(
            p,
            format!("`{name}` has no parameter list `(...)`; gpuzzle expects NVRTC's form"),
        );
    }
    let params_close = c.matching(p, b'(', b')')?;
    let params_empty = c.trivia(p + 1) >= params_close;
    let stmts = body(c, open + 1, close, referenced)?;
    let shared_decls = stmts
        .iter()
        .filter(|s| s.kind == StmtKind::Decl)
        .filter_map(|s| {
            let t = &c.text[s.span.clone()];
            t.starts_with(".shared").then(|| decl_name(t)).flatten()
        })
        .collect();
    Ok(FunctionText {
        name,
        is_entry,
        params_close,
        params_empty,
        stmts,
        shared_decls,
    })
}

fn body(
    c: &Cursor,
    from: usize,
    to: usize,
    referenced: &mut HashSet<String>,
) -> SResult<Vec<Stmt>> {
    let mut out = Vec::new();
    let mut p = from;
    loop {
        p = c.trivia(p);
        if p >= to {
            return Ok(out);
        }
        let line = c.line(p);
        let ch = c.b[p];
        let (end, kind) = if ch == b'{' {
            (p + 1, StmtKind::Open)
        } else if ch == b'}' {
            (p + 1, StmtKind::Close)
        } else if ch == b'.' {
            let w = c.word(p);
            if w == ".loc" {
                let e = c.end_of_line(p);
                let nums: Vec<u32> = c.text[p + 4..e]
                    .split(|ch: char| ch.is_whitespace() || ch == ',')
                    .filter(|s| !s.is_empty())
                    .take(2)
                    .map(|s| s.parse().unwrap_or(0))
                    .collect();
                let (file, l) = (
                    nums.first().copied().unwrap_or(0),
                    nums.get(1).copied().unwrap_or(0),
                );
                (e, StmtKind::Loc { file, line: l })
            } else if w == ".reg" {
                let e = c.statement_end(p)?;
                (e, StmtKind::Reg(reg_decl(&c.text[p + 4..e - 1])))
            } else {
                (c.statement_end(p)?, StmtKind::Decl)
            }
        } else if let Some(label) = label_at(c, p) {
            let colon = c.text[p..].find(':').map(|i| p + i).unwrap_or(p);
            (colon + 1, StmtKind::Label(label))
        } else {
            let e = c.statement_end(p)?;
            let instr = instruction(c, p, e)?;
            for op in &instr.operands {
                for tok in op.split(|ch: char| !(ch.is_ascii_alphanumeric() || "_$.%".contains(ch)))
                {
                    if !tok.is_empty() && !tok.starts_with('%') {
                        referenced.insert(tok.to_string());
                    }
                }
            }
            (e, StmtKind::Instr(instr))
        };
        out.push(Stmt {
            span: p..end,
            line,
            kind,
        });
        p = end;
    }
}

/// The variable a declaration names: `.shared .align 4 .b8 _ZZ1kE1s[32];` → `_ZZ1kE1s`.
fn decl_name(text: &str) -> Option<String> {
    let mut after_align = false;
    for tok in text.split_whitespace() {
        if after_align {
            after_align = false;
            continue;
        }
        if tok == ".align" {
            after_align = true;
            continue;
        }
        if tok.starts_with('.') {
            continue;
        }
        let end = tok.find(['[', ';', '=']).unwrap_or(tok.len());
        return (end > 0).then(|| tok[..end].to_string());
    }
    None
}

/// `$L__BB0_2:` (an identifier, then one `:` not followed by another).
fn label_at(c: &Cursor, p: usize) -> Option<String> {
    let mut e = p;
    while e < c.b.len() && (c.b[e].is_ascii_alphanumeric() || c.b[e] == b'_' || c.b[e] == b'$') {
        e += 1;
    }
    if e == p {
        return None;
    }
    let mut q = e;
    while q < c.b.len() && (c.b[q] == b' ' || c.b[q] == b'\t') {
        q += 1;
    }
    (c.b.get(q) == Some(&b':') && c.b.get(q + 1) != Some(&b':')).then(|| c.text[p..e].to_string())
}

fn instruction(c: &Cursor, start: usize, end: usize) -> SResult<Instr> {
    let text = &c.text[start..end - 1];
    let mut rest = text;
    let mut guard = None;
    let mut istart = start;
    if let Some(g) = rest.strip_prefix('@') {
        let n = g.find(|ch: char| ch.is_whitespace()).unwrap_or(g.len());
        guard = Some(g[..n].to_string());
        let after = &g[n..];
        let skipped = after.len() - after.trim_start().len();
        istart = start + 1 + n + skipped;
        rest = after.trim_start();
    }
    let n = rest
        .find(|ch: char| ch.is_whitespace())
        .unwrap_or(rest.len());
    let opcode = rest[..n].to_string();
    if opcode.is_empty() {
        return c.err(start, "empty instruction");
    }
    let operands = split_operands(&rest[n..]);
    Ok(Instr {
        guard,
        opcode,
        operands,
        start: istart,
    })
}

/// Split at commas outside `[]`, `{}` and `()`.
pub fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `.b32 %r<29>` or `.f32 %f1, %f2` (the text after `.reg`, without `;`).
fn reg_decl(s: &str) -> Vec<(String, Option<u32>, u32)> {
    let mut bits = 0;
    let mut names = String::new();
    for tok in s.split_whitespace() {
        if let Some(t) = tok.strip_prefix('.') {
            if let Some(sz) = type_size(t) {
                bits = sz * 8;
            }
        } else {
            names.push_str(tok);
        }
    }
    names
        .split(',')
        .filter(|n| !n.is_empty())
        .map(|n| match n.split_once('<') {
            Some((prefix, count)) => (
                prefix.to_string(),
                count.trim_end_matches('>').parse().ok(),
                bits,
            ),
            None => (n.to_string(), None, bits),
        })
        .collect()
}

/// Register widths of one function, from its `.reg` declarations.
#[derive(Default)]
pub struct RegWidths {
    exact: HashMap<String, u32>,
    ranges: HashMap<String, (u32, u32)>,
}

impl RegWidths {
    pub fn from_stmts(stmts: &[Stmt]) -> RegWidths {
        let mut w = RegWidths::default();
        for s in stmts {
            if let StmtKind::Reg(decls) = &s.kind {
                for (name, count, bits) in decls {
                    match count {
                        Some(n) => {
                            w.ranges.insert(name.clone(), (*n, *bits));
                        }
                        None => {
                            w.exact.insert(name.clone(), *bits);
                        }
                    }
                }
            }
        }
        w
    }

    /// Bits of a register, if declared.
    pub fn bits(&self, reg: &str) -> Option<u32> {
        if let Some(&b) = self.exact.get(reg) {
            return Some(b);
        }
        let prefix = reg.trim_end_matches(|ch: char| ch.is_ascii_digit());
        let idx: u32 = reg[prefix.len()..].parse().ok()?;
        self.ranges
            .get(prefix)
            .and_then(|&(n, b)| (idx < n).then_some(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
.version 8.8
.target sm_80
.address_size 64

.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 4 .b8 weights[8] = {0, 0, 128, 63, 0, 0, 0, 64};
.global .align 1 .b8 $str[3] = {59, 125, 0};

.func  (.param .b32 func_retval0) _Z1fPKf(
	.param .b64 _Z1fPKf_param_0
)
{
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<2>;
	.loc	1 3 0
	ld.param.u64 	%rd1, [_Z1fPKf_param_0];
	ld.f32 	%f1, [%rd1+-4];
	st.param.f32 	[func_retval0+0], %f1;
	ret;
}
.visible .entry k(
	.param .u64 k_param_0
)
.maxntid 64, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 temp, %r<4>;
	.pragma "nounroll;";
$L__BB1_1:
	.loc	1 7 5, function_name $L__info_string0, inlined_at 1 9 3
	@!%p1 bra.uni 	$L__BB1_1;
	{ // callseq 0, 0
	.param .b64 param0;
	call.uni (retval0), 
	_Z1fPKf, 
	(
	param0
	);
	}
	ld.global.v4.f32 	{%f1, %f2, %f3, %f4}, [weights+16];
	ret;
}
.entry empty()
{
	ret;
}
"#;

    #[test]
    fn finds_header_functions_and_parameter_lists() {
        let m = scan(PTX).unwrap();
        assert_eq!(&PTX[m.header_end - 2..m.header_end], "64");
        let names: Vec<_> = m.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["_Z1fPKf", "k", "empty"]);
        let k = &m.functions[1];
        assert!(k.is_entry && !k.params_empty);
        assert_eq!(&PTX[k.params_close..k.params_close + 1], ")");
        assert!(PTX[..k.params_close].ends_with("k_param_0\n"));
        assert!(m.functions[2].params_empty);
        assert_eq!(m.functions[1].shared_decls, Vec::<String>::new());
        assert!(!m.functions[0].is_entry);
    }

    #[test]
    fn splits_bodies_into_statements() {
        let m = scan(PTX).unwrap();
        let k = &m.functions[1];
        let kinds: Vec<String> = k
            .stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Loc { file, line } => format!("loc {file}:{line}"),
                StmtKind::Label(l) => format!("label {l}"),
                StmtKind::Reg(_) => "reg".into(),
                StmtKind::Decl => "decl".into(),
                StmtKind::Open => "{".into(),
                StmtKind::Close => "}".into(),
                StmtKind::Instr(i) => format!("{} {}", i.opcode, i.operands.len()),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "reg",
                "reg",
                "decl",
                "label $L__BB1_1",
                "loc 1:7",
                "bra.uni 1",
                "{",
                "decl",
                "call.uni 3",
                "}",
                "ld.global.v4.f32 2",
                "ret 0"
            ]
        );
        let StmtKind::Instr(bra) = &k.stmts[5].kind else {
            panic!()
        };
        assert_eq!(bra.guard.as_deref(), Some("!%p1"));
        assert_eq!(&PTX[bra.start..bra.start + 7], "bra.uni");
        let StmtKind::Instr(ld) = &k.stmts[10].kind else {
            panic!()
        };
        assert_eq!(ld.operands, ["{%f1, %f2, %f3, %f4}", "[weights+16]"]);
        assert!(m.referenced.contains("weights"));
        assert!(!m.referenced.contains("$str"));
        let f = &m.functions[0];
        let StmtKind::Instr(gld) = &f.stmts[4].kind else {
            panic!()
        };
        assert_eq!(gld.operands, ["%f1", "[%rd1+-4]"]);
        assert_eq!(f.stmts[4].line, 23);
    }

    #[test]
    fn names_declared_variables() {
        assert_eq!(
            decl_name(".shared .align 4 .b8 _ZZ1kE1s[32];").as_deref(),
            Some("_ZZ1kE1s")
        );
        assert_eq!(decl_name(".shared .f32 x;").as_deref(), Some("x"));
        assert_eq!(decl_name(".shared;"), None);
        let m = scan(".target sm_80\n.entry k()\n{\n\t.shared .align 16 .b8 t[64];\n\tret;\n}\n")
            .unwrap();
        assert_eq!(m.functions[0].shared_decls, ["t"]);
    }

    #[test]
    fn register_widths_come_from_declarations() {
        let m = scan(PTX).unwrap();
        let w = RegWidths::from_stmts(&m.functions[1].stmts);
        assert_eq!(w.bits("%r3"), Some(32));
        assert_eq!(w.bits("%r4"), None);
        assert_eq!(w.bits("temp"), Some(32));
        assert_eq!(w.bits("%p1"), Some(8));
    }

    #[test]
    fn malformed_text_is_an_error() {
        assert!(scan(".version 8.8\n.target sm_80\n.entry k() { ret;").is_err());
        assert!(scan(".entry k() { ret; }").is_err());
        assert!(scan(".target sm_80\n.global .u32 x").is_err());
        assert!(scan(".target sm_80\n.entry () { ret; }").is_err());
    }
}
