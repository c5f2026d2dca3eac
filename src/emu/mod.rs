//! The CPU emulator of PTX: executes a parsed kernel over a grid with per-thread state,
//! checkers and counters.
//!
//! Memory: global memory is one array of atomic words (relaxed loads and stores compile to
//! plain moves) holding every buffer and module variable as its own allocation, each 128 GiB
//! from the next in the address space so that no index reaches from one into another
//! (`memory.rs`). Shared memory puts a 64-byte red zone after each static variable, then the
//! dynamic part; a module that reads `%reserved_smem_offset_*` (cooperative groups' tiles of
//! more than 32 threads) also gets the 1 KiB the system reserves per block, after a further red
//! zone, zeroed as hardware leaves it and left alone by the race and uninitialised-read
//! checkers (the library orders it with its own barrier).
//!
//! Bounded whatever the kernel does: device printf keeps 1 MiB per launch and 64 KiB per
//! thread, then counts dropped lines; the perf access log keeps 2^21 accesses per block; a
//! traced launch keeps `trace::TRACE_CAP` accesses and says when it stopped early. A launch
//! ends at its step limit, or at `EmuOptions::deadline` (wall clock, given by commands only).
//!
//! Speed, at the last full measurement (`cargo run --release --example bench_engine --modes
//! one`: one core, checkers on, on a busy 2-core machine whose timings vary up to 1.5x): naive
//! matmul 256^2 about 400 M thread-instructions/s, 10x native Rust; tiled matmul 250 M/s; tree
//! reduction of 2^22 295 M/s; copy of 2^24 128 M/s. `exec --format json` of the naive matmul
//! 256^2 took 0.14 s, 18x a C program doing the same. On such a machine, compare a change by
//! instruction counts (`valgrind --tool=cachegrind` of `exec` pinned to one core), which stay
//! exact: naive matmul 128^2 350 M, tiled 410 M, reduction of 2^18 790 M. Tried and not kept
//! (more instructions, or no gain): lane loops over `Cell`s in place of a local result column,
//! a direct destination for two-source operations, a sign test hoisted out of the warp load, a
//! queue of blocks taken from both ends. With the checkers off a launch runs one thread at a
//! time (see `block/lockstep.rs`), so it is slower than with them on.

mod access;
mod alu;
mod async_copy;
mod block;
mod cluster;
mod context;
pub mod cooperative;
mod diag;
pub mod facts;
mod fast;
mod float;
mod heap;
mod launch;
mod local;
mod memory;
mod perf;
mod printf;
mod race;
pub mod result;
mod shadow;
pub mod spec;
mod symbols;
pub mod tensor;
pub mod trace;
pub mod value;

pub use diag::unsupported_instruction;
pub use launch::check_args;
/// How far apart the emulator places a launch's buffers (the GPU backend mirrors it).
pub use memory::STRIDE as BUFFER_STRIDE;

use result::RunResult;
use value::KernelArg;

/// Grid and block shape of one launch, plus dynamic shared memory in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block is resident at once,
    /// so blocks may wait for each other (`this_grid().sync()`); see `emu/cooperative.rs`.
    pub cooperative: bool,
}

impl LaunchConfig {
    /// Threads in the whole grid.
    pub fn total_threads(&self) -> u64 {
        self.grid
            .iter()
            .chain(&self.block)
            .map(|&d| d as u64)
            .product()
    }
}

#[derive(Clone, Debug)]
pub struct EmuOptions {
    /// Thread-instructions allowed per launch before `step-limit` is reported.
    pub step_limit: u64,
    /// Race, uninitialised-read and barrier checkers (bounds checks are always on).
    pub checkers: bool,
    /// Worker threads for running blocks (1 = sequential).
    pub jobs: usize,
    /// Measure 32-byte sectors per warp access and shared bank conflicts (costs some speed).
    pub perf: bool,
    /// A wall-clock limit on top of the step limit, so a runaway kernel ends in bounded time
    /// however slow each step is (debug builds, memory-heavy loops). `None`: steps only, which
    /// keeps library results deterministic.
    pub deadline: Option<Deadline>,
}

/// When a launch must stop, and the limit it came from (for the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub at: std::time::Instant,
    pub limit: std::time::Duration,
}

impl Deadline {
    /// A deadline `limit` from now.
    pub fn after(limit: std::time::Duration) -> Deadline {
        Deadline {
            at: std::time::Instant::now() + limit,
            limit,
        }
    }

    /// The deadline a command gives a launch of `step_limit` steps: the time those steps take
    /// at a modest emulator speed for this build, and never under 3 s. At the default limits a
    /// runaway kernel thus ends within 5 s even where steps are slow (memory-heavy loops, perf
    /// logging), and a user who raises the step limit gets the time to go with it.
    /// `GPUZZLE_TIME_LIMIT` (seconds) overrides it, e.g. for tests of the limit itself.
    pub fn for_steps(step_limit: u64) -> Deadline {
        // Unoptimised builds run about ten times slower; their deadline scales with them so
        // that a kernel that fits the step limit is not cut short by the clock.
        const STEPS_PER_SECOND: u64 = if cfg!(debug_assertions) {
            4_000_000
        } else {
            40_000_000
        };
        const AT_LEAST: std::time::Duration = std::time::Duration::from_secs(3);
        let from_env = std::env::var("GPUZZLE_TIME_LIMIT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| std::time::Duration::from_secs_f64(s.min(1e9)));
        let scaled = std::time::Duration::from_secs(step_limit / STEPS_PER_SECOND);
        Deadline::after(from_env.unwrap_or(scaled.max(AT_LEAST)))
    }

    pub fn passed(&self) -> bool {
        std::time::Instant::now() >= self.at
    }
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            step_limit: 100_000_000,
            checkers: true,
            jobs: 1,
            perf: false,
            deadline: None,
        }
    }
}

/// Why a launch could not run at all (as opposed to a kernel bug, which is a diagnostic).
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    #[error("no kernel named `{name}` in the compiled module (kernels found: {found})")]
    NoSuchKernel { name: String, found: String },
    #[error("{0}")]
    Signature(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}")]
    Launch(String),
}

/// The global addresses the buffer arguments among `args` will have when launched, in argument
/// order (buffers are laid out first, before module variables, so the module does not matter).
/// For callers that must put device pointers into a buffer before the launch, such as the GPU
/// instrumenter's control block when it runs on the emulator (`gpu::via_emu`).
pub fn buffer_addresses(args: &[KernelArg]) -> Vec<u64> {
    let lens = args.iter().filter_map(|a| match a {
        KernelArg::Buffer(b) => Some(b.data.len() as u64),
        _ => None,
    });
    memory::layout(lens)
}

/// Run `kernel` from `module` with `args` in parameter order. Buffers come back in the result.
pub fn run(
    module: &crate::ptx::Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    opts: &EmuOptions,
) -> Result<RunResult, EmuError> {
    launch::run(module, kernel, cfg, args, opts)
}

/// `run`, also keeping every thread's memory accesses in order (blocks in sequence): for
/// pictures and text traces of small launches. Bounded by `trace::TRACE_CAP` accesses;
/// `AccessTrace::complete` says whether anything was left out.
pub fn run_traced(
    module: &crate::ptx::Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    opts: &EmuOptions,
) -> Result<(RunResult, trace::AccessTrace), EmuError> {
    let sequential = EmuOptions {
        jobs: 1,
        ..opts.clone()
    };
    let (r, t) = launch::run_maybe_traced(module, kernel, cfg, args, &sequential, true)?;
    Ok((r, t.unwrap_or_default()))
}

/// `run_with_symbols`, keeping the accesses of the threads of `blocks` only, in order (blocks
/// in sequence; the other blocks run as usual and their logs are dropped as each ends): what
/// one thread did, looked at after the fact, in a grid of any size. Each block's log is
/// bounded as `run_traced`'s is (`AccessTrace::complete`).
pub fn run_traced_blocks(
    module: &crate::ptx::Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[value::Buffer],
    opts: &EmuOptions,
    blocks: &[[u32; 3]],
) -> Result<(RunResult, trace::AccessTrace), EmuError> {
    let sequential = EmuOptions {
        jobs: 1,
        ..opts.clone()
    };
    launch::run_traced_blocks(module, kernel, cfg, args, symbols, &sequential, blocks)
}

/// `run`, with `__constant__`/`__device__` variables set first (by name, as
/// `cudaMemcpyToSymbol` would) and every `__device__` variable's final value returned beside
/// the result (as `cudaMemcpyFromSymbol` would read it).
pub fn run_with_symbols(
    module: &crate::ptx::Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[value::Buffer],
    opts: &EmuOptions,
) -> Result<(RunResult, Vec<value::Buffer>), EmuError> {
    launch::run_with_symbols(module, kernel, cfg, args, symbols, opts)
}

/// Whether `module` has a `__constant__` or `__device__` variable `name` (as `run_with_symbols`
/// matches names: the C++ name, qualified or not, or the mangled one).
pub fn declares_symbol(module: &crate::ptx::Module, name: &str) -> bool {
    symbols::declares(module, name)
}
