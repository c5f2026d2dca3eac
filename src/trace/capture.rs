//! Run one fixed test of a puzzle for the pictures: the judge's verdict (expected values,
//! wrong cells, budgets) plus the learner's launches run again on the emulator with access
//! traces, each with the buffers it started and ended with.

use super::events::{self, LaunchTrace};
use crate::compile::{self, CompileError, CompileRequest};
use crate::emu::result::Diagnostic;
use crate::emu::value::Buffer;
use crate::emu::{self, EmuOptions, LaunchConfig};
use crate::gpu::backend::Executor;
use crate::judge::outcome::TestOutcome;
use crate::judge::{self, JudgeError, JudgeOptions};
use crate::puzzle::Budget;
use crate::puzzle::{run_steps, ArgSource, Launched, Puzzle};
use std::collections::BTreeMap;

#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error("{0}")]
    Kernel(String),
    #[error("puzzle {id} has {count} test(s): choose --test 1 to {count}")]
    NoSuchTest { id: u32, count: usize },
}

/// One launch of the test as traced.
#[derive(Clone, Debug)]
pub struct LaunchCapture {
    pub trace: LaunchTrace,
    /// The test's buffers (by the test's names) before and after this launch.
    pub before: BTreeMap<String, Buffer>,
    pub after: BTreeMap<String, Buffer>,
    /// The buffers this launch was given, in parameter order.
    pub buffer_args: Vec<String>,
    pub budget: Budget,
    /// Why the traced launch could not run (an unsupported instruction, a bad signature).
    pub error: Option<String>,
    /// What the checkers reported in the traced launch (one thread at a time, as the judge's
    /// reports are): the accesses a picture marks.
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug)]
pub struct Capture {
    pub puzzle_id: u32,
    pub title: String,
    /// 0-based index among the fixed tests.
    pub test_index: usize,
    /// The judge's verdict on that test (its fixed inputs, not the random variant).
    pub verdict: TestOutcome,
    /// Output buffer names and their 2D shape, if any.
    pub outputs: Vec<(String, Option<[usize; 2]>)>,
    pub shapes: BTreeMap<String, [usize; 2]>,
    pub launches: Vec<LaunchCapture>,
}

impl Capture {
    /// Output cells nobody wrote in any launch, per output buffer (empty if the trace is
    /// incomplete: then nobody can tell).
    pub fn unwritten(&self, name: &str) -> Vec<usize> {
        if self.launches.iter().any(|l| !l.trace.complete) {
            return Vec::new();
        }
        let len = self
            .launches
            .first()
            .and_then(|l| l.before.get(name))
            .map(Buffer::len)
            .unwrap_or(0);
        let mut written = vec![false; len];
        for l in &self.launches {
            let Some(var) = l.trace.global_named(name) else {
                continue;
            };
            for (_, threads) in &l.trace.blocks {
                for e in threads.iter().flat_map(|t| &t.events) {
                    if e.cell.space == events::Space::Global
                        && e.cell.var == var
                        && e.kind.writes()
                        && e.cell.index < len
                    {
                        written[e.cell.index] = true;
                    }
                }
            }
        }
        (0..len).filter(|&i| !written[i]).collect()
    }
}

/// Judge `source` and trace fixed test `test_index` (0-based) of `puzzle`.
pub fn capture(
    puzzle: &Puzzle,
    display_name: &str,
    source: &str,
    test_index: usize,
    step_limit: u64,
) -> Result<Capture, CaptureError> {
    let Some(test) = puzzle.tests.get(test_index) else {
        return Err(CaptureError::NoSuchTest {
            id: puzzle.id,
            count: puzzle.tests.len(),
        });
    };
    let opts = JudgeOptions {
        step_limit,
        jobs: 1,
        executor: Executor::Emulator,
        timeout: None,
        ..JudgeOptions::default()
    };
    let outcome = judge::judge(puzzle, display_name, source, &opts)?;
    if let Some(e) = &outcome.compile_error {
        return Err(CaptureError::Kernel(format!(
            "{display_name} does not compile, so there is nothing to draw:\n{e}"
        )));
    }
    let verdict = outcome
        .tests
        .iter()
        .filter(|t| !t.random)
        .nth(test_index)
        .cloned()
        .ok_or(CaptureError::NoSuchTest {
            id: puzzle.id,
            count: puzzle.tests.len(),
        })?;
    // The puzzle's own include folders and this test's defines, as the judge compiled it.
    let include_options = judge::include_options(&opts.include_dirs, puzzle, opts.arch);
    let compiled = compile::compile(&CompileRequest {
        file_name: display_name,
        source,
        defines: &puzzle.defines_for(test),
        extra_options: &include_options,
    })?;
    let module = crate::ptx::parse(&compiled.ptx)
        .map_err(|e| CaptureError::Kernel(format!("gpuzzle could not read the PTX: {e}")))?;
    let emu_opts = EmuOptions {
        step_limit,
        jobs: 1,
        perf: false,
        deadline: Some(emu::Deadline::for_steps(step_limit)),
        ..EmuOptions::default()
    };
    let mut launches = Vec::new();
    let ran = run_steps(&puzzle.steps(test), test.initial_buffers(None), |at| {
        let step = at.step;
        let buffer_args: Vec<String> = step
            .args
            .iter()
            .filter_map(|a| match a {
                ArgSource::Buffer(n) => Some(n.clone()),
                ArgSource::Scalar(_) => None,
            })
            .collect();
        let cfg = LaunchConfig {
            grid: step.grid,
            block: step.block,
            dynamic_shared: step.shared_bytes,
            cooperative: puzzle.cooperative,
        };
        let args = at.args.map_err(JudgeError::from)?;
        let (trace, error, launched, diagnostics) =
            match emu::run_traced(&module, step.kernel, &cfg, args, &emu_opts) {
                Ok((result, raw)) => {
                    let faulted = result.has_errors();
                    let t = events::resolve(&module, step.kernel, step.grid, step.block, &raw);
                    let launched = Launched {
                        buffers: result.buffers,
                        faulted,
                    };
                    // Root causes first, as `run` shows them (the picture names the first).
                    let mut diagnostics = result.diagnostics;
                    crate::teach::root_causes_first(&mut diagnostics);
                    (t, None, launched, diagnostics)
                }
                // Nothing ran: the buffers stay as they were, and later launches do not run.
                Err(e) => (
                    LaunchTrace {
                        kernel: step.kernel.to_string(),
                        grid: step.grid,
                        block: step.block,
                        complete: false,
                        ..LaunchTrace::default()
                    },
                    Some(e.to_string()),
                    Launched {
                        buffers: Vec::new(),
                        faulted: true,
                    },
                    Vec::new(),
                ),
            };
        launches.push(LaunchCapture {
            trace,
            before: at.buffers.clone(),
            // Filled in below, once the runner has put this launch's buffers back.
            after: BTreeMap::new(),
            buffer_args,
            budget: step.budget,
            error,
            diagnostics,
        });
        Ok::<_, CaptureError>(launched)
    })?;
    // A launch ends with the buffers the next one starts with; the last one that ran, with the
    // buffers the run ended with.
    let mut after = ran.buffers;
    for l in launches.iter_mut().rev() {
        l.after = std::mem::replace(&mut after, l.before.clone());
    }
    let outputs = test
        .outputs()
        .map(|n| (n.to_string(), test.buffers.get(n).and_then(|b| b.shape)))
        .collect();
    let shapes = test
        .buffers
        .iter()
        .chain(&test.scratch)
        .filter_map(|(n, b)| b.shape.map(|s| (n.clone(), s)))
        .collect();
    Ok(Capture {
        puzzle_id: puzzle.id,
        title: puzzle.title.clone(),
        test_index,
        verdict,
        outputs,
        shapes,
        launches,
    })
}
