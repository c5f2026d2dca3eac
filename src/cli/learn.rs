//! The learner's small commands: `hint`, `list`, `show`, `reset`, `init`.

use super::common::{self, WorkspaceArgs};
use super::output::{errln, outln};
use crate::puzzle::{State, Workspace};
use crate::report;
use anyhow::Result;
use clap::Args;
use colored::Colorize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct HintArgs {
    /// The puzzle: number or slug.
    pub puzzle: String,
    /// Show every hint at once.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

pub fn hint(a: &HintArgs) -> Result<i32> {
    let l = common::load(&a.ws)?;
    let p = l.ws.find(&l.puzzles, &a.puzzle)?;
    let total = p.hints.len();
    if total == 0 {
        outln!("Puzzle {} has no hints. Try `gpuzzle show {}`.", p.id, p.id);
        return Ok(0);
    }
    // Count the hint as shown under the state lock; a workspace where that cannot be saved
    // still shows the hint, with one warning.
    let all = a.all;
    let updated = State::update(&l.ws, |state| {
        if all {
            for _ in 0..total {
                state.next_hint(&p.slug, total);
            }
            None
        } else {
            state.next_hint(&p.slug, total)
        }
    });
    if let Some(w) = &updated.warning {
        errln!("warning: {w}");
    }
    if a.all {
        for (i, h) in p.hints.iter().enumerate() {
            outln!("{} {h}\n", format!("Hint {} of {total}:", i + 1).bold());
        }
    } else {
        match updated.value {
            Some(i) => {
                outln!(
                    "{} {}",
                    format!("Hint {} of {total}:", i + 1).bold(),
                    p.hints[i]
                );
                if i + 1 < total {
                    outln!(
                        "{}",
                        format!("Still stuck? gpuzzle hint {} shows the next one.", p.id).dimmed()
                    );
                } else {
                    outln!("{}", report::catalog::no_more_hints(p).dimmed());
                }
            }
            None => {
                outln!("All {total} hints of puzzle {} were shown already:", p.id);
                for (i, h) in p.hints.iter().enumerate() {
                    outln!("{} {h}", format!("Hint {}:", i + 1).bold());
                }
            }
        }
    }
    if let Some(e) = updated.unsaved_because() {
        errln!("warning: which hints were shown is not saved: {e}");
    }
    Ok(0)
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

pub fn list(a: &ListArgs) -> Result<i32> {
    let l = common::load(&a.ws)?;
    let (state, warning) = State::load(&l.ws);
    if let Some(w) = warning {
        errln!("warning: {w}");
    }
    let rows: Vec<_> = l
        .puzzles
        .iter()
        .map(|p| (p, state.status(&p.slug)))
        .collect();
    super::print_block(&report::catalog::list(&rows));
    Ok(0)
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The puzzle: number or slug.
    pub puzzle: String,
    /// Also print the spec (the sequential reference).
    #[arg(long)]
    pub spec: bool,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

pub fn show(a: &ShowArgs) -> Result<i32> {
    let l = common::load(&a.ws)?;
    let p = l.ws.find(&l.puzzles, &a.puzzle)?;
    let file = common::display_path(&l.ws.kernel_path(p, false));
    super::print_block(&report::catalog::show(p, &file, a.spec));
    Ok(0)
}

#[derive(Args, Debug)]
pub struct ResetArgs {
    /// The puzzle: number or slug.
    pub puzzle: String,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

pub fn reset(a: &ResetArgs) -> Result<i32> {
    let l = common::load(&a.ws)?;
    let p = l.ws.find(&l.puzzles, &a.puzzle)?;
    let file = common::display_path(&l.ws.kernel_path(p, false));
    match l.ws.reset(p)? {
        Some(backup) => outln!(
            "Saved your {file} as {}\nRestored the starter of puzzle {}.",
            common::display_path(&backup),
            p.id
        ),
        None => outln!(
            "Restored the starter of puzzle {} ({file}); there was nothing of yours to keep.",
            p.id
        ),
    }
    // The starter is back: the puzzle is to be done again, so its pass no longer shows in
    // `list`. A progress file that cannot be written costs only that mark.
    let updated = State::update(&l.ws, |s| s.clear_status(&p.slug));
    if let Some(w) = &updated.warning {
        errln!("warning: {w}");
    }
    if let Some(e) = updated.unsaved_because() {
        errln!(
            "warning: the pass mark of puzzle {} was not cleared: {e}",
            p.id
        );
    }
    Ok(0)
}

#[derive(Args, Debug)]
pub struct InitArgs {
    /// Where to create the workspace (made if missing).
    pub dir: PathBuf,
}

pub fn init(a: &InitArgs) -> Result<i32> {
    Workspace::init(&a.dir)?;
    let shown = a.dir.display();
    outln!("Created a gpuzzle workspace in {shown}: puzzles/ (yours to edit) and solutions/.");
    outln!("Next:\n  cd {shown}\n  gpuzzle show 1\n  gpuzzle run 1");
    Ok(0)
}
