//! The IR of the tensor-core family: `mma.sync`, `ldmatrix`, `stmatrix`, `movmatrix`, and the
//! conversion into tf32 that feeds `mma` (`cvt.rna.tf32.f32`). One [`super::ir::Op::Tensor`]
//! holds a boxed [`TensorOp`], so the common `Op` stays small. Parsed in `parse_tensor.rs`,
//! executed by `crate::emu::tensor` (semantics) and the block's warp collectives.

use super::ir::{Address, Operand, Space};

/// One tensor-core instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorOp {
    Mma(Mma),
    Ldmatrix(MatrixMove),
    Stmatrix(MatrixMove),
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: the warp's 8x8 matrix of 16-bit values,
    /// held one pair per lane, transposed.
    Movmatrix {
        d: u32,
        a: Operand,
    },
    /// `cvt.rna{.satfinite}.tf32.f32 d, a`: `a` rounded to tf32 (10 fraction bits, to nearest,
    /// ties away from zero), kept in a 32-bit register with the low 13 bits zero. Not a warp
    /// collective.
    CvtTf32 {
        d: u32,
        a: Operand,
    },
}

impl TensorOp {
    /// Whether the warp's lanes execute it together (everything but the conversion).
    pub fn is_collective(&self) -> bool {
        !matches!(self, TensorOp::CvtTf32 { .. })
    }
}

/// The shapes gpuzzle runs (`.mMnNkK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    M16N8K16,
    M16N8K8,
    M16N8K32,
    M8N8K4,
}

impl MmaShape {
    /// (m, n, k).
    pub fn mnk(self) -> (u32, u32, u32) {
        match self {
            MmaShape::M16N8K16 => (16, 8, 16),
            MmaShape::M16N8K8 => (16, 8, 8),
            MmaShape::M16N8K32 => (16, 8, 32),
            MmaShape::M8N8K4 => (8, 8, 4),
        }
    }
}

/// An element type of an `mma` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaType {
    F16,
    BF16,
    TF32,
    F32,
    F64,
    S8,
    U8,
    S32,
}

impl MmaType {
    pub fn parse(w: &str) -> Option<MmaType> {
        Some(match w {
            "f16" => MmaType::F16,
            "bf16" => MmaType::BF16,
            "tf32" => MmaType::TF32,
            "f32" => MmaType::F32,
            "f64" => MmaType::F64,
            "s8" => MmaType::S8,
            "u8" => MmaType::U8,
            "s32" => MmaType::S32,
            _ => return None,
        })
    }

    /// Bits of one element.
    pub fn bits(self) -> u32 {
        match self {
            MmaType::S8 | MmaType::U8 => 8,
            MmaType::F16 | MmaType::BF16 => 16,
            MmaType::TF32 | MmaType::F32 | MmaType::S32 => 32,
            MmaType::F64 => 64,
        }
    }

    /// Elements packed in one register (64-bit registers for f64, 32-bit otherwise).
    pub fn per_reg(self) -> u32 {
        match self {
            MmaType::F64 => 1,
            t => 32 / t.bits(),
        }
    }
}

/// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mma {
    pub shape: MmaShape,
    pub d_ty: MmaType,
    pub a_ty: MmaType,
    pub b_ty: MmaType,
    pub c_ty: MmaType,
    /// Integer results clamp to the s32 range instead of wrapping.
    pub satfinite: bool,
    pub d: Vec<u32>,
    pub a: Vec<Operand>,
    pub b: Vec<Operand>,
    pub c: Vec<Operand>,
}

/// `ldmatrix`/`stmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16`: `num` 8x8 matrices of
/// 16-bit values, one 32-bit register per matrix per lane; lanes `8i..8i+7` give the row
/// addresses of matrix `i`. For `ldmatrix`, `regs` are the destinations; for `stmatrix`,
/// the sources (as registers or immediates in `srcs`).
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixMove {
    pub num: u32,
    pub trans: bool,
    pub space: Space,
    pub addr: Address,
    pub regs: Vec<u32>,
    pub srcs: Vec<Operand>,
}

/// Registers of A, B and C/D for a combination gpuzzle runs (PTX ISA, "Matrix Fragments for
/// mma.m16n8k16 / m16n8k8 / m16n8k32 / m8n8k4"); `None` for any other.
pub fn fragment_regs(
    shape: MmaShape,
    a: MmaType,
    b: MmaType,
    c: MmaType,
    d: MmaType,
) -> Option<(usize, usize, usize)> {
    use MmaShape::*;
    use MmaType::*;
    let half = |t: MmaType| matches!(t, F16 | BF16);
    let int8 = |t: MmaType| matches!(t, S8 | U8);
    let (na, nb) = match shape {
        M16N8K16 if half(a) && a == b => (4, 2),
        M16N8K8 if half(a) && a == b => (2, 1),
        M16N8K8 if a == TF32 && b == TF32 => (4, 2),
        M16N8K16 if int8(a) && int8(b) => (2, 1),
        M16N8K32 if int8(a) && int8(b) => (4, 2),
        M8N8K4 if a == F64 && b == F64 => (1, 1),
        _ => return None,
    };
    let nc = match (a, c, d) {
        // Halves: each accumulator f16 (two per register) or f32; bf16 accumulates in f32.
        (F16, F16 | F32, F16 | F32) => {
            if c == F16 && d == F16 {
                2
            } else if c == F32 && d == F32 {
                4
            } else {
                // Mixed f16/f32 accumulators have different register counts for C and D;
                // not emitted by the usual code, not run here.
                return None;
            }
        }
        (BF16 | TF32, F32, F32) => 4,
        (S8 | U8, S32, S32) => 4,
        (F64, F64, F64) => 2,
        _ => return None,
    };
    Some((na, nb, nc))
}
