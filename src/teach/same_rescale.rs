//! A merge of two running sums that rescales both with one maximum: `d = d1 * expf(m1 - m) +
//! d2 * expf(m1 - m)` where `m = fmaxf(m1, m2)`. Each sum was taken against its own maximum,
//! so each needs its own factor to the common one: the second sum's is `expf(m2 - m)`. Said
//! where the source shows a line adding two products by the same `expf(A - M)`, with `M`
//! defined as the `fmaxf` of `A` and another name `B`: the fix names `B`.

use super::eval::{canonical, split_top};
use super::source::closing;
use super::wrong::Seen;

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    for l in 1..=src.lines() {
        let code = src.line(l);
        let Some((_, rhs)) = code.split_once('=') else {
            continue;
        };
        let rhs = rhs.trim().trim_end_matches(';');
        let terms = split_top(rhs, '+');
        if terms.len() != 2 {
            continue;
        }
        let exps: Vec<String> = terms.iter().filter_map(|t| exp_arg(t)).collect();
        if exps.len() != 2 || canonical(&exps[0]) != canonical(&exps[1]) {
            continue;
        }
        let Some((a, m)) = canonical(&exps[0])
            .split_once('-')
            .map(|(a, m)| (a.to_string(), m.to_string()))
        else {
            continue;
        };
        // `M = fmaxf(A, B)`.
        let Some(def) = value_of(src, l, &m) else {
            continue;
        };
        let def = canonical(&def);
        let def = def.trim_end_matches(';');
        let Some(args) = def
            .strip_prefix("fmaxf(")
            .or_else(|| def.strip_prefix("max("))
            .and_then(|r| r.strip_suffix(')'))
        else {
            continue;
        };
        let pair = split_top(args, ',');
        if pair.len() != 2 || !pair.contains(&a) {
            continue;
        }
        let Some(b) = pair.iter().find(|x| **x != a) else {
            continue;
        };
        let second = terms[1].trim();
        return Some(format!(
            "Line {l} rescales both sums with the same factor, `expf({})`: each sum was taken against its own maximum, so each needs its own factor to the common one `{m}`. `{}` goes with `{b}`: its factor is `expf({b} - {m})`.",
            exps[0].trim(),
            second
                .split('*')
                .next()
                .map_or(second, str::trim)
        ));
    }
    None
}

/// The latest value set to local `name` before line `n` in its function, any type
/// (`float mm = fmaxf(m1, m2);`).
fn value_of(src: &super::source::Source, n: u32, name: &str) -> Option<String> {
    let start = src.function_of(n).map_or(1, |f| f.0);
    (start..n).rev().find_map(|l| {
        src.line(l).split(';').rev().find_map(|st| {
            let (lhs, rhs) = st.split_once('=')?;
            let target = lhs.split_whitespace().last()?;
            let plain = !rhs.starts_with('=')
                && !lhs
                    .trim_end()
                    .ends_with(['<', '>', '!', '+', '-', '*', '/']);
            (target == name && plain).then(|| rhs.trim().to_string())
        })
    })
}

/// The argument of the `expf(...)` (or `__expf`, `exp`) in a product term.
fn exp_arg(term: &str) -> Option<String> {
    for f in ["__expf(", "expf(", "exp("] {
        if let Some(at) = term.find(f) {
            let open = at + f.len() - 1;
            let close = closing(term, open)?;
            return Some(term[open + 1..close].to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: a merge of two halves held in registers `lo`/`hi`.
    const MERGE: &str = "__global__ void k(float* o, const float* mx, const float* sm) {\n    float ma = mx[0];\n    float mb = mx[1];\n    float top = fmaxf(ma, mb);\n    float s = sm[0] * __expf(mb - top) + sm[1] * __expf(mb - top);\n    o[0] = s;\n}\n";

    #[test]
    fn one_factor_for_both_sums_gets_each_its_own() {
        let sc = scene(MERGE, [1, 1, 1], [1, 1, 1]);
        let h = said(explain, &sc, "o", &[1.0], &[2.0]).unwrap_or_default();
        assert!(
            h.contains("Line 5 rescales both sums with the same factor, `expf(mb - top)`")
                && h.contains("`sm[1]` goes with `ma`: its factor is `expf(ma - top)`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_two_factors_or_a_maximum_of_other_names() {
        let right = MERGE.replace("sm[1] * __expf(mb - top)", "sm[1] * __expf(ma - top)");
        let sc = scene(&right, [1, 1, 1], [1, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0], &[2.0]), None);
        let other = MERGE.replace("fmaxf(ma, mb)", "fmaxf(ma, 0.0f) + 1.0f");
        let sc = scene(&other, [1, 1, 1], [1, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0], &[2.0]), None);
    }
}
