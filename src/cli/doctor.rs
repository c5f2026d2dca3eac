//! `gpuzzle doctor`: what gpuzzle found (NVRTC, GPU, workspace, cache) and how to fix what is missing.

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
        "{}  PTX cache {}",
        "info".cyan().bold(),
        compile::cache_dir().display()
    );
    Ok(if ok { 0 } else { super::EXIT_USAGE })
}
