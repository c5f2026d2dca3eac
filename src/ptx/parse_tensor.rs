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
