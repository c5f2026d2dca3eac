//! The emulator's device heap checked block by block (issue 25): an index one past a malloc'd
//! block, a read after `free`, a second `free` and a `free` of a pointer moved into a block are
//! each reported at the learner's line, named by the block's `malloc` (and `free`) lines, with
//! help that names the fix; a correct kernel's heap use stays clean. Lockstep and one thread at
//! a time must agree.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

/// `exec` of `kernel` in `file` on 4 threads: exit code and stdout, as `format` gives it.
fn exec_as(file: &str, kernel: &str, lockstep: &str, format: &str) -> (i32, String) {
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-heap-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_LOCKSTEP", lockstep)
        .args(["exec", file, "--kernel", kernel, "--format", format])
        .args(["--grid", "1", "--block", "4"])
        .args(["--arg", "out=f32[4]:zeros", "--arg", "a=f32[4]:arange"])
        .args(["--arg", "size=i32:4"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), stdout)
}

fn exec_once(file: &str, kernel: &str, lockstep: &str) -> (i32, Value) {
    let (code, stdout) = exec_as(file, kernel, lockstep, "json");
    let v =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    (code, v)
}

/// `exec` of `kernel` in tests/kernels/instrument/`file`.cu, both schedules, which must agree.
fn exec(file: &str, kernel: &str) -> (i32, Value) {
    let path = format!("tests/kernels/instrument/{file}.cu");
    let a = exec_once(&path, kernel, "on");
    let b = exec_once(&path, kernel, "off");
    assert_eq!(a, b, "{kernel}: lockstep and one thread at a time differ");
    a
}

/// The one diagnostic of a planted heap bug: its kind, line, message, and its help as the text
/// output prints it (exec's JSON has none).
fn the_error(file: &str, kernel: &str, line: u64) -> (String, String) {
    let (code, v) = exec(file, kernel);
    assert_eq!(code, 1, "{v}");
    let ds = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(ds.len(), 1, "{v}");
    let d = &ds[0];
    assert_eq!(d["kind"], "out-of-bounds", "{d}");
    assert_eq!(d["line"], line, "{d}");
    let message = d["message"].as_str().unwrap_or_default().to_string();
    assert!(!message.contains("please report"), "{message}");
    let path = format!("tests/kernels/instrument/{file}.cu");
    let (_, text) = exec_as(&path, kernel, "on", "text");
    let help = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("= help: "))
        .unwrap_or_else(|| panic!("no help in {text}"))
        .to_string();
    (message, help)
}

#[test]
fn an_index_one_past_a_malloced_block_is_out_of_bounds() {
    let (m, help) = the_error("heap_overrun", "heap_overrun", 5);
    assert!(
        m.contains("in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran"),
        "{m}"
    );
    assert!(
        m.contains("0 bytes past the end of the malloc'd block of 16 bytes from line 4; as 4-byte elements that is element [4] of a block that holds 4 ([0] to [3])"),
        "{m}"
    );
    assert!(
        help.contains("(line 4) asked for 16 bytes (room for 4 elements of 4 bytes)"),
        "{help}"
    );
    assert!(help.contains("malloc(n * sizeof(float))"), "{help}");
}

#[test]
fn a_read_after_free_names_the_free() {
    let (m, help) = the_error("heap_after_free", "heap_after_free", 7);
    assert!(
        m.ends_with("it is byte 0 of the malloc'd block of 4 bytes from line 4, freed at line 6 (a use after free) (3 other threads did the same)"),
        "{m}"
    );
    assert!(
        help.contains("was freed by `free(tmp);` (line 6) before this access"),
        "{help}"
    );
}

#[test]
fn a_second_free_is_reported_at_its_line() {
    let (m, help) = the_error("heap_double_free", "heap_double_free", 8);
    assert!(
        m.contains("but it was already freed at line 7 (the block of 4 bytes malloc'd at line 4)"),
        "{m}"
    );
    assert!(help.contains("each block is freed once"), "{help}");
}

#[test]
fn freeing_a_pointer_into_a_block_names_the_block() {
    let (m, help) = the_error("heap_double_free", "heap_bad_free", 16);
    assert!(
        m.contains("its address was never returned by malloc or new: it points into the block of 8 bytes malloc'd at line 13"),
        "{m}"
    );
    assert!(help.contains("points 4 bytes into the block"), "{help}");
}

#[test]
fn correct_heap_use_is_clean() {
    let (code, v) = exec("heap", "heap");
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v}");
    // out[i] = (a[i] + 1) * (a[i] + 3) for a = 0, 1, 2, 3.
    assert_eq!(
        v["buffers"]["out"],
        serde_json::json!([3.0, 8.0, 15.0, 24.0]),
        "{v}"
    );
}
