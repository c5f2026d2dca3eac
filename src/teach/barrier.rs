//! A `__syncthreads()` only part of the block reaches. The help names what keeps the others
//! away: the `if` around it (in the kernel, or around the call of the `__device__` helper
//! that holds it), a `continue` that skips it in a loop, the early `return` before it, a loop
//! that some threads leave earlier (they wait at a barrier after it), or a second barrier in
//! the other branch of an if/else. The barrier is named as written (`grid.sync()`).

use super::Case;
use crate::emu::facts::Facts;

pub fn help(c: &Case) -> String {
    let (arrived, total, other, exited) = match &c.d.facts {
        Facts::BarrierDivergence {
            arrived,
            total,
            other_barrier,
            exited,
            ..
        } => (*arrived, *total, *other_barrier, !exited.is_empty()),
        _ => (0, 0, None, false),
    };
    let generic = "every thread of the block must reach every __syncthreads(): move it out of any if (and before any early return) so all threads execute it".to_string();
    let Some(l) = c.line else {
        return generic;
    };
    let some = if total > 0 {
        format!("only {arrived} of {total} threads")
    } else {
        "only some threads".into()
    };
    // A barrier inside a helper: the `if` is around its call.
    if let Some((start, false)) = c.src.function_of(l) {
        if let Some(name) = c.src.function_name(start) {
            for call in c.src.calls_of(&name) {
                if let Some(g) = c.src.guards(call).into_iter().find(|g| !g.returns) {
                    return format!("the __syncthreads() on line {l} is inside `{name}()`, which line {call} calls inside `if ({})` (line {}), so {some} reach it: call `{name}()` from every thread (outside the if) and keep only the guarded work inside the if, or move the barrier out of the helper", g.cond, g.line);
                }
                if let Some(g) = c.src.guards(call).into_iter().find(|g| g.returns) {
                    return format!("the __syncthreads() on line {l} is inside `{name}()`, called on line {call}, after `if ({}) return;` (line {}): the threads that return never reach it. Instead of returning early, put the guarded work inside an if and call `{name}()` from every thread", g.cond, g.line);
                }
            }
        }
    }
    let bar = barrier_as_written(c.src.line(l));
    let guards = c.src.guards(l);
    if let Some(g) = guards.iter().find(|g| !g.returns) {
        return format!("the {bar} on line {l} is inside `if ({})` (line {}), which {some} enter: move the barrier out of the if so every thread of the block reaches it, and keep only the guarded work inside", g.cond, g.line);
    }
    if let Some((k, cond)) = continue_before(c, l) {
        let guard = cond.map_or(String::new(), |g| format!(" (`if ({g}) continue;`)"));
        return format!("the `continue` on line {k}{guard} jumps to the next pass of the loop past the {bar} on line {l}, so the threads that take it skip the barrier while the others wait: instead of `continue`, put the rest of the pass inside an `if` and keep the barrier outside it, where every thread reaches it on every pass");
    }
    if let Some(o) = other.filter(|&o| o != l) {
        let other_bar = barrier_as_written(c.src.line(o));
        // A loop holding one barrier and not the other: threads left the loop at different
        // passes, not branches of an if/else.
        let (inner, outside) = match (enclosing_loop(c, l), enclosing_loop(c, o)) {
            (Some(h), lo) if lo != Some(h) => (Some((h, l)), o),
            (lo, Some(h)) if lo != Some(h) => (Some((h, o)), l),
            _ => (None, o),
        };
        if let Some((h, at)) = inner {
            let cond = c
                .src
                .loop_header(h)
                .map(|lh| lh.cond.trim().to_string())
                .filter(|x| !x.is_empty());
            let cond = cond.map_or(String::new(), |x| format!(" (`{x}`)"));
            return format!("the threads run different numbers of passes of the loop on line {h}{cond}: those still in it wait at the barrier on line {at}, those done with it at the one on line {outside}, and neither group can go on. Every thread of the block must make the same passes: give the loop bounds that are the same for all threads and guard the work inside the loop (`if (...) {{ ... }}`), keeping the barrier outside the guard");
        }
        if has_else_between(c, l.min(o), l.max(o)) {
            return format!("the threads wait at two different barriers (the {bar} on line {l} and the {other_bar} on line {o}), one in each branch of an if/else: every thread must reach the same barrier; use one after the if/else, reached by all");
        }
        return format!("the threads wait at two different barriers (the {bar} on line {l} and the {other_bar} on line {o}): each barrier must be reached by every thread of the block, the same number of times; move them where every thread passes");
    }
    if let Some(g) = guards.iter().find(|g| g.returns) {
        let keep = negate(&g.cond).map_or(String::new(), |n| format!(" (`if ({n}) {{ ... }}`)"));
        return format!("the threads that leave at `if ({}) return;` (line {}) never reach the {bar} on line {l}: instead of returning early, put the work inside an if{keep} and keep the barrier outside it, where every thread reaches it; where the threads past the end feed a shared result, let them take part with 0 instead (a neutral value)", g.cond, g.line);
    }
    if exited {
        let start = c.src.function_of(l).map_or(1, |f| f.0);
        if let Some(r) = (start..l)
            .rev()
            .find(|&x| super::source::find_word(c.src.line(x), "return").is_some())
        {
            return format!("some threads return on line {r} and never reach the {bar} on line {l}: instead of returning early, put the work inside an if and keep the barrier outside it, where every thread reaches it");
        }
    }
    generic
}

/// The barrier call on a line as the learner wrote it: `grid.sync()`, `__syncthreads_or(...)`,
/// `cta.sync()`, else `__syncthreads()`.
fn barrier_as_written(code: &str) -> String {
    for name in [
        "__syncthreads_count",
        "__syncthreads_and",
        "__syncthreads_or",
    ] {
        if code.contains(name) {
            return format!("`{name}()`");
        }
    }
    if code.contains("__syncthreads") {
        return "__syncthreads()".into();
    }
    if let Some(at) = code.find(".sync()") {
        let obj = code[..at]
            .rsplit(|ch: char| {
                !(ch.is_alphanumeric() || ch == '_' || ch == ':' || ch == '(' || ch == ')')
            })
            .next()
            .unwrap_or("");
        if !obj.is_empty() {
            return format!("`{obj}.sync()`");
        }
    }
    "__syncthreads()".into()
}

/// The innermost loop (its header's line) whose body holds line `l`.
fn enclosing_loop(c: &Case, l: u32) -> Option<u32> {
    let start = c.src.function_of(l).map_or(1, |f| f.0);
    (start..l).rev().find(|&h| {
        c.src.loop_header(h).is_some_and(|lh| lh.line == h) && c.src.loop_body(h).contains(&l)
    })
}

/// A `continue` of the loop around line `l`, before `l` in its body (not in a nested loop),
/// with the `if` condition that guards it on its own line when there is one.
fn continue_before(c: &Case, l: u32) -> Option<(u32, Option<String>)> {
    let h = enclosing_loop(c, l)?;
    (h + 1..l).find_map(|k| {
        super::source::find_word(c.src.line(k), "continue")?;
        if enclosing_loop(c, k) != Some(h) {
            return None;
        }
        let cond = c
            .src
            .guards(k)
            .into_iter()
            .find(|g| g.line >= h)
            .map(|g| g.cond);
        Some((k, cond))
    })
}

/// Whether an `else` stands between lines `a` and `b`.
fn has_else_between(c: &Case, a: u32, b: u32) -> bool {
    (a..=b).any(|k| super::source::find_word(c.src.line(k), "else").is_some())
}

/// `i < size` for `i >= size` (a single comparison only).
fn negate(cond: &str) -> Option<String> {
    if cond.contains("&&") || cond.contains("||") {
        return None;
    }
    for (op, not) in [
        (">=", "<"),
        ("<=", ">"),
        ("==", "!="),
        ("!=", "=="),
        (">", "<="),
        ("<", ">="),
    ] {
        if let Some((a, b)) = cond.split_once(op) {
            return Some(format!("{} {not} {}", a.trim(), b.trim()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simple_comparison_is_negated() {
        assert_eq!(negate("i >= size").as_deref(), Some("i < size"));
        assert_eq!(
            negate("threadIdx.x > n").as_deref(),
            Some("threadIdx.x <= n")
        );
        assert_eq!(negate("a && b"), None);
    }
}
