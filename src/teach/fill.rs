//! A shared array padded with a value that is not neutral for what reads it: `s[t] = i < n ?
//! a[i] : 0` before a maximum, a minimum or a sort, where 0 is a real value that wins (a block
//! of negative numbers gets 0 as its maximum; zeros sort in among the real values). Said only
//! where the padding's literal is not the neutral value of the array's reads
//! (`padding::neutral`) and every wrong element of the output holds exactly that literal.

use super::padding;
use super::source::uses_in;
use super::wrong::{literal, statements, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let shared = w.src.shared_names();
    for (l, stmt) in statements(w.src) {
        let Some((lhs, rhs)) = stmt.split_once('=') else {
            continue;
        };
        if rhs.starts_with('=') || lhs.ends_with(['<', '>', '!', '+', '-', '*', '/']) {
            continue;
        }
        let Some(s) = shared.iter().find(|s| {
            let u = uses_in(&stmt, s);
            u.first()
                .is_some_and(|u| u.write && !u.update && u.end <= lhs.len())
        }) else {
            continue;
        };
        // `cond ? value : FILL` at the top level of the right-hand side, or a plain `FILL`
        // (the `else` of an `if`, or a default stored before the data).
        let (cond, fill_text) = match super::eval::split_top(rhs, '?').as_slice() {
            [c, r] => match super::eval::split_top(r, ':').as_slice() {
                [_, f] => (Some(c.trim().to_string()), f.trim().to_string()),
                _ => continue,
            },
            [plain] => (None, plain.trim().to_string()),
            _ => continue,
        };
        let Some(fill) = literal(&fill_text) else {
            continue;
        };
        // Every wrong element holds the padding: it came through to the output.
        if !w
            .mismatches
            .iter()
            .all(|&i| w.got.get(i).is_some_and(|g| *g == fill))
        {
            continue;
        }
        // The line that reads the array and takes a maximum or a minimum of it, else the first
        // read after the fill.
        let reads: Vec<u32> = (l + 1..=w.src.lines())
            .filter(|&r| uses_in(w.src.line(r), s).iter().any(|u| !u.write))
            .collect();
        let takes = |r: &u32, f: &[&str]| {
            let code = w.src.line(*r);
            f.iter().any(|f| code.contains(&format!("{f}(")))
        };
        let extreme = ["fmaxf", "fmax", "max", "fminf", "fmin", "min"];
        let read = reads
            .iter()
            .copied()
            .find(|r| takes(r, &extreme))
            .or(reads.first().copied());
        let neutral = padding::neutral(w.src, s, read);
        let ty = padding::shared_type(w.src, s).unwrap_or_else(|| "float".to_string());
        if neutral == padding::zero(&ty) || literal(&neutral) == Some(fill) {
            continue;
        }
        // A maximum's padding wins only over smaller values, a minimum's over larger ones.
        let wins = |larger: bool| {
            w.mismatches.iter().all(|&i| {
                w.expected
                    .get(i)
                    .is_some_and(|e| if larger { *e < fill } else { *e > fill })
            })
        };
        let (what, side) = match read {
            Some(r) if takes(&r, &["fmaxf", "fmax", "max"]) && !wins(true) => continue,
            Some(r) if takes(&r, &["fminf", "fmin", "min"]) && !wins(false) => continue,
            Some(r) if takes(&r, &["fmaxf", "fmax", "max"]) => (
                format!("the maximum on line {r}"),
                "smaller than every real value, so it never wins",
            ),
            Some(r) if takes(&r, &["fminf", "fmin", "min"]) => (
                format!("the minimum on line {r}"),
                "larger than every real value, so it never wins",
            ),
            _ => (
                "the comparisons that order the values".to_string(),
                "one that sorts past every real value (the largest value for an ascending order), so it is never among the elements written",
            ),
        };
        let value = neutral.split(" (").next().unwrap_or(&neutral).to_string();
        let lhs = lhs.trim().trim_start_matches("else").trim();
        let (whom, fix) = match &cond {
            Some(c) => (
                format!("for the threads that fail `{c}`"),
                format!("`{lhs} = {c} ? ... : {value};`"),
            ),
            None => (
                "for the slots past the data".to_string(),
                format!("`{lhs} = {value};`"),
            ),
        };
        return Some(format!(
            "Every wrong element of `{}` is {fill_text}, the padding line {l} stores in `{lhs}` {whom}: it takes part in {what} like a real value, and wins over real values that it should not. A padding must be neutral, a value that never changes the result: {neutral}, {side} ({fix}).",
            w.name
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn a_zero_padding_before_a_minimum_or_a_sort_is_named() {
        // Another shape than the puzzles': a minimum over a window, with fminf, other names.
        let src = "__global__ void lows(float* least, const float* v, int len) {\n    __shared__ float win[128];\n    int g = blockIdx.x * 128 + threadIdx.x;\n    win[threadIdx.x] = (g < len) ? v[g] : 0.0f;\n    __syncthreads();\n    if (threadIdx.x == 0) {\n        float m = win[0];\n        for (int k = 1; k < 128; k++) m = fminf(m, win[k]);\n        least[blockIdx.x] = m;\n    }\n}\n";
        let sc = scene(src, [2, 1, 1], [128, 1, 1]);
        let h = said(explain, &sc, "least", &[1.0, 3.0], &[1.0, 0.0]).unwrap_or_default();
        assert!(
            h.contains("Every wrong element of `least` is 0.0f")
                && h.contains("the minimum on line 8")
                && h.contains("FLT_MAX")
                && h.contains("fail `(g < len)`"),
            "{h}"
        );
        // An int sort by compare-and-swap, padded with -1 (a real value sorts below it).
        let src = "__global__ void order(int* res, const int* keys, int count) {\n    __shared__ int box[64];\n    int p = threadIdx.x;\n    box[p] = p < count ? keys[p] : -1;\n    __syncthreads();\n    int lo = box[p];\n    int hi = box[p ^ 1];\n    if (lo > hi) box[p] = hi;\n    if (p < count) res[p] = box[p];\n}\n";
        let sc = scene(src, [1, 1, 1], [64, 1, 1]);
        let h = said(explain, &sc, "res", &[4.0, 5.0, 6.0], &[-1.0, 5.0, -1.0]).unwrap_or_default();
        assert!(h.contains("INT_MAX") && h.contains("is -1"), "{h}");
    }

    #[test]
    fn a_padding_in_an_else_is_named_too() {
        // An int maximum whose padding is stored in the `else` of an `if`.
        let src = "__global__ void hi(int* res, const int* v, int len) {\n    __shared__ int m[32];\n    int k = threadIdx.x;\n    if (k < len) m[k] = v[k];\n    else m[k] = -1;\n    __syncthreads();\n    if (k == 0) { int b = m[0]; for (int j = 1; j < 32; j++) b = max(b, m[j]); res[0] = b; }\n}\n";
        let sc = scene(src, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "res", &[-4.0], &[-1.0]).unwrap_or_default();
        assert!(
            h.contains("is -1, the padding line 5 stores in `m[k]` for the slots past the data")
                && h.contains("INT_MIN")
                && h.contains("`m[k] = INT_MIN;`"),
            "{h}"
        );
    }

    #[test]
    fn a_zero_padding_of_a_sum_or_wrong_values_that_are_not_the_padding_stay_silent() {
        // A sum: 0 is its neutral value.
        let src = "__global__ void tot(float* out, const float* a, int n) {\n    __shared__ float c[64];\n    int i = threadIdx.x;\n    c[i] = i < n ? a[i] : 0.0f;\n    __syncthreads();\n    if (i == 0) { float s = 0.0f; for (int k = 0; k < 64; k++) s += c[k]; out[0] = s; }\n}\n";
        let sc = scene(src, [1, 1, 1], [64, 1, 1]);
        assert_eq!(said(explain, &sc, "out", &[5.0], &[0.0]), None);
        // A maximum whose wrong elements do not hold the padding: another cause.
        let src = src.replace("s += c[k]", "s = fmaxf(s, c[k])");
        let sc = scene(&src, [1, 1, 1], [64, 1, 1]);
        assert_eq!(said(explain, &sc, "out", &[-5.0], &[-7.0]), None);
        assert!(said(explain, &sc, "out", &[-5.0], &[0.0]).is_some());
    }
}
