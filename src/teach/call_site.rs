//! Where a diagnostic's line is inside one of the learner's `__device__` helpers, the
//! addresses it touches come from the calls: the help names the helper and the lines that call
//! it, so a learner whose mistake is an argument (`fetch(tile[s % 2], ...)`, `&sw[lane % 16]`)
//! looks there too. Facts only: said for bounds and async-copy diagnostics (an address), where
//! the source shows the helper and at least one call of it; silent in a kernel's own body.

use super::source::Source;

/// The sentence to add to a help about line `line`, or `None`.
pub fn note(src: &Source, line: u32, values: &[(String, i64)]) -> Option<String> {
    let (start, kernel) = src.function_of(line)?;
    if kernel {
        return None;
    }
    let name = src.function_name(start)?;
    let calls = src.calls_of(&name);
    let list: Vec<String> = calls.iter().map(u32::to_string).collect();
    let (word, lines) = match list.as_slice() {
        [] => return None,
        [one] => ("line", one.clone()),
        more => ("lines", more.join(", ")),
    };
    let wrap = calls.iter().find_map(|&c| row_wrap(src, c, values));
    let tail = match wrap {
        Some(w) => format!(" {w}"),
        None => " so check what each call passes.".to_string(),
    };
    Some(format!(
        " Line {line} is inside `{name}`, called on {word} {lines}: the address it uses comes from the arguments there,{tail}"
    ))
}

/// A call argument `&arr[E % K]...` whose wrap `K` is larger than `arr`'s first dimension `D`
/// (`&sw[lane % 16]` on an 8-row tile): rows `D` to `K - 1` are past the array; `E % D` keeps
/// the row inside.
fn row_wrap(src: &Source, call: u32, values: &[(String, i64)]) -> Option<String> {
    let code = src.line(call);
    let mut env = super::eval::Env::default();
    for (n, v) in values {
        env.set(n.clone(), *v);
    }
    for (arr, dims) in src.shared_arrays() {
        let Some(d0) = dims.first().and_then(|d| super::eval::eval(d, &env)) else {
            continue;
        };
        for sub in super::source::subscripts_in(code, &arr) {
            let Some(first) = sub.first() else {
                continue;
            };
            let Some((e, k)) = first.rsplit_once('%') else {
                continue;
            };
            let Some(kv) = super::eval::eval(k.trim(), &env) else {
                continue;
            };
            if kv > d0 && d0 > 0 {
                return Some(format!(
                    "and on line {call} the row `{}` of `{arr}` runs to {} while `{arr}` has {d0} rows: wrap by its row count, `{} % {}`.",
                    first.trim(),
                    kv - 1,
                    e.trim(),
                    dims[0].trim()
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "__device__ void put(float* dst, int k) {\n    dst[k] = 1.0f;\n}\n__global__ void k(float* o) {\n    __shared__ float s[8];\n    put(s, threadIdx.x + 8);\n    o[threadIdx.x] = s[0];\n}\n";

    #[test]
    fn a_line_inside_a_helper_names_its_calls() {
        let n = note(&Source::new(SRC), 2, &[]).unwrap_or_default();
        assert!(
            n.contains("Line 2 is inside `put`, called on line 6")
                && n.contains("check what each call passes"),
            "{n}"
        );
        // A row wrapped by more rows than the array has: the wrap by its row count.
        let wrapped = "__device__ void ld(const float* row) { float x = row[0]; }\n__global__ void k(float* o) {\n    __shared__ float t[R][32];\n    ld(&t[threadIdx.x % 8][0]);\n}\n";
        let n = note(&Source::new(wrapped), 1, &[("R".into(), 4)]).unwrap_or_default();
        assert!(
            n.contains("on line 4 the row `threadIdx.x % 8` of `t` runs to 7 while `t` has 4 rows: wrap by its row count, `threadIdx.x % R`"),
            "{n}"
        );
        // A wrap within the rows is not this.
        let n = note(&Source::new(wrapped), 1, &[("R".into(), 8)]).unwrap_or_default();
        assert!(!n.contains("wrap by"), "{n}");
    }

    #[test]
    fn silent_in_the_kernel_or_for_a_helper_never_called() {
        assert_eq!(note(&Source::new(SRC), 7, &[]), None);
        let uncalled = SRC.replace("    put(s, threadIdx.x + 8);\n", "");
        assert_eq!(note(&Source::new(&uncalled), 2, &[]), None);
    }
}
