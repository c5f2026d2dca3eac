//! What several commands share: finding the workspace and its puzzles, reading a kernel file,
//! grading one puzzle and recording the result.

use crate::judge::outcome::PuzzleOutcome;
use crate::judge::{self, JudgeOptions};
use crate::puzzle::{Puzzle, State, Workspace};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Options every puzzle command takes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct WorkspaceArgs {
    /// A puzzle directory (or a workspace holding `puzzles/`) instead of the one found from here;
    /// also `GPUZZLE_PUZZLES`.
    #[arg(long, global = true, value_name = "DIR")]
    pub puzzles: Option<PathBuf>,
}

pub struct Loaded {
    pub ws: Workspace,
    pub puzzles: Vec<Puzzle>,
}

pub fn load(args: &WorkspaceArgs) -> Result<Loaded> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let over = Workspace::puzzles_override(args.puzzles.as_deref());
    let ws = Workspace::discover(&cwd, over.as_deref())?;
    let puzzles = ws.load_puzzles()?;
    Ok(Loaded { ws, puzzles })
}

/// A path as the learner would type it: relative to the current directory when inside it.
pub fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|c| c.canonicalize().ok());
    let abs = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    match cwd.as_deref().and_then(|c| abs.strip_prefix(c).ok()) {
        Some(rel) => rel.display().to_string(),
        None => p.display().to_string(),
    }
}

/// Grade one puzzle's kernel file (the learner's, or the reference with `solutions`).
pub fn grade(
    ws: &Workspace,
    puzzle: &Puzzle,
    solutions: bool,
    opts: &JudgeOptions,
) -> Result<(PuzzleOutcome, Option<String>)> {
    let path = ws.kernel_path(puzzle, solutions);
    let name = display_path(&path);
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            let fix = if solutions {
                "this workspace has no reference solutions".to_string()
            } else {
                format!(
                    "restore the starter with `gpuzzle reset {}`, or create the file with this kernel: {}",
                    puzzle.id,
                    crate::puzzle::kernel_signature(puzzle)
                )
            };
            anyhow::bail!("cannot read {name}: {e}; {fix}");
        }
    };
    let outcome = judge::judge(puzzle, &name, &source, opts)?;
    Ok((outcome, Some(source)))
}

/// Remember the result of grading the learner's file (never for reference solutions).
pub fn record(ws: &Workspace, outcomes: &[&PuzzleOutcome], quiet: bool) {
    let (mut state, warning) = State::load(ws);
    if let (Some(w), false) = (warning, quiet) {
        eprintln!("warning: {w}");
    }
    for o in outcomes {
        state.record(&o.slug, o.passed);
    }
    if let Err(e) = state.save(ws) {
        if !quiet {
            eprintln!("warning: progress not saved: {e}");
        }
    }
}

/// The puzzle after `p` in id order, for "Next: gpuzzle run 10".
pub fn next_of<'a>(puzzles: &'a [Puzzle], p: &Puzzle) -> Option<&'a Puzzle> {
    puzzles.iter().filter(|q| q.id > p.id).min_by_key(|q| q.id)
}
