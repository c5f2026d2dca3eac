//! Element types, scalars and buffers: the values a kernel launch takes and gives back.

use std::fmt;
use std::str::FromStr;

/// Element type of a scalar argument or of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// IEEE half (`__half`), shown and given as numbers.
    F16,
    /// bfloat16 (`__nv_bfloat16`), shown and given as numbers.
    Bf16,
    F32,
    F64,
}

impl ElemType {
    pub const ALL: [ElemType; 12] = [
        ElemType::I8,
        ElemType::I16,
        ElemType::I32,
        ElemType::I64,
        ElemType::U8,
        ElemType::U16,
        ElemType::U32,
        ElemType::U64,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::F32,
        ElemType::F64,
    ];

    pub fn size(self) -> usize {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F16 | ElemType::Bf16 | ElemType::F32 | ElemType::F64
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            ElemType::I8 => "i8",
            ElemType::I16 => "i16",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::U8 => "u8",
            ElemType::U16 => "u16",
            ElemType::U32 => "u32",
            ElemType::U64 => "u64",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }

    /// The C type a spec or starter would use for this element type.
    pub fn c_name(self) -> &'static str {
        match self {
            ElemType::I8 => "signed char",
            ElemType::I16 => "short",
            ElemType::I32 => "int",
            ElemType::I64 => "long long",
            ElemType::U8 => "unsigned char",
            ElemType::U16 => "unsigned short",
            ElemType::U32 => "unsigned int",
            ElemType::U64 => "unsigned long long",
            ElemType::F16 => "__half",
            ElemType::Bf16 => "__nv_bfloat16",
            ElemType::F32 => "float",
            ElemType::F64 => "double",
        }
    }

    /// The pattern an output element holds before a kernel writes it (low `size()` bytes of
    /// the value). Floats get a quiet NaN with a payload no arithmetic makes (`0x7fc0dead`
    /// for `float`), so a value never written, or computed from one, compares as wrong and
    /// is recognisable bit for bit; integers get `0xdeadbeef` (cut to their width).
    pub fn poison_bits(self) -> u64 {
        match self {
            ElemType::F16 => 0x7ead,
            ElemType::Bf16 => 0x7fde,
            ElemType::F32 => 0x7fc0_dead,
            ElemType::F64 => 0x7ff8_0000_dead_beef,
            _ => 0xdead_beef_dead_beef,
        }
    }

    /// Encode `v` as little-endian bytes of this type (floats round, ints saturate/truncate toward zero).
    pub fn encode(self, v: f64, out: &mut Vec<u8>) {
        match self {
            ElemType::I8 => out.extend_from_slice(&(v as i8).to_le_bytes()),
            ElemType::I16 => out.extend_from_slice(&(v as i16).to_le_bytes()),
            ElemType::I32 => out.extend_from_slice(&(v as i32).to_le_bytes()),
            ElemType::I64 => out.extend_from_slice(&(v as i64).to_le_bytes()),
            ElemType::U8 => out.extend_from_slice(&(v as u8).to_le_bytes()),
            ElemType::U16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
            ElemType::U32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
            ElemType::U64 => out.extend_from_slice(&(v as u64).to_le_bytes()),
            ElemType::F16 => {
                out.extend_from_slice(&super::float::f32_to_f16(v as f32).to_le_bytes())
            }
            ElemType::Bf16 => {
                out.extend_from_slice(&super::float::f32_to_bf16(v as f32).to_le_bytes())
            }
            ElemType::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            ElemType::F64 => out.extend_from_slice(&v.to_le_bytes()),
        }
    }

    /// Decode one element from the start of `b` (which must hold `self.size()` bytes).
    pub fn decode(self, b: &[u8]) -> f64 {
        let mut w = [0u8; 8];
        w[..self.size()].copy_from_slice(&b[..self.size()]);
        let bits = u64::from_le_bytes(w);
        match self {
            ElemType::I8 => bits as u8 as i8 as f64,
            ElemType::I16 => bits as u16 as i16 as f64,
            ElemType::I32 => bits as u32 as i32 as f64,
            ElemType::I64 => bits as i64 as f64,
            ElemType::U8 => bits as u8 as f64,
            ElemType::U16 => bits as u16 as f64,
            ElemType::U32 => bits as u32 as f64,
            ElemType::U64 => bits as f64,
            ElemType::F16 => super::float::f16_to_f32(bits as u16) as f64,
            ElemType::Bf16 => super::float::bf16_to_f32(bits as u16) as f64,
            ElemType::F32 => f32::from_bits(bits as u32) as f64,
            ElemType::F64 => f64::from_bits(bits),
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ElemType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ElemType::ALL
            .iter()
            .copied()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown type `{s}` (expected one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64)"
                )
            })
    }
}

/// A null pointer as an argument: a 64-bit zero, which the launch accepts for a pointer
/// parameter (and only zero: any other scalar for a pointer is refused).
pub fn null_pointer() -> Scalar {
    Scalar {
        ty: ElemType::U64,
        bits: 0,
    }
}

/// A scalar kernel argument: its type and its value's bit pattern (little-endian, zero-extended).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar {
    pub ty: ElemType,
    pub bits: u64,
}

impl Scalar {
    pub fn from_f64(ty: ElemType, v: f64) -> Scalar {
        let mut b = Vec::with_capacity(8);
        ty.encode(v, &mut b);
        b.resize(8, 0);
        let mut w = [0u8; 8];
        w.copy_from_slice(&b);
        Scalar {
            ty,
            bits: u64::from_le_bytes(w),
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        self.bits.to_le_bytes()[..self.ty.size()].to_vec()
    }

    pub fn as_f64(&self) -> f64 {
        self.ty.decode(&self.bits.to_le_bytes())
    }
}

/// A device buffer argument: allocated at exactly `len` elements, so any access outside is out of bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The name learners see in diagnostics (`out[9]`).
    pub name: String,
    pub ty: ElemType,
    /// Raw little-endian contents, `len * ty.size()` bytes.
    pub data: Vec<u8>,
}

impl Buffer {
    pub fn from_values(name: &str, ty: ElemType, values: &[f64]) -> Buffer {
        let mut data = Vec::with_capacity(values.len() * ty.size());
        for &v in values {
            ty.encode(v, &mut data);
        }
        Buffer {
            name: name.to_string(),
            ty,
            data,
        }
    }

    pub fn zeros(name: &str, ty: ElemType, len: usize) -> Buffer {
        Buffer {
            name: name.to_string(),
            ty,
            data: vec![0; len * ty.size()],
        }
    }

    /// A buffer whose every element holds `ty`'s poison (`ElemType::poison_bits`): what
    /// `cudaMalloc`'d memory stands for before the kernel writes it.
    pub fn poisoned(name: &str, ty: ElemType, len: usize) -> Buffer {
        let one = &ty.poison_bits().to_le_bytes()[..ty.size()];
        Buffer {
            name: name.to_string(),
            ty,
            data: one.repeat(len),
        }
    }

    /// Whether element `i` still holds the poison, bit for bit (false past the end).
    pub fn holds_poison(&self, i: usize) -> bool {
        let size = self.ty.size();
        let one = &self.ty.poison_bits().to_le_bytes()[..size];
        self.data.get(i * size..(i + 1) * size) == Some(one)
    }

    pub fn len(&self) -> usize {
        self.data.len() / self.ty.size()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn values(&self) -> Vec<f64> {
        self.data
            .chunks_exact(self.ty.size())
            .map(|c| self.ty.decode(c))
            .collect()
    }
}

/// One kernel argument, in the kernel's parameter order.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    Scalar(Scalar),
    /// A pointer parameter: the emulator allocates the buffer and passes its address.
    Buffer(Buffer),
    /// A struct passed by value: its bytes already laid out with C alignment.
    Struct {
        bytes: Vec<u8>,
        fields: Vec<Scalar>,
    },
}

impl KernelArg {
    /// Lay out scalar fields as a C struct (each field aligned to its size, total padded to the largest).
    pub fn struct_of(fields: Vec<Scalar>) -> KernelArg {
        let mut bytes = Vec::new();
        let mut max_align = 1;
        for f in &fields {
            let a = f.ty.size();
            max_align = max_align.max(a);
            while bytes.len() % a != 0 {
                bytes.push(0);
            }
            bytes.extend_from_slice(&f.bytes());
        }
        while bytes.len() % max_align != 0 {
            bytes.push(0);
        }
        KernelArg::Struct { bytes, fields }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_layout_follows_c_alignment() {
        let s = KernelArg::struct_of(vec![
            Scalar::from_f64(ElemType::U8, 1.0),
            Scalar::from_f64(ElemType::F64, 2.0),
            Scalar::from_f64(ElemType::I32, 3.0),
        ]);
        let KernelArg::Struct { bytes, .. } = s else {
            unreachable!()
        };
        assert_eq!(bytes.len(), 24);
        assert_eq!(bytes[0], 1);
        assert_eq!(f64::from_le_bytes(bytes[8..16].try_into().unwrap()), 2.0);
    }

    #[test]
    fn poison_is_a_quiet_nan_for_floats_and_deadbeef_for_integers() {
        for ty in ElemType::ALL {
            let b = Buffer::poisoned("out", ty, 3);
            assert_eq!(b.len(), 3);
            assert!((0..3).all(|i| b.holds_poison(i)), "{ty}");
            assert!(!b.holds_poison(3));
            if ty.is_float() {
                assert!(b.values().iter().all(|v| v.is_nan()), "{ty}");
            }
        }
        let f = f32::from_bits(0x7fc0_dead);
        assert!(f.is_nan());
        // Quiet: the top mantissa bit is set (a signalling NaN would trap on some hosts).
        assert_ne!(f.to_bits() & 0x0040_0000, 0);
        assert_eq!(
            Buffer::poisoned("a", ElemType::I32, 1).values(),
            vec![0xdeadbeef_u32 as i32 as f64]
        );
        assert_eq!(
            Buffer::poisoned("a", ElemType::U16, 1).values(),
            vec![0xbeef as f64]
        );
        // One element written (to anything, NaN included) is no longer poison.
        let mut b = Buffer::poisoned("out", ElemType::F32, 2);
        b.data[..4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(!b.holds_poison(0) && b.holds_poison(1));
    }

    #[test]
    fn buffer_round_trips_values() {
        for ty in ElemType::ALL {
            let b = Buffer::from_values("x", ty, &[0.0, 1.0, 7.0]);
            assert_eq!(b.len(), 3);
            assert_eq!(b.values(), vec![0.0, 1.0, 7.0], "{ty}");
        }
    }
}
