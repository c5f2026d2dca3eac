//! Out-of-bounds and misaligned accesses. The help compares the index as written on the line
//! with its value for the faulting thread and with the `if`s around the access: a missing
//! guard gets a guard; an access already inside one gets the index or the guard's bound
//! (`<=` for `<`, a guard on `i` around `out[i + 1]`), never the same guard again; a row
//! stride that is the other dimension of a matrix gets the right one.

use super::eval::{self, canonical};
use super::padding::Reach;
use super::source::{uses_in, Guard};
use super::{index, Case};
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
    if let Some(h) = super::wmma::bounds_help(c) {
        return h;
    }
    if let Some(align) = misaligned_to {
        // `ldmatrix` reads 16-byte rows: the fix is the tile's row pitch, not a vector index.
        let code = c.code();
        if code.contains("ldmatrix") || c.d.message.contains("ldmatrix") {
            return format!("`ldmatrix` reads each row of 8 halves (16 bytes) from the address its lane gives, which must be a multiple of {align}: the rows of the shared tile must start 16 bytes apart or a multiple of it, so make a row's length in bytes a multiple of 16 (pad a row of halves by 8, not by 1 or 2) and start each row address at a row of the tile");
        }
        return format!("a {bytes}-byte access needs an address that is a multiple of {align}: check the pointer arithmetic and casts (e.g. float4 needs 16-byte alignment, so its index must be a multiple of 4 floats)");
    }
    match (space, element) {
        (Space::Local, _) if *access == Access::Atomic => {
            "atomics work on global or shared memory only: make the counter a `__shared__` variable or a global buffer".into()
        }
        (Space::Local, _) => "a local (per-thread) array indexed outside its size: check the loop bounds and the index against the array's declared size".into(),
        (Space::Param, _) => "an access past the kernel's parameters: check the pointer arithmetic on the parameter's address".into(),
        (_, None) => "the address is not inside or near any buffer: check which pointer is indexed (it may be null or uninitialised) and that the index is not wildly large".into(),
        (_, Some(e)) if (0..e.len as i128).contains(&e.index) => vector_tail_help(c, e, *bytes),
        (_, Some(e)) => element_help(c, e, *space, *access),
    }
}

/// An access that starts inside the array and runs past its end: a vector access (float4,
/// `__half2`) over the last, partial group of elements.
fn vector_tail_help(c: &Case, e: &Element, bytes: u32) -> String {
    let name = e.name.rsplit("::").next().unwrap_or(&e.name);
    let who = c.who(c.d.thread, c.d.block);
    format!(
        "{who}'s {bytes}-byte access starts at {name}[{}], the array's last elements, and runs past {name}[{}]: a vector access (a float4, a __half2) needs every element it covers in range. Take it only when its last element is (`i + 3 < size` for a float4 at element i, `i + 1 < size` for a __half2), and handle the elements left at the end with scalar code",
        e.index,
        e.len - 1
    )
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
    let short = match c.line {
        Some(l) => c.src.name_on_line(l, &short),
        None => short,
    };
    let who = c.who(c.d.thread, c.d.block);
    // The emulator counts in the buffer's own elements (`k`, floats); the line may index an
    // alias of another width (`k4`, float4): count in the alias's elements, as the line does.
    let (idx, len) = in_alias_elements(c, e, &short);
    let scaled = Element {
        name: e.name.clone(),
        index: idx,
        len,
    };
    let e = &scaled;
    // The shared array's declared size, else the scalar or define that holds the length.
    let dims = (space == Space::Shared)
        .then(|| c.src.shared_dims(&short))
        .flatten();
    // `extern __shared__` sized by a launch that gives it no dynamic shared memory: it has no
    // elements at all, and the fix is its size, not the index.
    if space == Space::Shared && len == 0 {
        if let Some(decl) = c.src.extern_shared(&short) {
            // The element type as declared (`extern __shared__ int s[];` → `int`).
            let t = c.src.line(decl);
            let ty = t
                .split("__shared__")
                .nth(1)
                .and_then(|rest| rest.split(short.as_str()).next())
                .map(|x| x.trim().trim_end_matches('*').trim().to_string())
                .filter(|x| !x.is_empty())
                .unwrap_or_else(|| "float".into());
            return format!("`{short}` is declared `extern __shared__` (line {decl}), so its size comes from the launch's dynamic shared memory, and this launch gives it none: {short} has 0 elements and every access is out of bounds. Declare it with the size you need (`__shared__ {ty} {short}[N];`, N a constant such as the block size), or give the launch dynamic shared memory (`gpuzzle exec --shared BYTES`)");
        }
    }
    if let Some(m) = index::multi_dim(c, &short, e) {
        return m;
    }
    let Some((expr, value)) = the_subscript(c, &short, e, access) else {
        // A wider view indexed with the narrow element's index (`(const int*)(a)[4 * w]`).
        if let Some(h) = c
            .line
            .and_then(|l| super::wide_index::help(c.src, l, &short))
        {
            return h;
        }
        // No subscript of this array on the line (a pointer moved elsewhere, a helper).
        return if idx < 0 {
            format!("{short}[{idx}] is below its first element: check the lower bound of the index before the access")
        } else {
            // A guard is already around the line: it tests another index than the one used.
            match c.line.and_then(|l| c.src.guards(l).into_iter().next()) {
                Some(g) => format!("{short} has {len} elements ({short}[0] to {short}[{}]) and {who} reached {short}[{idx}], although the access is inside `if ({})` (line {}): that guard does not bound the index this line uses (through a pointer or a helper); bound the index that reaches {short}, or the offset added to the pointer", len as i128 - 1, g.cond, g.line),
                None => format!("{short} has {len} elements ({short}[0] to {short}[{}]) and {who} reached {short}[{idx}]: check the index against the size before the access", len as i128 - 1),
            }
        };
    };
    // Where several sizes are equal, the one the subscript's names point at (`col` → `cols`).
    let len_name = match &dims {
        Some(d) if d.len() == 1 => d[0].clone(),
        _ => index::name_of_near(c, len as i64, &expr),
    };
    let seen = match value {
        Some(v) if v as i128 == idx => format!("for {who}, `{expr}` is {idx}"),
        _ => format!("{who} reached {short}[{idx}] through `{short}[{expr}]`"),
    };
    let guards: Vec<Guard> = c.line.map(|l| c.src.guards(l)).unwrap_or_default();
    if let Some(w) = index::unsigned_wrap(c, &expr, idx) {
        return w;
    }
    if idx < 0 {
        if let Some(h) = super::below_guard::help(&short, &expr, &guards) {
            return format!("{seen}: {h}");
        }
        let guarded = if guards.is_empty() {
            String::new()
        } else {
            format!(
                " (the `if ({})` around it does not test the lower bound)",
                guards[0].cond
            )
        };
        return format!("{seen}: an index below 0{guarded}. Check the lower bound before the access, e.g. `if ({expr} >= 0)`, or clamp the index with max({expr}, 0)");
    }
    let past = format!(
        "{short} has {len} elements ({short}[0] to {short}[{}])",
        len as i128 - 1
    );
    // An early return meant to skip threads outside a matrix, written with `&&`: a thread
    // outside in one coordinate only goes on.
    if let Some(g) = guards.iter().find(|g| {
        g.returns
            && g.cond.contains("&&")
            && !g.cond.contains("||")
            && g.cond.split("&&").all(|p| p.contains('>'))
    }) {
        return format!("{seen}, but {past}: the early return `if ({}) return;` (line {}) only stops threads outside in every coordinate at once; a thread outside in one coordinate goes on: use `||` (`if ({}) return;`)", g.cond, g.line, g.cond.replace("&&", "||"));
    }
    if let Some(m) = ternary_guard(c, &short, &expr) {
        return format!("{seen}, but {past}. {m}");
    }
    // The causes the index as written shows, most specific first.
    let cause = super::block_slot::help(c, access, &short, &expr, len)
        .or_else(|| super::transposed::help(c, &short, &expr))
        .or_else(|| index::tree_start(c, &short, &expr, len, idx, &len_name))
        .or_else(|| index::row_stride(c, &short, &expr))
        .or_else(|| index::loop_bound(c, &short, &expr, dims.as_deref()))
        .or_else(|| index::shared_by_global_index(c, space, &short, &expr))
        .or_else(|| c.spill(&expr, &c.env(), Some(idx)))
        .or_else(|| index::row_overflow(c, &short, &expr, len, idx))
        .or_else(|| index::sibling_index(c, &short, &expr));
    if let Some(cause) = cause {
        return format!(
            "{seen}, but {past}: {cause}{}",
            padding(c, space, access, &expr, idx)
        );
    }
    if guards.is_empty() {
        if let Some(larger) = index::larger_sibling(c, &short, &expr, idx, len, &len_name) {
            return format!("{seen}, but {past}: {larger}");
        }
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
        let pad = padding(c, space, access, &expr, idx);
        let zero = if pad.is_empty()
            && space == Space::Global
            && access == Access::Read
            && takes_part(c)
        {
            let ty = super::padding::pointee_type(c.src, &short).unwrap_or_else(|| "float".into());
            format!("; this kernel's threads work together (barriers, shuffles or atomics), so keep the ones past the end taking part with a neutral value: `{expr} < {len_name} ? ... : {}`", super::padding::zero(&ty))
        } else {
            String::new()
        };
        // A 2D launch: the other coordinate needs its guard too.
        let both = c.line.and_then(|l| {
            if c.scene.block[1] < 2 {
                return None;
            }
            let ys = c.src.locals_mentioning(l, "threadIdx.y");
            let xs = c.src.locals_mentioning(l, "threadIdx.x");
            let (y, x) = (ys.first()?, xs.first()?);
            // Each coordinate's bound by its own name where sizes are equal (`row < rows`).
            let (yb, xb) = (
                index::name_of_near(c, len as i64, y),
                index::name_of_near(c, len as i64, x),
            );
            (*y == expr || *x == expr).then(|| format!("`if ({y} < {yb} && {x} < {xb})` (check both coordinates; use each one's own bound if they differ)"))
        });
        if let Some(both) = both {
            return format!("{seen}, but {past}:{more} guard the access with {both}{zero}{pad}");
        }
        return if simple {
            format!("{seen}, but {past}:{more} guard the access with `if ({expr} < {len_name})`{zero}{pad}")
        } else {
            format!("{seen}, but {past}: guard the index you use, `if ({expr} < {len_name})`, or, if `{expr}` should not go past the end at all, fix the expression{zero}{pad}")
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
        // The same `if` bounds another coordinate by this array's size: the array belongs to
        // that coordinate (`b[r]` for `b[c]` under `r < rows && c < cols`).
        if let Some(other) = coordinate_of_size(c, &g.cond, &expr, len) {
            return format!("{seen}, but {past}; the access is {kind}, which bounds `{other}` by {short}'s size, not `{expr}`: {short} has one element per value of `{other}`, so index it with `{other}` (`{short}[{other}]`)");
        }
        return format!("{seen}, but {past}; the access is {kind}, which compares `{expr}` with a bound larger than {short}'s size: compare it with {len_name}");
    }
    let uses_guarded = eval::names(&expr).iter().any(|n| guard_names.contains(n));
    let past_data = past_the_data(c, &expr);
    if uses_guarded {
        format!("{seen}, past the end: {past}. The access is {kind}, but the guard tests a different value than the index `{expr}`: if the index should be the guarded one, fix the index; otherwise guard the index you use (`{expr} < {len_name}`)")
    } else {
        format!("{seen}, past the end: {past}. The access is {kind}, which does not test the index `{expr}`: guard `{expr} < {len_name}`{past_data}, or fix the expression")
    }
}

/// A plain name the guard `cond` bounds by a value equal to `len` (`c` in `c < cols` where the
/// array has `cols` elements), other than the index `expr` itself, which must be a plain name.
fn coordinate_of_size(c: &Case, cond: &str, expr: &str, len: u64) -> Option<String> {
    let plain = |x: &str| {
        !x.is_empty()
            && x.chars()
                .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.')
    };
    if !plain(expr.trim()) {
        return None;
    }
    let env = c.env();
    cond.split("&&").find_map(|part| {
        let (lhs, rhs) = part.split_once('<')?;
        if rhs.starts_with('=') {
            return None;
        }
        let (lhs, rhs) = (
            lhs.trim().trim_start_matches('('),
            rhs.trim().trim_end_matches(')'),
        );
        (plain(lhs) && lhs != expr.trim() && eval::eval(rhs, &env) == Some(len as i64))
            .then(|| lhs.to_string())
    })
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
        let past: Vec<&(String, i64)> = c
            .scene
            .values
            .iter()
            .rev()
            .filter(|(name, sv)| {
                *sv > 0 && v >= *sv && name.chars().any(|ch| ch.is_lowercase()) && *name != n
            })
            .collect();
        // The scalar this name is a coordinate of (`col` → `cols`) before any other.
        let scalar = past
            .iter()
            .find(|(name, _)| index::points_at(&n, name))
            .or(past.first())
            .copied();
        if let Some((name, sv)) = scalar {
            return format!(", or skip the threads past the data (`if ({n} < {name})`: here {n} = {v}, {name} = {sv})");
        }
    }
    String::new()
}

/// Whether the kernel's threads work together (a barrier, a shuffle, an atomic): then a
/// thread past the end must usually still take part, with 0, rather than skip the work.
fn takes_part(c: &Case) -> bool {
    (1..=c.src.lines()).any(|l| {
        let t = c.src.line(l);
        t.contains("__syncthreads") || t.contains("_sync(") || t.contains("atomic")
    })
}

/// For a global read past the end whose value goes into a shared array (a tile, a cache):
/// whether the array's elements outside the data are read later (`teach::padding`), and if so
/// the value that leaves the result unchanged, in the element's type; if no read reaches them,
/// the guard is all the load needs.
fn padding(c: &Case, space: Space, access: Access, expr: &str, idx: i128) -> String {
    if space != Space::Global || access != Access::Read {
        return String::new();
    }
    let code = c.code();
    let Some((lhs, _)) = code.split_once('=') else {
        return String::new();
    };
    let name = lhs
        .trim()
        .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
        .find(|w| !w.is_empty())
        .unwrap_or("");
    if name.is_empty() || c.src.shared_dims(name).is_none() {
        return String::new();
    }
    let dims = uses_in(lhs, name)
        .into_iter()
        .next()
        .map(|u| u.dims)
        .unwrap_or_default();
    let inline = |n: &str| n.split(" (from").next().unwrap_or(n).to_string();
    match super::padding::reach(c, name, &dims, expr, idx) {
        Reach::Never => format!("; no later read of `{name}` reaches the elements this load would fill outside the data, so they need no value: the guard on the load is enough"),
        Reach::Read { line, neutral } => format!("; the elements of `{name}` outside the data are still read (line {line}), so they need a value that leaves the result unchanged: store {neutral} there (`{name}[..] = inside ? ... : {};`)", inline(&neutral)),
        Reach::Unknown { neutral } => format!("; if anything reads the elements of `{name}` outside the data, they need a value that leaves the result unchanged: store {neutral} there (`{name}[..] = inside ? ... : {};`)", inline(&neutral)),
    }
}

/// The element's index and the buffer's length in elements of `short`, the name the line
/// uses: the buffer's own when it is the buffer, else scaled by the two declared widths
/// (`k4 = reinterpret_cast<const float4*>(k)`: 4 floats to a float4).
fn in_alias_elements(c: &Case, e: &Element, short: &str) -> (i128, u64) {
    let base = e.name.rsplit("::").next().unwrap_or(&e.name);
    if base == short {
        return (e.index, e.len);
    }
    match (c.src.pointee_bytes(base), c.src.pointee_bytes(short)) {
        (Some(b), Some(a)) if a > b && a % b == 0 => {
            let per = (a / b) as i128;
            (e.index.div_euclid(per), e.len / (a / b))
        }
        _ => (e.index, e.len),
    }
}

/// The line already guards the access with a `cond ? ... : 0` of its own, and a part of the
/// index is one name away from what the guard tests (`(t0 + tx)` where the guard tests
/// `t0 + ty`): the zero-fill is there, the index is what is wrong. `None` otherwise.
fn ternary_guard(c: &Case, short: &str, expr: &str) -> Option<String> {
    let code = c.code();
    let (head, rest) = code.split_once('?')?;
    let (taken, _) = rest.split_once(':')?;
    if !taken.contains(&format!("{short}[")) {
        return None;
    }
    // The condition: after the assignment's `=` (not `==`, `<=`, `>=`, `!=`).
    let (at, _) = head.char_indices().rev().find(|&(i, ch)| {
        ch == '='
            && !matches!(head[..i].chars().next_back(), Some('=' | '<' | '>' | '!'))
            && !head[i + 1..].starts_with('=')
    })?;
    let cond = strip_parens(head[at + 1..].trim());
    // What the guard bounds: the left side of each `<` or `<=`.
    let bounded: Vec<String> = cond
        .split("&&")
        .flat_map(|p| p.split("||"))
        .filter_map(|p| {
            p.split_once('<')
                .map(|(l, _)| strip_parens(l.trim()).to_string())
        })
        .collect();
    let pieces: Vec<String> = match eval::row_major(expr) {
        Some((row, _, col)) => vec![row, col],
        None => vec![expr.to_string()],
    };
    let names = |x: &str| {
        let mut v = eval::names(x);
        v.sort();
        v
    };
    for p in &pieces {
        let pc = canonical(strip_parens(p));
        if bounded.iter().any(|g| canonical(g) == pc) {
            continue;
        }
        let pn = names(strip_parens(p));
        // One name swapped in an expression of several (`t0 + tx` for `t0 + ty`): a lone
        // name (`row` against `local_i`) is another coordinate, not a slip of this one.
        let near = bounded.iter().find(|g| {
            let gn = names(g);
            let kept = gn.iter().filter(|n| pn.contains(n)).count();
            pn.len() >= 2 && gn.len() == pn.len() && kept + 1 == pn.len()
        });
        if let Some(g) = near {
            let fixed = expr.replacen(strip_parens(p), g, 1);
            return Some(format!("The line already guards the access, `({cond}) ? ... : 0`, so what lies outside the data already gets its 0; but the index does not use what the guard tests: its part `{}` where the guard tests `{g}`. Index with the guarded value, `{short}[{fixed}]`", strip_parens(p)));
        }
    }
    None
}

/// `x` without one pair of parentheses around the whole of it.
fn strip_parens(x: &str) -> &str {
    let t = x.trim();
    match t.strip_prefix('(').and_then(|i| i.strip_suffix(')')) {
        Some(inner) if balanced(inner) => inner.trim(),
        _ => t,
    }
}

fn balanced(x: &str) -> bool {
    let mut depth = 0i32;
    for ch in x.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}
