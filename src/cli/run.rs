//! `gpuzzle run N`: grade one puzzle and explain the verdict.

use super::common::{self, Loaded, WorkspaceArgs};
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
}

pub fn run(a: &RunArgs, quiet: bool) -> Result<i32> {
    let loaded = common::load(&a.ws)?;
    run_one(&loaded, &a.puzzle, a.solution, quiet)
}

/// Grade and print one puzzle; shared with `watch`. Returns the exit code.
pub fn run_one(loaded: &Loaded, query: &str, solution: bool, quiet: bool) -> Result<i32> {
    let Loaded { ws, puzzles } = loaded;
    let puzzle = ws.find(puzzles, query)?;
    let opts = JudgeOptions {
        jobs: default_jobs(),
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
        println!("{}", text.lines().next().unwrap_or_default());
    } else {
        super::print_block(&text);
    }
    Ok(if outcome.passed { 0 } else { EXIT_FAIL })
}
