//! The headers a kernel may include, and what the PTX cache must know of them.
//!
//! Three kinds:
//! - **CUDA's headers** (`cooperative_groups.h`, `cuda_fp16.h`, `cuda/std/...`):
//!   found the way NVRTC is found ([`find_cuda_headers`]) and passed with `-I`,
//!   for the CUDA major version of the NVRTC in use.
//! - **Host headers tutorials include out of habit** (`stdio.h`, `cstdint`,
//!   `math.h`, ...): NVRTC has none of them. gpuzzle hands NVRTC small
//!   stand-ins by name ([`stand_ins`], the files in `stand_in/`), so that
//!   including them is harmless and what device code uses from them
//!   (`INT_MAX`, `FLT_MAX`, `int32_t`, `M_PI`) is there. One more,
//!   [`PRE_INCLUDE`], is included before every kernel: the compiler macros
//!   (`__FLT_MAX__`, `__INT_MAX__`) nvcc users get from gcc.
//! - **The learner's own headers** (`#include "util.h"`, `-I DIR`): their
//!   contents go into the PTX cache key ([`include_digest`]), so a changed
//!   header recompiles and an unchanged one is served from the cache.

use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Included before every kernel (NVRTC's `--pre-include`).
pub(crate) const PRE_INCLUDE: &str = "gpuzzle_nvcc_habits.h";

/// The stand-in pre-included when a kernel uses `INFINITY`, `NAN`, `HUGE_VALF`, `M_PI`...
/// without including a math header: nvcc hands them to device code (its host `<math.h>`
/// comes with `cuda_runtime.h`), NVRTC does not ([`needs_math_constants`]).
pub(crate) const MATH_CONSTANTS: &str = "math.h";

/// The constants glibc's `<math.h>` defines that kernels written for nvcc use unannounced.
const MATH_CONSTANT_NAMES: [&str; 17] = [
    "INFINITY",
    "NAN",
    "HUGE_VALF",
    "HUGE_VAL",
    "M_E",
    "M_LOG2E",
    "M_LOG10E",
    "M_LN2",
    "M_LN10",
    "M_PI",
    "M_PI_2",
    "M_PI_4",
    "M_1_PI",
    "M_2_PI",
    "M_2_SQRTPI",
    "M_SQRT2",
    "M_SQRT1_2",
];

/// Whether `source` uses one of the math constants and includes nothing that could define
/// them (no `#include` naming `math`: `math.h`, `cmath`, `cuda/std/cmath`): then the math
/// stand-in is pre-included. A source that includes one gets what it included, unchanged.
pub(crate) fn needs_math_constants(source: &str) -> bool {
    let includes_math = source.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('#') && l.contains("include") && l.contains("math")
    });
    if includes_math {
        return false;
    }
    let words = source
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty());
    for w in words {
        if MATH_CONSTANT_NAMES.contains(&w) {
            return true;
        }
    }
    false
}

/// Every stand-in: (include name, text). The last two are for when no CUDA
/// headers were found; the real ones win otherwise (see [`stand_ins`]).
const STAND_INS: [(&str, &str); 22] = [
    (PRE_INCLUDE, include_str!("stand_in/gpuzzle_nvcc_habits.h")),
    ("stdio.h", include_str!("stand_in/stdio.h")),
    ("cstdio", include_str!("stand_in/cstdio")),
    ("stdlib.h", include_str!("stand_in/stdlib.h")),
    ("cstdlib", include_str!("stand_in/cstdlib")),
    ("string.h", include_str!("stand_in/string.h")),
    ("cstring", include_str!("stand_in/cstring")),
    ("assert.h", include_str!("stand_in/assert.h")),
    ("cassert", include_str!("stand_in/cassert")),
    ("math.h", include_str!("stand_in/math.h")),
    ("cmath", include_str!("stand_in/cmath")),
    ("stdint.h", include_str!("stand_in/stdint.h")),
    ("cstdint", include_str!("stand_in/cstdint")),
    ("limits.h", include_str!("stand_in/limits.h")),
    ("climits", include_str!("stand_in/climits")),
    ("float.h", include_str!("stand_in/float.h")),
    ("cfloat", include_str!("stand_in/cfloat")),
    ("iostream", include_str!("stand_in/iostream")),
    ("time.h", include_str!("stand_in/time.h")),
    ("ctime", include_str!("stand_in/ctime")),
    ("cuda_runtime.h", include_str!("stand_in/cuda_runtime.h")),
    (
        "device_launch_parameters.h",
        include_str!("stand_in/device_launch_parameters.h"),
    ),
];

/// Stand-ins served only when the CUDA runtime headers are missing.
const RUNTIME_STAND_INS: [&str; 2] = ["cuda_runtime.h", "device_launch_parameters.h"];

/// The stand-ins to hand NVRTC: all of them, but never one that would hide
/// a real CUDA header that was found.
pub(crate) fn stand_ins(have_runtime_headers: bool) -> Vec<(&'static str, &'static str)> {
    STAND_INS
        .into_iter()
        .filter(|(name, _)| !(have_runtime_headers && RUNTIME_STAND_INS.contains(name)))
        .collect()
}

/// Where CUDA's headers are, for one NVRTC.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CudaHeaders {
    /// The runtime's include folder (`cuda_runtime.h`, `cooperative_groups.h`,
    /// `cuda_fp16.h`) and how it was found.
    pub runtime: Option<(PathBuf, String)>,
    /// CCCL's (`cuda/std/...`, `cub/`, `thrust/`), which cooperative groups
    /// needs; the same folder as `runtime` in a CUDA 12 toolkit.
    pub cccl: Option<(PathBuf, String)>,
    /// The folder holding `crt/mma.h`, which the runtime's `mma.h` (WMMA) includes: NVIDIA
    /// ships it with the compiler (`nvidia-cuda-nvcc-cu12`), not with the runtime wheel; in a
    /// toolkit it is the runtime's own `include/`.
    pub wmma: Option<(PathBuf, String)>,
    /// What installs the missing ones, when one is missing.
    pub install_hint: Option<String>,
    /// What installs `crt/mma.h`, when it is missing.
    pub wmma_install_hint: Option<String>,
}

impl CudaHeaders {
    /// The `-I` folders, runtime first, each once; the one with `crt/mma.h` last, so it is
    /// only ever asked for what the others lack.
    pub fn dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let found = self.runtime.iter().chain(self.cccl.iter());
        for (dir, _) in found.chain(self.wmma.iter()) {
            if !dirs.contains(dir) {
                dirs.push(dir.clone());
            }
        }
        dirs
    }
}

/// The pip packages with the headers for a CUDA major version.
pub(crate) fn header_packages(major: i32) -> String {
    if major <= 12 {
        "pip install nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12".to_string()
    } else {
        format!("pip install \"nvidia-cuda-runtime=={major}.*\" \"nvidia-cuda-cccl=={major}.*\"")
    }
}

/// The pip package with `crt/mma.h` (the compiler's headers) for a CUDA major version.
pub(crate) fn wmma_package(major: i32) -> String {
    if major <= 12 {
        "pip install nvidia-cuda-nvcc-cu12".to_string()
    } else {
        format!("pip install \"nvidia-cuda-nvcc=={major}.*\"")
    }
}

/// Where to look besides the NVRTC library's own folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeaderPlaces {
    /// `("CUDA_PATH", root)`, `("CUDA_HOME", root)`, then `/usr/local/cuda*`.
    pub toolkits: Vec<(String, PathBuf)>,
    /// site-packages folders (pip wheels).
    pub sites: Vec<PathBuf>,
}

/// One place that may hold both kinds of headers.
struct Candidate {
    runtime: PathBuf,
    cccl: Vec<PathBuf>,
    /// Where `crt/mma.h` may be (the folder that holds `crt/`).
    wmma: PathBuf,
    found_by: String,
}

/// [`find_cuda_headers`], asking for the other places only when the folders
/// beside NVRTC do not hold both kinds of headers: listing the toolkits and
/// site-packages folders costs dozens of system calls on every run, and the
/// usual install (a toolkit, or the pip wheels side by side) never needs it.
pub(crate) fn find_cuda_headers_lazily(
    nvrtc: &Path,
    major: i32,
    places: impl FnOnce() -> HeaderPlaces,
) -> CudaHeaders {
    let beside = find_cuda_headers(nvrtc, major, &HeaderPlaces::default());
    if beside.runtime.is_some() && beside.cccl.is_some() && beside.wmma.is_some() {
        return beside;
    }
    find_cuda_headers(nvrtc, major, &places())
}

/// Finds the headers matching NVRTC `major` at `nvrtc` (the loaded file):
/// first beside it (a toolkit's `lib64/` → `include/`; the CUDA 12 wheel
/// `nvidia/cuda_nvrtc/lib` → `nvidia/cuda_runtime/include` and
/// `nvidia/cuda_cccl/include`; the CUDA 13 wheels' shared `nvidia/cu13/lib` →
/// `nvidia/cu13/include` and `include/cccl`), then in the toolkits and the
/// site-packages. A runtime folder whose `CUDART_VERSION` is of another
/// major version is skipped (with its CCCL).
pub(crate) fn find_cuda_headers(nvrtc: &Path, major: i32, places: &HeaderPlaces) -> CudaHeaders {
    find_cuda_headers_in(&super::layout::HOST, nvrtc, major, places)
}

/// [`find_cuda_headers`] for an operating system's `layout` (Windows: NVRTC in `bin\` or
/// `bin\x86_64\`, not `lib/`).
fn find_cuda_headers_in(
    layout: &super::layout::Layout,
    nvrtc: &Path,
    major: i32,
    places: &HeaderPlaces,
) -> CudaHeaders {
    let mut candidates = Vec::new();
    if let Some(root) = layout.nvrtc_root(nvrtc) {
        if root.ends_with("nvidia/cuda_nvrtc") {
            if let Some(nvidia) = root.parent() {
                candidates.push(wheel12(nvidia, "beside NVRTC"));
            }
        } else {
            candidates.push(toolkit(root, "beside NVRTC"));
        }
    }
    for (found_by, root) in &places.toolkits {
        candidates.push(toolkit(root, found_by));
    }
    for site in &places.sites {
        let nvidia = site.join("nvidia");
        candidates.push(if major <= 12 {
            wheel12(&nvidia, "python site-packages")
        } else {
            toolkit(&nvidia.join(format!("cu{major}")), "python site-packages")
        });
    }

    let mut found = CudaHeaders::default();
    for candidate in candidates {
        if found.runtime.is_some() && found.cccl.is_some() && found.wmma.is_some() {
            break;
        }
        let api = candidate.runtime.join("cuda_runtime_api.h");
        let runtime_ok = api.is_file();
        if runtime_ok && cudart_major(&api).is_some_and(|m| m != major) {
            continue;
        }
        if found.runtime.is_none() && runtime_ok {
            found.runtime = Some((candidate.runtime.clone(), candidate.found_by.clone()));
        }
        if found.cccl.is_none() {
            if let Some(cccl) = candidate
                .cccl
                .iter()
                .find(|dir| dir.join("cuda/std/version").is_file())
            {
                found.cccl = Some((cccl.clone(), candidate.found_by.clone()));
            }
        }
        if found.wmma.is_none() && candidate.wmma.join("crt/mma.h").is_file() {
            found.wmma = Some((candidate.wmma.clone(), candidate.found_by.clone()));
        }
    }
    if found.runtime.is_none() || found.cccl.is_none() {
        found.install_hint = Some(header_packages(major));
    }
    if found.wmma.is_none() {
        found.wmma_install_hint = Some(wmma_package(major));
    }
    found
}

/// A toolkit-style root: `include/`, CCCL in `include/cccl` (CUDA 13) or in
/// `include/` itself (CUDA 12).
fn toolkit(root: &Path, found_by: &str) -> Candidate {
    let include = root.join("include");
    Candidate {
        runtime: include.clone(),
        cccl: vec![include.join("cccl"), include.clone()],
        wmma: include,
        found_by: found_by.to_string(),
    }
}

/// The CUDA 12 wheels: one folder per package under `nvidia/`.
fn wheel12(nvidia: &Path, found_by: &str) -> Candidate {
    Candidate {
        runtime: nvidia.join("cuda_runtime/include"),
        cccl: vec![nvidia.join("cuda_cccl/include")],
        wmma: nvidia.join("cuda_nvcc/include"),
        found_by: found_by.to_string(),
    }
}

/// The major version in `#define CUDART_VERSION 12090`, if readable. The
/// define is near the top (line 139 in 12.9 and 13.x): only the first 64 KiB
/// of the 640 KiB header are read, on every gpuzzle start.
fn cudart_major(api_header: &Path) -> Option<i32> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(api_header)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    String::from_utf8_lossy(&head).lines().find_map(|line| {
        let value = line.trim().strip_prefix("#define CUDART_VERSION")?;
        value.trim().parse::<i32>().ok().map(|v| v / 1000)
    })
}

/// The learner's include folders among NVRTC options: `-IDIR`, `-I DIR`,
/// `--include-path=DIR`.
pub(crate) fn learner_include_dirs(options: &[String]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut options = options.iter();
    while let Some(option) = options.next() {
        if option == "-I" || option == "--include-path" {
            if let Some(dir) = options.next() {
                dirs.push(PathBuf::from(dir));
            }
        } else if let Some(dir) = option
            .strip_prefix("--include-path=")
            .or_else(|| option.strip_prefix("-I"))
        {
            dirs.push(PathBuf::from(dir));
        }
    }
    dirs
}

/// Most files a kernel's own includes may pull in before gpuzzle stops
/// looking (a cycle is already cut by remembering visited files).
const MAX_INCLUDED_FILES: usize = 1000;

/// A digest of every file the kernel includes from outside the system header
/// folders: quoted includes (beside the including file, then the learner's
/// folders) and angle includes found in the learner's folders, followed
/// recursively. Names that resolve nowhere count too, so creating such a file
/// changes the digest. `#if` is not evaluated: a file that may be included
/// counts, which can only cost a compile, never serve stale PTX.
pub(crate) fn include_digest(file_name: &str, source: &str, learner_dirs: &[PathBuf]) -> String {
    let mut hasher = Sha256::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let start_dir = Path::new(file_name)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut queue: Vec<(PathBuf, String)> = vec![(start_dir, source.to_string())];
    while let Some((dir, text)) = queue.pop() {
        for (quoted, name) in includes(&text) {
            let beside = quoted.then(|| dir.join(&name));
            let found = beside
                .into_iter()
                .chain(learner_dirs.iter().map(|d| d.join(&name)))
                .find(|path| path.is_file());
            let Some(path) = found else {
                if quoted {
                    hasher.update(format!("missing {name}\n"));
                }
                continue;
            };
            let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
            if seen.len() >= MAX_INCLUDED_FILES || !seen.insert(canonical.clone()) {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap_or_default();
            hasher.update(canonical.to_string_lossy().as_bytes());
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
            let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
            queue.push((parent, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The `#include` lines of a file: (quoted?, name).
fn includes(text: &str) -> Vec<(bool, String)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let (quoted, close) = match rest.chars().next()? {
                '"' => (true, '"'),
                '<' => (false, '>'),
                _ => return None,
            };
            let name = &rest[1..];
            let end = name.find(close)?;
            Some((quoted, name[..end].to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_constants_are_pre_included_only_when_used_and_not_included() {
        assert!(needs_math_constants("float m = -INFINITY;"));
        assert!(needs_math_constants("x = M_PI * r;"));
        assert!(!needs_math_constants(
            "#include <math.h>\nfloat m = -INFINITY;"
        ));
        assert!(!needs_math_constants(
            "#include <cuda/std/cmath>\nfloat m = NAN;"
        ));
        assert!(!needs_math_constants(
            "float INFINITY_ish = 1; int NANO = 2;"
        ));
    }
    use std::fs;

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    /// A runtime include folder with `CUDART_VERSION` of `major`.
    fn runtime(dir: &Path, major: i32) {
        write(
            &dir.join("cuda_runtime_api.h"),
            &format!("#define CUDART_VERSION {}\n", major * 1000 + 90),
        );
    }

    fn cccl(dir: &Path) {
        write(&dir.join("cuda/std/version"), "");
    }

    #[test]
    fn windows_wheels_beside_nvrtc() {
        // NVIDIA's win_amd64 wheels: CUDA 12's DLL in `nvidia\cuda_nvrtc\bin`, CUDA 13's in
        // `nvidia\cu13\bin\x86_64`; the headers where the Linux wheels have them.
        use crate::compile::layout::WINDOWS;
        let site = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let nvidia = site.path().join("nvidia");
        runtime(&nvidia.join("cuda_runtime/include"), 12);
        cccl(&nvidia.join("cuda_cccl/include"));
        write(&nvidia.join("cuda_nvcc/include/crt/mma.h"), "");
        let nvrtc = nvidia.join("cuda_nvrtc/bin/nvrtc64_120_0.dll");
        let found = find_cuda_headers_in(&WINDOWS, &nvrtc, 12, &HeaderPlaces::default());
        assert_eq!(
            found.dirs(),
            vec![
                nvidia.join("cuda_runtime/include"),
                nvidia.join("cuda_cccl/include"),
                nvidia.join("cuda_nvcc/include")
            ]
        );
        let cu13 = nvidia.join("cu13");
        runtime(&cu13.join("include"), 13);
        cccl(&cu13.join("include/cccl"));
        let nvrtc = cu13.join("bin/x86_64/nvrtc64_130_0.dll");
        let found = find_cuda_headers_in(&WINDOWS, &nvrtc, 13, &HeaderPlaces::default());
        assert_eq!(
            found.dirs(),
            vec![cu13.join("include"), cu13.join("include/cccl")]
        );
        assert_eq!(found.runtime.map(|r| r.1).as_deref(), Some("beside NVRTC"));
    }

    #[test]
    fn cuda12_wheels_beside_nvrtc() {
        let site = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let nvidia = site.path().join("nvidia");
        runtime(&nvidia.join("cuda_runtime/include"), 12);
        cccl(&nvidia.join("cuda_cccl/include"));
        let nvrtc = nvidia.join("cuda_nvrtc/lib/libnvrtc.so.12");
        let found = find_cuda_headers(&nvrtc, 12, &HeaderPlaces::default());
        assert_eq!(
            found.dirs(),
            vec![
                nvidia.join("cuda_runtime/include"),
                nvidia.join("cuda_cccl/include")
            ]
        );
        assert_eq!(found.install_hint, None);
        // `mma.h` includes `crt/mma.h`, which only the compiler's wheel has.
        assert_eq!(
            found.wmma_install_hint.as_deref(),
            Some("pip install nvidia-cuda-nvcc-cu12")
        );
        write(&nvidia.join("cuda_nvcc/include/crt/mma.h"), "");
        let found = find_cuda_headers(&nvrtc, 12, &HeaderPlaces::default());
        assert_eq!(
            found.dirs(),
            vec![
                nvidia.join("cuda_runtime/include"),
                nvidia.join("cuda_cccl/include"),
                nvidia.join("cuda_nvcc/include")
            ]
        );
        assert_eq!(found.wmma_install_hint, None);
    }

    #[test]
    fn a_toolkit_has_crt_mma_in_its_own_include() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let include = root.path().join("include");
        runtime(&include, 12);
        cccl(&include);
        write(&include.join("crt/mma.h"), "");
        let nvrtc = root.path().join("lib64/libnvrtc.so.12");
        let found = find_cuda_headers(&nvrtc, 12, &HeaderPlaces::default());
        assert_eq!(found.dirs(), vec![include.clone()]);
        assert_eq!(found.wmma.map(|(d, _)| d), Some(include));
        assert_eq!(wmma_package(13), "pip install \"nvidia-cuda-nvcc==13.*\"");
    }

    #[test]
    fn cuda13_wheels_share_one_folder() {
        let site = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cu13 = site.path().join("nvidia/cu13");
        runtime(&cu13.join("include"), 13);
        cccl(&cu13.join("include/cccl"));
        let nvrtc = cu13.join("lib/libnvrtc.so.13");
        let found = find_cuda_headers(&nvrtc, 13, &HeaderPlaces::default());
        assert_eq!(
            found.dirs(),
            vec![cu13.join("include"), cu13.join("include/cccl")]
        );
        // Found through the site-packages too, when NVRTC came from elsewhere.
        let places = HeaderPlaces {
            sites: vec![site.path().to_path_buf()],
            ..HeaderPlaces::default()
        };
        let found = find_cuda_headers(Path::new("/nonexistent/libnvrtc.so.13"), 13, &places);
        assert_eq!(
            found.runtime.map(|(_, by)| by).as_deref(),
            Some("python site-packages")
        );
    }

    #[test]
    fn toolkit_12_has_cccl_inside_include_and_other_majors_are_skipped() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let old = root.path().join("cuda-11.8");
        runtime(&old.join("include"), 11);
        cccl(&old.join("include"));
        let new = root.path().join("cuda-12.9");
        runtime(&new.join("include"), 12);
        cccl(&new.join("include"));
        let places = HeaderPlaces {
            toolkits: vec![
                ("CUDA_HOME".to_string(), old.clone()),
                ("/usr/local/cuda-12.9".to_string(), new.clone()),
            ],
            sites: Vec::new(),
        };
        let found = find_cuda_headers(Path::new("/elsewhere/lib/libnvrtc.so.12"), 12, &places);
        assert_eq!(found.dirs(), vec![new.join("include")]);
        assert_eq!(
            found.runtime.map(|(_, by)| by).as_deref(),
            Some("/usr/local/cuda-12.9")
        );
    }

    #[test]
    fn nothing_found_names_the_packages_for_the_major_version() {
        let none = HeaderPlaces::default();
        let found = find_cuda_headers(Path::new("/nonexistent/lib/libnvrtc.so.12"), 12, &none);
        assert!(found.dirs().is_empty());
        assert_eq!(
            found.install_hint.as_deref(),
            Some("pip install nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12")
        );
        let found = find_cuda_headers(Path::new("/nonexistent/lib/libnvrtc.so.13"), 13, &none);
        assert_eq!(
            found.install_hint.as_deref(),
            Some("pip install \"nvidia-cuda-runtime==13.*\" \"nvidia-cuda-cccl==13.*\"")
        );
    }

    #[test]
    fn runtime_stand_ins_never_hide_real_headers() {
        let with: Vec<&str> = stand_ins(true).iter().map(|(n, _)| *n).collect();
        assert!(with.contains(&"stdio.h") && with.contains(&PRE_INCLUDE));
        assert!(!with.contains(&"cuda_runtime.h"));
        let without: Vec<&str> = stand_ins(false).iter().map(|(n, _)| *n).collect();
        assert!(without.contains(&"cuda_runtime.h"));
    }

    #[test]
    fn learner_dirs_in_every_spelling() {
        let options: Vec<String> = ["-Ia", "-I", "b", "--include-path=c", "-DX", "-lineinfo"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            learner_include_dirs(&options),
            vec![PathBuf::from("a"), PathBuf::from("b"), PathBuf::from("c")]
        );
    }

    #[test]
    fn digest_follows_included_files_and_sees_their_changes() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let kernel = dir.path().join("k.cu");
        let lib = dir.path().join("lib");
        write(
            &dir.path().join("a.h"),
            "#include \"b.h\"\n#include <c.h>\n",
        );
        write(&dir.path().join("b.h"), "#define B 1\n");
        write(&lib.join("c.h"), "#define C 1\n");
        let name = kernel.display().to_string();
        let source = "#include \"a.h\"\n#include <stdio.h>\n";
        let dirs = vec![lib.clone()];
        let first = include_digest(&name, source, &dirs);
        assert_eq!(first, include_digest(&name, source, &dirs), "stable");
        write(&dir.path().join("b.h"), "#define B 2\n");
        let second = include_digest(&name, source, &dirs);
        assert_ne!(first, second, "a nested quoted include changed");
        write(&lib.join("c.h"), "#define C 2\n");
        let third = include_digest(&name, source, &dirs);
        assert_ne!(
            second, third,
            "an angle include from a learner folder changed"
        );
        // A quoted name found nowhere counts, so creating it is a change.
        let missing = "#include \"later.h\"\n";
        let before = include_digest(&name, missing, &dirs);
        write(&dir.path().join("later.h"), "");
        assert_ne!(before, include_digest(&name, missing, &dirs));
    }

    #[test]
    fn include_lines_are_parsed() {
        assert_eq!(
            includes("  #  include \"a.h\"\n#include <b/c.h> // x\n// #include \"no.h\"\n"),
            vec![(true, "a.h".to_string()), (false, "b/c.h".to_string())]
        );
    }
}
