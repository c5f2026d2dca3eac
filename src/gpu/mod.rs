//! The GPU side: finding the driver and devices (`probe`), the PTX instrumenter that makes a kernel
//! count its memory accesses, check its global and shared accesses and meter its loops
//! (`instrument`), the control block it reports into (`ctl`, decoded by `outcome`), and a harness
//! that runs instrumented PTX on the CPU emulator (`via_emu`), which is how the instrumenter is
//! tested without a GPU.

pub mod ctl;
pub mod instrument;
pub mod outcome;
pub mod probe;
pub mod via_emu;
