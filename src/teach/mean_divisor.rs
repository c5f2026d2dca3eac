//! A mean divided by the number of threads instead of the number of elements: the threads
//! walk a row with `for (c = threadIdx.x; c < cols; c += TPB)`, the partial sums are combined,
//! and the total is divided by `TPB`. The row has `cols` elements, so the mean (and a variance
//! taken the same way) is off whenever `cols != TPB`. Said where the source shows a loop that
//! steps by `D` up to another bound `B` and a later line of the same function that divides by
//! `D`, and the test's values make `B` and `D` differ. The fix divides by `B`.

use super::eval::{canonical, eval};
use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let env = w.env();
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let Some(step) = head.step.as_deref() else {
            continue;
        };
        let Some((v, d)) = step.split_once("+=") else {
            continue;
        };
        let (v, d) = (v.trim(), d.trim());
        let cond = canonical(&head.cond);
        let Some(b) = cond.strip_prefix(&format!("{v}<")) else {
            continue;
        };
        if b.starts_with('=') || b == canonical(d) {
            continue;
        }
        let (Some(bv), Some(dv)) = (eval(b, &env), eval(d, &env)) else {
            continue;
        };
        if bv == dv {
            continue;
        }
        // A later line of the same function that divides by `d`.
        let f = src.function_of(h);
        let end = *src.loop_body(h).collect::<Vec<_>>().last()?;
        let div = (end + 1..=src.lines())
            .take_while(|&l| src.function_of(l) == f)
            .find(|&l| {
                let c = canonical(src.line(l));
                let c = c.trim_end_matches(';');
                c.ends_with(&format!("/{}", canonical(d))) && c.contains('=')
            });
        let Some(l) = div else {
            continue;
        };
        let bound = head.cond.split_once('<').map_or(b, |x| x.1).trim();
        let code = src.line(l).trim();
        let fixed = code
            .rfind('/')
            .map(|at| format!("{}/ {bound};", &code[..at]))
            .unwrap_or_default();
        return Some(format!(
            "Line {l} (`{code}`) divides by `{d}`, the number of threads that share the work, but the loop on line {h} runs over `{bound}` elements (`{}`): a mean is the sum over `{bound}` divided by `{bound}`. Divide by `{bound}`: `{fixed}`",
            head.cond.trim()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: a column mean with `blockDim.x`, `rows`, one tree inline.
    const MEAN: &str = "__global__ void colmean(float* m, const float* a, int rows) {\n    __shared__ float p[32];\n    float s = 0.0f;\n    for (int r = threadIdx.x; r < rows; r += blockDim.x) s += a[r];\n    p[threadIdx.x] = s;\n    __syncthreads();\n    if (threadIdx.x == 0) {\n        float t = 0.0f;\n        for (int k = 0; k < 32; k++) t += p[k];\n        m[0] = t / blockDim.x;\n    }\n}\n";

    fn run(src: &str, rows: i64) -> Option<String> {
        let mut sc = scene(src, [1, 1, 1], [32, 1, 1]);
        sc.values = vec![("rows".into(), rows)];
        said(explain, &sc, "m", &[1.0], &[2.0])
    }

    #[test]
    fn a_mean_over_the_threads_gets_the_element_count() {
        let h = run(MEAN, 100).unwrap_or_default();
        assert!(
            h.contains("Line 10 (`m[0] = t / blockDim.x;`) divides by `blockDim.x`")
                && h.contains("Divide by `rows`: `m[0] = t / rows;`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_the_right_divisor_or_equal_counts() {
        assert_eq!(run(&MEAN.replace("t / blockDim.x", "t / rows"), 100), None);
        // As many elements as threads: the division is right for this test.
        assert_eq!(run(MEAN, 32), None);
    }
}
