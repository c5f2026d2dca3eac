//! The block's side of named barriers (`bar.sync id, count`, `bar.arrive id, count`): a
//! thread that reaches one stops with `Stop::Wait`, and the scheduler hands it here. Each
//! barrier counts its arrivals (threads, as the emulator runs threads one at a time) and
//! releases its waiters at the count; a producer's `bar.arrive` counts without waiting. When
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

impl Block<'_> {
    /// The named barrier thread `t` stopped at: (id, count, arrive-only), if it is at one.
    fn named_at(&self, t: usize) -> Option<(usize, u32, bool)> {
        let th = &self.threads[t];
        let f = &self.mem.launch.module.functions[th.func as usize];
        let Op::Async(a) = &f.body.get(th.pc as usize)?.op else {
            return None;
        };
        let AsyncOp::Named { id, count, arrive } = a.as_ref() else {
            return None;
        };
        let id = self.mem.val(th, id) as usize % NAMED_BARRIERS;
        let all = self.threads.len() as u32;
        let count = count.as_ref().map_or(all, |c| self.mem.val(th, c) as u32);
        Some((id, count, *arrive))
    }

    /// Thread `t` stopped at a barrier: if it is a named one, count its arrival (releasing the
    /// waiters at the count; an arrival goes on at once). Returns whether it was a named one.
    pub(super) fn named_barrier_arrival(&mut self, t: usize) -> bool {
        let Some((id, count, arrive)) = self.named_at(t) else {
            return false;
        };
        let line = self.line_of(t).0;
        let named = &mut self.mem.asyncs.named;
        if named.len() < NAMED_BARRIERS {
            named.resize(NAMED_BARRIERS, Named::default());
        }
        let nb = &mut named[id];
        if nb.arrived == 0 {
            nb.count = count.max(1);
            nb.line = line;
        } else if count > nb.count {
            // Threads that disagree on the count (undefined on a GPU): the barrier waits for
            // the larger, so a count too high for the threads that come is reported as stuck.
            nb.count = count;
            nb.line = line;
        }
        nb.arrived += 1;
        nb.arrivers.push(t as u32);
        if arrive {
            let th = &mut self.threads[t];
            th.pc += 1;
            th.state = State::Ready;
        } else {
            nb.waiters.push(t as u32);
        }
        if nb.arrived >= nb.count {
            let done = std::mem::take(nb);
            for &w in &done.waiters {
                let th = &mut self.threads[w as usize];
                th.pc += 1;
                th.state = State::Ready;
            }
            self.mem.asyncs.partial_barrier(&done.arrivers);
            self.named_barrier_orders();
        }
        true
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
