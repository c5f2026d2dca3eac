//! The corpus: kernels of every family the emulator must run, compiled by NVRTC inside the test,
//! run on the emulator, and checked against results computed here in Rust.

mod engine_support;

use engine_support::*;
use gpuzzle::emu::value::{ElemType, KernelArg, Scalar};

// ---------------------------------------------------------------- basics.cu

#[test]
fn map_with_guard_covers_more_threads_than_elements() {
    let k = load("basics");
    let a = rand_f32(37, 1);
    let r = k.run_clean(
        "map_guard",
        d1(3, 16),
        vec![zeros("out", ElemType::F32, 37), f32s("a", &a), int(37)],
    );
    let want: Vec<f32> = a.iter().map(|x| x * 2.0 + 1.0).collect();
    assert_eq!(get_f32(&r, "out"), want);
    assert_eq!(r.counters.max_per_thread.global_reads, 1);
    assert_eq!(r.counters.total.global_writes, 37);
}

#[test]
fn zip_with_early_return() {
    let k = load("basics");
    let (a, b) = (rand_f32(50, 2), rand_f32(50, 3));
    let r = k.run_clean(
        "zip_guard",
        d1(4, 16),
        vec![
            zeros("out", ElemType::F32, 50),
            f32s("a", &a),
            f32s("b", &b),
            int(50),
        ],
    );
    // NVRTC contracts `a - 3*b` into one fma (single rounding), as the GPU computes it.
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| y.mul_add(-3.0, *x)).collect();
    assert_eq!(get_f32(&r, "out"), want);
}

#[test]
fn two_d_grid_of_two_d_blocks() {
    let k = load("basics");
    let (rows, cols) = (13usize, 19usize);
    let (a, b) = (rand_f32(rows * cols, 4), rand_f32(rows * cols, 5));
    let r = k.run_clean(
        "add_2d",
        cfg([3, 4, 1], [8, 4, 1]),
        vec![
            zeros("out", ElemType::F32, rows * cols),
            f32s("a", &a),
            f32s("b", &b),
            int(rows as i32),
            int(cols as i32),
        ],
    );
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(get_f32(&r, "out"), want);
}

#[test]
fn three_d_ids_are_right_for_every_thread() {
    let k = load("basics");
    let (grid, block) = ([2u32, 3, 2], [4u32, 2, 3]);
    let n = (grid.iter().product::<u32>() * block.iter().product::<u32>()) as usize;
    let r = k.run_clean(
        "ids_3d",
        cfg(grid, block),
        vec![zeros("out", ElemType::I32, n * 8)],
    );
    let got = get_i32(&r, "out");
    let mut want = vec![0i32; n * 8];
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                for tz in 0..block[2] {
                    for ty in 0..block[1] {
                        for tx in 0..block[0] {
                            let b = bx + grid[0] * (by + grid[1] * bz);
                            let t = tx + block[0] * (ty + block[1] * tz);
                            let g = (b * block.iter().product::<u32>() + t) as usize;
                            let o = &mut want[g * 8..g * 8 + 8];
                            o.copy_from_slice(&[
                                tx as i32,
                                ty as i32,
                                tz as i32,
                                bx as i32,
                                by as i32,
                                bz as i32,
                                (block[0] * 100 + block[1] * 10 + block[2]) as i32,
                                (grid[0] * 100 + grid[1] * 10 + grid[2]) as i32,
                            ]);
                        }
                    }
                }
            }
        }
    }
    assert_eq!(got, want);
}

#[test]
fn cpp_kernels_are_found_by_their_c_names() {
    let k = load("basics");
    let r = k.run_clean(
        "plain_cpp",
        d1(1, 4),
        vec![zeros("out", ElemType::I32, 4), int(7)],
    );
    assert_eq!(get_i32(&r, "out"), vec![7, 8, 9, 10]);
    let r = k.run_clean(
        "geo::shift",
        d1(1, 3),
        vec![i32s("out", &[1, 2, 3]), int(10)],
    );
    assert_eq!(get_i32(&r, "out"), vec![11, 12, 13]);
}

#[test]
fn template_instantiations_are_chosen_by_their_arguments() {
    let k = load("basics");
    for (name, n) in [("tmpl<3>", 3), ("tmpl<128>", 128), ("tmpl< 128 >", 128)] {
        let r = k.run_clean(name, d1(1, 5), vec![zeros("out", ElemType::I32, 5)]);
        assert_eq!(
            get_i32(&r, "out"),
            (0..5).map(|i| i * n).collect::<Vec<_>>(),
            "{name}"
        );
    }
    let r = k.run_clean(
        "tscale<float>",
        d1(1, 3),
        vec![
            zeros("out", ElemType::F32, 3),
            f32s("in", &[1.0, 2.0, 3.0]),
            float(0.5),
        ],
    );
    assert_eq!(get_f32(&r, "out"), vec![0.5, 1.0, 1.5]);
    let r = k.run_clean(
        "tscale<double>",
        d1(1, 2),
        vec![
            zeros("out", ElemType::F64, 2),
            f64s("in", &[1.5, -2.0]),
            double(4.0),
        ],
    );
    assert_eq!(get_f64(&r, "out"), vec![6.0, -8.0]);
    // A bare template name is ambiguous when there are several instantiations: say which exist.
    let err = k
        .try_run(
            "tmpl",
            d1(1, 1),
            vec![zeros("out", ElemType::I32, 1)],
            &Default::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tmpl<3>") && err.contains("tmpl<128>"),
        "{err}"
    );
}

#[test]
fn structs_are_passed_by_value_with_c_layout() {
    let k = load("basics");
    let a = rand_f32(6, 6);
    let p = KernelArg::struct_of(vec![
        Scalar::from_f64(ElemType::I8, 3.0),
        Scalar::from_f64(ElemType::F64, 0.25),
        Scalar::from_f64(ElemType::F32, -1.5),
        Scalar::from_f64(ElemType::I32, 5.0),
    ]);
    let r = k.run_clean(
        "affine",
        d1(1, 6),
        vec![zeros("out", ElemType::F32, 6), f32s("a", &a), p],
    );
    let mut want: Vec<f32> = a.iter().map(|x| x * -1.5 + 0.25 + 3.0).collect();
    want[5] = 0.0;
    assert_eq!(get_f32(&r, "out"), want);
}

#[test]
fn device_functions_with_generic_pointers_and_recursion() {
    let k = load("basics");
    assert!(
        k.ptx.contains(".func"),
        "__noinline__ functions must stay calls in the PTX"
    );
    let n = 32;
    let a = rand_f32(n + 1, 7);
    let partial = rand_f32(n, 8);
    let r = k.run_clean(
        "devfuncs",
        d1(1, n as u32),
        vec![
            zeros("out", ElemType::F32, n),
            f32s("partial", &partial),
            f32s("a", &a),
            zeros("facts", ElemType::I32, n),
        ],
    );
    let poly = |x: f32, k: usize| {
        let mut r = 0.0f32;
        for j in 0..=k {
            r = r * x + (j + 1) as f32;
        }
        r
    };
    let want_out: Vec<f32> = (0..n).map(|i| poly(a[i], i % 4)).collect();
    let want_partial: Vec<f32> = (0..n)
        .map(|i| {
            let mut p = partial[i];
            p += a[i];
            p += a[i + 1];
            p + 10.0
        })
        .collect();
    let fact = |n: usize| (1..=n.max(1)).product::<usize>() as i32;
    let want_facts: Vec<i32> = (0..n).map(|i| fact(i % 8)).collect();
    assert_close(&get_f32(&r, "out"), &want_out, 1e-6, "poly");
    assert_eq!(get_f32(&r, "partial"), want_partial);
    assert_eq!(get_i32(&r, "facts"), want_facts);
}

#[test]
fn float4_and_float2_vector_accesses() {
    let k = load("basics");
    let n = 8;
    let a = rand_f32(n * 4, 9);
    let pair = rand_f32(n * 2, 10);
    let r = k.run_clean(
        "vec4",
        d1(1, n as u32),
        vec![
            zeros("out", ElemType::F32, n * 4),
            f32s("a", &a),
            f32s("pair", &pair),
        ],
    );
    let mut want = Vec::new();
    let mut want_pair = Vec::new();
    for i in 0..n {
        let v = &a[i * 4..i * 4 + 4];
        want.extend_from_slice(&[v[3], v[2] * 2.0, v[1] + 1.0, v[0] - v[3]]);
        let (x, y) = (pair[2 * i], pair[2 * i + 1]);
        want_pair.extend_from_slice(&[x + y, x * y]);
    }
    assert_eq!(get_f32(&r, "out"), want);
    assert_eq!(get_f32(&r, "pair"), want_pair);
    // one count per element of a vector access
    assert_eq!(r.counters.max_per_thread.global_reads, 6);
    assert_eq!(r.counters.max_per_thread.global_writes, 6);
}

#[test]
fn local_arrays_with_dynamic_indices() {
    let k = load("basics");
    let idx = rand_i32(11, 11, 0, 1000);
    let threads = 20;
    let r = k.run_clean(
        "local_array",
        d1(1, threads),
        vec![
            zeros("out", ElemType::I32, threads as usize),
            i32s("idx", &idx),
            int(11),
        ],
    );
    let want: Vec<i32> = (0..threads as i32)
        .map(|i| {
            let mut buf: Vec<i32> = (0..16).map(|j| i * 100 + j).collect();
            for j in 0..11 {
                let kk = (idx[((i + j) % 11) as usize] & 15) as usize;
                buf[kk] += j;
            }
            (0..16)
                .map(|j| buf[((j * 7 + i) & 15) as usize] * (j + 1))
                .sum()
        })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
    // local memory is not counted as global or shared traffic
    assert_eq!(r.counters.max_per_thread.global_reads, 11);
}

// ---------------------------------------------------------------- math.cu

#[test]
fn float_math_library_matches_within_tolerance() {
    let k = load("math");
    let n = 64;
    let mut x = rand_f32(n, 21);
    let y = rand_f32(n, 22);
    x[0] = 0.0;
    x[1] = -0.0;
    x[2] = 1.0;
    let r = k.run_clean(
        "mathf",
        d1(2, 32),
        vec![
            zeros("out", ElemType::F32, n * 14),
            f32s("x", &x),
            f32s("y", &y),
            int(n as i32),
        ],
    );
    let got = get_f32(&r, "out");
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let ad = a as f64;
        let g = &got[i * 14..i * 14 + 14];
        let libm: [(usize, f64, f32); 8] = [
            (0, ad.exp(), 2e-6),
            (1, ((a.abs() + 0.5) as f64).ln(), 2e-6),
            (2, ((a * 10.0) as f64).sin(), 2e-6),
            (3, ((a * 10.0) as f64).cos(), 2e-6),
            (4, ((a.abs() + 0.1) as f64).powf((b * 3.0) as f64), 4e-6),
            (6, 1.0 / ((a.abs() + 0.01) as f64).sqrt(), 4e-6),
            (11, ad.exp(), 1e-5),
            (12, ad / ((b + 2.0) as f64), 4e-6),
        ];
        for (j, want, tol) in libm {
            assert_close(
                &[g[j]],
                &[want as f32],
                tol,
                &format!("mathf[{i}][{j}] a={a} b={b}"),
            );
        }
        // correctly rounded or exact operations must match bit for bit
        assert_eq!(g[5], a.abs().sqrt(), "sqrtf({a})");
        assert_eq!(g[7], a.min(b), "fminf");
        assert_eq!(g[8], a.max(b), "fmaxf");
        assert_eq!(g[9], (a * 7.0).floor(), "floorf");
        assert_eq!(g[10], b.abs(), "fabsf");
        assert_eq!(g[13], a / (b + 2.0), "IEEE division");
    }
}

#[test]
fn double_precision() {
    let k = load("math");
    let n = 40;
    let x: Vec<f64> = rand_f32(n, 23).iter().map(|&v| v as f64 * 3.7).collect();
    let y: Vec<f64> = rand_f32(n, 24).iter().map(|&v| v as f64 * 1.3).collect();
    let r = k.run_clean(
        "mathd",
        d1(1, 64),
        vec![
            zeros("out", ElemType::F64, n * 8),
            f64s("x", &x),
            f64s("y", &y),
            int(n as i32),
        ],
    );
    let got = get_f64(&r, "out");
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let g = &got[i * 8..i * 8 + 8];
        assert_eq!(g[0], a.mul_add(b, 1.0), "fma");
        assert_eq!(g[1], a / (b + 3.0), "div");
        assert_eq!(g[2], a.abs().sqrt(), "sqrt");
        for (j, want) in [(3, a.exp()), (4, (b.abs() + 1.0).ln()), (5, a.sin())] {
            assert!(
                (g[j] - want).abs() <= 4e-16 * want.abs().max(1.0),
                "mathd[{i}][{j}]: {} vs {want}",
                g[j]
            );
        }
        assert_eq!(g[6], a.min(b));
        assert_eq!(g[7], (a as f32) as f64 + ((b * 1000.0) as i32) as f64);
    }
}

#[test]
fn integer_arithmetic_and_bit_operations() {
    let k = load("math");
    let n = 96;
    let mut x = rand_i32(n, 25, -1_000_000, 1_000_000);
    let mut y = rand_i32(n, 26, -5000, 5000);
    x[0] = i32::MIN;
    y[0] = -1;
    x[1] = 0;
    x[2] = -1;
    x[3] = i32::MAX;
    for v in y.iter_mut() {
        if *v == 0 {
            *v = 3;
        }
    }
    let r = k.run_clean(
        "ints",
        d1(3, 32),
        vec![
            zeros("out", ElemType::I32, n * 16),
            zeros("uout", ElemType::U32, n * 6),
            i32s("x", &x),
            i32s("y", &y),
            int(n as i32),
        ],
    );
    let got = get_i32(&r, "out");
    let ugot = get_u32(&r, "uout");
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let (ua, ub) = (a as u32, b as u32);
        let want = [
            a.wrapping_div(b),
            a.wrapping_rem(b),
            a / 7,
            a % 7,
            a / -3,
            a >> (b & 31),
            a.wrapping_shl((b & 15) as u32),
            a.min(b),
            a.max(b),
            (a < b) as i32 + 2 * (ua < ub) as i32,
            a.count_ones() as i32,
            a.leading_zeros() as i32,
            if a == 0 {
                0
            } else {
                a.trailing_zeros() as i32 + 1
            },
            a.wrapping_abs(),
            ((a as i64 * b as i64) >> 32) as i32,
            ua.reverse_bits() as i32,
        ];
        assert_eq!(&got[i * 16..i * 16 + 16], &want, "ints a={a} b={b}");
        let uwant = [
            ua / ub,
            ua % ub,
            ua / 10,
            ua >> (ub & 31),
            ua.min(ub),
            ua.max(ub),
        ];
        assert_eq!(&ugot[i * 6..i * 6 + 6], &uwant, "unsigned a={ua} b={ub}");
    }
}

#[test]
fn sixty_four_bit_integers() {
    let k = load("math");
    let n = 32;
    let mut s = 99u64;
    let x: Vec<i64> = (0..n).map(|_| splitmix(&mut s) as i64).collect();
    let mut y: Vec<i64> = (0..n).map(|_| (splitmix(&mut s) as i64) >> 20).collect();
    y[0] = -7;
    let xb: Vec<u64> = x.iter().map(|&v| v as u64).collect();
    let yb: Vec<u64> = y.iter().map(|&v| v as u64).collect();
    let r = k.run_clean(
        "longs",
        d1(1, n as u32),
        vec![
            zeros("out", ElemType::I64, n * 8),
            u64s("x", &xb),
            u64s("y", &yb),
            int(n as i32),
        ],
    );
    let got = get_u64(&r, "out");
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let want = [
            a.wrapping_div(b),
            a.wrapping_rem(b),
            a.wrapping_mul(b),
            a.count_ones() as i64,
            a.leading_zeros() as i64,
            if a == 0 {
                0
            } else {
                a.trailing_zeros() as i64 + 1
            },
            ((a as u64) >> 3) as i64,
            ((a as i128 * b as i128) >> 64) as i64,
        ];
        let g: Vec<i64> = got[i * 8..i * 8 + 8].iter().map(|&v| v as i64).collect();
        assert_eq!(g, want, "longs a={a} b={b}");
    }
}

// ---------------------------------------------------------------- atomics.cu

#[test]
fn global_histogram_with_atomic_add() {
    let k = load("atomics");
    let n = 1000;
    let data = rand_i32(n, 31, 0, 1 << 20);
    let r = k.run_clean(
        "histogram",
        d1(8, 128),
        vec![
            zeros("bins", ElemType::I32, 10),
            i32s("data", &data),
            int(n as i32),
            int(10),
        ],
    );
    let mut want = vec![0; 10];
    for d in &data {
        want[(d % 10) as usize] += 1;
    }
    assert_eq!(get_i32(&r, "bins"), want);
    // an atomic counts as one read and one write
    assert_eq!(r.counters.total.global_reads, 2 * n as u64);
    assert_eq!(r.counters.total.global_writes, n as u64);
}

#[test]
fn shared_histogram_flushed_to_global() {
    let k = load("atomics");
    let n = 3000;
    let data = rand_i32(n, 32, 0, 1 << 20);
    let r = k.run_clean(
        "histogram_shared",
        d1(4, 64),
        vec![
            zeros("bins", ElemType::U32, 16),
            i32s("data", &data),
            int(n as i32),
        ],
    );
    let mut want = vec![0u32; 16];
    for d in &data {
        want[(d & 15) as usize] += 1;
    }
    assert_eq!(get_u32(&r, "bins"), want);
}

#[test]
fn every_global_atomic_operation() {
    let k = load("atomics");
    let (blocks, threads) = (3u32, 40u32);
    let total = (blocks * threads) as i32;
    let mut g = vec![0i32; 9];
    g[2] = 1 << 30;
    g[3] = -(1 << 30);
    g[4] = -1;
    let u = vec![0u32, 0, u32::MAX, 0];
    let r = k.run_clean(
        "all_ops",
        d1(blocks, threads),
        vec![
            i32s("g", &g),
            u32s("u", &u),
            zeros("f", ElemType::F32, 1),
            zeros("d", ElemType::F64, 1),
            zeros("ull", ElemType::U64, 1),
            zeros("olds", ElemType::I32, total as usize),
        ],
    );
    let ts = 0..total;
    let g = get_i32(&r, "g");
    assert_eq!(g[0], ts.clone().sum::<i32>());
    assert_eq!(g[1], -ts.clone().sum::<i32>());
    assert_eq!(g[2], 1000 - 3 * (total - 1));
    assert_eq!(g[3], 7 * (total - 1) - 50);
    assert_eq!(g[4], ts.clone().fold(-1, |m, t| m & !(1 << (t % 31))));
    assert_eq!(g[5], ts.clone().fold(0, |m, t| m | (1 << (t % 29))));
    assert_eq!(
        g[6],
        ts.clone().fold(0, |m, t| m ^ t.wrapping_mul(0x0101_0101))
    );
    // exchange: the old values and the final value are 0..=total, each once
    let mut seen = get_i32(&r, "olds");
    seen.push(g[7]);
    seen.sort();
    assert_eq!(seen, (0..=total).collect::<Vec<_>>());
    // compare-and-swap advanced by the thread whose index matched, in some order
    assert!((1..=total).contains(&g[8]), "cas chain {}", g[8]);
    let u = get_u32(&r, "u");
    assert_eq!(u[0], total as u32 % 10, "atomicInc wraps after 9");
    assert_eq!(
        u[1],
        ((7 - total % 7) % 7) as u32,
        "atomicDec wraps to 6 from 0"
    );
    assert_eq!(u[2], 5000 - (total as u32 - 1));
    assert_eq!(u[3], 3 * (total as u32 - 1));
    assert_eq!(get_f32(&r, "f")[0], ts.clone().sum::<i32>() as f32);
    assert_eq!(get_f64(&r, "d")[0], ts.clone().sum::<i32>() as f64 * 0.5);
    assert_eq!(get_u64(&r, "ull")[0], (total as u64) << 33);
}

#[test]
fn every_shared_atomic_operation() {
    let k = load("atomics");
    let b = 24;
    let r = k.run_clean(
        "shared_ops",
        d1(1, b),
        vec![zeros("g", ElemType::I32, 8), zeros("f", ElemType::F32, 1)],
    );
    let ts = 0..b as i32;
    let want = vec![
        ts.clone().sum::<i32>(),
        3,
        5 * (b as i32 - 1) + 3,
        ts.clone().fold(-1, |m, t| m & !(1 << t)),
        ts.clone().fold(0, |m, t| m | (1 << (t % 17))),
        ts.clone().fold(0, |m, t| m ^ t),
        b as i32 % 5,
        42,
    ];
    assert_eq!(get_i32(&r, "g"), want);
    assert_eq!(get_f32(&r, "f"), vec![0.25 * b as f32]);
    // thread 0: nine atomics, then s[0] and sf
    assert_eq!(r.counters.max_per_thread.shared_reads, 11);
}

#[test]
fn float_max_with_an_atomic_cas_loop() {
    let k = load("atomics");
    let n = 500;
    let x = rand_f32(n, 33);
    let r = k.run_clean(
        "cas_max",
        d1(4, 128),
        vec![
            f32s("result", &[f32::NEG_INFINITY]),
            f32s("x", &x),
            int(n as i32),
        ],
    );
    let want = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(get_f32(&r, "result"), vec![want]);
}

// ---------------------------------------------------------------- warp.cu

/// The lane a `__shfl_*_sync` reads from, per CUDA's definition with `width`.
fn shfl_src(lane: i32, mode: &str, arg: i32, width: i32) -> i32 {
    let base = lane / width * width;
    match mode {
        "down" => {
            if lane + arg < base + width {
                lane + arg
            } else {
                lane
            }
        }
        "up" => {
            if lane - arg >= base {
                lane - arg
            } else {
                lane
            }
        }
        "xor" => {
            let j = lane ^ arg;
            if j < base + width {
                j
            } else {
                lane
            }
        }
        _ => base + arg.rem_euclid(width),
    }
}

#[test]
fn shuffles_of_every_mode_and_width() {
    let k = load("warp");
    let n = 128;
    let input = rand_i32(n, 41, -1000, 1000);
    let r = k.run_clean(
        "shuffles",
        d1(2, 64),
        vec![zeros("out", ElemType::I32, n * 8), i32s("in", &input)],
    );
    let got = get_i32(&r, "out");
    for t in 0..n as i32 {
        let warp_base = t / 32 * 32;
        let lane = t % 32;
        let at = |src: i32| input[(warp_base + src) as usize];
        let want = [
            at(shfl_src(lane, "down", 3, 32)),
            at(shfl_src(lane, "up", 5, 32)),
            at(shfl_src(lane, "xor", 6, 32)),
            at(shfl_src(lane, "idx", (t % 64 * 7) & 31, 32)),
            at(shfl_src(lane, "down", 3, 16)),
            at(shfl_src(lane, "up", 5, 16)),
            at(shfl_src(lane, "xor", 9, 16)),
            at(shfl_src(lane, "idx", 13, 8)),
        ];
        assert_eq!(
            &got[t as usize * 8..t as usize * 8 + 8],
            &want,
            "thread {t}"
        );
    }
}

#[test]
fn shuffles_of_floats_and_doubles() {
    let k = load("warp");
    let input = rand_f32(32, 42);
    let r = k.run_clean(
        "float_shuffle",
        d1(1, 32),
        vec![zeros("out", ElemType::F32, 64), f32s("in", &input)],
    );
    let got = get_f32(&r, "out");
    for t in 0..32 {
        assert_eq!(got[t], input[t ^ 1] + input[0]);
        let src = if t < 31 { t + 1 } else { t };
        assert_eq!(got[32 + t], (input[src] as f64 * 3.0) as f32);
    }
}

#[test]
fn votes_and_the_active_mask_of_a_partial_warp() {
    let k = load("warp");
    let n = 40;
    let input = rand_i32(64, 43, -99, 100);
    let r = k.run_clean(
        "votes",
        d1(1, 64),
        vec![
            zeros("out", ElemType::U32, 64 * 5),
            i32s("in", &input),
            int(n),
        ],
    );
    let got = get_u32(&r, "out");
    for w in 0..2usize {
        let lanes: Vec<usize> = (w * 32..(w * 32 + 32).min(n as usize)).collect();
        let active = lanes.iter().fold(0u32, |m, &t| m | 1 << (t % 32));
        let ballot = lanes
            .iter()
            .filter(|&&t| input[t] > 0)
            .fold(0u32, |m, &t| m | 1 << (t % 32));
        let any90 = lanes.iter().any(|&t| input[t] > 90) as u32;
        let all_pos = lanes.iter().all(|&t| input[t] > 0) as u32;
        for &t in &lanes {
            assert_eq!(
                &got[t * 5..t * 5 + 5],
                &[ballot, any90, 1, active, all_pos],
                "thread {t}"
            );
        }
    }
    assert!(got[40 * 5..].iter().all(|&v| v == 0));
}

#[test]
fn active_mask_in_a_divergent_branch_names_the_lanes_in_it() {
    let k = load("warp");
    let r = k.run_clean(
        "active_in_branch",
        d1(1, 32),
        vec![
            zeros("out", ElemType::U32, 32),
            zeros("sums", ElemType::I32, 32),
        ],
    );
    let in_branch: Vec<i32> = (0..32).filter(|t| t & 3 == 1).collect();
    let mask = in_branch.iter().fold(0u32, |m, t| m | 1 << t);
    let sum: i32 = in_branch.iter().sum();
    for t in 0..32 {
        let (m, s) = if t & 3 == 1 { (mask, sum) } else { (0, t) };
        assert_eq!(get_u32(&r, "out")[t as usize], m, "mask of thread {t}");
        assert_eq!(get_i32(&r, "sums")[t as usize], s, "sum of thread {t}");
    }
}

#[test]
fn warp_reduction_with_shuffles() {
    let k = load("warp");
    let input: Vec<f32> = rand_i32(256, 44, -50, 50)
        .iter()
        .map(|&v| v as f32)
        .collect();
    let r = k.run_clean(
        "warp_reduce",
        d1(2, 128),
        vec![zeros("out", ElemType::F32, 8), f32s("in", &input)],
    );
    let want: Vec<f32> = input.chunks(32).map(|c| c.iter().sum()).collect();
    assert_eq!(get_f32(&r, "out"), want);
}

#[test]
fn syncwarp_orders_shared_accesses_within_a_warp() {
    let k = load("warp");
    let r = k.run_clean(
        "syncwarp_exchange",
        d1(1, 64),
        vec![zeros("out", ElemType::I32, 64)],
    );
    let want: Vec<i32> = (0..64)
        .map(|t: i32| {
            let idx = ((t + 1) & 31) | (t & 32);
            let partner = idx ^ 1;
            partner * partner + 1
        })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn syncthreads_count_and_or() {
    let k = load("warp");
    for seed in [45, 46] {
        let input = rand_i32(100, seed, 0, 100);
        let r = k.run_clean(
            "barrier_reductions",
            d1(1, 100),
            vec![zeros("out", ElemType::I32, 3), i32s("in", &input)],
        );
        let want = vec![
            input.iter().filter(|&&v| v > 10).count() as i32,
            1,
            input.iter().any(|&v| v > 98) as i32,
        ];
        assert_eq!(get_i32(&r, "out"), want, "seed {seed}");
    }
    let mut input = vec![5; 100];
    input[77] = -1;
    let r = k.run_clean(
        "barrier_reductions",
        d1(1, 100),
        vec![zeros("out", ElemType::I32, 3), i32s("in", &input)],
    );
    assert_eq!(get_i32(&r, "out"), vec![0, 0, 0]);
}

// ---------------------------------------------------------------- shared.cu

#[test]
fn shared_memory_tree_reduction() {
    let k = load("shared");
    let n = 1000;
    let input: Vec<f32> = rand_i32(n, 51, -100, 100)
        .iter()
        .map(|&v| v as f32)
        .collect();
    let r = k.run_clean(
        "reduce_tree",
        d1(4, 256),
        vec![
            zeros("out", ElemType::F32, 4),
            f32s("in", &input),
            int(n as i32),
        ],
    );
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(get_f32(&r, "out"), want);
    // every thread reads its element; thread 0 reads 2 per step plus the final s[0]
    assert_eq!(r.counters.max_per_thread.global_reads, 1);
    assert_eq!(r.counters.max_per_thread.shared_reads, 2 * 8 + 1);
}

#[test]
fn a_smaller_block_size_by_define() {
    let k = load_with("shared", &[("TPB", "64")]);
    let input: Vec<f32> = (0..128).map(|v| v as f32).collect();
    let r = k.run_clean(
        "reduce_tree",
        d1(2, 64),
        vec![zeros("out", ElemType::F32, 2), f32s("in", &input), int(128)],
    );
    assert_eq!(get_f32(&r, "out"), vec![2016.0, 6112.0]);
}

#[test]
fn dynamic_shared_reduction_with_a_shuffle_tail() {
    let k = load("shared");
    let input: Vec<f32> = rand_i32(512, 52, -9, 9).iter().map(|&v| v as f32).collect();
    let mut c = d1(2, 256);
    c.dynamic_shared = 256 * 4;
    let r = k.run_clean(
        "reduce_warp_tail",
        c,
        vec![zeros("out", ElemType::F32, 2), f32s("in", &input)],
    );
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(get_f32(&r, "out"), want);
}

#[test]
fn syncwarp_tail_is_race_free() {
    let k = load("shared");
    let input = rand_i32(384, 53, -1000, 1000);
    let r = k.run_clean(
        "reduce_syncwarp_tail",
        d1(3, 128),
        vec![zeros("out", ElemType::I32, 3), i32s("in", &input)],
    );
    let want: Vec<i32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn two_arrays_in_dynamic_shared_memory() {
    let k = load("shared");
    let n = 48;
    let mut c = d1(1, n);
    c.dynamic_shared = n * 8;
    let r = k.run_clean(
        "dyn_two_arrays",
        c,
        vec![zeros("out", ElemType::I32, n as usize), int(n as i32)],
    );
    let n = n as i32;
    let want: Vec<i32> = (0..n)
        .map(|t| (n - 1 - t) * 3 + (((t + 1) % n) as f32 * 0.5 * 4.0) as i32)
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn dynamic_shared_too_small_is_out_of_bounds() {
    let k = load("shared");
    let mut c = d1(1, 16);
    c.dynamic_shared = 16 * 4; // room for `first` only
    let r = k.run(
        "dyn_two_arrays",
        c,
        vec![zeros("out", ElemType::I32, 16), int(16)],
    );
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.kind == gpuzzle::emu::result::DiagKind::OutOfBounds),
        "{}",
        describe(&r.diagnostics)
    );
}

#[test]
fn tiled_transpose_in_2d_blocks() {
    let k = load("shared");
    let (rows, cols) = (13usize, 21usize);
    let input = rand_f32(rows * cols, 54);
    let r = k.run_clean(
        "transpose",
        cfg([3, 2, 1], [8, 8, 1]),
        vec![
            zeros("out", ElemType::F32, rows * cols),
            f32s("in", &input),
            int(rows as i32),
            int(cols as i32),
        ],
    );
    let mut want = vec![0.0; rows * cols];
    for y in 0..rows {
        for x in 0..cols {
            want[x * rows + y] = input[y * cols + x];
        }
    }
    assert_eq!(get_f32(&r, "out"), want);
}

// ---------------------------------------------------------------- misc.cu

#[test]
fn device_and_constant_variables_with_initialisers() {
    let k = load("misc");
    let b = 12;
    let x = rand_f32(b, 55);
    let r = k.run_clean(
        "globals",
        d1(1, b as u32),
        vec![
            zeros("out", ElemType::I32, 2 * b + 1),
            zeros("fout", ElemType::F32, b),
            f32s("x", &x),
        ],
    );
    let coef = [0.5f32, -1.0, 2.0, 0.25];
    let table = [10, 20, 30, 40, 50];
    let offsets = [7, -7, 100];
    let out = get_i32(&r, "out");
    for t in 0..b {
        assert_eq!(out[t], table[t % 5] + offsets[t % 3], "out[{t}]");
        // NVRTC contracts the polynomial into fmas: c0 + c1*x + (c2*x)*x + c[t%4]
        let xt = x[t];
        let want = (coef[2] * xt).mul_add(xt, coef[1].mul_add(xt, coef[0])) + coef[t % 4];
        assert_close(&[get_f32(&r, "fout")[t]], &[want], 1e-6, "polynomial");
    }
    assert_eq!(out[b], b as i32, "every thread took a ticket");
    let mut tickets = out[b + 1..].to_vec();
    tickets.sort();
    assert_eq!(tickets, (0..b as i32).collect::<Vec<_>>());
}

#[test]
fn device_printf_output_is_exact_and_ordered() {
    let k = load("misc");
    let r = k.run_clean(
        "hello",
        d1(2, 3),
        vec![i32s("v", &[5, -1, 255]), float(1.5)],
    );
    let mut want = String::new();
    for b in 0..2 {
        for (t, v) in [5i32, -1, 255].iter().enumerate() {
            want.push_str(&format!(
                "block {b} thread {t}: v={v} f={:.6} hex={:x} s=ok\n",
                1.5 * t as f64,
                *v as u32
            ));
            if t == 1 {
                want.push_str(" 3.14|7   |0042|A|4000000000|-5|1.234568e+04\n");
            }
        }
    }
    assert_eq!(r.stdout, want);
}

#[test]
fn a_passing_assert_is_silent() {
    let k = load("misc");
    let r = k.run_clean(
        "checked",
        d1(1, 8),
        vec![i32s("v", &[0, 1, 2, 3, 4, 5, 6, 7]), int(8)],
    );
    assert!(r.stdout.is_empty());
}

// ---------------------------------------------------------------- perf.cu

fn perf_run(
    k: &Kernels,
    kernel: &str,
    c: gpuzzle::emu::LaunchConfig,
    args: Vec<KernelArg>,
) -> gpuzzle::emu::result::RunResult {
    let r = k.run_opts(
        kernel,
        c,
        args,
        &gpuzzle::emu::EmuOptions {
            perf: true,
            ..Default::default()
        },
    );
    assert_clean(&r, kernel);
    r
}

#[test]
fn coalescing_counts_32_byte_sectors_per_warp_access() {
    let k = load("perf");
    let n = 1024;
    let input = rand_f32(n, 61);
    for (stride, sectors_per_load) in [(1, 4), (2, 8), (8, 32), (0, 1)] {
        let r = perf_run(
            &k,
            "copy",
            d1(2, 64),
            vec![
                zeros("out", ElemType::F32, 128),
                f32s("in", &input),
                int(stride),
                int(n as i32),
            ],
        );
        let want: Vec<f32> = (0..128).map(|i| input[(i * stride as usize) % n]).collect();
        assert_eq!(get_f32(&r, "out"), want);
        let warps = 4;
        assert_eq!(r.perf.global_warp_accesses, 2 * warps, "stride {stride}");
        // each warp: one load of the given spread, one coalesced store (4 sectors)
        assert_eq!(
            r.perf.global_sectors,
            warps * (sectors_per_load + 4),
            "stride {stride}"
        );
    }
}

#[test]
fn bank_conflicts_count_distinct_words_per_bank() {
    let k = load("perf");
    for (stride, ways) in [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1), (17, 1)] {
        let r = perf_run(
            &k,
            "banks",
            d1(1, 32),
            vec![zeros("out", ElemType::F32, 32), int(stride)],
        );
        // one warp: the store, the strided read, the broadcast read of s[0] (one way)
        assert_eq!(r.perf.shared_warp_accesses, 3, "stride {stride}");
        assert_eq!(r.perf.max_bank_ways, ways, "stride {stride}");
        assert_eq!(
            r.perf.shared_bank_ways,
            2 * ways as u64 + 1,
            "stride {stride}"
        );
    }
}

// ---------------------------------------------------------------- puzzles.cu

fn arange(n: usize) -> Vec<f32> {
    (0..n).map(|v| v as f32).collect()
}

/// (global reads, global writes, shared reads, shared writes), maximum per thread.
fn maxima(r: &gpuzzle::emu::result::RunResult) -> [u64; 4] {
    let m = r.counters.max_per_thread;
    [
        m.global_reads,
        m.global_writes,
        m.shared_reads,
        m.shared_writes,
    ]
}

#[test]
fn puzzle_pooling() {
    let k = load("puzzles");
    let r = k.run_clean(
        "pooling",
        d1(1, 8),
        vec![
            zeros("out", ElemType::F32, 8),
            f32s("a", &arange(8)),
            int(8),
        ],
    );
    assert_eq!(get_f32(&r, "out"), vec![0., 1., 3., 6., 9., 12., 15., 18.]);
    assert_eq!(maxima(&r), [1, 1, 3, 1]);
}

#[test]
fn puzzle_dot() {
    let k = load("puzzles");
    let r = k.run_clean(
        "dot",
        d1(1, 8),
        vec![
            zeros("out", ElemType::F32, 1),
            f32s("a", &arange(8)),
            f32s("b", &arange(8)),
            int(8),
        ],
    );
    assert_eq!(get_f32(&r, "out"), vec![140.0]);
    assert_eq!(maxima(&r), [2, 1, 8, 1]);
}

#[test]
fn puzzle_conv() {
    let k = load("puzzles");
    let r = k.run_clean(
        "conv",
        d1(1, 8),
        vec![
            zeros("out", ElemType::F32, 6),
            f32s("a", &arange(6)),
            f32s("b", &arange(3)),
            int(6),
            int(3),
        ],
    );
    assert_eq!(get_f32(&r, "out"), vec![5., 8., 11., 14., 5., 0.]);
    let r = k.run_clean(
        "conv",
        d1(2, 8),
        vec![
            zeros("out", ElemType::F32, 15),
            f32s("a", &arange(15)),
            f32s("b", &arange(4)),
            int(15),
            int(4),
        ],
    );
    let want = [
        14., 20., 26., 32., 38., 44., 50., 56., 62., 68., 74., 80., 41., 14., 0.,
    ];
    assert_eq!(get_f32(&r, "out"), want);
    assert_eq!(maxima(&r), [3, 1, 8, 3]);
}

#[test]
fn puzzle_block_and_axis_sums() {
    let k = load("puzzles");
    let r = k.run_clean(
        "block_sum",
        d1(2, 8),
        vec![
            zeros("out", ElemType::F32, 2),
            f32s("a", &arange(15)),
            int(15),
        ],
    );
    assert_eq!(get_f32(&r, "out"), vec![28.0, 77.0]);
    assert_eq!(maxima(&r), [1, 1, 7, 4]);
    let r = k.run_clean(
        "axis_sum",
        cfg([1, 4, 1], [8, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 4),
            f32s("a", &arange(24)),
            int(6),
        ],
    );
    assert_eq!(get_f32(&r, "out"), vec![15.0, 51.0, 87.0, 123.0]);
}

#[test]
fn puzzle_tiled_matmul() {
    let k = load("puzzles");
    let n = 8;
    let a = arange(n * n);
    let b: Vec<f32> = (0..n * n).map(|i| a[(i % n) * n + i / n]).collect();
    let r = k.run_clean(
        "matmul_tiled",
        cfg([3, 3, 1], [3, 3, 1]),
        vec![
            zeros("out", ElemType::F32, n * n),
            f32s("a", &a),
            f32s("b", &b),
            int(n as i32),
        ],
    );
    let mut want = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    assert_eq!(get_f32(&r, "out"), want);
    assert_eq!(maxima(&r), [6, 1, 18, 6]);
}

// ---------------------------------------------------------------- control.cu

#[test]
fn switch_statements() {
    let k = load("control");
    let n = 200;
    let input = rand_i32(n, 71, -1000, 1000);
    let r = k.run_clean(
        "switcher",
        d1(4, 64),
        vec![
            zeros("out", ElemType::I32, n),
            i32s("in", &input),
            int(n as i32),
        ],
    );
    let want: Vec<i32> = input
        .iter()
        .map(|&v| match v & 15 {
            0 => 10,
            1 => v * 3,
            2 => v - 7,
            3 => -v,
            4 => v << 2,
            5 => v ^ 0x55,
            6 => v / 3,
            7 => 42,
            9 => v % 5,
            11 => v + 100,
            _ => -1,
        })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn loops_with_break_continue_and_do_while() {
    let k = load("control");
    let n = 48;
    let input = rand_i32(n, 72, 0, 100);
    let r = k.run_clean(
        "loops",
        d1(1, n as u32),
        vec![
            zeros("out", ElemType::I32, n),
            i32s("in", &input),
            int(n as i32),
        ],
    );
    let want: Vec<i32> = (0..n as i32)
        .map(|i| {
            let mut s = 0;
            for kk in 0..n as i32 {
                let v = input[((i + kk) % n as i32) as usize];
                if v % 3 == 0 {
                    continue;
                }
                if v > 90 {
                    break;
                }
                s += v;
            }
            let mut j = 0;
            loop {
                s ^= j * i;
                j += 1;
                if j >= i % 5 {
                    break;
                }
            }
            while s > 1000 {
                s -= 999;
            }
            s
        })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn bytes_shorts_and_bools() {
    let k = load("control");
    let n = 20;
    let input: Vec<f64> = rand_i32(n, 73, 0, 256).iter().map(|&v| v as f64).collect();
    let sin: Vec<f64> = rand_i32(n, 74, -20000, 20000)
        .iter()
        .map(|&v| v as f64)
        .collect();
    let buf = |name: &str, ty, v: &[f64]| {
        KernelArg::Buffer(gpuzzle::emu::value::Buffer::from_values(name, ty, v))
    };
    let r = k.run_clean(
        "bytes",
        d1(1, 32),
        vec![
            zeros("out", ElemType::U8, n),
            buf("in", ElemType::U8, &input),
            zeros("sout", ElemType::I16, n),
            buf("sin", ElemType::I16, &sin),
            zeros("flags", ElemType::U8, n),
            int(n as i32),
        ],
    );
    let values = |name: &str| r.buffers.iter().find(|b| b.name == name).unwrap().values();
    let want_out: Vec<f64> = input
        .iter()
        .map(|&v| ((v as u32 * 3 + 1) as u8) as f64)
        .collect();
    let want_s: Vec<f64> = sin
        .iter()
        .map(|&v| ((v as i32 * -2) as i16) as f64)
        .collect();
    let want_f: Vec<f64> = input.iter().map(|&v| (v > 100.0) as u8 as f64).collect();
    assert_eq!(values("out"), want_out);
    assert_eq!(values("sout"), want_s);
    assert_eq!(values("flags"), want_f);
}

#[test]
fn ldg_through_restrict_pointers() {
    let k = load("control");
    let n = 70;
    let input = rand_f32(n, 75);
    let r = k.run_clean(
        "ldg",
        d1(3, 32),
        vec![
            zeros("out", ElemType::F32, n),
            f32s("in", &input),
            int(n as i32),
        ],
    );
    let want: Vec<f32> = (0..n)
        .map(|i| input[i].mul_add(2.0, input[(i + 1) % n]))
        .collect();
    assert_eq!(get_f32(&r, "out"), want);
}

#[test]
fn grid_stride_loop_with_barriers_inside() {
    let k = load("control");
    let n = 300;
    let input = rand_f32(n, 76);
    for jobs in [1, 2] {
        let r = k.run_opts(
            "grid_stride",
            d1(2, 64),
            vec![
                zeros("out", ElemType::F32, n),
                f32s("in", &input),
                int(n as i32),
            ],
            &gpuzzle::emu::EmuOptions {
                jobs,
                ..Default::default()
            },
        );
        assert_clean(&r, "grid_stride");
        let want: Vec<f32> = (0..n)
            .map(|i| {
                let base = i / 64 * 64;
                let t = i % 64;
                let nb = base + (t + 1) % 64;
                input[i] + if nb < n { input[nb] } else { 0.0 }
            })
            .collect();
        assert_eq!(get_f32(&r, "out"), want);
    }
}

// ---------------------------------------------------------------- intrinsics.cu

#[test]
fn the_long_tail_of_float_math() {
    let k = load("intrinsics");
    let n = 32;
    let x: Vec<f32> = rand_f32(n, 81).iter().map(|v| v * 2.5).collect();
    let r = k.run_clean(
        "more_math",
        d1(1, n as u32),
        vec![
            zeros("out", ElemType::F32, n * 24),
            f32s("x", &x),
            int(n as i32),
        ],
    );
    let got = get_f32(&r, "out");
    for i in 0..n {
        let a = x[i];
        let ad = a as f64;
        let g = &got[i * 24..i * 24 + 24];
        let approx: [(usize, f64, f32); 12] = [
            (0, ad.sin(), 1e-5),
            (1, ad.cos(), 1e-5),
            (2, (a.abs() as f64 + 1.0).ln(), 1e-5),
            (3, (a.abs() as f64 + 1.0).powf(1.5), 1e-5),
            (8, ad.atan2(0.5), 2e-6),
            (9, erf(ad), 2e-6),
            (10, ad.tanh(), 2e-6),
            (16, ad.exp2(), 2e-6),
            (17, (a.abs() as f64 + 1.0).log2(), 2e-6),
            (18, ad.cbrt(), 2e-6),
            (19, ad.hypot(2.0), 2e-6),
            (7, ((a * 10.0) as f64) % 3.0, 1e-6),
        ];
        for (j, want, tol) in approx {
            assert_close(
                &[g[j]],
                &[want as f32],
                tol,
                &format!("more_math[{i}][{j}] a={a}"),
            );
        }
        assert_eq!(g[4], (a * 3.0).trunc(), "truncf");
        assert_eq!(g[5], (a * 3.0).round(), "roundf");
        assert_eq!(g[6], (a * 3.0).ceil(), "ceilf");
        assert_eq!(g[11], (a * 2.0).clamp(0.0, 1.0), "saturate");
        assert_eq!(g[12], (a * 7.0).round_ties_even(), "float2int_rn");
        assert_eq!(g[14], a * 3.0, "fmul_rn");
        assert_eq!(g[15], 2.0f32.copysign(a), "copysign");
        assert_eq!(g[20], 1.0 / (a + 3.0), "frcp_rn");
        assert_eq!(g[21], a.abs().sqrt(), "fsqrt_rn");
        assert_eq!(g[22], (a * 5.0).round_ties_even(), "rintf");
        // round toward zero: never above |a + tiny| and within an ulp of it
        let rz = g[13];
        assert!(
            rz.abs() <= (a + 1e-8).abs() && (rz - (a + 1e-8)).abs() <= a.abs() * 1.2e-7,
            "fadd_rz {a}: {rz}"
        );
        assert_eq!(g[23], a, "through double and back");
    }
}

/// erf by its series/continued fraction is overkill here: Abramowitz-Stegun 7.1.26 is 1.5e-7.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let y = 1.0
        - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
            + 0.254829592)
            * t
            * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

#[test]
fn integer_intrinsics() {
    let k = load("intrinsics");
    let n = 32;
    let mut s = 5u64;
    let x: Vec<u32> = (0..n).map(|_| splitmix(&mut s) as u32).collect();
    let y: Vec<u32> = (0..n).map(|_| splitmix(&mut s) as u32).collect();
    let r = k.run_clean(
        "int_intrinsics",
        d1(1, n as u32),
        vec![
            zeros("out", ElemType::U32, n * 10),
            u32s("x", &x),
            u32s("y", &y),
            int(n as i32),
        ],
    );
    let got = get_u32(&r, "out");
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let bytes = [a.to_le_bytes(), b.to_le_bytes()].concat();
        let perm = |sel: u32| -> u32 {
            (0..4).fold(0, |acc, k| {
                acc | (bytes[((sel >> (4 * k)) & 7) as usize] as u32) << (8 * k)
            })
        };
        let wide = ((b as u64) << 32) | a as u64;
        let sh = i as u32 & 31;
        let dp4a = (0..4).fold(5i32, |acc, k| {
            acc + (a.to_le_bytes()[k] as i8 as i32) * (b.to_le_bytes()[k] as i8 as i32)
        });
        let want = [
            perm(0x5140),
            ((wide << sh) >> 32) as u32,
            (wide >> sh) as u32,
            // __mul24 is signed: the low 24 bits, sign-extended
            ((((a << 8) as i32) >> 8).wrapping_mul(((b << 8) as i32) >> 8)) as u32,
            ((a as u64 * b as u64) >> 32) as u32,
            ((a & 0xffff) as i64 - (b & 0xffff) as i64).unsigned_abs() as u32 + 7,
            (((a >> 1) as u64 + (b >> 1) as u64 + 1) >> 1) as u32,
            ((a as u64 + b as u64) >> 1) as u32,
            ((((a as u64) << 32) | b as u64).reverse_bits()) as u32,
            dp4a as u32,
        ];
        assert_eq!(&got[i * 10..i * 10 + 10], &want, "a={a:#x} b={b:#x} i={i}");
    }
}

#[test]
fn warp_reduce_and_match_intrinsics() {
    let k = load("warp");
    let input: Vec<u32> = rand_i32(32, 47, 0, 999).iter().map(|&v| v as u32).collect();
    let r = k.run_clean(
        "warp_reduce_intrinsics",
        d1(1, 32),
        vec![zeros("out", ElemType::U32, 32 * 7), u32s("in", &input)],
    );
    let got = get_u32(&r, "out");
    let sum: u32 = input.iter().sum();
    let min = *input.iter().min().unwrap();
    let max = *input.iter().max().unwrap();
    let or = input.iter().fold(0, |a, &v| a | v);
    for t in 0..32 {
        let m = (0..32)
            .filter(|&l| input[l] % 4 == input[t] % 4)
            .fold(0u32, |a, l| a | 1 << l);
        // every value is below 1000, so v / 1000 is 0 everywhere: all match (pred is bit 31,
        // already set in the full mask); v / 500 differs between lanes: no match, pred clear
        let halves_agree = input.iter().all(|v| v / 500 == input[0] / 500);
        let all500 = if halves_agree { 0xffff_ffff } else { 0 };
        let want = [sum, min, max, or, m, 0xffff_ffff, all500];
        assert_eq!(&got[t * 7..t * 7 + 7], &want, "lane {t}");
    }
}

#[test]
fn partial_mask_syncwarp_in_a_branch() {
    let k = load("warp");
    let r = k.run_clean(
        "half_warp_exchange",
        d1(1, 32),
        vec![zeros("out", ElemType::I32, 32)],
    );
    let want: Vec<i32> = (0..32)
        .map(|t| if t < 16 { (15 - t) * 10 } else { -1 })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn pointers_to_local_arrays_across_calls() {
    let k = load("basics");
    let salt = rand_i32(16, 12, 0, 50);
    let r = k.run_clean(
        "local_through_calls",
        d1(1, 16),
        vec![zeros("out", ElemType::I32, 16), i32s("salt", &salt)],
    );
    let want: Vec<i32> = (0..16)
        .map(|t: i32| {
            let sa = salt[t as usize];
            let tmp: Vec<i32> = (0..8).map(|j| j * j + sa).collect();
            let mine: Vec<i32> = (0..8).map(|j| tmp[((j * 3 + sa) & 7) as usize]).collect();
            (0..8).map(|j| mine[((j + t) & 7) as usize] * (j + 1)).sum()
        })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn active_mask_while_other_lanes_spin() {
    let k = load("warp");
    let opts = gpuzzle::emu::EmuOptions {
        checkers: false, // the flag is a deliberate race
        ..Default::default()
    };
    let r = k.run_opts(
        "activemask_then_flag",
        d1(1, 32),
        vec![zeros("out", ElemType::U32, 32)],
        &opts,
    );
    assert_clean(&r, "activemask_then_flag");
    let mut want = vec![7u32; 32];
    want[0] = 1;
    assert_eq!(get_u32(&r, "out"), want);
}
