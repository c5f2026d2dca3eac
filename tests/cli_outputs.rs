//! Outputs start as garbage, as `cudaMalloc`'d memory does: through the real binary, an
//! element no thread writes fails the test and is named ("out[0] was never written"), the
//! reference still passes, and a wrong output gets the pattern of its difference. Kernels are
//! compiled, so these need NVRTC (`pip install nvidia-cuda-nvrtc-cu12`).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("COLUMNS", "400")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// A fresh workspace made by `gpuzzle init`: (its temporary parent, the workspace).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    (dir, ws)
}

/// `gpuzzle run ID` on `kernel` written over the puzzle's file: (exit code, stdout).
fn run_with(ws: &Path, file: &str, id: &str, kernel: &str) -> (Option<i32>, String) {
    std::fs::write(ws.join("puzzles").join(file), kernel).unwrap();
    let out = gpuzzle()
        .current_dir(ws)
        .args(["run", id])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn repo(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn a_scan_that_never_writes_out0_fails_by_name_and_the_reference_passes() {
    let (_dir, ws) = workspace();
    let lazy = repo("solutions/lazy/20_blelloch_scan/skips_out0.cu");
    let (code, text) = run_with(&ws, "20_blelloch_scan.cu", "20", &lazy);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("out[0] was never written: on a GPU it would hold whatever was in memory"),
        "{text}"
    );
    // Nothing else went wrong: the puzzle's own hint for a wrong output, its first rung.
    assert!(
        text.contains("The puzzle's hint for a wrong output (rung 1; `gpuzzle hint 20` has more): This scan is exclusive"),
        "{text}"
    );
    let reference = repo("solutions/20_blelloch_scan.cu");
    let (code, text) = run_with(&ws, "20_blelloch_scan.cu", "20", &reference);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn an_inclusive_scan_for_an_exclusive_one_is_said_to_be_shifted() {
    let (_dir, ws) = workspace();
    // Writes s[t] after an inclusive Hillis-Steele scan: each value one place early.
    let kernel = r#"extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    __shared__ float s[N];
    int t = threadIdx.x;
    s[t] = t < size ? a[t] : 0.0f;
    s[t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
    for (int stride = 1; stride < N; stride *= 2) {
        __syncthreads();
        float x0 = t >= stride ? s[t - stride] : 0.0f;
        float x1 = s[t + TPB - stride];
        __syncthreads();
        s[t] += x0;
        s[t + TPB] += x1;
    }
    __syncthreads();
    if (t < size) out[t] = s[t];
    if (t + TPB < size) out[t + TPB] = s[t + TPB];
}
"#;
    let (code, text) = run_with(&ws, "20_blelloch_scan.cu", "20", kernel);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("out[i] holds what belongs in out[i + 1]"),
        "{text}"
    );
}

#[test]
fn a_row_never_written_is_named_by_row_and_column() {
    let (_dir, ws) = workspace();
    // Puzzle 24's first test is a 5 x 3 `out`: a guard that stops at row 3 leaves row 4.
    let kernel = r#"extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M - 1 && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += a[row * K + k] * b[k * N + col];
        }
        out[row * N + col] = sum;
    }
}
"#;
    let (code, text) = run_with(&ws, "24_matmul_naive.cu", "24", kernel);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("out[12] (row 4, column 0), out[13] (row 4, column 1) and out[14] (row 4, column 2) were never written: on a GPU they would hold whatever was in memory"),
        "{text}"
    );
}
