//! A shared tile filled from a read that does not depend on the tile's column: `a_tile[ty][tx]
//! = a[row * K + t0 + ty]`, where the column the thread loads should move with `tx`. Every
//! thread of a tile row loads the same element, so each row of the tile holds one value. Said
//! where the store's column index is the thread's x (`threadIdx.x` or a local set to it), the
//! tile has more than one column, and the read's index does not depend on x at all (through
//! the locals it uses) while it does depend on the store's row index, and where most of the
//! output is wrong (each row of the tile enters every product of its rows).

use super::eval::{names, row_major};
use super::source::{find_word, uses_in};
use super::wrong::{depends_on, indexed, thread_names, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    // A tile row of one value spoils every product it enters: most of the output is wrong.
    if 2 * w.mismatches.len() < w.got.len() {
        return None;
    }
    for s in w.src.shared_names() {
        let Some(dims) = w.src.shared_dims(&s) else {
            continue;
        };
        if dims.len() != 2 || super::eval::eval(&dims[1], &w.env()).is_some_and(|c| c < 2) {
            continue;
        }
        for l in 1..=w.src.lines() {
            let code = w.src.line(l);
            let Some(u) = uses_in(code, &s).into_iter().find(|u| u.write && !u.update) else {
                continue;
            };
            let (y, x) = (u.dims[0].trim().to_string(), u.dims[1].trim().to_string());
            let xs = thread_names(w.src, l, 'x');
            let ys = thread_names(w.src, l, 'y');
            if !xs.contains(&x) || !ys.contains(&y) {
                continue;
            }
            let rhs = &code[u.end..];
            let Some(rhs) = rhs.trim_start().strip_prefix('=') else {
                continue;
            };
            for (buf, idx) in indexed(rhs) {
                if w.src.shared_names().contains(&buf) {
                    continue;
                }
                let deps = depends_on(w.src, l, &idx);
                if deps.iter().any(|d| xs.contains(d)) || !names(&idx).contains(&y) {
                    continue;
                }
                // The fixed read: the row's offset kept, `y` in the column part replaced by `x`.
                let fixed = row_major(&idx).and_then(|(row, stride, col)| {
                    find_word(&col, &y)?;
                    Some(format!("{row} * {stride} + {}", replace_word(&col, &y, &x)))
                });
                let fix = match fixed {
                    Some(f) => format!(": `{buf}[{f}]` (and the same column in its guard)"),
                    None => String::new(),
                };
                return Some(format!(
                    "Line {l} fills `{s}[{y}][{x}]` from `{buf}[{idx}]`, which does not depend on `{x}` (threadIdx.x): every thread of a tile row loads the same element, so each row of `{s}` holds one value. The thread at column `{x}` of the tile loads the column that moves with `{x}`{fix}."
                ));
            }
        }
    }
    None
}

/// `text` with every whole word `from` replaced by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = find_word(rest, from) {
        out.push_str(&rest[..at]);
        out.push_str(to);
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn a_tile_read_that_ignores_the_column_is_named() {
        // Another shape: a transpose's tile, threadIdx used directly, other names.
        let src = "#define T 8\n__global__ void flip(float* dst, const float* m, int w) {\n    __shared__ float blk[T][T + 1];\n    int r = blockIdx.y * T + threadIdx.y;\n    blk[threadIdx.y][threadIdx.x] = m[r * w + blockIdx.x * T + threadIdx.y];\n    __syncthreads();\n    dst[r * w + blockIdx.x * T + threadIdx.x] = blk[threadIdx.x][threadIdx.y];\n}\n";
        let sc = scene(src, [1, 1, 1], [8, 8, 1]);
        let h = said(explain, &sc, "dst", &[1.0, 2.0], &[1.0, 1.0]).unwrap_or_default();
        assert!(
            h.contains("does not depend on `threadIdx.x`")
                && h.contains("`m[r * w + blockIdx.x * T + threadIdx.x]`"),
            "{h}"
        );
    }

    #[test]
    fn a_read_that_moves_with_the_column_stays_silent() {
        let src = "#define T 8\n__global__ void flip(float* dst, const float* m, int w) {\n    __shared__ float blk[T][T + 1];\n    int tx = threadIdx.x;\n    int c = blockIdx.x * T + tx;\n    int r = blockIdx.y * T + threadIdx.y;\n    blk[threadIdx.y][tx] = m[r * w + c];\n    __syncthreads();\n    dst[r * w + c] = blk[tx][threadIdx.y];\n}\n";
        let sc = scene(src, [1, 1, 1], [8, 8, 1]);
        assert_eq!(said(explain, &sc, "dst", &[1.0, 2.0], &[1.0, 1.0]), None);
    }

    #[test]
    fn a_few_wrong_elements_are_not_a_tile_of_one_value_per_row() {
        let src = "#define T 8\n__global__ void flip(float* dst, const float* m, int w) {\n    __shared__ float blk[T][T + 1];\n    int r = blockIdx.y * T + threadIdx.y;\n    blk[threadIdx.y][threadIdx.x] = m[r * w + blockIdx.x * T + threadIdx.y];\n    __syncthreads();\n    dst[r * w + blockIdx.x * T + threadIdx.x] = blk[threadIdx.x][threadIdx.y];\n}\n";
        let sc = scene(src, [1, 1, 1], [8, 8, 1]);
        let e = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(said(explain, &sc, "dst", &e, &[1.0, 2.0, 3.0, 5.0]), None);
    }
}
