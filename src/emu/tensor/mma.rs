//! `mma.sync`: the warp's fragments gathered into A, B and C, `D = A * B + C` computed, and D
//! scattered back into each lane's registers (layouts in `layout.rs`).
//!
//! Rounding. Products of f16, bf16 and tf32 values are exact in f64 (at most 11 x 11
//! significand bits), and so are s8/u8 products in integers. Each element of D is
//! `c + sum(a * b)` summed in f64 in k order and rounded once, to nearest even, into D's type
//! (f32 or f16). NVIDIA documents neither the order nor the internal precision of the
//! hardware's sum (it is known to keep fewer bits and to truncate), so a result may differ from
//! a GPU's in its last bits, never by more than the hardware's own error. Integer results are
//! exact: wrapped to 32 bits, or with `.satfinite` clamped to the s32 range. f64 `m8n8k4` is
//! a chain of IEEE fused multiply-adds in k order, each rounded to nearest even. tf32 inputs
//! are read as their upper 19 bits (the low 13 ignored, as the hardware does); `cvt.rna` makes
//! proper tf32 values.

use super::layout::{element, set_element, Family, Frag};
use crate::emu::float::{bf16_to_f32, f16_to_f32, f64_to_half};
use crate::ptx::ir::{Rounding, Ty};
use crate::ptx::tensor::{Mma, MmaType};

/// Most registers an operand of a shape gpuzzle runs takes (A: 4, B: 2, C and D: 4).
pub const MAX_REGS: usize = 4;

/// The registers of one lane's operands (raw values) as gathered from the warp; unused
/// registers are 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaneFrags {
    pub a: [u64; MAX_REGS],
    pub b: [u64; MAX_REGS],
    pub c: [u64; MAX_REGS],
}

/// A float element's value.
fn float_of(ty: MmaType, bits: u64) -> f64 {
    match ty {
        MmaType::F16 => f16_to_f32(bits as u16) as f64,
        MmaType::BF16 => bf16_to_f32(bits as u16) as f64,
        MmaType::TF32 => f32::from_bits(bits as u32 & !0x1fff) as f64,
        MmaType::F32 => f32::from_bits(bits as u32) as f64,
        MmaType::F64 => f64::from_bits(bits),
        MmaType::S8 => bits as u8 as i8 as f64,
        MmaType::U8 => bits as u8 as f64,
        MmaType::S32 => bits as u32 as i32 as f64,
    }
}

fn int_of(ty: MmaType, bits: u64) -> i64 {
    match ty {
        MmaType::S8 => bits as u8 as i8 as i64,
        MmaType::U8 => bits as u8 as i64,
        _ => bits as u32 as i32 as i64,
    }
}

/// Execute `op` for the 32 lanes of a warp: `lanes[l]` holds lane `l`'s operand registers
/// (a lane that did not take part has zeros); returns each lane's destination registers (the
/// first `op.d.len()` of each). No allocation: the largest shape's matrices fit on the stack.
pub fn run(op: &Mma, lanes: &[LaneFrags; 32]) -> [[u64; MAX_REGS]; 32] {
    if is_f16_k16(op) {
        let mut f = WarpFrags::default();
        for (lane, l) in lanes.iter().enumerate() {
            for r in 0..4 {
                f.a[r][lane] = l.a[r];
                f.c[r][lane] = l.c[r];
            }
            for r in 0..2 {
                f.b[r][lane] = l.b[r];
            }
        }
        let d = f16_k16(&f);
        let mut out = [[0u64; MAX_REGS]; 32];
        for (lane, regs) in out.iter_mut().enumerate() {
            for (i, reg) in regs.iter_mut().enumerate() {
                *reg = d[i][lane];
            }
        }
        return out;
    }
    run_any(op, lanes)
}

/// The commonest form, `m16n8k16` with f16 A and B and f32 C and D (the tensor-core puzzles'
/// and `bench_mma`'s), which `f16_k16` computes.
pub fn is_f16_k16(op: &Mma) -> bool {
    Family::of(op.shape, op.a_ty) == Family::Half16
        && (op.a_ty, op.b_ty, op.c_ty, op.d_ty)
            == (MmaType::F16, MmaType::F16, MmaType::F32, MmaType::F32)
}

/// The warp's operand registers for `f16_k16`, register by register: `a[r][lane]` is register
/// `r` of lane `lane`'s A fragment (B's and C's alike); a lane that did not take part has
/// zeros. (A lockstep run's register file is laid out the same way, so its columns copy in.)
#[derive(Clone, Copy, Debug, Default)]
pub struct WarpFrags {
    pub a: [[u64; 32]; 4],
    pub b: [[u64; 32]; 2],
    pub c: [[u64; 32]; 4],
}

/// `m16n8k16` with f16 A and B and f32 C and D: D's registers, `d[r][lane]`. The elements
/// `run_any` would gather, summed in the same order and rounded the same way, with the
/// fragment layout (`Family::Half16`'s `coord`) written out register by register: A's
/// register `r` holds elements `2r` and `2r + 1`, at row `g + 8 (r & 1)` and columns
/// `2t + 8 (r >> 1)` and the next (lane = 4g + t); B's register `r` holds rows `2t + 8r` and
/// the next of column `g`; C's register `i` row `g + 8 (i >> 1)`, column `2t + (i & 1)`.
pub fn f16_k16(f: &WarpFrags) -> [[u64; 32]; MAX_REGS] {
    const K: usize = 16;
    const N: usize = 8;
    // A is 16 x 16, B 16 x 8, C and D 16 x 8, row-major; A and B first as their halves' bits.
    let mut ah = [0u16; 16 * K];
    let mut bh = [0u16; K * N];
    let mut c = [0f64; 16 * N];
    for lane in 0..32 {
        let (g, t) = (lane >> 2, lane % 4);
        for r in 0..4 {
            let v = f.a[r][lane];
            let at = (g + 8 * (r & 1)) * K + 2 * t + 8 * (r >> 1);
            ah[at] = v as u16;
            ah[at + 1] = (v >> 16) as u16;
        }
        for r in 0..2 {
            let v = f.b[r][lane];
            let at = (2 * t + 8 * r) * N + g;
            bh[at] = v as u16;
            bh[at + N] = (v >> 16) as u16;
        }
        for i in 0..4 {
            c[(g + 8 * (i >> 1)) * N + 2 * t + (i & 1)] =
                f32::from_bits(f.c[i][lane] as u32) as f64;
        }
    }
    let mut a = [0f64; 16 * K];
    let mut b = [0f64; K * N];
    halves_f64(&ah, &mut a);
    halves_f64(&bh, &mut b);
    let d = f16_k16_product(&a, &b, &c);
    let mut out = [[0u64; 32]; MAX_REGS];
    for (i, col) in out.iter_mut().enumerate() {
        for (lane, v) in col.iter_mut().enumerate() {
            let (g, t) = (lane >> 2, lane % 4);
            *v = d[(g + 8 * (i >> 1)) * N + t * 2 + (i & 1)];
        }
    }
    out
}

/// Each half of `h` (bits) as f64, exactly `f16_to_f32(x) as f64`: on processors with F16C
/// eight at a time by the conversion instruction (exact for every finite half, subnormals
/// included; a NaN keeps its payload, quieted, as the widening to f64 quiets it anyway).
fn halves_f64(h: &[u16], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the processor has F16C and AVX (tested just above).
        unsafe { halves_f64_f16c(h, out) };
        return;
    }
    for (o, &x) in out.iter_mut().zip(h) {
        *o = f16_to_f32(x) as f64;
    }
}

/// `halves_f64` by `vcvtph2ps` and `vcvtps2pd`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn halves_f64_f16c(h: &[u16], out: &mut [f64]) {
    use std::arch::x86_64::*;
    let mut hc = h.chunks_exact(8);
    let mut oc = out.chunks_exact_mut(8);
    for (x, o) in (&mut hc).zip(&mut oc) {
        // SAFETY: `x` holds 8 halves (16 bytes) and `o` room for 8 f64 (64 bytes); both
        // accesses are unaligned loads and stores.
        unsafe {
            let f = _mm256_cvtph_ps(_mm_loadu_si128(x.as_ptr() as *const __m128i));
            _mm256_storeu_pd(o.as_mut_ptr(), _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
            _mm256_storeu_pd(
                o.as_mut_ptr().add(4),
                _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)),
            );
        }
    }
    for (o, &x) in oc.into_remainder().iter_mut().zip(hc.remainder()) {
        *o = f16_to_f32(x) as f64;
    }
}

/// D = A * B + C of `f16_k16` (A 16 x 16, B 16 x 8, C and D 16 x 8, row-major), each
/// element summed in f64 in k order and rounded once to f32; on processors with AVX2 the
/// loop compiled for them (four sums an instruction; the same operations, so the same bits).
fn f16_k16_product(a: &[f64; 256], b: &[f64; 128], c: &[f64; 128]) -> [u64; 128] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (tested just above); the function is safe code.
        return unsafe { f16_k16_product_avx2(a, b, c) };
    }
    f16_k16_product_any(a, b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn f16_k16_product_avx2(a: &[f64; 256], b: &[f64; 128], c: &[f64; 128]) -> [u64; 128] {
    f16_k16_product_any(a, b, c)
}

#[inline(always)]
fn f16_k16_product_any(a: &[f64; 256], b: &[f64; 128], c: &[f64; 128]) -> [u64; 128] {
    const K: usize = 16;
    const N: usize = 8;
    let mut d = [0u64; 16 * N];
    // Two rows at a time: their sums are independent, so one row's additions wait less on
    // the other's (each element still adds its terms in k order).
    for i in (0..16).step_by(2) {
        let mut s0 = [0f64; N];
        let mut s1 = [0f64; N];
        s0.copy_from_slice(&c[i * N..i * N + N]);
        s1.copy_from_slice(&c[(i + 1) * N..(i + 1) * N + N]);
        for kk in 0..K {
            let (x0, x1) = (a[i * K + kk], a[(i + 1) * K + kk]);
            let row = &b[kk * N..kk * N + N];
            for j in 0..N {
                s0[j] += x0 * row[j];
                s1[j] += x1 * row[j];
            }
        }
        for j in 0..N {
            d[i * N + j] = (s0[j] as f32).to_bits() as u64;
            d[(i + 1) * N + j] = (s1[j] as f32).to_bits() as u64;
        }
    }
    d
}

/// `run` for any form: the fragments gathered through the layout, element by element.
fn run_any(op: &Mma, lanes: &[LaneFrags; 32]) -> [[u64; MAX_REGS]; 32] {
    let fam = Family::of(op.shape, op.a_ty);
    let (m, n, k) = op.shape.mnk();
    let (m, n, k) = (m as usize, n as usize, k as usize);
    // Raw elements: A at most 16 x 32, B 32 x 8, C and D 16 x 8.
    let mut a = [0u64; 512];
    let mut b = [0u64; 256];
    let mut c = [0u64; 128];
    for (lane, f) in lanes.iter().enumerate() {
        let lane = lane as u32;
        for i in 0..fam.len(Frag::A) {
            let (r, col) = fam.coord(Frag::A, lane, i);
            a[r as usize * k + col as usize] = element(&f.a, op.a_ty, i);
        }
        for i in 0..fam.len(Frag::B) {
            let (r, col) = fam.coord(Frag::B, lane, i);
            b[r as usize * n + col as usize] = element(&f.b, op.b_ty, i);
        }
        for i in 0..fam.len(Frag::C) {
            let (r, col) = fam.coord(Frag::C, lane, i);
            c[r as usize * n + col as usize] = element(&f.c, op.c_ty, i);
        }
    }
    // Each element of D is summed in k order, as the module's doc says; the loops run k
    // outside and n inside so that a row's n independent sums advance side by side (the
    // compiler vectorises them), each still adding its terms in k order: the same results.
    let mut d = [0u64; 128];
    if matches!(op.a_ty, MmaType::S8 | MmaType::U8) {
        let ai: [i64; 512] = std::array::from_fn(|x| int_of(op.a_ty, a[x]));
        let bi: [i64; 256] = std::array::from_fn(|x| int_of(op.b_ty, b[x]));
        for i in 0..m {
            let mut s = [0i64; 8];
            for (j, v) in s.iter_mut().enumerate().take(n) {
                *v = int_of(op.c_ty, c[i * n + j]);
            }
            for kk in 0..k {
                let x = ai[i * k + kk];
                for (v, y) in s.iter_mut().zip(&bi[kk * n..kk * n + n]) {
                    *v += x * y;
                }
            }
            for (j, v) in s.iter().enumerate().take(n) {
                d[i * n + j] = if op.satfinite {
                    (*v).clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64
                } else {
                    *v as i32 as u32 as u64
                };
            }
        }
    } else {
        // Only the elements the shape has (A is m x k, B k x n).
        let mut af = [0f64; 512];
        let mut bf = [0f64; 256];
        for (f, &x) in af.iter_mut().zip(&a).take(m * k) {
            *f = float_of(op.a_ty, x);
        }
        for (f, &x) in bf.iter_mut().zip(&b).take(k * n) {
            *f = float_of(op.b_ty, x);
        }
        let fused = op.a_ty == MmaType::F64;
        for i in 0..m {
            let mut s = [0f64; 8];
            for (j, v) in s.iter_mut().enumerate().take(n) {
                *v = float_of(op.c_ty, c[i * n + j]);
            }
            for kk in 0..k {
                let x = af[i * k + kk];
                let row = &bf[kk * n..kk * n + n];
                if fused {
                    for (v, y) in s.iter_mut().zip(row) {
                        *v = x.mul_add(*y, *v);
                    }
                } else {
                    for (v, y) in s.iter_mut().zip(row) {
                        *v += x * y;
                    }
                }
            }
            for (j, v) in s.iter().enumerate().take(n) {
                d[i * n + j] = if fused {
                    v.to_bits()
                } else {
                    match op.d_ty {
                        MmaType::F16 => f64_to_half(*v, Ty::F16, Rounding::Rn) as u64,
                        _ => (*v as f32).to_bits() as u64,
                    }
                };
            }
        }
    }
    let mut out = [[0u64; MAX_REGS]; 32];
    for (lane, regs) in out.iter_mut().enumerate() {
        for i in 0..fam.len(Frag::C) {
            let (r, col) = fam.coord(Frag::C, lane as u32, i);
            set_element(regs, op.d_ty, i, d[r as usize * n + col as usize]);
        }
    }
    out
}

/// `cvt.rna.tf32.f32`: `bits` (an f32) rounded to 10 fraction bits, to nearest with ties away
/// from zero; NaN and infinity kept (NaN as the canonical 0x7fffffff).
pub fn tf32_rna(bits: u32) -> u32 {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        return 0x7fff_ffff;
    }
    if v.is_infinite() {
        return bits;
    }
    // Adding half a unit of the 10th fraction bit to the magnitude's bits rounds ties away
    // from zero (a carry into the exponent is the correct next binade, or infinity).
    (bits.wrapping_add(0x1000)) & !0x1fff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::float::{f32_to_bf16, f32_to_f16};

    #[test]
    fn the_f16_m16n8k16_path_gives_what_the_general_one_gives_on_any_bits() {
        // Random register bits (every half and float: NaNs, infinities, subnormals, signed
        // zeros among them), through `run` and through `run_any`: the same D, bit for bit.
        let op = op(
            MmaShape::M16N8K16,
            MmaType::F32,
            MmaType::F16,
            MmaType::F32,
            false,
        );
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            let mut lanes = [LaneFrags::default(); 32];
            for f in lanes.iter_mut() {
                for r in 0..4 {
                    // Small values most rounds (sums that round), raw bits in some.
                    f.a[r] = if round % 4 == 0 {
                        next() & 0xffff_ffff
                    } else {
                        next() & 0x3bff_3bff
                    };
                    f.c[r] = if round % 4 == 1 {
                        next() & 0xffff_ffff
                    } else {
                        next() & 0x3f7f_ffff
                    };
                }
                for r in 0..2 {
                    f.b[r] = if round % 4 == 2 {
                        next() & 0xffff_ffff
                    } else {
                        next() & 0xbbff_3bff
                    };
                }
            }
            let fast = run(&op, &lanes);
            let any = run_any(&op, &lanes);
            assert_eq!(fast, any, "round {round}");
        }
    }
    #[test]
    fn every_half_converts_to_the_bits_the_software_conversion_gives() {
        // All 65536 halves (NaNs with every payload, subnormals, signed zeros), in one slice
        // (the instruction's eight at a time) and one at a time (its remainder path).
        let h: Vec<u16> = (0..=u16::MAX).collect();
        let mut out = vec![0f64; h.len()];
        halves_f64(&h, &mut out);
        for (&x, v) in h.iter().zip(&out) {
            assert_eq!(
                v.to_bits(),
                (f16_to_f32(x) as f64).to_bits(),
                "half {x:#06x}"
            );
        }
        let odd = [0x7c01u16, 0xfe00, 0x0001, 0x8000, 0x3c00];
        let mut few = [0f64; 5];
        halves_f64(&odd, &mut few);
        for (&x, v) in odd.iter().zip(&few) {
            assert_eq!(
                v.to_bits(),
                (f16_to_f32(x) as f64).to_bits(),
                "half {x:#06x}"
            );
        }
    }

    use crate::ptx::ir::Operand;
    use crate::ptx::tensor::MmaShape;

    fn op(shape: MmaShape, d: MmaType, a: MmaType, c: MmaType, sat: bool) -> Mma {
        let (na, nb, nc) =
            crate::ptx::tensor::fragment_regs(shape, a, a, c, d).expect("a shape gpuzzle runs");
        Mma {
            shape,
            d_ty: d,
            a_ty: a,
            b_ty: a,
            c_ty: c,
            satfinite: sat,
            d: vec![0; nc],
            a: vec![Operand::Imm(0); na],
            b: vec![Operand::Imm(0); nb],
            c: vec![Operand::Imm(0); nc],
        }
    }

    /// Scatter the matrices into fragments by the layout, run, gather D: against a plain
    /// triple loop over the same values.
    fn check(
        op: &Mma,
        enc: impl Fn(MmaType, f64) -> u64,
        dec: impl Fn(MmaType, u64) -> f64,
        av: impl Fn(usize, usize) -> f64,
        bv: impl Fn(usize, usize) -> f64,
        cv: impl Fn(usize, usize) -> f64,
    ) {
        let fam = Family::of(op.shape, op.a_ty);
        let (m, n, k) = op.shape.mnk();
        let mut lanes = [LaneFrags::default(); 32];
        for (lane, f) in lanes.iter_mut().enumerate() {
            let lane = lane as u32;
            for i in 0..fam.len(Frag::A) {
                let (r, c) = fam.coord(Frag::A, lane, i);
                set_element(
                    &mut f.a,
                    op.a_ty,
                    i,
                    enc(op.a_ty, av(r as usize, c as usize)),
                );
            }
            for i in 0..fam.len(Frag::B) {
                let (r, c) = fam.coord(Frag::B, lane, i);
                set_element(
                    &mut f.b,
                    op.b_ty,
                    i,
                    enc(op.b_ty, bv(r as usize, c as usize)),
                );
            }
            for i in 0..fam.len(Frag::C) {
                let (r, c) = fam.coord(Frag::C, lane, i);
                set_element(
                    &mut f.c,
                    op.c_ty,
                    i,
                    enc(op.c_ty, cv(r as usize, c as usize)),
                );
            }
        }
        let out = run(op, &lanes);
        for (lane, regs) in out.iter().enumerate() {
            for i in 0..fam.len(Frag::C) {
                let (r, c) = fam.coord(Frag::C, lane as u32, i);
                let (r, c) = (r as usize, c as usize);
                let want: f64 =
                    cv(r, c) + (0..k as usize).map(|x| av(r, x) * bv(x, c)).sum::<f64>();
                let got = dec(op.d_ty, element(regs, op.d_ty, i));
                let tol = if op.d_ty == MmaType::F16 { 1e-2 } else { 1e-6 } * want.abs().max(1.0);
                assert!(
                    (got - want).abs() <= tol,
                    "{:?} {m}x{n}x{k}: D[{r}][{c}] = {got}, want {want}",
                    op.shape
                );
            }
        }
    }

    fn enc(t: MmaType, v: f64) -> u64 {
        match t {
            MmaType::F16 => f32_to_f16(v as f32) as u64,
            MmaType::BF16 => f32_to_bf16(v as f32) as u64,
            MmaType::TF32 | MmaType::F32 => (v as f32).to_bits() as u64,
            MmaType::F64 => v.to_bits(),
            MmaType::S8 | MmaType::U8 => v as i64 as u8 as u64,
            MmaType::S32 => v as i64 as i32 as u32 as u64,
        }
    }

    // Small integers and halves, exact in every input type: the sums are exact too.
    fn av(r: usize, c: usize) -> f64 {
        ((r * 3 + c * 5) % 7) as f64 - 3.0
    }
    fn bv(r: usize, c: usize) -> f64 {
        ((r * 2 + c * 3) % 5) as f64 * 0.5 - 1.0
    }
    fn cv(r: usize, c: usize) -> f64 {
        (r as f64) - (c as f64) * 0.25
    }

    #[test]
    fn float_forms_match_a_triple_loop() {
        use MmaShape::*;
        use MmaType::*;
        for (shape, d, a, c) in [
            (M16N8K16, F32, F16, F32),
            (M16N8K16, F16, F16, F16),
            (M16N8K8, F32, F16, F32),
            (M16N8K8, F16, F16, F16),
            (M16N8K16, F32, BF16, F32),
            (M16N8K8, F32, BF16, F32),
            (M16N8K8, F32, TF32, F32),
            (M8N8K4, F64, F64, F64),
        ] {
            check(&op(shape, d, a, c, false), enc, float_of, av, bv, cv);
        }
    }

    #[test]
    fn integer_forms_match_a_triple_loop_and_saturate() {
        use MmaShape::*;
        use MmaType::*;
        let ia = |r: usize, c: usize| ((r * 7 + c * 13) % 255) as f64 - 127.0;
        let ib = |r: usize, c: usize| ((r * 11 + c * 3) % 200) as f64 - 100.0;
        let ic = |r: usize, c: usize| (r * 1000) as f64 - (c * 77) as f64;
        for shape in [M16N8K32, M16N8K16] {
            check(&op(shape, S32, S8, S32, false), enc, float_of, ia, ib, ic);
        }
        let ua = |r: usize, c: usize| ((r * 7 + c * 13) % 256) as f64;
        check(
            &op(M16N8K32, S32, U8, S32, false),
            enc,
            float_of,
            ua,
            ua,
            ic,
        );
        // Overflow: 32 products of 127 * 127 on top of i32::MAX - 10 wrap, or clamp.
        let big = |_: usize, _: usize| 127.0;
        let near = |_: usize, _: usize| (i32::MAX - 10) as f64;
        for sat in [false, true] {
            let o = op(M16N8K32, S32, S8, S32, sat);
            let mut lanes = [LaneFrags::default(); 32];
            for f in &mut lanes {
                f.a = [enc(S8, big(0, 0)) * 0x0101_0101; 4];
                f.b = [
                    enc(S8, big(0, 0)) * 0x0101_0101,
                    enc(S8, big(0, 0)) * 0x0101_0101,
                    0,
                    0,
                ];
                f.c = [enc(S32, near(0, 0)); 4];
            }
            let out = run(&o, &lanes);
            let got = out[0][0] as u32 as i32;
            let exact = (i32::MAX - 10) as i64 + 32 * 127 * 127;
            let want = if sat { i32::MAX } else { exact as i32 };
            assert_eq!(got, want, "satfinite {sat}");
        }
    }

    #[test]
    fn f16_products_are_exact_in_f32_accumulation() {
        // 1 + 2^-10 (an f16) squared is 1 + 2^-9 + 2^-20: exact in f32, not in f16.
        let x = 1.0 + 2f64.powi(-10);
        let o = op(
            MmaShape::M16N8K16,
            MmaType::F32,
            MmaType::F16,
            MmaType::F32,
            false,
        );
        let a = |r: usize, c: usize| if r == 0 && c == 0 { x } else { 0.0 };
        let b = |r: usize, c: usize| if r == 0 && c == 0 { x } else { 0.0 };
        let fam = Family::Half16;
        let mut lanes = [LaneFrags::default(); 32];
        for (lane, f) in lanes.iter_mut().enumerate() {
            for i in 0..8 {
                let (r, c) = fam.coord(Frag::A, lane as u32, i);
                set_element(
                    &mut f.a,
                    MmaType::F16,
                    i,
                    enc(MmaType::F16, a(r as usize, c as usize)),
                );
            }
            for i in 0..4 {
                let (r, c) = fam.coord(Frag::B, lane as u32, i);
                set_element(
                    &mut f.b,
                    MmaType::F16,
                    i,
                    enc(MmaType::F16, b(r as usize, c as usize)),
                );
            }
        }
        let out = run(&o, &lanes);
        assert_eq!(f32::from_bits(out[0][0] as u32) as f64, x * x);
    }

    #[test]
    fn tf32_rounds_to_nearest_ties_away() {
        // 1 + 2^-11 is exactly half a tf32 unit above 1: away from zero gives 1 + 2^-10.
        let tie = (1.0f32 + 2f32.powi(-11)).to_bits();
        assert_eq!(f32::from_bits(tf32_rna(tie)), 1.0 + 2f32.powi(-10));
        let neg = (-1.0f32 - 2f32.powi(-11)).to_bits();
        assert_eq!(f32::from_bits(tf32_rna(neg)), -1.0 - 2f32.powi(-10));
        let below = (1.0f32 + 2f32.powi(-12)).to_bits();
        assert_eq!(f32::from_bits(tf32_rna(below)), 1.0);
        assert_eq!(tf32_rna(f32::INFINITY.to_bits()), f32::INFINITY.to_bits());
        assert_eq!(tf32_rna(f32::NAN.to_bits()), 0x7fff_ffff);
        assert_eq!(tf32_rna(f32::MAX.to_bits()), f32::INFINITY.to_bits());
    }
}
