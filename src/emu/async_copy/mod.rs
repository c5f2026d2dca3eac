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

use super::facts::{AsyncFacts, AsyncHazard};
use super::memory::{classify, Window};
use crate::ptx::ir::AsyncApi;
use std::collections::HashMap;

pub(super) mod instrs;

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
    /// Groups a wait left in flight (`cp_async_overlap`). Each is credited to its thread
    /// only when some thread reads what its copies wrote, so a copy nobody reads (one
    /// issued only to be in flight at a wait) overlaps nothing.
    overlaps: Vec<Overlap>,
    /// Per shared word: the overlap whose copy wrote it last, plus one (0: none, or the word
    /// was written since).
    landed: Vec<u32>,
    /// Overlaps credited, per thread (taken when the block ends: `take_overlap_credits`).
    credits: Vec<u64>,
}

/// A thread's committed group that waits went past while it was still in flight.
struct Overlap {
    thread: u32,
    group: u32,
    /// Waits that left it in flight, with work after them, not yet credited.
    pending: u32,
    /// Waits that left it in flight since the thread's last wait, and the thread's shared
    /// reads then: at its next wait they count (`pending`) only if it read shared memory in
    /// between (computed while the copy was in flight); a wait drained at once by another
    /// (`wait_prior(1)` then `wait_prior(0)`) overlaps nothing.
    tentative: u32,
    reads_at: u64,
}

impl AsyncState {
    /// Whether any copy is recorded (the memory path's one test).
    #[inline(always)]
    pub(super) fn live(&self) -> bool {
        self.live != 0 || !self.overlaps.is_empty()
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
        if !self.overlaps.is_empty() {
            self.overlaps.clear();
            self.landed.fill(0);
        }
        self.credits.clear();
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

    /// Thread `t` waits, having made `reads` shared reads so far: the waits of its groups
    /// before this one become overlaps if it read shared memory since (else they are dropped).
    fn settle_tentative(&mut self, t: u32, reads: u64) {
        for o in self.overlaps.iter_mut().filter(|o| o.thread == t) {
            if reads > o.reads_at {
                o.pending += o.tentative;
            }
            o.tentative = 0;
        }
    }

    /// A wait of thread `t` (`reads` its shared reads so far) went on while its group `group`
    /// was still in flight: a tentative overlap, an overlap once the thread works before its
    /// next wait (`settle_tentative`), credited when the group's data is read
    /// (`shared_access`).
    fn overlapped(&mut self, t: u32, group: u32, reads: u64) {
        let idx = match self
            .overlaps
            .iter()
            .position(|o| o.thread == t && o.group == group)
        {
            Some(i) => i,
            None => {
                self.overlaps.push(Overlap {
                    thread: t,
                    group,
                    pending: 0,
                    tentative: 0,
                    reads_at: 0,
                });
                self.overlaps.len() - 1
            }
        };
        self.overlaps[idx].tentative += 1;
        self.overlaps[idx].reads_at = reads;
        if self.landed.len() < self.words.len() {
            self.landed.resize(self.words.len(), 0);
        }
        let Some(pt) = self.threads.get(t as usize) else {
            return;
        };
        for &i in &pt.recs {
            let Some(rec) = self.recs.get(i as usize).and_then(Option::as_ref) else {
                continue;
            };
            if rec.group != Some(group) || rec.cover != Cover::InFlight {
                continue;
            }
            for w in rec.dst / 4..(rec.dst + rec.len as u64).div_ceil(4) {
                if let Some(slot) = self.landed.get_mut(w as usize) {
                    *slot = idx as u32 + 1;
                }
            }
        }
    }

    /// A shared access of `len` bytes at `off`: a read of what an overlapped group's copy
    /// wrote credits its overlaps to the issuing thread; a write (an atomic too) makes the
    /// word no longer the copy's.
    fn shared_access(&mut self, off: u64, len: u32, read: bool, write: bool) {
        if self.overlaps.is_empty() {
            return;
        }
        for w in off / 4..(off + len as u64).div_ceil(4) {
            let Some(slot) = self.landed.get_mut(w as usize) else {
                break;
            };
            let Some(idx) = slot.checked_sub(1) else {
                continue;
            };
            if write {
                *slot = 0;
            }
            if read {
                if let Some(o) = self.overlaps.get_mut(idx as usize) {
                    let t = o.thread as usize;
                    if self.credits.len() <= t {
                        self.credits.resize(t + 1, 0);
                    }
                    self.credits[t] += std::mem::take(&mut o.pending) as u64;
                }
            }
        }
    }

    /// The overlaps credited in the block, per thread (the block's end).
    pub(super) fn take_overlap_credits(&mut self) -> impl Iterator<Item = (usize, u64)> {
        std::mem::take(&mut self.credits)
            .into_iter()
            .enumerate()
            .filter(|&(_, n)| n != 0)
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
