//! `gpuzzle doctor`: what gpuzzle found (NVRTC, the PTX assembler, GPU, workspace, cache) and how
//! to fix what is missing. With a GPU it runs a one-line kernel there, which says how kernels
//! load (a CUBIN for the GPU's architecture, or PTX and why) and shows a driver that cannot load
//! them with its own error.

use super::common::WorkspaceArgs;
use super::output::outln;
use crate::compile;
use crate::gpu::probe;
use crate::puzzle::Workspace;
use anyhow::Result;
use clap::Args;
use colored::Colorize;

#[derive(Args, Debug)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

pub fn run(a: &DoctorArgs) -> Result<i32> {
    let mut ok = true;
    let good = "ok".green().bold();
    let bad = "missing".red().bold();
    match compile::locate() {
        Ok(info) => outln!(
            "{good}  NVRTC {}.{} at {} (found via {})",
            info.version.0,
            info.version.1,
            info.path.display(),
            info.found_by
        ),
        Err(e) => {
            ok = false;
            outln!("{bad}  {e}");
        }
    }
    let assembler = compile::assembler();
    match assembler {
        Ok(a) => outln!(
            "{good}  PTX assembler {} at {} (found via {}): on a GPU, kernels load as CUBIN for its own architecture{}",
            a.name(),
            a.path.display(),
            a.found_by,
            if compile::cubin_disabled() {
                format!(" (but {} is set: PTX)", compile::NO_CUBIN_ENV)
            } else {
                String::new()
            }
        ),
        Err(e) => outln!(
            "{}  {e}\n      on a GPU, kernels load as PTX, JIT-compiled by the driver (which refuses PTX from an NVRTC newer than the driver)",
            "info".cyan().bold()
        ),
    }
    if let Ok(headers) = compile::cuda_headers() {
        let kinds = [
            (
                "runtime (cooperative_groups.h, cuda_fp16.h)",
                &headers.runtime,
            ),
            ("CCCL (cuda/std, cub)", &headers.cccl),
        ];
        for (what, found) in kinds {
            match found {
                Some((dir, found_by)) => outln!(
                    "{good}  CUDA headers, {what}: {} (found {found_by})",
                    dir.display()
                ),
                None => outln!(
                    "{}  CUDA headers, {what}: not found; kernels that include them need: {}",
                    "info".cyan().bold(),
                    headers
                        .install_hint
                        .as_deref()
                        .unwrap_or("the CUDA toolkit")
                ),
            }
        }
        match &headers.wmma {
            Some((dir, found_by)) => outln!(
                "{good}  CUDA headers, WMMA (mma.h needs crt/mma.h): {} (found {found_by})",
                dir.display()
            ),
            None => outln!(
                "{}  CUDA headers, WMMA (mma.h needs crt/mma.h): not found; kernels that include <mma.h> need: {}",
                "info".cyan().bold(),
                headers
                    .wmma_install_hint
                    .as_deref()
                    .unwrap_or("the CUDA toolkit")
            ),
        }
    }
    match probe::probe() {
        Ok(gpus) => {
            for g in &gpus {
                outln!(
                    "{good}  GPU {} (compute capability {}.{}, {} MiB), CUDA driver {}.{}",
                    g.name,
                    g.compute_capability.0,
                    g.compute_capability.1,
                    g.memory_bytes >> 20,
                    g.driver_version.0,
                    g.driver_version.1
                );
            }
            outln!("      backend: GPU by default (--backend auto); --backend emu for the race and uninitialised-read checkers");
            if let Some(g) = gpus.first() {
                match trial_launch(g.compute_capability) {
                    Ok(how) => outln!("{good}  a test kernel ran on the GPU, loaded as {how}"),
                    Err(e) => {
                        ok = false;
                        outln!("{bad}  a test kernel did not run on the GPU: {e}");
                    }
                }
            }
        }
        Err(why) => outln!(
            "{}  no GPU: {why}\n      backend: emulator (no GPU needed)",
            "info".cyan().bold()
        ),
    }
    let cwd = std::env::current_dir()?;
    let over = Workspace::puzzles_override(a.ws.puzzles.as_deref());
    match Workspace::discover(&cwd, over.as_deref()) {
        Ok(ws) => match ws.load_puzzles() {
            Ok(p) => outln!(
                "{good}  workspace {} ({} puzzles in {})",
                ws.root.display(),
                p.len(),
                ws.puzzles_dir.display()
            ),
            Err(e) => {
                ok = false;
                outln!("{bad}  workspace {}: {e}", ws.root.display());
            }
        },
        Err(e) => outln!("{}  no workspace here: {e}", "info".cyan().bold()),
    }
    outln!(
        "{}  PTX cache {} (the GPU's CUBINs in {})",
        "info".cyan().bold(),
        compile::cache_dir().display(),
        compile::cubin_cache_dir().display()
    );
    Ok(if ok { 0 } else { super::EXIT_USAGE })
}

/// Compile a one-line kernel for the GPU's architecture and run it there, as every GPU launch
/// runs (instrumented, in the worker): how its module was loaded, or why it did not run.
fn trial_launch(cc: (i32, i32)) -> Result<String, String> {
    use crate::emu::value::{Buffer, ElemType, KernelArg};
    use crate::gpu::backend::{self, Executor};
    const SOURCE: &str = "extern \"C\" __global__ void gpuzzle_doctor(int* out) { out[threadIdx.x] = threadIdx.x + 1; }\n";
    const THREADS: usize = 32;
    let arch = [compile::Arch::for_device(cc).nvrtc_option()];
    let mut req = compile::CompileRequest::new("gpuzzle_doctor.cu", SOURCE);
    req.extra_options = &arch;
    let ptx = compile::compile(&req).map_err(|e| e.to_string())?.ptx;
    let cfg = crate::emu::LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS as u32, 1, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    let args = vec![KernelArg::Buffer(Buffer::zeros(
        "out",
        ElemType::I32,
        THREADS,
    ))];
    let r = backend::launch(
        Executor::Gpu,
        &ptx,
        "gpuzzle_doctor",
        &cfg,
        args,
        1000,
        backend::DEFAULT_GPU_TIMEOUT,
    )
    .map_err(|e| e.to_string())?;
    let want: Vec<f64> = (1..=THREADS).map(|v| v as f64).collect();
    let got = r.buffers.first().map(Buffer::values).unwrap_or_default();
    if got != want || r.has_errors() {
        return Err(format!(
            "it ran, but wrote {got:?} instead of 1..={THREADS}"
        ));
    }
    backend::loaded_as()
        .map(|how| how.to_string())
        .ok_or_else(|| "the worker did not say how it loaded the module".to_string())
}
