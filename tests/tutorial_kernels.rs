//! Kernels written the way tutorials and books write them (`tests/kernels/tutorial/`): a
//! namespaced shared array, `__constant__` tables and `__device__` results, half precision.
//! Each runs through `gpuzzle exec` and is checked against a Rust reference; the planted bugs
//! are checked for their kind, line and the name the learner wrote.

mod exec_support;

use assert_cmd::Command;
use exec_support::exec_json;
use serde_json::Value;
use std::path::PathBuf;

const DIR: &str = "tests/kernels/tutorial";

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tutorial-kernels-cache")
}

/// Runs `gpuzzle exec ARGS --format json`: (exit code, JSON or Null, stderr).
fn exec_raw(args: &[&str]) -> (i32, Value, String) {
    let out = exec_json(&cache(), args);
    (out.code, out.json(), out.stderr)
}

fn kernel(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

/// The one diagnostic of a run (its kind, line and message).
fn only_diagnostic(json: &Value) -> (String, u64, String) {
    let diags = json["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics: {json}"));
    assert_eq!(diags.len(), 1, "{json}");
    let d = &diags[0];
    (
        d["kind"].as_str().unwrap_or_default().to_string(),
        d["line"].as_u64().unwrap_or_default(),
        d["message"].as_str().unwrap_or_default().to_string(),
    )
}

fn pmpp(kernel_name: &str, extra: &[&str]) -> (i32, Value, String) {
    let file = kernel("pmpp_namespace.cu");
    let qualified = format!("PMPP::CUDA::{kernel_name}");
    let mut args = vec![file.as_str(), "--kernel", qualified.as_str()];
    args.extend_from_slice(extra);
    exec_raw(&args)
}

#[test]
fn a_namespaced_shared_array_sums_each_block() {
    let (code, v, stderr) = pmpp(
        "block_sum",
        &[
            "--grid",
            "3",
            "--block",
            "256",
            "--arg",
            "x=f32[700]:rand=5",
            "--arg",
            "out=f32[3]:zeros",
            "--arg",
            "n=i32:700",
        ],
    );
    assert_eq!(code, 0, "{v}\n{stderr}");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v}");
    let x = floats(&v["buffers"]["x"]);
    let got = floats(&v["buffers"]["out"]);
    for (b, slice) in x.chunks(256).enumerate() {
        let expected: f64 = slice.iter().sum();
        assert!(
            (got[b] - expected).abs() < 1e-4,
            "block {b}: {} vs {expected}",
            got[b]
        );
    }
}

#[test]
fn an_overflowing_namespaced_shared_array_is_named_as_written() {
    let (code, v, stderr) = pmpp(
        "block_sum_off_by_one",
        &[
            "--grid",
            "1",
            "--block",
            "256",
            "--arg",
            "x=f32[256]:rand=1",
            "--arg",
            "out=f32[1]:zeros",
            "--arg",
            "n=i32:256",
        ],
    );
    assert_eq!(code, 1, "{v}\n{stderr}");
    let (kind, line, message) = only_diagnostic(&v);
    assert_eq!((kind.as_str(), line), ("out-of-bounds", 32), "{message}");
    assert!(
        message.contains("wrote shared PMPP::CUDA::partial_sum[256]")
            && message.contains("has 256 elements"),
        "{message}"
    );
    assert!(!message.contains("_ZN"), "{message}");
}

#[test]
fn a_negative_shared_index_is_shown_as_negative_with_advice() {
    let (code, v, stderr) = pmpp(
        "left_difference",
        &[
            "--grid",
            "1",
            "--block",
            "64",
            "--arg",
            "x=f32[64]:rand=2",
            "--arg",
            "out=f32[64]:zeros",
            "--arg",
            "n=i32:64",
        ],
    );
    assert_eq!(code, 1, "{v}\n{stderr}");
    let (kind, line, message) = only_diagnostic(&v);
    assert_eq!((kind.as_str(), line), ("out-of-bounds", 42), "{message}");
    assert!(
        message.contains("thread 0 of block 0 read shared PMPP::CUDA::partial_sum[-1]"),
        "{message}"
    );
    // The advice is in the text report (JSON carries the message).
    let text = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GPUZZLE_CACHE_DIR", cache())
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .args(["exec", &kernel("pmpp_namespace.cu"), "--kernel"])
        .args([
            "PMPP::CUDA::left_difference",
            "--grid",
            "1",
            "--block",
            "64",
        ])
        .args([
            "--arg",
            "x=f32[64]:rand=2",
            "--arg",
            "out=f32[64]:zeros",
            "--arg",
            "n=i32:64",
        ])
        .output()
        .expect("run gpuzzle");
    let text =
        String::from_utf8_lossy(&text.stdout).into_owned() + &String::from_utf8_lossy(&text.stderr);
    assert!(
        text.contains(
            "an index below 0. Check the lower bound before the access, e.g. `if (t - 1 >= 0)`"
        ),
        "{text}"
    );
}

#[test]
fn a_namespaced_device_array_is_indexed_by_its_elements() {
    let (code, v, stderr) = pmpp(
        "histogram_one_bin_short",
        &[
            "--grid",
            "1",
            "--block",
            "8",
            "--arg",
            "values=i32[8]:arange",
            "--arg",
            "n=i32:5",
        ],
    );
    assert_eq!(code, 1, "{v}\n{stderr}");
    let (kind, line, message) = only_diagnostic(&v);
    assert_eq!((kind.as_str(), line), ("out-of-bounds", 48), "{message}");
    assert!(
        message.contains("PMPP::CUDA::histogram[4]") && message.contains("has 4 elements"),
        "{message}"
    );
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_i64().unwrap_or_else(|| panic!("not an integer: {x}")))
        .collect()
}

#[test]
fn a_64_thread_tile_reduces_through_reserved_shared_memory() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("reserved_smem/cg_big_tiles.cu"),
        "--kernel",
        "tile64_sum",
        "--grid",
        "3",
        "--block",
        "128",
        "--arg",
        "x=f32[330]:rand=7",
        "--arg",
        "out=f32[1]:zeros",
        "--arg",
        "n=i32:330",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    // The library's own barrier in reserved shared memory is not a learner's race.
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v}");
    let expected: f64 = floats(&v["buffers"]["x"]).iter().sum();
    let got = floats(&v["buffers"]["out"])[0];
    assert!((got - expected).abs() < 1e-3, "{got} vs {expected}");
}

#[test]
fn a_128_thread_tile_finds_each_tiles_maximum() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("reserved_smem/cg_big_tiles.cu"),
        "--kernel",
        "tile128_max",
        "--grid",
        "2",
        "--block",
        "256",
        "--arg",
        "x=i32[500]:rand=4",
        "--arg",
        "tile_max=i32[4]:zeros",
        "--arg",
        "n=i32:500",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "{v}");
    let x = ints(&v["buffers"]["x"]);
    let expected: Vec<i64> = x
        .chunks(128)
        .map(|t| t.iter().copied().max().unwrap_or(i64::MIN))
        .collect();
    assert_eq!(ints(&v["buffers"]["tile_max"]), expected);
}

#[test]
fn big_tiles_run_instrumented_with_the_same_outputs_and_no_fault() {
    // The GPU's instrumentation must accept the runtime's reserved shared memory, where the
    // tiles keep their scratch, as the emulator does (no false out-of-bounds).
    for (kernel_name, grid, block, args) in [
        (
            "tile64_sum",
            "3",
            "128",
            ["x=f32[330]:rand=7", "out=f32[1]:zeros", "n=i32:330"],
        ),
        (
            "tile128_max",
            "2",
            "256",
            ["x=i32[500]:rand=4", "tile_max=i32[4]:zeros", "n=i32:500"],
        ),
    ] {
        let file = kernel("reserved_smem/cg_big_tiles.cu");
        let mut argv = vec![
            file.as_str(),
            "--kernel",
            kernel_name,
            "--grid",
            grid,
            "--block",
            block,
        ];
        for a in &args {
            argv.extend(["--arg", a]);
        }
        let (code, plain, stderr) = exec_raw(&argv);
        assert_eq!(code, 0, "{plain}\n{stderr}");
        argv.push("--via-instrumented-ptx");
        let (code, instrumented, stderr) = exec_raw(&argv);
        assert_eq!(code, 0, "{kernel_name}: {instrumented}\n{stderr}");
        assert_eq!(
            instrumented["diagnostics"],
            serde_json::json!([]),
            "{kernel_name}: {instrumented}"
        );
        assert_eq!(
            instrumented["buffers"], plain["buffers"],
            "{kernel_name}: the instrumented run computed something else"
        );
    }
}

#[test]
fn a_texture_read_says_textures_are_not_supported_at_its_line() {
    let file = kernel("texture_fetch.cu");
    let (code, v, stderr) = exec_raw(&[
        &file,
        "--kernel",
        "copy_through_texture",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "tex=u64:0",
        "--arg",
        "out=f32[4]:zeros",
        "--arg",
        "n=i32:4",
    ]);
    assert_eq!(code, 1, "{v}\n{stderr}");
    let all = format!("{v}{stderr}");
    assert!(
        all.contains("textures are not supported by the emulator")
            && all.contains(&format!("{file}:5")),
        "{all}"
    );
}

fn convolve(extra: &[&str]) -> (i32, Value, String) {
    let file = kernel("constant_filter.cu");
    let mut args = vec![
        file.as_str(),
        "--kernel",
        "convolve",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "in=f32[50]:rand=3",
        "--arg",
        "out=f32[50]:zeros",
        "--arg",
        "n=i32:50",
    ];
    args.extend_from_slice(extra);
    exec_raw(&args)
}

#[test]
fn a_constant_table_set_with_symbol_filters_and_device_variables_come_back() {
    let taps = [0.5f32, -1.0, 2.0, 0.25, -0.75];
    let dir = tempfile::tempdir().expect("temp dir");
    let taps_file = dir.path().join("taps.json");
    std::fs::write(&taps_file, serde_json::to_string(&taps).expect("json")).expect("write");
    let taps_spec = format!("filters::taps=f32[5]:json={}", taps_file.display());
    let (code, v, stderr) = convolve(&[
        "--symbol",
        &taps_spec,
        "--symbol",
        "negative_outputs=u32:1000",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    let input: Vec<f32> = floats(&v["buffers"]["in"])
        .iter()
        .map(|&x| x as f32)
        .collect();
    let n = input.len() as i64;
    let expected: Vec<f32> = (0..n)
        .map(|i| {
            (-2..=2i64)
                .filter(|k| (0..n).contains(&(i + k)))
                .fold(0.0f32, |sum, k| {
                    sum + taps[(k + 2) as usize] * input[(i + k) as usize]
                })
        })
        .collect();
    let got = floats(&v["buffers"]["out"]);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert!(
            (*g as f32 - e).abs() <= 1e-5,
            "out[{i}] = {g}, expected {e}"
        );
    }
    // The counter started where --symbol set it; both __device__ variables are reported.
    let negatives = expected.iter().filter(|&&x| x < 0.0).count() as f64;
    assert_eq!(
        floats(&v["symbols"]["negative_outputs"]),
        [1000.0 + negatives]
    );
    let largest = floats(&v["symbols"]["largest_output"]);
    assert_eq!(largest.len(), 1, "{v}");
    assert_eq!(largest[0] as f32, expected[0]);
    // __constant__ variables cannot change, so they are not read back.
    assert!(v["symbols"].get("filters::taps").is_none(), "{v}");
}

#[test]
fn symbol_mistakes_name_the_variables_and_the_sizes() {
    let (code, _, stderr) = convolve(&["--symbol", "filter=f32[5]:ones"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("no __constant__ or __device__ variable is named `filter`")
            && stderr.contains("negative_outputs, largest_output, filters::taps"),
        "{stderr}"
    );
    let (code, _, stderr) = convolve(&["--symbol", "taps=f32[4]:ones"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("4 f32 values are 16 bytes, but `filters::taps` is 20 bytes"),
        "{stderr}"
    );
}

/// `gpuzzle run 1` on a copy of `tests/kernels/tutorial/puzzle_symbols/` with `edit` applied
/// to its TOML: (exit code, stdout + stderr).
fn run_symbol_puzzle(edit: impl Fn(String) -> String) -> (i32, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let puzzles = dir.path().join("puzzles");
    std::fs::create_dir_all(&puzzles).expect("mkdir");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(DIR)
        .join("puzzle_symbols");
    let toml = std::fs::read_to_string(src.join("01_weights.toml")).expect("toml");
    std::fs::write(puzzles.join("01_weights.toml"), edit(toml)).expect("write");
    std::fs::copy(src.join("01_weights.cu"), puzzles.join("01_weights.cu")).expect("copy");
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(dir.path())
        .env("GPUZZLE_CACHE_DIR", cache())
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .args(["run", "1"])
        .output()
        .expect("run gpuzzle");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn a_puzzle_sets_a_constant_table_before_the_launch() {
    let (code, text) = run_symbol_puzzle(|t| t);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("PASSED"), "{text}");
    // Without the table the kernel multiplies by zeros and fails.
    let (code, text) = run_symbol_puzzle(|t| {
        t.lines()
            .filter(|l| !l.starts_with("symbols."))
            .collect::<Vec<_>>()
            .join("\n")
    });
    assert_eq!(code, 1, "{text}");
}

#[test]
fn a_puzzle_symbol_is_an_input_and_must_name_a_variable() {
    let (code, text) =
        run_symbol_puzzle(|t| t.replacen("2.0, 4.0] }", "2.0, 4.0], output = true }", 1));
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("01_weights.toml:23") && text.contains("a symbol is an input"),
        "{text}"
    );
    let (code, text) = run_symbol_puzzle(|t| t.replace("symbols.weights", "symbols.weight"));
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("no __constant__ or __device__ variable is named `weight`")
            && text.contains("declares: weights"),
        "{text}"
    );
}

#[test]
fn half_precision_fma_computes_in_halves() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("half_axpy.cu"),
        "--kernel",
        "haxpy",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "x=f32[50]:arange",
        "--arg",
        "y=f32[50]:fill=0.5",
        "--arg",
        "a=f32:2",
        "--arg",
        "n=i32:50",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    // 2 * i + 0.5 is a half exactly for these i: one rounding gives it back.
    let expected: Vec<f64> = (0..50).map(|i| 2.0 * f64::from(i) + 0.5).collect();
    assert_eq!(floats(&v["buffers"]["y"]), expected);

    let (code, v, stderr) = exec_raw(&[
        &kernel("half_axpy.cu"),
        "--kernel",
        "haxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "x=f32[64]:rand=9",
        "--arg",
        "y=f32[64]:rand=10",
        "--arg",
        "a=f32:0.3",
        "--arg",
        "n=i32:64",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    // Inputs in [-1, 1]: a half keeps 11 bits, so each step is within 2^-11 relative.
    let (x, y0) = (floats(&v["buffers"]["x"]), {
        let (_, v0, _) = exec_raw(&[
            &kernel("half_axpy.cu"),
            "--kernel",
            "haxpy",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "x=f32[64]:rand=10",
            "--arg",
            "y=f32[64]:rand=10",
            "--arg",
            "a=f32:0",
            "--arg",
            "n=i32:0",
        ]);
        floats(&v0["buffers"]["y"])
    });
    for (i, got) in floats(&v["buffers"]["y"]).iter().enumerate() {
        let want = 0.3 * x[i] + y0[i];
        assert!(
            (got - want).abs() <= 4e-3 * (x[i].abs() + y0[i].abs() + 1e-3),
            "y[{i}] = {got}, about {want} expected"
        );
    }
}

#[test]
fn half_products_sums_and_comparisons() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("half_axpy.cu"),
        "--kernel",
        "hdot_terms",
        "--grid",
        "1",
        "--block",
        "16",
        "--arg",
        "x=f32[16]:arange",
        "--arg",
        "w=f32[16]:fill=-0.25",
        "--arg",
        "out=f32[16]:zeros",
        "--arg",
        "n=i32:16",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    let expected: Vec<f64> = (0..16)
        .map(|i| {
            let s = f64::from(i) * -0.25 + 1.0;
            if s > 0.0 {
                s
            } else {
                -1.0
            }
        })
        .collect();
    assert_eq!(floats(&v["buffers"]["out"]), expected);
}

/// f32 → bfloat16 → f32, round to nearest even: the reference for the bf16 kernel.
fn to_bf16(v: f32) -> f32 {
    let b = v.to_bits();
    let rem = b & 0xffff;
    let mut r = b >> 16;
    if rem > 0x8000 || (rem == 0x8000 && r & 1 == 1) {
        r += 1;
    }
    f32::from_bits(r << 16)
}

#[test]
fn bfloat16_fma_and_product_round_like_bf16() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("bf16_scale.cu"),
        "--kernel",
        "bf16_scale_add",
        "--grid",
        "2",
        "--block",
        "32",
        "--arg",
        "x=f32[40]:rand=21",
        "--arg",
        "y=f32[40]:rand=22",
        "--arg",
        "out=f32[40]:zeros",
        "--arg",
        "n=i32:40",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    let x = floats(&v["buffers"]["x"]);
    let y = floats(&v["buffers"]["y"]);
    for (i, got) in floats(&v["buffers"]["out"]).iter().enumerate() {
        let (a, b) = (to_bf16(x[i] as f32), to_bf16(y[i] as f32));
        // a * 0.5 is exact, so the fma rounds once, like the sum's single rounding here.
        let r = to_bf16(a * 0.5 + b);
        let want = to_bf16(r * r);
        assert_eq!(*got as f32, want, "out[{i}] for x {} y {}", x[i], y[i]);
    }
}

#[test]
fn f16_and_bf16_buffers_go_in_and_come_out_as_numbers() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("half_buffers.cu"),
        "--kernel",
        "hscale",
        "--grid",
        "1",
        "--block",
        "8",
        "--arg",
        "x=f16[8]:fill=0.1",
        "--arg",
        "y=f16[8]:zeros",
        "--arg",
        "z=bf16[8]:zeros",
        "--arg",
        "n=i32:8",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    // 0.1 as a half is 0.0999755859375; half of it is exact; three times it is rounded to
    // bf16 (8 bits: 0.30078125).
    // (Compared as f32: every half and bfloat16 is one, and JSON gives its shortest form.)
    let as_f32 = |name: &str| -> Vec<f32> {
        floats(&v["buffers"][name])
            .iter()
            .map(|&x| x as f32)
            .collect()
    };
    let half_tenth = 0.099_975_586_f32; // 0.0999755859375 exactly
    assert_eq!(as_f32("x"), vec![half_tenth; 8]);
    assert_eq!(as_f32("y"), vec![half_tenth / 2.0; 8]);
    assert_eq!(as_f32("z"), vec![to_bf16(half_tenth * 3.0); 8]);

    let (code, _, stderr) = exec_raw(&[
        &kernel("half_buffers.cu"),
        "--kernel",
        "hscale",
        "--grid",
        "1",
        "--block",
        "8",
        "--arg",
        "x=f16[8]:fill=70000",
        "--arg",
        "y=f16[8]:zeros",
        "--arg",
        "z=bf16[8]:zeros",
        "--arg",
        "n=i32:8",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("70000 is beyond the range of f16"),
        "{stderr}"
    );
}

#[test]
fn half2_vector_intrinsics_compute_each_half() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("half2_vectors.cu"),
        "--kernel",
        "half2_axpy",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "x=f32[40]:arange",
        "--arg",
        "y=f32[40]:fill=0.5",
        "--arg",
        "a=f32:2",
        "--arg",
        "pairs=i32:20",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    // -(2x + 0.5 + x/4): exact in halves for these small x.
    let expected: Vec<f64> = (0..40)
        .map(|i| -(2.0 * f64::from(i) + 0.5 + f64::from(i) / 4.0))
        .collect();
    assert_eq!(floats(&v["buffers"]["y"]), expected);

    let (code, v, stderr) = exec_raw(&[
        &kernel("half2_vectors.cu"),
        "--kernel",
        "bf162_scale",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "x=f32[16]:rand=5",
        "--arg",
        "y=f32[16]:zeros",
        "--arg",
        "pairs=i32:8",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    let x = floats(&v["buffers"]["x"]);
    for (i, got) in floats(&v["buffers"]["y"]).iter().enumerate() {
        let factor = if i % 2 == 0 { 2.0f32 } else { -3.0 };
        let want = to_bf16(to_bf16(x[i] as f32) * factor);
        assert_eq!(*got as f32, want, "y[{i}] from x {}", x[i]);
    }
}

#[test]
fn half_math_functions_run_and_round_to_halves() {
    let (code, v, stderr) = exec_raw(&[
        &kernel("half_axpy.cu"),
        "--kernel",
        "hmath",
        "--grid",
        "1",
        "--block",
        "8",
        "--arg",
        "x=f32[8]:arange",
        "--arg",
        "y=f32[8]:zeros",
        "--arg",
        "n=i32:8",
    ]);
    assert_eq!(code, 0, "{v}\n{stderr}");
    for (i, got) in floats(&v["buffers"]["y"]).iter().enumerate() {
        let x = i as f64;
        let want = x.exp2() + x.sqrt() + 1.0 / (x + 1.0);
        // Each term is a half: within 2^-10 of its size.
        assert!(
            (got - want).abs() <= want * 2f64.powi(-10) * 2.0,
            "y[{i}] = {got}, about {want}"
        );
    }
}
