//! `gpuzzle exec`: one launch of any kernel, shown in full (buffers, device printf, diagnostics,
//! counters) or as JSON for scripts.

use super::{counters, json as pieces, layout, number, snippet};
use crate::emu::result::{Diagnostic, RunResult, Severity};
use crate::emu::value::Buffer;
use colored::Colorize;
use serde_json::{json, Map, Value};
use std::io::{self, Write};

/// Buffers up to this long are shown whole; longer ones as the first `HEAD` … the last `TAIL`.
const SHOW_ALL: usize = 20;
const HEAD: usize = 16;
const TAIL: usize = 4;

/// The JSON scripts read (outside this repository too; keep the shape):
/// `{"ok", "buffers": {name: [numbers]}, "stdout", "diagnostics": [..], "counters":
/// {"max_per_thread": {..}, "total": {..}}}`. `ok` means no error-severity diagnostic.
pub fn json(r: &RunResult) -> Value {
    let buffers: Map<String, Value> = r
        .buffers
        .iter()
        .map(|b| {
            let values = number::elements(b).into_iter().map(|e| e.json()).collect();
            (b.name.clone(), Value::Array(values))
        })
        .collect();
    json!({
        "ok": !r.has_errors(),
        "buffers": buffers,
        "stdout": r.stdout,
        "diagnostics": pieces::diagnostics(&r.diagnostics),
        "counters": {
            "max_per_thread": pieces::counters(&r.counters.max_per_thread),
            "total": pieces::counters(&r.counters.total),
        },
    })
}

/// Elements of a buffer `write_json_with_symbols` turns into text at a time (about 80 KB of
/// floats): a piece is written out whole, so memory holds a few pieces, never the buffer's text.
const PIECE: usize = 4096;

/// Write exactly what `json` builds (same keys in the same order, one line), streaming each
/// buffer element by element: a large buffer then costs no more memory than its own bytes,
/// where a `Value` per element costs about 80 bytes each.
pub fn write_json(r: &RunResult, w: &mut dyn Write) -> io::Result<()> {
    write_json_with_symbols(r, &[], w)
}

/// `write_json`, with `"symbols": {name: [numbers]}` last (after `stdout`, in key order) when
/// the kernel file has `__device__` variables: their values after the launch.
pub fn write_json_with_symbols(
    r: &RunResult,
    symbols: &[Buffer],
    w: &mut dyn Write,
) -> io::Result<()> {
    // `json!` objects are sorted maps: buffers, counters, diagnostics, ok, stdout; buffer names
    // sorted too, and the last of equal names wins.
    let mut by_name: Vec<&Buffer> = Vec::new();
    for b in &r.buffers {
        by_name.retain(|o| o.name != b.name);
        by_name.push(b);
    }
    by_name.sort_by(|x, y| x.name.cmp(&y.name));
    w.write_all(b"{\"buffers\":{")?;
    for (i, b) in by_name.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, &b.name)?;
        w.write_all(b":[")?;
        write_numbers(b, w)?;
        w.write_all(b"]")?;
    }
    w.write_all(b"},\"counters\":")?;
    let counters = json!({
        "max_per_thread": pieces::counters(&r.counters.max_per_thread),
        "total": pieces::counters(&r.counters.total),
    });
    serde_json::to_writer(&mut *w, &counters)?;
    w.write_all(b",\"diagnostics\":")?;
    serde_json::to_writer(&mut *w, &pieces::diagnostics(&r.diagnostics))?;
    write!(w, ",\"ok\":{},\"stdout\":", !r.has_errors())?;
    serde_json::to_writer(&mut *w, &r.stdout)?;
    if !symbols.is_empty() {
        w.write_all(b",\"symbols\":")?;
        serde_json::to_writer(&mut *w, &symbols_json(symbols))?;
    }
    w.write_all(b"}\n")
}

/// A buffer's numbers, comma-separated, a piece (`PIECE` elements) at a time: one call of the
/// writer per piece instead of two per number. A buffer of several pieces has every other
/// piece turned into text on a second thread while this one does the others (printing is a
/// good share of a large launch's `exec`); at most two pieces wait, and they are written in
/// order, so the text is the same.
fn write_numbers(b: &Buffer, w: &mut dyn Write) -> io::Result<()> {
    let n = number::element_count(b);
    let pieces = n.div_ceil(PIECE);
    let text = |k: usize| -> io::Result<Vec<u8>> {
        let range = k * PIECE..((k + 1) * PIECE).min(n);
        let mut out = Vec::with_capacity(range.len() * 24);
        for (j, e) in number::elements_in(b, range.clone()).enumerate() {
            if range.start + j > 0 {
                out.push(b',');
            }
            e.write_json(&mut out)?;
        }
        Ok(out)
    };
    let helpers = std::thread::available_parallelism().map_or(1, |p| p.get());
    if pieces < 4 || helpers < 2 {
        for k in 0..pieces {
            w.write_all(&text(k)?)?;
        }
        return Ok(());
    }
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
        let text = &text;
        s.spawn(move || {
            for k in (1..pieces).step_by(2) {
                // The receiver hung up (a write failed): stop.
                if tx.send(text(k)).is_err() {
                    break;
                }
            }
        });
        for k in (0..pieces).step_by(2) {
            w.write_all(&text(k)?)?;
            if k + 1 < pieces {
                match rx.recv() {
                    Ok(odd) => w.write_all(&odd?)?,
                    Err(_) => return Err(io::Error::other("the second printing thread stopped")),
                }
            }
        }
        Ok(())
    })
}

/// `{name: [numbers]}` of module variables, numbers as buffers print them.
pub fn symbols_json(symbols: &[Buffer]) -> Value {
    let map: Map<String, Value> = symbols
        .iter()
        .map(|b| {
            let values = number::elements(b).into_iter().map(|e| e.json()).collect();
            (b.name.clone(), Value::Array(values))
        })
        .collect();
    Value::Object(map)
}

/// The launch for a person: buffers, printf output, each diagnostic with its source, the
/// counters, and a last line `ok` or `N errors, M warnings`. `source` is the text of
/// `source_name`, used for diagnostics in that file.
pub fn text(r: &RunResult, kernel: &str, source_name: &str, source: Option<&str>) -> String {
    text_with_symbols(r, &[], kernel, source_name, source)
}

/// `text`, with the `__device__` variables' values after the buffers.
pub fn text_with_symbols(
    r: &RunResult,
    symbols: &[Buffer],
    kernel: &str,
    source_name: &str,
    source: Option<&str>,
) -> String {
    let mut sections = vec![format!("{} {}", kernel.bold(), source_name.dimmed())];
    if !r.buffers.is_empty() {
        sections.push(buffers(&r.buffers));
    }
    // The learner's own variables: the constants NVIDIA's headers define (cooperative groups'
    // and libcu++'s `...::value`, `_INTERNAL_...`) are noise here (JSON keeps them all).
    let symbols: Vec<Buffer> = symbols
        .iter()
        .filter(|b| !from_nvidia_headers(&b.name))
        .cloned()
        .collect();
    if !symbols.is_empty() {
        let shown = buffers(&symbols);
        let body = shown.split_once('\n').map_or("", |(_, rest)| rest);
        sections.push(format!("{}\n{body}", "__device__ variables".bold()));
    }
    if !r.stdout.is_empty() {
        let out = layout::indent(r.stdout.trim_end_matches('\n'), "  ");
        sections.push(format!("{}\n{out}", "printf output".bold()));
    }
    for d in &r.diagnostics {
        let d = snippet::located(d, source_name);
        sections.push(snippet::diagnostic(
            &d,
            snippet::source_for(&d, source_name, source),
        ));
    }
    sections.push(counters::exec_table(&r.counters));
    sections.push(verdict(&r.diagnostics));
    sections.join("\n\n")
}

/// Whether a module variable's name (as shown) is one of NVIDIA's headers' own.
fn from_nvidia_headers(name: &str) -> bool {
    const PREFIXES: [&str; 7] = [
        "cuda::",
        "cooperative_groups::",
        "nvcuda::",
        "_INTERNAL_",
        "_ZN4cuda",
        "_ZN18cooperative_groups",
        "_ZN6nvcuda",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

fn buffers(bs: &[Buffer]) -> String {
    let shapes: Vec<String> = bs
        .iter()
        .map(|b| format!("{}[{}]", b.ty, b.len()))
        .collect();
    let wn = bs.iter().map(|b| b.name.chars().count()).max().unwrap_or(0);
    let ws = shapes.iter().map(String::len).max().unwrap_or(0);
    let lines: Vec<String> = bs
        .iter()
        .zip(&shapes)
        .map(|(b, shape)| {
            let name = format!("{:<wn$}", b.name);
            let values = wrap(&shown_values(b), wn + ws + 6);
            format!("  {name}  {shape:<ws$}  {values}")
        })
        .collect();
    format!("{}\n{}", "buffers".bold(), lines.join("\n"))
}

/// The elements of a buffer as text, the middle of a long one replaced by `…` (only the shown
/// elements are decoded: a buffer may hold millions).
fn shown_values(b: &Buffer) -> Vec<String> {
    let n = b.len();
    let text = |e: number::Elem| e.text();
    if n <= SHOW_ALL {
        return number::each_element(b).map(text).collect();
    }
    let mut shown: Vec<String> = number::each_element(b).take(HEAD).map(text).collect();
    shown.push("…".to_string());
    shown.extend(number::each_element(b).skip(n - TAIL).map(text));
    shown
}

/// Words joined by spaces, continued on lines indented by `indent` to stay within the width.
fn wrap(words: &[String], indent: usize) -> String {
    let mut out = String::new();
    let mut col = indent;
    for (i, w) in words.iter().enumerate() {
        let len = w.chars().count();
        if i > 0 && col + 1 + len > layout::WIDTH {
            out += &format!("\n{}", " ".repeat(indent));
            col = indent;
        } else if i > 0 {
            out.push(' ');
            col += 1;
        }
        out += w;
        col += len;
    }
    out
}

/// `ok`, `ok (1 warning)`, or `2 errors, 1 warning`.
fn verdict(ds: &[Diagnostic]) -> String {
    let errors = ds.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = ds.len() - errors;
    let w = layout::count(warnings, "warning", "warnings");
    match (errors, warnings) {
        (0, 0) => "ok".green().bold().to_string(),
        (0, _) => format!("{} ({})", "ok".green().bold(), w.yellow()),
        (_, 0) => layout::count(errors, "error", "errors")
            .red()
            .bold()
            .to_string(),
        _ => format!(
            "{}, {}",
            layout::count(errors, "error", "errors").red().bold(),
            w.yellow()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{CounterSummary, Counters, DiagKind};
    use crate::emu::value::ElemType;

    #[test]
    fn nvidia_headers_variables_are_not_the_learners() {
        assert!(from_nvidia_headers(
            "cuda::std::__4::integral_constant<bool, false>::value"
        ));
        assert!(from_nvidia_headers(
            "_INTERNAL_00000000_7_dead_cu_7bbf9377::cooperative_groups::__v1::details::grid_group_id"
        ));
        assert!(from_nvidia_headers(
            "_ZN4cuda3std3__45ratioILx24ELx1EE3numE"
        ));
        assert!(!from_nvidia_headers("counter"));
        assert!(!from_nvidia_headers("geo::cudaish"));
    }

    fn diag(severity: Severity, file: Option<&str>, line: Option<u32>) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::OutOfBounds,
            severity,
            message: "thread 8 writes out[8], one past the end of out (8 elements)".into(),
            help: Some("guard the write with `if (i < size)`".into()),
            file: file.map(String::from),
            line,
            block: [0, 0, 0],
            thread: [8, 0, 0],
            other_line: None,
            facts: Default::default(),
        }
    }

    fn run() -> RunResult {
        let mut nan = Buffer::from_values("f", ElemType::F32, &[1.5, f64::NAN]);
        nan.name = "f".into();
        RunResult {
            buffers: vec![
                Buffer::from_values("out", ElemType::I32, &[0.0, -1.0, 2.0]),
                Buffer::from_values(
                    "big",
                    ElemType::U32,
                    &(0..100).map(f64::from).collect::<Vec<_>>(),
                ),
                nan,
            ],
            stdout: "hello from 0\nhello from 1\n".into(),
            diagnostics: vec![
                diag(Severity::Error, Some("k.cu"), Some(2)),
                diag(Severity::Warning, None, None),
            ],
            counters: CounterSummary {
                max_per_thread: Counters {
                    global_reads: 1,
                    global_writes: 1,
                    ..Counters::default()
                },
                total: Counters {
                    global_reads: 8,
                    global_writes: 8,
                    ..Counters::default()
                },
                ..CounterSummary::default()
            },
            ..RunResult::default()
        }
    }

    #[test]
    fn json_has_exactly_the_agreed_shape() {
        let v = json(&run());
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["buffers", "counters", "diagnostics", "ok", "stdout"]);
        assert_eq!(v["ok"], json!(false));
        assert_eq!(v["buffers"]["out"], json!([0, -1, 2]));
        assert!(v["buffers"]["out"][1].is_i64());
        assert_eq!(v["buffers"]["big"].as_array().unwrap().len(), 100);
        assert!(v["buffers"]["big"][99].is_u64());
        assert_eq!(v["buffers"]["f"], json!([1.5, null]));
        assert_eq!(v["stdout"], json!("hello from 0\nhello from 1\n"));
        assert_eq!(
            v["diagnostics"][0],
            json!({"kind": "out-of-bounds", "severity": "error",
                   "message": "thread 8 writes out[8], one past the end of out (8 elements)",
                   "file": "k.cu", "line": 2, "block": [0, 0, 0], "thread": [8, 0, 0]})
        );
        assert_eq!(v["diagnostics"][1]["file"], Value::Null);
        assert_eq!(v["diagnostics"][1]["line"], Value::Null);
        let mut c = json!({"global_reads": 1, "global_writes": 1, "shared_reads": 0,
                           "shared_writes": 0, "global_atomics": 0, "shared_atomics": 0});
        // Every instruction family too (`emu::technique`), 0 when unused.
        for f in crate::emu::technique::Family::ALL {
            c[f.name()] = json!(0);
        }
        assert_eq!(v["counters"]["max_per_thread"], c);
        assert_eq!(v["counters"]["total"]["global_reads"], json!(8));
        // And it serializes (a NaN must not make serde_json fail).
        assert!(serde_json::to_string(&v).unwrap().contains("null"));
    }

    #[test]
    fn streamed_json_is_the_built_json_byte_for_byte() {
        let mut r = run();
        // A repeated name: the map keeps the last, and so must the stream.
        r.buffers.push(Buffer::from_values(
            "out",
            ElemType::F64,
            &[0.25, f64::INFINITY],
        ));
        // Buffers of several pieces (printed on two threads): an odd count and a last piece
        // that is short, so the pieces' order and commas show.
        let mut large = run();
        let floats: Vec<f64> = (0..3 * PIECE + 17)
            .map(|i| i as f64 / 7.0 - 900.0)
            .collect();
        large
            .buffers
            .push(Buffer::from_values("many", ElemType::F32, &floats));
        let ints: Vec<f64> = (0..4 * PIECE).map(|i| i as f64 - 5.0).collect();
        large
            .buffers
            .push(Buffer::from_values("ints", ElemType::I32, &ints));
        for r in [r, run(), RunResult::default(), large] {
            let mut streamed = Vec::new();
            write_json(&r, &mut streamed).unwrap();
            assert_eq!(
                String::from_utf8(streamed).unwrap(),
                format!("{}\n", json(&r))
            );
        }
    }

    #[test]
    fn ok_is_true_with_only_warnings() {
        let mut r = run();
        r.diagnostics.remove(0);
        assert_eq!(json(&r)["ok"], json!(true));
    }

    #[test]
    fn text_shows_everything_once_and_elides_long_buffers() {
        colored::control::set_override(false);
        let src = "__global__ void k(int* out) {\n    out[threadIdx.x] = 1;\n}\n";
        let out = text(&run(), "k", "puzzles/k.cu", Some(src));
        println!("{out}");
        assert!(!out.contains('\x1b'));
        assert!(out.starts_with("k puzzles/k.cu"));
        assert!(out.contains("  out  i32[3]    0 -1 2"));
        let big = out.lines().find(|l| l.contains("big  u32[100]")).unwrap();
        assert!(big.ends_with("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 … 96 97 98 99"));
        assert!(out.contains("f    f32[2]    1.5 NaN"));
        assert!(out.contains("printf output\n  hello from 0\n  hello from 1\n"));
        assert!(out.contains("2 |     out[threadIdx.x] = 1;"));
        assert!(out.contains("warning[out-of-bounds]"));
        assert!(out.contains("max per thread"));
        assert!(out.ends_with("1 error, 1 warning"));
    }

    #[test]
    fn source_of_another_file_is_not_shown() {
        colored::control::set_override(false);
        let mut r = run();
        r.diagnostics[0].file = Some("other.cu".into());
        let out = text(&r, "k", "k.cu", Some("a\nb\n"));
        assert!(!out.contains("2 | b"));
        assert!(out.contains("other.cu:2"));
    }

    #[test]
    fn verdict_lines() {
        colored::control::set_override(false);
        assert_eq!(verdict(&[]), "ok");
        let w = diag(Severity::Warning, None, None);
        let e = diag(Severity::Error, None, None);
        assert_eq!(verdict(std::slice::from_ref(&w)), "ok (1 warning)");
        assert_eq!(verdict(&[e.clone(), e.clone()]), "2 errors");
        assert_eq!(verdict(&[e, w.clone(), w]), "1 error, 2 warnings");
    }

    #[test]
    fn long_value_lists_wrap_under_their_column() {
        let words: Vec<String> = (0..40).map(|i| format!("{}.25", 1000 + i)).collect();
        let out = wrap(&words, 10);
        assert!(out.lines().count() > 1);
        for l in out.lines() {
            assert!(l.chars().count() <= layout::WIDTH);
        }
        assert!(out.lines().skip(1).all(|l| l.starts_with(&" ".repeat(10))));
    }
}
