//! One thread of the whole grid where one of each block is meant: `if (i == 0)` with `i` a
//! global index (or `if (blockIdx.x == 0 && threadIdx.x == 0)`), around the statement that hands on the block's result (`atomicAdd(&out[0],
//! cache[0])`). Said where the grid has several blocks, the index's value uses `blockIdx`, and
//! what the guarded statement reads is the block's own (a `__shared__` array): only block 0
//! hands its result on.

use super::wrong::{is_global_index, thread_names, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    if w.blocks() < 2 {
        return None;
    }
    let shared = w.src.shared_names();
    for l in 1..=w.src.lines() {
        let code = w.src.line(l);
        let Some(cond) = super::source::if_condition(code) else {
            continue;
        };
        let c = super::eval::canonical(&cond);
        // `G == 0` with G global, or a conjunct `blockIdx.x == 0` beside the thread's own test.
        let conjuncts: Vec<&str> = c.split("&&").collect();
        // (In a cooperative launch block 0 may rightly finish the grid's work after a grid sync.)
        let block_zero =
            conjuncts.len() > 1 && conjuncts.contains(&"blockIdx.x==0") && !w.scene.cooperative;
        let global = c
            .strip_suffix("==0")
            .and_then(|g| Some((g, is_global_index(w.src, l, g)?)));
        if global.is_none() && !block_zero {
            continue;
        }
        // What the `if` runs: its block, or its one statement.
        let body: Vec<u32> = w.src.loop_body(l).collect();
        let reads_block = body.iter().any(|&b| {
            let t = if b == l {
                code.split_once(&cond).map_or("", |x| x.1)
            } else {
                w.src.line(b)
            };
            shared
                .iter()
                .any(|s| super::source::uses_in(t, s).iter().any(|u| !u.write))
        });
        let writes_output = body
            .iter()
            .any(|&b| super::source::find_word(w.src.line(b), w.name).is_some());
        if !reads_block || !writes_output {
            continue;
        }
        let local = thread_names(w.src, l, 'x')
            .into_iter()
            .next()
            .unwrap_or_else(|| "threadIdx.x".to_string());
        let also = if local == "threadIdx.x" {
            String::new()
        } else {
            format!(" (`{local}` is threadIdx.x)")
        };
        let why = match global {
            Some((g, def)) => format!("`{g}` is a global index (`{def}`)"),
            None => "`blockIdx.x == 0` leaves out every other block".to_string(),
        };
        return Some(format!(
            "`if ({cond})` on line {l} is true for one thread of the whole grid: {why}, so only block 0 hands on its result, and the other {} blocks' results in shared memory are lost. Each block needs one thread of its own: `if ({local} == 0)`{also}, one thread of each block.",
            w.blocks() - 1
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn a_global_thread_zero_for_a_block_result_is_named() {
        // Another shape: a block maximum handed on with atomicMax, other names.
        let src = "__global__ void top(int* peak, const int* v) {\n    __shared__ int m[64];\n    int gid = threadIdx.x + blockIdx.x * 64;\n    m[threadIdx.x] = v[gid];\n    __syncthreads();\n    if (gid == 0) {\n        int best = m[0];\n        for (int k = 1; k < 64; k++) best = max(best, m[k]);\n        atomicMax(peak, best);\n    }\n}\n";
        let sc = scene(src, [4, 1, 1], [64, 1, 1]);
        let h = said(explain, &sc, "peak", &[90.0], &[12.0]).unwrap_or_default();
        assert!(
            h.contains("`if (gid == 0)` on line 6")
                && h.contains("the other 3 blocks")
                && h.contains("`if (threadIdx.x == 0)`"),
            "{h}"
        );
    }

    #[test]
    fn block_zero_beside_the_threads_test_is_named() {
        let src = "__global__ void tot(float* sum, const float* x) {\n    __shared__ float buf[32];\n    int lane = threadIdx.x;\n    buf[lane] = x[blockIdx.x * 32 + lane];\n    __syncthreads();\n    if (lane == 0 && blockIdx.x == 0) atomicAdd(sum, buf[0] + buf[1]);\n}\n";
        let sc = scene(src, [5, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "sum", &[50.0], &[9.0]).unwrap_or_default();
        assert!(
            h.contains("`blockIdx.x == 0` leaves out every other block")
                && h.contains("the other 4 blocks")
                && h.contains("`if (lane == 0)`"),
            "{h}"
        );
    }

    #[test]
    fn one_block_or_a_local_index_or_no_block_result_stay_silent() {
        let src = "__global__ void top(int* peak, const int* v) {\n    __shared__ int m[64];\n    int gid = threadIdx.x + blockIdx.x * 64;\n    m[threadIdx.x] = v[gid];\n    __syncthreads();\n    if (gid == 0) atomicMax(peak, m[0]);\n}\n";
        assert_eq!(
            said(
                explain,
                &scene(src, [1, 1, 1], [64, 1, 1]),
                "peak",
                &[9.0],
                &[1.0]
            ),
            None
        );
        let local = src.replace("if (gid == 0)", "if (threadIdx.x == 0)");
        assert_eq!(
            said(
                explain,
                &scene(&local, [4, 1, 1], [64, 1, 1]),
                "peak",
                &[9.0],
                &[1.0]
            ),
            None
        );
        // The grid's first thread writing a value of its own (a flag), not a block's.
        // The block's result handed on into another output than the wrong one.
        let other = src.replace("atomicMax(peak, m[0])", "atomicMax(top, m[0])");
        assert_eq!(
            said(
                explain,
                &scene(&other, [4, 1, 1], [64, 1, 1]),
                "peak",
                &[9.0],
                &[1.0]
            ),
            None
        );
        let own = src.replace("atomicMax(peak, m[0])", "peak[1] = v[0]");
        assert_eq!(
            said(
                explain,
                &scene(&own, [4, 1, 1], [64, 1, 1]),
                "peak",
                &[9.0],
                &[1.0]
            ),
            None
        );
    }
}
