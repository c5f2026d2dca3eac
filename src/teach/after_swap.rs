//! A double buffer read on the wrong side after its loop: each round writes `buf[1 - in]` and
//! ends with `in = 1 - in`, so after the loop `in` already names the buffer the last round
//! wrote; a read of `buf[1 - in]` there gets the round before. Said where the source shows the
//! loop's write at `1 - in`, the swap in the same body, and a read at `1 - in` after the loop
//! in the same function. The fix is the side `in`.

use super::eval::canonical;
use super::source::uses_in;
use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    for h in 1..=src.lines() {
        if src.loop_header(h).is_none_or(|lh| lh.line != h) {
            continue;
        }
        let body: Vec<u32> = src.loop_body(h).collect();
        let end = *body.last()?;
        // The swap `x = 1 - x` in the body.
        let Some((swap, x)) = body.iter().find_map(|&l| {
            let c = canonical(src.line(l));
            let c = c.trim_end_matches(';');
            let (lhs, rhs) = c.split_once('=')?;
            (rhs == format!("1-{lhs}") && !lhs.is_empty()).then(|| (l, lhs.to_string()))
        }) else {
            continue;
        };
        let other = format!("1-{x}");
        // A buffer written at `1 - x` in the body.
        let written = src.shared_names().into_iter().find(|b| {
            body.iter().any(|&l| {
                uses_in(src.line(l), b)
                    .iter()
                    .any(|u| u.write && u.dims.first().is_some_and(|d| canonical(d) == other))
            })
        });
        let Some(buf) = written else {
            continue;
        };
        // Read at `1 - x` after the loop, in the same function.
        let f = src.function_of(h);
        let read = (end + 1..=src.lines())
            .take_while(|&l| src.function_of(l) == f)
            .find_map(|l| {
                uses_in(src.line(l), &buf)
                    .into_iter()
                    .find(|u| !u.write && u.dims.first().is_some_and(|d| canonical(d) == other))
                    .map(|u| (l, u.dims))
            });
        let Some((l, dims)) = read else {
            continue;
        };
        let seen: String = dims.iter().map(|d| format!("[{}]", d.trim())).collect();
        let fixed: String = std::iter::once(format!("[{x}]"))
            .chain(dims.iter().skip(1).map(|d| format!("[{}]", d.trim())))
            .collect();
        return Some(format!(
            "Each round of the loop on line {h} writes `{buf}[1 - {x}]` and then swaps (`{}`, line {swap}), so after the loop `{x}` already names the buffer the last round wrote. Line {l} reads `{buf}{seen}`, the round before the last: read `{buf}{fixed}`.",
            src.line(swap).trim()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: a smoothing pass over `ping` with the side in `cur`.
    const SMOOTH: &str = "__global__ void smooth(float* y, const float* x) {\n    __shared__ float ping[2][64];\n    int t = threadIdx.x;\n    int cur = 0;\n    ping[0][t] = x[t];\n    __syncthreads();\n    for (int r = 0; r < 4; r++) {\n        ping[1 - cur][t] = 0.5f * (ping[cur][t] + ping[cur][(t + 1) % 64]);\n        __syncthreads();\n        cur = 1 - cur;\n    }\n    y[t] = ping[1 - cur][t];\n}\n";

    #[test]
    fn a_read_of_the_side_before_the_last_swap_gets_the_side_written_last() {
        let sc = scene(SMOOTH, [1, 1, 1], [64, 1, 1]);
        let h = said(explain, &sc, "y", &[1.0, 2.0], &[1.5, 2.0]).unwrap_or_default();
        assert!(
            h.contains("loop on line 7 writes `ping[1 - cur]`")
                && h.contains("line 10")
                && h.contains("Line 12 reads `ping[1 - cur][t]`")
                && h.contains("read `ping[cur][t]`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_the_right_side_or_no_swap() {
        let right = SMOOTH.replace("y[t] = ping[1 - cur][t];", "y[t] = ping[cur][t];");
        let sc = scene(&right, [1, 1, 1], [64, 1, 1]);
        assert_eq!(said(explain, &sc, "y", &[1.0, 2.0], &[1.5, 2.0]), None);
        let no_swap = SMOOTH.replace("        cur = 1 - cur;\n", "");
        let sc = scene(&no_swap, [1, 1, 1], [64, 1, 1]);
        assert_eq!(said(explain, &sc, "y", &[1.0, 2.0], &[1.5, 2.0]), None);
    }
}
