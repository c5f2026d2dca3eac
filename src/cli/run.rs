//! `gpuzzle run N`: grade one puzzle and explain the verdict.

use super::common::{self, BackendArgs, Loaded, WorkspaceArgs};
use super::output::outln;
use super::{default_jobs, EXIT_FAIL};
use crate::judge::JudgeOptions;
use crate::puzzle::State;
use crate::report;
use anyhow::Result;
use clap::Args;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The puzzle: its number (9 or 09) or slug (pooling).
    pub puzzle: String,
    /// Grade the reference solution in solutions/ instead of your file.
    #[arg(long)]
    pub solution: bool,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
}

pub fn run(a: &RunArgs, quiet: bool) -> Result<i32> {
    let loaded = common::load(&a.ws)?;
    run_one_on(&loaded, &a.puzzle, a.solution, quiet, &a.backend)
}

/// Grade and print one puzzle; shared with `watch`. Returns the exit code.
pub fn run_one(loaded: &Loaded, query: &str, solution: bool, quiet: bool) -> Result<i32> {
    run_one_on(loaded, query, solution, quiet, &BackendArgs::default())
}

/// `run_one` on the chosen backend.
pub fn run_one_on(
    loaded: &Loaded,
    query: &str,
    solution: bool,
    quiet: bool,
    backend: &BackendArgs,
) -> Result<i32> {
    let Loaded { ws, puzzles } = loaded;
    let puzzle = ws.find(puzzles, query)?;
    let selection = backend.select(!quiet)?;
    let opts = JudgeOptions {
        jobs: default_jobs(),
        executor: selection.executor,
        timeout: backend.timeout,
        ..JudgeOptions::default()
    };
    let (outcome, source) = common::grade(ws, puzzle, solution, &opts)?;
    if !solution {
        common::record(ws, &[&outcome], quiet);
    }
    let (state, _) = State::load(ws);
    let hints = (state.hints_shown(&puzzle.slug), puzzle.hints.len());
    let next = common::next_of(puzzles, puzzle).map(|p| (p.id, p.title.as_str()));
    let text = report::puzzle::text(&outcome, source.as_deref(), next, hints, solution);
    if quiet && outcome.passed {
        outln!("{}", text.lines().next().unwrap_or_default());
    } else {
        super::print_block(&text);
    }
    Ok(if outcome.passed { 0 } else { EXIT_FAIL })
}
