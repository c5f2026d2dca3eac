//! The screen `gpuzzle watch` draws in a terminal: one fixed page, redrawn whole after every
//! grade or key, instead of verdicts appended one after another.

use crate::puzzle::Puzzle;
use colored::Colorize;
use std::fmt::Write;

/// What fills the middle of the screen.
pub enum Body<'a> {
    /// The last verdict (`run`'s report), or why grading could not start.
    Verdict(&'a str),
    /// Another page (the list, `show`) until a key or a save brings the verdict back.
    Page(&'a str),
}

/// Everything the screen shows besides its body.
pub struct Screen<'a> {
    pub puzzle: &'a Puzzle,
    /// The kernel file as the learner would type it.
    pub file: &'a str,
    /// Puzzles passed, of how many.
    pub progress: (usize, usize),
    /// How many times this puzzle was graded since `watch` started (a save that changes nothing
    /// does not count: the learner can see that a re-run happened, and only one).
    pub runs: u32,
    /// Whether the last grade passed.
    pub passed: bool,
    /// The hints shown so far in this session, in order: each heading (`Hint 1 of 3:`, or
    /// `For what went wrong in your last run (shared-race, line 14):`) and its text.
    pub hints: &'a [(String, String)],
    /// A one-line note from the last key (e.g. "no more hints").
    pub note: Option<&'a str>,
}

/// The whole screen as text, lines separated by `\n`.
pub fn screen(s: &Screen, body: Body) -> String {
    let mut out = String::new();
    let (passed, total) = s.progress;
    let width = total.clamp(1, 30);
    let filled = (passed * width).checked_div(total).unwrap_or(0);
    let _ = writeln!(
        out,
        "Progress  {}{}  {passed}/{total}",
        "█".repeat(filled).green(),
        "░".repeat(width - filled)
    );
    let _ = writeln!(
        out,
        "{}  {}  {}",
        format!("Puzzle {} · {}", s.puzzle.id, s.puzzle.title).bold(),
        s.file.dimmed(),
        format!("run {}", s.runs).dimmed()
    );
    let rule = "─".repeat(72).dimmed().to_string();
    let _ = writeln!(out, "{rule}");
    match body {
        Body::Verdict(text) | Body::Page(text) => {
            let _ = writeln!(out, "{}", text.trim_end());
        }
    }
    if matches!(body, Body::Verdict(_)) {
        for (heading, h) in s.hints {
            let _ = write!(out, "\n{} {h}\n", heading.bold());
        }
    }
    if let Some(note) = s.note {
        let _ = write!(out, "\n{}\n", note.yellow());
    }
    let _ = writeln!(out, "{rule}");
    if s.passed {
        let _ = writeln!(
            out,
            "{}",
            "Passed! Press n for the next puzzle, or keep improving this one.".green()
        );
    } else {
        let _ = writeln!(out, "{}", format!("Save {} to re-run.", s.file).dimmed());
    }
    let keys = match body {
        Body::Verdict(_) => "h hint · n next puzzle · r re-run · l list · s show · q quit",
        Body::Page(_) => "any key: back to the verdict · q quit",
    };
    let _ = write!(out, "{}", keys.bold());
    out
}
