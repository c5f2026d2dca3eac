//! Emulator speed: `cargo run --release --example bench_engine [-- --jobs N] [--quick]
//! [--only matmul|tiled|reduce|copy] [--modes one,all,one-off,all-off,perf,one-solo]` (the
//! last two are for profiling, and `one-solo` is `one` without warps in lockstep, one thread at
//! a time as before `block/lockstep.rs`).
//!
//! Runs (a) a naive 256x256 fp32 matmul in 16x16 blocks, (b) the same matmul through 16x16
//! shared-memory tiles, (c) a shared-memory tree reduction of 2^22 floats (256 threads per block,
//! one partial sum per block) and (d) a copy of 2^24 floats, on the emulator on one core and on
//! all cores, with the checkers on and off; checks each result against a native Rust
//! implementation of the same computation, and prints thread-instructions per second, the time
//! against native Rust on one core, and the memory high-water mark of the launch per byte of its
//! buffers (what the emulator allocates beyond the caller's copy of the arguments).
//!
//! Last (`--only race` alone; with `--modes racy`, the racing launch alone, for profiling), a racing launch against its race-free twin: the tiled matmul
//! without its first `__syncthreads()` (a race reported, every later access of the tiles racing
//! again) against the tiled matmul, one core, checkers on. A race must not make a launch much
//! slower than its twin (the target: at most 2 times), or a correct-but-racy kernel would run
//! into the clock.

use gpuzzle::compile::{CompileRequest, PtxCompiler};
use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The system allocator, counting the bytes live now and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const SOURCE: &str = r#"
extern "C" __global__ void matmul(float* c, const float* a, const float* b, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++) sum += a[row * n + k] * b[k * n + col];
        c[row * n + col] = sum;
    }
}

#define TILE 16
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

// `tiled` without its first barrier: threads read the tiles before the others wrote them (a
// race on nearly every shared read), for the cost of a racing launch against its twin.
extern "C" __global__ void tiled_racy(float* c, const float* a, const float* b, int n) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        ta[ty][tx] = a[row * n + t * TILE + tx];
        tb[ty][tx] = b[(t * TILE + ty) * n + col];
        for (int k = 0; k < TILE; k++) sum += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

extern "C" __global__ void copy(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

extern "C" __global__ void reduce(float* partial, const float* in, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
"#;

fn floats(name: &str, v: &[f32]) -> KernelArg {
    KernelArg::Buffer(Buffer {
        name: name.into(),
        ty: ElemType::F32,
        data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    })
}

fn read_floats(b: &Buffer) -> Vec<f32> {
    b.data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn int(v: i32) -> KernelArg {
    KernelArg::Scalar(Scalar {
        ty: ElemType::I32,
        bits: v as u32 as u64,
    })
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

/// CPU time used by this thread (or, with `process`, by every thread of the process). On a
/// busy machine wall time also counts other processes; CPU time does not.
fn cpu_time(process: bool) -> Duration {
    let clock = if process {
        libc::CLOCK_PROCESS_CPUTIME_ID
    } else {
        libc::CLOCK_THREAD_CPUTIME_ID
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Wall time and CPU time of one run.
#[derive(Clone, Copy)]
struct Took {
    wall: Duration,
    cpu: Duration,
}

/// Best of `reps` runs of `f`: by this thread's CPU time, or with `process` (runs on several
/// threads) by wall time, with the whole process's CPU time beside it.
fn best<T>(reps: usize, process: bool, mut f: impl FnMut() -> T) -> (Took, T) {
    let mut best: Option<(Took, T)> = None;
    for _ in 0..reps {
        let (start, cpu0) = (Instant::now(), cpu_time(process));
        let out = f();
        let took = Took {
            wall: start.elapsed(),
            cpu: cpu_time(process).saturating_sub(cpu0),
        };
        let key = |t: &Took| if process { t.wall } else { t.cpu };
        if best.as_ref().is_none_or(|(b, _)| key(&took) < key(b)) {
            best = Some((took, out));
        }
    }
    best.expect("at least one run")
}

fn native_matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut sum = 0.0f32;
            for k in 0..n {
                sum += a[row * n + k] * b[k * n + col];
            }
            c[row * n + col] = sum;
        }
    }
    c
}

fn native_reduce(x: &[f32]) -> Vec<f32> {
    x.chunks(256)
        .map(|c| {
            let mut s = [0.0f32; 256];
            s[..c.len()].copy_from_slice(c);
            let mut stride = 128;
            while stride > 0 {
                for t in 0..stride {
                    s[t] += s[t + stride];
                }
                stride /= 2;
            }
            s[0]
        })
        .collect()
}

struct Case {
    name: &'static str,
    kernel: &'static str,
    cfg: LaunchConfig,
    args: Vec<KernelArg>,
    native: Box<dyn Fn() -> Vec<f32>>,
    out: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(cores);
    let reps = if quick { 1 } else { 3 };
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let modes = args
        .iter()
        .position(|a| a == "--modes")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "one,one-off,all,all-off".into());

    let switch = std::env::var_os("GPUZZLE_LOCKSTEP");
    let compiler = PtxCompiler::new(None);
    let compiled = compiler
        .compile(&CompileRequest::new("bench.cu", SOURCE))
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    let module = gpuzzle::ptx::parse(&compiled.ptx).expect("PTX parses");

    let n = 256usize;
    let (a, b) = (values(n * n, 1), values(n * n, 2));
    let len = 1usize << 22;
    let x = values(len, 3);
    let copy_len = 1usize << 24;
    let y = values(copy_len, 4);
    let (a2, b2, x2, y2) = (a.clone(), b.clone(), x.clone(), y.clone());
    let (a3, b3) = (a.clone(), b.clone());
    let matmul_args = || {
        vec![
            floats("c", &vec![0.0; n * n]),
            floats("a", &a),
            floats("b", &b),
            int(n as i32),
        ]
    };
    let tiles = LaunchConfig {
        grid: [16, 16, 1],
        block: [16, 16, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    let cases = vec![
        Case {
            name: "matmul 256x256 (naive, 16x16 blocks)",
            kernel: "matmul",
            cfg: tiles,
            args: matmul_args(),
            native: Box::new(move || native_matmul(&a2, &b2, n)),
            out: 0,
        },
        Case {
            name: "tiled matmul 256x256 (16x16 shared tiles)",
            kernel: "tiled",
            cfg: tiles,
            args: matmul_args(),
            native: Box::new(move || native_matmul(&a3, &b3, n)),
            out: 0,
        },
        Case {
            name: "reduce 2^22 floats (256 per block)",
            kernel: "reduce",
            cfg: LaunchConfig {
                grid: [(len / 256) as u32, 1, 1],
                block: [256, 1, 1],
                dynamic_shared: 0,
                cooperative: false,
            },
            args: vec![
                floats("partial", &vec![0.0; len / 256]),
                floats("in", &x),
                int(len as i32),
            ],
            native: Box::new(move || native_reduce(&x2)),
            out: 0,
        },
        Case {
            name: "copy 2^24 floats (256 per block)",
            kernel: "copy",
            cfg: LaunchConfig {
                grid: [(copy_len / 256) as u32, 1, 1],
                block: [256, 1, 1],
                dynamic_shared: 0,
                cooperative: false,
            },
            args: vec![
                floats("out", &vec![0.0; copy_len]),
                floats("in", &y),
                int(copy_len as i32),
            ],
            native: Box::new(move || y2.clone()),
            out: 0,
        },
    ];

    println!("gpuzzle emulator benchmark ({cores} cores, {jobs} jobs for `all`, best of {reps})");
    println!("  1 core: this thread's CPU time (steady on a busy machine); all cores: wall time");
    println!("  x native: emulator time over native Rust on one core; mem/B: the launch's memory");
    println!("  high-water mark (allocations beyond the arguments) per byte of its buffers");
    for case in &cases {
        if only.as_deref().is_some_and(|o| !case.kernel.starts_with(o)) {
            continue;
        }
        // Native runs are short: repeat them for a steady figure.
        let (native, want) = best(reps.max(5), false, || (case.native)());
        let native_t = native.cpu;
        let buffer_bytes: usize = case
            .args
            .iter()
            .map(|a| match a {
                KernelArg::Buffer(b) => b.data.len(),
                _ => 0,
            })
            .sum();
        println!("\n{}", case.name);
        println!(
            "  native Rust (1 core)               {:>9.2} ms cpu",
            ms(native_t)
        );
        for (mode, label, j, checkers, perf) in [
            ("one", "1 core, checkers on", 1, true, false),
            ("one-off", "1 core, checkers off", 1, false, false),
            ("all", "all cores, checkers on", jobs, true, false),
            ("all-off", "all cores, checkers off", jobs, false, false),
            ("perf", "all cores, on, +perf", jobs, true, true),
            ("one-solo", "1 core, on, no lockstep", 1, true, false),
        ] {
            if !modes.split(',').any(|m| m == mode) {
                continue;
            }
            // The emulator reads this switch at each launch; no other thread runs now. Other
            // modes run as the caller's environment says.
            match (mode, &switch) {
                ("one-solo", _) => std::env::set_var("GPUZZLE_LOCKSTEP", "off"),
                (_, Some(v)) => std::env::set_var("GPUZZLE_LOCKSTEP", v),
                (_, None) => std::env::remove_var("GPUZZLE_LOCKSTEP"),
            }
            let opts = EmuOptions {
                jobs: j,
                checkers,
                perf,
                step_limit: u64::MAX,
                deadline: None,
                poisoned: Vec::new(),
            };
            let mut peak = 0usize;
            let (took, r) = best(reps, j > 1, || {
                let args = case.args.clone();
                let base = LIVE.load(Ordering::Relaxed);
                PEAK.store(base, Ordering::Relaxed);
                let r = emu::run(&module, case.kernel, &case.cfg, args, &opts)
                    .expect("the benchmark kernel runs");
                peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(base));
                r
            });
            assert!(
                r.diagnostics.is_empty(),
                "unexpected diagnostics: {:?}",
                r.diagnostics
            );
            let got = read_floats(&r.buffers[case.out]);
            let ok = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| (g - w).abs() <= 1e-4 * w.abs().max(1.0));
            assert!(ok, "{}: emulator result differs from native", case.name);
            // One core: CPU time of the thread that ran every block. All cores: wall time (the
            // process's CPU time beside it says how much of the machine it had).
            let t = if j > 1 { took.wall } else { took.cpu };
            let rate = r.instructions as f64 / t.as_secs_f64();
            let clock = if j > 1 {
                format!("wall, cpu {:.0} ms", ms(took.cpu))
            } else {
                "cpu".to_string()
            };
            println!(
                "  {label:<26} {j:>2}  {:>9.2} ms {clock:<16} {:>7.1}x native  {:>7.1} M thread-instr/s  {:>5.2} mem/B  ({} thread-instructions)",
                ms(t),
                t.as_secs_f64() / native_t.as_secs_f64(),
                rate / 1e6,
                peak as f64 / buffer_bytes as f64,
                r.instructions
            );
        }
    }
    if only.as_deref().is_none_or(|o| o == "race") {
        // The race-free twin runs with the caller's lockstep switch; the racing launch too.
        match &switch {
            Some(v) => std::env::set_var("GPUZZLE_LOCKSTEP", v),
            None => std::env::remove_var("GPUZZLE_LOCKSTEP"),
        }
        if modes == "racy" {
            // For profiling: the racing launch alone.
            let opts = EmuOptions {
                jobs: 1,
                checkers: true,
                perf: false,
                step_limit: u64::MAX,
                deadline: None,
                poisoned: Vec::new(),
            };
            let (took, r) = best(reps, false, || {
                emu::run(&module, "tiled_racy", &tiles, matmul_args(), &opts)
                    .expect("the benchmark kernel runs")
            });
            println!(
                "racing launch alone: {:.2} ms cpu ({} reports)",
                ms(took.cpu),
                r.diagnostics.len()
            );
        } else {
            race_against_twin(&module, &matmul_args(), &tiles, reps);
        }
    }
}

/// The racing tiled matmul against its race-free twin, one core, checkers on.
fn race_against_twin(
    module: &gpuzzle::ptx::ir::Module,
    args: &[KernelArg],
    cfg: &LaunchConfig,
    reps: usize,
) {
    let opts = EmuOptions {
        jobs: 1,
        checkers: true,
        perf: false,
        step_limit: u64::MAX,
        deadline: None,
        poisoned: Vec::new(),
    };
    let time = |kernel: &str| {
        best(reps, false, || {
            emu::run(module, kernel, cfg, args.to_vec(), &opts).expect("the benchmark kernel runs")
        })
    };
    let (twin, clean) = time("tiled");
    let (racy, raced) = time("tiled_racy");
    // The twin one thread at a time: the schedule a racing launch is run again in (so that
    // what it reports is what that schedule reports), the floor of its cost today.
    let switch = std::env::var_os("GPUZZLE_LOCKSTEP");
    std::env::set_var("GPUZZLE_LOCKSTEP", "off");
    let (alone, _) = time("tiled");
    match switch {
        Some(v) => std::env::set_var("GPUZZLE_LOCKSTEP", v),
        None => std::env::remove_var("GPUZZLE_LOCKSTEP"),
    }
    assert!(
        clean.diagnostics.is_empty(),
        "the twin races: {:?}",
        clean.diagnostics
    );
    assert!(
        !raced.diagnostics.is_empty(),
        "the racing kernel's race was not reported"
    );
    println!("\nracing launch: tiled matmul 256x256 without its first __syncthreads()");
    println!(
        "  race-free twin (1 core, checkers on) {:>9.2} ms cpu",
        ms(twin.cpu)
    );
    println!(
        "  racing launch  (1 core, checkers on) {:>9.2} ms cpu  {:>5.2}x its twin  ({} reports)",
        ms(racy.cpu),
        racy.cpu.as_secs_f64() / twin.cpu.as_secs_f64(),
        raced.diagnostics.len()
    );
    println!(
        "  twin one thread at a time            {:>9.2} ms cpu  {:>5.2}x its twin  (the racing launch's rerun schedule)",
        ms(alone.cpu),
        alone.cpu.as_secs_f64() / twin.cpu.as_secs_f64()
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
