//! Tensor cores through inline PTX, as hand-written kernels use them (`tests/kernels/tensor/`):
//! an `ldmatrix` + `mma.sync` matmul at sizes that are not multiples of the tile, the bf16,
//! tf32, s8 and f64 forms with fragments built by the PTX ISA's layouts, the three 8x8
//! transposes (`ldmatrix .trans`, `movmatrix`, `stmatrix .trans`), and a half warp at an
//! `mma.sync` reported at the learner's line (with help for an `.aligned` instruction), and the
//! bank-conflict figure of ldmatrix (puzzle 51: 8-way unpadded, none padded or swizzled). Each
//! result is compared with a reference computed here from the same inputs.

mod exec_support;

use exec_support::exec_json;
use serde_json::Value;
use std::path::{Path, PathBuf};

const DIR: &str = "tests/kernels/tensor";

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-tensor-cache")
}

/// One kernel argument: an input buffer written as JSON, or an `--arg` spec as it is.
enum Arg<'a> {
    Input(&'a str, &'a str, Vec<f64>),
    Spec(String),
}

/// `gpuzzle exec` of `kernel` in `file` with the arguments in parameter order; the result
/// (exit 0 and no diagnostics asserted unless `diagnostics` is set).
fn run(file: &str, kernel: &str, launch: &[&str], params: Vec<Arg>, diagnostics: bool) -> Value {
    let dir = cache();
    std::fs::create_dir_all(&dir).expect("cache dir");
    let mut args: Vec<String> = vec![format!("{DIR}/{file}"), "--kernel".into(), kernel.into()];
    args.extend(launch.iter().map(|s| s.to_string()));
    for p in params {
        args.push("--arg".into());
        args.push(match p {
            Arg::Input(name, ty, values) => {
                let path: PathBuf = Path::new(&dir).join(format!("{kernel}-{name}.json"));
                std::fs::write(&path, serde_json::to_string(&values).expect("json"))
                    .expect("write");
                format!("{name}={ty}[{}]:json={}", values.len(), path.display())
            }
            Arg::Spec(s) => s,
        });
    }
    let out = exec_json(&dir, &args);
    let v = out.json();
    if !diagnostics {
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0), "{v}");
    }
    v
}

fn out(name: &str, ty: &str, len: usize) -> Arg<'static> {
    Arg::Spec(format!("{name}={ty}[{len}]:zeros"))
}

fn buffer(v: &Value, name: &str) -> Vec<f64> {
    v["buffers"][name]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer {name}: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

/// Small values every input type holds exactly (halves of small integers), varied by index.
fn values(n: usize, seed: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i * 7 + seed * 13) % 17) as f64 - 8.0) * scale)
        .collect()
}

/// rows x cols = (rows x inner) * (inner x cols) + c; `b_t`: b is given as cols x inner.
fn matmul(
    a: &[f64],
    b: &[f64],
    c: Option<&[f64]>,
    rows: usize,
    cols: usize,
    inner: usize,
    b_t: bool,
) -> Vec<f64> {
    let mut d = vec![0.0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            let mut s = c.map_or(0.0, |c| c[i * cols + j]);
            for k in 0..inner {
                let bv = if b_t {
                    b[j * inner + k]
                } else {
                    b[k * cols + j]
                };
                s += a[i * inner + k] * bv;
            }
            d[i * cols + j] = s;
        }
    }
    d
}

fn close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}] = {g}, want {w}"
        );
    }
}

#[test]
fn ldmatrix_and_mma_sync_matmul_matches_a_reference() {
    let (m, n, k) = (40usize, 20usize, 100usize);
    let a = values(m * k, 1, 0.25);
    let w = values(n * k, 2, 0.5);
    let want = matmul(&a, &w, None, m, n, k, true);
    // Unpadded (rows 128 bytes apart) and padded tiles compute the same.
    for pad in ["PAD=0", "PAD=8"] {
        let v = run(
            "mma_ldmatrix.cu",
            "mma_matmul",
            &["--grid", "3,3", "--block", "32", "-D", pad],
            vec![
                out("c", "f32", m * n),
                Arg::Input("a", "f16", a.clone()),
                Arg::Input("w", "f16", w.clone()),
                Arg::Spec(format!("m=i32:{m}")),
                Arg::Spec(format!("n=i32:{n}")),
                Arg::Spec(format!("k=i32:{k}")),
            ],
            false,
        );
        close(&buffer(&v, "c"), &want, 1e-6, pad);
        // Each lane gives one 16-byte row (4 reads) to the x4 ldmatrix of each k-step, and
        // lanes 0..15 one more to the x2: 8 reads, 4 steps per 64-wide tile, 2 tiles.
        assert_eq!(v["counters"]["max_per_thread"]["shared_reads"], 64, "{v}");
    }
}

#[test]
fn tf32_s8_f64_and_bf16_forms_match_references() {
    let one = ["--grid", "1", "--block", "32"];
    // tf32: values with few significant bits, so cvt.rna keeps them exactly.
    let (a, b, c) = (
        values(128, 3, 0.5),
        values(64, 4, 0.25),
        values(128, 5, 1.0),
    );
    let v = run(
        "fragments.cu",
        "mma_tf32",
        &one,
        vec![
            out("d", "f32", 128),
            Arg::Input("a", "f32", a.clone()),
            Arg::Input("b", "f32", b.clone()),
            Arg::Input("c", "f32", c.clone()),
        ],
        false,
    );
    close(
        &buffer(&v, "d"),
        &matmul(&a, &b, Some(&c), 16, 8, 8, false),
        1e-6,
        "tf32",
    );

    // s8 with .satfinite: large accumulators clamp at i32::MAX.
    let a: Vec<f64> = (0..512).map(|i| ((i * 37) % 255) as f64 - 127.0).collect();
    let b: Vec<f64> = (0..256).map(|i| ((i * 11) % 255) as f64 - 127.0).collect();
    let c: Vec<f64> = (0..128)
        .map(|i| {
            if i % 3 == 0 {
                2_147_480_000.0
            } else {
                (i * 5) as f64 - 300.0
            }
        })
        .collect();
    let v = run(
        "fragments.cu",
        "mma_s8",
        &one,
        vec![
            out("d", "i32", 128),
            Arg::Input("a", "i8", a.clone()),
            Arg::Input("b", "i8", b.clone()),
            Arg::Input("c", "i32", c.clone()),
        ],
        false,
    );
    let want: Vec<f64> = matmul(&a, &b, Some(&c), 16, 8, 32, false)
        .into_iter()
        .map(|x| x.clamp(i32::MIN as f64, i32::MAX as f64))
        .collect();
    assert_eq!(buffer(&v, "d"), want, "s8");

    // f64: 1/3-ish values, summed by fused multiply-adds in k order.
    let a: Vec<f64> = (0..32).map(|i| 1.0 / (i as f64 + 3.0)).collect();
    let b: Vec<f64> = (0..32).map(|i| (i as f64 - 7.5) / 7.0).collect();
    let c: Vec<f64> = (0..64).map(|i| i as f64 * 0.1).collect();
    let v = run(
        "fragments.cu",
        "mma_f64",
        &one,
        vec![
            out("d", "f64", 64),
            Arg::Input("a", "f64", a.clone()),
            Arg::Input("b", "f64", b.clone()),
            Arg::Input("c", "f64", c.clone()),
        ],
        false,
    );
    let mut want = vec![0.0; 64];
    for i in 0..8 {
        for j in 0..8 {
            let mut s = c[i * 8 + j];
            for k in 0..4 {
                s = a[i * 4 + k].mul_add(b[k * 8 + j], s);
            }
            want[i * 8 + j] = s;
        }
    }
    // Within the last bit or two: exec's JSON writes f64 values with 17 significant digits.
    close(&buffer(&v, "d"), &want, 1e-15, "f64");

    let (a, b, c) = (
        values(256, 6, 0.5),
        values(128, 7, 0.25),
        values(128, 8, 1.0),
    );
    let v = run(
        "fragments.cu",
        "mma_bf16",
        &one,
        vec![
            out("d", "f32", 128),
            Arg::Input("a", "bf16", a.clone()),
            Arg::Input("b", "bf16", b.clone()),
            Arg::Input("c", "f32", c.clone()),
        ],
        false,
    );
    close(
        &buffer(&v, "d"),
        &matmul(&a, &b, Some(&c), 16, 8, 16, false),
        1e-6,
        "bf16",
    );
}

#[test]
fn ldmatrix_trans_movmatrix_and_stmatrix_trans_transpose() {
    let m: Vec<f64> = (0..64).map(|i| (i * 3 + 1) as f64).collect();
    let v = run(
        "fragments.cu",
        "transposes",
        &["--grid", "1", "--block", "32"],
        vec![
            out("t1", "u16", 64),
            out("t2", "u16", 64),
            out("t3", "u16", 64),
            Arg::Input("m", "u16", m.clone()),
        ],
        false,
    );
    let want: Vec<f64> = (0..64).map(|i| m[(i % 8) * 8 + i / 8]).collect();
    for t in ["t1", "t2", "t3"] {
        assert_eq!(buffer(&v, t), want, "{t}");
    }
}

#[test]
fn half_a_warp_at_mma_sync_is_a_warp_sync_error_at_its_line() {
    let v = run(
        "fragments.cu",
        "half_warp",
        &["--grid", "1", "--block", "32"],
        vec![out("d", "f32", 32)],
        true,
    );
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let d = diags
        .iter()
        .find(|d| d["kind"] == "warp-sync")
        .unwrap_or_else(|| panic!("no warp-sync diagnostic: {v}"));
    let line = d["line"].as_u64().unwrap_or(0);
    assert!((105..=106).contains(&line), "{d}");
    // The text report's help: no mask to fix, the whole warp must make the call.
    let out = assert_cmd::Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GPUZZLE_CACHE_DIR", cache())
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .args([
            "exec",
            &format!("{DIR}/fragments.cu"),
            "--kernel",
            "half_warp",
        ])
        .args(["--grid", "1", "--block", "32", "--arg", "d=f32[32]:zeros"])
        .output()
        .expect("run gpuzzle");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`mma.sync` is `.aligned`") && text.contains("if (lane < 16)"),
        "{text}"
    );
    assert!(!text.contains("__ballot_sync"), "{text}");
}

/// Puzzle 51 graded with tiles whose rows are 128 bytes apart: each 8x8 matrix an ldmatrix
/// reads is 8 rows in the same 4 banks, 8-way; the XOR-swizzled and padded tiles are
/// conflict-free (tests/mistakes/51_mma_ldmatrix_matmul/ holds the kernels).
#[test]
fn ldmatrix_bank_conflicts_are_8_way_unpadded_and_none_swizzled_or_padded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = dir.path().join("ws");
    let gpuzzle = || {
        let mut c = assert_cmd::Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
        c.env("GPUZZLE_CACHE_DIR", cache())
            .env("NO_COLOR", "1")
            .env("GPUZZLE_BACKEND", "emu");
        c
    };
    gpuzzle().arg("init").arg(&ws).assert().success();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let worst_ways = |file: &Path| -> f64 {
        let text = std::fs::read_to_string(file).expect("kernel");
        std::fs::write(ws.join("puzzles/51_mma_ldmatrix_matmul.cu"), text).expect("write");
        let out = gpuzzle()
            .current_dir(&ws)
            .args(["check", "51", "--format", "json"])
            .output()
            .expect("run gpuzzle");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let tests = v["puzzles"][0]["tests"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(!tests.is_empty(), "{v}");
        tests
            .iter()
            .flat_map(|t| t["perf"].as_array().cloned().unwrap_or_default())
            .filter(|p| p["kind"] == "bank_ways")
            .filter_map(|p| p["value"].as_f64())
            .fold(0.0, f64::max)
    };
    let mistakes = root.join("tests/mistakes/51_mma_ldmatrix_matmul");
    assert_eq!(worst_ways(&mistakes.join("unpadded.cu")), 8.0);
    assert_eq!(worst_ways(&mistakes.join("alt_xor_swizzle.cu")), 1.0);
    assert_eq!(
        worst_ways(&root.join("solutions/51_mma_ldmatrix_matmul.cu")),
        1.0
    );
}
