//! A block's total taken from the first thread after an inclusive scan: each thread's running
//! value ends as the sum of the elements up to its own (`v += s[t - off]` over the rounds), so
//! thread 0 holds its own element only and the total is the last thread's. Said where the
//! source shows a store of `v` under `if (t == 0)`, `t` the thread's index in the block, and a
//! loop before it whose body adds into `v` and reads a shared array at `t - x` (`x` the loop's
//! variable). The fix stores from the last thread, `t == blockDim.x - 1`.

use super::eval::canonical;
use super::source::{find_word, uses_in};
use super::wrong::{loop_body_code, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    for l in 1..=src.lines() {
        let code = src.line(l);
        let Some((lhs, rhs)) = code.split_once('=') else {
            continue;
        };
        if lhs
            .trim_end()
            .ends_with(['<', '>', '!', '+', '-', '*', '/'])
            || rhs.starts_with('=')
        {
            continue;
        }
        let v = canonical(rhs.trim().trim_end_matches(';'));
        if v.is_empty() || !v.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        // `if (t == 0)` around the store, `t` the thread's index in the block.
        let Some(t) = src.guards(l).iter().find_map(|g| {
            let c = canonical(&g.cond);
            let t = c.strip_suffix("==0")?.to_string();
            let from_tid = t.starts_with("threadIdx.")
                || src
                    .definition(g.line, &t)
                    .is_some_and(|(_, d)| d.trim().starts_with("threadIdx.") && !d.contains('+'));
            from_tid.then_some(t)
        }) else {
            continue;
        };
        let f = src.function_of(l);
        let scan = (f.map_or(1, |x| x.0)..l).find(|&h| {
            let Some(head) = src.loop_header(h).filter(|lh| lh.line == h) else {
                return false;
            };
            let Some(x) = head.init.as_deref().and_then(super::index::loop_var) else {
                return false;
            };
            let body = loop_body_code(src, h);
            let adds = body.iter().any(|(_, c)| {
                let c = canonical(c);
                c.starts_with(&format!("{v}+=")) || c.starts_with(&format!("{v}={v}+"))
            });
            let below = body.iter().any(|(_, c)| {
                src.shared_names().iter().any(|s| {
                    uses_in(c, s).iter().any(|u| {
                        !u.write
                            && u.dims
                                .first()
                                .is_some_and(|d| canonical(d) == format!("{t}-{x}"))
                    })
                })
            });
            adds && below
        });
        let Some(h) = scan else {
            continue;
        };
        if find_word(lhs, w.name).is_none() && !super::wrong::reaches(src, w.name, &v) {
            continue;
        }
        return Some(format!(
            "The loop on line {h} is an inclusive scan: after it, each thread's `{v}` is the sum of the elements up to its own, so thread `{t} == 0` holds only its own element. The block's total is the last thread's `{v}`: store it from `{t} == blockDim.x - 1` (line {l} stores it from `{t} == 0`)."
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: `acc`, `tid`, `d`, the total into `tot` per block.
    const SCAN: &str = "__global__ void k(float* tot, const float* a) {\n    __shared__ float s[32];\n    int tid = threadIdx.x;\n    float acc = a[blockIdx.x * 32 + tid];\n    s[tid] = acc;\n    __syncthreads();\n    for (int d = 1; d < 32; d *= 2) {\n        float l = tid >= d ? s[tid - d] : 0.0f;\n        __syncthreads();\n        acc += l;\n        s[tid] = acc;\n        __syncthreads();\n    }\n    if (tid == 0) {\n        tot[blockIdx.x] = acc;\n    }\n}\n";

    #[test]
    fn a_scan_total_from_the_first_thread_gets_the_last() {
        let sc = scene(SCAN, [2, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "tot", &[10.0, 20.0], &[1.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("The loop on line 7 is an inclusive scan")
                && h.contains("`tid == blockDim.x - 1`")
                && h.contains("line 15"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_the_last_thread_or_a_tree() {
        let last = SCAN.replace("if (tid == 0)", "if (tid == 31)");
        let sc = scene(&last, [2, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "tot", &[10.0, 20.0], &[1.0, 2.0]), None);
        // A tree reads above (`s[tid + d]`): thread 0 holds the total there.
        let tree = SCAN.replace("s[tid - d]", "s[tid + d]");
        let sc = scene(&tree, [2, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "tot", &[10.0, 20.0], &[1.0, 2.0]), None);
    }
}
