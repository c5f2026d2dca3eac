//! A call that passes the same name twice where another call of the same function in the kernel
//! passes two different ones at those places: `__dp4a(x, x, 0)` beside `__dp4a(x, y, 0)`, a
//! slip of the finger. Said where the source shows both calls; the sibling call is the evidence
//! that two different values belong there.

use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let calls: Vec<(u32, String, Vec<String>)> = (1..=src.lines())
        .flat_map(|l| {
            calls_on(src.line(l))
                .into_iter()
                .map(move |(f, a)| (l, f, a))
        })
        .collect();
    for (l, f, args) in &calls {
        for i in 0..args.len() {
            for j in i + 1..args.len() {
                let same = &args[i];
                if args[j] != *same || !plain(same) {
                    continue;
                }
                // A sibling call of `f` with two different names at `i` and `j`.
                let Some((m, sib)) = calls.iter().find_map(|(m, g, b)| {
                    (g == f
                        && b.len() == args.len()
                        && plain(&b[i])
                        && plain(&b[j])
                        && b[i] != b[j])
                        .then_some((m, b))
                }) else {
                    continue;
                };
                return Some(format!(
                    "Line {l} calls `{f}({})` with `{same}` twice, where line {m} calls `{f}({})` with `{}` and `{}` there: check that line {l} passes the two values it means.",
                    args.join(", "),
                    sib.join(", "),
                    sib[i],
                    sib[j]
                ));
            }
        }
    }
    None
}

/// A plain name (not a literal, not an expression).
fn plain(a: &str) -> bool {
    !a.is_empty()
        && a.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !a.starts_with(|c: char| c.is_ascii_digit())
}

/// The calls on a line with at least two arguments: the function's name and its arguments.
fn calls_on(code: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices('(') {
        let name: String = code[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if name.is_empty()
            || ["if", "for", "while", "switch", "return", "sizeof"].contains(&name.as_str())
        {
            continue;
        }
        let Some(close) = super::source::closing(code, at) else {
            continue;
        };
        let args: Vec<String> = super::eval::split_top(&code[at + 1..close], ',')
            .iter()
            .map(|a| a.trim().to_string())
            .collect();
        if args.len() >= 2 {
            out.push((name, args));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const PAIRS: &str = "__global__ void mix(float* out, const float* p, const float* q, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float u = p[i];\n    float v = q[i];\n    float head = fmaf(u, v, 1.0f);\n    float tail = fmaf(u, u, 2.0f);\n    out[i] = head + tail;\n}\n";

    #[test]
    fn a_call_with_one_name_twice_beside_a_sibling_with_two_is_named() {
        // Another shape: `fmaf`, the slip on the second call.
        let sc = scene(PAIRS, [1, 1, 1], [4, 1, 1]);
        let h = said(explain, &sc, "out", &[1.0, 2.0], &[1.5, 2.0]).unwrap_or_default();
        assert!(
            h.contains("Line 6 calls `fmaf(u, u, 2.0f)` with `u` twice, where line 5 calls `fmaf(u, v, 1.0f)` with `u` and `v` there"),
            "{h}"
        );
    }

    #[test]
    fn silent_without_a_sibling_call_that_passes_two_names() {
        // A square on purpose: no other call of fmaf passes two different names.
        let alone = PAIRS.replace("fmaf(u, v, 1.0f)", "u * v + 1.0f");
        let sc = scene(&alone, [1, 1, 1], [4, 1, 1]);
        assert_eq!(said(explain, &sc, "out", &[1.0, 2.0], &[1.5, 2.0]), None);
    }
}
