//! An out-of-bounds access whose row-major index has its row and column swapped: `a[col *
//! cols + row]` where the guards around it bound `col` by `cols` (so `col` is a column, which a
//! row length must not multiply) and `row` by another size (so `row` is the row). On a matrix
//! that is not square the transposed element runs past the end; a guard does not fix it, the
//! index `row * cols + col` does. The premise is read from the guards (or from another access
//! in the function written the right way round); without it the rule stays silent.

use super::eval::{self, canonical};
use super::Case;

/// The fix for a transposed index `expr` of `short`, or `None` where the source does not show
/// which part is the row.
pub fn help(c: &Case, short: &str, expr: &str) -> Option<String> {
    let line = c.line?;
    // `mul * stride + add`: in a transposed index `mul` is the column, `add` the row.
    let (mul, stride, add) = eval::row_major(expr)?;
    let (mul, stride, add) = (mul.trim(), stride.trim(), add.trim());
    if !is_name(mul) || !is_name(add) || !is_name(stride) {
        return None;
    }
    // The bound each guard gives a name: `col < cols`.
    let guards = c.src.guards(line);
    let bound_of = |name: &str| {
        guards.iter().find_map(|g| {
            g.cond.split("&&").find_map(|part| {
                let p = canonical(part);
                let (a, b) = p.split_once('<').filter(|(_, b)| !b.starts_with('='))?;
                let a = a.trim_matches(['(', ')']);
                let b = b.trim_matches(['(', ')']);
                (a == name).then(|| (b.to_string(), g.line))
            })
        })
    };
    let right = format!("{add} * {stride} + {mul}");
    // The multiplied part is bounded by the stride itself (a column), the added part by
    // another size (a row).
    let guarded = match (bound_of(mul), bound_of(add)) {
        (Some((mb, gl)), Some((ab, _))) if mb == canonical(stride) && ab != mb => Some(format!(
            "the guard on line {gl} bounds `{mul}` by `{stride}`, the row length, so `{mul}` is \
             the column and `{add}` (bounded by `{ab}`) the row"
        )),
        _ => None,
    };
    // Or the same function indexes another array the right way round.
    let start = c.src.function_of(line).map(|f| f.0);
    let elsewhere = (1..=c.src.lines())
        .filter(|&l| c.src.function_of(l).map(|f| f.0) == start)
        .find_map(|l| {
            let t = c.src.line(l);
            super::restore::arrays(c.src, false)
                .into_iter()
                .find_map(|n| {
                    super::source::uses_in(t, &n)
                        .iter()
                        .any(|u| u.dims.len() == 1 && is_index(&u.dims[0], add, stride, mul))
                        .then(|| format!("`{n}[{right}]` on line {l} takes `{add}` as the row"))
                })
        });
    let why = guarded.or(elsewhere)?;
    Some(format!(
        "the index is transposed: {why}. Stored row by row, row `{add}`, column `{mul}` is at \
         `{right}`; `{expr}` multiplies the column by the row length and adds the row, which \
         reaches another element and, on a matrix that is not square, runs past the end. Use \
         `{short}[{right}]` (no guard is missing)"
    ))
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Whether `index` is `row * stride + col` (either order of the terms or factors).
fn is_index(index: &str, row: &str, stride: &str, col: &str) -> bool {
    let Some((a, s, b)) = eval::row_major(index) else {
        return false;
    };
    let (a, s, b) = (a.trim(), s.trim(), b.trim());
    ((a == row && s == stride) || (s == row && a == stride)) && b == col
}
