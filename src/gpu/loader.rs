//! How a kernel's module reaches the GPU, and what gpuzzle says when it cannot.
//!
//! First choice: a CUBIN for the device's own architecture, assembled from the (instrumented)
//! PTX by the toolkit's `ptxas` (`compile::assembler`, cached by `compile::cubin`). A CUBIN
//! skips the driver's PTX JIT, and with it the JIT's refusal of PTX newer than the driver,
//! the classic failure of a notebook whose pip NVRTC is newer than its driver: within a CUDA
//! major version a driver runs CUBINs of newer toolkits. Fallback: the PTX, JIT-compiled by
//! the driver (`driver::load_candidates` lowers its `.version`/`.target` where that helps).
//!
//! The decision (`cubin_plan`) and the messages are pure functions, tested without a GPU; the
//! loading itself is `driver::Gpu::load`. The path taken travels back to the parent with each
//! launch (`LoadPath`), for `-v` and `doctor` to say once.

use crate::compile::{Assembler, AssemblerMissing, Cubin, CubinCache, CubinHeader};
use serde::{Deserialize, Serialize};
use std::fmt;

/// How a module was loaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "as")]
pub enum LoadPath {
    /// A CUBIN for `target` (`sm_90`), made by `assembler` (`ptxas 12.9.86`).
    Cubin { target: String, assembler: String },
    /// The PTX, JIT-compiled by the driver, and why not a CUBIN.
    Ptx { why: String },
}

impl fmt::Display for LoadPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadPath::Cubin { target, assembler } => {
                write!(f, "CUBIN for {target} via {assembler}")
            }
            LoadPath::Ptx { why } => write!(f, "PTX, JIT-compiled by the driver: {why}"),
        }
    }
}

/// The `.target` of a PTX text: (SM number, `a` suffix).
pub fn ptx_target(ptx: &str) -> Option<(u32, bool)> {
    let line = ptx
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(".target"))?;
    let first = line.trim_start_matches(".target").split(',').next()?.trim();
    let sm = first.strip_prefix("sm_")?;
    let digits: String = sm.chars().take_while(char::is_ascii_digit).collect();
    Some((digits.parse().ok()?, sm[digits.len()..].starts_with('a')))
}

/// The architecture to assemble `ptx` for on a device of compute capability `cc`: the
/// device's own (`sm_90`; `sm_90a` when the PTX asks for that SM's specific features). `Err`
/// says why a CUBIN cannot be made for this device.
pub fn cubin_target(ptx: &str, cc: (i32, i32)) -> Result<String, String> {
    let device = (cc.0.max(0) * 10 + cc.1.max(0)) as u32;
    let Some((sm, specific)) = ptx_target(ptx) else {
        return Err("the PTX names no `.target sm_XY`".to_string());
    };
    if sm > device {
        return Err(format!(
            "the PTX targets sm_{sm}{}, newer than this GPU (sm_{device})",
            if specific { "a" } else { "" }
        ));
    }
    if specific {
        return if sm == device {
            Ok(format!("sm_{device}a"))
        } else {
            Err(format!("the PTX targets sm_{sm}a, which only an sm_{sm} GPU runs (this one is sm_{device})"))
        };
    }
    Ok(format!("sm_{device}"))
}

/// Short words for a missing assembler (the full search list is `doctor`'s).
pub fn why_no_assembler(missing: &AssemblerMissing) -> String {
    match missing {
        AssemblerMissing::NotFound { .. } => {
            "no ptxas found (pip install nvidia-cuda-nvcc-cu12, or set GPUZZLE_PTXAS)".to_string()
        }
        other => other.to_string(),
    }
}

/// The fallback decision: the target to assemble for, or why the PTX is loaded instead.
/// `no_cubin`: `GPUZZLE_NO_CUBIN` is set. A ptxas of a newer CUDA major version than the driver
/// makes CUBINs this driver cannot load.
pub fn cubin_plan(
    no_cubin: bool,
    assembler: Result<&Assembler, &AssemblerMissing>,
    ptx: &str,
    cc: (i32, i32),
    driver: (i32, i32),
) -> Result<String, String> {
    if no_cubin {
        return Err(format!("{} is set", crate::compile::NO_CUBIN_ENV));
    }
    let assembler = assembler.map_err(why_no_assembler)?;
    if assembler.version.0 > driver.0 {
        return Err(format!(
            "{} makes CUBINs for CUDA {} drivers, and this driver is CUDA {}.{}",
            assembler.name(),
            assembler.version.0,
            driver.0,
            driver.1
        ));
    }
    cubin_target(ptx, cc)
}

/// Test-only: assemble for this target (`sm_80`) instead of the device's own, and skip the
/// check that the device runs it, so that the driver's refusal and the fallback to PTX can be
/// seen on a real GPU (`tests/gpu_backend.rs`).
pub const CUBIN_TARGET_ENV: &str = "GPUZZLE_CUBIN_TARGET";

/// Whether a CUBIN whose header says `header` runs on a device of compute capability `cc`:
/// only one made for that very SM is loaded (an `sm_80` CUBIN does not run on an sm_90 GPU).
pub fn runs_on(header: &CubinHeader, cc: (i32, i32)) -> Result<(), String> {
    let mine = (cc.0.max(0) * 10 + cc.1.max(0)) as u32;
    if header.sm == mine {
        Ok(())
    } else {
        Err(format!(
            "the CUBIN is for {}, and this GPU is sm_{mine}",
            header.target()
        ))
    }
}

/// The CUBIN to load for `ptx` on a device of compute capability `cc` under CUDA driver
/// `driver`, from `cache` or assembled now by the process's ptxas, with the load path to
/// report; `Err` is why the PTX is loaded instead. What `driver::Gpu::load` tries first.
pub fn cubin_for_device(
    ptx: &str,
    cc: (i32, i32),
    driver: (i32, i32),
    cache: &CubinCache,
) -> Result<(Cubin, LoadPath), String> {
    let assembler = crate::compile::assembler();
    let own = cubin_plan(
        crate::compile::cubin_disabled(),
        assembler.as_ref().copied(),
        ptx,
        cc,
        driver,
    )?;
    let asm = assembler.map_err(|e| why_no_assembler(&e))?;
    let forced = std::env::var(CUBIN_TARGET_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty());
    let target = forced.clone().unwrap_or(own);
    let text = ptx_for_assembler(ptx, asm.version);
    let cubin = cache
        .get(&text, &target, asm)
        .map_err(|e| format!("{} could not assemble it for {target}: {e}", asm.name()))?;
    if forced.is_none() {
        runs_on(&cubin.header, cc)?;
    }
    let how = LoadPath::Cubin {
        target,
        assembler: asm.name(),
    };
    Ok((cubin, how))
}

/// `ptx` as `assembler` reads it: its `.version` lowered where it is newer than the PTX ISA of
/// the assembler's CUDA release (NVRTC 13's PTX for a CUDA 12 ptxas).
pub fn ptx_for_assembler(ptx: &str, assembler: (i32, i32)) -> String {
    let candidates = super::driver::load_candidates(ptx, assembler, (99, 0));
    candidates
        .into_iter()
        .find(|(what, _)| what.contains("`.version"))
        .map_or_else(|| ptx.to_string(), |(_, text)| text)
}

/// The NVRTC release that wrote `ptx`, from its header comment (`// Cuda compilation tools,
/// release 12.9, V12.9.86`).
pub fn nvrtc_of_ptx(ptx: &str) -> Option<(i32, i32)> {
    let line = ptx
        .lines()
        .take_while(|l| l.starts_with("//") || l.trim().is_empty())
        .find(|l| l.contains("Cuda compilation tools, release "))?;
    let after = line.split("release ").nth(1)?;
    let (major, minor) = after.split(',').next()?.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The pip package of CUDA `major`'s `component` (`cuda-nvrtc`, `cuda-nvcc`):
/// `nvidia-cuda-nvrtc-cu12` for CUDA 11 and 12, `nvidia-cuda-nvrtc` from CUDA 13 on.
fn wheel(component: &str, major: i32) -> String {
    if major <= 12 {
        format!("nvidia-{component}-cu{major}")
    } else {
        format!("nvidia-{component}")
    }
}

/// The error for PTX the driver refused for its version: the driver's CUDA version, the
/// NVRTC's that compiled the kernel, and the fixes. `ptx_isa`: the PTX's `.version`;
/// `cubin_why`: why no CUBIN was loaded instead.
pub fn driver_too_old(
    driver: (i32, i32),
    nvrtc: Option<(i32, i32)>,
    ptx_isa: Option<(u32, u32)>,
    cubin_why: &str,
) -> String {
    let (dmaj, dmin) = driver;
    let isa = ptx_isa.map_or(String::new(), |(a, b)| format!(" (PTX ISA {a}.{b})"));
    let reads = super::driver::ptx_isa_for_driver(driver).map_or(String::new(), |(a, b)| {
        format!(", which reads PTX ISA {a}.{b} at most")
    });
    let Some((nmaj, nmin)) = nvrtc.filter(|&n| n > driver) else {
        // Not the usual mismatch: say what was seen.
        let by = nvrtc.map_or(String::new(), |(a, b)| format!(" from NVRTC {a}.{b}"));
        return format!(
            "the CUDA driver {dmaj}.{dmin}{reads} refused the version of the kernel's PTX{isa}{by}; CUBIN was not used: {cubin_why}. Update the NVIDIA driver, or run with --backend emu"
        );
    };
    let mut fixes = vec![
        format!("update the NVIDIA driver to one for CUDA {nmaj}.{nmin} or newer"),
        format!(
            "install the NVRTC of the driver's CUDA version: pip install \"{}=={dmaj}.{dmin}.*\"",
            wheel("cuda-nvrtc", dmaj)
        ),
    ];
    if nmaj == dmaj {
        let cubin = if cubin_why.contains(crate::compile::NO_CUBIN_ENV) {
            format!("unset {}", crate::compile::NO_CUBIN_ENV)
        } else if cubin_why.starts_with("no ptxas") {
            format!(
                "pip install \"{}=={nmaj}.{nmin}.*\"",
                wheel("cuda-nvcc", nmaj)
            )
        } else {
            format!("fix what stopped it: {cubin_why}")
        };
        fixes.push(format!(
            "let gpuzzle load a CUBIN instead, which this driver runs: {cubin}"
        ));
    }
    let mut text = format!(
        "the CUDA driver {dmaj}.{dmin}{reads} is older than NVRTC {nmaj}.{nmin}, which compiled this kernel{isa}, so it cannot load the kernel's PTX"
    );
    if nmaj != dmaj {
        text.push_str(&format!(
            " (and a CUDA {nmaj} CUBIN does not run on a CUDA {dmaj} driver)"
        ));
    } else {
        text.push_str(&format!("; CUBIN was not used: {cubin_why}"));
    }
    text.push_str(". Fix: ");
    text.push_str(&fixes.join("; or "));
    text.push_str(". Until then, --backend emu runs it on gpuzzle's emulator");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn ptxas(version: (i32, i32)) -> Assembler {
        Assembler {
            path: PathBuf::from("/x/ptxas"),
            found_by: "test".into(),
            version,
            full_version: format!("{}.{}.1", version.0, version.1),
        }
    }

    const PTX80: &str = "//\n// Cuda compilation tools, release 12.9, V12.9.86\n// Based on NVVM 7.0.1\n//\n\n.version 8.8\n.target sm_80\n.address_size 64\n";

    #[test]
    fn the_device_gets_its_own_architecture() {
        assert_eq!(cubin_target(PTX80, (9, 0)).unwrap(), "sm_90");
        assert_eq!(cubin_target(PTX80, (8, 6)).unwrap(), "sm_86");
        let p90a = PTX80.replace("sm_80", "sm_90a");
        assert_eq!(cubin_target(&p90a, (9, 0)).unwrap(), "sm_90a");
        assert!(cubin_target(&p90a, (10, 0))
            .unwrap_err()
            .contains("only an sm_90 GPU"));
        let p90 = PTX80.replace("sm_80", "sm_90");
        let e = cubin_target(&p90, (8, 0)).unwrap_err();
        assert!(e.contains("newer than this GPU (sm_80)"), "{e}");
        assert_eq!(ptx_target(".target sm_90a, debug\n"), Some((90, true)));
    }

    #[test]
    fn without_an_assembler_or_with_cubin_off_the_ptx_is_loaded_and_says_why() {
        let a = ptxas((12, 9));
        let ok = cubin_plan(false, Ok(&a), PTX80, (9, 0), (12, 9));
        assert_eq!(ok, Ok("sm_90".to_string()));
        // An older driver of the same major version runs ptxas 12.9's CUBIN.
        assert_eq!(
            cubin_plan(false, Ok(&a), PTX80, (9, 0), (12, 4)),
            Ok("sm_90".to_string())
        );
        let missing = AssemblerMissing::NotFound {
            searched: vec!["PATH: no ptxas".into()],
        };
        let why = cubin_plan(false, Err(&missing), PTX80, (9, 0), (12, 9)).unwrap_err();
        assert!(why.starts_with("no ptxas found"), "{why}");
        assert!(why.contains("nvidia-cuda-nvcc-cu12"), "{why}");
        let why = cubin_plan(true, Ok(&a), PTX80, (9, 0), (12, 9)).unwrap_err();
        assert_eq!(why, "GPUZZLE_NO_CUBIN is set");
        let why = cubin_plan(false, Ok(&ptxas((13, 0))), PTX80, (9, 0), (12, 9)).unwrap_err();
        assert!(
            why.contains("CUDA 13 drivers") && why.contains("CUDA 12.9"),
            "{why}"
        );
        let shown = LoadPath::Ptx { why }.to_string();
        assert!(
            shown.starts_with("PTX, JIT-compiled by the driver: ptxas 13.0.1"),
            "{shown}"
        );
        let shown = LoadPath::Cubin {
            target: "sm_90".into(),
            assembler: a.name(),
        }
        .to_string();
        assert_eq!(shown, "CUBIN for sm_90 via ptxas 12.9.1");
    }

    #[test]
    fn a_cubin_for_another_sm_is_not_loaded() {
        let h = |sm, accelerated| CubinHeader {
            sm,
            accelerated,
            abi_version: 7,
        };
        assert_eq!(runs_on(&h(90, false), (9, 0)), Ok(()));
        assert_eq!(runs_on(&h(90, true), (9, 0)), Ok(()));
        let e = runs_on(&h(80, false), (9, 0)).unwrap_err();
        assert_eq!(e, "the CUBIN is for sm_80, and this GPU is sm_90");
        assert!(runs_on(&h(80, false), (8, 6)).is_err());
    }

    #[test]
    fn nvrtcs_version_is_read_from_the_ptx_header() {
        assert_eq!(nvrtc_of_ptx(PTX80), Some((12, 9)));
        assert_eq!(nvrtc_of_ptx(".version 8.8\n"), None);
    }

    #[test]
    fn a_newer_ptx_is_lowered_for_an_older_assembler_only() {
        let p = PTX80.replace(".version 8.8", ".version 9.5");
        let lowered = ptx_for_assembler(&p, (12, 9));
        assert!(lowered.contains(".version 8.8\n.target sm_80"), "{lowered}");
        assert_eq!(ptx_for_assembler(&p, (13, 5)), p);
        assert_eq!(ptx_for_assembler(PTX80, (12, 9)), PTX80);
    }

    #[test]
    fn a_driver_older_than_nvrtc_is_named_with_both_versions_and_the_fixes() {
        let m = driver_too_old(
            (12, 4),
            Some((12, 9)),
            Some((8, 8)),
            &why_no_assembler(&AssemblerMissing::NotFound { searched: vec![] }),
        );
        assert!(m.contains("CUDA driver 12.4"), "{m}");
        assert!(m.contains("PTX ISA 8.4 at most"), "{m}");
        assert!(m.contains("older than NVRTC 12.9"), "{m}");
        assert!(m.contains("(PTX ISA 8.8)"), "{m}");
        assert!(m.contains("one for CUDA 12.9 or newer"), "{m}");
        assert!(
            m.contains("pip install \"nvidia-cuda-nvrtc-cu12==12.4.*\""),
            "{m}"
        );
        assert!(
            m.contains("pip install \"nvidia-cuda-nvcc-cu12==12.9.*\""),
            "{m}"
        );
        assert!(m.contains("--backend emu"), "{m}");

        // GPUZZLE_NO_CUBIN: the fix is to unset it.
        let m = driver_too_old((12, 4), Some((12, 9)), None, "GPUZZLE_NO_CUBIN is set");
        assert!(m.contains("unset GPUZZLE_NO_CUBIN"), "{m}");

        // NVRTC 13 on a CUDA 12 driver: no CUBIN fix (a CUDA 13 CUBIN does not run there),
        // and the NVRTC to install is the CUDA 12 wheel.
        let m = driver_too_old((12, 8), Some((13, 0)), Some((9, 0)), "x");
        assert!(m.contains("older than NVRTC 13.0"), "{m}");
        assert!(m.contains("nvidia-cuda-nvrtc-cu12==12.8.*"), "{m}");
        assert!(!m.contains("nvidia-cuda-nvcc"), "{m}");
        assert!(
            m.contains("CUDA 13 CUBIN does not run on a CUDA 12 driver"),
            "{m}"
        );
        // And a CUDA 13 driver with NVRTC 13.5: the CUDA 13 wheels, no -cu suffix.
        let m = driver_too_old((13, 0), Some((13, 5)), None, "no ptxas found");
        assert!(
            m.contains("pip install \"nvidia-cuda-nvrtc==13.0.*\""),
            "{m}"
        );
        assert!(
            m.contains("pip install \"nvidia-cuda-nvcc==13.5.*\""),
            "{m}"
        );
    }

    #[test]
    fn a_version_refusal_without_an_older_driver_says_what_was_seen() {
        let m = driver_too_old((12, 9), Some((12, 9)), Some((8, 8)), "ptxas failed");
        assert!(m.contains("CUDA driver 12.9"), "{m}");
        assert!(m.contains("refused the version"), "{m}");
        assert!(m.contains("from NVRTC 12.9"), "{m}");
        assert!(m.contains("CUBIN was not used: ptxas failed"), "{m}");
    }
}
