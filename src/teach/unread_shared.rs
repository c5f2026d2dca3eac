//! A `__shared__` array filled and never read back, while the output gets a constant: the
//! block's counts (`atomicAdd(&bins[v], 1)`) never reach `atomicAdd(&hist[t], 1u)`. Said where
//! the source shows each part: the array is written (a store, or the target of an atomic), no
//! line reads it otherwise, and the line that hands a value on to the output hands on a
//! literal, at a subscript the array could be read at.

use super::source::find_word;
use super::wrong::{indexed, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    // The line that hands a literal on to the output: `atomicAdd(&out[t], 1u)`, `out[t] = 1;`.
    let (store, sub, lit) = (1..=src.lines()).find_map(|l| {
        let code = src.line(l);
        let (_, sub) = indexed(code).into_iter().find(|(n, _)| n == w.name)?;
        let value = handed_on(code, w.name)?;
        let literal = value.trim_end_matches(['u', 'U', 'f', 'F', 'l', 'L']);
        (!literal.is_empty() && literal.parse::<f64>().is_ok()).then_some((l, sub, value))
    })?;
    for (array, _) in src.shared_arrays() {
        let mut filled = None;
        let mut read = false;
        for l in 1..=src.lines() {
            let code = src.line(l);
            if find_word(code, &array).is_none() || code.contains("__shared__") {
                continue;
            }
            let target = code.contains(&format!("&{array}[")) && code.contains("atomic");
            let uses = super::source::uses_in(code, &array);
            let writes = uses.iter().any(|u| u.write || u.update);
            if target || writes {
                // The fill that counts: an atomic, else the last store.
                if target || filled.is_none() {
                    filled = Some(l);
                }
            }
            // Any other use reads it.
            let plain_reads = uses.iter().filter(|u| !u.write && !u.update).count();
            let atomic_targets = code.matches(&format!("&{array}[")).count();
            if plain_reads > atomic_targets {
                read = true;
            }
        }
        let (Some(fill), false) = (filled, read) else {
            continue;
        };
        return Some(format!(
            "`{array}` is filled on line {fill} (`{}`) but no line reads it back, and line {store} (`{}`) hands the constant `{lit}` on to `{}`: what `{array}` collected never reaches the output. Hand on `{array}[{sub}]` there.",
            src.line(fill).trim(),
            src.line(store).trim(),
            w.name
        ));
    }
    None
}

/// The value a line hands on to `name`: an atomic's second argument when its first is
/// `&name[...]`, or the right side of `name[...] = value`.
fn handed_on(code: &str, name: &str) -> Option<String> {
    if let Some(at) = code.find(&format!("&{name}[")) {
        let open = code[..at].rfind('(')?;
        if !code[..open].trim_end().contains("atomic") {
            return None;
        }
        let args = super::eval::split_top(&code[open + 1..], ',');
        return args
            .get(1)
            .map(|a| a.trim().trim_end_matches([')', ';', ' ']).to_string());
    }
    let (lhs, rhs) = code.split_once('=')?;
    // `name[i] = v` or a compound `name[i] += v`.
    let lhs = lhs
        .trim_end()
        .trim_end_matches(['+', '-', '*', '/', '|', '&', '^']);
    (lhs.trim_end().ends_with(']') && find_word(lhs, name).is_some() && !rhs.starts_with('='))
        .then(|| rhs.trim().trim_end_matches(';').trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const TALLY: &str = "__global__ void tally(int* counts, const int* keys, int n) {\n    __shared__ int local_counts[8];\n    int me = threadIdx.x;\n    if (me < 8) local_counts[me] = 0;\n    __syncthreads();\n    int g = blockIdx.x * blockDim.x + me;\n    if (g < n) atomicAdd(&local_counts[keys[g] % 8], 1);\n    __syncthreads();\n    if (me < 8) counts[me] += 1;\n}\n";

    #[test]
    fn a_shared_tally_never_read_while_the_output_gets_a_constant_is_named() {
        // Another shape: a plain `+=` of 1 into the output, `int` counts.
        let sc = scene(TALLY, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "counts", &[4.0, 4.0], &[1.0, 1.0]).unwrap_or_default();
        assert!(
            h.contains("`local_counts` is filled on line 7 (`if (g < n) atomicAdd(&local_counts[keys[g] % 8], 1);`) but no line reads it back")
                && h.contains("line 9 (`if (me < 8) counts[me] += 1;`) hands the constant `1`")
                && h.contains("`local_counts[me]`"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_tally_is_read_back() {
        let read = TALLY.replace("counts[me] += 1;", "counts[me] += local_counts[me];");
        let sc = scene(&read, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "counts", &[4.0, 4.0], &[1.0, 1.0]), None);
    }
}
