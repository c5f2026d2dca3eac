//! `gpuzzle exec` of real kernels for grid-wide sync, half-precision special functions and the
//! other pieces of "valid PTX never breaks the file" (`tests/kernels/grid/`), each compared with
//! a reference computed here from the inputs the JSON reports: a cooperative launch
//! (`--cooperative`) with two `this_grid().sync()`s, the same kernel in a plain launch (refused
//! at the learner's line), a grid too large to be co-resident, a grid sync some block never
//! reaches, thread-block clusters with distributed shared memory (`--arch sm_90`), `__half` and
//! `__nv_bfloat16` scalar arguments, `INFINITY` without a header, and fp16 `ex2`/`tanh`/
//! `min`/`max.xorsign.abs`. Needs NVRTC (fails without it, never skips).

mod exec_support;

use exec_support::{exec_json, Exec};
use serde_json::Value;
use std::path::PathBuf;

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("exec-grid-cache")
}

fn run(args: &[&str]) -> Exec {
    exec_json(&cache(), args)
}

/// The line of `file` carrying `// @mark`.
fn marked_line(file: &str, mark: &str) -> u64 {
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let tag = format!("// @{mark}");
    text.lines()
        .position(|l| l.trim_end().ends_with(&tag))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("{file} has no {tag}"))
}

/// Buffer `name` of the JSON as numbers (`null`, a NaN, as NaN).
fn buffer(j: &Value, name: &str) -> Vec<f64> {
    j["buffers"][name]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer {name} in {j}"))
        .iter()
        .map(|v| v.as_f64().unwrap_or(f64::NAN))
        .collect()
}

const GRID_SUM: &str = "tests/kernels/grid/grid_sum.cu";

fn grid_sum_args(grid: &str, n: usize) -> Vec<String> {
    let blocks: usize = grid.parse().unwrap_or(1);
    [
        GRID_SUM.to_string(),
        "--kernel".into(),
        "grid_sum".into(),
        "--grid".into(),
        grid.into(),
        "--block".into(),
        "256".into(),
        "--arg".into(),
        format!("in=f32[{n}]:rand=3"),
        "--arg".into(),
        format!("partial=f32[{blocks}]:zeros"),
        "--arg".into(),
        "total=f32[1]:zeros".into(),
        "--arg".into(),
        format!("share=f32[{n}]:zeros"),
        "--arg".into(),
        format!("n=i32:{n}"),
    ]
    .to_vec()
}

#[test]
fn a_cooperative_launch_syncs_the_grid_twice() {
    let mut args = grid_sum_args("12", 5000);
    args.push("--cooperative".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&args);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["diagnostics"], Value::Array(Vec::new()), "{j}");
    let input = buffer(&j, "in");
    let want: f64 = input.iter().sum();
    let total = buffer(&j, "total")[0];
    assert!(
        (total - want).abs() <= 1e-3 * want.abs().max(1.0),
        "{total} vs {want}"
    );
    // Each block's partial, the grid-stride share of its 256 threads.
    let partial = buffer(&j, "partial");
    for (b, p) in partial.iter().enumerate() {
        let mine: f64 = (0..input.len())
            .filter(|i| (i % (12 * 256)) / 256 == b)
            .map(|i| input[i])
            .sum();
        assert!(
            (p - mine).abs() <= 1e-3 * mine.abs().max(1.0),
            "block {b}: {p} vs {mine}"
        );
    }
    // Read after the second sync: every element divided by the total block 0 wrote.
    let share = buffer(&j, "share");
    for (i, s) in share.iter().enumerate() {
        let want = (input[i] as f32 / total as f32) as f64;
        assert!(
            (s - want).abs() <= 1e-6 * want.abs().max(1e-3),
            "share[{i}]: {s} vs {want}"
        );
    }
    // The grid sync's own atomics are the library's: not the kernel's counters.
    assert_eq!(j["counters"]["total"]["global_atomics"], 0, "{j}");
}

#[test]
fn a_grid_sync_in_a_plain_launch_is_refused_at_the_learners_line() {
    let args = grid_sum_args("4", 1000);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&args);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let msg = r.json()["error"].as_str().unwrap_or_default().to_string();
    let line = marked_line(GRID_SUM, "first_sync");
    assert!(msg.contains(&format!("grid_sum.cu:{line}")), "{msg}");
    assert!(msg.contains("cooperative launch"), "{msg}");
    assert!(msg.contains("--cooperative"), "{msg}");
}

#[test]
fn a_grid_too_large_to_be_resident_is_refused_with_the_modelled_limit() {
    let mut args = grid_sum_args("1000", 1000);
    args.push("--cooperative".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&args);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let all = format!("{}{}", r.stdout, r.stderr);
    // 256 threads a block: 8 blocks on each of the A100's 108 SMs.
    assert!(all.contains("864"), "{all}");
    assert!(all.contains("A100") && all.contains("108 SMs"), "{all}");
    assert!(all.contains("1000 blocks"), "{all}");
}

#[test]
fn a_grid_sync_a_block_never_reaches_is_named_at_the_sync() {
    let r = run(&[
        GRID_SUM,
        "--kernel",
        "grid_sum_early_return",
        "--cooperative",
        "--grid",
        "4",
        "--block",
        "64",
        "--arg",
        "in=f32[1000]:ones",
        "--arg",
        "partial=f32[4]:zeros",
        "--arg",
        "total=f32[1]:zeros",
        "--arg",
        "n=i32:1000",
    ]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let j = r.json();
    let d = &j["diagnostics"][0];
    assert_eq!(d["kind"], "step-limit", "{j}");
    assert_eq!(d["line"], marked_line(GRID_SUM, "dead_sync"), "{j}");
    let m = d["message"].as_str().unwrap_or_default();
    assert!(
        m.contains("3 of the grid's 4 blocks") && m.contains("block 3"),
        "{m}"
    );
}

#[test]
fn half_and_bfloat16_scalar_arguments_fill_their_parameters() {
    let r = run(&[
        "tests/kernels/grid/half_scalar_arg.cu",
        "--kernel",
        "scale",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "x=f16[20]:arange",
        "--arg",
        "a=f16:0.5",
        "--arg",
        "b=bf16:0.25",
        "--arg",
        "out=f32[20]:zeros",
        "--arg",
        "n=i32:20",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let out = buffer(&r.json(), "out");
    for (i, o) in out.iter().enumerate() {
        assert_eq!(*o, i as f64 * 0.5 + 0.25, "out[{i}]");
    }
    // A float where a half is declared is still refused, by size.
    let r = run(&[
        "tests/kernels/grid/half_scalar_arg.cu",
        "--kernel",
        "scale",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "x=f16[20]:arange",
        "--arg",
        "a=f32:0.5",
        "--arg",
        "b=bf16:0.25",
        "--arg",
        "out=f32[20]:zeros",
        "--arg",
        "n=i32:20",
    ]);
    assert_ne!(r.code, 0);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains("argument 2 is a f32 scalar (4 bytes)"),
        "{all}"
    );
}

#[test]
fn infinity_nan_and_m_pi_need_no_header() {
    let r = run(&[
        "tests/kernels/grid/infinity.cu",
        "--kernel",
        "row_max",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "x=f32[7]:rand=4",
        "--arg",
        "out=f32[4]:zeros",
        "--arg",
        "n=i32:0",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let out = buffer(&r.json(), "out");
    // No element: the maximum stays at -INFINITY; NAN is a NaN.
    assert_eq!(out[1], 1.0);
    assert_eq!(out[2], std::f32::consts::PI as f64);
    assert_eq!(out[3], 1.0);
    let r = run(&[
        "tests/kernels/grid/infinity.cu",
        "--kernel",
        "row_max",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "x=f32[7]:rand=4",
        "--arg",
        "out=f32[4]:zeros",
        "--arg",
        "n=i32:7",
    ]);
    let j = r.json();
    let max = buffer(&j, "x")
        .into_iter()
        .fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(buffer(&j, "out")[..2], [max, 0.0]);
}

/// `min`/`max.xorsign.abs`: the smaller (larger) magnitude with the sign of a XOR b.
fn xorsign(a: f64, b: f64, max: bool) -> f64 {
    let m = if max {
        a.abs().max(b.abs())
    } else {
        a.abs().min(b.abs())
    };
    if a.is_sign_negative() != b.is_sign_negative() {
        -m
    } else {
        m
    }
}

#[test]
fn half_precision_special_functions_run() {
    let n = 40;
    let r = run(&[
        "tests/kernels/grid/half_special.cu",
        "--kernel",
        "half_special",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        &format!("x=f16[{n}]:rand=11"),
        "--arg",
        &format!("y=f16[{n}]:rand=12"),
        "--arg",
        &format!("out=f16[{}]:zeros", 7 * n),
        "--arg",
        &format!("fout=f32[{n}]:zeros"),
        "--arg",
        &format!("bout=bf16[{}]:zeros", 3 * n),
        "--arg",
        &format!("n=i32:{n}"),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["diagnostics"], Value::Array(Vec::new()), "{j}");
    let (x, y, out, fout, bout) = (
        buffer(&j, "x"),
        buffer(&j, "y"),
        buffer(&j, "out"),
        buffer(&j, "fout"),
        buffer(&j, "bout"),
    );
    // The approximations are good to about 2^-10 relative in f16 (2^-7 in bf16, whose inputs
    // were rounded to bf16 first); xorsign is exact.
    let close = |got: f64, want: f64, rel: f64, what: &str| {
        assert!(
            (got - want).abs() <= rel * want.abs().max(1.0 / 16.0),
            "{what}: {got} vs {want}"
        );
    };
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        close(out[i], a.exp2(), 2e-3, &format!("ex2.approx.f16 of {a}"));
        close(
            out[n + i],
            a.tanh(),
            2e-3,
            &format!("tanh.approx.f16 of {a}"),
        );
        close(
            out[2 * n + i],
            b.tanh(),
            2e-3,
            &format!("tanh.approx.f16x2 of {b}"),
        );
        close(
            out[3 * n + i],
            b.exp2(),
            2e-3,
            &format!("ex2.approx.f16x2 of {b}"),
        );
        assert_eq!(
            out[4 * n + i],
            xorsign(a, b, false),
            "min.xorsign.abs.f16x2 {a} {b}"
        );
        assert_eq!(
            out[5 * n + i],
            xorsign(b, a, true),
            "max.xorsign.abs.f16x2 {b} {a}"
        );
        assert_eq!(
            out[6 * n + i],
            xorsign(a, b, true),
            "max.xorsign.abs.f16 {a} {b}"
        );
        close(fout[i], a.tanh(), 1e-3, &format!("tanh.approx.f32 of {a}"));
        close(
            bout[i],
            a.tanh(),
            2e-2,
            &format!("tanh.approx.bf16x2 of {a}"),
        );
        close(
            bout[n + i],
            b.exp2(),
            2e-2,
            &format!("ex2.approx.ftz.bf16x2 of {b}"),
        );
        close(
            bout[2 * n + i],
            -b.abs(),
            1e-2,
            &format!("min.xorsign.abs.bf16x2 of {b}"),
        );
    }
}

const CLUSTER_RING: &str = "tests/kernels/grid/cluster_ring.cu";

#[test]
fn clusters_share_their_blocks_shared_memory_with_arch_sm_90() {
    let n = 700;
    let r = run(&[
        CLUSTER_RING,
        "--arch",
        "sm_90",
        "--kernel",
        "cluster_ring",
        "--grid",
        "12",
        "--block",
        "64",
        "--arg",
        &format!("in=f32[{n}]:rand=9"),
        "--arg",
        &format!("out=f32[{n}]:zeros"),
        "--arg",
        "info=u32[48]:zeros",
        "--arg",
        &format!("n=i32:{n}"),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["diagnostics"], Value::Array(Vec::new()), "{j}");
    let (input, out, info) = (buffer(&j, "in"), buffer(&j, "out"), buffer(&j, "info"));
    let at = |i: usize| input.get(i).copied().unwrap_or(0.0);
    for (i, o) in out.iter().enumerate() {
        let (block, t) = (i / 64, i % 64);
        // The next block around its cluster of 4.
        let next = block / 4 * 4 + (block % 4 + 1) % 4;
        let want = at(i) + at(next * 64 + t);
        assert!(
            (o - want).abs() <= 1e-6 * want.abs().max(1.0),
            "out[{i}] (block {block}): {o} vs {want}"
        );
    }
    for b in 0..12 {
        let row = &info[4 * b..4 * b + 4];
        // Rank in the cluster, blocks per cluster, which cluster, elect.sync's leader lane.
        assert_eq!(row, [(b % 4) as f64, 4.0, (b / 4) as f64, 0.0], "block {b}");
    }
}

#[test]
fn a_grid_that_is_no_whole_number_of_clusters_is_refused() {
    let r = run(&[
        CLUSTER_RING,
        "--arch",
        "sm_90",
        "--kernel",
        "cluster_ring",
        "--grid",
        "6",
        "--block",
        "64",
        "--arg",
        "in=f32[10]:ones",
        "--arg",
        "out=f32[10]:zeros",
        "--arg",
        "info=u32[24]:zeros",
        "--arg",
        "n=i32:10",
    ]);
    assert_ne!(r.code, 0);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(all.contains("clusters of 4 x 1 x 1"), "{all}");
}

#[test]
fn without_arch_sm_90_a_cluster_kernel_does_not_compile() {
    let r = run(&[
        CLUSTER_RING,
        "--kernel",
        "cluster_ring",
        "--grid",
        "4",
        "--block",
        "64",
        "--arg",
        "in=f32[10]:ones",
        "--arg",
        "out=f32[10]:zeros",
        "--arg",
        "info=u32[16]:zeros",
        "--arg",
        "n=i32:10",
    ]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let r = run(&[
        CLUSTER_RING,
        "--arch",
        "sm_75",
        "--kernel",
        "cluster_ring",
        "--grid",
        "4",
        "--block",
        "64",
    ]);
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("sm_80, sm_86, sm_89 or sm_90"),
        "{}",
        r.stderr
    );
}

#[test]
fn vector_atomics_add_each_element() {
    let n = 150;
    let r = run(&[
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
        &format!("x=f32[{n}]:arange"),
        "--arg",
        &format!("n=i32:{n}"),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    let x = buffer(&j, "x");
    let sum: f64 = x.iter().sum();
    assert_eq!(buffer(&j, "acc2"), [sum, 2.0 * sum]);
    assert_eq!(buffer(&j, "acc4"), [sum, n as f64, -sum, 0.5 * n as f64]);
    assert_eq!(buffer(&j, "first"), [0.0, 0.0, 0.0, 0.0]);
    // Each element is an atomic of its own: 6 per thread.
    assert_eq!(j["counters"]["max_per_thread"]["global_atomics"], 6, "{j}");
}

#[test]
fn a_tma_copy_is_refused_by_name_at_the_learners_line() {
    let file = "tests/kernels/grid/hopper_only.cu";
    let args = |go: &'static str| {
        [
            file,
            "--arch",
            "sm_90",
            "--kernel",
            "tma_copy",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "out=f32[32]:zeros",
            "--arg",
            "tensor_map=u64:0",
            "--arg",
            go,
        ]
    };
    // Never reached: the file runs.
    let r = run(&args("go=i32:0"));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(buffer(&r.json(), "out"), vec![1.0; 32]);
    // Reached: refused, naming the instruction and the learner's line, not the header's.
    let r = run(&args("go=i32:1"));
    assert_ne!(r.code, 0);
    let msg = r.json()["error"].as_str().unwrap_or_default().to_string();
    assert!(msg.contains("cp.async.bulk.tensor"), "{msg}");
    let line = marked_line(file, "tma");
    assert!(msg.contains(&format!("hopper_only.cu:{line}")), "{msg}");
}

/// The PTX the GPU backend runs (instrumented) lets a grid sync's workspace and another block's
/// shared memory through, and computes what the plain emulator computes.
#[test]
fn the_gpu_backends_instrumented_ptx_runs_grid_syncs_and_clusters() {
    let mut grid = grid_sum_args("6", 2000);
    grid.push("--cooperative".into());
    let mut cluster: Vec<String> = [
        CLUSTER_RING,
        "--arch",
        "sm_90",
        "--kernel",
        "cluster_ring",
        "--grid",
        "8",
        "--block",
        "64",
        "--arg",
        "in=f32[500]:rand=5",
        "--arg",
        "out=f32[500]:zeros",
        "--arg",
        "info=u32[32]:zeros",
        "--arg",
        "n=i32:500",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for args in [&mut grid, &mut cluster] {
        let plain: Vec<&str> = args.iter().map(String::as_str).collect();
        let want = run(&plain);
        assert_eq!(want.code, 0, "{}\n{}", want.stdout, want.stderr);
        args.push("--via-instrumented-ptx".into());
        let via: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = run(&via);
        assert_eq!(got.code, 0, "{}\n{}", got.stdout, got.stderr);
        assert_eq!(got.json()["buffers"], want.json()["buffers"], "{args:?}");
        assert_eq!(got.json()["diagnostics"], Value::Array(Vec::new()));
    }
}

#[test]
fn a_cluster_barrier_a_block_never_reaches_is_named_at_the_sync() {
    let r = run(&[
        CLUSTER_RING,
        "--arch",
        "sm_90",
        "--kernel",
        "cluster_early_return",
        "--grid",
        "8",
        "--block",
        "32",
        "--arg",
        "out=f32[8]:zeros",
    ]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let j = r.json();
    let d = &j["diagnostics"][0];
    assert_eq!(d["kind"], "step-limit", "{}", j["diagnostics"]);
    assert_eq!(d["line"], marked_line(CLUSTER_RING, "cluster_dead"), "{d}");
    let m = d["message"].as_str().unwrap_or_default();
    assert!(
        m.contains("cluster barrier") && m.contains("block 1"),
        "{m}"
    );
}

#[test]
fn a_race_before_a_grid_sync_names_both_sides_and_asks_for_the_sync() {
    let r = run(&[
        GRID_SUM,
        "--kernel",
        "grid_race_before_sync",
        "--cooperative",
        "--grid",
        "4",
        "--block",
        "32",
        "--arg",
        "partial=f32[4]:zeros",
        "--arg",
        "out=f32[2]:zeros",
    ]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let j = r.json();
    let d = &j["diagnostics"][0];
    assert_eq!(d["kind"], "global-race", "{}", j["diagnostics"]);
    assert_eq!(d["line"], marked_line(GRID_SUM, "race_write"), "{d}");
    let m = d["message"].as_str().unwrap_or_default();
    let read = marked_line(GRID_SUM, "race_read");
    // The read before the sync, not the one after it.
    assert!(m.contains(&format!("(line {read})")), "{m}");
}

const CLUSTER_RACE: &str = "tests/kernels/grid/cluster_race.cu";

fn cluster_race(sync: i32) -> Exec {
    run(&[
        CLUSTER_RACE,
        "--arch",
        "sm_90",
        "--kernel",
        "dsmem_push",
        "--grid",
        "4",
        "--block",
        "64",
        "--arg",
        "in=f32[256]:arange",
        "--arg",
        "out=f32[256]:zeros",
        "--arg",
        &format!("sync=i32:{sync}"),
    ])
}

/// Each block writes the other block's `inbox` through `map_shared_rank`: with a
/// `cluster.sync()` between the writes and the reads the run is clean (the other block's
/// writes initialise the inbox), and each block reads what its partner sent.
#[test]
fn distributed_shared_memory_ordered_by_a_cluster_barrier_is_clean() {
    let r = cluster_race(1);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["diagnostics"], Value::Array(Vec::new()), "{j}");
    let want: Vec<f64> = (0..256)
        .map(|i| {
            let (block, t) = (i / 64, i % 64);
            let partner = block / 2 * 2 + (block % 2 + 1) % 2;
            (partner * 64 + t) as f64
        })
        .collect();
    assert_eq!(buffer(&j, "out"), want);
}

/// Without the cluster barrier, block A's write into block B's shared memory and B's read of
/// the same element race: reported as `shared-race` at both lines, with help that names
/// `cluster.sync()`.
#[test]
fn distributed_shared_memory_without_a_cluster_barrier_is_a_shared_race() {
    let r = cluster_race(0);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    let (push, pull) = (
        marked_line(CLUSTER_RACE, "push"),
        marked_line(CLUSTER_RACE, "pull"),
    );
    let races: Vec<&Value> = j["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter(|d| d["kind"] == "shared-race").collect())
        .unwrap_or_default();
    let mut lines: Vec<u64> = races
        .iter()
        .map(|d| d["line"].as_u64().unwrap_or(0))
        .collect();
    lines.sort();
    assert_eq!(lines, vec![push, pull], "{}", j["diagnostics"]);
    let read = races
        .iter()
        .find(|d| d["line"].as_u64() == Some(pull))
        .and_then(|d| d["message"].as_str())
        .unwrap_or("");
    assert!(
        read.contains(&format!("read its block's shared inbox[0] (line {pull})"))
            && read.contains(&format!("through map_shared_rank (line {push})"))
            && read.contains("with no cluster.sync() between them"),
        "{read}"
    );
    let text = std::process::Command::new(env!("CARGO_BIN_EXE_gpuzzle"))
        .args([
            "exec",
            CLUSTER_RACE,
            "--arch",
            "sm_90",
            "--kernel",
            "dsmem_push",
            "--grid",
            "2",
            "--block",
            "64",
            "--arg",
            "in=f32[128]:arange",
            "--arg",
            "out=f32[128]:zeros",
            "--arg",
            "sync=i32:0",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GPUZZLE_CACHE_DIR", cache())
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .output()
        .expect("run gpuzzle");
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains(&format!("call `cluster.sync()` (`cg::this_cluster().sync()`) in every thread of every block of the cluster after the write (line {push}) and before the read (line {pull})")),
        "{text}"
    );
}
