//! How a kernel computes, as counts a teacher can grade: which instruction families a thread
//! executed (shuffles, votes, barriers, tensor-core operations, async copies, `dp4a`, packed
//! half arithmetic, `f64` arithmetic), how much it moved through local memory, and in how
//! many global load and store instructions it moved what `global_reads`/`global_writes` count
//! in words (a `float4` is 4 words in 1 instruction, four floats 4 in 4). The
//! emulator counts them per thread beside its memory counters (`result::Counters`), so
//! budgets, block budgets and `require` limit them with the same keys and the same reports;
//! `teach` reads them to say which technique a run did without.
//!
//! The one rule for memory traffic, here and in every count: a read or a write costs one per
//! 4-byte word of each element it moves, rounded up per element ([`words`]). A `float4` load
//! is 4 reads, a `double` or a `float2` 2, a `char` or a `__half` 1, a 16-byte `cp.async` 4,
//! and an 8-byte integer load counts what the `float2` it stands in for counts, so width cannot
//! hide traffic. (A vector of 1- or 2-byte elements counts one per element; NVRTC loads a
//! `char4` or a `__half2` as one 32-bit word, which counts 1.) Atomics count one per element
//! (an atomic is one operation, however wide).
//!
//! Each count is made once per execution by the code that completes the instruction: a warp
//! collective when its lanes meet (`block/collectives.rs`, `block/tensor.rs`), a barrier when
//! it releases (`block/scheduler.rs`), an async copy when issued and its wait when it returns
//! (`async_copy/instrs.rs`), arithmetic when computed (`block/instrs/arith.rs` and the fast
//! paths), local memory and global load/store instructions in `access.rs` (and, for a
//! lockstep run's warp loads, when the run ends, `block/lockstep.rs`). A thread waiting at one
//! is not counted twice.

use serde::ser::SerializeMap;
use serde::Serialize;

/// Words (4 bytes, rounded up, at least one) an element of `bytes` bytes moves: what it counts
/// as reads or writes.
#[inline(always)]
pub fn words(bytes: u64) -> u64 {
    bytes.div_ceil(4).max(1)
}

/// One family of instructions (or of accesses) a puzzle can require, forbid or budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// `ld.local` words: arrays indexed at run time, spills.
    LocalReads,
    /// `st.local` words.
    LocalWrites,
    /// `shfl.sync` (`__shfl_*_sync`, cooperative groups' `shfl`), except one in which every
    /// lane reads its own value (`__shfl_sync(m, v, lane)`, a xor of 0): it moves nothing.
    Shuffles,
    /// `vote.sync` (`__ballot_sync`, `__any_sync`, `__all_sync`).
    Votes,
    /// `match.any/all.sync` (`__match_any_sync`, `__match_all_sync`).
    Matches,
    /// `redux.sync` (`__reduce_add_sync`, ...).
    WarpReduces,
    /// Block barriers that released the thread: `bar.sync`/`barrier.sync` (`__syncthreads()`,
    /// named barriers) and `bar.red` (`__syncthreads_count/_and/_or`).
    Barriers,
    /// Grid-wide syncs (`cg::this_grid().sync()`), counted on the thread that arrives for its
    /// block.
    GridSyncs,
    /// `mma.sync` tensor-core operations.
    Mma,
    /// `wmma.mma` (`nvcuda::wmma::mma_sync`).
    Wmma,
    /// `ldmatrix` loads of matrix fragments from shared memory.
    Ldmatrix,
    /// `cp.async` copies issued (`__pipeline_memcpy_async`, `cuda::memcpy_async`).
    CpAsync,
    /// Groups of async copies left in flight when a wait returned, summed over the waits,
    /// counting a group only when the thread read shared memory before its next wait and
    /// some thread of the block reads what it copied (a copy issued only to be in flight, into
    /// a slot nobody reads or drained by a second wait at once, overlaps nothing): more than 0
    /// only when copies overlap computation (double buffering). Credited to the issuing
    /// thread when the block ends.
    CpAsyncOverlap,
    /// `dp4a` (`__dp4a`): four byte products of two words. Not `dp2a` (`__dp2a_lo/hi`, two
    /// products of 16-bit halves and bytes), which does half the work per instruction.
    Dp4a,
    /// Packed half-precision arithmetic (`.f16x2`/`.bf16x2`: `__hadd2`, `__hfma2`, ...).
    F16x2,
    /// Double-precision arithmetic (`add/mul/fma/div/...f64`).
    F64,
    /// Global load instructions executed, whatever their width: one per `ld` whose address is
    /// global memory (`ld.global`, `ld.global.nc` of `__ldg` and `const __restrict__`, a
    /// generic `ld` that lands in global memory, `ld.const`), so a `float4` load is 1 where
    /// four scalar loads are 4. Not counted here: atomics (`global_atomics`), async copies
    /// (`cp_async`), `wmma::load_matrix_sync` (a warp's fragment load). Where `global_reads`
    /// says how much moved, this says in how many instructions.
    GlobalLoadInstrs,
    /// Global store instructions executed, whatever their width: one per `st` whose address is
    /// global memory (`st.global`, a generic `st` there); not atomics or `wmma` stores.
    GlobalStoreInstrs,
    /// Per barrier interval, each warp with a lane that stored to (or made an atomic on) the
    /// block's shared memory, counted once, on the lowest such lane, when the interval ends
    /// (a barrier releases or the block ends): how many warps a step of a shared-memory tree
    /// keeps busy. A tree whose active threads sit side by side (`if (t < stride)`) keeps one
    /// warp busy where one spread over the block (`if (t % (2 * stride) == 0)`) keeps every
    /// warp busy. The same on every schedule: the set of warps that wrote in an interval, and
    /// their lowest writing lanes, do not depend on the order the lanes ran in.
    SharedWriteWarps,
    /// `activemask` (`__activemask()`): which lanes are running. Not a vote: inside
    /// `if (keep)` it names the lanes that took the branch, which is what a ballot of `keep`
    /// would say, without the ballot.
    Activemask,
    /// Scalar single-precision arithmetic: `add/sub/mul/div/min/max/fma/mad/neg/abs/sqrt/rsqrt/
    /// rcp/ex2/lg2/sin/cos/tanh` on `.f32` (so `expf`, which compiles to several, counts each).
    /// Not moves, comparisons or conversions: `__half2float` is a `cvt`, `fmaxf`'s `max.f32`
    /// counts.
    F32,
    /// Scalar half-precision arithmetic: the same operations on one `.f16`/`.bf16` (`__hfma`,
    /// `__hadd`, `__hmul`, ...), not the packed `.f16x2` of `f16x2`.
    F16,
    /// Block barriers that ordered something in shared memory: a barrier counts when a
    /// thread, after it, reads or writes a shared word that another thread wrote in the
    /// interval just before it (or writes a word another thread read there), in this block.
    /// Counted once per barrier, on the thread whose access found it first (a block total,
    /// like `shared_write_warps`). A barrier with nothing before it to order (one of a loop of
    /// idle `__syncthreads()`) counts 0; one after the step of a sorting network whose writes
    /// the next step reads counts 1. The race checkers' records find it, so it is counted
    /// only with the checkers on.
    OrderingBarriers,
    /// Population counts (`popc`: `__popc`, `__popcll`): the bits of a ballot below a lane
    /// counted in one instruction, where a loop over the bits takes one step per bit. Not
    /// `__syncthreads_count` (a barrier, `barriers`).
    Popc,
}

impl Family {
    pub const N: usize = 24;

    pub const ALL: [Family; Family::N] = [
        Family::LocalReads,
        Family::LocalWrites,
        Family::Shuffles,
        Family::Votes,
        Family::Matches,
        Family::WarpReduces,
        Family::Barriers,
        Family::GridSyncs,
        Family::Mma,
        Family::Wmma,
        Family::Ldmatrix,
        Family::CpAsync,
        Family::CpAsyncOverlap,
        Family::Dp4a,
        Family::F16x2,
        Family::F64,
        Family::GlobalLoadInstrs,
        Family::GlobalStoreInstrs,
        Family::SharedWriteWarps,
        Family::Activemask,
        Family::F32,
        Family::F16,
        Family::OrderingBarriers,
        Family::Popc,
    ];

    /// The key a puzzle's TOML and the JSON output spell it with.
    pub const fn name(self) -> &'static str {
        match self {
            Family::LocalReads => "local_reads",
            Family::LocalWrites => "local_writes",
            Family::Shuffles => "shuffles",
            Family::Votes => "votes",
            Family::Matches => "matches",
            Family::WarpReduces => "warp_reduces",
            Family::Barriers => "barriers",
            Family::GridSyncs => "grid_syncs",
            Family::Mma => "mma",
            Family::Wmma => "wmma",
            Family::Ldmatrix => "ldmatrix",
            Family::CpAsync => "cp_async",
            Family::CpAsyncOverlap => "cp_async_overlap",
            Family::Dp4a => "dp4a",
            Family::F16x2 => "f16x2",
            Family::F64 => "f64",
            Family::GlobalLoadInstrs => "global_load_instrs",
            Family::GlobalStoreInstrs => "global_store_instrs",
            Family::SharedWriteWarps => "shared_write_warps",
            Family::Activemask => "activemask",
            Family::F32 => "f32",
            Family::F16 => "f16",
            Family::OrderingBarriers => "ordering_barriers",
            Family::Popc => "popc",
        }
    }

    /// How a learner reads it in a table.
    pub const fn label(self) -> &'static str {
        match self {
            Family::LocalReads => "local reads",
            Family::LocalWrites => "local writes",
            Family::Shuffles => "shuffles",
            Family::Votes => "votes",
            Family::Matches => "matches",
            Family::WarpReduces => "warp reduces",
            Family::Barriers => "barriers",
            Family::GridSyncs => "grid syncs",
            Family::Mma => "mma.sync",
            Family::Wmma => "wmma::mma_sync",
            Family::Ldmatrix => "ldmatrix",
            Family::CpAsync => "cp.async",
            Family::CpAsyncOverlap => "cp.async overlap",
            Family::Dp4a => "dp4a",
            Family::F16x2 => "half2 math",
            Family::F64 => "double math",
            Family::GlobalLoadInstrs => "global load instructions",
            Family::GlobalStoreInstrs => "global store instructions",
            Family::SharedWriteWarps => "warp-steps writing shared memory",
            Family::Activemask => "activemask",
            Family::F32 => "float math",
            Family::F16 => "scalar half math",
            Family::OrderingBarriers => "barriers that order shared memory",
            Family::Popc => "popcounts",
        }
    }

    /// What the CUDA C looks like, for a message that names the technique.
    pub fn spelled(self) -> &'static str {
        match self {
            Family::LocalReads | Family::LocalWrites => {
                "local memory (a per-thread array indexed at run time, or spilled registers)"
            }
            Family::Shuffles => "warp shuffles (`__shfl_down_sync`, `__shfl_xor_sync`, ...)",
            Family::Votes => "warp votes (`__ballot_sync`, `__any_sync`, `__all_sync`)",
            Family::Matches => "`__match_any_sync`",
            Family::WarpReduces => "`__reduce_add_sync`",
            Family::Barriers => "block barriers (`__syncthreads()` and its `_count/_and/_or`)",
            Family::GridSyncs => "grid syncs (`cg::this_grid().sync()`)",
            Family::Mma => "tensor-core `mma.sync`",
            Family::Wmma => "`wmma::mma_sync`",
            Family::Ldmatrix => "`ldmatrix`",
            Family::CpAsync => "async copies (`cp.async`, `__pipeline_memcpy_async`)",
            Family::CpAsyncOverlap => {
                "copies left in flight across a wait (`cp.async.wait_group` with a later group still loading: double buffering)"
            }
            Family::Dp4a => "`__dp4a`",
            Family::F16x2 => "packed `__half2` arithmetic (`__hadd2`, `__hfma2`, ...)",
            Family::F64 => "`double` arithmetic",
            Family::GlobalLoadInstrs => {
                "wide global loads (one `float4` load moves what four scalar loads move)"
            }
            Family::GlobalStoreInstrs => {
                "wide global stores (one `float4` store moves what four scalar stores move)"
            }
            Family::SharedWriteWarps => {
                "active threads side by side (`if (t < stride)`), so that whole warps go idle"
            }
            Family::Activemask => "`__activemask()`",
            Family::F32 => "scalar `float` arithmetic (`+`, `*`, `fmaf`, `expf`, ...)",
            Family::F16 => "scalar `__half` arithmetic (`__hfma`, `__hadd`, `__hmul`, ...)",
            Family::OrderingBarriers => {
                "`__syncthreads()` between a step's shared writes and the next step's reads of them"
            }
            Family::Popc => "`__popc` (a population count in one instruction)",
        }
    }

    /// Whether a kernel shows the technique by running FEWER of this family, not by running
    /// it at all: every kernel loads and stores, and a wide access is the lesson because it
    /// needs fewer instructions. A puzzle grades such a family with a `block_budget` (or a
    /// `budget`), where it grades the others with `require`.
    pub const fn shown_by_fewer(self) -> bool {
        matches!(
            self,
            Family::GlobalLoadInstrs | Family::GlobalStoreInstrs | Family::SharedWriteWarps
        )
    }

    pub fn from_name(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// Per family, how many a thread (or a block, or a launch) executed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Technique(pub [u64; Family::N]);

impl Technique {
    #[inline(always)]
    pub fn count(&mut self, f: Family, n: u64) {
        self.0[f as usize] += n;
    }

    pub fn get(&self, f: Family) -> u64 {
        self.0[f as usize]
    }
}

impl Serialize for Technique {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(Family::N))?;
        for f in Family::ALL {
            m.serialize_entry(f.name(), &self.get(f))?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_up_and_never_count_zero() {
        assert_eq!(words(1), 1);
        assert_eq!(words(2), 1);
        assert_eq!(words(4), 1);
        assert_eq!(words(8), 2);
        assert_eq!(words(12), 3);
        assert_eq!(words(16), 4);
        assert_eq!(words(0), 1);
    }

    #[test]
    fn every_family_has_one_name_and_the_order_of_the_enum() {
        for (i, f) in Family::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i);
            assert_eq!(Family::from_name(f.name()), Some(f));
            assert!(!f.label().is_empty() && !f.spelled().is_empty());
        }
        assert_eq!(Family::from_name("global_reads"), None);
    }
}
