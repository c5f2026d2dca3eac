//! WMMA as people write it with `mma.h` (`tests/kernels/wmma/`): `#include <mma.h>` compiles
//! with the CUDA headers gpuzzle finds (`crt/mma.h` comes from the `nvidia-cuda-nvcc-cu12`
//! wheel, which `.ci/run` installs), and `nvcuda::wmma` fragments with
//! `load_matrix_sync`/`mma_sync`/`store_matrix_sync` run through `gpuzzle exec` and match a
//! reference computed here: m16n16k16 f16→f32 over several tiles, m32n8k16 bf16 with
//! column-major A and an accumulator through shared memory, m8n32k16 with an f16
//! accumulator in column-major memory. Planted bugs (a wrong leading dimension, one that is not
//! a multiple of 16 bytes, half a warp at a store, a 16-thread block) are reported at the
//! learner's line with their kind.

mod exec_support;

use exec_support::exec_json;
use half::{bf16, f16};
use serde_json::Value;
use std::path::{Path, PathBuf};

const DIR: &str = "tests/kernels/wmma";

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wmma-cache")
}

/// Multiples of 1/4 in [-2, 2), from a fixed sequence: exact in f16 and bf16, and their
/// products and short sums exact in f32, so the comparisons below are exact whatever order
/// the tensor cores add in; the layouts are what is tested.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % 16) as f64 / 4.0 - 2.0
        })
        .collect()
}

/// `gpuzzle exec` of `kernel` in `file` with the named inputs written as JSON into `dir`; the
/// JSON result (exit code and diagnostics not checked).
fn run(
    dir: &Path,
    file: &str,
    kernel: &str,
    launch: &[&str],
    inputs: &[(&str, &str, &[f64])],
    rest: &[&str],
) -> (i32, Value) {
    let mut args: Vec<String> = vec![format!("{DIR}/{file}"), "--kernel".into(), kernel.into()];
    args.extend(launch.iter().map(|s| s.to_string()));
    for (name, ty, vals) in inputs {
        let path = dir.join(format!("{kernel}-{name}.json"));
        std::fs::write(&path, serde_json::to_string(vals).expect("json")).expect("write input");
        args.push("--arg".into());
        args.push(format!(
            "{name}={ty}[{}]:json={}",
            vals.len(),
            path.display()
        ));
    }
    for r in rest {
        args.push("--arg".into());
        args.push(r.to_string());
    }
    let out = exec_json(&cache(), &args);
    let v = out.json();
    assert!(!v.is_null(), "no JSON:\n{}\n{}", out.stdout, out.stderr);
    (out.code, v)
}

/// A run that must succeed without diagnostics.
fn clean(
    dir: &Path,
    file: &str,
    kernel: &str,
    launch: &[&str],
    inputs: &[(&str, &str, &[f64])],
    rest: &[&str],
) -> Value {
    let (code, v) = run(dir, file, kernel, launch, inputs, rest);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0), "{v}");
    v
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

fn f32r(x: f64) -> f64 {
    x as f32 as f64
}

fn f16r(x: f64) -> f64 {
    f16::from_f64(x).to_f64()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn m16n16k16_f16_matmul_over_several_tiles_matches_the_reference() {
    let dir = tmp();
    let (m, n, k) = (32usize, 48usize, 48usize);
    let a = values(m * k, 1);
    let b = values(k * n, 2);
    let c0 = vec![0.0; m * n];
    let v = clean(
        dir.path(),
        "matmul.cu",
        "matmul_f16",
        &["--grid", "3,2", "--block", "32"],
        &[("a", "f16", &a), ("b", "f16", &b), ("c", "f32", &c0)],
        &["m=i32:32", "n=i32:48", "k=i32:48"],
    );
    let got = floats(&v["buffers"]["c"]);
    for i in 0..m {
        for j in 0..n {
            // One mma_sync per 16 of k, each rounded to f32.
            let mut acc = 0.0;
            for kk in (0..k).step_by(16) {
                let s: f64 = (kk..kk + 16).map(|x| a[i * k + x] * b[x * n + j]).sum();
                acc = f32r(acc + s);
            }
            assert_eq!(got[i * n + j], acc, "c[{i}][{j}]");
        }
    }
    // Each lane loads its 8 elements of A and of B per step (k / 16 steps) and stores 8 of C.
    let max = &v["counters"]["max_per_thread"];
    assert_eq!(max["global_reads"], 16 * (k / 16) as u64, "{v}");
    assert_eq!(max["global_writes"], 8, "{v}");
}

#[test]
fn m16n16k16_rounds_the_exact_sum_once_to_f32() {
    // 1 + 15 products of 2^-25: added one by one in f32 each would be lost (below half an ulp
    // of 1); the emulator sums exactly and rounds once (see emu/tensor/wmma.rs), giving
    // 1 + 4 * 2^-23. Row 0 of A is [1, 2^-12, ...], column 0 of B is [1, 2^-13, ...].
    let dir = tmp();
    let mut a = vec![0.0; 16 * 16];
    let mut b = vec![0.0; 16 * 16];
    a[0] = 1.0;
    b[0] = 1.0;
    for x in 1..16 {
        a[x] = 2f64.powi(-12);
        b[x * 16] = 2f64.powi(-13);
    }
    let v = clean(
        dir.path(),
        "matmul.cu",
        "matmul_f16",
        &["--grid", "1,1", "--block", "32"],
        &[
            ("a", "f16", &a),
            ("b", "f16", &b),
            ("c", "f32", &vec![0.0; 256]),
        ],
        &["m=i32:16", "n=i32:16", "k=i32:16"],
    );
    let got = floats(&v["buffers"]["c"]);
    assert_eq!(got[0], 1.0 + 4.0 * 2f64.powi(-23));
    assert_eq!(got[1], 0.0);
}

#[test]
fn m32n8k16_bf16_with_column_major_a_and_shared_accumulator() {
    let dir = tmp();
    let k = 32usize;
    // A: 32 x k column-major ((r, x) at x * 32 + r); B: k x 8 row-major; C: 32 x 8
    // column-major in, row-major out.
    let a = values(32 * k, 3);
    let b = values(k * 8, 4);
    let c = values(32 * 8, 5);
    let as_bf16: Vec<f64> = a.iter().map(|&x| bf16::from_f64(x).to_f64()).collect();
    assert_eq!(as_bf16, a, "inputs are exact in bf16");
    let v = clean(
        dir.path(),
        "matmul.cu",
        "m32n8_bf16",
        &["--grid", "1", "--block", "32"],
        &[("a", "bf16", &a), ("b", "bf16", &b), ("c", "f32", &c)],
        &["k=i32:32"],
    );
    let got = floats(&v["buffers"]["c"]);
    for r in 0..32 {
        for col in 0..8 {
            let mut acc = c[col * 32 + r];
            for kk in (0..k).step_by(16) {
                let s: f64 = (kk..kk + 16).map(|x| a[x * 32 + r] * b[x * 8 + col]).sum();
                acc = f32r(acc + s);
            }
            assert_eq!(got[r * 8 + col], acc, "c[{r}][{col}]");
        }
    }
    // The accumulator's load and store go through shared memory: 8 elements each per lane.
    let max = &v["counters"]["max_per_thread"];
    assert!(max["shared_reads"].as_u64() >= Some(8), "{v}");
}

#[test]
fn m8n32k16_f16_accumulator_in_column_major_memory() {
    let dir = tmp();
    let k = 32usize;
    // A: 8 x k row-major; B: k x 32 column-major ((x, col) at col * k + x); C: 8 x 32
    // column-major ((r, col) at col * 8 + r), f16.
    let a = values(8 * k, 6);
    let b = values(k * 32, 7);
    let c = values(8 * 32, 8);
    let v = clean(
        dir.path(),
        "matmul.cu",
        "m8n32_f16",
        &["--grid", "1", "--block", "32"],
        &[("a", "f16", &a), ("b", "f16", &b), ("c", "f16", &c)],
        &["k=i32:32"],
    );
    let got = floats(&v["buffers"]["c"]);
    for r in 0..8 {
        for col in 0..32 {
            let mut acc = c[col * 8 + r];
            for kk in (0..k).step_by(16) {
                let s: f64 = (kk..kk + 16).map(|x| a[r * k + x] * b[col * k + x]).sum();
                acc = f16r(acc + s);
            }
            assert_eq!(got[col * 8 + r], acc, "c[{r}][{col}]");
        }
    }
}

/// The (kind, line) of each diagnostic.
fn kinds_and_lines(v: &Value) -> Vec<(String, u64)> {
    v["diagnostics"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    (
                        d["kind"].as_str().unwrap_or("").to_string(),
                        d["line"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_wrong_leading_dimension_is_out_of_bounds_at_the_learners_line() {
    let dir = tmp();
    // A is 32 x 16 (512 halves) but loaded with B's row length (32): the second tile row
    // starts at a[16 * 32], past A's end.
    let (code, v) = run(
        dir.path(),
        "bugs.cu",
        "wrong_ldm",
        &["--grid", "2,2", "--block", "32"],
        &[
            ("a", "f16", &values(512, 1)),
            ("b", "f16", &values(512, 2)),
            ("c", "f32", &vec![0.0; 1024]),
        ],
        &["m=i32:32", "n=i32:32", "k=i32:16"],
    );
    assert_ne!(code, 0, "{v}");
    let found = kinds_and_lines(&v);
    assert_eq!(found, vec![("out-of-bounds".to_string(), 15)], "{v}");
    let message = v["diagnostics"][0]["message"].as_str().unwrap_or("");
    assert!(message.contains("a[512]"), "{message}");
}

#[test]
fn a_leading_dimension_not_a_multiple_of_16_bytes_is_misaligned() {
    let dir = tmp();
    let (code, v) = run(
        dir.path(),
        "bugs.cu",
        "odd_ldm",
        &["--grid", "1", "--block", "32"],
        &[("a", "f16", &values(512, 1)), ("c", "f32", &vec![0.0; 256])],
        &[],
    );
    assert_ne!(code, 0, "{v}");
    let found = kinds_and_lines(&v);
    assert_eq!(found.first(), Some(&("misaligned".to_string(), 28)), "{v}");
}

#[test]
fn half_a_warp_at_a_store_is_a_warp_sync_error_at_the_call() {
    let dir = tmp();
    let (code, v) = run(
        dir.path(),
        "bugs.cu",
        "half_warp",
        &["--grid", "1", "--block", "32"],
        &[("a", "f16", &values(256, 1)), ("c", "f32", &vec![0.0; 256])],
        &[],
    );
    assert_ne!(code, 0, "{v}");
    assert_eq!(
        kinds_and_lines(&v),
        vec![("warp-sync".to_string(), 44)],
        "{v}"
    );
    // The help (text output) names the guard and asks for the whole warp.
    let out = assert_cmd::Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GPUZZLE_CACHE_DIR", cache())
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .args(["exec", &format!("{DIR}/bugs.cu"), "--kernel", "half_warp"])
        .args(["--grid", "1", "--block", "32"])
        .args(["--arg", "a=f16[256]:ones", "--arg", "c=f32[256]:zeros"])
        .output()
        .expect("run gpuzzle");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("if (threadIdx.x < 16)") && text.contains("all 32 lanes"),
        "{text}"
    );
}

#[test]
fn a_block_of_16_threads_cannot_run_wmma() {
    let dir = tmp();
    let (code, v) = run(
        dir.path(),
        "bugs.cu",
        "half_warp",
        &["--grid", "1", "--block", "16"],
        &[("a", "f16", &values(256, 1)), ("c", "f32", &vec![0.0; 256])],
        &[],
    );
    assert_ne!(code, 0, "{v}");
    assert_eq!(
        kinds_and_lines(&v).first(),
        Some(&("warp-sync".to_string(), 40)),
        "{v}"
    );
}

#[test]
fn doctor_says_whether_mma_h_can_be_included() {
    let out = assert_cmd::Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .env("NO_COLOR", "1")
        .arg("doctor")
        .output()
        .expect("run gpuzzle");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("WMMA"))
        .unwrap_or_else(|| panic!("no WMMA line:\n{text}"));
    // `.ci/run` installs the nvcc wheel, so it is found here.
    assert!(
        line.starts_with("ok") && line.contains("crt/mma.h"),
        "{line}"
    );
}

/// Why GPU tests skip here, or None when there is a GPU.
fn no_gpu() -> Option<String> {
    gpuzzle::gpu::probe::probe().err()
}

/// `gpuzzle exec ARGS --format json` on `backend`: the buffers (exit code 0 asserted).
fn buffers_on(backend: &str, args: &[String]) -> Value {
    let out = assert_cmd::Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GPUZZLE_CACHE_DIR", cache())
        .env("NO_COLOR", "1")
        .arg("exec")
        .args(args)
        .args(["--backend", backend, "--format", "json"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{backend}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    v["buffers"].clone()
}

/// On a GPU, the tensor cores and the emulator give the same products (the inputs make every
/// sum exact) and the same fragment layout (what each lane's `frag.x[i]` holds after a load):
/// the emulator's layout is the hardware's. Skips, saying why, without a GPU.
#[test]
fn on_a_gpu_products_and_fragment_layouts_match_the_emulator() {
    if let Some(why) = no_gpu() {
        eprintln!(
            "SKIPPED on_a_gpu_products_and_fragment_layouts_match_the_emulator: no GPU ({why})"
        );
        return;
    }
    let dir = tmp();
    let write = |name: &str, vals: &[f64]| {
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_string(vals).expect("json")).expect("write input");
        path.display().to_string()
    };
    let (a, b) = (values(32 * 48, 1), values(48 * 48, 2));
    let matmul: Vec<String> = [
        format!("{DIR}/matmul.cu"),
        "--kernel=matmul_f16".into(),
        "--grid=3,2".into(),
        "--block=32".into(),
        format!("--arg=a=f16[{}]:json={}", a.len(), write("a", &a)),
        format!("--arg=b=f16[{}]:json={}", b.len(), write("b", &b)),
        "--arg=c=f32[1536]:zeros".into(),
        "--arg=m=i32:32".into(),
        "--arg=n=i32:48".into(),
        "--arg=k=i32:48".into(),
    ]
    .into();
    assert_eq!(buffers_on("gpu", &matmul), buffers_on("emu", &matmul));
    let layout: Vec<String> = [
        format!("{DIR}/layout.cu"),
        "--kernel=fragment_layout".into(),
        "--grid=1".into(),
        "--block=32".into(),
        "--arg=out_a=f32[512]:zeros".into(),
        "--arg=out_b=f32[512]:zeros".into(),
        "--arg=out_c=f32[256]:zeros".into(),
        "--arg=a=f16[256]:arange".into(),
        "--arg=b=f16[256]:arange".into(),
        "--arg=c=f32[256]:arange".into(),
    ]
    .into();
    let (gpu, emu) = (buffers_on("gpu", &layout), buffers_on("emu", &layout));
    for name in ["out_c", "out_a", "out_b"] {
        assert_eq!(
            gpu[name], emu[name],
            "{name}: the GPU's fragment layout (left) is not the emulator's (right)"
        );
    }
}

/// `gpuzzle exec` of `args` with warps in lockstep (the default) and with
/// `GPUZZLE_LOCKSTEP=off` (one thread at a time): exit code and JSON (buffers, diagnostics,
/// counters, instruction counts).
fn lockstep_on_and_off(args: &[&str]) -> [(i32, Value); 2] {
    ["on", "off"].map(|mode| {
        let out = assert_cmd::Command::cargo_bin("gpuzzle")
            .expect("the gpuzzle binary")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("GPUZZLE_CACHE_DIR", cache())
            .env("NO_COLOR", "1")
            .env("GPUZZLE_BACKEND", "emu")
            .env("GPUZZLE_LOCKSTEP", mode)
            .arg("exec")
            .args(args)
            .args(["--format", "json"])
            .output()
            .expect("run gpuzzle");
        let v: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{mode}: no JSON: {e}"));
        (out.status.code().unwrap_or(-1), v)
    })
}

#[test]
fn wmma_in_lockstep_gives_what_one_thread_at_a_time_gives() {
    // A warp that reaches each WMMA instruction together runs it inside its lockstep run;
    // everything must be what the one-thread-at-a-time schedule gives, bugs included.
    let cases: [&[&str]; 6] = [
        &[
            "tests/kernels/wmma/matmul.cu",
            "--kernel",
            "matmul_f16",
            "--grid",
            "3,2",
            "--block",
            "32",
            "--arg",
            "a=f16[1536]:rand=7",
            "--arg",
            "b=f16[2304]:rand=7",
            "--arg",
            "c=f32[1536]:zeros",
            "--arg",
            "m=i32:32",
            "--arg",
            "n=i32:48",
            "--arg",
            "k=i32:48",
        ],
        &[
            "tests/kernels/wmma/matmul.cu",
            "--kernel",
            "m32n8_bf16",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "a=bf16[1024]:rand=7",
            "--arg",
            "b=bf16[256]:rand=7",
            "--arg",
            "c=f32[256]:rand=7",
            "--arg",
            "k=i32:32",
        ],
        &[
            "tests/kernels/wmma/matmul.cu",
            "--kernel",
            "m8n32_f16",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "a=f16[256]:rand=7",
            "--arg",
            "b=f16[1024]:rand=7",
            "--arg",
            "c=f16[256]:rand=7",
            "--arg",
            "k=i32:32",
        ],
        &[
            "tests/kernels/wmma/bugs.cu",
            "--kernel",
            "wrong_ldm",
            "--grid",
            "2,2",
            "--block",
            "32",
            "--arg",
            "a=f16[512]:rand=7",
            "--arg",
            "b=f16[512]:rand=7",
            "--arg",
            "c=f32[1024]:zeros",
            "--arg",
            "m=i32:32",
            "--arg",
            "n=i32:32",
            "--arg",
            "k=i32:16",
        ],
        &[
            "tests/kernels/wmma/bugs.cu",
            "--kernel",
            "odd_ldm",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "a=f16[512]:rand=7",
            "--arg",
            "c=f32[256]:zeros",
        ],
        &[
            "tests/kernels/wmma/bugs.cu",
            "--kernel",
            "half_warp",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "a=f16[256]:ones",
            "--arg",
            "c=f32[256]:zeros",
        ],
    ];
    for args in cases {
        let [on, off] = lockstep_on_and_off(args);
        assert_eq!(on.0, off.0, "{args:?}: exit codes");
        assert_eq!(on.1, off.1, "{args:?}");
        assert!(on.1["buffers"].is_object(), "{args:?}: {}", on.1);
    }
}
