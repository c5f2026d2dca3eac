//! Remembering where libnvrtc was found, so that a warm run neither searches
//! nor loads it.
//!
//! Loading libnvrtc costs more than everything else a warm `gpuzzle run` does
//! (about 8 ms of relocations for a 100 MB library), and the search before it
//! may run Python. Neither is needed when the PTX is cached: the cache key
//! only has to change when the library does. So the first run writes down
//! what it found ([`Location`]: path, how it was found, NVRTC's version, and
//! the file's size and modification time) in `nvrtc-location.txt` beside the
//! PTX cache, and later runs take it from there after two checks that need no
//! load:
//!
//! - the file still has the size and modification time written down (a
//!   reinstall or upgrade changes them, and with them every cache key);
//! - nothing that chooses the library has changed ([`fingerprint`]: the
//!   environment variables that name one or an environment, and the modification times of
//!   `/usr/local` and `/etc/ld.so.cache`, which change when a toolkit is
//!   installed there or the loader's cache is rebuilt).
//!
//! Anything else (a missing, unreadable or stale memo) means searching again.
//! `gpuzzle doctor` always searches afresh and rewrites the memo.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The memo's file name, in the PTX cache directory (JSON inside; not named `.json`, which is
/// how PTX entries are told apart).
pub(crate) const MEMO_FILE: &str = "nvrtc-location.txt";

/// Bump when the memo's meaning changes.
const FORMAT: u32 = 1;

/// Environment variables that choose a library: explicit settings, the loader's path, an
/// activated Python environment. Not `PATH`: tools and shells prepend themselves to it all the
/// time (`perf` does), and it only decides which interpreter's site-packages are looked at first;
/// a library found through one is as good as through another, and `gpuzzle doctor` searches
/// afresh.
const SEARCH_VARIABLES: [&str; 7] = [
    "GPUZZLE_NVRTC",
    "CUDA_PATH",
    "CUDA_HOME",
    "LD_LIBRARY_PATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_ROOT",
];

/// Folders and files whose change may mean a better library to find.
const WATCHED_PATHS: [&str; 2] = ["/usr/local", "/etc/ld.so.cache"];

/// A libnvrtc on disk, known without loading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Location {
    pub path: PathBuf,
    /// How it was found (see `NvrtcInfo::found_by`).
    pub found_by: String,
    /// NVRTC's own version, asked when it was found.
    pub version: (i32, i32),
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub modified_ns: u128,
}

impl Location {
    /// The location of the library at `path` as it is on disk now; `None`
    /// when it cannot be examined (then nothing is remembered).
    pub(crate) fn of(path: &Path, found_by: &str, version: (i32, i32)) -> Option<Location> {
        let (size, modified_ns) = file_stamp(path)?;
        Some(Location {
            path: path.to_path_buf(),
            found_by: found_by.to_string(),
            version,
            size,
            modified_ns,
        })
    }

    /// What the PTX cache key knows of the library: it changes whenever the
    /// file is replaced, which is when NVRTC's output may change.
    pub(crate) fn identity(&self) -> String {
        format!(
            "{}\nNVRTC {}.{}\n{} bytes\nmodified {}",
            self.path.display(),
            self.version.0,
            self.version.1,
            self.size,
            self.modified_ns
        )
    }

    /// Still the file that was found: same size, same modification time.
    fn is_current(&self) -> bool {
        file_stamp(&self.path) == Some((self.size, self.modified_ns))
    }
}

/// (size, modification time in ns) of a regular file, following links.
fn file_stamp(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), modified.as_nanos()))
}

/// Everything the search's answer depends on besides the library itself, as
/// one string: equal strings, same answer.
pub(crate) fn fingerprint() -> String {
    let mut parts = Vec::new();
    for name in SEARCH_VARIABLES {
        let value = std::env::var_os(name).unwrap_or_default();
        parts.push(format!("{name}={}", value.to_string_lossy()));
    }
    for path in WATCHED_PATHS {
        let modified = std::fs::metadata(path)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_nanos());
        parts.push(format!("{path} modified {modified}"));
    }
    parts.join("\n")
}

/// The memo as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Memo {
    format: u32,
    fingerprint: String,
    location: Location,
}

/// The location remembered in `memo`, if it was written under the same
/// `fingerprint` and the library is still the file it was.
pub(crate) fn remembered(memo: &Path, fingerprint: &str) -> Option<Location> {
    let text = std::fs::read_to_string(memo).ok()?;
    let memo: Memo = serde_json::from_str(&text).ok()?;
    (memo.format == FORMAT && memo.fingerprint == fingerprint && memo.location.is_current())
        .then_some(memo.location)
}

/// Writes the memo; a failure only means searching again next time.
pub(crate) fn remember(memo: &Path, fingerprint: &str, location: &Location) {
    let Some(dir) = memo.parent() else { return };
    let record = Memo {
        format: FORMAT,
        fingerprint: fingerprint.to_string(),
        location: location.clone(),
    };
    let Ok(text) = serde_json::to_string_pretty(&record) else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // A temporary file renamed into place: a reader never sees half a memo.
    let tmp = dir.join(format!(".{MEMO_FILE}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, memo).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Forgets the memo (when the remembered library no longer loads).
pub(crate) fn forget(memo: &Path) {
    let _ = std::fs::remove_file(memo);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(dir: &Path) -> PathBuf {
        let path = dir.join("libnvrtc.so.12");
        std::fs::write(&path, b"not really a library").unwrap_or_else(|e| panic!("{e}"));
        path
    }

    #[test]
    fn a_remembered_location_comes_back_while_nothing_changed() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let lib = library(dir.path());
        let memo = dir.path().join("cache").join(MEMO_FILE);
        let found = Location::of(&lib, "python site-packages (/site)", (12, 9))
            .unwrap_or_else(|| panic!("stat failed"));
        assert_eq!(remembered(&memo, "fp"), None);
        remember(&memo, "fp", &found);
        assert_eq!(remembered(&memo, "fp"), Some(found.clone()));
        // Another environment: search again.
        assert_eq!(remembered(&memo, "other fp"), None);
        forget(&memo);
        assert_eq!(remembered(&memo, "fp"), None);
    }

    #[test]
    fn a_replaced_or_removed_library_is_not_remembered() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let lib = library(dir.path());
        let memo = dir.path().join(MEMO_FILE);
        let found = Location::of(&lib, "CUDA_PATH", (12, 9)).unwrap_or_else(|| panic!("stat"));
        remember(&memo, "fp", &found);
        // Same size, another modification time: an upgrade in place.
        let file = std::fs::File::options()
            .write(true)
            .open(&lib)
            .unwrap_or_else(|e| panic!("{e}"));
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        file.set_modified(later).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(remembered(&memo, "fp"), None);
        let found = Location::of(&lib, "CUDA_PATH", (12, 9)).unwrap_or_else(|| panic!("stat"));
        assert_ne!(found.identity(), String::new());
        remember(&memo, "fp", &found);
        assert!(remembered(&memo, "fp").is_some());
        std::fs::remove_file(&lib).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(remembered(&memo, "fp"), None);
    }

    #[test]
    fn identity_changes_with_the_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let lib = library(dir.path());
        let before = Location::of(&lib, "x", (12, 9)).unwrap_or_else(|| panic!("stat"));
        std::fs::write(&lib, b"a longer library than before").unwrap_or_else(|e| panic!("{e}"));
        let after = Location::of(&lib, "x", (12, 9)).unwrap_or_else(|| panic!("stat"));
        assert_ne!(before.identity(), after.identity());
    }

    #[test]
    fn a_corrupt_memo_is_a_miss() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let memo = dir.path().join(MEMO_FILE);
        std::fs::write(&memo, "{ not json").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(remembered(&memo, "fp"), None);
    }

    #[test]
    fn the_fingerprint_names_every_variable_the_search_reads() {
        let fp = fingerprint();
        for name in SEARCH_VARIABLES {
            assert!(fp.contains(&format!("{name}=")), "{fp}");
        }
    }
}
