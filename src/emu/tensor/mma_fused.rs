//! `mma.sync.m16n8k16` with f16 A and B and f32 C and D (`mma::f16_k16`'s form) read from and
//! written into a lockstep run's register file (`file[reg * 32 + lane]`) in one pass, on
//! processors with AVX2, FMA and F16C: no copies of the warp's fragments, no zeroed scratch
//! matrices, four sums an instruction.
//!
//! Why the bits are `f16_k16`'s. That path adds, for each element of D, `c` and then each
//! product `a * b` in k order in f64, rounding each addition, and rounds the sum once to f32.
//! A product of two halves is exact in f64 (11 x 11 significand bits, exponents far inside
//! f64's range), so `fma(a, b, s)` (the product rounded not at all, the sum once) is that
//! addition bit for bit; here each element takes its 16 fused multiply-adds in the same k
//! order, four elements an instruction. The one freedom IEEE leaves, which NaN's payload a
//! sum of two NaNs keeps, is not taken here: a result with a NaN in it is left to
//! `f16_k16` (nothing is written, the caller runs it), so every payload is that path's.
//! Without NaN inputs the only NaN an element can reach is the processor's default one
//! (`inf - inf`, `0 * inf`), the same bits whichever operand carries it; and a NaN input
//! always shows in D (it reaches every element of its row or column), so a D with no NaN
//! proves there was none. `GPUZZLE_MMA_FUSED=off` turns the path off, to compare.

use std::sync::OnceLock;

/// The registers of one `f16_k16` instruction in the file: A's four, B's two, C's four (each
/// a register number: column `reg * 32 ..` of the file) and D's four.
#[derive(Clone, Copy, Debug)]
pub struct Regs {
    pub a: [usize; 4],
    pub b: [usize; 2],
    pub c: [usize; 4],
    pub d: [usize; 4],
}

/// Whether the path runs here: the processor has the instructions and the switch is not off.
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        let off = std::env::var("GPUZZLE_MMA_FUSED").is_ok_and(|v| v == "off");
        !off && supported()
    })
}

fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// D = A * B + C for the whole warp (every lane takes part), from and into `file`: true when
/// done; false, with nothing written, when the caller must run `mma::f16_k16` instead (the
/// path is off or unsupported here, a register lies outside the file, or D holds a NaN).
pub fn run(file: &mut [u64], r: &Regs) -> bool {
    if !enabled() {
        return false;
    }
    let inside = |reg: usize| (reg + 1) * 32 <= file.len();
    if !(r.a.iter().chain(&r.b).chain(&r.c).chain(&r.d)).all(|&x| inside(x)) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `enabled` tested for AVX2, FMA and F16C; every register's column lies in
        // `file` (tested just above).
        unsafe { run_fma(file, r) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `run` with the instructions. Layouts (lane = 4g + t), as `mma::f16_k16` writes them out:
/// A's register `r` holds row `g + 8 (r & 1)`, columns `2t + 8 (r >> 1)` and the next (so the
/// low words of lanes 4g..4g+3 are that row's eight halves from column `8 (r >> 1)`, in
/// order); B's register `r` rows `2t + 8r` and the next of column `g`; C's and D's register
/// `i` row `g + 8 (i >> 1)`, column `2t + (i & 1)`.
///
/// # Safety
/// The processor has AVX2, FMA and F16C, and every register of `r` has its 32 values in `file`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn run_fma(file: &mut [u64], r: &Regs) -> bool {
    use std::arch::x86_64::*;
    const K: usize = 16;
    const N: usize = 8;
    let col = |reg: usize| &file[reg * 32..reg * 32 + 32];
    // A as f64, row-major 16 x 16: eight halves (four lanes' low words) a conversion.
    let mut a = [0f64; 16 * K];
    let low_words = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    for (ri, &reg) in r.a.iter().enumerate() {
        let src = col(reg);
        for g in 0..8 {
            let row = g + 8 * (ri & 1);
            let at = row * K + 8 * (ri >> 1);
            // SAFETY: `src[4g..4g + 4]` is in bounds (32 values); `a[at..at + 8]` too
            // (row < 16, at + 8 <= row * 16 + 16). Unaligned loads and stores.
            unsafe {
                let v = _mm256_loadu_si256(src.as_ptr().add(4 * g) as *const __m256i);
                let h = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, low_words));
                let f = _mm256_cvtph_ps(h);
                _mm256_storeu_pd(
                    a.as_mut_ptr().add(at),
                    _mm256_cvtps_pd(_mm256_castps256_ps128(f)),
                );
                _mm256_storeu_pd(
                    a.as_mut_ptr().add(at + 4),
                    _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)),
                );
            }
        }
    }
    // B as halves, row-major 16 x 8, then as f64.
    let mut bh = [0u16; K * N];
    for (ri, &reg) in r.b.iter().enumerate() {
        for (lane, &v) in col(reg).iter().enumerate() {
            let (g, t) = (lane >> 2, lane & 3);
            let at = (2 * t + 8 * ri) * N + g;
            bh[at] = v as u16;
            bh[at + N] = (v >> 16) as u16;
        }
    }
    let mut b = [0f64; K * N];
    for (h, o) in bh.chunks_exact(8).zip(b.chunks_exact_mut(8)) {
        // SAFETY: eight halves in, eight f64 out; unaligned load and stores.
        unsafe {
            let f = _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr() as *const __m128i));
            _mm256_storeu_pd(o.as_mut_ptr(), _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
            _mm256_storeu_pd(
                o.as_mut_ptr().add(4),
                _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)),
            );
        }
    }
    // D, row-major as f32, each element `c` plus its 16 products in k order, four rows at a
    // time (eight independent sums in flight, enough to cover the instruction's latency).
    let mut d = [_mm_setzero_ps(); 16 * 2];
    let mut nan = _mm256_setzero_pd();
    for i0 in (0..16).step_by(4) {
        let mut s = [_mm256_setzero_pd(); 8];
        for q in 0..4 {
            // C's row `i0 + q` (columns 0..4 and 4..8): registers `2 (row >> 3)` (even
            // columns) and the next (odd columns) of lanes 4g..4g+3, g = row % 8.
            let row = i0 + q;
            let (g, i) = (row % 8, 2 * (row / 8));
            let (even, odd) = (col(r.c[i]), col(r.c[i + 1]));
            // SAFETY: lanes 4g..4g + 4 of two 32-value columns; unaligned loads.
            let (e, o) = unsafe {
                (
                    _mm256_loadu_si256(even.as_ptr().add(4 * g) as *const __m256i),
                    _mm256_loadu_si256(odd.as_ptr().add(4 * g) as *const __m256i),
                )
            };
            let e = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(e, low_words));
            let o = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(o, low_words));
            let (e, o) = (_mm_castsi128_ps(e), _mm_castsi128_ps(o));
            // Interleaved: columns 0, 1, 2, 3 and 4, 5, 6, 7.
            s[2 * q] = _mm256_cvtps_pd(_mm_unpacklo_ps(e, o));
            s[2 * q + 1] = _mm256_cvtps_pd(_mm_unpackhi_ps(e, o));
        }
        for kk in 0..K {
            // SAFETY: `b[kk * 8..kk * 8 + 8]` is in bounds; unaligned loads.
            let (b0, b1) = unsafe {
                (
                    _mm256_loadu_pd(b.as_ptr().add(kk * N)),
                    _mm256_loadu_pd(b.as_ptr().add(kk * N + 4)),
                )
            };
            for q in 0..4 {
                let x = _mm256_set1_pd(a[(i0 + q) * K + kk]);
                s[2 * q] = _mm256_fmadd_pd(x, b0, s[2 * q]);
                s[2 * q + 1] = _mm256_fmadd_pd(x, b1, s[2 * q + 1]);
            }
        }
        for (q, v) in s.iter().enumerate() {
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(*v, *v, _CMP_UNORD_Q));
            d[2 * i0 + q] = _mm256_cvtpd_ps(*v);
        }
    }
    if _mm256_movemask_pd(nan) != 0 {
        return false;
    }
    // Row `row` of D into registers `2 (row >> 3)` (even columns) and the next (odd columns)
    // of lanes 4g..4g+3: each f32's bits zero-extended into its lane's 64-bit value.
    for row in 0..16 {
        let (g, i) = (row % 8, 2 * (row / 8));
        let (lo, hi) = (d[2 * row], d[2 * row + 1]);
        let even = _mm_shuffle_ps::<0b10_00_10_00>(lo, hi);
        let odd = _mm_shuffle_ps::<0b11_01_11_01>(lo, hi);
        for (reg, v) in [(r.d[i], even), (r.d[i + 1], odd)] {
            let at = reg * 32 + 4 * g;
            // SAFETY: `file[at..at + 4]` is inside register `reg`'s column (tested by `run`).
            unsafe {
                _mm256_storeu_si256(
                    file.as_mut_ptr().add(at) as *mut __m256i,
                    _mm256_cvtepu32_epi64(_mm_castps_si128(v)),
                );
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::tensor::mma::{f16_k16, WarpFrags};

    /// Both paths on the same registers: the fused path's D (or `None` where it declines) and
    /// `f16_k16`'s.
    fn both(f: &WarpFrags, regs: &Regs) -> (Option<[[u64; 32]; 4]>, [[u64; 32]; 4]) {
        let mut file = vec![0xdead_beefu64; 32 * 20];
        for (r, colv) in regs.a.iter().zip(&f.a) {
            file[r * 32..r * 32 + 32].copy_from_slice(colv);
        }
        for (r, colv) in regs.b.iter().zip(&f.b) {
            file[r * 32..r * 32 + 32].copy_from_slice(colv);
        }
        for (r, colv) in regs.c.iter().zip(&f.c) {
            file[r * 32..r * 32 + 32].copy_from_slice(colv);
        }
        let before = file.clone();
        let fused = if run(&mut file, regs) {
            let mut d = [[0u64; 32]; 4];
            for (out, r) in d.iter_mut().zip(&regs.d) {
                out.copy_from_slice(&file[r * 32..r * 32 + 32]);
            }
            Some(d)
        } else {
            assert_eq!(file, before, "a declined run wrote to the file");
            None
        };
        (fused, f16_k16(f))
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// A half: raw bits, or from the adversarial set (the extremes of the range, subnormals,
    /// signed zeros, infinities, NaNs, values that cancel), by `mode`.
    fn half(rng: &mut Rng, mode: u64) -> u64 {
        const SPECIAL: [u64; 14] = [
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x7c00,
            0xfc00, 0x7e00, 0x7c01,
        ];
        let x = rng.next();
        match mode {
            0 => x & 0xffff,
            1 => SPECIAL[(x % 12) as usize],
            2 => SPECIAL[(x % 14) as usize],
            // Huge and tiny together: exponents at both ends, either sign.
            3 => {
                (x & 0x8000)
                    | if x & 0x10000 != 0 {
                        0x7800 | x & 0x3ff
                    } else {
                        x & 0x07ff
                    }
            }
            _ => x & 0xbbff, // small values, either sign: sums that round and cancel
        }
    }

    fn frags(rng: &mut Rng, mode: u64) -> WarpFrags {
        let mut f = WarpFrags::default();
        let pair = |rng: &mut Rng| half(rng, mode) | half(rng, mode) << 16;
        for r in 0..4 {
            for l in 0..32 {
                f.a[r][l] = pair(rng);
                f.c[r][l] = match mode % 3 {
                    0 => rng.next() & 0xffff_ffff,
                    1 => [0u64, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7f7f_ffff, 1]
                        [(rng.next() % 6) as usize],
                    _ => rng.next() & 0xbf7f_ffff,
                };
            }
        }
        for r in 0..2 {
            for l in 0..32 {
                f.b[r][l] = pair(rng);
            }
        }
        f
    }

    #[test]
    fn the_fused_path_gives_f16_k16s_bits_on_random_and_adversarial_inputs() {
        if !supported() {
            eprintln!("no AVX2/FMA/F16C here: nothing to compare");
            return;
        }
        let regs = Regs {
            a: [3, 7, 1, 12],
            b: [0, 19],
            c: [5, 6, 14, 2],
            d: [9, 10, 11, 13],
        };
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut compared = 0;
        for round in 0..4000u64 {
            let f = frags(&mut rng, round % 5);
            let (fused, slow) = both(&f, &regs);
            if let Some(d) = fused {
                assert_eq!(d, slow, "round {round}");
                compared += 1;
            } else {
                // Declined only for a NaN in D.
                assert!(
                    slow.iter()
                        .flatten()
                        .any(|&v| f32::from_bits(v as u32).is_nan()),
                    "round {round}: declined without a NaN"
                );
            }
        }
        // Raw bits nearly always hold a NaN somewhere (modes 0 and 2): the other modes compare.
        assert!(compared > 1200, "only {compared} rounds compared");
    }

    #[test]
    fn cancellation_and_overflow_are_rounded_as_f16_k16_rounds_them() {
        if !supported() {
            return;
        }
        // Large and tiny products side by side with C of either sign: sums that cancel and
        // need f64's bits before the one rounding.
        let regs = Regs {
            a: [0, 1, 2, 3],
            b: [4, 5],
            c: [6, 7, 8, 9],
            d: [6, 7, 8, 9], // D overwrites C, as `+f` accumulators do
        };
        let mut f = WarpFrags::default();
        for l in 0..32 {
            for r in 0..4 {
                // Alternating 2^15 * (1 + 2^-10) and tiny values: f32 would lose the tiny.
                f.a[r][l] = if l % 2 == 0 { 0x7801_0001 } else { 0x0001_7801 };
                f.c[r][l] = if l % 3 == 0 { 0xcf80_0000 } else { 0x3380_0000 };
            }
            for r in 0..2 {
                f.b[r][l] = if l % 4 == 1 { 0xf801_7801 } else { 0x7801_0401 };
            }
        }
        let (fused, slow) = both(&f, &regs);
        assert_eq!(fused, Some(slow));
        // And the largest halves, C zero: each element is 16 * 65504^2.
        for l in 0..32 {
            for r in 0..4 {
                f.a[r][l] = 0x7bff_7bff;
                f.c[r][l] = 0;
            }
            for r in 0..2 {
                f.b[r][l] = 0x7bff_7bff;
            }
        }
        let (fused, slow) = both(&f, &regs);
        assert_eq!(fused, Some(slow));
        let want = (16.0 * 65504.0f64 * 65504.0) as f32;
        assert!(slow[0].iter().all(|&v| v as u32 == want.to_bits()));
    }

    #[test]
    fn a_nan_input_is_left_to_f16_k16() {
        if !supported() {
            return;
        }
        let regs = Regs {
            a: [0, 1, 2, 3],
            b: [4, 5],
            c: [6, 7, 8, 9],
            d: [10, 11, 12, 13],
        };
        let mut f = WarpFrags::default();
        f.b[1][17] = 0x7e01; // a NaN in B
        let (fused, _) = both(&f, &regs);
        assert_eq!(fused, None);
    }
}
