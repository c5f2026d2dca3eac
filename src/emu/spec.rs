//! Kernel arguments written as text, as `gpuzzle exec --arg NAME=SPEC` takes them:
//! a scalar `TYPE:VALUE`, a buffer `TYPE[LEN]:INIT`, a struct `{TYPE:VALUE,...}`, or `null`,
//! a null pointer (an optional argument a kernel tests, `int* partial_sums = NULL`).

use super::value::{Buffer, ElemType, KernelArg, Scalar};
use std::path::Path;

/// How `--arg` spells a null pointer: `--arg partial_sums=null`.
pub const NULL: &str = "null";

pub use super::value::null_pointer;

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

/// Parse `--symbol NAME=SPEC`: a module variable's value, as for `--arg` (a scalar `TYPE:VALUE`
/// is one element, a buffer `TYPE[LEN]:INIT` an array).
pub fn parse_symbol(text: &str, base_dir: &Path) -> Result<Buffer, String> {
    let with_flag = |e: String| e.replacen("--arg ", "--symbol ", 1);
    match parse_arg(text, base_dir).map_err(with_flag)? {
        KernelArg::Buffer(b) => Ok(b),
        KernelArg::Scalar(sc) => {
            let name = text.split_once('=').map_or(text, |(n, _)| n).trim();
            let data = sc.bits.to_le_bytes()[..sc.ty.size()].to_vec();
            Ok(Buffer {
                name: name.to_string(),
                ty: sc.ty,
                data,
            })
        }
        KernelArg::Struct { .. } => Err(format!(
            "--symbol {text}: a struct variable is set as its bytes, e.g. NAME=u8[12]:json=bytes.json"
        )),
    }
}

/// Bytes of global memory the buffers of one `exec` may take in all, as the emulator holds
/// them (`launch::GLOBAL_MAX`): checked from the specs before any buffer is filled.
pub const BUFFERS_MAX_BYTES: u64 = super::launch::GLOBAL_MAX;

/// `1 GiB` for sizes that are whole GiB or MiB, else bytes.
fn size_text(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// The bytes a buffer spec `TYPE[LEN]:INIT` declares (LEN times the element size), read
/// without filling anything; `None` for scalars, structs and specs that do not parse (their
/// parse gives the error).
fn declared_bytes(spec: &str) -> Option<u64> {
    let spec = spec.trim();
    let open = spec.find('[')?;
    let close = spec.find(']')?;
    let ty: ElemType = spec.get(..open)?.parse().ok()?;
    let len: u64 = spec.get(open + 1..close)?.trim().parse().ok()?;
    Some(len.saturating_mul(ty.size() as u64))
}

/// Check the buffers of `args` (`--arg` texts) and `symbols` (`--symbol` texts) against the
/// emulator's global memory before any is made: each alone, then all together, naming the
/// argument that does not fit (a 2 GiB buffer is refused at once, not after it was filled).
pub fn check_buffer_sizes(args: &[String], symbols: &[String]) -> Result<(), String> {
    let all = (args.iter().map(|t| ("--arg", t))).chain(symbols.iter().map(|t| ("--symbol", t)));
    let sized = all.filter_map(|(flag, text)| {
        let (name, spec) = text.split_once('=')?;
        let bytes = declared_bytes(spec)?;
        Some((format!("{flag} {text}: "), name.trim().to_string(), bytes))
    });
    check_launch_bytes(sized)
}

/// Check buffers of one launch, each `(prefix, name, bytes)`, against what gpuzzle holds for a
/// launch: each alone, then all together, naming the first that does not fit after its
/// `prefix`. `exec`'s words, which the judge gives a puzzle's test too, before any buffer is
/// filled.
pub fn check_launch_bytes(
    buffers: impl IntoIterator<Item = (String, String, u64)>,
) -> Result<(), String> {
    let mut total = 0u64;
    for (prefix, name, bytes) in buffers {
        if bytes > BUFFERS_MAX_BYTES {
            return Err(format!(
                "{prefix}`{name}` would take {bytes} bytes ({}), more than gpuzzle holds for the buffers of one launch ({}); use a shorter length",
                size_text(bytes),
                size_text(BUFFERS_MAX_BYTES)
            ));
        }
        total = total.saturating_add(bytes);
        if total > BUFFERS_MAX_BYTES {
            return Err(format!(
                "{prefix}with `{name}` ({}), the buffers take {total} bytes in all, more than gpuzzle holds for one launch ({}); use shorter buffers",
                size_text(bytes),
                size_text(BUFFERS_MAX_BYTES)
            ));
        }
    }
    Ok(())
}

fn parse_spec(name: &str, spec: &str, base_dir: &Path) -> Result<KernelArg, String> {
    if spec == NULL {
        return Ok(KernelArg::Scalar(null_pointer()));
    }
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
        let bytes = len as u64 * ty.size() as u64;
        if bytes > BUFFERS_MAX_BYTES {
            return Err(format!(
                "`{name}` would take {bytes} bytes ({}), more than gpuzzle holds for the buffers of one launch ({}); use a shorter length",
                size_text(bytes),
                size_text(BUFFERS_MAX_BYTES)
            ));
        }
        let init = spec[close + 1..]
            .strip_prefix(':')
            .ok_or("write TYPE[LEN]:INIT, e.g. f32[8]:zeros")?;
        let data = init_bytes(init, ty, len, base_dir)?;
        return Ok(KernelArg::Buffer(Buffer {
            name: name.to_string(),
            ty,
            data,
        }));
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

/// The bytes of a buffer initialiser: zeros, ones, arange, fill=V, rand=SEED, json=PATH.
/// Encoded element by element (no list of f64s beside the buffer: a buffer may be 2^28 long).
pub fn init_bytes(
    init: &str,
    ty: ElemType,
    len: usize,
    base_dir: &Path,
) -> Result<Vec<u8>, String> {
    let mut data = Vec::with_capacity(len * ty.size());
    match init {
        "zeros" => data.resize(len * ty.size(), 0),
        "ones" => (0..len).for_each(|_| ty.encode(1.0, &mut data)),
        "arange" => (0..len).for_each(|i| ty.encode(i as f64, &mut data)),
        _ => {
            if let Some(v) = init.strip_prefix("fill=") {
                let v = v
                    .parse::<f64>()
                    .map_err(|_| format!("fill value `{v}` is not a number"))?;
                check_fits(ty, v).map_err(|e| format!("fill value {e}"))?;
                (0..len).for_each(|_| ty.encode(v, &mut data));
            } else if let Some(seed) = init.strip_prefix("rand=") {
                let seed: u64 = seed
                    .parse()
                    .map_err(|_| format!("rand seed `{seed}` is not a whole number"))?;
                let mut state = seed;
                (0..len).for_each(|_| ty.encode(random_value(ty, &mut state), &mut data));
            } else if let Some(path) = init.strip_prefix("json=") {
                data = json_bytes(&base_dir.join(path), ty, len)?;
            } else {
                return Err(format!("unknown initialiser `{init}` (use zeros, ones, arange, fill=V, rand=SEED or json=PATH)"));
            }
        }
    }
    Ok(data)
}

/// Is `v` a value of `ty` (not rounded to infinity, not clamped)? The error says why not.
fn check_fits(ty: ElemType, v: f64) -> Result<(), String> {
    if ty.is_float() {
        // Beyond the type's range: the value rounds to infinity there.
        let mut bytes = Vec::new();
        ty.encode(v, &mut bytes);
        let overflows = v.is_finite() && ty.decode(&bytes).is_infinite();
        return if overflows {
            Err(format!("{v} is beyond the range of {ty}"))
        } else {
            Ok(())
        };
    }
    let (lo, hi) = int_range(ty);
    if v.fract() != 0.0 || !v.is_finite() {
        return Err(format!("{v} is not an integer, as {ty} needs"));
    }
    if v < lo as f64 || v > hi as f64 {
        return Err(format!("{v} does not fit in {ty} ({lo} to {hi})"));
    }
    Ok(())
}

/// Bytes a JSON number takes at most in a file we accept, with its separator and spaces: the
/// file may not be larger than the buffer could need (so `/dev/zero` is refused up front).
const JSON_BYTES_PER_ELEMENT: u64 = 64;

/// Read `path` as a JSON array of exactly `len` numbers of type `ty`, encoded as they are read.
/// Only a regular file of plausible size is read: a FIFO or a device would block or never end.
fn json_bytes(path: &Path, ty: ElemType, len: usize) -> Result<Vec<u8>, String> {
    use serde::de::{DeserializeSeed, Deserializer, Error as _, SeqAccess, Visitor};
    use std::io::Read;
    let shown = path.display();
    // Open without blocking, so a FIFO with no writer cannot hang the open itself.
    let file =
        open_nonblocking(path).map_err(|e| format!("cannot read {shown}: {}", io_reason(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {}", io_reason(&e)))?;
    if !meta.is_file() {
        return Err(format!(
            "{shown} is not a regular file (a pipe or a device cannot be a buffer's data); write the numbers into a file"
        ));
    }
    let most = (len as u64)
        .saturating_mul(JSON_BYTES_PER_ELEMENT)
        .saturating_add(4096);
    if meta.len() > most {
        return Err(format!(
            "{shown} is {} bytes, too large for a buffer of {len} elements (at most {most})",
            meta.len()
        ));
    }
    let mut text = Vec::new();
    file.take(most + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("cannot read {shown}: {}", io_reason(&e)))?;

    struct Numbers {
        ty: ElemType,
        len: usize,
    }
    impl<'de> DeserializeSeed<'de> for Numbers {
        type Value = Vec<u8>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<u8>, D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Numbers {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a JSON array of numbers")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut data = Vec::with_capacity(self.len * self.ty.size());
            let mut i = 0usize;
            while let Some(v) = seq.next_element::<f64>()? {
                if i >= self.len {
                    return Err(A::Error::custom(format!(
                        "more than the buffer's {} elements",
                        self.len
                    )));
                }
                check_fits(self.ty, v)
                    .map_err(|e| A::Error::custom(format!("element {i}: {e}")))?;
                self.ty.encode(v, &mut data);
                i += 1;
            }
            if i != self.len {
                return Err(A::Error::custom(format!(
                    "{i} numbers, but the buffer has {} elements",
                    self.len
                )));
            }
            Ok(data)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(&text);
    let data = Numbers { ty, len }
        .deserialize(&mut de)
        .and_then(|d| de.end().map(|()| d))
        .map_err(|e| format!("{shown}: expected a JSON array of {len} numbers: {e}"))?;
    Ok(data)
}

fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer.
        const O_NONBLOCK: i32 = if cfg!(target_os = "linux") {
            0o4000
        } else {
            0x4
        };
        o.custom_flags(O_NONBLOCK);
    }
    o.open(path)
}

/// An OS error without Rust's " (os error N)" suffix, for messages that already say what failed.
fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// One seeded random value: floats uniform in [-1, 1), integers uniform in [0, 100).
fn random_value(ty: ElemType, state: &mut u64) -> f64 {
    let r = splitmix64(state);
    if ty.is_float() {
        (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    } else {
        (r % 100) as f64
    }
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

    #[test]
    fn a_symbol_is_a_scalar_or_an_array() {
        let b = parse_symbol("counter=i32:-3", Path::new(".")).expect("scalar");
        assert_eq!(
            (b.name.as_str(), b.ty, b.data.clone()),
            ("counter", ElemType::I32, (-3i32).to_le_bytes().to_vec())
        );
        let b = parse_symbol("taps=f32[3]:arange", Path::new(".")).expect("array");
        assert_eq!(b.data.len(), 12);
        let e = parse_symbol("taps=f32[3]:nope", Path::new(".")).unwrap_err();
        assert!(
            e.starts_with("--symbol taps=f32[3]:nope: unknown initialiser"),
            "{e}"
        );
        let e = parse_symbol("s={i32:1,f32:2}", Path::new(".")).unwrap_err();
        assert!(e.contains("a struct variable is set as its bytes"), "{e}");
    }

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

    #[test]
    fn json_values_outside_the_type_are_rejected_with_their_index() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("v.json"), "[1, 2, 300]").unwrap();
        let e = parse_arg("a=u8[3]:json=v.json", dir.path()).unwrap_err();
        assert!(e.contains("element 2: 300 does not fit in u8"), "{e}");
        std::fs::write(dir.path().join("f.json"), "[1e39]").unwrap();
        let e = parse_arg("a=f32[1]:json=f.json", dir.path()).unwrap_err();
        assert!(
            e.contains(
                "element 0: 1000000000000000000000000000000000000000 is beyond the range of f32"
            ),
            "{e}"
        );
        std::fs::write(dir.path().join("ok.json"), "[1, -2.5]").unwrap();
        let KernelArg::Buffer(b) = parse_arg("a=f32[2]:json=ok.json", dir.path()).unwrap() else {
            panic!("not a buffer")
        };
        assert_eq!(
            b.data,
            [1.0f32.to_le_bytes(), (-2.5f32).to_le_bytes()].concat()
        );
        let e = parse_arg("a=i8[2]:fill=200", dir.path()).unwrap_err();
        assert!(e.contains("200 does not fit in i8"), "{e}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn json_from_a_device_or_a_fifo_is_refused_at_once() {
        let e = parse_arg("a=f32[4]:json=/dev/zero", Path::new("/")).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.map(|s| s.success()).unwrap_or(false) {
            let e = parse_arg("a=f32[4]:json=p", dir.path()).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let big = dir.path().join("big.json");
        std::fs::write(&big, format!("[{}]", "1,".repeat(10_000) + "1")).unwrap();
        let e = parse_arg("a=f32[4]:json=big.json", dir.path()).unwrap_err();
        assert!(e.contains("too large for a buffer of 4 elements"), "{e}");
    }
}
