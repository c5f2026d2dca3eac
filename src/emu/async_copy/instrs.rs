//! The family's instructions, run for one thread on its block's state: `exec` (copies,
//! groups, mbarriers, named barriers) and the memory path's checks against the copies in flight
//! (`Mem::async_shared`, `Mem::async_global_write`). The state itself is `async_copy/mod.rs`'s.

use super::*;
use crate::emu::access_kind::Kind;
use crate::emu::block::{Mem, Regs, Thread};
use crate::emu::diag::Site;
use crate::emu::facts::{Element, Facts};
use crate::emu::result::{DiagKind, Severity};
use crate::emu::technique::{words, Family};
use crate::ptx::ir::{Address, AsyncApi, AsyncOp, Inst, Space};

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
pub(in crate::emu) fn exec<R: Regs + ?Sized>(
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
            th.counters.count(Family::CpAsync, 1);
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
                let mut left: Vec<u32> = Vec::new();
                for i in recs {
                    if let Some(r) = st.recs.get_mut(i as usize).and_then(Option::as_mut) {
                        let covered =
                            *all || r.group.is_some_and(|g| g.saturating_add(*n) < committed);
                        if covered {
                            r.cover = Cover::Waited;
                        } else if let (Some(g), Cover::InFlight) = (r.group, r.cover) {
                            if !left.contains(&g) {
                                left.push(g);
                            }
                        }
                    }
                }
                // Groups still loading while the thread goes on: copies overlapping work, if
                // the thread works before its next wait, counted once their data is read
                // (`AsyncState::settle_tentative`, `AsyncState::shared_access`).
                let reads = th.counters.shared_reads;
                st.settle_tentative(linear, reads);
                for g in left {
                    st.overlapped(linear, g, reads);
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
            let (msg, element) = crate::emu::diag::shared_oob_message(
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
                space: crate::emu::facts::Space::Shared,
                access: crate::emu::facts::Access::Atomic,
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
    let var = crate::emu::diag::nearest_shared_var(&mem.launch.shared_vars, off)?;
    Some(crate::emu::diag::shared_element(var, off, size))
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
        th.counters.global_reads = reads + words(n as u64);
    }
    let elem = size.min(4);
    let vals: Vec<u64> = bytes[..size as usize]
        .chunks(elem as usize)
        .map(crate::emu::access::le_read)
        .collect();
    let writes = th.counters.shared_writes;
    mem.store_vec(th, linear, inst, dst_space, dst, elem, &vals);
    let wrote = th.counters.shared_writes > writes;
    if wrote {
        th.counters.shared_writes = writes + words(size as u64);
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
    pub(in crate::emu) fn async_shared(
        &mut self,
        th: &Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        len: u32,
        kind: Kind,
    ) {
        self.asyncs
            .shared_access(off, len, kind != Kind::Write, kind != Kind::Read);
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
    pub(in crate::emu) fn async_global_write(
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
