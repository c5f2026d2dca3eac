//! Async copies, mbarriers and named barriers through `gpuzzle exec` (the real binary, the
//! emulator): kernels written with each of NVIDIA's async-copy interfaces
//! (`tests/kernels/async/`: the pipeline primitives, `cg::memcpy_async`, `cuda::pipeline`,
//! `cuda::barrier`, and `cp.async` in inline PTX with the source-size zero fill), and
//! producer/consumer warps on named barriers, compared with a reference computed here; then
//! one planted bug per diagnostic of the family (`bugs.cu`, each at the line marked `BUG`),
//! checked for its kind, line and help. Needs NVRTC.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env(
        "GPUZZLE_CACHE_DIR",
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("async-copy-cache"),
    );
    c.env("NO_COLOR", "1").env("GPUZZLE_BACKEND", "emu");
    c
}

fn file(name: &str) -> String {
    format!("tests/kernels/async/{name}.cu")
}

/// `exec --format json` of `kernel` in `tests/kernels/async/{name}.cu`: exit code and JSON.
fn exec(name: &str, kernel: &str, grid: u32, block: u32, args: &[&str]) -> (i32, Value) {
    let mut cmd = gpuzzle();
    cmd.arg("exec")
        .arg(file(name))
        .args(["--kernel", kernel, "--grid", &grid.to_string()])
        .args(["--block", &block.to_string(), "--format", "json"]);
    for a in args {
        cmd.arg(a);
    }
    let out = cmd.output().expect("run gpuzzle");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "{name}/{kernel}: not JSON ({e}): {text}{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

fn floats(v: &Value, buffer: &str) -> Vec<f64> {
    v["buffers"][buffer]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer {buffer}: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect()
}

/// A clean run: exit 0, no diagnostics, `out` as `want`.
fn assert_clean(name: &str, code: i32, v: &Value, want: &[f64]) {
    assert_eq!(code, 0, "{name}: {v}");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{name}");
    let got = floats(v, "out");
    assert_eq!(got.len(), want.len(), "{name}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        // The JSON holds the f32 results printed shortest: equal to a part in 10^6.
        assert!(
            (g - w).abs() <= 1e-6 * w.abs().max(1.0),
            "{name}: out[{i}] is {g}, want {w}"
        );
    }
}

#[test]
fn pipeline_primitives_double_buffer_matches_the_reference() {
    let (blocks, tiles, t) = (3usize, 4usize, 64usize);
    let n = blocks * tiles * t;
    let (code, v) = exec(
        "primitives",
        "reverse_tiles",
        blocks as u32,
        t as u32,
        &[
            "--arg",
            &format!("in=f32[{n}]:arange"),
            "--arg",
            &format!("out=f32[{n}]:zeros"),
            "--arg",
            &format!("tiles_per_block=i32:{tiles}"),
        ],
    );
    let want: Vec<f64> = (0..n)
        .map(|k| {
            let (tile, j) = (k / t, k % t);
            2.0 * (tile * t + t - 1 - j) as f64
        })
        .collect();
    assert_clean("primitives", code, &v, &want);
    // Each copy is one global read and one shared write for its thread.
    let per = &v["counters"]["max_per_thread"];
    assert_eq!(per["global_reads"], tiles as u64, "{v}");
    assert_eq!(per["shared_writes"], tiles as u64, "{v}");
}

#[test]
fn cooperative_groups_memcpy_async_matches_the_reference() {
    let (blocks, t) = (3usize, 128usize);
    let (code, v) = exec(
        "cg_copy",
        "neighbours",
        blocks as u32,
        t as u32,
        &[
            "--arg",
            &format!("in=f32[{}]:arange", blocks * t + 1),
            "--arg",
            &format!("out=f32[{}]:zeros", blocks * t),
        ],
    );
    let want: Vec<f64> = (0..blocks * t).map(|i| (2 * i + 1) as f64).collect();
    assert_clean("cg_copy", code, &v, &want);
}

#[test]
fn cuda_pipeline_with_two_stages_matches_the_reference() {
    let (blocks, tiles, t) = (2usize, 4usize, 128usize);
    let n = blocks * tiles * t;
    let (code, v) = exec(
        "cuda_pipeline",
        "scale_tiles",
        blocks as u32,
        t as u32,
        &[
            "--arg",
            &format!("in=f32[{n}]:rand=7"),
            "--arg",
            &format!("out=f32[{n}]:zeros"),
        ],
    );
    let input = floats(&v, "in");
    let want: Vec<f64> = (0..n)
        .map(|k| {
            let (tile, j) = (k / t, k % t);
            (3.0f32 * input[tile * t + t - 1 - j] as f32) as f64
        })
        .collect();
    assert_clean("cuda_pipeline", code, &v, &want);
}

#[test]
fn cuda_barrier_completing_async_copies_matches_the_reference() {
    let (blocks, tiles, t) = (2usize, 3usize, 128usize);
    let n = blocks * tiles * t;
    let (code, v) = exec(
        "cuda_barrier",
        "reverse_minus_one",
        blocks as u32,
        t as u32,
        &[
            "--arg",
            &format!("in=f32[{n}]:arange"),
            "--arg",
            &format!("out=f32[{n}]:zeros"),
        ],
    );
    let want: Vec<f64> = (0..n)
        .map(|k| {
            let (tile, j) = (k / t, k % t);
            (tile * t + t - 1 - j) as f64 - 1.0
        })
        .collect();
    assert_clean("cuda_barrier", code, &v, &want);
}

#[test]
fn inline_ptx_copies_zero_fill_past_the_source_size() {
    let (blocks, threads, n) = (2usize, 32usize, 250usize);
    let len = blocks * threads * 4;
    let (code, v) = exec(
        "ptx_zfill",
        "zfill",
        blocks as u32,
        threads as u32,
        &[
            "--shared",
            "512",
            "--arg",
            &format!("in=f32[{n}]:arange"),
            "--arg",
            &format!("out=f32[{len}]:fill=-1"),
            "--arg",
            &format!("n=i32:{n}"),
        ],
    );
    let want: Vec<f64> = (0..len)
        .map(|i| if i < n { i as f64 } else { 0.0 })
        .collect();
    assert_clean("ptx_zfill", code, &v, &want);
}

#[test]
fn producer_and_consumer_warps_on_named_barriers_match_the_reference() {
    let (code, v) = exec(
        "named",
        "relay",
        1,
        64,
        &["--arg", "in=f32[128]:arange", "--arg", "out=f32[128]:zeros"],
    );
    let want: Vec<f64> = (0..128)
        .map(|k| {
            let (round, lane) = (k / 32, k % 32);
            2.0 * (round * 32 + 31 - lane) as f64
        })
        .collect();
    assert_clean("named", code, &v, &want);
}

/// A named barrier counts warps (32 each, however many lanes run it): the producer warp whose
/// upper lanes returned early still arrives, so the consumers are released and read what the
/// lanes that stayed wrote.
#[test]
fn a_warp_arrives_at_a_named_barrier_as_a_whole() {
    let n = 20;
    let (code, v) = exec(
        "named",
        "half_producer",
        1,
        64,
        &[
            "--arg",
            "in=f32[32]:arange",
            "--arg",
            "out=f32[32]:zeros",
            "--arg",
            &format!("n=i32:{n}"),
        ],
    );
    let want: Vec<f64> = (0..32)
        .map(|i| if i < n { 3.0 * i as f64 } else { 0.0 })
        .collect();
    assert_clean("half_producer", code, &v, &want);
}

/// A named barrier's count that is not a multiple of 32 is reported where each thread meets
/// it (the producers' `bar.arrive` and the consumers' `bar.sync`), with help that says why
/// and which counts would do; the barrier still works as the whole warps it rounds up to.
#[test]
fn a_named_barrier_count_that_is_not_whole_warps_is_reported_at_its_line() {
    let (code, v) = exec(
        "bugs",
        "named_count_not_warps",
        1,
        96,
        &["--arg", "in=f32[40]:arange", "--arg", "out=f32[40]:zeros"],
    );
    assert_eq!(code, 1, "{v}");
    let line = bug_line("named_count_not_warps");
    let ds = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let found: Vec<(String, u64)> = ds
        .iter()
        .map(|d| {
            (
                d["kind"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("barrier-divergence".to_string(), line - 2),
            ("barrier-divergence".to_string(), line)
        ],
        "{v}"
    );
    assert!(
        ds[1]["message"]
            .as_str()
            .unwrap_or("")
            .contains("with a count of 80 threads, which is not a multiple of 32"),
        "{v}"
    );
    let out = gpuzzle()
        .arg("exec")
        .arg(file("bugs"))
        .args([
            "--kernel",
            "named_count_not_warps",
            "--grid",
            "1",
            "--block",
            "96",
        ])
        .args(["--arg", "in=f32[40]:arange", "--arg", "out=f32[40]:zeros"])
        .output()
        .expect("run gpuzzle");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("32 times the number of warps that take part (64 or 96 here)"),
        "{text}"
    );
    // Rounded up to three warps, the barrier released the consumers.
    let out = floats(&v, "out");
    assert_eq!(out, (0..40).map(|i| (39 - i) as f64).collect::<Vec<_>>());
}

/// The line of `bugs.cu` marked `// BUG {kernel}`.
fn bug_line(kernel: &str) -> u64 {
    let src = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file("bugs")))
        .expect("bugs.cu");
    let mark = format!("// BUG {kernel}");
    src.lines()
        .position(|l| l.trim_end().ends_with(&mark))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("no {mark} in bugs.cu"))
}

/// Run planted bug `kernel` (64 threads a block, `in` long enough) in text form for the help,
/// and in JSON: exit 1 and a diagnostic of `kind` at its marked line, whose help says `help`.
fn assert_planted(kernel: &str, kind: &str, help: &str) {
    // copy_past_the_end reads one element a thread: 100 floats for 128 threads.
    let past = kernel == "copy_past_the_end";
    let input = if past {
        "in=f32[100]:arange"
    } else {
        "in=f32[128]:arange"
    };
    let args = [
        "--arg",
        input,
        "--arg",
        "out=f32[128]:zeros",
        "--arg",
        "n=i32:100",
    ];
    let n_args = if past { 6 } else { 4 };
    let (code, v) = exec("bugs", kernel, 2, 64, &args[..n_args]);
    assert_eq!(code, 1, "{kernel}: {v}");
    let line = bug_line(kernel);
    let ds = v["diagnostics"].as_array().cloned().unwrap_or_default();
    assert!(
        ds.iter()
            .any(|d| d["kind"] == kind && d["line"].as_u64() == Some(line)),
        "{kernel}: want {kind} at line {line}, got {ds:?}"
    );
    let out = gpuzzle()
        .arg("exec")
        .arg(file("bugs"))
        .args(["--kernel", kernel, "--grid", "2", "--block", "64"])
        .args(&args[..n_args])
        .output()
        .expect("run gpuzzle");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(&format!("error[{kind}]")) && text.contains(help),
        "{kernel}: the help should say `{help}`:\n{text}"
    );
}

#[test]
fn a_read_before_the_wait_is_reported_at_the_read_with_the_missing_wait() {
    assert_planted("missing_wait", "async-copy", "__pipeline_wait_prior(0)");
    assert_planted("lax_wait", "async-copy", "__pipeline_wait_prior(0)");
    assert_planted("cg_missing_wait", "async-copy", "cg::wait(block)");
    assert_planted(
        "pipeline_missing_wait",
        "async-copy",
        "`pipe.consumer_wait()`",
    );
    assert_planted(
        "barrier_arrive_without_wait",
        "async-copy",
        "bar.arrive_and_wait()",
    );
}

#[test]
fn another_thread_reading_after_the_wait_needs_a_barrier() {
    assert_planted(
        "no_barrier_after_wait",
        "async-copy",
        "put a `__syncthreads()` after the wait",
    );
}

#[test]
fn writing_a_destination_or_source_in_flight_is_reported() {
    assert_planted("overwrite_destination", "async-copy", "is still copying to");
    assert_planted(
        "overwrite_source",
        "async-copy",
        "overwrites the global memory",
    );
}

#[test]
fn copies_out_of_bounds_or_misaligned_are_reported_like_accesses() {
    assert_planted("copy_past_the_end", "out-of-bounds", "in has 100 elements");
    assert_planted("misaligned_copy", "misaligned", "multiple of 16");
}

#[test]
fn a_named_barrier_whose_count_never_arrives_is_barrier_divergence() {
    assert_planted(
        "named_count_too_high",
        "barrier-divergence",
        "named barrier 1 releases its threads once 96 have arrived",
    );
}

#[test]
fn an_mbarrier_phase_that_never_completes_is_reported_not_spun_on() {
    assert_planted(
        "barrier_count_too_high",
        "barrier-divergence",
        "only 64 threads arrived",
    );
}
