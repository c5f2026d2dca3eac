//! Global reads over budget because every thread walks the same global elements: a loop
//! whose body reads `w[j]` at an index made of the loop's variable alone (no thread or block
//! index in it), so each thread of the block reads all of `w` from global memory, the same
//! elements as its neighbours (a convolution's weights, a filter, a table). The budget is
//! built for one copy of them in shared memory: each thread copies one element, a barrier, and
//! the loop reads the copy. Read from the source after the preprocessor; silent where the
//! index depends on the thread, or the loop runs under a one-thread `if` (`lone`'s case).

use super::eval::names;
use super::restore::arrays;
use super::source::{uses_in, Source};
use super::wrong::depends_on;

/// The help for `counter` over budget (only `global_reads` is this rule's).
pub fn help(counter: &str, src: &Source) -> Option<String> {
    if counter != "global_reads" {
        return None;
    }
    let globals = arrays(src, false);
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|x| x.line == h) else {
            continue;
        };
        let Some(var) = head.init.as_deref().and_then(super::index::loop_var) else {
            continue;
        };
        // Under an `if` that picks one thread (`t == 0`), the loop is not every thread's; a
        // bounds guard (`i < n`) leaves it to all.
        let one_thread = src.guards(h).iter().any(|g| {
            g.cond.contains("==")
                && depends_on(src, g.line, &g.cond)
                    .iter()
                    .any(|n| n.starts_with("threadIdx"))
        });
        // A variable that starts at the thread's index follows the thread (a strided loop).
        let start = head
            .init
            .as_deref()
            .and_then(|i| i.split_once('='))
            .map(|(_, r)| r);
        let strided = start.is_some_and(|r| {
            depends_on(src, h, r)
                .iter()
                .any(|n| n.starts_with("threadIdx") || n.starts_with("blockIdx"))
        });
        if one_thread || strided {
            continue;
        }
        for l in src.loop_body(h).filter(|&l| l != h) {
            let code = src.line(l);
            for name in &globals {
                for u in uses_in(code, name) {
                    if u.write || u.dims.len() != 1 {
                        continue;
                    }
                    let d = &u.dims[0];
                    let deps = depends_on(src, l, d);
                    let per_thread = deps
                        .iter()
                        .any(|n| n.starts_with("threadIdx") || n.starts_with("blockIdx"));
                    if per_thread || !names(d).contains(&var) {
                        continue;
                    }
                    return Some(format!(
                        "every thread of the block reads `{name}[{}]` on line {l}, in the loop on line {h}: the index follows `{var}` only, so each thread reads all of `{name}` from global memory, the same elements as its neighbours. Copy `{name}` into a `__shared__` array once (one element per thread, then `__syncthreads()`) and read the copy in the loop",
                        d.trim()
                    ));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // Another shape than the suite's: a 5-tap filter `taps` over a row, indexes `q` and `x`.
    const FILTER: &str = "__global__ void fir(float* y, const float* x, const float* taps, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float acc = 0.0f;\n    for (int q = 0; q < 5; q++) {\n        acc += x[i + q] * taps[4 - q];\n    }\n    y[i] = acc;\n}\n";

    #[test]
    fn every_thread_walking_the_same_weights_gets_a_shared_copy() {
        let h = help("global_reads", &Source::new(FILTER)).unwrap_or_default();
        assert!(
            h.contains("`taps[4 - q]` on line 5, in the loop on line 4")
                && h.contains("all of `taps`")
                && h.contains("`__shared__` array"),
            "{h}"
        );
        assert_eq!(help("shared_reads", &Source::new(FILTER)), None);
    }

    #[test]
    fn silent_for_reads_that_follow_the_thread_or_a_one_thread_loop() {
        // Inside a bounds guard, every thread still walks all of `taps`.
        let guarded = FILTER.replace(
            "    float acc = 0.0f;\n",
            "    float acc = 0.0f;\n    if (i < n)\n",
        );
        assert!(help("global_reads", &Source::new(&guarded)).is_some());
        // A loop that starts at the thread's index (a grid-stride loop) follows the thread.
        let strided = "__global__ void s(float* o, const float* a, int n) {\n    float acc = 0.0f;\n    for (int k = threadIdx.x; k < n; k += 32) acc += a[k];\n    o[threadIdx.x] = acc;\n}\n";
        assert_eq!(help("global_reads", &Source::new(strided)), None);
        // Only `x[i + q]`, which follows the thread: each thread reads its own window.
        let own = FILTER.replace(" * taps[4 - q]", "");
        assert_eq!(help("global_reads", &Source::new(&own)), None);
        // The loop under `if (threadIdx.x == 0)` is one thread's (the `lone` rule's case).
        let lone = FILTER.replace(
            "    for (int q = 0; q < 5; q++) {\n        acc += x[i + q] * taps[4 - q];\n    }\n",
            "    if (threadIdx.x == 0) {\n    for (int q = 0; q < 5; q++) {\n        acc += taps[q];\n    }\n    }\n",
        );
        assert_eq!(help("global_reads", &Source::new(&lone)), None);
    }
}
