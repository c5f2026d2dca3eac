//! `exec --format json` writes every f32 as the shortest decimal that reads back as the same
//! double: a script in any language that parses the JSON (as doubles) gets the kernel's values
//! bit for bit. Checked here the way such a script would: parse as f64, compare bits with the
//! Rust reference's f32 widened.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

/// Divisions only: NVRTC rounds `/` as IEEE does by default (`-prec-div=true`), so Rust's f32
/// division is the exact reference (a product and a sum could be fused into an FMA).
const KERNEL: &str = r#"
extern "C" __global__ void sevenths(float* out, const float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (float)(i + 1) / 7.0f;
        out[n + i] = a[i] / 3.0f;
    }
}
"#;

const N: usize = 300;

fn exec_json(dir: &std::path::Path) -> Value {
    let file = dir.join("sevenths.cu");
    std::fs::write(&file, KERNEL).unwrap_or_else(|e| panic!("{e}"));
    let out = Command::cargo_bin("gpuzzle")
        .unwrap_or_else(|e| panic!("{e}"))
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("exec-json-exact-cache"),
        )
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .arg("exec")
        .arg(&file)
        .args(["--kernel", "sevenths", "--grid", "3", "--block", "128"])
        .args(["--arg", &format!("out=f32[{}]:zeros", 2 * N)])
        .args(["--arg", &format!("a=f32[{N}]:rand=5")])
        .args(["--arg", &format!("n=i32:{N}")])
        .args(["--format", "json"])
        .output()
        .unwrap_or_else(|e| panic!("run gpuzzle: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The numbers of a buffer as a JSON reader sees them: doubles.
fn doubles(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

fn same_bits(got: f64, want: f32) -> bool {
    got.to_bits() == f64::from(want).to_bits()
}

#[test]
fn f32_buffers_read_back_bit_exact_as_doubles() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let v = exec_json(dir.path());
    let a = doubles(&v["buffers"]["a"]);
    let out = doubles(&v["buffers"]["out"]);
    assert_eq!((a.len(), out.len()), (N, 2 * N));

    // The random inputs: each double is an f32 exactly (the value the kernel read).
    for (i, &x) in a.iter().enumerate() {
        assert!(
            same_bits(x, x as f32),
            "a[{i}] = {x} is no f32's exact value"
        );
    }
    for i in 0..N {
        let sevenths = (i as f32 + 1.0) / 7.0;
        assert!(
            same_bits(out[i], sevenths),
            "out[{i}] = {} but the kernel computed {sevenths:e} = {}",
            out[i],
            f64::from(sevenths)
        );
        let third = (a[i] as f32) / 3.0;
        assert!(
            same_bits(out[N + i], third),
            "out[{}] = {}",
            N + i,
            out[N + i]
        );
    }
    // The form the issue names: 1/7 as a double, not f32's shortest "0.14285715".
    let text = v["buffers"]["out"][0].to_string();
    assert_eq!(text, "0.1428571492433548");
}
