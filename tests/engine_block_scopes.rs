//! PTX brace blocks scope the registers they declare (`src/ptx/parse_scope.rs`), through the
//! real binary: `__syncthreads_count/_and/_or` expand to `{ .reg .pred %p1; ... }`, and the
//! kernel's own `%p1` (a guard computed before the barrier) must survive it; hand-written inline
//! PTX may nest blocks that declare the same name. Each kernel runs in lockstep and one thread
//! at a time, which must agree. The instrumenter's side is covered by instrument_equivalence,
//! which runs every kernel of `tests/kernels/*.cu`, this file's too.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const FILE: &str = "tests/kernels/block_scopes.cu";

fn exec_once(kernel: &str, lockstep: &str, args: &[&str]) -> Value {
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-block-scopes-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_LOCKSTEP", lockstep)
        .args(["exec", FILE, "--kernel", kernel, "--format", "json"])
        .args(["--grid", "1", "--block", "8"])
        .args(args)
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{kernel}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The `out` buffer after a clean run, the same in both schedules.
fn out(kernel: &str, args: &[&str]) -> Vec<i64> {
    let a = exec_once(kernel, "on", args);
    let b = exec_once(kernel, "off", args);
    assert_eq!(a, b, "{kernel}: lockstep and one thread at a time differ");
    assert_eq!(a["diagnostics"], serde_json::json!([]), "{kernel}: {a}");
    a["buffers"]["out"]
        .as_array()
        .unwrap_or_else(|| panic!("{kernel}: no out buffer: {a}"))
        .iter()
        .map(|v| v.as_i64().unwrap_or(i64::MIN))
        .collect()
}

/// The kernel: before scopes, the header's `%p1` overwrote the guard and the buffer
/// read `0 4 0 4 0 4 0 4`.
#[test]
fn syncthreads_count_keeps_the_kernels_guard() {
    let got = out(
        "count_after_guard",
        &["--arg", "out=i32[8]:zeros", "--arg", "n=i32:6"],
    );
    assert_eq!(got, vec![4, 4, 4, 4, 4, 4, 0, 0]);
}

#[test]
fn syncthreads_and_or_and_count_keep_the_kernels_guard() {
    let got = out(
        "and_or_after_guard",
        &["--arg", "out=i32[32]:zeros", "--arg", "n=i32:6"],
    );
    let mut want = Vec::new();
    for t in 0..8 {
        // all threads < 1000, one thread == 3, not all != 3, four odd threads
        want.extend(if t < 6 { [1, 1, 0, 4] } else { [0; 4] });
    }
    assert_eq!(got, want);
}

/// An inner block's `p` ends at its `}`: the outer `@p` reads the outer test (t < 4) again.
#[test]
fn nested_blocks_in_inline_ptx_each_have_their_own_register() {
    let got = out("nested_asm_blocks", &["--arg", "out=i32[8]:zeros"]);
    assert_eq!(got, vec![111, 11, 11, 11, 20, 20, 20, 20]);
}

/// One inline block, three passes of a loop, beside the kernel's own predicates.
#[test]
fn an_inline_block_in_a_loop_leaves_the_loops_predicates_alone() {
    let got = out(
        "asm_block_in_a_loop",
        &["--arg", "out=i32[8]:zeros", "--arg", "n=i32:6"],
    );
    // t > k for k = 0, 1, 2: min(t, 3), for the 6 threads inside n.
    assert_eq!(got, vec![0, 1, 2, 3, 3, 3, 0, 0]);
}
