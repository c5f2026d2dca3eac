//! A write after several threads read a word in one barrier interval (issue 25): the race
//! checkers look past the first reader, which may be the writer itself or ordered before it by
//! a `__syncwarp`, so the race with the second reader is reported in lockstep as one thread at
//! a time; where every read is ordered before the write, nothing is reported (the global
//! checker used to report "another thread" there).

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const FILE: &str = "tests/kernels/race_readers.cu";

fn exec_once(kernel: &str, lockstep: &str) -> (i32, Value) {
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-race-readers-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_LOCKSTEP", lockstep)
        .args(["exec", FILE, "--kernel", kernel, "--format", "json"])
        .args(["--grid", "1", "--block", "2"])
        .args(["--arg", "out=f32[5]:zeros", "--arg", "a=f32[2]:arange"])
        .args(["--arg", "size=i32:2"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    (out.status.code().unwrap_or(-1), v)
}

/// Both schedules, which must give the same answer.
fn exec(kernel: &str) -> (i32, Value) {
    let (a, b) = (exec_once(kernel, "on"), exec_once(kernel, "off"));
    assert_eq!(a, b, "{kernel}: lockstep and one thread at a time differ");
    a
}

/// The line of FILE marked `// @name`.
fn marked(name: &str) -> u64 {
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(FILE))
        .expect("the kernel file");
    let tag = format!("// @{name}");
    text.lines()
        .position(|l| l.trim_end().ends_with(&tag))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("no line marked {tag}"))
}

/// A race between thread 1's read (reported at its line, where the fix goes) and thread 0's
/// later write.
fn second_reader_races(kernel: &str, kind: &str, read: &str, write: &str) {
    let (code, v) = exec(kernel);
    assert_eq!(code, 1, "{v}");
    let d = &v["diagnostics"][0];
    assert_eq!(d["kind"], kind, "{d}");
    assert_eq!(d["line"], marked(read), "{d}");
    let m = d["message"].as_str().unwrap_or_default();
    assert!(m.starts_with("thread 1 of block 0 read"), "{m}");
    assert!(
        m.contains(&format!("thread 0 wrote it (line {})", marked(write))),
        "{m}"
    );
}

#[test]
fn a_write_after_a_second_readers_unordered_read_is_a_shared_race() {
    second_reader_races(
        "shared_reader_after_syncwarp",
        "shared-race",
        "read",
        "write",
    );
}

#[test]
fn a_write_after_a_second_readers_unordered_read_is_a_global_race() {
    second_reader_races(
        "global_reader_after_syncwarp",
        "global-race",
        "gread",
        "gwrite",
    );
}

#[test]
fn reads_ordered_before_the_write_by_a_syncwarp_are_no_race() {
    for kernel in [
        "readers_then_syncwarp_then_write",
        "global_readers_then_syncwarp_then_write",
    ] {
        let (code, v) = exec(kernel);
        assert_eq!(code, 0, "{kernel}: {v}");
        assert_eq!(v["diagnostics"], serde_json::json!([]), "{kernel}: {v}");
    }
}
