//! The block's side of named barriers (`bar.sync id, count`, `bar.arrive id, count`): a
//! thread that reaches one stops with `Stop::Wait`, and the scheduler hands it here. Each
//! barrier counts its arrivals as the hardware does, 32 for each warp that arrives however
//! many of its lanes run the instruction (PTX ISA, `bar`/`barrier`: barriers are executed per
//! warp, and the count must be a multiple of the warp size; one that is not is reported at its
//! line), and releases its waiters at the count; a producer's `bar.arrive` counts without
//! waiting. When
//! no thread can run and some wait at a named barrier whose count never came, it is reported
//! as barrier divergence (the threads that never arrived) and its waiters are let go.
//!
//! A child of `emu::block` (it works on the block's threads), kept beside the rest of the
//! async family in `emu/async_copy/`.

use super::{thread_list, Block, State};
use crate::emu::async_copy::{Named, NAMED_BARRIERS};
use crate::emu::facts::{AsyncFacts, AsyncHazard, Facts};
use crate::emu::result::{DiagKind, Severity};
use crate::ptx::ir::{AsyncApi, AsyncOp, Op};

/// Threads a warp counts for at a named barrier, however many of its lanes arrive.
const WARP: u32 = 32;

impl Block<'_> {
    /// The named barrier thread `t` stopped at: (id, count, arrive-only), if it is at one. No
    /// count is every thread of the block, in whole warps.
    fn named_at(&self, t: usize) -> Option<(usize, Option<u32>, bool)> {
        let th = &self.threads[t];
        let f = &self.mem.launch.module.functions[th.func as usize];
        let Op::Async(a) = &f.body.get(th.pc as usize)?.op else {
            return None;
        };
        let AsyncOp::Named { id, count, arrive } = a.as_ref() else {
            return None;
        };
        let id = self.mem.val(th, id) as usize % NAMED_BARRIERS;
        let count = count.as_ref().map(|c| self.mem.val(th, c) as u32);
        Some((id, count, *arrive))
    }

    /// Thread `t` stopped at a barrier: if it is a named one, count its arrival (releasing the
    /// waiters at the count; an arrival goes on at once). Returns whether it was a named one.
    ///
    /// The hardware counts warps: the first lane of a warp to arrive adds 32 for the whole
    /// warp, its other lanes join that arrival. As the emulator runs lanes one after another,
    /// the barrier is released once the warps' count is reached and no lane of an arrived warp
    /// that could still come (ready, or at a warp collective) is on its way; lanes that
    /// finished or wait elsewhere are counted as the hardware counts them, with their warp.
    pub(super) fn named_barrier_arrival(&mut self, t: usize) -> bool {
        let Some((id, count, arrive)) = self.named_at(t) else {
            return false;
        };
        let line = self.line_of(t).0;
        let warps = (self.threads.len() as u32).div_ceil(WARP);
        let count = match count {
            None => warps * WARP,
            Some(c) if c == 0 || !c.is_multiple_of(WARP) => {
                self.report_named_count(t, id, c, line);
                // Go on as the warps it can only mean: the next multiple of 32.
                c.div_ceil(WARP).max(1).saturating_mul(WARP)
            }
            Some(c) => c,
        };
        let named = &mut self.mem.asyncs.named;
        if named.len() < NAMED_BARRIERS {
            named.resize(NAMED_BARRIERS, Named::default());
        }
        let nb = &mut named[id];
        if nb.arrived == 0 {
            nb.count = count;
            nb.line = line;
        } else if count > nb.count {
            // Threads that disagree on the count (undefined on a GPU): the barrier waits for
            // the larger, so a count too high for the threads that come is reported as stuck.
            nb.count = count;
            nb.line = line;
        }
        let (warp, lane) = (t as u32 / WARP, 1u32 << (t as u32 % WARP));
        // The warp's arrival this lane joins; a lane that already came (it arrived, went on,
        // and arrives again) starts another.
        match nb
            .slots
            .iter_mut()
            .find(|(w, lanes)| *w == warp && lanes & lane == 0)
        {
            Some((_, lanes)) => *lanes |= lane,
            None => {
                nb.slots.push((warp, lane));
                nb.arrived = nb.arrived.saturating_add(WARP);
            }
        }
        nb.arrivers.push(t as u32);
        if arrive {
            let th = &mut self.threads[t];
            th.pc += 1;
            th.state = State::Ready;
        } else {
            nb.waiters.push(t as u32);
        }
        if self.mem.asyncs.named[id].arrived >= self.mem.asyncs.named[id].count
            && !self.lanes_on_their_way(id)
        {
            self.release_named(id);
        }
        true
    }

    /// Whether a lane of a warp that arrived at named barrier `id` has not come yet but still
    /// may: it is ready to run, or waits at a warp collective.
    fn lanes_on_their_way(&self, id: usize) -> bool {
        let nb = &self.mem.asyncs.named[id];
        nb.slots.iter().any(|&(warp, lanes)| {
            (0..WARP).any(|l| {
                let t = (warp * WARP + l) as usize;
                lanes & (1 << l) == 0
                    && self
                        .threads
                        .get(t)
                        .is_some_and(|th| matches!(th.state, State::Ready | State::Warp))
            })
        })
    }

    /// Release named barrier `id`: its waiters go on, and what came before it is ordered
    /// before what comes after.
    fn release_named(&mut self, id: usize) {
        let done = std::mem::take(&mut self.mem.asyncs.named[id]);
        for &w in &done.waiters {
            let th = &mut self.threads[w as usize];
            th.pc += 1;
            th.state = State::Ready;
        }
        self.mem.asyncs.partial_barrier(&done.arrivers);
        self.named_barrier_orders();
    }

    /// `bar.sync id, count` with a count that is not a whole number of warps: the hardware
    /// counts 32 per warp, so such a count is undefined (PTX ISA: a multiple of the warp size).
    fn report_named_count(&mut self, t: usize, id: usize, count: u32, line: u32) {
        if !self.mem.launch.opts.checkers {
            return;
        }
        let site = self.site(t);
        let who = self.mem.namer.who(self.threads[t].tid, self.mem.block);
        let facts = AsyncFacts {
            barrier_id: id as u32,
            count,
            ..AsyncFacts::new(AsyncHazard::NamedBarrierCount)
        };
        self.mem.diags.report(DiagKind::BarrierDivergence, Severity::Error, site, None, || {
            (
                format!("{who} reached named barrier {id} (line {line}) with a count of {count} threads, which is not a multiple of 32: the hardware counts whole warps, 32 for each warp that arrives"),
                Facts::AsyncCopy(facts),
            )
        });
    }

    /// What a named barrier's release orders, for the checkers: everything before it against
    /// everything after, as a block barrier does. Threads outside it are ordered too (the
    /// checkers keep one barrier epoch for the block), so a race between two threads that
    /// both stay out of a named barrier may go unreported; none is reported that is not one.
    fn named_barrier_orders(&mut self) {
        self.mem.resolve_uninit();
        self.mem.epoch = self.mem.epoch.wrapping_add(1);
        self.mem.order.barrier();
        self.mem.global_barrier();
    }

    /// No thread can run and some wait at a named barrier: report the first such barrier (its
    /// count never arrives) and let its waiters go. Returns whether there was one.
    pub(super) fn release_stuck_named_barrier(&mut self) -> bool {
        // A barrier whose warps came, some lanes of them not (they finished or wait
        // elsewhere): released as the hardware releases it, counting the warps.
        if let Some(id) = (0..self.mem.asyncs.named.len()).find(|&i| {
            let nb = &self.mem.asyncs.named[i];
            !nb.waiters.is_empty() && nb.arrived >= nb.count
        }) {
            self.release_named(id);
            return true;
        }
        let Some(id) = (0..self.mem.asyncs.named.len())
            .find(|&i| !self.mem.asyncs.named[i].waiters.is_empty())
        else {
            return false;
        };
        let nb = std::mem::take(&mut self.mem.asyncs.named[id]);
        let first = nb.waiters[0] as usize;
        let mut site = self.site(first);
        site.line = nb.line;
        let namer = self.mem.namer;
        let arrived: Vec<u32> = nb.arrivers.clone();
        let exited: Vec<[u32; 3]> = (0..self.threads.len())
            .filter(|&t| self.threads[t].state == State::Exited && !arrived.contains(&(t as u32)))
            .map(|t| self.threads[t].tid)
            .collect();
        let elsewhere: Vec<[u32; 3]> = (0..self.threads.len())
            .filter(|&t| self.threads[t].state == State::Barrier && !arrived.contains(&(t as u32)))
            .map(|t| self.threads[t].tid)
            .collect();
        let missing = nb.count.saturating_sub(nb.arrived);
        let detail = if !exited.is_empty() {
            format!("{} finished without arriving", thread_list(&exited, namer))
        } else if !elsewhere.is_empty() {
            format!("{} wait at another barrier", thread_list(&elsewhere, namer))
        } else {
            "no other thread was left to arrive".to_string()
        };
        let block = namer.block(self.mem.block);
        let (line, count, got) = (nb.line, nb.count, nb.arrived);
        if self.mem.launch.opts.checkers {
            let facts = AsyncFacts {
                barrier_id: id as u32,
                count,
                arrived: got,
                api: AsyncApi::Ptx,
                ..AsyncFacts::new(AsyncHazard::NamedBarrierStuck)
            };
            self.mem.diags.report(DiagKind::BarrierDivergence, Severity::Error, site, None, || {
                (
                    format!("named barrier {id} of {block} (line {line}) waits for {count} threads, but only {got} arrived ({missing} never did): {detail}"),
                    Facts::AsyncCopy(facts),
                )
            });
        }
        for &w in &nb.waiters {
            let th = &mut self.threads[w as usize];
            th.pc += 1;
            th.state = State::Ready;
        }
        true
    }
}
