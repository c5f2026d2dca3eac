//! The learner's progress in `<root>/.gpuzzle/state.toml`: per puzzle (by slug) the last result
//! and how many hints were shown. Progress is a convenience: a damaged file never stops
//! gpuzzle; it is set aside and progress starts afresh.

use super::error::PuzzleError;
use super::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

const STATE_FILE: &str = "state.toml";
const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    #[default]
    NotTried,
    Failed,
    Passed,
}

/// One puzzle's progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The result of the last run (`run` or `check`).
    #[serde(default)]
    pub status: Status,
    /// Hints shown so far (the next `gpuzzle hint` shows hint number `hints_shown + 1`).
    #[serde(default)]
    pub hints_shown: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// File format version, for future changes.
    #[serde(default = "format_version")]
    pub version: u32,
    /// Progress by puzzle slug.
    #[serde(default)]
    pub puzzles: BTreeMap<String, Progress>,
}

fn format_version() -> u32 {
    FORMAT_VERSION
}

impl Default for State {
    fn default() -> Self {
        State {
            version: FORMAT_VERSION,
            puzzles: BTreeMap::new(),
        }
    }
}

impl State {
    /// `<root>/.gpuzzle/state.toml`.
    pub fn path(ws: &Workspace) -> PathBuf {
        ws.state_dir().join(STATE_FILE)
    }

    /// The saved progress; empty if none. A file that cannot be read or parsed gives empty
    /// progress and a warning to show; an unparsable one is kept as `state.toml.corrupt`.
    pub fn load(ws: &Workspace) -> (State, Option<String>) {
        let path = State::path(ws);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (State::default(), None),
            Err(e) => {
                return (
                    State::default(),
                    Some(format!(
                        "could not read your progress in {} ({e}); starting with empty progress",
                        path.display()
                    )),
                )
            }
        };
        match toml::from_str::<State>(&text) {
            Ok(s) => (s, None),
            Err(e) => {
                let aside = path.with_file_name(format!("{STATE_FILE}.corrupt"));
                let kept = match std::fs::rename(&path, &aside) {
                    Ok(()) => format!("it was kept as {}", aside.display()),
                    Err(re) => format!("it could not be moved aside ({re})"),
                };
                let line = e
                    .span()
                    .map(|s| format!(" at line {}", super::error::line_of(&text, s.start)))
                    .unwrap_or_default();
                (
                    State::default(),
                    Some(format!(
                        "your progress file {} is damaged{line} ({}); {kept} and progress starts afresh",
                        path.display(),
                        e.message().trim()
                    )),
                )
            }
        }
    }

    /// Write atomically: a temporary file in `.gpuzzle/`, then a rename over `state.toml`.
    pub fn save(&self, ws: &Workspace) -> Result<(), PuzzleError> {
        let dir = ws.state_dir();
        std::fs::create_dir_all(&dir).map_err(|e| PuzzleError::io("create directory", &dir, e))?;
        let path = State::path(ws);
        // Per-process temporary name: two gpuzzle processes (say `watch` and `run`) saving at
        // once each rename a complete file; the last one wins, neither is torn.
        let tmp = dir.join(format!("{STATE_FILE}.{}.tmp", std::process::id()));
        let text = toml::to_string(self).map_err(|e| {
            PuzzleError::io(
                "write",
                &path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        })?;
        let header = "# gpuzzle progress: safe to delete (progress starts afresh).\n";
        std::fs::write(&tmp, format!("{header}{text}"))
            .map_err(|e| PuzzleError::io("write", &tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| PuzzleError::io("replace", &path, e))?;
        Ok(())
    }

    pub fn progress(&self, slug: &str) -> Progress {
        self.puzzles.get(slug).copied().unwrap_or_default()
    }

    pub fn status(&self, slug: &str) -> Status {
        self.progress(slug).status
    }

    pub fn hints_shown(&self, slug: &str) -> usize {
        self.progress(slug).hints_shown
    }

    /// Record the result of a run.
    pub fn record(&mut self, slug: &str, passed: bool) {
        self.puzzles.entry(slug.to_string()).or_default().status = if passed {
            Status::Passed
        } else {
            Status::Failed
        };
    }

    /// The index (0-based) of the hint to show now, out of `total`, and count it as shown.
    /// Hints come in order; once all were shown, the last one is shown again.
    /// `None` when the puzzle has no hints.
    pub fn next_hint(&mut self, slug: &str, total: usize) -> Option<usize> {
        if total == 0 {
            return None;
        }
        let p = self.puzzles.entry(slug.to_string()).or_default();
        let index = p.hints_shown.min(total - 1);
        p.hints_shown = (p.hints_shown + 1).min(total);
        Some(index)
    }

    /// How many of `slugs` are passed.
    pub fn passed_count<'a>(&self, slugs: impl IntoIterator<Item = &'a str>) -> usize {
        slugs
            .into_iter()
            .filter(|s| self.status(s) == Status::Passed)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::at_root(tmp.path());
        (tmp, ws)
    }

    #[test]
    fn missing_file_is_empty_progress_without_warning() {
        let (_t, ws) = ws();
        let (s, w) = State::load(&ws);
        assert_eq!(s, State::default());
        assert!(w.is_none());
    }

    #[test]
    fn save_then_load_round_trips() {
        let (_t, ws) = ws();
        let mut s = State::default();
        s.record("pooling", false);
        s.record("map", true);
        s.next_hint("pooling", 3);
        s.save(&ws).unwrap();
        let leftovers: Vec<_> = std::fs::read_dir(ws.state_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["state.toml"], "no temporary file left behind");
        let (back, w) = State::load(&ws);
        assert!(w.is_none());
        assert_eq!(back, s);
        assert_eq!(back.status("pooling"), Status::Failed);
        assert_eq!(back.status("map"), Status::Passed);
        assert_eq!(back.status("zip"), Status::NotTried);
        assert_eq!(back.hints_shown("pooling"), 1);
        assert_eq!(back.passed_count(["map", "zip", "pooling"]), 1);
    }

    #[test]
    fn corrupt_file_warns_is_kept_aside_and_rebuilt() {
        let (_t, ws) = ws();
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        std::fs::write(State::path(&ws), "[puzzles.map\nstatus = 3").unwrap();
        let (s, w) = State::load(&ws);
        assert_eq!(s, State::default());
        let w = w.expect("a warning");
        assert!(
            w.contains("damaged") && w.contains("state.toml.corrupt"),
            "{w}"
        );
        assert_eq!(
            std::fs::read_to_string(ws.state_dir().join("state.toml.corrupt")).unwrap(),
            "[puzzles.map\nstatus = 3"
        );
        assert!(!State::path(&ws).exists());
        // And saving works again.
        s.save(&ws).unwrap();
        assert!(State::load(&ws).1.is_none());
    }

    #[test]
    fn a_wrong_status_is_corruption_too() {
        let (_t, ws) = ws();
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        std::fs::write(State::path(&ws), "[puzzles.map]\nstatus = \"great\"\n").unwrap();
        let (s, w) = State::load(&ws);
        assert_eq!(s, State::default());
        assert!(w.is_some());
    }

    #[test]
    fn hints_advance_then_stay_on_the_last() {
        let mut s = State::default();
        assert_eq!(s.next_hint("p", 0), None);
        assert_eq!(s.next_hint("p", 3), Some(0));
        assert_eq!(s.next_hint("p", 3), Some(1));
        assert_eq!(s.next_hint("p", 3), Some(2));
        assert_eq!(s.next_hint("p", 3), Some(2));
        assert_eq!(s.hints_shown("p"), 3);
        // Fewer hints than before (the puzzle was edited): still a valid index.
        assert_eq!(s.next_hint("p", 2), Some(1));
    }

    #[test]
    fn record_keeps_hint_count() {
        let mut s = State::default();
        s.next_hint("p", 3);
        s.record("p", true);
        assert_eq!(
            s.progress("p"),
            Progress {
                status: Status::Passed,
                hints_shown: 1
            }
        );
    }
}
