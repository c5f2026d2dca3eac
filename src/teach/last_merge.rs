//! A merge network whose outer loop stops before the whole tile: `for (k = 2; k < TPB; k *= 2)
//! for (j = k / 2; j > 0; j /= 2) ...` merges runs of up to TPB / 2 and never the last step,
//! the merge of the tile's two halves, so the tile ends as two sorted halves (the right values
//! at the wrong places). Said where the source shows a doubling loop from 2 whose `<` bound is
//! the block's size for this launch and whose body holds a loop starting at half its variable.
//! The fix is `<=`.

use super::eval::{canonical, eval};
use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    let env = w.env();
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let (Some(init), Some(step)) = (head.init.as_deref(), head.step.as_deref()) else {
            continue;
        };
        let Some(v) = super::index::loop_var(init) else {
            continue;
        };
        let start = init.split_once('=').map(|(_, r)| r.trim()).unwrap_or("");
        let st = canonical(step);
        let doubles = [format!("{v}*=2"), format!("{v}<<=1"), format!("{v}={v}*2")].contains(&st);
        if start != "2" || !doubles {
            continue;
        }
        let cond = canonical(&head.cond);
        let Some(bound) = cond.strip_prefix(&format!("{v}<")) else {
            continue;
        };
        if bound.starts_with('=') || eval(bound, &env) != Some(w.block_x() as i64) {
            continue;
        }
        // An inner loop from half the variable: the merge steps of one size.
        let inner = src.loop_body(h).filter(|&l| l != h).find(|&l| {
            src.loop_header(l).is_some_and(|ih| {
                ih.line == l
                    && ih.init.as_deref().is_some_and(|i| {
                        let r = canonical(i.split_once('=').map_or("", |x| x.1));
                        r == format!("{v}/2") || r == format!("{v}>>1")
                    })
            })
        });
        let Some(inner) = inner else {
            continue;
        };
        let b = head.cond.split_once('<').map_or(bound, |x| x.1).trim();
        return Some(format!(
            "The loop on line {h} runs while `{}`: it stops before `{v}` = `{b}`, so the last merge (line {inner} with `{v}` = `{b}`, the whole tile's two halves) never runs, and the tile ends as two sorted halves. Loop while `{v} <= {b}`.",
            head.cond.trim()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: `width`/`half` names, the bound blockDim.x, `<<= 1`.
    const NET: &str = "__global__ void net(int* o, const int* a) {\n    __shared__ int v[32];\n    int t = threadIdx.x;\n    v[t] = a[t];\n    __syncthreads();\n    for (int width = 2; width < blockDim.x; width <<= 1) {\n        for (int half = width >> 1; half > 0; half >>= 1) {\n            int p = t ^ half;\n            if (p > t && (v[t] > v[p]) == ((t & width) == 0)) { int x = v[t]; v[t] = v[p]; v[p] = x; }\n            __syncthreads();\n        }\n    }\n    o[t] = v[t];\n}\n";

    #[test]
    fn a_merge_network_stopping_before_the_tile_is_named() {
        let sc = scene(NET, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]).unwrap_or_default();
        assert!(
            h.contains("The loop on line 6 runs while `width < blockDim.x`")
                && h.contains("line 7")
                && h.contains("`width <= blockDim.x`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_the_inclusive_bound_or_a_loop_without_merges() {
        let right = NET.replace("width < blockDim.x", "width <= blockDim.x");
        let sc = scene(&right, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]), None);
        // A doubling loop without an inner loop from half of it (a scan's offsets).
        let scan = NET.replace("int half = width >> 1", "int half = 1");
        let sc = scene(&scan, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]), None);
    }
}
