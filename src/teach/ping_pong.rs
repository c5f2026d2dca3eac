//! A double buffer that is never swapped: inside a loop, every round reads one side
//! (`buf[0][i]`, or an array `cur`) and writes the other (`buf[1][i]`, `nxt`), and neither
//! side changes role, so each round starts again from the values before the loop and only the
//! last round's step survives. Said where, in the loop's body, the side read is never written
//! and the side written is never read, and the read's index depends on the loop's variable.

use super::source::uses_in;
use super::wrong::Seen;

/// The array and constant of an upper half as `side` names it (`temp[N + ...]`).
fn half(side: &str) -> Option<(&str, &str)> {
    side.strip_suffix(" + ...]")?.split_once('[')
}

/// One side of a buffer as the loop names it: `buf[0]` (a literal first index of a 2D array),
/// the upper half of a 1D array twice as long as a constant it is indexed past (`temp[TPB +
/// ...]` in `temp[2 * TPB]`), or a whole 1D array (its lower half, where it has two).
fn side(w: &Seen, array: &str, dims: &[String]) -> Option<String> {
    let declared = w.src.shared_dims(array)?;
    match (declared.len(), dims) {
        (2, [first, _]) if first.trim().parse::<u32>().is_ok() => {
            Some(format!("{array}[{}]", first.trim()))
        }
        (1, [sub]) => {
            let env = w.env();
            let len = super::eval::eval(&declared[0], &env);
            let terms = super::eval::split_top(sub, '+');
            let constant: Vec<&String> = terms
                .iter()
                .filter(|t| super::eval::eval(t, &env).is_some())
                .collect();
            match (terms.len(), constant.as_slice(), len) {
                (2.., [k], Some(len))
                    if super::eval::eval(k, &env).and_then(|k| k.checked_mul(2)) == Some(len) =>
                {
                    Some(format!("{array}[{} + ...]", k.trim()))
                }
                _ => Some(array.to_string()),
            }
        }
        _ => None,
    }
}

pub fn explain(w: &Seen) -> Option<String> {
    let shared = w.src.shared_names();
    for h in 1..=w.src.lines() {
        let Some(head) = w.src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let var = head
            .init
            .as_deref()
            .and_then(|i| i.split_once('='))
            .and_then(|(d, _)| d.split_whitespace().last().map(str::to_string));
        let Some(var) = var else {
            continue;
        };
        // Each side the body reads and writes, with a line of each.
        let mut read: Vec<(String, u32, bool)> = Vec::new();
        let mut written: Vec<(String, u32)> = Vec::new();
        for l in w.src.loop_body(h).filter(|&l| l != h) {
            let code = w.src.line(l);
            for s in &shared {
                for u in uses_in(code, s) {
                    let Some(name) = side(w, s, &u.dims) else {
                        continue;
                    };
                    if u.write {
                        written.push((name.clone(), l));
                    }
                    if !u.write || u.update {
                        let at_var = u.dims.iter().any(|d| super::eval::names(d).contains(&var));
                        read.push((name, l, at_var));
                    }
                }
            }
        }
        let Some((from, rl, _)) = read
            .iter()
            .find(|(r, _, at_var)| *at_var && !written.iter().any(|(x, _)| x == r))
        else {
            continue;
        };
        let Some((to, wl)) = written
            .iter()
            .find(|(x, _)| x != from && !read.iter().any(|(r, ..)| r == x))
        else {
            continue;
        };
        let array = to.split('[').next().unwrap_or(to);
        if !super::wrong::reaches(w.src, w.name, array) {
            continue;
        }
        // Two sides of one array (`buf[0]`, `buf[1]`), or two arrays.
        let keep = match (half(from).or(half(to)), from.split_once('['), to.split_once('[')) {
            (Some((a, k)), _, _) => format!("`int src = 0;` before the loop, read `{a}[src * {k} + ...]`, write `{a}[(1 - src) * {k} + ...]`, and `src = 1 - src;` after the barrier that ends the round; the result is then in the half `src` names"),
            (None, Some((a, _)), Some((b, _))) if a == b => format!("`int src = 0;` before the loop, read `{a}[src][...]`, write `{a}[1 - src][...]`, and `src = 1 - src;` after the barrier that ends the round; the result is then in `{a}[src]`"),
            _ => format!("read and write through two pointers (`float* cur = {from}; float* nxt = {to};`, the element type as declared), read `cur`, write `nxt`, and swap the pointers after the barrier that ends each round; the result is then in `cur`"),
        };
        return Some(format!(
            "The loop on line {h} reads `{from}` (line {rl}) and writes `{to}` (line {wl}) in every round: the two buffers are never swapped, so each round reads the values from before the loop instead of the last round's, and only the last round's step ends up in `{to}`. Swap them each round (ping-pong): {keep}."
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    #[test]
    fn a_double_buffer_never_swapped_is_named() {
        // Two arrays, other names: a smoothing repeated `steps` times.
        let src = "__global__ void smooth(float* y, const float* x, int steps) {\n    __shared__ float cur[64];\n    __shared__ float nxt[64];\n    int k = threadIdx.x;\n    cur[k] = x[k];\n    __syncthreads();\n    for (int r = 0; r < steps; r++) {\n        float v = cur[(k + r) % 64];\n        nxt[k] = 0.5f * v;\n        __syncthreads();\n    }\n    y[k] = nxt[k];\n}\n";
        let sc = scene(src, [1, 1, 1], [64, 1, 1]);
        let h = said(explain, &sc, "y", &[1.0, 2.0], &[3.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("reads `cur` (line 8) and writes `nxt` (line 9)")
                && h.contains("never swapped")
                && h.contains("swap the pointers"),
            "{h}"
        );
        // One 2D array, sides 1 and 0.
        let src = "__global__ void scan(int* o, const int* a) {\n    __shared__ int b[2][32];\n    int t = threadIdx.x;\n    b[1][t] = a[t];\n    __syncthreads();\n    for (int off = 1; off < 32; off <<= 1) {\n        int s = b[1][t];\n        if (t >= off) s += b[1][t - off];\n        b[0][t] = s;\n        __syncthreads();\n    }\n    o[t] = b[0][t];\n}\n";
        let sc = scene(src, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "o", &[1.0, 3.0], &[1.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("reads `b[1]` (line 8) and writes `b[0]` (line 9)")
                && h.contains("`b[src]`"),
            "{h}"
        );
    }

    #[test]
    fn a_swapped_buffer_or_one_updated_in_place_stays_silent() {
        let src = "__global__ void scan(int* o, const int* a) {\n    __shared__ int b[2][32];\n    int t = threadIdx.x;\n    int p = 0;\n    b[0][t] = a[t];\n    __syncthreads();\n    for (int off = 1; off < 32; off <<= 1) {\n        int s = b[p][t];\n        if (t >= off) s += b[p][t - off];\n        b[1 - p][t] = s;\n        p = 1 - p;\n        __syncthreads();\n    }\n    o[t] = b[p][t];\n}\n";
        let sc = scene(src, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0, 3.0], &[1.0, 2.0]), None);
        // One array of two halves, the lower read and the upper written every round.
        let src = "#define N 32\n__global__ void scan(float* o, const float* a) {\n    __shared__ float temp[2 * N];\n    int t = threadIdx.x;\n    temp[t] = a[t];\n    __syncthreads();\n    for (int d = 1; d < N; d *= 2) {\n        temp[N + t] = t >= d ? temp[t] + temp[t - d] : temp[t];\n        __syncthreads();\n    }\n    o[t] = temp[N + t];\n}\n";
        let sc = scene(src, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "o", &[1.0, 3.0], &[1.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("reads `temp` (line 8) and writes `temp[N + ...]` (line 8)")
                && h.contains("`temp[src * N + ...]`"),
            "{h}"
        );
        // One array read and written in the loop (a tree): no second buffer.
        let src = "__global__ void tot(float* o, const float* a) {\n    __shared__ float c[32];\n    int t = threadIdx.x;\n    c[t] = a[t];\n    __syncthreads();\n    for (int s = 16; s > 0; s /= 2) {\n        if (t < s) c[t] += c[t + s];\n        __syncthreads();\n    }\n    o[0] = c[0];\n}\n";
        let sc = scene(src, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[5.0], &[3.0]), None);
    }
}
