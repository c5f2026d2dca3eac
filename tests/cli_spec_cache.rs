//! The spec-result cache through the real binary: a second `check --solutions` reads every
//! spec's outputs from `<cache>/spec/` (its files untouched) and says exactly what the first
//! said; damaged files are recomputed and rewritten; `GPUZZLE_NO_SPEC_CACHE=1` runs every spec
//! and gives the same JSON. Needs NVRTC (`pip install nvidia-cuda-nvrtc-cu12`).

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn check(cache: &Path, no_spec_cache: bool) -> String {
    let mut c = Command::cargo_bin("gpuzzle").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_CACHE_DIR", cache)
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GPUZZLE_NO_SPEC_CACHE")
        .args(["check", "3", "--solutions", "--format", "json"]);
    if no_spec_cache {
        c.env("GPUZZLE_NO_SPEC_CACHE", "1");
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Each spec file's length and modification time.
fn spec_files(cache: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let Ok(dir) = std::fs::read_dir(cache.join("spec")) else {
        return BTreeMap::new();
    };
    dir.flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            (e.path(), (m.len(), m.modified().unwrap()))
        })
        .collect()
}

#[test]
fn a_second_check_reads_the_spec_cache_and_says_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cold = check(&cache, false);
    assert!(cold.contains("\"passed\":true"), "{cold}");
    let stored = spec_files(&cache);
    // One entry per test (fixed inputs and the random variant), none temporary.
    assert!(stored.len() >= 2, "{stored:?}");
    assert!(stored
        .keys()
        .all(|p| p.extension().is_some_and(|e| e == "bin")));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let warm = check(&cache, false);
    assert_eq!(cold, warm);
    // Read, not rewritten: a miss would have stored each entry again.
    assert_eq!(spec_files(&cache), stored);

    // With the cache off: the same JSON, and no spec folder where there was none.
    let off = dir.path().join("off");
    assert_eq!(check(&off, true), cold);
    assert!(spec_files(&off).is_empty());
}

#[test]
fn damaged_entries_are_recomputed_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cold = check(&cache, false);
    let stored = spec_files(&cache);
    assert!(!stored.is_empty());
    let intact: Vec<Vec<u8>> = stored.keys().map(|p| std::fs::read(p).unwrap()).collect();
    // Truncate one, fill another with garbage, empty the rest.
    for (k, path) in stored.keys().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let damaged: Vec<u8> = match k {
            0 => bytes[..bytes.len() / 2].to_vec(),
            1 => vec![0xAB; bytes.len()],
            _ => Vec::new(),
        };
        std::fs::write(path, damaged).unwrap();
    }
    assert_eq!(check(&cache, false), cold);
    let rewritten = spec_files(&cache);
    assert_eq!(
        rewritten.keys().collect::<Vec<_>>(),
        stored.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in stored.keys().zip(&intact) {
        assert_eq!(
            &std::fs::read(path).unwrap(),
            bytes,
            "{path:?} rewritten whole"
        );
    }
}
