//! The limits kept for a whole launch and a whole puzzle, through the real binary: the step
//! and time limit bound a grid of many small blocks; buffer sizes are checked before any is
//! filled; a buffer for a value parameter (or a value for a pointer) names the parameter; and
//! a loop that never ends is reported once per puzzle, the tests after it marked not run.
//! These need NVRTC (`pip install nvidia-cuda-nvrtc-cu12`); without it they fail and say so.

use assert_cmd::Command;
use serde_json::Value;
use std::time::{Duration, Instant};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_TIME_LIMIT")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GPUZZLE_GPU_STAND_IN");
    c
}

const KERNELS: &str = r#"
__global__ void fill(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f;
}
__global__ void scale(float *out, long long n) { out[0] = n; }
"#;

fn kernel_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("k.cu");
    std::fs::write(&path, KERNELS).expect("write kernel");
    (dir, path)
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_grid_of_many_small_blocks_stops_at_the_step_limit() {
    let (_d, k) = kernel_file();
    // 100000 blocks of 32 threads, each far below a block's step batch: before, the launch
    // ran every block whatever the limit.
    let out = gpuzzle()
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "fill", "--grid", "100000", "--block", "32"])
        .args(["--arg", "out=f32[4]:zeros", "--arg", "n=i32:4"])
        .args(["--step-limit", "200000"])
        .output()
        .expect("runs");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("the launch was stopped at its step limit (200000 instructions)"),
        "{t}"
    );
    assert!(t.contains("of its 100000 blocks ran"), "{t}");
}

#[test]
fn a_million_block_grid_stops_at_the_time_limit() {
    let (_d, k) = kernel_file();
    let started = Instant::now();
    let out = gpuzzle()
        .env("GPUZZLE_TIME_LIMIT", "0.5")
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "fill", "--grid", "1000000", "--block", "64"])
        .args(["--arg", "out=f32[4]:zeros", "--arg", "n=i32:4"])
        .args(["--step-limit", "100000000000"])
        .output()
        .expect("runs");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("the launch was stopped after ") && t.contains(" s on this machine, "),
        "{t}"
    );
    // Compiling (cached or not) and starting take the rest; the grid alone took a minute.
    assert!(started.elapsed() < Duration::from_secs(30), "{t}");
}

#[test]
fn a_buffer_too_large_is_refused_before_it_is_filled() {
    let (_d, k) = kernel_file();
    let started = Instant::now();
    let out = gpuzzle()
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "fill", "--grid", "1", "--block", "1"])
        .args(["--arg", "out=f64[268435456]:ones", "--arg", "n=i32:4"])
        .output()
        .expect("runs");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("`out` would take 2147483648 bytes (2 GiB)"),
        "{t}"
    );
    assert!(t.contains("(512 MiB)"), "{t}");
    // Filling 2 GiB alone took seconds (and the memory).
    assert!(started.elapsed() < Duration::from_secs(5), "{t}");
    // Together too large: the argument that tips it over is named.
    let out = gpuzzle()
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "fill", "--grid", "1", "--block", "1"])
        .args([
            "--arg",
            "out=f32[100000000]:ones",
            "--arg",
            "n=f32[100000000]:ones",
        ])
        .output()
        .expect("runs");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("--arg n=f32[100000000]:ones: with `n`"), "{t}");
    assert!(t.contains("800000000 bytes in all"), "{t}");
}

#[test]
fn a_buffer_for_a_value_parameter_and_a_value_for_a_pointer_are_errors() {
    let (_d, k) = kernel_file();
    let out = gpuzzle()
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "scale", "--grid", "1", "--block", "1"])
        .args(["--arg", "out=f32[4]:zeros", "--arg", "n=f32[1000]:ones"])
        .output()
        .expect("runs");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("argument 2 (`n`) is a buffer, but parameter 2 of `scale` is a `long long`"),
        "{t}"
    );
    assert!(t.contains("n=i64:0"), "{t}");
    let out = gpuzzle()
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "scale", "--grid", "1", "--block", "1"])
        .args(["--arg", "out=u64:4096", "--arg", "n=i64:3"])
        .output()
        .expect("runs");
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("parameter 1 of `scale` is a pointer (`float*`)"),
        "{t}"
    );
    // The right kinds still run.
    gpuzzle()
        .arg("exec")
        .arg(&k)
        .args(["--kernel", "scale", "--grid", "1", "--block", "1"])
        .args(["--arg", "out=f32[4]:zeros", "--arg", "n=i64:3"])
        .assert()
        .success();
}

const ENDLESS: &str = r#"extern "C" __global__ void map(float* out, const float* a) {
    int i = threadIdx.x;
    for (int k = 0; k < 10; k += 0) { out[i] = a[i] + k; }
}
"#;

#[test]
fn a_loop_that_never_ends_is_reported_once_per_puzzle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    let file = std::fs::read_dir(ws.join("puzzles"))
        .expect("puzzles")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with("01_") && n.to_string_lossy().ends_with(".cu")
            })
        })
        .expect("puzzle 1's kernel");
    std::fs::write(&file, ENDLESS).expect("write kernel");
    let out = gpuzzle()
        .current_dir(&ws)
        .env("GPUZZLE_TIME_LIMIT", "0.5")
        .args(["check", "1", "--format", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out)));
    let tests = v
        .pointer("/puzzles/0/tests")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no tests: {v}"));
    assert!(tests.len() > 2, "{v}");
    let first = &tests[0];
    assert!(first.get("not_run").is_none(), "{v}");
    assert!(
        first["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["kind"] == "step-limit")),
        "{v}"
    );
    for t in &tests[1..] {
        assert_eq!(t["passed"], false, "{v}");
        let why = t["not_run"].as_str().unwrap_or_else(|| panic!("{t}"));
        assert!(
            why.contains("already ran into the step or time limit"),
            "{why}"
        );
        // The existing keys stay.
        assert!(
            t.get("outputs").is_some() && t.get("diagnostics").is_some(),
            "{t}"
        );
    }
    // The text page says it once, and marks each test.
    let out = gpuzzle()
        .current_dir(&ws)
        .env("GPUZZLE_TIME_LIMIT", "0.5")
        .args(["run", "1"])
        .output()
        .expect("runs");
    let t = text(&out);
    assert!(t.contains("NOT RUN"), "{t}");
    assert_eq!(
        t.matches("already ran into the step or time limit").count(),
        1,
        "{t}"
    );
}
