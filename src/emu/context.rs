//! What the blocks of one launch share: the module, the launch shape and options, global memory,
//! the symbols' places, the decoded code, the step count and the checkers' launch-wide state.
//! `launch.rs` builds it and runs the blocks (`block/`), which read it. Also the launch-wide
//! state of thread-block clusters (`ClusterRun`, run by `cluster.rs`) and the reserved shared
//! memory's place, so that the blocks need not import the families that use them.

use super::access_kind::Kind;
use super::diag::Namer;
use super::fast::FastCode;
use super::memory::GlobalMem;
use super::race::{BlockSet, Seen, Watch};
use super::{EmuOptions, LaunchConfig};
use crate::ptx::ir::{Module, ReservedSmem};
use crate::ptx::SHARED_RED_ZONE;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Everything the blocks of one launch share (read-only except global memory and the step count).
pub struct Launch<'m> {
    pub module: &'m Module,
    /// Each memory instruction's source line, as the perf figures group accesses (empty
    /// unless `opts.perf`).
    pub(super) perf_lines: super::perf::LineSites,
    pub entry: u32,
    pub cfg: LaunchConfig,
    pub opts: EmuOptions,
    pub global: GlobalMem,
    pub global_sym_addr: Vec<u64>,
    pub shared_sym_off: Vec<u64>,
    pub shared_size: u64,
    /// Per shared byte: index+1 of the variable holding it (0 = red zone).
    pub(super) shared_map: Vec<u32>,
    /// (name, offset, element size, size) per entry of `shared_map`.
    pub(super) shared_vars: Vec<(String, u64, u64, u64)>,
    /// Shared bytes from this offset on (reserved shared memory) are not race- or
    /// uninitialised-read-checked; `u64::MAX` when the module reserves none.
    pub(super) unchecked_shared_from: u64,
    pub kernel_params: Vec<u8>,
    pub namer: Namer,
    /// The module's instructions decoded for the interpreter's fast path.
    pub(super) fast: FastCode,
    pub(super) steps: AtomicU64,
    pub(super) aborted: AtomicBool,
    /// Set when parallel blocks touched each other's global memory (see `GlobalMem::claim`).
    pub(super) conflict: AtomicBool,
    /// Blocks run on several cores at once.
    pub(super) parallel: bool,
    /// Per global word that received a release (an atomic after `__threadfence()`): the
    /// blocks whose accesses an atomic on it acquires (see `race.rs`).
    pub(super) published: Mutex<HashMap<usize, BlockSet>>,
    /// Some atomic released (`published` is not empty).
    pub(super) released: AtomicBool,
    /// Words watched in a rerun after a race between blocks, and what was seen of them.
    pub(super) watch: Vec<Watch>,
    pub(super) seen: Mutex<Vec<Seen>>,
    /// Keep each thread's accesses (`emu::run_traced`); off, nothing is logged unless `perf`.
    pub(super) trace: bool,
    /// With `trace`, the blocks whose accesses are kept (`None`: all).
    pub(super) trace_only: Option<Vec<[u32; 3]>>,
    /// Run converged warps in lockstep (`block/lockstep.rs`); off, one thread at a time.
    pub(super) lockstep: bool,
    /// The device heap `malloc` and `new` allocate from (`None` unless the module calls them).
    pub(super) heap: Option<super::heap::Heap>,
    /// The grid workspace of a cooperative launch (`cooperative.rs`).
    pub(super) grid_workspace: Option<super::cooperative::Workspace>,
    /// A launch in thread-block clusters (`cluster.rs`).
    pub(super) cluster: Option<ClusterRun>,
    /// The bytes of the poisoned outputs no thread has written yet (`shadow.rs`).
    pub(super) outputs: super::shadow::OutputShadow,
}

impl<'m> Launch<'m> {
    pub fn file_name(&self, idx: u32) -> Option<String> {
        self.module.file_name(idx).map(str::to_string)
    }

    pub fn opts_perf(&self) -> bool {
        self.opts.perf
    }

    pub fn aborted(&self) -> bool {
        self.aborted.load(Ordering::Relaxed)
    }

    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Relaxed)
    }

    /// Blocks running at once depend on each other's global memory: stop; the launch is rerun
    /// with blocks in order.
    pub fn order_conflict(&self) {
        self.conflict.store(true, Ordering::Relaxed);
        self.abort();
    }

    /// A block's index in launch order (x fastest, then y, then z).
    pub fn block_index(&self, b: [u32; 3]) -> u32 {
        let g = self.cfg.grid;
        b[0] + g[0] * (b[1] + g[1] * b[2])
    }

    /// Count executed instructions without checking the limit.
    pub fn count_steps(&self, n: u64) {
        self.steps.fetch_add(n, Ordering::Relaxed);
    }

    /// Instructions the launch may still run before its step limit (as counted so far).
    pub fn steps_left(&self) -> u64 {
        (self.opts.step_limit).saturating_sub(self.steps.load(Ordering::Relaxed))
    }

    /// True once the wall-clock deadline (if any) has passed.
    pub fn past_deadline(&self) -> bool {
        self.opts.deadline.is_some_and(|d| d.passed())
    }

    /// The deadline, when it is what stopped the launch: passed while the instructions run are
    /// still within the step limit (past the limit, the step limit is the reason, whatever the
    /// clock says).
    pub fn stopped_by_clock(&self) -> Option<super::Deadline> {
        let steps = self.steps.load(Ordering::Relaxed);
        self.opts
            .deadline
            .filter(|d| steps <= self.opts.step_limit && d.passed())
    }

    /// Instructions the launch has run so far.
    pub fn steps_run(&self) -> u64 {
        self.steps.load(Ordering::Relaxed)
    }

    /// Whether the launch has run past its step limit or deadline (with every finished
    /// block's instructions counted): checked between blocks, so that a grid of many small
    /// blocks, each far below the batch at which a block checks, is bounded as well.
    pub fn over_limits(&self) -> bool {
        self.steps.load(Ordering::Relaxed) > self.opts.step_limit || self.past_deadline()
    }

    /// Count executed instructions; true once the launch's step limit or deadline is passed.
    pub fn add_steps(&self, n: u64) -> bool {
        let total = self.steps.fetch_add(n, Ordering::Relaxed) + n;
        if total > self.opts.step_limit || self.past_deadline() {
            self.abort();
            true
        } else {
            false
        }
    }

    pub fn threads_per_block(&self) -> u32 {
        self.cfg.block.iter().product()
    }

    pub fn linear(&self, tid: [u32; 3]) -> u32 {
        let b = self.cfg.block;
        tid[0] + tid[1] * b[0] + tid[2] * b[0] * b[1]
    }

    pub fn tid_of(&self, linear: u32) -> [u32; 3] {
        let b = self.cfg.block;
        [
            linear % b[0],
            (linear / b[0]) % b[1],
            linear / (b[0] * b[1]),
        ]
    }

    /// The coordinates of block `i` in launch order.
    pub fn block_coords(&self, i: u32) -> [u32; 3] {
        block_idx(&self.cfg, i as usize)
    }

    /// `name[index]` of the global element at `addr`.
    pub fn element(&self, addr: u64) -> String {
        match self.global.nearest(addr) {
            Some(al) => format!(
                "{}[{}]",
                al.name,
                (addr as i128 - al.base as i128).div_euclid(al.elem_size as i128)
            ),
            None => format!("address {addr:#x}"),
        }
    }

    /// A rerun's watch: note an access to a watched word by a block it counts.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn watch_access(
        &self,
        addr: u64,
        size: u32,
        block: [u32; 3],
        block_index: u32,
        tid: [u32; 3],
        line: u32,
        kind: Kind,
    ) {
        let g = &self.global;
        let (first, last) = (g.word_index(addr), g.word_index(addr + size as u64 - 1));
        for (i, w) in self.watch.iter().enumerate() {
            let counts = match w.block {
                Some(b) => b == block_index,
                None => block_index < w.before,
            };
            if !(first..=last).contains(&w.word) || !counts || block_index >= w.before {
                continue;
            }
            if let Ok(mut seen) = self.seen.lock() {
                if kind == Kind::Write && !(w.first && seen[i].write.is_some()) {
                    seen[i].write = Some((block, tid, line));
                }
                if !(w.first && seen[i].any.is_some()) {
                    seen[i].any = Some((block, tid, line, kind));
                }
            }
        }
    }

    /// The shared variable holding `[off, off+len)` entirely, if any.
    pub fn shared_var(&self, off: u64, len: u64) -> Option<usize> {
        let end = off.checked_add(len)?;
        if end > self.shared_map.len() as u64 || len == 0 {
            return None;
        }
        let v = self.shared_map[off as usize];
        (v != 0 && self.shared_map[end as usize - 1] == v).then(|| v as usize - 1)
    }

    /// The shared variable an offset belongs to or overflows from: (name, base, element size).
    pub fn nearest_shared(&self, off: u64) -> Option<(String, u64, u64)> {
        let best = super::diag::nearest_shared_var(&self.shared_vars, off)?;
        Some((best.0.clone(), best.1, best.2))
    }
}

/// A launch in clusters (run by `cluster.rs`): the shape, the cluster barrier, and the resting
/// place of the shared memory of the blocks that are not running.
pub struct ClusterRun {
    pub dims: [u32; 3],
    pub(super) barrier: Mutex<Barrier>,
    /// Per block of the grid (launch order): its shared memory while it does not run.
    pub(super) smem: Vec<Mutex<Vec<u8>>>,
    /// The distributed-shared-memory race check's record for the cluster running now (its
    /// number): (block index, 4-byte word of its shared memory) → the accesses since its last
    /// write, by any block of the cluster. Clusters run one after another, so the record is
    /// dropped when the next one starts.
    pub(super) dsmem: Mutex<(u32, Words)>,
}

/// (block index, 4-byte word of its shared memory) → what the DSMEM check keeps of it.
pub(super) type Words = HashMap<(u32, u64), Word>;

/// One access to a block's shared memory, as the distributed-shared-memory check keeps it.
#[derive(Clone, Copy)]
pub(super) struct Touch {
    /// The accessing thread's block (launch order), coordinates and linear index in it.
    pub(super) block: u32,
    pub(super) blk: [u32; 3],
    pub(super) tid: [u32; 3],
    pub(super) line: u32,
    pub(super) kind: Kind,
    /// Cluster-barrier arrivals of the thread before the access: a thread of another block
    /// that has since completed that many waits is ordered after it.
    pub(super) arrivals: u32,
}

/// A word's last write, and the reads after it (one per block).
#[derive(Default)]
pub(super) struct Word {
    pub(super) write: Option<Touch>,
    pub(super) reads: Vec<Touch>,
}

/// The cluster barrier's arrivals and waits (`cluster::arrive`, `cluster::wait_over`).
#[derive(Default)]
pub(super) struct Barrier {
    /// (cluster, phase) → threads arrived.
    pub(super) arrived: HashMap<(u32, u32), u32>,
    /// (block index, thread) → (arrivals, completed waits).
    pub(super) thread: HashMap<(u32, u32), (u32, u32)>,
}

/// Bytes of shared memory the system reserves per block (CUDA's
/// `cudaDevAttrReservedSharedMemoryPerBlock` on sm_80 and later): cooperative groups keep a
/// multi-warp tile's scratch there.
pub const RESERVED_SMEM: u64 = 1024;

/// Where the reserved shared region starts when the module reads a `%reserved_smem_offset_*`
/// register: after the dynamic shared memory and a red zone, so an overflow of either is not
/// taken for the other.
pub(super) fn reserved_smem_base(module: &Module, cfg: &LaunchConfig) -> Option<u64> {
    module.uses_reserved_smem.then(|| {
        let dynamic_end = module.static_shared_size + cfg.dynamic_shared as u64;
        dynamic_end.div_ceil(16) * 16 + SHARED_RED_ZONE
    })
}

/// The value of a `%reserved_smem_offset_*` register in this launch.
pub(super) fn reserved_smem_value(module: &Module, cfg: &LaunchConfig, which: ReservedSmem) -> u64 {
    let base = reserved_smem_base(module, cfg).unwrap_or(0);
    match which {
        ReservedSmem::Begin | ReservedSmem::Offset(_) => base,
        ReservedSmem::End => base + RESERVED_SMEM,
        ReservedSmem::Cap => RESERVED_SMEM,
    }
}

/// Block `i` of the launch order (x fastest, then y, then z).
pub(super) fn block_idx(cfg: &LaunchConfig, i: usize) -> [u32; 3] {
    let g = cfg.grid;
    let i = i as u32;
    [i % g[0], (i / g[0]) % g[1], i / (g[0] * g[1])]
}
