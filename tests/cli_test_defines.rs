//! `[[test]] defines`: a test that changes a puzzle's define (TPB = 64 where the puzzle says 8)
//! compiles the learner's kernel and the spec with it, on every command that compiles one:
//! `check` (text and JSON), `check --solutions`, `run --trace`, `draw`, `bench`, `show`, and the
//! GPU backend's worker (through the instrumented-emulator stand-in).
//! A temporary pack holds a block-reversal puzzle whose shared array is `s[TPB]`: a kernel
//! written with TPB passes both tests, one that hard-codes 8 fails the 64-thread test, and one
//! that only compiles with TPB = 8 is one compile error naming the test. Needs NVRTC.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Each block reverses its part of `a`; the first test keeps the puzzle's TPB = 8, the second
/// runs blocks of 64 with TPB = 64, and the bench blocks of 128.
const PUZZLE: &str = r#"id = 1
slug = "reverse-blocks"
title = "Reverse each block"
part = "Shared memory"
kernel = "reverse_blocks"
params = ["out", "a", "size"]
defines = { TPB = 8 }
description = "Each block of TPB threads writes its part of `a` reversed."
spec = """
for (int i = 0; i < size; i++) {
    int first = i / TPB * TPB;
    out[i] = a[first + TPB - 1 - (i - first)];
}
"""
hints = ["Stage the block's values in shared memory."]
budget = { global_reads = 1, global_writes = 1 }

[[test]]
name = "two blocks of 8"
grid = [2]
block = [8]
scalars = { size = 16 }
buffers.a = { len = 16, init = "arange" }
buffers.out = { len = 16, output = true }

[[test]]
name = "two blocks of 64"
defines = { TPB = 64 }
grid = [2]
block = [64]
scalars = { size = 128 }
buffers.a = { len = 128, init = "arange" }
buffers.out = { len = 128, output = true }

[bench]
defines = { TPB = 128 }
grid = [4]
block = [128]
scalars = { size = 512 }
buffers.a = { len = 512, init = "random" }
buffers.out = { len = 512, output = true }
"#;

/// Written with TPB: right for any block size the test gives it.
const WITH_TPB: &str = r#"extern "C" __global__ void reverse_blocks(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = a[i];
    __syncthreads();
    out[i] = s[TPB - 1 - threadIdx.x];
}
"#;

/// Hard-codes the first test's 8.
const EIGHT: &str = r#"extern "C" __global__ void reverse_blocks(float* out, const float* a, int size) {
    __shared__ float s[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = a[i];
    __syncthreads();
    out[i] = s[7 - threadIdx.x];
}
"#;

/// Compiles only where TPB is 8 (line 2 fails with 64).
const ONLY_EIGHT: &str = r#"extern "C" __global__ void reverse_blocks(float* out, const float* a, int size) {
    static_assert(TPB == 8, "only blocks of eight");
    __shared__ float s[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = a[i];
    __syncthreads();
    out[i] = s[TPB - 1 - threadIdx.x];
}
"#;

/// A workspace with the puzzle, `starter` as the learner's file and the TPB kernel as the
/// solution.
fn pack(starter: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for sub in ["puzzles", "solutions"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap_or_else(|e| panic!("{e}"));
    }
    write(&dir.path().join("puzzles/01_reverse.toml"), PUZZLE);
    write(&dir.path().join("puzzles/01_reverse.cu"), starter);
    write(&dir.path().join("solutions/01_reverse.cu"), WITH_TPB);
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn gpuzzle(ws: &Path) -> Command {
    let mut c = Command::cargo_bin("gpuzzle").unwrap_or_else(|e| panic!("{e}"));
    c.current_dir(ws)
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-defines-cache"),
        )
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// (exit code, stdout, stderr).
fn run(ws: &Path, args: &[&str]) -> (i32, String, String) {
    let out = gpuzzle(ws)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(out: &str) -> Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// `(name, passed)` of every test in `check --format json`'s one puzzle.
fn tests_of(v: &Value) -> Vec<(String, bool)> {
    v["puzzles"][0]["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests: {v}"))
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or("").to_string(),
                t["passed"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[test]
fn a_kernel_written_with_tpb_passes_both_tests() {
    let dir = pack(WITH_TPB);
    let (code, out, err) = run(dir.path(), &["check", "1", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    assert_eq!(
        tests_of(&v),
        [
            ("two blocks of 8".to_string(), true),
            ("two blocks of 64".to_string(), true),
            ("two blocks of 8 (random inputs)".to_string(), true),
            ("two blocks of 64 (random inputs)".to_string(), true),
        ],
        "{out}"
    );
    // The 64-thread test ran blocks of 64 against a spec compiled with TPB = 64: the first
    // element of the second block's reversal is a[127].
    let t = &v["puzzles"][0]["tests"][1];
    assert_eq!(t["block"][0], 64, "{t}");
    // The reference solution too, and `run`'s page.
    let (code, out, err) = run(dir.path(), &["check", "1", "--solutions"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(dir.path(), &["run", "1"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_kernel_that_hard_codes_eight_fails_the_64_thread_test_only() {
    let dir = pack(EIGHT);
    let (code, out, err) = run(dir.path(), &["check", "1", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    let tests = tests_of(&v);
    assert_eq!(
        tests,
        [
            ("two blocks of 8".to_string(), true),
            ("two blocks of 64".to_string(), false),
            ("two blocks of 8 (random inputs)".to_string(), true),
            ("two blocks of 64 (random inputs)".to_string(), false),
        ],
        "{out}"
    );
    // `run`'s page names the test that failed.
    let (code, out, err) = run(dir.path(), &["run", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("two blocks of 64"), "{out}");
}

#[test]
fn a_kernel_that_compiles_only_with_eight_is_one_error_naming_the_test() {
    let dir = pack(ONLY_EIGHT);
    let (code, out, err) = run(dir.path(), &["check", "1", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    let e = v["puzzles"][0]["compile_error"]
        .as_str()
        .unwrap_or_else(|| panic!("a compile error: {out}"));
    for part in [
        "01_reverse.cu:2",
        "only blocks of eight\" (with TPB=64, in test \"two blocks of 64\")",
        "only blocks of eight",
    ] {
        assert!(e.contains(part), "missing {part:?} in: {e}");
    }
    assert_eq!(e.matches("only blocks of eight").count(), 1, "once: {e}");
    // The page shows it once, at the learner's line.
    let (code, out, err) = run(dir.path(), &["run", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("DOES NOT COMPILE"), "{out}");
    let errors: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0].contains("TPB=64") && errors[0].contains("only blocks of eight"),
        "{out}"
    );
    assert!(out.contains("01_reverse.cu:2"), "{out}");
}

#[test]
fn show_trace_draw_and_bench_use_the_tests_defines() {
    let dir = pack(WITH_TPB);
    let (code, out, err) = run(dir.path(), &["show", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("defines: TPB = 64 (in this test)"), "{out}");

    // Drawn with TPB = 8, the 64-thread test would write past `s[8]` and fail to draw cleanly.
    let svg = dir.path().join("t2.svg");
    let svg_arg = svg.display().to_string();
    let (code, out, err) = run(dir.path(), &["draw", "1", "--test", "2", "--out", &svg_arg]);
    assert_eq!(code, 0, "{out}{err}");
    let picture = std::fs::read_to_string(&svg).unwrap_or_else(|e| panic!("{e}"));
    assert!(picture.contains("passes"), "{picture}");
    assert!(!picture.contains("out-of-bounds"), "{picture}");

    // `[bench] defines = { TPB = 128 }`: blocks of 128, so a TPB of 8 would not match the
    // reference (which gets the same defines).
    let (code, out, err) = run(dir.path(), &["bench", "1", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    assert_eq!(v["mismatches_vs_reference"], 0, "{out}");
}

#[test]
fn run_trace_uses_the_first_tests_own_defines() {
    // A puzzle whose first test changes TPB: `run --trace` traces that test with TPB = 64.
    let dir = pack(WITH_TPB);
    let text = PUZZLE
        .replacen(
            "name = \"two blocks of 8\"",
            "name = \"two blocks of 8\"\ndefines = { TPB = 8 }",
            1,
        )
        .replace(
            "defines = { TPB = 8 }\ndescription",
            "defines = { TPB = 4 }\ndescription",
        );
    write(&dir.path().join("puzzles/01_reverse.toml"), &text);
    let (code, out, err) = run(dir.path(), &["run", "1", "--trace"]);
    assert_eq!(code, 0, "{out}{err}");
    // Thread 7 writes out[7] from s[0]: the block reversed as 8, not as 4.
    let t7 = out
        .lines()
        .find(|l| l.trim_start().starts_with("t7:"))
        .unwrap_or_else(|| panic!("no line for t7:\n{out}"));
    assert_eq!(t7.trim(), "t7: a[7] → s[7]; s[0] → out[7]", "{out}");
}

#[test]
fn the_gpu_path_runs_each_test_with_its_own_defines() {
    // The worker's instrumented emulator stands in for a GPU: the learner's PTX for the
    // 64-thread test must be the one compiled with TPB = 64, on `gpu` and on `auto`'s second run.
    let grade = |starter: &str, backend: &str| {
        let dir = pack(starter);
        let out = gpuzzle(dir.path())
            .env("GPUZZLE_GPU_STAND_IN", "emulator")
            .env("GPUZZLE_BACKEND", backend)
            .args(["check", "1", "--format", "json"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code().unwrap_or(-1), json(&text))
    };
    for backend in ["gpu", "auto"] {
        let (code, v) = grade(WITH_TPB, backend);
        assert_eq!(code, 0, "{backend}: {v}");
        assert!(tests_of(&v).iter().all(|(_, passed)| *passed), "{v}");
        if backend == "auto" {
            assert_eq!(v["puzzles"][0]["also"]["verdict"], "match", "{v}");
        }
    }
    let (code, v) = grade(EIGHT, "gpu");
    assert_eq!(code, 1, "{v}");
    let passed: Vec<bool> = tests_of(&v).into_iter().map(|(_, p)| p).collect();
    assert_eq!(passed, [true, false, true, false], "{v}");
}
