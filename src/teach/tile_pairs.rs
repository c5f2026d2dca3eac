//! Blocks that each take two tiles of the block's size but start only one tile apart:
//! `base = blockIdx.x * TPB` with reads at `base + t` and `base + t + TPB`, so block 1 starts on
//! block 0's second tile (counted twice) and the grid's last tile is never read. Said where the
//! source shows both: a local set to `blockIdx.x` times a value equal to the block's threads,
//! and an index (or a local) that adds that local, the thread and that same value.

use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let canon = super::eval::canonical;
    let env = w.env();
    let threads = w.block_x() as i64;
    if w.blocks() < 2 {
        return None;
    }
    for l in 1..=src.lines() {
        for stmt in src.line(l).split(';') {
            let Some((lhs, rhs)) = stmt.split_once('=') else {
                continue;
            };
            let Some(base) = lhs.split_whitespace().last() else {
                continue;
            };
            if !lhs.trim_start().starts_with("int ") {
                continue;
            }
            let value = canon(rhs);
            // `blockIdx.x * K` with K the block's threads.
            let Some(k) = value
                .strip_prefix("blockIdx.x*")
                .or_else(|| value.strip_suffix("*blockIdx.x"))
            else {
                continue;
            };
            if super::eval::eval(k, &env) != Some(threads) {
                continue;
            }
            // A second tile read from it: `base + ... + K` on a later line.
            let second = (l + 1..=src.lines()).find(|&m| {
                let t = canon(src.line(m));
                t.contains(&format!("{base}+")) && t.contains(&format!("+{k}"))
            });
            let Some(second) = second else {
                continue;
            };
            return Some(format!(
                "Each block takes two tiles of {threads} elements from `{base}` (the second on line {second}, `{}`), but `{base}` (line {l}, `{}`) starts the blocks only one tile apart: block 1 starts on block 0's second tile, so those elements are taken twice and the last tile of the grid is never read. Start each block two tiles apart: `{base} = blockIdx.x * 2 * {k}`.",
                src.line(second).trim(),
                stmt.trim()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const PAIRS: &str = "__global__ void bsum(float* partial, const float* x, int len) {\n    __shared__ float buf[128];\n    int me = threadIdx.x;\n    int start = blockIdx.x * blockDim.x;\n    float lo = start + me < len ? x[start + me] : 0.0f;\n    float hi = start + me + blockDim.x < len ? x[start + me + blockDim.x] : 0.0f;\n    buf[me] = lo + hi;\n    __syncthreads();\n    if (me == 0) { float s = 0.0f; for (int k = 0; k < 128; k++) s += buf[k]; partial[blockIdx.x] = s; }\n}\n";

    #[test]
    fn blocks_one_tile_apart_reading_two_tiles_are_named() {
        // Another shape: `blockDim.x` for the tile, the second tile read in a ternary.
        let sc = scene(PAIRS, [3, 1, 1], [128, 1, 1]);
        let h = said(
            explain,
            &sc,
            "partial",
            &[10.0, 20.0, 30.0],
            &[10.0, 25.0, 12.0],
        )
        .unwrap_or_default();
        assert!(
            h.contains(
                "Each block takes two tiles of 128 elements from `start` (the second on line 6"
            ) && h.contains("(line 4, `int start = blockIdx.x * blockDim.x`)")
                && h.contains("`start = blockIdx.x * 2 * blockDim.x`"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_blocks_start_two_tiles_apart_or_read_one_tile() {
        let apart = PAIRS.replace("blockIdx.x * blockDim.x;", "blockIdx.x * 2 * blockDim.x;");
        let sc = scene(&apart, [3, 1, 1], [128, 1, 1]);
        assert_eq!(
            said(explain, &sc, "partial", &[1.0, 2.0, 3.0], &[1.0, 2.0, 4.0]),
            None
        );
        let one = PAIRS.replace(
            "start + me + blockDim.x < len ? x[start + me + blockDim.x] : 0.0f",
            "0.0f",
        );
        let sc = scene(&one, [3, 1, 1], [128, 1, 1]);
        assert_eq!(
            said(explain, &sc, "partial", &[1.0, 2.0, 3.0], &[1.0, 2.0, 4.0]),
            None
        );
    }
}
