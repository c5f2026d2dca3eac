//! Deterministic small random integers for test inputs.
//!
//! Small integers keep float32 results exact (sums and products of values in [-9, 9] stay far
//! below 2^24 for every puzzle size), so the spec and any correct kernel agree bit for bit
//! whatever order they add in. splitmix64 is tiny, well studied and platform-independent: the
//! same seed gives the same data on every machine and in every version.

use crate::emu::value::ElemType;

pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// FNV-1a of the buffer name: two buffers of one test get different data from one seed.
pub(super) fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// `len` integers, uniform in [-9, 9] (in [0, 9] for unsigned types), from `seed` and the
/// buffer's name.
pub(crate) fn small_integers(seed: u64, buffer: &str, ty: ElemType, len: usize) -> Vec<f64> {
    let unsigned = matches!(
        ty,
        ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64
    );
    let mut rng = SplitMix64(seed ^ fnv1a(buffer));
    (0..len)
        .map(|_| {
            let r = rng.next_u64();
            if unsigned {
                (r % 10) as f64
            } else {
                (r % 19) as f64 - 9.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // First outputs of splitmix64 seeded with 0 (Vigna's reference implementation).
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn values_are_small_integers_and_cover_the_range() {
        let v = small_integers(42, "a", ElemType::F32, 2000);
        assert!(v
            .iter()
            .all(|x| x.fract() == 0.0 && (-9.0..=9.0).contains(x)));
        assert!(v.contains(&-9.0) && v.contains(&9.0) && v.contains(&0.0));
        let u = small_integers(42, "a", ElemType::U32, 2000);
        assert!(u.iter().all(|x| (0.0..=9.0).contains(x)));
    }

    #[test]
    fn seed_and_name_both_matter() {
        let a = small_integers(1, "a", ElemType::F32, 16);
        assert_eq!(a, small_integers(1, "a", ElemType::F32, 16));
        assert_ne!(a, small_integers(2, "a", ElemType::F32, 16));
        assert_ne!(a, small_integers(1, "b", ElemType::F32, 16));
    }
}
