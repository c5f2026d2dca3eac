//! Asynchronous copies, mbarriers and named barriers: how they run, and the checker that
//! knows which copies are in flight.
//!
//! **Data.** A `cp.async` moves its bytes when it is issued: the global read and the shared
//! write go through `access.rs` like any load and store (bounds, alignment, counters, the
//! race checkers, the access log), counted as one global read and one shared write for the
//! thread. What the emulator does not do is pretend the copy has landed: with the checkers
//! on, each copy is recorded as in flight until a wait covers it, and reading its
//! destination, or writing its destination or its source, before then is an `async-copy`
//! diagnostic at the learner's line. So a kernel with a missing wait computes what it would on
//! a lucky GPU, and fails on the checker, deterministically.
//!
//! **What covers a copy.** Its own thread: `cp.async.wait_group n` once at most `n` newer
//! groups are outstanding (`commit_group` closes a group), `wait_all`, or, for copies
//! tracked by an mbarrier (`cp.async.mbarrier.arrive`), a successful `test_wait`/`try_wait`
//! on the phase they complete. Another thread: the same, plus a block barrier after the
//! issuing thread's wait (`__syncthreads()`, a named barrier both took part in). Copies
//! that are covered and behind a barrier are forgotten.
//!
//! **mbarriers** live in a side table keyed by their shared-memory offset (`mbarrier.init`):
//! expected and pending arrivals, the transaction count, the phase. An arrival's state token
//! is the phase it arrived in (low 32 bits) and the pending count after it (high 32 bits). A
//! thread whose `test_wait`/`try_wait` finds the phase incomplete ends its turn, so a spin
//! loop gives the other threads their turn as a barrier would.
//!
//! **Named barriers** (`bar.sync id, count`, `bar.arrive id, count`) count arrivals per id,
//! 32 for each warp that arrives as the hardware counts them, and release their waiters at
//! the count (`barriers.rs`, the block's side); a count that is not a multiple of 32 is
//! reported.

use super::access::Kind;
use super::block::{Mem, Regs, Thread};
use super::diag::Site;
use super::facts::{Element, Facts};
use super::memory::{classify, Window};
use super::result::{DiagKind, Severity};
use crate::ptx::ir::{Address, AsyncApi, AsyncOp, Inst, Space};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Named barriers a block has (PTX: 16, barrier 0 is `__syncthreads()`'s).
pub(super) const NAMED_BARRIERS: usize = 16;

/// Failed waits in a row, by one thread, with no mbarrier of the block changing in between,
/// after which its phase is taken never to complete (reported, then completed so the kernel
/// goes on). Each failed wait ends the thread's turn, so the others have had this many turns:
/// were they doing anything but spinning, the step limit would come first.
const STUCK_SPINS: u32 = 1000;

/// What the thread does after an instruction of the family.
pub(super) enum Flow {
    /// Go on with the next instruction.
    Next,
    /// Wait at a named barrier (the block counts the arrival, `barriers.rs`).
    Wait,
    /// An mbarrier wait found its phase incomplete: the next instruction, after the others'
    /// turn.
    Yield,
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cover {
    InFlight,
    /// Its own thread waited for it: another thread still needs a barrier after that wait.
    Waited,
}

/// One copy in flight (or waited for, before the barrier that lets others read it).
struct Rec {
    thread: u32,
    tid: [u32; 3],
    /// Shared offset and bytes of the destination; global address and bytes read.
    dst: u64,
    len: u32,
    src: u64,
    src_len: u32,
    group: Option<u32>,
    /// The mbarrier (shared offset) tracking it and the phase whose completion lands it.
    bar: Option<(u64, u32)>,
    cover: Cover,
    line: u32,
    api: AsyncApi,
    /// The block's barrier epoch when it was issued.
    epoch: u32,
}

#[derive(Default, Clone)]
struct PerThread {
    committed: u32,
    recs: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Mbar {
    expected: u32,
    pending: u32,
    tx: i64,
    phase: u32,
}

/// A named barrier's arrivals so far. The hardware counts warps: a warp that arrives adds 32
/// (`WARP`) however many of its lanes run the instruction; `slots` are those warp arrivals
/// (the warp, and the lanes of it that came), `arrived` 32 per slot.
#[derive(Default, Clone)]
pub(super) struct Named {
    pub(super) count: u32,
    pub(super) arrived: u32,
    pub(super) slots: Vec<(u32, u32)>,
    pub(super) waiters: Vec<u32>,
    pub(super) arrivers: Vec<u32>,
    pub(super) line: u32,
}

/// A block's async-copy state (reset with the block).
#[derive(Default)]
pub(crate) struct AsyncState {
    recs: Vec<Option<Rec>>,
    free: Vec<u32>,
    /// Copies recorded (in flight or waited for): the memory path checks only while nonzero.
    live: u32,
    /// Per shared word: the record writing it, plus one (0: none).
    words: Vec<u32>,
    /// Global word (address / 4) → the record reading it, plus one.
    src_words: HashMap<u64, u32>,
    threads: Vec<PerThread>,
    mbars: HashMap<u64, Mbar>,
    /// (thread, mbarrier): the phase count that thread saw complete.
    seen: HashMap<(u32, u64), u32>,
    /// Changes of any mbarrier of the block (arrivals, init, inval), and per thread the count at
    /// its last failed wait and how many failed waits in a row saw it unchanged.
    events: u64,
    stale: Vec<(u64, u32)>,
    pub(super) named: Vec<Named>,
}

impl AsyncState {
    /// Whether any copy is recorded (the memory path's one test).
    #[inline(always)]
    pub(super) fn live(&self) -> bool {
        self.live != 0
    }

    pub(super) fn reset(&mut self) {
        if self.live != 0 {
            self.recs.clear();
            self.free.clear();
            self.words.fill(0);
            self.src_words.clear();
            self.live = 0;
        }
        self.recs.clear();
        self.free.clear();
        for t in &mut self.threads {
            t.committed = 0;
            t.recs.clear();
        }
        self.mbars.clear();
        self.seen.clear();
        self.events = 0;
        self.stale.clear();
        for n in &mut self.named {
            *n = Named::default();
        }
    }

    fn thread(&mut self, t: u32) -> &mut PerThread {
        let t = t as usize;
        if self.threads.len() <= t {
            self.threads.resize(t + 1, PerThread::default());
        }
        &mut self.threads[t]
    }

    fn add(&mut self, rec: Rec, shared_len: usize) {
        if self.words.len() < shared_len.div_ceil(4) {
            self.words.resize(shared_len.div_ceil(4), 0);
        }
        let idx = match self.free.pop() {
            Some(i) => i,
            None => {
                self.recs.push(None);
                self.recs.len() as u32 - 1
            }
        };
        for w in rec.dst / 4..(rec.dst + rec.len as u64).div_ceil(4) {
            if let Some(slot) = self.words.get_mut(w as usize) {
                *slot = idx + 1;
            }
        }
        for w in rec.src / 4..(rec.src + rec.src_len as u64).div_ceil(4) {
            self.src_words.insert(w, idx + 1);
        }
        let t = rec.thread;
        self.recs[idx as usize] = Some(rec);
        self.thread(t).recs.push(idx);
        self.live += 1;
    }

    fn remove(&mut self, idx: u32) {
        let Some(rec) = self.recs.get_mut(idx as usize).and_then(Option::take) else {
            return;
        };
        for w in rec.dst / 4..(rec.dst + rec.len as u64).div_ceil(4) {
            if let Some(slot) = self.words.get_mut(w as usize) {
                if *slot == idx + 1 {
                    *slot = 0;
                }
            }
        }
        for w in rec.src / 4..(rec.src + rec.src_len as u64).div_ceil(4) {
            if self.src_words.get(&w) == Some(&(idx + 1)) {
                self.src_words.remove(&w);
            }
        }
        if let Some(pt) = self.threads.get_mut(rec.thread as usize) {
            pt.recs.retain(|&i| i != idx);
        }
        self.free.push(idx);
        self.live -= 1;
    }

    /// Whether a copy's data has landed for thread `reader` (its wait, or the mbarrier phase
    /// it completes on seen by `reader`); `Some(hazard)` for a read that is too early.
    fn early_read(&self, rec: &Rec, reader: u32) -> Option<AsyncHazard> {
        if let Some((b, p)) = rec.bar {
            let done = self.mbars.get(&b).is_some_and(|m| m.phase > p);
            let seen = self.seen.get(&(reader, b)).is_some_and(|&s| s > p);
            return match (done && seen, rec.cover) {
                (true, _) => None,
                (false, Cover::Waited) if rec.thread == reader => None,
                (false, Cover::Waited) => Some(AsyncHazard::ReadBeforeBarrier),
                (false, Cover::InFlight) => Some(AsyncHazard::ReadBeforeWait),
            };
        }
        match rec.cover {
            Cover::InFlight => Some(AsyncHazard::ReadBeforeWait),
            Cover::Waited if rec.thread == reader => None,
            Cover::Waited => Some(AsyncHazard::ReadBeforeBarrier),
        }
    }

    /// Whether a copy may still be moving data (no one's wait covered it).
    fn in_flight(&self, rec: &Rec) -> bool {
        if rec.cover == Cover::Waited {
            return false;
        }
        match rec.bar {
            Some((b, p)) => self.mbars.get(&b).is_none_or(|m| m.phase <= p),
            None => true,
        }
    }

    /// Whether a block barrier makes a copy visible to every thread: its own thread waited
    /// for it, or some thread saw the mbarrier phase it completes on complete (an arrival
    /// alone does not wait for the copies it tracks).
    fn settled(&self, rec: &Rec) -> bool {
        if rec.cover == Cover::Waited {
            return true;
        }
        match rec.bar {
            Some((b, p)) => {
                !self.in_flight(rec) && self.seen.iter().any(|(&(_, sb), &s)| sb == b && s > p)
            }
            None => false,
        }
    }

    /// A block barrier every thread passed: copies covered by a wait, or whose mbarrier phase
    /// completed, are visible to all from here on.
    pub(super) fn block_barrier(&mut self) {
        if self.live == 0 {
            return;
        }
        let done: Vec<u32> = self
            .recs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().filter(|r| self.settled(r)).map(|_| i as u32))
            .collect();
        for i in done {
            self.remove(i);
        }
    }

    /// A named barrier released `threads`: what they waited for is visible to each other.
    pub(super) fn partial_barrier(&mut self, threads: &[u32]) {
        if self.live == 0 {
            return;
        }
        let done: Vec<u32> = self
            .recs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                r.as_ref()
                    .filter(|r| self.settled(r) && threads.contains(&r.thread))
                    .map(|_| i as u32)
            })
            .collect();
        for i in done {
            self.remove(i);
        }
    }

    fn facts_of(&self, rec: &Rec, hazard: AsyncHazard, me: u32) -> AsyncFacts {
        let pt = self.threads.get(rec.thread as usize);
        AsyncFacts {
            api: rec.api,
            issuer: rec.tid,
            issue_line: rec.line,
            own_copy: rec.thread == me,
            committed: rec.group.is_some(),
            newer_groups: match (rec.group, pt) {
                (Some(g), Some(pt)) => pt.committed.saturating_sub(g + 1),
                _ => 0,
            },
            via_barrier: rec.bar.is_some(),
            ..AsyncFacts::new(hazard)
        }
    }
}

/// The shared offset of an mbarrier operand (`None`: not in shared memory).
fn bar_offset(space: Space, a: u64) -> Option<u64> {
    match space {
        Space::Shared => Some(a),
        Space::Generic => match classify(a) {
            Window::Shared(o) => Some(o),
            _ => None,
        },
        _ => None,
    }
}

/// Run one instruction of the family for thread `th` (`linear` its index in the block).
pub(super) fn exec<R: Regs + ?Sized>(
    mem: &mut Mem,
    th: &mut Thread,
    regs: &mut R,
    linear: u32,
    inst: &Inst,
    op: &AsyncOp,
) -> Flow {
    let addr = |mem: &Mem, th: &Thread, regs: &R, a: &Address| {
        mem.val_in(th, regs, &a.base).wrapping_add(a.offset as u64)
    };
    let checking = mem.shadow.is_on();
    match op {
        AsyncOp::Copy {
            dst,
            dst_space,
            src,
            size,
            src_size,
            ignore,
            api,
        } => {
            let d = addr(mem, th, regs, dst);
            let s = addr(mem, th, regs, src);
            let ignored = ignore
                .as_ref()
                .is_some_and(|(p, neg)| (mem.val_in(th, regs, p) != 0) != *neg);
            let n = if ignored {
                0
            } else {
                src_size
                    .as_ref()
                    .map_or(*size as u64, |o| mem.val_in(th, regs, o))
                    .min(*size as u64) as u32
            };
            copy(
                mem,
                th,
                linear,
                inst,
                (d, *dst_space),
                s,
                *size,
                n,
                *api,
                checking,
            );
        }
        AsyncOp::Commit => {
            if checking {
                commit(mem, linear);
            }
        }
        AsyncOp::Wait { n, all } => {
            if checking {
                if *all {
                    commit(mem, linear);
                }
                let st = &mut mem.asyncs;
                let committed = st.thread(linear).committed;
                let recs = st.thread(linear).recs.clone();
                for i in recs {
                    if let Some(r) = st.recs.get_mut(i as usize).and_then(Option::as_mut) {
                        let covered =
                            *all || r.group.is_some_and(|g| g.saturating_add(*n) < committed);
                        if covered {
                            r.cover = Cover::Waited;
                        }
                    }
                }
            }
        }
        AsyncOp::CopyArrive { bar, space, noinc } => {
            let a = addr(mem, th, regs, bar);
            let Some(off) = barrier(mem, th, inst, *space, a) else {
                return Flow::Next;
            };
            let phase = mem.asyncs.mbars.get(&off).map_or(0, |m| m.phase);
            if checking {
                let st = &mut mem.asyncs;
                let recs = st.thread(linear).recs.clone();
                for i in recs {
                    if let Some(r) = st.recs.get_mut(i as usize).and_then(Option::as_mut) {
                        if r.bar.is_none() && r.cover == Cover::InFlight {
                            r.bar = Some((off, phase));
                        }
                    }
                }
            }
            // The copies landed when they were issued: the arrival they trigger happens now
            // (without `.noinc` the pending count was raised for it first: no change).
            if *noinc {
                arrive(mem, off, 1, false);
            }
        }
        AsyncOp::Init { bar, space, count } => {
            let a = addr(mem, th, regs, bar);
            let count = mem.val_in(th, regs, count) as u32;
            if let Some(off) = barrier_place(mem, th, inst, *space, a) {
                mem.asyncs.events += 1;
                mem.asyncs.mbars.insert(
                    off,
                    Mbar {
                        expected: count,
                        pending: count,
                        tx: 0,
                        phase: 0,
                    },
                );
                mem.asyncs.seen.retain(|&(_, b), _| b != off);
            }
        }
        AsyncOp::Inval { bar, space } => {
            let a = addr(mem, th, regs, bar);
            if let Some(off) = barrier_place(mem, th, inst, *space, a) {
                mem.asyncs.events += 1;
                mem.asyncs.mbars.remove(&off);
            }
        }
        AsyncOp::Arrive {
            d,
            bar,
            space,
            count,
            drop,
            expect_tx,
        } => {
            let a = addr(mem, th, regs, bar);
            let count = count.as_ref().map_or(1, |c| mem.val_in(th, regs, c) as u32);
            let tx = expect_tx.as_ref().map(|t| mem.val_in(th, regs, t) as i64);
            let token = match barrier(mem, th, inst, *space, a) {
                Some(off) => {
                    if let (Some(tx), Some(m)) = (tx, mem.asyncs.mbars.get_mut(&off)) {
                        m.tx += tx;
                    }
                    arrive(mem, off, count, *drop)
                }
                None => 0,
            };
            if let Some(d) = d {
                regs.set(*d, token);
            }
        }
        AsyncOp::Tx {
            bar,
            space,
            tx,
            complete,
        } => {
            let a = addr(mem, th, regs, bar);
            let tx = mem.val_in(th, regs, tx) as i64;
            if let Some(off) = barrier(mem, th, inst, *space, a) {
                if let Some(m) = mem.asyncs.mbars.get_mut(&off) {
                    m.tx += if *complete { -tx } else { tx };
                }
                if *complete {
                    arrive(mem, off, 0, false);
                }
            }
        }
        AsyncOp::TestWait {
            d,
            bar,
            space,
            state,
            parity,
        } => {
            let a = addr(mem, th, regs, bar);
            let token = mem.val_in(th, regs, state);
            let off = barrier(mem, th, inst, *space, a);
            let done = off.and_then(|off| {
                let m = mem.asyncs.mbars.get(&off)?;
                let done = if *parity {
                    u64::from(m.phase & 1) != token & 1
                } else {
                    m.phase > token as u32
                };
                Some((off, m.phase)).filter(|_| done)
            });
            let done = match (done, off) {
                (None, Some(off)) if stuck(mem, th, inst, linear, off) => {
                    mem.asyncs.mbars.get(&off).map(|m| (off, m.phase))
                }
                (done, _) => done,
            };
            regs.set(*d, done.is_some() as u64);
            match done {
                Some((off, phase)) => {
                    if checking {
                        let seen = mem.asyncs.seen.entry((linear, off)).or_insert(0);
                        *seen = (*seen).max(phase);
                    }
                }
                None => return Flow::Yield,
            }
        }
        AsyncOp::PendingCount { d, state } => {
            let token = mem.val_in(th, regs, state);
            regs.set(*d, token >> 32);
        }
        AsyncOp::Named { .. } => return Flow::Wait,
    }
    Flow::Next
}

/// Thread `t` failed a wait on the mbarrier at `off` again: once it has failed `STUCK_SPINS`
/// times in a row with no mbarrier changing, the phase never completes. Report it (barrier
/// divergence: fewer arrivals than the barrier counts) and complete the phase, so the waiters
/// go on. Returns whether it did.
fn stuck(mem: &mut Mem, th: &Thread, inst: &Inst, t: u32, off: u64) -> bool {
    let st = &mut mem.asyncs;
    if st.stale.len() <= t as usize {
        st.stale.resize(t as usize + 1, (0, 0));
    }
    let events = st.events;
    let entry = &mut st.stale[t as usize];
    if entry.0 == events {
        entry.1 += 1;
    } else {
        *entry = (events, 1);
    }
    if entry.1 < STUCK_SPINS {
        return false;
    }
    let Some(m) = st.mbars.get(&off).copied() else {
        return false;
    };
    let (count, got) = (m.expected, m.expected.saturating_sub(m.pending));
    let site = mem.site(th, inst);
    let line = site.line;
    let who = mem.namer.who(th.tid, mem.block);
    let what = shared_name(mem, off, 8);
    let facts = AsyncFacts {
        count,
        arrived: got,
        ..AsyncFacts::new(AsyncHazard::MbarrierStuck)
    };
    if mem.shadow.is_on() {
        mem.diags
            .report(DiagKind::BarrierDivergence, Severity::Error, site, None, || {
                (
                    format!("{who} waits (line {line}) for the barrier at shared {what} to complete its phase, but it never does: it counts {count} arrivals and only {got} came"),
                    Facts::AsyncCopy(facts),
                )
            });
    }
    arrive(mem, off, m.pending, false);
    true
}

/// `commit_group` for thread `t`: its uncommitted copies become its next group.
fn commit(mem: &mut Mem, t: u32) {
    let st = &mut mem.asyncs;
    let g = st.thread(t).committed;
    let recs = st.thread(t).recs.clone();
    for i in recs {
        if let Some(r) = st.recs.get_mut(i as usize).and_then(Option::as_mut) {
            if r.group.is_none() && r.bar.is_none() {
                r.group = Some(g);
            }
        }
    }
    st.thread(t).committed = g.saturating_add(1);
}

/// `count` arrivals on the mbarrier at `off` (`drop`: they also leave it for later phases);
/// completes the phase when none are pending and no transaction is outstanding. Returns the
/// arrival's state token.
fn arrive(mem: &mut Mem, off: u64, count: u32, drop: bool) -> u64 {
    mem.asyncs.events += 1;
    let Some(m) = mem.asyncs.mbars.get_mut(&off) else {
        return 0;
    };
    let token = m.phase as u64;
    if drop {
        m.expected = m.expected.saturating_sub(count);
    }
    m.pending = m.pending.saturating_sub(count);
    let pending = m.pending;
    if m.pending == 0 && m.tx <= 0 {
        m.phase = m.phase.wrapping_add(1);
        m.pending = m.expected;
        m.tx = 0;
        phase_orders(mem);
    }
    token | (pending as u64) << 32
}

/// What a completed mbarrier phase orders, for the race checkers: every arrival before it
/// against every wait that sees it, taken as a block barrier (one epoch for the block, so a
/// race between threads that stay out of the barrier may go unreported; none is invented).
fn phase_orders(mem: &mut Mem) {
    if !mem.shadow.is_on() {
        return;
    }
    mem.resolve_uninit();
    mem.epoch = mem.epoch.wrapping_add(1);
    mem.order.barrier();
    mem.global_barrier();
}

/// The shared offset of an mbarrier that must be initialised; reported otherwise.
fn barrier(mem: &mut Mem, th: &Thread, inst: &Inst, space: Space, a: u64) -> Option<u64> {
    let off = barrier_place(mem, th, inst, space, a)?;
    if mem.asyncs.mbars.contains_key(&off) {
        return Some(off);
    }
    let site = mem.site(th, inst);
    let who = mem.namer.who(th.tid, mem.block);
    let what = shared_name(mem, off, 8);
    mem.diags.report(DiagKind::AsyncCopy, Severity::Error, site, None, || {
        (
            format!("{who} used the mbarrier at shared {what} before it was initialised (no mbarrier.init, or it was invalidated)"),
            Facts::AsyncCopy(AsyncFacts::new(AsyncHazard::BarrierNotInitialised)),
        )
    });
    None
}

/// The shared offset of an mbarrier operand, inside a shared variable and 8-byte aligned;
/// reported as an access out of bounds or misaligned otherwise.
fn barrier_place(mem: &mut Mem, th: &Thread, inst: &Inst, space: Space, a: u64) -> Option<u64> {
    let off = bar_offset(space, a);
    let inside = off.is_some_and(|o| mem.launch.shared_var(o, 8).is_some());
    if inside && off.is_some_and(|o| o % 8 == 0) {
        return off;
    }
    let site = mem.site(th, inst);
    let who = mem.namer.who(th.tid, mem.block);
    let line = site.line;
    let (kind, msg, misaligned, element) = match off {
        Some(o) if inside => {
            let element = shared_element(mem, o, 8);
            let what = element.as_ref().map_or(format!("offset {o}"), |e| {
                format!("{}[{}]", e.name, e.index)
            });
            (
                DiagKind::Misaligned,
                format!("{who} used an mbarrier at shared {what} (line {line}), {} bytes past an 8-byte boundary: an mbarrier must be aligned to 8 bytes", o % 8),
                Some(8),
                element,
            )
        }
        // In the shared window but past every variable: named as any shared access is.
        Some(o) => {
            let (msg, element) = super::diag::shared_oob_message(
                &mem.launch.shared_vars,
                o,
                8,
                &who,
                "used an mbarrier at",
                &format!(" (line {line})"),
            );
            (DiagKind::OutOfBounds, msg, None, element)
        }
        None => (
            DiagKind::OutOfBounds,
            format!(
                "{who} used an mbarrier (line {line}) at an address outside shared memory ({a:#x})"
            ),
            None,
            None,
        ),
    };
    mem.diags.report(kind, Severity::Error, site, None, || {
        (
            msg,
            Facts::Bounds {
                space: super::facts::Space::Shared,
                access: super::facts::Access::Atomic,
                element,
                address: a,
                bytes: 8,
                misaligned_to: misaligned,
            },
        )
    });
    None
}

/// `name[index]` of the shared element at `off`, or the offset.
fn shared_name(mem: &Mem, off: u64, size: u32) -> String {
    shared_element(mem, off, size).map_or(format!("offset {off}"), |e| {
        format!("{}[{}]", e.name, e.index)
    })
}

fn shared_element(mem: &Mem, off: u64, size: u32) -> Option<Element> {
    let var = super::diag::nearest_shared_var(&mem.launch.shared_vars, off)?;
    Some(super::diag::shared_element(var, off, size))
}

fn global_element(mem: &Mem, a: u64) -> Option<Element> {
    mem.launch.global.nearest(a).map(|al| Element {
        name: al.name.clone(),
        index: (a as i128 - al.base as i128).div_euclid(al.elem_size.max(1) as i128),
        len: al.len / al.elem_size.max(1),
    })
}

/// One `cp.async`: `n` bytes read from global `src` (none when `n` is 0), zero-filled to
/// `size`, written to the shared destination; recorded as in flight with the checkers on.
#[allow(clippy::too_many_arguments)]
fn copy(
    mem: &mut Mem,
    th: &mut Thread,
    linear: u32,
    inst: &Inst,
    (dst, dst_space): (u64, Space),
    src: u64,
    size: u32,
    n: u32,
    api: AsyncApi,
    checking: bool,
) {
    let mut bytes = [0u8; 16];
    if n > 0 {
        let reads = th.counters.global_reads;
        // Read as 4-byte words where it can (so a diagnostic names the element), in pieces
        // whose size is a power of two (a source size of 12 reads 8 then 4), each checked
        // for bounds and alignment as a load.
        let mut pos = 0u32;
        while pos < n {
            let piece = [16u32, 8, 4, 2, 1]
                .into_iter()
                .find(|&p| p <= n - pos && pos.is_multiple_of(p))
                .unwrap_or(1);
            let elem = piece.min(4);
            let count = (piece / elem) as usize;
            let mut out = [0u64; 4];
            if !mem.load_vec(
                th,
                linear,
                inst,
                Space::Global,
                src.wrapping_add(pos as u64),
                elem,
                piece,
                &mut out[..count],
            ) {
                // Reported and skipped, like a load that fails its checks: nothing counted.
                th.counters.global_reads = reads;
                return;
            }
            for (i, v) in out[..count].iter().enumerate() {
                let at = (pos + i as u32 * elem) as usize;
                bytes[at..at + elem as usize].copy_from_slice(&v.to_le_bytes()[..elem as usize]);
            }
            pos += piece;
        }
        th.counters.global_reads = reads + 1;
    }
    let elem = size.min(4);
    let vals: Vec<u64> = bytes[..size as usize]
        .chunks(elem as usize)
        .map(super::access::le_read)
        .collect();
    let writes = th.counters.shared_writes;
    mem.store_vec(th, linear, inst, dst_space, dst, elem, &vals);
    let wrote = th.counters.shared_writes > writes;
    if wrote {
        th.counters.shared_writes = writes + 1;
    }
    if !(checking && wrote) {
        return;
    }
    let Some(off) = bar_offset(dst_space, dst) else {
        return;
    };
    let shared_len = mem.shared.len();
    mem.asyncs.add(
        Rec {
            thread: linear,
            tid: th.tid,
            dst: off,
            len: size,
            src,
            src_len: n,
            group: None,
            bar: None,
            cover: Cover::InFlight,
            line: inst.line,
            api,
            epoch: mem.epoch,
        },
        shared_len,
    );
}

impl Mem<'_> {
    /// The checker's side of a shared access while copies are recorded: a read of a
    /// destination before its wait, a write over one in flight.
    #[cold]
    #[inline(never)]
    pub(super) fn async_shared(
        &mut self,
        th: &Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        len: u32,
        kind: Kind,
    ) {
        let st = &self.asyncs;
        let mut found = None;
        for w in off / 4..(off + len as u64).div_ceil(4) {
            let Some(&i) = st.words.get(w as usize) else {
                break;
            };
            let Some(rec) = i
                .checked_sub(1)
                .and_then(|i| st.recs.get(i as usize)?.as_ref())
            else {
                continue;
            };
            let hazard = match kind {
                // Another thread's copy started since this thread's last barrier: the two
                // are unordered, a race the shared checker reports (its help is the barrier
                // that orders a buffer's reads before the copy that refills it).
                Kind::Read if rec.thread != linear && rec.epoch == self.epoch => st
                    .early_read(rec, linear)
                    .filter(|&h| h == AsyncHazard::ReadBeforeBarrier),
                Kind::Read => st.early_read(rec, linear),
                Kind::Write | Kind::Atomic => st
                    .in_flight(rec)
                    .then_some(AsyncHazard::DestinationOverwritten),
            };
            if let Some(h) = hazard {
                found = Some((st.facts_of(rec, h, linear), w * 4));
                break;
            }
        }
        let Some((mut facts, at)) = found else {
            return;
        };
        let elem = shared_element(self, at.max(off), len.min(4));
        facts.element = elem.clone();
        self.report_async(
            th,
            inst,
            facts,
            elem.map(|e| format!("shared {}[{}]", e.name, e.index))
                .unwrap_or(format!("shared offset {at}")),
        );
    }

    /// A global write while copies are recorded: over the source of one in flight?
    #[cold]
    #[inline(never)]
    pub(super) fn async_global_write(
        &mut self,
        th: &Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        len: u32,
    ) {
        let st = &self.asyncs;
        let mut found = None;
        for w in addr / 4..(addr + len as u64).div_ceil(4) {
            let Some(&i) = st.src_words.get(&w) else {
                continue;
            };
            let Some(rec) = i
                .checked_sub(1)
                .and_then(|i| st.recs.get(i as usize)?.as_ref())
            else {
                continue;
            };
            if st.in_flight(rec) {
                found = Some(st.facts_of(rec, AsyncHazard::SourceOverwritten, linear));
                break;
            }
        }
        let Some(mut facts) = found else {
            return;
        };
        let elem = global_element(self, addr);
        facts.element = elem.clone();
        let what = elem.map_or(format!("global address {addr:#x}"), |e| {
            format!("{}[{}]", e.name, e.index)
        });
        self.report_async(th, inst, facts, what);
    }

    fn report_async(&mut self, th: &Thread, inst: &Inst, facts: AsyncFacts, what: String) {
        let site: Site = self.site(th, inst);
        let who = self.namer.who(th.tid, self.block);
        let line = site.line;
        let issuer = if facts.own_copy {
            "its own async copy".to_string()
        } else {
            format!(
                "the async copy {}",
                self.namer.who(facts.issuer, self.block)
            )
        };
        let started = format!("{issuer} started on line {}", facts.issue_line);
        let message = match facts.hazard {
            AsyncHazard::ReadBeforeWait => format!(
                "{who} read {what} (line {line}) while {started} was still in flight: no wait had covered the copy"
            ),
            AsyncHazard::ReadBeforeBarrier => format!(
                "{who} read {what} (line {line}), which {started} fills; that thread waited for the copy, but no barrier came between its wait and this read"
            ),
            AsyncHazard::DestinationOverwritten => format!(
                "{who} wrote {what} (line {line}) while {started} was still copying into it"
            ),
            AsyncHazard::SourceOverwritten => format!(
                "{who} wrote {what} (line {line}) while {started} was still reading it"
            ),
            _ => format!("{who} misused an async copy at line {line}"),
        };
        let other = Some(facts.issue_line).filter(|&l| l > 0 && l != line);
        self.diags
            .report(DiagKind::AsyncCopy, Severity::Error, site, other, || {
                (message, Facts::AsyncCopy(facts))
            });
    }
}

#[cfg(test)]
mod tests {
    use crate::emu::value::{Buffer, ElemType, KernelArg};
    use crate::emu::{self, EmuOptions, LaunchConfig};

    /// One thread walks an mbarrier through its phases: arrivals and their tokens, the pending
    /// count, waits by token and by parity, and a transaction count that holds a phase open.
    #[test]
    fn mbarrier_phases_tokens_parity_and_transactions() {
        let ptx = "
.version 8.5
.target sm_90
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 8 .b64 bar2;
.visible .entry k(.param .u64 out)
{
 .reg .pred %p<8>;
 .reg .b32 %r<12>;
 .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [out];
 cvta.to.global.u64 %rd1, %rd1;
 mbarrier.init.shared.b64 [bar], 2;
 mbarrier.arrive.shared.b64 %rd2, [bar];
 mbarrier.test_wait.shared.b64 %p1, [bar], %rd2;
 mbarrier.pending_count.b64 %r1, %rd2;
 mbarrier.arrive.shared.b64 %rd3, [bar];
 mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
 mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
 mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 1;
 mbarrier.init.shared.b64 [bar2], 1;
 mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar2], 16;
 mbarrier.test_wait.shared.b64 %p5, [bar2], %rd4;
 mbarrier.complete_tx.shared::cta.b64 [bar2], 16;
 mbarrier.test_wait.shared.b64 %p6, [bar2], %rd4;
 selp.u32 %r2, 1, 0, %p1;
 st.global.u32 [%rd1], %r2;
 st.global.u32 [%rd1+4], %r1;
 selp.u32 %r3, 1, 0, %p2;
 st.global.u32 [%rd1+8], %r3;
 selp.u32 %r4, 1, 0, %p3;
 st.global.u32 [%rd1+12], %r4;
 selp.u32 %r5, 1, 0, %p4;
 st.global.u32 [%rd1+16], %r5;
 selp.u32 %r6, 1, 0, %p5;
 st.global.u32 [%rd1+20], %r6;
 selp.u32 %r7, 1, 0, %p6;
 st.global.u32 [%rd1+24], %r7;
 ret;
}
";
        let module = crate::ptx::parse(ptx).expect("parses");
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        let out = KernelArg::Buffer(Buffer::zeros("out", ElemType::U32, 7));
        let r = emu::run(&module, "k", &cfg, vec![out], &EmuOptions::default()).expect("runs");
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        // Not complete after one of two arrivals (one pending); complete after the second, so
        // the phase of parity 0 is done and the one of parity 1 is not; a phase held open by
        // 16 bytes of transactions completes when they do.
        assert_eq!(r.buffers[0].values(), [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
    }
}
