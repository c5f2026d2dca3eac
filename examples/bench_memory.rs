//! Peak memory of one puzzle test with large buffers, through the judge as `gpuzzle run` runs
//! it (spec reference run, input generation, the learner's launch, the result diff), against
//! the bytes of the test's buffers. Issue 36 asks for a peak under 4 times those bytes. Run:
//!     cargo run --release --example bench_memory -- [MiB of input, default 384]
//!
//! The puzzle is a strided map: `out[i] = a[i * STRIDE] + 10` for `N` = 2^20 elements, with `a`
//! holding `N * STRIDE` floats, so the input is large while the emulator runs few instructions.
//! A small test of the same puzzle runs first: compiling (with an empty cache) and judging it
//! is the base (NVRTC's own memory, the same for any size); the peak (`VmHWM`, reset through `/proc/self/clear_refs`
//! before each) of the large test is read above that base.
use gpuzzle::judge::{judge, JudgeOptions};
use std::path::Path;

const N: u64 = 1 << 20;

fn status_kb(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn puzzle_toml(n: u64, stride: u64) -> String {
    format!(
        r#"id = 1
slug = "strided"
title = "Strided map"
part = "Memory"
kernel = "strided"
params = ["out", "a"]
defines = {{ N = {n}, STRIDE = {stride} }}
step_limit = 400_000_000
description = "out[i] = a[i * STRIDE] + 10"
spec = """
for (int i = 0; i < N; i++) {{
    out[i] = a[(long long)i * STRIDE] + 10.0f;
}}
"""
tolerance = {{ abs = 0.0, rel = 0.0 }}

[[test]]
name = "large"
grid = [64]
block = [256]
buffers.a = {{ len = {len}, init = "random", seed = 1 }}
buffers.out = {{ len = {n}, output = true }}
"#,
        len = n * stride
    )
}

const KERNEL: &str = r#"
extern "C" __global__ void strided(float* out, const float* a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) {
        out[i] = a[(long long)i * STRIDE] + 10.0f;
    }
}
"#;

/// Judge the strided map over `n` outputs with `stride`, from a fresh puzzle directory.
fn judge_once(dir: &Path, n: u64, stride: u64) -> bool {
    std::fs::write(dir.join("01_strided.toml"), puzzle_toml(n, stride)).expect("write puzzle");
    std::fs::write(dir.join("01_strided.cu"), KERNEL).expect("write starter");
    let puzzles = gpuzzle::puzzle::load_dir(dir).expect("the puzzle loads");
    let opts = JudgeOptions::default();
    let outcome = judge(&puzzles[0], "strided.cu", KERNEL, &opts).expect("judged");
    if let Some(e) = &outcome.compile_error {
        panic!("{e}");
    }
    outcome.tests.iter().all(|t| {
        if let Some(e) = &t.error {
            eprintln!("{}: {e}", t.name);
        }
        t.passed
    })
}

fn main() {
    let mib: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(384);
    let dir = std::env::temp_dir().join(format!("gpuzzle-bench-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // An empty compile cache: both tests compile (NVRTC's memory is in the base either way).
    std::env::set_var("GPUZZLE_CACHE_DIR", dir.join("cache"));
    // Compiling (NVRTC) and judging cost the same for any buffer size: the small test's peak
    // is the base the large one's is measured from.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    assert!(judge_once(&dir, 1024, 4), "the small test fails");
    let base_kb = status_kb("VmHWM:");
    let stride = (mib << 20) / (4 * N);
    let bytes = 4 * N * stride + 4 * N;
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let started = std::time::Instant::now();
    let passed = judge_once(&dir, N, stride);
    let secs = started.elapsed().as_secs_f64();
    let peak_kb = status_kb("VmHWM:");
    let _ = std::fs::remove_dir_all(&dir);
    let extra = peak_kb.saturating_sub(base_kb) * 1024;
    println!(
        "buffers {:.0} MiB (a {} floats, out {} floats); peak {:.0} MiB, a small test's {:.0} MiB{}",
        bytes as f64 / 1048576.0,
        N * stride,
        N,
        peak_kb as f64 / 1024.0,
        base_kb as f64 / 1024.0,
        if reset { "" } else { " (peaks not reset: /proc/self/clear_refs)" }
    );
    println!(
        "peak above a small test's: {:.0} MiB = {:.2} x the buffers (target under 4); test {} in {secs:.1} s",
        extra as f64 / 1048576.0,
        extra as f64 / bytes as f64,
        if passed { "passed" } else { "FAILED" }
    );
}
