//! What a checker saw, as plain data: the facts a diagnostic carries beside its message. The
//! checkers (the emulator's, and the GPU backend's fault decoding) fill them and say nothing
//! about fixes; `teach` turns them, with the learner's source, into the help a learner reads.
//! Both executors build the same facts, so the emulator and the GPU teach alike.

use crate::ptx::ir::AsyncApi;
use serde::{Deserialize, Serialize};

/// The memory space of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Space {
    Global,
    Shared,
    Local,
    Param,
}

/// What an access did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Access {
    Read,
    Write,
    Atomic,
}

/// An element of a named array: `name[index]` of an array of `len` elements (`index` may be
/// negative or past the end for an out-of-bounds access).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    pub name: String,
    pub index: i128,
    pub len: u64,
}

/// How two accesses of a race relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hazard {
    /// A read after another thread's write (or before it, on an earlier line).
    ReadAfterWrite,
    /// A write after another thread's read.
    WriteAfterRead,
    /// Two writes.
    WriteAfterWrite,
    /// One line reads and writes the element in both threads (a read-modify-write).
    Update,
    /// A plain access and an atomic update of the same element.
    AtomicAndPlain,
}

/// The facts of one diagnostic, by kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Facts {
    /// Nothing more than the message says (an assert, a trap, an unsupported instruction).
    #[default]
    None,
    /// An access outside every array, or misaligned.
    Bounds {
        space: Space,
        access: Access,
        /// The nearest array's element, when the access lies near one.
        element: Option<Element>,
        /// The address (global) or offset (shared) accessed.
        address: u64,
        /// Bytes of the access, and for a misaligned one the alignment it needed.
        bytes: u32,
        misaligned_to: Option<u32>,
    },
    /// Two threads touched one element with nothing ordering them.
    Race {
        space: Space,
        hazard: Hazard,
        element: Option<Element>,
        /// The other thread and its block (the block is the diagnostic's own within a block).
        other_thread: Option<[u32; 3]>,
        other_block: Option<[u32; 3]>,
        /// Whether the two threads are in different blocks.
        across_blocks: bool,
        /// Whether they are lanes of one warp.
        same_warp: bool,
        /// Threads per block.
        block_threads: u32,
        /// What the diagnostic's own thread and the other thread did.
        mine: Access,
        theirs: Access,
    },
    /// Shared memory read before any thread wrote it.
    Uninitialized { element: Option<Element> },
    /// An output that starts as garbage (poison) read where no thread had written it.
    UnwrittenOutput { element: Option<Element> },
    /// A `__syncthreads()` part of the block never reached.
    BarrierDivergence {
        arrived: u32,
        total: u32,
        /// The line of the other barrier some threads wait at, if that is why.
        other_barrier: Option<u32>,
        /// Threads that exited without reaching it.
        exited: Vec<[u32; 3]>,
        /// Threads that wait elsewhere.
        elsewhere: Vec<[u32; 3]>,
    },
    /// The instruction or time limit stopped a thread.
    StepLimit {
        /// The line of the loop latch the thread was in, if any.
        in_loop: bool,
    },
    /// A grid-wide sync of a cooperative launch (or, with `cluster`, a thread-block cluster's
    /// barrier) that can never complete: `waiting` blocks wait at it, and `returned` blocks
    /// finished without reaching it (`emu/cooperative.rs`, `emu/cluster.rs`).
    GridSyncNeverCompletes {
        waiting: u64,
        returned: u64,
        cluster: bool,
    },
    /// The launch as a whole ran past its step limit or time limit between two blocks (a grid
    /// of many blocks, each short): `blocks_run` of `blocks` ran, and the rest never started.
    LaunchStopped {
        blocks_run: u64,
        blocks: u64,
        /// The wall-clock limit stopped it (otherwise the step limit).
        by_time: bool,
    },
    /// The wall clock stopped the launch before its step limit: the runaway backstop
    /// (`Deadline::for_steps`), set far above what the step limit costs, so this says how long
    /// the launch ran on this machine and how far it got, never that a loop does not end
    /// (that needs the step limit's evidence). `in_loop`: the thread named was inside a loop.
    StoppedByClock {
        millis: u64,
        steps: u64,
        step_limit: u64,
        in_loop: bool,
    },
    /// The GPU (or the worker) was still running the kernel at the time limit: no thread or
    /// line is known.
    TimedOut { on_gpu: bool },
    /// A warp-synchronous operation whose mask and lanes disagree.
    WarpSync(WarpSyncFacts),
    /// A WMMA call (`mma.h`) that broke one of its rules (`emu/tensor/wmma.rs`).
    Wmma(WmmaFacts),
    /// An access to the device heap outside every live block, or a refused `free`
    /// (`emu/heap.rs`).
    Heap(HeapFacts),
    /// An async copy read or overwritten while in flight, an mbarrier misused, a named
    /// barrier whose count never arrived (`emu/async_copy`).
    AsyncCopy(AsyncFacts),
}

/// What went wrong with a block of the device heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeapProblem {
    /// An access at or past the end of the block (in its red zone or beyond).
    PastEnd,
    /// An access inside a block after it was freed.
    AfterFree,
    /// An access in the heap before any block was allocated there.
    NoBlock,
    /// An access in the heap outside every live block, past a block's end or after its
    /// `free`, which one not known (the GPU backend, which reads the heap table afterwards).
    NoLiveBlock,
    /// `free` of a block already freed.
    DoubleFree,
    /// `free` of an address `malloc` never returned (inside a block, or in none).
    BadFree,
}

/// A heap access or `free` that went wrong, and the block it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapFacts {
    pub problem: HeapProblem,
    /// The address's distance from the block's start (the access's, or the freed pointer's).
    pub offset: i128,
    /// Bytes of the access (0 for a free).
    pub bytes: u32,
    /// Bytes the program asked `malloc` for (0: no block).
    pub block_size: u64,
    /// The line of the block's `malloc` (0: unknown or no block).
    pub malloc_line: u32,
    /// The line of its `free`, once freed.
    pub freed_line: Option<u32>,
}

/// How a WMMA call went wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WmmaFacts {
    /// A lane of the warp did not make the call with the others (`lane` of a warp of `threads`
    /// threads: below 32 when the block's size is not a multiple of 32).
    LaneMissing {
        lane: u32,
        lane_state: LaneState,
        threads: u32,
    },
    /// A leading dimension (`ldm`) of `elements` elements of `elem_bytes` bytes: not a
    /// multiple of 16 bytes.
    LeadingDimension { elements: u64, elem_bytes: u32 },
    /// A tile pointer not aligned to 32 bytes.
    Pointer { address: u64 },
    /// `mma_sync` with an accumulator that some path leaves unset.
    UnsetAccumulator,
}

/// How a warp-synchronous operation went wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarpSyncFacts {
    /// The calling lane is not in its own mask.
    MaskWithoutSelf { mask: u32 },
    /// A lane named in the mask never arrived: it waits at a barrier, at another warp
    /// operation, or has exited.
    LaneMissing {
        mask: u32,
        lane: u32,
        lane_state: LaneState,
        /// Lanes of the mask that did arrive.
        arrived: u32,
    },
    /// A shuffle read from a lane not taking part.
    ShuffleFromAbsent {
        src_lane: u32,
        exited: bool,
        exists: bool,
    },
}

/// Where a missing lane is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneState {
    AtBarrier,
    AtOtherWarpOp,
    Exited,
    Elsewhere,
}

/// What went wrong with an async copy or an mbarrier, as the checker saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AsyncHazard {
    /// The copy's destination was read before a wait covered the copy.
    ReadBeforeWait,
    /// Another thread read the destination after the issuing thread's wait, but with no
    /// barrier between that wait and the read.
    ReadBeforeBarrier,
    /// The destination was written while the copy was in flight.
    DestinationOverwritten,
    /// The source was written while the copy was in flight.
    SourceOverwritten,
    /// An mbarrier used before `mbarrier.init` (or after `inval`).
    BarrierNotInitialised,
    /// A named barrier whose thread count never arrived.
    NamedBarrierStuck,
    /// A named barrier's thread count that is not a multiple of the warp size (32).
    NamedBarrierCount,
    /// An mbarrier phase that never completes (fewer arrivals than it was initialised for).
    MbarrierStuck,
}

/// The facts of an `async-copy` diagnostic (and of a stuck named barrier).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AsyncFacts {
    pub hazard: AsyncHazard,
    /// The interface whose copy it was (`Ptx` for a named barrier or an mbarrier alone).
    pub api: AsyncApi,
    /// The element accessed: the copy's shared destination or its global source.
    pub element: Option<Element>,
    /// The thread that issued the copy, and the line.
    pub issuer: [u32; 3],
    pub issue_line: u32,
    /// The thread at fault issued the copy itself.
    pub own_copy: bool,
    /// The copy was closed into a commit group.
    pub committed: bool,
    /// Groups its thread committed after the copy's: `wait_group n` covers it for `n` up to this.
    pub newer_groups: u32,
    /// The copy completes on an mbarrier (`cuda::barrier`, a block-scope `cuda::pipeline`).
    pub via_barrier: bool,
    /// A named barrier's number and thread count (`NamedBarrierStuck`, `NamedBarrierCount`),
    /// and how many arrived (32 per warp).
    pub barrier_id: u32,
    pub count: u32,
    pub arrived: u32,
}

impl AsyncFacts {
    pub(crate) fn new(hazard: AsyncHazard) -> AsyncFacts {
        AsyncFacts {
            hazard,
            api: AsyncApi::Ptx,
            element: None,
            issuer: [0; 3],
            issue_line: 0,
            own_copy: false,
            committed: false,
            newer_groups: 0,
            via_barrier: false,
            barrier_id: 0,
            count: 0,
            arrived: 0,
        }
    }
}
