//! Which puzzle definitions CI grades with (`check --pack`). A learner can edit the `.toml`
//! files in their repository, tests and budgets included, so classroom CI does not trust them:
//! `--pack builtin` grades with the definitions built into the gpuzzle binary the workflow
//! installed (every workspace file that differs is reported, not used), and
//! `--pack sha256:HEX` accepts the workspace's own definitions (an instructor's own pack) only
//! when their hash is the one the workflow pins. `check --print-pin` prints the value to pin.
//!
//! The hash covers every `*.toml` in `puzzles/` by file name and text (line endings made
//! `\n`, so a checkout on Windows hashes the same); kernels (`.cu`) are the learner's and are
//! not part of it.

use super::error::PuzzleError;
use super::model::Puzzle;
use super::pack::{embedded_puzzles, embedded_toml, PUZZLES_DIR};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The value of `check --pack`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackPin {
    /// The puzzles built into this gpuzzle.
    Builtin,
    /// The workspace's own puzzle files, whose hash must be this (lowercase hex).
    Sha256(String),
}

impl FromStr for PackPin {
    type Err = String;

    fn from_str(s: &str) -> Result<PackPin, String> {
        if s == "builtin" {
            return Ok(PackPin::Builtin);
        }
        let hex = s.strip_prefix("sha256:").ok_or_else(|| {
            format!("`{s}` is no pack: use `builtin` or `sha256:HEX` (what `gpuzzle check --print-pin` prints)")
        })?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!(
                "`{s}`: a pack's sha256 is 64 hexadecimal digits (what `gpuzzle check --print-pin` prints)"
            ));
        }
        Ok(PackPin::Sha256(hex.to_ascii_lowercase()))
    }
}

/// A workspace puzzle file that the pinned pack overrides or leaves out, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinNote {
    /// The file as the learner names it (`puzzles/03_guard.toml`).
    pub file: PathBuf,
    pub message: String,
}

/// The `*.toml` files of `dir`, by file name, with `\n` line endings; sorted by name.
fn puzzle_files(dir: &Path) -> Result<Vec<(String, String)>, PuzzleError> {
    let entries = std::fs::read_dir(dir).map_err(|e| PuzzleError::io("read", dir, e))?;
    let mut files = Vec::new();
    for e in entries {
        let path = e.map_err(|e| PuzzleError::io("read", dir, e))?.path();
        if path.extension().is_some_and(|x| x == "toml") && path.is_file() {
            let bytes = std::fs::read(&path).map_err(|e| PuzzleError::io("read", &path, e))?;
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            files.push((
                name.unwrap_or_default(),
                normalise(&String::from_utf8_lossy(&bytes)),
            ));
        }
    }
    files.sort();
    Ok(files)
}

fn normalise(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// `sha256:HEX` of the puzzle definitions in `dir`.
pub fn pack_hash(dir: &Path) -> Result<String, PuzzleError> {
    Ok(hash_of(&puzzle_files(dir)?))
}

fn hash_of(files: &[(String, String)]) -> String {
    let mut h = Sha256::new();
    for (name, text) in files {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// What `check --print-pin` prints for the definitions in `dir`: `builtin` when they are the
/// built-in pack's, file for file, else their hash.
pub fn pin_for(dir: &Path) -> Result<String, PuzzleError> {
    let files = puzzle_files(dir)?;
    let builtin = embedded_puzzles()?;
    let same = files.len() == builtin.len()
        && files
            .iter()
            .all(|(name, text)| embedded_toml(name).is_some_and(|t| normalise(t) == *text));
    Ok(if same {
        "builtin".to_string()
    } else {
        hash_of(&files)
    })
}

/// The puzzles to grade under the built-in pin, and a note for every workspace puzzle file
/// that differs from the pack's, is missing, or is not in the pack.
pub fn builtin(dir: &Path) -> Result<(Vec<Puzzle>, Vec<PinNote>), PuzzleError> {
    let puzzles = embedded_puzzles()?;
    let files = puzzle_files(dir).unwrap_or_default();
    let shown = |name: &str| Path::new(PUZZLES_DIR).join(name);
    let mut notes = Vec::new();
    for (name, text) in &files {
        match embedded_toml(name) {
            Some(t) if normalise(t) == *text => {}
            Some(_) => notes.push(PinNote {
                file: shown(name),
                message: format!(
                    "differs from the puzzle built into gpuzzle: graded with the built-in definition (CI pins the pack; restore the file with `git checkout origin/HEAD -- {}`)",
                    shown(name).display()
                ),
            }),
            None => notes.push(PinNote {
                file: shown(name),
                message: "is not one of the puzzles built into gpuzzle: not graded (CI pins the pack)".into(),
            }),
        }
    }
    for p in &puzzles {
        let name = (p.toml_path.file_name()).map_or(String::new(), |n| n.to_string_lossy().into());
        if !files.iter().any(|(n, _)| *n == name) {
            notes.push(PinNote {
                file: shown(&name),
                message: "is missing: graded with the built-in definition".into(),
            });
        }
    }
    Ok((puzzles, notes))
}

/// Under a hash pin: the workspace's own puzzle files must hash to `pinned` (hex), else
/// nothing is graded.
pub fn verify_hash(dir: &Path, pinned: &str) -> Result<(), PuzzleError> {
    let found = hash_of(&puzzle_files(dir)?);
    let pinned = format!("sha256:{pinned}");
    if found != pinned {
        return Err(PuzzleError::PackChanged {
            dir: dir.to_path_buf(),
            pinned,
            found,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, contents) in super::super::pack::pack_files() {
            if path.extension().is_some_and(|x| x == "toml") {
                let name = path.file_name().unwrap();
                std::fs::write(dir.path().join(name), contents).unwrap();
            }
        }
        dir
    }

    #[test]
    fn pins_parse_and_bad_ones_say_what_to_write() {
        assert_eq!("builtin".parse(), Ok(PackPin::Builtin));
        let hex = "AB".repeat(32);
        assert_eq!(
            format!("sha256:{hex}").parse(),
            Ok(PackPin::Sha256("ab".repeat(32)))
        );
        let e = "sha256:12".parse::<PackPin>().unwrap_err();
        assert!(e.contains("64 hexadecimal digits"), "{e}");
        let e = "latest".parse::<PackPin>().unwrap_err();
        assert!(e.contains("`builtin` or `sha256:HEX`"), "{e}");
    }

    #[test]
    fn the_built_in_pack_pins_as_builtin_and_an_edit_changes_the_hash() {
        let dir = pack_dir();
        assert_eq!(pin_for(dir.path()).unwrap(), "builtin");
        let (_, notes) = builtin(dir.path()).unwrap();
        assert!(notes.is_empty(), "{notes:?}");

        let before = pack_hash(dir.path()).unwrap();
        let file = dir.path().join("02_zip.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        // Line endings alone change nothing.
        std::fs::write(&file, text.replace('\n', "\r\n")).unwrap();
        assert_eq!(pack_hash(dir.path()).unwrap(), before);
        std::fs::write(&file, text.replace("budget = {", "# loosened\nbudget = {")).unwrap();
        let after = pack_hash(dir.path()).unwrap();
        assert_ne!(after, before);
        assert_eq!(pin_for(dir.path()).unwrap(), after);

        let (puzzles, notes) = builtin(dir.path()).unwrap();
        assert_eq!(puzzles.len(), embedded_puzzles().unwrap().len());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(notes[0].file, Path::new("puzzles/02_zip.toml"));
        assert!(notes[0]
            .message
            .starts_with("differs from the puzzle built into gpuzzle"));

        let e = verify_hash(dir.path(), before.trim_start_matches("sha256:")).unwrap_err();
        assert!(e.to_string().contains(&after), "{e}");
        verify_hash(dir.path(), after.trim_start_matches("sha256:")).unwrap();
    }
}
