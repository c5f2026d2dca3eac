//! Small things `gpuzzle exec` must say right (issue 36, "small wrong words"), through the real
//! binary: a store to `__constant__` memory and invalid inline assembly are the learner's
//! errors at their lines; a launch refusal is JSON under `--format json`; `--arg NAME=null`
//! passes a null pointer.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `gpuzzle exec FILE ARGS...` on `source` written as `name` in a fresh folder.
fn exec(name: &str, source: &str, args: &[&str]) -> Ran {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join(name), source).expect("write the kernel");
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(dir.path())
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-small-words-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .arg("exec")
        .arg(name)
        .args(args)
        .output()
        .expect("run gpuzzle");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json(r: &Ran) -> Value {
    serde_json::from_str(r.stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", r.stdout, r.stderr))
}

/// NVRTC only warns and compiles the kernel to a lone `trap;` with no line: gpuzzle refuses it
/// at the store's line, before anything runs.
#[test]
fn a_store_to_constant_memory_is_an_error_at_its_line() {
    let src = "__constant__ int table[4];\n\
               extern \"C\" __global__ void k(int* out) {\n\
               \x20   int t = threadIdx.x;\n\
               \x20   table[t] = t;\n\
               \x20   out[t] = table[t];\n\
               }\n";
    let args = [
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "out=i32[4]:zeros",
    ];
    let r = exec("cst.cu", src, &args);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("cst.cu:4: error: a store to `__constant__` memory"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("trap instruction"), "{}", r.stderr);
}

/// The learner's `asm` is the learner's PTX: a mistake in it is theirs, at the `asm` line,
/// never "gpuzzle could not read the PTX (please report this)".
#[test]
fn invalid_inline_ptx_is_the_learners_error_at_the_asm_line() {
    let src = r#"extern "C" __global__ void bad(int* out) {
    __shared__ unsigned short tile[256];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned a, b, c, d;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[(threadIdx.x % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%-1, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
    out[threadIdx.x] = a + b + c + d;
}
"#;
    let args = [
        "--kernel",
        "bad",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "out=i32[32]:zeros",
    ];
    let r = exec("asm.cu", src, &args);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(
            "asm.cu:8: error: the inline assembly (`asm`) on this line is not valid PTX: "
        ),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("please report"), "{}", r.stderr);
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let v = json(&exec("asm.cu", src, &with_json));
    assert_eq!(v["ok"], false, "{v}");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("asm.cu:8")),
        "{v}"
    );
}

/// A launch refused before it runs is JSON when JSON was asked for, with the same exit code
/// as in text.
#[test]
fn the_static_shared_refusal_is_json_under_format_json() {
    let src = "extern \"C\" __global__ void big(float* out) {\n\
               \x20   __shared__ float s[16384];\n\
               \x20   s[threadIdx.x] = threadIdx.x;\n\
               \x20   __syncthreads();\n\
               \x20   out[threadIdx.x] = s[(threadIdx.x + 1) % 32];\n\
               }\n";
    let args = [
        "--kernel",
        "big",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "out=f32[32]:zeros",
    ];
    let text = exec("big.cu", src, &args);
    assert!(text.stderr.contains("48 KiB"), "{}", text.stderr);
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let r = exec("big.cu", src, &with_json);
    assert_eq!(r.code, text.code, "{}{}", r.stdout, r.stderr);
    let v = json(&r);
    assert_eq!(v["ok"], false, "{v}");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("65536 bytes of __shared__") && e.contains("48 KiB")),
        "{v}"
    );
}

/// `int* partial_sums = NULL` in a public scan sample: `--arg partial_sums=null` passes a null
/// pointer to the (C++-mangled, so typed) pointer parameter; any other scalar stays refused.
#[test]
fn arg_null_passes_a_null_pointer() {
    let src = "__global__ void scan(const int* in, int* out, int* partial_sums, int n) {\n\
               \x20   int t = threadIdx.x;\n\
               \x20   if (t < n) out[t] = in[t] * 2;\n\
               \x20   if (partial_sums != NULL && t == 0) partial_sums[blockIdx.x] = 1;\n\
               \x20   if (partial_sums == NULL && t == 0) out[0] = -1;\n\
               }\n";
    let base = [
        "--kernel",
        "scan",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "in=i32[4]:arange",
        "--arg",
        "out=i32[4]:zeros",
    ];
    let mut args = base.to_vec();
    args.extend([
        "--arg",
        "partial_sums=null",
        "--arg",
        "n=i32:4",
        "--format",
        "json",
    ]);
    let r = exec("scan.cu", src, &args);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let v = json(&r);
    assert_eq!(v["buffers"]["out"], serde_json::json!([-1, 2, 4, 6]), "{v}");

    let mut args = base.to_vec();
    args.extend(["--arg", "partial_sums=u64:5", "--arg", "n=i32:4"]);
    let r = exec("scan.cu", src, &args);
    assert_eq!(r.code, Some(2), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("NAME=null"), "{}", r.stderr);
}

/// A grid sync that half a block skips (an early `return` of some of its threads) is the
/// `barrier-divergence` it is, at the sync, whichever half leaves; the grid's endless wait
/// that follows when the block's arriving thread (thread 0) is among them is no second fault
/// (`step-limit`). A whole block skipping it stays the grid sync that never completes.
#[test]
fn a_grid_sync_half_a_block_skips_is_barrier_divergence() {
    let src = |cond: &str| {
        format!(
            "#include <cooperative_groups.h>\n\
             namespace cg = cooperative_groups;\n\
             extern \"C\" __global__ void k(float* out) {{\n\
             \x20   cg::grid_group grid = cg::this_grid();\n\
             \x20   if ({cond}) return;\n\
             \x20   out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;\n\
             \x20   grid.sync();\n\
             \x20   out[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;\n\
             }}\n"
        )
    };
    let args = [
        "--kernel",
        "k",
        "--cooperative",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "out=f32[64]:zeros",
        "--format",
        "json",
    ];
    for cond in [
        "blockIdx.x == 1 && threadIdx.x >= 16",
        "blockIdx.x == 1 && threadIdx.x < 16",
    ] {
        let r = exec("gs.cu", &src(cond), &args);
        assert_eq!(r.code, Some(1), "{cond}: {}{}", r.stdout, r.stderr);
        let v = json(&r);
        let kinds: Vec<&str> = v["diagnostics"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .filter_map(|d| d["kind"].as_str())
            .collect();
        assert_eq!(kinds, vec!["barrier-divergence"], "{cond}: {v}");
        assert_eq!(v["diagnostics"][0]["line"], 7, "{cond}: {v}");
    }
    let v = json(&exec("gs.cu", &src("blockIdx.x == 1"), &args));
    assert_eq!(v["diagnostics"][0]["kind"], "step-limit", "{v}");
}

/// A puzzle's test whose buffers are more than one launch may hold is refused before any
/// buffer is filled, in `exec`'s words, and the other tests still run.
#[test]
fn a_puzzle_test_over_the_launch_limit_is_refused_up_front_in_execs_words() {
    const PUZZLE: &str = r#"id = 1
slug = "double"
title = "Double"
part = "Basics"
kernel = "double_it"
params = ["out", "a", "size"]
description = "out[i] = 2 * a[i]"
spec = """
for (int i = 0; i < size; i++) out[i] = 2.0f * a[i];
"""
hints = ["One thread per element."]

[[test]]
name = "small"
grid = [1]
block = [8]
scalars = { size = 8 }
buffers.a = { len = 8, init = "arange" }
buffers.out = { len = 8, output = true }

[[test]]
name = "huge"
grid = [1]
block = [8]
scalars = { size = 8 }
buffers.a = { len = 150000000, init = "arange" }
buffers.out = { len = 8, output = true }
"#;
    const KERNEL: &str = r#"extern "C" __global__ void double_it(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i] = 2.0f * a[i];
}
"#;
    let dir = tempfile::tempdir().expect("a temporary folder");
    for sub in ["puzzles", "solutions"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("a folder");
    }
    std::fs::write(dir.path().join("puzzles/01_double.toml"), PUZZLE).expect("write");
    std::fs::write(dir.path().join("puzzles/01_double.cu"), KERNEL).expect("write");
    std::fs::write(dir.path().join("solutions/01_double.cu"), KERNEL).expect("write");
    let started = std::time::Instant::now();
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(dir.path())
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-small-words-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .args(["check", "1", "--format", "json"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}{stderr}"));
    assert_eq!(out.status.code(), Some(1), "{v}");
    let tests = v["puzzles"][0]["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"));
    let small = tests.iter().find(|t| t["name"] == "small");
    assert!(small.is_some_and(|t| t["passed"] == true), "{v}");
    let huge = tests
        .iter()
        .find(|t| t["name"] == "huge")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(huge["passed"], false, "{v}");
    let said = huge.to_string();
    assert!(
        said.contains("`a` would take 600000000 bytes")
            && said.contains("more than gpuzzle holds for the buffers of one launch (512 MiB)"),
        "{huge}"
    );
    assert!(!said.contains("spec of puzzle"), "{huge}");
    // Nothing was filled: 600 MB of `arange` (and its random variant) would take far longer.
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}
