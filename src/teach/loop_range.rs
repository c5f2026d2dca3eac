//! A loop that sums elements and drops one end: `for (c = 0; c < cols - 1; c++) sum +=
//! a[row * cols + c]` (or `c <= cols - 2`) never adds the last element, `for (c = 1; ...)` after `sum = 0` never
//! the first. Said only where the body reads at the loop variable itself (no `c + 1` or
//! `c - 1` that would make the shorter range right) into an accumulator (`+=`), and, for the
//! start, where the accumulator starts from a literal rather than from the first element.

use super::eval::{canonical, split_top};
use super::wrong::{indexed, literal, loop_body_code, reaches, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    for h in 1..=w.src.lines() {
        let Some(head) = w.src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let (Some(init), Some(step)) = (&head.init, &head.step) else {
            continue;
        };
        // `int c = START`, stepping by one.
        let Some((decl, start)) = init.split_once('=') else {
            continue;
        };
        let Some(v) = decl.split_whitespace().last().map(str::to_string) else {
            continue;
        };
        let st = canonical(step);
        if ![format!("{v}++"), format!("++{v}"), format!("{v}+=1")].contains(&st) {
            continue;
        }
        // Reads at `v` itself, summed into an accumulator.
        let body = loop_body_code(w.src, h);
        let mut read = None;
        for (l, code) in &body {
            let l = *l;
            let Some((lhs, rhs)) = code.split_once("+=") else {
                continue;
            };
            for (arr, sub) in indexed(rhs) {
                if super::eval::names(&sub).contains(&v) {
                    let acc = lhs.trim().trim_start_matches('{').trim().to_string();
                    read = Some((l, arr, sub, acc));
                }
            }
        }
        let Some((l, arr, sub, acc)) = read.filter(|r| reaches(w.src, w.name, &r.3)) else {
            continue;
        };
        // Every subscript at `v` with no offset: a `v + 1` or `v - 1` read makes the range right.
        let offset = body.iter().any(|(_, code)| {
            indexed(code)
                .iter()
                .any(|(_, s)| offset_of(&canonical(s), &v))
        });
        if offset {
            continue;
        }
        let at = format!("`{arr}[{sub}]`");
        let row = super::eval::row_major(&sub).is_some();
        let cond = canonical(&head.cond);
        // The end: `v < E - 1` (or `v <= E - 2`) stops before E - 1.
        let bound = cond
            .strip_prefix(&format!("{v}<"))
            .and_then(|b| match b.strip_prefix('=') {
                Some(inclusive) => inclusive.strip_suffix("-2"),
                None => b.strip_suffix("-1"),
            })
            .map(str::to_string);
        if let Some(e) = bound.filter(|e| !e.is_empty()) {
            let e = pretty(&head.cond, &e);
            let last = if row {
                "the last element of each row"
            } else {
                "the last element"
            };
            return Some(format!(
                "The loop on line {h} runs while `{}`: it stops before `{v}` = `{e} - 1`, so {last} ({at} with `{v}` = `{e} - 1`, line {l}) is never added to `{acc}`. The body reads at `{v}` itself, so `{v}` = `{e} - 1` is in bounds: loop while `{v} < {e}`.",
                head.cond.trim()
            ));
        }
        // The start: `v = 1` after `acc = 0`.
        let first = literal(start).filter(|s| *s >= 1.0);
        let acc_start = (w.src.function_of(h).map_or(1, |f| f.0)..h)
            .rev()
            .find_map(|p| {
                w.src.line(p).split(';').find_map(|s| {
                    let (lhs, rhs) = s.split_once('=')?;
                    (lhs.split_whitespace().last() == Some(acc.as_str()) && !rhs.starts_with('='))
                        .then(|| (p, rhs.trim().to_string()))
                })
            });
        if let (Some(k), Some((p, a0))) = (first, acc_start) {
            if literal(&a0).is_none() {
                continue;
            }
            let what = if row {
                "the first element of each row"
            } else {
                "the first element"
            };
            return Some(format!(
                "The loop on line {h} starts at `{v}` = {k}, and `{acc}` starts from {a0} (line {p}), not from an element: {what} ({at} with `{v}` = 0, line {l}) is never added. Start from 0: `{} = 0`.",
                decl.trim()
            ));
        }
    }
    None
}

/// Whether a subscript (without spaces) reads at an offset from `v`: `v+1`, `v-2`, or
/// backwards, `n-v` (a term after `v` that is another name, `k+r*cols`, is no offset).
fn offset_of(sub: &str, v: &str) -> bool {
    let b = sub.as_bytes();
    let word = |i: usize| i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    sub.match_indices(v).any(|(i, _)| {
        let after = &sub[i + v.len()..];
        let ends = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        let literal_after = (after.starts_with('+') || after.starts_with('-'))
            && after[1..].starts_with(|c: char| c.is_ascii_digit());
        word(i) && ends && (literal_after || (i > 0 && b[i - 1] == b'-'))
    })
}

/// The bound `e` as the learner spaced it in `cond` (`cols` from `c<cols-1`).
fn pretty(cond: &str, e: &str) -> String {
    split_top(cond, '<')
        .last()
        .map(|b| b.trim().trim_start_matches('='))
        .and_then(|b| b.trim().rsplit_once('-'))
        .map(|(x, _)| x.trim().to_string())
        .filter(|x| canonical(x) == e)
        .unwrap_or_else(|| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn a_bound_that_drops_the_last_element_is_named() {
        // Another shape: a column sum over rows, other names, `n - 1` as the bound.
        let src = "__global__ void colsum(float* totals, const float* m, int n, int w) {\n    int x = blockIdx.x * blockDim.x + threadIdx.x;\n    float acc = 0.0f;\n    for (int r = 0; r < n - 1; ++r) {\n        acc += m[r * w + x];\n    }\n    totals[x] = acc;\n}\n";
        let sc = scene(src, [1, 1, 1], [8, 1, 1]);
        let h = said(explain, &sc, "totals", &[4.0, 6.0], &[1.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("runs while `r < n - 1`")
                && h.contains("loop while `r < n`")
                && h.contains("never added to `acc`"),
            "{h}"
        );
    }

    #[test]
    fn an_offset_is_a_literal_next_to_the_loop_variable() {
        assert!(offset_of("c+1", "c"));
        assert!(offset_of("row*cols+c-1", "c"));
        assert!(offset_of("n-c", "c"));
        assert!(!offset_of("k+r*cols", "k"));
        assert!(!offset_of("row*cols+c", "c"));
        assert!(!offset_of("cc+1", "c"));
    }

    #[test]
    fn an_inclusive_bound_two_short_is_named_too() {
        let src = "__global__ void rs(float* o, const float* m, int w) {\n    float t = 0.0f;\n    for (int j = 0; j <= w - 2; j++) t += m[blockIdx.x * w + j];\n    o[blockIdx.x] = t;\n}\n";
        let sc = scene(src, [2, 1, 1], [1, 1, 1]);
        let h = said(explain, &sc, "o", &[4.0, 6.0], &[1.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("runs while `j <= w - 2`") && h.contains("loop while `j < w`"),
            "{h}"
        );
        // `j <= w - 1` covers every element.
        let all = src.replace("j <= w - 2", "j <= w - 1");
        let sc = scene(&all, [2, 1, 1], [1, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[4.0, 6.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn a_start_that_drops_the_first_element_is_named() {
        let src = "__global__ void dot(float* res, const float* u, const float* v, int len) {\n    float s = 0;\n    for (int k = 1; k < len; k++)\n        s += u[k] * v[k];\n    res[0] = s;\n}\n";
        let sc = scene(src, [1, 1, 1], [1, 1, 1]);
        let h = said(explain, &sc, "res", &[10.0], &[7.0]).unwrap_or_default();
        assert!(
            h.contains("starts at `k` = 1") && h.contains("`int k = 0`"),
            "{h}"
        );
    }

    #[test]
    fn ranges_that_are_right_for_their_body_stay_silent() {
        // A maximum seeded with the first element: starting at 1 is right.
        let src = "__global__ void top(float* out, const float* a, int n) {\n    float best = a[0];\n    for (int k = 1; k < n; k++) best += a[k] > best ? a[k] - best : 0.0f;\n    out[0] = best;\n}\n";
        let sc = scene(src, [1, 1, 1], [1, 1, 1]);
        assert_eq!(said(explain, &sc, "out", &[3.0], &[2.0]), None);
        // A difference of neighbours: `c < cols - 1` is right where the body reads `c + 1`.
        let src = "__global__ void diff(float* d, const float* a, int cols) {\n    float s = 0.0f;\n    for (int c = 0; c < cols - 1; c++) s += a[c + 1] - a[c];\n    d[0] = s;\n}\n";
        let sc = scene(src, [1, 1, 1], [1, 1, 1]);
        assert_eq!(said(explain, &sc, "d", &[3.0], &[2.0]), None);
    }
}
