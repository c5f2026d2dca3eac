//! What several commands share: finding the workspace and its puzzles, reading a kernel file,
//! grading one puzzle and recording the result.

use super::output::errln;
use crate::gpu::backend::{self, BackendChoice, Selection};
use crate::judge::outcome::PuzzleOutcome;
use crate::judge::{self, JudgeOptions};
use crate::puzzle::{BrokenPuzzle, Puzzle, Reference, State, Workspace};
use crate::teach::hints;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Options every puzzle command takes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct WorkspaceArgs {
    /// A puzzle directory (or a workspace holding `puzzles/`) instead of the one found from here;
    /// also `GPUZZLE_PUZZLES`.
    #[arg(long, global = true, value_name = "DIR", help_heading = super::GLOBAL)]
    pub puzzles: Option<PathBuf>,
}

/// Where kernels run: every command that runs one takes these.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct BackendArgs {
    /// Where kernels run: auto (the GPU when there is one), emu (gpuzzle's emulator, with the
    /// race and uninitialised-read checkers) or gpu. Default: auto, or GPUZZLE_BACKEND.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// Stop a kernel launch on the GPU after this many seconds (default 10; for a whole
    /// `bench`, 120).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<std::time::Duration>,
}

/// Whether `auto` says that it fell back to the emulator for want of a GPU.
static SAY_NO_GPU: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Say "no GPU: running on gpuzzle's emulator" when `auto` finds none (set for `-v` and
/// `bench`, whose figures depend on it; `doctor` says it in its own words).
pub fn set_say_no_gpu(on: bool) {
    SAY_NO_GPU.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// `-I DIR`: every command that compiles a kernel takes it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct IncludeArgs {
    /// A folder to search for your kernel's own headers (`#include "util.h"`), relative to the
    /// kernel file; repeat for several. CUDA's headers are found without it.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// The GPU architecture to compile for: sm_80 (the default), sm_86, sm_89 or sm_90 (thread-block
    /// clusters, distributed shared memory). Over a puzzle's own `arch`; on a GPU with neither,
    /// the GPU's own.
    #[arg(long, value_name = "SM", value_parser = crate::compile::parse_arch_arg)]
    pub arch: Option<crate::compile::Arch>,
}

impl IncludeArgs {
    /// The folders for the kernel file `kernel`: a relative one resolved against the file's
    /// folder. A folder that does not exist is an error here, not a puzzling "cannot open source
    /// file" from NVRTC.
    pub fn resolve_for(&self, kernel: &Path) -> Result<Vec<PathBuf>> {
        let base = kernel.parent().unwrap_or(Path::new(""));
        self.include
            .iter()
            .map(|dir| {
                let resolved = base.join(dir);
                if resolved.is_dir() {
                    Ok(resolved)
                } else {
                    anyhow::bail!(
                        "-I {}: no such folder ({}; a relative -I is taken from the kernel file's folder)",
                        dir.display(),
                        resolved.display()
                    )
                }
            })
            .collect()
    }
}

/// Sets the default of `--backend` (e.g. `GPUZZLE_BACKEND=emu` for tests that need the
/// emulator's checkers on a machine with a GPU).
pub const BACKEND_ENV: &str = "GPUZZLE_BACKEND";

fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(std::time::Duration::from_secs_f64(v)),
        _ => Err(format!("`{s}`: give a number of seconds above 0, e.g. 30")),
    }
}

impl BackendArgs {
    /// The flag, else `GPUZZLE_BACKEND`, else auto.
    pub fn choice(&self) -> Result<BackendChoice> {
        if let Some(c) = self.backend {
            return Ok(c);
        }
        match std::env::var(BACKEND_ENV) {
            Ok(v) if !v.trim().is_empty() => {
                <BackendChoice as clap::ValueEnum>::from_str(v.trim(), true)
                    .map_err(|_| anyhow::anyhow!("{BACKEND_ENV}={v}: use auto, emu or gpu"))
            }
            _ => Ok(BackendChoice::Auto),
        }
    }

    /// Resolve the choice; `--backend gpu` without a GPU is an error with the reason. With
    /// `announce` (text output, not --quiet), `auto`'s choice is said once per process on stderr:
    /// always when it is the GPU (the checkers are off there), and that there is no GPU only
    /// where it matters (`-v`, `bench`; see [`set_say_no_gpu`]), not before every verdict.
    pub fn select(&self, announce: bool) -> Result<Selection> {
        let s = backend::select(self.choice()?).map_err(anyhow::Error::msg)?;
        Self::announce(announce, &s);
        Ok(s)
    }

    /// `select` for the commands that grade (`run`, `check`, `watch`): `auto` with a GPU grades
    /// on the emulator and also runs the kernel on the GPU (`Selection::also`).
    pub fn select_for_grading(&self, announce: bool) -> Result<Selection> {
        let s = backend::select_for_grading(self.choice()?).map_err(anyhow::Error::msg)?;
        Self::announce(announce, &s);
        Ok(s)
    }

    /// The backend line is said where it matters: on the GPU, when grading on both, or when the
    /// no-GPU line was asked for (`-v`, `doctor`, `bench`).
    fn announce(announce: bool, s: &Selection) {
        let worth_saying = s.executor == backend::Executor::Gpu
            || s.also.is_some()
            || SAY_NO_GPU.load(std::sync::atomic::Ordering::Relaxed);
        if let (true, true, Some(note)) = (announce, worth_saying, &s.note) {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| errln!("{}", colored::Colorize::dimmed(note.as_str())));
        }
    }
}

pub struct Loaded {
    pub ws: Workspace,
    /// Sorted by id: every puzzle that loads (`load`), or, from `load_one`'s index, only the
    /// puzzle asked for and the one after it (what a one-puzzle command shows).
    pub puzzles: Vec<Puzzle>,
    /// Puzzle files with a mistake: shown by `list`, failed by `check`; the rest still work.
    /// Empty from `load_one`'s index, which is used only when the puzzle asked for loads.
    pub broken: Vec<BrokenPuzzle>,
}

/// The workspace and every puzzle file in it.
pub fn load(args: &WorkspaceArgs) -> Result<Loaded> {
    load_all(discover(args)?)
}

/// For a command about one puzzle (`run`, `hint`, `show`, ...): the workspace and the puzzle
/// `query` names (without one, the first not passed yet, as `current_puzzle`), returned with
/// the query to find it by. With an up-to-date index (`Workspace::fresh_index`) only that
/// puzzle's file and the next one's are parsed; otherwise, or when the index does not know the
/// query (a broken file, a typo), everything is loaded as by `load`, so that every message is
/// the same.
pub fn load_one(args: &WorkspaceArgs, query: Option<&str>) -> Result<(Loaded, String)> {
    let ws = discover(args)?;
    if let Some(quick) = load_indexed(&ws, query) {
        return Ok(quick);
    }
    let loaded = load_all(ws)?;
    let query = match query {
        Some(q) => q.to_string(),
        None => current_puzzle(&loaded)?.id.to_string(),
    };
    Ok((loaded, query))
}

/// Whether the current directory (or `--puzzles`) is in a workspace.
pub fn is_workspace(args: &WorkspaceArgs) -> bool {
    discover(args).is_ok()
}

fn discover(args: &WorkspaceArgs) -> Result<Workspace> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let over = Workspace::puzzles_override(args.puzzles.as_deref());
    Ok(Workspace::discover(&cwd, over.as_deref())?)
}

fn load_all(ws: Workspace) -> Result<Loaded> {
    let catalog = ws.load_catalog()?;
    Ok(Loaded {
        ws,
        puzzles: catalog.puzzles,
        broken: catalog.broken,
    })
}

/// `load_one` from the index: `None` whenever anything is not as the index says.
fn load_indexed(ws: &Workspace, query: Option<&str>) -> Option<(Loaded, String)> {
    let index = ws.fresh_index()?;
    let entry = match query {
        Some(q) => index.find(q)?,
        None => {
            let (state, _) = State::load(ws);
            index
                .puzzles
                .iter()
                .find(|e| state.status(&e.slug) != crate::puzzle::Status::Passed)
                .or(index.puzzles.last())?
        }
    };
    let mut puzzles = vec![ws.load_indexed(entry)?];
    if let Some(next) = index.next_after(entry.id) {
        puzzles.push(ws.load_indexed(next)?);
    }
    let query = query.map_or_else(|| entry.id.to_string(), str::to_string);
    Some((
        Loaded {
            ws: ws.clone(),
            puzzles,
            broken: Vec::new(),
        },
        query,
    ))
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

/// Read one puzzle's kernel file (the learner's, or the reference with `solutions`): its name as
/// shown, and its text; or the message saying how to get the file back.
/// Kernel files larger than this are refused (no kernel comes near it; `/dev/zero` would
/// otherwise be read until memory runs out).
const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// Read a CUDA source file: only a regular file of sane size. Bytes that are not UTF-8 (a
/// Latin-1 `é` in a comment, which NVRTC accepts) are read as Latin-1 rather than refused.
pub fn read_source(path: &std::path::Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} bytes, more than the {} MiB a kernel file may have",
                meta.len(),
                MAX_SOURCE_BYTES >> 20
            ),
        ));
    }
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_SOURCE_BYTES)
        .read_to_end(&mut bytes)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    })
}

fn read_kernel(
    ws: &Workspace,
    puzzle: &Puzzle,
    solutions: bool,
) -> (String, Result<String, String>) {
    if solutions {
        return read_reference(ws, puzzle);
    }
    let path = ws.kernel_path(puzzle, false);
    let name = display_path(&path);
    let source = read_source(&path).map_err(|e| {
        format!(
            "cannot read {name}: {}; restore the starter with `gpuzzle reset {}`, or create the file with this kernel: {}",
            crate::puzzle::os_reason(&e),
            puzzle.id,
            crate::puzzle::kernel_signature(puzzle)
        )
    });
    (name, source)
}

/// A puzzle's reference solution (`Workspace::reference`: the workspace's `solutions/` file,
/// else the pack's built-in one): its name as shown and its text, or why there is none.
pub fn read_reference(ws: &Workspace, puzzle: &Puzzle) -> (String, Result<String, String>) {
    match ws.reference(puzzle) {
        Some(Reference::File(path)) => {
            let name = display_path(&path);
            let source = read_source(&path)
                .map_err(|e| format!("cannot read {name}: {}", crate::puzzle::os_reason(&e)));
            (name, source)
        }
        Some(Reference::BuiltIn { name, text }) => (name, Ok(text.to_string())),
        None => {
            let name = display_path(&ws.kernel_path(puzzle, true));
            let why = format!(
                "no reference solution for puzzle {} ({}): {name} does not exist and it is not one of gpuzzle's built-in puzzles",
                puzzle.id, puzzle.slug
            );
            (name, Err(why))
        }
    }
}

/// Grade one puzzle's kernel file; a missing file is an error (for `run`, which grades one).
pub fn grade(
    ws: &Workspace,
    puzzle: &Puzzle,
    solutions: bool,
    opts: &JudgeOptions,
    include: &IncludeArgs,
) -> Result<(PuzzleOutcome, Option<String>)> {
    let (name, source) = read_kernel(ws, puzzle, solutions);
    let source = source.map_err(anyhow::Error::msg)?;
    let opts = with_includes(opts, include, &ws.kernel_path(puzzle, solutions))?;
    let mut outcome = judge::judge(puzzle, &name, &source, &opts)?;
    outcome.mistakes = hints::for_outcome(puzzle, &outcome, Some(&source));
    outcome.not_started = !solutions && !outcome.passed && hints::is_untouched(puzzle, &source);
    name_reset(&mut outcome, &source, solutions);
    Ok((outcome, Some(source)))
}

/// A learner's file with no kernel at all (emptied, or every `__global__` deleted): its message
/// also names the command that restores the starter, in every report that shows it. (A kernel
/// renamed is told to rename it back: a reset would throw the work away.)
fn name_reset(outcome: &mut PuzzleOutcome, source: &str, solutions: bool) {
    if solutions || outcome.missing_kernel.is_none() || source.contains("__global__") {
        return;
    }
    if let Some(message) = &mut outcome.compile_error {
        message.push_str(&format!(
            "; or `gpuzzle reset {}` puts the starter back (your file is saved in .gpuzzle/backup/ first)",
            outcome.id
        ));
    }
}

/// Grade one puzzle among many (for `check`): a missing file fails that puzzle, with the
/// message saying how to restore it, instead of stopping the whole grading.
pub fn grade_in_batch(
    ws: &Workspace,
    puzzle: &Puzzle,
    solutions: bool,
    opts: &JudgeOptions,
    include: &IncludeArgs,
) -> Result<PuzzleOutcome> {
    let (name, source) = read_kernel(ws, puzzle, solutions);
    match source {
        Ok(source) => {
            let opts = with_includes(opts, include, &ws.kernel_path(puzzle, solutions))?;
            let mut outcome = judge::judge(puzzle, &name, &source, &opts)?;
            outcome.mistakes = hints::for_outcome(puzzle, &outcome, Some(&source));
            outcome.not_started =
                !solutions && !outcome.passed && hints::is_untouched(puzzle, &source);
            name_reset(&mut outcome, &source, solutions);
            Ok(outcome)
        }
        Err(message) => Ok(PuzzleOutcome {
            id: puzzle.id,
            slug: puzzle.slug.clone(),
            title: puzzle.title.clone(),
            file: name,
            compile_error: Some(message),
            ..PuzzleOutcome::default()
        }),
    }
}

/// A puzzle whose file is broken, as a failed verdict for `check`: `file` is the puzzle file
/// and `compile_error` holds its problems as `FILE:LINE: error: ...` lines (the form of
/// compile messages), so that every format shows each one at its line.
pub fn broken_outcome(b: &BrokenPuzzle) -> PuzzleOutcome {
    let file = display_path(&b.toml_path);
    let invalids = b.error.invalids();
    let message = if invalids.is_empty() {
        format!("{file}: error: {}", b.error)
    } else {
        invalids
            .iter()
            .map(|i| {
                let place = match i.line {
                    Some(line) => format!("{}:{line}", display_path(&i.file)),
                    None => display_path(&i.file),
                };
                let help = if i.help.is_empty() {
                    String::new()
                } else {
                    format!("\n  help: {}", i.help)
                };
                format!("{place}: error: `{}`: {}{help}", i.field, i.problem)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    PuzzleOutcome {
        id: b.id.unwrap_or(0),
        slug: b.slug.clone(),
        title: b.title.clone().unwrap_or_else(|| b.file_stem()),
        file,
        compile_error: Some(message),
        broken_puzzle_file: true,
        ..PuzzleOutcome::default()
    }
}

/// `opts` with the `-I` folders resolved for the kernel file `kernel`.
fn with_includes(
    opts: &JudgeOptions,
    include: &IncludeArgs,
    kernel: &Path,
) -> Result<JudgeOptions> {
    Ok(JudgeOptions {
        include_dirs: include.resolve_for(kernel)?,
        arch: include.arch.or(opts.arch),
        ..opts.clone()
    })
}

/// Remember the result of grading the learner's file (never for reference solutions), with
/// the mistake hints that answer a failure (for `gpuzzle hint`).
pub fn record(ws: &Workspace, outcomes: &[&PuzzleOutcome], quiet: bool) {
    // Under the state lock: parallel runs each add their result to the others'.
    let updated = State::update(ws, |state| {
        for o in outcomes {
            state.record(&o.slug, o.passed);
            if !o.passed {
                state.set_mistakes(&o.slug, hints::to_seen(&o.mistakes));
            }
        }
    });
    if quiet {
        return;
    }
    if let Some(w) = &updated.warning {
        errln!("warning: {w}");
    }
    if let Some(e) = updated.unsaved_because() {
        errln!("warning: progress not saved: {e}");
    }
}

/// The puzzle a learner is on: the first not passed yet (the last one when all pass).
pub fn current_puzzle(loaded: &Loaded) -> Result<&Puzzle> {
    let (state, _) = State::load(&loaded.ws);
    loaded
        .puzzles
        .iter()
        .find(|p| state.status(&p.slug) != crate::puzzle::Status::Passed)
        .or(loaded.puzzles.last())
        .context("this workspace has no puzzles")
}

/// The puzzle after `p` in id order, for "Next: gpuzzle run 10".
pub fn next_of<'a>(puzzles: &'a [Puzzle], p: &Puzzle) -> Option<&'a Puzzle> {
    puzzles.iter().filter(|q| q.id > p.id).min_by_key(|q| q.id)
}
