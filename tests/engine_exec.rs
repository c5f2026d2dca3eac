//! `gpuzzle exec` through the real binary: the JSON it prints and its exit codes
//! (0 ran cleanly, 1 a diagnostic or a compile error, 2 a usage error).

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

fn kernels(name: &str) -> String {
    format!("tests/kernels/{name}.cu")
}

/// The binary, run in the crate root, with its PTX cache under the target directory.
fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env(
        "GPUZZLE_CACHE_DIR",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-exec-cache"),
    );
    // Exit codes here follow the emulator's diagnostics: pin the backend (a GPU run has fewer checks).
    c.env("NO_COLOR", "1").env("GPUZZLE_BACKEND", "emu");
    c
}

fn exec(args: &[&str]) -> (i32, String, String) {
    let out = gpuzzle()
        .arg("exec")
        .args(args)
        .output()
        .expect("run gpuzzle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn a_clean_run_prints_buffers_counters_and_exits_0() {
    let file = kernels("basics");
    let (code, out, err) = exec(&[
        &file,
        "--kernel",
        "map_guard",
        "--grid",
        "2",
        "--block",
        "4",
        "--arg",
        "out=f32[6]:zeros",
        "--arg",
        "a=f32[6]:arange",
        "--arg",
        "size=i32:6",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let v = json(&out);
    assert_eq!(v["ok"], true);
    assert_eq!(
        v["buffers"]["out"],
        serde_json::json!([1.0, 3.0, 5.0, 7.0, 9.0, 11.0])
    );
    assert_eq!(v["buffers"]["a"].as_array().map(|a| a.len()), Some(6));
    assert_eq!(v["stdout"], "");
    assert_eq!(v["diagnostics"], serde_json::json!([]));
    for k in [
        "global_reads",
        "global_writes",
        "shared_reads",
        "shared_writes",
    ] {
        assert!(v["counters"]["max_per_thread"][k].is_u64(), "{k}: {v}");
        assert!(v["counters"]["total"][k].is_u64(), "{k}: {v}");
    }
    assert_eq!(v["counters"]["total"]["global_writes"], 6);
    assert_eq!(v["counters"]["max_per_thread"]["global_reads"], 1);
}

#[test]
fn a_diagnostic_is_in_the_json_and_exits_1() {
    let file = kernels("bugs");
    let (code, out, err) = exec(&[
        &file,
        "--kernel",
        "oob_write",
        "--grid",
        "1",
        "--block",
        "10",
        "--arg",
        "out=f32[8]:zeros",
        "--arg",
        "a=f32[8]:ones",
        "--arg",
        "size=i32:8",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    assert_eq!(v["ok"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(d["kind"], "out-of-bounds");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], file.as_str());
    assert_eq!(d["line"], 5);
    assert_eq!(d["block"], serde_json::json!([0, 0, 0]));
    assert_eq!(d["thread"], serde_json::json!([8, 0, 0]));
    assert!(
        d["message"].as_str().unwrap_or("").contains("out[8]"),
        "{d}"
    );
    assert_eq!(v["diagnostics"].as_array().map(|a| a.len()), Some(1));
}

#[test]
fn printf_output_and_dynamic_shared_memory_through_exec() {
    let file = kernels("misc");
    let (code, out, err) = exec(&[
        &file,
        "--kernel",
        "hello",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "v=i32[1]:fill=7",
        "--arg",
        "f=f32:2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        json(&out)["stdout"],
        "block 0 thread 0: v=7 f=0.000000 hex=7 s=ok\n"
    );
    let file = kernels("shared");
    let (code, out, err) = exec(&[
        &file,
        "--kernel",
        "dyn_two_arrays",
        "--grid",
        "1",
        "--block",
        "4",
        "--shared",
        "32",
        "--arg",
        "out=i32[4]:zeros",
        "--arg",
        "n=i32:4",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // first[3-t]*... see shared.cu: out[t] = 3*(n-1-t) + 2*((t+1)%n)
    assert_eq!(
        json(&out)["buffers"]["out"],
        serde_json::json!([11, 10, 9, 0])
    );
}

#[test]
fn text_output_names_the_line_and_exits_1() {
    let file = kernels("bugs");
    let (code, out, err) = exec(&[
        &file,
        "--kernel",
        "uninit_read",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "out=i32[32]:zeros",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("uninitialized-read"), "{out}");
    assert!(out.contains(&format!("{file}:50")), "{out}");
}

#[test]
fn a_compile_error_exits_1_with_the_json_error_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("broken.cu");
    std::fs::write(
        &file,
        "extern \"C\" __global__ void k(int* o) {\n    o[0] = undefined_name;\n}\n",
    )
    .expect("write");
    let file = file.display().to_string();
    let (code, out, err) = exec(&[
        &file,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "o=i32[1]:zeros",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    assert_eq!(v["ok"], false);
    assert!(
        v["error"].as_str().unwrap_or("").contains("undefined_name"),
        "{v}"
    );
    assert_eq!(v["diagnostics"], serde_json::json!([]));
}

#[test]
fn usage_errors_exit_2() {
    let file = kernels("basics");
    let base = [
        file.as_str(),
        "--kernel",
        "map_guard",
        "--grid",
        "1",
        "--block",
        "4",
    ];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // too few arguments for the kernel's parameters
        (
            vec!["--arg", "out=f32[4]:zeros", "--arg", "a=f32[4]:zeros"],
            "takes 3 parameters",
        ),
        // too many
        (
            vec![
                "--arg",
                "out=f32[4]:zeros",
                "--arg",
                "a=f32[4]:zeros",
                "--arg",
                "size=i32:4",
                "--arg",
                "x=i32:1",
            ],
            "takes 3 parameters",
        ),
        // a buffer for an int parameter
        (
            vec![
                "--arg",
                "out=f32[4]:zeros",
                "--arg",
                "a=f32[4]:zeros",
                "--arg",
                "size=i32[4]:zeros",
            ],
            "not a pointer",
        ),
        // a scalar for a pointer parameter
        (
            vec![
                "--arg",
                "out=i32:0",
                "--arg",
                "a=f32[4]:zeros",
                "--arg",
                "size=i32:4",
            ],
            "argument 1",
        ),
        // a malformed argument spec
        (
            vec![
                "--arg",
                "out=f32[4]:sideways",
                "--arg",
                "a=f32[4]:zeros",
                "--arg",
                "size=i32:4",
            ],
            "sideways",
        ),
    ];
    for (extra, says) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra.iter().copied());
        let (code, out, err) = exec(&args);
        assert_eq!(code, 2, "{args:?}\n{out}{err}");
        assert!(
            err.contains(says),
            "{args:?}: stderr should say `{says}`:\n{err}"
        );
    }
    // a kernel that does not exist lists those that do
    let (code, _, err) = exec(&[
        file.as_str(),
        "--kernel",
        "nope",
        "--grid",
        "1",
        "--block",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("map_guard") && err.contains("tmpl<128>"),
        "{err}"
    );
    // clap's own errors (a zero dimension, a missing option)
    let (code, _, _) = exec(&[
        file.as_str(),
        "--kernel",
        "k",
        "--grid",
        "0",
        "--block",
        "1",
    ]);
    assert_eq!(code, 2);
    let (code, _, _) = exec(&[file.as_str(), "--grid", "1", "--block", "1"]);
    assert_eq!(code, 2);
}

/// printf's format strings are `.global .b8 $str[...]` in NVRTC's PTX: the compiler's, not a
/// `__device__` variable the learner declared, so exec lists neither them nor any `$` name.
#[test]
fn printf_format_strings_are_not_listed_as_device_variables() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cu = dir.path().join("printf.cu");
    std::fs::write(
        &cu,
        "#include <cstdio>\n__device__ int hits;\nextern \"C\" __global__ void k(float* out) {\n    printf(\"x=%d\\n\", threadIdx.x);\n    printf(\"done\\n\");\n    atomicAdd(&hits, 1);\n    out[threadIdx.x] = 1.0f;\n}\n",
    )
    .expect("write kernel");
    let file = cu.display().to_string();
    let args = [
        file.as_str(),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "2",
        "--arg",
        "out=f32[2]:zeros",
    ];
    let (code, out, err) = exec(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("\n__device__ variables\n  hits  u32[1]  2\n"),
        "{out}"
    );
    assert!(!out.contains("$str"), "{out}");
    assert!(out.contains("x=0\n  done\n  x=1\n  done\n"), "{out}");

    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let (code, out, err) = exec(&with_json);
    assert_eq!(code, 0, "{out}\n{err}");
    let v = json(&out);
    assert_eq!(v["symbols"], serde_json::json!({"hits": [2]}), "{out}");
}
