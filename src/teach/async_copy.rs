//! Async copies read or overwritten while in flight, mbarriers used before `init`, and named
//! barriers whose count never arrives or is not whole warps. The help names the wait that was missing in the words
//! of the interface the learner's copy came from (`__pipeline_wait_prior`, `cg::wait`,
//! `pipe.consumer_wait()`, a `cuda::barrier`'s `arrive_and_wait()`, `cp.async.wait_group`),
//! with the learner's own names for the pipeline or barrier where the source shows them.

use super::source::find_word;
use super::Case;
use crate::emu::facts::{AsyncFacts, AsyncHazard, Facts};
use crate::ptx::ir::AsyncApi;

pub fn help(c: &Case) -> String {
    let Facts::AsyncCopy(f) = &c.d.facts else {
        return "an async copy was used before it completed: wait for it (and __syncthreads() before other threads read it) before touching its destination or source".into();
    };
    let line = c.line.map_or(String::new(), |l| format!("line {l}"));
    let issue = if f.issue_line > 0 {
        format!("the copy started on line {}", f.issue_line)
    } else {
        "the async copy".to_string()
    };
    let wait = wait_name(c, f);
    let sync_too = if f.own_copy {
        String::new()
    } else {
        ", then `__syncthreads()` so that the other threads see what each thread's copies brought"
            .to_string()
    };
    match f.hazard {
        AsyncHazard::ReadBeforeWait => {
            let seen = seen_wait(c, f);
            format!("{issue} is still in flight when {line} reads its destination: {wait} before the read{sync_too}{seen}")
        }
        AsyncHazard::ReadBeforeBarrier => format!(
            "{issue} was made by another thread; it waited for its own copy, but nothing told this thread: put a `__syncthreads()` after the wait and before {line}, so every thread reads the tile only once all copies into it have landed"
        ),
        AsyncHazard::DestinationOverwritten => format!(
            "{line} writes where {issue} is still copying to: wait for the copy first ({wait}), or write into the other buffer; in a double-buffered loop, the copy of the next tile goes into the buffer no one reads now"
        ),
        AsyncHazard::SourceOverwritten => format!(
            "{line} overwrites the global memory {issue} is still reading: the copy may see either value; {wait} before overwriting its source"
        ),
        AsyncHazard::BarrierNotInitialised => {
            if c.src.lines() > 0 && (1..=c.src.lines()).any(|l| c.src.line(l).contains("cuda::barrier")) {
                "initialise the barrier before any thread uses it: one thread calls `init(&bar, count)` (count: the threads that arrive on it), then `__syncthreads()`, and only then do threads arrive and wait".into()
            } else {
                "an mbarrier must be initialised (`mbarrier.init`, one thread) and the block synchronised before any thread arrives on it or waits for it".into()
            }
        }
        AsyncHazard::MbarrierStuck => {
            let (count, got) = (f.count, f.arrived);
            format!("the barrier expects {count} arrivals per phase (the count given to `init(&bar, count)` or `mbarrier.init`), but only {got} threads arrived, so its waiters wait forever: initialise it with the number of threads that arrive on it (`block.size()` when every thread of the block does) and make every one of them arrive (no early return, no if around the arrival)")
        }
        AsyncHazard::NamedBarrierCount => {
            let (id, count) = (f.barrier_id, f.count);
            let (down, up) = (count / 32 * 32, count.div_ceil(32).saturating_mul(32));
            let choices = if down > 0 && down != up {
                format!("{down} or {up}")
            } else {
                up.max(32).to_string()
            };
            format!("a named barrier counts whole warps: each warp that reaches `bar.sync {id}, {count}` (or `bar.arrive`) adds 32, even when only some of its lanes run it, so the count must be 32 times the number of warps that take part ({choices} here), producers' `bar.arrive` included; give whole warps their roles (`threadIdx.x / 32`), not single threads")
        }
        AsyncHazard::NamedBarrierStuck => {
            let (id, count, got) = (f.barrier_id, f.count, f.arrived);
            format!("named barrier {id} releases its threads once {count} have arrived (`bar.sync {id}, {count}` or `bar.arrive {id}, {count}`), but only {got} ever did: the count must be exactly the threads of the warps that take part, producers' `bar.arrive` included (a multiple of 32, whole warps), and every one of them must reach it (no early return, no if that skips it)")
        }
    }
}

/// How to wait for the copy, in the interface it came from.
fn wait_name(c: &Case, f: &AsyncFacts) -> String {
    let n = f.newer_groups;
    match f.api {
        AsyncApi::Primitives => {
            if f.committed {
                if n == 0 {
                    "call `__pipeline_wait_prior(0)` (it waits for every group committed so far)"
                        .to_string()
                } else {
                    format!("call `__pipeline_wait_prior({n})` (it waits until at most {n} newer groups are left in flight)")
                }
            } else {
                "close the copies into a group with `__pipeline_commit()` and wait for it with `__pipeline_wait_prior(0)`".into()
            }
        }
        AsyncApi::CooperativeGroups => {
            if n > 0 {
                format!("call `cg::wait_prior<{n}>(block)` (or `cg::wait(block)` to wait for every copy)")
            } else {
                "call `cg::wait(block)` (it waits for the group's copies and synchronises the group)".into()
            }
        }
        AsyncApi::CudaPipeline => {
            let p = name_before(c, "cuda::make_pipeline").unwrap_or_else(|| "pipe".into());
            format!("call `{p}.consumer_wait()` (after `{p}.producer_commit()`) for the stage")
        }
        AsyncApi::CudaBarrier => {
            let b = barrier_name(c, f).unwrap_or_else(|| "bar".into());
            format!("wait on the barrier the copy completes on: `{b}.arrive_and_wait()` (or `{b}.wait({b}.arrive())`)")
        }
        AsyncApi::Ptx => {
            // The learner's own wrapper around the PTX, where there is one.
            let helper = ptx_helper(c, "cp.async.wait_group")
                .map_or(String::new(), |h| format!(" (your `{h}` wraps it)"));
            if f.via_barrier {
                "wait for the mbarrier phase the copy completes on (`mbarrier.try_wait` in a loop until it succeeds)".into()
            } else if f.committed {
                format!("execute `cp.async.wait_group {n}`{helper}")
            } else {
                "close the copies into a group (`cp.async.commit_group`) and wait for it (`cp.async.wait_group 0`), or `cp.async.wait_all`".into()
            }
        }
    }
}

/// The name of the learner's `__device__` function whose inline PTX holds `ptx`.
fn ptx_helper(c: &Case, ptx: &str) -> Option<String> {
    let at = (1..=c.src.lines()).find(|&l| c.src.line(l).contains(ptx))?;
    match c.src.function_of(at)? {
        (start, false) => c.src.function_name(start),
        _ => None,
    }
}

/// What the learner's source shows of waits of the copy's interface, when it has some: the
/// checker saw none cover the copy, so a wait that is there is in the wrong place or waits
/// for too few groups.
fn seen_wait(c: &Case, f: &AsyncFacts) -> String {
    let word = match f.api {
        AsyncApi::Primitives => "__pipeline_wait_prior",
        AsyncApi::CooperativeGroups => "wait",
        AsyncApi::CudaPipeline => "consumer_wait",
        AsyncApi::CudaBarrier => "arrive_and_wait",
        AsyncApi::Ptx => "wait_group",
    };
    let waits: Vec<u32> = (1..=c.src.lines())
        .filter(|&l| {
            let t = c.src.line(l);
            // A call, not the comment or the helper that wraps the PTX (`asm`, `__device__`).
            let code = t.trim_start();
            !code.starts_with("//")
                && !code.contains("asm")
                && !code.contains("__device__")
                && find_word(t, word).is_some()
        })
        .collect();
    let commit = match f.api {
        AsyncApi::Primitives => Some("__pipeline_commit"),
        AsyncApi::Ptx => Some("commit_group"),
        _ => None,
    };
    if let ([w], Some(cm)) = (waits.as_slice(), commit) {
        if let Some(h) = super::commit_order::help(c.src, *w, cm) {
            return h;
        }
    }
    match waits.as_slice() {
        [] => String::new(),
        [w] => format!(". The wait on line {w} did not cover this copy when the read ran: it comes after the read, or leaves this copy's group in flight (it is {} from the newest)", groups(f.newer_groups)),
        ws => format!(". The waits on lines {} did not cover this copy when the read ran: one comes after the read, or leaves this copy's group in flight (it is {} from the newest)", ws.iter().map(u32::to_string).collect::<Vec<_>>().join(", "), groups(f.newer_groups)),
    }
}

fn groups(n: u32) -> String {
    match n {
        0 => "the newest group itself".into(),
        1 => "1 group".into(),
        n => format!("{n} groups"),
    }
}

/// `NAME` of `auto NAME = CALL(...)` in the source (the learner's name for a pipeline).
fn name_before(c: &Case, call: &str) -> Option<String> {
    (1..=c.src.lines()).find_map(|l| {
        let t = c.src.line(l);
        let at = t.find(call)?;
        let lhs = t[..at].trim_end().strip_suffix('=')?.trim_end();
        let name: String = lhs
            .chars()
            .rev()
            .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

/// The barrier a `cuda::memcpy_async` on the copy's line completes on: its last argument.
fn barrier_name(c: &Case, f: &AsyncFacts) -> Option<String> {
    let t = c.src.line(f.issue_line);
    let at = t.find("memcpy_async")?;
    let args = &t[at..];
    let close = args.rfind(')')?;
    let last = args[..close].rsplit(',').next()?.trim();
    let name = last.trim_start_matches('&').trim();
    (!name.is_empty()
        && name
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.'))
    .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::{explain, Scene};
    use crate::emu::facts::{AsyncFacts, AsyncHazard, Facts};
    use crate::emu::result::{DiagKind, Diagnostic, Severity};
    use crate::ptx::ir::AsyncApi;

    fn help(src: &str, facts: AsyncFacts, line: u32) -> String {
        let scene = Scene {
            source: src,
            file_name: "k.cu",
            module: None,
            grid: [1, 1, 1],
            block: [64, 1, 1],
            values: Vec::new(),
            shapes: Vec::new(),
            cooperative: false,
        };
        let mut v = vec![Diagnostic {
            kind: DiagKind::AsyncCopy,
            severity: Severity::Error,
            message: String::new(),
            help: None,
            facts: Facts::AsyncCopy(facts),
            file: Some("k.cu".into()),
            line: Some(line),
            block: [0; 3],
            thread: [1, 0, 0],
            other_line: None,
        }];
        explain(&mut v, &scene);
        v[0].help.clone().unwrap_or_default()
    }

    fn facts(api: AsyncApi, hazard: AsyncHazard) -> AsyncFacts {
        AsyncFacts {
            api,
            issue_line: 3,
            committed: true,
            ..AsyncFacts::new(hazard)
        }
    }

    #[test]
    fn a_read_before_the_wait_names_the_wait_of_the_interface_used() {
        let src = "#include <cuda_pipeline.h>\n__global__ void k(const float* a) {\n  __pipeline_memcpy_async(&t[i], &a[i], 4); __pipeline_commit();\n  float v = t[i];\n}\n";
        let h = help(
            src,
            facts(AsyncApi::Primitives, AsyncHazard::ReadBeforeWait),
            4,
        );
        assert!(h.contains("__pipeline_wait_prior(0)"), "{h}");
        assert!(h.contains("__syncthreads()"), "{h}");
        let h = help(
            src,
            facts(AsyncApi::CooperativeGroups, AsyncHazard::ReadBeforeWait),
            4,
        );
        assert!(h.contains("cg::wait(block)"), "{h}");
        let src = "auto p = cuda::make_pipeline();\n\ncuda::memcpy_async(&t[i], &a[i], 4, p);\nfloat v = t[i];\n";
        let h = help(
            src,
            facts(AsyncApi::CudaPipeline, AsyncHazard::ReadBeforeWait),
            4,
        );
        assert!(h.contains("`p.consumer_wait()`"), "{h}");
        let src = "\n\ncuda::memcpy_async(block, t, a, 512, bar2);\nfloat v = t[i];\n";
        let h = help(
            src,
            facts(AsyncApi::CudaBarrier, AsyncHazard::ReadBeforeWait),
            4,
        );
        assert!(h.contains("bar2.arrive_and_wait()"), "{h}");
    }

    #[test]
    fn a_wait_that_leaves_the_group_in_flight_is_pointed_at() {
        let src = "\n\n__pipeline_memcpy_async(&t[i], &a[i], 4); __pipeline_commit();\n__pipeline_wait_prior(1);\nfloat v = t[i];\n";
        let h = help(
            src,
            facts(AsyncApi::Primitives, AsyncHazard::ReadBeforeWait),
            5,
        );
        assert!(h.contains("wait on line 4"), "{h}");
        assert!(h.contains("__pipeline_wait_prior(0)"), "{h}");
    }

    #[test]
    fn a_wait_in_inline_ptx_names_the_learners_wrapper() {
        let src = "template <int N>\n__device__ void wait_group() { asm volatile(\"cp.async.wait_group %0;\" :: \"n\"(N)); }\n\nfloat v = t[i];\n";
        let h = help(src, facts(AsyncApi::Ptx, AsyncHazard::ReadBeforeWait), 4);
        assert!(
            h.contains("`cp.async.wait_group 0` (your `wait_group` wraps it)"),
            "{h}"
        );
        // The helper's definition is no wait the learner placed.
        assert!(!h.contains("line 2"), "{h}");
    }

    #[test]
    fn a_read_by_another_thread_after_the_wait_needs_a_barrier() {
        let src = "\n\n__pipeline_memcpy_async(&t[i], &a[i], 4);\n__pipeline_wait_prior(0);\nfloat v = t[i + 1];\n";
        let h = help(
            src,
            facts(AsyncApi::Primitives, AsyncHazard::ReadBeforeBarrier),
            5,
        );
        assert!(h.contains("__syncthreads()") && h.contains("line 5"), "{h}");
    }

    #[test]
    fn overwrites_and_stuck_named_barriers_say_what_to_do() {
        let h = help(
            "\n\n\n\n",
            facts(AsyncApi::Ptx, AsyncHazard::DestinationOverwritten),
            4,
        );
        assert!(h.contains("cp.async.wait_group 0"), "{h}");
        let h = help(
            "\n\n\n\n",
            facts(AsyncApi::Ptx, AsyncHazard::SourceOverwritten),
            4,
        );
        assert!(h.contains("overwrites the global memory"), "{h}");
        let stuck = AsyncFacts {
            barrier_id: 1,
            count: 64,
            arrived: 32,
            ..AsyncFacts::new(AsyncHazard::NamedBarrierStuck)
        };
        let h = help("\n\n\n\n", stuck, 4);
        assert!(
            h.contains("named barrier 1") && h.contains("only 32"),
            "{h}"
        );
    }

    #[test]
    fn a_count_that_is_not_whole_warps_names_the_counts_that_are() {
        let count = |n: u32| AsyncFacts {
            barrier_id: 2,
            count: n,
            ..AsyncFacts::new(AsyncHazard::NamedBarrierCount)
        };
        let h = help("\n\n\n\n", count(80), 4);
        assert!(
            h.contains("`bar.sync 2, 80`") && h.contains("(64 or 96 here)"),
            "{h}"
        );
        let h = help("\n\n\n\n", count(16), 4);
        assert!(h.contains("(32 here)"), "{h}");
        // A count from a register can be anything.
        let h = help("\n\n\n\n", count(u32::MAX), 4);
        assert!(h.contains("`bar.sync 2, 4294967295`"), "{h}");
    }
}
