//! Kernels written the way CUDA tutorials write them (`tests/kernels/tutorial/`):
//! CUDA's own headers, host headers included out of habit, device printf, the
//! learner's own headers, nvcc's predefined macros. Each runs through
//! `gpuzzle exec` and is checked against a Rust reference. Needs the CUDA
//! header wheels beside NVRTC (`.ci/run` installs them).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const DIR: &str = "tests/kernels/tutorial";

fn gpuzzle(cache: &Path) -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env("GPUZZLE_CACHE_DIR", cache);
    c.env("NO_COLOR", "1").env("GPUZZLE_BACKEND", "emu");
    c
}

fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cuda-headers-cache")
}

/// Runs `gpuzzle exec ARGS --format json` and returns (exit code, JSON or
/// Null, stderr).
fn exec_in(cache: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = gpuzzle(cache)
        .arg("exec")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr)
}

fn exec(args: &[&str]) -> Value {
    let (code, json, stderr) = exec_in(&shared_cache(), args);
    assert_eq!(code, 0, "{args:?}\n{json}\n{stderr}");
    assert_eq!(json["ok"], true, "{json}");
    json
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

fn kernel(name: &str) -> String {
    format!("{DIR}/{name}")
}

#[test]
fn cooperative_groups_reduce_sums_every_tile() {
    let file = kernel("cg_reduce.cu");
    let v = exec(&[
        &file,
        "--kernel",
        "reduce_tiles",
        "--grid",
        "4",
        "--block",
        "96",
        "--arg",
        "x=f32[350]:rand=3",
        "--arg",
        "out=f32[1]:zeros",
        "--arg",
        "n=i32:350",
    ]);
    let x = floats(&v["buffers"]["x"]);
    assert_eq!(x.len(), 350);
    let expected: f64 = x.iter().sum();
    let got = floats(&v["buffers"]["out"])[0];
    assert!(
        (got - expected).abs() <= 1e-4 * expected.abs().max(1.0),
        "sum {got}, expected {expected}"
    );
}

#[test]
fn cooperative_groups_shuffles_and_block_sync_find_each_blocks_max() {
    let file = kernel("cg_reduce.cu");
    let v = exec(&[
        &file,
        "--kernel",
        "block_max",
        "--grid",
        "3",
        "--block",
        "64",
        "--arg",
        "x=i32[170]:rand=11",
        "--arg",
        "out=i32[3]:zeros",
        "--arg",
        "n=i32:170",
    ]);
    let x = floats(&v["buffers"]["x"]);
    let expected: Vec<f64> = x
        .chunks(64)
        .map(|block| block.iter().copied().fold(f64::MIN, f64::max))
        .collect();
    assert_eq!(floats(&v["buffers"]["out"]), expected);
}

#[test]
fn host_headers_are_harmless_and_device_printf_prints() {
    let file = kernel("hello_printf.cu");
    let v = exec(&[
        &file,
        "--kernel",
        "hello",
        "--grid",
        "3",
        "--block",
        "4",
        "--arg",
        "ids=i32[12]:zeros",
    ]);
    let expected: Vec<f64> = (0..12).map(|i| f64::from(i * 10)).collect();
    assert_eq!(floats(&v["buffers"]["ids"]), expected);
    let stdout = v["stdout"].as_str().unwrap_or_default();
    let mut lines: Vec<&str> = stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        vec![
            "Hello from block 0",
            "Hello from block 1",
            "Hello from block 2"
        ]
    );
}

#[test]
fn own_headers_beside_the_file_and_from_dash_i() {
    let file = kernel("local_header.cu");
    // -I is relative to the kernel file, not to the working directory.
    let v = exec(&[
        &file,
        "-I",
        "include",
        "--kernel",
        "saxpy",
        "--grid",
        "2",
        "--block",
        "8",
        "--arg",
        "x=f32[13]:arange",
        "--arg",
        "y=f32[13]:fill=0.5",
        "--arg",
        "n=i32:13",
    ]);
    let expected: Vec<f64> = (0..13).map(|i| 2.0 * f64::from(i) + 0.5).collect();
    assert_eq!(floats(&v["buffers"]["y"]), expected);

    // Without -I the angle include is not found, and the message says how.
    let (code, json, stderr) = exec_in(
        &shared_cache(),
        &[
            &file,
            "--kernel",
            "saxpy",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "x=f32[1]:zeros",
            "--arg",
            "y=f32[1]:zeros",
            "--arg",
            "n=i32:1",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let error = json.to_string();
    assert!(error.contains("saxpy_params.h"), "{error}");
    assert!(error.contains("-I DIR"), "{error}");
}

#[test]
fn an_unchanged_header_is_served_from_the_cache_and_a_changed_one_recompiles() {
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;
    let work = tempfile::tempdir().expect("temp dir");
    let cache = work.path().join("cache");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
    std::fs::create_dir_all(work.path().join("include")).expect("mkdir");
    for name in [
        "local_header.cu",
        "tutorial_util.h",
        "include/saxpy_params.h",
    ] {
        std::fs::copy(src.join(name), work.path().join(name)).expect("copy");
    }
    let file = work.path().join("local_header.cu").display().to_string();
    let args = [
        file.as_str(),
        "-I",
        "include",
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "x=f32[4]:arange",
        "--arg",
        "y=f32[4]:zeros",
        "--arg",
        "n=i32:4",
    ];
    let entries = || -> Vec<(PathBuf, u64)> {
        let mut found: Vec<(PathBuf, u64)> = std::fs::read_dir(&cache)
            .expect("cache dir")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .map(|p| {
                let meta = std::fs::metadata(&p).expect("metadata");
                #[cfg(unix)]
                let id = meta.ino();
                #[cfg(not(unix))]
                let id = meta.len();
                (p, id)
            })
            .collect();
        found.sort();
        found
    };

    let (code, first, stderr) = exec_in(&cache, &args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(floats(&first["buffers"]["y"]), vec![0.0, 2.0, 4.0, 6.0]);
    let after_first = entries();
    assert_eq!(after_first.len(), 1, "{after_first:?}");

    // Unchanged: the entry is read, never rewritten (a rewrite is a new file).
    let (code, second, stderr) = exec_in(&cache, &args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(second["buffers"], first["buffers"]);
    assert_eq!(entries(), after_first);

    // The header included through -I changes: a new compile, a new entry.
    std::fs::write(
        work.path().join("include/saxpy_params.h"),
        "#pragma once\n#define SAXPY_A 3.0f\n",
    )
    .expect("write header");
    let (code, third, stderr) = exec_in(&cache, &args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(floats(&third["buffers"]["y"]), vec![0.0, 3.0, 6.0, 9.0]);
    assert_eq!(entries().len(), 2);
}

#[test]
fn nvcc_macros_and_std_headers_work() {
    let values = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvcc-habits-x.json");
    std::fs::write(&values, "[3.5, -1.0, 7.25, -2.5]").expect("write values");
    let x = format!("x=f32[4]:json={}", values.display());
    let file = kernel("nvcc_habits.cu");
    let v = exec(&[
        &file,
        "--kernel",
        "min_max",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        &x,
        "--arg",
        "out=f32[3]:zeros",
        "--arg",
        "counts=i32[2]:fill=-1",
        "--arg",
        "n=i32:4",
    ]);
    let out = floats(&v["buffers"]["out"]);
    assert_eq!(&out[..2], &[-2.5, 7.25]);
    assert!(
        (out[2] - f64::from(std::f32::consts::PI)).abs() < 1e-6,
        "{out:?}"
    );
    assert_eq!(floats(&v["buffers"]["counts"]), vec![2.0, 0.0]);
}

#[test]
fn pow_on_integers_is_refused_with_what_to_write_instead() {
    let file = kernel("int_pow.cu");
    let out = gpuzzle(&shared_cache())
        .args([
            "exec",
            &file,
            "--kernel",
            "squares",
            "--grid",
            "1",
            "--block",
            "4",
            "--arg",
            "out=i32[4]:zeros",
        ])
        .output()
        .expect("run gpuzzle");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("int_pow.cu:4"), "{stderr}");
    assert!(stderr.contains("powf((float)a, (float)b)"), "{stderr}");
}
