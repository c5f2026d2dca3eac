//! Parsing the tensor-core family (`mma.sync`, `ldmatrix`, `stmatrix`, `movmatrix`,
//! `cvt.rna.tf32.f32`) into [`TensorOp`]s. Forms gpuzzle does not run (other shapes, sparse
//! `mma.sp`, `.m8n8k4` on halves, fp8, `.b8` matrices) become `Op::Unsupported`, an error only
//! if a thread reaches one. Register counts are checked against the shape, so a malformed
//! fragment is a parse error rather than a wrong result.

use super::{Builder, Built, PResult, Parser, Raw};
use crate::ptx::ir::{Op, Operand, Space};
use crate::ptx::tensor::{fragment_regs, MatrixMove, Mma, MmaShape, MmaType, TensorOp};

/// Whether `opcode`'s first word is this family's (`cvt` only into tf32).
pub(super) fn is_tensor(base: &str, words: &[&str]) -> bool {
    matches!(base, "mma" | "ldmatrix" | "stmatrix" | "movmatrix")
        || (base == "cvt" && words.contains(&"tf32"))
}

fn tensor(op: TensorOp) -> PResult<Built> {
    Ok((Op::Tensor(Box::new(op)), None, None))
}

impl<'c> Builder<'c> {
    /// Build an instruction of this family; `words` are the opcode's modifiers after the base.
    pub(super) fn tensor(
        &self,
        p: &Parser,
        base: &str,
        words: &[&str],
        ops: &[Raw],
    ) -> PResult<Built> {
        let has = |w: &str| words.contains(&w);
        match base {
            "cvt" => {
                // Only `cvt.rna{.satfinite}.tf32.f32` (what `wmma::__float_to_tf32` and hand
                // conversions emit); other tf32 conversions (`.rn`, `.rz` on sm_90) are not run.
                let f32_src = words.last() == Some(&"f32");
                if !has("rna") || !f32_src || has("relu") {
                    return self.unsupported();
                }
                self.n(ops, 2)?;
                tensor(TensorOp::CvtTf32 {
                    d: self.dreg(&ops[0])?,
                    a: self.src(p, &ops[1], crate::ptx::ir::Ty::F32)?,
                })
            }
            "mma" => self.mma(p, words, ops),
            "ldmatrix" | "stmatrix" => {
                if !has("sync") || !has("aligned") || !has("m8n8") || !has("b16") {
                    return self.unsupported();
                }
                let num = if has("x4") {
                    4
                } else if has("x2") {
                    2
                } else if has("x1") {
                    1
                } else {
                    return self.unsupported();
                };
                let space = if has("shared") || has("shared::cta") {
                    Space::Shared
                } else if words.iter().any(|w| w.starts_with("shared::")) {
                    // `.shared::cluster` addresses another block's shared memory.
                    return self.unsupported();
                } else {
                    Space::Generic
                };
                self.n(ops, 2)?;
                let trans = has("trans");
                if base == "ldmatrix" {
                    let regs = self.list(&ops[0], num as usize)?;
                    let regs = regs
                        .iter()
                        .map(|r| self.dreg(r))
                        .collect::<PResult<Vec<u32>>>()?;
                    tensor(TensorOp::Ldmatrix(MatrixMove {
                        num,
                        trans,
                        space,
                        addr: self.addr(p, &ops[1])?,
                        regs,
                        srcs: Vec::new(),
                    }))
                } else {
                    let srcs = self.list(&ops[1], num as usize)?;
                    let srcs = srcs
                        .iter()
                        .map(|r| self.src(p, r, crate::ptx::ir::Ty::B32))
                        .collect::<PResult<Vec<Operand>>>()?;
                    tensor(TensorOp::Stmatrix(MatrixMove {
                        num,
                        trans,
                        space,
                        addr: self.addr(p, &ops[0])?,
                        regs: Vec::new(),
                        srcs,
                    }))
                }
            }
            "movmatrix" => {
                if !has("sync") || !has("aligned") || !has("m8n8") || !has("trans") || !has("b16") {
                    return self.unsupported();
                }
                self.n(ops, 2)?;
                tensor(TensorOp::Movmatrix {
                    d: self.dreg(&ops[0])?,
                    a: self.src(p, &ops[1], crate::ptx::ir::Ty::B32)?,
                })
            }
            _ => self.unsupported(),
        }
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`.
    fn mma(&self, p: &Parser, words: &[&str], ops: &[Raw]) -> PResult<Built> {
        let has = |w: &str| words.contains(&w);
        if !has("sync") || !has("aligned") || !has("row") || !has("col") || has("sp") {
            return self.unsupported();
        }
        let shape = if has("m16n8k16") {
            MmaShape::M16N8K16
        } else if has("m16n8k8") {
            MmaShape::M16N8K8
        } else if has("m16n8k32") {
            MmaShape::M16N8K32
        } else if has("m8n8k4") {
            MmaShape::M8N8K4
        } else {
            return self.unsupported();
        };
        let types: Vec<MmaType> = words.iter().filter_map(|w| MmaType::parse(w)).collect();
        let [d_ty, a_ty, b_ty, c_ty] = types[..] else {
            return self.unsupported();
        };
        let Some((na, nb, nc)) = fragment_regs(shape, a_ty, b_ty, c_ty, d_ty) else {
            return self.unsupported();
        };
        self.n(ops, 4)?;
        let d = self.list(&ops[0], nc)?;
        let d = d
            .iter()
            .map(|r| self.dreg(r))
            .collect::<PResult<Vec<u32>>>()?;
        let reg_ty = |t: MmaType| {
            if t == MmaType::F64 {
                crate::ptx::ir::Ty::F64
            } else if t == MmaType::F32 {
                crate::ptx::ir::Ty::F32
            } else {
                crate::ptx::ir::Ty::B32
            }
        };
        let srcs = |r: &Raw, n: usize, t: MmaType| -> PResult<Vec<Operand>> {
            self.list(r, n)?
                .iter()
                .map(|x| self.src(p, x, reg_ty(t)))
                .collect()
        };
        tensor(TensorOp::Mma(Mma {
            shape,
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            satfinite: has("satfinite"),
            d,
            a: srcs(&ops[1], na, a_ty)?,
            b: srcs(&ops[2], nb, b_ty)?,
            c: srcs(&ops[3], nc, c_ty)?,
        }))
    }

    /// The `n` operands of a `{...}` list (a single operand counts as a list of one).
    fn list<'r>(&self, r: &'r Raw, n: usize) -> PResult<Vec<&'r Raw>> {
        let items: Vec<&Raw> = match r {
            Raw::Vec(v) => v.iter().collect(),
            other => vec![other],
        };
        if items.len() != n {
            return self.err(format!(
                "`{}` needs {n} registers in this operand, found {}",
                self.opcode,
                items.len()
            ));
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use crate::ptx::ir::{Op, Space};
    use crate::ptx::tensor::{MmaShape, MmaType, TensorOp};

    /// The ops of a kernel whose body is `body`, with registers declared.
    fn ops(body: &str) -> Result<Vec<Op>, crate::ptx::ParseError> {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b32 %r<40>;\n.reg .f32 %f<40>;\n.reg .f64 %fd<10>;\n.reg .b64 %rd<4>;\n\
             {body}\n\tret;\n}}\n"
        );
        let m = crate::ptx::parse(&text)?;
        Ok(m.functions[0].body.iter().map(|i| i.op.clone()).collect())
    }

    fn tensor(op: &Op) -> &TensorOp {
        match op {
            Op::Tensor(t) => t,
            other => panic!("not a tensor op: {other:?}"),
        }
    }

    #[test]
    fn the_forms_people_write_parse() {
        let got = ops(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};\n\
             mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};\n\
             mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};\n\
             mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};\n\
             mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8};\n\
             ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r9+16];\n\
             stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd1], {%r1, %r2};\n\
             movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;\n\
             cvt.rna.tf32.f32 %r1, %f1;",
        )
        .expect("parses");
        let TensorOp::Mma(m) = tensor(&got[0]) else {
            panic!("{:?}", got[0])
        };
        assert_eq!(
            (m.shape, m.a_ty, m.d_ty, m.a.len(), m.b.len()),
            (MmaShape::M16N8K16, MmaType::F16, MmaType::F32, 4, 2)
        );
        let TensorOp::Mma(m) = tensor(&got[2]) else {
            panic!("{:?}", got[2])
        };
        assert_eq!(
            (m.a_ty, m.b_ty, m.satfinite),
            (MmaType::S8, MmaType::U8, true)
        );
        let TensorOp::Mma(m) = tensor(&got[3]) else {
            panic!("{:?}", got[3])
        };
        assert_eq!((m.shape, m.c.len()), (MmaShape::M8N8K4, 2));
        let TensorOp::Ldmatrix(l) = tensor(&got[5]) else {
            panic!("{:?}", got[5])
        };
        assert_eq!(
            (l.num, l.trans, l.space, l.regs.len(), l.addr.offset),
            (4, true, Space::Shared, 4, 16)
        );
        let TensorOp::Stmatrix(s) = tensor(&got[6]) else {
            panic!("{:?}", got[6])
        };
        assert_eq!((s.num, s.trans, s.srcs.len()), (2, false, 2));
        assert!(matches!(tensor(&got[7]), TensorOp::Movmatrix { .. }));
        assert!(matches!(tensor(&got[8]), TensorOp::CvtTf32 { .. }));
    }

    #[test]
    fn forms_gpuzzle_does_not_run_are_unsupported_until_reached() {
        for body in [
            // Volta's m8n8k4 on halves, sparse mma, fp8, a .b8 ldmatrix, another tf32 rounding.
            "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2}, {%r3, %r4}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};",
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4}, %r9, 0x0;",
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};",
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3];",
            "cvt.rn.tf32.f32 %r1, %f1;",
        ] {
            let got = ops(body).unwrap_or_else(|e| panic!("{body}: {e}"));
            assert!(
                matches!(&got[0], Op::Unsupported { .. }),
                "{body}: {:?}",
                got[0]
            );
        }
    }

    #[test]
    fn a_fragment_of_the_wrong_size_is_a_parse_error() {
        let e = ops("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5, %r6}, {%f1, %f2, %f3, %f4};")
            .expect_err("two registers for A");
        assert!(e.message.contains("needs 4 registers"), "{e}");
        let e = ops("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [%r9];")
            .expect_err("x2, one register");
        assert!(e.message.contains("needs 2 registers"), "{e}");
    }
}
