//! The general path's instructions by family (the fast path is `crate::emu::fast` and the
//! dispatch loop `step.rs`; control flow, barriers and collectives stay in `step.rs`, which
//! owns the program counter and the call stack).

mod arith;
mod memory;

pub(super) use arith::{arith, arith_family, arith_op};
pub(super) use memory::memory;
