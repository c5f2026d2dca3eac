//! Which source lines made an over-budget counter's accesses. The judge's runs count, they do
//! not log (the hot path stays as it is): only when a counter is over its budget is the test's
//! launches run again, on the emulator whatever executor graded them, with the accesses of the
//! blocks of the threads that used the most kept (`emu::run_traced_blocks`), and each such
//! thread's accesses counted per line (`trace::lines`). A block over its `block_budget` gets
//! the same, summed over the block's threads.

use super::outcome::{BlockLimitKind, BlockOverrun, KernelUse, OverBudget};
use crate::emu::result::Counters;
use crate::emu::{self, Deadline, EmuOptions, LaunchConfig};
use crate::ptx::Module;
use crate::puzzle::{run_steps, Launched, Puzzle, TestCase};
use crate::trace::{events, lines};

/// Fill in `OverBudget::lines` of every counter over budget in `kernels` (the test's kernels,
/// as the judge found them), from a traced run of the test's launches in order on the
/// emulator, from the same inputs. A kernel launched several times: the first of its launches
/// in which the thread made exactly the figure the table shows. Lines are left empty where the
/// traced run cannot account for that figure exactly (a launch that does not run, a thread
/// whose accesses depend on the schedule, a log past its cap): never a list that does not add
/// up to the table.
pub(super) fn find_lines(
    (puzzle, test, seed): (&Puzzle, &TestCase, Option<u64>),
    learner: &Module,
    opts: &EmuOptions,
    kernels: &mut [&mut KernelUse],
) {
    let opts = EmuOptions {
        perf: false,
        // The traced run is one thread at a time, with or without them: the counts are the
        // same, and what the checkers would report the graded run has reported already.
        checkers: false,
        deadline: opts.deadline.map(|d| Deadline::after(d.limit)),
        ..opts.clone()
    };
    let steps = puzzle.steps(test);
    // Not a result: a traced run that stops early just leaves the later lines unfound.
    let _ = run_steps(&steps, test.initial_buffers(seed), |at| {
        let step = at.step;
        let args = at.args.map_err(|_| ())?;
        let cfg = LaunchConfig {
            grid: step.grid,
            block: step.block,
            dynamic_shared: step.shared_bytes,
            cooperative: puzzle.cooperative,
        };
        let mine = kernels.iter_mut().find(|k| k.name == step.kernel);
        let blocks: Vec<[u32; 3]> = mine.as_ref().map_or_else(Vec::new, |k| {
            let mut b: Vec<[u32; 3]> = unfound(k).map(|o| o.thread.block).collect();
            b.extend(unfound_blocks(k).map(|o| o.block));
            b.sort_unstable();
            b.dedup();
            b
        });
        let (result, trace) = if blocks.is_empty() {
            let r = emu::run_with_symbols(learner, step.kernel, &cfg, args, &step.symbols, &opts)
                .map_err(|_| ())?;
            (r.0, None)
        } else {
            let (r, raw) = emu::run_traced_blocks(
                learner,
                step.kernel,
                &cfg,
                args,
                &step.symbols,
                &opts,
                &blocks,
            )
            .map_err(|_| ())?;
            let complete = raw.complete;
            let t = events::resolve(learner, step.kernel, step.grid, step.block, &raw);
            (r, complete.then_some(t))
        };
        if let (Some(k), Some(trace)) = (mine, trace) {
            let unfound = |o: &&mut OverBudget| o.is_counter() && o.lines.is_empty();
            for o in k.over_budget.iter_mut().filter(unfound) {
                let Some(counter) = Counters::NAMES.iter().position(|&n| n == o.counter) else {
                    continue;
                };
                let Some(thread) = thread_events(&trace, o.thread.block, o.thread.thread) else {
                    continue;
                };
                let found = lines::per_line(&trace, learner, thread, counter);
                // Only the launch that made the table's figure: the counts add up to it.
                if found.iter().map(|l| l.count).sum::<u64>() == o.used {
                    o.lines = found;
                }
            }
            let unfound = |o: &&mut BlockOverrun| {
                o.limit_kind == BlockLimitKind::Budget && o.lines.is_empty()
            };
            for o in k.block_overruns.iter_mut().filter(unfound) {
                let (Some(counter), Some(threads)) =
                    (Counters::index(o.counter), trace.block(o.block))
                else {
                    continue;
                };
                let found = lines::per_line_of(&trace, learner, threads, counter);
                if found.iter().map(|l| l.count).sum::<u64>() == o.used {
                    o.lines = found;
                }
            }
        }
        let faulted = result.has_errors();
        Ok::<_, ()>(Launched {
            buffers: result.buffers,
            faulted,
        })
    });
}

/// The blocks over their `block_budget` whose lines are still to be found.
fn unfound_blocks(k: &KernelUse) -> impl Iterator<Item = &BlockOverrun> {
    (k.block_overruns.iter())
        .filter(|o| o.limit_kind == BlockLimitKind::Budget && o.lines.is_empty())
}

/// The counters over budget whose lines are still to be found.
fn unfound(k: &KernelUse) -> impl Iterator<Item = &OverBudget> {
    (k.over_budget.iter()).filter(|o| o.is_counter() && o.lines.is_empty())
}

/// One thread's events in a resolved trace.
fn thread_events(
    trace: &events::LaunchTrace,
    block: [u32; 3],
    tid: [u32; 3],
) -> Option<&events::ThreadEvents> {
    trace.block(block)?.iter().find(|t| t.tid == tid)
}

#[cfg(test)]
mod tests {
    use super::super::outcome::{LineUse, OverBudget, PuzzleOutcome};
    use super::super::{judge, JudgeOptions};
    use crate::puzzle::embedded_puzzles;
    use crate::puzzle::Puzzle;

    fn puzzle(id: u32) -> Puzzle {
        let all = embedded_puzzles().expect("the pack loads");
        all.into_iter().find(|p| p.id == id).expect("in the pack")
    }

    fn graded(id: u32, source: &str) -> PuzzleOutcome {
        let p = puzzle(id);
        judge(&p, "k.cu", source, &JudgeOptions::default()).expect("judged")
    }

    /// `(line, count)` of each line.
    fn counts(o: &OverBudget) -> Vec<(Option<u32>, u64)> {
        o.lines.iter().map(|l| (l.line, l.count)).collect()
    }

    /// Every counter over budget in every test has lines, and they add up to its figure.
    fn assert_lines_add_up(outcome: &PuzzleOutcome) {
        assert!(
            outcome.compile_error.is_none(),
            "{:?}",
            outcome.compile_error
        );
        let mut seen = 0;
        for t in &outcome.tests {
            for o in t.over_budget.iter().filter(|o| o.is_counter()) {
                let sum: u64 = o.lines.iter().map(|l| l.count).sum();
                assert_eq!(sum, o.used, "{} in {}: {:?}", o.counter, t.name, o.lines);
                seen += 1;
            }
        }
        assert!(seen > 0, "nothing went over budget");
    }

    // Puzzle 9 read straight from `a`: three reads on three lines, for the first thread with
    // all three (thread 2).
    const POOLING: &str = "\
extern \"C\" __global__ void pooling(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float s = a[i];
        if (i > 0) s += a[i - 1];
        if (i > 1) s += a[i - 2];
        out[i] = s;
    }
}
";

    #[test]
    fn each_line_of_an_overrun_is_counted_for_the_thread_that_used_most() {
        let outcome = graded(9, POOLING);
        assert_lines_add_up(&outcome);
        let t = &outcome.tests[0];
        assert_eq!(t.over_budget.len(), 1, "{:?}", t.over_budget);
        let o = &t.over_budget[0];
        assert_eq!((o.counter, o.used, o.budget), ("global_reads", 3, 2));
        assert_eq!(o.thread.thread, [2, 0, 0]);
        assert_eq!(counts(o), [(Some(4), 1), (Some(5), 1), (Some(6), 1)]);
        assert_eq!(
            o.lines[1],
            LineUse {
                file: Some("k.cu".into()),
                line: Some(5),
                count: 1,
                cells: vec!["a[1]".into()],
                distinct: 1,
            }
        );
        // The random variant too, and nothing for the budgets kept.
        assert_eq!(counts(&outcome.tests[1].over_budget[0]), counts(o));
    }

    #[test]
    fn a_vector_access_counts_each_element_and_an_atomic_a_read_and_a_write() {
        let source = "\
extern \"C\" __global__ void pooling(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float2 p = reinterpret_cast<const float2*>(a)[i / 2];
        float s = i % 2 == 0 ? p.x : p.y;
        if (i > 0) s += a[i - 1];
        if (i > 1) s += a[i - 2];
        out[i] = 0.0f;
        atomicAdd(&out[i], s);
    }
}
";
        let outcome = graded(9, source);
        assert_lines_add_up(&outcome);
        let t = &outcome.tests[0];
        assert!(t.outputs.values().all(|c| c.mismatches.is_empty()));
        let reads = t.over_budget.iter().find(|o| o.counter == "global_reads");
        let reads = reads.expect("reads over budget");
        assert_eq!(reads.used, 5);
        // The float2: 2 reads; each neighbour 1; the atomic 1.
        assert_eq!(
            counts(reads),
            [(Some(4), 2), (Some(6), 1), (Some(7), 1), (Some(9), 1)]
        );
        let writes = t.over_budget.iter().find(|o| o.counter == "global_writes");
        let writes = writes.expect("writes over budget");
        assert_eq!(counts(writes), [(Some(8), 1), (Some(9), 1)]);
        // Every thread writes twice: the first of them is named.
        assert_eq!(writes.thread.thread, [0, 0, 0]);
        assert_eq!(writes.lines[1].cells, ["out[0]"]);
    }

    #[test]
    fn a_multi_launch_puzzle_has_the_lines_of_the_kernel_that_went_over() {
        let reference = crate::puzzle::solution_for(&puzzle(21)).expect("a solution");
        let source = reference.replace(
            "out[i] += block_sums[blockIdx.x - 1];",
            "out[i] += block_sums[blockIdx.x - 1] + 0.0f * block_sums[0];",
        );
        assert_ne!(
            source, reference,
            "the solution changed: plant the bug again"
        );
        let line = source
            .lines()
            .position(|l| l.contains("0.0f * block_sums[0]"))
            .map(|i| i as u32 + 1);
        let outcome = graded(21, &source);
        assert_lines_add_up(&outcome);
        let t = &outcome.tests[0];
        let o = &t.over_budget[0];
        assert_eq!(o.kernel.as_deref(), Some("add_offsets"));
        assert_eq!((o.counter, o.used), ("global_reads", 3));
        assert_eq!(o.thread.block, [1, 0, 0]);
        // `out[i]`, `block_sums[blockIdx.x - 1]` and `block_sums[0]`, all on that line.
        assert_eq!(counts(o), [(line, 3)]);
        let k = t.kernels.iter().find(|k| k.name == "add_offsets");
        assert_eq!(k.map(|k| &k.over_budget[0]), Some(o));
    }

    #[test]
    fn an_overrun_under_a_tests_own_defines_has_its_lines() {
        // TPB = 8 reads `a` once per thread (within budget); the second test's TPB = 64 reads
        // it 8 times. The traced re-run must use that test's kernel to find the 8.
        let test = |name: &str, extra: &str| {
            format!(
                "[[test]]\nname = \"{name}\"\n{extra}grid = [1]\nblock = [8]\nscalars = {{ size = 8 }}\nbuffers.a = {{ len = 8, init = \"arange\" }}\nbuffers.out = {{ len = 8, output = true }}\n\n"
            )
        };
        let text = format!(
            "id = 9\nslug = \"scaled\"\ntitle = \"S\"\npart = \"P\"\nkernel = \"scaled\"\nparams = [\"out\", \"a\", \"size\"]\ndefines = {{ TPB = 8 }}\ndescription = \"d\"\nspec = \"for (int i = 0; i < size; i++) {{ float s = 0.0f; for (int k = 0; k < TPB / 8; k++) s += a[(i + k) % size]; out[i] = s; }}\"\nbudget = {{ global_reads = 1 }}\n\n{}{}",
            test("eight", ""),
            test("sixty-four", "defines = { TPB = 64 }\n"),
        );
        let p = crate::puzzle::parse_puzzle(&text, std::path::Path::new("puzzles/09_scaled.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        let source = "\
extern \"C\" __global__ void scaled(float* out, const float* a, int size) {
    int i = threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k < TPB / 8; k++) {
        s += a[(i + k) % size];
    }
    out[i] = s;
}
";
        let outcome = judge(&p, "k.cu", source, &JudgeOptions::default()).expect("judged");
        let names: Vec<(&str, bool)> = outcome
            .tests
            .iter()
            .map(|t| (t.name.as_str(), t.passed))
            .collect();
        assert_eq!(
            names,
            [
                ("eight", true),
                ("sixty-four", false),
                ("eight (random inputs)", true),
                ("sixty-four (random inputs)", false)
            ]
        );
        assert_lines_add_up(&outcome);
        let o = &outcome.tests[1].over_budget[0];
        assert_eq!((o.counter, o.used, o.budget), ("global_reads", 8, 1));
        assert_eq!(counts(o), [(Some(5), 8)]);
        // Its outputs were right: the spec ran with TPB = 64 too.
        assert!(outcome.tests[1]
            .outputs
            .values()
            .all(|c| c.mismatches.is_empty()));
    }

    #[test]
    fn traced_blocks_keep_only_the_blocks_asked_for() {
        let p = puzzle(9);
        let test = &p.tests[0];
        let module = {
            let c = crate::compile::compile(&crate::compile::CompileRequest {
                file_name: "k.cu",
                source: POOLING,
                defines: &p.defines,
                extra_options: &[],
            })
            .expect("compiles");
            crate::ptx::parse(&c.ptx).expect("parses")
        };
        let step = &p.steps(test)[0];
        let args = step.kernel_args(&test.initial_buffers(None)).expect("args");
        let cfg = crate::emu::LaunchConfig {
            grid: [2, 1, 1],
            block: [4, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        let opts = crate::emu::EmuOptions::default();
        let (r, raw) =
            crate::emu::run_traced_blocks(&module, "pooling", &cfg, args, &[], &opts, &[[1, 0, 0]])
                .expect("runs");
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        let blocks: Vec<[u32; 3]> = raw.blocks.iter().map(|b| b.block).collect();
        assert_eq!(blocks, [[1, 0, 0]]);
        assert!(raw.complete);
        // Thread 2 of block 1 (i = 6): a[6], a[5], a[4], then out[6].
        assert_eq!(raw.blocks[0].threads[2].len(), 4);
    }
}
