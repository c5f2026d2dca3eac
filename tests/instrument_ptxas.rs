//! NVIDIA's own assembler must accept the instrumented PTX, for sm_80 and sm_90, so that the
//! driver would too. ptxas needs no GPU; it comes with `pip install nvidia-cuda-nvcc-cu12`, and
//! is found where gpuzzle finds it for its CUBINs (`compile::assembler`; `GPUZZLE_PTXAS` first).
//! `.ci/run` installs it, and under CI a missing ptxas fails the test; elsewhere the test says
//! plainly that it checked nothing.

use gpuzzle::gpu::instrument::{instrument, InstrumentOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// ptxas as gpuzzle finds it for the GPU's CUBINs (`compile::assembler`: `GPUZZLE_PTXAS`, beside
/// NVRTC, toolkits, PATH, site-packages).
fn ptxas() -> Option<PathBuf> {
    match gpuzzle::compile::assembler() {
        Ok(a) => Some(a.path.clone()),
        Err(e) => {
            eprintln!("{e}");
            None
        }
    }
}

const ARCHES: [&str; 2] = ["sm_80", "sm_90"];

/// Assemble `text` for every arch of `ARCHES`; Err(stderr) when ptxas rejects it.
fn assemble(ptxas: &Path, text: &str, name: &str) -> Result<(), String> {
    for arch in ARCHES {
        assemble_for(ptxas, text, name, arch).map_err(|e| format!("{arch}: {e}"))?;
    }
    Ok(())
}

fn assemble_for(ptxas: &Path, text: &str, name: &str, arch: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let src = dir.path().join(format!("{name}.ptx"));
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&src)
        .arg("-o")
        .arg(dir.path().join("out.cubin"))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// ptxas's messages without the file and line they name (the instrumented module is another
/// file, its lines moved by the rewrite): what is wrong, not where.
fn without_places(errors: &str) -> Vec<String> {
    errors
        .lines()
        .map(|l| {
            let Some(start) = l.find("ptxas ") else {
                return l.to_string();
            };
            match l[start..].find("; ") {
                Some(semi) if l[start..start + semi].contains(", line ") => {
                    format!("{}{}", &l[..start], &l[start + semi + 2..])
                }
                _ => l.to_string(),
            }
        })
        .collect()
}

#[test]
fn ptxas_accepts_every_instrumented_module() {
    let Some(ptxas) = ptxas() else {
        let msg = "ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set GPUZZLE_PTXAS): instrumented PTX NOT checked with NVIDIA's assembler";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    // Modules with an instruction gpuzzle does not support, now a run-time fault in its place.
    let mut with_faults = Vec::new();
    // tests/ptx/instrument: hand-written PTX NVRTC does not give us (a jump table's `brx.idx`,
    // which the instrumented module keeps as written).
    // tests/kernels/async: every form of cp.async and mbarrier the three async-copy APIs emit.
    let dirs = [
        "tests/kernels",
        "tests/kernels/async",
        "tests/kernels/instrument",
        "tests/ptx",
        "tests/ptx/instrument",
        "tests/kernels/brx",
    ];
    for dir in dirs {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let text = match p.extension().and_then(|x| x.to_str()) {
                Some("ptx") => std::fs::read_to_string(&p).unwrap(),
                Some("cu") => compile_cu(&p),
                _ => continue,
            };
            let stem = p.file_stem().unwrap().to_string_lossy().replace('.', "_");
            let original = assemble(&ptxas, &text, &stem);
            let module = gpuzzle::ptx::parse(&text).unwrap();
            let first = module.entries().next().unwrap().name.clone();
            // Every kernel of the module is instrumented, whichever one is named.
            let out = instrument(&text, &first, &InstrumentOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            if out.sites.unsupported > 0 {
                with_faults.push(stem.clone());
            }
            let instrumented = assemble(&ptxas, &out.ptx, &format!("{stem}_instrumented"));
            // A module ptxas refuses as NVRTC wrote it (a planted bug: too much shared memory)
            // must be refused for the same reason, and for nothing the rewrite added.
            match (original, instrumented) {
                (Ok(()), Ok(())) => {}
                (Err(a), Err(b)) => assert_eq!(
                    without_places(&a),
                    without_places(&b),
                    "{}: other ptxas errors",
                    p.display()
                ),
                (Ok(()), Err(e)) => panic!("ptxas rejects the instrumented {}:\n{e}", p.display()),
                // The instruction ptxas refuses for this target (a bulk copy needs sm_90) is one
                // gpuzzle does not run either: the rewrite put a run-time fault in its place.
                (Err(_), Ok(())) if out.sites.unsupported > 0 => {}
                (Err(e), Ok(())) => panic!("{}: only the original is rejected: {e}", p.display()),
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} modules checked");
    assert!(
        with_faults.iter().any(|s| s == "bulk_copy"),
        "bulk_copy: {with_faults:?}"
    );
    // A jump table runs as written (its targets lie ahead), no fault in its place.
    assert!(
        !with_faults.iter().any(|s| s == "brx_jump_table"),
        "brx_jump_table: {with_faults:?}"
    );
    eprintln!("ptxas accepted {checked} instrumented modules");
}

/// Cooperative groups' tiles of more than 32 threads read `%reserved_smem_offset_*`; the
/// instrumented module then checks shared accesses against that window too, and ptxas must
/// accept it.
#[test]
fn ptxas_accepts_the_reserved_shared_memory_window() {
    let Some(ptxas) = ptxas() else {
        let msg = "ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set GPUZZLE_PTXAS): instrumented PTX NOT checked with NVIDIA's assembler";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = compile_cu(&root.join("tests/kernels/tutorial/reserved_smem/cg_big_tiles.cu"));
    let module = gpuzzle::ptx::parse(&text).unwrap();
    assert!(module.uses_reserved_smem);
    let first = module.entries().next().unwrap().name.clone();
    let out = instrument(&text, &first, &InstrumentOptions::default()).unwrap();
    assert!(out.ptx.contains("%reserved_smem_offset_end"));
    if let Err(e) = assemble(&ptxas, &out.ptx, "cg_big_tiles_instrumented") {
        panic!("ptxas rejects the instrumented cg_big_tiles.cu:\n{e}");
    }
}

/// A grid sync (the grid workspace let through, sm_80 and sm_90) and a cluster kernel with
/// distributed shared memory (sm_90 only) instrumented, and sm_90's vector atomics: ptxas must
/// accept them.
#[test]
fn ptxas_accepts_grid_sync_and_cluster_windows() {
    let Some(ptxas) = ptxas() else {
        let msg = "ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set GPUZZLE_PTXAS): instrumented PTX NOT checked with NVIDIA's assembler";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let grid = compile_cu(&root.join("tests/kernels/grid/grid_sum.cu"));
    let out = instrument(&grid, "grid_sum", &InstrumentOptions::default()).unwrap();
    assert!(out.ptx.contains("%envreg1"));
    if let Err(e) = assemble(&ptxas, &out.ptx, "grid_sum_instrumented") {
        panic!("ptxas rejects the instrumented grid_sum.cu:\n{e}");
    }
    let p = root.join("tests/kernels/grid/cluster_ring.cu");
    let src = std::fs::read_to_string(&p).unwrap();
    let arch = [gpuzzle::compile::Arch::Sm90.nvrtc_option()];
    let mut req = gpuzzle::compile::CompileRequest::new("cluster_ring.cu", &src);
    req.extra_options = &arch;
    let ptx = gpuzzle::compile::compile(&req).unwrap().ptx.to_string();
    let out = instrument(&ptx, "cluster_ring", &InstrumentOptions::default()).unwrap();
    assert!(out.ptx.contains("16777216"));
    if let Err(e) = assemble_for(&ptxas, &out.ptx, "cluster_ring_instrumented", "sm_90") {
        panic!("ptxas rejects the instrumented cluster_ring.cu:\n{e}");
    }
    // sm_90's vector atomics, whose skipped form zeroes each old value.
    let p = root.join("tests/kernels/grid/vector_atomics.cu");
    let src = std::fs::read_to_string(&p).unwrap();
    let mut req = gpuzzle::compile::CompileRequest::new("vector_atomics.cu", &src);
    req.extra_options = &arch;
    let ptx = gpuzzle::compile::compile(&req).unwrap().ptx.to_string();
    let out = instrument(&ptx, "vector_atomics", &InstrumentOptions::default()).unwrap();
    assert!(out.ptx.contains("atom.global.add.v4.f32"));
    if let Err(e) = assemble_for(&ptxas, &out.ptx, "vector_atomics_instrumented", "sm_90") {
        panic!("ptxas rejects the instrumented vector_atomics.cu:\n{e}");
    }
}

/// With `GPUZZLE_DUMP=DIR`, write two instrumented corpus modules there for reading or for
/// assembling by hand; otherwise nothing.
#[test]
fn dump_for_manual_inspection() {
    if let Some(dir) = std::env::var_os("GPUZZLE_DUMP") {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for name in ["device_func", "map"] {
            let text = compile_cu(&root.join(format!("tests/kernels/instrument/{name}.cu")));
            let out = instrument(&text, name, &InstrumentOptions::default()).unwrap();
            std::fs::write(Path::new(&dir).join(format!("{name}.ptx")), out.ptx).unwrap();
        }
    }
}

fn compile_cu(p: &Path) -> String {
    let src = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let name = p.file_name().unwrap().to_string_lossy().into_owned();
    let req = gpuzzle::compile::CompileRequest::new(&name, &src);
    gpuzzle::compile::compile(&req)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .ptx
        .to_string()
}

/// NVRTC 13's PTX (`tests/ptx/nvrtc13/`, `.version 9.5`) lowered as `gpu::driver` lowers it for a
/// CUDA 12.9 driver: ptxas 12.9 (which, like that driver's JIT, reads PTX ISA 8.8 at most) must
/// accept it, as written and instrumented. So a CUDA 13 NVRTC works with a CUDA 12 driver.
#[test]
fn ptxas_12_accepts_nvrtc_13_ptx_once_lowered() {
    let Some(ptxas) = ptxas() else {
        let msg = "ptxas not found: NVRTC 13's lowered PTX NOT checked with NVIDIA's assembler";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx/nvrtc13");
    let mut checked = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let candidates = gpuzzle::gpu::driver::load_candidates(&text, (12, 9), (9, 0));
        let (what, lowered) = candidates
            .last()
            .unwrap_or_else(|| panic!("{}: no candidate", p.display()));
        assert!(what.contains("lowered to 8.8"), "{}: {what}", p.display());
        if let Err(e) = assemble(&ptxas, lowered, &stem) {
            panic!("ptxas rejects {} lowered to 8.8:\n{e}", p.display());
        }
        let module = gpuzzle::ptx::parse(lowered).unwrap();
        let first = module.entries().next().unwrap().name.clone();
        let out = instrument(lowered, &first, &InstrumentOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if let Err(e) = assemble(&ptxas, &out.ptx, &format!("{stem}_instrumented")) {
            panic!("ptxas rejects the instrumented {}:\n{e}", p.display());
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} fixtures");
}
