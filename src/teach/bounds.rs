//! Out-of-bounds and misaligned accesses. The help compares the index as written on the line
//! with its value for the faulting thread and with the `if`s around the access: a missing
//! guard gets a guard; an access already inside one gets the index or the guard's bound
//! (`<=` for `<`, a guard on `i` around `out[i + 1]`), never the same guard again; a row
//! stride that is the other dimension of a matrix gets the right one.

use super::eval::{self, canonical};
use super::source::{uses_in, Guard};
use super::Case;
use crate::emu::facts::{Access, Element, Facts, Space};

pub fn help(c: &Case) -> String {
    let Facts::Bounds {
        space,
        access,
        element,
        bytes,
        misaligned_to,
        ..
    } = &c.d.facts
    else {
        return "check the index against the array's size".into();
    };
    if let Some(align) = misaligned_to {
        return format!("a {bytes}-byte access needs an address that is a multiple of {align}: check the pointer arithmetic and casts (e.g. float4 needs 16-byte alignment, so its index must be a multiple of 4 floats)");
    }
    match (space, element) {
        (Space::Local, _) if *access == Access::Atomic => {
            "atomics work on global or shared memory only: make the counter a `__shared__` variable or a global buffer".into()
        }
        (Space::Local, _) => "a local (per-thread) array indexed outside its size: check the loop bounds and the index against the array's declared size".into(),
        (Space::Param, _) => "an access past the kernel's parameters: check the pointer arithmetic on the parameter's address".into(),
        (_, None) => "the address is not inside or near any buffer: check which pointer is indexed (it may be null or uninitialised) and that the index is not wildly large".into(),
        (_, Some(e)) => element_help(c, e, *space, *access),
    }
}

/// The subscript on the line that made this access: the one whose value for the thread is
/// the element's index, else the first of the right kind (written or read).
fn the_subscript(
    c: &Case,
    short: &str,
    e: &Element,
    access: Access,
) -> Option<(String, Option<i64>)> {
    let uses = uses_in(c.code(), short);
    let env = c.env();
    let flat: Vec<(String, Option<i64>, bool)> = uses
        .iter()
        .filter(|u| u.dims.len() == 1)
        .map(|u| (u.dims[0].clone(), eval::eval(&u.dims[0], &env), u.write))
        .collect();
    if let Some(hit) = flat.iter().find(|f| f.1 == Some(e.index as i64)) {
        return Some((hit.0.clone(), hit.1));
    }
    let wants_write = access != Access::Read;
    flat.iter()
        .find(|f| f.2 == wants_write)
        .or(flat.first())
        .map(|f| (f.0.clone(), f.1))
}

fn element_help(c: &Case, e: &Element, space: Space, access: Access) -> String {
    let short = e.name.rsplit("::").next().unwrap_or(&e.name).to_string();
    let who = c.who(c.d.thread, c.d.block);
    let idx = e.index;
    let len = e.len;
    // The scalar or define that holds the length (a scalar first: it follows the test).
    let len_name = c
        .scene
        .values
        .iter()
        .rev()
        .find(|(_, v)| *v == len as i64)
        .map(|(n, _)| n.clone())
        .unwrap_or_else(|| len.to_string());
    let Some((expr, value)) = the_subscript(c, &short, e, access) else {
        // No subscript of this array on the line (a pointer moved elsewhere, a helper).
        return if idx < 0 {
            format!("{short}[{idx}] is below its first element: check the lower bound of the index before the access")
        } else {
            format!("{short} has {len} elements ({short}[0] to {short}[{}]) and {who} reached {short}[{idx}]: check the index against the size before the access", len as i128 - 1)
        };
    };
    let seen = match value {
        Some(v) if v as i128 == idx => format!("for {who}, `{expr}` is {idx}"),
        _ => format!("{who} reached {short}[{idx}] through `{short}[{expr}]`"),
    };
    let stride = stride_note(c, &short, &expr);
    let guards: Vec<Guard> = c.line.map(|l| c.src.guards(l)).unwrap_or_default();
    if idx < 0 {
        let guarded = if guards.is_empty() {
            String::new()
        } else {
            format!(
                " (the `if ({})` around it does not test the lower bound)",
                guards[0].cond
            )
        };
        return format!("{seen}: an index below 0{guarded}. Check the lower bound before the access, e.g. `if ({expr} >= 0)`, or clamp the index with max({expr}, 0){stride}");
    }
    let past = format!(
        "{short} has {len} elements ({short}[0] to {short}[{}])",
        len as i128 - 1
    );
    // A row-major index whose column part runs past a row: the column needs its own bound.
    if let Some(spill) = c.spill(&expr, &c.env()) {
        return format!("{seen}, but {past}: {spill}");
    }
    if guards.is_empty() {
        let threads: u64 = c
            .scene
            .grid
            .iter()
            .chain(&c.scene.block)
            .map(|&x| x as u64)
            .product();
        let more = if space == Space::Global && threads > len {
            format!(" the launch has {threads} threads for {len} elements, so")
        } else {
            String::new()
        };
        let simple = expr
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.');
        return if simple {
            format!("{seen}, but {past}:{more} guard the access with `if ({expr} < {len_name})`{stride}")
        } else {
            format!("{seen}, but {past}: guard the index you use, `if ({expr} < {len_name})`, or, if `{expr}` should not go past the end at all, fix the expression{stride}")
        };
    }
    // Already guarded: what let this thread through?
    let g = &guards[0];
    let guard_names = eval::names(&g.cond);
    let expr_c = canonical(&expr);
    let compares_expr = g
        .cond
        .split(['&', '|'])
        .any(|part| canonical(part).starts_with(&format!("{expr_c}<")));
    let le = g.cond.split(['&', '|']).find(|part| {
        let p = canonical(part);
        p.starts_with(&format!("{expr_c}<=")) || p.ends_with(&format!(">={expr_c}"))
    });
    let kind = if g.returns {
        format!("after `if ({}) return;` (line {})", g.cond, g.line)
    } else {
        format!("inside `if ({})` (line {})", g.cond, g.line)
    };
    if let Some(part) = le {
        return format!("{seen}: the access is {kind}, but `{}` lets `{expr}` reach {len_name}, one past the last element of {short} ({len} elements): use `<` instead of `<=`", part.trim());
    }
    if compares_expr {
        return format!("{seen}, but {past}; the access is {kind}, which compares `{expr}` with a bound larger than {short}'s size: compare it with {len_name}{stride}");
    }
    let uses_guarded = eval::names(&expr).iter().any(|n| guard_names.contains(n));
    let past_data = past_the_data(c, &expr);
    if uses_guarded {
        format!("{seen}, past the end: {past}. The access is {kind}, but the guard tests a different value than the index `{expr}`: if the index should be the guarded one, fix the index; otherwise guard the index you use (`{expr} < {len_name}`){stride}")
    } else {
        format!("{seen}, past the end: {past}. The access is {kind}, which does not test the index `{expr}`: guard `{expr} < {len_name}`{past_data}, or fix the expression{stride}")
    }
}

/// `, or skip threads past the data (`if (i < size)`: here i = 96)` when a name in the index
/// is at or past a scalar's value for this thread.
fn past_the_data(c: &Case, expr: &str) -> String {
    let env = c.env();
    for n in eval::names(expr) {
        if n.contains('.') {
            continue;
        }
        let Some(v) = eval::eval(&n, &env) else {
            continue;
        };
        let scalar = c.scene.values.iter().rev().find(|(name, sv)| {
            *sv > 0 && v >= *sv && name.chars().any(|ch| ch.is_lowercase()) && *name != n
        });
        if let Some((name, sv)) = scalar {
            return format!(", or skip the threads past the data (`if ({n} < {name})`: here {n} = {v}, {name} = {sv})");
        }
    }
    String::new()
}

/// Where a matrix buffer is indexed `row * W + col` with W its number of rows rather than
/// columns: the right stride, as a sentence to append.
fn stride_note(c: &Case, name: &str, expr: &str) -> String {
    let Some((_, [rows, cols])) = c.scene.shapes.iter().find(|(n, _)| n == name) else {
        return String::new();
    };
    if rows == cols {
        return String::new();
    }
    let env = c.env();
    for term in expr.split('+') {
        if let Some((a, b)) = term.split_once('*') {
            for side in [b.trim(), a.trim()] {
                if eval::eval(side, &env) == Some(*rows as i64) {
                    return format!(". {name} is {rows} × {cols} (rows × columns), stored row by row, so a row is {cols} elements long: the row stride is {cols}, not `{side}` = {rows}");
                }
            }
        }
    }
    String::new()
}
