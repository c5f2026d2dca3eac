//! Tensor cores on the emulator: `cargo run --release --example bench_mma [-- --reps N]
//! [--per-instruction]` (the last: only the per-instruction cost below, for profiling).
//!
//! Multiplies two 256x256 matrices twice on one core with the checkers on: (a) the scalar
//! fp32 matmul through 16x16 shared-memory tiles (as `bench_engine`'s "tiled"), (b) an
//! `ldmatrix` + `mma.sync.m16n8k16` matmul of the same values as halves (one warp per 16x8
//! tile of the result, 64-wide padded shared tiles), and prints for each the wall time, the
//! thread-instructions it ran and their rate, after checking both results against native Rust.
//! The mma kernel runs far fewer instructions (one warp instruction does 16x8x16 multiply-adds),
//! and each `mma.sync` costs the emulator a 2048-term product, so the figures show what the
//! collective costs next to plain instructions. Last, the cost of one `mma.sync` against one
//! scalar `fma` per thread-instruction, in CPU time (`per_instruction`). Not run by the tests.

use gpuzzle::compile::{CompileRequest, PtxCompiler};
use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
use std::time::{Duration, Instant};

const SOURCE: &str = r#"
#include <cuda_fp16.h>
#define TILE 16
#define TK 64

extern "C" __global__ void tiled(float* c, const float* a, const float* b, int n) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        ta[ty][tx] = a[row * n + t * TILE + tx];
        tb[ty][tx] = b[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) sum += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

// c = a * b with b given transposed (bt, n x n): one warp per 16x8 tile of c.
extern "C" __global__ void mma(float* c, const __half* a, const __half* bt, int n) {
    __shared__ __align__(16) __half sa[16][TK + 8];
    __shared__ __align__(16) __half sb[8][TK + 8];
    int lane = threadIdx.x, row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < n; k0 += TK) {
        for (int e = lane; e < 16 * TK; e += 32) sa[e / TK][e % TK] = a[(row0 + e / TK) * n + k0 + e % TK];
        for (int e = lane; e < 8 * TK; e += 32) sb[e / TK][e % TK] = bt[(col0 + e / TK) * n + k0 + e % TK];
        __syncwarp();
        for (int ks = 0; ks < TK; ks += 16) {
            unsigned a0, a1, a2, a3, b0, b1;
            unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[lane % 16][ks + (lane / 16) * 8]);
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
            unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[lane % 8][ks + ((lane / 8) % 2) * 8]);
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                         : "=r"(b0), "=r"(b1) : "r"(pb));
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) c[(row0 + g + 8 * (i / 2)) * n + col0 + 2 * t + i % 2] = acc[i];
}

// Per-instruction cost: a loop of 8 dependent `mma.sync` (all registers), and its twin of 8
// dependent scalar `fma`s, run `iters` times by every thread.
extern "C" __global__ void mma_loop(float* out, int iters) {
    unsigned a = 0x3c003c00u, b = 0x3c003c00u;
    float acc[4] = {0.0f, 1.0f, 2.0f, (float)threadIdx.x};
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 8; u++)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
    }
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 4; k++) out[4 * t + k] = acc[k];
}

extern "C" __global__ void fma_loop(float* out, int iters) {
    float acc = (float)threadIdx.x, h = 0.5f, x = 1.0f;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 8; u++) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(acc) : "f"(h), "f"(x));
    }
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[4 * t] = acc;
}
"#;

fn buffer(name: &str, ty: ElemType, v: &[f64]) -> KernelArg {
    KernelArg::Buffer(Buffer::from_values(name, ty, v))
}

fn floats(b: &Buffer) -> Vec<f32> {
    b.data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let compiled = PtxCompiler::new(None)
        .compile(&CompileRequest::new("bench_mma.cu", SOURCE))
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    let module = gpuzzle::ptx::parse(&compiled.ptx).expect("PTX parses");
    let n = 256usize;
    // Small integers: exact as halves, and every sum exact in f32, so both results must equal
    // the native one exactly.
    let a: Vec<f64> = (0..n * n).map(|i| ((i * 7) % 9) as f64 - 4.0).collect();
    let b: Vec<f64> = (0..n * n).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
    let bt: Vec<f64> = (0..n * n).map(|i| b[(i % n) * n + i / n]).collect();
    let mut want = vec![0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum::<f64>() as f32;
        }
    }
    let scalar = KernelArg::Scalar(Scalar::from_f64(ElemType::I32, n as f64));
    let opts = EmuOptions {
        jobs: 1,
        ..EmuOptions::default()
    };
    let cases = [
        (
            "tiled fp32 matmul 256^3 (16x16 shared tiles)",
            "tiled",
            LaunchConfig {
                grid: [16, 16, 1],
                block: [16, 16, 1],
                dynamic_shared: 0,
                cooperative: false,
            },
            vec![
                buffer("c", ElemType::F32, &vec![0.0; n * n]),
                buffer("a", ElemType::F32, &a),
                buffer("b", ElemType::F32, &b),
                scalar.clone(),
            ],
        ),
        (
            "ldmatrix + mma.sync matmul 256^3 (f16 in, f32 out)",
            "mma",
            LaunchConfig {
                grid: [(n / 8) as u32, (n / 16) as u32, 1],
                block: [32, 1, 1],
                dynamic_shared: 0,
                cooperative: false,
            },
            vec![
                buffer("c", ElemType::F32, &vec![0.0; n * n]),
                buffer("a", ElemType::F16, &a),
                buffer("bt", ElemType::F16, &bt),
                scalar.clone(),
            ],
        ),
    ];
    println!("one core, checkers on, best of {reps}");
    let only_per_instruction = args.iter().any(|a| a == "--per-instruction");
    for (name, kernel, cfg, args) in cases {
        if only_per_instruction {
            break;
        }
        let mut best = Duration::MAX;
        let mut result = None;
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            let r = emu::run(&module, kernel, &cfg, args.clone(), &opts).expect("launch");
            best = best.min(t.elapsed());
            result = Some(r);
        }
        let Some(r) = result else { continue };
        assert!(r.diagnostics.is_empty(), "{kernel}: {:?}", r.diagnostics);
        assert_eq!(floats(&r.buffers[0]), want, "{kernel}: wrong result");
        let secs = best.as_secs_f64();
        println!(
            "{name:52} {:8.1} ms  {:>12} thread-instructions  {:7.1} M/s",
            secs * 1e3,
            r.instructions,
            r.instructions as f64 / secs / 1e6
        );
    }
    per_instruction(&module, &opts, reps);
}

/// The cost of one `mma.sync` against one scalar `fma`, per thread-instruction (one lane's
/// share of a warp instruction counts one, as in every figure gpuzzle prints): each loop kernel
/// at `iters` and at twice that, the difference in time over the difference in
/// thread-instructions, so what the launch costs whatever it runs cancels out. The loops'
/// own instructions (one or three per eight) are in both.
fn per_instruction(module: &gpuzzle::ptx::ir::Module, opts: &EmuOptions, reps: usize) {
    let cfg = LaunchConfig {
        grid: [16, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    // Process CPU time: on a busy machine wall time also counts other processes.
    let timed = |kernel: &str, iters: i32| {
        let args = vec![
            buffer("out", ElemType::F32, &[0.0; 4 * 1024]),
            KernelArg::Scalar(Scalar::from_f64(ElemType::I32, iters as f64)),
        ];
        let mut best = Duration::MAX;
        let mut ran = 0;
        for _ in 0..reps.max(1) {
            let t = cpu_time();
            let r = emu::run(module, kernel, &cfg, args.clone(), opts).expect("launch");
            best = best.min(cpu_time().saturating_sub(t));
            assert!(r.diagnostics.is_empty(), "{kernel}: {:?}", r.diagnostics);
            ran = r.instructions;
        }
        (best.as_secs_f64(), ran)
    };
    let mut cost = Vec::new();
    // The scalar loop runs 20 times as many turns, for times well above the clock's grain.
    for (kernel, iters) in [("fma_loop", 2000), ("mma_loop", 100)] {
        let (t1, n1) = timed(kernel, iters);
        let (t2, n2) = timed(kernel, 2 * iters);
        let ns = (t2 - t1) / (n2 - n1) as f64 * 1e9;
        println!(
            "{kernel:10} loop of 8: {:7.2} ns CPU per thread-instruction ({} more ran in {:.1} ms more)",
            ns,
            n2 - n1,
            (t2 - t1) * 1e3
        );
        cost.push(ns);
    }
    println!(
        "one mma.sync costs {:.2} scalar fma (target: at most 2)",
        cost[1] / cost[0]
    );
}

/// CPU time used by the whole process so far.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}
