//! An accumulator reset inside the loop that accumulates into it: `wmma::fill_fragment(acc,
//! 0.0f)` or `sum = 0.0f;` at the top of the k loop, `mma_sync(acc, a, b, acc)` or `sum += ...`
//! below it, and the accumulator stored after the loop: each pass starts again from zero and
//! only the last pass is left. Said where the source shows all three in that order, and the
//! accumulator is not stored inside the loop (a deliberate per-pass result).

use super::source::find_word;
use super::wrong::{in_loop, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    for l in 1..=src.lines() {
        let Some(acc) = reset_of(src.line(l)) else {
            continue;
        };
        let Some(h) = in_loop(src, l) else {
            continue;
        };
        let body: Vec<u32> = src.loop_body(h).collect();
        let end = *body.last()?;
        // Accumulated into below the reset, in the same loop.
        let Some(adds) = body
            .iter()
            .copied()
            .find(|&b| b > l && accumulates(src.line(b), &acc))
        else {
            continue;
        };
        // Stored after the loop, not in it.
        let stored_in_loop = body
            .iter()
            .any(|&b| b != l && b != adds && find_word(src.line(b), w.name).is_some());
        let after = (end + 1..=src.lines()).find(|&a| {
            let t = src.line(a);
            find_word(t, &acc).is_some() && find_word(t, w.name).is_some()
        });
        let (false, Some(after)) = (stored_in_loop, after) else {
            continue;
        };
        return Some(format!(
            "`{acc}` is reset on line {l} (`{}`) inside the loop on line {h}, which adds into it on line {adds} (`{}`): every pass starts again from zero, so what line {after} stores is the last pass alone. Reset `{acc}` once, before the loop.",
            src.line(l).trim(),
            src.line(adds).trim()
        ));
    }
    None
}

/// The accumulator a line resets to zero: `fill_fragment(acc, 0...)`, `acc = 0...;`.
fn reset_of(code: &str) -> Option<String> {
    let t = code.trim();
    if let Some(at) = t.find("fill_fragment(") {
        let args = super::eval::split_top(&t[at + "fill_fragment(".len()..], ',');
        let value = args.get(1)?.trim().trim_end_matches([')', ';', ' ']);
        let zero = value.trim_end_matches(['f', 'F']).parse::<f64>().ok()? == 0.0;
        return zero.then(|| args[0].trim().to_string());
    }
    let (lhs, rhs) = t.split_once('=')?;
    if rhs.starts_with('=') || lhs.ends_with(['<', '>', '!', '+', '-', '*', '/']) {
        return None;
    }
    let name = lhs.split_whitespace().last()?;
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let value = rhs
        .trim()
        .trim_end_matches(';')
        .trim()
        .trim_end_matches(['f', 'F']);
    (value.parse::<f64>().ok()? == 0.0).then(|| name.to_string())
}

/// Whether a line adds into `acc`: `acc += ...`, or an `mma_sync` whose result and addend are
/// both `acc`.
fn accumulates(code: &str, acc: &str) -> bool {
    let t = code.trim();
    if let Some(at) = t.find("mma_sync(") {
        let args = super::eval::split_top(&t[at + "mma_sync(".len()..], ',');
        let last = args
            .last()
            .map(|a| a.trim().trim_end_matches([')', ';', ' ']));
        return args.first().map(|a| a.trim()) == Some(acc) && last == Some(acc);
    }
    // The statement's own target, after any loop or `if` header on the line.
    t.split_once("+=")
        .is_some_and(|(lhs, _)| lhs.trim().rsplit([' ', ')', '{']).next() == Some(acc))
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const DOT: &str = "__global__ void rowdot(float* y, const float* m, const float* x, int n) {\n    int r = blockIdx.x * blockDim.x + threadIdx.x;\n    float total;\n    for (int c = 0; c < n; c += 4) {\n        total = 0.0f;\n        for (int k = c; k < c + 4 && k < n; k++) total += m[r * n + k] * x[k];\n    }\n    y[r] = total;\n}\n";

    #[test]
    fn an_accumulator_reset_inside_its_loop_is_named() {
        // Another shape than the fragment: a float reset at the top of a chunked loop.
        let sc = scene(DOT, [1, 1, 1], [4, 1, 1]);
        let h = said(explain, &sc, "y", &[10.0, 20.0], &[3.0, 5.0]).unwrap_or_default();
        assert!(
            h.contains("`total` is reset on line 5 (`total = 0.0f;`) inside the loop on line 4, which adds into it on line 6")
                && h.contains("what line 8 stores is the last pass alone")
                && h.contains("before the loop"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_reset_is_before_the_loop_or_each_pass_is_stored() {
        let before = DOT
            .replace("    float total;\n", "    float total = 0.0f;\n")
            .replace("        total = 0.0f;\n", "");
        let sc = scene(&before, [1, 1, 1], [4, 1, 1]);
        assert_eq!(said(explain, &sc, "y", &[10.0, 20.0], &[3.0, 5.0]), None);
        let per_pass = DOT.replace(
            "total += m[r * n + k] * x[k];\n    }",
            "total += m[r * n + k] * x[k];\n        y[r * 4 + c / 4] = total;\n    }",
        );
        let sc = scene(&per_pass, [1, 1, 1], [4, 1, 1]);
        assert_eq!(said(explain, &sc, "y", &[10.0, 20.0], &[3.0, 5.0]), None);
    }
}
