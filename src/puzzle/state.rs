//! The learner's progress in `<root>/.gpuzzle/state.toml`: per puzzle (by slug) the last result,
//! how many hints were shown, the mistake hints the last failed run matched (each marked once
//! shown), and `solved`, which unlocks `gpuzzle solution` until a `reset`. Progress is a
//! convenience: a damaged file never stops gpuzzle; it is set aside and progress starts afresh.
//! Writes are atomic, every read-modify-write holds an OS lock on `.gpuzzle/state.lock` (so
//! parallel runs do not lose each other's updates), and a file from a newer gpuzzle is never
//! overwritten.

use super::error::PuzzleError;
use super::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

const STATE_FILE: &str = "state.toml";
/// Held (an OS file lock) around every read-modify-write of the state, so parallel runs each
/// add their result to what the others saved instead of overwriting it.
const LOCK_FILE: &str = "state.lock";
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The result of the last run (`run` or `check`).
    #[serde(default)]
    pub status: Status,
    /// Hints shown so far (the next `gpuzzle hint` shows hint number `hints_shown + 1`).
    #[serde(default)]
    pub hints_shown: usize,
    /// The learner's kernel passed at least once since the puzzle was last reset: a later
    /// failing run keeps it, and it unlocks `gpuzzle solution`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub solved: bool,
    /// The `[[mistake]]` hints the last failed run matched, most specific first (see
    /// `teach::hints`); none after a pass. Absent from files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mistakes: Vec<MistakeSeen>,
}

/// A `[[mistake]]` hint that matched the last failed run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MistakeSeen {
    /// Its index among the puzzle's `[[mistake]]` tables.
    pub index: usize,
    /// Its `kind` as written (checked again before showing it: the file may have changed).
    pub kind: String,
    /// The source line of the diagnostic it matched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// `gpuzzle hint` (or `watch`'s h) has shown it for this failure: the next hint is the next
    /// mistake hint or the next progressive one, not this again.
    #[serde(default)]
    pub shown: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// File format version, for future changes.
    #[serde(default = "format_version")]
    pub version: u32,
    /// The gpuzzle that last wrote the file (to name it when a newer one's file is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
    /// Progress by puzzle slug.
    #[serde(default)]
    pub puzzles: BTreeMap<String, Progress>,
    /// Set when the file on disk comes from a newer gpuzzle: shown, never overwritten.
    #[serde(skip)]
    pub from_newer: bool,
}

/// What `State::update` did: the closure's value, a warning to show (damaged or newer file),
/// and whether the result was saved.
pub struct Updated<R> {
    pub value: R,
    pub warning: Option<String>,
    pub saved: Result<(), PuzzleError>,
}

impl<R> Updated<R> {
    /// Why the result was not saved, unless `warning` already said it (a file from a newer
    /// gpuzzle is left alone on purpose).
    pub fn unsaved_because(&self) -> Option<&PuzzleError> {
        self.saved
            .as_ref()
            .err()
            .filter(|e| !matches!(e, PuzzleError::NewerState { .. }))
    }
}

fn format_version() -> u32 {
    FORMAT_VERSION
}

impl Default for State {
    fn default() -> Self {
        State {
            version: FORMAT_VERSION,
            written_by: None,
            puzzles: BTreeMap::new(),
            from_newer: false,
        }
    }
}

impl State {
    /// `<root>/.gpuzzle/state.toml`.
    pub fn path(ws: &Workspace) -> PathBuf {
        ws.state_dir().join(STATE_FILE)
    }

    /// The saved progress; empty if none. A file that cannot be read or parsed gives empty
    /// progress and a warning to show; a damaged one (bad TOML, not UTF-8) is kept as
    /// `state.toml.corrupt`. A file from a newer gpuzzle is read as far as it can be and
    /// marked so that it is never overwritten.
    pub fn load(ws: &Workspace) -> (State, Option<String>) {
        let path = State::path(ws);
        let bytes = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (State::default(), None),
            Err(e) => {
                return (
                    State::default(),
                    Some(format!(
                        "could not read your progress in {} ({}); starting with empty progress",
                        path.display(),
                        super::error::os_reason(&e)
                    )),
                )
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let line = super::error::line_of(&String::from_utf8_lossy(&e.as_bytes()[..at]), at);
                return (
                    State::default(),
                    Some(set_aside(
                        &path,
                        &format!(" at line {line}"),
                        "it is not UTF-8 text",
                    )),
                );
            }
        };
        if let Some(newer) = newer_version(&text) {
            let mut s = toml::from_str::<State>(&text).unwrap_or_default();
            s.from_newer = true;
            let who = toml::from_str::<toml::Table>(&text)
                .ok()
                .and_then(|t| {
                    t.get("written_by")
                        .and_then(|v| v.as_str())
                        .map(str::to_string)
                })
                .map(|w| format!("gpuzzle {w}"))
                .unwrap_or_else(|| "a newer gpuzzle".into());
            return (
                s,
                Some(format!(
                    "your progress file {} was written by {who} (format version {newer}); this gpuzzle {} reads version {FORMAT_VERSION}, so it leaves the file as it is and does not record progress: update gpuzzle",
                    path.display(),
                    env!("CARGO_PKG_VERSION"),
                )),
            );
        }
        match toml::from_str::<State>(&text) {
            Ok(s) => (s, None),
            Err(e) => {
                let line = e
                    .span()
                    .map(|s| format!(" at line {}", super::error::line_of(&text, s.start)))
                    .unwrap_or_default();
                (
                    State::default(),
                    Some(set_aside(&path, &line, e.message().trim())),
                )
            }
        }
    }

    /// Load, apply `f`, save, all under the state lock: what other gpuzzle processes saved in
    /// the meantime is kept. Without a lock (a read-only workspace) it still loads and applies.
    pub fn update<R>(ws: &Workspace, f: impl FnOnce(&mut State) -> R) -> Updated<R> {
        let _lock = lock(ws);
        let (mut state, warning) = State::load(ws);
        let before = state.clone();
        let value = f(&mut state);
        // Nothing changed (a puzzle failing or passing again): the file already says it, and a
        // rewrite costs every run a write and a rename (a flush on ext4).
        // A newer gpuzzle's file is still refused, so that the learner hears it is not saved.
        let unchanged =
            state == before && warning.is_none() && !state.from_newer && State::path(ws).is_file();
        let saved = if unchanged { Ok(()) } else { state.save(ws) };
        Updated {
            value,
            warning,
            saved,
        }
    }

    /// Write atomically: a temporary file in `.gpuzzle/`, then a rename over `state.toml`.
    pub fn save(&self, ws: &Workspace) -> Result<(), PuzzleError> {
        if self.from_newer {
            return Err(PuzzleError::NewerState {
                path: State::path(ws),
            });
        }
        let dir = ws.state_dir();
        std::fs::create_dir_all(&dir).map_err(|e| PuzzleError::io("create directory", &dir, e))?;
        let path = State::path(ws);
        // Per-process temporary name: two gpuzzle processes (say `watch` and `run`) saving at
        // once each rename a complete file; the last one wins, neither is torn.
        let tmp = dir.join(format!("{STATE_FILE}.{}.tmp", std::process::id()));
        let stamped = State {
            written_by: Some(env!("CARGO_PKG_VERSION").to_string()),
            ..self.clone()
        };
        let text = toml::to_string(&stamped).map_err(|e| {
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
        self.puzzles.get(slug).cloned().unwrap_or_default()
    }

    pub fn status(&self, slug: &str) -> Status {
        self.progress(slug).status
    }

    pub fn hints_shown(&self, slug: &str) -> usize {
        self.progress(slug).hints_shown
    }

    /// Record the result of a run.
    pub fn record(&mut self, slug: &str, passed: bool) {
        let p = self.puzzles.entry(slug.to_string()).or_default();
        p.status = if passed {
            Status::Passed
        } else {
            Status::Failed
        };
        p.solved |= passed;
        if passed {
            p.mistakes.clear();
        }
    }

    /// Remember the mistake hints a failed run matched (after `record`). A hint that the last
    /// run matched too and that was shown stays shown: the same failure again does not bring
    /// the same hint back; a failure that goes away and comes back does.
    pub fn set_mistakes(&mut self, slug: &str, matched: Vec<MistakeSeen>) {
        let p = self.puzzles.entry(slug.to_string()).or_default();
        let before = std::mem::take(&mut p.mistakes);
        p.mistakes = matched
            .into_iter()
            .map(|mut m| {
                m.shown = before
                    .iter()
                    .any(|b| b.index == m.index && b.kind == m.kind && b.shown);
                m
            })
            .collect();
    }

    /// The mistake hints of the last failed run of `slug` (empty after a pass).
    pub fn mistakes(&self, slug: &str) -> &[MistakeSeen] {
        self.puzzles
            .get(slug)
            .map(|p| p.mistakes.as_slice())
            .unwrap_or_default()
    }

    /// The same, to mark them shown.
    pub fn mistakes_mut(&mut self, slug: &str) -> &mut [MistakeSeen] {
        match self.puzzles.get_mut(slug) {
            Some(p) => p.mistakes.as_mut_slice(),
            None => &mut [],
        }
    }

    /// Whether the learner's kernel passed since the puzzle was last reset (the reference
    /// solution is theirs to read then).
    pub fn solved(&self, slug: &str) -> bool {
        let p = self.progress(slug);
        // A pass recorded before `solved` existed counts too.
        p.solved || p.status == Status::Passed
    }

    /// Forget the results (after `reset`, the puzzle is to be done again, so its pass and the
    /// solution it unlocked go); hints already shown stay shown.
    pub fn clear_status(&mut self, slug: &str) {
        if let Some(p) = self.puzzles.get_mut(slug) {
            p.status = Status::NotTried;
            p.solved = false;
            p.mistakes.clear();
        }
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

/// The `version` of a state file when it is newer than this gpuzzle's format.
fn newer_version(text: &str) -> Option<i64> {
    let table = toml::from_str::<toml::Table>(text).ok()?;
    let v = table.get("version")?.as_integer()?;
    (v > FORMAT_VERSION as i64).then_some(v)
}

/// Move a damaged state file aside as `state.toml.corrupt` and say so.
fn set_aside(path: &std::path::Path, line: &str, why: &str) -> String {
    let aside = path.with_file_name(format!("{STATE_FILE}.corrupt"));
    let kept = match std::fs::rename(path, &aside) {
        Ok(()) => format!("it was kept as {}", aside.display()),
        Err(re) => format!(
            "it could not be moved aside ({})",
            super::error::os_reason(&re)
        ),
    };
    format!(
        "your progress file {} is damaged{line} ({why}); {kept} and progress starts afresh",
        path.display()
    )
}

/// Take the state lock: an exclusive OS lock on `.gpuzzle/state.lock`, released when the
/// returned file is dropped (or the process ends, even killed). `None` when the lock file
/// cannot be made (a read-only workspace): progress then cannot be saved anyway.
fn lock(ws: &Workspace) -> Option<std::fs::File> {
    let dir = ws.state_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))
        .ok()?;
    file.lock().ok()?;
    Some(file)
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
        assert_eq!(back.puzzles, s.puzzles);
        assert_eq!(back.written_by.as_deref(), Some(env!("CARGO_PKG_VERSION")));
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
                hints_shown: 1,
                solved: true,
                mistakes: Vec::new(),
            }
        );
    }

    #[test]
    fn solved_outlives_a_later_failure_but_not_a_reset() {
        let mut s = State::default();
        s.record("p", false);
        assert!(!s.solved("p"));
        s.record("p", true);
        s.record("p", false);
        assert!(s.solved("p"), "passing once is enough");
        assert_eq!(s.status("p"), Status::Failed);
        s.clear_status("p");
        assert!(!s.solved("p") && s.status("p") == Status::NotTried);
        // A pass in a file written before the field existed counts.
        let old: State = toml::from_str("[puzzles.map]\nstatus = \"passed\"\n").unwrap();
        assert!(old.solved("map"));
    }

    #[test]
    fn mistakes_round_trip_and_files_without_them_still_load() {
        let (_t, ws) = ws();
        let mut s = State::default();
        s.record("pooling", false);
        let seen = MistakeSeen {
            index: 1,
            kind: "shared-race".into(),
            line: Some(12),
            shown: false,
        };
        s.set_mistakes("pooling", vec![seen.clone()]);
        s.mistakes_mut("pooling")[0].shown = true;
        s.save(&ws).unwrap();
        let (back, w) = State::load(&ws);
        assert!(w.is_none());
        assert_eq!(back.version, 1, "the format version is unchanged");
        let shown = MistakeSeen {
            shown: true,
            ..seen.clone()
        };
        assert_eq!(back.mistakes("pooling"), std::slice::from_ref(&shown));
        // The same failure keeps it shown; another failure's hint starts unshown.
        let mut again = back.clone();
        again.set_mistakes("pooling", vec![seen.clone()]);
        assert!(again.mistakes("pooling")[0].shown);
        let other = MistakeSeen {
            index: 0,
            kind: "out-of-bounds".into(),
            ..seen
        };
        again.set_mistakes("pooling", vec![other]);
        assert!(!again.mistakes("pooling")[0].shown);
        // A pass and a reset forget them.
        again.record("pooling", true);
        assert!(again.mistakes("pooling").is_empty());
        // A file written before the field existed loads as before.
        let old: State = toml::from_str(
            "version = 1\n[puzzles.pooling]\nstatus = \"failed\"\nhints_shown = 2\n",
        )
        .unwrap();
        assert!(old.mistakes("pooling").is_empty());
        assert_eq!(old.hints_shown("pooling"), 2);
        assert!(old.mistakes("zip").is_empty());
    }

    #[test]
    fn a_file_that_is_not_utf8_is_kept_aside_too() {
        let (_t, ws) = ws();
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        std::fs::write(State::path(&ws), b"version = 1\n# caf\xe9\n").unwrap();
        let (s, w) = State::load(&ws);
        assert_eq!(s, State::default());
        let w = w.expect("a warning");
        assert!(w.contains("not UTF-8") && w.contains("line 2"), "{w}");
        assert_eq!(
            std::fs::read(ws.state_dir().join("state.toml.corrupt")).unwrap(),
            b"version = 1\n# caf\xe9\n"
        );
    }

    #[test]
    fn a_file_from_a_newer_gpuzzle_is_read_but_never_overwritten() {
        let (_t, ws) = ws();
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        let text = "version = 7\nwritten_by = \"3.1.0\"\n[puzzles.map]\nstatus = \"passed\"\n";
        std::fs::write(State::path(&ws), text).unwrap();
        let updated = State::update(&ws, |s| s.record("zip", true));
        let w = updated.warning.expect("a warning");
        assert!(
            w.contains("gpuzzle 3.1.0") && w.contains("format version 7"),
            "{w}"
        );
        assert!(matches!(updated.saved, Err(PuzzleError::NewerState { .. })));
        assert_eq!(std::fs::read_to_string(State::path(&ws)).unwrap(), text);
        assert_eq!(State::load(&ws).0.status("map"), Status::Passed);
    }

    #[test]
    fn parallel_updates_keep_every_result() {
        let (_t, ws) = ws();
        std::thread::scope(|s| {
            for i in 0..12 {
                let ws = &ws;
                s.spawn(move || {
                    let u = State::update(ws, |st| st.record(&format!("p{i}"), true));
                    u.saved.unwrap();
                });
            }
        });
        let (s, _) = State::load(&ws);
        assert_eq!(s.puzzles.len(), 12);
        assert_eq!(s.written_by.as_deref(), Some(env!("CARGO_PKG_VERSION")));
    }
}
