//! Why an index ran out of its array, read from the index as written: each function is one
//! cause and answers `None` when the source does not show it. `bounds` asks them in order
//! before falling back to "guard the index you use".
//!
//! - `unsigned_wrap`: `blockIdx.x - 1` for block 0 (unsigned: it wraps to 4294967295).
//! - `loop_bound`: the index is a loop's variable, and the loop lets it reach the end
//!   (`k <= TPB`, a loop to `size` over a tile of `TPB`).
//! - `shared_by_global_index`: a per-block shared array indexed with the global index.
//! - `row_stride`: `row * W + col` with W other than the matrix's row length (or a vector
//!   indexed as a matrix).
//! - `row_overflow`: the row part of `row * W + col` past the last row: guard both coordinates.
//! - `sibling_index`: the other accesses of the line use the thread's own index, this one
//!   an offset from it (`a[i + 1]` beside `out[i]`).
//! - `multi_dim`: a multi-dimensional shared array, dimension by dimension (swapped axes).

use super::eval::{self, canonical};
use super::source::uses_in;
use super::Case;
use crate::emu::facts::{Element, Space};

/// `name` of the scalar or define whose value is `v` (a scalar first), else `v` itself.
pub fn name_of(c: &Case, v: i64) -> String {
    c.scene
        .values
        .iter()
        .rev()
        .find(|(_, x)| *x == v)
        .map_or_else(|| v.to_string(), |(n, _)| n.clone())
}

pub fn unsigned_wrap(c: &Case, expr: &str, idx: i128) -> Option<String> {
    let v = eval::eval(expr, &c.env())?;
    if v >= 0 || !(1i128 << 31..1i128 << 32).contains(&idx) {
        return None;
    }
    // `x - k` where x is unsigned (a built-in coordinate, or any name): test `x >= k` first.
    let test = match eval::split_top(expr, '-').as_slice() {
        [x, k] => {
            let (x, k) = (x.trim(), k.trim());
            match k.parse::<i64>() {
                Ok(1) => format!("`if ({x} > 0)`"),
                _ => format!("`if ({x} >= {k})`"),
            }
        }
        _ => format!("`if ({expr} >= 0)` in signed arithmetic (cast with `(int)`)"),
    };
    Some(format!("`{expr}` is {v} for {}, but its parts are unsigned (threadIdx, blockIdx and blockDim are), so it wraps around to {idx}: test {test} before the access", c.who(c.d.thread, c.d.block)))
}

/// The enclosing loops of the diagnostic's line: (header line, variable, header text parts).
fn enclosing_loops(c: &Case) -> Vec<super::source::LoopHeader> {
    let Some(l) = c.line else {
        return Vec::new();
    };
    let start = c.src.function_of(l).map_or(1, |f| f.0);
    (start..=l)
        .rev()
        .filter_map(|h| c.src.loop_header(h).filter(|x| x.line == h))
        .filter(|h| c.src.loop_body(h.line).contains(&l))
        .collect()
}

/// The variable a loop header's init declares or sets.
fn loop_var(init: &str) -> Option<String> {
    let (lhs, _) = init.split_once('=')?;
    Some(lhs.split_whitespace().last()?.to_string())
}

pub fn loop_bound(c: &Case, short: &str, expr: &str, dims: Option<&[String]>) -> Option<String> {
    let names = eval::names(expr);
    for h in enclosing_loops(c) {
        let Some(var) = h.init.as_deref().and_then(loop_var) else {
            continue;
        };
        if !names.contains(&var) {
            continue;
        }
        let cond = h.cond.trim();
        if let Some((a, b)) = cond.split_once("<=") {
            if a.trim() == var {
                return Some(format!("the loop on line {} runs `{var}` up to `{}` itself (`{cond}`), one step past the end of {short}: use `{var} < {}`", h.line, b.trim(), b.trim()));
            }
        }
        // A loop that stops below a bound is only the cause when the index is the loop's
        // variable plus a fixed offset (not a row of a matrix, where the row moves it on).
        if canonical(expr) != canonical(&var) {
            continue;
        }
        let bound = cond
            .split_once('<')
            .filter(|(a, _)| a.trim() == var)
            .map(|(_, b)| b.trim_start_matches('=').trim().to_string());
        let size = match dims {
            Some(d) if !d.is_empty() => format!("`{}`", d.join("` × `")),
            _ => "its size".into(),
        };
        return Some(match bound {
            Some(b) => format!("the loop on line {} runs `{var}` up to `{b}`, but {short} is only {size} long there: loop over {short}'s own size", h.line),
            None => format!("the loop on line {} (`{cond}`) lets `{var}` reach a value where `{expr}` is past the end of {short}: bound the loop by {short}'s size ({size})", h.line),
        });
    }
    None
}

pub fn shared_by_global_index(c: &Case, space: Space, short: &str, expr: &str) -> Option<String> {
    if space != Space::Shared || c.scene.grid.iter().product::<u32>() < 2 {
        return None;
    }
    let env = c.env();
    let b = c.d.block;
    let here = eval::eval(expr, &env)?;
    let other = eval::eval(expr, &c.env_for(c.d.thread, [b[0] + 1, b[1], b[2]]))?;
    if here == other {
        return None;
    }
    // The local that holds threadIdx.x, to name the fix in the learner's words.
    let local = c
        .line
        .map(|l| c.src.locals_named_for(l, "threadIdx.x"))
        .unwrap_or_default();
    let local = local
        .first()
        .map_or("threadIdx.x".to_string(), |n| n.clone());
    Some(format!("`{short}[{expr}]` changes from block to block, but shared memory belongs to one block, which holds only its own {short}: index it with the thread's index in the block, `{short}[{local}]`"))
}

pub fn row_stride(c: &Case, short: &str, expr: &str) -> Option<String> {
    let (_, [rows, cols]) = c.scene.shapes.iter().find(|(n, _)| n == short)?;
    let (row, stride, col) = eval::row_major(expr)?;
    let env = c.env();
    let sv = eval::eval(&stride, &env)?;
    if *cols == 1 && *rows > 1 {
        return Some(format!("{short} is a column of {rows} values (one per row), not a matrix: index it with the row alone, `{short}[{row}]`"));
    }
    if *rows == 1 && *cols > 1 {
        return Some(format!("{short} is a row of {cols} values (one per column), not a matrix: index it with the column alone, `{short}[{col}]`"));
    }
    if sv == *cols as i64 {
        return None;
    }
    let width = name_of(c, *cols as i64);
    Some(format!("{short} is {rows} × {cols} (rows × columns), stored row by row, so one row is {cols} elements (`{width}`) long, but the index steps `{row}` by `{stride}` = {sv}: use `{row} * {width} + {col}`"))
}

pub fn row_overflow(c: &Case, short: &str, expr: &str, len: u64, idx: i128) -> Option<String> {
    let (row, stride, col) = eval::row_major(expr)?;
    let env = c.env();
    let sv = eval::eval(&stride, &env)?;
    if sv <= 0 {
        return None;
    }
    // A row the evaluator cannot know (a loop's variable) is read off the element, taking
    // the column inside its row.
    let rv = eval::eval(&row, &env).unwrap_or((idx / sv as i128) as i64);
    let rows = len as i64 / sv;
    if rv < rows {
        return None;
    }
    let rows_name = name_of(c, rows);
    // A column a loop already bounds needs no second guard.
    let looped = enclosing_loops(c).iter().any(|h| {
        h.init
            .as_deref()
            .and_then(loop_var)
            .is_some_and(|v| canonical(&v) == canonical(&col))
    });
    if looped {
        return Some(format!("the row part `{row}` is {rv}, but {short} has {rows} rows of {sv}: guard the row, `if ({row} < {rows_name})`, so threads past the last row skip it"));
    }
    Some(format!("the row part `{row}` is {rv}, but {short} has {rows} rows of {sv}: guard both coordinates, `if ({row} < {rows_name} && {col} < {stride})`, so threads outside the matrix skip it"))
}

pub fn sibling_index(c: &Case, short: &str, expr: &str) -> Option<String> {
    let code = c.code();
    let env = c.env();
    let mine = canonical(expr);
    // Other arrays on the line, indexed with one plain subscript.
    let words: Vec<&str> = code
        .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
        .filter(|w| !w.is_empty() && *w != short)
        .collect();
    for w in words {
        for u in uses_in(code, w) {
            if u.dims.len() != 1 {
                continue;
            }
            let sib = canonical(&u.dims[0]);
            if sib == mine || !mine.contains(&sib) {
                continue;
            }
            let v = eval::eval(&u.dims[0], &env).map_or(String::new(), |v| format!(" = {v}"));
            return Some(format!("the line's other access uses `{w}[{}]`{v}, and this one `{short}[{expr}]`: if each thread should touch its own element, use the same index, `{short}[{}]`; if the offset is meant, guard it (`{expr} < ...`) or handle the last elements apart", u.dims[0], u.dims[0]));
        }
    }
    None
}

/// A multi-dimensional shared array: which index runs past its dimension, and whether the
/// indices in the other order would fit (swapped axes).
pub fn multi_dim(c: &Case, short: &str, e: &Element) -> Option<String> {
    let decl = c.src.shared_dims(short)?;
    if decl.len() < 2 {
        return None;
    }
    let env = c.env();
    let sizes: Vec<i64> = decl
        .iter()
        .map(|d| eval::eval(d, &env))
        .collect::<Option<Vec<i64>>>()?;
    let uses = uses_in(c.code(), short);
    let flat = unflatten(e.index, &sizes);
    let u = uses.iter().find(|u| {
        u.dims.len() == sizes.len()
            && u.dims.iter().zip(&sizes).enumerate().any(|(k, (d, &s))| {
                eval::eval(d, &env)
                    .or_else(|| flat.get(k).copied())
                    .is_some_and(|v| v >= s || v < 0)
            })
    })?;
    // An index the evaluator cannot know (a loop's variable) is read off the element.
    let flat = unflatten(e.index, &sizes);
    let values: Vec<i64> = u
        .dims
        .iter()
        .enumerate()
        .map(|(k, d)| eval::eval(d, &env).or_else(|| flat.get(k).copied()))
        .collect::<Option<Vec<i64>>>()?;
    let (k, _) = values
        .iter()
        .zip(&sizes)
        .enumerate()
        .find(|(_, (v, s))| **v >= **s || **v < 0)?;
    let which = ["first", "second", "third", "fourth"]
        .get(k)
        .copied()
        .unwrap_or("an");
    let written = format!("{short}[{}]", u.dims.join("]["));
    let mut msg = format!("for {}, the {which} index of `{written}`, `{}`, is {}, but that dimension of {short} is `{}` = {} (declared `{short}[{}]`)", c.who(c.d.thread, c.d.block), u.dims[k], values[k], decl[k], sizes[k], decl.join("]["));
    if values.len() == 2
        && values[0] < sizes[1]
        && values[1] < sizes[0]
        && values[0] >= 0
        && values[1] >= 0
    {
        msg.push_str(&format!(": the indices fit the other way round; the first index is the row (y), the second the column (x): `{short}[{}][{}]`", u.dims[1], u.dims[0]));
    } else if let Some(l) = loop_bound(c, short, &u.dims[k], Some(std::slice::from_ref(&decl[k]))) {
        msg.push_str(&format!(": {l}"));
    } else {
        msg.push_str(": keep each index below its own dimension");
    }
    Some(msg)
}

/// The indices of a flat element in an array of dimensions `sizes` (row-major); the first may
/// run past its dimension.
fn unflatten(index: i128, sizes: &[i64]) -> Vec<i64> {
    if index < 0 || sizes.iter().any(|&s| s <= 0) {
        return Vec::new();
    }
    let mut rest = index as i64;
    let mut out = vec![0i64; sizes.len()];
    for k in (1..sizes.len()).rev() {
        out[k] = rest % sizes[k];
        rest /= sizes[k];
    }
    out[0] = rest;
    out
}
