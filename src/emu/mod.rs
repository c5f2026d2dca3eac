//! The CPU emulator of PTX: executes a parsed kernel over a grid with per-thread state,
//! checkers and counters.
//!
//! Layers, from the bottom: a module uses only modules of its own layer or lower ones, and no
//! two modules use each other, even through others (`tests/emu_layers.rs` checks both, from
//! the `use` declarations and `super::`/`crate::emu::` paths outside test code). A family's
//! state sits low and its instructions high, in a child module (`race/check.rs`,
//! `async_copy/instrs.rs`, `cluster/instrs.rs`, `cooperative/run.rs`), so that the blocks and
//! the launch can hold the state and the instructions can work on the blocks.
//! 1. leaves: `config`, `float`, `value`, `facts`, `technique`, `access_kind`, `result`,
//!    `perf`, `trace`, `diag`, `memory`, `local`, `heap`, `printf`, `alu`, `fast`, `symbols`,
//!    `tensor`,
//!    `tensor::layout`, `tensor::matrix`, `tensor::mma`, `tensor::mma_fused`, `block::order`
//! 2. checkers' and families' state: `shadow`, `race`, `async_copy`, `cooperative`
//! 3. what the blocks of a launch share: `context`
//! 4. the launch's clusters: `cluster`
//! 5. a block's threads and memory: `block`
//! 6. the memory path and the instruction families: `access`, `race::check`,
//!    `async_copy::instrs`, `cluster::instrs`, `tensor::wmma`
//! 7. running a block: `block::instrs`, `block::instrs::arith`, `block::instrs::memory`,
//!    `block::step`, `block::lockstep`, `block::collectives`, `block::tensor`,
//!    `block::named_barriers`, `block::scheduler`
//! 8. running a launch: `cooperative::run`, `launch`
//! 9. entry points: `spec`, `emu`
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
//! ends at its step limit (the rule: an instruction count, the same on every machine), or at
//! `EmuOptions::deadline` (wall clock, given by commands only), a runaway backstop far above
//! what the step limit costs, whose report says how long and how far the launch ran and claims
//! no endless loop (`Facts::StoppedByClock`).
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
mod access_kind;
mod alu;
mod async_copy;
mod block;
mod cluster;
mod config;
mod context;
pub mod cooperative;
mod diag;
pub mod facts;
mod fast;
mod float;
pub(crate) mod heap;
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
pub mod technique;
pub mod tensor;
pub mod trace;
pub mod value;

pub use config::{Deadline, EmuError, EmuOptions, LaunchConfig};
pub use diag::unsupported_instruction;
pub use launch::check_args;
/// How far apart the emulator places a launch's buffers (the GPU backend mirrors it).
pub use memory::STRIDE as BUFFER_STRIDE;

use result::RunResult;
use value::KernelArg;

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
