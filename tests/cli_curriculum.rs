//! The traps the curriculum after puzzle 14 teaches, through the real binary: each planted (or,
//! for the debugging puzzles, shipped in the starter) bug is reported with its diagnostic kind
//! at its line. These need NVRTC (`pip install nvidia-cuda-nvrtc-cu12`); without it they fail
//! and say so.

use assert_cmd::Command;
use serde_json::Value;

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    // The emulator's checkers are what these test: pin the backend.
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// `check IDS --format json` on the repository's own (untouched) starters.
fn check_repo(ids: &[&str]) -> Value {
    let out = gpuzzle()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("check")
        .args(ids)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "starters fail");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// A fresh workspace with `source` written over puzzle `file`; `check ID --format json` there.
fn check_planted(id: &str, file: &str, source: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    std::fs::write(ws.join("puzzles").join(file), source).unwrap();
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["check", id, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every (kind, line) of the diagnostics of puzzle `id` in a check report, over all its tests.
fn diagnostics(report: &Value, id: u64) -> Vec<(String, u64)> {
    let puzzle = report["puzzles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("puzzle {id} not in {report}"));
    assert_eq!(puzzle["passed"], false);
    let mut found: Vec<(String, u64)> = puzzle["tests"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["diagnostics"].as_array().cloned().unwrap_or_default())
        .map(|d| {
            (
                d["kind"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    found.sort();
    found.dedup();
    found
}

fn has(found: &[(String, u64)], kind: &str, line: u64) -> bool {
    found.iter().any(|(k, l)| k == kind && *l == line)
}

#[test]
fn debugging_starters_show_their_bug_at_its_line() {
    let report = check_repo(&["26", "31", "32", "33"]);
    let d31 = diagnostics(&report, 31);
    assert_eq!(
        d31.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["shared-race"],
        "{d31:?}"
    );
    assert!(has(&d31, "shared-race", 15), "{d31:?}");
    let d32 = diagnostics(&report, 32);
    assert!(has(&d32, "barrier-divergence", 9), "{d32:?}");
    let d33 = diagnostics(&report, 33);
    assert!(has(&d33, "out-of-bounds", 8), "{d33:?}");
    // fast_matmul: the early return skips the barriers, the `&&` guard reads past the matrix.
    let d26 = diagnostics(&report, 26);
    assert!(
        d26.iter().any(|(k, _)| k == "barrier-divergence"),
        "{d26:?}"
    );
    assert!(d26.iter().any(|(k, _)| k == "out-of-bounds"), "{d26:?}");
}

#[test]
fn in_place_hillis_steele_scan_is_a_shared_race_at_the_update() {
    let source = r#"extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    buf[0][i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < TPB; d *= 2) {
        if (i >= d) {
            buf[0][i] += buf[0][i - d];
        }
        __syncthreads();
    }
    if (i < size) {
        out[i] = buf[0][i];
    }
}
"#;
    let report = check_planted("19", "19_hillis_steele_scan.cu", source);
    let found = diagnostics(&report, 19);
    assert!(has(&found, "shared-race", 8), "{found:?}");
}

#[test]
fn tree_reduction_with_the_barrier_inside_the_branch_is_divergent_at_that_line() {
    let source = r#"extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) {
        v += a[base + t + TPB];
    }
    s[t] = v;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();
        }
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
"#;
    let report = check_planted("16", "16_tree_reduction.cu", source);
    let found = diagnostics(&report, 16);
    assert!(has(&found, "barrier-divergence", 14), "{found:?}");
}

#[test]
fn dot_product_across_blocks_with_a_plain_add_is_a_global_race() {
    let source = r#"extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        out[0] += a[i] * b[i];
    }
}
"#;
    let report = check_planted("30", "30_dot_atomic.cu", source);
    let found = diagnostics(&report, 30);
    assert!(has(&found, "global-race", 4), "{found:?}");
}

#[test]
fn per_block_partials_added_without_atomics_race_across_blocks() {
    // Puzzle 15's partials are per block; adding them all into out[0] from thread 0 of every
    // block is the cross-block form of the race: nothing orders different blocks.
    let source = r#"extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cache[threadIdx.x] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            cache[threadIdx.x] += cache[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[0] += cache[0];
    }
}
"#;
    let report = check_planted("30", "30_dot_atomic.cu", source);
    let found = diagnostics(&report, 30);
    assert!(has(&found, "global-race", 13), "{found:?}");
}
