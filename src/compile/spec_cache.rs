//! The spec-result cache: a puzzle's reference spec, run once on the emulator as one thread,
//! is not run again for the same launch.
//!
//! A spec's outputs are a pure function of its PTX and its launch, so the judge (which knows
//! the launch) feeds every field that decides them to a [`SpecKeyBuilder`]; this module only
//! hashes fields and keeps blobs, one file per key in `<PTX cache>/spec/`. The key also holds
//! this format, gpuzzle's version and the running executable's size and modification time
//! (an emulator rebuilt with a fix never serves the old build's results). A file is its key,
//! the named output buffers' bytes and a SHA-256 of all that: a corrupt, truncated or foreign
//! file is a miss (recomputed and overwritten), never an error. Writes go to a temporary file
//! renamed into place; a folder that cannot be read or written disables the cache.
//! `GPUZZLE_NO_SPEC_CACHE=1` turns it off (tests compare both paths).

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Set (to anything but empty or `0`) to run every spec.
pub const NO_SPEC_CACHE_ENV: &str = "GPUZZLE_NO_SPEC_CACHE";

/// Bump when the file format or the meaning of a key changes.
const FORMAT: &str = "gpuzzle-spec-cache-v1";
const MAGIC: &[u8; 8] = b"GPZSPEC1";

/// Outputs larger than this together are not stored: reading them back would hold them twice
/// (a puzzle test's peak memory), and such a spec's run is rare.
pub const MAX_STORED_BYTES: usize = 64 << 20;

/// Hits in this process (tests check that a second run reads the cache).
static HITS: AtomicU64 = AtomicU64::new(0);

/// Spec results read from the cache in this process.
pub fn spec_cache_hits() -> u64 {
    HITS.load(Ordering::Relaxed)
}

/// Whether `GPUZZLE_NO_SPEC_CACHE` asks for every spec to run.
pub fn spec_cache_disabled() -> bool {
    std::env::var_os(NO_SPEC_CACHE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// `<PTX cache>/spec`.
pub fn spec_cache_dir() -> PathBuf {
    super::cache_dir().join("spec")
}

/// Hashes the fields of one spec run, each length-prefixed so that no two run together.
pub struct SpecKeyBuilder {
    hasher: Sha256,
}

impl Default for SpecKeyBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl SpecKeyBuilder {
    pub fn new() -> Self {
        let mut b = SpecKeyBuilder {
            hasher: Sha256::new(),
        };
        b.field(FORMAT.as_bytes());
        b.field(env!("CARGO_PKG_VERSION").as_bytes());
        b.field(executable_identity().as_bytes());
        b
    }

    pub fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.hasher.update((bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
        self
    }

    pub fn finish(self) -> SpecKey {
        SpecKey(hex(&self.hasher.finalize()))
    }
}

/// The running executable's size and modification time: a rebuilt emulator is a new key.
fn executable_identity() -> String {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    match meta {
        Ok(m) => {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{} {mtime}", m.len())
        }
        // Unknown: a key no other process shares (no reuse, still correct).
        Err(_) => format!("unknown {}", std::process::id()),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A hex SHA-256, the name of an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecKey(String);

impl SpecKey {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The spec cache in one folder (normally [`spec_cache_dir`]).
#[derive(Debug, Clone)]
pub struct SpecCache {
    dir: PathBuf,
}

impl SpecCache {
    pub fn new(dir: PathBuf) -> SpecCache {
        SpecCache { dir }
    }

    /// The process's cache, or `None` where `GPUZZLE_NO_SPEC_CACHE` turns it off.
    pub fn default_place() -> Option<SpecCache> {
        (!spec_cache_disabled()).then(|| SpecCache::new(spec_cache_dir()))
    }

    pub fn path(&self, key: &SpecKey) -> PathBuf {
        self.dir.join(format!("{}.bin", key.as_str()))
    }

    /// The outputs stored under `key`, by name, or `None` for a miss or any damaged file.
    pub fn load(&self, key: &SpecKey) -> Option<Vec<(String, Vec<u8>)>> {
        let path = self.path(key);
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > (MAX_STORED_BYTES as u64) << 1 {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        let found = decode(&bytes, key);
        if found.is_some() {
            HITS.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Stores the outputs of a spec run that completed cleanly; failures are ignored (the
    /// next run runs the spec again).
    pub fn store(&self, key: &SpecKey, outputs: &[(&str, &[u8])]) {
        let total: usize = outputs.iter().map(|(n, d)| n.len() + d.len()).sum();
        if total > MAX_STORED_BYTES {
            return;
        }
        let _ = self.try_store(key, &encode(key, outputs));
    }

    fn try_store(&self, key: &SpecKey, bytes: &[u8]) -> std::io::Result<()> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir)?;
        // Unique per process and call: concurrent writers never share a temporary file, and
        // the rename makes the entry appear whole.
        let temp = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            key.as_str(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let written =
            std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, self.path(key)));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// `MAGIC`, the key, the count, each output's name and bytes (length-prefixed), then the
/// SHA-256 of all before it.
fn encode(key: &SpecKey, outputs: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(key.as_str().as_bytes());
    out.extend_from_slice(&(outputs.len() as u64).to_le_bytes());
    for (name, data) in outputs {
        for part in [name.as_bytes(), data] {
            out.extend_from_slice(&(part.len() as u64).to_le_bytes());
            out.extend_from_slice(part);
        }
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

fn decode(bytes: &[u8], key: &SpecKey) -> Option<Vec<(String, Vec<u8>)>> {
    let body_len = bytes.len().checked_sub(32)?;
    let (body, sum) = bytes.split_at(body_len);
    if Sha256::digest(body).as_slice() != sum {
        return None;
    }
    let mut r = Reader(body);
    if r.take(MAGIC.len())? != MAGIC || r.take(key.as_str().len())? != key.as_str().as_bytes() {
        return None;
    }
    let count = r.u64()?;
    let mut outputs = Vec::new();
    for _ in 0..count {
        let name_len = usize::try_from(r.u64()?).ok()?;
        let name = String::from_utf8(r.take(name_len)?.to_vec()).ok()?;
        let data_len = usize::try_from(r.u64()?).ok()?;
        outputs.push((name, r.take(data_len)?.to_vec()));
    }
    r.0.is_empty().then_some(outputs)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        let b: [u8; 8] = self.take(8)?.try_into().ok()?;
        Some(u64::from_le_bytes(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(fields: &[&[u8]]) -> SpecKey {
        let mut b = SpecKeyBuilder::new();
        for f in fields {
            b.field(f);
        }
        b.finish()
    }

    #[test]
    fn every_field_changes_the_key_and_fields_do_not_run_together() {
        let base = key(&[b"ptx", b"in"]);
        assert_eq!(base, key(&[b"ptx", b"in"]));
        assert_eq!(base.as_str().len(), 64);
        assert_ne!(base, key(&[b"ptx", b"in2"]));
        assert_ne!(base, key(&[b"ptxin"]));
        assert_ne!(base, key(&[b"ptx", b"i", b"n"]));
    }

    #[test]
    fn round_trip_then_corrupt_or_truncated_or_foreign_files_miss() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = SpecCache::new(dir.path().join("nested/spec"));
        let k = key(&[b"a"]);
        assert_eq!(cache.load(&k), None);
        let outs: [(&str, &[u8]); 2] = [("out", &[1, 2, 3, 4]), ("o2", &[])];
        cache.store(&k, &outs);
        let before = spec_cache_hits();
        let got = cache
            .load(&k)
            .unwrap_or_else(|| panic!("stored entry is a miss"));
        assert!(spec_cache_hits() > before);
        assert_eq!(
            got,
            vec![("out".to_string(), vec![1, 2, 3, 4]), ("o2".into(), vec![])]
        );
        // No temporary file stays.
        let names: Vec<_> = std::fs::read_dir(cache.dir())
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![format!("{}.bin", k.as_str())]);

        let good = std::fs::read(cache.path(&k)).unwrap_or_else(|e| panic!("{e}"));
        // Truncated anywhere, one byte flipped, or empty: a miss.
        for cut in [0, 5, good.len() / 2, good.len() - 1] {
            std::fs::write(cache.path(&k), &good[..cut]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(cache.load(&k), None, "cut at {cut}");
        }
        let mut flipped = good.clone();
        flipped[good.len() - 40] ^= 1;
        std::fs::write(cache.path(&k), &flipped).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.load(&k), None);
        // Another key's intact file under this key's name: a miss.
        let other = key(&[b"b"]);
        std::fs::write(cache.path(&other), &good).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cache.load(&other), None);
        // Overwritten by a fresh store.
        cache.store(&k, &outs);
        assert!(cache.load(&k).is_some());
    }

    #[test]
    fn an_unwritable_folder_only_disables_the_cache() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").unwrap_or_else(|e| panic!("{e}"));
        let cache = SpecCache::new(blocker.join("spec"));
        let k = key(&[b"a"]);
        cache.store(&k, &[("out", &[1])]);
        assert_eq!(cache.load(&k), None);
    }

    #[test]
    fn too_large_outputs_are_not_stored() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = SpecCache::new(dir.path().to_path_buf());
        let k = key(&[b"big"]);
        let big = vec![0u8; MAX_STORED_BYTES + 1];
        cache.store(&k, &[("out", &big)]);
        assert_eq!(cache.load(&k), None);
    }
}
