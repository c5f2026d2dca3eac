//! The GPU backend (cudarc driver; under construction): the PTX instrumenter that makes a kernel
//! count its memory accesses, check its global accesses and meter its loops, the control block it
//! reports into, and a harness that runs instrumented PTX on the CPU emulator (how the
//! instrumenter is tested without a GPU).

pub mod ctl;
pub mod instrument;
pub mod outcome;
pub mod via_emu;
