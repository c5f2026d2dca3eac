//! Parsing `wmma.load`, `wmma.store` and `wmma.mma` into [`Wmma`] (the IR is in `ptx/wmma.rs`).
//! A form outside what the emulator runs (other shapes and types, `.satfinite`, integer and
//! `.tf32` WMMA) becomes `Op::Unsupported`, an error only if a thread reaches it.

use super::{Builder, Built, Parser, Raw};
use crate::ptx::ir::{Inst, Op, Operand, Ty};
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
                c_unset: false,
            }
        }
        _ => return b.unsupported(),
    };
    Ok((Op::Wmma(Box::new(op)), None, None))
}

/// Marks each `wmma.mma` of `body` whose accumulator (C) holds a register that some path from
/// the entry reaches without writing ([`Wmma::Mma`]'s `c_unset`): a forward "written on every
/// path" analysis over the branches, for those registers only. A guarded write does not count
/// as one; an instruction whose writes are not known here counts as writing them all, so what
/// is reported is never a guess.
pub(super) fn mark_unset_accumulators(body: &mut [Inst]) {
    let mut tracked: Vec<u32> = Vec::new();
    for inst in body.iter() {
        if let Op::Wmma(w) = &inst.op {
            if let Wmma::Mma { c, .. } = w.as_ref() {
                for o in c {
                    if let Operand::Reg(r) = o {
                        if !tracked.contains(r) {
                            tracked.push(*r);
                        }
                    }
                }
            }
        }
    }
    if tracked.is_empty() || tracked.len() > 64 {
        return;
    }
    let all = if tracked.len() == 64 {
        u64::MAX
    } else {
        (1u64 << tracked.len()) - 1
    };
    let bits = |regs: &[u32]| {
        regs.iter()
            .filter_map(|r| tracked.iter().position(|t| t == r))
            .fold(0u64, |m, i| m | 1 << i)
    };
    let n = body.len();
    let gen: Vec<u64> = body
        .iter()
        .map(|inst| match (inst.guard, writes(&inst.op)) {
            (Some(_), _) => 0,
            (None, Some(regs)) => bits(&regs),
            (None, None) => all,
        })
        .collect();
    let succ = |pc: usize| -> Vec<usize> {
        // A guarded branch, return or exit may also fall through.
        let through = body[pc].guard.is_some();
        let mut s = match &body[pc].op {
            Op::Bra { target } if through => vec![*target as usize, pc + 1],
            Op::Bra { target } => vec![*target as usize],
            Op::Brx { targets, .. } => {
                let mut s: Vec<usize> = targets.iter().map(|&t| t as usize).collect();
                if through {
                    s.push(pc + 1);
                }
                s
            }
            Op::Ret | Op::Exit | Op::Trap if through => vec![pc + 1],
            Op::Ret | Op::Exit | Op::Trap => Vec::new(),
            _ => vec![pc + 1],
        };
        s.retain(|&t| t < n);
        s
    };
    // Written on every path into each instruction: start from "everything" and narrow.
    let mut into = vec![all; n];
    if n > 0 {
        into[0] = 0;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for pc in 0..n {
            let out = into[pc] | gen[pc];
            for s in succ(pc) {
                let narrowed = into[s] & out;
                if narrowed != into[s] {
                    into[s] = narrowed;
                    changed = true;
                }
            }
        }
    }
    for (pc, inst) in body.iter_mut().enumerate() {
        if let Op::Wmma(w) = &mut inst.op {
            if let Wmma::Mma { c, c_unset, .. } = w.as_mut() {
                let regs: Vec<u32> = c
                    .iter()
                    .filter_map(|o| match o {
                        Operand::Reg(r) => Some(*r),
                        _ => None,
                    })
                    .collect();
                let need = bits(&regs);
                *c_unset = into[pc] & need != need;
            }
        }
    }
}

/// The registers `op` writes; `None` where this file does not know (a call, an instruction
/// added later), which the analysis above takes as writing every register it follows.
fn writes(op: &Op) -> Option<Vec<u32>> {
    Some(match op {
        Op::Bin { d, .. }
        | Op::Un { d, .. }
        | Op::Mad { d, .. }
        | Op::Selp { d, .. }
        | Op::Slct { d, .. }
        | Op::Cvt { d, .. }
        | Op::Cvta { d, .. }
        | Op::Isspacep { d, .. }
        | Op::Lop3 { d, .. }
        | Op::Fns { d, .. }
        | Op::Bfe { d, .. }
        | Op::Bfi { d, .. }
        | Op::Prmt { d, .. }
        | Op::Shf { d, .. }
        | Op::BarRed { d, .. }
        | Op::Vote { d, .. }
        | Op::Activemask { d }
        | Op::Redux { d, .. }
        | Op::MatchAny { d, .. }
        | Op::Sad { d, .. }
        | Op::Dot { d, .. }
        | Op::Pack { d, .. } => vec![*d],
        Op::Setp { d, d2, .. } | Op::Half2 { d, d2, .. } => {
            std::iter::once(*d).chain(*d2).collect()
        }
        Op::Shfl { d, p, .. } | Op::MatchAll { d, p, .. } => {
            std::iter::once(*d).chain(*p).collect()
        }
        Op::Ld { d, .. } => d.clone(),
        Op::Atom { d, .. } => d.iter().copied().collect(),
        Op::Unpack { ds, .. } => ds.iter().flatten().copied().collect(),
        Op::Wmma(w) => match w.as_ref() {
            Wmma::Load { d, .. } | Wmma::Mma { d, .. } => d.clone(),
            Wmma::Store { .. } => Vec::new(),
        },
        Op::St { .. }
        | Op::Bra { .. }
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::BarSync { .. }
        | Op::BarWarpSync { .. }
        | Op::Fence
        | Op::Nop
        | Op::Unsupported { .. } => Vec::new(),
        _ => return None,
    })
}

/// The registers of a fragment operand `{%r1, %r2, ...}` (one register alone is a list of one).
fn fragment(b: &Builder, r: &Raw) -> PResult<Vec<Raw>> {
    match r {
        Raw::Vec(v) => Ok(v.clone()),
        Raw::Name(_) => Ok(vec![r.clone()]),
        _ => b.err(format!("expected a fragment `{{...}}` in `{}`", b.opcode)),
    }
}

#[cfg(test)]
mod tests {
    use crate::ptx::ir::{Op, Operand, Space, Ty};
    use crate::ptx::wmma::{Layout, Matrix, Shape, Wmma};

    /// The ops of a kernel whose body is `body` (registers declared for it).
    fn ops(body: &str) -> Vec<Op> {
        let ptx = format!(
            ".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<20>;\n\t.reg .b64 %rd<4>;\n{body}\n\tret;\n}}\n"
        );
        let module = crate::ptx::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
        let f = &module.functions[0];
        f.body.iter().map(|i| i.op.clone()).collect()
    }

    fn regs(from: u32, n: u32) -> String {
        (from..from + n)
            .map(|r| format!("%r{r}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    #[test]
    fn nvrtc_forms_parse_with_their_shapes_layouts_types_and_spaces() {
        // As NVRTC 12.9 emits them from mma.h for sm_80.
        let body = format!(
            "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {{{}}}, [%rd1], %r30;\n\
             \twmma.load.b.sync.aligned.row.m32n8k16.bf16 {{%r8, %r9}}, [%rd2+32], 16;\n\
             \twmma.load.c.sync.aligned.col.m32n8k16.shared.f32 {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}}, [%rd3], %r30;\n\
             \twmma.mma.sync.aligned.col.row.m32n8k16.f32.bf16.bf16.f32 {{%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}}, {{{}}}, {{%r8, %r9}}, {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}};\n\
             \twmma.mma.sync.aligned.row.row.m8n32k16.f16.f16 {{%r20, %r21, %r22, %r23}}, {{{}}}, {{{}}}, {{%r24, %r25, %r26, %r27}};\n\
             \twmma.store.d.sync.aligned.col.m8n32k16.global.f16 [%rd1], {{%r20, %r21, %r22, %r23}}, %r30;",
            regs(0, 8),
            regs(10, 8),
            regs(0, 8),
            regs(10, 8)
        );
        let got = ops(&body);
        let Op::Wmma(w) = &got[0] else {
            panic!("{:?}", got[0])
        };
        let Wmma::Load {
            matrix,
            layout,
            shape,
            ty,
            space,
            d,
            stride,
            ..
        } = w.as_ref()
        else {
            panic!("{w:?}")
        };
        assert_eq!(
            (*matrix, *layout, *shape, *ty, *space, d.len()),
            (
                Matrix::A,
                Layout::Row,
                Shape::M16N16K16,
                Ty::F16,
                Space::Global,
                8
            )
        );
        assert!(matches!(stride, Operand::Reg(_)));
        let Op::Wmma(w) = &got[1] else {
            panic!("{:?}", got[1])
        };
        assert!(matches!(
            w.as_ref(),
            Wmma::Load {
                matrix: Matrix::B,
                ty: Ty::BF16,
                space: Space::Generic,
                stride: Operand::Imm(16),
                ..
            }
        ));
        let Op::Wmma(w) = &got[3] else {
            panic!("{:?}", got[3])
        };
        assert!(matches!(
            w.as_ref(),
            Wmma::Mma {
                a_layout: Layout::Col,
                b_layout: Layout::Row,
                in_ty: Ty::BF16,
                d_ty: Ty::F32,
                c_ty: Ty::F32,
                ..
            }
        ));
        let Op::Wmma(w) = &got[4] else {
            panic!("{:?}", got[4])
        };
        assert!(matches!(
            w.as_ref(),
            Wmma::Mma {
                shape: Shape::M8N32K16,
                in_ty: Ty::F16,
                d_ty: Ty::F16,
                c_ty: Ty::F16,
                ..
            }
        ));
        assert!(
            matches!(&got[5], Op::Wmma(w) if matches!(w.as_ref(), Wmma::Store { layout: Layout::Col, ty: Ty::F16, .. }))
        );
    }

    /// `c_unset` of each `wmma.mma` of `body`.
    fn unset(body: &str) -> Vec<bool> {
        ops(body)
            .iter()
            .filter_map(|op| match op {
                Op::Wmma(w) => match w.as_ref() {
                    Wmma::Mma { c_unset, .. } => Some(*c_unset),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_accumulator_unset_on_some_path_is_marked() {
        let mma = |d: u32, c: u32| {
            format!(
                "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
                (d..d + 8).map(|r| format!("%f{r}")).collect::<Vec<_>>().join(", "),
                regs(0, 8),
                regs(10, 8),
                (c..c + 8).map(|r| format!("%f{r}")).collect::<Vec<_>>().join(", ")
            )
        };
        let fill: String = (0..8)
            .map(|r| format!("\tmov.f32 %f{r}, 0f00000000;\n"))
            .collect();
        // fill_fragment before the loop, then the loop-carried accumulator: set on every path.
        let filled = format!(
            "{fill}$L_loop:\n{}{}\tsetp.lt.u32 %p1, %r30, 4;\n\t@%p1 bra $L_loop;\n",
            mma(8, 0),
            (0..8)
                .map(|r| format!("\tmov.f32 %f{r}, %f{};\n", r + 8))
                .collect::<String>()
        );
        // The same loop without it: the first pass reads registers nothing wrote.
        let unfilled = filled.replace(&fill, "");
        // Filled only under a guard: unset on the path that skips it.
        let guarded = filled.replacen("\tmov.f32 %f0,", "\t@%p1 mov.f32 %f0,", 1);
        let decl = "\t.reg .pred %p<2>;\n";
        assert_eq!(unset(&format!("{decl}{filled}")), vec![false]);
        assert_eq!(unset(&format!("{decl}{unfilled}")), vec![true]);
        assert_eq!(unset(&format!("{decl}{guarded}")), vec![true]);
    }

    #[test]
    fn forms_gpuzzle_does_not_run_are_unsupported_not_errors() {
        let body = format!(
            "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}}, {{{}}}, {{{}}}, {{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}};\n\
             \twmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {{%r0, %r1, %r2, %r3}}, [%rd1], %r30;\n\
             \twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {{%r0, %r1}}, [%rd1], %r30;",
            regs(0, 8),
            regs(10, 8)
        );
        let got = ops(&body);
        for op in &got[..3] {
            assert!(matches!(op, Op::Unsupported { .. }), "{op:?}");
        }
    }
}
