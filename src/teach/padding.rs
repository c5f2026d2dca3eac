//! The padding of a shared array filled from global memory. A thread whose global element lies
//! outside the data still owns a slot of the array; that slot needs a value only when a later
//! read reaches it, and then the value must leave the result unchanged: 0 for a sum or a
//! product, the lowest value for a maximum, the highest for a minimum or an ascending sort,
//! written in the element's own type (`make_float4(0.f, 0.f, 0.f, 0.f)`, `0`, `INT_MAX`).
//!
//! Whether a read reaches the slot is evaluated, not guessed: the slot the faulting thread
//! writes (its loop variables solved from the element it reached), against every read of the
//! array for every thread of its block, through the reads' loops and guards. Anything the
//! evaluator cannot read makes the answer "unknown", and the caller keeps its advice.

use super::eval::{self, Env};
use super::source::{find_word, uses_in, LoopHeader, Source};
use super::Case;

/// What the reads of a padded slot show.
#[derive(Debug, PartialEq)]
pub enum Reach {
    /// A read reaches the slot: its line and the value to store there.
    Read { line: u32, neutral: String },
    /// No read reaches it, for any thread of the block: a guard on the load is enough.
    Never,
    /// The evaluator could not tell; the value to store if one is needed.
    Unknown { neutral: String },
}

/// The most evaluations one question may cost (a block of 1024 threads through two loops).
const BUDGET: usize = 200_000;

/// Whether a read reaches the slot of `name` that the diagnostic's line writes (`dims`, the
/// subscripts of its left side), for the thread that reached `idx` through the global
/// subscript `expr`.
pub fn reach(c: &Case, name: &str, dims: &[String], expr: &str, idx: i128) -> Reach {
    let neutral_any = |line: Option<u32>| neutral(c.src, name, line);
    let Some(line) = c.line else {
        return Reach::Unknown {
            neutral: neutral_any(None),
        };
    };
    // The faulting pass: the values of the loops around the line for which the global
    // subscript is the element the thread reached.
    let loops = enclosing(c.src, line);
    let Some(fixed) = solve(c, line, &loops, expr, idx) else {
        return Reach::Unknown {
            neutral: neutral_any(None),
        };
    };
    let env = env_at(c, line, c.d.thread, c.d.block, &fixed);
    let Some(slot) = dims
        .iter()
        .map(|d| eval::eval(d, &env))
        .collect::<Option<Vec<i64>>>()
    else {
        return Reach::Unknown {
            neutral: neutral_any(None),
        };
    };
    let start = c.src.function_of(line).map_or(1, |f| f.0);
    let end = (start + 1..=c.src.lines())
        .find(|&l| c.src.function_of(l).is_some_and(|f| f.0 != start))
        .map_or(c.src.lines(), |l| l - 1);
    let mut unknown = false;
    let mut spent = 0usize;
    for l in start..=end {
        if l == line {
            continue;
        }
        let reads: Vec<Vec<String>> = uses_in(c.src.line(l), name)
            .into_iter()
            .filter(|u| (!u.write || u.update) && u.dims.len() == dims.len())
            .map(|u| u.dims)
            .collect();
        if reads.is_empty() {
            continue;
        }
        match reads_slot(c, l, &reads, &slot, line, &fixed, &mut spent) {
            Some(true) => {
                return Reach::Read {
                    line: l,
                    neutral: neutral(c.src, name, Some(l)),
                }
            }
            Some(false) => {}
            None => unknown = true,
        }
    }
    if unknown {
        Reach::Unknown {
            neutral: neutral_any(None),
        }
    } else {
        Reach::Never
    }
}

/// Whether some thread of the diagnostic's block, in some round of the loops around line `l`
/// that it does not share with the write's line, reads `slot` on `l`; `None` when some part
/// could not be evaluated.
fn reads_slot(
    c: &Case,
    l: u32,
    reads: &[Vec<String>],
    slot: &[i64],
    write_line: u32,
    fixed: &[(String, i64)],
    spent: &mut usize,
) -> Option<bool> {
    let loops = enclosing(c.src, l);
    let shared: Vec<(String, i64)> = fixed
        .iter()
        .filter(|(var, _)| {
            loops.iter().any(|h| {
                c.src.loop_body(h.line).contains(&write_line)
                    && h.init.as_deref().and_then(super::index::loop_var).as_ref() == Some(var)
            })
        })
        .cloned()
        .collect();
    // The loops of the read that the write is not in: every round of them.
    let own: Vec<&LoopHeader> = loops
        .iter()
        .filter(|h| !c.src.loop_body(h.line).contains(&write_line))
        .collect();
    let [bx, by, bz] = c.scene.block;
    let mut unknown = false;
    let guards = c.src.guards(l);
    // Each thread's locals up to the outermost loop of its own, once; inside the loops only
    // the lines between a header and the next are evaluated again, round by round.
    let outer = own.last().map_or(l, |h| h.line);
    for z in 0..bz {
        for y in 0..by {
            for x in 0..bx {
                let thread = [x, y, z];
                let base = env_at(c, outer, thread, c.d.block, &shared);
                let mut rounds: Vec<(Env, u32)> = vec![(base, outer)];
                // Outer loops first, so an inner loop's bounds see the outer variable.
                for h in own.iter().rev() {
                    let mut next = Vec::new();
                    for (env, from) in &rounds {
                        let at_header = c.src.locals_between(*from, h.line, env);
                        let (var, mut vals) = super::endless::values(h, &at_header, 64)?;
                        // A loop variable that is a whole subscript of the one read can only
                        // reach the slot in the round where it equals the slot's coordinate.
                        if let [dims] = reads {
                            if let Some(k) = dims.iter().position(|d| d.trim() == var) {
                                vals.retain(|&v| v == slot[k]);
                            }
                        }
                        for v in vals {
                            let mut e = at_header.clone();
                            e.set(var.clone(), v);
                            next.push((e, h.line));
                        }
                    }
                    rounds = next;
                }
                for (env, from) in &rounds {
                    *spent += 1;
                    if *spent > BUDGET {
                        return None;
                    }
                    let env = c.src.locals_between(*from, l, env);
                    if !passes_guards(&guards, &env) {
                        continue;
                    }
                    for dims in reads {
                        match dims
                            .iter()
                            .map(|d| eval::eval(d, &env))
                            .collect::<Option<Vec<i64>>>()
                        {
                            Some(v) if v == slot => return Some(true),
                            Some(_) => {}
                            None => unknown = true,
                        }
                    }
                }
            }
        }
    }
    (!unknown).then_some(false)
}

/// Whether the `if`s around a line (`guards`) let a thread with `env` reach it (an `if` that
/// cannot be evaluated lets it through: the read may happen).
fn passes_guards(guards: &[super::source::Guard], env: &Env) -> bool {
    guards.iter().all(|g| match eval::eval(&g.cond, env) {
        Some(v) if g.returns => v == 0,
        Some(v) => v != 0,
        None => true,
    })
}

/// The loops around line `l` in its function, innermost first.
fn enclosing(src: &Source, l: u32) -> Vec<LoopHeader> {
    let start = src.function_of(l).map_or(1, |f| f.0);
    (start..l)
        .rev()
        .filter_map(|h| src.loop_header(h).filter(|x| x.line == h))
        .filter(|h| src.loop_body(h.line).contains(&l))
        .collect()
}

/// Thread `thread` of `block` at line `l`, with loop variables set before its locals are
/// evaluated (`int row = k0 + t;` inside the loop over `k0`).
fn env_at(c: &Case, l: u32, thread: [u32; 3], block: [u32; 3], set: &[(String, i64)]) -> Env {
    let pairs: Vec<(&str, i64)> = set.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    Case {
        line: Some(l),
        ..*c
    }
    .env_with(thread, block, &pairs)
}

/// The rounds of the loops around the write's line in which the faulting thread's global
/// subscript `expr` is `idx`: the first such round, as its loop variables; `None` when no
/// round (or more than the budget) can be evaluated to it.
fn solve(
    c: &Case,
    line: u32,
    loops: &[LoopHeader],
    expr: &str,
    idx: i128,
) -> Option<Vec<(String, i64)>> {
    let mut combos: Vec<Vec<(String, i64)>> = vec![Vec::new()];
    for h in loops.iter().rev() {
        let mut next = Vec::new();
        for set in &combos {
            let env = env_at(c, h.line, c.d.thread, c.d.block, set);
            let (var, vals) = super::endless::values(h, &env, 256)?;
            for v in vals {
                let mut s = set.clone();
                s.push((var.clone(), v));
                next.push(s);
            }
        }
        if next.len() > BUDGET / 10 {
            return None;
        }
        combos = next;
    }
    combos.into_iter().find(|set| {
        let env = env_at(c, line, c.d.thread, c.d.block, set);
        eval::eval(expr, &env).is_some_and(|v| v as i128 == idx)
    })
}

/// The declared element type of the `__shared__` array `name` (`float4`, `int`, `__half`).
pub fn shared_type(src: &Source, name: &str) -> Option<String> {
    let short = name.rsplit("::").next().unwrap_or(name);
    (1..=src.lines()).find_map(|l| {
        let t = src.line(l);
        if !t.contains("__shared__") {
            return None;
        }
        let at = find_word(t, short)?;
        type_before(&t[..at])
    })
}

/// The type a pointer `name` points at, from its declaration (`const int* a` gives `int`).
pub fn pointee_type(src: &Source, name: &str) -> Option<String> {
    (1..=src.lines()).find_map(|l| {
        let t = src.line(l);
        let at = find_word(t, name)?;
        let before = t[..at].trim_end().strip_suffix('*')?;
        type_before(before)
    })
}

/// The last type word before a declared name, past qualifiers and `__align__(16)`.
fn type_before(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .iter()
        .rev()
        .find(|w| {
            !matches!(
                **w,
                "const"
                    | "volatile"
                    | "static"
                    | "extern"
                    | "__shared__"
                    | "__align__"
                    | "unsigned"
            ) && !w.chars().all(|ch| ch.is_ascii_digit())
        })
        .map(|w| {
            let unsigned = words.contains(&"unsigned");
            if unsigned && matches!(*w, "int" | "char" | "short" | "long") {
                format!("unsigned {w}")
            } else if unsigned {
                "unsigned int".to_string()
            } else {
                w.to_string()
            }
        })
}

/// The value that leaves a result unchanged for the reads of `name` (on `read_line`, and the
/// lines that compare what they read), in the array's element type.
pub fn neutral(src: &Source, name: &str, read_line: Option<u32>) -> String {
    let ty = shared_type(src, name).unwrap_or_else(|| "float".to_string());
    let code = read_line.map_or("", |l| src.line(l));
    let takes = |f: &[&str]| f.iter().any(|f| code.contains(&format!("{f}(")));
    if takes(&["fmaxf", "fmax", "max"]) {
        return extreme(&ty, false);
    }
    if takes(&["fminf", "fmin", "min"]) || compared(src, name) {
        return extreme(&ty, true);
    }
    zero(&ty)
}

/// Whether the kernel compares values it read from `name` with each other (a sort, a
/// compare-and-swap): `int lo = keys[i]; ... if (lo > hi)`.
fn compared(src: &Source, name: &str) -> bool {
    let mut locals: Vec<String> = Vec::new();
    for l in 1..=src.lines() {
        for stmt in src.line(l).split(';') {
            let Some((lhs, rhs)) = stmt.split_once('=') else {
                continue;
            };
            // `==`, `<=`, `!=` compare, and `+=`, `*=`, ... accumulate: neither makes a
            // local that holds one element.
            if rhs.starts_with('=')
                || lhs.ends_with(['<', '>', '!', '+', '-', '*', '/', '%', '&', '|', '^'])
            {
                continue;
            }
            if rhs.trim().starts_with(&format!("{name}[")) {
                let ident = |v: &&str| v.chars().all(|c| c.is_alphanumeric() || c == '_');
                if let Some(v) = lhs.split_whitespace().last().filter(ident) {
                    if !locals.iter().any(|l| l == v) {
                        locals.push(v.to_string());
                    }
                }
            }
        }
    }
    if locals.len() < 2 {
        return false;
    }
    (1..=src.lines()).any(|l| {
        let t = src.line(l);
        ["<", ">"].iter().any(|op| {
            t.split(op).count() > 1
                && locals.iter().filter(|v| find_word(t, v).is_some()).count() >= 2
                && !t.contains("<<")
                && !t.contains(">>")
        })
    })
}

/// 0 in type `ty`, as its own literal or constructor.
pub fn zero(ty: &str) -> String {
    match ty {
        "float4" => "make_float4(0.f, 0.f, 0.f, 0.f)".into(),
        "float2" => "make_float2(0.f, 0.f)".into(),
        "int4" => "make_int4(0, 0, 0, 0)".into(),
        "int2" => "make_int2(0, 0)".into(),
        "double" => "0.0".into(),
        "__half" | "half" => "__float2half(0.f)".into(),
        "__half2" | "half2" => "__float2half2_rn(0.f)".into(),
        "__nv_bfloat16" => "__float2bfloat16(0.f)".into(),
        "float" => "0.0f".into(),
        _ => "0".into(),
    }
}

/// The highest (`high`) or lowest value of type `ty`.
fn extreme(ty: &str, high: bool) -> String {
    let s = match (ty, high) {
        ("float", true) => "FLT_MAX (from <cfloat>)",
        ("float", false) => "-FLT_MAX (from <cfloat>)",
        ("double", true) => "DBL_MAX (from <cfloat>)",
        ("double", false) => "-DBL_MAX (from <cfloat>)",
        ("unsigned int", true) => "UINT_MAX (from <climits>)",
        ("unsigned int", false) => "0",
        ("int", true) => "INT_MAX (from <climits>)",
        ("int", false) => "INT_MIN (from <climits>)",
        (_, true) => "the largest value of the type",
        (_, false) => "the smallest value of the type",
    };
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_sum_guarded_by_comparisons_is_not_a_sort() {
        // Accumulating reads (`+=`) under `<` guards: a sum, whose neutral value is 0.
        let window = Source::new(
            "__global__ void pool(float* out, const float* a, int size) {\n    __shared__ float cache[8];\n    int t = threadIdx.x;\n    float sum = cache[t];\n    if (t + 1 < 8) sum += cache[t + 1];\n    if (t + 2 < 8) sum += cache[t + 2];\n    out[t] = sum;\n}\n",
        );
        assert_eq!(neutral(&window, "cache", Some(6)), "0.0f");
        // Other names and shape: an int tile, a product accumulated, guards with `<=`.
        let prod = Source::new(
            "__global__ void k(int* o) {\n    __shared__ int tile[16];\n    int j = threadIdx.x;\n    int acc = tile[j];\n    if (j <= 14) acc *= tile[j + 1];\n    if (j - 1 >= 0) acc -= tile[j - 1];\n    o[j] = acc;\n}\n",
        );
        assert_eq!(neutral(&prod, "tile", Some(5)), "0");
        // A real compare-and-swap still is one.
        let sort = Source::new(
            "__global__ void s(int* o) {\n    __shared__ int keys[16];\n    int i = threadIdx.x;\n    int lo = keys[i];\n    int hi = keys[i ^ 1];\n    if (lo > hi) keys[i] = hi;\n}\n",
        );
        assert!(neutral(&sort, "keys", Some(5)).starts_with("INT_MAX"));
    }

    #[test]
    fn types_are_read_from_declarations() {
        let src = Source::new(
            "__global__ void k(const int* a, const unsigned int* u) {\n    __shared__ __align__(16) float4 ks[64][4];\n    __shared__ int keys[64];\n    __shared__ unsigned int bins[32];\n    __shared__ __half hs[8];\n}\n",
        );
        assert_eq!(shared_type(&src, "ks").as_deref(), Some("float4"));
        assert_eq!(shared_type(&src, "keys").as_deref(), Some("int"));
        assert_eq!(shared_type(&src, "bins").as_deref(), Some("unsigned int"));
        assert_eq!(shared_type(&src, "hs").as_deref(), Some("__half"));
        assert_eq!(pointee_type(&src, "a").as_deref(), Some("int"));
        assert_eq!(pointee_type(&src, "u").as_deref(), Some("unsigned int"));
        assert_eq!(zero("float4"), "make_float4(0.f, 0.f, 0.f, 0.f)");
        assert_eq!(zero("__half"), "__float2half(0.f)");
        assert_eq!(zero("int"), "0");
    }

    #[test]
    fn the_neutral_value_follows_the_reads() {
        // A sum: 0 in the type.
        let sum = Source::new(
            "__global__ void k(int* o) {\n    __shared__ int part[8];\n    o[0] = part[0] + part[1];\n}\n",
        );
        assert_eq!(neutral(&sum, "part", Some(3)), "0");
        // A maximum: the lowest float.
        let mx = Source::new(
            "__global__ void k(float* o) {\n    __shared__ float red[8];\n    o[0] = fmaxf(red[0], red[1]);\n}\n",
        );
        assert!(neutral(&mx, "red", Some(3)).starts_with("-FLT_MAX"));
        // A sort: values read out and compared with each other sort the padding last.
        let sort = Source::new(
            "__global__ void k(int* o) {\n    __shared__ int v[8];\n    int a = v[1];\n    int b = v[2];\n    if (a > b) { v[1] = b; v[2] = a; }\n}\n",
        );
        assert!(neutral(&sort, "v", Some(3)).starts_with("INT_MAX"));
        // A shift of what was read is no comparison.
        let shifted = Source::new(
            "__global__ void k(int* o) {\n    __shared__ int w[8];\n    int a = w[1];\n    int b = w[2];\n    o[0] = (a << 2) + (b >> 1);\n}\n",
        );
        assert_eq!(neutral(&shifted, "w", Some(3)), "0");
    }
}
