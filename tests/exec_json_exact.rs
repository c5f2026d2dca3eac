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

/// (stdout, its JSON).
fn exec_json(dir: &std::path::Path) -> (String, Value) {
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
    let v =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    (stdout.into_owned(), v)
}

/// The numbers of buffer `name` as a JSON reader sees them: doubles, each read from its text
/// with a correctly rounded parser (Rust's, as Python's and JavaScript's are; serde_json's
/// default float parser may be one unit in the last place off, so it is not used for values).
fn doubles(stdout: &str, v: &Value, name: &str) -> Vec<f64> {
    let start = stdout
        .find(&format!("\"{name}\":["))
        .unwrap_or_else(|| panic!("no buffer {name} in {stdout}"))
        + name.len()
        + 4;
    let end = start + stdout[start..].find(']').unwrap_or(0);
    let values: Vec<f64> = stdout[start..end]
        .split(',')
        .map(|text| {
            text.parse()
                .unwrap_or_else(|e| panic!("{name}: `{text}` is not a number: {e}"))
        })
        .collect();
    // The text found is the buffer the JSON holds.
    assert_eq!(
        Some(values.len()),
        v["buffers"][name].as_array().map(Vec::len),
        "{name}"
    );
    values
}

fn same_bits(got: f64, want: f32) -> bool {
    got.to_bits() == f64::from(want).to_bits()
}

#[test]
fn f32_buffers_read_back_bit_exact_as_doubles() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (stdout, v) = exec_json(dir.path());
    let a = doubles(&stdout, &v, "a");
    let out = doubles(&stdout, &v, "out");
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
    assert!(stdout.contains("\"out\":[0.1428571492433548,"), "{stdout}");
}
