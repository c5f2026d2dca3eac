//! How numbers look: buffer elements as text and as JSON.
//!
//! A buffer knows its element type, so its integers stay exact integers (a u64 is not squeezed
//! through f64). As text (for people) an f32 shows its own shortest form (`0.1`). As JSON (for
//! scripts) every float is the shortest decimal that reads back as the same *double*
//! (`0.10000000149011612` for 0.1f32): JSON readers in every language parse numbers as doubles,
//! so that is the only form an exact comparison outside gpuzzle can rely on.

use crate::emu::value::{Buffer, ElemType};
use serde_json::Value;

/// One buffer element, decoded exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Elem {
    Int(i64),
    UInt(u64),
    F32(f32),
    F64(f64),
}

impl Elem {
    pub(crate) fn text(self) -> String {
        match self {
            Elem::Int(v) => v.to_string(),
            Elem::UInt(v) => v.to_string(),
            Elem::F32(v) => format!("{v:?}"),
            Elem::F64(v) => format!("{v:?}"),
        }
    }

    /// Integers as JSON integers, floats as JSON floats exact as doubles (an f32 is widened,
    /// which is exact), NaN and infinities as null (JSON has no way to write them).
    pub(crate) fn json(self) -> Value {
        match self {
            Elem::Int(v) => Value::from(v),
            Elem::UInt(v) => Value::from(v),
            Elem::F32(v) => exact_json(f64::from(v)),
            Elem::F64(v) => exact_json(v),
        }
    }

    /// Writes exactly what `serde_json` writes for [`Elem::json`], without building a `Value`
    /// (for output that streams millions of elements).
    pub(crate) fn write_json<W: std::io::Write>(self, w: &mut W) -> serde_json::Result<()> {
        match self {
            Elem::Int(v) => serde_json::to_writer(w, &v),
            Elem::UInt(v) => serde_json::to_writer(w, &v),
            // serde_json writes a non-finite f64 as `null`, as `exact_json` makes it.
            Elem::F32(v) => serde_json::to_writer(w, &f64::from(v)),
            Elem::F64(v) => serde_json::to_writer(w, &v),
        }
    }
}

/// The elements of a buffer (a trailing partial element, which a well-formed buffer never has, is ignored).
pub(crate) fn elements(b: &Buffer) -> Vec<Elem> {
    each_element(b).collect()
}

/// The elements of a buffer one at a time, for output that streams a large buffer.
pub(crate) fn each_element(b: &Buffer) -> impl ExactSizeIterator<Item = Elem> + '_ {
    b.data.chunks_exact(b.ty.size()).map(|c| decode(b.ty, c))
}

/// How many elements a buffer holds (as `each_element` yields them).
pub(crate) fn element_count(b: &Buffer) -> usize {
    b.data.len() / b.ty.size()
}

/// The elements `range` of a buffer (within `element_count`), one at a time.
pub(crate) fn elements_in(
    b: &Buffer,
    range: std::ops::Range<usize>,
) -> impl Iterator<Item = Elem> + '_ {
    let size = b.ty.size();
    b.data[range.start * size..range.end * size]
        .chunks_exact(size)
        .map(move |c| decode(b.ty, c))
}

fn decode(ty: ElemType, c: &[u8]) -> Elem {
    let mut w = [0u8; 8];
    w[..c.len()].copy_from_slice(c);
    let bits = u64::from_le_bytes(w);
    match ty {
        ElemType::I8 => Elem::Int(bits as u8 as i8 as i64),
        ElemType::I16 => Elem::Int(bits as u16 as i16 as i64),
        ElemType::I32 => Elem::Int(bits as u32 as i32 as i64),
        ElemType::I64 => Elem::Int(bits as i64),
        ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => Elem::UInt(bits),
        // Every half and bfloat16 is an f32 exactly, and prints as one.
        ElemType::F16 | ElemType::Bf16 => Elem::F32(ty.decode(c) as f32),
        ElemType::F32 => Elem::F32(f32::from_bits(bits as u32)),
        ElemType::F64 => Elem::F64(f64::from_bits(bits)),
    }
}

/// A float as JSON: the shortest decimal that reads back as the same double (serde_json writes
/// it with ryu), or null for NaN and infinities. Also for the judge's compared values, which are
/// doubles (an f32 output widened exactly).
pub(crate) fn exact_json(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn exact_in_f32(v: f64) -> bool {
    (v as f32) as f64 == v
}

/// How to write a column of compared values: as integers when every value is one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Style {
    Integers,
    Floats,
}

impl Style {
    pub(crate) fn of<'a>(values: impl IntoIterator<Item = &'a f64>) -> Style {
        // 2^53: beyond it an f64 no longer tells integers apart, and `as i64` would mislead.
        let integral = |v: f64| v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0;
        if values.into_iter().all(|&v| integral(v)) {
            Style::Integers
        } else {
            Style::Floats
        }
    }

    pub(crate) fn text(self, v: f64) -> String {
        match self {
            Style::Integers => format!("{}", v as i64),
            Style::Floats if exact_in_f32(v) => format!("{:?}", v as f32),
            Style::Floats => format!("{v:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_buffers_stay_exact_integers() {
        let mut b = Buffer::zeros("x", ElemType::U64, 1);
        b.data.copy_from_slice(&u64::MAX.to_le_bytes());
        let e = elements(&b);
        assert_eq!(e, vec![Elem::UInt(u64::MAX)]);
        assert_eq!(e[0].text(), "18446744073709551615");
        assert_eq!(e[0].json(), serde_json::json!(u64::MAX));

        let b = Buffer::from_values("y", ElemType::I8, &[-3.0]);
        assert_eq!(elements(&b)[0].json(), serde_json::json!(-3));
        assert!(elements(&b)[0].json().is_i64());
    }

    #[test]
    fn floats_read_short_as_text_exact_as_json_and_non_finite_is_null() {
        let b = Buffer::from_values("f", ElemType::F32, &[0.1, 3.0, f64::NAN, f64::INFINITY]);
        let e = elements(&b);
        assert_eq!(e[0].text(), "0.1");
        assert_eq!(e[1].text(), "3.0");
        assert_eq!(e[0].json(), serde_json::json!(0.10000000149011612));
        assert!(e[1].json().is_f64());
        assert_eq!(e[2].json(), Value::Null);
        assert_eq!(e[3].json(), Value::Null);
        assert_eq!(e[2].text(), "NaN");
    }

    /// What a JSON reader in another language does: parse the number as a double. It must be
    /// the f32 widened, bit for bit, for every kind of f32 (subnormal, huge, negative zero...).
    #[test]
    fn every_f32_reads_back_bit_exact_as_a_double() {
        let mut samples: Vec<f32> = vec![
            -2.612_192_2,
            0.1,
            1.0 / 3.0,
            -0.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            f32::MIN,
            f32::EPSILON,
            16_777_217.0,
        ];
        // A spread over the whole bit range, both signs.
        samples.extend((0..4096u32).map(|i| f32::from_bits(i.wrapping_mul(0x9E37_79B9) | 1)));
        for v in samples.into_iter().filter(|v| v.is_finite()) {
            for text in [
                Elem::F32(v).json().to_string(),
                String::from_utf8(streamed(Elem::F32(v))).unwrap_or_default(),
            ] {
                let back: f64 = text.parse().unwrap_or(f64::NAN);
                assert_eq!(
                    back.to_bits(),
                    f64::from(v).to_bits(),
                    "{v:e} written {text}"
                );
            }
        }
        assert_eq!(
            Elem::F32(-2.612_192_2).json().to_string(),
            "-2.612192153930664"
        );
    }

    fn streamed(e: Elem) -> Vec<u8> {
        let mut out = Vec::new();
        e.write_json(&mut out).unwrap_or_else(|err| panic!("{err}"));
        out
    }

    #[test]
    fn streamed_elements_are_the_built_ones_byte_for_byte() {
        let all = [
            Elem::Int(-7),
            Elem::Int(i64::MIN),
            Elem::UInt(u64::MAX),
            Elem::F32(0.1),
            Elem::F32(3.0),
            Elem::F32(f32::NAN),
            Elem::F32(f32::NEG_INFINITY),
            Elem::F64(0.25),
            Elem::F64(f64::NAN),
            Elem::F64(1e300),
        ];
        for e in all {
            assert_eq!(streamed(e), e.json().to_string().into_bytes(), "{e:?}");
        }
    }

    #[test]
    fn compared_values_pick_one_style_per_column() {
        assert_eq!(Style::of(&[1.0, 2.0]), Style::Integers);
        assert_eq!(Style::of(&[1.0, 2.5]), Style::Floats);
        assert_eq!(Style::of(&[f64::NAN]), Style::Floats);
        assert_eq!(Style::Integers.text(-7.0), "-7");
        assert_eq!(Style::Floats.text(0.1f32 as f64), "0.1");
        assert_eq!(Style::Floats.text(0.1), "0.1");
        assert_eq!(Style::Floats.text(2.0), "2.0");
        assert_eq!(
            exact_json(0.1f32 as f64),
            serde_json::json!(0.10000000149011612)
        );
        assert_eq!(exact_json(0.1), serde_json::json!(0.1));
        assert_eq!(exact_json(f64::NEG_INFINITY), Value::Null);
    }
}
