//! Limits on what a whole block does (`block_budget`, `require`) and the atomics counters,
//! through the real binary on small puzzle packs written for each test; and the performance
//! figures of the real puzzles 34 and 35 against a kernel that issues its accesses one lane at
//! a time. These need NVRTC (`pip install nvidia-cuda-nvrtc-cu12`); without it they fail and
//! say so.

use assert_cmd::Command;
use serde_json::Value;

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GPUZZLE_GPU_STAND_IN");
    c
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

/// The sum of `a` into `out[0]` over two blocks of 64 threads (the second partly full), with
/// `limits` (TOML lines) added to the puzzle file.
fn sum_puzzle(limits: &str) -> String {
    format!(
        r#"id = 1
slug = "block-sum"
title = "Sum across blocks"
part = "Test"
kernel = "sum"
params = ["out", "a", "size"]
defines = {{ TPB = 64 }}
description = "Add up `a` into out[0]."
spec = """
out[0] = 0.0f;
for (int i = 0; i < size; i++) out[0] += a[i];
"""
{limits}
tolerance = {{ abs = 0.0, rel = 0.0 }}

[[test]]
name = "100 elements, 2 blocks"
grid = [2]
block = [64]
scalars = {{ size = 100 }}
buffers.a = {{ len = 100, init = "arange" }}
buffers.out = {{ len = 1, output = true, zeroed = true }}
"#
    )
}

/// Every thread adds its element into out[0] itself: 64 atomics in a full block.
const ATOMIC_PER_THREAD: &str = r#"extern "C" __global__ void sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        atomicAdd(&out[0], a[i]);
    }
}
"#;

/// A tree in shared memory, then one atomic per block.
const ATOMIC_PER_BLOCK: &str = r#"extern "C" __global__ void sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cache[threadIdx.x] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            cache[threadIdx.x] += cache[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&out[0], cache[0]);
    }
}
"#;

/// Thread 0 of each block adds the block's elements from global memory itself: one atomic per
/// block, no shared memory.
const SERIAL_NO_SHARED: &str = r#"extern "C" __global__ void sum(float* out, const float* a, int size) {
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int k = 0; k < blockDim.x; k++) {
            int i = blockIdx.x * blockDim.x + k;
            if (i < size) s += a[i];
        }
        atomicAdd(&out[0], s);
    }
}
"#;

/// Grade `kernel` against a one-puzzle pack whose file is `toml`, with `check --format json`
/// (on `backend`); the exit code and the puzzle's JSON.
fn check(toml: &str, kernel: &str, backend: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).unwrap();
    std::fs::write(pack.join("01_block_sum.toml"), toml).unwrap();
    std::fs::write(pack.join("01_block_sum.cu"), kernel).unwrap();
    let mut c = gpuzzle();
    if backend == "gpu" {
        c.env("GPUZZLE_GPU_STAND_IN", "emulator");
    }
    let out = c
        .current_dir(dir.path())
        .args(["check", "1", "--format", "json", "--backend", backend])
        .arg("--puzzles")
        .arg(&pack)
        .output()
        .unwrap();
    let v = json_of(&out.stdout);
    (out.status.code().unwrap_or(-1), v["puzzles"][0].clone())
}

/// The same, as `check`'s text table.
fn check_text(toml: &str, kernel: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).unwrap();
    std::fs::write(pack.join("01_block_sum.toml"), toml).unwrap();
    std::fs::write(pack.join("01_block_sum.cu"), kernel).unwrap();
    let out = gpuzzle()
        .current_dir(dir.path())
        .args(["check", "1"])
        .arg("--puzzles")
        .arg(&pack)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn one_atomic_per_thread_fails_a_block_budget_of_one_atomic_and_one_per_block_passes() {
    let toml = sum_puzzle("block_budget = { global_atomics = 1 }");
    for backend in ["emu", "gpu"] {
        let (code, p) = check(&toml, ATOMIC_PER_THREAD, backend);
        assert_eq!(code, 1, "{backend}: {p}");
        let t = &p["tests"][0];
        // The output is right: the block budget alone fails it.
        assert_eq!(t["outputs"]["out"]["expected"], t["outputs"]["out"]["got"]);
        assert_eq!(t["passed"], false);
        assert_eq!(t["counters"]["global_atomics"], 1, "{t}");
        assert_eq!(t["block_budget"], serde_json::json!({"global_atomics": 1}));
        assert_eq!(t["block_totals"]["most"]["global_atomics"], 64, "{t}");
        assert_eq!(t["block_totals"]["least"]["global_atomics"], 36, "{t}");
        let over = &t["over_block_budget"][0];
        assert_eq!(over["counter"], "global_atomics");
        assert_eq!(
            (over["used"].as_u64(), over["budget"].as_u64()),
            (Some(64), Some(1))
        );
        assert_eq!(over["block"], serde_json::json!([0, 0, 0]));
        // The line that made them: all 64 on line 4.
        assert_eq!(
            over["lines"],
            serde_json::json!([{"file": "pack/01_block_sum.cu", "line": 4, "count": 64}]),
            "{backend}: {t}"
        );
        assert!(t.get("over_budget").is_none(), "{t}");
        assert!(t.get("under_require").is_none(), "{t}");

        let (code, p) = check(&toml, ATOMIC_PER_BLOCK, backend);
        assert_eq!(code, 0, "{backend}: {p}");
        let t = &p["tests"][0];
        assert_eq!(t["block_totals"]["most"]["global_atomics"], 1, "{t}");
        assert!(t.get("over_block_budget").is_none(), "{t}");
    }
    // The text table's reason says what was counted and the limit.
    let (code, text) = check_text(&toml, ATOMIC_PER_THREAD);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("over block budget: global atomics 64 > 1 in block 0"),
        "{text}"
    );
}

#[test]
fn a_kernel_without_shared_memory_fails_require_shared_writes_and_one_with_it_passes() {
    let toml = sum_puzzle("require = { shared_writes = 1 }");
    for backend in ["emu", "gpu"] {
        let (code, p) = check(&toml, SERIAL_NO_SHARED, backend);
        assert_eq!(code, 1, "{backend}: {p}");
        let t = &p["tests"][0];
        assert_eq!(t["outputs"]["out"]["expected"], t["outputs"]["out"]["got"]);
        assert_eq!(t["require"], serde_json::json!({"shared_writes": 1}));
        let under = &t["under_require"][0];
        assert_eq!(
            *under,
            serde_json::json!({"counter": "shared_writes", "used": 0, "require": 1,
                               "block": [0, 0, 0]}),
            "{backend}: {t}"
        );
        assert!(t.get("over_block_budget").is_none(), "{t}");

        let (code, p) = check(&toml, ATOMIC_PER_BLOCK, backend);
        assert_eq!(code, 0, "{backend}: {p}");
        // The partly full block writes its 64 slots too, and the tree 63 more: the least is 127.
        let t = &p["tests"][0];
        assert_eq!(t["block_totals"]["least"]["shared_writes"], 127, "{t}");
    }
    let (code, text) = check_text(&toml, SERIAL_NO_SHARED);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("requires shared writes: 0 < 1 in block 0"),
        "{text}"
    );
}

#[test]
fn per_thread_atomics_can_be_budgeted_and_the_run_page_names_the_line() {
    let toml = sum_puzzle("budget = { global_atomics = 0 }\nblock_budget = { global_atomics = 1 }");
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).unwrap();
    std::fs::write(pack.join("01_block_sum.toml"), &toml).unwrap();
    std::fs::write(pack.join("01_block_sum.cu"), ATOMIC_PER_THREAD).unwrap();
    let out = gpuzzle()
        .current_dir(dir.path())
        .args(["run", "1"])
        .arg("--puzzles")
        .arg(&pack)
        .output()
        .unwrap();
    let page = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{page}");
    // The per-thread row of the atomics, over its budget of 0, and the block's rows.
    let row = page
        .lines()
        .find(|l| l.trim_start().starts_with("global atomics") && l.contains("thread"))
        .unwrap_or_else(|| panic!("no per-thread atomics row in:\n{page}"));
    assert!(row.split_whitespace().nth(2) == Some("1"), "{row}");
    assert!(page.contains("block totals (all its threads)"), "{page}");
    assert!(
        page.contains(
            "the threads of block 0 made 64 global atomics in all where the block budget allows 1"
        ),
        "{page}"
    );
    assert!(page.contains("64 atomics on out[0]"), "{page}");
}

#[test]
fn a_bad_key_or_value_in_block_budget_or_require_is_an_error_at_its_line() {
    let cases = [
        (
            "block_budget = { global_atomic = 1 }",
            "`block_budget.global_atomic`: unknown field `global_atomic`; did you mean `global_atomics`?",
        ),
        (
            "require = { shared_writes = -1 }",
            "`require.shared_writes`",
        ),
        (
            "block_budget = { sectors_per_access = 4 }",
            "`block_budget.sectors_per_access`: unknown field `sectors_per_access`",
        ),
    ];
    for (limits, expected) in cases {
        let toml = sum_puzzle(limits);
        let line = toml.lines().position(|l| l == limits).unwrap() + 1;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("01_block_sum.toml"), &toml).unwrap();
        std::fs::write(dir.path().join("01_block_sum.cu"), ATOMIC_PER_BLOCK).unwrap();
        let out = gpuzzle()
            .current_dir(dir.path())
            .args(["list", "--puzzles", "."])
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .replace(": error: ", ": ");
        let want = format!("01_block_sum.toml:{line}: {expected}");
        assert!(all.contains(&want), "wanted {want:?} in:\n{all}");
        assert!(!all.contains("panicked"), "{all}");
    }
}

/// The transpose of puzzles 34 and 35 with no shared memory, its strided store issued one
/// lane at a time (NVRTC unrolls the loop into 32 stores of one lane each).
const SERIALISED_TRANSPOSE: &str = r#"extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    int lane = threadIdx.x % 32;
    bool in = row < rows && col < cols;
    float v = in ? a[row * cols + col] : 0.0f;
    for (int l = 0; l < 32; l++) {
        if (in && lane == l) out[col * rows + row] = v;
        __syncwarp();
    }
}
"#;

/// Puzzle 35's tile unpadded, its column read issued one lane at a time.
const SERIALISED_COLUMN_READ: &str = r#"extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) {
        tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
    }
    __syncthreads();
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    bool in = out_row < cols && out_col < rows;
    float v = 0.0f;
    for (int l = 0; l < 32; l++) {
        if (in && threadIdx.x == l) v = tile[threadIdx.x][threadIdx.y];
        __syncwarp();
    }
    if (in) {
        out[out_row * rows + out_col] = v;
    }
}
"#;

/// Grade `kernel` as puzzle `id` of the repository's pack (a fresh workspace); its JSON.
fn check_real(id: &str, file: &str, kernel: &str) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    gpuzzle()
        .arg("init")
        .arg(dir.path().join("ws"))
        .assert()
        .success();
    let ws = dir.path().join("ws");
    std::fs::write(ws.join("puzzles").join(file), kernel).unwrap();
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["check", id, "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&out.stdout);
    (out.status.code().unwrap_or(-1), v["puzzles"][0].clone())
}

/// The figure `kind` of every test, and whether it is over budget there.
fn figures(p: &Value, kind: &str) -> Vec<(f64, bool)> {
    let tests = p["tests"].as_array().expect("tests");
    tests
        .iter()
        .map(|t| {
            let f = (t["perf"].as_array().expect("perf figures").iter())
                .find(|f| f["kind"] == kind)
                .unwrap_or_else(|| panic!("no {kind} in {t}"));
            let over = (t["over_budget"].as_array())
                .is_some_and(|o| o.iter().any(|o| o["counter"] == kind));
            (f["value"].as_f64().unwrap(), over)
        })
        .collect()
}

#[test]
fn a_transpose_that_serialises_its_strided_store_fails_puzzles_34_and_35() {
    for (id, file) in [
        ("34", "34_coalesced_transpose.cu"),
        ("35", "35_bank_conflict_free_transpose.cu"),
    ] {
        let (code, p) = check_real(id, file, SERIALISED_TRANSPOSE);
        assert_eq!(code, 1, "{id}: {p}");
        let t = &p["tests"][0];
        assert_eq!(
            t["outputs"]["out"]["expected"], t["outputs"]["out"]["got"],
            "{id}: the output is right"
        );
        assert_eq!(t["diagnostics"], serde_json::json!([]), "{id}: {t}");
        // Every test far over the sectors budget of 5 (16 to 23 sectors, as the naive
        // transpose: one sector per lane in full warps), at the store's line.
        for (value, over) in figures(&p, "sectors_per_access") {
            assert!(value >= 15.0 && over, "{id}: {value} in {p}");
        }
        assert_eq!(t["perf"][0]["line"], 8, "{id}: {t}");
    }
}

#[test]
fn a_column_read_of_a_tile_issued_lane_by_lane_is_still_a_32_way_conflict() {
    let (code, p) = check_real(
        "35",
        "35_bank_conflict_free_transpose.cu",
        SERIALISED_COLUMN_READ,
    );
    assert_eq!(code, 1, "{p}");
    for (value, over) in figures(&p, "bank_ways") {
        assert!(value == 32.0 && over, "{value} in {p}");
    }
    let t = &p["tests"][0];
    let ways = (t["perf"].as_array().unwrap().iter()).find(|f| f["kind"] == "bank_ways");
    assert_eq!(
        ways.map(|f| f["line"].clone()),
        Some(Value::from(14)),
        "{t}"
    );
}

#[test]
fn the_warps_picture_groups_a_serialised_store_as_the_figure_does() {
    let dir = tempfile::tempdir().unwrap();
    gpuzzle()
        .arg("init")
        .arg(dir.path().join("ws"))
        .assert()
        .success();
    let ws = dir.path().join("ws");
    std::fs::write(
        ws.join("puzzles/34_coalesced_transpose.cu"),
        SERIALISED_TRANSPOSE,
    )
    .unwrap();
    let svg = dir.path().join("warps.svg");
    gpuzzle()
        .current_dir(&ws)
        .args(["draw", "34", "--warps", "--out"])
        .arg(&svg)
        .assert()
        .success();
    let picture = std::fs::read_to_string(&svg).unwrap();
    // One warp access of 32 lanes, not 32 accesses of one lane each.
    assert!(
        picture.contains("32 sectors of 32 bytes (at best 4)"),
        "{picture}"
    );
}
