//! Lexing and parsing the PTX that NVRTC emits into a compact IR, with source lines from `.loc`.

pub mod census;
pub mod demangle;
mod header_code;
pub mod ir;
mod lexer;
pub mod loops;
mod parser;
pub mod perturb;
pub mod tensor;
pub mod wmma;

pub use ir::Module;
pub use parser::SHARED_RED_ZONE;

/// A PTX syntax error (the PTX came from NVRTC, so this points at a gpuzzle gap or corrupt input).
#[derive(Debug, thiserror::Error)]
#[error("PTX line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

/// Parse PTX text into the IR. Never panics, whatever the input.
pub fn parse(text: &str) -> Result<Module, ParseError> {
    parser::parse(text)
}

/// A parse error inside the inline assembly (`asm("...")`) of the learner's file
/// `file_name`, said as the learner's error at the `asm` statement's line: that PTX is the
/// learner's own text, which NVRTC copies through unread. `None` when the error lies in PTX
/// NVRTC wrote, or in a header's inline assembly (gpuzzle's to fix, not the learner's).
pub fn learner_asm_error(text: &str, e: &ParseError, file_name: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let upto = lines.get(..e.line)?;
    let asm_begins = upto
        .iter()
        .rposition(|l| l.trim() == "// begin inline asm")?;
    if upto[asm_begins..]
        .iter()
        .any(|l| l.trim() == "// end inline asm")
    {
        return None;
    }
    // The `.loc` before the asm block: its file index and the line of the `asm` statement.
    let (file, line) = upto[..asm_begins].iter().rev().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some(".loc")).then_some(())?;
        let file: u32 = w.next()?.parse().ok()?;
        let line: u32 = w.next()?.parse().ok()?;
        Some((file, line))
    })?;
    let base = |p: &str| {
        std::path::Path::new(p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    let named = lines.iter().find_map(|l| {
        let rest = l.trim().strip_prefix(".file")?;
        let mut w = rest.split_whitespace();
        (w.next()?.parse::<u32>().ok()? == file).then_some(())?;
        rest.split('"').nth(1)
    })?;
    (base(named)? == base(file_name)?).then(|| {
        format!(
            "{file_name}:{line}: error: the inline assembly (`asm`) on this line is not valid PTX: {} (line {} of the PTX)",
            e.message, e.line
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::*;

    /// An `asm` the learner wrote wrong is the learner's error at the `asm` line; an error
    /// in NVRTC's own PTX, or in a header's inline assembly, is not.
    #[test]
    fn a_parse_error_in_the_learners_inline_asm_is_the_learners() {
        let ptx = |file: &str| {
            format!(
                ".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\
                 .reg .b32 %r<5>;\n.loc 1 8 61\n// begin inline asm\n\
                 ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{1, %r2, %r3, %r4}}, [%r1];\n\
                 // end inline asm\nret;\n}}\n.file 1 \"{file}\"\n"
            )
        };
        let text = ptx("puzzles/50_mma.cu");
        let e = parse(&text).expect_err("not valid PTX");
        let m = learner_asm_error(&text, &e, "puzzles/50_mma.cu").expect("the learner's");
        assert!(
            m.starts_with("puzzles/50_mma.cu:8: error: the inline assembly (`asm`) on this line is not valid PTX: "),
            "{m}"
        );
        let text = ptx("/usr/local/cuda/include/crt/mma.hpp");
        let e = parse(&text).expect_err("not valid PTX");
        assert_eq!(learner_asm_error(&text, &e, "puzzles/50_mma.cu"), None);
        // Outside any asm block: NVRTC's own text.
        let text = ptx("puzzles/50_mma.cu").replace("// begin inline asm\n", "");
        let e = parse(&text).expect_err("not valid PTX");
        assert_eq!(learner_asm_error(&text, &e, "puzzles/50_mma.cu"), None);
    }

    const PROBES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx");

    /// Found by an hour of fuzzing mutated PTX: a huge alignment or array in a parameter list
    /// overflowed the parameter layout (a panic in debug builds, wrapped offsets in release).
    #[test]
    fn wild_parameter_layouts_are_errors() {
        let kernel = |params: &str| {
            format!(".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k({params})\n{{\n\tret;\n}}\n")
        };
        for params in [
            ".param .align 4294967295 .b8 k_p0[16]",
            ".param .align 3 .b8 k_p0[16]",
            ".param .b8 k_p0[1048576], .param .b8 k_p1[1048576]",
        ] {
            let e = parse(&kernel(params)).expect_err(params).to_string();
            assert!(e.contains("align") || e.contains("bytes"), "{params}: {e}");
        }
        assert!(parse(&kernel(".param .align 8 .b8 k_p0[16]")).is_ok());
    }

    #[test]
    fn parses_every_probe_module() {
        let mut n = 0;
        for e in std::fs::read_dir(PROBES).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ptx") {
                let text = std::fs::read_to_string(&p).unwrap();
                let m = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(m.entries().count() > 0, "{}", p.display());
                n += 1;
            }
        }
        assert!(n >= 5);
    }

    /// NVRTC's PTX for `tex1Dfetch`, `prefetch.global.L2::evict_last` and `__prof_trigger`
    /// (`pmevent`): all parse; the texture fetch is unsupported at the learner's line 2, not
    /// at a line of NVRTC's built-in header.
    #[test]
    fn parses_textures_cache_qualifiers_and_pmevent() {
        let text =
            std::fs::read_to_string(format!("{PROBES}/nvrtc_tex_prefetch_pmevent.ptx")).unwrap();
        let m = parse(&text).unwrap();
        let body = |name: &str| &m.functions.iter().find(|f| f.name == name).unwrap().body;
        let tex = body("tex")
            .iter()
            .find(|i| matches!(&i.op, Op::Unsupported { text } if text.starts_with("tex.1d")))
            .expect("the texture fetch");
        assert_eq!((m.file_name(tex.file), tex.line), (Some("odd.cu"), 2));
        for k in ["pf", "pm"] {
            assert!(
                !body(k)
                    .iter()
                    .any(|i| matches!(i.op, Op::Unsupported { .. })),
                "{k}"
            );
        }
    }

    #[test]
    fn resolves_lines_labels_and_calls() {
        let text = std::fs::read_to_string(format!("{PROBES}/t4.compute_80.lineinfo.ptx")).unwrap();
        let m = parse(&text).unwrap();
        assert_eq!(m.files[1], "t4.cu");
        let (_, k) = m.find_entry("tmpl").unwrap();
        assert_eq!(k.params.len(), 5);
        assert!(k.body.iter().any(|i| matches!(
            i.op,
            Op::Call {
                callee: Callee::Vprintf,
                ..
            }
        )));
        assert!(k.body.iter().any(|i| matches!(
            i.op,
            Op::Call {
                callee: Callee::Func(_),
                ..
            }
        )));
        let bar = k
            .body
            .iter()
            .find(|i| matches!(i.op, Op::BarSync { .. }))
            .unwrap();
        assert_eq!(bar.line, 11);
        for i in &k.body {
            if let Op::Bra { target } = i.op {
                assert!((target as usize) < k.body.len());
            }
        }
        // dynamic shared follows the static array and its red zone
        let dynv = m.shared.iter().find(|(v, _)| v.name == "dyn").unwrap();
        assert!(dynv.0.dynamic);
        assert!(dynv.1 >= 512);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for s in [
            ".entry",
            ".visible .entry k( {",
            "{ } }",
            ".global .f32 x[",
            "@",
            ".entry k() { bra nowhere; }",
        ] {
            assert!(parse(s).is_err(), "{s}");
        }
    }
}
