//! A loop that starts each thread at its index in the whole grid but steps by one block's
//! width: `for (i = blockIdx.x * blockDim.x + t; i < size; i += blockDim.x)`. Block 1's
//! threads start where block 0's take their second step, so every element past the first
//! block is taken by several blocks (a sum counts it several times). Said where the source
//! shows it: the start depends on `blockIdx.x`, the step (without `gridDim`) is the block's
//! width for this launch, the grid has several blocks, and the body reads at the variable.
//! The fix is the grid's stride, `blockDim.x * gridDim.x`.

use super::eval::{canonical, eval};
use super::wrong::{depends_on, indexed, loop_body_code, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    if w.scene.grid[0] < 2 || w.scene.grid[1] != 1 || w.scene.grid[2] != 1 {
        return None;
    }
    let src = w.src;
    let env = w.env();
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let (Some(init), Some(step)) = (head.init.as_deref(), head.step.as_deref()) else {
            continue;
        };
        let Some((decl, start)) = init.split_once('=') else {
            continue;
        };
        let Some(v) = decl.split_whitespace().last() else {
            continue;
        };
        let Some((sv, s)) = step.split_once("+=") else {
            continue;
        };
        if canonical(sv) != v {
            continue;
        }
        let start_names = depends_on(src, h, start);
        let step_names = depends_on(src, h, s);
        if !start_names.iter().any(|n| n == "blockIdx.x")
            || step_names.iter().any(|n| n.starts_with("gridDim"))
        {
            continue;
        }
        // The step's value for this launch is one block's width.
        let local_env = src.locals_before(h, &env);
        if eval(s.trim(), &local_env) != Some(w.block_x() as i64) {
            continue;
        }
        let reads = loop_body_code(src, h)
            .iter()
            .any(|(_, code)| indexed(code).iter().any(|(_, sub)| canonical(sub) == v));
        if !reads {
            continue;
        }
        return Some(format!(
            "The loop on line {h} starts each thread at its index in the whole grid (`{v} = {}`) but steps by `{}`, one block's width: block 1's threads start where block 0's take their second step, so the elements past the first block are taken by several blocks. Step by all the threads of the grid: `{v} += blockDim.x * gridDim.x`.",
            start.trim(),
            s.trim()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: a max over a strided loop, the start in a local `g`.
    const MAXES: &str = "__global__ void maxes(float* best, const float* x, int n) {\n    int g = threadIdx.x + blockIdx.x * blockDim.x;\n    float m = -1e30f;\n    for (int k = g; k < n; k += blockDim.x) {\n        m = fmaxf(m, x[k]);\n    }\n    best[g] = m;\n}\n";

    #[test]
    fn a_grid_start_with_a_block_step_is_named() {
        let sc = scene(MAXES, [4, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "best", &[1.0, 2.0], &[3.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("The loop on line 4")
                && h.contains("(`k = g`)")
                && h.contains("steps by `blockDim.x`")
                && h.contains("`k += blockDim.x * gridDim.x`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_a_grid_stride_a_block_local_loop_or_one_block() {
        let grid = MAXES.replace("k += blockDim.x", "k += blockDim.x * gridDim.x");
        let sc = scene(&grid, [4, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "best", &[1.0, 2.0], &[3.0, 2.0]), None);
        // A loop over the block's own slice (start from threadIdx.x only) is not this mistake.
        let local = MAXES.replace("int k = g;", "int k = threadIdx.x;");
        let sc = scene(&local, [4, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "best", &[1.0, 2.0], &[3.0, 2.0]), None);
        // One block: its step is the whole grid's.
        let sc = scene(MAXES, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "best", &[1.0, 2.0], &[3.0, 2.0]), None);
    }
}
