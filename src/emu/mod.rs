//! The CPU emulator of PTX: executes a parsed kernel over a grid with per-thread state,
//! checkers and counters.

mod access;
mod alu;
mod block;
mod diag;
mod fast;
mod float;
mod launch;
mod memory;
mod perf;
mod printf;
mod race;
pub mod result;
pub mod spec;
pub mod value;

pub use launch::check_args;

use result::RunResult;
use value::KernelArg;

/// Grid and block shape of one launch, plus dynamic shared memory in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
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
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            step_limit: 100_000_000,
            checkers: true,
            jobs: 1,
            perf: false,
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
    memory::layout(lens).0
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
