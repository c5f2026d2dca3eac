//! Warps in lockstep: when every live lane of a warp is ready at the same instruction, the
//! warp runs instruction by instruction, decoding and dispatching each instruction once and
//! executing it for the lanes in lane order inside its arm, until something needs a lane on
//! its own. Then each lane goes on alone (`step.rs`), in lane order, exactly as the scheduler
//! would have run it, with what is left of its quantum.
//!
//! The semantics stay "each thread runs until it waits, in thread order" (DESIGN decision 2).
//! Interleaving the lanes' instructions changes only the order of accesses of different lanes
//! to memory between two synchronisations, which is invisible unless lanes of the warp race,
//! and what is order-sensitive besides memory never runs here: atomics, printf, calls and
//! volatile loads (spin-waits) end the lockstep run, so they happen one lane at a time in lane
//! order as before. Warp collectives (`shfl`, `vote`, `redux`, `match`, `__syncwarp`) stay in
//! the run when every running lane reaches them together, none waits elsewhere, each lane's
//! mask is exactly those lanes and no shuffle reads another lane: then they complete here as
//! the general path completes them when the last lane arrives (`collectives.rs`,
//! `lockstep_collective`); any other case ends the run, and the general path waits, completes
//! and reports. `mma` and `ldmatrix` the whole warp reaches together complete here the same
//! way (`tensor.rs`, `lockstep_tensor`: `ldmatrix` only while accesses are not logged);
//! a WMMA instruction all 32 lanes reach together completes here through the general path's
//! `wmma::try_complete` (the lanes' registers handed back for it and taken again);
//! `stmatrix`, `movmatrix` and async copies still end the run. A race is reported by the checkers, and any
//! diagnostic makes `launch.rs` run the launch again one thread at a time, so what is reported
//! (its line, block and thread) is always what the one-thread-at-a-time schedule reports.
//!
//! What ends a lockstep run, each lane keeping its own program counter and count:
//! - an instruction the run does not take (anything but register arithmetic, plain loads and
//!   stores, branches, barriers, exits and the warp and tensor collectives above), or a
//!   volatile load:
//!   every lane is left at it;
//! - a branch the lanes disagree on while lanes already wait elsewhere after an earlier one
//!   (see `Park`: after a split, the lanes on the side later in the code wait until the others
//!   get there, then all go on together), or a barrier or exit reached while lanes wait: each
//!   lane at its own instruction;
//! - a load or store whose fast path declines for one lane (out of bounds, misaligned, ...):
//!   the lanes before it have done it, that lane and those after it are left at it, so the
//!   general path reports it for that lane as before;
//! - `bar.sync` or `exit`/`ret` reached by every lane: they all wait or exit there;
//! - the quantum.
//!
//! When it is used: only with the checkers on (with them off nothing would notice lanes
//! racing, and a starter missing its `__syncthreads()` could compute something else), never
//! for a traced launch, and only while the launch is more than a warp's turn from its step
//! limit (`Block::lockstep_here`), and the limit is noticed at the turn that crosses it
//! whatever batches the count went in (`Block::count`), so it is found at the same thread and
//! line.
//! Accesses the checkers cannot see race are never interleaved (`fast::solo_accesses`).
//! `GPUZZLE_LOCKSTEP=off` turns it off everywhere, to compare or to rule it out when chasing
//! an emulator bug.
//!
//! How it is fast: the warp's registers move into a register-major file (`WarpRegs`,
//! `regs[reg][lane]`) for the run, so an arm reads an operand's lanes side by side; register
//! arithmetic is compiled once per operation (`per_variant!`) over plain lane loops; a lane's
//! `ld.shared.v2/v4` of words the checkers have nothing to say about (a `float4` tile row every
//! lane reads) is read in the arm, any other lane's through the general path; a warp that
//! spends its quantum keeps its registers in the warp's file for its next turn; and the
//! whole loop is compiled twice, for baseline x86-64 and for AVX2 with FMA, picked at run time
//! (in the AVX2 build `fma` is the instruction inline, with no run-time test per lane).
//! Tests run both builds on the test kernels and compare everything, and a proptest compares
//! random kernels (forward skips, `tid`-dependent loops, barriers) in lockstep and one thread
//! at a time: outputs, counts and diagnostics.

use super::collectives;
use super::instrs;
use super::tensor;
use super::{Block, Lane, LaneCounts, State, Thread, WarpRegs, QUANTUM};
use crate::emu::access::le_read;
use crate::emu::alu;
use crate::emu::fast::{self, Fast, FastInst, FloatOp, IntOp, Src, NO_GUARD};
use crate::emu::technique::Family;
use crate::emu::tensor::wmma;
use crate::ptx::ir::*;

/// `$body` with `$op` bound to the variant `$e` holds, as a constant for each variant listed
/// (any other: the value), so that the lane loop in `$body` is compiled once per listed
/// variant with the variant known.
macro_rules! per_variant {
    ($e:expr, $T:ident :: { $($v:ident),* $(,)? }, |$op:ident| $body:expr) => {
        match $e {
            $($T::$v => {
                let $op = $T::$v;
                $body
            })*
            #[allow(unreachable_patterns)]
            other => {
                let $op = other;
                $body
            }
        }
    };
}

/// What `Deferred` counts, as indices: warp loads from global and shared memory, and the
/// fast path's scalar `f32` arithmetic (`Family::F32`), which is as hot as the loads.
const GLOBAL: usize = 0;
const SHARED: usize = 1;
const FLOAT32: usize = 2;

/// The global and shared reads of a lockstep run's warp loads (`global_load_warp`,
/// `shared_load_warp`) and its fast `f32` instructions, added to the lanes' counters when the
/// run ends instead of at each instruction: `whole[space]` for every lane of the run, plus
/// `LaneCounts::deferred[space]` per lane for those some lanes skipped (`partial`: there were
/// such; until then those are not cleared).
struct Deferred {
    whole: [u64; 3],
    partial: bool,
}

impl Deferred {
    /// A warp load from `space` by the lanes `on` of the run's `lanes`.
    #[inline(always)]
    fn add(&mut self, counts: &mut LaneCounts, space: usize, on: u32, lanes: u32) {
        if on == lanes {
            self.whole[space] += 1;
            return;
        }
        if !self.partial {
            self.partial = true;
            counts.deferred = [[0; 32]; 3];
        }
        let part = &mut counts.deferred[space];
        each(on, |i| part[i] += 1);
    }

    #[inline(always)]
    fn flush(&self, counts: &LaneCounts, warp: &mut [Thread], lanes: u32) {
        let [g, s, f] = self.whole;
        let [gp, sp, fp] = &counts.deferred;
        if self.partial {
            // The warp loads are 4-byte: one word, one load instruction each.
            for_lanes(warp, lanes, |i, th| {
                th.counters.global_reads += g + gp[i];
                th.counters.count(Family::GlobalLoadInstrs, g + gp[i]);
                th.counters.shared_reads += s + sp[i];
                th.counters.count(Family::F32, f + fp[i]);
            });
        } else if g | s | f != 0 {
            for_lanes(warp, lanes, |_, th| {
                th.counters.global_reads += g;
                th.counters.count(Family::GlobalLoadInstrs, g);
                th.counters.shared_reads += s;
                th.counters.count(Family::F32, f);
            });
        }
    }
}

/// How all lanes of a lockstep run stopped, when they stopped together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Together {
    /// Every lane waits at a `bar.sync`.
    Barrier,
    /// Every lane exited.
    Exit,
}

/// Where a lockstep run left the warp's lanes.
pub(super) struct WarpEnd {
    /// Instructions the run ran (the lanes of `ahead` ran one more; with `waited`, each lane
    /// `LaneCounts::behind[i]` fewer).
    pub(super) ran: u64,
    /// Lanes (bit i: lane i) that also ran the instruction the others are left at: those
    /// before the lane a memory access's fast path declined.
    pub(super) ahead: u32,
    /// Some lanes waited for lanes on the other side of a branch (see `Park`), and did not
    /// run the instructions `LaneCounts::behind` counts.
    pub(super) waited: bool,
    /// Every lane stopped (waits or exited); `None`: each lane goes on alone from its `pc`.
    pub(super) together: Option<Together>,
}

impl WarpEnd {
    /// Instructions lane `lane` (its offset in the warp) ran in lockstep (`counts`: the
    /// block's, as the run left them).
    pub(super) fn ran_by(&self, lane: usize, counts: &LaneCounts) -> u64 {
        let behind = if self.waited { counts.behind[lane] } else { 0 };
        self.ran + (self.ahead >> lane & 1) as u64 - behind
    }

    /// Instructions the lanes `lanes` (those of the run) ran in lockstep, together.
    pub(super) fn ran_by_all(&self, lanes: u32, counts: &LaneCounts) -> u64 {
        if !self.waited && self.ahead == 0 {
            return self.ran * lanes.count_ones() as u64;
        }
        let mut sum = 0;
        each(lanes, |i| sum += self.ran_by(i, counts));
        sum
    }
}

/// Lanes of a lockstep run that wait at an instruction ahead while the others run. Where a
/// branch splits the warp, the lanes on the side that comes later in the code wait there
/// until the others get there, then all go on together: an `if` without `else` waits at the
/// end of its body; with an `else`, the lanes of the `then` part wait at its end for those of
/// the `else`; lanes leaving a loop early wait at its exit for the rest. Only one group waits
/// at a time (later lanes may join it at the same instruction); any other split ends the run.
struct Park {
    /// The waiting lanes (none: nobody waits).
    lanes: u32,
    /// Where they wait (`usize::MAX` when nobody does: one test per instruction).
    pc: usize,
}

impl Park {
    const NONE: Park = Park {
        lanes: 0,
        pc: usize::MAX,
    };
}

/// `behind[i]` (instructions lane i did not run) as lanes `m` stop running at the run's count
/// `ran`: less `ran` now, plus the count when they go on (`go_on`), in wrapping arithmetic.
#[inline(always)]
fn stop_counting(behind: &mut [u64; 32], m: u32, ran: u64) {
    each(m, |i| behind[i] = behind[i].wrapping_sub(ran));
}

/// The lanes `m` run again from the run's count `ran` (see `stop_counting`).
#[inline(always)]
fn go_on(behind: &mut [u64; 32], m: u32, ran: u64) {
    each(m, |i| behind[i] = behind[i].wrapping_add(ran));
}

impl<'l> Block<'l> {
    /// The lanes of the warp starting at thread `base` that can run in lockstep: every lane
    /// that has not exited, when all of them are ready at the same instruction of the same
    /// function and there are at least two (bit i: the warp's lane i).
    pub(super) fn lockstep_lanes(&self, base: usize) -> Option<u32> {
        let end = (base + 32).min(self.threads.len());
        let mut lanes = 0u32;
        let mut at = None;
        for (i, th) in self.threads[base..end].iter().enumerate() {
            match th.state {
                State::Exited => continue,
                State::Ready => {}
                State::Barrier | State::Warp => return None,
            }
            let here = (th.func, th.pc);
            if *at.get_or_insert(here) != here {
                return None;
            }
            lanes |= 1 << i;
        }
        (lanes.count_ones() >= 2).then_some(lanes)
    }

    /// Run the lanes `lanes` of the warp starting at thread `base` (all ready at the same
    /// instruction, from `lockstep_lanes`) in lockstep for at most a quantum. On a processor
    /// with AVX2 (and the bit and fused multiply-add instructions that come with it) the loop
    /// is the one compiled for it: its lane loops then take four lanes an instruction where
    /// the baseline build's take two, or one. Same results: the same operations, lane by lane.
    pub(super) fn lockstep(&mut self, base: usize, lanes: u32) -> WarpEnd {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the processor has every feature the function is compiled for (tested
            // just above); the function itself is safe code.
            return unsafe { self.lockstep_avx2(base, lanes) };
        }
        self.lockstep_run::<false>(base, lanes)
    }

    /// `lockstep` compiled for processors with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    fn lockstep_avx2(&mut self, base: usize, lanes: u32) -> WarpEnd {
        self.lockstep_run::<true>(base, lanes)
    }

    /// `lockstep`, for whichever build inlines it (`AVX2`: the build for processors with AVX2
    /// and FMA, where `mul_add` is the FMA instruction inline, with no test per lane).
    #[inline(always)]
    fn lockstep_run<const AVX2: bool>(&mut self, base: usize, lanes: u32) -> WarpEnd {
        let launch = self.mem.launch;
        let end = (base + 32).min(self.threads.len());
        let Block {
            threads,
            mem,
            warp_regs,
            lane_counts: counts,
            warp_absent,
            ..
        } = self;
        let warp = &mut threads[base..end];
        let wr = &mut warp_regs[base / 32];
        if !take_regs(wr, warp, lanes) {
            // Lanes with register files of different sizes (never from a valid module): each
            // goes on alone.
            return WarpEnd {
                ran: 0,
                ahead: 0,
                waited: false,
                together: None,
            };
        }
        let mut file = &mut wr.file[..];
        let first = &warp[lanes.trailing_zeros() as usize];
        let func = first.func as usize;
        let code: &[Inst] = &launch.module.functions[func].body;
        let fcode: &[FastInst] = &launch.fast.functions[func];
        let mut pc = first.pc as usize;
        let mut ran = 0u64;
        let mut ahead = 0usize;
        // The lanes of the run (`lanes` from here on: those running now).
        let all_lanes = lanes;
        let mut lanes = lanes;
        let mut park = Park::NONE;
        // Some lanes waited (`counts.behind` is cleared and in use).
        let mut waited = false;
        let mut together = None;
        // Each lane's `pc` was stored where it diverged.
        let mut diverged = false;
        let mut deferred = Deferred {
            whole: [0; 3],
            partial: false,
        };
        while ran < QUANTUM {
            if pc == park.pc {
                // The waiting lanes are caught up with: all go on together.
                go_on(&mut counts.behind, park.lanes, ran);
                lanes |= park.lanes;
                park = Park::NONE;
            }
            let Some(fi) = fcode.get(pc) else { break };
            if fi.solo {
                break;
            }
            let on = if fi.guard == NO_GUARD {
                lanes
            } else {
                guarded(file, lanes, fi.guard, fi.negate)
            };
            // Register-only instructions: one dispatch, then the lanes' columns.
            match fi.op {
                // Each operation's lane loop is compiled on its own (`per_variant!`), so no
                // lane decodes the operation again.
                Fast::Int32 { op, d, a, b } => per_variant!(
                    op,
                    IntOp::{Add, Sub, Mul, And, Or, Xor, Shl, ShrU, ShrS, MinS, MinU, MaxS, MaxU},
                    |op| lanes2(file, on, d, a, b, |x, y| fast::int32(op, x, y))
                ),
                Fast::Int64 { op, d, a, b } => per_variant!(
                    op,
                    IntOp::{Add, Sub, Mul, And, Or, Xor, Shl, ShrU, ShrS, MinS, MinU, MaxS, MaxU},
                    |op| lanes2(file, on, d, a, b, |x, y| fast::int64(op, x, y))
                ),
                Fast::MulWide { signed, d, a, b } => {
                    if signed {
                        lanes2(file, on, d, a, b, |x, y| fast::mul_wide(true, x, y))
                    } else {
                        lanes2(file, on, d, a, b, |x, y| fast::mul_wide(false, x, y))
                    }
                }
                Fast::Mad32 { d, a, b, c } => lanes3(file, on, d, [a, b, c], fast::mad32),
                Fast::F32 { op, d, a, b } => {
                    per_variant!(
                        op,
                        FloatOp::{Add, Sub, Mul},
                        |op| lanes2(file, on, d, a, b, |x, y| fast::float32(op, x, y))
                    );
                    deferred.add(counts, FLOAT32, on, all_lanes);
                }
                Fast::Fma32 { d, a, b, c } => {
                    if AVX2 {
                        // `fast::fma32` tests for the instruction at each call, which kept
                        // the lane loop from being vectorised; here it is known to be there.
                        lanes3(file, on, d, [a, b, c], fast::fma32_fused);
                    } else {
                        lanes3(file, on, d, [a, b, c], fast::fma32);
                    }
                    deferred.add(counts, FLOAT32, on, all_lanes);
                }
                Fast::F64 { op, d, a, b } => {
                    lanes2(file, on, d, a, b, |x, y| fast::float64(op, x, y));
                    for_lanes(warp, on, |_, th| th.counters.count(Family::F64, 1));
                }
                Fast::Fma64 { d, a, b, c } => {
                    if AVX2 {
                        lanes3(file, on, d, [a, b, c], fast::fma64_fused);
                    } else {
                        lanes3(file, on, d, [a, b, c], fast::fma64);
                    }
                    for_lanes(warp, on, |_, th| th.counters.count(Family::F64, 1));
                }
                Fast::Setp { cmp, ty, d, a, b } => match ty {
                    // The comparisons loops and branches are made of.
                    Ty::S32 => per_variant!(cmp, CmpOp::{Eq, Ne, Lt, Le, Gt, Ge}, |cmp| {
                        lanes2(file, on, d, a, b, |x, y| fast::setp(cmp, Ty::S32, x, y) as u64)
                    }),
                    Ty::U32 => per_variant!(cmp, CmpOp::{Eq, Ne, Lo, Ls, Hi, Hs}, |cmp| {
                        lanes2(file, on, d, a, b, |x, y| fast::setp(cmp, Ty::U32, x, y) as u64)
                    }),
                    _ => lanes2(file, on, d, a, b, |x, y| fast::setp(cmp, ty, x, y) as u64),
                },
                Fast::Special { d, s } => {
                    let m = &*mem;
                    let dst = column_mut(file, d);
                    match s {
                        Special::Tid(k) => each(on, |i| dst[i] = warp[i].tid[k as usize] as u64),
                        // The same in every thread of a block.
                        Special::Ntid(_)
                        | Special::Ctaid(_)
                        | Special::Nctaid(_)
                        | Special::NWarpId
                        | Special::WarpSize
                        | Special::DynamicSmemSize => {
                            // `on` may be empty (a guard no lane passes).
                            if let Some(th) = warp.get(on.trailing_zeros() as usize) {
                                let v = m.special(th, s);
                                each(on, |i| dst[i] = v);
                            }
                        }
                        _ => each(on, |i| dst[i] = m.special(&warp[i], s)),
                    }
                }
                Fast::Cvta { to, window, d, a } => {
                    lanes1(file, on, d, a, |x| fast::cvta(to, window, x))
                }
                Fast::Mov { ty, d, a } => lanes1(file, on, d, a, |x| alu::mask(ty, x)),
                Fast::CvtInt { dty, sty, d, a } => {
                    lanes1(file, on, d, a, |x| fast::cvt_int(dty, sty, x))
                }
                Fast::Bra { target } => {
                    ran += 1;
                    let target = target as usize;
                    if on == lanes {
                        if target > park.pc {
                            // Past the waiting lanes (the end of a `then` part jumping over
                            // its `else`): these wait at the target, the others go on.
                            go_on(&mut counts.behind, park.lanes, ran);
                            stop_counting(&mut counts.behind, lanes, ran);
                            (lanes, park.lanes) = (park.lanes, lanes);
                            (pc, park.pc) = (park.pc, target);
                        } else {
                            pc = target;
                        }
                    } else if on == 0 {
                        pc += 1;
                    } else if let Some((wait, at, go, next)) =
                        split(on, lanes, pc, target).filter(|s| park.lanes == 0 || s.1 == park.pc)
                    {
                        // The lanes disagree: those going on later in the code wait there
                        // while the others go on.
                        if !waited {
                            waited = true;
                            counts.behind = [0; 32];
                        }
                        stop_counting(&mut counts.behind, wait, ran);
                        park.lanes |= wait;
                        park.pc = at;
                        lanes = go;
                        pc = next;
                    } else {
                        // The lanes disagree: each goes on alone from its own target.
                        for_lanes(warp, lanes, |_, th| th.pc = pc as u32 + 1);
                        for_lanes(warp, on, |_, th| th.pc = target as u32);
                        diverged = true;
                        break;
                    }
                    continue;
                }
                Fast::LdParam {
                    ty,
                    d,
                    base: b,
                    off,
                } => {
                    let declined = each_lane(warp, on, pc, |i, th| {
                        let a = rd(file, b, i).wrapping_add(off as u64) as usize;
                        let size = ty.size() as usize;
                        if a & (size - 1) != 0 {
                            return false;
                        }
                        let Some(bytes) = th.params.get(a..a.wrapping_add(size)) else {
                            return false;
                        };
                        file[d as usize * 32 + i] = alu::loaded(ty, le_read(bytes));
                        true
                    });
                    if let Some(i) = declined {
                        ahead = i;
                        break;
                    }
                }
                Fast::LdGlobal {
                    ty,
                    d,
                    base: b,
                    off,
                    slot,
                } => {
                    let inst = &code[pc];
                    let size = ty.size();
                    // One test for the warp; only if it fails does each lane test its own.
                    let addrs = addresses(file, b, off);
                    let all_hit = mem.global_hit_all(span(&addrs, on), size, slot);
                    if all_hit && size == 4 && mem.warp_loads() {
                        let out = column_mut(file, d);
                        let first = base as u32;
                        mem.global_load_warp(warp, first, on, pc as u32, inst, ty, &addrs, out);
                        deferred.add(counts, GLOBAL, on, all_lanes);
                        ran += 1;
                        pc += 1;
                        continue;
                    }
                    let declined = each_lane(warp, on, pc, |i, th| {
                        let addr = addrs[i];
                        if !all_hit && !mem.global_hit(addr, size, slot) {
                            return false;
                        }
                        let v = mem.global_load_hit(th, (base + i) as u32, inst, addr, size);
                        file[d as usize * 32 + i] = alu::loaded(ty, v);
                        true
                    });
                    if let Some(i) = declined {
                        ahead = i;
                        break;
                    }
                }
                Fast::StGlobal {
                    size,
                    src,
                    base: b,
                    off,
                    slot,
                } => {
                    let inst = &code[pc];
                    let addrs = addresses(file, b, off);
                    let all_hit = mem.global_hit_all(span(&addrs, on), size, slot);
                    let declined = each_lane(warp, on, pc, |i, th| {
                        let addr = addrs[i];
                        if !all_hit && !mem.global_hit(addr, size, slot) {
                            return false;
                        }
                        let v = rd(file, src, i);
                        mem.global_store_hit(th, (base + i) as u32, inst, addr, size, v);
                        true
                    });
                    if let Some(i) = declined {
                        ahead = i;
                        break;
                    }
                }
                Fast::LdShared {
                    ty,
                    d,
                    base: b,
                    off,
                } => {
                    let inst = &code[pc];
                    let addrs = addresses(file, b, off);
                    if ty.size() == 4 && mem.accesses.is_none() {
                        let out = column_mut(file, d);
                        let first = base as u32;
                        let (clean, declined) =
                            mem.shared_load_warp(warp, first, on, pc as u32, inst, ty, &addrs, out);
                        if clean != 0 {
                            deferred.add(counts, SHARED, clean, all_lanes);
                        }
                        if let Some(i) = declined {
                            ahead = i;
                            break;
                        }
                        ran += 1;
                        pc += 1;
                        continue;
                    }
                    let declined = each_lane(warp, on, pc, |i, th| {
                        let addr = addrs[i];
                        let linear = (base + i) as u32;
                        match mem.fast_shared_load(th, linear, inst, addr, ty.size()) {
                            Some(v) => {
                                file[d as usize * 32 + i] = alu::loaded(ty, v);
                                true
                            }
                            None => false,
                        }
                    });
                    if let Some(i) = declined {
                        ahead = i;
                        break;
                    }
                }
                Fast::StShared {
                    size,
                    src,
                    base: b,
                    off,
                } => {
                    let inst = &code[pc];
                    let declined = each_lane(warp, on, pc, |i, th| {
                        let addr = rd(file, b, i).wrapping_add(off as u64);
                        let v = rd(file, src, i);
                        let linear = (base + i) as u32;
                        mem.fast_shared_store(th, linear, inst, addr, size, v)
                    });
                    if let Some(i) = declined {
                        ahead = i;
                        break;
                    }
                }
                Fast::LdSharedVec {
                    ty,
                    n,
                    d,
                    base: b,
                    off,
                } => {
                    // Lane by lane in lane order: a lane whose words are clean reads (a tile
                    // row every lane reads, after its first two readers) reads them here; any
                    // other takes the general path, as any other load (it reports what there
                    // is to report, and may make the words clean for the lanes after it).
                    let inst = &code[pc];
                    let addrs = addresses(file, b, off);
                    let dst = &d[..n as usize];
                    let fast = mem.shared_vec_fast();
                    let a0 = addrs[(on.trailing_zeros() & 31) as usize];
                    if fast && on != 0 && same(&addrs, on, a0) && mem.shared_vec_clean(a0, n as u64)
                    {
                        // Every lane reads one clean vector (a tile row): its words once, into
                        // every lane's column, counted for each lane as it would be alone.
                        for (k, &r) in dst.iter().enumerate() {
                            let v = alu::loaded(ty, mem.shared_word(a0 + 4 * k as u64));
                            let col = column_mut(file, r);
                            if on == u32::MAX {
                                col.fill(v);
                            } else {
                                each(on, |i| col[i] = v);
                            }
                            deferred.add(counts, SHARED, on, all_lanes);
                        }
                        ran += 1;
                        pc += 1;
                        continue;
                    }
                    // The last address found clean (a broadcast read is tested once).
                    let mut clean = u64::MAX;
                    for_lanes(warp, on, |i, th| {
                        let a = addrs[i];
                        if fast && (a == clean || mem.shared_vec_clean(a, n as u64)) {
                            clean = a;
                            mem.shared_vec_read(th, a, ty, dst, file, i);
                        } else {
                            clean = u64::MAX;
                            th.pc = pc as u32;
                            let mut regs = Lane { file, lane: i };
                            instrs::memory(mem, th, &mut regs, (base + i) as u32, inst);
                        }
                    });
                }
                Fast::Slow => {
                    let inst = &code[pc];
                    match &inst.op {
                        instrs::arith_op!() => {
                            let m = &*mem;
                            for_lanes(warp, on, |i, th| {
                                instrs::arith(m, th, &mut Lane { file, lane: i }, &inst.op)
                            });
                            if let Some(f) = instrs::arith_family(&inst.op) {
                                for_lanes(warp, on, |_, th| th.counters.count(f, 1));
                            }
                        }
                        // Plain loads and stores (vectors, local memory, generic addresses, and
                        // what the fast path declined): the general path, lane by lane.
                        // Atomics stay with the lanes alone.
                        Op::Ld { .. } | Op::St { .. } => {
                            for_lanes(warp, on, |i, th| {
                                th.pc = pc as u32;
                                let mut regs = Lane { file, lane: i };
                                instrs::memory(mem, th, &mut regs, (base + i) as u32, inst);
                            });
                        }
                        Op::Fence => for_lanes(warp, on, |_, th| th.fenced = true),
                        Op::Nop => {}
                        Op::BarSync { .. } if on == lanes && park.lanes == 0 => {
                            ran += 1;
                            for_lanes(warp, lanes, |_, th| th.state = State::Barrier);
                            together = Some(Together::Barrier);
                            break;
                        }
                        Op::Exit | Op::Ret
                            if on == lanes
                                && park.lanes == 0
                                && all(warp, lanes, |th| th.frames.is_empty()) =>
                        {
                            ran += 1;
                            for_lanes(warp, lanes, |_, th| th.state = State::Exited);
                            together = Some(Together::Exit);
                            break;
                        }
                        Op::BarSync { .. } | Op::Exit | Op::Ret if on == 0 => {}
                        // Warp collectives every lane takes part in, with nothing to report:
                        // done here, as the general path does them once the last lane arrives.
                        Op::Shfl { .. }
                        | Op::Vote { .. }
                        | Op::Redux { .. }
                        | Op::MatchAny { .. }
                        | Op::MatchAll { .. }
                        | Op::BarWarpSync { .. }
                            if on == lanes
                                && park.lanes == 0
                                && warp_absent[base / 32].is_none()
                                && collectives::lockstep_collective(
                                    mem,
                                    warp,
                                    base / 32,
                                    file,
                                    on,
                                    &inst.op,
                                ) => {}
                        // A WMMA instruction all 32 lanes reach together: completed here as the
                        // general path completes it when the last lane arrives, from the lanes'
                        // own registers (handed back, then taken again).
                        Op::Wmma(_)
                            if on == u32::MAX
                                && lanes == u32::MAX
                                && park.lanes == 0
                                && warp_absent[base / 32].is_none()
                                && warp.len() == 32 =>
                        {
                            give_back_regs(wr, warp);
                            for th in warp.iter_mut() {
                                th.pc = pc as u32;
                                th.state = State::Warp;
                            }
                            let last = base + 31;
                            let met = wmma::try_complete(mem, warp, base, last, false);
                            if let Some(met) = met {
                                mem.order.collective(base / 32, met);
                            }
                            // Every lane is past it and ready (`try_complete`); the same
                            // register files as when the run began, so they are taken again.
                            let held = take_regs(wr, warp, lanes);
                            file = &mut wr.file[..];
                            if met.is_none() || !held {
                                // Not reached: the lanes go on alone from where they are.
                                diverged = true;
                                break;
                            }
                        }
                        // `mma` and `ldmatrix` the whole warp reaches together: the same.
                        Op::Tensor(_)
                            if on == lanes
                                && park.lanes == 0
                                && warp_absent[base / 32].is_none()
                                && tensor::lockstep_tensor(mem, warp, base, file, on, pc, inst) => {
                        }
                        _ => break,
                    }
                }
            }
            ran += 1;
            pc += 1;
        }
        deferred.flush(counts, warp, all_lanes);
        // The running lanes before the one a memory access declined did it.
        let ahead = lanes & ((1u32 << ahead) - 1);
        if !diverged {
            let mut m = lanes;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                warp[i].pc = pc as u32 + (ahead >> i & 1);
            }
        }
        if park.lanes != 0 {
            // Waiting lanes go on alone from where they wait.
            go_on(&mut counts.behind, park.lanes, ran);
            for_lanes(warp, park.lanes, |_, th| th.pc = park.pc as u32);
        }
        // The quantum spent by every lane, none waiting, all at one instruction: no lane runs
        // alone in this turn (each has no budget left), and the warp's next turn is in
        // lockstep again from here, or, near the step limit, alone after `advance` hands the
        // registers back. So the warp's file keeps them: copying a large register file out
        // and back in at every quantum cost a long kernel (attention) a twentieth of its time.
        let spent = ran >= QUANTUM && !waited && !diverged && park.lanes == 0 && ahead == 0;
        if together.is_none() && !spent {
            // Lanes go on alone next: they need their own registers.
            give_back_regs(wr, warp);
        }
        WarpEnd {
            ran,
            ahead,
            waited,
            together,
        }
    }

    /// Give the warp of thread `t` its lanes' registers back if lockstep holds them (before
    /// a lane of it runs alone).
    #[inline(always)]
    pub(super) fn hand_back_regs(&mut self, t: usize) {
        let w = t / 32;
        if self.warp_regs[w].lanes != 0 {
            let base = w * 32;
            let end = (base + 32).min(self.threads.len());
            give_back_regs(&mut self.warp_regs[w], &mut self.threads[base..end]);
        }
    }
}

/// Make `wr` hold the registers of `lanes` of `warp` (copying them in unless it already
/// does). False, holding none, when the lanes' register files differ in size.
fn take_regs(wr: &mut WarpRegs, warp: &mut [Thread], lanes: u32) -> bool {
    if wr.lanes == lanes {
        return true;
    }
    give_back_regs(wr, warp);
    let count = warp[lanes.trailing_zeros() as usize].regs.len();
    if !all(warp, lanes, |th| th.regs.len() == count) {
        return false;
    }
    // Lanes outside `lanes` keep stale values: nothing reads or writes them.
    wr.file.resize(count * 32, 0);
    let file = &mut wr.file;
    for_lanes(warp, lanes, |i, th| {
        for (col, &v) in file.chunks_exact_mut(32).zip(&th.regs) {
            col[i] = v;
        }
    });
    wr.lanes = lanes;
    true
}

/// Copy the registers `wr` holds back to their lanes; it then holds none.
fn give_back_regs(wr: &mut WarpRegs, warp: &mut [Thread]) {
    let file = &wr.file;
    for_lanes(warp, wr.lanes, |i, th| {
        for (v, col) in th.regs.iter_mut().zip(file.chunks_exact(32)) {
            *v = col[i];
        }
    });
    wr.lanes = 0;
}

/// How a branch at `pc` to `target` that the lanes `on` of `lanes` take (some, not all) splits
/// them: the lanes going on later in the code, where, and the others with where they go on;
/// `None` when both sides go on at the same instruction.
#[inline(always)]
fn split(on: u32, lanes: u32, pc: usize, target: usize) -> Option<(u32, usize, u32, usize)> {
    let rest = lanes & !on;
    match target.cmp(&(pc + 1)) {
        std::cmp::Ordering::Greater => Some((on, target, rest, pc + 1)),
        // A loop's branch back: the lanes leaving it wait after it.
        std::cmp::Ordering::Less => Some((rest, pc + 1, on, target)),
        std::cmp::Ordering::Equal => None,
    }
}

/// Run `f(lane)` for each lane of `on` (bit i: the warp's lane i), in lane order.
#[inline(always)]
fn each(on: u32, mut f: impl FnMut(usize)) {
    let mut m = on;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        f(i);
    }
}

/// Run `f` for each lane of `warp` in `lanes`, in lane order, with the lane's offset.
#[inline(always)]
fn for_lanes(warp: &mut [Thread], lanes: u32, mut f: impl FnMut(usize, &mut Thread)) {
    each(lanes, |i| f(i, &mut warp[i]));
}

/// Register `r`'s 32 lanes (register indices were checked when decoding).
#[inline(always)]
fn column_mut(file: &mut [u64], r: u32) -> &mut [u64] {
    &mut file[r as usize * 32..][..32]
}

/// Lane `lane`'s value of an operand.
#[inline(always)]
fn rd(file: &[u64], s: Src, lane: usize) -> u64 {
    match s {
        Src::R(r) => file[r as usize * 32 + lane],
        Src::I(v) => v,
    }
}

/// Each lane's address `base + off`.
#[inline(always)]
fn addresses(file: &[u64], base: Src, off: i64) -> [u64; 32] {
    let mut imm = [0; 32];
    let x = operand(file.as_chunks::<32>().0, base, &mut imm);
    std::array::from_fn(|i| x[i].wrapping_add(off as u64))
}

/// The lowest and highest of the addresses of the lanes of `on` (`on` not empty), and all of
/// them or-ed together (for the alignment test).
#[inline(always)]
fn span(addrs: &[u64; 32], on: u32) -> [u64; 3] {
    let (mut lo, mut hi, mut or) = (u64::MAX, 0, 0);
    if on == u32::MAX {
        // A whole warp: fixed-length loops. When the addresses agree in their upper halves
        // (they nearly always do), the bounds come from the lower halves, whose comparisons
        // vectorise where 64-bit ones do not.
        let top = addrs[0] >> 32;
        let (mut differ, mut lo32, mut hi32) = (0, u32::MAX, 0);
        for &a in addrs {
            differ |= (a >> 32) ^ top;
            or |= a;
        }
        if differ == 0 {
            for &a in addrs {
                lo32 = lo32.min(a as u32);
                hi32 = hi32.max(a as u32);
            }
            return [top << 32 | lo32 as u64, top << 32 | hi32 as u64, or];
        }
    }
    let n = 32 - on.leading_zeros() as usize;
    if on.count_ones() as usize == n {
        // Lanes 0 to n - 1: a loop the compiler can vectorise.
        for &a in &addrs[..n] {
            lo = lo.min(a);
            hi = hi.max(a);
            or |= a;
        }
    } else {
        each(on, |i| {
            lo = lo.min(addrs[i]);
            hi = hi.max(addrs[i]);
            or |= addrs[i];
        });
    }
    [lo, hi, or]
}

/// Whether every lane of `on` has address `a`.
#[inline(always)]
fn same(addrs: &[u64; 32], on: u32, a: u64) -> bool {
    let mut differ = 0u32;
    for (i, &x) in addrs.iter().enumerate() {
        differ |= ((x != a) as u32) << i;
    }
    differ & on == 0
}

/// `dst[i] = f(i)` for the lanes of `on`: a plain loop when they are lanes 0 to n - 1 (a
/// whole warp, or a block's last one), which the compiler can vectorise.
#[inline(always)]
fn lanes(dst: &mut [u64], on: u32, f: impl Fn(usize) -> u64) {
    let n = 32 - on.leading_zeros() as usize;
    if on == u32::MAX {
        for (i, v) in dst[..32].iter_mut().enumerate() {
            *v = f(i);
        }
    } else if on.count_ones() as usize == n {
        for (i, v) in dst[..n].iter_mut().enumerate() {
            *v = f(i);
        }
    } else {
        each(on, |i| dst[i] = f(i));
    }
}

/// An operand's lanes: a register's column, or an immediate's value in every lane (`imm`).
#[inline(always)]
fn operand<'a>(cols: &'a [[u64; 32]], s: Src, imm: &'a mut [u64; 32]) -> &'a [u64; 32] {
    match s {
        Src::R(r) => &cols[r as usize],
        Src::I(v) => {
            *imm = [v; 32];
            imm
        }
    }
}

/// `d = f(a)` for the lanes of `on`.
#[inline(always)]
fn lanes1(file: &mut [u64], on: u32, d: u32, a: Src, f: impl Fn(u64) -> u64) {
    let mut ia = [0; 32];
    let cols = file.as_chunks::<32>().0;
    let x = operand(cols, a, &mut ia);
    let mut out = [0u64; 32];
    lanes(&mut out, on, |i| f(x[i]));
    write_lanes(file, on, d, &out);
}

/// `d = f(a, b)` for the lanes of `on`.
#[inline(always)]
fn lanes2(file: &mut [u64], on: u32, d: u32, a: Src, b: Src, f: impl Fn(u64, u64) -> u64) {
    let (mut ia, mut ib) = ([0; 32], [0; 32]);
    let cols = file.as_chunks::<32>().0;
    let (x, y) = (operand(cols, a, &mut ia), operand(cols, b, &mut ib));
    let mut out = [0u64; 32];
    lanes(&mut out, on, |i| f(x[i], y[i]));
    write_lanes(file, on, d, &out);
}

/// `d = f(a, b, c)` for the lanes of `on`.
#[inline(always)]
fn lanes3(file: &mut [u64], on: u32, d: u32, s: [Src; 3], f: impl Fn(u64, u64, u64) -> u64) {
    if let [Src::R(a), Src::R(b), Src::R(c)] = s {
        // Four different registers (the usual `fma`): the result goes straight to its column.
        let cols = file.as_chunks_mut::<32>().0;
        if let Ok([dst, x, y, z]) = cols.get_disjoint_mut([d, a, b, c].map(|r| r as usize)) {
            let (x, y, z) = (&*x, &*y, &*z);
            lanes(dst, on, |i| f(x[i], y[i], z[i]));
            return;
        }
    }
    let (mut ia, mut ib, mut ic) = ([0; 32], [0; 32], [0; 32]);
    let cols = file.as_chunks::<32>().0;
    let x = operand(cols, s[0], &mut ia);
    let y = operand(cols, s[1], &mut ib);
    let z = operand(cols, s[2], &mut ic);
    let mut out = [0u64; 32];
    lanes(&mut out, on, |i| f(x[i], y[i], z[i]));
    write_lanes(file, on, d, &out);
}

/// Whether the processor has what `lockstep_avx2` (and `step.rs`'s `step_avx2`) is compiled
/// for (the answers are cached by the standard library).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn has_avx2() -> bool {
    #[cfg(test)]
    if tests::BASELINE.with(|b| b.get()) {
        return false;
    }
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// Register `d`'s lanes of `on` from `out`.
#[inline(always)]
fn write_lanes(file: &mut [u64], on: u32, d: u32, out: &[u64; 32]) {
    let dst = column_mut(file, d);
    let n = 32 - on.leading_zeros() as usize;
    if on == u32::MAX {
        // Fixed-length copies, inline: in halves, as one 256-byte copy is a call to memcpy
        // (more stores than the compiler writes out for a copy).
        dst[..16].copy_from_slice(&out[..16]);
        dst[16..32].copy_from_slice(&out[16..]);
    } else if on.count_ones() as usize == n {
        dst[..n].copy_from_slice(&out[..n]);
    } else {
        each(on, |i| dst[i] = out[i]);
    }
}

/// The lanes of `lanes` whose guard register holds (`negate`: is false).
#[inline(always)]
fn guarded(file: &[u64], lanes: u32, guard: u32, negate: bool) -> u32 {
    let g = &file[guard as usize * 32..][..32];
    // Every lane's bit in a fixed-length loop without branches, then the lanes of the run.
    let mut holds = 0;
    for (i, &v) in g.iter().enumerate() {
        holds |= ((v != 0) as u32) << i;
    }
    if negate {
        holds = !holds;
    }
    holds & lanes
}

/// Do a load or store at `pc` for each lane of `lanes` in lane order (`f` gets the lane's
/// offset in the warp and returns whether its fast path took it), stopping at the first lane it
/// declines: that lane's offset (the lanes before it did it), or `None` when every lane did.
#[inline(always)]
fn each_lane(
    warp: &mut [Thread],
    lanes: u32,
    pc: usize,
    mut f: impl FnMut(usize, &mut Thread) -> bool,
) -> Option<usize> {
    let mut m = lanes;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        let th = &mut warp[i];
        // Where a diagnostic of the access finds the lane.
        th.pc = pc as u32;
        if !f(i, th) {
            return Some(i);
        }
    }
    None
}

fn all(warp: &[Thread], lanes: u32, f: impl Fn(&Thread) -> bool) -> bool {
    (0..warp.len()).all(|i| lanes & (1 << i) == 0 || f(&warp[i]))
}

#[cfg(test)]
mod tests {
    use crate::emu::launch::{run_counting_lockstep, Run};
    use crate::emu::result::RunResult;
    use crate::emu::technique::Family;
    use crate::emu::value::{Buffer, ElemType, KernelArg, Scalar};
    use crate::emu::{EmuOptions, LaunchConfig};

    const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n.file 1 \"k.cu\"\n";

    /// `out[i] = 2 * in[i]`, doubled once more for threads 40 and up: warp 0 agrees on the
    /// branch, warp 1 splits at lane 8.
    const TWICE: &str = "
.visible .entry twice(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  .loc 1 3 0
  ld.global.f32 %f1, [%rd6];
  setp.lt.u32 %p1, %r1, 40;
  @%p1 bra $L_small;
  add.f32 %f1, %f1, %f1;
$L_small:
  add.f32 %f2, %f1, %f1;
  add.s64 %rd7, %rd3, %rd5;
  .loc 1 4 0
  st.global.f32 [%rd7], %f2;
  ret;
}
";

    /// `out[tid]`, a float computed from `tid + 7`, plus `%ntid.x` for threads 40 and up (a
    /// guarded read no lane of warp 0 passes), through operands in every shape: a register
    /// read and written by one instruction, immediates, a three-source op on four different
    /// registers and on repeated ones.
    const SPECIALS: &str = "
.visible .entry specials(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  .reg .f32 %f<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  setp.ge.u32 %p1, %r1, 40;
  @%p1 mov.u32 %r2, %ntid.x;
  add.u32 %r2, %r2, %r1;
  add.u32 %r3, 7, %r2;
  cvt.rn.f32.u32 %f1, %r3;
  fma.rn.f32 %f2, %f1, %f1, %f1;
  mov.f32 %f3, 0f3F800000;
  fma.rn.f32 %f4, %f2, %f3, %f1;
  fma.rn.f32 %f4, %f4, 0f40000000, %f4;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f4;
  ret;
}
";

    /// Each thread stores its index to `s[tid]` and reads its neighbour's `s[tid ^ 1]` with no
    /// barrier between: a race (and, one thread at a time, an uninitialised read).
    const RACY: &str = "
.shared .align 4 .b8 s[256];
.visible .entry racy(.param .u64 out)
{
  .reg .b32 %r<7>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  .loc 1 3 0
  st.shared.u32 [%r4], %r1;
  xor.b32 %r5, %r2, 4;
  add.s32 %r5, %r3, %r5;
  .loc 1 4 0
  ld.shared.u32 %r6, [%r5];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 5 0
  st.global.u32 [%rd4], %r6;
  ret;
}
";

    /// `out[i] = fma(in[i], in[64 + i], in[128 + i])` in f32.
    const FMA: &str = "
.visible .entry fma(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<9>;
  .reg .f32 %f<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd6+256];
  ld.global.f32 %f3, [%rd6+512];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  add.s64 %rd7, %rd3, %rd5;
  st.global.f32 [%rd7], %f4;
  ret;
}
";

    /// Branches the lanes of a warp disagree on. `r3`: `tid + 7` where `tid % 4 == 0`, else
    /// `3 tid` (an `if`/`else`); threads 40 and up add 1000 (an `if`); `r4`: `1 + ... + tid % 4`
    /// from a loop run `tid % 4` times (lanes leave it at different turns). After a barrier,
    /// `out[tid] = r3 + r4`. `NESTED` also adds 100 where `tid % 4 == 1`, an `if` inside the
    /// `then` part (a second split while lanes wait: each lane goes on alone).
    const SPLITS: &str = "
.visible .entry splits(.param .u64 out)
{
  .reg .pred %p<5>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $L_else;
  mul.lo.u32 %r3, %r1, 3;
  // NESTED
  bra $L_join;
$L_else:
  add.u32 %r3, %r1, 7;
$L_join:
  setp.lt.u32 %p4, %r1, 40;
  @%p4 bra $L_small;
  add.u32 %r3, %r3, 1000;
$L_small:
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
  setp.eq.u32 %p3, %r2, 0;
  @%p3 bra $L_done;
$L_loop:
  add.u32 %r5, %r5, 1;
  add.u32 %r4, %r4, %r5;
  setp.lt.u32 %p3, %r5, %r2;
  @%p3 bra $L_loop;
$L_done:
  bar.sync 0;
  add.u32 %r6, %r3, %r4;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 3 0
  st.global.u32 [%rd4], %r6;
  ret;
}
";

    /// Each thread stores its index to `s[tid]`; after a barrier, every thread reads
    /// `s[tid % 8]` three times, the third time only threads below 40: words many lanes read
    /// and no one writes (a warp's shared load at once, `shared_load_warp`, from the second
    /// read on). `out[tid]` is the sum of the three (the third is 0 from thread 40 on).
    const TILE: &str = "
.shared .align 4 .b8 s[256];
.visible .entry tile(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<11>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  .loc 1 3 0
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  and.b32 %r5, %r2, 28;
  add.s32 %r5, %r3, %r5;
  .loc 1 4 0
  ld.shared.u32 %r6, [%r5];
  ld.shared.u32 %r7, [%r5];
  mov.u32 %r8, 0;
  setp.lt.u32 %p1, %r1, 40;
  @%p1 ld.shared.u32 %r8, [%r5];
  add.s32 %r9, %r6, %r7;
  add.s32 %r10, %r9, %r8;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 5 0
  st.global.u32 [%rd4], %r10;
  ret;
}
";

    /// `out[tid] = *counter; atomicAdd(counter, 1)`: one thread at a time, thread i reads i.
    const TICKET: &str = "
.visible .entry ticket(.param .u64 out, .param .u64 counter)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<7>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [counter];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  .loc 1 3 0
  ld.global.u32 %r2, [%rd4];
  atom.global.add.u32 %r3, [%rd4], 1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd3, %rd5;
  .loc 1 4 0
  st.global.u32 [%rd6], %r2;
  ret;
}
";

    /// Every thread counts forever.
    const ENDLESS: &str = "
.visible .entry endless(.param .u64 out)
{
  .reg .b32 %r<2>;
  .loc 1 2 0
  mov.u32 %r1, 0;
$L_top:
  .loc 1 3 0
  add.s32 %r1, %r1, 1;
  bra $L_top;
}
";

    /// Every thread counts forever with a barrier in each turn of the loop (a reduction whose
    /// stride never changes): lockstep runs each warp from barrier to barrier and counts its
    /// turn at once.
    const ENDLESS_BARRIER: &str = "
.visible .entry endless_barrier(.param .u64 out)
{
  .reg .b32 %r<2>;
  .loc 1 2 0
  mov.u32 %r1, 0;
$L_top:
  .loc 1 3 0
  add.s32 %r1, %r1, 1;
  bar.sync 0;
  bra $L_top;
}
";

    /// Every thread counts forever, by 1 where `tid % 4 != 0` and by 2 three times elsewhere:
    /// an `if`/`else` whose sides differ in length (4 and 5 instructions a turn) inside an
    /// endless loop.
    const ENDLESS_SPLIT: &str = "
.visible .entry endless_split(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .loc 1 2 0
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mov.u32 %r3, 0;
$L_top:
  .loc 1 3 0
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $L_else;
  add.u32 %r3, %r3, 1;
  bra $L_join;
$L_else:
  .loc 1 4 0
  add.u32 %r3, %r3, 2;
  add.u32 %r3, %r3, 2;
  add.u32 %r3, %r3, 2;
$L_join:
  bra $L_top;
}
";

    /// Each thread counts to 1000 with a barrier in every iteration, then stores its count.
    const COUNTER: &str = "
.visible .entry counter(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
$L_top:
  .loc 1 3 0
  add.s32 %r2, %r2, 1;
  bar.sync 0;
  setp.lt.u32 %p1, %r2, 1000;
  @%p1 bra $L_top;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 4 0
  st.global.u32 [%rd4], %r2;
  ret;
}
";

    /// A warp's collectives: a butterfly sum by shuffles, a ballot, a `__syncwarp()`, a
    /// match and a reduction, each thread storing what it got; then the lanes of odd `tid`
    /// shuffle with the mask of odd lanes only (the general path's case: its lanes diverged).
    const COLLECTIVES: &str = "
.visible .entry collectives(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %r1;
  shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
  add.s32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  add.s32 %r2, %r2, %r3;
  shfl.sync.down.b32 %r4|%p2, %r1, 3, 31, -1;
  selp.u32 %r5, 1, 0, %p2;
  and.b32 %r6, %r1, 5;
  setp.eq.u32 %p1, %r6, 1;
  vote.sync.ballot.b32 %r7, %p1, -1;
  bar.warp.sync -1;
  and.b32 %r8, %r1, 3;
  match.any.sync.b32 %r9, %r8, -1;
  redux.sync.add.u32 %r10, %r1, -1;
  add.s32 %r11, %r2, %r4;
  add.s32 %r11, %r11, %r5;
  add.s32 %r11, %r11, %r7;
  add.s32 %r11, %r11, %r9;
  add.s32 %r11, %r11, %r10;
  and.b32 %r12, %r1, 1;
  setp.eq.u32 %p1, %r12, 0;
  @%p1 bra $L_store;
  .loc 1 3 0
  shfl.sync.idx.b32 %r13, %r1, 1, 31, -1431655766;
  add.s32 %r11, %r11, %r13;
$L_store:
  .loc 1 4 0
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r11;
  ret;
}
";

    #[test]
    fn warp_collectives_every_lane_takes_part_in_run_in_lockstep_with_the_same_result() {
        let (on, off, ran) = both(COLLECTIVES, "collectives", 64, vec![ints("out", 64)]);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        let out = on.buffers[0].values();
        // Lane 2 of warp 0: the butterfly sum of lanes {2,3,18,19} (42), lane 5's tid (5, in
        // range: 1), a ballot of the lanes with tid & 5 == 1 (0x0a0a0a0a), the lanes with
        // tid % 4 == 2 (0x44444444), the sum of the warp's tids (496).
        let want: u32 = 42 + 5 + 1 + 0x0a0a_0a0a + 0x4444_4444 + 496;
        assert_eq!(out[2] as u32, want);
        // The collectives of the whole warp ran in lockstep; only the odd lanes' shuffle
        // (and what follows it) ran one lane at a time.
        assert!(
            ran > 20 * 64,
            "only {ran} thread-instructions ran in lockstep"
        );
        assert!(ran < on.instructions);
    }

    fn floats(name: &str, n: usize) -> KernelArg {
        let v: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        KernelArg::Buffer(Buffer::from_values(name, ElemType::F32, &v))
    }

    fn ints(name: &str, n: usize) -> KernelArg {
        KernelArg::Buffer(Buffer::from_values(name, ElemType::U32, &vec![0.0; n]))
    }

    /// The launch with lockstep and one thread at a time: both results, and how many
    /// thread-instructions of the first ran in lockstep.
    fn both(
        src: &str,
        kernel: &str,
        threads: u32,
        args: Vec<KernelArg>,
    ) -> (RunResult, RunResult, u64) {
        both_with(src, kernel, threads, args, EmuOptions::default())
    }

    fn both_with(
        src: &str,
        kernel: &str,
        threads: u32,
        args: Vec<KernelArg>,
        opts: EmuOptions,
    ) -> (RunResult, RunResult, u64) {
        let module = crate::ptx::parse(&format!("{HEAD}{src}")).expect("parses");
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        let on = Run {
            trace: false,
            lockstep: true,
            ..Run::default()
        };
        let off = Run {
            lockstep: false,
            ..on
        };
        let (a, ran) =
            run_counting_lockstep(&module, kernel, &cfg, args.clone(), &opts, on).expect("runs");
        let (b, none) =
            run_counting_lockstep(&module, kernel, &cfg, args, &opts, off).expect("runs");
        assert_eq!(none, 0, "lockstep ran when it was off");
        (a, b, ran)
    }

    thread_local! {
        /// Lockstep on this thread runs the baseline build of its loop even where the
        /// processor has AVX2 (to compare the two).
        pub(super) static BASELINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// One warp: each lane writes a 16-byte row of halves to shared memory (`s + 16 tid`),
    /// `__syncwarp`, then `ldmatrix.x4` (A) and `ldmatrix.x2.trans` (B) of those rows and an
    /// `mm.m16n8k16` with C = `tid` in every element; `out[4 tid + k]` = D's elements. `BAD`
    /// marks where lane 31's row address is moved out of the shared array.
    const TENSOR: &str = "
.shared .align 16 .b8 s[512];
.visible .entry tensor(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<5>;
  .reg .f32 %f<9>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  and.b32 %r5, %r1, 7;
  shl.b32 %r5, %r5, 7;
  add.u32 %r5, %r5, 15360;
  and.b32 %r6, %r1, 3;
  shl.b32 %r6, %r6, 8;
  add.u32 %r6, %r6, 16384;
  shl.b32 %r6, %r6, 16;
  or.b32 %r7, %r5, %r6;
  .loc 1 3 0
  st.shared.u32 [%r4], %r7;
  add.u32 %r8, %r7, 8388736;
  st.shared.u32 [%r4+4], %r8;
  xor.b32 %r9, %r7, 256;
  st.shared.u32 [%r4+8], %r9;
  xor.b32 %r10, %r7, 16777216;
  st.shared.u32 [%r4+12], %r10;
  bar.warp.sync -1;
  // BAD
  .loc 1 4 0
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r11, %r12, %r13, %r14}, [%r4];
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r15, %r16}, [%r4];
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f2, %f1;
  mov.f32 %f3, %f1;
  mov.f32 %f4, %f1;
  .loc 1 5 0
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r11, %r12, %r13, %r14}, {%r15, %r16}, {%f1, %f2, %f3, %f4};
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 6 0
  st.global.f32 [%rd4], %f5;
  st.global.f32 [%rd4+4], %f6;
  st.global.f32 [%rd4+8], %f7;
  st.global.f32 [%rd4+12], %f8;
  ret;
}
";

    /// Everything a launch gives, for comparing two.
    fn digest(r: &RunResult) -> String {
        format!(
            "{:?} {:?} {:?} {:?} {:?} {}",
            r.buffers, r.stdout, r.diagnostics, r.counters, r.perf, r.instructions
        )
    }

    #[test]
    fn converged_warps_run_in_lockstep_with_the_same_result() {
        let (on, off, ran) = both(
            TWICE,
            "twice",
            64,
            vec![floats("out", 128), floats("in", 128)],
        );
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        let out = on.buffers[0].values();
        assert_eq!(out[3], 7.0);
        assert_eq!(out[39], 2.0 * 39.5);
        assert_eq!(out[40], 4.0 * 40.5);
        // Everything: the lanes of warp 1 that take the branch wait at its target for the
        // others.
        assert_eq!(ran, on.instructions);
    }

    #[test]
    fn mma_and_ldmatrix_the_whole_warp_reaches_run_in_lockstep_with_the_same_result() {
        let (on, off, ran) = both(TENSOR, "tensor", 32, vec![floats("out", 128)]);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        assert_eq!(ran, on.instructions, "not all in lockstep");
        // D = A B + C with C = tid: every element past C, and each lane's four from its own C.
        let out = on.buffers[0].values();
        for (e, &v) in out.iter().enumerate() {
            assert!(v > (e / 4) as f64, "element {e}: {v}");
        }
        assert_eq!(on.counters.total.how.get(Family::Mma), 32);
        assert_eq!(on.counters.total.how.get(Family::Ldmatrix), 64);
        // A row address out of bounds for one lane: reported as one thread at a time does.
        let bad = TENSOR.replace(
            "  // BAD\n",
            "  setp.eq.u32 %p1, %r1, 31;\n  @%p1 add.u32 %r4, %r4, 4096;\n",
        );
        let (on, off, _) = both(&bad, "tensor", 32, vec![floats("out", 128)]);
        assert!(!on.diagnostics.is_empty());
        assert_eq!(digest(&on), digest(&off));
    }

    #[test]
    fn mma_of_a_partial_warp_in_lockstep_gives_what_one_thread_at_a_time_gives() {
        // A block of 20 threads: lanes 20..31 do not exist and give zeros to the product
        // (the lockstep path copies only the running lanes' register columns); the
        // `__syncwarp` names the 20 (a mask of absent lanes would end the lockstep run).
        let partial = TENSOR.replace("bar.warp.sync -1;", "bar.warp.sync 1048575;");
        let (on, off, ran) = both(&partial, "tensor", 20, vec![floats("out", 128)]);
        assert_eq!(digest(&on), digest(&off));
        assert_eq!(ran, on.instructions, "not all in lockstep");
        assert_eq!(on.counters.total.how.get(Family::Mma), 20);
    }

    #[test]
    fn wmma_the_whole_warp_reaches_runs_in_lockstep_with_the_same_result() {
        // `mma.h`'s fill, loads (A and B from global memory, halves), `mma_sync` and store in a
        // loop (unrolled by four, then one more turn): operands computed inside the run.
        let src = include_str!("../../../tests/ptx_bodies/wmma_lockstep.ptx");
        let k = 80;
        let halves = |name: &str, n: usize, s: usize| {
            let v: Vec<f64> = (0..n).map(|i| ((i * s) % 13) as f64 / 4.0 - 1.5).collect();
            KernelArg::Buffer(Buffer::from_values(name, ElemType::F16, &v))
        };
        let args = vec![
            halves("a", 16 * k, 7),
            halves("b", 16 * k, 5),
            floats("c", 256),
            KernelArg::Scalar(Scalar::from_f64(ElemType::I32, k as f64)),
        ];
        let (on, off, ran) = both(src, "wmma_k", 32, args);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        assert_eq!(ran, on.instructions, "not all in lockstep");
        assert_eq!(
            on.counters.total.how.get(Family::Wmma),
            32 * (k as u64 / 16)
        );
        // C = A B: element (0, 0) by hand.
        let a = |r: usize, c: usize| (((r * k + c) * 7) % 13) as f64 / 4.0 - 1.5;
        let b = |r: usize, c: usize| (((r * 16 + c) * 5) % 13) as f64 / 4.0 - 1.5;
        let want: f64 = (0..k).map(|x| a(0, x) * b(x, 0)).sum();
        assert_eq!(on.buffers[2].values()[0], want);
    }

    #[test]
    fn a_warp_s_fma_rounds_once_like_one_thread_s_on_every_kind_of_value() {
        // Operands where rounding twice differs from once, infinities, NaN, signed zeros,
        // subnormals and the largest finite values.
        let e = f32::EPSILON;
        let special = [
            1.0 + e,
            1.0 - e,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.0,
            -0.0,
            f32::MIN_POSITIVE / 8.0,
            -f32::MIN_POSITIVE,
            f32::MAX,
            -f32::MAX,
            3.0e-39,
            1.0e38,
            0.1,
            -7.5,
        ];
        let input: Vec<f32> = (0..192)
            .map(|i| special[(i * 7 + i / 64) % special.len()])
            .collect();
        let as_f64: Vec<f64> = input.iter().map(|&v| v as f64).collect();
        let args = vec![
            floats("out", 64),
            KernelArg::Buffer(Buffer::from_values("in", ElemType::F32, &as_f64)),
        ];
        let (on, off, ran) = both(FMA, "fma", 64, args);
        assert_eq!(digest(&on), digest(&off));
        assert_eq!(ran, on.instructions, "not all in lockstep");
        let out = &on.buffers[0].data;
        for i in 0..64 {
            let want = input[i].mul_add(input[64 + i], input[128 + i]);
            let got =
                f32::from_le_bytes([out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]]);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "lane {i}: {got:e}, want {want:e}"
            );
        }
    }

    #[test]
    fn the_loop_built_for_avx2_and_the_baseline_one_give_the_same_results() {
        let e = f32::EPSILON as f64;
        let specials = [
            1.0 + e,
            1.0 - e,
            -1.0,
            f64::INFINITY,
            f64::NAN,
            -0.0,
            3.0e-39,
            0.1,
        ];
        let input: Vec<f64> = (0..192)
            .map(|i| specials[(i * 5) % specials.len()])
            .collect();
        let fma_in = KernelArg::Buffer(Buffer::from_values("in", ElemType::F32, &input));
        let cases: [(&str, &str, Vec<KernelArg>); 7] = [
            ("twice", TWICE, vec![floats("out", 128), floats("in", 128)]),
            ("specials", SPECIALS, vec![floats("out", 64)]),
            ("splits", SPLITS, vec![ints("out", 64)]),
            ("tile", TILE, vec![ints("out", 64)]),
            ("fma", FMA, vec![floats("out", 64), fma_in]),
            ("vectors", VECTORS, vec![ints("out", 64)]),
            ("long", LONG, vec![ints("out", 64)]),
        ];
        for (kernel, src, args) in cases {
            let (fast, _, ran) = both(src, kernel, 64, args.clone());
            BASELINE.with(|b| b.set(true));
            let (baseline, _, ran_baseline) = both(src, kernel, 64, args);
            BASELINE.with(|b| b.set(false));
            assert_eq!(digest(&fast), digest(&baseline), "{kernel}");
            assert_eq!(ran, ran_baseline, "{kernel}");
        }
    }

    /// One piece of a random kernel (`random_kernel`).
    #[derive(Clone, Debug)]
    enum Piece {
        /// `r[reg] += k`.
        Add(u8, u32),
        /// Lanes with `tid & mask == value` jump over the next `skip` pieces.
        Skip { mask: u32, value: u32, skip: u8 },
        /// `body` adds run `tid % count` times (a loop lanes leave at different turns).
        Loop { count: u32, reg: u8, k: u32 },
        /// `__syncthreads()` (inside a skipped part: a barrier only some threads reach).
        Barrier,
    }

    fn piece() -> impl proptest::strategy::Strategy<Value = Piece> {
        use proptest::prelude::*;
        prop_oneof![
            4 => (0u8..4, 1u32..100).prop_map(|(r, k)| Piece::Add(r, k)),
            3 => (1u32..64, 0u32..64, 1u8..5)
                .prop_map(|(mask, v, skip)| Piece::Skip { mask, value: v & mask, skip }),
            2 => (1u32..5, 0u8..4, 1u32..9).prop_map(|(count, reg, k)| Piece::Loop { count, reg, k }),
            1 => Just(Piece::Barrier),
        ]
    }

    /// PTX of `pieces`: four counters from `tid`, the pieces, `out[tid]` their sum. A skip
    /// past the end lands on the store.
    fn random_kernel(pieces: &[Piece]) -> String {
        let mut body = String::new();
        let mut labels = vec![Vec::new(); pieces.len() + 1];
        for (i, p) in pieces.iter().enumerate() {
            for l in &labels[i] {
                body += &format!("$L_{l}:\n");
            }
            match p {
                Piece::Add(r, k) => body += &format!("  add.u32 %r{}, %r{}, {k};\n", 2 + r, 2 + r),
                Piece::Skip { mask, value, skip } => {
                    let to = (i + 1 + *skip as usize).min(pieces.len());
                    labels[to].push(format!("s{i}"));
                    body += &format!(
                        "  and.b32 %r9, %r1, {mask};\n  setp.eq.u32 %p1, %r9, {value};\n  @%p1 bra $L_s{i};\n"
                    );
                }
                Piece::Loop { count, reg, k } => {
                    let r = 2 + reg;
                    body += &format!(
                        "  rem.u32 %r10, %r1, {count};\n  mov.u32 %r8, 0;\n  setp.eq.u32 %p2, %r10, 0;\n  @%p2 bra $L_d{i};\n$L_t{i}:\n  add.u32 %r{r}, %r{r}, {k};\n  add.u32 %r8, %r8, 1;\n  setp.lt.u32 %p2, %r8, %r10;\n  @%p2 bra $L_t{i};\n$L_d{i}:\n"
                    );
                }
                Piece::Barrier => body += "  bar.sync 0;\n",
            }
        }
        for l in &labels[pieces.len()] {
            body += &format!("$L_{l}:\n");
        }
        format!(
            "
.visible .entry random(.param .u64 out)
{{
  .reg .pred %p<3>;
  .reg .b32 %r<11>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %r1;
  mul.lo.u32 %r3, %r1, 3;
  mov.u32 %r4, 7;
  mov.u32 %r5, 0;
  .loc 1 3 0
{body}  .loc 1 4 0
  add.u32 %r6, %r2, %r3;
  add.u32 %r7, %r4, %r5;
  add.u32 %r6, %r6, %r7;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}}
"
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// Whatever the branches, loops and barriers, lockstep (with lanes waiting for each
        /// other after a split) gives what one thread at a time gives: outputs, counts and
        /// diagnostics (a barrier only some threads reach included).
        #[test]
        fn random_branchy_kernels_give_the_same_results_in_lockstep(
            pieces in proptest::collection::vec(piece(), 1..14),
            threads in proptest::prelude::prop_oneof![proptest::prelude::Just(64u32), 33u32..64],
        ) {
            let src = random_kernel(&pieces);
            let (on, off, _) = both(&src, "random", threads, vec![ints("out", 64)]);
            proptest::prop_assert_eq!(digest(&on), digest(&off), "{}", src);
        }
    }

    #[test]
    fn lanes_split_by_branches_wait_for_each_other_and_run_on_in_lockstep() {
        let nested = SPLITS.replace(
            "  // NESTED\n",
            "  setp.ne.u32 %p2, %r2, 1;\n  @%p2 bra $L_not1;\n  add.u32 %r3, %r3, 100;\n$L_not1:\n",
        );
        for (src, kernel_is_nested) in [(SPLITS.to_string(), false), (nested, true)] {
            let (on, off, ran) = both(&src, "splits", 64, vec![ints("out", 64)]);
            assert_eq!(digest(&on), digest(&off));
            assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
            let out = on.buffers[0].values();
            for (t, &v) in out.iter().enumerate() {
                let m = t % 4;
                let mut r3 = if m == 0 { t + 7 } else { 3 * t };
                if kernel_is_nested && m == 1 {
                    r3 += 100;
                }
                if t >= 40 {
                    r3 += 1000;
                }
                let r4 = m * (m + 1) / 2;
                assert_eq!(v, (r3 + r4) as f64, "thread {t}");
            }
            if kernel_is_nested {
                // The inner `if` splits the lanes waiting for the `else`: from there each
                // lane goes on alone.
                assert!(ran < on.instructions, "{ran} of {}", on.instructions);
            } else {
                assert_eq!(ran, on.instructions, "not all in lockstep");
            }
        }
    }

    #[test]
    fn every_operand_shape_and_a_guard_no_lane_passes_give_the_same_result() {
        let (on, off, ran) = both(SPECIALS, "specials", 64, vec![floats("out", 64)]);
        assert_eq!(digest(&on), digest(&off));
        assert!(ran > 0, "nothing ran in lockstep");
        let out = on.buffers[0].values();
        for (t, &v) in out.iter().enumerate() {
            let r = (t + 7 + if t >= 40 { 64 } else { 0 }) as f32;
            let f2 = r.mul_add(r, r);
            let f4 = f2.mul_add(1.0, r);
            assert_eq!(v, f4.mul_add(2.0, f4) as f64, "thread {t}");
        }
    }

    #[test]
    fn shared_words_a_warp_reads_at_once_are_read_and_counted_as_one_lane_at_a_time() {
        let (on, off, ran) = both(TILE, "tile", 64, vec![ints("out", 64)]);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        assert_eq!(ran, on.instructions, "not all in lockstep");
        let out = on.buffers[0].values();
        for (t, &v) in out.iter().enumerate() {
            let w = (t % 8) as f64;
            assert_eq!(v, if t < 40 { 3.0 * w } else { 2.0 * w }, "thread {t}");
        }
        // 40 threads read three times, 24 twice.
        assert_eq!(on.counters.max_per_thread.shared_reads, 3);
        assert_eq!(on.counters.total.shared_reads, 40 * 3 + 24 * 2);
    }

    /// Each thread stores `tid` to `s[tid]`; after a barrier it reads `s` as 16-byte vectors:
    /// `v4` at `s + 16 (tid % 4)` and 64 bytes on (groups of lanes on one vector, a tile row
    /// every lane reads), `v2` at `s + 8 (tid % 32)` (read by one lane of each warp: never
    /// clean for the first), `v4` at `s + 32` (every lane on one vector: after warp 0, read
    /// once for the warp), `u32`-, `b32`- and `s32`-typed; `out[tid]` = the 14 words' sum.
    /// `NOSYNC` marks the barrier (removed: the vector reads race with the stores).
    const VECTORS: &str = "
.shared .align 16 .b8 s[512];
.visible .entry vectors(.param .u64 out)
{
  .reg .b32 %r<22>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  .loc 1 3 0
  st.shared.u32 [%r4], %r1;
  bar.sync 0; // NOSYNC
  and.b32 %r5, %r1, 3;
  shl.b32 %r5, %r5, 4;
  add.s32 %r5, %r3, %r5;
  .loc 1 4 0
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5];
  and.b32 %r10, %r1, 31;
  shl.b32 %r10, %r10, 3;
  add.s32 %r10, %r3, %r10;
  .loc 1 5 0
  ld.shared.v2.s32 {%r11, %r12}, [%r10];
  ld.shared.v4.b32 {%r13, %r14, %r15, %r16}, [%r5+64];
  ld.shared.v4.u32 {%r18, %r19, %r20, %r21}, [%r3+32];
  add.s32 %r17, %r6, %r7;
  add.s32 %r17, %r17, %r8;
  add.s32 %r17, %r17, %r9;
  add.s32 %r17, %r17, %r11;
  add.s32 %r17, %r17, %r12;
  add.s32 %r17, %r17, %r13;
  add.s32 %r17, %r17, %r14;
  add.s32 %r17, %r17, %r15;
  add.s32 %r17, %r17, %r16;
  add.s32 %r17, %r17, %r18;
  add.s32 %r17, %r17, %r19;
  add.s32 %r17, %r17, %r20;
  add.s32 %r17, %r17, %r21;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 6 0
  st.global.u32 [%rd4], %r17;
  ret;
}
";

    #[test]
    fn vector_shared_loads_run_in_lockstep_and_are_read_and_counted_as_one_lane_at_a_time() {
        let (on, off, ran) = both(VECTORS, "vectors", 64, vec![ints("out", 64)]);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        assert_eq!(ran, on.instructions, "not all in lockstep");
        let out = on.buffers[0].values();
        for (t, &v) in out.iter().enumerate() {
            let g = 4 * (t as u32 % 4);
            let want = (g..g + 4).sum::<u32>()
                + (2 * (t as u32 % 32)..2 * (t as u32 % 32) + 2).sum::<u32>()
                + (16 + g..16 + g + 4).sum::<u32>()
                + (8..12).sum::<u32>();
            assert_eq!(v, want as f64, "thread {t}");
        }
        assert_eq!(on.counters.total.shared_reads, 64 * 14);
        assert_eq!(on.counters.max_per_thread.shared_reads, 14);
    }

    #[test]
    fn a_vector_shared_load_racing_a_store_is_reported_as_one_thread_at_a_time_reports_it() {
        let racy = VECTORS.replace("bar.sync 0; // NOSYNC", "");
        let (on, off, ran) = both(&racy, "vectors", 64, vec![ints("out", 64)]);
        assert!(!on.diagnostics.is_empty());
        assert_eq!(digest(&on), digest(&off));
        assert_eq!(ran, 0);
    }

    /// `out[tid] = tid + 3000`, counted up one at a time in a loop of 3000 turns with no
    /// barrier: several quanta in lockstep, the registers held from one to the next.
    const LONG: &str = "
.visible .entry long(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  .loc 1 2 0
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
$L_loop:
  .loc 1 3 0
  add.s32 %r1, %r1, 1;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 3000;
  @%p1 bra $L_loop;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 4 0
  st.global.u32 [%rd4], %r1;
  ret;
}
";

    #[test]
    fn registers_held_from_quantum_to_quantum_give_the_same_result_and_step_limit() {
        let (on, off, ran) = both(LONG, "long", 64, vec![ints("out", 64)]);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        assert_eq!(ran, on.instructions, "not all in lockstep");
        let out = on.buffers[0].values();
        assert!(out.iter().enumerate().all(|(t, &v)| v == t as f64 + 3000.0));
        // A limit reached after some quanta: lockstep stops short of it, the lanes go on
        // alone from the registers it held, and the same thread is stopped.
        for limit in [400_003, 600_001] {
            let opts = EmuOptions {
                step_limit: limit,
                ..EmuOptions::default()
            };
            let (on, off, ran) = both_with(LONG, "long", 64, vec![ints("out", 64)], opts);
            assert_eq!(digest(&on), digest(&off));
            assert_eq!(on.diagnostics.len(), 1, "{:?}", on.diagnostics);
            assert!(
                ran > 0 && ran < on.instructions,
                "{ran} of {}",
                on.instructions
            );
        }
    }

    #[test]
    fn a_race_between_lanes_is_reported_as_one_thread_at_a_time_reports_it() {
        let (on, off, ran) = both(RACY, "racy", 64, vec![ints("out", 128)]);
        assert!(!on.diagnostics.is_empty());
        assert_eq!(digest(&on), digest(&off));
        // The result returned is the second run's, one thread at a time.
        assert_eq!(ran, 0);
    }

    #[test]
    fn an_access_out_of_bounds_for_some_lanes_is_reported_as_before() {
        // `in` has 40 elements: lanes 8 and up of warp 1 read past it.
        let (on, off, _) = both(
            TWICE,
            "twice",
            64,
            vec![floats("out", 128), floats("in", 40)],
        );
        assert!(!on.diagnostics.is_empty());
        assert_eq!(digest(&on), digest(&off));
    }

    #[test]
    fn the_step_limit_stops_the_same_thread_at_the_same_count() {
        let opts = EmuOptions {
            step_limit: 1_000_003,
            ..EmuOptions::default()
        };
        let (on, off, ran) = both_with(ENDLESS, "endless", 96, vec![ints("out", 1)], opts);
        assert_eq!(digest(&on), digest(&off));
        assert_eq!(on.diagnostics.len(), 1, "{:?}", on.diagnostics);
        // Lockstep ran while the limit was far, then the lanes went one at a time.
        assert!(
            ran > 0 && ran < on.instructions,
            "{ran} of {}",
            on.instructions
        );
    }

    #[test]
    fn the_step_limit_stops_the_same_thread_after_lanes_waited_for_each_other() {
        // Lanes of the two sides run different counts per turn of the loop: what each lane
        // ran must be counted as its own for the limit to stop the same thread.
        let opts = EmuOptions {
            step_limit: 1_000_003,
            ..EmuOptions::default()
        };
        let (on, off, ran) = both_with(
            ENDLESS_SPLIT,
            "endless_split",
            96,
            vec![ints("out", 1)],
            opts,
        );
        assert_eq!(digest(&on), digest(&off));
        assert_eq!(on.diagnostics.len(), 1, "{:?}", on.diagnostics);
        assert!(
            ran > 0 && ran < on.instructions,
            "{ran} of {}",
            on.instructions
        );
    }

    #[test]
    fn the_step_limit_stops_the_same_thread_when_warps_were_counted_a_turn_at_once() {
        // Lockstep adds a warp's turn to the count at once, so the count reaches each batch
        // at another thread than one lane at a time does: the limit must be noticed at the
        // turn that crosses it, not at the next full batch.
        for limit in [1_000_003, 777_777] {
            let opts = EmuOptions {
                step_limit: limit,
                ..EmuOptions::default()
            };
            let (on, off, ran) = both_with(
                ENDLESS_BARRIER,
                "endless_barrier",
                96,
                vec![ints("out", 1)],
                opts,
            );
            assert_eq!(digest(&on), digest(&off));
            assert_eq!(on.diagnostics.len(), 1, "{:?}", on.diagnostics);
            assert!(ran > 0, "lockstep never ran");
        }
    }

    #[test]
    fn registers_held_across_barriers_are_handed_back_when_lanes_go_on_alone() {
        // 64 threads x 1000 iterations x 4 instructions: lockstep holds the warps' registers
        // from barrier to barrier until the launch comes within a warp's turn of its limit,
        // then every lane runs alone from its own registers.
        let opts = EmuOptions {
            step_limit: 300_000,
            ..EmuOptions::default()
        };
        let (on, off, ran) = both_with(COUNTER, "counter", 64, vec![ints("out", 64)], opts);
        assert_eq!(digest(&on), digest(&off));
        assert!(on.diagnostics.is_empty(), "{:?}", on.diagnostics);
        assert!(on.buffers[0].values().iter().all(|&v| v == 1000.0));
        assert!(
            ran > 0 && ran < on.instructions,
            "{ran} of {}",
            on.instructions
        );
    }

    #[test]
    fn a_plain_read_before_an_atomic_is_not_run_in_lockstep() {
        let (on, off, ran) = both(TICKET, "ticket", 32, vec![ints("out", 32), ints("c", 1)]);
        assert_eq!(digest(&on), digest(&off));
        let tickets = on.buffers[0].values();
        assert_eq!(tickets[5], 5.0);
        assert_eq!(tickets[31], 31.0);
        // The plain read races the other threads' atomic updates (a global race, reported),
        // and a launch with a race is decided again one thread at a time: none of that run
        // is in lockstep.
        assert!(
            on.diagnostics
                .iter()
                .any(|d| d.kind == crate::emu::result::DiagKind::GlobalRace),
            "{:?}",
            on.diagnostics
        );
        assert_eq!(ran, 0);
    }
}
