//! The traced rerun behind a wrong output that nothing explains: the judge's runs count, they do
//! not log, so when no rule of `teach` and no pattern of the diff speaks, the test's launches
//! are run again on the emulator with every access kept (`emu::run_traced_blocks`), and
//! `teach::seen` says from that trace who wrote the first wrong element, on which line, and
//! where its value came from. Only small launches: a trace past its cap, or a launch that does
//! not run, leaves the help as it was.

use super::outcome::TestOutcome;
use super::JudgeOptions;
use crate::emu::{self, Deadline, EmuOptions, LaunchConfig};
use crate::ptx::Module;
use crate::puzzle::{run_steps, Launched, Puzzle, TestCase};
use crate::trace::events::{self, LaunchTrace};
use std::time::Duration;

/// Threads a launch may have for its rerun to be traced (a puzzle's tests are small; beyond
/// this the rerun costs more than the facts are worth).
const MAX_THREADS: u64 = 1 << 16;

/// A traced rerun's wall-clock limit: the graded run ended, so this one does too, but a slow
/// debug build should not wait long for help.
const LIMIT: Duration = Duration::from_secs(10);

/// Put what was seen before the help of each output in `names` (wrong, unexplained).
pub(super) fn say(
    (puzzle, test, seed): (&Puzzle, &TestCase, Option<u64>),
    learner: &Module,
    opts: &JudgeOptions,
    scene: &crate::teach::Scene,
    t: &mut TestOutcome,
    names: &[String],
) {
    let Some(launches) = traced(puzzle, test, seed, learner, opts) else {
        return;
    };
    for name in names {
        let Some(o) = t.outputs.get_mut(name) else {
            continue;
        };
        if let Some(facts) = crate::teach::seen::explain(scene, name, o, &launches) {
            o.help = Some(match o.help.take() {
                Some(rest) => format!("{facts}\n{rest}"),
                None => facts,
            });
        }
    }
}

/// The test's launches run again in order, each traced and resolved; `None` when one is too
/// large, does not run, or its trace is incomplete.
fn traced(
    puzzle: &Puzzle,
    test: &TestCase,
    seed: Option<u64>,
    learner: &Module,
    opts: &JudgeOptions,
) -> Option<Vec<LaunchTrace>> {
    let steps = puzzle.steps(test);
    let threads =
        |g: [u32; 3], b: [u32; 3]| -> u64 { g.iter().chain(&b).map(|&d| d as u64).product() };
    if steps.iter().any(|s| threads(s.grid, s.block) > MAX_THREADS) {
        return None;
    }
    let emu_opts = EmuOptions {
        step_limit: opts.step_limit,
        jobs: 1,
        perf: false,
        checkers: false,
        deadline: Some(Deadline::after(LIMIT)),
        ..EmuOptions::default()
    };
    let mut out = Vec::new();
    run_steps(&steps, test.initial_buffers(seed), |at| {
        let step = at.step;
        let args = at.args.map_err(|_| ())?;
        let cfg = LaunchConfig {
            grid: step.grid,
            block: step.block,
            dynamic_shared: step.shared_bytes,
            cooperative: puzzle.cooperative,
        };
        let mut blocks = Vec::new();
        for z in 0..step.grid[2] {
            for y in 0..step.grid[1] {
                for x in 0..step.grid[0] {
                    blocks.push([x, y, z]);
                }
            }
        }
        let (result, raw) = emu::run_traced_blocks(
            learner,
            step.kernel,
            &cfg,
            args,
            &step.symbols,
            &emu_opts,
            &blocks,
        )
        .map_err(|_| ())?;
        if !raw.complete || result.has_errors() {
            return Err(());
        }
        out.push(events::resolve(
            learner,
            step.kernel,
            step.grid,
            step.block,
            &raw,
        ));
        Ok(Launched {
            buffers: result.buffers,
            faulted: false,
        })
    })
    .ok()?;
    Some(out)
}
