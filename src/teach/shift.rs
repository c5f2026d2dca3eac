//! An exponent shifted in the sum but not in the output: the sum takes `expf(x[c] - m)`, the
//! store takes `expf(x[c])`, so the two no longer match (and `expf` of a large score is inf).
//! Said where the source shows both: a line that adds `expf(A - M)` into a sum, and a line that
//! stores to the output (or a pointer into it) with `expf(A)`, the same argument unshifted.
//! Checked before the output's pattern, which is often an inf or a NaN here.

use super::source::{closing, find_word, Source};

/// The help for output `name`, or `None` when the source does not show the mismatch.
pub fn explain(src: &Source, name: &str) -> Option<String> {
    // Shifted exponents added into a sum: (line, argument, shift).
    let mut shifted = Vec::new();
    for l in 1..=src.lines() {
        let code = src.line(l);
        if !code.contains("+=") {
            continue;
        }
        for arg in exp_args(code) {
            if let Some((a, m)) = arg.rsplit_once(" - ") {
                shifted.push((l, a.trim().to_string(), m.trim().to_string()));
            }
        }
    }
    // The names that store to the output: itself, and pointers set from it.
    let mut outs = vec![name.to_string()];
    for l in 1..=src.lines() {
        let code = src.line(l);
        if let Some((lhs, rhs)) = code.split_once('=') {
            let alias = lhs
                .trim()
                .trim_start_matches('*')
                .split(['*', ' '])
                .next_back();
            if lhs.contains('*') && find_word(rhs, name).is_some() {
                if let Some(a) = alias.filter(|a| !a.is_empty()) {
                    outs.push(a.to_string());
                }
            }
        }
    }
    for l in 1..=src.lines() {
        let code = src.line(l);
        // The store's target: what stands before the line's last assignment (after any
        // loop header: `for (int j = 0; ...) dst[j] = ...`).
        let Some(at) = last_assign(code) else {
            continue;
        };
        let lhs = code[..at].rsplit(';').next().unwrap_or("");
        if !outs.iter().any(|o| lhs.contains(&format!("{o}["))) {
            continue;
        }
        for arg in exp_args(code) {
            let arg = arg.trim();
            let Some((sum_line, a, m)) = shifted.iter().find(|(_, a, _)| a == arg) else {
                continue;
            };
            return Some(format!(
                "Line {l} (`{}`) takes `expf({arg})`, where the sum on line {sum_line} takes `expf({a} - {m})`: the output must use the same shifted exponent, `expf({a} - {m})` (unshifted, it no longer matches the sum, and `expf` of a score above 88 is inf).",
                code.trim()
            ));
        }
    }
    None
}

/// The byte index of the last plain `=` on a line (not `==`, `<=`, `>=`, `!=`).
fn last_assign(code: &str) -> Option<usize> {
    let b = code.as_bytes();
    (0..b.len()).rev().find(|&k| {
        b[k] == b'='
            && !matches!(b.get(k + 1), Some(b'='))
            && !matches!(
                k.checked_sub(1).map(|p| b[p]),
                Some(b'=' | b'<' | b'>' | b'!')
            )
    })
}

/// The arguments of every `expf(...)` (and `__expf`, `exp`) call on a line.
fn exp_args(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for f in ["expf(", "exp("] {
        for (at, _) in code.match_indices(f) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric()) {
                continue;
            }
            let open = at + f.len() - 1;
            if let Some(close) = closing(code, open) {
                out.push(code[open + 1..close].to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS: &str = "__global__ void sm(float* probs, const float* logits, int n) {\n    const float* row = logits + blockIdx.x * n;\n    float* dst = probs + blockIdx.x * n;\n    float top = row[0];\n    for (int j = 1; j < n; j++) top = fmaxf(top, row[j]);\n    float z = 0.0f;\n    for (int j = 0; j < n; j++) z += __expf(row[j] - top);\n    for (int j = 0; j < n; j++) dst[j] = __expf(row[j]) / z;\n}\n";

    #[test]
    fn an_output_exponent_without_the_sums_shift_is_named() {
        // Another shape: one thread per row, `__expf`, the output through a pointer.
        let src = Source::preprocessed(ROWS, &[]);
        let h = explain(&src, "probs").unwrap_or_default();
        assert!(
            h.contains("Line 8 (`for (int j = 0; j < n; j++) dst[j] = __expf(row[j]) / z;`) takes `expf(row[j])`, where the sum on line 7 takes `expf(row[j] - top)`")
                && h.contains("`expf(row[j] - top)`"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_output_uses_the_shift_too() {
        let same = ROWS.replace("__expf(row[j]) / z", "__expf(row[j] - top) / z");
        let src = Source::preprocessed(&same, &[]);
        assert_eq!(explain(&src, "probs"), None);
    }
}
