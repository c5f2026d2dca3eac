//! Fragment layouts of `mma.sync`: which element of A (m x k), B (k x n) and C/D (m x n) each
//! lane holds, and in which register and position. From the PTX ISA manual, section "Matrix
//! Fragments for mma.m16n8k16 with floating point type", "... for mma.m16n8k8", "... for
//! mma.m16n8k32" (and its m16n8k16 integer form) and "... for mma.m8n8k4 with .f64 floating
//! point type". There, with `g = laneid >> 2` (the group) and `t = laneid % 4` (the thread in
//! the group), element `i` of a lane's fragment sits at the coordinates these functions give.
//! A register holds `32 / bits` elements of a narrow type, element `i` in register
//! `i / per_reg`, the lower index in the lower bits.

use crate::ptx::tensor::{MmaShape, MmaType};

/// Which operand of `D = A * B + C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frag {
    A,
    B,
    /// C and D share a layout.
    C,
}

/// How the A and B fragments are laid out: by element width and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// f16/bf16, k = 16 (A 4 registers, B 2).
    Half16,
    /// f16/bf16, k = 8 (A 2, B 1).
    Half8,
    /// tf32, k = 8 (A 4, B 2).
    Tf32,
    /// s8/u8, k = 32 (A 4, B 2).
    Int32k,
    /// s8/u8, k = 16 (A 2, B 1).
    Int16k,
    /// f64 m8n8k4 (A 1, B 1, C 2).
    F64,
}

impl Family {
    pub fn of(shape: MmaShape, a: MmaType) -> Family {
        match (shape, a) {
            (MmaShape::M8N8K4, _) => Family::F64,
            (MmaShape::M16N8K8, MmaType::TF32) => Family::Tf32,
            (MmaShape::M16N8K8, _) => Family::Half8,
            (MmaShape::M16N8K32, _) => Family::Int32k,
            (MmaShape::M16N8K16, MmaType::S8 | MmaType::U8) => Family::Int16k,
            (MmaShape::M16N8K16, _) => Family::Half16,
        }
    }

    /// Elements of one lane's fragment.
    pub fn len(self, frag: Frag) -> u32 {
        match (self, frag) {
            (Family::F64, Frag::A | Frag::B) => 1,
            (Family::F64, Frag::C) => 2,
            (_, Frag::C) => 4,
            (Family::Half16, Frag::A) => 8,
            (Family::Half16, Frag::B) => 4,
            (Family::Half8, Frag::A) => 4,
            (Family::Half8, Frag::B) => 2,
            (Family::Tf32, Frag::A) => 4,
            (Family::Tf32, Frag::B) => 2,
            (Family::Int32k, Frag::A) => 16,
            (Family::Int32k, Frag::B) => 8,
            (Family::Int16k, Frag::A) => 8,
            (Family::Int16k, Frag::B) => 4,
        }
    }

    /// (row, column) of element `i` of lane `lane`'s fragment of `frag`: for A (row of m,
    /// column of k), for B (row of k, column of n), for C/D (row of m, column of n).
    pub fn coord(self, frag: Frag, lane: u32, i: u32) -> (u32, u32) {
        let (g, t) = (lane >> 2, lane % 4);
        match (self, frag) {
            (Family::F64, Frag::A) => (g, t),
            (Family::F64, Frag::B) => (t, g),
            (Family::F64, Frag::C) => (g, t * 2 + i),
            (_, Frag::C) => (g + 8 * (i >> 1), t * 2 + (i & 1)),
            (Family::Half16, Frag::A) => (g + 8 * ((i >> 1) & 1), t * 2 + (i & 1) + 8 * (i >> 2)),
            (Family::Half16, Frag::B) => (t * 2 + (i & 1) + 8 * (i >> 1), g),
            (Family::Half8, Frag::A) => (g + 8 * (i >> 1), t * 2 + (i & 1)),
            (Family::Half8, Frag::B) => (t * 2 + i, g),
            (Family::Tf32, Frag::A) => (g + 8 * (i & 1), t + 4 * (i >> 1)),
            (Family::Tf32, Frag::B) => (t + 4 * i, g),
            (Family::Int32k, Frag::A) => (g + 8 * ((i >> 2) & 1), t * 4 + (i & 3) + 16 * (i >> 3)),
            (Family::Int32k, Frag::B) => (t * 4 + (i & 3) + 16 * (i >> 2), g),
            (Family::Int16k, Frag::A) => (g + 8 * (i >> 2), t * 4 + (i & 3)),
            (Family::Int16k, Frag::B) => (t * 4 + i, g),
        }
    }
}

/// Element `i` of a fragment whose registers are `regs` (raw register values), elements of
/// `ty`: its bits, zero-extended.
pub fn element(regs: &[u64], ty: MmaType, i: u32) -> u64 {
    let per = ty.per_reg();
    let bits = ty.bits();
    let r = regs.get((i / per) as usize).copied().unwrap_or(0);
    if bits == 64 {
        return r;
    }
    (r >> ((i % per) * bits)) & ((1u64 << bits) - 1)
}

/// Put `v` as element `i` into the registers `regs` (elements of `ty`).
pub fn set_element(regs: &mut [u64], ty: MmaType, i: u32, v: u64) {
    let per = ty.per_reg();
    let bits = ty.bits();
    let Some(r) = regs.get_mut((i / per) as usize) else {
        return;
    };
    if bits == 64 {
        *r = v;
        return;
    }
    let shift = (i % per) * bits;
    let m = ((1u64 << bits) - 1) << shift;
    *r = (*r & !m) | ((v << shift) & m);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const ALL: [(Family, u32, u32, u32); 6] = [
        // family, m, n, k
        (Family::Half16, 16, 8, 16),
        (Family::Half8, 16, 8, 8),
        (Family::Tf32, 16, 8, 8),
        (Family::Int32k, 16, 8, 32),
        (Family::Int16k, 16, 8, 16),
        (Family::F64, 8, 8, 4),
    ];

    /// Every element of A, B and C is held by exactly one (lane, index) of the warp.
    #[test]
    fn each_fragment_covers_its_matrix_once() {
        for (fam, m, n, k) in ALL {
            for (frag, rows, cols) in [(Frag::A, m, k), (Frag::B, k, n), (Frag::C, m, n)] {
                let mut seen = HashSet::new();
                for lane in 0..32 {
                    for i in 0..fam.len(frag) {
                        let (r, c) = fam.coord(frag, lane, i);
                        assert!(r < rows && c < cols, "{fam:?} {frag:?} lane {lane} a{i}");
                        assert!(seen.insert((r, c)), "{fam:?} {frag:?} ({r},{c}) twice");
                    }
                }
                assert_eq!(seen.len() as u32, rows * cols, "{fam:?} {frag:?}");
            }
        }
    }

    /// Spot checks read off the ISA's fragment figures (lane `T`, element `i` at row, column).
    #[test]
    fn elements_sit_where_the_isa_figures_put_them() {
        // m16n8k16 f16 A: lane 0 holds a0,a1 at (0,0),(0,1); a2,a3 at (8,0),(8,1); a4..a7 at
        // columns 8,9 of rows 0 and 8. Lane 5 (group 1, thread 1): a0 at (1,2), a7 at (9,11).
        let h = Family::Half16;
        assert_eq!(h.coord(Frag::A, 0, 0), (0, 0));
        assert_eq!(h.coord(Frag::A, 0, 3), (8, 1));
        assert_eq!(h.coord(Frag::A, 0, 4), (0, 8));
        assert_eq!(h.coord(Frag::A, 5, 0), (1, 2));
        assert_eq!(h.coord(Frag::A, 5, 7), (9, 11));
        // B: lane 5 holds b0,b1 at k rows 2,3 of column 1, b2,b3 at rows 10,11.
        assert_eq!(h.coord(Frag::B, 5, 0), (2, 1));
        assert_eq!(h.coord(Frag::B, 5, 3), (11, 1));
        // C: lane 31 (group 7, thread 3): c0,c1 at (7,6),(7,7), c2,c3 at (15,6),(15,7).
        assert_eq!(h.coord(Frag::C, 31, 1), (7, 7));
        assert_eq!(h.coord(Frag::C, 31, 2), (15, 6));
        // tf32 m16n8k8 A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4).
        let t = Family::Tf32;
        assert_eq!(t.coord(Frag::A, 6, 1), (9, 2));
        assert_eq!(t.coord(Frag::A, 6, 2), (1, 6));
        assert_eq!(t.coord(Frag::B, 6, 1), (6, 1));
        // s8 m16n8k32 A: a0..a3 row g, columns 4t..4t+3; a4..a7 row g+8; a8.. columns +16.
        let s = Family::Int32k;
        assert_eq!(s.coord(Frag::A, 1, 0), (0, 4));
        assert_eq!(s.coord(Frag::A, 1, 5), (8, 5));
        assert_eq!(s.coord(Frag::A, 1, 11), (0, 23));
        assert_eq!(s.coord(Frag::B, 1, 7), (23, 0));
        // f64 m8n8k4: A (g, t), B (t, g), C (g, 2t + i).
        let f = Family::F64;
        assert_eq!(f.coord(Frag::A, 13, 0), (3, 1));
        assert_eq!(f.coord(Frag::B, 13, 0), (1, 3));
        assert_eq!(f.coord(Frag::C, 13, 1), (3, 3));
    }

    #[test]
    fn packed_elements_are_low_first() {
        let regs = [0x4433_2211u64, 0x8877_6655];
        assert_eq!(element(&regs, MmaType::S8, 0), 0x11);
        assert_eq!(element(&regs, MmaType::S8, 5), 0x66);
        assert_eq!(element(&regs, MmaType::F16, 1), 0x4433);
        assert_eq!(element(&regs, MmaType::F16, 2), 0x6655);
        let mut out = [0u64; 2];
        set_element(&mut out, MmaType::F16, 3, 0xabcd);
        set_element(&mut out, MmaType::F16, 0, 0x1234);
        assert_eq!(out, [0x1234, 0xabcd_0000]);
    }
}
