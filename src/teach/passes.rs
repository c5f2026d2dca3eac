//! A global read budget missed by one pass over the data too many: the same array read in
//! several loops with the same header (`for (c = t; c < cols; c += TPB)`, one pass each), where
//! the budget has room for one pass fewer. Where the first pass finds a maximum and a later one
//! sums exponentials against it, the two are the online softmax's one pass (a running maximum,
//! the sum rescaled when it grows); otherwise the help says which passes read the array and
//! that two of them can share a loop. Read from the source after the preprocessor; silent where
//! fewer than two such passes are found or where one pass fewer would still not fit.

use super::eval;
use super::source::{find_word, uses_in, Source};

/// The help for `counter` (`global_reads`) at `used` over `limit`.
pub fn help(counter: &str, src: &Source, used: u64, limit: u64) -> Option<String> {
    if counter != "global_reads" {
        return None;
    }
    for name in super::restore::arrays(src, false) {
        // The loops that read `name` at a subscript moving with their variable, by header.
        let mut loops: Vec<(u32, String)> = Vec::new();
        for h in 1..=src.lines() {
            let Some(head) = src.loop_header(h).filter(|x| x.line == h) else {
                continue;
            };
            let Some(var) = head.init.as_deref().and_then(super::index::loop_var) else {
                continue;
            };
            let reads = src.loop_body(h).any(|l| {
                uses_in(src.line(l), &name)
                    .iter()
                    .any(|u| !u.write && u.dims.iter().any(|d| find_word(d, &var).is_some()))
            });
            if reads {
                let key = format!(
                    "{};{};{}",
                    eval::canonical(head.init.as_deref().unwrap_or("")),
                    eval::canonical(&head.cond),
                    eval::canonical(head.step.as_deref().unwrap_or(""))
                );
                loops.push((h, key));
            }
        }
        let Some((_, key)) = loops.first().cloned() else {
            continue;
        };
        let passes: Vec<u32> = loops
            .iter()
            .filter(|(_, k)| *k == key)
            .map(|(h, _)| *h)
            .collect();
        let p = passes.len() as u64;
        // Each pass reads as much; one pass fewer must fit the budget.
        if p < 2 || !used.is_multiple_of(p) || used / p * (p - 1) > limit {
            continue;
        }
        let listed = super::technique::lines(&passes);
        let head = format!(
            "`{name}` is read in {p} passes over the same range (the loops on {listed}), and \
             the budget has room for {}",
            p - 1
        );
        let body_has = |h: u32, what: &[&str]| {
            src.loop_body(h)
                .any(|l| what.iter().any(|w| src.line(l).contains(w)))
        };
        let max_pass = passes
            .iter()
            .position(|&h| body_has(h, &["fmaxf(", "max("]));
        let exp_pass = passes
            .iter()
            .position(|&h| body_has(h, &["expf(", "__expf(", "exp("]));
        if let (Some(m), Some(e)) = (max_pass, exp_pass) {
            if m < e {
                return Some(format!(
                    "{head}: the maximum (line {}) and the sum of exponentials (line {}) can come \
                     from one pass, the online softmax. Keep a running maximum `m` and sum `d`; \
                     for each element x, `float m_new = fmaxf(m, x); d = d * expf(m - m_new) + \
                     expf(x - m_new); m = m_new;` (the old sum rescaled to the new maximum), \
                     then merge the threads' (m, d) pairs across the block the same way, \
                     `d = d1 * expf(m1 - m) + d2 * expf(m2 - m)`, and one more pass writes the \
                     output",
                    passes[m], passes[e]
                ));
            }
        }
        return Some(format!(
            "{head}: compute two of the quantities in the same loop, each in its own register, \
             so that each element is read once for both"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOFTMAX: &str = "__global__ void sm(float* y, const float* v, int n) {\n\
        float big = -1e30f;\n\
        for (int k = threadIdx.x; k < n; k += 32) big = fmaxf(big, v[k]);\n\
        float tot = 0.0f;\n\
        for (int k = threadIdx.x; k < n; k += 32) tot += __expf(v[k] - big);\n\
        for (int k = threadIdx.x; k < n; k += 32) y[k] = __expf(v[k] - big) / tot;\n\
        }\n";

    #[test]
    fn a_maximum_pass_then_a_sum_pass_is_the_online_softmax() {
        let h = help("global_reads", &Source::new(SOFTMAX), 6, 4).unwrap_or_default();
        assert!(h.contains("`v` is read in 3 passes"), "{h}");
        assert!(h.contains("the loops on lines 3 and 5-6"), "{h}");
        assert!(h.contains("online softmax") && h.contains("rescale"), "{h}");
        assert!(h.contains("the maximum (line 3)"), "{h}");
    }

    #[test]
    fn two_sums_share_a_loop_and_a_budget_for_all_passes_stays_silent() {
        let k = "__global__ void mv(float* o, const float* p, int n) {\n\
                 float s = 0.0f, q = 0.0f;\n\
                 for (int j = threadIdx.x; j < n; j += 64) s += p[j];\n\
                 for (int j = threadIdx.x; j < n; j += 64) q += p[j] * p[j];\n\
                 o[threadIdx.x] = q - s * s;\n\
                 }\n";
        let h = help("global_reads", &Source::new(k), 4, 2).unwrap_or_default();
        assert!(h.contains("2 passes") && h.contains("same loop"), "{h}");
        assert!(!h.contains("softmax"), "{h}");
        // One pass fewer would still not fit: the passes are not the cause.
        assert_eq!(help("global_reads", &Source::new(SOFTMAX), 6, 3), None);
        assert_eq!(help("global_writes", &Source::new(SOFTMAX), 6, 4), None);
        // One pass only.
        let one = "__global__ void f(float* o, const float* p, int n) {\n\
                   for (int j = threadIdx.x; j < n; j += 64) o[j] = p[j];\n\
                   }\n";
        assert_eq!(help("global_reads", &Source::new(one), 2, 1), None);
    }
}
