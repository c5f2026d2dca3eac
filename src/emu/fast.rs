//! The interpreter's fast path: the handful of instructions that make up almost all of a
//! kernel's run time (32/64-bit integer arithmetic, f32/f64 add/mul/fma, compares, moves,
//! branches, scalar global and shared loads and stores), decoded once per launch into small
//! `Copy` records with register/immediate operands resolved. Everything else, and every access
//! that is out of bounds or misaligned, takes the general path in `block.rs`, so semantics and
//! diagnostics have one definition.

use super::alu;
use super::memory::{LOCAL_WINDOW, SHARED_WINDOW};
use crate::ptx::ir::{
    BinOp, CmpOp, FFlags, Function, Inst, Op, Operand, Rounding, Space, Special, Ty, UnOp,
};

/// A register or an immediate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Src {
    R(u32),
    I(u64),
}

/// Integer operations of the fast path (on 32 or 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IntOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    MinS,
    MinU,
    MaxS,
    MaxU,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FloatOp {
    Add,
    Sub,
    Mul,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Fast {
    /// Not on the fast path: run the instruction's general implementation.
    Slow,
    Int32 {
        op: IntOp,
        d: u32,
        a: Src,
        b: Src,
    },
    Int64 {
        op: IntOp,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `mul.wide.s32/u32`.
    MulWide {
        signed: bool,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `mad.lo.s32/u32/b32`.
    Mad32 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    F32 {
        op: FloatOp,
        d: u32,
        a: Src,
        b: Src,
    },
    Fma32 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    F64 {
        op: FloatOp,
        d: u32,
        a: Src,
        b: Src,
    },
    Fma64 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Setp {
        cmp: CmpOp,
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `mov` (masked to the type's width).
    Mov {
        ty: Ty,
        d: u32,
        a: Src,
    },
    /// Integer to integer `cvt` without saturation.
    CvtInt {
        dty: Ty,
        sty: Ty,
        d: u32,
        a: Src,
    },
    Bra {
        target: u32,
    },
    /// `mov` of a special register (`%tid.x`, ...).
    Special {
        d: u32,
        s: Special,
    },
    /// `cvta` to (`to`) or from the generic window starting at `window`.
    Cvta {
        to: bool,
        window: u64,
        d: u32,
        a: Src,
    },
    /// Scalar `ld.param` from the current frame's param area.
    LdParam {
        ty: Ty,
        d: u32,
        base: Src,
        off: i64,
    },
    /// Scalar `ld.global` (or `.const`) of `ty` at `[base + off]`; `slot` caches the allocation.
    LdGlobal {
        ty: Ty,
        d: u32,
        base: Src,
        off: i64,
        slot: u32,
    },
    StGlobal {
        size: u32,
        src: Src,
        base: Src,
        off: i64,
        slot: u32,
    },
    /// Scalar `ld.shared` at shared offset `[base + off]`.
    LdShared {
        ty: Ty,
        d: u32,
        base: Src,
        off: i64,
    },
    StShared {
        size: u32,
        src: Src,
        base: Src,
        off: i64,
    },
    /// `ld.shared.v2/v4` of 4-byte elements at shared offset `[base + off]` into `d[..n]`
    /// (a tile read as `float4`). Only lockstep takes it (`block/lockstep.rs`); one thread
    /// alone runs the general path.
    LdSharedVec {
        ty: Ty,
        n: u8,
        d: [u32; 4],
        base: Src,
        off: i64,
    },
}

/// One decoded instruction: its fast form and its guard (`NO_GUARD` when unguarded).
#[derive(Clone, Copy, Debug)]
pub(super) struct FastInst {
    pub(super) op: Fast,
    pub(super) guard: u32,
    pub(super) negate: bool,
    /// Lanes must not run this instruction in lockstep (`block/lockstep.rs`), since its order
    /// against other lanes' instructions may matter in a way the checkers do not see (see
    /// `solo_accesses`), or its guard is one the decoder could not take.
    pub(super) solo: bool,
}

pub(super) const NO_GUARD: u32 = u32::MAX;

/// The decoded functions of a module, and how many allocation-cache slots their loads and
/// stores use.
pub(super) struct FastCode {
    pub(super) functions: Vec<Vec<FastInst>>,
    pub(super) slots: u32,
}

/// Where the module's symbols are in this launch: shared offsets and global addresses.
pub(super) struct Symbols<'a> {
    pub(super) shared: &'a [u64],
    pub(super) global: &'a [u64],
}

/// Decode every function.
pub(super) fn decode(functions: &[Function], syms: &Symbols) -> FastCode {
    let mut slots = 0u32;
    let functions = functions
        .iter()
        .map(|f| {
            let solo = solo_accesses(&f.body);
            f.body
                .iter()
                .zip(solo)
                .map(|(inst, solo)| FastInst {
                    // (An out-of-range guard register decodes as `Slow` with `NO_GUARD`, and the
                    // general path evaluates the guard itself.)
                    op: decode_one(inst, f.num_regs, syms, &mut slots),
                    guard: match inst.guard {
                        Some((p, _)) if p < f.num_regs => p,
                        _ => NO_GUARD,
                    },
                    negate: inst.guard.is_some_and(|(_, n)| n),
                    solo: solo || inst.guard.is_some_and(|(p, _)| p >= f.num_regs),
                })
                .collect()
        })
        .collect();
    FastCode { functions, slots }
}

/// Which loads and stores of `body` lanes must not run in lockstep. Lockstep does a warp's
/// plain accesses lane after lane at each instruction, where the one-thread-at-a-time schedule
/// lets each lane run on first: the order of two lanes' accesses to one word changes, which
/// only a race can observe, and the checkers report races, except for these (`race.rs`,
/// `shadow.rs`):
/// - a plain access to a word that another lane updates atomically (a spin-wait's read of a
///   flag, `old = *p` before an `atomicCAS` loop): so no access from which an atomic (or a
///   call, which may hold one) can be reached before the thread next waits (at a barrier or
///   warp collective);
/// - volatile loads (a spin-wait on a flag another thread stores);
/// - 1- and 2-byte global or generic accesses (the global checker watches 4-byte words).
fn solo_accesses(body: &[Inst]) -> Vec<bool> {
    // Backwards to a fixed point: an atomic is ahead of an instruction when it is one, or is
    // ahead of an instruction that can come next without the thread waiting first.
    let mut ahead = vec![false; body.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..body.len()).rev() {
            if ahead[pc] {
                continue;
            }
            let inst = &body[pc];
            let guarded = inst.guard.is_some();
            let next = |i: usize| ahead.get(i).copied().unwrap_or(false);
            let now = match &inst.op {
                Op::Atom { .. } | Op::Call { .. } => true,
                Op::Bra { target } => next(*target as usize) || (guarded && next(pc + 1)),
                Op::Brx { targets, .. } => {
                    targets.iter().any(|&t| next(t as usize)) || (guarded && next(pc + 1))
                }
                Op::Ret | Op::Exit | Op::Trap => guarded && next(pc + 1),
                // The thread waits here (unless its guard is false): what follows runs after
                // every lane has done what precedes.
                Op::BarSync { .. }
                | Op::BarRed { .. }
                | Op::BarWarpSync { .. }
                | Op::Shfl { .. }
                | Op::Vote { .. }
                | Op::Redux { .. }
                | Op::MatchAny { .. }
                | Op::MatchAll { .. }
                | Op::Wmma(_)
                | Op::Activemask { .. }
                | Op::Tensor(_) => guarded && next(pc + 1),
                _ => next(pc + 1),
            };
            if now {
                ahead[pc] = true;
                changed = true;
            }
        }
    }
    // Only what other threads can write: constant, param and local memory never race.
    let racy = |space: Space, ty: Ty, atomic_ahead: bool| {
        let shared = matches!(space, Space::Global | Space::Shared | Space::Generic);
        let narrow_global = space != Space::Shared && ty.size() < 4;
        shared && (atomic_ahead || narrow_global)
    };
    body.iter()
        .zip(ahead)
        .map(|(inst, atomic_ahead)| match &inst.op {
            Op::Ld {
                space,
                ty,
                volatile,
                ..
            } => *volatile || racy(*space, *ty, atomic_ahead),
            Op::St { space, ty, .. } => racy(*space, *ty, atomic_ahead),
            _ => false,
        })
        .collect()
}

fn decode_one(inst: &Inst, num_regs: u32, syms: &Symbols, slots: &mut u32) -> Fast {
    // A guard register that does not exist must keep the general path (never a panic here).
    if inst.guard.is_some_and(|(p, _)| p >= num_regs) {
        return Fast::Slow;
    }
    let reg = |d: u32| (d < num_regs).then_some(d);
    // Registers, immediates, and the symbols whose value is fixed for the launch.
    let src = |o: &Operand| match *o {
        Operand::Reg(r) if r < num_regs => Some(Src::R(r)),
        Operand::Imm(v) => Some(Src::I(v)),
        Operand::SharedSym(i) => syms.shared.get(i as usize).map(|&v| Src::I(v)),
        Operand::GlobalSym(i) => syms.global.get(i as usize).map(|&v| Src::I(v)),
        Operand::ParamSym(off) => Some(Src::I(off as u64)),
        _ => None,
    };
    let base = src;
    let plain = |f: &FFlags, rnd: &Rounding| {
        *f == FFlags::default() && matches!(rnd, Rounding::Default | Rounding::Rn)
    };
    let built = match &inst.op {
        Op::Bin {
            op,
            ty,
            d,
            a,
            b,
            f,
            rnd,
        } => {
            let (d, a, b) = (reg(*d), src(a), src(b));
            let (Some(d), Some(a), Some(b)) = (d, a, b) else {
                return Fast::Slow;
            };
            match ty {
                Ty::F32 | Ty::F64 => {
                    let fop = match op {
                        BinOp::Add => FloatOp::Add,
                        BinOp::Sub => FloatOp::Sub,
                        BinOp::MulLo => FloatOp::Mul,
                        _ => return Fast::Slow,
                    };
                    if !plain(f, rnd) {
                        return Fast::Slow;
                    }
                    if *ty == Ty::F32 {
                        Some(Fast::F32 { op: fop, d, a, b })
                    } else {
                        Some(Fast::F64 { op: fop, d, a, b })
                    }
                }
                _ if *op == BinOp::MulWide && matches!(ty, Ty::S32 | Ty::U32) => {
                    Some(Fast::MulWide {
                        signed: *ty == Ty::S32,
                        d,
                        a,
                        b,
                    })
                }
                _ if ty.size() >= 4 && !ty.is_float() && *ty != Ty::Pred && !f.sat => {
                    let signed = ty.is_signed();
                    let iop = match op {
                        BinOp::Add => IntOp::Add,
                        BinOp::Sub => IntOp::Sub,
                        BinOp::MulLo => IntOp::Mul,
                        BinOp::And => IntOp::And,
                        BinOp::Or => IntOp::Or,
                        BinOp::Xor => IntOp::Xor,
                        BinOp::Shl => IntOp::Shl,
                        BinOp::Shr if signed => IntOp::ShrS,
                        BinOp::Shr => IntOp::ShrU,
                        BinOp::Min if signed => IntOp::MinS,
                        BinOp::Min => IntOp::MinU,
                        BinOp::Max if signed => IntOp::MaxS,
                        BinOp::Max => IntOp::MaxU,
                        _ => return Fast::Slow,
                    };
                    if ty.size() == 4 {
                        Some(Fast::Int32 { op: iop, d, a, b })
                    } else {
                        Some(Fast::Int64 { op: iop, d, a, b })
                    }
                }
                _ => None,
            }
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
            let (Some(d), Some(a), Some(b), Some(c)) = (reg(*d), src(a), src(b), src(c)) else {
                return Fast::Slow;
            };
            match ty {
                Ty::F32 if plain(f, rnd) => Some(Fast::Fma32 { d, a, b, c }),
                Ty::F64 if plain(f, rnd) => Some(Fast::Fma64 { d, a, b, c }),
                Ty::S32 | Ty::U32 | Ty::B32 if *mode == BinOp::MulLo && !f.sat => {
                    Some(Fast::Mad32 { d, a, b, c })
                }
                _ => None,
            }
        }
        Op::Setp {
            cmp,
            ty,
            d,
            d2: None,
            a,
            b,
            comb: None,
        } if !matches!(ty, Ty::F16 | Ty::BF16) => match (reg(*d), src(a), src(b)) {
            (Some(d), Some(a), Some(b)) => Some(Fast::Setp {
                cmp: *cmp,
                ty: *ty,
                d,
                a,
                b,
            }),
            _ => None,
        },
        Op::Un {
            op: UnOp::Mov,
            ty,
            d,
            a,
            ..
        } => match (reg(*d), src(a), a) {
            (Some(d), Some(a), _) => Some(Fast::Mov { ty: *ty, d, a }),
            (Some(d), None, Operand::Special(s)) if ty.size() >= 4 => {
                Some(Fast::Special { d, s: *s })
            }
            _ => None,
        },
        Op::Cvta { to, space, d, a } => match (reg(*d), src(a)) {
            (Some(d), Some(a)) => Some(Fast::Cvta {
                to: *to,
                window: match space {
                    Space::Shared => SHARED_WINDOW,
                    Space::Local => LOCAL_WINDOW,
                    _ => 0,
                },
                d,
                a,
            }),
            _ => None,
        },
        Op::Cvt {
            dty,
            sty,
            d,
            a,
            sat: false,
            ..
        } if !dty.is_float() && !sty.is_float() && *dty != Ty::Pred && *sty != Ty::Pred => {
            match (reg(*d), src(a)) {
                (Some(d), Some(a)) => Some(Fast::CvtInt {
                    dty: *dty,
                    sty: *sty,
                    d,
                    a,
                }),
                _ => None,
            }
        }
        Op::Bra { target } => Some(Fast::Bra { target: *target }),
        Op::Ld {
            space: Space::Shared,
            ty,
            d,
            addr,
            ..
        } if (d.len() == 2 || d.len() == 4) && ty.size() == 4 && *ty != Ty::Pred => {
            let mut regs = [0u32; 4];
            let all = d.iter().zip(&mut regs).all(|(&r, slot)| match reg(r) {
                Some(r) => {
                    *slot = r;
                    true
                }
                None => false,
            });
            match (all, base(&addr.base)) {
                (true, Some(b)) => Some(Fast::LdSharedVec {
                    ty: *ty,
                    n: d.len() as u8,
                    d: regs,
                    base: b,
                    off: addr.offset,
                }),
                _ => None,
            }
        }
        Op::Ld {
            space, ty, d, addr, ..
        } if d.len() == 1 && *ty != Ty::Pred && ty.size() >= 1 => {
            match (reg(d[0]), base(&addr.base)) {
                (Some(dr), Some(b)) => match space {
                    Space::Global | Space::Const => {
                        *slots += 1;
                        Some(Fast::LdGlobal {
                            ty: *ty,
                            d: dr,
                            base: b,
                            off: addr.offset,
                            slot: *slots - 1,
                        })
                    }
                    Space::Shared => Some(Fast::LdShared {
                        ty: *ty,
                        d: dr,
                        base: b,
                        off: addr.offset,
                    }),
                    Space::Param => Some(Fast::LdParam {
                        ty: *ty,
                        d: dr,
                        base: b,
                        off: addr.offset,
                    }),
                    _ => None,
                },
                _ => None,
            }
        }
        Op::St {
            space,
            ty,
            src: s,
            addr,
        } if s.len() == 1 && *ty != Ty::Pred => match (src(&s[0]), base(&addr.base)) {
            (Some(v), Some(b)) => match space {
                Space::Global => {
                    *slots += 1;
                    Some(Fast::StGlobal {
                        size: ty.size(),
                        src: v,
                        base: b,
                        off: addr.offset,
                        slot: *slots - 1,
                    })
                }
                Space::Shared => Some(Fast::StShared {
                    size: ty.size(),
                    src: v,
                    base: b,
                    off: addr.offset,
                }),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    built.unwrap_or(Fast::Slow)
}

#[inline(always)]
pub(super) fn int32(op: IntOp, a: u64, b: u64) -> u64 {
    let (x, y) = (a as u32, b as u32);
    let r = match op {
        IntOp::Add => x.wrapping_add(y),
        IntOp::Sub => x.wrapping_sub(y),
        IntOp::Mul => x.wrapping_mul(y),
        IntOp::And => x & y,
        IntOp::Or => x | y,
        IntOp::Xor => x ^ y,
        IntOp::Shl => {
            if b as u32 >= 32 {
                0
            } else {
                x << b as u32
            }
        }
        IntOp::ShrU => {
            if b as u32 >= 32 {
                0
            } else {
                x >> b as u32
            }
        }
        IntOp::ShrS => ((x as i32) >> (b as u32).min(31)) as u32,
        IntOp::MinS => (x as i32).min(y as i32) as u32,
        IntOp::MinU => x.min(y),
        IntOp::MaxS => (x as i32).max(y as i32) as u32,
        IntOp::MaxU => x.max(y),
    };
    r as u64
}

#[inline(always)]
pub(super) fn int64(op: IntOp, a: u64, b: u64) -> u64 {
    match op {
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::Mul => a.wrapping_mul(b),
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl => {
            if b as u32 >= 64 {
                0
            } else {
                a << b as u32
            }
        }
        IntOp::ShrU => {
            if b as u32 >= 64 {
                0
            } else {
                a >> b as u32
            }
        }
        IntOp::ShrS => ((a as i64) >> (b as u32).min(63)) as u64,
        IntOp::MinS => (a as i64).min(b as i64) as u64,
        IntOp::MinU => a.min(b),
        IntOp::MaxS => (a as i64).max(b as i64) as u64,
        IntOp::MaxU => a.max(b),
    }
}

#[inline(always)]
pub(super) fn float32(op: FloatOp, a: u64, b: u64) -> u64 {
    let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    let r = match op {
        FloatOp::Add => x + y,
        FloatOp::Sub => x - y,
        FloatOp::Mul => x * y,
    };
    r.to_bits() as u64
}

#[inline(always)]
pub(super) fn float64(op: FloatOp, a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let r = match op {
        FloatOp::Add => x + y,
        FloatOp::Sub => x - y,
        FloatOp::Mul => x * y,
    };
    r.to_bits()
}

/// `setp` without a boolean combination: the common integer and f32 cases inline, the rest
/// through the general comparison.
#[inline(always)]
pub(super) fn setp(cmp: CmpOp, ty: Ty, a: u64, b: u64) -> bool {
    match ty {
        Ty::S32 => {
            let (x, y) = (a as u32 as i32, b as u32 as i32);
            match cmp {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
                _ => alu::compare(cmp, ty, a, b),
            }
        }
        Ty::U32 | Ty::B32 => {
            let (x, y) = (a as u32, b as u32);
            match cmp {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::Lt | CmpOp::Lo => x < y,
                CmpOp::Le | CmpOp::Ls => x <= y,
                CmpOp::Gt | CmpOp::Hi => x > y,
                CmpOp::Ge | CmpOp::Hs => x >= y,
                _ => alu::compare(cmp, ty, a, b),
            }
        }
        Ty::F32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            match cmp {
                // Ordered comparisons are false with a NaN, as Rust's are.
                CmpOp::Eq => x == y,
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
                _ => alu::compare(cmp, ty, a, b),
            }
        }
        _ => alu::compare(cmp, ty, a, b),
    }
}

/// Integer `cvt`: read the source at its width (sign-extending signed types), then truncate.
#[inline(always)]
pub(super) fn cvt_int(dty: Ty, sty: Ty, a: u64) -> u64 {
    let v = if sty.is_signed() {
        alu::sext(sty, a) as u64
    } else {
        alu::mask(sty, a)
    };
    alu::mask(dty, v)
}

/// `mul.wide.s32/u32`: the full 64-bit product of the low 32 bits.
#[inline(always)]
pub(super) fn mul_wide(signed: bool, x: u64, y: u64) -> u64 {
    if signed {
        (x as u32 as i32 as i64).wrapping_mul(y as u32 as i32 as i64) as u64
    } else {
        (x as u32 as u64).wrapping_mul(y as u32 as u64)
    }
}

/// `mad.lo.s32/u32/b32`.
#[inline(always)]
pub(super) fn mad32(x: u64, y: u64, z: u64) -> u64 {
    (x as u32).wrapping_mul(y as u32).wrapping_add(z as u32) as u64
}

/// `fma.rn.f32`, rounded once.
#[inline(always)]
pub(super) fn fma32(x: u64, y: u64, z: u64) -> u64 {
    let f = |v: u64| f32::from_bits(v as u32);
    super::float::fma_f32(f(x), f(y), f(z)).to_bits() as u64
}

/// `fma32` by `mul_add` itself, for code compiled with the FMA instruction enabled (there it
/// is that instruction, inline, where `fma32` first tests at run time whether the processor
/// has it); elsewhere it would be the library's software `fma`, exact but slow.
#[inline(always)]
pub(super) fn fma32_fused(x: u64, y: u64, z: u64) -> u64 {
    let f = |v: u64| f32::from_bits(v as u32);
    f(x).mul_add(f(y), f(z)).to_bits() as u64
}

/// `fma32_fused` for f64: `fma64` by `mul_add` itself.
#[inline(always)]
pub(super) fn fma64_fused(x: u64, y: u64, z: u64) -> u64 {
    let f = f64::from_bits;
    f(x).mul_add(f(y), f(z)).to_bits()
}

/// `fma.rn.f64`, rounded once.
#[inline(always)]
pub(super) fn fma64(x: u64, y: u64, z: u64) -> u64 {
    let f = f64::from_bits;
    super::float::fma_f64(f(x), f(y), f(z)).to_bits()
}

/// `cvta` into (`to`) or out of the generic window starting at `window`.
#[inline(always)]
pub(super) fn cvta(to: bool, window: u64, a: u64) -> u64 {
    if to {
        a.wrapping_sub(window)
    } else {
        a.wrapping_add(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::ir::FFlags;
    use proptest::prelude::*;

    const F: FFlags = FFlags {
        ftz: false,
        sat: false,
        approx: false,
        nan: false,
    };

    fn general(op: BinOp, ty: Ty, a: u64, b: u64) -> u64 {
        alu::bin(op, ty, a, b, F, Rounding::Default)
    }

    fn fast_int(op: BinOp, ty: Ty, a: u64, b: u64) -> Option<u64> {
        let inst = Inst {
            op: Op::Bin {
                op,
                ty,
                d: 0,
                a: Operand::Reg(1),
                b: Operand::Reg(2),
                f: F,
                rnd: Rounding::Default,
            },
            guard: None,
            line: 0,
            file: 0,
        };
        let syms = Symbols {
            shared: &[],
            global: &[],
        };
        match decode_one(&inst, 3, &syms, &mut 0) {
            Fast::Int32 { op, .. } => Some(int32(op, a, b)),
            Fast::Int64 { op, .. } => Some(int64(op, a, b)),
            Fast::MulWide { signed, .. } => Some(if signed {
                (a as u32 as i32 as i64).wrapping_mul(b as u32 as i32 as i64) as u64
            } else {
                (a as u32 as u64).wrapping_mul(b as u32 as u64)
            }),
            Fast::F32 { op, .. } => Some(float32(op, a, b)),
            Fast::F64 { op, .. } => Some(float64(op, a, b)),
            _ => None,
        }
    }

    const OPS: [BinOp; 14] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::MulLo,
        BinOp::MulWide,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Min,
        BinOp::Max,
        BinOp::Div,
        BinOp::Rem,
        BinOp::MulHi,
    ];
    const TYS: [Ty; 11] = [
        Ty::S32,
        Ty::U32,
        Ty::B32,
        Ty::S64,
        Ty::U64,
        Ty::B64,
        Ty::F32,
        Ty::F64,
        Ty::S16,
        Ty::U16,
        Ty::Pred,
    ];

    proptest! {
        /// The fast path computes exactly what the general path does, for every operation it
        /// takes (register values are zero-extended to 64 bits, as the emulator keeps them).
        #[test]
        fn fast_integer_and_float_ops_match_the_general_path(a: u64, b: u64, small: u8) {
            for ty in TYS {
                let norm = |v: u64| alu::mask(ty, v);
                for bv in [b, small as u64 % 70] {
                    let (x, y) = (norm(a), norm(bv));
                    for op in OPS {
                        if let Some(got) = fast_int(op, ty, x, y) {
                            let want = general(op, ty, x, y);
                            let same = if ty.is_float() {
                                let nan = |v: u64| if ty == Ty::F32 { f32::from_bits(v as u32).is_nan() } else { f64::from_bits(v).is_nan() };
                                got == want || (nan(got) && nan(want))
                            } else {
                                got == want
                            };
                            prop_assert!(same, "{:?}.{:?} {:#x} {:#x}: fast {:#x} general {:#x}", op, ty, x, y, got, want);
                        }
                    }
                }
            }
        }

        #[test]
        fn fast_compares_match_the_general_path(a: u64, b: u64) {
            let cmps = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge,
                CmpOp::Lo, CmpOp::Ls, CmpOp::Hi, CmpOp::Hs, CmpOp::Equ, CmpOp::Ltu, CmpOp::Nan];
            for ty in [Ty::S32, Ty::U32, Ty::B32, Ty::F32, Ty::S64, Ty::F64] {
                for cmp in cmps {
                    for (x, y) in [(a, b), (a, a), (alu::mask(ty, a), alu::mask(ty, b))] {
                        prop_assert_eq!(setp(cmp, ty, x, y), alu::compare(cmp, ty, x, y), "{:?}.{:?}", cmp, ty);
                    }
                }
            }
        }

        #[test]
        fn fast_conversions_match_the_general_path(a: u64) {
            let ints = [Ty::S8, Ty::S16, Ty::S32, Ty::S64, Ty::U8, Ty::U16, Ty::U32, Ty::U64, Ty::B32, Ty::B64];
            for dty in ints {
                for sty in ints {
                    prop_assert_eq!(
                        cvt_int(dty, sty, a),
                        alu::cvt(dty, sty, a, Rounding::Default, false, false),
                        "cvt.{:?}.{:?}", dty, sty
                    );
                }
            }
        }
    }

    #[test]
    fn flagged_and_unusual_forms_stay_on_the_general_path() {
        let mk = |op: Op| Inst {
            op,
            guard: None,
            line: 0,
            file: 0,
        };
        let ftz = FFlags { ftz: true, ..F };
        for op in [
            Op::Bin {
                op: BinOp::Add,
                ty: Ty::F32,
                d: 0,
                a: Operand::Reg(1),
                b: Operand::Reg(2),
                f: ftz,
                rnd: Rounding::Default,
            },
            Op::Bin {
                op: BinOp::Add,
                ty: Ty::F32,
                d: 0,
                a: Operand::Reg(1),
                b: Operand::Reg(2),
                f: F,
                rnd: Rounding::Rz,
            },
            Op::Bin {
                op: BinOp::Add,
                ty: Ty::S32,
                d: 9,
                a: Operand::Reg(1),
                b: Operand::Reg(2),
                f: F,
                rnd: Rounding::Default,
            },
            Op::Bin {
                op: BinOp::Add,
                ty: Ty::S32,
                d: 0,
                a: Operand::Special(crate::ptx::ir::Special::Tid(0)),
                b: Operand::Reg(2),
                f: F,
                rnd: Rounding::Default,
            },
        ] {
            let syms = Symbols {
                shared: &[],
                global: &[],
            };
            assert_eq!(decode_one(&mk(op), 3, &syms, &mut 0), Fast::Slow);
        }
    }

    /// Which accesses of `body` (PTX instructions, one a line) `solo_accesses` keeps out of
    /// lockstep, by their index among the body's instructions.
    fn solo_of(body: &str) -> Vec<usize> {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.shared .align 4 .b8 s[64];\n\
             .visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n\
             .reg .b64 %rd<4>;\n{body}\n}}\n"
        );
        let m = crate::ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let f = &m.functions[0];
        let solo = solo_accesses(&f.body);
        (0..solo.len()).filter(|&i| solo[i]).collect()
    }

    #[test]
    fn accesses_an_atomic_can_follow_before_a_wait_stay_out_of_lockstep() {
        // A read, then an atomic: the read is solo; the store after the atomic is not.
        let got = solo_of(
            "ld.global.u32 %r1, [%rd1];\natom.global.add.u32 %r2, [%rd1], 1;\n\
             st.global.u32 [%rd1], %r1;\nret;",
        );
        assert_eq!(got, [0]);
        // A barrier between them orders the lanes: nothing is solo.
        let got = solo_of(
            "ld.global.u32 %r1, [%rd1];\nbar.sync 0;\natom.global.add.u32 %r2, [%rd1], 1;\nret;",
        );
        assert!(got.is_empty(), "{got:?}");
        // Unless the barrier is guarded (a lane may pass it without waiting).
        let got = solo_of(
            "ld.global.u32 %r1, [%rd1];\n@%p1 bar.sync 0;\natom.global.add.u32 %r2, [%rd1], 1;\nret;",
        );
        assert_eq!(got, [0]);
        // In a loop, an atomic reaches the accesses before it through the back edge; a
        // shared store is solo too (the shared checker does not compare atomics with plain
        // accesses), a param load never.
        let got = solo_of(
            "ld.param.u64 %rd1, [p];\n$L: st.shared.u32 [s], %r1;\nld.global.u32 %r1, [%rd1];\n\
             atom.shared.add.u32 %r2, [s], 1;\n@%p1 bra $L;\nret;",
        );
        assert_eq!(got, [1, 2]);
    }

    #[test]
    fn volatile_and_narrow_global_accesses_stay_out_of_lockstep() {
        let got = solo_of(
            "ld.volatile.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1];\n\
             st.global.u8 [%rd1], %r1;\nld.shared.u8 %r3, [s];\nld.u16 %r4, [%rd1];\nret;",
        );
        assert_eq!(got, [0, 2, 4]);
    }
}
