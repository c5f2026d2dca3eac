//! A block's reduction that leaves part of the block's input out. Two causes:
//! - the tree starts below half of what the block stored (`stride = TPB_X / 2` over a
//!   `TPB_Y * TPB_X` array filled by a 2D block): it folds only the first `2 * stride` slots,
//!   the first row; said where no fold before the tree brings the rest down;
//! - the block's slice is larger than its threads (`base = blockIdx.x * 2 * TPB`, or `i =
//!   blockIdx.x * 2 * blockDim.x + threadIdx.x`) but the threads read one element each,
//!   outside any loop: the second half of the slice is never read.

use super::eval::{canonical, eval, names, Env};
use super::source::uses_in;
use super::wrong::{in_loop, indexed, reaches, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    tree_start(w).or_else(|| half_read(w))
}

fn tree_start(w: &Seen) -> Option<String> {
    let env = w.env();
    let threads = w.threads() as i64;
    for s in w.src.shared_names() {
        let Some(dims) = w.src.shared_dims(&s) else {
            continue;
        };
        let len = dims
            .iter()
            .map(|d| eval(d, &env))
            .try_fold(1i64, |a, d| d.and_then(|d| a.checked_mul(d)));
        let Some(len) = len else { continue };
        for h in 1..=w.src.lines() {
            let Some(head) = w.src.loop_header(h).filter(|lh| lh.line == h) else {
                continue;
            };
            let Some((decl, start)) = head.init.as_deref().and_then(|i| i.split_once('=')) else {
                continue;
            };
            let Some(v) = decl.split_whitespace().last() else {
                continue;
            };
            let c = canonical(start);
            if !(c.ends_with("/2") || c.ends_with(">>1")) {
                continue;
            }
            let Some(first) = eval(start, &env) else {
                continue;
            };
            // The body folds `s[x + v]` into `s[x]`.
            let folds = |l: u32| {
                uses_in(w.src.line(l), &s).iter().any(|u| u.update)
                    && indexed(w.src.line(l))
                        .iter()
                        .any(|(a, sub)| *a == s && names(sub).iter().any(|n| n == v))
            };
            if !w.src.loop_body(h).any(folds) {
                continue;
            }
            // A fold before the tree (`s[t] += s[t + 64]`) brings the rest down first.
            let fn_start = w.src.function_of(h).map_or(1, |f| f.0);
            let earlier = (fn_start..h).any(|l| {
                uses_in(w.src.line(l), &s).iter().any(|u| u.update)
                    && indexed(w.src.line(l))
                        .iter()
                        .filter(|(a, _)| *a == s)
                        .count()
                        >= 2
            });
            let stored = len.min(threads);
            // (Values from the learner's defines: no arithmetic that can overflow.)
            let covered = first.saturating_mul(2);
            if earlier || covered <= 0 || covered >= stored || !reaches(w.src, w.name, &s) {
                continue;
            }
            let [bx, by, _] = w.scene.block;
            let row = if by > 1 && covered == bx as i64 {
                format!(" (the first row of the {bx} x {by} block; the other rows are never added)")
            } else {
                String::new()
            };
            let whole = dims.join(" * ");
            return Some(format!(
                "The tree on line {h} starts at `{v}` = `{}` = {first}, so it adds only `{s}[0]` to `{s}[{}]` into `{s}[0]`: {covered} of the {stored} values the block stored{row}. Start at half the whole block, all rows: `{v} = {whole} / 2` ({}).",
                start.trim(),
                covered - 1,
                stored / 2
            ));
        }
    }
    None
}

fn half_read(w: &Seen) -> Option<String> {
    let b = w.block_x() as i64;
    if b == 0 || w.scene.block[1] > 1 {
        return None;
    }
    let shared = w.src.shared_names();
    let mut env: Env = w.env();
    env.set("blockIdx.x", 1);
    env.set("blockDim.x", b);
    env.set("gridDim.x", w.scene.grid[0] as i64);
    env.set("threadIdx.x", 0);
    for l in 1..=w.src.lines() {
        // `int base = blockIdx.x * 2 * TPB;`: the block's slice, K times its threads.
        for (base, def) in w
            .src
            .line(l)
            .split(';')
            .filter_map(|st| {
                let (lhs, rhs) = st.split_once('=')?;
                let name = lhs.split_whitespace().last()?;
                (lhs.split_whitespace().count() >= 2 && rhs.contains("blockIdx.x"))
                    .then(|| (name.to_string(), rhs.trim().to_string()))
            })
            .collect::<Vec<_>>()
        {
            // Its value in block 1 and block 0 (thread 0), through the locals it uses.
            let mut at0 = env.clone();
            at0.set("blockIdx.x", 0);
            let (at1, at0) = (w.src.locals_before(l, &env), w.src.locals_before(l, &at0));
            let (Some(step), Some(zero)) = (eval(&def, &at1), eval(&def, &at0)) else {
                continue;
            };
            let Some(step) = step.checked_sub(zero) else {
                continue;
            };
            if step < 2 * b || step % b != 0 {
                continue;
            }
            // Every read of a global buffer at the slice, and the last index any reaches.
            let mut reads = Vec::new();
            for r in l + 1..=w.src.lines() {
                for (buf, sub) in indexed(w.src.line(r)) {
                    if shared.contains(&buf) || !names(&sub).contains(&base) || buf == w.name {
                        continue;
                    }
                    // The last thread of block 0: the highest index the read reaches.
                    let mut last_thread = env.clone();
                    last_thread.set("blockIdx.x", 0);
                    last_thread.set("threadIdx.x", b - 1);
                    let e = w.src.locals_before(r, &last_thread);
                    // A read whose reach cannot be told: say nothing.
                    let last = eval(&sub, &e)?;
                    reads.push((r, buf, sub, last));
                }
            }
            if reads.is_empty() || reads.iter().any(|(r, ..)| in_loop(w.src, *r).is_some()) {
                continue;
            }
            let reach = reads.iter().map(|r| r.3).max()?;
            if reach >= step - 1 {
                continue;
            }
            if !shared.iter().any(|s| reaches(w.src, w.name, s)) {
                continue;
            }
            let (r, buf, sub, _) = &reads[0];
            let k = step / b;
            let rest = if k == 2 {
                "the second half of the block's elements".to_string()
            } else {
                format!(
                    "the last {} of the block's elements",
                    step.saturating_sub(reach).saturating_sub(1)
                )
            };
            // The first element no thread reads, and the last, in block 0.
            let per_thread = super::wrong::depends_on(w.src, l, &def)
                .iter()
                .any(|n| n.starts_with("threadIdx"));
            let (from, to) = if per_thread {
                (
                    format!("{buf}[{}]", reach.saturating_add(1)),
                    format!("{buf}[{}]", step - 1),
                )
            } else {
                (
                    format!("{buf}[{base} + {}]", reach.saturating_add(1)),
                    format!("{buf}[{base} + {}]", step - 1),
                )
            };
            return Some(format!(
                "Each block covers {step} elements (`{base}` = `{def}` steps by {k} times its {b} threads), but its threads read only `{buf}[{sub}]` (line {r}): in block 0, `{from}` to `{to}`, {rest}, are never read. Each thread must read {k} elements: add `{buf}[{sub} + blockDim.x]` (checked against the size too) before the tree, or loop over the block's slice with a stride of `blockDim.x`.",
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn a_tree_that_starts_at_one_rows_width_is_named() {
        // Another shape: a max tree over an 8 x 4 block, other names, `>> 1`.
        let src = "#define W 8\n#define H 4\n__global__ void peak(float* best, const float* v) {\n    __shared__ float m[H * W];\n    int k = threadIdx.y * W + threadIdx.x;\n    m[k] = v[k];\n    __syncthreads();\n    for (int half = W >> 1; half > 0; half >>= 1) {\n        if (k < half) m[k] += m[k + half];\n        __syncthreads();\n    }\n    if (k == 0) best[0] = m[0];\n}\n";
        let sc = scene(src, [1, 1, 1], [8, 4, 1]);
        let h = said(explain, &sc, "best", &[10.0], &[3.0]).unwrap_or_default();
        assert!(
            h.contains("starts at `half` = `W >> 1` = 4")
                && h.contains("first row of the 8 x 4 block")
                && h.contains("`half = H * W / 2` (16)"),
            "{h}"
        );
    }

    #[test]
    fn a_slice_of_two_blocks_read_once_is_named() {
        let src = "__global__ void part(float* sums, const float* x, int len) {\n    __shared__ float acc[32];\n    int j = threadIdx.x;\n    int start = 2 * 32 * blockIdx.x;\n    acc[j] = start + j < len ? x[start + j] : 0.0f;\n    __syncthreads();\n    for (int s = 16; s > 0; s /= 2) { if (j < s) acc[j] += acc[j + s]; __syncthreads(); }\n    if (j == 0) sums[blockIdx.x] = acc[0];\n}\n";
        let sc = scene(src, [2, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "sums", &[10.0, 20.0], &[3.0, 4.0]).unwrap_or_default();
        assert!(
            h.contains("covers 64 elements")
                && h.contains("`x[start + 32]` to `x[start + 63]`, the second half")
                && h.contains("`x[start + j + blockDim.x]`"),
            "{h}"
        );
    }

    #[test]
    fn a_global_index_that_steps_by_two_blocks_and_is_read_once_is_named() {
        let src = "__global__ void red(int* per_block, const int* in, int count) {\n    __shared__ int sd[16];\n    unsigned int g = blockIdx.x * (blockDim.x * 2) + threadIdx.x;\n    sd[threadIdx.x] = (g < count) ? in[g] : 0;\n    __syncthreads();\n    for (int s = 8; s > 0; s >>= 1) { if (threadIdx.x < s) sd[threadIdx.x] += sd[threadIdx.x + s]; __syncthreads(); }\n    if (threadIdx.x == 0) per_block[blockIdx.x] = sd[0];\n}\n";
        let sc = scene(src, [3, 1, 1], [16, 1, 1]);
        let h = said(
            explain,
            &sc,
            "per_block",
            &[10.0, 20.0, 30.0],
            &[3.0, 4.0, 5.0],
        )
        .unwrap_or_default();
        assert!(
            h.contains("covers 32 elements")
                && h.contains("`in[16]` to `in[31]`, the second half")
                && h.contains("`in[g + blockDim.x]`"),
            "{h}"
        );
    }

    #[test]
    fn whole_trees_and_slices_read_in_full_stay_silent() {
        // A tree from half the whole 2D block.
        let src = "#define W 8\n#define H 4\n__global__ void peak(float* best, const float* v) {\n    __shared__ float m[H * W];\n    int k = threadIdx.y * W + threadIdx.x;\n    m[k] = v[k];\n    __syncthreads();\n    for (int half = H * W / 2; half > 0; half >>= 1) {\n        if (k < half) m[k] += m[k + half];\n        __syncthreads();\n    }\n    if (k == 0) best[0] = m[0];\n}\n";
        let sc = scene(src, [1, 1, 1], [8, 4, 1]);
        assert_eq!(said(explain, &sc, "best", &[10.0], &[3.0]), None);
        // Defines at the edge of the integers: no panic, nothing said.
        let huge = src.replace("#define W 8", "#define W 9223372036854775807");
        let sc = scene(&huge, [1, 1, 1], [8, 4, 1]);
        assert_eq!(said(explain, &sc, "best", &[10.0], &[3.0]), None);
        // Both halves read.
        let src = "__global__ void part(float* sums, const float* x, int len) {\n    __shared__ float acc[32];\n    int j = threadIdx.x;\n    int start = 2 * 32 * blockIdx.x;\n    acc[j] = x[start + j] + x[start + j + 32];\n    __syncthreads();\n    for (int s = 16; s > 0; s /= 2) { if (j < s) acc[j] += acc[j + s]; __syncthreads(); }\n    if (j == 0) sums[blockIdx.x] = acc[0];\n}\n";
        let sc = scene(src, [2, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "sums", &[10.0, 20.0], &[3.0, 4.0]), None);
    }
}
