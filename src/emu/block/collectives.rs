//! Warp collectives (`shfl`, `vote`, `redux`, `match`, `__syncwarp`, `activemask`, and the
//! `.aligned` tensor-core instructions, whose mask is the whole warp and whose work is in
//! `tensor.rs`): a lane that reaches one waits; the collective completes once every live lane
//! of its mask waits at it, reading all sources before writing any result.

use super::{Block, Lane, Mem, State, Thread, ACTIVEMASK_PATIENCE};
use crate::emu::alu::atom_combine;
use crate::emu::facts::{Facts, LaneState, WarpSyncFacts};
use crate::emu::result::{DiagKind, Severity};
use crate::emu::technique::Family;
use crate::ptx::ir::*;

impl<'l> Block<'l> {
    /// Complete a warp collective once every live lane of its mask waits at one.
    /// With `force`, complete it with the lanes present and report the missing ones.
    /// Returns whether it completed.
    pub(super) fn try_warp_collective(&mut self, t: usize, force: bool) -> bool {
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
            // `.aligned` tensor instructions: the whole warp, every lane at the same one.
            Op::Tensor(_) => Operand::Imm(0xffff_ffff),
            Op::Activemask { .. } => return self.try_activemask(t, lanes),
            Op::Wmma(_) => {
                let met = crate::emu::tensor::wmma::try_complete(
                    &mut self.mem,
                    &mut self.threads[lanes.clone()],
                    lanes.start,
                    t,
                    force,
                );
                if let Some(met) = met {
                    self.mem.order.collective(warp, met);
                }
                return met.is_some();
            }
            _ => return false,
        };
        let mask = self.mem.val(th, &mask_op) as u32;
        let here = (th.func, th.pc);
        let is_syncwarp = matches!(inst.op, Op::BarWarpSync { .. });
        let is_tensor = matches!(inst.op, Op::Tensor(_));
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
                    Facts::WarpSync(WarpSyncFacts::MaskWithoutSelf { mask }),
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
        if !missing.is_empty() && !force {
            // The first wait at this collective: remember which live lanes were elsewhere.
            let absent = missing.iter().fold(0u32, |m, &l| m | 1 << (l % 32));
            match self.warp_absent[warp] {
                Some((f, p, _)) if (f, p) == here => {}
                _ => self.warp_absent[warp] = Some((here.0, here.1, absent)),
            }
            return false;
        }
        if let Some((f, p, absent)) = self.warp_absent[warp].take() {
            // Lanes that were live and elsewhere when the first lane waited here, and have
            // finished since without joining: they went past it (a guard they skipped, a
            // return), which CUDA leaves undefined whatever order the lanes ran in.
            let gone: Vec<usize> = lanes
                .clone()
                .filter(|&l| {
                    absent & (1 << (l % 32)) != 0 && self.threads[l].state == State::Exited
                })
                .collect();
            if (f, p) == here && !gone.is_empty() && self.mem.launch.opts.checkers {
                let site = self.site(t);
                let l = gone[0];
                let lane = (l % 32) as u32;
                let namer = self.mem.namer;
                let who = namer.thread(self.threads[l].tid);
                let others = match gone.len() {
                    1 => String::new(),
                    n => format!(" (nor did {} other lanes of the mask)", n - 1),
                };
                let arrived = present.iter().fold(0u32, |m, &p| m | 1 << (p % 32));
                self.mem.diags.report(DiagKind::WarpSync, Severity::Error, site, None, || {
                    (
                        format!("a warp-synchronous operation names lane {lane} ({who}) in its mask {mask:#010x}, but that lane never reached it{others}: it went past the call without making it (it took the other branch of an `if` around the call, or returned early) and finished"),
                        Facts::WarpSync(WarpSyncFacts::LaneMissing { mask, lane, lane_state: LaneState::Exited, arrived }),
                    )
                });
            }
        }
        if !missing.is_empty() {
            let site = self.site(t);
            let l = missing[0];
            let lane = l % 32;
            let other = self.line_of(l).0;
            let state = self.threads[l].state;
            let namer = self.mem.namer;
            let who = namer.thread(self.threads[l].tid);
            let arrived = present.iter().fold(0u32, |m, &p| m | 1 << (p % 32));
            self.mem.diags.report(DiagKind::WarpSync, Severity::Error, site, Some(other), || {
                let (where_, lane_state) = match state {
                    State::Barrier => (format!("is waiting at the __syncthreads() on line {other}"), LaneState::AtBarrier),
                    State::Warp => (format!("is waiting at a different warp-synchronous operation (line {other})"), LaneState::AtOtherWarpOp),
                    State::Exited => (format!("has finished at line {other} without making it (it took the other branch of an `if` around the call, or returned early)"), LaneState::Exited),
                    _ => (format!("is at line {other}"), LaneState::Elsewhere),
                };
                (
                    format!("a warp-synchronous operation names lane {lane} ({who}) in its mask {mask:#010x}, but that lane never joins it: it {where_}"),
                    Facts::WarpSync(WarpSyncFacts::LaneMissing { mask, lane: lane as u32, lane_state, arrived }),
                )
            });
        }
        present.sort_unstable();
        if is_tensor {
            let family = match &inst.op {
                Op::Tensor(op) => match **op {
                    crate::ptx::tensor::TensorOp::Mma(_) => Some(Family::Mma),
                    crate::ptx::tensor::TensorOp::Ldmatrix(_) => Some(Family::Ldmatrix),
                    _ => None,
                },
                _ => None,
            };
            self.complete_tensor(&present);
            for &l in &present {
                let th = &mut self.threads[l];
                if let Some(f) = family {
                    th.counters.count(f, 1);
                }
                th.pc += 1;
                th.state = State::Ready;
            }
            let met = present.iter().fold(0u32, |m, &p| m | 1 << (p % 32));
            self.mem.order.collective(warp, met);
            return true;
        }
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
        // Whether a shuffle moved anything: one in which every lane reads its own value
        // (`__shfl_sync(m, v, lane)`, a xor of 0) is not counted (`moves_something`).
        // A shuffle's source lane and in-range flag per lane, found once.
        let mut moved = false;
        let mut sources = [(0usize, false); 32];
        for &(l, inst) in &insts {
            let th = &self.threads[l];
            active |= 1 << (l % 32);
            if let Op::Shfl { mode, b, c, .. } = &inst.op {
                let (b, c) = (self.mem.val(th, b) as u32, self.mem.val(th, c) as u32);
                sources[l % 32] = shfl_source(*mode, (l % 32) as u32, b, c);
                moved |= sources[l % 32].0 != l % 32;
            }
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
            let writes: Vec<(u32, u64)> = match &inst.op {
                Op::Shfl { d, p, .. } => {
                    let (src, ok) = sources[lane as usize];
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
            let family = match &inst.op {
                Op::Shfl { .. } => moved.then_some(Family::Shuffles),
                Op::Vote { .. } => Some(Family::Votes),
                Op::Redux { .. } => Some(Family::WarpReduces),
                Op::MatchAny { .. } | Op::MatchAll { .. } => Some(Family::Matches),
                _ => None,
            };
            let th = &mut self.threads[l];
            if let Some(f) = family {
                th.counters.count(f, 1);
            }
            for (r, v) in writes {
                th.regs[r as usize] = v;
            }
            th.pc += 1;
            th.state = State::Ready;
        }
        // The lanes that met here are ordered with each other, and only they (`order.rs`).
        let met = present.iter().fold(0u32, |m, &l| m | 1 << (l % 32));
        self.mem.order.collective(warp, met);
        // A source lane missing because of a reported mask problem needs no second report.
        if let (Some((l, src)), true) = (bad_source, missing.is_empty() && !outside_mask) {
            self.report_inactive_source(l, warp * 32 + src);
        }
        true
    }

    /// The instruction thread `t` stands at (where it waits, when it waits).
    pub(super) fn op_at(&self, t: usize) -> Option<&Op> {
        let th = &self.threads[t];
        self.mem.launch.module.functions[th.func as usize]
            .body
            .get(th.pc as usize)
            .map(|i| &i.op)
    }

    pub(super) fn is_syncwarp_at(&self, t: usize) -> bool {
        matches!(self.op_at(t), Some(Op::BarWarpSync { .. }))
    }

    /// A shuffle read a lane that did not take part: its value is undefined on a GPU. A warning,
    /// since the value may go unused (but in a reduction it usually reaches lane 0).
    pub(super) fn report_inactive_source(&mut self, t: usize, src: usize) {
        let site = self.site(t);
        let namer = self.mem.namer;
        let who = namer.who(self.threads[t].tid, self.mem.block);
        let (lane, src_lane) = (t % 32, src % 32);
        let facts = Facts::WarpSync(WarpSyncFacts::ShuffleFromAbsent {
            src_lane: src_lane as u32,
            exited: self
                .threads
                .get(src)
                .is_some_and(|th| th.state == State::Exited),
            exists: src < self.threads.len(),
        });
        let why = match self.threads.get(src).map(|th| th.state) {
            None => format!(
                "that lane does not exist (the block has {} threads)",
                self.threads.len()
            ),
            Some(State::Exited) => "that lane has already finished (it took the other branch of an if around the shuffle, or returned early)".to_string(),
            Some(_) => "that lane is not taking part in this shuffle (not in the mask, or elsewhere in the code)".to_string(),
        };
        let src_who = self
            .threads
            .get(src)
            .map_or(String::new(), |th| format!(" ({})", namer.thread(th.tid)));
        self.mem.diags.report(DiagKind::WarpSync, Severity::Warning, site, None, || {
            (
                format!("{who} (lane {lane}) read a value from lane {src_lane}{src_who} with a shuffle, but {why}, so the value it got is undefined"),
                facts,
            )
        });
    }

    /// `activemask`: the lanes executing it together. Threads run one at a time here, so
    /// "together" is modelled as convergence: once no lane of the warp can run any further
    /// (each waits somewhere or has exited), the lanes waiting at this same instruction in the
    /// same call depth form the mask. So `if (c) { m = __activemask(); ... }` names exactly
    /// the lanes that took the branch, independent of scheduling.
    pub(super) fn try_activemask(&mut self, t: usize, lanes: std::ops::Range<usize>) -> bool {
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
            th.counters.count(Family::Activemask, 1);
            th.pc += 1;
            th.state = State::Ready;
            th.waited = 0;
        }
        true
    }

    pub(super) fn is_activemask_at(&self, t: usize) -> bool {
        matches!(self.op_at(t), Some(Op::Activemask { .. }))
    }
}

/// The lane a shuffle of `lane` reads (its own when the source is out of its segment) and
/// whether the source was in range (the `p` result), from the shuffle's `b` and `c`.
fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (usize, bool) {
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
    (src, ok)
}

/// A warp collective (`shfl`, `vote`, `redux`, `match`, `__syncwarp`) reached by the lanes
/// `on` of a warp running in lockstep (`lockstep.rs`, registers in `file`, register-major):
/// completes it as `Block::try_warp_collective` would once the last of them arrived, when
/// that would complete it with nothing to report: every lane's mask is exactly `on`, and
/// every shuffle reads a lane of `on`. Then it counts the lanes' instruction families and
/// orders them (`order.rs`) the same way. Otherwise returns false having changed nothing,
/// and the lanes go on alone to it, where the general path waits, completes and reports.
/// The caller makes sure `on` is every live lane, none waiting elsewhere.
pub(super) fn lockstep_collective(
    mem: &mut Mem,
    warp: &mut [Thread],
    warp_index: usize,
    file: &mut [u64],
    on: u32,
    op: &Op,
) -> bool {
    let mask_op = match op {
        Op::Shfl { mask, .. }
        | Op::Vote { mask, .. }
        | Op::Redux { mask, .. }
        | Op::MatchAny { mask, .. }
        | Op::MatchAll { mask, .. }
        | Op::BarWarpSync { mask } => mask,
        _ => return false,
    };
    let m = &*mem;
    let val =
        |file: &mut [u64], i: usize, o: &Operand| m.val_in(&warp[i], &Lane { file, lane: i }, o);
    let mut lanes = on;
    while lanes != 0 {
        let i = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        if val(file, i, mask_op) as u32 != on {
            return false;
        }
    }
    // All lanes read their sources before any writes.
    let mut out = [0u64; 32];
    let mut pred = [0u64; 32];
    let mut vals = [0u64; 32];
    let each = |f: &mut dyn FnMut(usize)| {
        let mut lanes = on;
        while lanes != 0 {
            let i = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            f(i);
        }
    };
    let (d, p, family) = match op {
        Op::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
            ..
        } => {
            each(&mut |i| vals[i] = val(file, i, a));
            let mut bad = false;
            let mut moved = false;
            each(&mut |i| {
                let (b, c) = (val(file, i, b) as u32, val(file, i, c) as u32);
                let (src, ok) = shfl_source(*mode, i as u32, b, c);
                bad |= on & (1 << src) == 0;
                moved |= src != i;
                out[i] = vals[src] & 0xffff_ffff;
                pred[i] = ok as u64;
            });
            if bad {
                // A source lane that takes no part: the general path warns about it.
                return false;
            }
            // Every lane read its own value: nothing moved, nothing counted.
            (Some(*d), *p, moved.then_some(Family::Shuffles))
        }
        Op::Vote {
            mode, d, p, negate, ..
        } => {
            let mut ballot = 0u32;
            each(&mut |i| {
                if (val(file, i, p) != 0) != *negate {
                    ballot |= 1 << i;
                }
            });
            let v = match mode {
                VoteMode::Ballot => ballot as u64,
                VoteMode::All => (ballot == on) as u64,
                VoteMode::Any => (ballot != 0) as u64,
                VoteMode::Uni => (ballot == 0 || ballot == on) as u64,
            };
            each(&mut |i| out[i] = v);
            (Some(*d), None, Some(Family::Votes))
        }
        Op::Redux { op, ty, d, a, .. } => {
            let mut v: Option<u64> = None;
            each(&mut |i| {
                let x = val(file, i, a);
                v = Some(match v {
                    Some(acc) => atom_combine(*op, *ty, acc, x, 0),
                    None => x,
                });
            });
            let v = v.unwrap_or(0);
            each(&mut |i| out[i] = v);
            (Some(*d), None, Some(Family::WarpReduces))
        }
        Op::MatchAny { d, a, .. } => {
            each(&mut |i| vals[i] = val(file, i, a));
            each(&mut |i| {
                let mut same = 0u32;
                each(&mut |j| {
                    if vals[j] == vals[i] {
                        same |= 1 << j;
                    }
                });
                out[i] = same as u64;
            });
            (Some(*d), None, Some(Family::Matches))
        }
        Op::MatchAll { d, p, a, .. } => {
            each(&mut |i| vals[i] = val(file, i, a));
            let first = vals[on.trailing_zeros() as usize % 32];
            let mut all = true;
            each(&mut |i| all &= vals[i] == first);
            each(&mut |i| {
                out[i] = if all { on as u64 } else { 0 };
                pred[i] = all as u64;
            });
            (Some(*d), *p, Some(Family::Matches))
        }
        _ => (None, None, None),
    };
    each(&mut |i| {
        if let Some(d) = d {
            file[d as usize * 32 + i] = out[i];
        }
        if let Some(p) = p {
            file[p as usize * 32 + i] = pred[i];
        }
        if let Some(f) = family {
            warp[i].counters.count(f, 1);
        }
    });
    mem.order.collective(warp_index, on);
    true
}
