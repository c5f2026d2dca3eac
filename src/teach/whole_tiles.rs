//! A tile loop that runs only while a whole tile fits (`for (t0 = 0; t0 + TILE <= K; t0 +=
//! TILE)`) although its body is written for a partial tile (its loads test `t0 + tx < K` and
//! pad): the last, partial tile is never taken. Said where the source shows both: the loop's
//! condition adds its own step to the variable before comparing with the bound, and a line of
//! its body compares the variable plus an offset with the same bound by `<`.

use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let canon = super::eval::canonical;
    for l in 1..=src.lines() {
        let Some(h) = src.loop_header(l).filter(|h| h.line == l) else {
            continue;
        };
        let (Some(init), Some(step)) = (h.init.as_deref(), h.step.as_deref()) else {
            continue;
        };
        let Some(var) = init
            .split_once('=')
            .and_then(|(lhs, _)| lhs.split_whitespace().last())
            .map(str::to_string)
        else {
            continue;
        };
        let Some(by) = canon(step)
            .strip_prefix(&format!("{var}+="))
            .map(str::to_string)
        else {
            continue;
        };
        // `var + by <= bound`.
        let cond = canon(&h.cond);
        let Some(bound) = cond.strip_prefix(&format!("{var}+{by}<=")) else {
            continue;
        };
        // The body pads a partial tile: `var + x < bound` somewhere in it.
        let pads = src.loop_body(l).skip(1).find(|&b| {
            let t = canon(src.line(b));
            t.contains(&format!("{var}+")) && t.contains(&format!("<{bound}"))
        });
        let Some(pad) = pads else {
            continue;
        };
        return Some(format!(
            "The loop on line {l} (`{}`) runs only while a whole tile fits (`{}`), so the last, partial tile of `{bound}` is never taken; its body already handles a partial tile (line {pad}, `{}`). Run it while `{var} < {bound}`.",
            src.line(l).trim(),
            h.cond.trim(),
            src.line(pad).trim()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const CHUNKS: &str = "__global__ void rowsum(float* out, const float* m, int width) {\n    __shared__ float chunk[32];\n    float acc = 0.0f;\n    for (int base = 0; base + 32 <= width; base += 32) {\n        chunk[threadIdx.x] = base + threadIdx.x < width ? m[blockIdx.x * width + base + threadIdx.x] : 0.0f;\n        __syncthreads();\n        for (int j = 0; j < 32; j++) acc += chunk[j];\n        __syncthreads();\n    }\n    if (threadIdx.x == 0) out[blockIdx.x] = acc;\n}\n";

    #[test]
    fn a_tile_loop_over_whole_tiles_only_is_named_where_its_body_pads() {
        // Another shape: one row summed in chunks of 32 through shared memory.
        let sc = scene(CHUNKS, [2, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "out", &[70.0, 80.0], &[64.0, 64.0]).unwrap_or_default();
        assert!(
            h.contains("The loop on line 4 (`for (int base = 0; base + 32 <= width; base += 32) {`) runs only while a whole tile fits (`base + 32 <= width`)")
                && h.contains("(line 5, `chunk[threadIdx.x] = base + threadIdx.x < width ?")
                && h.contains("`base < width`"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_loop_takes_the_partial_tile_or_the_body_does_not_pad() {
        let all = CHUNKS.replace("base + 32 <= width;", "base < width;");
        let sc = scene(&all, [2, 1, 1], [32, 1, 1]);
        assert_eq!(
            said(explain, &sc, "out", &[70.0, 80.0], &[64.0, 64.0]),
            None
        );
        // Whole tiles by design: no load tests a partial one.
        let whole = CHUNKS.replace(
            "base + threadIdx.x < width ? m[blockIdx.x * width + base + threadIdx.x] : 0.0f",
            "m[blockIdx.x * width + base + threadIdx.x]",
        );
        let sc = scene(&whole, [2, 1, 1], [32, 1, 1]);
        assert_eq!(
            said(explain, &sc, "out", &[70.0, 80.0], &[64.0, 64.0]),
            None
        );
    }
}
