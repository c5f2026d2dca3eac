//! One thread block: per-thread registers and program counters (independent thread scheduling),
//! a deterministic scheduler that runs each thread until it waits (barrier, warp collective),
//! exits or uses up its time slice, shared memory with its checkers, and barrier resolution.

use super::alu;
use super::diag::{Diags, Namer, Site};
use super::fast::{self, Fast, FastInst, Src, NO_GUARD};
use super::launch::Launch;
use super::memory::{classify, Window, LOCAL_WINDOW, SHARED_WINDOW};
use super::perf;
use super::printf;
use super::race::{block_key, Acquired, CrossRace, Interval};
use super::result::{Counters, DiagKind, PerfStats, Severity};
use super::shadow::SharedShadow;
use crate::ptx::ir::*;

/// Instructions a thread runs before the scheduler moves on (so spin-waits make progress).
const QUANTUM: u64 = 4096;
pub(super) use super::shadow::NONE;

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
    pub(super) local: Vec<u8>,
    pub(super) local_base: u64,
    pub(super) frames: Vec<Frame>,
    pub(super) counters: Counters,
    pub(super) out: printf::Output,
    /// Scheduling passes spent waiting at an `activemask`.
    pub(super) waited: u32,
    /// Executed a `__threadfence()`: its next global atomic releases (see `race.rs`).
    pub(super) fenced: bool,
}

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
}

/// A per-access record for the warp-level coalescing and bank-conflict figures.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub pc: u32,
    pub func: u32,
    pub addr: u64,
    pub size: u32,
    pub shared: bool,
}

/// Everything a block produces.
pub struct BlockOutput {
    pub counters: Vec<Counters>,
    pub diags: Diags,
    pub stdout: printf::Output,
    pub instructions: u64,
    /// Coalescing and bank-conflict figures (zero unless `EmuOptions::perf`).
    pub perf: PerfStats,
    /// Set when the launch must stop (step limit, unsupported instruction).
    pub fatal: Option<String>,
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
    pub(super) warp_sync: Vec<u32>,
    pub(super) diags: Diags,
    pub(super) pending_uninit: Vec<PendingUninit>,
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
}

/// One block's threads and memory. A worker makes one and `reset`s it for each block it runs,
/// so the per-thread and shared-memory allocations are made once per worker, not per block.
pub struct Block<'l> {
    threads: Vec<Thread>,
    mem: Mem<'l>,
    /// Some thread waits at an `activemask` (see `activemask_patience`).
    activemask_waiting: bool,
}

/// Scheduling passes an `activemask` waits for the other lanes of its warp to settle before it
/// completes with the lanes already there (lanes spinning on a flag never settle).
const ACTIVEMASK_PATIENCE: u32 = 16;

/// Executed instructions are added to the launch-wide count in batches of at most this many
/// (one shared atomic per thread switch would make cores fight over its cache line).
const STEP_BATCH: u64 = 1 << 16;

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
                        local: vec![0; entry.local_size as usize],
                        local_base: 0,
                        frames: Vec::new(),
                        counters: Counters::default(),
                        out: printf::Output::default(),
                        waited: 0,
                        fenced: false,
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
                warp_sync: vec![0; n.div_ceil(32)],
                diags: Diags::default(),
                pending_uninit: Vec::new(),
                alloc_cache: vec![u32::MAX; launch.fast.slots as usize],
                accesses: launch.opts_perf().then(|| vec![Vec::new(); n]),
                namer: launch.namer,
                gkey: block_key(launch.block_index(block), 0),
                interval: Interval::default(),
                acquired: Acquired::default(),
                cross: Vec::new(),
            },
            activemask_waiting: false,
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
            th.local.resize(entry.local_size as usize, 0);
            th.local_base = 0;
            th.frames.clear();
            th.counters = Counters::default();
            th.out.clear();
            th.waited = 0;
            th.fenced = false;
        }
        self.activemask_waiting = false;
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
        m.warp_sync.fill(0);
        m.interval.clear();
        m.acquired.clear();
        m.cross.clear();
        m.gkey = block_key(m.block_index, m.epoch);
        m.diags = Diags::default();
        m.pending_uninit.clear();
        if let Some(acc) = m.accesses.as_mut() {
            acc.iter_mut().for_each(Vec::clear);
        }
    }

    /// Run the block to completion (or until the launch must stop).
    pub fn run(&mut self) -> BlockOutput {
        let mut instructions = 0u64;
        let mut unreported = 0u64;
        let batch = (self.mem.launch.opts.step_limit / 16).clamp(1, STEP_BATCH);
        let mut fatal = None;
        'outer: loop {
            let mut progressed = false;
            for t in 0..self.threads.len() {
                if self.threads[t].state != State::Ready {
                    continue;
                }
                if self.mem.launch.aborted() {
                    break 'outer;
                }
                progressed = true;
                let (stop, n) = self.step(t, QUANTUM);
                instructions += n;
                unreported += n;
                if unreported >= batch {
                    let over = self.mem.launch.add_steps(unreported);
                    unreported = 0;
                    if over {
                        self.report_step_limit(t);
                        fatal = Some("step limit".to_string());
                        break 'outer;
                    }
                }
                match stop {
                    Stop::Fatal(msg) => {
                        self.mem.launch.abort();
                        fatal = Some(msg);
                        break 'outer;
                    }
                    Stop::Wait => {
                        if self.threads[t].state == State::Warp
                            && !self.try_warp_collective(t, false)
                            && self.is_activemask_at(t)
                        {
                            self.activemask_waiting = true;
                        }
                    }
                    Stop::Exit | Stop::Quantum => {}
                }
            }
            if progressed {
                if self.activemask_waiting {
                    self.activemask_patience();
                }
                continue;
            }
            // Nobody can run: release a barrier, force stuck warp collectives, or finish.
            let waiting_warp: Vec<usize> = (0..self.threads.len())
                .filter(|&t| self.threads[t].state == State::Warp)
                .collect();
            if !waiting_warp.is_empty() {
                // First what completes once the warp has settled (`__activemask`), then force
                // collectives whose lanes will never all arrive.
                let mut done = false;
                for &t in &waiting_warp {
                    if self.threads[t].state == State::Warp {
                        done |= self.try_warp_collective(t, false);
                    }
                }
                if !done {
                    // Force one collective, then let the lanes it released run: forcing them
                    // all at once would report lanes that were about to arrive.
                    self.try_warp_collective(waiting_warp[0], true);
                }
                continue;
            }
            if self.threads.iter().any(|t| t.state == State::Barrier) {
                self.release_barrier();
                continue;
            }
            break;
        }
        // The block is done: count the rest without stopping anyone (a later block that
        // crosses the limit reports it).
        self.mem.launch.count_steps(unreported);
        if fatal.is_none() {
            self.mem.resolve_uninit();
        }
        let mut stdout = printf::Output::default();
        for t in &self.threads {
            stdout.append(&t.out, printf::LAUNCH_OUTPUT_CAP);
        }
        BlockOutput {
            counters: self.threads.iter().map(|t| t.counters).collect(),
            diags: std::mem::take(&mut self.mem.diags),
            stdout,
            instructions,
            perf: match self.mem.accesses.as_mut() {
                Some(acc) => {
                    let p = perf::perf_of(acc);
                    // Keep the buffers (and their capacity) for the next block.
                    acc.iter_mut().for_each(Vec::clear);
                    p
                }
                None => PerfStats::default(),
            },
            fatal,
            cross: std::mem::take(&mut self.mem.cross),
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

    fn report_step_limit(&mut self, t: usize) {
        let mut site = self.site(t);
        let th = &self.threads[t];
        let body = &self.mem.launch.module.functions[th.func as usize].body;
        let looping = loop_latch(body, th.pc).filter(|&l| l > 0);
        if let Some(l) = looping {
            site.line = l;
        }
        let limit = self.mem.launch.opts.step_limit;
        let who = self.mem.namer.who(site.thread, site.block);
        let line = site.line;
        let what = if looping.is_some() {
            format!("{who} was still in the loop on line {line}")
        } else {
            format!("{who} was still running line {line}")
        };
        let ran = match self.mem.launch.opts.deadline.filter(|d| d.passed()) {
            Some(d) => format!("the kernel ran longer than {} s", d.limit.as_secs_f64()),
            None => format!("the kernel ran more than {limit} instructions"),
        };
        self.mem.diags.report(DiagKind::StepLimit, Severity::Error, site, None, || {
            (
                format!("{ran}; {what}"),
                "a loop that never ends? Check that the loop's condition eventually becomes false and that its counter changes on every path".into(),
            )
        });
    }

    /// Release the threads waiting at barriers, reporting divergence first.
    fn release_barrier(&mut self) {
        if self.release_converged_barrier() {
            return;
        }
        let n = self.threads.len();
        let waiting: Vec<usize> = (0..n)
            .filter(|&t| self.threads[t].state == State::Barrier)
            .collect();
        let exited: Vec<usize> = (0..n)
            .filter(|&t| self.threads[t].state == State::Exited)
            .collect();
        let first = waiting[0];
        let pos = |b: &Block, t: usize| (b.threads[t].func, b.threads[t].pc);
        let p0 = pos(self, first);
        let elsewhere: Vec<usize> = waiting
            .iter()
            .copied()
            .filter(|&t| pos(self, t) != p0)
            .collect();
        let checking = self.mem.launch.opts.checkers;
        if checking && (!exited.is_empty() || !elsewhere.is_empty()) {
            let site = self.site(first);
            let line = site.line;
            let at_first = waiting.len() - elsewhere.len();
            let total = n;
            let namer = self.mem.namer;
            let detail = if !elsewhere.is_empty() {
                let other_line = self.line_of(elsewhere[0]).0;
                format!(
                    "{} wait at a different __syncthreads() (line {other_line})",
                    thread_list(
                        &elsewhere
                            .iter()
                            .map(|&t| self.threads[t].tid)
                            .collect::<Vec<_>>(),
                        namer
                    )
                )
            } else {
                format!(
                    "{} finished (returned) without reaching it",
                    thread_list(
                        &exited
                            .iter()
                            .map(|&t| self.threads[t].tid)
                            .collect::<Vec<_>>(),
                        namer
                    )
                )
            };
            let other = if !elsewhere.is_empty() {
                Some(self.line_of(elsewhere[0]).0)
            } else {
                None
            };
            let block = namer.block(self.mem.block);
            self.mem.diags.report(DiagKind::BarrierDivergence, Severity::Error, site, other, || {
                (
                    format!("only {at_first} of {total} threads of {block} reached the __syncthreads() on line {line}; {detail}"),
                    "every thread of the block must reach every __syncthreads(): move it out of the if (or before the early return) so all threads execute it".into(),
                )
            });
        }
        // bar.red: reduce the predicate over every waiting thread.
        let mut popc = 0u64;
        let mut all = true;
        let mut any = false;
        for &t in &waiting {
            if let Some(v) = self.bar_red_value(t) {
                popc += v as u64;
                all &= v;
                any |= v;
            }
        }
        for &t in &waiting {
            let th = &mut self.threads[t];
            let f = &self.mem.launch.module.functions[th.func as usize];
            if let Some(Inst {
                op: Op::BarRed { op, d, .. },
                ..
            }) = f.body.get(th.pc as usize)
            {
                th.regs[*d as usize] = match op {
                    BarRedOp::Popc => popc,
                    BarRedOp::And => all as u64,
                    BarRedOp::Or => any as u64,
                };
            }
            th.pc += 1;
            th.state = State::Ready;
        }
        self.mem.resolve_uninit();
        self.mem.epoch = self.mem.epoch.wrapping_add(1);
        self.mem.global_barrier();
    }

    /// The usual case, without the bookkeeping of the general one: every thread waits at the
    /// same `bar.sync` (none exited). Returns false, changing nothing, otherwise.
    fn release_converged_barrier(&mut self) -> bool {
        let Some(first) = self.threads.iter().find(|t| t.state == State::Barrier) else {
            return false;
        };
        let here = (first.func, first.pc);
        let module = self.mem.launch.module;
        let is_plain_sync = matches!(
            module.functions[here.0 as usize].body.get(here.1 as usize),
            Some(Inst {
                op: Op::BarSync { .. },
                ..
            })
        );
        if !is_plain_sync
            || self
                .threads
                .iter()
                .any(|t| t.state != State::Barrier || (t.func, t.pc) != here)
        {
            return false;
        }
        for th in &mut self.threads {
            th.pc += 1;
            th.state = State::Ready;
        }
        self.mem.resolve_uninit();
        self.mem.epoch = self.mem.epoch.wrapping_add(1);
        self.mem.global_barrier();
        true
    }

    fn bar_red_value(&self, t: usize) -> Option<bool> {
        let th = &self.threads[t];
        let f = &self.mem.launch.module.functions[th.func as usize];
        match f.body.get(th.pc as usize) {
            Some(Inst {
                op: Op::BarRed { p, negate, .. },
                ..
            }) => Some((self.mem.val(th, p) != 0) != *negate),
            _ => None,
        }
    }

    /// Complete a warp collective once every live lane of its mask waits at one.
    /// With `force`, complete it with the lanes present and report the missing ones.
    /// Returns whether it completed.
    fn try_warp_collective(&mut self, t: usize, force: bool) -> bool {
        let warp = t / 32;
        let lanes = warp * 32..((warp + 1) * 32).min(self.threads.len());
        let th = &self.threads[t];
        let Some(inst) = self.mem.launch.module.functions[th.func as usize]
            .body
            .get(th.pc as usize)
        else {
            return false;
        };
        let mask_op = match &inst.op {
            Op::Shfl { mask, .. }
            | Op::Vote { mask, .. }
            | Op::Redux { mask, .. }
            | Op::MatchAny { mask, .. }
            | Op::MatchAll { mask, .. } => *mask,
            Op::BarWarpSync { mask } => *mask,
            Op::Activemask { .. } => return self.try_activemask(t, lanes),
            _ => return false,
        };
        let mask = self.mem.val(th, &mask_op) as u32;
        let here = (th.func, th.pc);
        let is_syncwarp = matches!(inst.op, Op::BarWarpSync { .. });
        let mut present = vec![t];
        let mut missing = Vec::new();
        let outside_mask = mask & (1 << (t % 32)) == 0;
        if outside_mask {
            // The thread itself is not in the mask: undefined behaviour; report it and let the
            // thread pass alone, so it is reported once, not every time the scheduler looks.
            let site = self.site(t);
            let lane = t % 32;
            self.mem.diags.report(DiagKind::WarpSync, Severity::Error, site, None, || {
                (
                    format!("lane {lane} executed a warp-synchronous operation with mask {mask:#010x}, which does not include itself"),
                    "the mask of __shfl_sync/__ballot_sync/__syncwarp must include every calling lane (use 0xffffffff for a full warp)".into(),
                )
            });
        } else {
            for l in lanes
                .clone()
                .filter(|&l| l != t && mask & (1 << (l % 32)) != 0)
            {
                let other = &self.threads[l];
                let joins = other.state == State::Warp
                    && ((other.func, other.pc) == here || (is_syncwarp && self.is_syncwarp_at(l)));
                if joins {
                    present.push(l);
                } else if other.state != State::Exited {
                    // Exited lanes are not waited for (PTX: "all non-exited threads").
                    missing.push(l);
                }
            }
        }
        if !missing.is_empty() {
            if !force {
                return false;
            }
            let site = self.site(t);
            let l = missing[0];
            let lane = l % 32;
            let other = self.line_of(l).0;
            let state = self.threads[l].state;
            let namer = self.mem.namer;
            let who = namer.thread(self.threads[l].tid);
            self.mem.diags.report(DiagKind::WarpSync, Severity::Error, site, Some(other), || {
                let where_ = match state {
                    State::Barrier => format!("is waiting at the __syncthreads() on line {other}"),
                    State::Warp => format!("is waiting at a different warp-synchronous operation (line {other})"),
                    _ => format!("is at line {other}"),
                };
                (
                    format!("a warp-synchronous operation names lane {lane} ({who}) in its mask {mask:#010x}, but that lane never joins it: it {where_}"),
                    "every lane named in the mask must execute the same __shfl_sync/__ballot_sync/__syncwarp; compute the mask from the lanes that really take this path (e.g. __ballot_sync before the if)".into(),
                )
            });
        }
        present.sort_unstable();
        let launch = self.mem.launch;
        // Gather sources, then write results (all lanes read before any writes).
        let insts: Vec<(usize, &Inst)> = present
            .iter()
            .map(|&l| {
                (
                    l,
                    &launch.module.functions[self.threads[l].func as usize].body
                        [self.threads[l].pc as usize],
                )
            })
            .collect();
        let mut vals = [0u64; 32];
        let mut preds = [false; 32];
        let mut active = 0u32;
        for &(l, inst) in &insts {
            let th = &self.threads[l];
            active |= 1 << (l % 32);
            match &inst.op {
                Op::Shfl { a, .. }
                | Op::Redux { a, .. }
                | Op::MatchAny { a, .. }
                | Op::MatchAll { a, .. } => vals[l % 32] = self.mem.val(th, a),
                Op::Vote { p, negate, .. } => preds[l % 32] = (self.mem.val(th, p) != 0) != *negate,
                _ => {}
            }
        }
        let mut bad_source: Option<(usize, usize)> = None;
        for &(l, inst) in &insts {
            let lane = (l % 32) as u32;
            let th = &self.threads[l];
            let writes: Vec<(u32, u64)> = match &inst.op {
                Op::Shfl {
                    mode, d, p, b, c, ..
                } => {
                    let b = self.mem.val(th, b) as u32;
                    let c = self.mem.val(th, c) as u32;
                    let segmask = (c >> 8) & 0x1f;
                    let cval = c & 0x1f;
                    let max_lane = (lane & segmask) | (cval & !segmask);
                    let min_lane = lane & segmask;
                    let (j, ok) = match mode {
                        ShflMode::Up => {
                            let j = lane as i64 - b as i64;
                            (j, j >= max_lane as i64)
                        }
                        ShflMode::Down => {
                            let j = lane as i64 + b as i64;
                            (j, j <= max_lane as i64)
                        }
                        ShflMode::Bfly => {
                            let j = (lane ^ b) as i64;
                            (j, j <= max_lane as i64)
                        }
                        ShflMode::Idx => {
                            let j = (min_lane | (b & !segmask)) as i64;
                            (j, j <= max_lane as i64)
                        }
                    };
                    let src = if ok && (0..32).contains(&j) {
                        j as usize
                    } else {
                        lane as usize
                    };
                    let v = if active & (1 << src) != 0 {
                        vals[src]
                    } else {
                        // Undefined on a GPU: keep the lane's own value, and say so below.
                        if bad_source.is_none() {
                            bad_source = Some((l, src));
                        }
                        vals[lane as usize]
                    };
                    let mut w = vec![(*d, v & 0xffff_ffff)];
                    if let Some(p) = p {
                        w.push((*p, ok as u64));
                    }
                    w
                }
                Op::Vote { mode, d, .. } => {
                    let ballot = (0..32)
                        .filter(|&i| active & (1 << i) != 0 && preds[i])
                        .fold(0u32, |m, i| m | (1 << i));
                    let v = match mode {
                        VoteMode::Ballot => ballot as u64,
                        VoteMode::All => (ballot == active) as u64,
                        VoteMode::Any => (ballot != 0) as u64,
                        VoteMode::Uni => (ballot == 0 || ballot == active) as u64,
                    };
                    vec![(*d, v)]
                }
                Op::Redux { op, ty, d, .. } => {
                    let lanes_v = (0..32).filter(|&i| active & (1 << i) != 0).map(|i| vals[i]);
                    let v = lanes_v
                        .reduce(|x, y| atom_combine(*op, *ty, x, y, 0))
                        .unwrap_or(0);
                    vec![(*d, v)]
                }
                Op::MatchAny { d, .. } => {
                    let me = vals[lane as usize];
                    let m = (0..32)
                        .filter(|&i| active & (1 << i) != 0 && vals[i] == me)
                        .fold(0u32, |m, i| m | (1 << i));
                    vec![(*d, m as u64)]
                }
                Op::MatchAll { d, p, .. } => {
                    let me = vals[lane as usize];
                    let all = (0..32).all(|i| active & (1 << i) == 0 || vals[i] == me);
                    let mut w = vec![(*d, if all { active as u64 } else { 0 })];
                    if let Some(p) = p {
                        w.push((*p, all as u64));
                    }
                    w
                }
                _ => Vec::new(),
            };
            let th = &mut self.threads[l];
            for (r, v) in writes {
                th.regs[r as usize] = v;
            }
            th.pc += 1;
            th.state = State::Ready;
        }
        self.mem.warp_sync[warp] = self.mem.warp_sync[warp].wrapping_add(1);
        // A source lane missing because of a reported mask problem needs no second report.
        if let (Some((l, src)), true) = (bad_source, missing.is_empty() && !outside_mask) {
            self.report_inactive_source(l, warp * 32 + src);
        }
        true
    }

    /// The instruction thread `t` stands at (where it waits, when it waits).
    fn op_at(&self, t: usize) -> Option<&Op> {
        let th = &self.threads[t];
        self.mem.launch.module.functions[th.func as usize]
            .body
            .get(th.pc as usize)
            .map(|i| &i.op)
    }

    fn is_syncwarp_at(&self, t: usize) -> bool {
        matches!(self.op_at(t), Some(Op::BarWarpSync { .. }))
    }

    /// A shuffle read a lane that did not take part: its value is undefined on a GPU. A warning,
    /// since the value may go unused (but in a reduction it usually reaches lane 0).
    fn report_inactive_source(&mut self, t: usize, src: usize) {
        let site = self.site(t);
        let namer = self.mem.namer;
        let who = namer.who(self.threads[t].tid, self.mem.block);
        let (lane, src_lane) = (t % 32, src % 32);
        let why = match self.threads.get(src).map(|th| th.state) {
            None => format!(
                "that lane does not exist (the block has {} threads)",
                self.threads.len()
            ),
            Some(State::Exited) => "that lane has already finished (returned)".to_string(),
            Some(_) => "that lane is not taking part in this shuffle (not in the mask, or elsewhere in the code)".to_string(),
        };
        self.mem.diags.report(DiagKind::WarpSync, Severity::Warning, site, None, || {
            (
                format!("{who} (lane {lane}) read a value from lane {src_lane} with a shuffle, but {why}, so the value it got is undefined"),
                "shuffles read registers of other lanes: every lane read from must execute the same __shfl_*_sync and be in its mask; after an early `return`, keep the lanes alive (e.g. use 0 for out-of-range elements instead of returning)".into(),
            )
        });
    }

    /// `activemask`: the lanes executing it together. Threads run one at a time here, so
    /// "together" is modelled as convergence: once no lane of the warp can run any further
    /// (each waits somewhere or has exited), the lanes waiting at this same instruction in the
    /// same call depth form the mask. So `if (c) { m = __activemask(); ... }` names exactly
    /// the lanes that took the branch, independent of scheduling.
    fn try_activemask(&mut self, t: usize, lanes: std::ops::Range<usize>) -> bool {
        let patient = self.threads[t].waited <= ACTIVEMASK_PATIENCE;
        if patient && lanes.clone().any(|l| self.threads[l].state == State::Ready) {
            return false;
        }
        let key = |th: &Thread| (th.func, th.pc, th.frames.len());
        let here = key(&self.threads[t]);
        let group: Vec<usize> = lanes
            .filter(|&l| self.threads[l].state == State::Warp && key(&self.threads[l]) == here)
            .collect();
        let mask = group.iter().fold(0u32, |m, &l| m | 1 << (l % 32));
        let module = self.mem.launch.module;
        for l in group {
            let th = &mut self.threads[l];
            if let Some(Inst {
                op: Op::Activemask { d },
                ..
            }) = module.functions[th.func as usize].body.get(th.pc as usize)
            {
                th.regs[*d as usize] = mask as u64;
            }
            th.pc += 1;
            th.state = State::Ready;
            th.waited = 0;
        }
        true
    }

    fn is_activemask_at(&self, t: usize) -> bool {
        matches!(self.op_at(t), Some(Op::Activemask { .. }))
    }

    /// After a scheduling pass: lanes waiting at an `activemask` for too long complete with the
    /// lanes that are there (the others run elsewhere, e.g. spin on a flag the waiters set).
    fn activemask_patience(&mut self) {
        let mut waiting = false;
        for t in 0..self.threads.len() {
            if self.threads[t].state != State::Warp || !self.is_activemask_at(t) {
                continue;
            }
            self.threads[t].waited += 1;
            if self.threads[t].waited > ACTIVEMASK_PATIENCE {
                let warp = t / 32;
                let lanes = warp * 32..((warp + 1) * 32).min(self.threads.len());
                self.try_activemask(t, lanes);
            } else {
                waiting = true;
            }
        }
        self.activemask_waiting = waiting;
    }

    /// Run thread `t` for at most `budget` instructions.
    fn step(&mut self, t: usize, budget: u64) -> (Stop, u64) {
        let launch = self.mem.launch;
        let module = launch.module;
        let mem = &mut self.mem;
        let th = &mut self.threads[t];
        let linear = t as u32;
        let mut code: &[Inst] = &module.functions[th.func as usize].body;
        let mut fcode: &[FastInst] = &launch.fast.functions[th.func as usize];
        let mut n = 0u64;
        // The program counter lives in a local while the fast path runs (stored back for the
        // general path, for the memory fast path's access log, and when the thread stops).
        let mut pc = th.pc as usize;
        while n < budget {
            // `fcode` and `code` have the same length (one decoded entry per instruction).
            let Some(fi) = fcode.get(pc) else {
                return (
                    Stop::Fatal(format!(
                        "program counter ran off the end of `{}`",
                        module.functions[th.func as usize].name
                    )),
                    n,
                );
            };
            n += 1;
            if fi.guard != NO_GUARD && (th.regs[fi.guard as usize] != 0) == fi.negate {
                pc += 1;
                continue;
            }
            // The fast path: done and `continue`, or fall through to the general path.
            match fi.op {
                Fast::Slow => {}
                Fast::Int32 { op, d, a, b } => {
                    th.regs[d as usize] = fast::int32(op, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::Int64 { op, d, a, b } => {
                    th.regs[d as usize] = fast::int64(op, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::MulWide { signed, d, a, b } => {
                    let (x, y) = (rd(&th.regs, a), rd(&th.regs, b));
                    th.regs[d as usize] = if signed {
                        (x as u32 as i32 as i64).wrapping_mul(y as u32 as i32 as i64) as u64
                    } else {
                        (x as u32 as u64).wrapping_mul(y as u32 as u64)
                    };
                    pc += 1;
                    continue;
                }
                Fast::Mad32 { d, a, b, c } => {
                    let (x, y, z) = (rd(&th.regs, a), rd(&th.regs, b), rd(&th.regs, c));
                    th.regs[d as usize] =
                        (x as u32).wrapping_mul(y as u32).wrapping_add(z as u32) as u64;
                    pc += 1;
                    continue;
                }
                Fast::F32 { op, d, a, b } => {
                    th.regs[d as usize] = fast::float32(op, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::Fma32 { d, a, b, c } => {
                    let f = |v: u64| f32::from_bits(v as u32);
                    let (x, y, z) = (f(rd(&th.regs, a)), f(rd(&th.regs, b)), f(rd(&th.regs, c)));
                    th.regs[d as usize] = x.mul_add(y, z).to_bits() as u64;
                    pc += 1;
                    continue;
                }
                Fast::F64 { op, d, a, b } => {
                    th.regs[d as usize] = fast::float64(op, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::Fma64 { d, a, b, c } => {
                    let (x, y, z) = (
                        f64::from_bits(rd(&th.regs, a)),
                        f64::from_bits(rd(&th.regs, b)),
                        f64::from_bits(rd(&th.regs, c)),
                    );
                    th.regs[d as usize] = x.mul_add(y, z).to_bits();
                    pc += 1;
                    continue;
                }
                Fast::Setp { cmp, ty, d, a, b } => {
                    th.regs[d as usize] =
                        fast::setp(cmp, ty, rd(&th.regs, a), rd(&th.regs, b)) as u64;
                    pc += 1;
                    continue;
                }
                Fast::Special { d, s } => {
                    th.regs[d as usize] = mem.special(th, s);
                    pc += 1;
                    continue;
                }
                Fast::Cvta { to, window, d, a } => {
                    let a = rd(&th.regs, a);
                    th.regs[d as usize] = if to {
                        a.wrapping_sub(window)
                    } else {
                        a.wrapping_add(window)
                    };
                    pc += 1;
                    continue;
                }
                Fast::LdParam { ty, d, base, off } => {
                    let a = rd(&th.regs, base).wrapping_add(off as u64) as usize;
                    let size = ty.size() as usize;
                    let aligned = a & (size - 1) == 0;
                    if let (true, Some(bytes)) = (aligned, th.params.get(a..a.wrapping_add(size))) {
                        let mut w = [0u8; 8];
                        w[..bytes.len()].copy_from_slice(bytes);
                        let v = u64::from_le_bytes(w);
                        th.regs[d as usize] = if ty.is_signed() {
                            alu::sext(ty, v) as u64
                        } else {
                            v
                        };
                        pc += 1;
                        continue;
                    }
                }
                Fast::Mov { ty, d, a } => {
                    th.regs[d as usize] = alu::mask(ty, rd(&th.regs, a));
                    pc += 1;
                    continue;
                }
                Fast::CvtInt { dty, sty, d, a } => {
                    th.regs[d as usize] = fast::cvt_int(dty, sty, rd(&th.regs, a));
                    pc += 1;
                    continue;
                }
                Fast::Bra { target } => {
                    pc = target as usize;
                    continue;
                }
                Fast::LdGlobal {
                    ty,
                    d,
                    base,
                    off,
                    slot,
                } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    if let Some(v) =
                        mem.fast_global_load(th, linear, &code[pc], addr, ty.size(), slot)
                    {
                        th.regs[d as usize] = if ty.is_signed() {
                            alu::sext(ty, v) as u64
                        } else {
                            v
                        };
                        pc += 1;
                        continue;
                    }
                }
                Fast::StGlobal {
                    size,
                    src,
                    base,
                    off,
                    slot,
                } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    let v = rd(&th.regs, src);
                    if mem.fast_global_store(th, linear, &code[pc], addr, size, slot, v) {
                        pc += 1;
                        continue;
                    }
                }
                Fast::LdShared { ty, d, base, off } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    if let Some(v) = mem.fast_shared_load(th, linear, &code[pc], addr, ty.size()) {
                        th.regs[d as usize] = if ty.is_signed() {
                            alu::sext(ty, v) as u64
                        } else {
                            v
                        };
                        pc += 1;
                        continue;
                    }
                }
                Fast::StShared {
                    size,
                    src,
                    base,
                    off,
                } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    let v = rd(&th.regs, src);
                    if mem.fast_shared_store(th, linear, &code[pc], addr, size, v) {
                        pc += 1;
                        continue;
                    }
                }
            }
            th.pc = pc as u32;
            let inst = &code[pc];
            if fi.guard == NO_GUARD {
                if let Some((p, neg)) = inst.guard {
                    // Only a guard the decoder could not take (never from a valid parse).
                    if (th.regs.get(p as usize).copied().unwrap_or(0) != 0) == neg {
                        pc += 1;
                        continue;
                    }
                }
            }
            'general: {
                match &inst.op {
                    Op::Bin {
                        op,
                        ty,
                        d,
                        a,
                        b,
                        f,
                        rnd,
                    } => {
                        let (a, b) = (mem.val(th, a), mem.val(th, b));
                        th.regs[*d as usize] = alu::bin(*op, *ty, a, b, *f, *rnd);
                    }
                    Op::Mad {
                        mode,
                        ty,
                        d,
                        a,
                        b,
                        c,
                        f,
                        rnd,
                    } => {
                        let (a, b, c) = (mem.val(th, a), mem.val(th, b), mem.val(th, c));
                        th.regs[*d as usize] = alu::mad(*mode, *ty, a, b, c, *f, *rnd);
                    }
                    Op::Un { op, ty, d, a, f } => {
                        let a = mem.val(th, a);
                        th.regs[*d as usize] = alu::un(*op, *ty, a, *f);
                    }
                    Op::Setp {
                        cmp,
                        ty,
                        d,
                        d2,
                        a,
                        b,
                        comb,
                    } => {
                        let r = alu::compare(*cmp, *ty, mem.val(th, a), mem.val(th, b));
                        let (r1, r2) = match comb {
                            Some((bop, c, neg)) => {
                                let c = (mem.val(th, c) != 0) != *neg;
                                (alu::bool_op(*bop, r, c), alu::bool_op(*bop, !r, c))
                            }
                            None => (r, !r),
                        };
                        th.regs[*d as usize] = r1 as u64;
                        if let Some(d2) = d2 {
                            th.regs[*d2 as usize] = r2 as u64;
                        }
                    }
                    Op::Selp { ty, d, a, b, p } => {
                        let v = if mem.val(th, p) != 0 {
                            mem.val(th, a)
                        } else {
                            mem.val(th, b)
                        };
                        th.regs[*d as usize] = alu::mask(*ty, v);
                    }
                    Op::Slct {
                        ty,
                        cty,
                        d,
                        a,
                        b,
                        c,
                        ..
                    } => {
                        let c = mem.val(th, c);
                        let take_a = if *cty == Ty::F32 {
                            f32::from_bits(c as u32) >= 0.0
                        } else {
                            alu::sext(Ty::S32, c) >= 0
                        };
                        th.regs[*d as usize] = alu::mask(
                            *ty,
                            if take_a {
                                mem.val(th, a)
                            } else {
                                mem.val(th, b)
                            },
                        );
                    }
                    Op::Cvt {
                        dty,
                        sty,
                        d,
                        a,
                        rnd,
                        sat,
                        ftz,
                    } => {
                        let a = mem.val(th, a);
                        th.regs[*d as usize] = alu::cvt(*dty, *sty, a, *rnd, *sat, *ftz);
                    }
                    Op::Cvta { to, space, d, a } => {
                        let a = mem.val(th, a);
                        let window = match space {
                            Space::Shared => SHARED_WINDOW,
                            Space::Local => LOCAL_WINDOW,
                            _ => 0,
                        };
                        th.regs[*d as usize] = if *to {
                            a.wrapping_sub(window)
                        } else {
                            a.wrapping_add(window)
                        };
                    }
                    Op::Isspacep { space, d, a } => {
                        let w = classify(mem.val(th, a));
                        th.regs[*d as usize] = match (space, w) {
                            (Space::Shared, Window::Shared(_))
                            | (Space::Local, Window::Local(_)) => 1,
                            (Space::Global | Space::Const, Window::Global(_)) => 1,
                            _ => 0,
                        };
                    }
                    Op::Bfe { ty, d, a, b, c } => {
                        th.regs[*d as usize] =
                            alu::bfe(*ty, mem.val(th, a), mem.val(th, b), mem.val(th, c));
                    }
                    Op::Bfi { ty, d, a, b, c, e } => {
                        th.regs[*d as usize] = alu::bfi(
                            *ty,
                            mem.val(th, a),
                            mem.val(th, b),
                            mem.val(th, c),
                            mem.val(th, e),
                        );
                    }
                    Op::Sad { ty, d, a, b, c } => {
                        th.regs[*d as usize] =
                            alu::sad(*ty, mem.val(th, a), mem.val(th, b), mem.val(th, c));
                    }
                    Op::Dot {
                        kind,
                        a_signed,
                        b_signed,
                        d,
                        a,
                        b,
                        c,
                    } => {
                        th.regs[*d as usize] = alu::dot(
                            *kind,
                            *a_signed,
                            *b_signed,
                            mem.val(th, a),
                            mem.val(th, b),
                            mem.val(th, c),
                        );
                    }
                    Op::Prmt { d, a, b, c } => {
                        th.regs[*d as usize] =
                            alu::prmt(mem.val(th, a), mem.val(th, b), mem.val(th, c))
                    }
                    Op::Shf {
                        left,
                        wrap,
                        d,
                        a,
                        b,
                        c,
                    } => {
                        th.regs[*d as usize] =
                            alu::shf(*left, *wrap, mem.val(th, a), mem.val(th, b), mem.val(th, c))
                    }
                    Op::Pack { elem_bits, d, srcs } => {
                        let mut v = 0u64;
                        for (i, s) in srcs.iter().enumerate() {
                            let part = mem.val(th, s) & low_mask(*elem_bits);
                            v |= part << (i as u32 * elem_bits);
                        }
                        th.regs[*d as usize] = v;
                    }
                    Op::Unpack { elem_bits, ds, a } => {
                        let v = mem.val(th, a);
                        for (i, d) in ds.iter().enumerate() {
                            if let Some(d) = d {
                                th.regs[*d as usize] =
                                    (v >> (i as u32 * elem_bits)) & low_mask(*elem_bits);
                            }
                        }
                    }
                    Op::Ld {
                        space, ty, d, addr, ..
                    } => {
                        let base = mem.val(th, &addr.base).wrapping_add(addr.offset as u64);
                        let size = ty.size();
                        let total = size * d.len() as u32;
                        let mut vals = [0u64; 8];
                        if mem.load_vec(
                            th,
                            linear,
                            inst,
                            *space,
                            base,
                            size,
                            total,
                            &mut vals[..d.len()],
                        ) {
                            for (i, r) in d.iter().enumerate() {
                                let v = vals[i];
                                th.regs[*r as usize] = if ty.is_signed() {
                                    alu::sext(*ty, v) as u64
                                } else {
                                    v
                                };
                            }
                        }
                    }
                    Op::St {
                        space,
                        ty,
                        src,
                        addr,
                    } => {
                        let base = mem.val(th, &addr.base).wrapping_add(addr.offset as u64);
                        let size = ty.size();
                        let mut vals = [0u64; 8];
                        for (i, s) in src.iter().enumerate() {
                            vals[i] = mem.val(th, s);
                        }
                        mem.store_vec(th, linear, inst, *space, base, size, &vals[..src.len()]);
                    }
                    Op::Atom {
                        space,
                        op,
                        ty,
                        d,
                        addr,
                        b,
                        c,
                    } => {
                        let a = mem.val(th, &addr.base).wrapping_add(addr.offset as u64);
                        let (b, c) = (mem.val(th, b), mem.val(th, c));
                        let old = mem.atomic(th, linear, inst, *space, a, *op, *ty, b, c);
                        if let Some(d) = d {
                            th.regs[*d as usize] = old;
                        }
                    }
                    Op::Bra { target } => {
                        th.pc = *target;
                        break 'general;
                    }
                    Op::Call { callee, ret, args } => match callee {
                        Callee::Func(fi) => {
                            let f = &module.functions[*fi as usize];
                            let mut params = vec![0u8; f.param_area as usize];
                            for (arg, p) in args.iter().zip(&f.params) {
                                let src = *arg as usize;
                                let n = p.size as usize;
                                if let (Some(dst), Some(s)) = (
                                    params.get_mut(p.offset as usize..p.offset as usize + n),
                                    th.params.get(src..src + n),
                                ) {
                                    dst.copy_from_slice(s);
                                }
                            }
                            let new_base = (th.local.len() as u64).div_ceil(16) * 16;
                            let stack: u64 = th
                                .frames
                                .iter()
                                .map(|fr| fr.regs.len() as u64 * 8 + fr.params.len() as u64)
                                .sum::<u64>()
                                + new_base
                                + f.local_size;
                            if th.frames.len() >= MAX_CALL_DEPTH || stack > MAX_STACK {
                                return (
                                Stop::Fatal(format!(
                                    "the calls nest too deep (stack overflow) in `{}`{}: a recursion that never stops?",
                                    demangle_var(&f.name),
                                    at_line(inst, launch)
                                )),
                                n,
                            );
                            }
                            th.local.resize((new_base + f.local_size) as usize, 0);
                            let frame = Frame {
                                func: th.func,
                                ret_pc: th.pc + 1,
                                regs: std::mem::replace(&mut th.regs, vec![0; f.num_regs as usize]),
                                params: std::mem::replace(&mut th.params, params),
                                local_base: th.local_base,
                                ret_slot: *ret,
                            };
                            th.frames.push(frame);
                            th.local_base = new_base;
                            th.func = *fi;
                            th.pc = 0;
                            code = &f.body;
                            fcode = &launch.fast.functions[*fi as usize];
                            break 'general;
                        }
                        Callee::Vprintf => {
                            let count = mem.vprintf(th, args);
                            if let Some(r) = ret {
                                write_param(&mut th.params, *r, 4, count);
                            }
                        }
                        Callee::AssertFail => {
                            mem.assert_fail(th, inst, args);
                            th.state = State::Exited;
                            return (Stop::Exit, n);
                        }
                        Callee::Unknown(i) => {
                            let name = module.externs.get(*i as usize).cloned().unwrap_or_default();
                            return (
                                Stop::Fatal(unsupported_msg(
                                    &format!("a call to `{name}`"),
                                    inst,
                                    launch,
                                )),
                                n,
                            );
                        }
                    },
                    Op::Ret => {
                        let Some(frame) = th.frames.pop() else {
                            th.state = State::Exited;
                            return (Stop::Exit, n);
                        };
                        let callee = &module.functions[th.func as usize];
                        let callee_params = std::mem::replace(&mut th.params, frame.params);
                        if let (Some(slot), Some(rv)) = (frame.ret_slot, &callee.retval) {
                            let (s, len) = (rv.offset as usize, rv.size as usize);
                            if let (Some(src), Some(dst)) = (
                                callee_params.get(s..s + len),
                                th.params.get_mut(slot as usize..slot as usize + len),
                            ) {
                                dst.copy_from_slice(src);
                            }
                        }
                        th.local.truncate(th.local_base as usize);
                        th.regs = frame.regs;
                        th.local_base = frame.local_base;
                        th.func = frame.func;
                        th.pc = frame.ret_pc;
                        code = &module.functions[th.func as usize].body;
                        fcode = &launch.fast.functions[th.func as usize];
                        break 'general;
                    }
                    Op::Exit => {
                        th.state = State::Exited;
                        return (Stop::Exit, n);
                    }
                    Op::Trap => {
                        let site = mem.site(th, inst);
                        let who = mem.namer.who(th.tid, mem.block);
                        mem.diags.report(DiagKind::Assert, Severity::Error, site, None, || {
                        (format!("{who} executed a trap instruction, which aborts the kernel"), "a trap (asm(\"trap;\") or __trap()) stops the whole kernel on a GPU".into())
                    });
                        th.state = State::Exited;
                        return (Stop::Exit, n);
                    }
                    Op::BarSync { .. } | Op::BarRed { .. } => {
                        th.state = State::Barrier;
                        return (Stop::Wait, n);
                    }
                    Op::BarWarpSync { .. }
                    | Op::Shfl { .. }
                    | Op::Vote { .. }
                    | Op::Redux { .. }
                    | Op::MatchAny { .. }
                    | Op::MatchAll { .. } => {
                        th.state = State::Warp;
                        return (Stop::Wait, n);
                    }
                    Op::Activemask { .. } => {
                        th.state = State::Warp;
                        return (Stop::Wait, n);
                    }
                    Op::Fence => th.fenced = true,
                    Op::Nop => {}
                    Op::Unsupported { text } => {
                        return (
                            Stop::Fatal(unsupported_msg(
                                &format!("the instruction `{text}`"),
                                inst,
                                launch,
                            )),
                            n,
                        );
                    }
                }
                th.pc += 1;
            }
            pc = th.pc as usize;
        }
        th.pc = pc as u32;
        (Stop::Quantum, n)
    }
}

/// The source line of the innermost loop around `pc`: the first backward branch at or after
/// `pc` that jumps to or before it (the loop's latch, which NVRTC marks with the loop's line).
fn loop_latch(body: &[Inst], pc: u32) -> Option<u32> {
    body.iter()
        .enumerate()
        .skip(pc as usize)
        .find_map(|(i, inst)| match inst.op {
            Op::Bra { target } if target <= pc && (i as u32) >= pc => Some(inst.line),
            _ => None,
        })
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

/// Device-function calls a thread may nest, and the bytes of frames and local memory it may
/// use (a GPU's default stack is only 1 KiB per thread).
const MAX_CALL_DEPTH: usize = 1000;
const MAX_STACK: u64 = 1 << 20;

fn at_line(inst: &Inst, launch: &Launch) -> String {
    match (launch.file_name(inst.file), inst.line) {
        (Some(f), l) if l > 0 => format!(" (from {f}:{l})"),
        _ => String::new(),
    }
}

fn unsupported_msg(what: &str, inst: &Inst, launch: &Launch) -> String {
    let at = at_line(inst, launch);
    format!(
        "{what}{at} is not supported by gpuzzle's emulator yet; please report it with your kernel"
    )
}

fn thread_list(ts: &[[u32; 3]], namer: Namer) -> String {
    let names: Vec<String> = ts.iter().take(4).map(|&t| namer.thread(t)).collect();
    let more = if ts.len() > 4 {
        format!(" and {} more", ts.len() - 4)
    } else {
        String::new()
    };
    format!("{}{more}", names.join(", "))
}

/// The value an atomic leaves in memory.
pub fn atom_combine(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let f = FFlags::default();
    let r = Rounding::Default;
    match op {
        AtomOp::Add => alu::bin(BinOp::Add, ty, old, b, f, r),
        AtomOp::Min => alu::bin(BinOp::Min, ty, old, b, f, r),
        AtomOp::Max => alu::bin(BinOp::Max, ty, old, b, f, r),
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if alu::mask(ty, old) == alu::mask(ty, b) {
                c
            } else {
                old
            }
        }
        AtomOp::Inc => {
            if alu::mask(ty, old) >= alu::mask(ty, b) {
                0
            } else {
                old.wrapping_add(1)
            }
        }
        AtomOp::Dec => {
            let o = alu::mask(ty, old);
            if o == 0 || o > alu::mask(ty, b) {
                b
            } else {
                o - 1
            }
        }
    }
}

impl<'l> Mem<'l> {
    #[inline(always)]
    fn val(&self, th: &Thread, o: &Operand) -> u64 {
        match *o {
            Operand::Reg(r) => th.regs[r as usize],
            Operand::Imm(v) => v,
            Operand::Special(s) => self.special(th, s),
            Operand::GlobalSym(i) => self.launch.global_sym_addr[i as usize],
            Operand::SharedSym(i) => self.launch.shared_sym_off[i as usize],
            Operand::LocalSym(off) => th.local_base + off as u64,
            Operand::ParamSym(off) => off as u64,
        }
    }

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
            Special::Clock | Special::Clock64 | Special::GlobalTimer => 0,
            Special::LaneMaskEq => 1u64 << lane,
            Special::LaneMaskLt => (1u64 << lane) - 1,
            Special::LaneMaskLe => (1u64 << (lane + 1)) - 1,
            Special::LaneMaskGt => !((1u64 << (lane + 1)) - 1) & 0xffff_ffff,
            Special::LaneMaskGe => !((1u64 << lane) - 1) & 0xffff_ffff,
            Special::SmId => 0,
            Special::DynamicSmemSize => cfg.dynamic_shared as u64,
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
