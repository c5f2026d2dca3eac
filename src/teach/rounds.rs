//! A memory budget missed by one round of a doubling loop too many: `for (d = 1; d <= TPB; d
//! *= 2)` whose body works only `if (i >= d)`, with `i` the thread's index. In the round d =
//! TPB no thread of the block passes the guard, so that round only copies what it read: one
//! read and one write a thread past the budget, which is built for the rounds that add. Read
//! from the source after the preprocessor, the bound evaluated with the puzzle's defines and
//! the block's shape; a loop without such a guard, or one that stops below the block size,
//! keeps the rule silent.

use super::eval::{self, Env};
use super::source::{if_condition, Source};

/// The help for a memory `counter` over budget, when a doubling loop's `<=` bound adds a round
/// in which no thread passes its guard.
pub fn help(
    counter: &str,
    src: &Source,
    values: &[(String, i64)],
    block: [u32; 3],
) -> Option<String> {
    if !matches!(
        counter,
        "shared_reads" | "shared_writes" | "global_reads" | "global_writes"
    ) {
        return None;
    }
    let mut env = Env::default();
    for (n, v) in src.defines().iter().chain(values) {
        env.set(n.clone(), *v);
    }
    for (i, a) in ["x", "y", "z"].iter().enumerate() {
        env.set(format!("blockDim.{a}"), block[i] as i64);
    }
    let threads = block[0] as i64;
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|x| x.line == h) else {
            continue;
        };
        let Some(var) = head.init.as_deref().and_then(super::index::loop_var) else {
            continue;
        };
        let Some((lhs, bound)) = head.cond.split_once("<=") else {
            continue;
        };
        if lhs.trim() != var || !doubles(head.step.as_deref().unwrap_or(""), &var) {
            continue;
        }
        let bound = bound.trim();
        let Some(last) = eval::eval(bound, &env) else {
            continue;
        };
        // The largest power of two the loop reaches: its last round.
        let start = head
            .init
            .as_deref()
            .and_then(|i| i.split_once('='))
            .and_then(|(_, v)| eval::eval(v.trim(), &env))
            .unwrap_or(1);
        if start <= 0 {
            continue;
        }
        let mut top = start;
        while top * 2 <= last {
            top *= 2;
        }
        // A guard in the body that no thread of the block passes in that round.
        let body = src.loop_body(h);
        let Some((gl, cond)) = body.clone().find_map(|l| {
            let cond = if_condition(src.line(l))?;
            nobody_passes(src, l, &cond, &var, top, threads).then_some((l, cond))
        }) else {
            continue;
        };
        let shown = if bound.chars().all(|c| c.is_ascii_digit()) {
            String::new()
        } else {
            format!(" = {top}")
        };
        return Some(format!(
            "the loop on line {h} runs while `{}`, so its last round has {var} = {bound}{shown}: \
             there `{cond}` (line {gl}) holds for no thread of the block, whose indices stop at \
             {}, and the round adds nothing. It is one round too many, and its reads and writes \
             are what goes past the budget: stop the loop at `{var} < {bound}`",
            head.cond.trim(),
            threads - 1
        ));
    }
    None
}

/// Whether a loop step doubles `var`: `var *= 2`, `var <<= 1`, `var = var * 2`, `var += var`.
fn doubles(step: &str, var: &str) -> bool {
    let s = eval::canonical(step);
    [
        format!("{var}*=2"),
        format!("{var}<<=1"),
        format!("{var}={var}*2"),
        format!("{var}=2*{var}"),
        format!("{var}+={var}"),
        format!("{var}={var}<<1"),
    ]
    .contains(&s)
}

/// Whether `cond` is `t >= var` or `var <= t` with `t` the thread's index (`threadIdx.x`, or
/// a local set to it before line `line`), so that with `var` = `top` and `threads` threads
/// (indices below `threads`), no thread passes.
fn nobody_passes(src: &Source, line: u32, cond: &str, var: &str, top: i64, threads: i64) -> bool {
    let thread_index = |e: &str| {
        let e = e.trim();
        e == "threadIdx.x"
            || src
                .locals_named_for(line, "threadIdx.x")
                .iter()
                .any(|n| n == e)
    };
    let c = cond.trim();
    let (t, v) = if let Some((a, b)) = c.split_once(">=") {
        (a, b)
    } else if let Some((a, b)) = c.split_once("<=") {
        (b, a)
    } else {
        return false;
    };
    v.trim() == var && thread_index(t) && threads <= top
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doubling_loop_to_the_block_size_inclusive_is_one_round_too_many() {
        // Other names and shape: a shift step, the guard written `step <= lane`, a scalar bound.
        let k = "__global__ void prefix(int* res, const int* v, int n) {\n\
                 __shared__ int ping[128];\n\
                 int lane = threadIdx.x;\n\
                 ping[lane] = v[lane];\n\
                 __syncthreads();\n\
                 for (int step = 1; step <= W; step <<= 1) {\n\
                 int add = 0;\n\
                 if (step <= lane) add = ping[lane - step];\n\
                 __syncthreads();\n\
                 ping[lane] += add;\n\
                 __syncthreads();\n\
                 }\n\
                 res[lane] = ping[lane];\n\
                 }\n";
        let s = Source::new(k);
        let h = help("shared_reads", &s, &[("W".into(), 128)], [128, 1, 1]).unwrap_or_default();
        assert!(h.contains("loop on line 6 runs while `step <= W`"), "{h}");
        assert!(
            h.contains("step = W = 128") && h.contains("`step <= lane` (line 8)"),
            "{h}"
        );
        assert!(
            h.contains("`step < W`") && h.contains("one round too many"),
            "{h}"
        );
        assert!(help("global_atomics", &s, &[("W".into(), 128)], [128, 1, 1]).is_none());
    }

    #[test]
    fn a_loop_that_stops_below_the_block_or_has_work_for_someone_stays_silent() {
        let k = "__global__ void prefix(int* res, const int* v, int n) {\n\
                 __shared__ int ping[128];\n\
                 int lane = threadIdx.x;\n\
                 for (int step = 1; step <= W; step *= 2) {\n\
                 if (lane >= step) ping[lane] += ping[lane - step];\n\
                 __syncthreads();\n\
                 }\n\
                 }\n";
        let s = Source::new(k);
        // A block wider than the bound: in the last round threads W..255 still add.
        assert!(help("shared_reads", &s, &[("W".into(), 128)], [256, 1, 1]).is_none());
        // The bound `<`: no extra round.
        let k2 = k.replace("step <= W", "step < W");
        assert!(help(
            "shared_reads",
            &Source::new(&k2),
            &[("W".into(), 128)],
            [128, 1, 1]
        )
        .is_none());
        // A guard on something else than the thread's index.
        let k3 = k.replace("if (lane >= step)", "if (n >= step)");
        assert!(help(
            "shared_reads",
            &Source::new(&k3),
            &[("W".into(), 128)],
            [128, 1, 1]
        )
        .is_none());
    }
}
