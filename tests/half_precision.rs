//! Half precision as `cuda_fp16.h` and `cuda_bf16.h` compile it (`tests/kernels/half/`):
//! comparisons (`set.lt.f16x2.f16x2`, `set.lt.u32.f16x2`, `setp.gt.f16`, bfloat16's
//! `set.lt.f32.f32`), conversions in every rounding direction (`cvt.rz/.rm/.rp.f16.f32`,
//! `cvt.rn.f16.f64`, `cvt.rm.f16.s32`), `fma.rn.relu`, `cvt` with `.relu`/`.satfinite`, and
//! `atomicAdd` on `__half`, `__half2` and the bfloat16s. Each kernel runs through
//! `gpuzzle exec` and every output is checked against values computed with the `half` crate.
//! Each is also compiled for compute_90, where the headers use the sm_90 bfloat16 forms
//! (`set.lt.bf16x2.bf16x2`, `setp.gt.bf16`, `atom.add.noftz.bf16x2`, `cvt.rm.bf16.f32`,
//! `cvt.rn.bf16.f64`...), and run on the emulator with the same arguments: same buffers.

mod exec_support;

use exec_support::exec_json;
use half::{bf16, f16};
use serde_json::Value;
use std::path::{Path, PathBuf};

const DIR: &str = "tests/kernels/half";

/// Runs `gpuzzle exec FILE --kernel KERNEL ARGS --format json` on the emulator, with the
/// named JSON inputs written into `dir`; the JSON result (exit code 0 asserted).
fn exec(
    dir: &Path,
    file: &str,
    kernel: &str,
    launch: &[&str],
    inputs: &[(&str, &str, Vec<f64>)],
    rest: &[&str],
    sm90_forms: &[&str],
) -> Value {
    let mut args: Vec<String> = vec![format!("{DIR}/{file}"), "--kernel".into(), kernel.into()];
    args.extend(launch.iter().map(|s| s.to_string()));
    for (name, ty, values) in inputs {
        let path = dir.join(format!("{kernel}-{name}.json"));
        std::fs::write(&path, serde_json::to_string(values).expect("json")).expect("write input");
        args.push("--arg".into());
        args.push(format!(
            "{name}={ty}[{}]:json={}",
            values.len(),
            path.display()
        ));
    }
    for r in rest {
        args.push("--arg".into());
        args.push(r.to_string());
    }
    let out = exec_json(&cache(), &args);
    let (stdout, stderr) = (&out.stdout, &out.stderr);
    assert_eq!(out.code, 0, "{stdout}\n{stderr}");
    let v = out.json();
    assert!(!v.is_null(), "no JSON: {stdout}");
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0), "{v}");
    let specs: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "--arg")
        .map(|w| w[1].as_str())
        .collect();
    same_on_sm90(file, kernel, launch, &specs, sm90_forms);
    v
}

/// Compiles `file` for compute_80 (what gpuzzle uses) and compute_90, checks the compute_90
/// PTX has each of `sm90_forms`, runs `kernel` of both on the emulator with the arguments
/// `specs` (as `--arg` takes them) and requires the same buffers from both.
fn same_on_sm90(file: &str, kernel: &str, launch: &[&str], specs: &[&str], sm90_forms: &[&str]) {
    use gpuzzle::compile::{CompileRequest, PtxCompiler};
    use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
    let path = format!("{DIR}/{file}");
    let source = std::fs::read_to_string(&path).expect("the kernel source");
    let compiler = PtxCompiler::new(Some(cache()));
    let dim = |flag: &str| -> u32 {
        let i = launch.iter().position(|a| *a == flag).expect("the flag");
        launch[i + 1].parse().expect("a number")
    };
    let cfg = LaunchConfig {
        grid: [dim("--grid"), 1, 1],
        block: [dim("--block"), 1, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    let run = |arch: &str| {
        let options = [format!("--gpu-architecture={arch}")];
        let req = CompileRequest {
            file_name: &path,
            source: &source,
            defines: &[],
            extra_options: &options,
        };
        let compiled = compiler
            .compile(&req)
            .unwrap_or_else(|e| panic!("{path} for {arch}: {e}"));
        let module = gpuzzle::ptx::parse(&compiled.ptx).expect("parse");
        let args = specs
            .iter()
            .map(|s| gpuzzle::emu::spec::parse_arg(s, Path::new(".")).expect("an argument"))
            .collect();
        let r = emu::run(&module, kernel, &cfg, args, &EmuOptions::default())
            .unwrap_or_else(|e| panic!("{kernel} for {arch}: {e}"));
        assert!(
            r.diagnostics.is_empty(),
            "{kernel} for {arch}: {:?}",
            r.diagnostics
        );
        (compiled.ptx.to_string(), r.buffers)
    };
    let (_, on80) = run("compute_80");
    let (ptx90, on90) = run("compute_90");
    for form in sm90_forms {
        assert!(
            ptx90.contains(form),
            "{kernel}: no `{form}` in the compute_90 PTX"
        );
    }
    for (a, b) in on80.iter().zip(&on90) {
        assert_eq!(
            a.data, b.data,
            "{kernel}: buffer {} differs on compute_90",
            a.name
        );
    }
}

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("half-precision-cache")
}

fn buffer(v: &Value, name: &str) -> Vec<f64> {
    v["buffers"][name]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer {name}: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

/// A 16-bit float format, for the reference rounding.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fmt {
    F16,
    Bf16,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Dir {
    Nearest,
    Zero,
    Down,
    Up,
}

fn value(fmt: Fmt, h: u16) -> f64 {
    match fmt {
        Fmt::F16 => f16::from_bits(h).to_f64(),
        Fmt::Bf16 => bf16::from_bits(h).to_f64(),
    }
}

/// The next 16-bit float above or below `h` (both formats order magnitudes as integers).
fn step(h: u16, up: bool) -> u16 {
    let neg = h & 0x8000 != 0;
    match (h & 0x7fff == 0, up) {
        (true, true) => 0x0001,
        (true, false) => 0x8001,
        _ if up != neg => h + 1,
        _ => h - 1,
    }
}

/// `x` rounded once into `fmt` in direction `dir`, from the `half` crate's values: the two
/// neighbours of `x` (stepping from the crate's conversion, which on x86 may round twice
/// through f32), then the one the direction picks, ties to even by the exact midpoint.
fn round(x: f64, fmt: Fmt, dir: Dir) -> u16 {
    let mut lo = match fmt {
        Fmt::F16 => f16::from_f64(x).to_bits(),
        Fmt::Bf16 => bf16::from_f64(x).to_bits(),
    };
    while value(fmt, lo) > x {
        lo = step(lo, false);
    }
    while value(fmt, step(lo, true)) <= x {
        lo = step(lo, true);
    }
    if value(fmt, lo) == x {
        return lo;
    }
    let hi = step(lo, true);
    let (lo_v, hi_v) = (value(fmt, lo), value(fmt, hi));
    let mid = if hi_v.is_infinite() {
        lo_v + (lo_v - value(fmt, step(lo, false))) / 2.0
    } else if lo_v.is_infinite() {
        hi_v - (value(fmt, step(hi, true)) - hi_v) / 2.0
    } else {
        (lo_v + hi_v) / 2.0
    };
    match dir {
        Dir::Zero if x > 0.0 => lo,
        Dir::Zero | Dir::Up => hi,
        Dir::Down => lo,
        Dir::Nearest if x < mid || (x == mid && lo & 1 == 0) => lo,
        Dir::Nearest => hi,
    }
}

/// Values where roundings into halves differ: between halves, on ties, just past them, near
/// the largest half and past it, subnormal, negative.
fn tricky_floats() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        1.0 + 2f64.powi(-11),       // a tie between 1 and the next half
        1.0 + 3.0 * 2f64.powi(-11), // a tie, odd below: rounds up
        1.0 + 2f64.powi(-11) + 2f64.powi(-20), // just above a tie
        1.0 + 2f64.powi(-12),
        -1.0 - 2f64.powi(-12),
        -1.0 - 3.0 * 2f64.powi(-12),
        0.1,
        -0.1,
        1.0 / 3.0,
        -2.0 / 3.0,
        65504.0,
        65519.0,
        65520.0,
        70000.0,
        -70000.0,
        1e-5,
        -3e-6,
        5.960464477539063e-8,
        2.9802322387695312e-8, // half the smallest subnormal: a tie with 0
        3.0e-8,
        -1e-9,
        3.0e38,
        -3.3e38,
        1.00390625, // 1 + 2^-8: a bfloat16 tie
        1.01171875,
        300.5,
        -2049.0,
    ];
    // A spread of others, as f32s.
    let mut state = 0x2545_f491u32;
    for _ in 0..34 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let mant = (state & 0x7f_ffff) | 0x3f80_0000;
        let scale = 2f64.powi((state >> 24) as i32 % 20 - 8);
        let sign = if state & 1 == 1 { -1.0 } else { 1.0 };
        v.push(sign * f32::from_bits(mant) as f64 * scale);
    }
    v.into_iter().map(|x| x as f32 as f64).collect()
}

#[test]
fn half_and_bfloat16_comparisons_give_ones_masks_and_bools() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Exact halves (and bfloat16s): equal, less, greater, signed zeros, large.
    let grid = [
        -65504.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 1.5, 2.0, 3.0, 60000.0,
    ];
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (i, a) in grid.iter().enumerate() {
        for (j, b) in grid.iter().enumerate() {
            if (i + j) % 3 != 0 {
                x.push(*a);
                y.push(*b);
            }
        }
    }
    if x.len() % 2 == 1 {
        x.push(1.0);
        y.push(1.0);
    }
    let pairs = x.len() / 2;
    let n = format!("pairs=i32:{pairs}");
    let launch = ["--grid", "1", "--block", "64"];
    let mask_zeros = format!("mask=u32[{pairs}]:zeros");
    let gt_zeros = format!("gt=i32[{}]:zeros", 2 * pairs);
    let lt_zeros = format!("lt=f16[{}]:zeros", 2 * pairs);
    let eq_zeros = format!("eq=f16[{}]:zeros", 2 * pairs);
    let v = exec(
        tmp.path(),
        "compare.cu",
        "half2_compare",
        &launch,
        &[("x", "f16", x.clone()), ("y", "f16", y.clone())],
        &[&lt_zeros, &eq_zeros, &mask_zeros, &gt_zeros, &n],
        &[],
    );
    let (lt, eq, mask, gt) = (
        buffer(&v, "lt"),
        buffer(&v, "eq"),
        buffer(&v, "mask"),
        buffer(&v, "gt"),
    );
    for i in 0..2 * pairs {
        let (a, b) = (f16::from_f64(x[i]), f16::from_f64(y[i]));
        let one = |t: bool| if t { 1.0 } else { 0.0 };
        assert_eq!(lt[i], one(a < b), "__hlt2 {a} {b}");
        assert_eq!(eq[i], one(a == b), "__heq2 {a} {b}");
        assert_eq!(gt[i], one(a > b), "__hgt {a} {b}");
        let bits = (mask[i / 2] as u32 >> (16 * (i % 2))) & 0xffff;
        assert_eq!(bits, if a < b { 0xffff } else { 0 }, "__hlt2_mask {a} {b}");
    }

    let blt_zeros = format!("lt=bf16[{}]:zeros", 2 * pairs);
    let v = exec(
        tmp.path(),
        "compare.cu",
        "bf162_compare",
        &launch,
        &[("x", "bf16", x.clone()), ("y", "bf16", y.clone())],
        &[&blt_zeros, &gt_zeros, &n],
        &["set.lt.bf16x2.bf16x2", "setp.gt.bf16"],
    );
    let (lt, gt) = (buffer(&v, "lt"), buffer(&v, "gt"));
    for i in 0..2 * pairs {
        let (a, b) = (bf16::from_f64(x[i]), bf16::from_f64(y[i]));
        assert_eq!(lt[i], if a < b { 1.0 } else { 0.0 }, "bf16 __hlt2 {a} {b}");
        assert_eq!(gt[i], if a > b { 1.0 } else { 0.0 }, "bf16 __hgt {a} {b}");
    }
}

#[test]
fn conversions_round_in_their_own_direction() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let x = tricky_floats();
    let n = x.len();
    // Doubles that are not floats: rounding through f32 first would round twice.
    let w: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, v)| match i % 3 {
            0 => 1.0 + 2f64.powi(-11) + 2f64.powi(-40),
            1 => v * (1.0 + 2f64.powi(-35)),
            _ => -v / 3.0,
        })
        .collect();
    let k: Vec<f64> = (0..n)
        .map(|i| {
            [
                2049.0, -2049.0, 4097.0, -4099.0, 70000.0, -65519.0, 7.0, 0.0,
            ][i % 8]
                + (i / 8) as f64 * 2.0
        })
        .collect();
    // Read back as bits (u16): JSON has no infinities and no sign of zero to compare.
    let outs = [
        "rn",
        "rz",
        "rd",
        "ru",
        "from_double",
        "from_int_rz",
        "from_int_rd",
        "brz",
        "brn",
        "brd",
        "bru",
        "from_double_b",
    ];
    let outs: Vec<String> = outs.iter().map(|o| format!("{o}=u16[{n}]:zeros")).collect();
    let count = format!("n=i32:{n}");
    let mut rest: Vec<&str> = outs.iter().map(String::as_str).collect();
    rest.push(&count);
    let v = exec(
        tmp.path(),
        "convert.cu",
        "round_halves",
        &["--grid", "1", "--block", "128"],
        &[
            ("x", "f32", x.clone()),
            ("w", "f64", w.clone()),
            ("k", "i32", k.clone()),
        ],
        &rest,
        &["cvt.rm.bf16.f32", "cvt.rp.bf16.f32", "cvt.rn.bf16.f64"],
    );
    let checks: [(&str, Fmt, Dir, &Vec<f64>); 12] = [
        ("rn", Fmt::F16, Dir::Nearest, &x),
        ("rz", Fmt::F16, Dir::Zero, &x),
        ("rd", Fmt::F16, Dir::Down, &x),
        ("ru", Fmt::F16, Dir::Up, &x),
        ("from_double", Fmt::F16, Dir::Nearest, &w),
        ("from_int_rz", Fmt::F16, Dir::Zero, &k),
        ("from_int_rd", Fmt::F16, Dir::Down, &k),
        ("brz", Fmt::Bf16, Dir::Zero, &x),
        ("brn", Fmt::Bf16, Dir::Nearest, &x),
        ("brd", Fmt::Bf16, Dir::Down, &x),
        ("bru", Fmt::Bf16, Dir::Up, &x),
        ("from_double_b", Fmt::Bf16, Dir::Nearest, &w),
    ];
    let mut directed_differs = 0;
    for (name, fmt, dir, input) in checks {
        let got = buffer(&v, name);
        for i in 0..n {
            let want = round(input[i], fmt, dir);
            assert_eq!(
                got[i] as u16, want,
                "{name}[{i}] of {:e} ({fmt:?})",
                input[i]
            );
            if dir != Dir::Nearest && want != round(input[i], fmt, Dir::Nearest) {
                directed_differs += 1;
            }
        }
    }
    // The inputs do tell directed rounding from nearest.
    assert!(directed_differs > 100, "{directed_differs}");
}

#[test]
fn relu_forms_of_fma_and_conversion_clamp_negatives_and_overflows() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Multiples of 1/8 in [-6, 6): products and sums are exact in f32, one rounding to half.
    let pairs = 48;
    let val = |i: usize, salt: usize| ((i * 7 + salt * 13) % 96) as f64 / 8.0 - 6.0;
    let a: Vec<f64> = (0..2 * pairs).map(|i| val(i, 1)).collect();
    let b: Vec<f64> = (0..2 * pairs).map(|i| val(i, 2) * 3.0 + 0.125).collect();
    let c: Vec<f64> = (0..2 * pairs).map(|i| val(i, 3) * 5.0).collect();
    let ba: Vec<f64> = (0..2 * pairs).map(|i| val(i, 4) / 2.0).collect();
    let outs = [
        format!("fma2=f16[{}]:zeros", 2 * pairs),
        format!("fma1=f16[{pairs}]:zeros"),
        format!("max_zero=f16[{}]:zeros", 2 * pairs),
        format!("bfma2=bf16[{}]:zeros", 2 * pairs),
        format!("bfma1=bf16[{pairs}]:zeros"),
        format!("pairs=i32:{pairs}"),
    ];
    let rest: Vec<&str> = outs.iter().map(String::as_str).collect();
    let v = exec(
        tmp.path(),
        "convert.cu",
        "relu_halves",
        &["--grid", "1", "--block", "64"],
        &[
            ("a", "f16", a.clone()),
            ("b", "f16", b.clone()),
            ("c", "f16", c.clone()),
            ("ba", "bf16", ba.clone()),
        ],
        &rest,
        &["fma.rn.relu.bf16 "],
    );
    let relu = |x: f64| if x < 0.0 { 0.0 } else { x };
    let h = |x: f64| f16::from_f64(x).to_f64();
    let bh = |x: f64| bf16::from_f64(x).to_f64();
    let (fma2, fma1, max_zero) = (
        buffer(&v, "fma2"),
        buffer(&v, "fma1"),
        buffer(&v, "max_zero"),
    );
    let (bfma2, bfma1) = (buffer(&v, "bfma2"), buffer(&v, "bfma1"));
    let (a, b, c, ba): (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) = (
        a.iter().map(|&x| h(x)).collect(),
        b.iter().map(|&x| h(x)).collect(),
        c.iter().map(|&x| h(x)).collect(),
        ba.iter().map(|&x| bh(x)).collect(),
    );
    let mut clamped = 0;
    for i in 0..2 * pairs {
        assert_eq!(fma2[i], relu(h(a[i] * b[i] + c[i])), "__hfma2_relu [{i}]");
        assert_eq!(max_zero[i], relu(a[i]), "__hmax2(a, 0) [{i}]");
        assert_eq!(
            bfma2[i],
            relu(bh(ba[i] * ba[i] - 1.0)),
            "bf16 __hfma2_relu [{i}]"
        );
        clamped += (a[i] * b[i] + c[i] < 0.0) as usize;
    }
    for i in 0..pairs {
        let (lo_a, hi_b, lo_c) = (a[2 * i], b[2 * i + 1], c[2 * i]);
        assert_eq!(fma1[i], relu(h(lo_a * hi_b + lo_c)), "__hfma_relu [{i}]");
        let (lo, hi) = (ba[2 * i], ba[2 * i + 1]);
        assert_eq!(bfma1[i], relu(bh(lo * hi + 0.5)), "bf16 __hfma_relu [{i}]");
    }
    assert!(clamped > 10 && clamped < 2 * pairs - 10, "{clamped}");
}

#[test]
fn cvt_relu_and_satfinite_from_inline_ptx() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let x = tricky_floats();
    let n = x.len();
    let outs = [
        format!("relu=u16[{n}]:zeros"),
        format!("satf=u16[{n}]:zeros"),
        format!("packed=u32[{n}]:zeros"),
        format!("brelu_satf=u16[{n}]:zeros"),
        format!("n=i32:{n}"),
    ];
    let rest: Vec<&str> = outs.iter().map(String::as_str).collect();
    let v = exec(
        tmp.path(),
        "convert.cu",
        "saturate_halves",
        &["--grid", "1", "--block", "128"],
        &[("x", "f32", x.clone())],
        &rest,
        &[],
    );
    let (relu, satf, packed, bsat) = (
        buffer(&v, "relu"),
        buffer(&v, "satf"),
        buffer(&v, "packed"),
        buffer(&v, "brelu_satf"),
    );
    let f16_max = f16::MAX.to_bits();
    let bf16_max = bf16::MAX.to_bits();
    let finish = |h: u16, max: u16, relu: bool, satfinite: bool| -> u16 {
        let h = if relu && h & 0x8000 != 0 { 0 } else { h };
        if satfinite && h & 0x7fff > max {
            (h & 0x8000) | max
        } else {
            h
        }
    };
    let mut saturated = 0;
    for i in 0..n {
        let rn = round(x[i], Fmt::F16, Dir::Nearest);
        assert_eq!(
            relu[i] as u16,
            finish(rn, f16_max, true, false),
            "relu {:e}",
            x[i]
        );
        assert_eq!(
            satf[i] as u16,
            finish(rn, f16_max, false, true),
            "satfinite {:e}",
            x[i]
        );
        saturated += (rn & 0x7fff > f16_max) as usize;
        let hi = finish(round(x[i], Fmt::F16, Dir::Zero), f16_max, true, true);
        let lo = finish(round(-x[i], Fmt::F16, Dir::Zero), f16_max, true, true);
        assert_eq!(
            packed[i] as u32,
            (hi as u32) << 16 | lo as u32,
            "packed {:e}",
            x[i]
        );
        let b = finish(round(x[i], Fmt::Bf16, Dir::Nearest), bf16_max, true, true);
        assert_eq!(bsat[i] as u16, b, "bf16 relu satfinite {:e}", x[i]);
    }
    assert!(saturated >= 4, "{saturated}");
}

#[test]
fn atomic_adds_on_halves_sum_every_thread() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (n, slots) = (256usize, 4usize);
    // Quarters for f16 (every partial sum below 512 is exact), integers for bfloat16 (below 256).
    let x: Vec<f64> = (0..n).map(|i| ((i * 5) % 17) as f64 / 4.0 - 2.0).collect();
    let x2: Vec<f64> = (0..2 * n)
        .map(|i| ((i * 3) % 13) as f64 / 4.0 - 1.5)
        .collect();
    let b: Vec<f64> = (0..n).map(|i| ((i * 7) % 9) as f64 - 4.0).collect();
    let b2: Vec<f64> = (0..2 * n).map(|i| ((i * 11) % 7) as f64 - 3.0).collect();
    let outs = [
        format!("sum=f16[{slots}]:zeros"),
        format!("sum2=f16[{}]:zeros", 2 * slots),
        format!("bsum=bf16[{slots}]:zeros"),
        format!("bsum2=bf16[{}]:zeros", 2 * slots),
        format!("n=i32:{n}"),
        format!("slots=i32:{slots}"),
    ];
    let rest: Vec<&str> = outs.iter().map(String::as_str).collect();
    let v = exec(
        tmp.path(),
        "atomics.cu",
        "half_atomic_add",
        &["--grid", "4", "--block", "64"],
        &[
            ("x", "f16", x.clone()),
            ("x2", "f16", x2.clone()),
            ("b", "bf16", b.clone()),
            ("b2", "bf16", b2.clone()),
        ],
        &rest,
        &["atom.add.noftz.bf16 ", "atom.add.noftz.bf16x2"],
    );
    let slot_sum = |vals: &[f64], lanes: usize, slot: usize, lane: usize| -> f64 {
        (0..n)
            .filter(|i| i % slots == slot)
            .map(|i| vals[lanes * i + lane])
            .sum()
    };
    let (sum, sum2, bsum, bsum2) = (
        buffer(&v, "sum"),
        buffer(&v, "sum2"),
        buffer(&v, "bsum"),
        buffer(&v, "bsum2"),
    );
    for s in 0..slots {
        assert_eq!(sum[s], slot_sum(&x, 1, s, 0), "atomicAdd(__half*) slot {s}");
        assert_eq!(
            bsum[s],
            slot_sum(&b, 1, s, 0),
            "atomicAdd(__nv_bfloat16*) slot {s}"
        );
        for lane in 0..2 {
            assert_eq!(
                sum2[2 * s + lane],
                slot_sum(&x2, 2, s, lane),
                "atomicAdd(__half2*) {s}.{lane}"
            );
            assert_eq!(
                bsum2[2 * s + lane],
                slot_sum(&b2, 2, s, lane),
                "atomicAdd(__nv_bfloat162*) {s}.{lane}"
            );
        }
    }
    assert!(sum.iter().chain(&sum2).any(|&s| s != 0.0));

    let (n, blocks) = (128usize, 2usize);
    let rest = ["sum2=f16[8]:zeros".to_string(), format!("n=i32:{n}")];
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    let v = exec(
        tmp.path(),
        "atomics.cu",
        "half_atomic_shared",
        &["--grid", &blocks.to_string(), "--block", "64"],
        &[("x2", "f16", x2[..2 * n].to_vec())],
        &rest,
        &[],
    );
    let sum2 = buffer(&v, "sum2");
    for s in 0..4 {
        for lane in 0..2 {
            // Block by block, into shared, then into global: all exact, so any order agrees.
            let want: f64 = (0..n)
                .filter(|i| (i % 64) % 4 == s)
                .map(|i| x2[2 * i + lane])
                .sum();
            assert_eq!(
                sum2[2 * s + lane],
                want,
                "shared __half2 atomics {s}.{lane}"
            );
        }
    }
}

#[test]
fn every_header_function_runs_and_agrees_on_both_architectures() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Positive and negative, small and large, so that sqrt/log see NaN inputs too.
    let a: Vec<f64> = (0..2 * 34).map(|i| (i as f64 - 30.0) / 7.0).collect();
    let b: Vec<f64> = (0..2 * 34).map(|i| (i as f64 - 20.0) / 3.0).collect();
    let v = exec(
        tmp.path(),
        "intrinsics.cu",
        "every_half_function",
        &["--grid", "1", "--block", "32"],
        &[("a", "f16", a), ("b", "bf16", b)],
        &[
            "out=f32[32]:zeros",
            "iout=i32[32]:zeros",
            "hout=f16[64]:zeros",
            "bout=bf16[64]:zeros",
        ],
        &[
            "setp.lt.bf16",
            "set.geu.bf16x2.bf16x2",
            "cvt.rmi.bf16.bf16",
            "add.bf16x2",
        ],
    );
    // Thread 0's integer result: __half2int_rn(shuffled h) + __bfloat162int_rz(t).
    assert!(buffer(&v, "iout").iter().any(|&x| x != 0.0), "{v}");
}

#[test]
fn saturating_half_arithmetic_clamps_to_zero_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pairs = 40;
    // Quarters in [-2.5, 2.5]: every result exact in f32 and most outside [0, 1].
    let a: Vec<f64> = (0..2 * pairs)
        .map(|i| ((i * 7) % 21) as f64 / 4.0 - 2.5)
        .collect();
    let b: Vec<f64> = (0..2 * pairs)
        .map(|i| ((i * 5) % 19) as f64 / 4.0 - 2.25)
        .collect();
    let outs = [
        format!("add=f16[{pairs}]:zeros"),
        format!("mul=f16[{pairs}]:zeros"),
        format!("fma=f16[{pairs}]:zeros"),
        format!("sub2=f16[{}]:zeros", 2 * pairs),
        format!("pairs=i32:{pairs}"),
    ];
    let rest: Vec<&str> = outs.iter().map(String::as_str).collect();
    let v = exec(
        tmp.path(),
        "convert.cu",
        "saturating_halves",
        &["--grid", "1", "--block", "64"],
        &[("a", "f16", a.clone()), ("b", "f16", b.clone())],
        &rest,
        &[],
    );
    let sat = |x: f64| f16::from_f64(x.clamp(0.0, 1.0)).to_f64();
    let (add, mul, fma, sub2) = (
        buffer(&v, "add"),
        buffer(&v, "mul"),
        buffer(&v, "fma"),
        buffer(&v, "sub2"),
    );
    let mut clamped = 0;
    for i in 0..pairs {
        let (x, y, z) = (a[2 * i], b[2 * i + 1], a[2 * i + 1]);
        assert_eq!(add[i], sat(x + y), "__hadd_sat({x}, {y})");
        assert_eq!(mul[i], sat(x * y), "__hmul_sat({x}, {y})");
        assert_eq!(fma[i], sat(x * y + z), "__hfma_sat({x}, {y}, {z})");
        clamped += !(0.0..=1.0).contains(&(x + y)) as usize;
        for lane in 0..2 {
            let (p, q) = (a[2 * i + lane], b[2 * i + lane]);
            assert_eq!(sub2[2 * i + lane], sat(p - q), "__hsub2_sat({p}, {q})");
        }
    }
    assert!(clamped > 10, "{clamped}");
}
