//! The CPU emulator of PTX: executes a parsed kernel over a grid with per-thread state,
//! checkers and counters.

pub mod result;
pub mod value;
