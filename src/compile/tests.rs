//! Tests that run the real NVRTC. Without it they fail (never skip) with the
//! message a learner would get: "NVRTC not found: pip install ...".

use super::*;
use std::thread;

fn require_nvrtc() -> NvrtcInfo {
    locate().unwrap_or_else(|err| panic!("{err}"))
}

/// A compiler with a fresh disk cache, so tests never touch ~/.cache.
fn fresh_compiler() -> (PtxCompiler, tempfile::TempDir) {
    require_nvrtc();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    (PtxCompiler::new(Some(dir.path().join("ptx"))), dir)
}

const MAP: &str = r#"extern "C" __global__ void map_add_ten(float* out, const float* a, int size) {
    int i = threadIdx.x;
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
}
"#;

#[test]
fn locate_reports_a_loaded_nvrtc() {
    let info = require_nvrtc();
    assert!(info.path.is_absolute(), "{info:?}");
    assert!(info.path.exists(), "{info:?}");
    assert!(!info.found_by.is_empty());
    assert!(info.version.0 >= 11, "{info:?}");
    // Once per process: the same answer every time.
    assert_eq!(locate().ok(), Some(info.clone()));
    if info.version.0 == 12 {
        // The library is global under its SONAME, so cudarc's own load by
        // bare name (and its presence check, which never panics) finds it.
        // SAFETY: only dlopens candidate names.
        assert!(unsafe { cudarc::nvrtc::sys::is_culib_present() });
    }
}

#[test]
fn ptx_has_entry_line_info_and_the_learners_file_name() {
    let (compiler, _dir) = fresh_compiler();
    let compiled = compiler
        .compile(&CompileRequest::new("puzzles/01_map.cu", MAP))
        .unwrap_or_else(|err| panic!("{err}"));
    let ptx = &*compiled.ptx;
    assert!(ptx.contains(".visible .entry map_add_ten("), "{ptx}");
    assert!(ptx.contains(".target sm_80"), "{ptx}");
    assert!(ptx.contains("\t.loc\t1 4 "), "line 4 is the store: {ptx}");
    assert!(ptx.contains(".file\t1 \"puzzles/01_map.cu\""), "{ptx}");
    assert!(compiled.warnings.is_empty(), "{:?}", compiled.warnings);
    assert!(!compiled.cached);
}

/// A file some editor saved with a UTF-8 byte-order mark compiles as it would with nvcc, its
/// lines where they were.
#[test]
fn a_byte_order_mark_is_ignored() {
    let (compiler, _dir) = fresh_compiler();
    let marked = format!("\u{feff}{MAP}");
    let compiled = compiler
        .compile(&CompileRequest::new("k.cu", &marked))
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(compiled.ptx.contains("\t.loc\t1 4 "), "{}", compiled.ptx);
}

#[test]
fn an_unchanged_kernel_is_never_recompiled() {
    let (compiler, dir) = fresh_compiler();
    let req = CompileRequest::new("puzzles/01_map.cu", MAP);
    let first = compiler.compile(&req).unwrap_or_else(|err| panic!("{err}"));
    let second = compiler.compile(&req).unwrap_or_else(|err| panic!("{err}"));
    assert!(!first.cached);
    assert!(second.cached);
    assert_eq!(first.ptx, second.ptx);

    // A new process (a new compiler on the same directory) reads the disk.
    let again = PtxCompiler::new(Some(dir.path().join("ptx")));
    let third = again.compile(&req).unwrap_or_else(|err| panic!("{err}"));
    assert!(third.cached);
    assert_eq!(third.ptx, first.ptx);

    // Any change to the source, the name or the defines is a new compile.
    let edited = MAP.replace("10.0f", "11.0f");
    let changed = compiler
        .compile(&CompileRequest::new("puzzles/01_map.cu", &edited))
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(!changed.cached);
    let renamed = compiler
        .compile(&CompileRequest::new("puzzles/02_map.cu", MAP))
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(!renamed.cached);
    assert!(renamed.ptx.contains("\"puzzles/02_map.cu\""));
    let defines = [("UNUSED".to_string(), None)];
    let defined = compiler
        .compile(&CompileRequest {
            defines: &defines,
            ..req
        })
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(!defined.cached);
}

/// Real NVRTC: a missing `)` or `;` is reported at the next line's first token; the message is
/// moved to the end of the line that needs it.
#[test]
fn a_missing_token_is_reported_at_the_end_of_the_line_that_needs_it() {
    let (compiler, _dir) = fresh_compiler();
    let first_error = |source: &str, nvrtc_says: &str| {
        let err = compiler
            .compile(&CompileRequest::new("p.cu", source))
            .err()
            .unwrap_or_else(|| panic!("compiled: {source}"));
        let CompileError::Compilation { log, messages, .. } = &err else {
            panic!("expected a compilation error, got {err:?}");
        };
        assert!(log.contains(nvrtc_says), "{log}");
        let errors: Vec<_> = messages
            .iter()
            .filter(|m| m.severity == MessageSeverity::Error)
            .map(|m| (m.line, m.column, m.message.clone()))
            .collect();
        errors
            .first()
            .cloned()
            .unwrap_or_else(|| panic!("no error in {log}"))
    };
    let paren = "extern \"C\" __global__ void k(float* out) {\n    int i = threadIdx.x;\n    if (i < 4\n        out[i] = 1.0f;\n}\n";
    assert_eq!(
        first_error(paren, "p.cu(4): error: expected a \")\""),
        (
            Some(3),
            Some(14),
            "expected a \")\" at the end of this line\nNVRTC reported it at 4:9, at the next token"
                .to_string()
        )
    );
    let semicolon = "extern \"C\" __global__ void k(float* out) {\n    __syncthreads()\n\n    out[0] = 2.0f;\n}\n";
    assert_eq!(
        first_error(semicolon, "p.cu(4): error: expected a \";\""),
        (
            Some(2),
            Some(20),
            "expected a \";\" at the end of this line\nNVRTC reported it at 4:5, at the next token"
                .to_string()
        )
    );
}

#[test]
fn a_compile_error_maps_to_the_learners_line() {
    let (compiler, _dir) = fresh_compiler();
    let source = "extern \"C\" __global__ void pool(float* out, const float* a) {\n    int i = threadIdx.x;\n    out[i] = a[i] + x;\n}\n";
    let err = compiler
        .compile(&CompileRequest::new("puzzles/09_pooling.cu", source))
        .err()
        .unwrap_or_else(|| panic!("an undefined identifier compiled"));
    let CompileError::Compilation {
        file,
        log,
        messages,
    } = &err
    else {
        panic!("expected a compilation error, got {err:?}");
    };
    assert_eq!(file, "puzzles/09_pooling.cu");
    assert!(
        log.contains("puzzles/09_pooling.cu(3): error: identifier \"x\" is undefined"),
        "{log}"
    );
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].file, "puzzles/09_pooling.cu");
    assert_eq!(messages[0].line, Some(3));
    assert_eq!(messages[0].column, Some(21));
    assert_eq!(messages[0].severity, MessageSeverity::Error);
    assert_eq!(messages[0].message, "identifier \"x\" is undefined");
    assert!(
        err.to_string()
            .contains("puzzles/09_pooling.cu:3:21: error: identifier \"x\" is undefined"),
        "{err}"
    );
    // A failure is not cached: fixing nothing fails again the same way.
    assert!(compiler
        .compile(&CompileRequest::new("puzzles/09_pooling.cu", source))
        .is_err());
}

#[test]
fn warnings_of_a_successful_compile_come_back_also_from_the_cache() {
    let (compiler, dir) = fresh_compiler();
    let source = "extern \"C\" __global__ void k(float* out) {\n    int unused = 3;\n    out[threadIdx.x] = 1.0f;\n}\n";
    let req = CompileRequest::new("w.cu", source);
    let check = |compiled: &Compiled| {
        assert_eq!(compiled.warnings.len(), 1, "{:?}", compiled.warnings);
        let warning = &compiled.warnings[0];
        assert_eq!(warning.severity, MessageSeverity::Warning);
        assert_eq!(warning.line, Some(2));
        assert_eq!(warning.code.as_deref(), Some("177-D"));
        assert!(warning.message.contains("\"unused\""), "{warning:?}");
    };
    let first = compiler.compile(&req).unwrap_or_else(|err| panic!("{err}"));
    check(&first);
    check(&compiler.compile(&req).unwrap_or_else(|err| panic!("{err}")));
    let from_disk = PtxCompiler::new(Some(dir.path().join("ptx")))
        .compile(&req)
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(from_disk.cached);
    check(&from_disk);
}

#[test]
fn defines_reach_the_kernel() {
    let (compiler, _dir) = fresh_compiler();
    let source = "#ifndef FLAG\n#error FLAG is required\n#endif\nextern \"C\" __global__ void k(int* out) {\n    out[threadIdx.x] = TPB * 7;\n}\n";
    let defines = [
        ("TPB".to_string(), Some("6".to_string())),
        ("FLAG".to_string(), None),
    ];
    let req = CompileRequest {
        file_name: "d.cu",
        source,
        defines: &defines,
        extra_options: &[],
    };
    let compiled = compiler.compile(&req).unwrap_or_else(|err| panic!("{err}"));
    // 6 * 7 folded by the compiler: only a define could have supplied the 6.
    assert!(compiled.ptx.contains(", 42;"), "{}", compiled.ptx);

    // Without FLAG the #error fires, on the learner's line 2.
    let only_tpb = &defines[..1];
    let err = compiler
        .compile(&CompileRequest {
            defines: only_tpb,
            ..req
        })
        .err();
    match err {
        Some(CompileError::Compilation { messages, .. }) => {
            assert_eq!(messages[0].line, Some(2));
            assert!(messages[0].message.contains("FLAG is required"));
        }
        other => panic!("expected the #error, got {other:?}"),
    }
}

#[test]
fn options_are_fixed_then_defines_then_extra() {
    let defines = [
        ("TPB".to_string(), Some("8".to_string())),
        ("DEBUG".to_string(), None),
    ];
    let extra = ["-use_fast_math".to_string()];
    let req = CompileRequest {
        file_name: "a.cu",
        source: "",
        defines: &defines,
        extra_options: &extra,
    };
    assert_eq!(
        options_for(&req).unwrap_or_else(|err| panic!("{err}")),
        vec![
            "-lineinfo",
            "--gpu-architecture=compute_80",
            "-std=c++17",
            "-DTPB=8",
            "-DDEBUG",
            "-use_fast_math"
        ]
    );
    for bad in ["1X", "A B", "", "A=1", "-x"] {
        let defines = [(bad.to_string(), None)];
        let err = options_for(&CompileRequest {
            defines: &defines,
            ..req
        });
        assert!(
            matches!(&err, Err(CompileError::BadRequest(text)) if text.contains("not a C identifier")),
            "{bad:?}: {err:?}"
        );
    }
    let defines = [(
        "MAX(a,b)".to_string(),
        Some("((a)>(b)?(a):(b))".to_string()),
    )];
    assert!(options_for(&CompileRequest {
        defines: &defines,
        ..req
    })
    .is_ok());
}

#[test]
fn a_bad_extra_option_is_an_nvrtc_error_naming_it() {
    let (compiler, _dir) = fresh_compiler();
    let extra = ["--no-such-option".to_string()];
    let err = compiler
        .compile(&CompileRequest {
            extra_options: &extra,
            ..CompileRequest::new("a.cu", MAP)
        })
        .err();
    match err {
        Some(CompileError::Nvrtc(text)) => {
            assert!(text.contains("NVRTC_ERROR_INVALID_OPTION"), "{text}");
            assert!(text.contains("--no-such-option"), "{text}");
        }
        other => panic!("expected an NVRTC error, got {other:?}"),
    }
}

#[test]
fn a_nul_byte_in_the_source_is_reported_on_its_line() {
    let (compiler, _dir) = fresh_compiler();
    let err = compiler
        .compile(&CompileRequest::new("n.cu", "// ok\n// bad \0 here\n"))
        .err();
    match err {
        Some(CompileError::Compilation { messages, .. }) => {
            assert_eq!(messages[0].line, Some(2));
            assert!(messages[0].message.contains("NUL"));
        }
        other => panic!("expected a compilation error, got {other:?}"),
    }
}

#[test]
fn compiles_run_in_parallel_and_share_one_compile_per_kernel() {
    let (compiler, _dir) = fresh_compiler();
    let sources: Vec<String> = (0..4)
        .map(|n| MAP.replace("map_add_ten", &format!("kernel_{n}")))
        .collect();
    // Four distinct kernels, each asked for by three threads at once.
    let results: Vec<(usize, Compiled)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..12)
            .map(|t| {
                let (compiler, sources) = (&compiler, &sources);
                scope.spawn(move || {
                    let n = t % 4;
                    let req = CompileRequest::new("p.cu", &sources[n]);
                    (
                        n,
                        compiler.compile(&req).unwrap_or_else(|err| panic!("{err}")),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| panic!("a compile thread panicked"))
            })
            .collect()
    });
    for n in 0..4 {
        let mine: Vec<&Compiled> = results
            .iter()
            .filter(|(k, _)| *k == n)
            .map(|(_, c)| c)
            .collect();
        assert_eq!(mine.len(), 3);
        let fresh = mine.iter().filter(|c| !c.cached).count();
        assert_eq!(fresh, 1, "kernel {n} compiled {fresh} times");
        for compiled in mine {
            assert!(compiled.ptx.contains(&format!(".entry kernel_{n}(")));
        }
    }
}

#[test]
fn file_names_in_ptx_are_as_given_wherever_gpuzzle_runs() {
    let (compiler, _dir) = fresh_compiler();
    for (name, in_ptx) in [
        ("puzzles/09_pooling.cu", "puzzles/09_pooling.cu"),
        ("./k.cu", "./k.cu"),
        ("my dir/k \"1\".cu", "my dir/k \\\"1\\\".cu"),
        ("ünï.cu", "\\303\\274n\\303\\257.cu"),
        ("/abs/dir/k.cu", "/abs/dir/k.cu"),
    ] {
        let compiled = compiler
            .compile(&CompileRequest::new(name, MAP))
            .unwrap_or_else(|err| panic!("{err}"));
        let files: Vec<&str> = compiled
            .ptx
            .lines()
            .filter(|line| line.trim_start().starts_with(".file"))
            .collect();
        assert_eq!(files, vec![format!("\t.file\t1 \"{in_ptx}\"")], "{name}");
    }
}

#[test]
fn a_changed_header_recompiles_and_an_unchanged_one_is_cached() {
    let (compiler, _dir) = fresh_compiler();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let header = dir.path().join("value.h");
    let include_dir = format!("-I{}", dir.path().display());
    let extra = [include_dir];
    let source =
        "#include \"value.h\"\nextern \"C\" __global__ void k(int* out) { out[0] = VALUE * 3; }\n";
    let req = CompileRequest {
        extra_options: &extra,
        ..CompileRequest::new("inc.cu", source)
    };
    for value in [5, 7] {
        std::fs::write(&header, format!("#define VALUE {value}\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        let compiled = compiler.compile(&req).unwrap_or_else(|err| panic!("{err}"));
        assert!(!compiled.cached, "VALUE {value}: the header changed");
        assert!(
            compiled.ptx.contains(&format!(", {};", value * 3)),
            "{}",
            compiled.ptx
        );
        let again = compiler.compile(&req).unwrap_or_else(|err| panic!("{err}"));
        assert!(again.cached, "VALUE {value}: nothing changed");
        assert_eq!(again.ptx, compiled.ptx);
    }
}

#[test]
fn host_headers_from_tutorials_are_harmless() {
    let (compiler, _dir) = fresh_compiler();
    let source = "#include <stdio.h>\n#include <stdlib.h>\n#include <cstdint>\n#include <math.h>\n\
                  #include <cfloat>\n#include <climits>\n\
                  extern \"C\" __global__ void k(float* out, int64_t* n) {\n\
                  out[0] = FLT_MAX + M_PI + __FLT_MAX__ + INT_MAX + __INT_MAX__;\n\
                  std::int32_t x = INT32_MAX; n[0] = x; printf(\"%d\\n\", x);\n}\n";
    let compiled = compiler
        .compile(&CompileRequest::new("habits.cu", source))
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(compiled.ptx.contains("vprintf"), "{}", compiled.ptx);
}

#[test]
fn restore_file_name_touches_only_the_programs_entry() {
    let ptx = "\t.loc\t1 4 9\n\t.file\t1 \"/cwd/puzzles/09.cu\"\n\t.file\t2 \"/usr/include/x.h\"\n";
    assert_eq!(
        restore_file_name(ptx, "puzzles/09.cu"),
        "\t.loc\t1 4 9\n\t.file\t1 \"puzzles/09.cu\"\n\t.file\t2 \"/usr/include/x.h\"\n"
    );
    // A different file that merely ends in the same characters is kept.
    let other = "\t.file\t1 \"/cwd/xpuzzles/09.cu\"\n";
    assert_eq!(restore_file_name(other, "puzzles/09.cu"), other);
    assert_eq!(restore_file_name(ptx, "/cwd/puzzles/09.cu"), ptx);
}
