//! Input generators that do not forgive: data a puzzle names in a buffer's `init` so that a
//! kernel relying on kind inputs (small values, sorted rows, no extremes) fails.
//!
//! Each generator is deterministic from its seed and the buffer's name (as `random`), works
//! row by row where the buffer has a `shape` (a 1D buffer is one row), and keeps its kind in
//! the random-input variant (`TestCase::values` draws it again from that variant's seed):
//!
//! - `full-range` (integer buffers): the type's whole range, with its extremes (`INT_MIN`,
//!   `INT_MAX`, 0, -1) always present and a few values repeated (duplicates).
//! - `large` (float buffers): whole numbers in [-1000, 1000], so `exp` of one overflows a float
//!   (`expf(89)` already does) and a row's values lie hundreds apart.
//! - `max-not-last` (float buffers): `large` rows whose maximum is never the last element, and
//!   whose last element lies at least 100 below the maximum: subtracting the last element
//!   instead of the maximum overflows `exp`. Every third row (the second of each three) is
//!   moved down whole, its maximum 100 to 199 below 0: a maximum started at 0 is wrong there.
//! - `offset` (`float`/`double` buffers): each row a large offset (1000 to 4000, either sign)
//!   plus a small spread (multiples of 1/8 within 1 of it): a large mean and a variance near
//!   0.35, where E[x^2] - E[x]^2 cancels. A row's `float` sum stays exact up to 512 elements.
//! - `spike` (float buffers): `large` rows with one isolated maximum, 100 to 199 above every
//!   other element, in quarter `r % 4` of row `r` (never the last element): a maximum taken
//!   over part of a row (one warp's share, a sample) misses it in some row, and `exp` of the
//!   gap overflows a float. Every third row moved below 0 as in `max-not-last`.
//! - `fractional` (`float`/`double` buffers): multiples of 1/4096 in [-4, 4): 14 significant
//!   bits, more than a `__half` holds (11), so a kernel that keeps the data in halves to save
//!   space rounds it, while a product with a small whole number and a sum of a few hundred of
//!   them stay exact in `float` (whatever the order).

use super::random::{fnv1a, SplitMix64};
use crate::emu::value::ElemType;

/// A named generator (see the module's list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    FullRange,
    Large,
    MaxNotLast,
    Offset,
    Spike,
    Fractional,
}

impl Generator {
    pub const ALL: [Generator; 6] = [
        Generator::FullRange,
        Generator::Large,
        Generator::MaxNotLast,
        Generator::Offset,
        Generator::Spike,
        Generator::Fractional,
    ];

    /// The `init` name.
    pub fn name(self) -> &'static str {
        match self {
            Generator::FullRange => "full-range",
            Generator::Large => "large",
            Generator::MaxNotLast => "max-not-last",
            Generator::Offset => "offset",
            Generator::Spike => "spike",
            Generator::Fractional => "fractional",
        }
    }

    pub fn from_name(name: &str) -> Option<Generator> {
        Generator::ALL.into_iter().find(|g| g.name() == name)
    }

    /// Why this generator cannot fill a buffer of `ty` (None when it can).
    pub fn refuses(self, ty: ElemType) -> Option<&'static str> {
        match self {
            Generator::FullRange if ty.is_float() => Some(
                "\"full-range\" fills integer buffers; for floats use \"large\", \"max-not-last\", \"spike\" or \"offset\"",
            ),
            Generator::Large | Generator::MaxNotLast | Generator::Spike if !ty.is_float() => {
                Some("this generator fills float buffers; for integers use \"full-range\"")
            }
            Generator::Offset if !matches!(ty, ElemType::F32 | ElemType::F64) => Some(
                "\"offset\" fills float or double buffers (a half cannot hold 4000 + 1/8)",
            ),
            Generator::Fractional if !matches!(ty, ElemType::F32 | ElemType::F64) => Some(
                "\"fractional\" fills float or double buffers (a half cannot hold 14 significant bits)",
            ),
            _ => None,
        }
    }

    /// `len` values for buffer `buffer` of `ty`, rows of `cols` (the whole buffer when None).
    pub fn values(
        self,
        seed: u64,
        buffer: &str,
        ty: ElemType,
        len: usize,
        cols: Option<usize>,
    ) -> Vec<f64> {
        let mut rng = SplitMix64(seed ^ fnv1a(buffer) ^ fnv1a(self.name()));
        let cols = cols.filter(|&c| c > 0).unwrap_or(len.max(1));
        match self {
            Generator::FullRange => full_range(&mut rng, ty, len),
            Generator::Large => (0..len).map(|_| large(&mut rng)).collect(),
            Generator::MaxNotLast => {
                let mut v = Vec::with_capacity(len);
                let mut row = 0;
                while v.len() < len {
                    let n = cols.min(len - v.len());
                    let mut r = max_not_last_row(&mut rng, n);
                    below_zero_every_third(&mut rng, &mut r, row);
                    v.extend(r);
                    row += 1;
                }
                v
            }
            Generator::Spike => {
                let mut v = Vec::with_capacity(len);
                let mut row = 0;
                while v.len() < len {
                    let n = cols.min(len - v.len());
                    let mut r = spike_row(&mut rng, n, row % 4);
                    below_zero_every_third(&mut rng, &mut r, row);
                    v.extend(r);
                    row += 1;
                }
                v
            }
            Generator::Fractional => (0..len)
                .map(|_| ((rng.next_u64() % 32768) as f64 - 16384.0) / 4096.0)
                .collect(),
            Generator::Offset => {
                let mut v = Vec::with_capacity(len);
                while v.len() < len {
                    let n = cols.min(len - v.len());
                    let step = 1000.0 + 500.0 * (rng.next_u64() % 7) as f64;
                    let offset = if rng.next_u64() & 1 == 0 { step } else { -step };
                    v.extend((0..n).map(|_| offset + ((rng.next_u64() % 17) as f64 - 8.0) / 8.0));
                }
                v
            }
        }
    }
}

/// Row `row` moved down, when it is the second of each three, so that its maximum lies 100 to
/// 199 below 0: a running maximum started at 0 instead of the first element (or -FLT_MAX)
/// never moves there, and `exp` of the row's values from it underflows to 0.
fn below_zero_every_third(rng: &mut SplitMix64, r: &mut [f64], row: usize) {
    if row % 3 != 1 || r.is_empty() {
        return;
    }
    let max = r.iter().copied().fold(f64::MIN, f64::max);
    let down = max + 100.0 + (rng.next_u64() % 100) as f64;
    for x in r.iter_mut() {
        *x -= down;
    }
}

/// A whole number in [-1000, 1000].
fn large(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() % 2001) as f64 - 1000.0
}

/// One row of `n` `large` values, its maximum moved off the last place and the last element
/// put at least 100 below it.
fn max_not_last_row(rng: &mut SplitMix64, n: usize) -> Vec<f64> {
    let mut row: Vec<f64> = (0..n).map(|_| large(rng)).collect();
    if n < 2 {
        return row;
    }
    // The first of the largest: where the maximum is now.
    let top = (0..n).fold(0, |best, i| if row[i] > row[best] { i } else { best });
    let max = row[top];
    let to = (rng.next_u64() % (n as u64 - 1)) as usize;
    row.swap(top, to);
    let last = n - 1;
    if row[last] > max - 100.0 {
        row[last] = max - 100.0 - (rng.next_u64() % 100) as f64;
    }
    row
}

/// One row of `n` `large` values with one maximum 100 to 199 above all the others, at a place
/// in quarter `quarter` (0 to 3) of the row, never the last element (rows of 1: the one value).
fn spike_row(rng: &mut SplitMix64, n: usize, quarter: usize) -> Vec<f64> {
    let mut row: Vec<f64> = (0..n).map(|_| large(rng)).collect();
    if n < 2 {
        return row;
    }
    // The quarter's places, the last element left out.
    let (lo, hi) = (quarter * n / 4, ((quarter + 1) * n / 4).min(n - 1));
    let at = if hi > lo {
        lo + (rng.next_u64() % (hi - lo) as u64) as usize
    } else {
        (rng.next_u64() % (n as u64 - 1)) as usize
    };
    let others = (0..n)
        .filter(|&i| i != at)
        .fold(f64::MIN, |m, i| m.max(row[i]));
    row[at] = others + 100.0 + (rng.next_u64() % 100) as f64;
    row
}

/// The smallest and largest value of integer type `ty`, as f64 (64-bit extremes rounded as
/// f64 holds them; encoding saturates them back to the type's own).
fn int_range(ty: ElemType) -> (f64, f64) {
    match ty {
        ElemType::I8 => (i8::MIN as f64, i8::MAX as f64),
        ElemType::I16 => (i16::MIN as f64, i16::MAX as f64),
        ElemType::I32 => (i32::MIN as f64, i32::MAX as f64),
        ElemType::I64 => (i64::MIN as f64, i64::MAX as f64),
        ElemType::U8 => (0.0, u8::MAX as f64),
        ElemType::U16 => (0.0, u16::MAX as f64),
        ElemType::U32 => (0.0, u32::MAX as f64),
        ElemType::U64 => (0.0, u64::MAX as f64),
        // Floats are refused by `refuses`; give the float's exact-integer range anyway.
        _ => (-16_777_216.0, 16_777_216.0),
    }
}

fn full_range(rng: &mut SplitMix64, ty: ElemType, len: usize) -> Vec<f64> {
    let (lo, hi) = int_range(ty);
    let unsigned = lo == 0.0;
    let uniform = |r: u64| -> f64 {
        match ty {
            ElemType::I64 => r as i64 as f64,
            ElemType::U64 => r as f64,
            // Spans up to 2^32: exact in u64 and in f64.
            _ => lo + (r % ((hi - lo) as u64 + 1)) as f64,
        }
    };
    let extremes = [lo, hi, 0.0, if unsigned { 1.0 } else { -1.0 }, lo + 1.0];
    let pool: Vec<f64> = (0..4).map(|_| uniform(rng.next_u64())).collect();
    let mut v: Vec<f64> = (0..len)
        .map(|_| {
            let r = rng.next_u64();
            match r % 16 {
                0..=2 => extremes[(r >> 8) as usize % extremes.len()],
                3..=6 => pool[(r >> 8) as usize % pool.len()],
                _ => uniform(rng.next_u64()),
            }
        })
        .collect();
    // The minimum and the maximum always appear (a small buffer might miss them).
    if len >= 2 {
        let a = (rng.next_u64() % len as u64) as usize;
        let b = (a + 1 + (rng.next_u64() % (len as u64 - 1)) as usize) % len;
        v[a] = lo;
        v[b] = hi;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spike_rows_have_one_isolated_maximum_in_each_quarter_in_turn() {
        let (rows, cols) = (8, 40);
        let v = Generator::Spike.values(5, "x", ElemType::F32, rows * cols, Some(cols));
        for (r, row) in v.chunks(cols).enumerate() {
            let at = (0..cols).fold(0, |b, i| if row[i] > row[b] { i } else { b });
            let second = (0..cols)
                .filter(|&i| i != at)
                .fold(f64::MIN, |m, i| m.max(row[i]));
            assert!(row[at] - second >= 100.0, "row {r}: {row:?}");
            assert_eq!(at * 4 / cols, r % 4, "row {r}: the spike at {at}");
            assert!(at < cols - 1);
            assert!(row.iter().all(|x| x.fract() == 0.0));
            // The second row of each three lies wholly below 0, its maximum 100 to 199 down.
            if r % 3 == 1 {
                assert!((-199.0..=-100.0).contains(&row[at]), "row {r}: {row:?}");
            }
        }
        // Deterministic, and refused for integers.
        assert_eq!(
            v,
            Generator::Spike.values(5, "x", ElemType::F32, rows * cols, Some(cols))
        );
        assert!(Generator::Spike.refuses(ElemType::I32).is_some());
        assert_eq!(Generator::from_name("spike"), Some(Generator::Spike));
    }

    #[test]
    fn full_range_has_both_extremes_duplicates_and_wide_values() {
        let v = Generator::FullRange.values(7, "a", ElemType::I32, 64, None);
        assert!(v.contains(&(i32::MIN as f64)) && v.contains(&(i32::MAX as f64)));
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.dedup();
        assert!(sorted.len() < v.len(), "no duplicates: {v:?}");
        // A 32-bin counting sort assumes values in [0, 32): most are far outside.
        assert!(v.iter().filter(|x| !(0.0..32.0).contains(*x)).count() > 40);
        assert!(v.iter().all(|x| x.fract() == 0.0));
        let u = Generator::FullRange.values(7, "a", ElemType::U32, 8, None);
        assert!(u.contains(&0.0) && u.contains(&(u32::MAX as f64)));
        // Even two elements hold both ends.
        let two = Generator::FullRange.values(3, "k", ElemType::I8, 2, None);
        assert!(two.contains(&-128.0) && two.contains(&127.0), "{two:?}");
    }

    #[test]
    fn large_values_overflow_exp_and_stay_whole() {
        let v = Generator::Large.values(1, "x", ElemType::F32, 500, None);
        assert!(v.iter().all(|x| x.fract() == 0.0 && x.abs() <= 1000.0));
        assert!(v.iter().any(|&x| (x as f32).exp().is_infinite()));
        assert!(v.iter().any(|&x| x < -500.0));
    }

    #[test]
    fn max_not_last_rows_keep_their_maximum_off_the_end() {
        for seed in 0..50 {
            let v = Generator::MaxNotLast.values(seed, "s", ElemType::F32, 6 * 7, Some(7));
            for row in v.chunks(7) {
                let max = row.iter().copied().fold(f64::MIN, f64::max);
                let last = row[6];
                assert!(last <= max - 100.0, "seed {seed}: {row:?}");
                // Subtracting the last element instead of the maximum overflows exp.
                assert!(((max - last) as f32).exp().is_infinite());
            }
            // Row 1 of each three: every value below -100, so a maximum started at 0 stays 0
            // and every exp(x - 0) underflows.
            let second = &v[7..14];
            assert!(second
                .iter()
                .all(|&x| x <= -100.0 && (x as f32).exp() < 1e-40));
        }
        // A 1D buffer is one row.
        let v = Generator::MaxNotLast.values(4, "s", ElemType::F32, 33, None);
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        assert!(v[32] <= max - 100.0);
    }

    #[test]
    fn offset_rows_have_a_large_mean_a_small_spread_and_exact_float_sums() {
        let v = Generator::Offset.values(9, "x", ElemType::F32, 4 * 256, Some(256));
        for row in v.chunks(256) {
            let mean = row.iter().sum::<f64>() / 256.0;
            assert!(mean.abs() >= 999.0 && mean.abs() <= 4001.0, "{mean}");
            assert!(row.iter().all(|x| (x - mean).abs() <= 2.0));
            // Every element a multiple of 1/8 below 2^12: float sums of 256 stay exact.
            let mut f = 0.0f32;
            for &x in row {
                assert_eq!((x as f32) as f64, x);
                f += x as f32;
            }
            assert_eq!(f as f64, row.iter().sum::<f64>());
        }
    }

    #[test]
    fn fractional_values_do_not_fit_a_half_and_their_products_sum_exactly_in_float() {
        let v = Generator::Fractional.values(5, "k", ElemType::F32, 4096, Some(64));
        assert!(v
            .iter()
            .all(|x| (-4.0..4.0).contains(x) && (x * 4096.0).fract() == 0.0));
        // Most values need more bits than a half's 11: rounded through f16, they change.
        let changed = v
            .iter()
            .filter(|&&x| half::f16::from_f64(x).to_f64() != x)
            .count();
        assert!(changed > v.len() / 2, "{changed}");
        // 64 products with whole numbers up to 9, summed in float in two orders: exact.
        for row in v.chunks(64) {
            let w = |i: usize| (i % 19) as f32 - 9.0;
            let fwd = row
                .iter()
                .enumerate()
                .fold(0.0f32, |s, (i, &x)| s + w(i) * x as f32);
            let back =
                (row.iter().enumerate().rev()).fold(0.0f32, |s, (i, &x)| s + w(i) * x as f32);
            assert_eq!(fwd, back);
        }
        assert!(Generator::Fractional.refuses(ElemType::F16).is_some());
    }

    #[test]
    fn kinds_refuse_the_wrong_element_type() {
        assert!(Generator::FullRange.refuses(ElemType::F32).is_some());
        assert!(Generator::FullRange.refuses(ElemType::U8).is_none());
        assert!(Generator::Large.refuses(ElemType::I32).is_some());
        assert!(Generator::Offset.refuses(ElemType::F16).is_some());
        assert!(Generator::MaxNotLast.refuses(ElemType::F16).is_none());
        for g in Generator::ALL {
            assert_eq!(Generator::from_name(g.name()), Some(g));
        }
    }

    #[test]
    fn seed_and_name_both_matter() {
        for g in [Generator::Large, Generator::MaxNotLast, Generator::Offset] {
            let a = g.values(1, "a", ElemType::F32, 16, Some(8));
            assert_eq!(a, g.values(1, "a", ElemType::F32, 16, Some(8)));
            assert_ne!(a, g.values(2, "a", ElemType::F32, 16, Some(8)));
            assert_ne!(a, g.values(1, "b", ElemType::F32, 16, Some(8)));
        }
    }
}
