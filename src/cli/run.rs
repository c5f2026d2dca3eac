//! `gpuzzle run N`: grade one puzzle and explain the verdict.

use super::common::{self, BackendArgs, IncludeArgs, Loaded, WorkspaceArgs};
use super::output::outln;
use super::{default_jobs, EXIT_FAIL};
use crate::judge::JudgeOptions;
use crate::puzzle::{Puzzle, State};
use crate::report;
use anyhow::Result;
use clap::Args;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The puzzle: its number (9 or 09) or slug (pooling); without one, the first puzzle not
    /// passed yet.
    pub puzzle: Option<String>,
    /// Grade the reference solution in solutions/ instead of your file.
    #[arg(long)]
    pub solution: bool,
    /// Also print, for the first test, what each thread read and wrote (`t3: a[1] a[2] → out[2]`).
    #[arg(long)]
    pub trace: bool,
    /// Also draw the first test as an SVG picture and print its path (see `gpuzzle draw`).
    #[arg(long)]
    pub draw: bool,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub include: IncludeArgs,
}

/// `verbose` (`-v`): the failing test's inputs in full.
pub fn run(a: &RunArgs, quiet: bool, verbose: bool) -> Result<i32> {
    let (loaded, query) = common::load_one(&a.ws, a.puzzle.as_deref())?;
    let detail = Detail { quiet, verbose };
    let code = run_one_on(&loaded, &query, a.solution, detail, &a.backend, &a.include)?;
    if a.trace || a.draw {
        let puzzle = loaded.ws.find(&loaded.puzzles, &query)?;
        super::draw::after_run(&loaded, puzzle, a.solution, a.draw, a.trace)?;
    }
    Ok(code)
}

/// How much a report says: `quiet` (`-q`) only the verdict and problems, and records progress
/// without a word; `verbose` (`-v`) a failing test's inputs in full.
#[derive(Clone, Copy, Debug, Default)]
pub struct Detail {
    pub quiet: bool,
    pub verbose: bool,
}

/// Grade and print one puzzle on the chosen backend. Returns the exit code.
pub fn run_one_on(
    loaded: &Loaded,
    query: &str,
    solution: bool,
    detail: Detail,
    backend: &BackendArgs,
    include: &IncludeArgs,
) -> Result<i32> {
    let puzzle = loaded.ws.find(&loaded.puzzles, query)?;
    let quiet = detail.quiet;
    let (passed, text) =
        grade_report(loaded, puzzle, solution, detail, (backend, include), !quiet)?;
    if quiet && passed {
        outln!("{}", text.lines().next().unwrap_or_default());
    } else {
        super::print_block(&report::fold::for_stdout(&text));
    }
    Ok(if passed { 0 } else { EXIT_FAIL })
}

/// Grade one puzzle (the learner's file, or the reference with `solution`), record the result
/// of the learner's file, and return whether it passed with the report `run` prints; shared with
/// `watch`, which draws the report on its own screen. `announce` says `auto`'s backend choice on
/// stderr. `-I` folders come with the backend.
pub fn grade_report(
    loaded: &Loaded,
    puzzle: &Puzzle,
    solution: bool,
    Detail { quiet, verbose }: Detail,
    (backend, include): (&BackendArgs, &IncludeArgs),
    announce: bool,
) -> Result<(bool, String)> {
    let Loaded { ws, puzzles, .. } = loaded;
    let selection = backend.select_for_grading(announce)?;
    let opts = JudgeOptions {
        jobs: default_jobs(),
        executor: selection.executor,
        also: selection.also,
        timeout: backend.timeout,
        ..JudgeOptions::default()
    };
    let (outcome, source) = common::grade(ws, puzzle, solution, &opts, include)?;
    if !solution {
        common::record(ws, &[&outcome], quiet);
    }
    let (state, _) = State::load(ws);
    let hints = report::puzzle::Hints {
        shown: state.hints_shown(&puzzle.slug),
        total: puzzle.hints.len(),
        // Only for the learner's own failing file: the state holds its mistakes.
        for_mistake: (!solution && !outcome.passed)
            .then(|| crate::teach::hints::waiting(&state, puzzle))
            .flatten(),
    };
    let next = common::next_of(puzzles, puzzle).map(|p| (p.id, p.title.as_str()));
    let text =
        report::puzzle::text_with(&outcome, source.as_deref(), next, hints, solution, verbose);
    Ok((outcome.passed, text))
}
