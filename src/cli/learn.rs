//! The learner's small commands: `hint`, `list`, `show`, `solution`, `reset`, `init`.

use super::classroom::{self, Ci};
use super::common::{self, WorkspaceArgs};
use super::output::{errln, outln};
use super::EXIT_FAIL;
use crate::puzzle::gitignore::{self, Outcome};
use crate::puzzle::{os_reason, State, Workspace};
use crate::report;
use crate::teach::hints;
use anyhow::Result;
use clap::Args;
use colored::Colorize;
use std::path::{Path, PathBuf};

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

/// `outln!` folded to the terminal's width (`report::fold`), for the hints' prose.
macro_rules! outw {
    ($($arg:tt)*) => {
        outln!("{}", report::fold::for_stdout(&format!($($arg)*)))
    };
}

pub fn hint(a: &HintArgs) -> Result<i32> {
    let (l, query) = common::load_one(&a.ws, Some(&a.puzzle))?;
    let p = l.ws.find(&l.puzzles, &query)?;
    let total = p.hints.len();
    // Under the state lock: a hint for what went wrong in the last failed run comes first
    // (once per failure), then the next progressive hint, counted as shown. A workspace where
    // that cannot be saved still shows the hint, with one warning.
    let all = a.all;
    let updated = State::update(&l.ws, |state| {
        if all {
            let mistakes = hints::take_all(state, p);
            for _ in 0..total {
                state.next_hint(&p.slug, total);
            }
            Given::All(mistakes)
        } else if let Some(m) = hints::take_next(state, p) {
            Given::Mistake {
                hint: m,
                another: hints::waiting(state, p).is_some(),
                next: state.hints_shown(&p.slug),
            }
        } else {
            match state.next_hint(&p.slug, total) {
                Some(i) => Given::Progressive(i),
                None => Given::Nothing,
            }
        }
    });
    if let Some(w) = &updated.warning {
        errln!("warning: {w}");
    }
    let still_stuck = |what: &str| {
        outw!(
            "{}",
            format!("Still stuck? gpuzzle hint {} shows {what}.", p.id).dimmed()
        )
    };
    match &updated.value {
        Given::All(mistakes) => {
            for m in mistakes {
                outw!(
                    "{} {}
",
                    for_mistake(&m.what),
                    m.hint
                );
            }
            for (i, h) in p.hints.iter().enumerate() {
                outw!(
                    "{} {h}
",
                    format!("Hint {} of {total}:", i + 1).bold()
                );
            }
            if total == 0 && mistakes.is_empty() {
                outw!("Puzzle {} has no hints. Try `gpuzzle show {}`.", p.id, p.id);
            }
        }
        Given::Mistake {
            hint,
            another,
            next,
        } => {
            outw!("{} {}", for_mistake(&hint.what), hint.hint);
            if *another {
                still_stuck("another hint for what went wrong");
            } else if total > 0 {
                still_stuck(&format!("hint {} of {total}", (next + 1).min(total)));
            }
        }
        &Given::Progressive(i) => {
            outw!(
                "{} {}",
                format!("Hint {} of {total}:", i + 1).bold(),
                p.hints[i]
            );
            if i + 1 < total {
                still_stuck("the next one");
            } else {
                outw!("{}", report::catalog::no_more_hints(p).dimmed());
            }
        }
        Given::Nothing => {
            outw!("Puzzle {} has no hints. Try `gpuzzle show {}`.", p.id, p.id);
        }
    }
    if let Some(e) = updated.unsaved_because() {
        errln!("warning: which hints were shown is not saved: {e}");
    }
    Ok(0)
}

/// What `gpuzzle hint` gives.
enum Given {
    /// `--all`: the hints for the last failed run's mistakes, then every progressive one.
    All(Vec<hints::Pending>),
    /// A hint for what went wrong in the last failed run; whether `another` waits, and the
    /// number of progressive hints shown so far.
    Mistake {
        hint: hints::Pending,
        another: bool,
        next: usize,
    },
    /// The progressive hint of this index.
    Progressive(usize),
    /// The puzzle has no hints at all.
    Nothing,
}

/// The heading of a mistake hint: `For what went wrong in your last run (shared-race, line 14):`.
pub(super) fn heading_for_mistake(what: &str) -> String {
    format!("For what went wrong in your last run ({what}):")
}

fn for_mistake(what: &str) -> String {
    heading_for_mistake(what).bold().to_string()
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
    // A broken puzzle file is listed with its errors (as `check` reports them); the list
    // itself still succeeds.
    super::print_block(&report::catalog::list_with_broken(&rows, &broken_rows(&l)));
    Ok(0)
}

/// The rows `list` (and `watch`'s list) show for puzzle files that are broken.
pub(super) fn broken_rows(l: &common::Loaded) -> Vec<report::catalog::BrokenRow> {
    l.broken
        .iter()
        .map(|b| report::catalog::BrokenRow {
            id: b.id,
            name: b.title.clone().unwrap_or_else(|| b.slug.clone()),
            part: b.part.clone(),
            error: common::broken_outcome(b).compile_error.unwrap_or_default(),
        })
        .collect()
}

#[derive(Args, Debug)]
pub struct SolutionArgs {
    /// The puzzle: number or slug.
    pub puzzle: String,
    /// Print it even though you have not passed the puzzle yet.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

/// The reference solution, once the learner's kernel has passed (the pass is in the state), or
/// with `--force` after saying that looking is a choice. Exit 1 when it stays hidden.
pub fn solution(a: &SolutionArgs) -> Result<i32> {
    let (l, query) = common::load_one(&a.ws, Some(&a.puzzle))?;
    let p = l.ws.find(&l.puzzles, &query)?;
    let (state, warning) = State::load(&l.ws);
    if let Some(w) = warning {
        errln!("warning: {w}");
    }
    let solved = state.solved(&p.slug);
    if !solved && !a.force {
        errln!(
            "Puzzle {} ({}) is not passed yet, so its solution stays hidden.\n  \
             help: pass it (`gpuzzle run {}`) and this command prints it; stuck? `gpuzzle hint {}` \
             gives the next hint; to see it now anyway: `gpuzzle solution {} --force`",
            p.id,
            p.title,
            p.id,
            p.id,
            p.id
        );
        return Ok(EXIT_FAIL);
    }
    let (name, text) = common::read_reference(&l.ws, p);
    let text = text.map_err(anyhow::Error::msg)?;
    let yours = common::display_path(&l.ws.kernel_path(p, false));
    if solved {
        errln!(
            "{}",
            format!(
                "The reference solution of puzzle {} ({name}), to compare with yours ({yours}):",
                p.id
            )
            .dimmed()
        );
    } else {
        errln!(
            "{}",
            format!(
                "You have not passed puzzle {} yet: looking now is your choice. Working it out is \
                 where the learning is; `gpuzzle hint {}` gives the next hint instead. Here it is ({name}):",
                p.id, p.id
            )
            .yellow()
        );
    }
    super::print_block(&text);
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
    let (l, query) = common::load_one(&a.ws, Some(&a.puzzle))?;
    let p = l.ws.find(&l.puzzles, &query)?;
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
    let (mut l, mut query) = common::load_one(&a.ws, Some(&a.puzzle))?;
    // A puzzle file that does not load: the pack's own back first (the learner's backed up),
    // then the kernel as for any puzzle.
    if l.ws.find(&l.puzzles, &query).is_err() {
        if let Some(b) = l.broken.iter().find(|b| b.matches(&query)) {
            let file = common::display_path(&b.toml_path);
            match l.ws.reset_puzzle_file(b)? {
                Some(backup) => outln!(
                    "Saved your {file} as {}\nRestored the puzzle file {file}.",
                    common::display_path(&backup)
                ),
                None => outln!("Restored the puzzle file {file}."),
            }
            (l, query) = common::load_one(&a.ws, Some(&a.puzzle))?;
        }
    }
    let p = l.ws.find(&l.puzzles, &query)?;
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
    /// Also write what grades a classroom repository: `github` writes
    /// .github/workflows/gpuzzle.yml (`check --all --format github`, JUnit); `classroom50`
    /// writes classroom50/autograder.py and classroom50/runtime.json for Classroom 50 (each
    /// puzzle's points); `classroom` writes .github/workflows/classroom.yml (GitHub Classroom,
    /// legacy: sunset).
    #[arg(long, value_enum, value_name = "SERVICE")]
    pub ci: Option<Ci>,
    /// Write only the CI files (into an existing workspace, e.g. to add or change CI), not the
    /// puzzles.
    #[arg(long, requires = "ci")]
    pub ci_only: bool,
    /// Where CI builds gpuzzle from when no release of its pinned version exists: the arguments
    /// of `cargo install`, e.g. "--git https://github.com/you/gpuzzle --rev 1a2b3c4 gpuzzle".
    /// The variable GPUZZLE_INSTALL overrides it in GitHub Actions.
    #[arg(
        long,
        value_name = "CARGO_INSTALL_ARGS",
        requires = "ci",
        allow_hyphen_values = true
    )]
    pub ci_install: Option<String>,
}

pub fn init(a: &InitArgs) -> Result<i32> {
    let extra = match a.ci {
        Some(ci) => classroom::files(ci, a.ci_install.as_deref())?,
        None => Vec::new(),
    };
    if let (true, Some(ci)) = (a.ci_only, a.ci) {
        let written: Vec<String> = extra.iter().map(|(p, _)| p.display().to_string()).collect();
        Workspace::write_files(&a.dir, extra)?;
        outln!(
            "Wrote {} in {}.",
            written.join(" and "),
            shell_word(&a.dir.display().to_string())
        );
        if !a.dir.join("puzzles").is_dir() {
            errln!(
                "warning: {} has no puzzles/ folder: CI grades the workspace it runs in (create \
                 one with `gpuzzle init DIR`)",
                a.dir.display()
            );
        }
        outln!("{}", classroom::next_steps(ci, a.ci_install.as_deref()));
        return Ok(0);
    }
    Workspace::init_with(&a.dir, extra)?;
    let shown = shell_word(&a.dir.display().to_string());
    outln!(
        "Created a gpuzzle workspace in {shown}: puzzles/ holds each puzzle as a .toml (the \
         task and its tests) and a .cu (your kernel, to edit)."
    );
    // What gpuzzle will write here that belongs to this machine only; a failure costs only
    // that file, the workspace is made.
    match gitignore::ensure(&a.dir) {
        Ok(Outcome::Created) => outln!(
            "Wrote .gitignore: gpuzzle's lock, index, pictures, backups and temporary files \
             stay out of git."
        ),
        Ok(Outcome::Appended(lines)) => outln!(
            "Added to your .gitignore what gpuzzle writes that must not be committed: {}",
            lines.join(" ")
        ),
        Ok(Outcome::Complete) => {}
        Ok(Outcome::LeftAlone) => outln!(
            "Left .gitignore as it is (not a plain file); keep these out of git: {}",
            gitignore::IGNORED.join(" ")
        ),
        Err(e) => errln!(
            "warning: cannot write .gitignore: {}; keep these out of git: {}",
            os_reason(&e),
            gitignore::IGNORED.join(" ")
        ),
    }
    outln!(
        "Next:\n  cd {shown}\n  gpuzzle run 1      grade puzzle 1; then open puzzles/01_map.cu in your \
         editor, fill it in and run it again\n  gpuzzle hint 1     when stuck; `gpuzzle list` shows \
         every puzzle"
    );
    if let Some(ci) = a.ci {
        outln!("{}", classroom::next_steps(ci, a.ci_install.as_deref()));
    }
    if let Some(note) = path_note() {
        outln!("\n{}", note.yellow());
    }
    Ok(0)
}

/// `path` as one shell word: quoted when it holds anything a shell would split or expand.
fn shell_word(path: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+~:@%,=".contains(c);
    if !path.is_empty() && path.chars().all(plain) {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// When `gpuzzle` typed in a shell would not run this binary (it was started by `cargo run`
/// or by its path), the commands gpuzzle prints would not work as printed: say how to make
/// them work.
fn path_note() -> Option<String> {
    let me = std::env::current_exe().ok()?.canonicalize().ok()?;
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("gpuzzle"))
                .find(|c| c.is_file())
        })
        .unwrap_or_default();
    let problem = match on_path {
        Some(first) if first.canonicalize().ok().as_ref() == Some(&me) => return None,
        Some(first) => format!(
            "The `gpuzzle` on your PATH ({}) is not this one ({}).",
            first.display(),
            me.display()
        ),
        None => "`gpuzzle` is not on your PATH yet, so the commands above would not run as typed."
            .to_string(),
    };
    // Built from a clone (`cargo run`, `cargo build`, whatever the target directory):
    // that clone can be installed.
    let clone = Path::new(env!("CARGO_MANIFEST_DIR"));
    let install = if clone.join("Cargo.toml").is_file()
        && (me.starts_with(clone) || in_cargo_build_dir(&me))
    {
        format!(
            "install it with `cargo install --locked --path {}` (it lands in ~/.cargo/bin)",
            shell_word(&clone.display().to_string())
        )
    } else {
        let dir = me
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        format!("add {} to your PATH", shell_word(&dir))
    };
    Some(format!(
        "{problem} To type them as shown, {install}; or type {} in their place.",
        shell_word(&me.display().to_string())
    ))
}

/// Whether `exe` sits where `cargo build` puts binaries (`<target>/<profile>/`, beside the
/// `.fingerprint` and `deps` folders cargo keeps there), wherever `CARGO_TARGET_DIR` points;
/// an installed binary (`~/.cargo/bin`, a venv's `bin`) has neither beside it.
fn in_cargo_build_dir(exe: &Path) -> bool {
    exe.parent()
        .is_some_and(|d| d.join(".fingerprint").is_dir() && d.join("deps").is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_beside_cargos_build_folders_is_a_build_wherever_the_target_dir_is() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("elsewhere/debug");
        std::fs::create_dir_all(profile.join(".fingerprint")).unwrap();
        std::fs::create_dir_all(profile.join("deps")).unwrap();
        assert!(in_cargo_build_dir(&profile.join("gpuzzle")));
        let bin = dir.path().join(".cargo/bin");
        std::fs::create_dir_all(&bin).unwrap();
        assert!(!in_cargo_build_dir(&bin.join("gpuzzle")));
    }

    #[test]
    fn a_path_is_quoted_only_when_a_shell_would_split_or_expand_it() {
        assert_eq!(
            shell_word("/home/ada/gpuzzle-work"),
            "/home/ada/gpuzzle-work"
        );
        assert_eq!(shell_word("my puzzles"), "'my puzzles'");
        assert_eq!(shell_word("it's$HOME"), "'it'\\''s$HOME'");
        assert_eq!(shell_word(""), "''");
    }
}
