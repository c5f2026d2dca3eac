//! A `__syncthreads()` only part of the block reaches. The help names what keeps the others
//! away: the `if` around it (in the kernel, or around the call of the `__device__` helper
//! that holds it), the early `return` before it, or a second barrier in another branch.

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
    let guards = c.src.guards(l);
    if let Some(g) = guards.iter().find(|g| !g.returns) {
        return format!("the __syncthreads() on line {l} is inside `if ({})` (line {}), which {some} enter: move the barrier out of the if so every thread of the block reaches it, and keep only the guarded work inside", g.cond, g.line);
    }
    if let Some(o) = other.filter(|&o| o != l) {
        return format!("the threads wait at two different barriers (lines {l} and {o}), one in each branch: every thread must reach the same __syncthreads(); use one after the if/else, reached by all");
    }
    if let Some(g) = guards.iter().find(|g| g.returns) {
        let keep = negate(&g.cond).map_or(String::new(), |n| format!(" (`if ({n}) {{ ... }}`)"));
        return format!("the threads that leave at `if ({}) return;` (line {}) never reach the __syncthreads() on line {l}: instead of returning early, put the work inside an if{keep} and keep the barrier outside it, where every thread reaches it; where the threads past the end feed a shared result, let them take part with 0 instead (a neutral value)", g.cond, g.line);
    }
    if exited {
        let start = c.src.function_of(l).map_or(1, |f| f.0);
        if let Some(r) = (start..l)
            .rev()
            .find(|&x| super::source::find_word(c.src.line(x), "return").is_some())
        {
            return format!("some threads return on line {r} and never reach the __syncthreads() on line {l}: instead of returning early, put the work inside an if and keep the barrier outside it, where every thread reaches it");
        }
    }
    generic
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
