//! An exchange of two `__shared__` elements that writes only one side: `x = s[a]; y = s[b];`
//! then `s[a] = y;` and no store to `s[b]` anywhere. Said where the source shows the two reads
//! into fresh locals, the one store of the other's value a few lines below them in the same
//! loop, no store at the second index, and the
//! output shows the trace of it: its values are not the spec's values in another order (one
//! was copied over another and lost).

use super::wrong::{in_loop, indexed, Seen};

/// Lines after the second read within which the exchange's store must stand.
const NEAR: u32 = 6;

pub fn explain(w: &Seen) -> Option<String> {
    // The values the output holds are not a rearrangement of the spec's: something was lost.
    let mut got = w.got.to_vec();
    let mut want = w.expected.to_vec();
    got.sort_by(f64::total_cmp);
    want.sort_by(f64::total_cmp);
    if got == want {
        return None;
    }
    let shared = w.src.shared_names();
    let lines = w.src.lines();
    // `T x = s[a];`: locals read from one element of a shared array, with their line.
    let reads: Vec<(u32, String, String, String)> = (1..=lines)
        .filter_map(|l| {
            let (local, value) = w.src.line(l).trim().split_once('=')?;
            // A declaration (`float lo = ...`): a fresh copy taken for the exchange.
            let words: Vec<&str> = local.split_whitespace().collect();
            if words.len() < 2 {
                return None;
            }
            let local = words.last()?.to_string();
            if !local.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let value = value.trim().trim_end_matches(';').trim();
            let [(array, index)] = indexed(value).try_into().ok()?;
            let whole = value.strip_prefix(array.as_str())?;
            (shared.contains(&array) && whole.starts_with('[') && whole.ends_with(']'))
                .then_some((l, local, array, index))
        })
        .collect();
    for (la, x, array, a) in &reads {
        for (lb, y, _, b) in reads.iter().filter(|r| &r.2 == array && &r.3 != a) {
            // `s[a] = y;`, a few lines after both reads (the same exchange).
            let first = (*la).min(*lb);
            let last = (*la).max(*lb);
            let Some(store) = (last + 1..=(last + NEAR).min(lines)).find(|&l| {
                let code = w.src.line(l);
                stores(code, array).iter().any(|(i, v)| i == a && v == y)
            }) else {
                continue;
            };
            if in_loop(w.src, first) != in_loop(w.src, store) {
                continue;
            }
            // No store at the other index, anywhere.
            if (1..=lines).any(|l| stores(w.src.line(l), array).iter().any(|(i, _)| i == b)) {
                continue;
            }
            return Some(format!(
                "The exchange on line {store} stores `{y}` (read from `{array}[{b}]` on line {lb}) into `{array}[{a}]`, but nothing stores `{x}` (read from `{array}[{a}]` on line {la}) into `{array}[{b}]`: `{array}[{b}]` keeps its value, so it is now in both places and `{x}` is lost (the output's values are not the spec's in another order). Write both sides: `{array}[{b}] = {x};` beside line {store}."
            ));
        }
    }
    None
}

/// The stores to `array` on a line, each as (index, stored value), the value trimmed.
fn stores(code: &str, array: &str) -> Vec<(String, String)> {
    code.split(['{', '}'])
        .flat_map(|part| part.split(';'))
        .filter_map(|stmt| {
            let (lhs, rhs) = stmt.split_once('=')?;
            if rhs.starts_with('=') || lhs.ends_with(['<', '>', '!']) {
                return None;
            }
            // The statement's own target, after any `if (...)` before it.
            let target = lhs.rsplit(')').next().unwrap_or(lhs).trim();
            let [(name, index)] = indexed(target).try_into().ok()?;
            (name == array && target.starts_with(array)).then(|| (index, rhs.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const ODD_EVEN: &str = "__global__ void oesort(float* v_out, const float* v_in) {\n    __shared__ float buf[8];\n    int k = threadIdx.x;\n    buf[k] = v_in[k];\n    __syncthreads();\n    for (int round = 0; round < 8; round++) {\n        int left = 2 * k + (round & 1);\n        if (k < 4 && left + 1 < 8) {\n            float lo = buf[left];\n            float hi = buf[left + 1];\n            if (lo > hi) { buf[left] = hi; }\n        }\n        __syncthreads();\n    }\n    v_out[k] = buf[k];\n}\n";

    #[test]
    fn an_exchange_that_writes_one_side_is_named_with_the_missing_store() {
        // Another shape: an odd-even transposition sort, the store inside braces.
        let sc = scene(ODD_EVEN, [1, 1, 1], [8, 1, 1]);
        let h = said(
            explain,
            &sc,
            "v_out",
            &[1.0, 2.0, 3.0, 4.0],
            &[1.0, 1.0, 3.0, 4.0],
        )
        .unwrap_or_default();
        for part in [
            "The exchange on line 11 stores `hi` (read from `buf[left + 1]` on line 10) into `buf[left]`",
            "nothing stores `lo` (read from `buf[left]` on line 9) into `buf[left + 1]`",
            "`buf[left + 1] = lo;`",
        ] {
            assert!(h.contains(part), "missing {part:?} in: {h}");
        }
    }

    #[test]
    fn silent_where_both_sides_are_written_or_the_values_are_only_reordered() {
        let both = ODD_EVEN.replace(
            "{ buf[left] = hi; }",
            "{ buf[left] = hi; buf[left + 1] = lo; }",
        );
        let sc = scene(&both, [1, 1, 1], [8, 1, 1]);
        assert_eq!(
            said(explain, &sc, "v_out", &[1.0, 2.0, 3.0], &[1.0, 1.0, 3.0]),
            None
        );
        // Only a reordering (a wrong direction): nothing was lost.
        let sc = scene(ODD_EVEN, [1, 1, 1], [8, 1, 1]);
        assert_eq!(
            said(explain, &sc, "v_out", &[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]),
            None
        );
    }
}
