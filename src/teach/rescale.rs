//! A running sum left out of a rescale: a pass of a loop multiplies some running values by a
//! factor (`acc[d].x *= c;`, online softmax's `expf(m - m_new)`), while another running sum
//! the same loop adds to (`l += p;`) is never multiplied by it, and the output combines the two
//! (`acc[d].x / l`). Said where the source shows each part: the scaling line, the factor set
//! in the loop, the sum declared before the loop and added to inside it, no scaling of the sum
//! by the factor anywhere in the loop, and a line that uses both.

use super::source::find_word;
use super::wrong::{in_loop, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    for l in 1..=src.lines() {
        let code = src.line(l).trim();
        // `A *= F;` with F a plain name.
        let Some((target, factor)) = code.split_once("*=") else {
            continue;
        };
        let factor = factor.trim().trim_end_matches(';').trim();
        if factor.is_empty() || !factor.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let target = target.trim();
        let base: String = target
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if base.is_empty() {
            continue;
        }
        // The loops around the scaling, innermost first.
        let mut loops = Vec::new();
        let mut at = l;
        while let Some(h) = in_loop(src, at) {
            loops.push(h);
            at = h;
        }
        for &h in &loops {
            let body: Vec<u32> = src.loop_body(h).collect();
            // The factor is set in this loop (a fresh factor each pass).
            if !super::seen::assigning_lines(src, l, factor)
                .iter()
                .any(|a| body.contains(a))
            {
                continue;
            }
            for &b in &body {
                let Some(sum) = accumulated(src.line(b)) else {
                    continue;
                };
                if sum == base || sum == factor {
                    continue;
                }
                // Declared before the loop: it runs across the passes.
                if !super::seen::assigning_lines(src, h, &sum)
                    .iter()
                    .any(|&a| a < h)
                {
                    continue;
                }
                let scaled = body.iter().any(|&x| {
                    let t = src.line(x);
                    find_word(t, &sum).is_some()
                        && find_word(t, factor).is_some()
                        && (t.contains("*=") || t.contains('*'))
                });
                if scaled {
                    continue;
                }
                // A line that uses both (the output `acc[d].x / l`).
                let Some(both) = (1..=src.lines()).find(|&u| {
                    let t = src.line(u);
                    u != b
                        && find_word(t, &sum).is_some()
                        && find_word(t, &base).is_some()
                        && !t.contains("*=")
                }) else {
                    continue;
                };
                let set = super::seen::assigning_lines(src, l, factor)
                    .into_iter()
                    .rfind(|a| body.contains(a))?;
                return Some(format!(
                    "Line {l} rescales `{target}` by `{factor}` (set on line {set}, `{}`) in every pass of the loop on line {h}, but the running sum `{sum}`, which line {b} adds to in the same pass and line {both} uses with `{base}`, is never rescaled: what it summed before is still against the old scale. Multiply it by `{factor}` too (`{sum} *= {factor};` beside line {l}).",
                    src.line(set).trim()
                ));
            }
        }
    }
    None
}

/// The plain name a line adds to (`l += p;`, `sum += v[k];`), if any.
fn accumulated(code: &str) -> Option<String> {
    let (lhs, _) = code.trim().split_once("+=")?;
    let name = lhs.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const WEIGHTED: &str = "__global__ void wmean(float* res, const float* v, const float* s, int n) {\n    int r = threadIdx.x;\n    float best = -1e30f;\n    float num = 0.0f;\n    float den = 0.0f;\n    for (int j = 0; j < n; j++) {\n        float x = s[r * n + j];\n        float nb = fmaxf(best, x);\n        float k = expf(best - nb);\n        num *= k;\n        float e = expf(x - nb);\n        num += e * v[r * n + j];\n        den += e;\n        best = nb;\n    }\n    res[r] = num / den;\n}\n";

    #[test]
    fn a_running_sum_left_out_of_the_rescale_is_named() {
        // Another shape: a softmax-weighted mean, one loop, the numerator rescaled alone.
        let sc = scene(WEIGHTED, [1, 1, 1], [4, 1, 1]);
        let h = said(explain, &sc, "res", &[1.0, 2.0], &[0.5, 2.0]).unwrap_or_default();
        for part in [
            "Line 10 rescales `num` by `k` (set on line 9, `float k = expf(best - nb);`)",
            "the running sum `den`, which line 13 adds to",
            "line 16 uses with `num`",
            "`den *= k;`",
        ] {
            assert!(h.contains(part), "missing {part:?} in: {h}");
        }
    }

    #[test]
    fn silent_where_the_sum_is_rescaled_too() {
        let both = WEIGHTED.replace(
            "        num *= k;\n",
            "        num *= k;\n        den *= k;\n",
        );
        let sc = scene(&both, [1, 1, 1], [4, 1, 1]);
        assert_eq!(said(explain, &sc, "res", &[1.0, 2.0], &[0.5, 2.0]), None);
        let product = WEIGHTED.replace("        den += e;\n", "        den = den * k + e;\n");
        let sc = scene(&product, [1, 1, 1], [4, 1, 1]);
        assert_eq!(said(explain, &sc, "res", &[1.0, 2.0], &[0.5, 2.0]), None);
    }
}
