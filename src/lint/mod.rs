//! `gpuzzle lint PACK_DIR`: the checks an instructor (and `cargo test`, on this repository's
//! own pack) runs on a puzzle pack, a folder holding `puzzles/` and `solutions/`.
//!
//! For every puzzle file:
//! - it loads (its problems as `gpuzzle check` names them, at their lines);
//! - its reference solution `solutions/NN_slug.cu` passes every test within budget, the
//!   `[unseen]` test included;
//! - its starter `puzzles/NN_slug.cu` compiles without NVRTC warnings and fails cleanly: a
//!   verdict, with no test stopped by an error;
//! - every lazy kernel `solutions/lazy/NN_slug/NAME.cu` (first line `// lazy: <the shortcut>`)
//!   compiles and FAILS the puzzle, the unseen test included: a lazy kernel that passes means
//!   the puzzle can be passed while skipping its lesson;
//! - the static rules of `rules` (what `teaches` promises, an `[unseen]` test where there are
//!   sizes, the description's numbers against the TOML).
//!
//! A folder in `solutions/lazy/` that names no puzzle is a problem too. Everything runs on the
//! emulator (deterministic, every checker on). Problems are plain data; `report::lint` prints
//! them.

pub mod rules;

use crate::judge::outcome::PuzzleOutcome;
use crate::judge::{self, JudgeError, JudgeOptions};
use crate::puzzle::{load_catalog, Puzzle, PuzzleError};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What a lazy kernel's first line starts with.
pub const LAZY_HEADER: &str = "// lazy:";

/// The folder of lazy kernels, inside `solutions/`.
pub const LAZY_DIR: &str = "lazy";

/// One thing wrong, where, and what fixes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file to change, as the pack folder was given (`puzzles/09_pooling.toml`).
    pub file: String,
    /// 1-based, when the problem has a line.
    pub line: Option<usize>,
    /// Which check found it: `solution-fails`, `starter-warns`, `lazy-passes`, ...
    pub rule: &'static str,
    /// What is wrong.
    #[serde(rename = "problem")]
    pub what: String,
    pub fix: String,
}

/// One puzzle's (or one stray lazy folder's) problems.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleLint {
    /// `None` for a puzzle file too broken to have one, and for a stray lazy folder.
    pub id: Option<u32>,
    /// The puzzle's slug, or the file or folder name where there is none.
    pub slug: String,
    /// The puzzle file (or the stray folder).
    pub file: String,
    /// How many lazy kernels were run against it.
    pub lazy_kernels: usize,
    pub problems: Vec<Problem>,
}

/// Set-up problems: not a pack, or gpuzzle cannot compile (no NVRTC).
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error("{0} is not a puzzle pack: it has no puzzles/ folder (give the folder that holds puzzles/ and solutions/)")]
    NotAPack(String),
    #[error("{0} has no puzzle files (puzzles/NN_slug.toml) to check")]
    Empty(String),
    #[error(transparent)]
    Puzzle(#[from] PuzzleError),
    #[error(transparent)]
    Judge(#[from] JudgeError),
}

/// A path as problems name it: under the pack folder as given, without a leading `./`.
fn shown(path: &Path) -> String {
    let s = path.display().to_string();
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// Lint the pack in `dir`, `jobs` puzzles at a time; puzzles in id order (broken files and stray
/// lazy folders last).
pub fn lint_pack(dir: &Path, jobs: usize) -> Result<Vec<PuzzleLint>, LintError> {
    let puzzles_dir = dir.join(crate::puzzle::PUZZLES_DIR);
    if !puzzles_dir.is_dir() {
        return Err(LintError::NotAPack(shown(dir)));
    }
    let catalog = load_catalog(&puzzles_dir)?;
    if catalog.puzzles.is_empty() && catalog.broken.is_empty() {
        return Err(LintError::Empty(shown(&puzzles_dir)));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Result<PuzzleLint, JudgeError>>>> =
        std::sync::Mutex::new(catalog.puzzles.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(catalog.puzzles.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = catalog.puzzles.get(i) else {
                    break;
                };
                let r = lint_puzzle(dir, p);
                if let Ok(mut v) = results.lock() {
                    v[i] = Some(r);
                }
            });
        }
    });
    let mut out = Vec::new();
    for r in results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
    {
        out.push(r?);
    }
    for b in &catalog.broken {
        let invalids = b.error.invalids();
        let problems = if invalids.is_empty() {
            vec![Problem {
                file: shown(&b.toml_path),
                line: None,
                rule: "puzzle-file",
                what: b.error.to_string(),
                fix: "fix the puzzle file (docs/puzzle-format.md documents every field)".into(),
            }]
        } else {
            invalids
                .iter()
                .map(|i| Problem {
                    file: shown(&i.file),
                    line: i.line,
                    rule: "puzzle-file",
                    what: format!("`{}`: {}", i.field, i.problem),
                    fix: i.help.clone(),
                })
                .collect()
        };
        out.push(PuzzleLint {
            id: b.id,
            slug: b.slug.clone(),
            file: shown(&b.toml_path),
            lazy_kernels: 0,
            problems,
        });
    }
    let stems: Vec<String> = catalog
        .puzzles
        .iter()
        .map(|p| stem(&p.kernel_file).to_string())
        .chain(catalog.broken.iter().map(|b| b.file_stem()))
        .collect();
    out.extend(stray_lazy(dir, &stems));
    Ok(out)
}

/// `09_pooling.cu` → `09_pooling`.
fn stem(kernel_file: &str) -> &str {
    kernel_file.strip_suffix(".cu").unwrap_or(kernel_file)
}

/// Entries of `solutions/lazy/` that are not the folder of a puzzle (by its file's stem).
fn stray_lazy(dir: &Path, stems: &[String]) -> Vec<PuzzleLint> {
    let lazy = dir.join(crate::puzzle::SOLUTIONS_DIR).join(LAZY_DIR);
    let Ok(entries) = std::fs::read_dir(&lazy) else {
        return Vec::new();
    };
    let mut names: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    names.sort();
    names
        .into_iter()
        .filter(|(name, path)| !(path.is_dir() && stems.contains(name)))
        .map(|(name, path)| PuzzleLint {
            id: None,
            slug: name.clone(),
            file: shown(&path),
            lazy_kernels: 0,
            problems: vec![Problem {
                file: shown(&path),
                line: None,
                rule: "lazy-stray",
                what: format!("`{name}` in solutions/lazy/ is not the folder of a puzzle, so its kernels are never run"),
                fix: "put each lazy kernel in solutions/lazy/NN_slug/ (the puzzle file's name without .toml)".into(),
            }],
        })
        .collect()
}

/// The options every run of `lint` grades with: the emulator, the unseen test included.
fn options() -> JudgeOptions {
    JudgeOptions {
        unseen: true,
        ..JudgeOptions::default()
    }
}

/// A kernel file's text: `None` when there is no such file. Bytes that are not UTF-8 are read
/// as Latin-1, as `check` reads them.
fn read_kernel(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Grade the kernel file `path` against `p`: its verdict (`None`: no such file), or a problem
/// already (an unreadable file, a broken spec); `Err` only for a set-up error (no NVRTC).
type Graded = Result<Option<(String, PuzzleOutcome)>, Problem>;

fn grade(p: &Puzzle, path: &Path) -> Result<Graded, JudgeError> {
    let file = shown(path);
    let source = match read_kernel(path) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(Ok(None)),
        Err(e) => {
            return Ok(Err(Problem {
                file: file.clone(),
                line: None,
                rule: "unreadable",
                what: format!("cannot read {file}: {}", crate::puzzle::os_reason(&e)),
                fix: "make it a readable text file".into(),
            }))
        }
    };
    match judge::judge(p, &file, &source, &options()) {
        Ok(o) => Ok(Ok(Some((source, o)))),
        Err(e @ (JudgeError::Spec { .. } | JudgeError::Puzzle(_))) => Ok(Err(Problem {
            file: shown(&p.toml_path),
            line: None,
            rule: "spec-broken",
            what: e.to_string(),
            fix: "fix the puzzle's spec or tests".into(),
        })),
        Err(e) => Err(e),
    }
}

/// The line of the first failed test's first diagnostic, for the problem's place.
fn first_line(o: &PuzzleOutcome) -> Option<usize> {
    let t = o.tests.iter().find(|t| !t.passed)?;
    crate::report::failed_test_line(t).map(|l| l as usize)
}

/// `puzzles/03_guard.cu:3:5: warning: ...` → line 3.
fn warning_line(w: &str) -> Option<usize> {
    let mut parts = w.splitn(4, ':');
    parts.next()?;
    parts.next()?.trim().parse().ok()
}

/// Every check on one puzzle. `Err` only for a set-up problem (no NVRTC).
fn lint_puzzle(dir: &Path, p: &Puzzle) -> Result<PuzzleLint, JudgeError> {
    let toml_file = shown(&p.toml_path);
    let mut problems = Vec::new();
    let text = std::fs::read_to_string(&p.toml_path).unwrap_or_default();
    problems.extend(rules::check(p, &text).into_iter().map(|mut q| {
        q.file = toml_file.clone();
        q
    }));
    let solutions = dir.join(crate::puzzle::SOLUTIONS_DIR);

    // The reference solution passes, unseen test included.
    let solution = solutions.join(&p.kernel_file);
    match grade(p, &solution)? {
        Err(q) => problems.push(q),
        Ok(None) => problems.push(Problem {
            file: shown(&solution),
            line: None,
            rule: "solution-missing",
            what: format!("puzzle {} has no reference solution", p.id),
            fix: format!(
                "write {} (it must pass every test within budget)",
                shown(&solution)
            ),
        }),
        Ok(Some((_, o))) if !o.passed => problems.push(Problem {
            file: shown(&solution),
            line: first_line(&o),
            rule: "solution-fails",
            what: format!(
                "the reference solution fails: {}",
                crate::report::puzzle_reason(&o)
            ),
            fix: "fix the solution, or the tests and budget it is held to".into(),
        }),
        Ok(Some(_)) => {}
    }

    // The starter compiles without warnings and fails cleanly.
    let starter = p
        .toml_path
        .parent()
        .unwrap_or(Path::new(""))
        .join(&p.kernel_file);
    match grade(p, &starter)? {
        Err(q) => problems.push(q),
        Ok(None) => problems.push(Problem {
            file: shown(&starter),
            line: None,
            rule: "starter-missing",
            what: format!("puzzle {} has no starter", p.id),
            fix: format!(
                "write {} with the kernel's signature: {}",
                shown(&starter),
                crate::puzzle::kernel_signature(p)
            ),
        }),
        Ok(Some((_, o))) => problems.extend(starter_problems(&o, &shown(&starter))),
    }

    // Every lazy kernel fails.
    let lazy_dir = solutions.join(LAZY_DIR).join(stem(&p.kernel_file));
    let mut lazy: Vec<PathBuf> = std::fs::read_dir(&lazy_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    lazy.sort();
    let mut lazy_kernels = 0;
    for path in lazy {
        let file = shown(&path);
        if path.extension().is_none_or(|x| x != "cu") || !path.is_file() {
            problems.push(Problem {
                file,
                line: None,
                rule: "lazy-stray",
                what: "not a .cu file, so it is never run".into(),
                fix: "keep only lazy kernels (NAME.cu) in this folder".into(),
            });
            continue;
        }
        lazy_kernels += 1;
        let (source, o) = match grade(p, &path)? {
            Err(q) => {
                problems.push(q);
                continue;
            }
            Ok(None) => continue,
            Ok(Some(graded)) => graded,
        };
        let header = source.lines().next().unwrap_or("").trim();
        let shortcut = header.strip_prefix(LAZY_HEADER).map(str::trim);
        if shortcut.is_none_or(str::is_empty) {
            problems.push(Problem {
                file: file.clone(),
                line: Some(1),
                rule: "lazy-header",
                what: "a lazy kernel's first line says which shortcut it takes".into(),
                fix: format!("start the file with `{LAZY_HEADER} <the shortcut, in one line>`"),
            });
        }
        let shortcut = shortcut.unwrap_or("").to_string();
        match o {
            o if o.compile_error.is_some() => problems.push(Problem {
                file: file.clone(),
                line: None,
                rule: "lazy-compile",
                what: format!(
                    "the lazy kernel does not compile, so it shows nothing: {}",
                    crate::report::puzzle_reason(&o)
                ),
                fix: "make it compile: a lazy kernel must fail by its shortcut, not by a typo".into(),
            }),
            o if o.passed => problems.push(Problem {
                file: file.clone(),
                line: Some(1),
                rule: "lazy-passes",
                what: if shortcut.is_empty() {
                    "the lazy kernel passes every test: the puzzle can be passed without its lesson".to_string()
                } else {
                    format!("the lazy kernel passes every test ({shortcut}): the puzzle can be passed without its lesson")
                },
                fix: format!("change {toml_file}'s tests or budget so that this shortcut fails (where the text says the technique is fine too, remove the lazy kernel)"),
            }),
            _ => {}
        }
    }
    Ok(PuzzleLint {
        id: Some(p.id),
        slug: p.slug.clone(),
        file: toml_file,
        lazy_kernels,
        problems,
    })
}

/// What is wrong with an untouched starter's verdict: compile errors, NVRTC warnings, a pass,
/// a test stopped by an error.
fn starter_problems(o: &PuzzleOutcome, file: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    if o.compile_error.is_some() {
        out.push(Problem {
            file: file.to_string(),
            line: None,
            rule: "starter-compile",
            what: format!(
                "the starter does not compile: {}",
                crate::report::puzzle_reason(o)
            ),
            fix: "a starter compiles and fails by its missing logic".into(),
        });
        return out;
    }
    for w in &o.warnings {
        let text = w
            .split_once("warning:")
            .map_or(w.as_str(), |(_, t)| t.trim());
        out.push(Problem {
            file: file.to_string(),
            line: warning_line(w),
            rule: "starter-warns",
            what: format!("NVRTC warns on the untouched starter: {text}"),
            fix: "change the starter so NVRTC has nothing to warn about (an unused variable: leave its declaration out, or put it in a comment), so that learners meet no warning before their first edit".into(),
        });
    }
    if o.passed {
        out.push(Problem {
            file: file.to_string(),
            line: None,
            rule: "starter-passes",
            what: "the untouched starter passes every test".into(),
            fix: "leave the lesson's logic out of the starter (or add a test it fails)".into(),
        });
    }
    for t in o.tests.iter().filter(|t| t.error.is_some()) {
        out.push(Problem {
            file: file.to_string(),
            line: None,
            rule: "starter-stops",
            what: format!(
                "test \"{}\" stopped on the starter instead of giving a verdict: {}",
                t.name,
                t.error.as_deref().unwrap_or("")
            ),
            fix: "a starter must fail cleanly, by wrong outputs or a diagnostic".into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_lines_are_read_from_nvrtcs_form() {
        assert_eq!(
            warning_line("puzzles/03_guard.cu:3:9: warning: variable \"i\" was declared but never referenced"),
            Some(3)
        );
        assert_eq!(warning_line("no place"), None);
    }

    #[test]
    fn a_folder_without_puzzles_is_not_a_pack() {
        let dir = tempfile::tempdir().unwrap();
        let e = lint_pack(dir.path(), 1).unwrap_err();
        assert!(e.to_string().contains("has no puzzles/ folder"), "{e}");
        std::fs::create_dir(dir.path().join("puzzles")).unwrap();
        let e = lint_pack(dir.path(), 1).unwrap_err();
        assert!(e.to_string().contains("has no puzzle files"), "{e}");
    }

    #[test]
    fn stray_lazy_folders_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let lazy = dir.path().join("solutions/lazy");
        std::fs::create_dir_all(lazy.join("03_guard")).unwrap();
        std::fs::create_dir_all(lazy.join("99_nothing")).unwrap();
        let found = stray_lazy(dir.path(), &["03_guard".to_string()]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].slug, "99_nothing");
        assert_eq!(found[0].problems[0].rule, "lazy-stray");
    }
}
