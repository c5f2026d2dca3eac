//! The second tile of a tiled product read transposed: `sum += a_s[ty][k] * b_s[tx][k]` where
//! both tiles were filled the same way (`[r][c]`: a row of the matrix per tile row). The first
//! tile's rows are the output's rows, so `a_s[ty][k]` is right; the second's rows are the
//! steps of k, so its element for column tx is `b_s[k][tx]`. Said where the source shows the
//! product line, inside a loop over `k`, reading both tiles with `k` last and different row
//! indices, and both tiles written with the same last two subscripts elsewhere (filled alike).

use super::eval::canonical;
use super::source::subscripts_in;
use super::wrong::{in_loop, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let tiles: Vec<String> = src
        .shared_arrays()
        .into_iter()
        .filter(|(_, d)| d.len() >= 2)
        .map(|(n, _)| n)
        .collect();
    let last2 = |d: &[String]| -> Option<[String; 2]> {
        (d.len() >= 2).then(|| [canonical(&d[d.len() - 2]), canonical(&d[d.len() - 1])])
    };
    for l in 1..=src.lines() {
        let code = src.line(l);
        if !code.contains("+=") || !code.contains('*') {
            continue;
        }
        let Some(k) = in_loop(src, l)
            .and_then(|h| src.loop_header(h))
            .and_then(|lh| lh.init)
            .and_then(|i| super::index::loop_var(&i))
        else {
            continue;
        };
        let read: Vec<(String, Vec<String>)> = tiles
            .iter()
            .flat_map(|t| {
                subscripts_in(code, t)
                    .into_iter()
                    .map(move |d| (t.clone(), d))
            })
            .collect();
        let [(p, pd), (q, qd)] = read.as_slice() else {
            continue;
        };
        let (Some([pi, pk]), Some([qj, qk])) = (last2(pd), last2(qd)) else {
            continue;
        };
        if p == q || pk != k || qk != k || pi == qj || pi == k || qj == k {
            continue;
        }
        // Both tiles filled alike: the same last two subscripts on some other line.
        let fills = |t: &str| -> Vec<[String; 2]> {
            (1..=src.lines())
                .filter(|&x| x != l && !src.line(x).contains("__shared__"))
                .flat_map(|x| subscripts_in(src.line(x), t))
                .filter_map(|d| last2(&d))
                .collect()
        };
        let (pf, qf) = (fills(p), fills(q));
        let Some(shape) = pf.iter().find(|s| qf.contains(s)) else {
            continue;
        };
        let before: String = qd[..qd.len() - 2]
            .iter()
            .map(|d| format!("[{}]", d.trim()))
            .collect();
        let j = qd[qd.len() - 2].trim();
        return Some(format!(
            "Line {l} reads `{q}` as `{q}{before}[{j}][{k}]`, but `{q}` is filled like `{p}` (`[{}][{}]`: a row of the matrix per tile row), so its rows are the steps of `{k}`: the element for column `{j}` at step `{k}` is `{q}{before}[{k}][{j}]`. Only the first tile is read row by row (`{p}[..][{pi}][{k}]`).",
            shape[0], shape[1]
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: single buffers `xs`/`ys`, loop variable `e`, filled
    // `[y][x]` in place.
    const MM: &str = "__global__ void mm(float* o, const float* a, const float* b, int n) {\n    __shared__ float xs[8][8];\n    __shared__ float ys[8][8];\n    int x = threadIdx.x, y = threadIdx.y;\n    float acc = 0.0f;\n    xs[y][x] = a[y * n + x];\n    ys[y][x] = b[y * n + x];\n    __syncthreads();\n    for (int e = 0; e < 8; e++) {\n        acc += xs[y][e] * ys[x][e];\n    }\n    o[y * n + x] = acc;\n}\n";

    #[test]
    fn a_second_tile_read_transposed_is_named() {
        let sc = scene(MM, [1, 1, 1], [8, 8, 1]);
        let h = said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]).unwrap_or_default();
        assert!(
            h.contains("Line 10 reads `ys` as `ys[x][e]`") && h.contains("is `ys[e][x]`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_a_tile_stored_transposed_or_read_right() {
        // Stored transposed (`ys[x][y]`), read `[x][e]`: right, and the fills differ.
        let stored = MM.replace("ys[y][x] = b", "ys[x][y] = b");
        let sc = scene(&stored, [1, 1, 1], [8, 8, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]), None);
        let right = MM.replace("ys[x][e]", "ys[e][x]");
        let sc = scene(&right, [1, 1, 1], [8, 8, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]), None);
    }
}
