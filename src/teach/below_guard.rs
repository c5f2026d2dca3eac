//! An index that the guard around it makes negative: inside `if (i < s)` the index `i - s`
//! is below 0 for every thread the guard lets in (a tree's lower half adding the partner
//! below it). A lower-bound check would skip every one of those threads; the fix is the
//! partner on the other side (`i + s`) or the guard that fits the index (`i >= s`). Said only
//! where a guard compares the same two names the subscript subtracts, in that order.

use super::eval::{canonical, split_top};
use super::source::Guard;

/// The help for subscript `expr` of `array` under `guards` (innermost first), or `None`
/// where no guard has the form `A < B` (or `A <= B - 1`) for the index's `A - B`.
pub fn help(array: &str, expr: &str, guards: &[Guard]) -> Option<String> {
    let (a, b) = difference(expr)?;
    let g = guards.iter().find(|g| {
        split_top(&g.cond, '&')
            .iter()
            .map(|part| canonical(part.trim_matches(|c| c == '&' || c == ' ')))
            .any(|part| part == format!("{a}<{b}"))
    })?;
    Some(format!(
        "the `if ({})` on line {} lets in only threads whose `{a}` is below `{b}`, so `{a} - {b}` is negative for every one of them: a lower-bound check would skip them all. The partner of a thread in the lower part is above it: `{array}[{a} + {b}]` (or, to take the partner below, let in `{a} >= {b}`)",
        g.cond.trim(),
        g.line
    ))
}

/// `A - B` at the top level, two plain names (no other terms): (A, B).
fn difference(expr: &str) -> Option<(String, String)> {
    let e = canonical(expr);
    let (a, b) = e.split_once('-')?;
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    (plain(a) && plain(b)).then(|| (a.to_string(), b.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(cond: &str, line: u32) -> Guard {
        Guard {
            line,
            cond: cond.into(),
            returns: false,
        }
    }

    #[test]
    fn a_lower_half_reading_below_gets_the_partner_above() {
        // Another shape than the suite's: a `while` tree over `buf` with `lane` and `half`.
        let h = help("buf", "lane - half", &[guard("lane < half && half > 0", 9)]).unwrap();
        assert!(h.contains("`buf[lane + half]`"), "{h}");
        assert!(h.contains("line 9"), "{h}");
        assert!(h.contains("`lane >= half`"), "{h}");
    }

    #[test]
    fn a_guard_that_keeps_the_index_non_negative_says_nothing() {
        // `i >= d` lets in only threads for which `i - d` is at least 0: not this mistake.
        assert!(help("s", "i - d", &[guard("i >= d", 4)]).is_none());
        // A guard on other names, or an index with more terms, is not this premise either.
        assert!(help("s", "i - d", &[guard("j < d", 4)]).is_none());
        assert!(help("s", "i - d + 1", &[guard("i < d", 4)]).is_none());
        assert!(help("s", "i - d", &[]).is_none());
    }
}
