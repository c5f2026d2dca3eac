//! The PTX cache: an unchanged kernel is never compiled twice.
//!
//! The key is a SHA-256 of everything that decides NVRTC's output: source,
//! program name (it appears in `.file` and in messages), every option and
//! the NVRTC library file (path, size, modification time: known without
//! loading it, so a cached kernel never loads NVRTC). Entries live in memory for the process and on disk, one
//! JSON file per key, written to a temporary file and renamed into place so
//! that a reader never sees half an entry. A cache that cannot be read or
//! written is only a miss: compiling again is always correct.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bump when the entry format or the meaning of a key changes.
const FORMAT: &str = "gpuzzle-ptx-cache-v2";

/// A hex SHA-256, the name of an entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey(String);

impl CacheKey {
    pub(crate) fn new(
        file_name: &str,
        source: &str,
        options: &[String],
        nvrtc_identity: &str,
    ) -> Self {
        let mut hasher = Sha256::new();
        // Length-prefix every field so no two inputs can run together.
        let mut field = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(FORMAT.as_bytes());
        field(nvrtc_identity.as_bytes());
        field(file_name.as_bytes());
        field(source.as_bytes());
        field(&(options.len() as u64).to_le_bytes());
        for option in options {
            field(option.as_bytes());
        }
        let digest = hasher.finalize();
        CacheKey(digest.iter().map(|byte| format!("{byte:02x}")).collect())
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a successful compile leaves behind. The log is kept so that a cached
/// compile reports the same warnings as the first one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CacheEntry {
    pub key: String,
    pub ptx: String,
    pub log: String,
    /// Hex SHA-256 of `ptx`: an entry whose PTX was truncated or altered on disk is a miss
    /// (recompiled and rewritten), never PTX that fails to parse on every run.
    #[serde(default)]
    pub ptx_sha256: String,
}

impl CacheEntry {
    pub(crate) fn new(key: String, ptx: String, log: String) -> CacheEntry {
        let ptx_sha256 = sha256_hex(ptx.as_bytes());
        CacheEntry {
            key,
            ptx,
            log,
            ptx_sha256,
        }
    }

    /// The PTX is what was stored.
    fn is_intact(&self) -> bool {
        !self.ptx.is_empty() && self.ptx_sha256 == sha256_hex(self.ptx.as_bytes())
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Larger entry files are not read (no kernel's PTX comes near it).
const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// The on-disk half of the cache.
#[derive(Debug, Clone)]
pub(crate) struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    pub(crate) fn new(dir: PathBuf) -> Self {
        DiskCache { dir }
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}.json", key.as_str()))
    }

    /// The entry for `key`, or `None` for a miss, an unreadable file, a file
    /// that is not an entry for this key, or one whose PTX fails its checksum.
    pub(crate) fn load(&self, key: &CacheKey) -> Option<CacheEntry> {
        let path = self.path(key);
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let entry: CacheEntry = serde_json::from_str(&text).ok()?;
        (entry.key == key.as_str() && entry.is_intact()).then_some(entry)
    }

    /// Stores an entry; failures are ignored (the next run compiles again).
    pub(crate) fn store(&self, entry: &CacheEntry) {
        let _ = self.try_store(entry);
    }

    fn try_store(&self, entry: &CacheEntry) -> std::io::Result<()> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir)?;
        let text = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        // Unique per process and per call, so concurrent writers never share
        // a temporary file; the rename makes the entry appear whole.
        let temp = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            entry.key,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let written = std::fs::write(&temp, text)
            .and_then(|()| std::fs::rename(&temp, self.dir.join(format!("{}.json", entry.key))));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written
    }
}

/// `$GPUZZLE_CACHE_DIR`, else `$XDG_CACHE_HOME/gpuzzle/ptx`, else
/// `~/.cache/gpuzzle/ptx` (empty or relative XDG values are ignored, as the
/// XDG spec asks), else a directory under the system's temporary directory.
pub(crate) fn cache_dir_from(
    gpuzzle_cache_dir: Option<&Path>,
    xdg_cache_home: Option<&Path>,
    home: Option<&Path>,
) -> PathBuf {
    if let Some(dir) = usable(gpuzzle_cache_dir) {
        return dir.to_path_buf();
    }
    if let Some(xdg) = usable(xdg_cache_home).filter(|p| p.is_absolute()) {
        return xdg.join("gpuzzle/ptx");
    }
    if let Some(home) = usable(home) {
        return home.join(".cache/gpuzzle/ptx");
    }
    std::env::temp_dir().join("gpuzzle/ptx")
}

fn usable(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| !p.as_os_str().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(file: &str, source: &str, options: &[&str], version: (i32, i32)) -> CacheKey {
        let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
        let library = format!("/lib/libnvrtc.so.12\nNVRTC {}.{}", version.0, version.1);
        CacheKey::new(file, source, &options, &library)
    }

    #[test]
    fn every_input_changes_the_key() {
        let base = key("a.cu", "src", &["-lineinfo", "-DX"], (12, 9));
        assert_eq!(base, key("a.cu", "src", &["-lineinfo", "-DX"], (12, 9)));
        assert_eq!(base.as_str().len(), 64);
        for other in [
            key("b.cu", "src", &["-lineinfo", "-DX"], (12, 9)),
            key("a.cu", "src ", &["-lineinfo", "-DX"], (12, 9)),
            key("a.cu", "src", &["-lineinfo", "-DY"], (12, 9)),
            key("a.cu", "src", &["-DX", "-lineinfo"], (12, 9)),
            key("a.cu", "src", &["-lineinfo"], (12, 9)),
            key("a.cu", "src", &["-lineinfo", "-DX"], (12, 8)),
            // Fields cannot run together.
            key("a.cusrc", "", &["-lineinfo", "-DX"], (12, 9)),
            key("a.cu", "src", &["-lineinfo-DX"], (12, 9)),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn disk_round_trip_and_misses() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = DiskCache::new(dir.path().join("nested/ptx"));
        let k = key("a.cu", "src", &[], (12, 9));
        assert_eq!(cache.load(&k), None);
        let entry = CacheEntry::new(
            k.as_str().to_string(),
            ".version 8.8\n".to_string(),
            "a.cu(1): warning #177-D: x\n".to_string(),
        );
        cache.store(&entry);
        assert_eq!(cache.load(&k), Some(entry.clone()));
        // No temporary files are left behind.
        let names: Vec<String> = std::fs::read_dir(dir.path().join("nested/ptx"))
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![format!("{}.json", k.as_str())]);

        // A corrupt file or an entry stored under the wrong name is a miss.
        std::fs::write(cache.path(&k), "{ not json").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.load(&k), None);
        let other = key("b.cu", "src", &[], (12, 9));
        std::fs::write(
            cache.path(&other),
            serde_json::to_string(&entry).unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.load(&other), None);
    }

    #[test]
    fn an_entry_with_truncated_or_altered_ptx_is_a_miss() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = DiskCache::new(dir.path().to_path_buf());
        let k = key("a.cu", "src", &[], (12, 9));
        let entry = CacheEntry::new(
            k.as_str().to_string(),
            ".version 8.8\n.target sm_52\n".to_string(),
            String::new(),
        );
        let mut truncated = entry.clone();
        truncated.ptx.truncate(10);
        std::fs::write(cache.path(&k), serde_json::to_string(&truncated).unwrap())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.load(&k), None);
        // An entry of an older gpuzzle, without a checksum, is recompiled too.
        let old =
            r#"{"key": "KEY", "ptx": ".version 8.8\n", "log": ""}"#.replace("KEY", k.as_str());
        std::fs::write(cache.path(&k), old).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.load(&k), None);
        cache.store(&entry);
        assert_eq!(cache.load(&k), Some(entry));
    }

    #[test]
    fn an_unwritable_cache_is_silently_a_miss() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").unwrap_or_else(|e| panic!("{e}"));
        // A directory cannot be created below a file.
        let cache = DiskCache::new(blocker.join("ptx"));
        let k = key("a.cu", "src", &[], (12, 9));
        cache.store(&CacheEntry::new(
            k.as_str().to_string(),
            "x".to_string(),
            String::new(),
        ));
        assert_eq!(cache.load(&k), None);
    }

    #[test]
    fn cache_dir_precedence() {
        let p = |s: &str| Some(PathBuf::from(s));
        let dir = |a: Option<PathBuf>, b: Option<PathBuf>, c: Option<PathBuf>| {
            cache_dir_from(a.as_deref(), b.as_deref(), c.as_deref())
        };
        assert_eq!(dir(p("/g"), p("/x"), p("/h")), PathBuf::from("/g"));
        assert_eq!(dir(None, p("/x"), p("/h")), PathBuf::from("/x/gpuzzle/ptx"));
        assert_eq!(
            dir(p(""), p("/x"), p("/h")),
            PathBuf::from("/x/gpuzzle/ptx")
        );
        assert_eq!(
            dir(None, p("relative"), p("/h")),
            PathBuf::from("/h/.cache/gpuzzle/ptx")
        );
        assert_eq!(
            dir(None, None, p("/h")),
            PathBuf::from("/h/.cache/gpuzzle/ptx")
        );
        assert_eq!(
            dir(None, None, None),
            std::env::temp_dir().join("gpuzzle/ptx")
        );
    }
}
