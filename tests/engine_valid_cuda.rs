//! Valid CUDA through `gpuzzle exec` (issue 25): the device heap, function pointers, virtual
//! functions, every special register, named barriers and `__fns` run; grid sync and inline asm
//! that is no PTX are refused by name at the learner's line; a shared array past any limit is
//! stated as a limit; a byte-order mark is ignored. Never "please report" (kept for gpuzzle's
//! own bugs), and the same answer whether warps run in lockstep or a thread at a time.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const FILE: &str = "tests/kernels/valid/valid_cuda.cu";

fn gpuzzle(lockstep: &str) -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env(
        "GPUZZLE_CACHE_DIR",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-valid-cuda-cache"),
    );
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_LOCKSTEP", lockstep);
    c
}

/// `gpuzzle exec FILE --kernel K ... --format json` with warps in lockstep and a thread at a
/// time: (exit code, stdout, stderr) of the first, after checking the second says the same.
fn exec_in(file: &str, kernel: &str, args: &[&str]) -> (i32, String, String) {
    let run = |lockstep: &str| {
        let out = gpuzzle(lockstep)
            .args(["exec", file, "--kernel", kernel, "--format", "json"])
            .args(args)
            .output()
            .expect("run gpuzzle");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (a, b) = (run("on"), run("off"));
    assert_eq!(a, b, "{kernel}: lockstep and one thread at a time differ");
    let all = format!("{}{}", a.1, a.2);
    assert!(!all.contains("please report"), "{kernel}: {all}");
    assert!(!all.contains("panicked"), "{kernel}: {all}");
    a
}

fn exec(kernel: &str, args: &[&str]) -> (i32, String, String) {
    exec_in(FILE, kernel, args)
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A clean run's `out` buffer.
fn clean_out(kernel: &str, args: &[&str]) -> Value {
    let (code, out, err) = exec(kernel, args);
    assert_eq!(code, 0, "{kernel}: {out}{err}");
    let v = json(&out);
    assert_eq!(v["ok"], true, "{kernel}: {v}");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{kernel}: {v}");
    v["buffers"]["out"].clone()
}

/// The line of `file` marked `// @name`.
fn marked_in(file: &str, name: &str) -> u64 {
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file))
        .expect("the kernel file");
    let tag = format!("// @{name}");
    text.lines()
        .position(|l| l.trim_end().ends_with(&tag))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("no line marked {tag}"))
}

fn marked(name: &str) -> u64 {
    marked_in(FILE, name)
}

/// A launch refused by name: exit 1 and an error naming the learner's line in `file`.
fn refused_in(file: &str, kernel: &str, args: &[&str]) -> String {
    let (code, out, err) = exec_in(file, kernel, args);
    assert_eq!(code, 1, "{kernel}: {out}{err}");
    let all = format!("{out}{err}");
    let at = format!("{file}:{}", marked_in(file, kernel));
    assert!(all.contains(&at), "{kernel}: want {at} in {all}");
    all
}

fn refused(kernel: &str, args: &[&str]) -> String {
    refused_in(FILE, kernel, args)
}

#[test]
fn malloc_and_free_work_on_a_device_heap() {
    let out = clean_out(
        "heap_each",
        &["--grid", "2", "--block", "4", "--arg", "out=i32[8]:zeros"],
    );
    assert_eq!(out, serde_json::json!([6, 10, 14, 18, 22, 26, 30, 34]));
}

#[test]
fn new_and_delete_work_for_arrays_and_objects() {
    let out = clean_out(
        "heap_new_delete",
        &["--grid", "1", "--block", "4", "--arg", "out=i32[4]:zeros"],
    );
    assert_eq!(out, serde_json::json!([0, 111, 222, 333]));
}

/// The heap holds 8 MiB, as CUDA's default: the ninth 1 MiB block is NULL.
#[test]
fn malloc_past_the_heap_returns_null() {
    let out = clean_out(
        "heap_exhaust",
        &["--grid", "1", "--block", "1", "--arg", "out=i32[9]:zeros"],
    );
    assert_eq!(out, serde_json::json!([1, 1, 1, 1, 1, 1, 1, 1, 0]));
}

#[test]
fn freeing_twice_is_reported_at_the_learners_line() {
    let (code, out, err) = exec(
        "heap_double_free",
        &["--grid", "1", "--block", "2", "--arg", "out=i32[2]:zeros"],
    );
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    let d = &v["diagnostics"][0];
    assert_eq!(d["line"], marked("double_free"), "{v}");
    let msg = d["message"].as_str().unwrap_or_default();
    assert!(msg.contains("already freed"), "{msg}");
}

#[test]
fn function_pointers_call_the_function_they_hold() {
    let out = clean_out(
        "function_pointers",
        &["--grid", "1", "--block", "4", "--arg", "out=i32[4]:zeros"],
    );
    assert_eq!(out, serde_json::json!([0, 2, 6, 6]));
}

/// `__device__ int* p = &x;` and a table of function pointers (`= generic(x)`, `= {f, g}` in
/// PTX) hold the addresses the launch gave them.
#[test]
fn module_variables_initialised_with_addresses_point_there() {
    let out = clean_out(
        "pointer_initialisers",
        &["--grid", "1", "--block", "4", "--arg", "out=i32[4]:zeros"],
    );
    assert_eq!(out, serde_json::json!([3, 6, 7, 12]));
}

#[test]
fn a_null_function_pointer_is_reported_at_the_call() {
    let (code, out, err) = exec(
        "null_function_pointer",
        &[
            "--grid",
            "1",
            "--block",
            "2",
            "--arg",
            "out=i32[2]:zeros",
            "--arg",
            "table=u64[2]:zeros",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    let d = &v["diagnostics"][0];
    assert_eq!(d["line"], marked("null_call"), "{v}");
    let msg = d["message"].as_str().unwrap_or_default();
    assert!(msg.contains("points to no function"), "{msg}");
}

#[test]
fn virtual_functions_dispatch_on_the_objects_type() {
    let out = clean_out(
        "virtual_functions",
        &["--grid", "1", "--block", "4", "--arg", "out=f32[4]:zeros"],
    );
    assert_eq!(out, serde_json::json!([0.0, 1.0, 4.0, 9.0]));
}

/// One SM (`%smid` 0 of `%nsmid` 1), launch 1, no performance counters or driver registers;
/// a clock that moves 1000 per read (`%clock_hi` the first read's upper half, then the halves
/// of the timer's second and third reads); the block's shared memory is its 16 ints.
#[test]
fn special_registers_read_as_one_sm_with_a_counting_clock() {
    let out = clean_out(
        "special_registers",
        &["--grid", "1", "--block", "1", "--arg", "out=u32[10]:zeros"],
    );
    assert_eq!(out, serde_json::json!([1, 1, 0, 0, 0, 0, 2000, 0, 64, 0]));
}

/// `while (clock64() - start < N)` ends, after the same reads in every thread.
#[test]
fn a_timing_loop_ends() {
    let out = clean_out(
        "busy_wait",
        &["--grid", "1", "--block", "4", "--arg", "out=i64[4]:zeros"],
    );
    assert_eq!(out, serde_json::json!([100000, 100000, 100000, 100000]));
}

#[test]
fn fns_finds_the_nth_set_bit_both_ways() {
    let out = clean_out(
        "find_nth_set",
        &["--grid", "1", "--block", "4", "--arg", "out=u32[12]:zeros"],
    );
    assert_eq!(
        out,
        serde_json::json!([4, 5, 6, 7, 0, 0, 0, 0, 15, 14, 13, 12])
    );
}

/// `__vsetgtu4` and `__vmaxs2` are written with `lop3`, once refused.
#[test]
fn simd_video_intrinsics_compute_per_byte_and_per_half() {
    let out = clean_out(
        "simd_video",
        &["--grid", "1", "--block", "1", "--arg", "out=u32[2]:zeros"],
    );
    assert_eq!(out, serde_json::json!([0x0100_0000, 0x0002_0001]));
}

/// Lanes of the second warp that skip a shuffle are named as lanes with their threads, and are
/// not said to have returned: they took the other branch.
#[test]
fn lanes_that_skip_a_shuffle_are_named_with_their_threads() {
    let (code, out, err) = exec(
        "lane_skips_shuffle",
        &["--grid", "1", "--block", "64", "--arg", "out=i32[64]:zeros"],
    );
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    let ds = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let error = ds
        .iter()
        .find(|d| d["severity"] == "error")
        .unwrap_or_else(|| panic!("no error: {v}"));
    assert_eq!(error["line"], marked("lane_skips_shuffle"), "{v}");
    let msg = error["message"].as_str().unwrap_or_default();
    assert!(msg.contains("lane 4 (thread 36)"), "{msg}");
    assert!(msg.contains("took the other branch"), "{msg}");
    assert!(!msg.contains("(returned)"), "{msg}");
    for d in &ds {
        let m = d["message"].as_str().unwrap_or_default();
        assert!(!m.contains("finished (returned)"), "{m}");
        if m.contains("read a value from lane 4") {
            assert!(m.contains("lane 4 (thread 36)"), "{m}");
        }
    }
}

/// Named barriers run (tests/async_copy.rs has producer/consumer warps on them): every thread
/// of the block passes `bar.sync 1, 64` together.
#[test]
fn a_named_barrier_runs() {
    let v = clean_out(
        "named_barrier",
        &["--grid", "1", "--block", "64", "--arg", "out=i32[64]:zeros"],
    );
    assert_eq!(v, serde_json::json!(vec![2; 64]));
}

#[test]
fn grid_sync_is_refused_by_name() {
    let all = refused_in(
        "tests/kernels/valid/grid_sync.cu",
        "grid_sync",
        &["--grid", "2", "--block", "4", "--arg", "out=i32[4]:zeros"],
    );
    assert!(all.contains("this_grid().sync()"), "{all}");
    assert!(all.contains("cooperative launch"), "{all}");
}

#[test]
fn inline_asm_that_is_not_ptx_is_called_so() {
    let all = refused(
        "invented_asm",
        &["--grid", "1", "--block", "1", "--arg", "out=i32[1]:zeros"],
    );
    assert!(all.contains("`foo.bar`"), "{all}");
    assert!(all.contains("is not a PTX instruction"), "{all}");
}

#[test]
fn a_shared_array_over_4_gib_is_a_stated_limit() {
    let (code, out, err) = exec_in(
        "tests/kernels/valid/huge_shared.cu",
        "huge_shared",
        &["--grid", "1", "--block", "1", "--arg", "out=i32[1]:zeros"],
    );
    // Refused before the launch, as a launch that asks too much (exit 2).
    assert_eq!(code, 2, "{out}{err}");
    let all = format!("{out}{err}");
    assert!(all.contains("5000000000 bytes"), "{all}");
    assert!(all.contains("at most 49152 bytes (48 KiB)"), "{all}");
    assert!(!all.contains("could not read"), "{all}");
}

/// A file saved with a UTF-8 byte-order mark compiles and runs as without it.
#[test]
fn a_byte_order_mark_is_ignored() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("valid-cuda-bom");
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let file = dir.join("bom.cu");
    std::fs::write(
        &file,
        "\u{feff}extern \"C\" __global__ void k(int* out) { out[threadIdx.x] = 7; }\n",
    )
    .expect("the kernel");
    let (code, out, err) = exec_in(
        &file.to_string_lossy(),
        "k",
        &["--grid", "1", "--block", "2", "--arg", "out=i32[2]:zeros"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(json(&out)["buffers"]["out"], serde_json::json!([7, 7]));
}
