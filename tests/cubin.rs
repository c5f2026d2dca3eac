//! The CUBIN path without a GPU: gpuzzle finds ptxas, and instrumented kernels (puzzle 1's
//! solution; `mma.sync` and `cp.async` kernels compiled for sm_90) assemble into CUBINs whose ELF
//! header names the architecture asked for, kept in the CUBIN cache and read back from it the
//! second time. Loading them needs a GPU (`tests/gpu_backend.rs`).
//!
//! ptxas comes with `pip install nvidia-cuda-nvcc-cu12` (a dependency of gpuzzle's wheel; `.ci/run`
//! installs it), found beside NVRTC or through `GPUZZLE_PTXAS`: without it these tests fail
//! saying so, as the tests that need NVRTC do.

use gpuzzle::compile::{self, Arch, Assembler, CubinCache};
use gpuzzle::gpu::instrument::{instrument, InstrumentOptions};
use gpuzzle::gpu::loader::{self, LoadPath};
use std::path::Path;

fn ptxas() -> &'static Assembler {
    compile::assembler().unwrap_or_else(|e| panic!("these tests need NVIDIA's PTX assembler: {e}"))
}

/// PTX of `file` (relative to the project) compiled for `arch`, then instrumented around
/// `kernel`, as the GPU worker instruments it.
fn instrumented(file: &str, kernel: &str, arch: Arch) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let options = [arch.nvrtc_option()];
    let mut req = compile::CompileRequest::new(file, &src);
    req.extra_options = &options;
    let ptx = compile::compile(&req)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .ptx;
    instrument(&ptx, kernel, &InstrumentOptions::default())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .ptx
}

/// The SM in a CUBIN's ELF header, read here from the raw bytes (not through gpuzzle's reader):
/// `e_flags` at byte 48; ABI version 7 (CUDA 12) keeps the SM in its low byte, 8 (CUDA 13) in
/// the next one.
fn elf_sm(bytes: &[u8]) -> u32 {
    assert_eq!(&bytes[..4], b"\x7fELF", "no ELF magic");
    assert_eq!(
        u16::from_le_bytes([bytes[18], bytes[19]]),
        190,
        "not EM_CUDA"
    );
    let flags = u32::from_le_bytes([bytes[48], bytes[49], bytes[50], bytes[51]]);
    if bytes[8] >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    }
}

fn cubin_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "cubin"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn ptxas_is_found_and_names_its_version() {
    let a = ptxas();
    assert!(a.path.is_file(), "{}", a.path.display());
    assert!(a.version.0 >= 12, "{a:?}");
    assert!(
        a.full_version
            .starts_with(&format!("{}.{}", a.version.0, a.version.1)),
        "{a:?}"
    );
    assert!(a.name().starts_with("ptxas 1"), "{}", a.name());
}

#[test]
fn puzzle_1s_instrumented_solution_assembles_for_sm_80_and_sm_90_and_is_cached() {
    let a = ptxas();
    let ptx = instrumented("solutions/01_map.cu", "map", Arch::Sm80);
    // The instrumented module, not NVRTC's: it has the control block parameter.
    assert!(ptx.contains("__gpuzzle"), "not instrumented?");
    let dir = tempfile::tempdir().unwrap();
    let cache = CubinCache::new(dir.path().join("cubin"));
    for (target, sm) in [("sm_80", 80), ("sm_90", 90)] {
        let first = cache.get(&ptx, target, a).unwrap_or_else(|e| panic!("{e}"));
        assert!(!first.cached, "{target}: nothing was cached yet");
        assert_eq!(elf_sm(&first.bytes), sm, "{target}");
        assert_eq!(first.header.sm, sm);
        assert_eq!(first.header.target(), target);
        let second = cache.get(&ptx, target, a).unwrap();
        assert!(
            second.cached,
            "{target}: the second time comes from the cache"
        );
        assert_eq!(second.bytes, first.bytes);
    }
    assert_eq!(cubin_files(cache.dir()), 2);

    // A damaged entry is a miss: assembled again and rewritten, never loaded.
    for e in std::fs::read_dir(cache.dir()).unwrap().flatten() {
        std::fs::write(e.path(), b"not a cubin").unwrap();
    }
    let again = cache.get(&ptx, "sm_90", a).unwrap();
    assert!(!again.cached);
    assert_eq!(elf_sm(&again.bytes), 90);
    assert!(cache.get(&ptx, "sm_90", a).unwrap().cached);
}

#[test]
fn modern_kernels_for_sm_90_assemble_for_a_hopper_gpu_and_not_for_an_ampere_one() {
    ptxas();
    let dir = tempfile::tempdir().unwrap();
    let cache = CubinCache::new(dir.path().to_path_buf());
    let cases = [
        (
            "tests/kernels/instrument/ldmatrix_mma.cu",
            "ldmatrix_mma",
            "mma.sync",
        ),
        (
            "tests/kernels/instrument/async_copy.cu",
            "async_copy",
            "cp.async",
        ),
        (
            "tests/kernels/grid/cluster_ring.cu",
            "cluster_ring",
            "cluster",
        ),
    ];
    for (file, kernel, needle) in cases {
        let ptx = instrumented(file, kernel, Arch::Sm90);
        assert!(ptx.contains(needle), "{file}: no {needle}");
        assert!(ptx.contains(".target sm_90"), "{file}");
        // What the GPU worker does first on an H100 under a CUDA 12.9 driver.
        let (cubin, how) = loader::cubin_for_device(&ptx, (9, 0), (12, 9), &cache)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(elf_sm(&cubin.bytes), 90, "{file}");
        match &how {
            LoadPath::Cubin { target, assembler } => {
                assert_eq!(target, "sm_90");
                assert_eq!(assembler, &ptxas().name());
            }
            other => panic!("{file}: {other}"),
        }
        assert!(
            how.to_string().starts_with("CUBIN for sm_90 via ptxas "),
            "{how}"
        );
        // An A100 cannot run sm_90 code: no CUBIN, and the PTX path says why.
        let why = loader::cubin_for_device(&ptx, (8, 0), (12, 9), &cache).unwrap_err();
        assert!(
            why.contains("the PTX targets sm_90, newer than this GPU (sm_80)"),
            "{file}: {why}"
        );
    }
    assert_eq!(cubin_files(cache.dir()), 3);
}

#[test]
fn nvrtc_13_ptx_is_lowered_for_a_cuda_12_ptxas() {
    let a = ptxas();
    if a.version.0 > 12 {
        eprintln!(
            "ptxas {} reads PTX ISA 9.x: nothing to lower",
            a.full_version
        );
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx/nvrtc13");
    let mut checked = 0;
    for e in std::fs::read_dir(&path).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "ptx") {
            continue;
        }
        let ptx = std::fs::read_to_string(&p).unwrap();
        assert!(ptx.contains(".version 9."), "{}", p.display());
        let dir = tempfile::tempdir().unwrap();
        let cache = CubinCache::new(dir.path().to_path_buf());
        let (cubin, _) = loader::cubin_for_device(&ptx, (9, 0), (12, 9), &cache)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(elf_sm(&cubin.bytes), 90);
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} fixtures");
}

/// `doctor` names the assembler it found and how kernels will load; a `GPUZZLE_PTXAS` that
/// points nowhere is said, with the PTX fallback.
#[test]
fn doctor_names_the_assembler_and_the_fallback() {
    let a = ptxas();
    let doctor = |ptxas: Option<&str>| {
        let mut c = assert_cmd::Command::cargo_bin("gpuzzle").unwrap();
        c.current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .arg("doctor");
        match ptxas {
            Some(p) => c.env(compile::PTXAS_ENV, p),
            None => c.env_remove(compile::PTXAS_ENV),
        };
        let out = c.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let found = doctor(None);
    let line = found
        .lines()
        .find(|l| l.contains("PTX assembler"))
        .unwrap_or_else(|| panic!("no assembler line:\n{found}"));
    assert!(line.starts_with("ok  PTX assembler ptxas "), "{line}");
    assert!(line.contains(&a.full_version), "{line}");
    assert!(line.contains("kernels load as CUBIN"), "{line}");

    let missing = doctor(Some("/nonexistent/ptxas"));
    assert!(
        missing.contains("GPUZZLE_PTXAS=/nonexistent/ptxas: no such file"),
        "{missing}"
    );
    assert!(
        missing.contains("on a GPU, kernels load as PTX, JIT-compiled by the driver"),
        "{missing}"
    );
    assert!(!missing.contains("ok  PTX assembler"), "{missing}");
}
