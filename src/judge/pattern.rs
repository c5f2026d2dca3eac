//! What a wrong output looks like, found from the diff alone: the facts `teach::output` puts
//! into words. Plain data, no text.
//!
//! Tried in order, the first that fits wins: elements that still hold the poison the output
//! started with (`unwritten`, found by the judge bit for bit); values gone to inf or NaN where
//! the spec's are finite; every value right but at a place shifted by a constant (told by at
//! least two different wrong values), or the right values in another order; a constant factor
//! off; only a leading part (whole rows, or whole blocks of a 1D output) right; wrong elements
//! that gather where the values are large, each off by a small part of its value.
//! Nothing fits: `None`, and the diff speaks alone.

use crate::puzzle::Tolerance;

/// The shape of a wrong output's difference (indices are flat, into the buffer).
#[derive(Clone, Debug, PartialEq)]
pub enum OutputPattern {
    /// Elements no thread wrote (still the poison): the first few, and how many in all.
    Unwritten { first: Vec<usize>, count: usize },
    /// A value went to inf or NaN where the spec's is finite: the first such element.
    NonFinite { index: usize, got: f64 },
    /// `got[i] == expected[i - by]` for the wrong elements: every value one place (or `by`)
    /// off.
    Shifted { by: i64 },
    /// The right values, in another order (not a constant shift).
    Permuted,
    /// `got == factor * expected` on every wrong element.
    Factor { factor: f64 },
    /// The first `right` elements (whole `unit`s: rows of `cols`, or blocks of `unit_len`) are
    /// right; from there on most are wrong.
    OnlyFirst {
        unit: Unit,
        units_right: usize,
        unit_len: usize,
    },
    /// The wrong elements gather among the largest expected values: the error grows with
    /// magnitude (rounding, cancellation, a narrow accumulator).
    GrowsWithMagnitude { largest_wrong: usize },
}

/// What a leading run of right elements is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Row,
    Block,
}

/// How many unwritten elements a pattern names.
const FIRST: usize = 3;

/// The largest relative error rounding or cancellation explains (1%).
const ROUNDING: f64 = 0.01;

/// The pattern of one compared output, given the elements still holding poison, the buffer's
/// shape and the elements one block covers in a 1D launch (threads per block).
pub fn find(
    expected: &[f64],
    got: &[f64],
    mismatches: &[usize],
    unwritten: &[usize],
    shape: Option<[usize; 2]>,
    block_len: usize,
    tol: &Tolerance,
) -> Option<OutputPattern> {
    if mismatches.is_empty() || expected.len() != got.len() {
        return None;
    }
    if !unwritten.is_empty() {
        return Some(OutputPattern::Unwritten {
            first: unwritten.iter().take(FIRST).copied().collect(),
            count: unwritten.len(),
        });
    }
    if let Some(&i) = mismatches
        .iter()
        .find(|&&i| expected[i].is_finite() && !got[i].is_finite())
    {
        return Some(OutputPattern::NonFinite {
            index: i,
            got: got[i],
        });
    }
    // A shift is told by the values it moves: wrong elements that all hold one value (a
    // padding, a constant) match any place that value sits and say nothing about places.
    if mismatches.len() >= 2 && distinct_values(got, mismatches, tol) {
        if let Some(by) = shift(expected, got, mismatches, tol) {
            return Some(OutputPattern::Shifted { by });
        }
        if same_values(expected, got, tol) {
            return Some(OutputPattern::Permuted);
        }
    }
    if let Some(factor) = factor(expected, got, mismatches) {
        return Some(OutputPattern::Factor { factor });
    }
    if let Some(p) = only_first(expected.len(), mismatches, shape, block_len) {
        return Some(p);
    }
    grows(expected, got, mismatches)
}

/// The constant shift that explains every wrong element, trying the places where the first
/// wrong value sits in `expected`.
fn shift(expected: &[f64], got: &[f64], mismatches: &[usize], tol: &Tolerance) -> Option<i64> {
    let i0 = mismatches[0];
    let n = expected.len() as i64;
    // Every wrong element holds the value `by` places away; at the edge, where that place
    // is outside the buffer, at most `|by|` elements hold something else.
    // The edge is at most half the wrong elements: a shift by almost the whole length
    // explains one element and calls the rest its edge.
    let fits = |by: i64| {
        let mut edge = 0;
        mismatches.iter().all(|&i| {
            let j = i as i64 - by;
            if (0..n).contains(&j) {
                tol.accepts(expected[j as usize], got[i])
            } else {
                edge += 1;
                edge <= by.abs() && 2 * edge <= mismatches.len() as i64
            }
        })
    };
    // Nearest shifts first: a place or two off is the usual mistake.
    let mut candidates: Vec<i64> = (0..expected.len())
        .filter(|&j| j != i0 && tol.accepts(expected[j], got[i0]))
        .map(|j| i0 as i64 - j as i64)
        .collect();
    candidates.sort_by_key(|b| b.abs());
    candidates.into_iter().take(8).find(|&by| fits(by))
}

/// Whether the wrong elements hold at least two different values.
fn distinct_values(got: &[f64], mismatches: &[usize], tol: &Tolerance) -> bool {
    let first = got[mismatches[0]];
    mismatches.iter().any(|&i| !tol.accepts(first, got[i]))
}

/// Whether `got` holds the same values as `expected`, each as often (in any order).
fn same_values(expected: &[f64], got: &[f64], tol: &Tolerance) -> bool {
    let mut e: Vec<f64> = expected.to_vec();
    let mut g: Vec<f64> = got.to_vec();
    e.sort_by(f64::total_cmp);
    g.sort_by(f64::total_cmp);
    e.iter().zip(&g).all(|(a, b)| tol.accepts(*a, *b))
}

/// The one factor (not 1, not 0) every wrong element is off by, within 1e-6 relative (at
/// least two of them: one wrong value is off by some factor whatever went wrong).
fn factor(expected: &[f64], got: &[f64], mismatches: &[usize]) -> Option<f64> {
    if mismatches.len() < 2 {
        return None;
    }
    let mut f = None;
    for &i in mismatches {
        let (e, g) = (expected[i], got[i]);
        if e == 0.0 || !g.is_finite() {
            return None;
        }
        let r = g / e;
        match f {
            None => f = Some(r),
            Some(k) if ((r - k) / k).abs() <= 1e-6 => {}
            Some(_) => return None,
        }
    }
    f.filter(|&k| k != 0.0 && (k - 1.0).abs() > 1e-6)
}

/// A leading run of whole rows (or whole blocks) right, most of the rest wrong.
fn only_first(
    len: usize,
    mismatches: &[usize],
    shape: Option<[usize; 2]>,
    block_len: usize,
) -> Option<OutputPattern> {
    let first_wrong = *mismatches.first()?;
    let (unit, unit_len) = match shape {
        Some([rows, cols]) if rows > 1 && cols > 0 => (Unit::Row, cols),
        _ if block_len > 0 && block_len < len => (Unit::Block, block_len),
        _ => return None,
    };
    let units_right = first_wrong / unit_len;
    let rest = len - units_right * unit_len;
    // Most of what follows is wrong: not one stray element after a right prefix.
    (units_right >= 1 && 2 * mismatches.len() >= rest).then_some(OutputPattern::OnlyFirst {
        unit,
        units_right,
        unit_len,
    })
}

/// The wrong elements lie among the larger half of |expected| (at least three of them, and
/// at least three times as many as in the smaller half), each off by a small part of its
/// value (at most `ROUNDING`): rounding and cancellation lose digits, they do not double a
/// value. A large error on the large elements is a wrong term, not a magnitude effect.
fn grows(expected: &[f64], got: &[f64], mismatches: &[usize]) -> Option<OutputPattern> {
    let mut mags: Vec<f64> = expected.iter().map(|e| e.abs()).collect();
    mags.sort_by(f64::total_cmp);
    let median = mags[mags.len() / 2];
    let (big, small): (Vec<usize>, Vec<usize>) = mismatches
        .iter()
        .partition(|&&i| expected[i].abs() >= median);
    let small_error = mismatches
        .iter()
        .all(|&i| (got[i] - expected[i]).abs() <= ROUNDING * expected[i].abs());
    if big.len() >= 3 && big.len() >= 3 * small.len().max(1) && median > 0.0 && small_error {
        let largest_wrong = big
            .iter()
            .copied()
            .max_by(|&a, &b| expected[a].abs().total_cmp(&expected[b].abs()))?;
        return Some(OutputPattern::GrowsWithMagnitude { largest_wrong });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    fn wrong(e: &[f64], g: &[f64]) -> Vec<usize> {
        (0..e.len())
            .filter(|&i| !EXACT.accepts(e[i], g[i]))
            .collect()
    }

    fn pattern(
        e: &[f64],
        g: &[f64],
        shape: Option<[usize; 2]>,
        block: usize,
    ) -> Option<OutputPattern> {
        find(e, g, &wrong(e, g), &[], shape, block, &EXACT)
    }

    #[test]
    fn unwritten_elements_come_first() {
        let e = [0.0, 1.0, 3.0];
        let g = [f64::NAN, 1.0, 3.0];
        let p = find(&e, &g, &[0], &[0], None, 0, &EXACT);
        assert_eq!(
            p,
            Some(OutputPattern::Unwritten {
                first: vec![0],
                count: 1
            })
        );
    }

    #[test]
    fn inf_and_nan_where_the_spec_is_finite() {
        let p = pattern(&[0.5, 0.5], &[0.5, f64::NAN], None, 0);
        assert!(
            matches!(p, Some(OutputPattern::NonFinite { index: 1, .. })),
            "{p:?}"
        );
    }

    #[test]
    fn a_shift_by_one_and_a_permutation() {
        // An inclusive scan where the exclusive one was asked: every value one place early.
        let e = [0.0, 1.0, 3.0, 6.0, 10.0];
        let g = [1.0, 3.0, 6.0, 10.0, 15.0];
        assert_eq!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::Shifted { by: -1 })
        );
        // Two wrong values at the edge are not a shift by one.
        let g = [1.0, 3.0, 6.0, 11.0, 15.0];
        assert_ne!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::Shifted { by: -1 })
        );
        let g = [0.0, 0.0, 1.0, 3.0, 6.0];
        assert_eq!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::Shifted { by: 1 })
        );
        // A transpose written the wrong way round: the right values, elsewhere.
        let e = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let g = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0];
        assert_eq!(
            pattern(&e, &g, Some([2, 3]), 0),
            Some(OutputPattern::Permuted)
        );
    }

    #[test]
    fn a_constant_factor() {
        let e = [1.0, 2.0, -4.0, 0.0];
        let g = [32.0, 64.0, -128.0, 0.0];
        assert_eq!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::Factor { factor: 32.0 })
        );
    }

    #[test]
    fn only_the_first_row_or_block_right() {
        let e = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let g = [1.0, 2.0, 3.0, 9.0, 9.0, 7.0];
        assert_eq!(
            pattern(&e, &g, Some([2, 3]), 0),
            Some(OutputPattern::OnlyFirst {
                unit: Unit::Row,
                units_right: 1,
                unit_len: 3
            })
        );
        let e: Vec<f64> = (0..8).map(f64::from).collect();
        let g = [0.0, 1.0, 2.0, 3.0, 9.0, 9.0, 9.0, 8.0];
        assert_eq!(
            pattern(&e, &g, None, 4),
            Some(OutputPattern::OnlyFirst {
                unit: Unit::Block,
                units_right: 1,
                unit_len: 4
            })
        );
    }

    #[test]
    fn error_that_grows_with_magnitude() {
        let e = [1.0, 2.0, 3.0, 4.0, 1000.0, 2000.0, 3000.0, 4000.0];
        let g = [1.0, 2.0, 3.0, 4.0, 1001.0, 2003.0, 3002.0, 4009.0];
        assert_eq!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::GrowsWithMagnitude { largest_wrong: 7 })
        );
    }

    #[test]
    fn a_large_error_on_the_large_elements_is_no_rounding() {
        // A wrong term (a padding that adds |cols * 0 - S|): the large values are off by more
        // than they are worth; rounding loses digits, it does not double a value.
        let e = [1.0, 2.0, 3.0, 4.0, 1000.0, 2000.0, 3000.0, 4000.0];
        let g = [1.0, 2.0, 3.0, 4.0, 2100.0, 4100.0, 6100.0, 8100.0];
        assert_eq!(pattern(&e, &g, None, 0), None);
    }

    #[test]
    fn wrong_elements_of_one_value_are_no_shift() {
        // A padding of 0 sorted into the output: the 0 matches a real 0 some places away, by
        // chance; one value repeated says nothing about places.
        let e = [-5.0, 0.0, 2.0, 3.0, 7.0, 9.0];
        let g = [-5.0, 0.0, 2.0, 3.0, 0.0, 0.0];
        assert!(!matches!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::Shifted { .. })
        ));
        // A reversal is no shift by almost the whole length (one element, the rest edge).
        let r = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let g = [6.0, 5.0, 4.0, 3.0, 2.0, 1.0];
        assert_eq!(pattern(&r, &g, None, 0), Some(OutputPattern::Permuted));
        // Two different values moved: a shift.
        let g = [-5.0, 0.0, 2.0, 3.0, 3.0, 7.0];
        assert_eq!(
            pattern(&e, &g, None, 0),
            Some(OutputPattern::Shifted { by: 1 })
        );
    }

    #[test]
    fn one_wrong_element_is_no_factor() {
        assert_eq!(pattern(&[1.0, 2.0], &[1.0, 7.0], None, 0), None);
    }

    #[test]
    fn no_pattern_when_nothing_fits() {
        let e = [1.0, 2.0, 3.0, 4.0];
        let g = [1.0, 7.0, 3.0, -2.0];
        assert_eq!(pattern(&e, &g, None, 0), None);
    }
}
