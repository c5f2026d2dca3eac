//! How numbers look: buffer elements as text and as JSON.
//!
//! A buffer knows its element type, so its integers stay exact integers (a u64 is not squeezed
//! through f64) and an f32 shows its own shortest form (`0.1`, not `0.10000000149011612`).
//! The judge's comparisons carry plain f64s; for those, a value an f32 holds exactly is shown in
//! f32's shortest form, since that is almost always the type it came from.

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

    /// Integers as JSON integers, floats as JSON floats, NaN and infinities as null
    /// (JSON has no way to write them).
    pub(crate) fn json(self) -> Value {
        match self {
            Elem::Int(v) => Value::from(v),
            Elem::UInt(v) => Value::from(v),
            Elem::F32(v) => float_json(f32_as_written(v)),
            Elem::F64(v) => float_json(v),
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

/// An f32 widened to the f64 its shortest decimal form means (0.1f32 → 0.1, not 0.10000000149…).
fn f32_as_written(v: f32) -> f64 {
    format!("{v}").parse().unwrap_or(v as f64)
}

fn float_json(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn exact_in_f32(v: f64) -> bool {
    (v as f32) as f64 == v
}

/// A compared value as JSON: a float, or null for NaN and infinities.
pub(crate) fn loose_json(v: f64) -> Value {
    if exact_in_f32(v) {
        float_json(f32_as_written(v as f32))
    } else {
        float_json(v)
    }
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
    fn floats_keep_their_short_form_and_non_finite_is_null() {
        let b = Buffer::from_values("f", ElemType::F32, &[0.1, 3.0, f64::NAN, f64::INFINITY]);
        let e = elements(&b);
        assert_eq!(e[0].text(), "0.1");
        assert_eq!(e[1].text(), "3.0");
        assert_eq!(e[0].json(), serde_json::json!(0.1));
        assert!(e[1].json().is_f64());
        assert_eq!(e[2].json(), Value::Null);
        assert_eq!(e[3].json(), Value::Null);
        assert_eq!(e[2].text(), "NaN");
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
        assert_eq!(loose_json(0.1f32 as f64), serde_json::json!(0.1));
        assert_eq!(loose_json(f64::NEG_INFINITY), Value::Null);
    }
}
