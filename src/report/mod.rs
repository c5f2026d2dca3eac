//! Everything gpuzzle shows or writes about a run: human text (colour, tables, source snippets),
//! JSON for scripts and JUnit for CI. Functions here build strings and never print, and never
//! decide pass or fail: they format the verdicts `judge` already reached.
//!
//! Colour comes from `colored`; the CLI decides whether it is on (`--color`, `NO_COLOR`, a tty)
//! through `colored::control::set_override`, and everything here follows that one switch.

pub mod bench;
pub mod catalog;
pub mod check;
pub mod classroom;
pub mod classroom50;
pub mod exec;
pub mod fold;
pub mod github;
pub mod lint;
pub mod puzzle;
pub mod snippet;
pub mod watch;

mod also;
mod counters;
mod diff;
mod json;
mod layout;
mod number;
mod reason;

/// Why a puzzle failed, in one line (as `check`'s table says it).
pub fn puzzle_reason(o: &crate::judge::outcome::PuzzleOutcome) -> String {
    reason::puzzle(o)
}

/// The line a failed test points at (its first diagnostic, else a perf figure over budget).
pub fn failed_test_line(t: &crate::judge::outcome::TestOutcome) -> Option<u32> {
    check::failed_test_line(t)
}
