//! `gpuzzle check`: grade many puzzles in parallel, for learners and classroom CI.

use super::common::{self, BackendArgs, IncludeArgs, WorkspaceArgs};
use super::output::{errln, out, outln};
use super::{default_jobs, EXIT_FAIL};
use crate::judge::outcome::PuzzleOutcome;
use crate::judge::JudgeOptions;
use crate::puzzle::pin::{self, PackPin};
use crate::puzzle::{BrokenPuzzle, Puzzle};
use crate::report;
use anyhow::Result;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// A table: one line per puzzle with the reason it failed.
    Text,
    /// JSON for scripts (the shape is documented in docs/classroom.md).
    Json,
    /// JUnit XML for CI dashboards: a testcase per test, with its time, file and line.
    Junit,
    /// GitHub Actions annotations at the learner's lines, plus a markdown summary appended to
    /// `$GITHUB_STEP_SUMMARY` when it is set.
    Github,
    /// GitHub Classroom's grading reporter: one line, `result=` and the base64 of its JSON
    /// (one test per puzzle, scored by the puzzle's `points`), for `>> "$GITHUB_OUTPUT"`.
    /// Legacy: GitHub Classroom has been sunset.
    Classroom,
    /// Classroom 50's `result.json` (`classroom50/result/v1`): one test per puzzle, scored by
    /// its `points`; the submission's identity from the runner's environment variables.
    Classroom50,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Puzzles to grade (numbers or slugs); all of them with --all or when none are named.
    #[arg(value_name = "PUZZLE")]
    pub names: Vec<String>,
    /// Grade every puzzle.
    #[arg(long)]
    pub all: bool,
    /// Grade the reference solutions instead of the kernels in puzzles/: solutions/ beside them
    /// where it has the file, else the solutions built into gpuzzle.
    #[arg(long)]
    pub solutions: bool,
    /// Output: a table (text), JSON, JUnit XML, GitHub Actions annotations (github), Classroom
    /// 50's result.json (classroom50), or GitHub Classroom's step output (classroom, legacy).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// The puzzle definitions to grade with, for CI: `builtin` (those built into this gpuzzle;
    /// a workspace puzzle file that differs is reported, not used) or `sha256:HEX` (the
    /// workspace's own files, only if they hash to HEX: an instructor's own pack).
    #[arg(long, value_name = "PACK")]
    pub pack: Option<PackPin>,
    /// Print the `--pack` value that pins the workspace's puzzle files as they are now, and
    /// grade nothing.
    #[arg(long, conflicts_with_all = ["pack", "names", "all", "solutions"])]
    pub print_pin: bool,
    /// Puzzles graded at once (default: the number of cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub include: IncludeArgs,
}

pub fn run(a: &CheckArgs, quiet: bool) -> Result<i32> {
    let mut loaded = common::load(&a.ws)?;
    if a.print_pin {
        outln!("{}", pin::pin_for(&loaded.ws.puzzles_dir)?);
        return Ok(0);
    }
    // Classroom 50 names the submission in the environment: without it there is no valid
    // result to write, which is the runner's problem, said before any grading.
    let identity = (a.format == CheckFormat::Classroom50)
        .then(super::classroom::classroom50_identity)
        .transpose()?;
    let mut pin_notes = Vec::new();
    match &a.pack {
        Some(PackPin::Builtin) => {
            let (puzzles, notes) = pin::builtin(&loaded.ws.puzzles_dir)?;
            loaded.puzzles = puzzles;
            loaded.broken.clear();
            pin_notes = notes;
        }
        Some(PackPin::Sha256(hex)) => pin::verify_hash(&loaded.ws.puzzles_dir, hex)?,
        None => {}
    }
    for n in &pin_notes {
        errln!("warning: {} {}", n.file.display(), n.message);
    }
    // A puzzle whose file is broken is not graded; it fails with its file's errors.
    let (selected, broken): (Vec<&Puzzle>, Vec<&BrokenPuzzle>) = if a.all || a.names.is_empty() {
        (
            loaded.puzzles.iter().collect(),
            loaded.broken.iter().collect(),
        )
    } else {
        let (mut good, mut bad) = (Vec::new(), Vec::new());
        for q in &a.names {
            match loaded.ws.find(&loaded.puzzles, q) {
                Ok(p) => good.push(p),
                Err(e) => bad.push(loaded.broken.iter().find(|b| b.matches(q)).ok_or(e)?),
            }
        }
        (good, bad)
    };
    // After the names are resolved: a typo is said alone, not after a line about the backend.
    let selection = a
        .backend
        .select_for_grading(!quiet && a.format == CheckFormat::Text)?;
    let jobs = a.jobs.unwrap_or_else(default_jobs).max(1);
    let bar = progress_bar(selected.len(), quiet || a.format != CheckFormat::Text);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<PuzzleOutcome>>>> =
        Mutex::new((0..selected.len()).map(|_| None).collect());
    let opts = JudgeOptions {
        executor: selection.executor,
        also: selection.also,
        timeout: a.backend.timeout,
        // The test at a size the learner could not see (puzzles with `[unseen]`).
        unseen: true,
        ..JudgeOptions::default()
    };
    std::thread::scope(|s| {
        for _ in 0..jobs.min(selected.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = selected.get(i) else { break };
                bar.set_message(p.slug.clone());
                let r = common::grade_in_batch(&loaded.ws, p, a.solutions, &opts, &a.include);
                if let Ok(mut v) = results.lock() {
                    v[i] = Some(r);
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    let mut outcomes = Vec::new();
    for r in results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
    {
        outcomes.push(r?);
    }
    if !a.solutions {
        common::record(
            &loaded.ws,
            &outcomes.iter().collect::<Vec<_>>(),
            quiet || a.format != CheckFormat::Text,
        );
    }
    // Broken puzzle files in id order among the rest (unknown ids last); never recorded as
    // the learner's result.
    for b in broken {
        let at = b.id.unwrap_or(u32::MAX);
        let i = outcomes.partition_point(|o| o.id <= at);
        outcomes.insert(i, common::broken_outcome(b));
    }
    match a.format {
        CheckFormat::Text => {
            super::print_block(&report::fold::for_stdout(&report::check::table(
                &outcomes,
                a.solutions,
            )));
            // Only puzzles NVRTC warned about have their file read again, for the snippet.
            let sources: Vec<Option<String>> = outcomes
                .iter()
                .map(|o| {
                    (!o.warnings.is_empty())
                        .then(|| common::read_source(std::path::Path::new(&o.file)).ok())
                        .flatten()
                })
                .collect();
            if let Some(w) = report::check::warnings(&outcomes, &sources) {
                outln!();
                super::print_block(&report::fold::for_stdout(&w));
            }
        }
        CheckFormat::Json => outln!("{}", report::check::json(&outcomes)),
        CheckFormat::Junit => out!(
            "{}",
            report::check::junit(&outcomes, &loaded.puzzles, a.solutions)
        ),
        CheckFormat::Github => {
            out!("{}", report::github::pin_notes(&pin_notes));
            out!("{}", report::github::annotations(&outcomes));
            write_step_summary(&report::github::summary(&outcomes, a.solutions));
        }
        CheckFormat::Classroom => {
            let graded = with_points(&outcomes, &loaded.puzzles);
            out!("{}", report::classroom::output_line(&graded));
            write_step_summary(&report::github::summary(&outcomes, a.solutions));
        }
        CheckFormat::Classroom50 => {
            let graded = with_points(&outcomes, &loaded.puzzles);
            if let Some(identity) = &identity {
                let when = super::classroom::submission_instant(&loaded.ws.root);
                outln!(
                    "{}",
                    report::classroom50::result_json(&graded, identity, when)
                );
            }
        }
    }
    // Classroom's graders succeed whenever they wrote the result: the reporter step reads the
    // scores and fails the job itself, so the step that grades must not stop it first.
    if matches!(a.format, CheckFormat::Classroom | CheckFormat::Classroom50) {
        return Ok(0);
    }
    Ok(if outcomes.iter().all(|o| o.passed) {
        0
    } else {
        EXIT_FAIL
    })
}

/// Each outcome with what passing it is worth: its puzzle's `points`. A broken puzzle file has
/// no points to read: it counts for the default, 1.
fn with_points<'a>(
    outcomes: &'a [PuzzleOutcome],
    puzzles: &[Puzzle],
) -> Vec<(&'a PuzzleOutcome, u32)> {
    outcomes
        .iter()
        .map(|o| {
            let points = (!o.broken_puzzle_file)
                .then(|| puzzles.iter().find(|p| p.id == o.id))
                .flatten()
                .map_or(1, |p| p.points);
            (o, points)
        })
        .collect()
}

/// A progress bar on stderr, hidden when stderr is not a terminal (CI) or output is machine-read.
fn progress_bar(n: usize, hidden: bool) -> ProgressBar {
    if hidden || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(n as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

/// Append the markdown summary to the file GitHub Actions names in `$GITHUB_STEP_SUMMARY`
/// (nothing outside Actions). A summary that cannot be written costs the job its table, not its
/// verdict: say so on stderr and go on.
fn write_step_summary(markdown: &str) {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return;
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, markdown.as_bytes()));
    if let Err(e) = written {
        errln!(
            "warning: could not append the summary to GITHUB_STEP_SUMMARY ({}): {e}",
            std::path::Path::new(&path).display()
        );
    }
}
