//! A kernel whose parameters do not match what gpuzzle passes is an error naming both sides,
//! never a silent run on reinterpreted bits. These need NVRTC
//! (`pip install nvidia-cuda-nvrtc-cu12`); without it they fail and say so.

use assert_cmd::Command;

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

#[test]
fn a_float_passed_for_an_int_parameter_is_a_signature_error() {
    let dir = tempfile::tempdir().unwrap();
    let cu = dir.path().join("scale.cu");
    std::fs::write(
        &cu,
        "extern \"C\" __global__ void scale(float* out, int n, float alpha) {\n    int i = threadIdx.x;\n    if (i < n) out[i] = alpha * i;\n}\n",
    )
    .unwrap();
    // `alpha` and `n` given in the wrong order: same sizes, other kinds.
    let out = gpuzzle()
        .arg("exec")
        .arg(&cu)
        .args(["--kernel", "scale", "--grid", "1", "--block", "4"])
        .args([
            "--arg",
            "out=f32[4]:zeros",
            "--arg",
            "alpha=f32:0.5",
            "--arg",
            "n=i32:4",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("argument 2 is a floating-point f32 scalar")
            && err.contains("declared an integer (.u32)")
            && err.contains("swapped"),
        "{err}"
    );
}

#[test]
fn a_starter_whose_scalar_changed_type_is_told_the_declared_signature() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    std::fs::write(
        ws.join("puzzles/03_guard.cu"),
        "extern \"C\" __global__ void guard(float* out, const float* a, float size) {\n    int i = threadIdx.x;\n    if (i < size) out[i] = a[i] + 10.0f;\n}\n",
    )
    .unwrap();
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["run", "3"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("argument 3 is an integer i32 scalar")
            && text.contains("declared floating-point (.f32)")
            && text.contains(
                "extern \"C\" __global__ void guard(float* out, const float* a, int size)"
            ),
        "{text}"
    );
}

/// Map (puzzle 1) with its kernel renamed `map2`.
const RENAMED: &str = "extern \"C\" __global__ void map2(float* out, const float* a) {\n    int i = threadIdx.x;\n    out[i] = a[i] + 10.0f;\n}\n";

#[test]
fn a_renamed_or_deleted_kernel_is_one_error_naming_what_the_file_defines() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    std::fs::write(ws.join("puzzles/01_map.cu"), RENAMED).unwrap();
    let run = |args: &[&str]| {
        let out = gpuzzle().current_dir(&ws).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let expected = "puzzles/01_map.cu has no kernel `map`; it defines `map2`: rename it back, or check `extern \"C\" __global__ void map(float* out, const float* a)`";

    let (code, text) = run(&["run", "1"]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(text.matches(expected).count(), 1, "{text}");
    assert!(text.contains(&format!("\n  error: {expected}\n")), "{text}");
    assert!(
        text.lines()
            .next()
            .unwrap_or("")
            .ends_with("KERNEL NOT FOUND"),
        "{text}"
    );
    // No test ran: no per-test lines and no memory table.
    assert!(!text.contains("FAILED"), "{text}");
    assert!(!text.contains("memory per thread"), "{text}");

    let (code, json) = run(&["check", "1", "--format", "json"]);
    assert_eq!(code, Some(1), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let p = &v["puzzles"][0];
    assert_eq!(p["passed"], false);
    assert_eq!(p["compile_error"], expected);
    assert_eq!(p["missing_kernel"], "map");
    assert_eq!(p["tests"], serde_json::json!([]));

    // `check --all` still grades the others: puzzle 2's starter fails on its outputs.
    let (code, table) = run(&["check", "--all"]);
    assert_eq!(code, Some(1), "{table}");
    assert!(
        table.contains("FAIL  puzzles/01_map.cu has no kernel `map`; it defines `map2`"),
        "{table}"
    );
    assert!(
        table.contains(" 2  zip ") && table.contains("elements differ in out"),
        "{table}"
    );

    // No kernel at all.
    std::fs::write(
        ws.join("puzzles/01_map.cu"),
        "__device__ float plus_ten(float x) { return x + 10.0f; }\n",
    )
    .unwrap();
    let (code, text) = run(&["run", "1"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("  error: puzzles/01_map.cu has no kernel `map`; it defines no `__global__` function: put the kernel back as the starter declares it: `extern \"C\" __global__ void map(float* out, const float* a)`; or `gpuzzle reset 1` puts the starter back (your file is saved in .gpuzzle/backup/ first)\n"),
        "{text}"
    );
    assert!(!text.contains("memory per thread"), "{text}");
}
