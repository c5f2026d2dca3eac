//! Errors of the puzzle module: every one names the file (and, for a puzzle file, the line and
//! field) and says how to fix it, because the reader is a learner or a puzzle author, not us.

use std::fmt;
use std::path::{Path, PathBuf};

/// A mistake at a known place in a puzzle file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The puzzle file (as it was given: relative paths stay relative).
    pub file: PathBuf,
    /// 1-based line, where one is known.
    pub line: Option<usize>,
    /// The field, as a path into the file: `budget.global_reads`, `test[1].buffers.a.len`.
    pub field: String,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub help: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": `{}`: {}", self.field, self.problem)?;
        if !self.help.is_empty() {
            write!(f, "\n  help: {}", self.help)?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PuzzleError {
    /// A puzzle file is malformed or inconsistent.
    #[error("{0}")]
    Invalid(Box<Invalid>),

    /// More than one problem, e.g. in several files of a directory (each reported in full).
    #[error("{}", join_errors(.0))]
    Several(Vec<PuzzleError>),

    /// The OS error is shown in this message and is deliberately not the error's `source`:
    /// `{:#}` would print it a second time.
    #[error("cannot {action} {}: {}", .path.display(), os_reason(.cause))]
    Io {
        action: &'static str,
        path: PathBuf,
        cause: std::io::Error,
    },

    /// `check --pack sha256:...` on puzzle files whose hash is another.
    #[error("the puzzle files in {} are not the pack this check pins ({pinned}; they hash to {found}): a puzzle file was changed, added or removed, so nothing was graded\n  help: restore the puzzle files from the course repository (`git checkout origin/HEAD -- {}`), or, as the instructor of a changed pack, pin what `gpuzzle check --print-pin` prints", .dir.display(), .dir.display())]
    PackChanged {
        dir: PathBuf,
        pinned: String,
        found: String,
    },

    #[error("your progress file {} comes from a newer gpuzzle; it was left as it is\n  help: update gpuzzle to record progress again", .path.display())]
    NewerState { path: PathBuf },

    #[error("no puzzles found in {} or any directory above it\n  help: run `gpuzzle init DIR` to create a workspace with the puzzle pack, or point at a puzzle directory with `--puzzles DIR` (or the environment variable GPUZZLE_PUZZLES)", .start.display())]
    NoWorkspace { start: PathBuf },

    #[error("{} holds no puzzle files (*.toml), nor does a `puzzles/` folder inside it\n  help: check the path given with `--puzzles` or GPUZZLE_PUZZLES, or run `gpuzzle init DIR` for a fresh workspace", .dir.display())]
    NoPuzzlesIn { dir: PathBuf },

    #[error("no puzzle `{query}`{}\n  help: give a number or a name: {valid}", .closest.as_ref().map(|c| format!("; did you mean `{c}`?")).unwrap_or_default())]
    UnknownPuzzle {
        query: String,
        /// The puzzle name nearest to the query, when one is near enough to be a typo.
        closest: Option<String>,
        valid: String,
    },

    #[error("refusing to overwrite {}: {}\n  help: choose an empty directory, or move those files away first; to add CI to an existing workspace, write only its files: `gpuzzle init DIR --ci SERVICE --ci-only`", count_files(.paths.len()), first_paths(.paths))]
    WouldOverwrite { paths: Vec<PathBuf> },

    /// The learner's file was to be backed up before being replaced, and the backup could not
    /// be written (a full disk, a read-only folder): nothing was changed.
    #[error("cannot write the backup {}: {}\n  kept: your {} is untouched (the starter was not put back), and no backup was made (nothing partial was left behind)\n  help: free some disk space, or make sure {} is a folder you can write to, then reset again", .backup.display(), os_reason(.cause), .file.display(), .backup.parent().unwrap_or(Path::new(".")).display())]
    BackupFailed {
        /// The learner's file, left as it was.
        file: PathBuf,
        /// Where the backup was to go.
        backup: PathBuf,
        cause: std::io::Error,
    },

    #[error("no starter is known for puzzle `{slug}` ({file}): it is not one of gpuzzle's own puzzles\n  help: restore the file from your course material; your current file was left untouched")]
    NoStarter { slug: String, file: String },

    /// A test does not fit the parameters it was asked to build arguments for.
    #[error("test `{test}`: {problem}\n  help: {help}")]
    TestArgs {
        test: String,
        problem: String,
        help: String,
    },
}

impl PuzzleError {
    pub(crate) fn invalid(
        file: &Path,
        line: Option<usize>,
        field: impl Into<String>,
        problem: impl Into<String>,
        help: impl Into<String>,
    ) -> PuzzleError {
        PuzzleError::Invalid(Box::new(Invalid {
            file: file.to_path_buf(),
            line,
            field: field.into(),
            problem: problem.into(),
            help: help.into(),
        }))
    }

    pub(crate) fn io(action: &'static str, path: &Path, source: std::io::Error) -> PuzzleError {
        PuzzleError::Io {
            action,
            path: path.to_path_buf(),
            cause: source,
        }
    }

    /// One error as itself, several as `Several`, none as `Ok`.
    pub(crate) fn collect(mut errors: Vec<PuzzleError>) -> Result<(), PuzzleError> {
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(PuzzleError::Several(errors)),
        }
    }

    /// The located problems inside this error (for tests and tools that want them one by one).
    pub fn invalids(&self) -> Vec<&Invalid> {
        match self {
            PuzzleError::Invalid(i) => vec![i],
            PuzzleError::Several(v) => v.iter().flat_map(|e| e.invalids()).collect(),
            _ => Vec::new(),
        }
    }
}

fn join_errors(errors: &[PuzzleError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `1 existing file`, `104 existing files`.
fn count_files(n: usize) -> String {
    format!("{n} existing file{}", if n == 1 { "" } else { "s" })
}

/// The first few of `paths` and how many more: a refused `init` in a full folder says a line,
/// not every path.
fn first_paths(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 3;
    let mut text = list_paths(&paths[..paths.len().min(SHOWN)]);
    if paths.len() > SHOWN {
        text.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    text
}

fn list_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An OS error as words, without Rust's " (os error N)" suffix ("Permission denied").
pub fn os_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The name of `allowed` nearest to a misspelt `name` (`hint` → `hints`, `outptu` →
/// `output`), if a third of it or less is wrong.
pub(crate) fn closest<'a>(name: &str, allowed: &'a [String]) -> Option<&'a str> {
    let (best, dist) = allowed
        .iter()
        .map(|a| (a, edit_distance(&name.to_lowercase(), a)))
        .min_by_key(|&(_, d)| d)?;
    let room = (best.chars().count() / 3).max(1);
    // `lenght` for `len`: an allowed name the misspelling starts with counts as near.
    let stem = name.len() > best.len() && best.len() >= 3 && name.starts_with(best.as_str());
    (dist > 0 && (dist <= room || stem)).then_some(best.as_str())
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (up + 1).min(row[j] + 1).min(diag + usize::from(ca != cb));
            diag = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names_a_near_field_only() {
        let allowed: Vec<String> = ["len", "output", "hints", "global_writes"]
            .map(String::from)
            .to_vec();
        assert_eq!(closest("outptu", &allowed), Some("output"));
        assert_eq!(closest("hint", &allowed), Some("hints"));
        assert_eq!(closest("lenght", &allowed), Some("len"));
        assert_eq!(closest("global_write", &allowed), Some("global_writes"));
        assert_eq!(closest("zzzz", &allowed), None);
        assert_eq!(closest("len", &allowed), None);
        assert_eq!(closest("x", &[]), None);
    }

    #[test]
    fn line_of_counts_from_one() {
        let t = "a\nb\nc";
        assert_eq!(line_of(t, 0), 1);
        assert_eq!(line_of(t, 2), 2);
        assert_eq!(line_of(t, 4), 3);
        assert_eq!(line_of(t, 999), 3);
    }

    #[test]
    fn invalid_display_names_file_line_field_and_help() {
        let e = PuzzleError::invalid(
            Path::new("puzzles/09_pooling.toml"),
            Some(12),
            "test[0].grid",
            "empty",
            "give 1 to 3 numbers",
        );
        assert_eq!(
            e.to_string(),
            "puzzles/09_pooling.toml:12: `test[0].grid`: empty\n  help: give 1 to 3 numbers"
        );
    }
}
