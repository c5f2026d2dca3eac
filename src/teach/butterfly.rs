//! A warp fold that starts below half the warp: `for (o = 8; o > 0; o /= 2) v op=
//! __shfl_xor_sync(0xffffffff, v, o)` combines lanes at most 15 apart, so the warp's two halves
//! end with two different values. Said where the source shows it: a loop whose offset starts
//! at a power of two below 16 and halves to 1, a full-warp shuffle by that offset in its body,
//! blocks of at least a warp, and a kernel that works in whole warps (another fold from 16, or
//! lanes counted in 32s). The fix is the start, 16.

use super::source::find_word;
use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    if w.block_x() < 32 {
        return None;
    }
    let src = w.src;
    let mut whole = None;
    let mut short = None;
    for l in 1..=src.lines() {
        let Some(h) = src.loop_header(l).filter(|h| h.line == l) else {
            continue;
        };
        let Some((var, start)) = h.init.as_deref().and_then(start_of) else {
            continue;
        };
        let halves = h.step.as_deref().is_some_and(|s| {
            let s = super::eval::canonical(s);
            s == format!("{var}/=2") || s == format!("{var}>>=1") || s == format!("{var}={var}/2")
        });
        if !halves {
            continue;
        }
        // A full-warp shuffle by the offset in the loop.
        let shuffles = src.loop_body(l).any(|b| {
            let t = src.line(b);
            ["__shfl_xor_sync", "__shfl_down_sync"]
                .iter()
                .any(|f| t.contains(f))
                && t.contains("0xffffffff")
                && find_word(t, &var).is_some()
        });
        if !shuffles {
            continue;
        }
        match start {
            16 => whole = whole.or(Some(l)),
            1 | 2 | 4 | 8 => short = short.or(Some((l, var, start))),
            _ => {}
        }
    }
    let (l, var, start) = short?;
    // The kernel works in whole warps: another fold from 16, or lanes counted in 32s.
    let warps = whole.is_some()
        || (1..=src.lines()).any(|x| {
            let t = super::eval::canonical(src.line(x));
            ["%32", "&31", "warpSize", "/32"]
                .iter()
                .any(|k| t.contains(k))
        });
    if !warps {
        return None;
    }
    let group = 2 * start;
    let like = whole.map_or(String::new(), |h| format!(", as the loop on line {h} does"));
    Some(format!(
        "The shuffle loop on line {l} (`{}`) starts at offset {start}, so it only combines lanes less than {group} apart: the 32 lanes of a warp end with {} different results, one for each group of {group} lanes. To fold the whole warp, start at 16 (`{var} = 16`){like}.",
        src.line(l).trim(),
        32 / group
    ))
}

/// `int o = 8` → ("o", 8).
fn start_of(init: &str) -> Option<(String, u32)> {
    let (lhs, rhs) = init.split_once('=')?;
    let var = lhs.split_whitespace().last()?.to_string();
    Some((var, rhs.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const WARP_MAX: &str = "__global__ void wmax(float* best, const float* v) {\n    float x = v[blockIdx.x * 64 + threadIdx.x];\n    for (int d = 4; d >= 1; d >>= 1) {\n        x = fmaxf(x, __shfl_down_sync(0xffffffff, x, d));\n    }\n    if (threadIdx.x % 32 == 0) best[blockIdx.x * 2 + threadIdx.x / 32] = x;\n}\n";

    #[test]
    fn a_warp_fold_that_starts_below_sixteen_is_named() {
        // Another shape: a max by `__shfl_down_sync` from 4, `d >>= 1`.
        let sc = scene(WARP_MAX, [1, 1, 1], [64, 1, 1]);
        let h = said(explain, &sc, "best", &[9.0, 8.0], &[5.0, 8.0]).unwrap_or_default();
        assert!(
            h.contains("The shuffle loop on line 3 (`for (int d = 4; d >= 1; d >>= 1) {`) starts at offset 4")
                && h.contains("4 different results, one for each group of 8 lanes")
                && h.contains("`d = 16`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_a_fold_from_sixteen_or_a_sub_warp_block() {
        let whole = WARP_MAX.replace("int d = 4", "int d = 16");
        let sc = scene(&whole, [1, 1, 1], [64, 1, 1]);
        assert_eq!(said(explain, &sc, "best", &[9.0, 8.0], &[5.0, 8.0]), None);
        // Blocks of 8 threads: a fold from 4 covers them.
        let sc = scene(WARP_MAX, [1, 1, 1], [8, 1, 1]);
        assert_eq!(said(explain, &sc, "best", &[9.0, 8.0], &[5.0, 8.0]), None);
    }
}
