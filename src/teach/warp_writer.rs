//! One thread of the block hands on a value that only one warp summed: `if (threadIdx.x == 0)
//! atomicAdd(out, v)` where `v` comes from a warp collective (`__reduce_add_sync`, a
//! `__shfl_*_sync` fold, `cg::reduce`) and the block has several warps. Said where the source
//! shows all three: the guard is the thread's own index against 0, the value handed on is set
//! by a warp collective on a register (not on warp totals read back from `__shared__`, which
//! would make it the block's), and the block is wider than a warp: only the first warp's total
//! reaches the output.

use super::source::{find_word, if_condition};
use super::wrong::{thread_names, Seen};

/// Names of the warp collectives that combine a value across the lanes of one warp.
const WARP_FOLDS: [&str; 5] = [
    "__reduce_add_sync",
    "__reduce_max_sync",
    "__reduce_min_sync",
    "__shfl_",
    "reduce(",
];

pub fn explain(w: &Seen) -> Option<String> {
    let threads = w.threads();
    if threads <= 32 {
        return None;
    }
    let shared = w.src.shared_names();
    for l in 1..=w.src.lines() {
        let code = w.src.line(l);
        let Some(cond) = if_condition(code) else {
            continue;
        };
        let c = super::eval::canonical(&cond);
        let Some(who) = c.strip_suffix("==0") else {
            continue;
        };
        if !thread_names(w.src, l, 'x').iter().any(|n| n == who) {
            continue;
        }
        // The statement in the `if` that hands a plain name on to the output.
        let body: Vec<u32> = w.src.loop_body(l).collect();
        let Some((at, value, atomic)) = body.iter().find_map(|&b| {
            let t = if b == l {
                code.split_once(&cond).map_or("", |x| x.1)
            } else {
                w.src.line(b)
            };
            find_word(t, w.name)?;
            let atomic = t.contains("atomic");
            let value = super::seen::stored_locals(t).into_iter().next()?;
            Some((b, value, atomic))
        }) else {
            continue;
        };
        // Where the value is folded across a warp, from a register (not from shared totals).
        let Some(fold) = super::seen::assigning_lines(w.src, l, &value)
            .into_iter()
            .find(|&a| WARP_FOLDS.iter().any(|f| w.src.line(a).contains(f)))
        else {
            continue;
        };
        let fold_code = w.src.line(fold).trim();
        let from_shared = super::seen::assigning_lines(w.src, fold + 1, &value)
            .into_iter()
            .chain(std::iter::once(fold))
            .any(|a| {
                let t = w.src.line(a);
                shared.iter().any(|s| find_word(t, s).is_some())
            })
            || fold_inputs_from_shared(w, fold, &shared);
        if from_shared {
            continue;
        }
        let warps = threads.div_ceil(32);
        let fix = if atomic {
            "let the first lane of every warp add its warp's total (`if (threadIdx.x % 32 == 0)`), or combine the warps' totals in `__shared__` memory first"
        } else {
            "combine the warps' totals first (each warp's first lane stores its total to a `__shared__` array, a barrier, then one thread adds them up) and store that"
        };
        return Some(format!(
            "Only thread 0 of each block hands `{value}` on (`if ({})` on line {l}, the store on line {at}), but `{value}` is one warp's total: line {fold} (`{fold_code}`) folds it across the 32 lanes of a warp, and a block of {threads} threads has {warps} warps, so the other warps' totals never reach `{}`: {fix}.",
            cond.trim(),
            w.name
        ));
    }
    None
}

/// Whether the fold on line `fold` folds a value read from a `__shared__` array (the second
/// level of a block reduction, over the warps' totals: then it is the block's total).
fn fold_inputs_from_shared(w: &Seen, fold: u32, shared: &[String]) -> bool {
    let code = w.src.line(fold);
    let Some(open) = code.find('(') else {
        return false;
    };
    let args = super::eval::split_top(&code[open + 1..], ',');
    let Some(input) = args.get(1).map(|a| a.trim().to_string()) else {
        return false;
    };
    // `(int)w` reads `w`.
    let input = input.trim_end_matches([')', ';', ' ']);
    let input = input.rsplit(')').next().unwrap_or(input).trim();
    super::seen::assigning_lines(w.src, fold, input)
        .iter()
        .any(|&a| shared.iter().any(|s| find_word(w.src.line(a), s).is_some()))
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn one_thread_of_a_block_of_warps_adding_a_shuffle_folded_total_is_named() {
        // Another shape: a butterfly of shuffles, a lane alias, blocks of 128 (four warps).
        let src = "__global__ void total(float* acc, const float* xs, int n) {\n    int me = threadIdx.x;\n    int g = blockIdx.x * 128 + me;\n    float part = g < n ? xs[g] : 0.0f;\n    for (int o = 16; o > 0; o /= 2) {\n        part += __shfl_xor_sync(0xffffffff, part, o);\n    }\n    if (me == 0) {\n        atomicAdd(acc, part);\n    }\n}\n";
        let sc = scene(src, [2, 1, 1], [128, 1, 1]);
        let h = said(explain, &sc, "acc", &[300.0], &[80.0]).unwrap_or_default();
        for part in [
            "`if (me == 0)` on line 8",
            "line 6 (`part += __shfl_xor_sync(0xffffffff, part, o);`)",
            "a block of 128 threads has 4 warps",
            "`if (threadIdx.x % 32 == 0)`",
        ] {
            assert!(h.contains(part), "missing {part:?} in: {h}");
        }
    }

    #[test]
    fn a_plain_store_of_one_warps_total_is_told_to_combine_the_warps_first() {
        let src = "__global__ void sums(int* per_block, const int* v) {\n    int t = threadIdx.x;\n    int s = __reduce_add_sync(0xffffffff, v[blockIdx.x * 64 + t]);\n    if (t == 0) per_block[blockIdx.x] = s;\n}\n";
        let sc = scene(src, [3, 1, 1], [64, 1, 1]);
        let h = said(
            explain,
            &sc,
            "per_block",
            &[10.0, 10.0, 10.0],
            &[5.0, 5.0, 5.0],
        )
        .unwrap_or_default();
        assert!(
            h.contains("has 2 warps") && h.contains("combine the warps' totals first"),
            "{h}"
        );
        assert!(
            !h.contains("% 32"),
            "a plain store by one lane per warp would overwrite: {h}"
        );
    }

    #[test]
    fn silent_for_one_warp_blocks_and_for_a_second_fold_over_shared_totals() {
        let one_warp = "__global__ void total(float* acc, const float* xs) {\n    float part = xs[blockIdx.x * 32 + threadIdx.x];\n    for (int o = 16; o > 0; o /= 2) part += __shfl_down_sync(0xffffffff, part, o);\n    if (threadIdx.x == 0) atomicAdd(acc, part);\n}\n";
        let sc = scene(one_warp, [2, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "acc", &[3.0], &[1.0]), None);
        // The block's total: the first warp folds the warps' totals read from shared memory.
        let two_level = "__global__ void total(float* acc, const float* xs) {\n    __shared__ float warp_tot[4];\n    int t = threadIdx.x;\n    float part = xs[blockIdx.x * 128 + t];\n    part = __reduce_add_sync(0xffffffff, (int)part);\n    if (t % 32 == 0) warp_tot[t / 32] = part;\n    __syncthreads();\n    float w = t < 4 ? warp_tot[t] : 0.0f;\n    float all = __reduce_add_sync(0xffffffff, (int)w);\n    if (t == 0) atomicAdd(acc, all);\n}\n";
        let sc = scene(two_level, [2, 1, 1], [128, 1, 1]);
        assert_eq!(said(explain, &sc, "acc", &[3.0], &[1.0]), None);
    }
}
