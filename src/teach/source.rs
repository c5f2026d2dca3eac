//! The learner's source as the help rules read it: lines without comments, the subscripts of an
//! array on a line, the `if` conditions around a line (and the early `return`s before it), the
//! function a line is in, the integer locals set before it, loop headers and array shapes.
//! Text-level and forgiving: anything it cannot read is "not found", never an error.

use super::eval::{self, Env};

pub struct Source {
    /// Code of each line (index 0 is line 1), comments blanked out.
    code: Vec<String>,
}

/// An `if` around a line: its condition as written and its line; `returns` when it is an
/// early `if (cond) return;` before the line (the line runs when `cond` is false).
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub line: u32,
    pub cond: String,
    pub returns: bool,
}

/// The rest of a directive `d` (after `#`) when it is the directive `w`.
fn directive_word<'t>(d: &'t str, w: &str) -> Option<&'t str> {
    d.strip_prefix(w)
        .filter(|r| r.is_empty() || r.starts_with(|c: char| c.is_whitespace() || c == '('))
        .map(str::trim)
}

/// `defined(NAME)` and `defined NAME` in an `#if` condition as 1 when `names` holds NAME;
/// `None` when it does not, or when the condition has any other name `names` lacks (either may
/// be a `-D` the compile has and this reader does not know).
fn replace_defined(cond: &str, names: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut rest = cond;
    while let Some(at) = find_word(rest, "defined") {
        out.push_str(&rest[..at]);
        let after = rest[at + "defined".len()..].trim_start();
        let (inner, tail) = match after.strip_prefix('(') {
            Some(a) => {
                let close = a.find(')')?;
                (a[..close].trim(), &a[close + 1..])
            }
            None => {
                let end = after
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        // Only a name known to be defined decides; another may be a `-D` without a value.
        if !names.iter().any(|n| n == inner) {
            return None;
        }
        out.push('1');
        rest = tail;
    }
    out.push_str(rest);
    // Any name left must be known, else the reader cannot decide the condition.
    let unknown = eval::names(&out)
        .iter()
        .any(|n| !names.iter().any(|k| k == n));
    (!unknown).then_some(out)
}

/// A `for (init; cond; step)` or `while (cond)` header.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopHeader {
    pub line: u32,
    pub init: Option<String>,
    pub cond: String,
    pub step: Option<String>,
}

impl Source {
    pub fn new(text: &str) -> Source {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut code = Vec::new();
        let mut in_block = false;
        for line in text.lines() {
            let mut out = String::with_capacity(line.len());
            let b = line.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if in_block {
                    if line[i..].starts_with("*/") {
                        in_block = false;
                        i += 2;
                    } else {
                        i += 1;
                    }
                    out.push(' ');
                } else if line[i..].starts_with("//") {
                    break;
                } else if line[i..].starts_with("/*") {
                    in_block = true;
                    i += 2;
                    out.push_str("  ");
                } else {
                    let c = line[i..].chars().next().unwrap_or(' ');
                    out.push(c);
                    i += c.len_utf8();
                }
            }
            code.push(out);
        }
        let mut src = Source { code };
        src.blank_inactive_regions(&[]);
        src
    }

    /// The source as the compiler sees its lines: `new`, then the regions an `#if`, `#ifdef`
    /// or `#ifndef` leaves out blanked (their lines kept, empty), given `defined`, the names
    /// the compile defines beyond the file's own `#define`s (the puzzle's defines, the test's
    /// scalars). A condition that cannot be decided here keeps its region, as before.
    pub fn preprocessed(text: &str, defined: &[(String, i64)]) -> Source {
        let mut src = Source::new(text);
        src.blank_inactive_regions(defined);
        src
    }

    /// Blank the lines of `#if` regions that are certainly not compiled. A name counts as
    /// defined when the file `#define`s it (above the test) or `defined` holds it; as undefined
    /// only in `#if` expressions where every name is known; `#ifdef NAME` of an unknown name
    /// is undecided (NVRTC may get `-D NAME` without a value), so both branches stay.
    fn blank_inactive_regions(&mut self, defined: &[(String, i64)]) {
        // Whether this region is compiled (None: undecided), and whether an earlier branch of
        // its `#if` was.
        struct Frame {
            on: Option<bool>,
            taken: Option<bool>,
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut env = Env::default();
        let mut names: Vec<String> = Vec::new();
        for (n, v) in defined {
            env.set(n.clone(), *v);
            names.push(n.clone());
        }
        let active = |stack: &[Frame]| stack.iter().all(|f| f.on != Some(false));
        for i in 0..self.code.len() {
            let t = self.code[i].trim().to_string();
            let directive = t.strip_prefix('#').map(str::trim_start);
            let decide = |cond: &str, env: &Env, names: &[String]| -> Option<bool> {
                let with_defined = replace_defined(cond, names)?;
                eval::eval(&with_defined, env).map(|v| v != 0)
            };
            let outer = active(&stack);
            match directive {
                Some(d) if directive_word(d, "ifdef").is_some() => {
                    let n = directive_word(d, "ifdef").unwrap_or("");
                    let on = names.iter().any(|x| x == n).then_some(true);
                    stack.push(Frame { on, taken: on });
                }
                Some(d) if directive_word(d, "ifndef").is_some() => {
                    let n = directive_word(d, "ifndef").unwrap_or("");
                    let on = names.iter().any(|x| x == n).then_some(false);
                    stack.push(Frame { on, taken: on });
                }
                Some(d) if directive_word(d, "if").is_some() => {
                    let on = decide(directive_word(d, "if").unwrap_or(""), &env, &names);
                    stack.push(Frame { on, taken: on });
                }
                Some(d) if directive_word(d, "elif").is_some() => {
                    if let Some(f) = stack.last_mut() {
                        let on = match f.taken {
                            Some(true) => Some(false),
                            Some(false) => {
                                decide(directive_word(d, "elif").unwrap_or(""), &env, &names)
                            }
                            None => None,
                        };
                        f.taken = match (f.taken, on) {
                            (Some(true), _) | (_, Some(true)) => Some(true),
                            (Some(false), Some(false)) => Some(false),
                            _ => None,
                        };
                        f.on = on;
                    }
                }
                Some(d) if directive_word(d, "else").is_some() => {
                    if let Some(f) = stack.last_mut() {
                        f.on = f.taken.map(|t| !t);
                        f.taken = f.taken.map(|_| true);
                    }
                }
                Some(d) if directive_word(d, "endif").is_some() => {
                    stack.pop();
                }
                Some(d) if outer && directive_word(d, "define").is_some() => {
                    let rest = directive_word(d, "define").unwrap_or("");
                    let mut parts = rest.splitn(2, char::is_whitespace);
                    if let Some(n) = parts.next().filter(|n| !n.contains('(')) {
                        if let Some(v) = parts.next().and_then(|v| eval::eval(v.trim(), &env)) {
                            env.set(n, v);
                        }
                        names.push(n.to_string());
                    }
                }
                Some(d) if outer && directive_word(d, "undef").is_some() => {
                    let n = directive_word(d, "undef").unwrap_or("");
                    names.retain(|x| x != n);
                }
                _ => {}
            }
            let keep = active(&stack)
                || directive.is_some_and(|d| {
                    ["if", "ifdef", "ifndef", "elif", "else", "endif"]
                        .iter()
                        .any(|w| directive_word(d, w).is_some())
                });
            if !keep {
                self.code[i].clear();
            }
        }
    }

    /// The code of line `n` (1-based), comments removed; "" past the end.
    pub fn line(&self, n: u32) -> &str {
        (n as usize)
            .checked_sub(1)
            .and_then(|i| self.code.get(i))
            .map_or("", |s| s.as_str())
    }

    /// How many lines the source has.
    pub fn lines(&self) -> u32 {
        self.code.len() as u32
    }

    /// The subscripts of every `name[...]` on line `n`, each as its list of dimensions
    /// (`tile[ty][tx]` is `["ty", "tx"]`), in order.
    pub fn subscripts(&self, n: u32, name: &str) -> Vec<Vec<String>> {
        subscripts_in(self.line(n), name)
    }

    /// The first line of the function that holds line `n` (its `__global__`/`__device__`
    /// line), and whether it is a kernel.
    pub fn function_of(&self, n: u32) -> Option<(u32, bool)> {
        (1..=n.min(self.lines())).rev().find_map(|l| {
            let t = self.line(l);
            if t.contains("__global__") {
                Some((l, true))
            } else if t.contains("__device__") && t.contains('(') {
                Some((l, false))
            } else {
                None
            }
        })
    }

    /// The name of the function starting on line `start`.
    pub fn function_name(&self, start: u32) -> Option<String> {
        let t = self.line(start);
        let before = &t[..t.find('(')?];
        let name = before
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()?;
        (!name.is_empty()).then(|| name.to_string())
    }

    /// The `if`s around line `n` inside its function, innermost first, then the early
    /// `if (..) return;` lines before it.
    pub fn guards(&self, n: u32) -> Vec<Guard> {
        let start = self.function_of(n).map_or(1, |f| f.0);
        let mut out = Vec::new();
        // A one-line `if (c) stmt;` holding the line itself.
        if let Some(cond) = if_condition(self.line(n)) {
            let after = after_condition(self.line(n)).unwrap_or("");
            if !after.trim().is_empty() && !after.trim_start().starts_with('{') {
                out.push(Guard {
                    line: n,
                    cond,
                    returns: false,
                });
            }
        }
        // Braces opened and not closed between the function start and the line.
        let mut depth: i32 = 0;
        let mut l = n.saturating_sub(1);
        let mut pending_single = true;
        while l >= start && l > 0 {
            let t = self.line(l);
            for c in t.chars().rev() {
                match c {
                    '}' => depth += 1,
                    '{' => {
                        if depth == 0 {
                            // An unmatched `{`: its `if` is on this line, or on the one above
                            // when the brace stands alone (a `for (..) {` is no guard).
                            let here = if_condition(t).filter(|_| !opens_loop(t));
                            let above = if t.trim() == "{" {
                                let prev = self.line(l.saturating_sub(1));
                                if_condition(prev).filter(|_| !returns_early(prev))
                            } else {
                                None
                            };
                            if let Some(cond) = here.clone().or(above) {
                                out.push(Guard {
                                    line: if here.is_some() { l } else { l - 1 },
                                    cond,
                                    returns: false,
                                });
                            }
                        } else {
                            depth -= 1;
                        }
                    }
                    _ => {}
                }
            }
            // `if (c)` alone on the line above a one-statement body.
            if pending_single && l + 1 == n && !t.contains('{') && !t.trim_end().ends_with(';') {
                if let Some(cond) = if_condition(t) {
                    if after_condition(t).is_some_and(|a| a.trim().is_empty()) {
                        out.push(Guard {
                            line: l,
                            cond,
                            returns: false,
                        });
                    }
                }
            }
            pending_single = false;
            // `if (c) {` / `return;` / `}` over three lines is an early return too.
            let spans_return = t.trim_end().ends_with('{')
                && self.line(l + 1).trim().starts_with("return")
                && self.line(l + 2).trim() == "}"
                && l + 2 < n;
            if depth <= 0 && spans_return {
                if let Some(cond) = if_condition(t) {
                    out.push(Guard {
                        line: l,
                        cond,
                        returns: true,
                    });
                }
            }
            if depth <= 0 && returns_early(t) {
                if let Some(cond) = if_condition(t) {
                    out.push(Guard {
                        line: l,
                        cond,
                        returns: true,
                    });
                }
            }
            l -= 1;
        }
        out
    }

    /// The integer locals declared (`int i = ...;`) in the function of line `n` before it, each
    /// evaluated in `env` in order (locals that cannot be evaluated are left unknown), added
    /// to a copy of `env`. Loop variables are not set (their value changes).
    pub fn locals_before(&self, n: u32, env: &Env) -> Env {
        let start = self.function_of(n).map_or(1, |f| f.0);
        self.locals_between(start, n, env)
    }

    /// The integer locals declared on lines `from` to `to - 1`, evaluated in `env` in order,
    /// added to a copy of it (`locals_before` from a later start: what a loop's body sets,
    /// once the loop's variable is in `env`).
    pub fn locals_between(&self, from: u32, to: u32, env: &Env) -> Env {
        let mut env = env.clone();
        for l in from..to {
            let t = self.line(l);
            if loop_header_text(t).is_some() {
                continue;
            }
            for stmt in t.split(';') {
                if let Some((name, value)) = int_declaration(stmt) {
                    match eval::eval(&value, &env) {
                        Some(v) => env.set(name, v),
                        None => env.set_unknown(name),
                    }
                }
            }
        }
        env
    }

    /// The locals declared before line `n` in its function whose value is written exactly
    /// as `value` (`int local_i = threadIdx.x;` for "threadIdx.x"), latest first.
    pub fn locals_named_for(&self, n: u32, value: &str) -> Vec<String> {
        let start = self.function_of(n).map_or(1, |f| f.0);
        let want = eval::canonical(value);
        let mut out: Vec<String> = (start..n)
            .flat_map(|l| {
                self.line(l)
                    .split(';')
                    .filter_map(int_declaration)
                    .filter(|(_, v)| eval::canonical(v) == want)
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>()
            })
            .collect();
        out.reverse();
        out
    }

    /// The latest integer local `name` declared before line `n` in its function (`int slot =
    /// __popc(m);`): its line and its value as written.
    pub fn definition(&self, n: u32, name: &str) -> Option<(u32, String)> {
        let start = self.function_of(n).map_or(1, |f| f.0);
        (start..n).rev().find_map(|l| {
            self.line(l)
                .rsplit(';')
                .filter_map(int_declaration)
                .find(|(d, _)| d == name)
                .map(|(_, v)| (l, v))
        })
    }

    /// The locals declared before line `n` in its function whose value's text mentions `part`
    /// (`threadIdx.y` for a row), first declared first.
    pub fn locals_mentioning(&self, n: u32, part: &str) -> Vec<String> {
        let start = self.function_of(n).map_or(1, |f| f.0);
        (start..n)
            .flat_map(|l| {
                self.line(l)
                    .split(';')
                    .filter_map(int_declaration)
                    .filter(|(_, v)| v.contains(part))
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The name line `n` uses for array `name`: `name` itself, or a pointer declared from it
    /// (`float* s = buf[0];`, `float* row = &tile[ty][0];`, `int* p = hist + 4;`) that the line
    /// indexes instead.
    pub fn name_on_line(&self, n: u32, name: &str) -> String {
        let code = self.line(n);
        if !uses_in(code, name).is_empty() {
            return name.to_string();
        }
        let start = self.function_of(n).map_or(1, |f| f.0);
        for l in (start..n).rev() {
            for stmt in self.line(l).split(';') {
                let Some((lhs, rhs)) = stmt.split_once('=') else {
                    continue;
                };
                if !lhs.contains('*') || find_word(rhs, name).is_none() {
                    continue;
                }
                let alias = lhs
                    .trim()
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("");
                if !alias.is_empty() && !uses_in(code, alias).is_empty() {
                    return alias.to_string();
                }
            }
        }
        name.to_string()
    }

    /// The integer `#define`s of the source, each evaluated with those before it.
    pub fn defines(&self) -> Vec<(String, i64)> {
        let mut env = Env::default();
        let mut out = Vec::new();
        for l in 1..=self.lines() {
            let t = self.line(l).trim();
            let Some(rest) = t.strip_prefix("#define") else {
                continue;
            };
            let mut parts = rest.trim().splitn(2, char::is_whitespace);
            let (Some(name), Some(value)) = (parts.next(), parts.next()) else {
                continue;
            };
            if name.contains('(') {
                continue;
            }
            if let Some(v) = eval::eval(value.trim(), &env) {
                env.set(name, v);
                out.push((name.to_string(), v));
            }
        }
        out
    }

    /// Every `__shared__` array the source declares with a size, in order, with its dimensions
    /// as written (`__shared__ float tile[8][10];` gives `("tile", ["8", "10"])`).
    pub fn shared_arrays(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for l in 1..=self.lines() {
            let t = self.line(l);
            let Some(at) = t.find("__shared__") else {
                continue;
            };
            let decl = &t[at..];
            let Some(open) = decl.find('[') else {
                continue;
            };
            let name = decl[..open]
                .trim_end()
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
                .to_string();
            if name.is_empty() {
                continue;
            }
            let dims = subscripts_in(decl, &name)
                .into_iter()
                .next()
                .unwrap_or_default();
            out.push((name, dims));
        }
        out
    }

    /// The names of the `__shared__` arrays the source declares (see `shared_arrays`).
    pub fn shared_names(&self) -> Vec<String> {
        self.shared_arrays().into_iter().map(|(n, _)| n).collect()
    }

    /// The declared dimensions of a `__shared__` array (`__shared__ float tile[8][10];` gives
    /// `["8", "10"]`, as written).
    pub fn shared_dims(&self, name: &str) -> Option<Vec<String>> {
        let short = name.rsplit("::").next().unwrap_or(name);
        (1..=self.lines()).find_map(|l| {
            let t = self.line(l);
            if !t.contains("__shared__") {
                return None;
            }
            let subs = subscripts_in(t, short);
            // `extern __shared__ float s[];` has no size to name (the launch gives it).
            subs.into_iter()
                .next()
                .filter(|d| d.iter().all(|x| !x.trim().is_empty()))
        })
    }

    /// The size in bytes of what the pointer `name` points at, from its declaration
    /// (`const float4* k4` gives 16, `float* k` 4): the first `TYPE* name` or `TYPE *name`.
    /// `None` for a type it does not know.
    pub fn pointee_bytes(&self, name: &str) -> Option<u64> {
        (1..=self.lines()).find_map(|l| {
            let t = self.line(l);
            let at = find_word(t, name)?;
            let before = t[..at].trim_end().strip_suffix('*')?.trim_end();
            let ty = before
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()?;
            type_bytes(ty)
        })
    }

    /// Whether `name` is declared `extern __shared__` (sized by the launch's dynamic shared
    /// memory): the line of its declaration.
    pub fn extern_shared(&self, name: &str) -> Option<u32> {
        let short = name.rsplit("::").next().unwrap_or(name);
        (1..=self.lines()).find(|&l| {
            let t = self.line(l);
            t.contains("extern") && t.contains("__shared__") && find_word(t, short).is_some()
        })
    }

    /// The loop header on line `n` or just above it.
    pub fn loop_header(&self, n: u32) -> Option<LoopHeader> {
        (n.saturating_sub(3).max(1)..=n).rev().find_map(|l| {
            let (init, cond, step) = loop_header_text(self.line(l))?;
            Some(LoopHeader {
                line: l,
                init,
                cond,
                step,
            })
        })
    }

    /// The lines of the body of the loop whose header is on line `header` (to its matching
    /// `}`; the next line alone for a body without braces).
    pub fn loop_body(&self, header: u32) -> std::ops::RangeInclusive<u32> {
        let mut depth = 0i32;
        let mut opened = false;
        for l in header..=self.lines() {
            let t = self.line(l);
            let t = if l == header {
                after_condition(t).unwrap_or("")
            } else {
                t
            };
            for c in t.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => {
                        depth -= 1;
                        if opened && depth == 0 {
                            return header..=l;
                        }
                    }
                    _ => {}
                }
            }
            if !opened && l > header && t.trim_end().ends_with(';') {
                return header..=l;
            }
        }
        header..=self.lines()
    }

    /// The lines that call function `name` (outside its own definition line).
    pub fn calls_of(&self, name: &str) -> Vec<u32> {
        (1..=self.lines())
            .filter(|&l| {
                let t = self.line(l);
                !t.contains("__device__")
                    && !t.contains("__global__")
                    && find_word(t, name)
                        .is_some_and(|at| t[at + name.len()..].trim_start().starts_with('('))
            })
            .collect()
    }
}

/// The size in bytes of a CUDA scalar or vector type as written (`float4` is 16).
pub fn type_bytes(ty: &str) -> Option<u64> {
    Some(match ty {
        "char" | "int8_t" | "uint8_t" | "char4" | "uchar" => {
            if ty == "char4" {
                4
            } else {
                1
            }
        }
        "short" | "__half" | "half" | "__nv_bfloat16" | "int16_t" | "uint16_t" => 2,
        "float" | "int" | "unsigned" | "uint32_t" | "int32_t" | "__half2" | "half2"
        | "__nv_bfloat162" => 4,
        "double" | "long" | "int64_t" | "uint64_t" | "float2" | "int2" | "uint2" => 8,
        "float4" | "int4" | "uint4" | "double2" | "longlong2" => 16,
        "double4" => 32,
        _ => return None,
    })
}

/// The position of `word` in `t` as a whole identifier.
pub fn find_word(t: &str, word: &str) -> Option<usize> {
    t.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = t[..at].chars().next_back();
        let after = t[at + word.len()..].chars().next();
        let ident =
            |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        !ident(before) && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether line `t` assigns to the variable `var`: `var = ...` (not `==`), a compound
/// assignment (`+=`, `<<=`, ...), or `var++`, `++var` and their `--`.
pub fn assigns(t: &str, var: &str) -> bool {
    let mut from = 0;
    while let Some(rel) = find_word(&t[from..], var) {
        let at = from + rel;
        let after = t[at + var.len()..].trim_start();
        let before = t[..at].trim_end();
        if (after.starts_with('=') && !after.starts_with("=="))
            || [
                "+=", "-=", "*=", "/=", "<<=", ">>=", "++", "--", "|=", "&=", "^=",
            ]
            .iter()
            .any(|o| after.starts_with(o))
            || before.ends_with("++")
            || before.ends_with("--")
        {
            return true;
        }
        from = at + var.len();
    }
    false
}

/// The index of the `)` closing the `(` at `open` in `t`.
pub fn closing(t: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, ch) in t[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every `name[a][b]...` in `t`, as lists of subscripts.
pub fn subscripts_in(t: &str, name: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = find_word(&t[from..], name) {
        let mut at = from + rel + name.len();
        let mut dims = Vec::new();
        loop {
            let rest = &t[at..];
            let skip = rest.len() - rest.trim_start().len();
            if !rest.trim_start().starts_with('[') {
                break;
            }
            let open = at + skip;
            let Some(close) = matching(t, open, '[', ']') else {
                break;
            };
            dims.push(t[open + 1..close].trim().to_string());
            at = close + 1;
        }
        if !dims.is_empty() {
            out.push(dims);
        }
        from = at.max(from + rel + name.len());
    }
    out
}

/// How a line uses one `name[...]`: its subscripts, and whether it writes it (`=`), updates it
/// (`+=`, `++`: read and write) or only reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Use {
    pub dims: Vec<String>,
    pub write: bool,
    pub update: bool,
    /// Byte offset just past the use's last `]` in the line.
    pub end: usize,
}

/// Every use of `name[...]` on a line, in order.
pub fn uses_in(t: &str, name: &str) -> Vec<Use> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = find_word(&t[from..], name) {
        let start = from + rel;
        let mut at = start + name.len();
        let mut dims = Vec::new();
        loop {
            let rest = &t[at..];
            let skip = rest.len() - rest.trim_start().len();
            if !rest.trim_start().starts_with('[') {
                break;
            }
            let open = at + skip;
            let Some(close) = matching(t, open, '[', ']') else {
                break;
            };
            dims.push(t[open + 1..close].trim().to_string());
            at = close + 1;
        }
        if !dims.is_empty() {
            let after = t[at..].trim_start();
            let before = t[..start].trim_end();
            let compound = [
                "+=", "-=", "*=", "/=", "|=", "&=", "^=", "%=", "<<=", ">>=", "++", "--",
            ]
            .iter()
            .any(|o| after.starts_with(o))
                || before.ends_with("++")
                || before.ends_with("--");
            let plain = after.starts_with('=') && !after.starts_with("==");
            out.push(Use {
                dims,
                write: plain || compound,
                update: compound,
                end: at,
            });
        }
        from = at.max(start + name.len());
    }
    out
}

/// The index of the bracket closing the one at `open`.
fn matching(t: &str, open: usize, o: char, c: char) -> Option<usize> {
    let mut depth = 0;
    for (i, ch) in t[open..].char_indices() {
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth -= 1;
            if depth == 0 {
                return Some(open + i);
            }
        }
    }
    None
}

/// The condition of the (first) `if (...)` on a line.
pub fn if_condition(t: &str) -> Option<String> {
    let at = find_word(t, "if")?;
    let open = at + t[at..].find('(')?;
    let close = matching(t, open, '(', ')')?;
    Some(t[open + 1..close].trim().to_string())
}

/// The text after an `if (...)` or loop header's closing parenthesis.
fn after_condition(t: &str) -> Option<&str> {
    let at = ["if", "for", "while"]
        .iter()
        .find_map(|k| find_word(t, k))?;
    let open = at + t[at..].find('(')?;
    let close = matching(t, open, '(', ')')?;
    Some(&t[close + 1..])
}

/// Whether a line opens a loop (its `{` is the loop's body, not an `if`'s).
fn opens_loop(t: &str) -> bool {
    ["for", "while", "do"]
        .iter()
        .any(|k| find_word(t, k).is_some_and(|at| find_word(t, "if").is_none_or(|i| at < i)))
}

fn returns_early(t: &str) -> bool {
    find_word(t, "if").is_some()
        && after_condition(t).is_some_and(|a| {
            let a = a.trim().trim_start_matches('{').trim();
            a.starts_with("return")
        })
}

/// `int i = expr` (also `const int`, `unsigned`, `size_t`, `auto`): the name and the value.
fn int_declaration(stmt: &str) -> Option<(String, String)> {
    let s = stmt.trim().trim_start_matches('{').trim();
    let (lhs, rhs) = s.split_once('=')?;
    if rhs.starts_with('=') || lhs.ends_with(['<', '>', '!', '+', '-', '*', '/']) {
        return None;
    }
    let words: Vec<&str> = lhs.split_whitespace().collect();
    let (name, types) = words.split_last()?;
    let int_type = types.iter().any(|w| {
        matches!(
            *w,
            "int" | "unsigned" | "size_t" | "auto" | "long" | "uint32_t" | "int64_t"
        )
    });
    let plain = types.iter().all(|w| {
        matches!(
            *w,
            "int" | "unsigned" | "size_t" | "auto" | "long" | "const" | "uint32_t" | "int64_t"
        )
    });
    let ident = name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (int_type && plain && ident && !types.is_empty())
        .then(|| (name.to_string(), rhs.trim().to_string()))
}

/// `(init, cond, step)` of a `for` header, or `(None, cond, None)` of a `while`.
fn loop_header_text(t: &str) -> Option<(Option<String>, String, Option<String>)> {
    if let Some(at) = find_word(t, "for") {
        let open = at + t[at..].find('(')?;
        let close = matching(t, open, '(', ')').unwrap_or(t.len());
        let inside = t.get(open + 1..close)?;
        let mut parts = inside.splitn(3, ';');
        let init = parts.next()?.trim().to_string();
        let cond = parts.next()?.trim().to_string();
        let step = parts.next().map(|s| s.trim().to_string());
        return Some((
            Some(init).filter(|s| !s.is_empty()),
            cond,
            step.filter(|s| !s.is_empty()),
        ));
    }
    let at = find_word(t, "while")?;
    let open = at + t[at..].find('(')?;
    let close = matching(t, open, '(', ')')?;
    Some((None, t[open + 1..close].trim().to_string(), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "\
__global__ void k(float* out, float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; // the index
    __shared__ float tile[4][5];
    if (i >= size) return;
    if (i < size) {
        out[i + 1] = a[i] + tile[threadIdx.y][threadIdx.x];
    }
    for (int s = 4; s >= 0; s /= 2)
        out[s] = 0;
}
";

    #[test]
    fn subscripts_and_shapes_as_written() {
        let s = Source::new(K);
        assert_eq!(s.subscripts(6, "out"), vec![vec!["i + 1".to_string()]]);
        assert_eq!(
            s.subscripts(6, "tile"),
            vec![vec!["threadIdx.y".to_string(), "threadIdx.x".to_string()]]
        );
        assert_eq!(s.shared_dims("tile"), Some(vec!["4".into(), "5".into()]));
        assert!(s.subscripts(6, "ou").is_empty());
    }

    #[test]
    fn guards_around_a_line_innermost_first() {
        let s = Source::new(K);
        let g = s.guards(6);
        assert_eq!(g[0].cond, "i < size");
        assert_eq!((g[0].line, g[0].returns), (5, false));
        assert_eq!((g[1].cond.as_str(), g[1].returns), ("i >= size", true));
        let g = s.guards(9);
        assert!(g.iter().all(|g| g.cond != "i < size"), "{g:?}");
    }

    #[test]
    fn an_early_return_before_a_loop_is_no_if_around_the_loop_body() {
        let s = Source::new(
            "__global__ void k(int n) {\n    if (n > 3) return;\n    for (int i = 0; i < n; i++) {\n        __syncthreads();\n    }\n}\n",
        );
        let g = s.guards(4);
        assert_eq!(g.len(), 1, "{g:?}");
        assert!(g[0].returns && g[0].line == 2, "{g:?}");
    }

    #[test]
    fn a_pointer_into_an_array_stands_for_it_on_the_lines_that_use_it() {
        let s = Source::new(
            "__global__ void k() {\n    __shared__ float buf[2][8];\n    float* s = buf[0];\n    s[1] += s[0];\n    buf[1][0] = 0;\n}\n",
        );
        assert_eq!(s.name_on_line(4, "buf"), "s");
        assert_eq!(s.name_on_line(5, "buf"), "buf");
    }

    #[test]
    fn locals_are_evaluated_for_a_thread() {
        let s = Source::new(K);
        let mut env = Env::default();
        env.set("blockIdx.x", 1);
        env.set("blockDim.x", 4);
        env.set("threadIdx.x", 2);
        let e = s.locals_before(6, &env);
        assert_eq!(eval::eval("i + 1", &e), Some(7));
    }

    #[test]
    fn a_local_s_definition_is_the_latest_before_the_line() {
        let s = Source::new(
            "__global__ void k() {\n    unsigned int m = 3u;\n    int slot = __popc(m);\n    slot = 2;\n    int slot2 = 1;\n}\n",
        );
        assert_eq!(s.definition(5, "slot"), Some((3, "__popc(m)".into())));
        assert_eq!(s.definition(5, "m"), Some((2, "3u".into())));
        assert_eq!(s.definition(3, "slot"), None);
    }

    #[test]
    fn compiled_out_regions_are_blank_and_undecided_ones_kept() {
        let text = "#define FAST 1\n#ifndef FAST\n    __syncthreads();\n#else\n    x = 1;\n#endif\n#if TILE > 8\n    big();\n#elif TILE > 2\n    mid();\n#else\n    small();\n#endif\n#ifdef FROM_FLAGS\n    flagged();\n#endif\n#if 0\n    never();\n#endif\n";
        let s = Source::preprocessed(text, &[("TILE".into(), 4)]);
        assert_eq!(s.line(3), "");
        assert_eq!(s.line(5).trim(), "x = 1;");
        assert_eq!(
            (s.line(8), s.line(10).trim(), s.line(12)),
            ("", "mid();", "")
        );
        // A name only a `-D` could define: both ways are possible, the line stays.
        assert_eq!(s.line(15).trim(), "flagged();");
        assert_eq!(s.line(18), "");
        // Another shape: the define comes from the puzzle, and `defined(...)`.
        let other = "#if defined(USE_WARP) && WIDTH == 32\n  __syncwarp();\n#else\n  __syncthreads();\n#endif\n";
        let s = Source::preprocessed(other, &[("USE_WARP".into(), 1), ("WIDTH".into(), 32)]);
        assert_eq!((s.line(2).trim(), s.line(4)), ("__syncwarp();", ""));
        let s = Source::preprocessed(other, &[("WIDTH".into(), 32)]);
        assert_eq!(s.line(4).trim(), "__syncthreads();");
    }

    #[test]
    fn loop_headers_and_bodies() {
        let s = Source::new(K);
        let h = s.loop_header(9).unwrap();
        assert_eq!(h.line, 8);
        assert_eq!(h.init.as_deref(), Some("int s = 4"));
        assert_eq!(h.cond, "s >= 0");
        assert_eq!(h.step.as_deref(), Some("s /= 2"));
        assert_eq!(s.loop_body(8), 8..=9);
        assert_eq!(s.function_of(6), Some((1, true)));
        assert_eq!(s.function_name(1).as_deref(), Some("k"));
    }
}
