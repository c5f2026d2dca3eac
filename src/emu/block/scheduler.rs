//! The block's scheduler: runs each ready thread for a quantum of instructions, in a fixed
//! order (so runs are deterministic), until it waits at a barrier or warp collective or exits;
//! releases barriers (reporting divergence) once no thread can run.

use super::lockstep::Together;
use super::{thread_list, Block, BlockOutput, State, Stop, ACTIVEMASK_PATIENCE, QUANTUM};
use crate::emu::facts::Facts;
use crate::emu::perf;
use crate::emu::printf;
use crate::emu::result::{DiagKind, PerfStats, Severity};
use crate::emu::technique::Family;
use crate::ptx::ir::*;

/// Executed instructions are added to the launch-wide count in batches of at most this many
/// (one shared atomic per thread switch would make cores fight over its cache line).
const STEP_BATCH: u64 = 1 << 16;

/// The block's count of executed instructions.
struct Tally {
    instructions: u64,
    /// Not yet added to the launch's count.
    unreported: u64,
    /// Added to the launch's count (and the limit checked) once this many are unreported.
    batch: u64,
    /// In this pass, a thread ran out of its quantum or was released by a warp collective,
    /// so there is someone to run in the next.
    ready_left: bool,
}

/// Why a block stops before it is done.
enum Halt {
    /// The launch was stopped elsewhere (another block).
    Aborted,
    /// This block stops the launch, for this reason.
    Fatal(String),
}

/// A block run in slices (`Block::run_slice`): its count of instructions between slices.
pub(crate) struct Slices(Tally);

/// How far `Block::advance` got.
enum Advance {
    /// The block is done (or must stop, with this message).
    Done(Option<String>),
    /// A pass left threads ready (`slice` only): the block gives way and goes on later.
    Yielded,
}

impl<'l> Block<'l> {
    /// Run the block to completion (or until the launch must stop).
    pub fn run(&mut self) -> BlockOutput {
        let mut tally = self.tally();
        let fatal = match self.advance(&mut tally, false) {
            Advance::Done(fatal) => fatal,
            Advance::Yielded => None,
        };
        self.finish(tally, fatal)
    }

    fn tally(&self) -> Tally {
        Tally {
            instructions: 0,
            unreported: 0,
            batch: (self.mem.launch.opts.step_limit / 16).clamp(1, STEP_BATCH),
            ready_left: false,
        }
    }

    /// Start running the block in slices, beside other blocks that may wait for it (a
    /// cooperative launch, `emu/cooperative.rs`).
    pub(crate) fn start_slices(&self) -> Slices {
        Slices(self.tally())
    }

    /// Run the block until a pass over its threads leaves some of them ready (a spin-wait, a
    /// long loop): `None`, it gives way; or until it is done: `Some` of the message that
    /// stops the launch, if one does. `finish` then makes its output.
    pub(crate) fn run_slice(&mut self, s: &mut Slices) -> Option<Option<String>> {
        match self.advance(&mut s.0, true) {
            Advance::Done(fatal) => Some(fatal),
            Advance::Yielded => None,
        }
    }

    /// The block's shared memory, to lay to rest between its slices (`emu/cluster.rs`).
    pub(crate) fn shared_mut(&mut self) -> &mut Vec<u8> {
        &mut self.mem.shared
    }

    /// Report that this block, run in slices, can never go on (`message`, `facts`), at its
    /// first ready thread: the step limit a GPU would run into.
    pub(crate) fn report_stuck(&mut self, message: String, facts: Facts) {
        let t = (0..self.threads.len())
            .find(|&t| self.threads[t].state == State::Ready)
            .unwrap_or(0);
        let site = self.site(t);
        self.mem
            .diags
            .report(DiagKind::StepLimit, Severity::Error, site, None, || {
                (message, facts)
            });
    }

    /// Whether this block reported a barrier only part of it reached.
    pub(crate) fn diverged(&self) -> bool {
        self.mem.diags.has(DiagKind::BarrierDivergence)
    }

    /// The output of a block run in slices, once `run_slice` said it is done.
    pub(crate) fn finish_slices(&mut self, s: Slices, fatal: Option<String>) -> BlockOutput {
        self.finish(s.0, fatal)
    }

    /// Run ready threads, release barriers and force stuck collectives until the block is
    /// done; with `slice`, give way after any pass that leaves threads ready.
    fn advance(&mut self, tally: &mut Tally, slice: bool) -> Advance {
        let tally = &mut *tally;
        let mut fatal = None;
        let n = self.threads.len();
        'outer: loop {
            let mut progressed = false;
            tally.ready_left = false;
            let mut t = 0;
            while t < n {
                if t % 32 == 0 && self.mem.launch.lockstep {
                    if let Some(lanes) = self.lockstep_here(t, tally) {
                        progressed = true;
                        match self.run_lockstep(t, lanes, tally) {
                            Ok(()) => {}
                            Err(Halt::Aborted) => break 'outer,
                            Err(Halt::Fatal(msg)) => {
                                fatal = Some(msg);
                                break 'outer;
                            }
                        }
                        t += 32;
                        continue;
                    }
                }
                if self.threads[t].state != State::Ready {
                    t += 1;
                    continue;
                }
                if self.mem.launch.aborted() {
                    break 'outer;
                }
                progressed = true;
                self.hand_back_regs(t);
                let (stop, ran) = self.step(t, QUANTUM);
                if let Err(Halt::Fatal(msg)) = self.after_step(t, stop, ran, tally) {
                    fatal = Some(msg);
                    break 'outer;
                }
                t += 1;
            }
            if progressed {
                if self.activemask_waiting {
                    self.activemask_patience();
                    tally.ready_left = true;
                }
                if tally.ready_left {
                    if slice {
                        return Advance::Yielded;
                    }
                    continue;
                }
                // Nobody was left ready: the next pass would run no one (and do nothing).
            }
            // Nobody can run: release a barrier, force stuck warp collectives, or finish. One
            // look at every thread (a reduction comes here at each of its many barriers).
            let (mut at_warp, mut at_barrier) = (false, false);
            for th in &self.threads {
                at_warp |= th.state == State::Warp;
                at_barrier |= th.state == State::Barrier;
            }
            if at_warp {
                let waiting_warp: Vec<usize> = (0..self.threads.len())
                    .filter(|&t| self.threads[t].state == State::Warp)
                    .collect();
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
            if at_barrier {
                self.release_barrier();
                continue;
            }
            break;
        }
        Advance::Done(fatal)
    }

    /// A barrier interval ended: count `Family::SharedWriteWarps` on the lowest writing lane
    /// of each warp that wrote shared memory in it.
    fn credit_write_warps(&mut self) {
        for t in self.mem.take_write_warps() {
            if let Some(th) = self.threads.get_mut(t) {
                th.counters.count(Family::SharedWriteWarps, 1);
            }
        }
    }

    /// The block is done (or stopped with `fatal`): its output.
    fn finish(&mut self, tally: Tally, fatal: Option<String>) -> BlockOutput {
        // Count the rest without stopping anyone (a later block that crosses the limit
        // reports it).
        self.mem.launch.count_steps(tally.unreported);
        if fatal.is_none() {
            self.mem.resolve_uninit();
        }
        self.credit_write_warps();
        for (_, t) in std::mem::take(&mut self.mem.ordering) {
            if let Some(th) = self.threads.get_mut(t as usize) {
                th.counters.count(Family::OrderingBarriers, 1);
            }
        }
        for (t, n) in self.mem.asyncs.take_overlap_credits() {
            if let Some(th) = self.threads.get_mut(t) {
                th.counters.count(Family::CpAsyncOverlap, n);
            }
        }
        let mut stdout = printf::Output::default();
        for t in &self.threads {
            stdout.append(&t.out, printf::LAUNCH_OUTPUT_CAP);
        }
        // The reports leave with the output: what the memo remembers of them goes too.
        self.mem.race_memo = Default::default();
        BlockOutput {
            counters: self.threads.iter().map(|t| t.counters).collect(),
            diags: std::mem::take(&mut self.mem.diags),
            stdout,
            instructions: tally.instructions,
            lockstep: std::mem::take(&mut self.lockstep_ran),
            perf: match self.mem.accesses.as_mut() {
                Some(acc) if self.mem.launch.opts_perf() => {
                    perf::perf_of(acc, &self.mem.launch.perf_lines)
                }
                _ => PerfStats::default(),
            },
            trace: match self.mem.accesses.as_mut() {
                // A traced launch hands the logs over; otherwise the buffers (and their
                // capacity) stay for the next block.
                Some(acc) if self.mem.launch.trace => {
                    Some(acc.iter_mut().map(std::mem::take).collect())
                }
                Some(acc) => {
                    acc.iter_mut().for_each(Vec::clear);
                    None
                }
                None => None,
            },
            fatal,
            cross: std::mem::take(&mut self.mem.cross),
        }
    }

    /// The lanes of the warp starting at thread `t` to run in lockstep now, if any: every
    /// live lane ready at the same instruction, and the launch far enough from its step limit
    /// that no lane can cross it during the warp's turn (so the limit is found where the
    /// one-thread-at-a-time schedule finds it).
    fn lockstep_here(&self, t: usize, tally: &Tally) -> Option<u32> {
        let launch = self.mem.launch;
        let turn = 32 * QUANTUM + tally.unreported;
        if launch.steps_left() <= turn || launch.aborted() {
            return None;
        }
        self.lockstep_lanes(t)
    }

    /// The warp starting at thread `base` takes its turn: `lanes` in lockstep, then each lane
    /// alone, in lane order, for the rest of its quantum, counted and stopped as `step` would
    /// have been for it.
    fn run_lockstep(&mut self, base: usize, lanes: u32, tally: &mut Tally) -> Result<(), Halt> {
        let end = self.lockstep(base, lanes);
        if end.together.is_some() {
            // Every lane stopped at the same barrier or exit: nothing to start for any of
            // them, so count the warp's instructions at once. The sum reaches the launch's
            // count in other batches than lane by lane would, which changes nothing: the step
            // limit is out of reach (`lockstep_here`), and where a passed deadline (wall
            // clock, never deterministic) is noticed does not matter.
            if self.mem.launch.aborted() {
                return Err(Halt::Aborted);
            }
            let ran = end.ran_by_all(lanes, &self.lane_counts);
            self.lockstep_ran += ran;
            let last = base + 31 - lanes.leading_zeros() as usize;
            return self.count(last, ran, tally);
        }
        let mut m = lanes;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            let t = base + i;
            if self.mem.launch.aborted() {
                return Err(Halt::Aborted);
            }
            let ran = end.ran_by(i, &self.lane_counts);
            self.lockstep_ran += ran;
            let (stop, ran) = match end.together {
                Some(Together::Barrier) => (Stop::Wait, ran),
                Some(Together::Exit) => (Stop::Exit, ran),
                // The quantum spent in lockstep: the lane's turn is over (and lockstep may
                // still hold its registers, see `lockstep_run`).
                None if ran >= QUANTUM => (Stop::Quantum, ran),
                None => {
                    let (stop, more) = self.step(t, QUANTUM - ran);
                    (stop, ran + more)
                }
            };
            self.after_step(t, stop, ran, tally)?;
        }
        Ok(())
    }

    /// Count `ran` instructions of thread `t`, checking the launch's step limit (and deadline)
    /// once a batch is due, and at once at the turn that crosses the limit: the thread named
    /// is then the one whose turn crossed it, whatever batches the count went in before (in
    /// lockstep a warp's turn is counted at once), so both schedules name the same thread.
    #[inline(always)]
    fn count(&mut self, t: usize, ran: u64, tally: &mut Tally) -> Result<(), Halt> {
        tally.instructions += ran;
        tally.unreported += ran;
        // The turn that crosses the limit is checked at once only where this block ran half
        // the limit itself: a grid of short blocks that used it up together is stopped
        // between blocks by the launch, which says so, instead of blaming one thread here.
        let crossing = tally.instructions.saturating_mul(2) >= self.mem.launch.opts.step_limit
            && tally.unreported > self.mem.launch.steps_left();
        if tally.unreported >= tally.batch || crossing {
            let over = self.mem.launch.add_steps(tally.unreported);
            tally.unreported = 0;
            if over {
                self.report_step_limit(t);
                return Err(Halt::Fatal("step limit".to_string()));
            }
        }
        Ok(())
    }

    /// What follows a thread's turn of `ran` instructions that ended with `stop`: count them
    /// (checking the step limit), and start what its stop calls for.
    fn after_step(
        &mut self,
        t: usize,
        stop: Stop,
        ran: u64,
        tally: &mut Tally,
    ) -> Result<(), Halt> {
        self.count(t, ran, tally)?;
        match stop {
            Stop::Fatal(msg) => {
                self.mem.launch.abort();
                return Err(Halt::Fatal(msg));
            }
            Stop::Wait => {
                if self.threads[t].state == State::Barrier && self.named_barrier_arrival(t) {
                    tally.ready_left = true;
                } else if self.threads[t].state == State::Warp {
                    if self.try_warp_collective(t, false) {
                        tally.ready_left = true;
                    } else if self.is_activemask_at(t) {
                        self.activemask_waiting = true;
                    }
                }
            }
            Stop::Quantum => tally.ready_left = true,
            Stop::Exit => {}
        }
        Ok(())
    }

    pub(super) fn report_step_limit(&mut self, t: usize) {
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
        let in_loop = looping.is_some();
        // The clock is only a runaway backstop: when it, not the step limit, stopped the
        // launch, say how long and how far it ran on this machine, and where the thread was,
        // but not that it was stuck (`Facts::StoppedByClock`).
        if let Some(d) = self.mem.launch.stopped_by_clock() {
            let steps = self.mem.launch.steps_run();
            let elapsed = d.elapsed();
            let place = if in_loop {
                format!("in the loop on line {line}")
            } else {
                format!("on line {line}")
            };
            let message = format!(
                "the launch was stopped after {} s on this machine, {steps} instructions run (its step limit is {limit}, which it had not reached); {who} was {place} then",
                crate::emu::config::seconds_said(elapsed)
            );
            let facts = Facts::StoppedByClock {
                millis: elapsed.as_millis() as u64,
                steps,
                step_limit: limit,
                in_loop,
            };
            self.mem
                .diags
                .report(DiagKind::StepLimit, Severity::Error, site, None, || {
                    (message, facts)
                });
            return;
        }
        let what = if in_loop {
            format!("{who} was still in the loop on line {line}")
        } else {
            format!("{who} was still running line {line}")
        };
        let ran = format!("the kernel ran more than {limit} instructions");
        self.mem
            .diags
            .report(DiagKind::StepLimit, Severity::Error, site, None, || {
                (format!("{ran}; {what}"), Facts::StepLimit { in_loop })
            });
    }

    /// Release the threads waiting at barriers, reporting divergence first.
    fn release_barrier(&mut self) {
        if self.release_stuck_named_barrier() {
            return;
        }
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
                let which = if other_line == line {
                    format!("another pass through the __syncthreads() on line {other_line} (a second call of the function that holds it, or another loop pass)")
                } else {
                    format!("a different __syncthreads() (line {other_line})")
                };
                format!(
                    "{} wait at {which}",
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
                    "{} finished without reaching it (they returned early, or went past it outside the branch that holds it)",
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
            let tids = |ts: &[usize]| ts.iter().map(|&t| self.threads[t].tid).collect::<Vec<_>>();
            let facts = Facts::BarrierDivergence {
                arrived: at_first as u32,
                total: total as u32,
                other_barrier: other,
                exited: tids(&exited),
                elsewhere: tids(&elsewhere),
            };
            self.mem.diags.report(DiagKind::BarrierDivergence, Severity::Error, site, other, || {
                (
                    format!("only {at_first} of {total} threads of {block} reached the __syncthreads() on line {line}; {detail}"),
                    facts,
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
                th.counters.count(Family::Barriers, 1);
            } else if let Some(Inst {
                op: Op::BarSync { .. },
                ..
            }) = f.body.get(th.pc as usize)
            {
                th.counters.count(Family::Barriers, 1);
            }
            th.pc += 1;
            th.state = State::Ready;
        }
        self.mem.resolve_uninit();
        self.credit_write_warps();
        self.mem.epoch = self.mem.epoch.wrapping_add(1);
        self.mem.order.barrier();
        self.mem.global_barrier();
        self.mem.asyncs.block_barrier();
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
            th.counters.count(Family::Barriers, 1);
            th.pc += 1;
            th.state = State::Ready;
        }
        self.mem.resolve_uninit();
        self.credit_write_warps();
        self.mem.epoch = self.mem.epoch.wrapping_add(1);
        self.mem.order.barrier();
        self.mem.global_barrier();
        self.mem.asyncs.block_barrier();
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
