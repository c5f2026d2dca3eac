//! Access traces: every thread's global and shared accesses in program order, kept when a
//! launch runs through `emu::run_traced` (small launches: pictures and text traces). The
//! emulator only records raw addresses; mapping them to `buffer[index]` is the caller's job,
//! with the layout kept here.
//!
//! The trace is the perf access log, kept per thread and handed over instead of cleared. For
//! every other caller nothing changes: the log exists only with `perf`, `Access` stays 24
//! bytes and the fast paths test the same `Option` (measured when traces were added: no cost
//! within the noise on the matmul and the reduction).

pub use super::perf::Access;

/// Accesses a traced launch keeps in all (about 24 bytes each); blocks past it are left out
/// and `AccessTrace::complete` is false.
pub const TRACE_CAP: usize = 1 << 20;

/// One global allocation (a buffer argument, in argument order, then module variables) or
/// one shared variable (offsets within the block's shared memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceAlloc {
    pub name: String,
    pub base: u64,
    pub len: u64,
    pub elem_size: u64,
}

/// One block's accesses: `threads[linear thread index]`, each in the order it made them.
#[derive(Clone, Debug, Default)]
pub struct BlockTrace {
    pub block: [u32; 3],
    pub threads: Vec<Vec<Access>>,
}

#[derive(Clone, Debug, Default)]
pub struct AccessTrace {
    /// Blocks in launch order (x fastest), as many as fit in `TRACE_CAP`.
    pub blocks: Vec<BlockTrace>,
    pub globals: Vec<TraceAlloc>,
    pub shared: Vec<TraceAlloc>,
    /// False when blocks were left out or a thread's log hit its per-thread cap.
    pub complete: bool,
}

// The log entry the perf figures already used, grown by two flags into its padding: logging
// for a trace costs the perf log nothing more per access.
const _: () = assert!(std::mem::size_of::<Access>() == 24);
