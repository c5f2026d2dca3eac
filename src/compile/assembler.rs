//! Finding and running NVIDIA's PTX assembler, `ptxas`, which turns the instrumented PTX into a
//! CUBIN for the GPU's own architecture (`gpu::loader` decides when; `cubin.rs` caches and reads
//! what it makes).
//!
//! Why ptxas and not nvJitLink: NVRTC cannot assemble PTX text, and the PTX the GPU runs is not
//! NVRTC's but the instrumenter's rewrite of it, so an assembler of the same toolkit is needed.
//! ptxas comes in `nvidia-cuda-nvcc-cu12`, which gpuzzle's wheel already depends on (for
//! `crt/mma.h`) and which CI already installs to hold the instrumenter to NVIDIA's assembler;
//! nvJitLink would be one more 50 MB wheel. ptxas also runs in its own process: a time limit
//! stops it, a crash costs one fallback to PTX rather than the worker, and `ptxas --version`
//! names its version without loading anything into gpuzzle.
//!
//! Where it is looked for, in order (the first that exists wins):
//! 1. `GPUZZLE_PTXAS` (the file, or a folder holding `ptxas`): when set, the only place tried.
//! 2. Beside the NVRTC gpuzzle uses: a toolkit's `bin/` next to its `lib64/`; the CUDA 12 wheel's
//!    `nvidia/cuda_nvcc/bin` next to `nvidia/cuda_nvrtc/lib`; CUDA 13's `nvidia/cu13/bin`. Same
//!    toolkit, same PTX versions understood. (On Windows, `ptxas.exe`, with NVRTC in `bin\` or
//!    `bin\x64\`: the folders are named by `layout.rs`.)
//! 3. `CUDA_PATH`, `CUDA_HOME`, then `/usr/local/cuda*` (their `bin/`).
//! 4. `ptxas` on PATH.
//! 5. The site-packages folders pip installs into (the ones the NVRTC search knows, no Python
//!    run): `nvidia/cuda_nvcc/bin`, `nvidia/cu13/bin`.
//!
//! `GPUZZLE_NO_CUBIN=1` turns CUBIN off (kernels load as PTX): for tests, and for a ptxas that
//! misbehaves.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where to find ptxas, over every other place.
pub const PTXAS_ENV: &str = "GPUZZLE_PTXAS";
/// Set (to anything but empty or `0`) to load kernels as PTX, never as CUBIN.
pub const NO_CUBIN_ENV: &str = "GPUZZLE_NO_CUBIN";

/// How long one assembly may take before it is stopped (and the PTX loaded instead).
const ASSEMBLY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `ptxas --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// A ptxas that answered `--version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembler {
    pub path: PathBuf,
    /// How it was found: `GPUZZLE_PTXAS`, `beside NVRTC`, `CUDA_HOME`, `PATH`, ...
    pub found_by: String,
    /// Its CUDA release, e.g. (12, 9).
    pub version: (i32, i32),
    /// The full version it printed, e.g. `12.9.86` (part of the CUBIN cache key).
    pub full_version: String,
}

impl Assembler {
    /// `ptxas 12.9.86`.
    pub fn name(&self) -> String {
        format!("ptxas {}", self.full_version)
    }
}

/// Whether `GPUZZLE_NO_CUBIN` asks for PTX only.
pub fn cubin_disabled() -> bool {
    std::env::var_os(NO_CUBIN_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The places the search reads, captured once (a temporary layout in tests).
#[derive(Debug, Clone, Default)]
pub(crate) struct AssemblerPlaces {
    /// `GPUZZLE_PTXAS`, when set and not empty.
    pub explicit: Option<PathBuf>,
    /// The NVRTC library gpuzzle uses, when known.
    pub nvrtc: Option<PathBuf>,
    /// (`CUDA_PATH`, root), (`CUDA_HOME`, root), then `/usr/local/cuda*` toolkits.
    pub toolkits: Vec<(String, PathBuf)>,
    /// PATH's folders, in order.
    pub path: Vec<PathBuf>,
    /// site-packages folders.
    pub sites: Vec<PathBuf>,
    /// The operating system's names and folders.
    pub layout: super::layout::Layout,
}

impl AssemblerPlaces {
    fn from_process() -> AssemblerPlaces {
        let env = super::search::SearchEnv::from_process();
        let mut toolkits: Vec<(String, PathBuf)> = env
            .cuda_roots
            .iter()
            .map(|(name, root)| (name.to_string(), root.clone()))
            .collect();
        for dir in super::search::cuda_toolkit_dirs(&env.usr_local) {
            toolkits.push((dir.display().to_string(), dir));
        }
        AssemblerPlaces {
            explicit: std::env::var_os(PTXAS_ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            nvrtc: super::nvrtc_location().ok().map(|l| l.path.clone()),
            toolkits,
            path: std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect(),
            sites: super::search::known_site_dirs(env.home.as_deref()),
            layout: env.layout,
        }
    }
}

/// The `bin/` folders that may hold the ptxas of the toolkit or wheels NVRTC `lib` came from.
fn beside_nvrtc(nvrtc: &Path, layout: &super::layout::Layout) -> Vec<PathBuf> {
    let Some(root) = layout.nvrtc_root(nvrtc) else {
        return Vec::new();
    };
    if root.ends_with("nvidia/cuda_nvrtc") {
        root.parent()
            .map(|nvidia| vec![nvidia.join("cuda_nvcc/bin")])
            .unwrap_or_default()
    } else {
        // A toolkit (`lib64/`, `lib/`) or CUDA 13's shared wheel folder (`nvidia/cu13/lib`).
        vec![root.join("bin")]
    }
}

/// Finds ptxas (see the module doc for the order); `Err` lists every place looked at.
pub(crate) fn find(places: &AssemblerPlaces) -> Result<(PathBuf, String), Vec<String>> {
    let ptxas = places.layout.ptxas;
    if let Some(explicit) = &places.explicit {
        let file = if explicit.is_dir() {
            explicit.join(ptxas)
        } else {
            explicit.clone()
        };
        return if file.is_file() {
            Ok((file, PTXAS_ENV.to_string()))
        } else {
            Err(vec![format!(
                "{PTXAS_ENV}={}: no such file (unset it to search the usual places, or point it at ptxas)",
                explicit.display()
            )])
        };
    }
    let mut searched = Vec::new();
    let mut candidates: Vec<(PathBuf, String)> = Vec::new();
    match &places.nvrtc {
        Some(nvrtc) => {
            for bin in beside_nvrtc(nvrtc, &places.layout) {
                candidates.push((bin, "beside NVRTC".into()));
            }
        }
        None => searched.push("beside NVRTC: NVRTC not found".to_string()),
    }
    for (name, root) in &places.toolkits {
        candidates.push((root.join("bin"), name.clone()));
    }
    for dir in &places.path {
        candidates.push((dir.clone(), "PATH".into()));
    }
    for site in &places.sites {
        for wheel in ["nvidia/cuda_nvcc/bin", "nvidia/cu13/bin"] {
            candidates.push((
                site.join(wheel),
                format!("python site-packages ({})", site.display()),
            ));
        }
    }
    let mut on_path = 0;
    for (dir, found_by) in candidates {
        let file = dir.join(ptxas);
        if file.is_file() {
            return Ok((file, found_by));
        }
        // PATH's folders are many and rarely hold it: one line for all of them.
        if found_by == "PATH" {
            on_path += 1;
        } else if dir.is_dir() || !found_by.starts_with("python site-packages") {
            searched.push(format!("{found_by}: {}: no ptxas", dir.display()));
        }
    }
    searched.push(format!("PATH: no ptxas in its {on_path} folders"));
    if !places.sites.is_empty() {
        searched.push(format!(
            "python site-packages: no nvidia/cuda_nvcc/bin/ptxas in {} folders",
            places.sites.len()
        ));
    }
    Err(searched)
}

/// `(major, minor, full)` from `ptxas --version`'s `Cuda compilation tools, release 12.9,
/// V12.9.86`.
pub(crate) fn parse_version(text: &str) -> Option<(i32, i32, String)> {
    let line = text.lines().find(|l| l.contains("release "))?;
    let after = &line[line.find("release ")? + "release ".len()..];
    let release = after.split(',').next()?.trim();
    let (major, minor) = release.split_once('.')?;
    let full = after
        .split(", V")
        .nth(1)
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| release.to_string());
    Some((major.parse().ok()?, minor.parse().ok()?, full))
}

/// Why no assembler is used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssemblerMissing {
    #[error("no ptxas found (pip install nvidia-cuda-nvcc-cu12, or set GPUZZLE_PTXAS); looked in: {}", .searched.join("; "))]
    NotFound { searched: Vec<String> },
    #[error("{path}: `ptxas --version` failed: {why}")]
    Broken { path: PathBuf, why: String },
}

/// The process's ptxas, found and asked for its version once.
pub fn assembler() -> Result<&'static Assembler, AssemblerMissing> {
    static FOUND: std::sync::OnceLock<Result<Assembler, AssemblerMissing>> =
        std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let (path, found_by) = find(&AssemblerPlaces::from_process())
                .map_err(|searched| AssemblerMissing::NotFound { searched })?;
            open(path, found_by)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Ask `path` for its version.
pub(crate) fn open(path: PathBuf, found_by: String) -> Result<Assembler, AssemblerMissing> {
    let broken = |why: String| AssemblerMissing::Broken {
        path: path.clone(),
        why,
    };
    let out = run(Command::new(&path).arg("--version"), VERSION_TIMEOUT).map_err(broken)?;
    if !out.success {
        return Err(broken(out.stderr));
    }
    let (major, minor, full_version) = parse_version(&out.stdout)
        .ok_or_else(|| broken(format!("no version in its answer: {}", out.stdout.trim())))?;
    Ok(Assembler {
        path,
        found_by,
        version: (major, minor),
        full_version,
    })
}

struct Ran {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Run `cmd` to its end or `limit` (then kill it).
fn run(cmd: &mut Command, limit: Duration) -> Result<Ran, String> {
    use std::io::Read;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    // Read both pipes on threads, so that a chatty ptxas never blocks on a full pipe.
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.read_to_string(&mut s);
        }
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer in {} s", limit.as_secs()));
            }
            Err(e) => return Err(format!("cannot wait for it: {e}")),
        }
    };
    Ok(Ran {
        success: status.success(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

impl Assembler {
    /// Assemble `ptx` into a CUBIN for `target` (`sm_90`, `sm_90a`); `Err` is ptxas's complaint.
    pub fn assemble(&self, ptx: &str, target: &str) -> Result<Vec<u8>, String> {
        let dir = scratch_dir().map_err(|e| format!("no temporary folder: {e}"))?;
        let input = dir.path.join("kernel.ptx");
        let output = dir.path.join("kernel.cubin");
        std::fs::write(&input, ptx).map_err(|e| format!("{}: {e}", input.display()))?;
        let ran = run(
            Command::new(&self.path)
                .arg(format!("-arch={target}"))
                .arg(&input)
                .arg("-o")
                .arg(&output),
            ASSEMBLY_TIMEOUT,
        )?;
        if !ran.success {
            let said = ran.stderr.trim();
            return Err(if said.is_empty() {
                "it failed without a message".to_string()
            } else {
                said.replace(&input.display().to_string(), "kernel.ptx")
            });
        }
        std::fs::read(&output).map_err(|e| format!("its output {}: {e}", output.display()))
    }
}

/// A folder of its own under the system's temporary folder, removed on drop.
struct Scratch {
    path: PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn scratch_dir() -> std::io::Result<Scratch> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "gpuzzle-ptxas-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&path)?;
    Ok(Scratch { path })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch(p: &Path) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "").unwrap();
    }

    #[test]
    fn versions_are_read_from_what_ptxas_prints() {
        let text = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCopyright (c) 2005-2025 NVIDIA Corporation\nBuilt on Tue_May_27_02:18:05_PDT_2025\nCuda compilation tools, release 12.9, V12.9.86\nBuild cuda_12.9.r12.9/compiler.36037853_0\n";
        assert_eq!(parse_version(text), Some((12, 9, "12.9.86".into())));
        assert_eq!(
            parse_version("Cuda compilation tools, release 13.0, V13.0.48"),
            Some((13, 0, "13.0.48".into()))
        );
        assert_eq!(parse_version("ptxas: unknown option"), None);
    }

    #[test]
    fn the_wheel_beside_nvrtc_comes_before_everything_but_the_setting() {
        let t = tempfile::tempdir().unwrap();
        let site = t.path().join("site");
        let nvrtc = site.join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
        touch(&nvrtc);
        let wheel = site.join("nvidia/cuda_nvcc/bin/ptxas");
        touch(&wheel);
        let toolkit = t.path().join("cuda-12.4");
        touch(&toolkit.join("bin/ptxas"));
        let mut places = AssemblerPlaces {
            nvrtc: Some(nvrtc.clone()),
            toolkits: vec![("CUDA_HOME".into(), toolkit.clone())],
            ..Default::default()
        };
        assert_eq!(
            find(&places).unwrap(),
            (wheel.clone(), "beside NVRTC".into())
        );
        // Without NVRTC's neighbour, the toolkit.
        places.nvrtc = None;
        assert_eq!(
            find(&places).unwrap(),
            (toolkit.join("bin/ptxas"), "CUDA_HOME".into())
        );
        // The setting wins, as a folder or a file, and a wrong one is an error naming it.
        places.explicit = Some(wheel.parent().unwrap().to_path_buf());
        assert_eq!(find(&places).unwrap().0, wheel);
        places.explicit = Some(t.path().join("nope"));
        let e = find(&places).unwrap_err();
        assert!(
            e[0].contains("GPUZZLE_PTXAS=") && e[0].contains("no such file"),
            "{e:?}"
        );
    }

    #[test]
    fn a_toolkits_nvrtc_leads_to_its_bin_and_site_packages_are_the_last_resort() {
        let t = tempfile::tempdir().unwrap();
        let cuda = t.path().join("cuda");
        touch(&cuda.join("lib64/libnvrtc.so.12"));
        touch(&cuda.join("bin/ptxas"));
        let places = AssemblerPlaces {
            nvrtc: Some(cuda.join("lib64/libnvrtc.so.12")),
            ..Default::default()
        };
        assert_eq!(find(&places).unwrap().0, cuda.join("bin/ptxas"));

        let site = t.path().join("lib/python3.12/site-packages");
        touch(&site.join("nvidia/cu13/bin/ptxas"));
        let places = AssemblerPlaces {
            path: vec![t.path().join("empty")],
            sites: vec![site.clone()],
            ..Default::default()
        };
        let (file, by) = find(&places).unwrap();
        assert_eq!(file, site.join("nvidia/cu13/bin/ptxas"));
        assert!(by.starts_with("python site-packages"), "{by}");
    }

    #[test]
    fn windows_ptxas_exe_is_found_beside_the_wheels_and_toolkits_nvrtc() {
        use crate::compile::layout::WINDOWS;
        let t = tempfile::tempdir().unwrap();
        let nvidia = t.path().join("venv/Lib/site-packages/nvidia");
        touch(&nvidia.join("cuda_nvcc/bin/ptxas.exe"));
        touch(&nvidia.join("cu13/bin/ptxas.exe"));
        let mut places = AssemblerPlaces {
            nvrtc: Some(nvidia.join("cuda_nvrtc/bin/nvrtc64_120_0.dll")),
            layout: WINDOWS,
            ..Default::default()
        };
        assert_eq!(
            find(&places).unwrap(),
            (
                nvidia.join("cuda_nvcc/bin/ptxas.exe"),
                "beside NVRTC".into()
            )
        );
        places.nvrtc = Some(nvidia.join("cu13/bin/x86_64/nvrtc64_130_0.dll"));
        assert_eq!(find(&places).unwrap().0, nvidia.join("cu13/bin/ptxas.exe"));
        // A toolkit: CUDA 13 keeps its DLLs in `bin\x64`, its programs in `bin`.
        let toolkit = t.path().join("NVIDIA GPU Computing Toolkit/CUDA/v13.0");
        touch(&toolkit.join("bin/ptxas.exe"));
        places.nvrtc = Some(toolkit.join("bin/x64/nvrtc64_130_0.dll"));
        assert_eq!(find(&places).unwrap().0, toolkit.join("bin/ptxas.exe"));
        // A folder setting means `ptxas.exe` in it; a Linux `ptxas` there is not it.
        let folder = t.path().join("mine");
        touch(&folder.join("ptxas"));
        places.explicit = Some(folder.clone());
        assert!(find(&places).is_err());
        touch(&folder.join("ptxas.exe"));
        assert_eq!(find(&places).unwrap().0, folder.join("ptxas.exe"));
    }

    #[test]
    fn nothing_found_lists_where_it_looked() {
        let t = tempfile::tempdir().unwrap();
        let places = AssemblerPlaces {
            nvrtc: Some(t.path().join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12")),
            toolkits: vec![("CUDA_PATH".into(), t.path().join("cuda"))],
            path: vec![t.path().to_path_buf()],
            ..Default::default()
        };
        let searched = find(&places).unwrap_err();
        let text = searched.join("\n");
        assert!(text.contains("beside NVRTC"), "{text}");
        assert!(text.contains("CUDA_PATH"), "{text}");
        assert!(text.contains("PATH: no ptxas in its 1 folders"), "{text}");
        let e = AssemblerMissing::NotFound { searched };
        assert!(e.to_string().contains("pip install nvidia-cuda-nvcc-cu12"));
    }

    #[test]
    #[cfg(unix)]
    fn a_ptxas_that_does_not_answer_is_broken_not_a_panic() {
        let t = tempfile::tempdir().unwrap();
        let fake = t.path().join("ptxas");
        fs::write(&fake, "#!/bin/sh\necho 'ptxas fatal: no' >&2\nexit 1\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
        match open(fake.clone(), "test".into()) {
            Err(AssemblerMissing::Broken { path, why }) => {
                assert_eq!(path, fake);
                assert!(why.contains("ptxas fatal"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }
}
