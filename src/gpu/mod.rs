//! The GPU side: finding the driver and devices (`probe`), the PTX instrumenter that makes a kernel
//! count its memory accesses, check its global and shared accesses and meter its loops
//! (`instrument`), the control block it reports into (`ctl`, decoded by `outcome`), one launch
//! prepared and read back whatever executes it (`plan`), the executors of instrumented PTX: the
//! GPU through the CUDA driver (`driver`, which loads a module as a CUBIN or as PTX as `loader`
//! decides) and the CPU emulator (`via_emu`, which is how all of
//! this is tested without a GPU), the worker process they run in (`worker`, `isolate`, `wire`),
//! backend selection (`backend`) and the figures of `gpuzzle bench` (`bench`).

pub mod backend;

/// The compile target of the GPU kernels run on in this process, when no `--arch` or puzzle
/// `arch` says otherwise: its own compute capability (the nearest gpuzzle knows below it);
/// `None` on the emulator. Known once a backend was selected (`backend::selected_arch`).
pub fn device_arch() -> Option<crate::compile::Arch> {
    backend::selected_arch()
}
pub mod bench;
pub mod ctl;
pub mod driver;
pub mod instrument;
pub mod isolate;
pub mod loader;
pub mod outcome;
pub mod plan;
pub mod probe;
pub mod session;
pub mod spread;
pub mod via_emu;
pub mod wire;
pub mod worker;
