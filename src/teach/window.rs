//! A window over shared memory whose neighbour reads are guarded wrong: `if (local_i >= 1) sum
//! += cache[local_i - 1]`. Two causes, each said where the source has it and the wrong
//! elements sit where it predicts:
//! - the guard is on the block's own index: every block but the first restarts its window at
//!   its edge, where its first threads need the elements of the block before, which the shared
//!   array (this block's elements only) does not hold; the wrong elements are the first of
//!   their blocks;
//! - the guard is off by one (`local_i > 1` for a read at `local_i - 1`): it drops a neighbour
//!   that exists; the wrong elements include the threads it drops.

use super::source::uses_in;
use super::wrong::{indexed, is_global_index, thread_names, Seen};

/// A guarded neighbour read: line, shared array, local index, offset, guard as written, and
/// the smallest local index the guard lets through.
struct Neighbour {
    line: u32,
    array: String,
    local: String,
    back: i64,
    cond: String,
    from: i64,
}

fn neighbours(w: &Seen) -> Vec<Neighbour> {
    let shared = w.src.shared_names();
    let mut out = Vec::new();
    for l in 1..=w.src.lines() {
        let code = w.src.line(l);
        let locals = thread_names(w.src, l, 'x');
        for (array, sub) in indexed(code) {
            if !shared.contains(&array) {
                continue;
            }
            // `L - m`, with L the thread's index in its block.
            let Some((lhs, m)) = sub.rsplit_once('-') else {
                continue;
            };
            let (local, Ok(back)) = (lhs.trim(), m.trim().parse::<i64>()) else {
                continue;
            };
            if back < 1 || !locals.iter().any(|x| x == local) {
                continue;
            }
            // Its guard: `L > k` or `L >= k`.
            let mut guards = w.src.guards(l);
            if let Some(cond) =
                super::source::if_condition(code).filter(|_| !guards.iter().any(|g| g.line == l))
            {
                guards.push(super::source::Guard {
                    line: l,
                    cond,
                    returns: false,
                });
            }
            for g in guards {
                let from = lowest_let_through(&super::eval::canonical(&g.cond), local);
                if let Some(from) = from.filter(|_| !g.returns) {
                    out.push(Neighbour {
                        line: l,
                        array: array.clone(),
                        local: local.to_string(),
                        back,
                        cond: g.cond.clone(),
                        from,
                    });
                }
            }
        }
    }
    out
}

/// The smallest `local` a guard (without spaces) lets through: `L>=k`, `L>k`, and the same
/// with an offset, `L-m>=k` (as `L >= m + k`); `None` for any other condition.
fn lowest_let_through(cond: &str, local: &str) -> Option<i64> {
    let rest = cond.strip_prefix(local)?;
    let (shift, rest) = match rest.strip_prefix('-') {
        Some(r) => {
            let digits = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            (r[..digits].parse::<i64>().ok()?, &r[digits..])
        }
        None => (0, rest),
    };
    if let Some(k) = rest.strip_prefix(">=") {
        k.parse::<i64>().ok()?.checked_add(shift)
    } else {
        let k = rest.strip_prefix('>')?;
        k.parse::<i64>().ok()?.checked_add(1)?.checked_add(shift)
    }
}

pub fn explain(w: &Seen) -> Option<String> {
    let reads = neighbours(w);
    let block = w.block_x();
    if reads.is_empty() || block == 0 {
        return None;
    }
    let mut said = Vec::new();
    // Off by one: the guard drops local indices whose neighbour exists, and an element of such
    // a thread is wrong.
    for r in &reads {
        if r.from <= r.back {
            continue;
        }
        let dropped = r.back..r.from;
        let Some(&i) = w
            .mismatches
            .iter()
            .find(|&&i| dropped.contains(&((i % block) as i64)))
        else {
            continue;
        };
        let t = i % block;
        said.push(format!(
            "Line {} adds `{}[{} - {}]` only where `{}`: that leaves out thread {t} of each block ({} = {t}), whose neighbour `{}[{}]` exists, so {}[{i}] misses it. The read at `{} - {}` needs `{} >= {}`.",
            r.line, r.array, r.local, r.back, r.cond, r.local, r.array, (t as i64).saturating_sub(r.back), w.name, r.local, r.back, r.local, r.back
        ));
    }
    // The window restarts at each block's edge: the guard is on the block's own index, the
    // array holds this block's elements, and the wrong elements are the first of later blocks.
    let widest = reads.iter().map(|r| r.back).max()?;
    let first_wrong = w
        .mismatches
        .iter()
        .copied()
        .find(|&i| i >= block && ((i % block) as i64) < widest);
    let fill = (1..=w.src.lines()).find_map(|l| {
        let code = w.src.line(l);
        let r = &reads[0];
        let writes = uses_in(code, &r.array)
            .iter()
            .any(|u| u.write && u.dims.first().map(String::as_str) == Some(r.local.as_str()));
        if !writes {
            return None;
        }
        let rhs = code.split_once('=')?.1;
        indexed(rhs).into_iter().find_map(|(buf, sub)| {
            let g = super::eval::names(&sub)
                .into_iter()
                .find(|n| is_global_index(w.src, l, n).is_some())?;
            Some((l, buf, g))
        })
    });
    if let (Some(i), Some((fl, buf, g)), true) = (first_wrong, fill, w.blocks() > 1) {
        let r = &reads[0];
        said.push(format!(
            "{}[{i}] is wrong: thread {} of block {} needs elements from before its block, but the guard on line {} (`{}`) is on the block's own index `{}`, and `{}` holds this block's elements only (line {fl} fills it from `{buf}[{g}]`). At the block's edge the window restarts instead of reaching back into the previous block. Guard with the global index (`{g} >= {}`) and load a halo: {widest} more slots in front of `{}`, filled by the first threads from `{buf}[{g} - {widest}]`, and read `{}[{} + {widest} - k]` for the neighbour k places back.",
            w.name,
            i % block,
            i / block,
            r.line,
            r.cond,
            r.local,
            r.array,
            r.back,
            r.array,
            r.array,
            r.local
        ));
    }
    (!said.is_empty()).then(|| said.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    /// A backward difference over a window of one, other names than puzzle 9's.
    const DIFF: &str = "__global__ void delta(float* d, const float* x, int len) {\n    __shared__ float sh[32];\n    int t = threadIdx.x;\n    int g = blockIdx.x * 32 + t;\n    if (g < len) sh[t] = x[g];\n    __syncthreads();\n    if (g < len) {\n        float v = sh[t];\n        if (t >= 1) { v -= sh[t - 1]; }\n        d[g] = v;\n    }\n}\n";

    fn wrong_at(n: usize, at: &[usize]) -> (Vec<f64>, Vec<f64>) {
        let e: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let mut g = e.clone();
        for &i in at {
            g[i] += 5.0;
        }
        (e, g)
    }

    #[test]
    fn a_window_that_restarts_at_each_block_is_named() {
        let sc = scene(DIFF, [3, 1, 1], [32, 1, 1]);
        let (e, g) = wrong_at(96, &[32, 64]);
        let h = said(explain, &sc, "d", &e, &g).unwrap_or_default();
        assert!(
            h.starts_with("d[32] is wrong: thread 0 of block 1")
                && h.contains("`g >= 1`")
                && h.contains("halo")
                && h.contains("from `x[g]`"),
            "{h}"
        );
        assert!(!h.contains("needs `t >= 1`"), "{h}");
    }

    #[test]
    fn a_guard_off_by_one_is_named_with_the_thread_it_drops() {
        let src = DIFF.replace("if (t >= 1) {", "if (t > 2) {");
        let sc = scene(&src, [1, 1, 1], [32, 1, 1]);
        let (e, g) = wrong_at(32, &[1, 2]);
        let h = said(explain, &sc, "d", &e, &g).unwrap_or_default();
        assert!(
            h.contains("only where `t > 2`: that leaves out thread 1 of each block")
                && h.contains("needs `t >= 1`"),
            "{h}"
        );
    }

    #[test]
    fn guards_are_read_with_and_without_an_offset() {
        assert_eq!(lowest_let_through("t>=1", "t"), Some(1));
        assert_eq!(lowest_let_through("t>1", "t"), Some(2));
        assert_eq!(lowest_let_through("t-1>=0", "t"), Some(1));
        assert_eq!(lowest_let_through("t-2>0", "t"), Some(3));
        assert_eq!(lowest_let_through("t<1", "t"), None);
        assert_eq!(lowest_let_through("tx>1", "t"), None);
        // A bound at the edge of the integers is no panic.
        assert_eq!(lowest_let_through("t>9223372036854775807", "t"), None);
    }

    #[test]
    fn right_guards_or_wrong_elements_elsewhere_stay_silent() {
        // One block: no edge to restart at, and the guard is right.
        let sc = scene(DIFF, [1, 1, 1], [32, 1, 1]);
        let (e, g) = wrong_at(32, &[0, 7]);
        assert_eq!(said(explain, &sc, "d", &e, &g), None);
        // Several blocks, but the wrong elements are not at any block's start.
        let sc = scene(DIFF, [3, 1, 1], [32, 1, 1]);
        let (e, g) = wrong_at(96, &[40, 70]);
        assert_eq!(said(explain, &sc, "d", &e, &g), None);
    }
}
