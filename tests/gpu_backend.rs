//! The GPU backend through the real binary.
//!
//! Without a GPU: the worker protocol end to end (the parent's side in `gpu::isolate` talking to
//! `gpuzzle __gpu-worker`), `exec --via-instrumented-ptx` (the GPU path with the emulator as the
//! executor) against plain `exec`, the timeout kill, and backend selection. With a GPU, the same
//! kernels run on it and must agree with the emulator; without one those tests print why they
//! skip. NVRTC must be installed (`pip install nvidia-cuda-nvrtc-cu12`).

use assert_cmd::Command;
use gpuzzle::emu::result::RunResult;
use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use gpuzzle::gpu::isolate::{self, WorkerCommand};
use gpuzzle::gpu::wire::{WireArg, WireConfig};
use gpuzzle::gpu::worker::{Failure, LaunchRequest, Reply, Request, Target};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env(
        "GPUZZLE_CACHE_DIR",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpu-backend-cache"),
    );
    c.env("NO_COLOR", "1").env_remove("GPUZZLE_BACKEND");
    c
}

/// Why GPU tests skip here, or None when there is a GPU.
fn no_gpu() -> Option<String> {
    gpuzzle::gpu::probe::probe().err()
}

fn skip(test: &str, why: &str) {
    eprintln!("SKIPPED {test}: no GPU ({why})");
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = gpuzzle().args(args).output().expect("run gpuzzle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// `exec` arguments for one kernel of tests/kernels/instrument with its launch.
struct Case {
    name: &'static str,
    grid: &'static str,
    block: &'static str,
    shared: &'static str,
    args: &'static [&'static str],
}

/// The memory counters of an `exec` JSON (`max_per_thread` and `total`): what every executor
/// counts (the GPU's instrumenter does not count instruction families).
fn memory(v: &Value) -> Value {
    let keys = [
        "global_reads",
        "global_writes",
        "shared_reads",
        "shared_writes",
        "global_atomics",
        "shared_atomics",
    ];
    let pick = |c: &Value| {
        Value::Object(
            keys.iter()
                .map(|k| (k.to_string(), c[*k].clone()))
                .collect(),
        )
    };
    serde_json::json!({
        "max_per_thread": pick(&v["counters"]["max_per_thread"]),
        "total": pick(&v["counters"]["total"]),
    })
}

/// Correct kernels: every executor must give the same buffers and counters.
const CORRECT: &[Case] = &[
    Case {
        name: "map",
        grid: "3",
        block: "4",
        shared: "0",
        args: &["out=f32[10]:zeros", "a=f32[10]:arange", "size=i32:10"],
    },
    Case {
        name: "map2d",
        grid: "2,2",
        block: "3,3",
        shared: "0",
        args: &["out=f32[25]:zeros", "a=f32[25]:rand=3", "size=i32:5"],
    },
    Case {
        name: "reduce_shared",
        grid: "2",
        block: "64",
        shared: "0",
        args: &["out=f32[2]:zeros", "a=f32[100]:arange", "size=i32:100"],
    },
    Case {
        name: "float4_scale",
        grid: "1",
        block: "8",
        shared: "0",
        args: &["out=f32[24]:zeros", "a=f32[24]:arange", "n4=i32:6"],
    },
    Case {
        name: "dyn_shared",
        grid: "2",
        block: "8",
        shared: "32",
        args: &["out=f32[16]:zeros", "a=f32[16]:arange", "size=i32:16"],
    },
    Case {
        name: "device_func",
        grid: "2",
        block: "32",
        shared: "0",
        args: &[
            "out=f32[64]:zeros",
            "a=f32[66]:arange",
            "size=i32:64",
            "width=i32:3",
        ],
    },
    Case {
        name: "heap",
        grid: "2",
        block: "8",
        shared: "0",
        args: &["out=f32[12]:zeros", "a=f32[12]:arange", "size=i32:12"],
    },
];

fn exec_args(c: &Case) -> Vec<String> {
    let mut v: Vec<String> = [
        "exec".to_string(),
        format!("tests/kernels/instrument/{}.cu", c.name),
        "--kernel".into(),
        c.name.into(),
        "--grid".into(),
        c.grid.into(),
        "--block".into(),
        c.block.into(),
        "--shared".into(),
        c.shared.into(),
        "--format".into(),
        "json".into(),
    ]
    .into();
    for a in c.args {
        v.push("--arg".into());
        v.push(a.to_string());
    }
    v
}

fn exec_json(c: &Case, extra: &[&str]) -> (i32, Value) {
    let mut args = exec_args(c);
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(&refs);
    assert!(!err.contains("panicked"), "{}: {err}", c.name);
    (code, json(&out))
}

#[test]
fn via_instrumented_ptx_gives_the_plain_emulators_buffers_and_counters() {
    for c in CORRECT {
        let (code, plain) = exec_json(c, &["--backend", "emu"]);
        assert_eq!(code, 0, "{}: {plain}", c.name);
        let (code, inst) = exec_json(c, &["--via-instrumented-ptx"]);
        assert_eq!(code, 0, "{}: {inst}", c.name);
        assert_eq!(inst["ok"], true, "{}", c.name);
        assert_eq!(inst["buffers"], plain["buffers"], "{}", c.name);
        assert_eq!(memory(&inst), memory(&plain), "{}", c.name);
        assert_eq!(inst["diagnostics"], Value::Array(vec![]), "{}", c.name);
        // Same keys as plain exec: scripts read one shape whatever ran the kernel.
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&inst), keys(&plain));
    }
}

const OOB: Case = Case {
    name: "oob",
    grid: "2",
    block: "8",
    shared: "0",
    args: &["out=f32[12]:zeros", "a=f32[12]:arange", "size=i32:12"],
};

#[test]
fn via_instrumented_ptx_reports_an_overrun_as_out_of_bounds() {
    let (code, plain) = exec_json(&OOB, &["--backend", "emu"]);
    assert_eq!(code, 1);
    let (code, inst) = exec_json(&OOB, &["--via-instrumented-ptx"]);
    assert_eq!(code, 1, "{inst}");
    assert_eq!(inst["ok"], false);
    let d = &inst["diagnostics"][0];
    assert_eq!(d["kind"], "out-of-bounds");
    assert_eq!(d["line"], 4);
    assert_eq!(d["file"], "tests/kernels/instrument/oob.cu");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("thread 4 of block 1 read a[12] (line 4), but a has 12 elements"),
        "{d}"
    );
    // The skipped accesses leave the in-bounds results as the plain emulator computed them.
    assert_eq!(inst["buffers"], plain["buffers"]);
    assert_eq!(plain["diagnostics"][0]["kind"], "out-of-bounds");
}

/// The instrumented kernel knows the device heap's blocks: a read of one after `free` is out
/// of bounds, named as malloc'd memory, at its line.
#[test]
fn via_instrumented_ptx_reports_a_use_after_free_in_the_heap() {
    let c = Case {
        name: "heap_after_free",
        grid: "1",
        block: "4",
        shared: "0",
        args: &["out=f32[4]:zeros", "a=f32[4]:arange", "size=i32:4"],
    };
    let (code, inst) = exec_json(&c, &["--via-instrumented-ptx"]);
    assert_eq!(code, 1, "{inst}");
    let d = &inst["diagnostics"][0];
    assert_eq!(d["kind"], "out-of-bounds", "{d}");
    assert_eq!(d["line"], 7, "{d}");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran"),
        "{d}"
    );
}

/// Planted heap bugs of tests/kernels/instrument: one thread, so that on a GPU no other block
/// of the heap can be live where the overrun lands. (kernel, line of the bad access or free,
/// what both say).
const HEAP_BUGS: &[(&str, u64, &str)] = &[
    ("heap_overrun", 5, SAID_BY_BOTH),
    ("heap_after_free", 7, SAID_BY_BOTH),
    (
        "heap_double_free",
        8,
        "but it was already freed at line 7 (the block of 4 bytes malloc'd",
    ),
];
const SAID_BY_BOTH: &str = "in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran";

fn heap_bug(name: &'static str) -> Case {
    Case {
        name,
        grid: "1",
        block: "1",
        shared: "0",
        args: &["out=f32[1]:zeros", "a=f32[1]:arange", "size=i32:1"],
    }
}

/// An overrun of a malloc'd block, a use after free and a double free: out of bounds at the
/// same line, in the same words (the emulator adds what it knows of the block), from
/// `executor` as from the emulator.
fn heap_bugs_are_reported_like_the_emulator(executor: &[&str]) {
    for &(name, line, said) in HEAP_BUGS {
        let c = heap_bug(name);
        for extra in [&["--backend", "emu"][..], executor] {
            let (code, v) = exec_json(&c, extra);
            assert_eq!(code, 1, "{name} {extra:?}: {v}");
            let d = &v["diagnostics"][0];
            assert_eq!(d["kind"], "out-of-bounds", "{name} {extra:?}: {d}");
            assert_eq!(d["line"], line, "{name} {extra:?}: {d}");
            let m = d["message"].as_str().unwrap_or_default();
            assert!(m.contains(said), "{name} {extra:?}: {m}");
        }
    }
}

#[test]
fn via_instrumented_ptx_reports_heap_bugs_like_the_emulator() {
    heap_bugs_are_reported_like_the_emulator(&["--via-instrumented-ptx"]);
}

#[test]
fn gpu_reports_heap_bugs_like_the_emulator() {
    if let Some(why) = no_gpu() {
        return skip("gpu_reports_heap_bugs_like_the_emulator", &why);
    }
    heap_bugs_are_reported_like_the_emulator(&["--backend", "gpu"]);
}

/// A jump table (`brx.idx`, written as inline assembly): run as written where the index is in
/// the table, and an index past it stops the thread with the emulator's words, at its line.
fn jump_tables_run_like_the_emulator(executor: &[&str]) {
    let file = "tests/kernels/brx/brx.cu";
    for (kernel, ok) in [("brx_pick", true), ("brx_past", false)] {
        let run_with = |extra: &[&str]| {
            let mut args = vec![
                "exec", file, "--kernel", kernel, "--grid", "1", "--block", "8",
            ];
            args.extend(["--arg", "out=i32[8]:zeros", "--arg", "a=i32[8]:arange"]);
            args.extend(["--arg", "size=i32:8", "--format", "json"]);
            args.extend(extra);
            let (code, out, err) = run(&args);
            assert!(!err.contains("panicked"), "{kernel}: {err}");
            (code, json(&out))
        };
        let (code, emu) = run_with(&["--backend", "emu"]);
        let (other_code, other) = run_with(executor);
        assert_eq!(
            (code, other_code),
            if ok { (0, 0) } else { (1, 1) },
            "{kernel}: {other}"
        );
        assert_eq!(other["buffers"], emu["buffers"], "{kernel}");
        if ok {
            assert_eq!(other["diagnostics"], Value::Array(vec![]), "{kernel}");
            continue;
        }
        let (d, e) = (&other["diagnostics"][0], &emu["diagnostics"][0]);
        assert_eq!((&d["kind"], &d["line"]), (&e["kind"], &e["line"]), "{d}");
        let said = "thread 3 of block 0 took an indirect branch (brx.idx) (line 21) with index 3, but its jump table has 3 entries (0 to 2)";
        for m in [&d["message"], &e["message"]] {
            assert!(m.as_str().unwrap_or_default().starts_with(said), "{m}");
        }
    }
}

#[test]
fn via_instrumented_ptx_runs_jump_tables_like_the_emulator() {
    jump_tables_run_like_the_emulator(&["--via-instrumented-ptx"]);
}

#[test]
fn gpu_runs_jump_tables_like_the_emulator() {
    if let Some(why) = no_gpu() {
        return skip("gpu_runs_jump_tables_like_the_emulator", &why);
    }
    jump_tables_run_like_the_emulator(&["--backend", "gpu"]);
}

#[test]
fn via_instrumented_ptx_stops_an_endless_loop() {
    let c = Case {
        name: "infinite_loop",
        grid: "1",
        block: "4",
        shared: "0",
        args: &["out=i32[4]:zeros", "a=f32[4]:ones", "size=i32:4"],
    };
    let (code, v) = exec_json(&c, &["--via-instrumented-ptx", "--step-limit", "100000"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["diagnostics"][0]["kind"], "step-limit");
    assert_eq!(v["diagnostics"][0]["line"], 5);
}

#[test]
fn a_launch_past_the_timeout_is_killed_and_reported() {
    // A loop budget far beyond what the emulator gets through in the time allowed.
    let c = Case {
        name: "infinite_loop",
        grid: "1",
        block: "32",
        shared: "0",
        args: &["out=i32[32]:zeros", "a=f32[4]:ones", "size=i32:4"],
    };
    let t = std::time::Instant::now();
    let (code, v) = exec_json(
        &c,
        &[
            "--via-instrumented-ptx",
            "--step-limit",
            "1000000000000",
            "--timeout",
            "1",
        ],
    );
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    assert_eq!(code, 1, "{v}");
    let d = &v["diagnostics"][0];
    assert_eq!(d["kind"], "step-limit");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("still running after 1.0 s"),
        "{d}"
    );
    // Inputs come back unchanged.
    assert_eq!(v["buffers"]["out"], serde_json::json!(vec![0; 32]));
}

fn worker() -> WorkerCommand {
    WorkerCommand {
        program: assert_cmd::cargo::cargo_bin("gpuzzle"),
        args: vec!["__gpu-worker".into()],
    }
}

/// PTX of a test kernel, compiled with NVRTC in this process.
fn ptx_of(name: &str) -> String {
    let path = format!(
        "{}/tests/kernels/instrument/{name}.cu",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).unwrap();
    let file = format!("{name}.cu");
    gpuzzle::compile::compile(&gpuzzle::compile::CompileRequest::new(&file, &src))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .ptx
        .to_string()
}

fn map_request(target: Target, n: usize, threads: u32) -> LaunchRequest {
    let args = [
        KernelArg::Buffer(Buffer::zeros("out", ElemType::F32, n)),
        KernelArg::Buffer(Buffer::from_values(
            "a",
            ElemType::F32,
            &(0..n).map(|i| i as f64).collect::<Vec<_>>(),
        )),
        KernelArg::Scalar(Scalar::from_f64(ElemType::I32, threads as f64)),
    ];
    LaunchRequest {
        target,
        ptx: ptx_of("map"),
        kernel: "map".into(),
        cfg: WireConfig {
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        },
        args: args.iter().map(WireArg::from).collect(),
        step_budget: 10_000,
    }
}

#[test]
fn the_worker_protocol_works_end_to_end_through_the_binary() {
    let r = isolate::call::<_, Reply>(
        &worker(),
        &Request::Launch(map_request(Target::Emulator, 8, 8)),
        Duration::from_secs(60),
    )
    .unwrap();
    assert_eq!(r.printed, "");
    let Reply::Launch(w) = r.reply else {
        panic!("not a launch reply: {:?}", r.reply)
    };
    let run = RunResult::try_from(w).unwrap();
    let want: Vec<f64> = (0..8).map(|i| i as f64 + 10.0).collect();
    assert_eq!(run.buffers[0].values(), want);
    assert_eq!(run.counters.total.global_reads, 8);
    assert!(run.diagnostics.is_empty());

    // size = 10 threads over 8 elements: an overrun, caught by the instrumentation.
    let r = isolate::call::<_, Reply>(
        &worker(),
        &Request::Launch(map_request(Target::Emulator, 8, 10)),
        Duration::from_secs(60),
    )
    .unwrap();
    let Reply::Launch(w) = r.reply else {
        panic!("not a launch reply")
    };
    let run = RunResult::try_from(w).unwrap();
    assert_eq!(run.diagnostics[0].kind.as_str(), "out-of-bounds");
    // The facts survive the trip: the parent's `teach` writes the help from them.
    assert!(
        matches!(
            run.diagnostics[0].facts,
            gpuzzle::emu::facts::Facts::Bounds {
                element: Some(_),
                ..
            }
        ),
        "{:?}",
        run.diagnostics[0].facts
    );

    // A refusal comes back as a failure, not a crash.
    let mut req = map_request(Target::Emulator, 8, 8);
    req.kernel = "nope".into();
    let r = isolate::call::<_, Reply>(&worker(), &Request::Launch(req), Duration::from_secs(60))
        .unwrap();
    assert!(
        matches!(&r.reply, Reply::Failed(Failure::NoSuchKernel { found, .. }) if found == "map"),
        "{:?}",
        r.reply
    );
}

#[test]
fn the_worker_refuses_a_malformed_request_with_status_2() {
    let out = gpuzzle()
        .arg("__gpu-worker")
        .write_stdin("{not json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("request is not valid"));
    // And it is not in the help.
    let (_, help, _) = run(&["--help"]);
    assert!(!help.contains("gpu-worker"), "{help}");
    assert!(help.contains("bench"), "{help}");
}

#[test]
fn without_a_gpu_auto_falls_back_with_one_line_and_gpu_is_refused() {
    if no_gpu().is_none() {
        eprintln!("SKIPPED without_a_gpu_auto_falls_back...: this machine has a GPU");
        return;
    }
    // Text with -v: one line on stderr says so (without -v, nothing: it is said where it
    // matters, not before every result).
    let mut args = exec_args(&CORRECT[0]);
    args.retain(|a| a != "--format" && a != "json");
    let mut refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = run(&refs);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("no GPU"), "{err}");
    refs.insert(0, "-v");
    let (code, out, err) = run(&refs);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"));
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("running on gpuzzle's emulator"))
            .count(),
        1,
        "{err}"
    );
    assert!(err.starts_with("no GPU ("), "{err}");
    // JSON: nothing extra.
    let (code, _, err) = {
        let args = exec_args(&CORRECT[0]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&refs)
    };
    assert_eq!(code, 0);
    assert_eq!(err, "", "JSON mode prints nothing on stderr");
    // -q: nothing either.
    let (_, _, err) = run(&["-q", "run", "1", "--solution"]);
    assert_eq!(err, "");
    // --backend gpu: a set-up error with the reason, for every command that runs kernels.
    for cmd in [
        vec!["run", "1", "--backend", "gpu"],
        vec!["check", "1", "--backend", "gpu", "--format", "json"],
        vec!["bench", "6", "--backend", "gpu"],
    ] {
        let (code, out, err) = run(&cmd);
        assert_eq!(code, 2, "{cmd:?}: {out}{err}");
        assert!(
            err.contains("--backend gpu, but there is no usable GPU"),
            "{err}"
        );
    }
    let mut args = exec_args(&CORRECT[0]);
    args.extend(["--backend".to_string(), "gpu".to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = run(&refs);
    assert_eq!(code, 2);
    assert!(err.contains("no usable GPU"), "{err}");
    // GPUZZLE_BACKEND sets the default; a bad value is named.
    let out = gpuzzle()
        .env("GPUZZLE_BACKEND", "gpu")
        .args(["run", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = gpuzzle()
        .env("GPUZZLE_BACKEND", "tpu")
        .args(["run", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GPUZZLE_BACKEND=tpu"));
}

#[test]
fn via_instrumented_ptx_and_backend_cannot_be_combined() {
    let mut args = exec_args(&CORRECT[0]);
    args.extend(["--via-instrumented-ptx", "--backend", "emu"].map(String::from));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = run(&refs);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// `bulk_copy` runs `cp.async.bulk` (which gpuzzle does not support) only in threads past
/// `size`: none here, two with `ASYNC_COPY_REACHED`.
const ASYNC_COPY: Case = Case {
    name: "bulk_copy",
    grid: "1",
    block: "8",
    shared: "0",
    args: &["out=f32[8]:zeros", "a=f32[8]:arange", "size=i32:8"],
};

const ASYNC_COPY_REACHED: Case = Case {
    args: &["out=f32[8]:zeros", "a=f32[8]:arange", "size=i32:6"],
    ..ASYNC_COPY
};

/// What `exec` printed and exited with for `c` on the emulator and on `executor` (extra args).
fn exec_both(c: &Case, stand_in: bool, executor: &[&str]) -> ((i32, Value), (i32, Value)) {
    let plain = exec_json(c, &["--backend", "emu"]);
    let mut args = exec_args(c);
    args.extend(executor.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cmd = gpuzzle();
    if stand_in {
        cmd.env(gpuzzle::gpu::backend::STAND_IN_ENV, "emulator");
    }
    let out = cmd.args(&refs).output().expect("run gpuzzle");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let other = (
        out.status.code().unwrap_or(-1),
        json(&String::from_utf8_lossy(&out.stdout)),
    );
    (plain, other)
}

/// The instrumenter no longer refuses a kernel with an instruction gpuzzle does not support:
/// it becomes a fault where it stands, so the GPU path fails only where the emulator fails, with
/// its message and exit code, and otherwise gives its outputs.
fn unsupported_instruction_fails_only_where_the_emulator_fails(stand_in: bool, executor: &[&str]) {
    let ((code, plain), (gcode, gpu)) = exec_both(&ASYNC_COPY, stand_in, executor);
    assert_eq!((code, gcode), (0, 0), "{plain}\n{gpu}");
    // Not reached: the same JSON, but for the instruction families the GPU does not count.
    assert_eq!(memory(&gpu), memory(&plain));
    let without_counters = |v: &Value| {
        let mut v = v.clone();
        v["counters"] = Value::Null;
        v
    };
    assert_eq!(
        without_counters(&gpu),
        without_counters(&plain),
        "not reached"
    );
    let ((code, plain), (gcode, gpu)) = exec_both(&ASYNC_COPY_REACHED, stand_in, executor);
    assert_eq!(code, 1, "{plain}");
    assert_eq!(gcode, code, "{gpu}");
    assert_eq!(
        plain["error"],
        "the instruction `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` (from tests/kernels/instrument/bulk_copy.cu:10) is not supported by gpuzzle's emulator yet (a limit of gpuzzle, not a mistake in your kernel)"
    );
    assert_eq!(gpu, plain, "reached: the same error, word for word");
}

#[test]
fn an_unsupported_instruction_fails_only_where_the_emulator_fails() {
    unsupported_instruction_fails_only_where_the_emulator_fails(false, &["--via-instrumented-ptx"]);
    unsupported_instruction_fails_only_where_the_emulator_fails(true, &["--backend", "gpu"]);
}

/// `trap` and a failed `assert()` abort a kernel on a GPU and take the CUDA context with them;
/// instrumented, they are reported as the emulator reports them (same diagnostic, same buffers)
/// and the worker lives on.
fn trap_and_assert_are_reported_like_the_emulator(stand_in: bool, executor: &[&str]) {
    let cases: [(&str, &[&str]); 2] = [
        ("trap_kernel", &["out=i32[8]:zeros"]),
        ("failing_assert", &["v=i32[8]:arange"]),
    ];
    for (kernel, args) in cases {
        let c = Case {
            name: kernel,
            grid: "1",
            block: "8",
            shared: "0",
            args,
        };
        let mut a = exec_args(&c);
        a[1] = "tests/kernels/bugs.cu".into();
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, plain, _) = run(&[&refs[..], &["--backend", "emu"]].concat());
        let mut cmd = gpuzzle();
        if stand_in {
            cmd.env(gpuzzle::gpu::backend::STAND_IN_ENV, "emulator");
        }
        let out = cmd.args(&refs).args(executor).output().unwrap();
        let (plain, other) = (json(&plain), json(&String::from_utf8_lossy(&out.stdout)));
        assert_eq!(code, 1, "{kernel}: {plain}");
        assert_eq!(out.status.code(), Some(1), "{kernel}: {other}");
        assert_eq!(other["buffers"], plain["buffers"], "{kernel}");
        assert_eq!(other["diagnostics"], plain["diagnostics"], "{kernel}");
        assert_eq!(plain["diagnostics"][0]["kind"], "assert", "{kernel}");
    }
}

#[test]
fn trap_and_a_failed_assert_are_reported_like_the_emulator() {
    trap_and_assert_are_reported_like_the_emulator(false, &["--via-instrumented-ptx"]);
    trap_and_assert_are_reported_like_the_emulator(true, &["--backend", "gpu"]);
}

// ---- With a GPU -------------------------------------------------------------------------

#[test]
fn gpu_exec_matches_the_emulator() {
    if let Some(why) = no_gpu() {
        return skip("gpu_exec_matches_the_emulator", &why);
    }
    for c in CORRECT {
        let (_, plain) = exec_json(c, &["--backend", "emu"]);
        let (code, gpu) = exec_json(c, &["--backend", "gpu"]);
        assert_eq!(code, 0, "{}: {gpu}", c.name);
        assert_eq!(gpu["buffers"], plain["buffers"], "{}", c.name);
        assert_eq!(memory(&gpu), memory(&plain), "{}", c.name);
    }
}

#[test]
fn gpu_an_unsupported_instruction_fails_only_where_the_emulator_fails() {
    if let Some(why) = no_gpu() {
        return skip(
            "gpu_an_unsupported_instruction_fails_only_where_the_emulator_fails",
            &why,
        );
    }
    unsupported_instruction_fails_only_where_the_emulator_fails(false, &["--backend", "gpu"]);
}

#[test]
fn gpu_trap_and_a_failed_assert_are_reported_like_the_emulator() {
    if let Some(why) = no_gpu() {
        return skip(
            "gpu_trap_and_a_failed_assert_are_reported_like_the_emulator",
            &why,
        );
    }
    trap_and_assert_are_reported_like_the_emulator(false, &["--backend", "gpu"]);
}

#[test]
fn gpu_catches_an_overrun_and_an_endless_loop_and_survives() {
    if let Some(why) = no_gpu() {
        return skip(
            "gpu_catches_an_overrun_and_an_endless_loop_and_survives",
            &why,
        );
    }
    let (code, v) = exec_json(&OOB, &["--backend", "gpu"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["diagnostics"][0]["kind"], "out-of-bounds");
    assert_eq!(v["diagnostics"][0]["line"], 4);
    let c = Case {
        name: "infinite_loop",
        grid: "1",
        block: "4",
        shared: "0",
        args: &["out=i32[4]:zeros", "a=f32[4]:ones", "size=i32:4"],
    };
    let (code, v) = exec_json(&c, &["--backend", "gpu"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["diagnostics"][0]["kind"], "step-limit");
}

#[test]
fn gpu_grades_every_reference_solution() {
    if let Some(why) = no_gpu() {
        return skip("gpu_grades_every_reference_solution", &why);
    }
    let (code, out, err) = run(&[
        "check",
        "--all",
        "--solutions",
        "--backend",
        "gpu",
        "--format",
        "json",
    ]);
    let v = json(&out);
    assert_eq!(code, 0, "{err}\n{v:#}");
    assert_eq!(v["failed"], 0);
}

#[test]
fn gpu_printf_reaches_the_result() {
    if let Some(why) = no_gpu() {
        return skip("gpu_printf_reaches_the_result", &why);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hello.cu");
    std::fs::write(
        &file,
        "#include <cstdio>\nextern \"C\" __global__ void hello(int* out) { out[threadIdx.x] = 1; printf(\"hi %d\\n\", threadIdx.x); }\n",
    )
    .unwrap();
    let (code, out, err) = run(&[
        "exec",
        file.to_str().unwrap(),
        "--kernel",
        "hello",
        "--grid",
        "1",
        "--block",
        "2",
        "--arg",
        "out=i32[2]:zeros",
        "--backend",
        "gpu",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let stdout = v["stdout"].as_str().unwrap();
    assert!(
        stdout.contains("hi 0") && stdout.contains("hi 1"),
        "{stdout}"
    );
}

#[test]
fn one_worker_process_answers_every_launch_of_a_session() {
    let mut s = gpuzzle::gpu::session::Session::new(worker());
    let mut pids = Vec::new();
    for threads in [8, 10, 8] {
        let r: isolate::Isolated<Reply> = s
            .call(
                &Request::Launch(map_request(Target::Emulator, 8, threads)),
                Duration::from_secs(60),
            )
            .unwrap();
        let Reply::Launch(w) = r.reply else {
            panic!("not a launch reply: {:?}", r.reply)
        };
        let run = RunResult::try_from(w).unwrap();
        // The overrun of the second launch does not leak into the third.
        assert_eq!(
            run.diagnostics.len(),
            usize::from(threads == 10),
            "{threads}"
        );
        pids.push(s.pid());
    }
    assert_eq!(s.started(), 1);
    assert!(pids.windows(2).all(|w| w[0] == w[1]), "{pids:?}");
}

/// `gpuzzle` as on a machine with a GPU, the worker's instrumented emulator standing in for it.
fn with_stand_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = gpuzzle()
        .current_dir(dir)
        .env(gpuzzle::gpu::backend::STAND_IN_ENV, "emulator")
        .args(args)
        .output()
        .expect("run gpuzzle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const STAND_IN_LINE: &str = "also ran on the GPU stand-in (gpuzzle's instrumented emulator)";

#[test]
fn auto_with_a_gpu_grades_on_the_emulator_and_also_on_the_gpu() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = with_stand_in(root, &["run", "9", "--solution"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("{STAND_IN_LINE}: outputs match")),
        "{out}"
    );
    assert!(err.contains("grading on gpuzzle's emulator"), "{err}");
    // Every reference solution passes on both. The stand-in is the instrumented emulator, far
    // slower than a GPU on the larger puzzles (46, 51), and a GPU's 10 s launch limit is for
    // GPUs: give it room, so a loaded machine does not time a correct launch out.
    let (code, out, err) =
        with_stand_in(root, &["check", "--all", "--solutions", "--timeout", "120"]);
    assert_eq!(code, 0, "{out}{err}");
    // The emulator still grades, every checker on: a starter's race is reported as before.
    let (_, out, _) = with_stand_in(root, &["run", "9"]);
    assert!(out.contains("also ran on"), "{out}");
    // check's JSON says it per puzzle under `also`, and keeps every other field as it was.
    let ids = ["check", "1", "9", "--solutions", "--format"];
    let (code, out, err) = with_stand_in(root, &[&ids[..], &["json"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    let both = json(&out);
    let (code, out, _) = with_stand_in(root, &[&ids[..], &["json", "--backend", "emu"]].concat());
    assert_eq!(code, 0, "{out}");
    let alone = json(&out);
    let puzzles = both["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 2);
    for (p, q) in puzzles.iter().zip(alone["puzzles"].as_array().unwrap()) {
        assert_eq!(
            p["also"],
            serde_json::json!({"device": gpuzzle::gpu::backend::STAND_IN_NAME, "outputs_match": true, "verdict": "match"})
        );
        assert_eq!(q.get("also"), None, "one executor: no `also`");
        let mut p = p.clone();
        p.as_object_mut().unwrap().remove("also");
        for t in p["tests"].as_array_mut().unwrap() {
            t.as_object_mut().unwrap().remove("seconds");
        }
        assert_eq!(p, *q, "every other field as on the emulator alone");
    }
    let (_, xml, _) = with_stand_in(root, &[&ids[..], &["junit"]].concat());
    let xml = xml.replace("&apos;", "'");
    assert_eq!(
        xml.matches(&format!(
            r#"<property name="also" value="{STAND_IN_LINE}: outputs match"/>"#
        ))
        .count(),
        2,
        "{xml}"
    );
    // `emu` and `gpu` keep their single meaning: no second run.
    for b in ["emu", "gpu"] {
        let (code, out, err) = with_stand_in(root, &["run", "9", "--solution", "--backend", b]);
        assert_eq!(code, 0, "{b}: {out}{err}");
        assert!(!out.contains("also ran on"), "{b}: {out}");
    }
}

/// A race the emulator's checkers do not report (a plain read of a word another thread of the
/// block exchanges atomically: the first read of a compare-and-swap loop looks the same), whose
/// result the emulator's one-thread-at-a-time schedule gets right: thread 0 fills `out` while
/// the other threads copy from it without waiting. The stand-in interleaves differently (its instrumented
/// code is longer), as a GPU would: the copies miss what thread 0 had not written yet.
const RELAY_CU: &str = r#"extern "C" __global__ void relay(unsigned int* out, unsigned int* copy, const unsigned int* a, int size) {
    int i = threadIdx.x;
    if (i == 0) {
        for (int j = 0; j < size; j++) atomicExch(&out[j], a[j] + 1);
    }
    if (i < size) copy[i] = out[i];
}
"#;

const RELAY_TOML: &str = r#"id = 1
slug = "relay"
title = "Relay"
part = "Tests"
kernel = "relay"
params = ["out: u32", "copy: u32", "a: u32", "size"]
description = "Thread 0 fills out; every thread copies its element into copy."
spec = """
for (int i = 0; i < size; i++) {
    out[i] = a[i] + 1;
    copy[i] = a[i] + 1;
}
"""
hints = ["The other threads do not wait for thread 0."]

[[test]]
name = "64 elements"
grid = [1]
block = [64]
scalars = { size = 64 }
buffers.a = { len = 64, init = "arange" }
buffers.out = { len = 64, output = true }
buffers.copy = { len = 64, output = true }
"#;

#[test]
fn a_planted_disagreement_fails_and_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let puzzles = dir.path().join("puzzles");
    std::fs::create_dir_all(&puzzles).unwrap();
    std::fs::write(puzzles.join("01_relay.toml"), RELAY_TOML).unwrap();
    std::fs::write(puzzles.join("01_relay.cu"), RELAY_CU).unwrap();
    // On the emulator alone the kernel passes: its schedule hides the race.
    let (code, out, err) = with_stand_in(dir.path(), &["run", "1", "--backend", "emu"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = with_stand_in(dir.path(), &["run", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!(
            "{STAND_IN_LINE}: outputs differ from the emulator's"
        )),
        "{out}"
    );
    // The differing elements, each with both values and the expected one.
    let first = out
        .lines()
        .find(|l| l.trim_start().starts_with("copy["))
        .unwrap_or_else(|| panic!("no differing element shown:\n{out}"));
    let (index, rest) = first
        .trim()
        .trim_start_matches("copy[")
        .split_once("]: ")
        .unwrap();
    let i: u32 = index.parse().unwrap();
    // The element the GPU's schedule left unwritten holds the poison outputs start with
    // (0xdeadbeef), as `cudaMalloc`'d memory holds garbage.
    assert_eq!(
        rest,
        format!("emulator {}, GPU 3735928559, expected {}", i + 1, i + 1)
    );
    assert!(
        out.contains("likelier a race or undefined behaviour"),
        "{out}"
    );
    // check says so in its one-line reason too, and under its table.
    let (code, out, _) = with_stand_in(dir.path(), &["check", "--all"]);
    assert_eq!(code, 1);
    assert!(out.contains("outputs differ on the GPU stand-in"), "{out}");
    assert!(
        out.contains(&format!(
            "{STAND_IN_LINE}: outputs match in 0 of 1 puzzle; differ in 1 of 1 puzzle (1 relay)"
        )),
        "{out}"
    );
    // check's JSON: the disagreement, its test, the likelier cause and the differing elements.
    let (code, out, _) = with_stand_in(dir.path(), &["check", "--all", "--format", "json"]);
    assert_eq!(code, 1);
    let p = &json(&out)["puzzles"][0];
    assert_eq!(p["passed"], false);
    let also = &p["also"];
    assert_eq!(also["device"], gpuzzle::gpu::backend::STAND_IN_NAME);
    assert_eq!(also["outputs_match"], false);
    assert_eq!(also["verdict"], "outputs-differ");
    assert_eq!(also["test"], "64 elements");
    assert_eq!(also["likely"], "race-or-undefined-behaviour");
    let e = &also["elements"][0];
    assert_eq!(e["buffer"], "copy");
    let i = e["index"].as_u64().unwrap() as f64;
    assert_eq!(
        (&e["emulator"], &e["gpu"], &e["expected"]),
        (
            &Value::from(i + 1.0),
            // The poison outputs start with (0xdeadbeef), never written on the GPU.
            &Value::from(3735928559.0),
            &Value::from(i + 1.0)
        )
    );
    // The JUnit failure says it, and the suite carries the line.
    let (_, xml, _) = with_stand_in(dir.path(), &["check", "--all", "--format", "junit"]);
    let xml = xml.replace("&apos;", "'");
    assert!(
        xml.contains(&format!(
            r#"<property name="also" value="{STAND_IN_LINE}: outputs differ from the emulator's in test `64 elements`"/>"#
        )),
        "{xml}"
    );
    assert!(xml.contains("outputs differ on the GPU stand-in"), "{xml}");
    // and the failure's body shows the differing elements and the likelier cause.
    assert!(
        xml.contains(&format!(
            "{STAND_IN_LINE}: outputs differ from the emulator's\n    copy["
        )),
        "{xml}"
    );
    assert!(
        xml.contains("likelier a race or undefined behaviour"),
        "{xml}"
    );
}

#[test]
fn gpu_auto_grades_on_the_emulator_and_also_on_the_gpu() {
    if let Some(why) = no_gpu() {
        return skip("gpu_auto_grades_on_the_emulator_and_also_on_the_gpu", &why);
    }
    let name = gpuzzle::gpu::probe::probe().unwrap()[0].name.clone();
    let (code, out, err) = run(&["run", "9", "--solution"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("also ran on {name}: outputs match")),
        "{out}"
    );
    let (code, out, err) = run(&["check", "--all", "--solutions"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("also ran on {name}: outputs match in all")),
        "{out}"
    );
    let (code, out, err) = run(&["check", "1", "9", "--solutions", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    for p in json(&out)["puzzles"].as_array().unwrap() {
        assert_eq!(
            p["also"],
            serde_json::json!({"device": name, "outputs_match": true, "verdict": "match"})
        );
    }
}

// ---- mbarrier objects, WMMA alignment and vector atomics: the GPU checks as the emulator --

/// `case` with `extra` arguments appended (the planted bug's switch).
fn with_args(c: &Case, extra: &'static [&'static str]) -> Case {
    Case {
        name: c.name,
        grid: c.grid,
        block: c.block,
        shared: c.shared,
        args: extra,
    }
}

const MBARRIER: Case = Case {
    name: "mbarrier",
    grid: "1",
    block: "8",
    shared: "0",
    args: &["out=f32[8]:zeros", "extra=i32:-1"],
};

const WMMA_ALIGN: Case = Case {
    name: "wmma_align",
    grid: "1",
    block: "32",
    shared: "0",
    args: &[
        "out=f32[264]:zeros",
        "a=f16[300]:arange",
        "shift=i32:0",
        "ldm=i32:16",
        "oshift=i32:0",
    ],
};

/// Correct mbarrier and WMMA kernels give the emulator's buffers and counters on `executor`;
/// an mbarrier past its array or misaligned, and a WMMA pointer or leading dimension that
/// breaks the API's alignment, are reported at the emulator's kind and line (the WMMA ones in
/// its words), and the run survives them.
fn mbarrier_and_wmma_are_checked_like_the_emulator(executor: &[&str]) {
    for c in [&MBARRIER, &WMMA_ALIGN] {
        let (_, plain) = exec_json(c, &["--backend", "emu"]);
        let (code, other) = exec_json(c, executor);
        assert_eq!(code, 0, "{}: {other}", c.name);
        assert_eq!(other["buffers"], plain["buffers"], "{}", c.name);
        assert_eq!(memory(&other), memory(&plain), "{}", c.name);
    }
    let bugs: [(Case, &str, u64, &str); 5] = [
        (
            with_args(&MBARRIER, &["out=f32[8]:zeros", "extra=i32:16"]),
            "out-of-bounds",
            11,
            "thread 2 of block 0 used an mbarrier at shared bars[2] (line 11), but bars has 2 elements",
        ),
        (
            with_args(&MBARRIER, &["out=f32[8]:zeros", "extra=i32:4"]),
            "misaligned",
            11,
            "thread 2 of block 0 used an mbarrier at shared bars[0] (line 11), 4 bytes past an 8-byte boundary",
        ),
        (
            with_args(
                &WMMA_ALIGN,
                &[
                    "out=f32[264]:zeros",
                    "a=f16[300]:arange",
                    "shift=i32:4",
                    "ldm=i32:16",
                    "oshift=i32:0",
                ],
            ),
            "misaligned",
            13,
            "called wmma::load_matrix_sync with a global pointer (0x",
        ),
        (
            with_args(
                &WMMA_ALIGN,
                &[
                    "out=f32[264]:zeros",
                    "a=f16[300]:arange",
                    "shift=i32:0",
                    "ldm=i32:12",
                    "oshift=i32:0",
                ],
            ),
            "misaligned",
            13,
            "called wmma::load_matrix_sync with a leading dimension of 12 elements (24 bytes)",
        ),
        (
            with_args(
                &WMMA_ALIGN,
                &[
                    "out=f32[264]:zeros",
                    "a=f16[300]:arange",
                    "shift=i32:0",
                    "ldm=i32:16",
                    "oshift=i32:4",
                ],
            ),
            "misaligned",
            16,
            "called wmma::store_matrix_sync with a global pointer (0x",
        ),
    ];
    for (c, kind, line, words) in bugs {
        let (code, v) = exec_json(&c, executor);
        assert_eq!(code, 1, "{}: {v}", c.name);
        let d = &v["diagnostics"][0];
        assert_eq!(
            (d["kind"].as_str(), d["line"].as_u64()),
            (Some(kind), Some(line)),
            "{d}"
        );
        assert!(d["message"].as_str().unwrap_or("").contains(words), "{d}");
    }
}

#[test]
fn via_instrumented_ptx_checks_mbarriers_and_wmma_alignment_like_the_emulator() {
    mbarrier_and_wmma_are_checked_like_the_emulator(&["--via-instrumented-ptx"]);
}

#[test]
fn gpu_checks_mbarriers_and_wmma_alignment_like_the_emulator() {
    if let Some(why) = no_gpu() {
        return skip(
            "gpu_checks_mbarriers_and_wmma_alignment_like_the_emulator",
            &why,
        );
    }
    mbarrier_and_wmma_are_checked_like_the_emulator(&["--backend", "gpu"]);
}

/// sm_90's vector atomics count one atomic per element on the GPU as on the emulator (needs
/// an sm_90 GPU: an H100 or H200).
#[test]
fn gpu_vector_atomics_count_one_per_element_like_the_emulator() {
    if let Some(why) = no_gpu() {
        return skip(
            "gpu_vector_atomics_count_one_per_element_like_the_emulator",
            &why,
        );
    }
    let args = |backend: &str| {
        let (code, out, err) = run(&[
            "exec",
            "tests/kernels/grid/vector_atomics.cu",
            "--arch",
            "sm_90",
            "--kernel",
            "vector_atomics",
            "--grid",
            "3",
            "--block",
            "64",
            "--arg",
            "acc2=f32[2]:zeros",
            "--arg",
            "acc4=f32[4]:zeros",
            "--arg",
            "first=f32[4]:zeros",
            "--arg",
            "x=f32[150]:arange",
            "--arg",
            "n=i32:150",
            "--backend",
            backend,
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{backend}: {out}{err}");
        json(&out)
    };
    let (plain, gpu) = (args("emu"), args("gpu"));
    assert_eq!(memory(&gpu), memory(&plain));
    assert_eq!(gpu["counters"]["max_per_thread"]["global_atomics"], 6);
    assert_eq!(gpu["buffers"]["acc4"][1], plain["buffers"]["acc4"][1]);
}

/// `gpuzzle -v` with `args` (GPU tests of the CUBIN path): exit code, stdout, stderr.
fn verbose_with(env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let mut c = gpuzzle();
    c.env_remove("GPUZZLE_NO_CUBIN")
        .env_remove("GPUZZLE_CUBIN_TARGET")
        .arg("-v")
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run gpuzzle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The line `-v` prints about how kernels reached the GPU.
fn loaded_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.starts_with("kernels loaded on the GPU as "))
        .unwrap_or_else(|| panic!("no `kernels loaded on the GPU as` line:\n{stderr}"))
}

/// On a GPU, kernels load as a CUBIN for the device's own architecture, assembled by ptxas;
/// with CUBIN turned off (`GPUZZLE_NO_CUBIN=1`), or with a CUBIN for an architecture this GPU
/// cannot run (`GPUZZLE_CUBIN_TARGET`), they load as PTX and still pass. Needs ptxas on the GPU
/// machine (found beside NVRTC, or `GPUZZLE_PTXAS`).
#[test]
fn gpu_loads_a_cubin_for_its_own_architecture_and_falls_back_to_ptx() {
    if let Some(why) = no_gpu() {
        return skip(
            "gpu_loads_a_cubin_for_its_own_architecture_and_falls_back_to_ptx",
            &why,
        );
    }
    if let Err(e) = gpuzzle::compile::assembler() {
        panic!("the CUBIN path needs ptxas on this machine: {e}");
    }
    let cc = gpuzzle::gpu::probe::probe().unwrap()[0].compute_capability;
    let own = format!("sm_{}{}", cc.0, cc.1);
    // Puzzle 1, and 51 (mma.sync, ldmatrix): one kernel of each kind.
    for puzzle in ["1", "51"] {
        let (code, out, err) =
            verbose_with(&[], &["run", puzzle, "--solution", "--backend", "gpu"]);
        assert_eq!(code, 0, "{puzzle}: {out}{err}");
        let line = loaded_line(&err);
        assert!(
            line.starts_with(&format!(
                "kernels loaded on the GPU as CUBIN for {own} via ptxas "
            )),
            "{puzzle}: {line}"
        );
        eprintln!("puzzle {puzzle}: {line}");
    }

    let (code, out, err) = verbose_with(
        &[("GPUZZLE_NO_CUBIN", "1")],
        &["run", "1", "--solution", "--backend", "gpu"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        loaded_line(&err),
        "kernels loaded on the GPU as PTX, JIT-compiled by the driver: GPUZZLE_NO_CUBIN is set"
    );

    // A CUBIN of another major architecture: the driver refuses it, and the PTX runs. The PTX
    // is compiled for sm_80 (which ptxas assembles for either target); on the device's own
    // architecture above sm_80, ptxas itself refuses the older target, also a fallback.
    let other = if cc.0 >= 9 { "sm_80" } else { "sm_90" };
    if cc.0 >= 9 {
        let (code, out, err) = verbose_with(
            &[("GPUZZLE_CUBIN_TARGET", other)],
            &["run", "1", "--solution", "--backend", "gpu"],
        );
        assert_eq!(code, 0, "{out}{err}");
        let line = loaded_line(&err);
        assert!(
            line.starts_with(
                "kernels loaded on the GPU as PTX, JIT-compiled by the driver: ptxas "
            ) && line.contains(&format!("could not assemble it for {other}: ")),
            "{line}"
        );
        eprintln!("{line}");
    }
    let (code, out, err) = verbose_with(
        &[("GPUZZLE_CUBIN_TARGET", other)],
        &[
            "run",
            "1",
            "--solution",
            "--backend",
            "gpu",
            "--arch",
            "sm_80",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let line = loaded_line(&err);
    assert!(
        line.starts_with(&format!(
            "kernels loaded on the GPU as PTX, JIT-compiled by the driver: the driver refused the CUBIN for {other}: "
        )),
        "{line}"
    );
    eprintln!("{line}");

    // doctor runs a kernel there and says how it loaded.
    let (code, out, err) = verbose_with(&[], &["doctor"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!(
            "a test kernel ran on the GPU, loaded as CUBIN for {own} via ptxas "
        )),
        "{out}"
    );
}
