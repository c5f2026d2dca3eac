//! Float semantics PTX needs beyond Rust's defaults: directed rounding, flush-to-zero,
//! saturation, minNum/maxNum, and float→integer conversion rules.

use crate::ptx::ir::{Rounding, Ty};

/// `a * b + c` rounded once, by the CPU's FMA instruction where it has one (detected at run
/// time: the build targets CPUs without it), else by the library's software `fma`, which is
/// exact too but about ten times slower.
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has the `fma` feature, checked just above.
            return unsafe { hw::fma_f32(a, b, c) };
        }
    }
    a.mul_add(b, c)
}

/// `fma_f32` for `f64`.
#[inline(always)]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has the `fma` feature, checked just above.
            return unsafe { hw::fma_f64(a, b, c) };
        }
    }
    a.mul_add(b, c)
}

/// `mul_add` compiled with the `fma` feature on, so it is one `vfmadd` instruction.
#[cfg(target_arch = "x86_64")]
mod hw {
    #[target_feature(enable = "fma")]
    pub(super) unsafe fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }

    #[target_feature(enable = "fma")]
    pub(super) unsafe fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

#[inline]
pub fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

#[inline]
pub fn bits_f32(v: f32) -> u64 {
    v.to_bits() as u64
}

/// Flush a subnormal f32 to a zero of the same sign.
#[inline]
pub fn ftz32(v: f32) -> f32 {
    if v.is_subnormal() {
        if v.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        v
    }
}

/// Clamp to [0, 1]; NaN becomes +0.
#[inline]
pub fn sat32(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

#[inline]
pub fn sat64(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// Round an exact-ish f64 result to f32 with a directed rounding mode.
pub fn round_f32(exact: f64, rnd: Rounding) -> f32 {
    let r = exact as f32;
    if r.is_nan() || r.is_infinite() && exact.is_infinite() {
        return r;
    }
    let back = r as f64;
    match rnd {
        Rounding::Rz if back.abs() > exact.abs() => next_toward_zero32(r),
        Rounding::Rm if back > exact => r.next_down(),
        Rounding::Rp if back < exact => r.next_up(),
        _ => r,
    }
}

fn next_toward_zero32(r: f32) -> f32 {
    if r > 0.0 {
        r.next_down()
    } else {
        r.next_up()
    }
}

/// Directed rounding of an f64 operation using the error term of the nearest result.
/// `exact = r + err` where `err` is the (exactly representable) rounding error.
pub fn round_f64(r: f64, err: f64, rnd: Rounding) -> f64 {
    if r.is_nan() || r.is_infinite() || err == 0.0 {
        return r;
    }
    match rnd {
        Rounding::Rz if (err < 0.0) == (r > 0.0) => {
            if r > 0.0 {
                r.next_down()
            } else {
                r.next_up()
            }
        }
        Rounding::Rm if err < 0.0 => r.next_down(),
        Rounding::Rp if err > 0.0 => r.next_up(),
        _ => r,
    }
}

/// Error terms for f64 add and mul (TwoSum, and FMA-based TwoProd).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// IEEE minNum/maxNum (PTX min/max without `.NaN`): a NaN input yields the other input;
/// with `propagate` (`.NaN`), any NaN input yields NaN.
#[inline]
fn pick_num<T: Copy>(
    a: T,
    b: T,
    a_nan: bool,
    b_nan: bool,
    propagate: bool,
    nan: T,
    take_b: bool,
) -> T {
    if a_nan || b_nan {
        if propagate || (a_nan && b_nan) {
            return nan;
        }
        return if a_nan { b } else { a };
    }
    if take_b {
        b
    } else {
        a
    }
}

#[inline]
pub fn min_num<T: PartialOrd + Copy>(
    a: T,
    b: T,
    a_nan: bool,
    b_nan: bool,
    propagate: bool,
    nan: T,
) -> T {
    pick_num(a, b, a_nan, b_nan, propagate, nan, b < a)
}

#[inline]
pub fn max_num<T: PartialOrd + Copy>(
    a: T,
    b: T,
    a_nan: bool,
    b_nan: bool,
    propagate: bool,
    nan: T,
) -> T {
    pick_num(a, b, a_nan, b_nan, propagate, nan, b > a)
}

/// Round a float to an integral value per an integer rounding modifier (`.rni` etc.).
pub fn round_integral(v: f64, rnd: Rounding) -> f64 {
    match rnd {
        Rounding::Rni | Rounding::Rn => v.round_ties_even(),
        Rounding::Rmi | Rounding::Rm => v.floor(),
        Rounding::Rpi | Rounding::Rp => v.ceil(),
        _ => v.trunc(),
    }
}

/// PTX float→integer conversion: round, then saturate to the destination range. NaN gives 0,
/// except from f64 or into 64-bit integers, where it gives `1 << (bits-1)`.
pub fn float_to_int(v: f64, rnd: Rounding, bits: u32, signed: bool, from_f64: bool) -> u64 {
    if v.is_nan() {
        return if from_f64 || bits == 64 {
            1u64 << (bits - 1)
        } else {
            0
        };
    }
    let r = round_integral(v, rnd);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if signed {
        let (lo, hi) = (
            -(2f64.powi(bits as i32 - 1)),
            2f64.powi(bits as i32 - 1) - 1.0,
        );
        let c = if r < lo {
            i64::MIN >> (64 - bits)
        } else if r > hi {
            i64::MAX >> (64 - bits)
        } else {
            r as i64
        };
        (c as u64) & mask
    } else {
        let hi = if bits == 64 {
            u64::MAX as f64
        } else {
            mask as f64
        };
        if r <= 0.0 {
            0
        } else if r >= hi {
            mask
        } else {
            r as u64
        }
    }
}

/// IEEE half → f32.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: normalise
            let mut e = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 31 {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// f32 → IEEE half, round to nearest even.
pub fn f32_to_f16(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 255 {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// bfloat16 → f32 (bf16 is f32's upper half).
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 → bfloat16, round to nearest even (NaN stays NaN).
pub fn f32_to_bf16(v: f32) -> u16 {
    let b = v.to_bits();
    if v.is_nan() {
        return ((b >> 16) as u16) | 0x40;
    }
    let rem = b & 0xffff;
    let mut r = b >> 16;
    if rem > 0x8000 || (rem == 0x8000 && r & 1 == 1) {
        r += 1;
    }
    r as u16
}

/// The bit layout of a 16-bit float type: stored significand bits, exponent bias, and the
/// exponent field of infinities and NaNs.
struct Layout {
    man: u32,
    bias: i32,
    top_field: u32,
}

fn layout(ty: Ty) -> Layout {
    if ty == Ty::BF16 {
        Layout {
            man: 7,
            bias: 127,
            top_field: 255,
        }
    } else {
        Layout {
            man: 10,
            bias: 15,
            top_field: 31,
        }
    }
}

/// The canonical NaN PTX writes for `.relu` and `.satfinite` (both 16-bit formats: 0x7fff).
pub const HALF_CANONICAL_NAN: u16 = 0x7fff;

/// How far the dropped bits of a rounding are from half a unit of the last kept bit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dropped {
    Zero,
    Below,
    Half,
    Above,
}

/// `(-1)^neg * mag * 2^exp`, an exact value, rounded once into the 16-bit float `ty` (`F16`
/// or `BF16`) in the direction `rnd` (nearest even unless `.rz`/`.rm`/`.rp`), as a directed
/// `cvt` must: an overflow gives infinity only where the direction allows, else the largest
/// finite value.
pub fn round_to_half(neg: bool, mag: u64, exp: i32, ty: Ty, rnd: Rounding) -> u16 {
    let l = layout(ty);
    let sign: u16 = if neg { 0x8000 } else { 0 };
    if mag == 0 {
        return sign;
    }
    let top = 63 - mag.leading_zeros() as i32;
    let emin = 1 - l.bias;
    // The weight (power of two) of the last significand bit the result keeps.
    let q = (top + exp).max(emin) - l.man as i32;
    let (kept, dropped) = if exp >= q {
        // At most `man` bits of shift: the value's top bit is below bit `man + 1`.
        (mag << (exp - q), Dropped::Zero)
    } else {
        let shift = (q - exp) as u32;
        if shift > 64 {
            (0, Dropped::Below)
        } else {
            let wide = mag as u128;
            let rem = wide & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            let dropped = match rem {
                0 => Dropped::Zero,
                r if r < half => Dropped::Below,
                r if r == half => Dropped::Half,
                _ => Dropped::Above,
            };
            ((wide >> shift) as u64, dropped)
        }
    };
    let inexact = dropped != Dropped::Zero;
    let up = match rnd {
        Rounding::Rz => false,
        Rounding::Rm => neg && inexact,
        Rounding::Rp => !neg && inexact,
        _ => dropped == Dropped::Above || (dropped == Dropped::Half && kept & 1 == 1),
    };
    let kept = kept + up as u64;
    // Biased exponent field minus one, shifted into place, plus the significand with its
    // leading bit: the leading bit carries into the field, and a subnormal (field 0, no
    // leading bit) that rounds up to the smallest normal comes out right.
    let bits = (((q + l.man as i32 + l.bias - 1) as u64) << l.man) + kept;
    let inf = (l.top_field as u64) << l.man;
    if bits >= inf {
        let to_inf = match rnd {
            Rounding::Rz => false,
            Rounding::Rm => neg,
            Rounding::Rp => !neg,
            _ => true,
        };
        return sign | if to_inf { inf as u16 } else { (inf - 1) as u16 };
    }
    sign | bits as u16
}

/// An f64 (so also any f32 or 16-bit float, exactly) rounded once into the 16-bit float `ty`
/// in the direction `rnd`. NaN stays NaN as [`f32_to_f16`]/[`f32_to_bf16`] keep it.
pub fn f64_to_half(x: f64, ty: Ty, rnd: Rounding) -> u16 {
    if x.is_nan() {
        return if ty == Ty::BF16 {
            f32_to_bf16(x as f32)
        } else {
            f32_to_f16(x as f32)
        };
    }
    let neg = x.is_sign_negative();
    if x.is_infinite() {
        let l = layout(ty);
        return (if neg { 0x8000 } else { 0 }) | (l.top_field << l.man) as u16;
    }
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mag, exp) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1u64 << 52, field - 1075)
    };
    round_to_half(neg, mag, exp, ty, rnd)
}

/// `.relu` and `.satfinite` applied to a 16-bit float result of `ty`: with either, NaN becomes
/// the canonical NaN; `.relu` makes a negative result (-0 too) +0; `.satfinite` makes an
/// infinity the largest finite value of its sign.
pub fn finish_half(h: u16, ty: Ty, relu: bool, satfinite: bool) -> u16 {
    let l = layout(ty);
    let inf = (l.top_field << l.man) as u16;
    let mag = h & 0x7fff;
    if mag > inf {
        return if relu || satfinite {
            HALF_CANONICAL_NAN
        } else {
            h
        };
    }
    if relu && h & 0x8000 != 0 {
        return 0;
    }
    if satfinite && mag == inf {
        return (h & 0x8000) | (inf - 1);
    }
    h
}

/// `a * b + c` on bfloat16s, rounded once to nearest even (`fma.rn.bf16`), as `fma_f16` does.
pub fn fma_bf16(a: u16, b: u16, c: u16) -> u16 {
    fma_once(a, b, c, bf16_to_f32, f32_to_bf16)
}

/// `a * b + c` on halves, rounded once to nearest even, as `fma.rn.f16` does.
pub fn fma_f16(a: u16, b: u16, c: u16) -> u16 {
    fma_once(a, b, c, f16_to_f32, f32_to_f16)
}

/// `a * b + c` on a 16-bit float format (`widen`/`narrow` to and from f32), rounded once. The
/// product of two 16-bit floats is exact in f64; the sum is made exact enough by rounding it to
/// odd (the error of the f64 sum, from a two-sum, decides the last bit), and so is the step to
/// f32: a value rounded to odd with at least two bits to spare rounds to nearest as the exact
/// one would.
fn fma_once(a: u16, b: u16, c: u16, widen: fn(u16) -> f32, narrow: fn(f32) -> u16) -> u16 {
    let (x, y, z) = (widen(a) as f64, widen(b) as f64, widen(c) as f64);
    let p = x * y;
    let s = p + z;
    if !s.is_finite() {
        return narrow(s as f32);
    }
    // Two-sum: the exact p + z is s + err.
    let bp = s - z;
    let err = (p - bp) + (z - (s - bp));
    narrow(f64_to_f32_odd(f64_odd(s, err)))
}

/// `s`, or its neighbour toward `s + err`, whichever has an odd last bit when `err` is not 0.
fn f64_odd(s: f64, err: f64) -> f64 {
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    if s == 0.0 {
        return if err > 0.0 {
            f64::from_bits(1)
        } else {
            -f64::from_bits(1)
        };
    }
    // Away from zero when the error has s's sign, else toward zero.
    let away = (err > 0.0) == (s > 0.0);
    f64::from_bits(if away {
        s.to_bits() + 1
    } else {
        s.to_bits() - 1
    })
}

/// f64 → f32 rounded to odd: the nearest-even f32, moved one step toward `v` when it is
/// inexact and even.
fn f64_to_f32_odd(v: f64) -> f32 {
    let f = v as f32;
    let back = f as f64;
    if back == v || !f.is_finite() || f.to_bits() & 1 == 1 {
        return f;
    }
    if f == 0.0 {
        return if v > 0.0 {
            f32::from_bits(1)
        } else {
            -f32::from_bits(1)
        };
    }
    let away = (v.abs()) > back.abs();
    f32::from_bits(if away {
        f.to_bits() + 1
    } else {
        f.to_bits() - 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hardware_fma_rounds_once_as_the_software_one_does() {
        // 1 + 2^-23 squared minus (1 + 2^-22): exact only when the product is not rounded.
        let a = 1.0f32 + f32::EPSILON;
        let c = -(1.0f32 + 2.0 * f32::EPSILON);
        assert_eq!(fma_f32(a, a, c), a.mul_add(a, c));
        assert_eq!(fma_f32(a, a, c), f32::EPSILON * f32::EPSILON);
        let b = 1.0f64 + f64::EPSILON;
        let d = -(1.0f64 + 2.0 * f64::EPSILON);
        assert_eq!(fma_f64(b, b, d), f64::EPSILON * f64::EPSILON);
        for (x, y, z) in [
            (3.5f32, -2.25, 0.125),
            (f32::MAX, 2.0, f32::NEG_INFINITY),
            (f32::NAN, 1.0, 0.0),
        ] {
            let (h, s) = (fma_f32(x, y, z), x.mul_add(y, z));
            assert!(h == s || (h.is_nan() && s.is_nan()), "{x} {y} {z}");
        }
    }

    /// A half as an exact integer multiple of 2^-24 (every half is one).
    fn half_scaled(h: u16) -> i128 {
        let v = f16_to_f32(h) as f64;
        (v * 2f64.powi(24)) as i128
    }

    /// The nearest half to `exact` (a multiple of 2^-48), ties to even, by comparing the
    /// neighbours of a first guess exactly.
    fn nearest_half(exact: i128) -> u16 {
        let guess = f32_to_f16((exact as f64 / 2f64.powi(48)) as f32);
        let sign = guess & 0x8000;
        let mag = guess & 0x7fff;
        let mut best: Option<(u16, i128)> = None;
        for m in mag.saturating_sub(2)..=(mag + 2).min(0x7bff) {
            let h = sign | m;
            let d = ((half_scaled(h) << 24) - exact).abs();
            best = match best {
                Some((bh, bd)) if bd < d || (bd == d && bh & 1 == 0) => Some((bh, bd)),
                _ => Some((h, d)),
            };
        }
        best.map_or(guess, |(h, _)| h)
    }

    #[test]
    fn half_fma_rounds_once_like_exact_arithmetic() {
        let h = f32_to_f16;
        assert_eq!(f16_to_f32(fma_f16(h(2.0), h(3.0), h(0.5))), 6.5);
        assert_eq!(f16_to_f32(fma_f16(h(-1.5), h(4.0), h(0.25))), -5.75);
        assert_eq!(
            f16_to_f32(fma_f16(h(300.0), h(300.0), h(0.0))),
            f32::INFINITY
        );
        assert!(f16_to_f32(fma_f16(h(f32::NAN), h(1.0), h(1.0))).is_nan());
        // Many finite triples (operands spread over all exponents) against exact sums.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state as u16) & 0xfbff // finite halves only (exponent below 31)
        };
        let mut checked = 0;
        for _ in 0..200_000 {
            let (a, b, c) = (next(), next(), next());
            // Exact, in units of 2^-48.
            let exact = half_scaled(a) * half_scaled(b) + (half_scaled(c) << 24);
            if exact.abs() >= 65520i128 << 48 {
                continue; // overflows to infinity
            }
            let want = nearest_half(exact);
            let got = fma_f16(a, b, c);
            let same = got == want || (exact == 0 && got & 0x7fff == 0 && want & 0x7fff == 0);
            assert!(
                same,
                "fma({a:#06x}, {b:#06x}, {c:#06x}) = {got:#06x}, exact rounds to {want:#06x}"
            );
            checked += 1;
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn float_to_int_saturates_and_handles_nan() {
        assert_eq!(
            float_to_int(1e20, Rounding::Rzi, 32, true, false),
            i32::MAX as u32 as u64
        );
        assert_eq!(
            float_to_int(-1e20, Rounding::Rzi, 32, true, false),
            i32::MIN as u32 as u64
        );
        assert_eq!(float_to_int(-3.0, Rounding::Rzi, 32, false, false), 0);
        assert_eq!(float_to_int(f64::NAN, Rounding::Rzi, 32, true, false), 0);
        assert_eq!(
            float_to_int(f64::NAN, Rounding::Rzi, 64, true, false),
            1 << 63
        );
        assert_eq!(float_to_int(2.5, Rounding::Rni, 32, true, false), 2);
        assert_eq!(
            float_to_int(-2.5, Rounding::Rmi, 32, true, false) as u32 as i32,
            -3
        );
    }

    #[test]
    fn directed_rounding_brackets_the_exact_value() {
        let exact = 1.0f64 + 1e-10;
        assert_eq!(round_f32(exact, Rounding::Rm), 1.0);
        assert!(round_f32(exact, Rounding::Rp) > 1.0);
        let (s, e) = two_sum(1.0, 1e-30);
        assert!(round_f64(s, e, Rounding::Rp) > 1.0);
        assert_eq!(round_f64(s, e, Rounding::Rm), 1.0);
    }

    #[test]
    fn min_max_follow_min_num() {
        assert_eq!(min_num(f32::NAN, 1.0, true, false, false, f32::NAN), 1.0);
        assert!(min_num(f32::NAN, 1.0, true, false, true, f32::NAN).is_nan());
        assert_eq!(max_num(2.0f32, 1.0, false, false, false, f32::NAN), 2.0);
    }

    #[test]
    fn bfloat16_rounds_to_nearest_even() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        assert_eq!(bf16_to_f32(0x3f80), 1.0);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even (1) wins; a bit more rounds up.
        assert_eq!(f32_to_bf16(1.0 + 2f32.powi(-8)), 0x3f80);
        assert_eq!(f32_to_bf16(1.0 + 2f32.powi(-8) + 2f32.powi(-20)), 0x3f81);
        assert_eq!(f32_to_bf16(1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
        assert_eq!(bf16_to_f32(f32_to_bf16(f32::INFINITY)), f32::INFINITY);
        // fma rounds once: 1 + 2^-8 + 2^-30 is just above the tie and goes up.
        let (one, tiny) = (f32_to_bf16(1.0), f32_to_bf16(2f32.powi(-8)));
        assert_eq!(fma_bf16(tiny, one, one), 0x3f80);
        let above = f32_to_bf16(1.0 + 2f32.powi(-7));
        assert_eq!(fma_bf16(tiny, above, one), 0x3f81);
    }

    /// The next 16-bit float above (`up`) or below `h` in value, by its bits (for either
    /// format: both order their magnitudes as integers).
    fn step(h: u16, up: bool) -> u16 {
        let neg = h & 0x8000 != 0;
        match (h & 0x7fff == 0, up) {
            (true, true) => 0x0001,
            (true, false) => 0x8001,
            _ if up != neg => h + 1,
            _ => h - 1,
        }
    }

    /// A 16-bit float's exact value, by the `half` crate.
    fn value(ty: Ty, h: u16) -> f64 {
        if ty == Ty::BF16 {
            half::bf16::from_bits(h).to_f64()
        } else {
            half::f16::from_bits(h).to_f64()
        }
    }

    /// The reference rounding of `x` into a 16-bit float in direction `rnd`, from the `half`
    /// crate's values: the two neighbours of `x` found by stepping from the crate's own
    /// conversion (on x86 its f64 conversion goes through f32, rounding twice, so it can be
    /// one off), then the one the direction picks, nearest-even by the exact midpoint. For
    /// an f32 `x` the crate's conversion is checked to be that nearest one.
    fn reference(x: f64, ty: Ty, rnd: Rounding) -> u16 {
        let guess = if ty == Ty::BF16 {
            half::bf16::from_f64(x).to_bits()
        } else {
            half::f16::from_f64(x).to_bits()
        };
        let mut lo = guess;
        while value(ty, lo) > x {
            lo = step(lo, false);
        }
        while value(ty, step(lo, true)) <= x {
            lo = step(lo, true);
        }
        if value(ty, lo) == x {
            return lo;
        }
        let hi = step(lo, true);
        let (lo_v, hi_v) = (value(ty, lo), value(ty, hi));
        // Halves have at most 11 significant bits: their midpoint is exact in f64. Past the
        // largest finite value, the midpoint is half a unit above it.
        let mid = if hi_v.is_infinite() {
            lo_v + (lo_v - value(ty, step(lo, false))) / 2.0
        } else if lo_v.is_infinite() {
            hi_v - (value(ty, step(hi, true)) - hi_v) / 2.0
        } else {
            (lo_v + hi_v) / 2.0
        };
        let nearest = if x < mid || (x == mid && lo & 1 == 0) {
            lo
        } else {
            hi
        };
        let f = x as f32;
        if f as f64 == x {
            let crate_rn = if ty == Ty::BF16 {
                half::bf16::from_f32(f).to_bits()
            } else {
                half::f16::from_f32(f).to_bits()
            };
            assert_eq!(crate_rn, nearest, "{ty:?} reference for {x:e}");
        }
        match rnd {
            Rounding::Rz if x > 0.0 => lo,
            Rounding::Rz | Rounding::Rp => hi,
            Rounding::Rm => lo,
            _ => nearest,
        }
    }

    const MODES: [Rounding; 4] = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];

    /// Every value a rounding into `ty` can turn on: each finite 16-bit float, its f32 and
    /// f64 neighbours, the midpoints to the next one up and their neighbours, and the
    /// overflow threshold's.
    fn boundaries(ty: Ty) -> Vec<f64> {
        let value = |h: u16| value(ty, h);
        let mut xs = Vec::new();
        for h in 0..=u16::MAX {
            let v = value(h);
            if !v.is_finite() {
                continue;
            }
            let next = value(step(h, true));
            let mut near = vec![v];
            if next.is_finite() {
                near.push((v + next) / 2.0);
            } else {
                // Past the largest finite value: where rounding to nearest overflows.
                near.push(v + (v - value(step(h, false))) / 2.0);
            }
            for c in near {
                let f = c as f32;
                xs.extend([
                    c,
                    c.next_up(),
                    c.next_down(),
                    f as f64,
                    f.next_up() as f64,
                    f.next_down() as f64,
                ]);
            }
        }
        xs
    }

    #[test]
    fn half_widening_matches_the_half_crate_for_every_bit_pattern() {
        for h in 0..=u16::MAX {
            let (ours, theirs) = (f16_to_f32(h), half::f16::from_bits(h).to_f32());
            assert!(
                ours.to_bits() == theirs.to_bits() || ours.is_nan() && theirs.is_nan(),
                "f16 {h:#06x}: {ours} vs {theirs}"
            );
            // (The crate quiets a signalling NaN; the emulator keeps its bits, as a shift.)
            let (ours, theirs) = (bf16_to_f32(h), half::bf16::from_bits(h).to_f32());
            assert!(
                ours.to_bits() == theirs.to_bits() || ours.is_nan() && theirs.is_nan(),
                "bf16 {h:#06x}: {ours} vs {theirs}"
            );
        }
    }

    #[test]
    fn rounding_into_halves_matches_the_half_crate_at_every_boundary() {
        for ty in [Ty::F16, Ty::BF16] {
            let xs = boundaries(ty);
            assert!(xs.len() > 6 * 60_000, "{}", xs.len());
            for &x in &xs {
                for rnd in MODES {
                    let want = reference(x, ty, rnd);
                    assert_eq!(
                        f64_to_half(x, ty, rnd),
                        want,
                        "{ty:?} {rnd:?} of {x:e} ({:#018x})",
                        x.to_bits()
                    );
                }
                // The f32 conversions the emulator has long used agree at nearest-even.
                let f = x as f32;
                if f as f64 == x {
                    let fast = if ty == Ty::BF16 {
                        f32_to_bf16(f)
                    } else {
                        f32_to_f16(f)
                    };
                    assert_eq!(fast, reference(x, ty, Rounding::Rn), "{ty:?} {f:e}");
                }
            }
        }
    }

    #[test]
    fn rounding_into_halves_keeps_infinities_and_nans() {
        for ty in [Ty::F16, Ty::BF16] {
            for rnd in MODES {
                let inf = f64_to_half(f64::INFINITY, ty, rnd);
                assert_eq!(inf, reference(f64::INFINITY, ty, Rounding::Rn), "{rnd:?}");
                assert_eq!(f64_to_half(f64::NEG_INFINITY, ty, rnd), inf | 0x8000);
                let nan = f64_to_half(f64::NAN, ty, rnd);
                assert!(
                    (nan & 0x7fff) > (inf & 0x7fff),
                    "{ty:?} {rnd:?}: {nan:#06x}"
                );
            }
        }
        // Toward zero, a finite value never overflows; toward -inf only a negative one does.
        assert_eq!(f64_to_half(1e6, Ty::F16, Rounding::Rz), 0x7bff);
        assert_eq!(f64_to_half(-1e6, Ty::F16, Rounding::Rp), 0xfbff);
        assert_eq!(f64_to_half(-1e6, Ty::F16, Rounding::Rm), 0xfc00);
        assert_eq!(f64_to_half(1e39, Ty::BF16, Rounding::Rz), 0x7f7f);
    }

    #[test]
    fn relu_and_satfinite_finish_a_half() {
        for ty in [Ty::F16, Ty::BF16] {
            let (max, inf) = if ty == Ty::BF16 {
                (half::bf16::MAX.to_bits(), half::bf16::INFINITY.to_bits())
            } else {
                (half::f16::MAX.to_bits(), half::f16::INFINITY.to_bits())
            };
            for h in 0..=u16::MAX {
                let nan = h & 0x7fff > inf;
                let relu = finish_half(h, ty, true, false);
                let sat = finish_half(h, ty, false, true);
                if nan {
                    assert_eq!((relu, sat), (HALF_CANONICAL_NAN, HALF_CANONICAL_NAN));
                    assert_eq!(finish_half(h, ty, false, false), h);
                    continue;
                }
                assert_eq!(relu, if h & 0x8000 != 0 { 0 } else { h }, "{h:#06x}");
                let want = if h & 0x7fff == inf {
                    (h & 0x8000) | max
                } else {
                    h
                };
                assert_eq!(sat, want, "{h:#06x}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_float_rounds_into_halves_like_the_reference(x: f64, y: f32) {
            for ty in [Ty::F16, Ty::BF16] {
                for rnd in MODES {
                    for v in [x, y as f64, x * 1e-300, (y as f64) * 2f64.powi(-120)] {
                        if v.is_nan() {
                            continue;
                        }
                        proptest::prop_assert_eq!(f64_to_half(v, ty, rnd), reference(v, ty, rnd));
                    }
                }
            }
        }
    }

    #[test]
    fn half_round_trips() {
        for v in [0.0f32, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
    }
}
