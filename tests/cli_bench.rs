//! `gpuzzle bench` through the real binary, for every puzzle of the pack that has a `[bench]`:
//! on the emulator (counts, said plainly not to be a timing) always, and on a GPU (a timing) when
//! there is one. NVRTC must be installed.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env(
        "GPUZZLE_CACHE_DIR",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-bench-cache"),
    );
    c.env("NO_COLOR", "1")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GPUZZLE_BACKEND");
    c
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

/// The pack's puzzles that have a [bench] table.
fn benched() -> Vec<gpuzzle::puzzle::Puzzle> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
    let all = gpuzzle::puzzle::load_dir(&dir).expect("the pack loads");
    let with: Vec<_> = all.into_iter().filter(|p| p.bench.is_some()).collect();
    assert!(with.len() >= 6, "the pack has benches");
    with
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn every_bench_runs_on_the_emulator_and_gives_counts_not_a_timing() {
    for p in benched() {
        let id = p.id.to_string();
        let (code, out, err) = run(&[
            "bench",
            &id,
            "--solution",
            "--backend",
            "emu",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "bench {id}: {err}\n{out}");
        let v = json(&out);
        let bench = p.bench.as_ref().unwrap();
        assert_eq!(v["backend"], "emulator", "{id}");
        assert_eq!(v["timing"], false, "{id}");
        assert_eq!(v["note"], "emulator: these are counts, not a timing");
        assert_eq!(v["bench"], bench.name.as_str());
        assert_eq!(v["grid"], serde_json::json!(bench.grid));
        let threads: u64 = bench
            .grid
            .iter()
            .chain(&bench.block)
            .map(|&d| d as u64)
            .product();
        assert_eq!(v["threads"], threads);
        let must: u64 = bench
            .buffers
            .values()
            .map(|b| (b.len * b.ty.size()) as u64)
            .sum();
        assert_eq!(v["work"]["compulsory_bytes"], must, "{id}");
        let flops = p
            .bench_flops
            .as_ref()
            .expect("every pack bench states its FLOPs");
        assert_eq!(f(&v["work"]["flops"]), flops.value, "{id}");

        let k = &v["kernel"]["figures"];
        // The reference reads every input and writes every output: at least the compulsory
        // traffic moves, in whole sectors.
        let moved = k["bytes_moved"].as_u64().unwrap();
        assert_eq!(moved, k["global_sectors"].as_u64().unwrap() * 32);
        assert!(moved >= must, "{id}: moved {moved} < {must}");
        assert!(f(&k["traffic_ratio"]) >= 1.0, "{id}");
        let spa = f(&k["sectors_per_access"]);
        assert!((1.0..=32.0).contains(&spa), "{id}: {spa}");
        assert!(f(&k["ideal_sectors_per_access"]) >= 1.0);
        assert!(k["instructions"].as_u64().unwrap() > 0);
        assert!(f(&k["flops_per_byte_moved"]) > 0.0);
        assert!(f(&k["instructions_per_byte_moved"]) > 0.0);
        // Counters agree with the budget the tests judge (the bench is larger, per-thread the same).
        let max = &k["counters"]["max_per_thread"];
        if let Some(b) = p.budget.global_writes {
            assert!(max["global_writes"].as_u64().unwrap() <= b, "{id}: {max}");
        }
        // Shared-memory figures only where shared memory is used.
        let shared = max["shared_reads"].as_u64().unwrap() + max["shared_writes"].as_u64().unwrap();
        if shared > 0 {
            assert!(f(&k["bank_ways_avg"]) >= 1.0, "{id}");
            assert!(k["bank_ways_max"].as_u64().unwrap() >= 1, "{id}");
        } else {
            assert_eq!(k["bank_ways_avg"], Value::Null, "{id}");
        }
        assert_eq!(v["kernel"]["diagnostics"], serde_json::json!([]), "{id}");
        // --solution benches the reference itself: nothing to compare against.
        assert_eq!(v["reference"], Value::Null);
    }
}

#[test]
fn the_text_report_says_it_is_not_a_timing_and_compares_with_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().args(["init"]).arg(&ws).assert().success();
    // The learner's file is the reference here: same figures, outputs match. (The workspace
    // has no solutions/: the reference is the one built into gpuzzle.)
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/06_blocks.cu"),
        ws.join("puzzles/06_blocks.cu"),
    )
    .unwrap();
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["bench", "6", "--backend", "emu"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("emulator: these are counts, not a timing"),
        "{text}"
    );
    assert!(text.contains("your kernel       reference"), "{text}");
    assert!(text.contains("sectors per warp global access"), "{text}");
    assert!(
        text.contains("output matches the reference solution's"),
        "{text}"
    );
    assert!(!text.contains("time, median"), "{text}");

    // The untouched starter of another puzzle computes nothing: it fails, with the count.
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["bench", "14", "--backend", "emu", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json(&String::from_utf8_lossy(&out.stdout));
    assert!(v["mismatches_vs_reference"].as_u64().unwrap() > 0, "{v}");
    assert!(v["reference"]["figures"]["bytes_moved"].as_u64().unwrap() > 0);
}

#[test]
fn a_puzzle_without_a_bench_is_a_usage_error_naming_those_with_one() {
    let (code, _, err) = run(&["bench", "1", "--backend", "emu"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no [bench] table"), "{err}");
    assert!(err.contains("14 matmul"), "{err}");
}

#[test]
fn a_gpu_bench_is_a_timing_against_the_peaks_and_the_reference() {
    if let Err(why) = gpuzzle::gpu::probe::probe() {
        eprintln!("SKIPPED a_gpu_bench_is_a_timing...: no GPU ({why})");
        return;
    }
    for p in benched() {
        let id = p.id.to_string();
        let (code, out, err) = run(&[
            "bench",
            &id,
            "--backend",
            "gpu",
            "--solution",
            "--reps",
            "5",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "bench {id}: {err}\n{out}");
        let v = json(&out);
        assert_eq!(v["backend"], "gpu");
        assert_eq!(v["timing"], true);
        let t = &v["kernel"]["timing"];
        assert_eq!(t["reps"], 5);
        assert!(f(&t["median_ms"]) > 0.0 && f(&t["min_ms"]) <= f(&t["median_ms"]));
        assert!(f(&t["gbps"]) > 0.0);
        assert!(v["device"]["name"].as_str().is_some_and(|n| !n.is_empty()));
    }
}
