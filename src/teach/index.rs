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
//! - `tree_start`: a halving loop (`stride /= 2`) that starts at the whole array, so its first
//!   round reads past the end: start at half.
//! - `larger_sibling`: an unguarded line that writes the array at a larger index than the one
//!   that ran out (`s[right] += s[right - stride]`): guard the written index, which keeps the
//!   other inside too.

use super::eval::{self, canonical, Env};
use super::source::uses_in;
use super::{endless, Case};
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

/// Whether the learner's `word` (an index's variable, `col`) names the size `name` (`cols`,
/// `COLS`): `name` starts with it, and it is a name of 3 or more letters, not the same one.
pub fn points_at(word: &str, name: &str) -> bool {
    let (w, n) = (word.to_ascii_lowercase(), name.to_ascii_lowercase());
    w.len() >= 3 && !w.starts_with(|ch: char| ch.is_ascii_digit()) && n != w && n.starts_with(&w)
}

/// `name_of`, where several names hold `v` (a square test: `rows` = `cols` = 2), the one the
/// learner's `near` text points at: a name that an identifier of `near` starts (`col` → `cols`,
/// `row` → `rows`). Without such a name, as `name_of`.
pub fn name_of_near(c: &Case, v: i64, near: &str) -> String {
    let names: Vec<&String> = c
        .scene
        .values
        .iter()
        .filter(|(_, x)| *x == v)
        .map(|(n, _)| n)
        .collect();
    if names.len() > 1 {
        let words: Vec<&str> = near
            .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .collect();
        let pointed: Vec<&&String> = names
            .iter()
            .filter(|n| words.iter().any(|w| points_at(w, n)))
            .collect();
        if let [one] = pointed.as_slice() {
            return (**one).clone();
        }
    }
    name_of(c, v)
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

/// The variable a loop header's init declares or sets: `k` of `int k = 0` (None when what
/// stands before the `=` does not end in a name).
pub(super) fn loop_var(init: &str) -> Option<String> {
    let (lhs, _) = init.split_once('=')?;
    let var = lhs.split_whitespace().last()?;
    let ok = var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| var.to_string())
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

/// The environments of the diagnostic's thread at its line, one per round of each loop around
/// it whose header alone gives its values: (the loop's variable and its value, the env).
fn rounds(c: &Case) -> Vec<(String, i64, Env)> {
    let env = c.env();
    enclosing_loops(c)
        .iter()
        .filter_map(|h| endless::values(h, &env, 64))
        .flat_map(|(var, vals)| {
            vals.into_iter()
                .map(|v| (var.clone(), v, c.env_at(&var, v)))
                .collect::<Vec<_>>()
        })
        .collect()
}

pub fn tree_start(
    c: &Case,
    short: &str,
    expr: &str,
    len: u64,
    idx: i128,
    len_name: &str,
) -> Option<String> {
    let env = c.env();
    for h in enclosing_loops(c) {
        let (Some(init), Some(step)) = (h.init.as_deref(), h.step.as_deref()) else {
            continue;
        };
        let Some((var, vals)) = endless::values(&h, &env, 64) else {
            continue;
        };
        let step = canonical(step);
        let halving = [
            format!("{var}/=2"),
            format!("{var}>>=1"),
            format!("{var}={var}/2"),
            format!("{var}={var}>>1"),
        ]
        .contains(&step);
        if !halving || !eval::names(expr).contains(&var) {
            continue;
        }
        let Some(&first) = vals.first() else {
            continue;
        };
        // The fault is in the first round, and that round's stride is more than half.
        if eval::eval(expr, &c.env_at(&var, first)) != Some(idx as i64)
            || first.saturating_mul(2) <= len as i64
        {
            continue;
        }
        let Some((lhs, rhs)) = init.split_once('=') else {
            continue;
        };
        let (lhs, rhs) = (lhs.trim(), rhs.trim());
        let simple = rhs
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.');
        let half = if first == len as i64 && simple {
            format!("{rhs} / 2")
        } else {
            format!("{len_name} / 2")
        };
        return Some(format!("in the first round of the loop on line {}, `{var}` is `{rhs}` = {first}. A tree adds the upper half of {short} onto the lower half, so its first stride is half of {short}'s {len} elements: start the loop at `{half}` (`{lhs} = {half}`)", h.line));
    }
    None
}

pub fn larger_sibling(
    c: &Case,
    short: &str,
    expr: &str,
    idx: i128,
    len: u64,
    len_name: &str,
) -> Option<String> {
    let mine = canonical(expr);
    // The element the line writes (`s[right] += ...`): guarding it keeps the line whole. A
    // read beside this one (`a[i] + a[i + 1]`) is a stencil's, whose edge needs its own care.
    let others: Vec<String> = uses_in(c.code(), short)
        .into_iter()
        .filter(|u| u.write && u.dims.len() == 1 && canonical(&u.dims[0]) != mine)
        .map(|u| u.dims[0].clone())
        .collect();
    if others.is_empty() {
        return None;
    }
    // Where the index is the element: at the line as it stands, else in a round of a loop.
    let mut envs: Vec<(Option<(String, i64)>, Env)> = vec![(None, c.env())];
    envs.extend(rounds(c).into_iter().map(|(var, v, e)| (Some((var, v)), e)));
    let (round, env) = envs
        .iter()
        .find(|(_, e)| eval::eval(expr, e).map(i128::from) == Some(idx))?;
    for o in others {
        let Some(ov) = eval::eval(&o, env).map(i128::from) else {
            continue;
        };
        // Larger here, past the end, and never below the index in any round this thread runs.
        let never_below =
            envs.iter()
                .all(|(_, e)| match (eval::eval(&o, e), eval::eval(expr, e)) {
                    (Some(a), Some(b)) => a >= b,
                    _ => true,
                });
        if ov <= idx || ov < len as i128 || !never_below {
            continue;
        }
        let when = round
            .as_ref()
            .map_or(String::new(), |(var, v)| format!(" (when `{var}` is {v})"));
        return Some(format!("the line also indexes `{short}[{o}]`, which is {ov} for this thread{when}, further past the end, and never below `{expr}`: guard the larger index, `if ({o} < {len_name})`, which keeps `{short}[{expr}]` inside too"));
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
    let width = name_of_near(c, *cols as i64, &col);
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
    // The row is a loop's own variable, and the loop runs it past the last row: the loop's
    // bound is the slip (`q < N` where the rows are K), not a missing guard.
    let row_loop = enclosing_loops(c).into_iter().find(|h| {
        h.init
            .as_deref()
            .and_then(loop_var)
            .is_some_and(|v| canonical(&v) == canonical(&row))
    });
    if let Some(h) = row_loop {
        let bound = h
            .cond
            .split_once('<')
            .filter(|(a, b)| canonical(a) == canonical(&row) && !b.starts_with('='))
            .map(|(_, b)| b.trim().to_string());
        if let Some(b) = bound {
            if eval::eval(&b, &env).is_some_and(|bv| bv > rows)
                && canonical(&b) != canonical(&rows_name)
            {
                return Some(format!("`{row}`, the row of {short}, is the loop's variable (line {}), and the loop runs it up to `{b}`, but {short} has {rows} rows (`{rows_name}`) of {sv}: bound the loop by the rows of {short}, `{row} < {rows_name}`", h.line));
            }
        }
    }
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
        let fixed =
            swapped_axes(c, &u.dims).unwrap_or_else(|| vec![u.dims[1].clone(), u.dims[0].clone()]);
        msg.push_str(&format!(": the indices fit the other way round; the first index is the row (y), the second the column (x): `{short}[{}][{}]`", fixed[0], fixed[1]));
    } else if let Some(l) = loop_bound(c, short, &u.dims[k], Some(std::slice::from_ref(&decl[k]))) {
        msg.push_str(&format!(": {l}"));
    } else {
        msg.push_str(": keep each index below its own dimension");
    }
    Some(msg)
}

/// The thread axis a name in an index stands for: `threadIdx.x`, or a local computed from it
/// alone (`tx`, `col`), is "x".
fn axis_of(c: &Case, name: &str) -> Option<char> {
    let l = c.line?;
    let mentions =
        |part: &str| name == part || c.src.locals_mentioning(l, part).iter().any(|n| n == name);
    match (mentions("threadIdx.x"), mentions("threadIdx.y")) {
        (true, false) => Some('x'),
        (false, true) => Some('y'),
        _ => None,
    }
}

/// `tile[threadIdx.x + i][threadIdx.y + j]` → `tile[threadIdx.y + i][threadIdx.x + j]`: the
/// row index takes an x coordinate and the column index a y one, so the coordinates swap and
/// the offsets stay where they are, unless another array on the line takes the offsets the
/// other way round (`w[j][i]`): then the indices swap whole. `None` when the indices do not
/// show one coordinate each.
fn swapped_axes(c: &Case, dims: &[String]) -> Option<Vec<String>> {
    let [row, col] = dims else {
        return None;
    };
    let coords = |d: &str, want: char| -> Option<(String, Vec<String>)> {
        let names = eval::names(d);
        let axes: Vec<Option<char>> = names.iter().map(|n| axis_of(c, n)).collect();
        let hits: Vec<&String> = names
            .iter()
            .zip(&axes)
            .filter(|(_, a)| a.is_some())
            .map(|(n, _)| n)
            .collect();
        let [hit] = hits.as_slice() else {
            return None;
        };
        if axes.iter().flatten().any(|a| *a != want) {
            return None;
        }
        let rest = names.iter().filter(|n| n != hit).cloned().collect();
        Some(((*hit).clone(), rest))
    };
    let (x, row_rest) = coords(row, 'x')?;
    let (y, col_rest) = coords(col, 'y')?;
    // Another two-index access on the line with the offsets the other way round.
    let code = c.code();
    let crossed = match (row_rest.as_slice(), col_rest.as_slice()) {
        ([a], [b]) => code
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .filter(|w| !w.is_empty())
            .flat_map(|w| uses_in(code, w))
            .any(|u| {
                u.dims.len() == 2 && canonical(&u.dims[0]) == *b && canonical(&u.dims[1]) == *a
            }),
        _ => false,
    };
    if crossed {
        return Some(vec![col.clone(), row.clone()]);
    }
    Some(vec![replace_word(row, &x, &y), replace_word(col, &y, &x)])
}

/// `text` with each whole-word `word` replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = super::source::find_word(rest, word) {
        out.push_str(&rest[..at]);
        out.push_str(with);
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
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
