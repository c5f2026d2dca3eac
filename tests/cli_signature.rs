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
