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
