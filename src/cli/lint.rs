//! `gpuzzle lint PACK_DIR`: check a puzzle pack as an instructor would before handing it out
//! (`lint` owns the checks, `report::lint` the output). Exit 0 clean, 1 problems, 2 usage.

use super::output::outln;
use super::{default_jobs, Format, EXIT_FAIL, EXIT_USAGE};
use crate::lint::{lint_pack, LintError};
use crate::report;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LintArgs {
    /// The pack: a folder holding puzzles/ and solutions/ (lazy kernels in solutions/lazy/).
    #[arg(value_name = "PACK_DIR")]
    pub dir: PathBuf,
    /// Output: one line per puzzle with its problems (text), or JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Puzzles checked at once (default: the number of cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
}

pub fn run(a: &LintArgs) -> Result<i32> {
    let jobs = a.jobs.unwrap_or_else(default_jobs).max(1);
    let results = match lint_pack(&a.dir, jobs) {
        Ok(r) => r,
        Err(e @ (LintError::NotAPack(_) | LintError::Empty(_))) => {
            super::output::errln!(
                "{} {e}",
                colored::Colorize::bold(colored::Colorize::red("error:"))
            );
            return Ok(EXIT_USAGE);
        }
        Err(e) => return Err(e.into()),
    };
    match a.format {
        Format::Text => super::print_block(&report::lint::text(&results)),
        Format::Json => outln!("{}", report::lint::json(&results)),
    }
    Ok(if results.iter().all(|r| r.problems.is_empty()) {
        0
    } else {
        EXIT_FAIL
    })
}
