//! A loop over whole steps that stops one step early: `for (k0 = 0; k0 + 16 < K; k0 += 16)`
//! never runs the step that starts at `K - 16`, the last 16 columns, whenever K is a multiple
//! of 16 (and drops a partial last step otherwise). Said where the source shows it: the
//! condition adds the loop's own step to its variable and compares with `<`, the body uses
//! the variable, and with the test's values the skipped step is real (`K >= step`). The fix is
//! `k0 < K` (the body pads a partial step) or `k0 + 16 <= K` (whole steps only).

use super::eval::{canonical, eval};
use super::source::find_word;
use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let env = w.env();
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let Some(step) = head.step.as_deref().map(canonical) else {
            continue;
        };
        // `v += S`
        let Some((v, s)) = step.split_once("+=") else {
            continue;
        };
        // `v + S < B` (or `S + v < B`), with the same S as the step.
        let cond = canonical(&head.cond);
        let Some((lhs, bound)) = cond.split_once('<') else {
            continue;
        };
        if bound.starts_with('=') || bound.is_empty() {
            continue;
        }
        if lhs != format!("{v}+{s}") && lhs != format!("{s}+{v}") {
            continue;
        }
        // The test's values: a step is skipped only where the bound reaches a whole step.
        let (Some(sv), Some(bv)) = (eval(s, &env), eval(bound, &env)) else {
            continue;
        };
        if sv <= 0 || bv < sv {
            continue;
        }
        let uses = src
            .loop_body(h)
            .filter(|&l| l != h)
            .any(|l| find_word(src.line(l), v).is_some());
        if !uses {
            continue;
        }
        let pretty_s = head
            .step
            .as_deref()
            .and_then(|t| t.split_once("+=").map(|(_, r)| r.trim().to_string()))
            .unwrap_or_else(|| s.to_string());
        let pretty_b = head
            .cond
            .split_once('<')
            .map(|(_, r)| r.trim().to_string())
            .unwrap_or_else(|| bound.to_string());
        return Some(format!(
            "The loop on line {h} runs while `{}`: the step that starts at `{v}` = `{pretty_b} - {pretty_s}` (the last {pretty_s}) never runs, since there `{v} + {pretty_s}` equals `{pretty_b}`. Loop while `{v} < {pretty_b}` (with the part past the end padded, as the loads do), or `{v} + {pretty_s} <= {pretty_b}` where only whole steps exist.",
            head.cond.trim()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: a 1D sum over chunks of 8 with `base` and `n`.
    const CHUNKS: &str = "#define CH 8\n__global__ void chunks(float* total, const float* x, int n) {\n    float acc = 0.0f;\n    for (int base = 0; base + CH < n; base += CH) {\n        for (int j = 0; j < CH; j++) acc += x[base + j];\n    }\n    total[0] = acc;\n}\n";

    fn with_n(src: &str, n: i64) -> Option<String> {
        let mut sc = scene(src, [1, 1, 1], [1, 1, 1]);
        sc.values = vec![("n".into(), n)];
        said(explain, &sc, "total", &[10.0], &[6.0])
    }

    #[test]
    fn a_chunk_loop_stopping_one_chunk_early_is_named() {
        let h = with_n(CHUNKS, 32).unwrap_or_default();
        assert!(
            h.contains("The loop on line 4 runs while `base + CH < n`")
                && h.contains("`base` = `n - CH`")
                && h.contains("`base < n`")
                && h.contains("`base + CH <= n`"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_loop_is_right_or_no_step_is_skipped() {
        // `<=` runs every whole chunk.
        assert_eq!(
            with_n(&CHUNKS.replace("base + CH < n", "base + CH <= n"), 32),
            None
        );
        // `base < n` runs them all.
        assert_eq!(
            with_n(&CHUNKS.replace("base + CH < n", "base < n"), 32),
            None
        );
        // Fewer elements than one chunk: nothing is skipped.
        assert_eq!(with_n(CHUNKS, 5), None);
        // A condition on another step than the loop's own (a window of 2 stepping by 8).
        assert_eq!(
            with_n(&CHUNKS.replace("base + CH < n", "base + 2 < n"), 32),
            None
        );
    }
}
