//! Wild global accesses and races between accesses of different widths, through the real
//! binary (`exec` on `tests/kernels/wild.cu` and `tests/kernels/mixed_width.cu`, `run` on
//! puzzle 1). Every out-of-bounds access is reported against the buffer it overran, with the
//! element index the kernel computed, and never lands in another buffer (issue 25: `out[320]`
//! of a 4-float `out` used to write `a[0]` unseen). A 1- or 2-byte write into a word another
//! thread writes whole is a race, in global and shared memory, in either order; threads
//! writing disjoint bytes of one word are not. Needs NVRTC.

mod exec_support;

use assert_cmd::Command;
use exec_support::{exec_json, Exec};
use serde_json::{json, Value};
use std::path::PathBuf;

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wild-writes-cache")
}

/// `exec` of `kernel` of `file` on one block of `block` threads with `out` (4 floats, zero)
/// and `a` (4 floats, 0..4).
fn wild(kernel: &str, block: &str) -> Exec {
    exec_json(
        &cache(),
        &[
            "tests/kernels/wild.cu",
            "--kernel",
            kernel,
            "--grid",
            "1",
            "--block",
            block,
            "--arg",
            "out=f32[4]:zeros",
            "--arg",
            "a=f32[4]:arange",
        ],
    )
}

fn diagnostics(v: &Value) -> Vec<Value> {
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// The run failed with exactly one diagnostic, out of bounds, naming `element` (of a buffer
/// with 4 elements), and `a` kept its values.
fn assert_overrun(e: &Exec, kernel: &str, verb: &str, element: &str) {
    let v = e.json();
    assert_eq!(e.code, 1, "{kernel}: {}{}", e.stdout, e.stderr);
    assert_eq!(v["ok"], false, "{kernel}: {v}");
    let d = diagnostics(&v);
    assert_eq!(d.len(), 1, "{kernel}: one diagnostic: {v}");
    assert_eq!(d[0]["kind"], "out-of-bounds", "{kernel}: {v}");
    let message = d[0]["message"].as_str().unwrap_or("");
    let name = element.split('[').next().unwrap_or("");
    let expected = format!("{verb} {element} (line");
    assert!(message.contains(&expected), "{kernel}: {message}");
    assert!(
        message.contains(&format!("but {name} has 4 elements")),
        "{kernel}: {message}"
    );
    assert_eq!(
        v["buffers"]["a"],
        json!([0.0, 1.0, 2.0, 3.0]),
        "{kernel}: a changed"
    );
}

#[test]
fn every_overrun_of_out_is_named_as_out_and_leaves_a_alone() {
    for (kernel, element) in [
        ("out_100", "out[100]"),
        ("out_200", "out[200]"),
        ("out_320", "out[320]"),
        ("out_negative", "out[-3]"),
        ("out_huge", "out[2147483647]"),
    ] {
        let e = wild(kernel, "4");
        assert_overrun(&e, kernel, "wrote", element);
        assert_eq!(
            e.json()["buffers"]["out"],
            json!([0.0, 0.0, 0.0, 0.0]),
            "{kernel}"
        );
    }
    assert_overrun(&wild("read_320", "4"), "read_320", "read", "out[320]");
    // A negative index from `a` is named against `a`, and does not reach `out`.
    let e = wild("a_negative_into_out", "4");
    assert_overrun(&e, "a_negative_into_out", "wrote", "a[-250]");
    assert_eq!(e.json()["buffers"]["out"], json!([0.0, 0.0, 0.0, 0.0]));
}

#[test]
fn a_stride_past_out_is_an_overrun_of_out_not_a_race_on_a() {
    let e = wild("out_stride", "4");
    assert_overrun(&e, "out_stride", "wrote", "out[320]");
    let v = e.json();
    // Thread 0 wrote its element; threads 1 to 3 went past the end.
    assert_eq!(v["buffers"]["out"], json!([10.0, 0.0, 0.0, 0.0]));
    let message = diagnostics(&v)[0]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        message.contains("2 other threads did the same"),
        "{message}"
    );
}

#[test]
fn run_names_out_in_puzzle_1_with_a_stride() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let gpuzzle = || {
        let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
        c.env("NO_COLOR", "1")
            .env("GPUZZLE_BACKEND", "emu")
            .env("GPUZZLE_CACHE_DIR", cache())
            .env_remove("GPUZZLE_PUZZLES");
        c
    };
    gpuzzle().arg("init").arg(&ws).assert().success();
    std::fs::write(
        ws.join("puzzles/01_map.cu"),
        "extern \"C\" __global__ void map(float* out, const float* a) {\n    out[threadIdx.x * 320] = a[threadIdx.x] + 10.0f;\n}\n",
    )
    .unwrap();
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["run", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[out-of-bounds]: thread 1 of block 0 wrote out[320] (line 2)"),
        "{text}"
    );
    assert!(
        !text.contains("a[0]") && !text.contains("atomicAdd"),
        "{text}"
    );
    assert!(!text.contains("global-race"), "{text}");
}

/// `exec` of `kernel` of `mixed_width.cu` with `arg`; the diagnostics' kinds and messages.
fn mixed(kernel: &str, grid: &str, block: &str, arg: &str) -> (i32, Vec<(String, String)>) {
    let e = exec_json(
        &cache(),
        &[
            "tests/kernels/mixed_width.cu",
            "--kernel",
            kernel,
            "--grid",
            grid,
            "--block",
            block,
            "--arg",
            arg,
        ],
    );
    let found = diagnostics(&e.json())
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or("").to_string();
            (s("kind"), s("message"))
        })
        .collect();
    (e.code, found)
}

#[test]
fn a_byte_write_into_a_word_written_whole_is_a_race_in_both_orders_and_spaces() {
    for (kernel, kind, lines) in [
        ("global_byte_then_word", "global-race", (5, 6)),
        ("global_word_then_byte", "global-race", (9, 10)),
        ("global_short_then_word", "global-race", (13, 14)),
        ("shared_byte_then_word", "shared-race", (28, 29)),
        ("shared_word_then_byte", "shared-race", (35, 36)),
    ] {
        let (code, found) = mixed(kernel, "1", "2", "out=f32[4]:zeros");
        assert_eq!(code, 1, "{kernel}: {found:?}");
        assert_eq!(found.len(), 1, "{kernel}: {found:?}");
        let (k, message) = &found[0];
        assert_eq!(k, kind, "{kernel}: {message}");
        assert!(
            message.contains(&format!("line {}", lines.0))
                && message.contains(&format!("line {}", lines.1))
                || message.contains(&format!("lines {} and {}", lines.0, lines.1)),
            "{kernel}: {message}"
        );
    }
}

#[test]
fn a_byte_write_and_another_blocks_word_write_race() {
    // Two blocks run in order; eight may run on several cores, then again in order.
    for grid in ["2", "8"] {
        let (code, found) = mixed("global_byte_across_blocks", grid, "32", "out=f32[4]:zeros");
        assert_eq!(code, 1, "grid {grid}: {found:?}");
        assert_eq!(found.len(), 1, "grid {grid}: {found:?}");
        assert_eq!(found[0].0, "global-race");
        assert!(
            found[0].1.contains("block 1 wrote out[0] (line 24)")
                && found[0].1.contains("block 0 wrote it (line 23)"),
            "{}",
            found[0].1
        );
    }
}

#[test]
fn threads_writing_disjoint_bytes_of_one_word_do_not_race() {
    for (kernel, grid, block, arg) in [
        ("global_bytes_disjoint", "1", "32", "c=i8[32]:zeros"),
        ("global_bytes_disjoint_blocks", "4", "3", "c=i8[12]:zeros"),
        ("global_bytes_disjoint_blocks", "64", "3", "c=i8[192]:zeros"),
        ("shared_bytes_disjoint", "1", "32", "c=i8[32]:zeros"),
    ] {
        let (code, found) = mixed(kernel, grid, block, arg);
        assert_eq!(
            (code, found.len()),
            (0, 0),
            "{kernel} grid {grid}: {found:?}"
        );
    }
}

/// The GPU instrumenter follows the same rule: each wild kernel, instrumented and run on the
/// emulator (`gpu::via_emu`, the buffers at the emulator's addresses), faults on `out[...]`,
/// skips the access (nothing reaches the emulator's own checks, `a` keeps its values), and the
/// fault names the element the kernel computed.
#[test]
fn the_instrumented_kernel_names_the_same_overruns() {
    use gpuzzle::emu::value::{Buffer, ElemType, KernelArg};
    use gpuzzle::emu::LaunchConfig;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/wild.cu");
    let src = std::fs::read_to_string(&path).unwrap();
    let req = gpuzzle::compile::CompileRequest::new("tests/kernels/wild.cu", &src);
    let ptx = gpuzzle::compile::compile(&req)
        .unwrap_or_else(|e| panic!("wild.cu: {e}"))
        .ptx
        .to_string();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [4, 1, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    for (kernel, element) in [
        ("out_100", "out[100]"),
        ("out_200", "out[200]"),
        ("out_320", "out[320]"),
        ("out_stride", "out[320]"),
        ("out_negative", "out[-3]"),
        ("out_huge", "out[2147483647]"),
        ("read_320", "out[320]"),
        ("a_negative_into_out", "a[-250]"),
    ] {
        let args = vec![
            KernelArg::Buffer(Buffer::zeros("out", ElemType::F32, 4)),
            KernelArg::Buffer(Buffer::from_values(
                "a",
                ElemType::F32,
                &[0.0, 1.0, 2.0, 3.0],
            )),
        ];
        let run = gpuzzle::gpu::via_emu::run_detailed(&ptx, kernel, &cfg, args, 100_000)
            .unwrap_or_else(|e| panic!("{kernel}: {e}"));
        assert!(
            run.emulator_diagnostics.is_empty(),
            "{kernel}: an illegal access got through: {:?}",
            run.emulator_diagnostics
        );
        let d = &run.result.diagnostics;
        assert!(!d.is_empty(), "{kernel}: no fault");
        assert_eq!(
            d[0].kind,
            gpuzzle::emu::result::DiagKind::OutOfBounds,
            "{kernel}"
        );
        assert!(
            d[0].message.contains(&format!(" {element} (line")),
            "{kernel}: {}",
            d[0].message
        );
        assert_eq!(
            run.result.buffers[1].values(),
            vec![0.0, 1.0, 2.0, 3.0],
            "{kernel}"
        );
    }
}
