//! gpuzzle: a command-line tutor and puzzle runner that teaches CUDA by doing.
//!
//! Data flow: `puzzle` (TOML + .cu) → `compile` (NVRTC → PTX) → `ptx` (IR) →
//! `emu` (CPU emulator with checkers) or `gpu` (driver backend) → `judge` → `report`.
//! See ARCHITECTURE.md.

pub mod cli;
pub mod compile;
pub mod draw;
pub mod emu;
pub mod gpu;
pub mod judge;
pub mod lint;
pub mod ptx;
pub mod puzzle;
pub mod report;
pub mod teach;
pub mod trace;
