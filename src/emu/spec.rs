//! Kernel arguments written as text, as `gpuzzle exec --arg NAME=SPEC` takes them:
//! a scalar `TYPE:VALUE`, a buffer `TYPE[LEN]:INIT`, or a struct `{TYPE:VALUE,...}`.

use super::value::{Buffer, ElemType, KernelArg, Scalar};
use std::path::Path;

/// Parse `NAME=SPEC`. `base_dir` resolves `json=PATH`.
pub fn parse_arg(text: &str, base_dir: &Path) -> Result<KernelArg, String> {
    let Some((name, spec)) = text.split_once('=') else {
        return Err(format!(
            "`{text}`: write NAME=SPEC, e.g. out=f32[8]:zeros, a=f32[8]:arange or size=i32:8"
        ));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{text}`: the argument needs a name before `=`"));
    }
    parse_spec(name, spec.trim(), base_dir).map_err(|e| format!("--arg {text}: {e}"))
}

fn parse_spec(name: &str, spec: &str, base_dir: &Path) -> Result<KernelArg, String> {
    if let Some(inner) = spec.strip_prefix('{') {
        let inner = inner
            .strip_suffix('}')
            .ok_or("a struct must end with `}`")?;
        let fields = inner
            .split(',')
            .map(|f| parse_scalar(f.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        if fields.is_empty() {
            return Err("a struct needs at least one field".into());
        }
        return Ok(KernelArg::struct_of(fields));
    }
    if let Some(open) = spec.find('[') {
        let ty: ElemType = spec[..open].parse()?;
        let close = spec
            .find(']')
            .ok_or("missing `]` after the buffer length")?;
        let len: usize = spec[open + 1..close]
            .trim()
            .parse()
            .map_err(|_| format!("buffer length `{}` is not a number", &spec[open + 1..close]))?;
        if len == 0 || len > 1 << 28 {
            return Err(format!("buffer length {len} must be between 1 and 2^28"));
        }
        let init = spec[close + 1..]
            .strip_prefix(':')
            .ok_or("write TYPE[LEN]:INIT, e.g. f32[8]:zeros")?;
        let values = init_values(init, ty, len, base_dir)?;
        return Ok(KernelArg::Buffer(Buffer::from_values(name, ty, &values)));
    }
    Ok(KernelArg::Scalar(parse_scalar(spec)?))
}

fn parse_scalar(s: &str) -> Result<Scalar, String> {
    let (ty, v) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}`: write TYPE:VALUE, e.g. i32:8 or f32:0.5"))?;
    let ty: ElemType = ty.trim().parse()?;
    let v = v.trim();
    let value = if ty.is_float() {
        v.parse::<f64>()
            .map_err(|_| format!("`{v}` is not a number"))?
    } else {
        let n = parse_int(v).ok_or_else(|| format!("`{v}` is not an integer"))?;
        let (lo, hi) = int_range(ty);
        if n < lo || n > hi {
            return Err(format!("{n} does not fit in {ty}"));
        }
        n as f64
    };
    if !ty.is_float() {
        // Encode exactly, even for 64-bit values beyond f64's integers.
        let n = parse_int(v).unwrap_or(0);
        return Ok(Scalar {
            ty,
            bits: (n as u64) & mask(ty),
        });
    }
    Ok(Scalar::from_f64(ty, value))
}

fn mask(ty: ElemType) -> u64 {
    if ty.size() == 8 {
        u64::MAX
    } else {
        (1u64 << (ty.size() * 8)) - 1
    }
}

fn parse_int(v: &str) -> Option<i128> {
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v),
    };
    let n = if let Some(h) = digits.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()?
    } else {
        digits.parse::<i128>().ok()?
    };
    Some(if neg { -n } else { n })
}

fn int_range(ty: ElemType) -> (i128, i128) {
    let bits = ty.size() as u32 * 8;
    match ty {
        ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64 => {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        }
        _ => (0, (1i128 << bits) - 1),
    }
}

/// Values for a buffer initialiser: zeros, ones, arange, fill=V, rand=SEED, json=PATH.
pub fn init_values(
    init: &str,
    ty: ElemType,
    len: usize,
    base_dir: &Path,
) -> Result<Vec<f64>, String> {
    Ok(match init {
        "zeros" => vec![0.0; len],
        "ones" => vec![1.0; len],
        "arange" => (0..len).map(|i| i as f64).collect(),
        _ => {
            if let Some(v) = init.strip_prefix("fill=") {
                vec![
                    v.parse::<f64>()
                        .map_err(|_| format!("fill value `{v}` is not a number"))?;
                    len
                ]
            } else if let Some(seed) = init.strip_prefix("rand=") {
                let seed: u64 = seed
                    .parse()
                    .map_err(|_| format!("rand seed `{seed}` is not a whole number"))?;
                random_values(ty, len, seed)
            } else if let Some(path) = init.strip_prefix("json=") {
                let p = base_dir.join(path);
                let text = std::fs::read_to_string(&p)
                    .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                let v: Vec<f64> = serde_json::from_str(&text).map_err(|e| {
                    format!("{}: expected a JSON array of numbers: {e}", p.display())
                })?;
                if v.len() != len {
                    return Err(format!(
                        "{} holds {} numbers, but the buffer has {len} elements",
                        p.display(),
                        v.len()
                    ));
                }
                v
            } else {
                return Err(format!("unknown initialiser `{init}` (use zeros, ones, arange, fill=V, rand=SEED or json=PATH)"));
            }
        }
    })
}

/// Seeded random values: floats uniform in [-1, 1), integers uniform in [0, 100).
pub fn random_values(ty: ElemType, len: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            let r = splitmix64(&mut state);
            if ty.is_float() {
                (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            } else {
                (r % 100) as f64
            }
        })
        .collect()
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(s: &str) -> Result<KernelArg, String> {
        parse_arg(s, Path::new("."))
    }

    #[test]
    fn parses_scalars_buffers_and_structs() {
        assert_eq!(
            arg("size=i32:8").unwrap(),
            KernelArg::Scalar(Scalar {
                ty: ElemType::I32,
                bits: 8
            })
        );
        assert_eq!(
            arg("n=i32:-1").unwrap(),
            KernelArg::Scalar(Scalar {
                ty: ElemType::I32,
                bits: 0xffff_ffff
            })
        );
        let KernelArg::Buffer(b) = arg("a=f32[4]:arange").unwrap() else {
            panic!()
        };
        assert_eq!(
            (b.name.as_str(), b.values()),
            ("a", vec![0.0, 1.0, 2.0, 3.0])
        );
        let KernelArg::Buffer(b) = arg("x=u8[3]:fill=7").unwrap() else {
            panic!()
        };
        assert_eq!(b.values(), vec![7.0; 3]);
        let KernelArg::Struct { bytes, .. } = arg("p={f32:0.5,f32:-0.25,i32:1}").unwrap() else {
            panic!()
        };
        assert_eq!(bytes.len(), 12);
        let KernelArg::Buffer(r1) = arg("r=f32[16]:rand=3").unwrap() else {
            panic!()
        };
        let KernelArg::Buffer(r2) = arg("r=f32[16]:rand=3").unwrap() else {
            panic!()
        };
        assert_eq!(r1, r2);
        assert!(r1.values().iter().all(|v| (-1.0..1.0).contains(v)));
    }

    #[test]
    fn bad_specs_say_what_to_write() {
        for bad in [
            "x",
            "=i32:1",
            "a=f32[0]:zeros",
            "a=f32[4]:sideways",
            "a=q32:1",
            "a=i8:300",
            "a=f32[4",
            "s={f32:1",
            "a=i32:x",
        ] {
            let e = arg(bad).unwrap_err();
            assert!(!e.is_empty(), "{bad}");
        }
        assert!(arg("a=f32[4]:json=/nonexistent.json")
            .unwrap_err()
            .contains("cannot read"));
    }
}
