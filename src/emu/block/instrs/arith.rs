//! Arithmetic, logic, comparison and conversion instructions on the general path (those the
//! fast path of `crate::emu::fast` does not decode, or with operands it does not take).

use super::super::{low_mask, Mem, Regs, Thread};
use crate::emu::alu;
use crate::emu::memory::{classify, Window, LOCAL_WINDOW, SHARED_WINDOW};
use crate::emu::technique::Family;
use crate::ptx::ir::*;

/// The pattern of this family's instructions (what `arith` executes), one list for the
/// dispatchers of `step.rs` (whose match stays exhaustive) and `lockstep.rs`.
macro_rules! arith_op {
    () => {
        Op::Bin { .. }
            | Op::Mad { .. }
            | Op::Un { .. }
            | Op::Setp { .. }
            | Op::Selp { .. }
            | Op::Slct { .. }
            | Op::Cvt { .. }
            | Op::Cvta { .. }
            | Op::Isspacep { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Sad { .. }
            | Op::Dot { .. }
            | Op::Prmt { .. }
            | Op::Fns { .. }
            | Op::Lop3 { .. }
            | Op::Shf { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::Half2 { .. }
    };
}
pub(in crate::emu::block) use arith_op;

/// The family (`emu::technique`) an instruction of this family counts in, if any: `dp4a`,
/// packed half arithmetic, `f64`, and scalar `f32` and `f16` arithmetic (on the general path:
/// the fast path counts its own `f32` add, sub, mul and fma). Counted by the dispatchers, once
/// per execution.
#[inline]
pub(in crate::emu::block) fn arith_family(op: &Op) -> Option<Family> {
    match op {
        // `dp2a` multiplies 16-bit halves by bytes: not the four-byte product `dp4a` counts.
        Op::Dot {
            kind: crate::ptx::ir::DotKind::Dp4a,
            ..
        } => Some(Family::Dp4a),
        // Packing two floats into a __half2 (`cvt.rn.f16x2.f32`, `__floats2half2_rn`) is a
        // conversion, not arithmetic: float maths packed at the end must not count.
        Op::Half2 { pair: true, op, .. } if !matches!(op, Half2Op::PackCvt(_)) => {
            Some(Family::F16x2)
        }
        // One half's `fma.rn.relu`, `min/max.xorsign.abs`; a scalar `set` is a comparison.
        Op::Half2 {
            pair: false, op, ..
        } if !matches!(op, Half2Op::PackCvt(_) | Half2Op::Set { .. }) => Some(Family::F16),
        Op::Bin { ty: Ty::F64, .. } | Op::Un { ty: Ty::F64, .. } | Op::Mad { ty: Ty::F64, .. } => {
            Some(Family::F64)
        }
        Op::Un {
            op: crate::ptx::ir::UnOp::Popc,
            ..
        } => Some(Family::Popc),
        Op::Bin { op, ty, .. } if float_bin(*op) => scalar_float(*ty),
        Op::Un { op, ty, .. } if float_un(*op) => scalar_float(*ty),
        Op::Mad { ty, .. } => scalar_float(*ty),
        _ => None,
    }
}

/// The scalar float family of an arithmetic instruction's type: `f32`, or `f16` for one half.
#[inline]
fn scalar_float(ty: Ty) -> Option<Family> {
    match ty {
        Ty::F32 => Some(Family::F32),
        Ty::F16 | Ty::BF16 => Some(Family::F16),
        _ => None,
    }
}

/// The binary operations that are float arithmetic (not `copysign`, a move of a sign bit).
#[inline]
fn float_bin(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::MulLo | BinOp::Div | BinOp::Min | BinOp::Max
    )
}

/// The unary operations that are float arithmetic: not `mov` (constants and copies).
#[inline]
fn float_un(op: UnOp) -> bool {
    matches!(
        op,
        UnOp::Neg
            | UnOp::Abs
            | UnOp::Sqrt
            | UnOp::Rsqrt
            | UnOp::Rcp
            | UnOp::Ex2
            | UnOp::Lg2
            | UnOp::Sin
            | UnOp::Cos
            | UnOp::Tanh
    )
}

/// Execute `op`, one of this family (the dispatcher in `step.rs` sends only those here).
pub(in crate::emu::block) fn arith<R: Regs + ?Sized>(
    mem: &Mem,
    th: &Thread,
    regs: &mut R,
    op: &Op,
) {
    match op {
        Op::Bin {
            op,
            ty,
            d,
            a,
            b,
            f,
            rnd,
        } => {
            let (a, b) = (mem.val_in(th, regs, a), mem.val_in(th, regs, b));
            regs.set(*d, alu::bin(*op, *ty, a, b, *f, *rnd));
        }
        Op::Half2 {
            op,
            ty,
            pair,
            d,
            d2,
            a,
            b,
            c,
            f,
        } => {
            let (a, b, c) = (
                mem.val_in(th, regs, a),
                mem.val_in(th, regs, b),
                mem.val_in(th, regs, c),
            );
            if let Half2Op::Setp { .. } = op {
                let (low, high) = alu::half2_setp(*op, *ty, a, b, c);
                regs.set(*d, low as u64);
                if let Some(d2) = d2 {
                    regs.set(*d2, high as u64);
                }
            } else {
                regs.set(*d, alu::half2(*op, *ty, *pair, a, b, c, *f));
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
            let (a, b, c) = (
                mem.val_in(th, regs, a),
                mem.val_in(th, regs, b),
                mem.val_in(th, regs, c),
            );
            regs.set(*d, alu::mad(*mode, *ty, a, b, c, *f, *rnd));
        }
        Op::Un { op, ty, d, a, f } => {
            let a = mem.val_in(th, regs, a);
            regs.set(*d, alu::un(*op, *ty, a, *f));
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
            let r = alu::compare(*cmp, *ty, mem.val_in(th, regs, a), mem.val_in(th, regs, b));
            let (r1, r2) = match comb {
                Some((bop, c, neg)) => {
                    let c = (mem.val_in(th, regs, c) != 0) != *neg;
                    (alu::bool_op(*bop, r, c), alu::bool_op(*bop, !r, c))
                }
                None => (r, !r),
            };
            regs.set(*d, r1 as u64);
            if let Some(d2) = d2 {
                regs.set(*d2, r2 as u64);
            }
        }
        Op::Selp { ty, d, a, b, p } => {
            let v = if mem.val_in(th, regs, p) != 0 {
                mem.val_in(th, regs, a)
            } else {
                mem.val_in(th, regs, b)
            };
            regs.set(*d, alu::mask(*ty, v));
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
            let c = mem.val_in(th, regs, c);
            let take_a = if *cty == Ty::F32 {
                f32::from_bits(c as u32) >= 0.0
            } else {
                alu::sext(Ty::S32, c) >= 0
            };
            regs.set(
                *d,
                alu::mask(
                    *ty,
                    if take_a {
                        mem.val_in(th, regs, a)
                    } else {
                        mem.val_in(th, regs, b)
                    },
                ),
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
            relu,
            satfinite,
        } => {
            let a = mem.val_in(th, regs, a);
            let v = alu::cvt(*dty, *sty, a, *rnd, *sat, *ftz);
            regs.set(
                *d,
                if *relu || *satfinite {
                    alu::half_finish(*dty, v, *relu, *satfinite)
                } else {
                    v
                },
            );
        }
        Op::Cvta { to, space, d, a } => {
            let a = mem.val_in(th, regs, a);
            let window = match space {
                Space::Shared => SHARED_WINDOW,
                Space::Local => LOCAL_WINDOW,
                _ => 0,
            };
            regs.set(
                *d,
                if *to {
                    a.wrapping_sub(window)
                } else {
                    a.wrapping_add(window)
                },
            );
        }
        Op::Isspacep { space, d, a } => {
            let w = classify(mem.val_in(th, regs, a));
            regs.set(
                *d,
                match (space, w) {
                    (Space::Shared, Window::Shared(_)) | (Space::Local, Window::Local(_)) => 1,
                    (Space::Global | Space::Const, Window::Global(_)) => 1,
                    _ => 0,
                },
            );
        }
        Op::Bfe { ty, d, a, b, c } => {
            regs.set(
                *d,
                alu::bfe(
                    *ty,
                    mem.val_in(th, regs, a),
                    mem.val_in(th, regs, b),
                    mem.val_in(th, regs, c),
                ),
            );
        }
        Op::Bfi { ty, d, a, b, c, e } => {
            regs.set(
                *d,
                alu::bfi(
                    *ty,
                    mem.val_in(th, regs, a),
                    mem.val_in(th, regs, b),
                    mem.val_in(th, regs, c),
                    mem.val_in(th, regs, e),
                ),
            );
        }
        Op::Sad { ty, d, a, b, c } => {
            regs.set(
                *d,
                alu::sad(
                    *ty,
                    mem.val_in(th, regs, a),
                    mem.val_in(th, regs, b),
                    mem.val_in(th, regs, c),
                ),
            );
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
            regs.set(
                *d,
                alu::dot(
                    *kind,
                    *a_signed,
                    *b_signed,
                    mem.val_in(th, regs, a),
                    mem.val_in(th, regs, b),
                    mem.val_in(th, regs, c),
                ),
            );
        }
        Op::Lop3 { d, a, b, c, lut } => {
            regs.set(
                *d,
                alu::lop3(
                    mem.val_in(th, regs, a) as u32,
                    mem.val_in(th, regs, b) as u32,
                    mem.val_in(th, regs, c) as u32,
                    *lut,
                ) as u64,
            );
        }
        Op::Fns { d, a, b, c } => {
            regs.set(
                *d,
                alu::fns(
                    mem.val_in(th, regs, a) as u32,
                    mem.val_in(th, regs, b) as u32,
                    mem.val_in(th, regs, c) as u32 as i32,
                ) as u64,
            );
        }
        Op::Prmt { d, a, b, c } => {
            regs.set(
                *d,
                alu::prmt(
                    mem.val_in(th, regs, a),
                    mem.val_in(th, regs, b),
                    mem.val_in(th, regs, c),
                ),
            );
        }
        Op::Shf {
            left,
            wrap,
            d,
            a,
            b,
            c,
        } => {
            let (a, b, c) = (
                mem.val_in(th, regs, a),
                mem.val_in(th, regs, b),
                mem.val_in(th, regs, c),
            );
            regs.set(*d, alu::shf(*left, *wrap, a, b, c));
        }
        Op::Pack { elem_bits, d, srcs } => {
            let mut v = 0u64;
            for (i, s) in srcs.iter().enumerate() {
                let part = mem.val_in(th, regs, s) & low_mask(*elem_bits);
                v |= part << (i as u32 * elem_bits);
            }
            regs.set(*d, v);
        }
        Op::Unpack { elem_bits, ds, a } => {
            let v = mem.val_in(th, regs, a);
            for (i, d) in ds.iter().enumerate() {
                if let Some(d) = d {
                    regs.set(*d, (v >> (i as u32 * elem_bits)) & low_mask(*elem_bits));
                }
            }
        }
        // Other families are dispatched elsewhere by `step.rs`.
        _ => {}
    }
}
