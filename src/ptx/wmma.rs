//! The IR of the `wmma` instructions that `mma.h` (`nvcuda::wmma`) compiles to: the warp-wide
//! fragment load (`wmma.load.{a,b,c}.sync.aligned`), store (`wmma.store.d.sync.aligned`) and
//! multiply-accumulate (`wmma.mma.sync.aligned`), for the shapes m16n16k16, m32n8k16 and
//! m8n32k16 with `.f16`/`.bf16` inputs and `.f16`/`.f32` accumulators. The parser is
//! `parser/wmma.rs`; the emulator's side, fragment layouts included, is `emu/tensor/wmma.rs`.
//!
//! Each fragment is a list of registers, one per 32-bit piece: two 16-bit elements packed low
//! half first, or one `.f32`. How many registers a fragment takes is fixed by the PTX ISA
//! ([`Wmma::regs`]); an instruction with another count is not parsed as WMMA.

use super::ir::{Address, Operand, Space, Ty};

/// The shape `mMnNkK` of one warp-wide matrix multiply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    M16N16K16,
    M32N8K16,
    M8N32K16,
}

impl Shape {
    pub fn parse(word: &str) -> Option<Shape> {
        Some(match word {
            "m16n16k16" => Shape::M16N16K16,
            "m32n8k16" => Shape::M32N8K16,
            "m8n32k16" => Shape::M8N32K16,
            _ => return None,
        })
    }

    /// (M, N, K).
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            Shape::M16N16K16 => (16, 16, 16),
            Shape::M32N8K16 => (32, 8, 16),
            Shape::M8N32K16 => (8, 32, 16),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::M16N16K16 => "m16n16k16",
            Shape::M32N8K16 => "m32n8k16",
            Shape::M8N32K16 => "m8n32k16",
        }
    }
}

/// Which operand a fragment holds: A (M×K), B (K×N), or the accumulator C/D (M×N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matrix {
    A,
    B,
    C,
}

impl Matrix {
    /// (rows, columns) of this operand in `shape`.
    pub fn dims(self, shape: Shape) -> (usize, usize) {
        let (m, n, k) = shape.mnk();
        match self {
            Matrix::A => (m, k),
            Matrix::B => (k, n),
            Matrix::C => (m, n),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Matrix::A => "a",
            Matrix::B => "b",
            Matrix::C => "c",
        }
    }
}

/// How a matrix lies in memory: `.row` (element (r, c) at `r * stride + c`) or `.col`
/// (at `c * stride + r`), the stride in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Row,
    Col,
}

/// One `wmma` instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Wmma {
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type d, [addr]{, stride}`.
    Load {
        matrix: Matrix,
        layout: Layout,
        shape: Shape,
        /// The element type: `.f16`/`.bf16` for A and B, `.f16`/`.f32` for C.
        ty: Ty,
        space: Space,
        d: Vec<u32>,
        addr: Address,
        /// Elements between consecutive rows (`.row`) or columns (`.col`); the matrix's own
        /// width or height when the instruction has none.
        stride: Operand,
    },
    /// `wmma.store.d.sync.aligned.layout.shape{.space}.type [addr], src{, stride}`.
    Store {
        layout: Layout,
        shape: Shape,
        ty: Ty,
        space: Space,
        src: Vec<Operand>,
        addr: Address,
        stride: Operand,
    },
    /// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c` (f16 inputs) or
    /// `....shape.dtype.atype.btype.ctype` (bf16): D = A × B + C.
    Mma {
        a_layout: Layout,
        b_layout: Layout,
        shape: Shape,
        /// Input element type (`.f16` or `.bf16`).
        in_ty: Ty,
        /// D's and C's element types (`.f16` or `.f32`).
        d_ty: Ty,
        c_ty: Ty,
        d: Vec<u32>,
        a: Vec<Operand>,
        b: Vec<Operand>,
        c: Vec<Operand>,
        /// Some path from the function's entry reaches this instruction without writing a
        /// register of `c`: an accumulator used before `fill_fragment` or `load_matrix_sync`
        /// (set after parsing, by `parser/wmma.rs`).
        c_unset: bool,
    },
}

impl Wmma {
    /// Registers a fragment of `matrix` with elements of `ty` takes in `shape` (PTX ISA,
    /// "Matrix fragments for WMMA"): `.f16` A and B always 8 (16 halves, some repeated for
    /// the narrow operands); `.bf16` A and B one per two elements of the operand a lane owns
    /// (M/4 or N/4); accumulators 8 `.f32` or 4 `.f16x2`.
    pub fn regs(shape: Shape, matrix: Matrix, ty: Ty) -> usize {
        let (rows, cols) = matrix.dims(shape);
        match (matrix, ty) {
            (Matrix::C, Ty::F32) => 8,
            (Matrix::C, _) => 4,
            (_, Ty::F16) => 8,
            _ => rows * cols / 64,
        }
    }

    /// The instruction as PTX names it, for messages (`wmma.load.a`).
    pub fn name(&self) -> String {
        match self {
            Wmma::Load { matrix, .. } => format!("wmma.load.{}", matrix.name()),
            Wmma::Store { .. } => "wmma.store.d".to_string(),
            Wmma::Mma { .. } => "wmma.mma".to_string(),
        }
    }

    /// The state space of a load or store (`None` for `mma`).
    pub fn space(&self) -> Option<Space> {
        match self {
            Wmma::Load { space, .. } | Wmma::Store { space, .. } => Some(*space),
            Wmma::Mma { .. } => None,
        }
    }
}
