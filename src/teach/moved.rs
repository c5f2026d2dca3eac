//! An uninitialised shared read whose index is the thread's own slot moved forward: each
//! thread stores its element at `s[t]` (under a guard) and reads `s[t + 1]` (or `s[(t + 1) %
//! N]`), the slot of a thread after it; past the end of the data that thread skipped its
//! store. Read from the store's and the reads' indices, evaluated for the thread at fault:
//! - the thread never reads its own slot: it takes its neighbour's element instead of its
//!   own, and the fix is the own slot's index, not a zero for the neighbour;
//! - it reads its own slot and slots after it (a window reading forward, `t + 1`, `t + 2`):
//!   a window over the element and the ones before it reads back, `t - 1`, `t - 2`.
//!
//! The rule speaks only where the reading thread made its own store (so the slot read is
//! another thread's) and every read of the array is the own slot plus a constant.

use super::eval;
use super::source::uses_in;
use super::Case;

/// The help for an uninitialised read of `short` (line `c.line`) whose stores are on `writes`,
/// or `None` where the read is not the own slot moved forward.
pub fn help(c: &Case, short: &str, writes: &[u32]) -> Option<String> {
    let r = c.line?;
    // The thread's own store before the read: one subscript, under a guard it passed.
    let (w, own) = writes.iter().filter(|&&w| w < r).find_map(|&w| {
        let u = uses_in(c.src.line(w), short)
            .into_iter()
            .find(|u| u.write && u.dims.len() == 1)?;
        Some((w, u.dims[0].clone()))
    })?;
    let w_env = c.env_on_line(w, c.d.thread, c.d.block);
    let own_at = eval::eval(&own, &w_env)?;
    let stored = c
        .src
        .guards(w)
        .iter()
        .filter(|g| !g.returns)
        .all(|g| eval::eval(&g.cond, &w_env).is_some_and(|v| v != 0));
    if !stored {
        return None;
    }
    // Every read of the array in the function after the store, as an offset from the own slot.
    let start = c.src.function_of(r).map_or(1, |f| f.0);
    let mut reads: Vec<(u32, String, i64)> = Vec::new();
    for l in (w + 1)..=c.src.lines() {
        if c.src.function_of(l).map_or(1, |f| f.0) != start {
            break;
        }
        for u in uses_in(c.src.line(l), short) {
            if u.write || u.dims.len() != 1 {
                continue;
            }
            let at = eval::eval(&u.dims[0], &c.env_on_line(l, c.d.thread, c.d.block))?;
            reads.push((l, u.dims[0].clone(), at - own_at));
        }
    }
    // The read at fault is one of them, ahead of the own slot.
    let this = reads.iter().find(|(l, _, off)| *l == r && *off > 0)?;
    if reads.iter().any(|(_, _, off)| *off < 0) {
        return None;
    }
    let ahead: Vec<&(u32, String, i64)> = reads.iter().filter(|(_, _, o)| *o > 0).collect();
    let reads_own = reads.iter().any(|(_, _, o)| *o == 0);
    if !reads_own && ahead.len() == 1 {
        return Some(format!(
            "`{short}[{}]` on line {r} is not this thread's slot: line {w} stores each thread's \
             element at `{short}[{own}]`, so the slot read belongs to {}, and each output takes \
             another thread's element. Past the end of the data that \
             thread stores nothing, hence the garbage. To use the thread's own element, read \
             its own slot, `{short}[{own}]`",
            this.1,
            if this.2 == 1 {
                "the next thread".to_string()
            } else {
                format!("the thread {} places further on", this.2)
            }
        ));
    }
    let forward: Vec<String> = ahead
        .iter()
        .map(|(_, d, _)| format!("`{short}[{d}]`"))
        .collect();
    let back: Vec<String> = {
        let mut offs: Vec<i64> = ahead.iter().map(|(_, _, o)| *o).collect();
        offs.sort_unstable();
        offs.dedup();
        offs.iter()
            .map(|o| format!("`{short}[{own} - {o}]`"))
            .collect()
    };
    Some(format!(
        "the window reads forward: {} are the slots of the threads after this one (line {w} \
         stores each thread's element at `{short}[{own}]`), the elements after its own, and \
         past the end of the data those threads store nothing. A window over the element and \
         the ones before it reads back: {}, the slots of the threads before it (the first \
         threads of a block need the elements before the block loaded too)",
        join(&forward),
        join(&back)
    ))
}

fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{explain, Scene};
    use crate::emu::facts::{Element, Facts};
    use crate::emu::result::{DiagKind, Diagnostic, Severity};

    /// The help for an uninitialised read of `buf[index]` on `line` by `thread` of block 1, in
    /// blocks of 32 threads, with `n` = 40.
    fn help(src: &str, line: u32, thread: u32, index: i128) -> String {
        let scene = Scene {
            source: src,
            file_name: "k.cu",
            module: None,
            grid: [2, 1, 1],
            block: [32, 1, 1],
            values: vec![("n".into(), 40), ("B".into(), 32)],
            shapes: Vec::new(),
            cooperative: false,
        };
        let d = Diagnostic {
            kind: DiagKind::UninitializedRead,
            severity: Severity::Error,
            message: String::new(),
            help: None,
            facts: Facts::Uninitialized {
                element: Some(Element {
                    name: "buf".into(),
                    index,
                    len: 32,
                }),
            },
            file: Some("k.cu".into()),
            line: Some(line),
            block: [1, 0, 0],
            thread: [thread, 0, 0],
            other_line: None,
        };
        let mut v = vec![d];
        explain(&mut v, &scene);
        v[0].help.clone().unwrap_or_default()
    }

    #[test]
    fn a_read_two_slots_on_gets_the_own_slot_not_a_zero_fill() {
        // Other names and shape: an early return, the read two slots on with no wrap.
        let k = "__global__ void inc(int* y, const int* x, int n) {\n    __shared__ int buf[B];\n    int g = blockIdx.x * B + threadIdx.x;\n    int me = threadIdx.x;\n    if (g < n) buf[me] = x[g];\n    __syncthreads();\n    if (g >= n) return;\n    y[g] = buf[me + 2] + 1;\n}\n";
        // Thread 5 of block 1 (g = 37) reads buf[7], whose thread (g = 39) stored; thread 6
        // (g = 38) reads buf[8], which thread 8 (g = 40) never stored.
        let h = help(k, 8, 6, 8);
        assert!(
            h.contains("`buf[me + 2]` on line 8 is not this thread's slot"),
            "{h}"
        );
        assert!(h.contains("the thread 2 places further on"), "{h}");
        assert!(h.contains("read its own slot, `buf[me]`"), "{h}");
        assert!(!h.contains("when the condition fails"), "{h}");
    }

    #[test]
    fn a_window_reading_forward_gets_the_slots_before() {
        let k = "__global__ void win(int* y, const int* x, int n) {\n    __shared__ int buf[B];\n    int g = blockIdx.x * B + threadIdx.x;\n    int me = threadIdx.x;\n    if (g < n) buf[me] = x[g];\n    __syncthreads();\n    if (g < n) {\n        int s = buf[me];\n        if (me + 1 < B) s = max(s, buf[me + 1]);\n        y[g] = s;\n    }\n}\n";
        let h = help(k, 9, 7, 8);
        assert!(h.contains("the window reads forward: `buf[me + 1]`"), "{h}");
        assert!(h.contains("`buf[me - 1]`"), "{h}");
        assert!(!h.contains("when the condition fails"), "{h}");
    }

    #[test]
    fn a_thread_that_skipped_its_own_store_or_reads_back_is_not_this_rule() {
        // The reading thread skipped its own store (g = 40 >= n): its slot, not a neighbour's.
        let k = "__global__ void inc(int* y, const int* x, int n) {\n    __shared__ int buf[B];\n    int g = blockIdx.x * B + threadIdx.x;\n    int me = threadIdx.x;\n    if (g < n) buf[me] = x[g];\n    __syncthreads();\n    y[g] = buf[me + 1];\n}\n";
        let h = help(k, 7, 8, 9);
        assert!(!h.contains("not this thread's slot"), "{h}");
        // A window that already reads back (and forward): not a forward window to turn round.
        let k2 = k.replace("y[g] = buf[me + 1];", "y[g] = buf[me - 1] + buf[me + 1];");
        let h = help(&k2, 7, 7, 8);
        assert!(
            !h.contains("reads forward") && !h.contains("not this thread's slot"),
            "{h}"
        );
    }
}
