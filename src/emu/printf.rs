//! Device `printf`: formats the packed argument buffer NVRTC builds for `vprintf`
//! (each argument aligned to its own size; floats promoted to double, as in C varargs).

/// Widest field width or precision honoured; larger ones are clamped to it.
const MAX_FIELD: usize = 1024;

/// Bytes of device output a launch keeps: the default size of CUDA's own printf FIFO
/// (`cudaLimitPrintfFifoSize`), past which the GPU drops output too.
pub const LAUNCH_OUTPUT_CAP: usize = 1 << 20;
/// Bytes of output one thread keeps, so a block of printing threads stays small before its
/// output is gathered under the launch's cap.
pub const THREAD_OUTPUT_CAP: usize = 64 << 10;

/// Device output kept up to a byte cap; past it, whole lines are counted instead of kept, so
/// a kernel printing in an endless loop costs bounded memory and says how much it dropped.
#[derive(Clone, Debug, Default)]
pub struct Output {
    text: String,
    dropped_lines: u64,
    /// True once something did not fit: later text is only counted (keeps lines whole).
    full: bool,
}

impl Output {
    /// True once output is only counted: the caller may skip formatting and call
    /// `count_dropped` with the format string instead.
    pub fn is_full(&self) -> bool {
        self.full
    }

    pub fn clear(&mut self) {
        *self = Output::default();
    }

    /// Append `text`, keeping at most `cap` bytes in all; what does not fit is counted in lines.
    pub fn push(&mut self, text: &str, cap: usize) {
        if !self.full && self.text.len() + text.len() <= cap {
            self.text.push_str(text);
            return;
        }
        // Keep whole lines up to the cap, count the rest.
        let room = if self.full {
            0
        } else {
            cap.saturating_sub(self.text.len())
        };
        let mut kept = 0;
        if room > 0 {
            for line in text.split_inclusive('\n') {
                if kept + line.len() > room || !line.ends_with('\n') {
                    break;
                }
                kept += line.len();
            }
            self.text.push_str(&text[..kept]);
        }
        self.full = true;
        self.dropped_lines += count_lines(&text[kept..]);
    }

    /// Count the lines a printf with format `fmt` would have printed, without formatting it.
    pub fn count_dropped(&mut self, fmt: &[u8]) {
        self.full = true;
        self.dropped_lines += count_lines(&String::from_utf8_lossy(fmt));
    }

    /// Append another output (a thread's into its block's, a block's into the launch's).
    pub fn append(&mut self, other: &Output, cap: usize) {
        self.push(&other.text, cap);
        if other.dropped_lines > 0 {
            self.full = true;
            self.dropped_lines += other.dropped_lines;
        }
    }

    /// The kept text, then a note of how many lines were dropped, if any.
    pub fn into_text(self) -> String {
        let mut text = self.text;
        if self.dropped_lines > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            let n = self.dropped_lines;
            let s = if n == 1 { "" } else { "s" };
            text.push_str(&format!(
                "[gpuzzle: {n} more line{s} of device output dropped (kept: {} KiB per launch, {} KiB per thread)]\n",
                LAUNCH_OUTPUT_CAP >> 10,
                THREAD_OUTPUT_CAP >> 10
            ));
        }
        text
    }
}

/// The arguments a printf with format `fmt` consumes (its conversions other than `%%`): what
/// device printf returns, counted without formatting once output is only being counted.
pub fn count_args(fmt: &[u8]) -> u64 {
    let mut n = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] == b'%' {
            if fmt.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            n += 1;
        }
        i += 1;
    }
    n
}

/// Lines in `text`: its newlines, plus one for an unterminated last line.
fn count_lines(text: &str) -> u64 {
    let newlines = text.bytes().filter(|&b| b == b'\n').count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Format `fmt` with arguments read by `arg(offset, size)` from the argument buffer.
pub fn format(
    fmt: &[u8],
    mut arg: impl FnMut(u64, u32) -> Option<u64>,
    mut string_at: impl FnMut(u64) -> String,
) -> String {
    let mut out = String::new();
    let mut off = 0u64;
    let mut i = 0;
    let mut next = |size: u32, off: &mut u64| -> u64 {
        let a = size as u64;
        *off = off.div_ceil(a) * a;
        let v = arg(*off, size).unwrap_or(0);
        *off += a;
        v
    };
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            let start = i;
            while i < fmt.len() && fmt[i] != b'%' {
                i += 1;
            }
            out.push_str(&String::from_utf8_lossy(&fmt[start..i]));
            continue;
        }
        i += 1;
        if i < fmt.len() && fmt[i] == b'%' {
            out.push('%');
            i += 1;
            continue;
        }
        // flags, width, precision
        let mut flags = String::new();
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            flags.push(fmt[i] as char);
            i += 1;
        }
        let mut width = None;
        let mut w = String::new();
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            w.push(fmt[i] as char);
            i += 1;
        }
        if !w.is_empty() {
            // A huge width would allocate that many spaces: clamp it (as the real printf FIFO
            // would cut the line anyway).
            width = w.parse::<usize>().ok().map(|w| w.min(MAX_FIELD));
        }
        let mut prec = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            let mut p = String::new();
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                p.push(fmt[i] as char);
                i += 1;
            }
            prec = Some(p.parse::<usize>().unwrap_or(MAX_FIELD).min(MAX_FIELD));
        }
        let mut long = 0;
        while i < fmt.len() && b"hlLzjt".contains(&fmt[i]) {
            if fmt[i] == b'l' || fmt[i] == b'z' || fmt[i] == b'j' || fmt[i] == b't' {
                long += 1;
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let int_size = if long > 0 { 8 } else { 4 };
        let body = match conv {
            b'd' | b'i' => {
                let v = next(int_size, &mut off);
                let v = if int_size == 4 {
                    v as u32 as i32 as i64
                } else {
                    v as i64
                };
                let s = v.abs().to_string();
                let sign = if v < 0 {
                    "-"
                } else if flags.contains('+') {
                    "+"
                } else {
                    ""
                };
                format!("{sign}{}", zero_pad(&s, prec))
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = next(int_size, &mut off);
                let v = if int_size == 4 { v as u32 as u64 } else { v };
                let s = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                let pre = if flags.contains('#') && v != 0 {
                    match conv {
                        b'x' => "0x",
                        b'X' => "0X",
                        b'o' => "0",
                        _ => "",
                    }
                } else {
                    ""
                };
                format!("{pre}{}", zero_pad(&s, prec))
            }
            b'c' => {
                let v = next(4, &mut off);
                ((v as u8) as char).to_string()
            }
            b'p' => format!("0x{:x}", next(8, &mut off)),
            b's' => {
                let p = next(8, &mut off);
                let s = string_at(p);
                match prec {
                    Some(n) => s.chars().take(n).collect(),
                    None => s,
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(next(8, &mut off));
                format_float(v, conv, prec.unwrap_or(6), &flags)
            }
            other => format!("%{}", other as char),
        };
        out.push_str(&pad(body, width, &flags));
    }
    out
}

fn zero_pad(s: &str, prec: Option<usize>) -> String {
    match prec {
        Some(p) if s.len() < p => format!("{}{s}", "0".repeat(p - s.len())),
        _ => s.to_string(),
    }
}

fn pad(body: String, width: Option<usize>, flags: &str) -> String {
    let Some(w) = width else { return body };
    let n = body.chars().count();
    if n >= w {
        return body;
    }
    if flags.contains('-') {
        format!("{body}{}", " ".repeat(w - n))
    } else if flags.contains('0') {
        let (sign, digits) = if body.starts_with('-') || body.starts_with('+') {
            body.split_at(1)
        } else {
            ("", body.as_str())
        };
        format!("{sign}{}{digits}", "0".repeat(w - n))
    } else {
        format!("{}{body}", " ".repeat(w - n))
    }
}

fn format_float(v: f64, conv: u8, prec: usize, flags: &str) -> String {
    let upper = conv.is_ascii_uppercase();
    let s = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        match conv.to_ascii_lowercase() {
            b'f' => format!("{v:.prec$}"),
            b'e' => c_exp(v, prec),
            b'a' => format!("{v:e}"),
            _ => {
                // %g: shortest of %e / %f with `prec` significant digits, trailing zeros removed.
                let p = prec.max(1);
                let exp = if v == 0.0 {
                    0
                } else {
                    v.abs().log10().floor() as i32
                };
                let s = if exp < -4 || exp >= p as i32 {
                    c_exp(v, p - 1)
                } else {
                    format!("{v:.*}", (p as i32 - 1 - exp).max(0) as usize)
                };
                if flags.contains('#') {
                    s
                } else {
                    strip_zeros(&s)
                }
            }
        }
    };
    let s = if flags.contains('+') && !s.starts_with('-') {
        format!("+{s}")
    } else {
        s
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp}")
}

/// C-style `%e`: mantissa with `prec` digits and a signed two-digit exponent.
fn c_exp(v: f64, prec: usize) -> String {
    let s = format!("{v:.prec$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let n: i32 = e.parse().unwrap_or(0);
            format!("{m}e{}{:02}", if n < 0 { '-' } else { '+' }, n.abs())
        }
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fmt: &str, args: &[(u32, u64)]) -> String {
        // Lay out args like NVRTC: each aligned to its size.
        let mut buf = Vec::new();
        for &(size, v) in args {
            while buf.len() % size as usize != 0 {
                buf.push(0);
            }
            buf.extend_from_slice(&v.to_le_bytes()[..size as usize]);
        }
        format(
            fmt.as_bytes(),
            |off, size| {
                let o = off as usize;
                let b = buf.get(o..o + size as usize)?;
                let mut w = [0u8; 8];
                w[..b.len()].copy_from_slice(b);
                Some(u64::from_le_bytes(w))
            },
            |_| "str".into(),
        )
    }

    #[test]
    fn formats_like_c() {
        assert_eq!(
            run(
                "block %d n=%d old=%d f=%f\n",
                &[
                    (4, 1),
                    (4, 8),
                    (4, (-3i32) as u32 as u64),
                    (8, 2.5f64.to_bits())
                ]
            ),
            "block 1 n=8 old=-3 f=2.500000\n"
        );
        assert_eq!(
            run(
                "%5.2f|%-4d|%04d|%x|%s|%%",
                &[(8, 2.71f64.to_bits()), (4, 7), (4, 42), (4, 255), (8, 0)]
            ),
            " 2.71|7   |0042|ff|str|%"
        );
        assert_eq!(
            run(
                "%g %g %e",
                &[
                    (8, 0.5f64.to_bits()),
                    (8, 1e-7f64.to_bits()),
                    (8, 12345.0f64.to_bits())
                ]
            ),
            "0.5 1e-07 1.234500e+04"
        );
        assert_eq!(
            run("%lld %u", &[(8, (-5i64) as u64), (4, 4_000_000_000)]),
            "-5 4000000000"
        );
    }

    #[test]
    fn output_keeps_whole_lines_up_to_the_cap_then_counts() {
        let mut o = Output::default();
        o.push("aaaa\nbbbb\n", 12);
        o.push("cccc\ndddd\neeee", 12);
        assert!(o.is_full());
        o.count_dropped(b"%d\n%d\n");
        assert_eq!(count_args(b"%d %% %s\n"), 2);
        let mut launch = Output::default();
        launch.append(&o, LAUNCH_OUTPUT_CAP);
        let text = launch.into_text();
        assert!(
            text.starts_with("aaaa\nbbbb\n[gpuzzle: 5 more lines"),
            "{text}"
        );
        assert_eq!(Output::default().into_text(), "");
    }

    #[test]
    fn huge_widths_and_precisions_are_clamped() {
        let s = run(
            "%1000000000d|%.1000000000f",
            &[(4, 7), (8, 1.5f64.to_bits())],
        );
        assert!(s.len() < 4 * MAX_FIELD, "{} bytes", s.len());
    }
}
