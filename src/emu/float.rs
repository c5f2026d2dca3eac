//! Float semantics PTX needs beyond Rust's defaults: directed rounding, flush-to-zero,
//! saturation, minNum/maxNum, and float→integer conversion rules.

use crate::ptx::ir::Rounding;

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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn half_round_trips() {
        for v in [0.0f32, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
    }
}
