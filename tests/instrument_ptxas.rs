//! NVIDIA's own assembler must accept the instrumented PTX. Opt-in, because `ptxas` is not part
//! of the build: point `GPUZZLE_PTXAS` at a `ptxas` binary and run `cargo test --test
//! instrument_ptxas`. ptxas needs no GPU; one comes in the PyPI wheel `nvidia-cuda-nvcc-cu12`
//! (`pip download --no-deps nvidia-cuda-nvcc-cu12==12.9.86`, unzip, `nvidia/cuda_nvcc/bin/ptxas`).
//! Without the variable the test passes after saying it checked nothing.

use gpuzzle::gpu::instrument::{instrument, InstrumentOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn ptxas() -> Option<PathBuf> {
    std::env::var_os("GPUZZLE_PTXAS").map(PathBuf::from)
}

/// Assemble `text` for sm_80; Err(stderr) when ptxas rejects it.
fn assemble(ptxas: &Path, text: &str, name: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let src = dir.path().join(format!("{name}.ptx"));
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg("-arch=sm_80")
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

#[test]
fn ptxas_accepts_every_instrumented_module() {
    let Some(ptxas) = ptxas() else {
        eprintln!("GPUZZLE_PTXAS is not set: instrumented PTX not checked with ptxas");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for dir in ["tests/kernels/instrument", "tests/ptx"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let text = match p.extension().and_then(|x| x.to_str()) {
                Some("ptx") => std::fs::read_to_string(&p).unwrap(),
                Some("cu") => compile_cu(&p),
                _ => continue,
            };
            let stem = p.file_stem().unwrap().to_string_lossy().replace('.', "_");
            // Only modules ptxas accepts as NVRTC wrote them say anything about the rewrite.
            if let Err(e) = assemble(&ptxas, &text, &stem) {
                eprintln!("skipping {}: ptxas rejects the original: {e}", p.display());
                continue;
            }
            let module = gpuzzle::ptx::parse(&text).unwrap();
            let first = module.entries().next().unwrap().name.clone();
            let out = instrument(&text, &first, &InstrumentOptions::default()).unwrap();
            if let Err(e) = assemble(&ptxas, &out.ptx, &format!("{stem}_instrumented")) {
                panic!("ptxas rejects the instrumented {}:\n{e}", p.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} modules checked");
    eprintln!("ptxas accepted {checked} instrumented modules");
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
