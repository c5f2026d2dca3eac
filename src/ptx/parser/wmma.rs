//! Parsing `wmma.load`, `wmma.store` and `wmma.mma` into [`Wmma`] (the IR is in `ptx/wmma.rs`).
//! A form outside what the emulator runs (other shapes and types, `.satfinite`, integer and
//! `.tf32` WMMA) becomes `Op::Unsupported`, an error only if a thread reaches it.

use super::{Builder, Built, Parser, Raw};
use crate::ptx::ir::{Op, Operand, Ty};
use crate::ptx::wmma::{Layout, Matrix, Shape, Wmma};
use crate::ptx::ParseError;

type PResult<T> = Result<T, ParseError>;

/// `wmma.*` with its modifiers `words` (the opcode's parts after `wmma`).
pub(super) fn build(b: &Builder, p: &Parser, ops: &[Raw], words: &[&str]) -> PResult<Built> {
    let has = |w: &str| words.contains(&w);
    let Some(shape) = words.iter().find_map(|w| Shape::parse(w)) else {
        return b.unsupported();
    };
    if !has("sync") || !has("aligned") || has("satfinite") {
        return b.unsupported();
    }
    let layouts: Vec<Layout> = words
        .iter()
        .filter_map(|w| match *w {
            "row" => Some(Layout::Row),
            "col" => Some(Layout::Col),
            _ => None,
        })
        .collect();
    let types: Vec<Ty> = words.iter().filter_map(|w| Ty::parse(w)).collect();
    let space = super::Mods {
        words: words.to_vec(),
    }
    .space();
    let op = match words.first().copied() {
        Some(kind @ ("load" | "store")) => {
            let matrix = match (kind, words.get(1).copied()) {
                ("load", Some("a")) => Matrix::A,
                ("load", Some("b")) => Matrix::B,
                ("load", Some("c")) | ("store", Some("d")) => Matrix::C,
                _ => return b.unsupported(),
            };
            let ([layout], [ty]) = (&layouts[..], &types[..]) else {
                return b.unsupported();
            };
            let fits = match matrix {
                Matrix::A | Matrix::B => matches!(ty, Ty::F16 | Ty::BF16),
                Matrix::C => matches!(ty, Ty::F16 | Ty::F32),
            };
            if !fits {
                return b.unsupported();
            }
            b.n(ops, 2)?;
            let (regs_at, addr_at) = if kind == "load" { (0, 1) } else { (1, 0) };
            let regs = fragment(b, &ops[regs_at])?;
            if regs.len() != Wmma::regs(shape, matrix, *ty) {
                return b.unsupported();
            }
            let addr = b.addr(p, &ops[addr_at])?;
            let (rows, cols) = matrix.dims(shape);
            let stride = match ops.get(2) {
                Some(r) => b.src(p, r, Ty::U32)?,
                None => Operand::Imm(if *layout == Layout::Row { cols } else { rows } as u64),
            };
            if kind == "load" {
                let d = regs
                    .iter()
                    .map(|r| b.dreg(r))
                    .collect::<PResult<Vec<_>>>()?;
                Wmma::Load {
                    matrix,
                    layout: *layout,
                    shape,
                    ty: *ty,
                    space,
                    d,
                    addr,
                    stride,
                }
            } else {
                let src = regs
                    .iter()
                    .map(|r| b.src(p, r, Ty::B32))
                    .collect::<PResult<Vec<_>>>()?;
                Wmma::Store {
                    layout: *layout,
                    shape,
                    ty: *ty,
                    space,
                    src,
                    addr,
                    stride,
                }
            }
        }
        Some("mma") => {
            let [a_layout, b_layout] = layouts[..] else {
                return b.unsupported();
            };
            // `.dtype.ctype` with f16 inputs; `.dtype.atype.btype.ctype` otherwise.
            let (in_ty, d_ty, c_ty) = match types[..] {
                [d, c] => (Ty::F16, d, c),
                [d, Ty::BF16, Ty::BF16, c] => (Ty::BF16, d, c),
                _ => return b.unsupported(),
            };
            let accumulator = |t: Ty| matches!(t, Ty::F16 | Ty::F32);
            // bf16 inputs accumulate in f32 only.
            if !accumulator(d_ty) || !accumulator(c_ty) || (in_ty == Ty::BF16 && c_ty != Ty::F32) {
                return b.unsupported();
            }
            b.n(ops, 4)?;
            let expect = [
                Wmma::regs(shape, Matrix::C, d_ty),
                Wmma::regs(shape, Matrix::A, in_ty),
                Wmma::regs(shape, Matrix::B, in_ty),
                Wmma::regs(shape, Matrix::C, c_ty),
            ];
            let lists = ops[..4]
                .iter()
                .map(|r| fragment(b, r))
                .collect::<PResult<Vec<_>>>()?;
            if lists.iter().map(Vec::len).ne(expect) {
                return b.unsupported();
            }
            let srcs = |list: &[Raw]| {
                list.iter()
                    .map(|r| b.src(p, r, Ty::B32))
                    .collect::<PResult<Vec<_>>>()
            };
            Wmma::Mma {
                a_layout,
                b_layout,
                shape,
                in_ty,
                d_ty,
                c_ty,
                d: lists[0].iter().map(|r| b.dreg(r)).collect::<PResult<_>>()?,
                a: srcs(&lists[1])?,
                b: srcs(&lists[2])?,
                c: srcs(&lists[3])?,
            }
        }
        _ => return b.unsupported(),
    };
    Ok((Op::Wmma(Box::new(op)), None, None))
}

/// The registers of a fragment operand `{%r1, %r2, ...}` (one register alone is a list of one).
fn fragment(b: &Builder, r: &Raw) -> PResult<Vec<Raw>> {
    match r {
        Raw::Vec(v) => Ok(v.clone()),
        Raw::Name(_) => Ok(vec![r.clone()]),
        _ => b.err(format!("expected a fragment `{{...}}` in `{}`", b.opcode)),
    }
}
