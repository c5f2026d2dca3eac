//! What NVIDIA's files are called, and where they lie, on each operating system gpuzzle runs on.
//!
//! The searches for NVRTC (`search.rs`), its headers (`headers.rs`) and ptxas (`assembler.rs`)
//! are one logic over this data: Linux's `lib64/libnvrtc.so.12` and Windows' `bin\nvrtc64_120_0.dll`
//! differ only in names and folders. Keeping them as data lets the tests run the Windows search
//! on Linux, against a fake Windows-style tree; `#[cfg(windows)]` only picks [`HOST`].

use std::path::{Path, PathBuf};

/// How a Python prefix holds its site-packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SiteLayout {
    /// `<prefix>/bin/python3`, `<prefix>/lib/python3.X/site-packages`.
    Posix,
    /// `<prefix>\python.exe` (an installed Python) or `<venv>\Scripts\python.exe`,
    /// `<prefix>\Lib\site-packages`.
    Windows,
}

/// One operating system's names and folders for NVIDIA's files and Python's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// NVRTC's file names tried in each folder, best first: CUDA 12 is what gpuzzle is built and
    /// tested against; the others expose the same C API.
    pub nvrtc_files: &'static [&'static str],
    /// How the "no library here" line names them.
    pub nvrtc_pattern: &'static str,
    /// Names handed to the system's loader as they are.
    pub loader_names: &'static [&'static str],
    /// The places the system's loader searches, for the "looked in" line.
    pub loader_places: &'static str,
    /// The end of the loader's message for a name it does not find.
    pub loader_not_found: &'static str,
    /// Where NVRTC is under `CUDA_PATH` / `CUDA_HOME`, in order.
    pub root_lib_dirs: &'static [&'static str],
    /// Where NVRTC is in each toolkit of [`Layout::toolkits_parent`].
    pub toolkit_lib_dirs: &'static [&'static str],
    /// The environment variable [`Layout::toolkits_parent`] is under, if any.
    pub toolkits_parent_var: Option<&'static str>,
    /// The folder where the toolkit installer puts versioned toolkits.
    pub toolkits_parent: &'static str,
    /// The start of a toolkit folder's name there (`cuda-12.9`, `v12.9`).
    pub toolkit_prefix: &'static str,
    /// Where the pip wheels put NVRTC inside a site-packages folder: CUDA 12's
    /// `nvidia-cuda-nvrtc-cu12`, then CUDA 13's `nvidia-cuda-nvrtc`.
    pub wheel_lib_dirs: &'static [&'static str],
    /// Folders named for the CPU between a `bin/` and its DLLs (CUDA 13 on Windows).
    pub arch_dirs: &'static [&'static str],
    /// The PTX assembler's file name.
    pub ptxas: &'static str,
    /// Python interpreters' file names looked for on PATH, best first.
    pub pythons: &'static [&'static str],
    pub site_layout: SiteLayout,
    /// The environment variable under which user installs are (`pip install --user`).
    pub user_var: &'static str,
    /// Under it, the folder of the per-version user folders, and how their names start:
    /// `~/.local/lib/python3.12/site-packages`, `%APPDATA%\Python\Python312\site-packages`.
    pub user_base: &'static str,
    pub user_prefix: &'static str,
    /// The system's own Python library folders (under the system root).
    pub system_lib_dirs: &'static [&'static str],
    /// Where `uv tool install` and `pipx` keep gpuzzle's venv, as (environment variable, path
    /// under it), for where the `gpuzzle` on PATH is a copy rather than a link into that venv
    /// (Windows: `~\.local\bin\gpuzzle.exe`), so that its own path leads nowhere.
    pub tool_venvs: &'static [(&'static str, &'static str)],
}

/// Linux (and every other Unix gpuzzle builds on).
#[cfg_attr(windows, allow(dead_code))]
pub(crate) const LINUX: Layout = Layout {
    nvrtc_files: &[
        "libnvrtc.so.12",
        "libnvrtc.so",
        "libnvrtc.so.13",
        "libnvrtc.so.11.2",
    ],
    nvrtc_pattern: "libnvrtc.so*",
    loader_names: &["libnvrtc.so.12", "libnvrtc.so", "libnvrtc.so.13"],
    loader_places: "LD_LIBRARY_PATH, ld.so.cache",
    loader_not_found: "No such file or directory",
    root_lib_dirs: &["lib64", "lib"],
    toolkit_lib_dirs: &["lib64"],
    toolkits_parent_var: None,
    toolkits_parent: "/usr/local",
    toolkit_prefix: "cuda",
    wheel_lib_dirs: &["nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib"],
    arch_dirs: &[],
    ptxas: "ptxas",
    pythons: &["python3", "python"],
    site_layout: SiteLayout::Posix,
    user_var: "HOME",
    user_base: ".local/lib",
    user_prefix: "python3",
    system_lib_dirs: &["usr/local/lib", "usr/lib"],
    // uv and pipx link the executable into their venv: its own path leads there.
    tool_venvs: &[],
};

/// Windows: the toolkit installer's `%CUDA_PATH%\bin` (CUDA 13: `bin\x64`) and
/// `%ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\v12.9`; the wheels'
/// `nvidia\cuda_nvrtc\bin\nvrtc64_120_0.dll` and `nvidia\cu13\bin\x86_64\nvrtc64_130_0.dll`
/// (as listed in NVIDIA's win_amd64 wheels, 12.9 and 13.x).
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) const WINDOWS: Layout = Layout {
    nvrtc_files: &[
        "nvrtc64_120_0.dll",
        "nvrtc64_130_0.dll",
        "nvrtc64_112_0.dll",
    ],
    nvrtc_pattern: "nvrtc64_*.dll",
    loader_names: &["nvrtc64_120_0.dll", "nvrtc64_130_0.dll"],
    loader_places: "PATH",
    loader_not_found: "(os error 126)",
    root_lib_dirs: &["bin", "bin/x64"],
    toolkit_lib_dirs: &["bin", "bin/x64"],
    toolkits_parent_var: Some("ProgramFiles"),
    toolkits_parent: "NVIDIA GPU Computing Toolkit/CUDA",
    toolkit_prefix: "v",
    wheel_lib_dirs: &["nvidia/cuda_nvrtc/bin", "nvidia/cu13/bin/x86_64"],
    arch_dirs: &["x64", "x86_64"],
    ptxas: "ptxas.exe",
    pythons: &["python.exe", "python3.exe"],
    site_layout: SiteLayout::Windows,
    user_var: "APPDATA",
    user_base: "Python",
    user_prefix: "Python3",
    system_lib_dirs: &[],
    tool_venvs: &[
        ("UV_TOOL_DIR", "gpuzzle"),
        ("APPDATA", "uv/tools/gpuzzle"),
        ("APPDATA", "uv/data/tools/gpuzzle"),
        ("PIPX_HOME", "venvs/gpuzzle"),
        ("USERPROFILE", "pipx/venvs/gpuzzle"),
        ("LOCALAPPDATA", "pipx/pipx/venvs/gpuzzle"),
    ],
};

/// The layout of the system gpuzzle was built for.
#[cfg(windows)]
pub(crate) const HOST: Layout = WINDOWS;
#[cfg(not(windows))]
pub(crate) const HOST: Layout = LINUX;

impl Default for Layout {
    fn default() -> Self {
        HOST
    }
}

impl Layout {
    /// The folder the toolkit installer puts toolkits in, from the process's environment.
    pub(crate) fn toolkits_parent_from_process(&self) -> Option<PathBuf> {
        match self.toolkits_parent_var {
            None => Some(PathBuf::from(self.toolkits_parent)),
            Some(var) => std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(|base| PathBuf::from(base).join(self.toolkits_parent)),
        }
    }

    /// The root of the install an NVRTC file belongs to: `<root>/lib64/libnvrtc.so.12`,
    /// `<root>\bin\nvrtc64_120_0.dll`, `<root>\bin\x86_64\nvrtc64_130_0.dll`. Its
    /// `include/` and `bin/` (or, in the CUDA 12 wheels, its sibling packages) are the
    /// headers and ptxas of the same release.
    pub(crate) fn nvrtc_root<'p>(&self, nvrtc: &'p Path) -> Option<&'p Path> {
        let mut lib = nvrtc.parent()?;
        if lib
            .file_name()
            .is_some_and(|name| self.arch_dirs.iter().any(|a| name == *a))
        {
            lib = lib.parent()?;
        }
        lib.parent()
    }

    /// The site-packages folders of a Python prefix (a venv, an installed Python), whether or
    /// not they exist.
    pub(crate) fn prefix_sites(&self, prefix: &Path) -> Vec<PathBuf> {
        match self.site_layout {
            SiteLayout::Posix => super::search::python_lib_dirs(&prefix.join("lib"))
                .into_iter()
                .map(|lib| lib.join("site-packages"))
                .collect(),
            SiteLayout::Windows => vec![prefix.join("Lib/site-packages")],
        }
    }

    /// The tool venvs of [`Layout::tool_venvs`] under the variables `var` knows, in order.
    pub(crate) fn tool_venvs(&self, var: impl Fn(&str) -> Option<PathBuf>) -> Vec<PathBuf> {
        self.tool_venvs
            .iter()
            .filter_map(|(name, sub)| var(name).map(|base| base.join(sub)))
            .collect()
    }

    /// The prefixes an interpreter (or gpuzzle's own executable) may belong to:
    /// `/x/bin/python3` → `/x`; `C:\Python312\python.exe` → `C:\Python312`,
    /// `<venv>\Scripts\python.exe` → `<venv>`.
    pub(crate) fn exe_prefixes(&self, exe: &Path) -> Vec<PathBuf> {
        let Some(dir) = exe.parent() else {
            return Vec::new();
        };
        let mut prefixes = Vec::new();
        if self.site_layout == SiteLayout::Windows {
            prefixes.push(dir.to_path_buf());
        }
        if let Some(prefix) = dir.parent() {
            prefixes.push(prefix.to_path_buf());
        }
        prefixes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvrtc_roots_skip_the_lib_folder_and_windows_cpu_folders() {
        let root =
            |layout: &Layout, p: &str| layout.nvrtc_root(Path::new(p)).map(Path::to_path_buf);
        assert_eq!(
            root(&LINUX, "/usr/local/cuda/lib64/libnvrtc.so.12"),
            Some(PathBuf::from("/usr/local/cuda"))
        );
        // No CPU folders on Linux: a folder named so is an ordinary one.
        assert_eq!(
            root(&LINUX, "/opt/x86_64/libnvrtc.so.12"),
            Some(PathBuf::from("/opt"))
        );
        assert_eq!(
            root(&WINDOWS, "C:/site/nvidia/cuda_nvrtc/bin/nvrtc64_120_0.dll"),
            Some(PathBuf::from("C:/site/nvidia/cuda_nvrtc"))
        );
        assert_eq!(
            root(&WINDOWS, "C:/site/nvidia/cu13/bin/x86_64/nvrtc64_130_0.dll"),
            Some(PathBuf::from("C:/site/nvidia/cu13"))
        );
        assert_eq!(
            root(&WINDOWS, "C:/CUDA/v13.0/bin/x64/nvrtc64_130_0.dll"),
            Some(PathBuf::from("C:/CUDA/v13.0"))
        );
    }

    #[test]
    fn windows_tool_venvs_of_uv_and_pipx_are_under_their_variables() {
        let var = |name: &str| match name {
            "APPDATA" => Some(PathBuf::from("C:/Users/a/AppData/Roaming")),
            "USERPROFILE" => Some(PathBuf::from("C:/Users/a")),
            _ => None,
        };
        assert_eq!(
            WINDOWS.tool_venvs(var),
            vec![
                PathBuf::from("C:/Users/a/AppData/Roaming/uv/tools/gpuzzle"),
                PathBuf::from("C:/Users/a/AppData/Roaming/uv/data/tools/gpuzzle"),
                PathBuf::from("C:/Users/a/pipx/venvs/gpuzzle"),
            ]
        );
        assert!(LINUX.tool_venvs(var).is_empty());
    }

    #[test]
    fn windows_prefixes_cover_venvs_and_installed_pythons() {
        assert_eq!(
            WINDOWS.exe_prefixes(Path::new("C:/venv/Scripts/gpuzzle.exe")),
            vec![PathBuf::from("C:/venv/Scripts"), PathBuf::from("C:/venv")]
        );
        assert_eq!(
            LINUX.exe_prefixes(Path::new("/venv/bin/gpuzzle")),
            vec![PathBuf::from("/venv")]
        );
        assert_eq!(
            WINDOWS.prefix_sites(Path::new("C:/venv")),
            vec![PathBuf::from("C:/venv/Lib/site-packages")]
        );
    }
}
