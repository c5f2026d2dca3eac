//! A loop that never ends. The help reads the loop's header: a step that computes a value and
//! drops it (`s * 2`), a loop variable that settles at a value the condition still accepts
//! (`s /= 2` stays at 0 and `s >= 0` holds), one that moves away from ending the loop, or a
//! `while` whose body never changes what its condition tests. Otherwise it says what it saw.

use super::eval::{self, Env};
use super::source::{assigns, LoopHeader};
use super::Case;

const GENERIC: &str = "a loop that never ends? Check that the loop's condition eventually becomes false and that the variable it tests changes on every pass, towards making it false";

pub fn help(c: &Case) -> String {
    if matches!(c.d.facts, crate::emu::facts::Facts::TimedOut { .. }) {
        return "an endless loop, or a __syncthreads() that not every thread of the block reaches? Run it with --backend emu to see which thread and line; --timeout SECS allows longer runs".into();
    }
    if let crate::emu::facts::Facts::StoppedByClock { .. } = c.d.facts {
        return "not a verdict on the kernel: it was still within its step limit when this machine's clock stopped it (a backstop for runaway launches, far above what the limit costs at a normal speed). Run it again on a less busy machine, or set GPUZZLE_TIME_LIMIT=SECS for a longer run".into();
    }
    if let crate::emu::facts::Facts::GridSyncNeverCompletes {
        returned, cluster, ..
    } = c.d.facts
    {
        let some = if returned == 1 {
            "a block"
        } else {
            "some blocks"
        };
        let (what, call, whose) = if cluster {
            ("the cluster barrier", "cluster.sync()", "of the cluster")
        } else {
            ("the grid sync", "grid.sync()", "of the grid")
        };
        return format!("{some} returned before {what}, which waits for every thread of every block {whose}: guard the work instead of returning (`if (i < size) {{ ... }}`), keep `{call}` outside any `if`, and let every block reach each sync the same number of times");
    }
    if let crate::emu::facts::Facts::LaunchStopped {
        blocks, by_time, ..
    } = c.d.facts
    {
        let raise = if by_time {
            "GPUZZLE_TIME_LIMIT=SECS allows a longer run"
        } else {
            "`gpuzzle exec --step-limit N` allows more instructions (a puzzle's own limit is fixed)"
        };
        return format!(
            "no thread was stuck: the {blocks} blocks' work adds up to more than the emulator runs in one launch. Use fewer blocks (a loop over the data in each thread), or, if this much work is meant, {raise}"
        );
    }
    let Some(l) = c.line else {
        return GENERIC.into();
    };
    let Some(h) = c.src.loop_header(l) else {
        return GENERIC.into();
    };
    if let Some(said) = constant_condition(&h) {
        return said;
    }
    let env = c.env();
    match &h.step {
        Some(step) => for_loop(&h, step, env),
        None => while_loop(c, &h),
    }
}

/// A loop whose condition tests nothing (`for (;;)`, `for (..; 1; ..)`, `while (true)`) is its
/// own cause: no step or body can end it, so the step is not blamed.
fn constant_condition(h: &LoopHeader) -> Option<String> {
    let cond = h.cond.trim();
    let what = match h.init.as_deref().and_then(|i| i.split_once('=')) {
        Some((lhs, _)) => lhs
            .split_whitespace()
            .last()
            .map(|v| format!(": write the test that should end it (where `{v}` should stop)")),
        None => None,
    }
    .unwrap_or_else(|| ": give it a condition that some pass makes false".into());
    if cond.is_empty() {
        return Some(format!("the loop on line {} has no condition, so only a `break` or `return` could end it, and none was reached{what}", h.line));
    }
    let tests_something = eval::names(cond)
        .iter()
        .any(|n| n != "true" && n != "false");
    if tests_something {
        return None;
    }
    Some(format!("the condition `{cond}` is always true (it tests no variable), so only a `break` or `return` could end the loop, and none was reached{what}"))
}

/// `s * 2` → `s *= 2`: a step without an assignment, and its fix.
fn dropped_step(step: &str) -> Option<String> {
    let s = step.trim();
    if s.contains('=') || s.contains("++") || s.contains("--") || s.contains('(') {
        return None;
    }
    for op in ["<<", ">>", "*", "/", "+", "-"] {
        if let Some((a, b)) = s.split_once(op) {
            let (a, b) = (a.trim(), b.trim());
            if !a.is_empty() && a.chars().all(|ch| ch.is_alphanumeric() || ch == '_') {
                return Some(format!("{a} {op}= {b}"));
            }
        }
    }
    None
}

/// The variable a `for` initialises and its start value.
pub(super) fn start(init: &str, env: &Env) -> Option<(String, i64)> {
    let (lhs, rhs) = init.split_once('=')?;
    let var = lhs.split_whitespace().last()?.to_string();
    Some((var, eval::eval(rhs.trim(), env)?))
}

/// One application of a step to `var`'s value `v`.
pub(super) fn apply(step: &str, var: &str, v: i64, env: &Env) -> Option<i64> {
    let s: String = step.split_whitespace().collect();
    if s == format!("{var}++") || s == format!("++{var}") {
        return Some(v.wrapping_add(1));
    }
    if s == format!("{var}--") || s == format!("--{var}") {
        return Some(v.wrapping_sub(1));
    }
    let mut e = env.clone();
    e.set(var, v);
    for op in ["<<=", ">>=", "+=", "-=", "*=", "/="] {
        if let Some(rhs) = s.strip_prefix(&format!("{var}{op}")) {
            let bin = &op[..op.len() - 1];
            return eval::eval(&format!("{var} {bin} ({rhs})"), &e);
        }
    }
    let rhs = s.strip_prefix(&format!("{var}="))?;
    eval::eval(rhs, &e)
}

fn for_loop(h: &LoopHeader, step: &str, env: Env) -> String {
    if let Some(fix) = dropped_step(step) {
        return format!("the step `{}` computes a value and drops it, so the loop variable never changes: write `{fix}`", step.trim());
    }
    let Some((var, mut v)) = h.init.as_deref().and_then(|i| start(i, &env)) else {
        return said(h);
    };
    let cond = h.cond.trim();
    if !eval::names(cond).contains(&var) {
        return format!("the condition `{cond}` does not test `{var}`, the variable the step `{}` changes, so the step cannot end the loop: compare `{var}` with where it should stop (or make the body change what `{cond}` tests)", step.trim());
    }
    let mut seen = vec![v];
    for _ in 0..64 {
        let mut e = env.clone();
        e.set(var.clone(), v);
        match eval::eval(cond, &e) {
            Some(0) => {
                return format!("by its header alone the loop ends (`{var}` reaches {v}, where `{cond}` is false), so something in its body keeps it going: check the lines in the loop that change `{var}` or what `{cond}` compares it with");
            }
            Some(_) => {}
            None => return said(h),
        }
        let Some(next) = apply(step, &var, v, &env) else {
            return said(h);
        };
        if next == v {
            // A doubling step from a start of 0: the start is the slip, not the condition.
            let scales = ["*=", "<<="].iter().any(|op| step.contains(op))
                || step.replace(' ', "").starts_with(&format!("{var}={var}*"));
            if seen.len() == 1 && v == 0 && scales {
                let init = h.init.as_deref().unwrap_or("");
                let lhs = init.split_once('=').map_or(init, |(l, _)| l).trim_end();
                return format!("`{var}` starts at 0, and the step `{}` leaves 0 as it is, so `{var}` never moves and `{cond}` stays true: start it at 1 (`{lhs} = 1`)", step.trim());
            }
            let fix = if cond.replace(' ', "") == format!("{var}>=0") {
                format!(": use `{var} > 0`")
            } else {
                format!(": change the condition so it is false once `{var}` is {v}")
            };
            return format!("`{var}` stops changing at {v} (`{}` leaves {v} as it is), and `{cond}` is still true there, so the loop never ends{fix}", step.trim());
        }
        v = next;
        seen.push(v);
    }
    let shown: Vec<String> = seen.iter().take(4).map(|x| x.to_string()).collect();
    format!("`{var}` goes {}, … and `{cond}` stays true: the step `{}` moves it away from ending the loop; it should go the other way (or the condition should compare the other way)", shown.join(", "), step.trim())
}

fn while_loop(c: &Case, h: &LoopHeader) -> String {
    let vars: Vec<String> = eval::names(&h.cond)
        .into_iter()
        .filter(|n| !n.contains('.') && n != "true" && n != "false")
        .collect();
    if vars.is_empty() {
        // Only names like `p.done` (a member): what the body does to them is not read here.
        return said(h);
    }
    let body = c.src.loop_body(h.line);
    let changes = body.clone().find(|&l| {
        let t = c.src.line(l);
        vars.iter().any(|v| assigns(t, v))
    });
    match changes {
        None => format!("nothing in the loop body changes {}, which `{}` tests, so the condition stays true forever: update {} on every pass, towards making it false", list(&vars), h.cond.trim(), if vars.len() == 1 { "it" } else { "one of them" }),
        Some(l) => format!("line {l} changes what `{}` tests, but not so that it ever becomes false for this thread: check that every pass (every path through the body, including `continue`) moves it towards ending the loop", h.cond.trim()),
    }
}

/// The values a `for` loop's variable takes, by its header alone (start, condition, step), in
/// `env`: at most `cap` of them; `None` when any part is unknown or the loop does not end by
/// then.
pub(super) fn values(h: &LoopHeader, env: &Env, cap: usize) -> Option<(String, Vec<i64>)> {
    let (var, mut v) = start(h.init.as_deref()?, env)?;
    let step = h.step.as_deref()?;
    let mut out = Vec::new();
    for _ in 0..cap {
        let mut e = env.clone();
        e.set(var.clone(), v);
        if eval::eval(h.cond.trim(), &e)? == 0 {
            return Some((var, out));
        }
        out.push(v);
        v = apply(step, &var, v, env)?;
    }
    None
}

/// The condition-only message: what was seen.
fn said(h: &LoopHeader) -> String {
    format!("the condition `{}` (line {}) stayed true pass after pass: check that the variable it tests changes on every pass, towards making it false", h.cond.trim(), h.line)
}

fn list(v: &[String]) -> String {
    v.iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_step_gets_its_assignment() {
        assert_eq!(dropped_step("s * 2").as_deref(), Some("s *= 2"));
        assert_eq!(dropped_step("i + 1").as_deref(), Some("i += 1"));
        assert_eq!(dropped_step("s /= 2"), None);
        assert_eq!(dropped_step("i++"), None);
    }

    #[test]
    fn steps_apply_to_the_loop_variable() {
        let e = Env::default();
        assert_eq!(apply("s /= 2", "s", 1, &e), Some(0));
        assert_eq!(apply("s /= 2", "s", 0, &e), Some(0));
        assert_eq!(apply("i++", "i", 3, &e), Some(4));
        assert_eq!(apply("s >>= 1", "s", 8, &e), Some(4));
        assert_eq!(apply("s = s * 2", "s", 3, &e), Some(6));
    }

    #[test]
    fn a_loop_s_values_come_from_its_header() {
        let h = |init: &str, cond: &str, step: &str| LoopHeader {
            line: 1,
            init: Some(init.into()),
            cond: cond.into(),
            step: Some(step.into()),
        };
        let mut e = Env::default();
        e.set("N", 8);
        let (var, v) = values(&h("int s = 1", "s < N", "s *= 2"), &e, 64).unwrap();
        assert_eq!((var.as_str(), v), ("s", vec![1, 2, 4]));
        let (_, v) = values(&h("int d = N", "d > 0", "d >>= 1"), &e, 64).unwrap();
        assert_eq!(v, vec![8, 4, 2, 1]);
        assert_eq!(values(&h("int d = N", "d >= 0", "d /= 2"), &e, 64), None);
        assert_eq!(values(&h("int d = M", "d > 0", "d /= 2"), &e, 64), None);
    }

    #[test]
    fn a_condition_that_tests_nothing_is_the_cause_not_the_step() {
        let h = |init: Option<&str>, cond: &str| LoopHeader {
            line: 6,
            init: init.map(Into::into),
            cond: cond.into(),
            step: Some("i += step".into()),
        };
        let one = constant_condition(&h(Some("int i = tid"), " 1 ")).unwrap();
        assert!(one.starts_with("the condition `1` is always true"), "{one}");
        assert!(one.contains("where `i` should stop"), "{one}");
        assert!(!one.contains("other way"), "{one}");
        // Another shape: `while (true)` with no loop variable; `for (;;)` with none at all.
        let forever = constant_condition(&h(None, "true")).unwrap();
        assert!(forever.contains("`true` is always true"), "{forever}");
        assert!(
            forever.ends_with("a condition that some pass makes false"),
            "{forever}"
        );
        let none = constant_condition(&h(Some("unsigned k = 0"), "")).unwrap();
        assert!(
            none.starts_with("the loop on line 6 has no condition"),
            "{none}"
        );
        assert!(!none.contains("``"), "{none}");
        assert_eq!(constant_condition(&h(Some("int i = 0"), "i < n")), None);
        // A step that changes a variable the condition does not test.
        let other = for_loop(&h(Some("int k = 0"), "idx < n"), "k++", Env::default());
        assert!(
            other.starts_with("the condition `idx < n` does not test `k`"),
            "{other}"
        );
    }

    #[test]
    fn a_doubling_step_from_zero_is_told_to_start_at_one() {
        let h = |init: &str, cond: &str| LoopHeader {
            line: 15,
            init: Some(init.into()),
            cond: cond.into(),
            step: None,
        };
        let mut e = Env::default();
        e.set("TPB", 64);
        let doubled = for_loop(&h("int off = 0", "off < TPB"), "off *= 2", e.clone());
        assert!(
            doubled.contains("start it at 1 (`int off = 1`)"),
            "{doubled}"
        );
        assert!(!doubled.contains("change the condition"), "{doubled}");
        // Another name and shape: a shift, an unsigned variable, a bound from a scalar.
        e.set("n", 300);
        let shifted = for_loop(
            &h("unsigned width = 0", "width < n"),
            "width <<= 1",
            e.clone(),
        );
        assert!(shifted.contains("`unsigned width = 1`"), "{shifted}");
        // A halving step that stops at 0 is the condition's fault, not the start's.
        let halved = for_loop(&h("int s = TPB", "s >= 0"), "s /= 2", e);
        assert!(halved.contains("use `s > 0`"), "{halved}");
        assert!(!halved.contains("start it at 1"), "{halved}");
    }

    #[test]
    fn assignments_are_found() {
        assert!(assigns("  i += stride;", "i"));
        assert!(assigns("  ++i;", "i"));
        assert!(!assigns("  x = i + 1;", "i"));
    }
}
