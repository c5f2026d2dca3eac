//! One thread block: per-thread registers (a warp's in `WarpRegs` while it runs in lockstep) and
//! program counters (independent thread scheduling),
//! shared memory with its checkers, and the state the parts below work on:
//! `scheduler.rs` runs the threads and releases barriers, `lockstep.rs` runs a converged warp
//! one instruction at a time for all its lanes, `step.rs` runs one thread (decoding and
//! control flow), `instrs/` executes the instructions by family, `collectives.rs` completes
//! warp collectives (`tensor.rs` those of the tensor-core family), `order.rs` keeps which lanes of a warp those collectives ordered (for the
//! race checkers). The memory path (loads, stores, atomics and their checks) is `access.rs`
//! and `race/check.rs` beside this module. This file holds the state only, a layer below the
//! memory path and the families' instructions, which work on it; the parts above run it
//! (the layers are in `emu/mod.rs`).

mod collectives;
mod instrs;
mod lockstep;
#[path = "../async_copy/barriers.rs"]
mod named_barriers;
pub(super) mod order;
mod scheduler;
mod step;
mod tensor;

use super::context::Launch;
use super::diag::{Diags, Namer, Site};
use super::fast::Src;
use super::perf::Access;
use super::printf;
use super::race::{block_key, Acquired, CrossRace, Interval};
use super::result::{Counters, PerfStats};
use super::shadow::SharedShadow;
use crate::ptx::ir::*;

pub(super) use super::shadow::NONE;
pub(super) use order::{ordered_by, WarpOrder};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    Ready,
    /// Waiting at a block barrier (instruction index in the entry function's frame chain).
    Barrier,
    /// Waiting at a warp collective.
    Warp,
    Exited,
}

pub(super) struct Frame {
    func: u32,
    ret_pc: u32,
    regs: Vec<u64>,
    params: Vec<u8>,
    local_base: u64,
    ret_slot: Option<u32>,
}

pub(super) struct Thread {
    pub(super) tid: [u32; 3],
    pub(super) state: State,
    pub(super) func: u32,
    pub(super) pc: u32,
    pub(super) regs: Vec<u64>,
    pub(super) params: Vec<u8>,
    pub(super) local: super::local::LocalMem,
    pub(super) local_base: u64,
    pub(super) frames: Vec<Frame>,
    pub(super) counters: Counters,
    pub(super) out: printf::Output,
    /// Scheduling passes spent waiting at an `activemask`.
    pub(super) waited: u32,
    /// Executed a `__threadfence()`: its next global atomic releases (see `race.rs`).
    pub(super) fenced: bool,
    /// Reads of a clock or timer register so far: each read sees the clock a fixed step later
    /// (see [`CLOCK_TICK`]), so a timing loop ends, the same way whatever the schedule.
    pub(super) clock_reads: std::cell::Cell<u64>,
}

/// Cycles `%clock`/`%clock64` advance between two reads by one thread, and nanoseconds
/// `%globaltimer` does: the emulator keeps no time, so each thread's clock is a counter of
/// its own reads (deterministic, and the same in lockstep or a thread at a time).
pub(super) const CLOCK_TICK: u64 = 1000;

/// Instructions a thread runs before the scheduler moves on (so spin-waits make progress).
pub(super) const QUANTUM: u64 = 4096;

/// Scheduling passes an `activemask` waits for the other lanes of its warp to settle before it
/// completes with the lanes already there (lanes spinning on a flag never settle).
pub(super) const ACTIVEMASK_PATIENCE: u32 = 16;

/// A read of never-written shared memory, reported at the next barrier unless a race explains it.
pub(super) struct PendingUninit {
    pub(super) off: u64,
    pub(super) len: u32,
    pub(super) reader: u32,
    pub(super) rsync: u32,
    pub(super) tid: [u32; 3],
    pub(super) line: u32,
    pub(super) file: u32,
    pub(super) epoch: u32,
    /// The read was an atomic update (`Found::uninit_atomic`).
    pub(super) atomic: bool,
}

/// Everything a block produces.
pub struct BlockOutput {
    pub counters: Vec<Counters>,
    pub diags: Diags,
    pub stdout: printf::Output,
    pub instructions: u64,
    /// Of `instructions`, those run in lockstep (`lockstep.rs`).
    pub lockstep: u64,
    /// Coalescing and bank-conflict figures (zero unless `EmuOptions::perf`).
    pub perf: PerfStats,
    /// Set when the launch must stop (step limit, unsupported instruction).
    pub fatal: Option<String>,
    /// Each thread's accesses in order, when the launch is traced (`emu::run_traced`).
    pub trace: Option<Vec<Vec<Access>>>,
    /// Races with earlier blocks, reported once the launch is over.
    pub(super) cross: Vec<CrossRace>,
}

/// Memory and checker state of the block, separate from the threads so both can be borrowed.
pub(super) struct Mem<'l> {
    pub(super) launch: &'l Launch<'l>,
    pub(super) block: [u32; 3],
    /// The block's index in launch order (x fastest).
    pub(super) block_index: u32,
    pub(super) shared: Vec<u8>,
    pub(super) shadow: SharedShadow,
    pub(super) epoch: u32,
    /// Which block this is among those the `Block` has run (see `shadow::Record`).
    pub(super) gen: u32,
    /// What orders the lanes of each warp (`order.rs`).
    pub(super) order: WarpOrder,
    pub(super) diags: Diags,
    pub(super) pending_uninit: Vec<PendingUninit>,
    /// The global atomic being checked is a compare-and-swap or an exchange (`race.rs`).
    pub(super) atomic_cas: bool,
    /// Per global load/store instruction of the fast path: the allocation it last touched.
    pub(super) alloc_cache: Vec<u32>,
    pub(super) accesses: Option<Vec<Vec<Access>>>,
    pub(super) namer: Namer,
    /// The global race checker (`race.rs`): this block's and interval's part of a word
    /// state's key, the words touched in this interval, what the block acquired from other
    /// blocks, and races with other blocks to report after the launch.
    pub(super) gkey: u32,
    pub(super) interval: Interval,
    pub(super) acquired: Acquired,
    pub(super) cross: Vec<CrossRace>,
    /// Async copies in flight, mbarriers and named barriers (`emu/async_copy`).
    pub(super) asyncs: super::async_copy::AsyncState,
    /// Per warp, the lanes that wrote shared memory in this barrier interval (bit i: lane
    /// i), credited as `Family::SharedWriteWarps` when the interval ends.
    pub(super) write_warps: [u32; 32],
    /// The intervals (`epoch`) of this block whose ending barrier ordered a shared access
    /// after another thread's, each with the thread whose access found it: credited as
    /// `Family::OrderingBarriers` when the block ends. `first_epoch` is the block's first
    /// interval (the shadow's records outlive blocks).
    pub(super) ordering: Vec<(u32, u32)>,
    pub(super) first_epoch: u32,
    /// Where the shared-memory race reports `shared_found` met last are in `diags`
    /// (`diag::RaceMemo`): a racing launch meets them at nearly every access, and counts the
    /// thread there without a lookup. Cleared with the reports.
    pub(super) race_memo: super::diag::RaceMemo,
    /// Reads that change no shared record skip the record step (`Mem::fast_shared_settled_read`)
    /// and races met again are counted through `race_memo`; `GPUZZLE_RACE_SHORTCUT=off` turns
    /// both off, to compare (tests/engine_race_shortcut.rs).
    pub(super) settled_reads: bool,
}

/// One block's threads and memory. A worker makes one and `reset`s it for each block it runs,
/// so the per-thread and shared-memory allocations are made once per worker, not per block.
pub struct Block<'l> {
    threads: Vec<Thread>,
    mem: Mem<'l>,
    /// Some thread waits at an `activemask` (see `activemask_patience`).
    activemask_waiting: bool,
    /// Thread-instructions run in lockstep since the block started.
    lockstep_ran: u64,
    /// Per warp, its lanes' registers while lockstep holds them (`lockstep.rs`).
    warp_regs: Vec<WarpRegs>,
    /// The per-lane counts of the last lockstep run.
    lane_counts: LaneCounts,
    /// Per warp, the collective its first lane waits at (function, instruction) and the live
    /// lanes of its mask that were elsewhere then: one of them that finishes without joining
    /// never reached it (`collectives.rs`).
    warp_absent: Vec<Option<(u32, u32, u32)>>,
}

/// Per-lane counts of a lockstep run, kept in the block (`Block::lane_counts`) and cleared
/// only by a run that needs them: most runs (a reduction's between its many barriers) need
/// none, and clearing them cost a few percent of such a short run.
#[derive(Default)]
pub(super) struct LaneCounts {
    /// Reads of warp loads that skipped some lanes, per space (`GLOBAL`, `SHARED`), and fast
    /// `f32` instructions some lanes skipped (`FLOAT32`), per lane (see `Deferred` in
    /// `lockstep.rs`).
    deferred: [[u64; 32]; 3],
    /// Instructions each lane did not run while it waited (see `Park` in `lockstep.rs`).
    behind: [u64; 32],
}

enum Stop {
    Quantum,
    Wait,
    Exit,
    Fatal(String),
}

impl<'l> Block<'l> {
    pub fn new(launch: &'l Launch<'l>, block: [u32; 3]) -> Block<'l> {
        let dims = launch.cfg.block;
        let n = (dims[0] * dims[1] * dims[2]) as usize;
        let entry = &launch.module.functions[launch.entry as usize];
        let mut threads = Vec::with_capacity(n);
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    threads.push(Thread {
                        tid: [x, y, z],
                        state: State::Ready,
                        func: launch.entry,
                        pc: 0,
                        regs: vec![0; entry.num_regs as usize],
                        params: launch.kernel_params.clone(),
                        local: super::local::LocalMem::zeroed(entry.local_size as usize),
                        local_base: 0,
                        frames: Vec::new(),
                        counters: Counters::default(),
                        out: printf::Output::default(),
                        waited: 0,
                        fenced: false,
                        clock_reads: std::cell::Cell::new(0),
                    });
                }
            }
        }
        let shared_len = launch.shared_size as usize;
        let checkers = launch.opts.checkers;
        Block {
            threads,
            mem: Mem {
                launch,
                block,
                block_index: launch.block_index(block),
                shared: vec![0; shared_len],
                shadow: SharedShadow::new(shared_len, checkers),
                epoch: 0,
                gen: 0,
                order: WarpOrder::new(n),
                diags: Diags::default(),
                pending_uninit: Vec::new(),
                atomic_cas: false,
                alloc_cache: vec![u32::MAX; launch.fast.slots as usize],
                accesses: (launch.opts_perf() || launch.trace).then(|| vec![Vec::new(); n]),
                namer: launch.namer,
                gkey: block_key(launch.block_index(block), 0),
                interval: Interval::default(),
                acquired: Acquired::default(),
                cross: Vec::new(),
                asyncs: Default::default(),
                write_warps: [0; 32],
                ordering: Vec::new(),
                first_epoch: 0,
                race_memo: Default::default(),
                settled_reads: std::env::var_os("GPUZZLE_RACE_SHORTCUT").is_none_or(|v| v != "off"),
            },
            activemask_waiting: false,
            lockstep_ran: 0,
            warp_regs: (0..n.div_ceil(32)).map(|_| WarpRegs::default()).collect(),
            lane_counts: LaneCounts::default(),
            warp_absent: vec![None; n.div_ceil(32)],
        }
    }

    /// Make this the fresh state of block `block` (as `new` would, reusing the allocations).
    pub fn reset(&mut self, block: [u32; 3]) {
        let launch = self.mem.launch;
        let entry = &launch.module.functions[launch.entry as usize];
        for th in &mut self.threads {
            th.state = State::Ready;
            th.func = launch.entry;
            th.pc = 0;
            th.regs.clear();
            th.regs.resize(entry.num_regs as usize, 0);
            th.params.clear();
            th.params.extend_from_slice(&launch.kernel_params);
            th.local.clear();
            th.local.resize(entry.local_size as usize);
            th.local_base = 0;
            th.frames.clear();
            th.counters = Counters::default();
            th.out.clear();
            th.waited = 0;
            th.fenced = false;
        }
        self.activemask_waiting = false;
        self.lockstep_ran = 0;
        self.warp_absent.fill(None);
        // Every register starts over: what a warp held is dropped, not given back.
        for w in &mut self.warp_regs {
            w.lanes = 0;
        }
        let m = &mut self.mem;
        m.block = block;
        m.block_index = launch.block_index(block);
        m.shared.fill(0);
        m.gen = m.gen.wrapping_add(1);
        m.epoch = m.epoch.wrapping_add(1);
        if m.gen == u32::MAX || m.epoch > u32::MAX - (1 << 20) {
            // The numbers are about to repeat: start the shadow over.
            m.shadow.clear();
            m.gen = 0;
            m.epoch = 0;
        }
        m.order.reset();
        m.interval.clear();
        m.acquired.clear();
        m.cross.clear();
        m.gkey = block_key(m.block_index, m.epoch);
        m.diags = Diags::default();
        m.race_memo = Default::default();
        m.pending_uninit.clear();
        m.write_warps = [0; 32];
        m.ordering.clear();
        m.first_epoch = m.epoch;
        m.asyncs.reset();
        if let Some(acc) = m.accesses.as_mut() {
            acc.iter_mut().for_each(Vec::clear);
        }
    }

    fn line_of(&self, t: usize) -> (u32, u32) {
        let th = &self.threads[t];
        let f = &self.mem.launch.module.functions[th.func as usize];
        f.body
            .get(th.pc as usize)
            .map(|i| (i.line, i.file))
            .unwrap_or((0, 0))
    }

    fn site(&self, t: usize) -> Site {
        let (line, file) = self.line_of(t);
        Site {
            file: self.mem.launch.file_name(file),
            line,
            block: self.mem.block,
            thread: self.threads[t].tid,
        }
    }
}

/// A fast-path operand (register indices were checked when decoding).
#[inline(always)]
fn rd(regs: &[u64], s: Src) -> u64 {
    match s {
        Src::R(r) => regs[r as usize],
        Src::I(v) => v,
    }
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn write_param(params: &mut [u8], off: u32, size: usize, v: u64) {
    if let Some(dst) = params.get_mut(off as usize..off as usize + size) {
        dst.copy_from_slice(&v.to_le_bytes()[..size]);
    }
}

fn at_line(inst: &Inst, launch: &Launch) -> String {
    match (launch.file_name(inst.file), inst.line) {
        (Some(f), l) if l > 0 => format!(" (from {f}:{l})"),
        _ => String::new(),
    }
}

fn unsupported_call(name: &str, inst: &Inst, launch: &Launch) -> String {
    crate::emu::diag::unsupported_call(name, &at_line(inst, launch))
}

/// Up to four threads by name, then how many more (for the barrier messages).
pub(super) fn thread_list(ts: &[[u32; 3]], namer: Namer) -> String {
    let names: Vec<String> = ts.iter().take(4).map(|&t| namer.thread(t)).collect();
    let more = if ts.len() > 4 {
        format!(" and {} more", ts.len() - 4)
    } else {
        String::new()
    };
    format!("{}{more}", names.join(", "))
}

/// A thread's registers, wherever they are kept: its own `Thread::regs` (one thread at a
/// time) or its column of a warp's register file (`WarpRegs`, in lockstep). The general path
/// of `instrs/` works on either.
pub(super) trait Regs {
    fn get(&self, r: u32) -> u64;
    fn set(&mut self, r: u32, v: u64);
}

impl Regs for [u64] {
    #[inline(always)]
    fn get(&self, r: u32) -> u64 {
        self[r as usize]
    }
    #[inline(always)]
    fn set(&mut self, r: u32, v: u64) {
        self[r as usize] = v
    }
}

/// One lane's column of a warp's register file (register `r` of lane `lane` at
/// `r * 32 + lane`).
pub(super) struct Lane<'a> {
    pub(super) file: &'a mut [u64],
    pub(super) lane: usize,
}

impl Regs for Lane<'_> {
    #[inline(always)]
    fn get(&self, r: u32) -> u64 {
        self.file[r as usize * 32 + self.lane]
    }
    #[inline(always)]
    fn set(&mut self, r: u32, v: u64) {
        self.file[r as usize * 32 + self.lane] = v
    }
}

/// The registers of a warp's lanes while it runs in lockstep, register-major (`regs[reg][lane]`
/// flattened), so one instruction reads and writes each operand's 32 lanes side by side.
/// `lanes` (bit i: the warp's lane i) says whose registers it holds: 0 when it holds none and
/// each lane's `Thread::regs` is current. It keeps holding them while the whole warp waits at
/// a barrier it reached in lockstep, or after it spent its quantum there with every lane at one
/// instruction (the next lockstep run goes on from here without copying);
/// anything that runs a lane alone first hands them back (`Block::hand_back_regs`).
#[derive(Default)]
pub(super) struct WarpRegs {
    pub(super) file: Vec<u64>,
    pub(super) lanes: u32,
}

impl<'l> Mem<'l> {
    #[inline(always)]
    pub(super) fn val(&self, th: &Thread, o: &Operand) -> u64 {
        self.val_in(th, &th.regs[..], o)
    }

    /// An operand's value for thread `th`, whose registers are `regs`.
    #[inline(always)]
    pub(super) fn val_in<R: Regs + ?Sized>(&self, th: &Thread, regs: &R, o: &Operand) -> u64 {
        match *o {
            Operand::Reg(r) => regs.get(r),
            Operand::Imm(v) => v,
            Operand::Special(s) => self.special(th, s),
            Operand::GlobalSym(i) => self.launch.global_sym_addr[i as usize],
            Operand::SharedSym(i) => self.launch.shared_sym_off[i as usize],
            Operand::LocalSym(off) => th.local_base + off as u64,
            Operand::ParamSym(off) => off as u64,
        }
    }

    #[inline]
    fn special(&self, th: &Thread, s: Special) -> u64 {
        let cfg = &self.launch.cfg;
        let dims = cfg.block;
        let linear = th.tid[0] + th.tid[1] * dims[0] + th.tid[2] * dims[0] * dims[1];
        let lane = linear % 32;
        match s {
            Special::Tid(d) => th.tid[d as usize] as u64,
            Special::Ntid(d) => dims[d as usize] as u64,
            Special::Ctaid(d) => self.block[d as usize] as u64,
            Special::Nctaid(d) => cfg.grid[d as usize] as u64,
            Special::LaneId => lane as u64,
            Special::WarpId => (linear / 32) as u64,
            Special::NWarpId => (dims[0] * dims[1] * dims[2]).div_ceil(32) as u64,
            Special::WarpSize => 32,
            // The emulator keeps no time: a thread's clock counts its own reads.
            Special::Clock
            | Special::Clock64
            | Special::ClockHi
            | Special::GlobalTimer
            | Special::GlobalTimerLo
            | Special::GlobalTimerHi => {
                let n = th.clock_reads.get() + 1;
                th.clock_reads.set(n);
                let now = n.wrapping_mul(CLOCK_TICK);
                match s {
                    Special::Clock | Special::GlobalTimerLo => now & 0xffff_ffff,
                    Special::ClockHi | Special::GlobalTimerHi => now >> 32,
                    _ => now,
                }
            }
            // Clusters (`emu/cluster.rs`; without them each block is a cluster of one).
            Special::ClusterId(_)
            | Special::NClusterId(_)
            | Special::ClusterCtaId(_)
            | Special::ClusterNCtaId(_)
            | Special::ClusterCtaRank
            | Special::ClusterNCtaRank
            | Special::IsExplicitCluster => {
                crate::emu::cluster::special(self.launch, self.block, s).unwrap_or(0)
            }
            // One SM, one launch, no performance counters, and no CUDA graph.
            Special::NSmId | Special::GridId => 1,
            Special::EnvReg(i) => crate::emu::cooperative::envreg(cfg, i),
            Special::Pm(_) | Special::CurrentGraphExec => 0,
            Special::TotalSmemSize => {
                self.launch.module.static_shared_of(self.launch.entry) + cfg.dynamic_shared as u64
            }
            Special::AggrSmemSize => {
                self.launch.module.static_shared_of(self.launch.entry)
                    + cfg.dynamic_shared as u64
                    + super::context::RESERVED_SMEM
            }
            Special::LaneMaskEq => 1u64 << lane,
            Special::LaneMaskLt => (1u64 << lane) - 1,
            Special::LaneMaskLe => (1u64 << (lane + 1)) - 1,
            Special::LaneMaskGt => !((1u64 << (lane + 1)) - 1) & 0xffff_ffff,
            Special::LaneMaskGe => !((1u64 << lane) - 1) & 0xffff_ffff,
            Special::SmId => 0,
            Special::DynamicSmemSize => cfg.dynamic_shared as u64,
            Special::ReservedSmem(r) => {
                super::context::reserved_smem_value(self.launch.module, cfg, r)
            }
        }
    }

    pub(super) fn site(&self, th: &Thread, inst: &Inst) -> Site {
        Site {
            file: self.launch.file_name(inst.file),
            line: inst.line,
            block: self.block,
            thread: th.tid,
        }
    }
}
