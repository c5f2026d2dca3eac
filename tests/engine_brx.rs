//! The indirect branch through a jump table (`brx.idx` with a `.branchtargets` list) runs on
//! the emulator, in lockstep as one thread at a time, and an index past the table is an error
//! at the learner's line. NVRTC turned every `switch` we tried into compares and selects, so
//! the kernel writes the branch as inline assembly (hand-written PTX: `tests/ptx/instrument`).

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const FILE: &str = "tests/kernels/brx/brx.cu";

fn exec_once(kernel: &str, lockstep: &str, format: &str) -> (i32, String) {
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-brx-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_LOCKSTEP", lockstep)
        .args(["exec", FILE, "--kernel", kernel, "--format", format])
        .args(["--grid", "1", "--block", "8"])
        .args(["--arg", "out=i32[8]:zeros", "--arg", "a=i32[8]:arange"])
        .args(["--arg", "size=i32:8"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), stdout)
}

/// Both schedules, which must agree: exit code and JSON.
fn exec(kernel: &str) -> (i32, Value) {
    let json = |(code, out): (i32, String)| {
        let v: Value =
            serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
        (code, v)
    };
    let a = json(exec_once(kernel, "on", "json"));
    let b = json(exec_once(kernel, "off", "json"));
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

#[test]
fn a_jump_table_picks_each_lanes_target() {
    let (code, v) = exec("brx_pick");
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v}");
    // a[i] % 3 picks 10, 20 or 30: the lanes of one warp go three ways.
    assert_eq!(
        v["buffers"]["out"],
        serde_json::json!([10, 20, 30, 10, 20, 30, 10, 20]),
        "{v}"
    );
}

#[test]
fn an_index_past_the_table_is_an_error_at_the_learners_line() {
    let (code, v) = exec("brx_past");
    assert_eq!(code, 1, "{v}");
    let ds = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(ds.len(), 1, "{v}");
    let d = &ds[0];
    assert_eq!(d["kind"], "out-of-bounds", "{d}");
    assert_eq!(d["line"], marked("asm"), "{d}");
    let m = d["message"].as_str().unwrap_or_default();
    assert!(
        m.starts_with("thread 3 of block 0 took an indirect branch (brx.idx)")
            && m.contains("with index 3, but its jump table has 3 entries (0 to 2)"),
        "{m}"
    );
    assert!(!m.contains("please report"), "{m}");
    // The threads with an index in the table got their value; those past it stopped.
    assert_eq!(
        v["buffers"]["out"],
        serde_json::json!([10, 20, 30, 0, 0, 0, 0, 0]),
        "{v}"
    );
    let (_, text) = exec_once("brx_past", "on", "text");
    assert!(
        text.contains("check the index against the list's length before the branch"),
        "{text}"
    );
}
