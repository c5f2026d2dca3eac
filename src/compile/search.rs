//! Where libnvrtc may be, in the order gpuzzle tries those places.
//!
//! 1. `GPUZZLE_NVRTC` (a file, or a directory holding one). When set it is the
//!    only place tried: a wrong setting is an error, never silently ignored.
//! 2. `CUDA_PATH`, `CUDA_HOME`: `lib64/`, then `lib/`.
//! 3. `/usr/local/cuda*/lib64` (`cuda` first, then newest version first).
//! 4. The dynamic loader's own search for `libnvrtc.so.12`, `libnvrtc.so`,
//!    `libnvrtc.so.13` (LD_LIBRARY_PATH, ld.so.cache).
//! 5. `nvidia/cuda_nvrtc/lib` (where `pip install nvidia-cuda-nvrtc-cu12`
//!    puts CUDA 12's) and `nvidia/cu13/lib` (the folder all CUDA 13 wheels
//!    share, `pip install nvidia-cuda-nvrtc`) in the site-packages folders
//!    where pip usually puts them, looked at directly ([`likely_site_dirs`]:
//!    the active virtualenv or conda env, each interpreter's own prefix,
//!    pyenv's versions, the user site, the system's): no Python runs.
//! 6. The same wheel folders in the site-packages of every `python3` and
//!    `python` on PATH, as the interpreter itself names them (50-150 ms each,
//!    more behind a version-manager shim); each is asked only if nothing
//!    before it was found.
//! 7. `~/.local/lib/python3*/site-packages` for a `pip install --user` done
//!    with an interpreter no longer on PATH.
//!
//! The search is written against [`Host`] so that tests can drive it with fake
//! loaders and interpreters; [`SystemHost`] is the real one.

use super::layout::Layout;
use super::library::LibrarySpec;
use std::collections::HashSet;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Prints one site-packages directory per line: global ones, then the user's.
/// Old virtualenvs lack `getsitepackages`, hence the guards.
const SITE_SCRIPT: &str = "import site\n\
paths = []\n\
try:\n    paths += site.getsitepackages()\n\
except Exception:\n    pass\n\
try:\n    paths.append(site.getusersitepackages())\n\
except Exception:\n    pass\n\
print('\\n'.join(paths))\n";

const PYTHON_TIMEOUT: Duration = Duration::from_secs(10);

/// The environment the search reads, captured once.
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchEnv {
    /// `GPUZZLE_NVRTC`, when set and not empty.
    pub explicit: Option<PathBuf>,
    /// `("CUDA_PATH", value)`, `("CUDA_HOME", value)`, for those set.
    pub cuda_roots: Vec<(&'static str, PathBuf)>,
    /// Normally `/usr/local`; a temporary directory in tests.
    pub usr_local: PathBuf,
    pub home: Option<PathBuf>,
    /// The operating system's names and folders.
    pub layout: Layout,
}

impl SearchEnv {
    pub(crate) fn from_process() -> Self {
        let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        let cuda_roots = ["CUDA_PATH", "CUDA_HOME"]
            .into_iter()
            .filter_map(|name| non_empty(name).map(|value| (name, PathBuf::from(value))))
            .collect();
        let layout = super::layout::HOST;
        SearchEnv {
            explicit: non_empty("GPUZZLE_NVRTC").map(PathBuf::from),
            cuda_roots,
            usr_local: layout.toolkits_parent_from_process().unwrap_or_default(),
            home: non_empty(layout.user_var).map(PathBuf::from),
            layout,
        }
    }
}

/// What the search needs from the machine.
pub(crate) trait Host<L> {
    /// Loads and checks one candidate; `Err` is a short reason.
    fn load(&mut self, spec: &LibrarySpec) -> Result<L, String>;
    /// site-packages folders where pip usually installs, found without running
    /// Python (see [`likely_site_dirs`]).
    fn likely_sites(&mut self) -> Vec<PathBuf>;
    /// Python interpreters on PATH, in PATH order, without duplicates.
    fn pythons(&mut self) -> Vec<PathBuf>;
    /// An interpreter's site-packages directories, user site included.
    fn site_dirs(&mut self, python: &Path) -> Result<Vec<PathBuf>, String>;
}

/// A library that loaded, and how it was found (for `gpuzzle doctor`).
pub(crate) struct Found<L> {
    pub library: L,
    pub found_by: String,
}

/// Runs the search. `Err` lists every place looked at, one line each.
pub(crate) fn search<L>(env: &SearchEnv, host: &mut dyn Host<L>) -> Result<Found<L>, Vec<String>> {
    let mut search = Search {
        host,
        layout: env.layout,
        searched: Vec::new(),
        tried_dirs: HashSet::new(),
    };
    if let Some(explicit) = &env.explicit {
        return search.explicit(explicit);
    }
    if let Some(found) = search.cuda_roots(&env.cuda_roots) {
        return Ok(found);
    }
    if let Some(found) = search.usr_local(&env.usr_local) {
        return Ok(found);
    }
    if let Some(found) = search.loader() {
        return Ok(found);
    }
    if let Some(found) = search.likely_sites() {
        return Ok(found);
    }
    if let Some(found) = search.pythons() {
        return Ok(found);
    }
    if let Some(home) = &env.home {
        if let Some(found) = search.user_sites(home) {
            return Ok(found);
        }
    }
    Err(search.searched)
}

struct Search<'h, L> {
    host: &'h mut dyn Host<L>,
    layout: Layout,
    searched: Vec<String>,
    /// Canonical directories already tried (CUDA_HOME is often /usr/local/cuda).
    tried_dirs: HashSet<PathBuf>,
}

impl<L> Search<'_, L> {
    fn explicit(&mut self, setting: &Path) -> Result<Found<L>, Vec<String>> {
        let path = std::path::absolute(setting).unwrap_or_else(|_| setting.to_path_buf());
        let shown = format!("GPUZZLE_NVRTC={}", setting.display());
        let fix = format!(
            "unset GPUZZLE_NVRTC to search the usual places, or point it at {}",
            self.layout.nvrtc_files[0]
        );
        if path.is_dir() {
            if let Some(found) = self.try_dir(&path, "GPUZZLE_NVRTC") {
                return Ok(found);
            }
            return Err(vec![format!(
                "{shown}: no usable libnvrtc in that directory ({fix})"
            )]);
        }
        if !path.exists() {
            return Err(vec![format!("{shown}: no such file ({fix})")]);
        }
        match self.host.load(&LibrarySpec::File(path)) {
            Ok(library) => Ok(Found {
                library,
                found_by: "GPUZZLE_NVRTC".to_string(),
            }),
            Err(why) => Err(vec![format!("{shown}: {why} ({fix})")]),
        }
    }

    fn cuda_roots(&mut self, roots: &[(&'static str, PathBuf)]) -> Option<Found<L>> {
        if roots.is_empty() {
            self.searched
                .push("CUDA_PATH, CUDA_HOME: not set".to_string());
        }
        for (variable, root) in roots {
            for sub in self.layout.root_lib_dirs {
                if let Some(found) = self.try_dir(&root.join(sub), variable) {
                    return Some(found);
                }
            }
        }
        None
    }

    fn usr_local(&mut self, usr_local: &Path) -> Option<Found<L>> {
        let toolkits = toolkit_dirs(usr_local, self.layout.toolkit_prefix);
        if toolkits.is_empty() {
            self.searched.push(format!(
                "{}/{}*: none",
                usr_local.display(),
                self.layout.toolkit_prefix
            ));
        }
        for toolkit in toolkits {
            let found_by = toolkit.display().to_string();
            for sub in self.layout.toolkit_lib_dirs {
                if let Some(found) = self.try_dir(&toolkit.join(sub), &found_by) {
                    return Some(found);
                }
            }
        }
        None
    }

    fn loader(&mut self) -> Option<Found<L>> {
        let mut reasons = Vec::new();
        for &name in self.layout.loader_names {
            match self.host.load(&LibrarySpec::LoaderName(name)) {
                Ok(library) => {
                    return Some(Found {
                        library,
                        found_by: "dynamic loader".to_string(),
                    })
                }
                Err(why) if why.ends_with(self.layout.loader_not_found) => {
                    reasons.push(format!("{name}: not found"))
                }
                Err(why) => reasons.push(format!("{name}: {why}")),
            }
        }
        self.searched.push(format!(
            "dynamic loader ({}): {}",
            self.layout.loader_places,
            reasons.join("; ")
        ));
        None
    }

    fn likely_sites(&mut self) -> Option<Found<L>> {
        for site in self.host.likely_sites() {
            let found_by = format!("python site-packages ({})", site.display());
            for wheel in self.layout.wheel_lib_dirs {
                let dir = site.join(wheel);
                // Most of these folders hold no wheel: not worth a line each in "looked in".
                if dir.is_dir() {
                    if let Some(found) = self.try_dir(&dir, &found_by) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    fn pythons(&mut self) -> Option<Found<L>> {
        let pythons = self.host.pythons();
        if pythons.is_empty() {
            self.searched
                .push("python site-packages: no python3 or python on PATH".to_string());
        }
        for python in pythons {
            let found_by = format!("python site-packages ({})", python.display());
            match self.host.site_dirs(&python) {
                Ok(sites) => {
                    for site in sites {
                        for wheel in self.layout.wheel_lib_dirs {
                            if let Some(found) = self.try_dir(&site.join(wheel), &found_by) {
                                return Some(found);
                            }
                        }
                    }
                }
                Err(why) => self.searched.push(format!("{found_by}: {why}")),
            }
        }
        None
    }

    fn user_sites(&mut self, home: &Path) -> Option<Found<L>> {
        for site in user_site_dirs(home, &self.layout) {
            for wheel in self.layout.wheel_lib_dirs {
                if let Some(found) = self.try_dir(&site.join(wheel), "user site-packages") {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Tries every known file name in `dir`, once per directory per search.
    fn try_dir(&mut self, dir: &Path, found_by: &str) -> Option<Found<L>> {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        if !self.tried_dirs.insert(canonical) {
            return None;
        }
        if !dir.is_dir() {
            self.searched
                .push(format!("{found_by}: {}: no such directory", dir.display()));
            return None;
        }
        let mut any_file = false;
        for &name in self.layout.nvrtc_files {
            let path = dir.join(name);
            if !path.is_file() {
                continue;
            }
            any_file = true;
            match self.host.load(&LibrarySpec::File(path.clone())) {
                Ok(library) => {
                    return Some(Found {
                        library,
                        found_by: found_by.to_string(),
                    })
                }
                Err(why) => self
                    .searched
                    .push(format!("{found_by}: {}: {why}", path.display())),
            }
        }
        if !any_file {
            self.searched.push(format!(
                "{found_by}: {}: no {}",
                dir.display(),
                self.layout.nvrtc_pattern
            ));
        }
        None
    }
}

/// `~/.local/lib/python3*/site-packages` (Windows: `%APPDATA%\Python\Python3*\site-packages`),
/// sorted.
fn user_site_dirs(home: &Path, layout: &Layout) -> Vec<PathBuf> {
    let lib = home.join(layout.user_base);
    let mut sites: Vec<PathBuf> = std::fs::read_dir(&lib)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with(layout.user_prefix)
        })
        .map(|entry| entry.path().join("site-packages"))
        .collect();
    sites.sort();
    sites
}

/// Every site-packages folder known without running Python: those the
/// interpreters named when NVRTC was searched for (remembered beside the PTX
/// cache), then the user's, then the other usual places. Where pip put CUDA's
/// header wheels.
pub(crate) fn known_site_dirs(home: Option<&Path>) -> Vec<PathBuf> {
    let memo = super::cache_dir().join("python-sites.txt");
    let mut sites: Vec<PathBuf> = std::fs::read_to_string(memo)
        .unwrap_or_default()
        .lines()
        .flat_map(|line| line.split('\t').skip(1).map(PathBuf::from))
        .collect();
    let places = PythonPlaces::from_process();
    sites.extend(
        home.map(|h| user_site_dirs(h, &places.layout))
            .unwrap_or_default(),
    );
    sites.extend(likely_site_dirs(&places));
    let mut seen = HashSet::new();
    sites.retain(|site| seen.insert(site.clone()));
    sites
}

/// What [`likely_site_dirs`] reads from the environment.
#[derive(Debug, Clone, Default)]
pub(crate) struct PythonPlaces {
    /// `VIRTUAL_ENV`, `CONDA_PREFIX`: an active environment, where `pip` installs; and the
    /// prefix gpuzzle itself runs from (`<prefix>/bin/gpuzzle`, `<venv>\Scripts\gpuzzle.exe`),
    /// where `pip install gpuzzle` put NVIDIA's wheels beside it, activated or not; on Windows
    /// also uv's and pipx's gpuzzle venvs (their `gpuzzle.exe` on PATH is a copy).
    pub active_envs: Vec<PathBuf>,
    /// Python interpreters on PATH.
    pub pythons: Vec<PathBuf>,
    /// `PYENV_ROOT`, else `~/.pyenv`.
    pub pyenv_root: Option<PathBuf>,
    pub home: Option<PathBuf>,
    /// Normally `/`; a temporary directory in tests.
    pub system_root: PathBuf,
    /// The operating system's names and folders.
    pub layout: Layout,
}

impl PythonPlaces {
    pub(crate) fn from_process() -> Self {
        let non_empty = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        let layout = super::layout::HOST;
        let home = non_empty(layout.user_var);
        let own_prefixes = std::env::current_exe()
            .map(|exe| layout.exe_prefixes(&exe))
            .unwrap_or_default();
        PythonPlaces {
            active_envs: ["VIRTUAL_ENV", "CONDA_PREFIX"]
                .into_iter()
                .filter_map(non_empty)
                .chain(own_prefixes)
                .chain(layout.tool_venvs(non_empty))
                .collect(),
            pythons: pythons_on_path(std::env::var_os("PATH").unwrap_or_default(), &layout),
            pyenv_root: non_empty("PYENV_ROOT").or_else(|| home.as_ref().map(|h| h.join(".pyenv"))),
            home,
            system_root: PathBuf::from("/"),
            layout,
        }
    }
}

/// `~/.gpuzzle-venv`: the venv the README's quick start and Classroom 50's autograder install
/// NVIDIA's wheels into.
pub(crate) const QUICKSTART_VENV: &str = ".gpuzzle-venv";

/// The site-packages folders pip usually installs into, found by looking,
/// not by running Python, best first: the active environments; the prefix of
/// each interpreter on PATH (`/x/bin/python3` → `/x/lib/python3.*/`, links
/// followed, so a venv's or a toolchain's own); pyenv's versions, newest
/// first (its shims are scripts, which name no prefix); `~/.gpuzzle-venv`; the user site; the
/// system's (`/usr/local/lib`, `/usr/lib`). Only folders that exist.
pub(crate) fn likely_site_dirs(places: &PythonPlaces) -> Vec<PathBuf> {
    let mut prefixes: Vec<PathBuf> = places.active_envs.clone();
    for python in &places.pythons {
        let real = python.canonicalize().unwrap_or_else(|_| python.clone());
        prefixes.extend(places.layout.exe_prefixes(&real));
    }
    if let Some(root) = &places.pyenv_root {
        let mut versions = sorted_entries(&root.join("versions"), |_| true);
        versions.reverse();
        prefixes.extend(versions);
    }
    // The venv the README's quick start makes for NVIDIA's wheels: found without activating it
    // (a distribution Python refuses `pip install` outside a venv, PEP 668).
    if let Some(home) = &places.home {
        prefixes.push(home.join(QUICKSTART_VENV));
    }
    let mut sites = Vec::new();
    for prefix in &prefixes {
        sites.extend(places.layout.prefix_sites(prefix));
    }
    if let Some(home) = &places.home {
        sites.extend(user_site_dirs(home, &places.layout));
    }
    for system in places.layout.system_lib_dirs {
        let lib = places.system_root.join(system);
        for dir in python_lib_dirs(&lib) {
            sites.push(dir.join("dist-packages"));
            sites.push(dir.join("site-packages"));
        }
    }
    let mut seen = HashSet::new();
    sites.retain(|site| site.is_dir() && seen.insert(site.clone()));
    sites
}

/// `lib/python3.12`, `lib/python3` ...: the `python3*` folders of `lib`,
/// newest first.
pub(crate) fn python_lib_dirs(lib: &Path) -> Vec<PathBuf> {
    let mut dirs = sorted_entries(lib, |name| name.starts_with("python3"));
    dirs.sort_by_key(|dir| {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let minor: u32 = name
            .as_deref()
            .and_then(|n| n.strip_prefix("python3."))
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        std::cmp::Reverse(minor)
    });
    dirs
}

/// The entries of `dir` whose name passes `keep`, sorted by name.
fn sorted_entries(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| keep(&entry.file_name().to_string_lossy()))
        .map(|entry| entry.path())
        .collect();
    entries.sort();
    entries
}

/// `/usr/local/cuda` first (the installer's "current" link), then versioned
/// toolkits newest first (`cuda-12.10` before `cuda-12.9`); on Windows the
/// installer's `v13.0`, `v12.9` (see [`Layout::toolkits_parent`]).
pub(crate) fn cuda_toolkit_dirs(usr_local: &Path) -> Vec<PathBuf> {
    toolkit_dirs(usr_local, super::layout::HOST.toolkit_prefix)
}

/// The folders of `parent` named `prefix` and a version, sorted as [`cuda_toolkit_dirs`] says.
fn toolkit_dirs(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.starts_with(prefix))
        .collect();
    names.sort_by_key(|name| {
        let version: Vec<u32> = name
            .trim_start_matches(prefix)
            .trim_start_matches('-')
            .split('.')
            .filter_map(|part| part.parse().ok())
            .collect();
        (name != "cuda", std::cmp::Reverse(version), name.clone())
    });
    names
        .into_iter()
        .map(|name| parent.join(name))
        .filter(|path| path.is_dir())
        .collect()
}

/// The real machine: dlopen, PATH, and Python subprocesses.
pub(crate) struct SystemHost<F> {
    pub load: F,
}

impl<L, F: FnMut(&LibrarySpec) -> Result<L, String>> Host<L> for SystemHost<F> {
    fn load(&mut self, spec: &LibrarySpec) -> Result<L, String> {
        (self.load)(spec)
    }

    fn likely_sites(&mut self) -> Vec<PathBuf> {
        likely_site_dirs(&PythonPlaces::from_process())
    }

    fn pythons(&mut self) -> Vec<PathBuf> {
        pythons_on_path(
            std::env::var_os("PATH").unwrap_or_default(),
            &super::layout::HOST,
        )
    }

    fn site_dirs(&mut self, python: &Path) -> Result<Vec<PathBuf>, String> {
        // Asking an interpreter costs 50-150 ms (more behind a pyenv shim), on every run. Its
        // answer is remembered beside the PTX cache and reused while it still leads to NVRTC.
        let memo = super::cache_dir().join("python-sites.txt");
        if let Some(sites) = remembered_sites(&memo, python) {
            if sites.iter().any(|s| {
                super::layout::HOST
                    .wheel_lib_dirs
                    .iter()
                    .any(|w| s.join(w).is_dir())
            }) {
                return Ok(sites);
            }
        }
        let sites = ask_python_for_sites(python)?;
        remember_sites(&memo, python, &sites);
        Ok(sites)
    }
}

/// The sites remembered for `python` in the memo file (`python<TAB>site<TAB>site...` lines).
fn remembered_sites(memo: &Path, python: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read_to_string(memo).ok()?;
    let key = python.to_string_lossy();
    text.lines().find_map(|line| {
        let mut parts = line.split('\t');
        (parts.next()? == key).then(|| parts.map(PathBuf::from).collect())
    })
}

/// Remember `sites` for `python`; a failure only means asking again next time.
fn remember_sites(memo: &Path, python: &Path, sites: &[PathBuf]) {
    let key = python.to_string_lossy().into_owned();
    if key.contains(['\t', '\n'])
        || sites
            .iter()
            .any(|s| s.to_string_lossy().contains(['\t', '\n']))
    {
        return;
    }
    let mut lines: Vec<String> = std::fs::read_to_string(memo)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.split('\t').next() != Some(key.as_str()))
        .map(str::to_string)
        .collect();
    let mut line = key;
    for s in sites {
        line.push('\t');
        line.push_str(&s.to_string_lossy());
    }
    lines.push(line);
    let Some(dir) = memo.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // Written to a temporary file and renamed, so a reader never sees half a file.
    let tmp = dir.join(format!("python-sites.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, lines.join("\n") + "\n").is_ok() && std::fs::rename(&tmp, memo).is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Executable `python3`/`python` files on `path` (Windows: `python.exe`, `python3.exe`), in
/// order, each interpreter once (by canonical path: `/bin/python3` and `/usr/bin/python3` are
/// one).
fn pythons_on_path(path: OsString, layout: &Layout) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for dir in std::env::split_paths(&path) {
        for &name in layout.pythons {
            let candidate = dir.join(name);
            if !is_executable_file(&candidate) {
                continue;
            }
            let canonical = candidate
                .canonicalize()
                .unwrap_or_else(|_| candidate.clone());
            if seen.insert(canonical) {
                found.push(candidate);
            }
        }
    }
    found
}

#[cfg(unix)]
fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable_file(path: &Path) -> bool {
    path.is_file()
}

/// Runs `python -c SITE_SCRIPT`, with a deadline so that a broken interpreter
/// (a pyenv shim for a missing version, a hung one) cannot stall gpuzzle.
fn ask_python_for_sites(python: &Path) -> Result<Vec<PathBuf>, String> {
    let mut child = Command::new(python)
        .arg("-c")
        .arg(SITE_SCRIPT)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| format!("cannot run it: {err}"))?;
    let deadline = Instant::now() + PYTHON_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer in {} s", PYTHON_TIMEOUT.as_secs()));
            }
            Err(err) => return Err(format!("cannot wait for it: {err}")),
        }
    };
    let mut output = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout
            .read_to_string(&mut output)
            .map_err(|err| format!("unreadable answer: {err}"))?;
    }
    if !status.success() {
        return Err(format!("it failed ({status})"));
    }
    Ok(parse_site_dirs(&output))
}

#[cfg(test)]
mod memo_tests {
    use super::*;

    #[test]
    fn remembered_sites_round_trip_and_replace() {
        let dir = tempfile::tempdir().unwrap();
        let memo = dir.path().join("python-sites.txt");
        assert_eq!(remembered_sites(&memo, Path::new("/usr/bin/python3")), None);
        remember_sites(
            &memo,
            Path::new("/usr/bin/python3"),
            &[PathBuf::from("/a"), PathBuf::from("/b")],
        );
        remember_sites(&memo, Path::new("/opt/python"), &[PathBuf::from("/c")]);
        remember_sites(&memo, Path::new("/usr/bin/python3"), &[PathBuf::from("/d")]);
        assert_eq!(
            remembered_sites(&memo, Path::new("/usr/bin/python3")),
            Some(vec![PathBuf::from("/d")])
        );
        assert_eq!(
            remembered_sites(&memo, Path::new("/opt/python")),
            Some(vec![PathBuf::from("/c")])
        );
    }
}

fn parse_site_dirs(output: &str) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    output
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .filter(|path| seen.insert(path.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::layout::{LINUX, WINDOWS};
    use std::fs;

    /// The CUDA 12 wheel's folder.
    const WHEEL_LIB_DIR: &str = LINUX.wheel_lib_dirs[0];

    /// Linux's names, whatever the system running the tests.
    fn linux_env() -> SearchEnv {
        SearchEnv {
            layout: LINUX,
            ..SearchEnv::default()
        }
    }

    /// A scripted machine: records every load, succeeds only for `good`.
    #[derive(Default)]
    struct FakeHost {
        good: Option<LibrarySpec>,
        likely: Vec<PathBuf>,
        pythons: Vec<PathBuf>,
        sites: Vec<(PathBuf, Vec<PathBuf>)>,
        loads: Vec<LibrarySpec>,
        asked: Vec<PathBuf>,
    }

    impl Host<LibrarySpec> for FakeHost {
        fn load(&mut self, spec: &LibrarySpec) -> Result<LibrarySpec, String> {
            self.loads.push(spec.clone());
            if self.good.as_ref() == Some(spec) {
                Ok(spec.clone())
            } else {
                Err("refused by the fake loader".to_string())
            }
        }
        fn likely_sites(&mut self) -> Vec<PathBuf> {
            self.likely.clone()
        }
        fn pythons(&mut self) -> Vec<PathBuf> {
            self.pythons.clone()
        }
        fn site_dirs(&mut self, python: &Path) -> Result<Vec<PathBuf>, String> {
            self.asked.push(python.to_path_buf());
            self.sites
                .iter()
                .find(|(p, _)| p == python)
                .map(|(_, sites)| sites.clone())
                .ok_or_else(|| "not a python".to_string())
        }
    }

    fn touch(path: &Path) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        fs::write(path, b"").unwrap_or_else(|e| panic!("{e}"));
    }

    fn file(path: &Path) -> LibrarySpec {
        LibrarySpec::File(path.to_path_buf())
    }

    #[test]
    fn bogus_gpuzzle_nvrtc_is_an_error_naming_it() {
        let env = SearchEnv {
            explicit: Some(PathBuf::from("/nonexistent/gpuzzle-test/libnvrtc.so.12")),
            ..linux_env()
        };
        let mut host = FakeHost::default();
        let searched = search(&env, &mut host).err().unwrap_or_default();
        assert_eq!(searched.len(), 1, "{searched:?}");
        assert!(
            searched[0].starts_with(
                "GPUZZLE_NVRTC=/nonexistent/gpuzzle-test/libnvrtc.so.12: no such file"
            ),
            "{searched:?}"
        );
        assert!(searched[0].contains("unset GPUZZLE_NVRTC"), "{searched:?}");
        // An explicit setting is never silently replaced by another library.
        assert!(host.loads.is_empty(), "{:?}", host.loads);
        assert!(host.asked.is_empty());
    }

    #[test]
    fn gpuzzle_nvrtc_that_does_not_load_is_an_error_with_the_reason() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let bogus = dir.path().join("not-nvrtc.so");
        touch(&bogus);
        let env = SearchEnv {
            explicit: Some(bogus.clone()),
            ..linux_env()
        };
        let mut host = FakeHost::default();
        let searched = search(&env, &mut host).err().unwrap_or_default();
        assert_eq!(host.loads, vec![file(&bogus)]);
        assert!(
            searched[0].contains("refused by the fake loader"),
            "{searched:?}"
        );
    }

    #[test]
    fn gpuzzle_nvrtc_wins_over_everything() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let chosen = dir.path().join("mine/libnvrtc.so.12");
        let cuda = dir.path().join("cuda");
        touch(&chosen);
        touch(&cuda.join("lib64/libnvrtc.so.12"));
        let env = SearchEnv {
            explicit: Some(chosen.clone()),
            cuda_roots: vec![("CUDA_PATH", cuda)],
            usr_local: dir.path().to_path_buf(),
            home: None,
            layout: LINUX,
        };
        let mut host = FakeHost {
            good: Some(file(&chosen)),
            ..FakeHost::default()
        };
        let found = search(&env, &mut host)
            .ok()
            .map(|f| (f.library, f.found_by));
        assert_eq!(found, Some((file(&chosen), "GPUZZLE_NVRTC".to_string())));
        assert_eq!(host.loads.len(), 1);

        // A directory is accepted too.
        let env = SearchEnv {
            explicit: Some(dir.path().join("mine")),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(file(&chosen)),
            ..FakeHost::default()
        };
        assert!(search(&env, &mut host).is_ok());
    }

    #[test]
    fn full_order_when_nothing_loads() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let cuda_path = root.join("opt/cuda");
        let cuda_home = root.join("opt/cuda-home");
        touch(&cuda_path.join("lib/libnvrtc.so.12"));
        touch(&cuda_path.join("lib64/libnvrtc.so"));
        touch(&cuda_home.join("lib64/libnvrtc.so.12"));
        let usr_local = root.join("usr/local");
        for toolkit in ["cuda-12.9", "cuda", "cuda-12.10", "cuda-11.8"] {
            touch(&usr_local.join(toolkit).join("lib64/libnvrtc.so.12"));
        }
        fs::create_dir_all(usr_local.join("bin")).unwrap_or_else(|e| panic!("{e}"));
        let site_a = root.join("venv/site-packages");
        let site_b = root.join("user/site-packages");
        touch(&site_a.join(WHEEL_LIB_DIR).join("libnvrtc.so.12"));
        touch(&site_b.join(WHEEL_LIB_DIR).join("libnvrtc.so.12"));
        let home = root.join("home");
        touch(
            &home
                .join(".local/lib/python3.12/site-packages")
                .join(WHEEL_LIB_DIR)
                .join("libnvrtc.so.12"),
        );

        let env = SearchEnv {
            explicit: None,
            cuda_roots: vec![
                ("CUDA_PATH", cuda_path.clone()),
                ("CUDA_HOME", cuda_home.clone()),
            ],
            usr_local: usr_local.clone(),
            home: Some(home.clone()),
            layout: LINUX,
        };
        let mut host = FakeHost {
            pythons: vec![PathBuf::from("/py/broken"), PathBuf::from("/py/python3")],
            sites: vec![(
                PathBuf::from("/py/python3"),
                vec![site_a.clone(), site_b.clone()],
            )],
            ..FakeHost::default()
        };
        let searched = search(&env, &mut host).err().unwrap_or_default();
        let expected = vec![
            file(&cuda_path.join("lib64/libnvrtc.so")),
            file(&cuda_path.join("lib/libnvrtc.so.12")),
            file(&cuda_home.join("lib64/libnvrtc.so.12")),
            file(&usr_local.join("cuda/lib64/libnvrtc.so.12")),
            file(&usr_local.join("cuda-12.10/lib64/libnvrtc.so.12")),
            file(&usr_local.join("cuda-12.9/lib64/libnvrtc.so.12")),
            file(&usr_local.join("cuda-11.8/lib64/libnvrtc.so.12")),
            LibrarySpec::LoaderName("libnvrtc.so.12"),
            LibrarySpec::LoaderName("libnvrtc.so"),
            LibrarySpec::LoaderName("libnvrtc.so.13"),
            file(&site_a.join(WHEEL_LIB_DIR).join("libnvrtc.so.12")),
            file(&site_b.join(WHEEL_LIB_DIR).join("libnvrtc.so.12")),
            file(
                &home
                    .join(".local/lib/python3.12/site-packages")
                    .join(WHEEL_LIB_DIR)
                    .join("libnvrtc.so.12"),
            ),
        ];
        assert_eq!(host.loads, expected);
        assert_eq!(
            host.asked,
            vec![PathBuf::from("/py/broken"), PathBuf::from("/py/python3")]
        );
        // Every attempt is in the list the user sees, with its reason.
        let text = searched.join("\n");
        assert!(
            text.contains("python site-packages (/py/broken): not a python"),
            "{text}"
        );
        assert!(text.contains("dynamic loader"), "{text}");
        assert!(text.contains("refused by the fake loader"), "{text}");
        assert!(
            searched.len() >= expected.len() - 1,
            "one line per file and per place: {searched:#?}"
        );
    }

    #[test]
    fn search_stops_at_the_first_library_that_loads() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let site = dir.path().join("site");
        let wheel = site.join(WHEEL_LIB_DIR).join("libnvrtc.so.12");
        touch(&wheel);
        let env = SearchEnv {
            usr_local: dir.path().join("no-usr-local"),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(file(&wheel)),
            pythons: vec![PathBuf::from("/py/a"), PathBuf::from("/py/b")],
            sites: vec![
                (PathBuf::from("/py/a"), vec![site.clone()]),
                (PathBuf::from("/py/b"), vec![site.clone()]),
            ],
            ..FakeHost::default()
        };
        let found = search(&env, &mut host).ok().map(|f| f.found_by);
        assert_eq!(found.as_deref(), Some("python site-packages (/py/a)"));
        // The second interpreter is never run.
        assert_eq!(host.asked, vec![PathBuf::from("/py/a")]);
    }

    #[test]
    fn a_wheel_in_a_likely_site_is_found_without_running_python() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let site = dir
            .path()
            .join("pyenv/versions/3.11.7/lib/python3.11/site-packages");
        let wheel = site.join(WHEEL_LIB_DIR).join("libnvrtc.so.12");
        touch(&wheel);
        let env = SearchEnv {
            usr_local: dir.path().join("no-usr-local"),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(file(&wheel)),
            likely: vec![dir.path().join("empty-site"), site.clone()],
            pythons: vec![PathBuf::from("/py/shim")],
            sites: vec![(PathBuf::from("/py/shim"), vec![site.clone()])],
            ..FakeHost::default()
        };
        let found = search(&env, &mut host)
            .ok()
            .map(|f| (f.library, f.found_by));
        assert_eq!(
            found,
            Some((
                file(&wheel),
                format!("python site-packages ({})", site.display())
            ))
        );
        assert!(host.asked.is_empty(), "{:?}", host.asked);
    }

    #[test]
    fn likely_sites_are_looked_for_in_the_usual_places_best_first() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let mkdir = |path: &Path| fs::create_dir_all(path).unwrap_or_else(|e| panic!("{e}"));
        let venv = root.join("venv/lib/python3.12/site-packages");
        let prefix = root.join("opt/py");
        let own = prefix.join("lib/python3.9/site-packages");
        let pyenv_old = root.join("pyenv/versions/3.10.1/lib/python3.10/site-packages");
        let pyenv_new = root.join("pyenv/versions/3.12.0/lib/python3.12/site-packages");
        let user = root.join("home/.local/lib/python3.11/site-packages");
        let quickstart = root.join("home/.gpuzzle-venv/lib/python3.13/site-packages");
        let system = root.join("sys/usr/lib/python3/dist-packages");
        let local_new = root.join("sys/usr/local/lib/python3.12/dist-packages");
        let local_old = root.join("sys/usr/local/lib/python3.8/dist-packages");
        for site in [
            &venv,
            &own,
            &pyenv_old,
            &pyenv_new,
            &user,
            &quickstart,
            &system,
            &local_new,
            &local_old,
        ] {
            mkdir(site);
        }
        touch(&prefix.join("bin/python3"));
        let places = PythonPlaces {
            active_envs: vec![root.join("venv"), root.join("no-such-env")],
            pythons: vec![prefix.join("bin/python3")],
            pyenv_root: Some(root.join("pyenv")),
            home: Some(root.join("home")),
            system_root: root.join("sys"),
            layout: LINUX,
        };
        assert_eq!(
            likely_site_dirs(&places),
            vec![venv, own, pyenv_new, pyenv_old, quickstart, user, local_new, local_old, system]
        );
    }

    #[test]
    fn cuda13_wheel_is_found_in_its_shared_folder() {
        // `pip install nvidia-cuda-nvrtc` (13.x) puts libnvrtc.so.13 in
        // nvidia/cu13/lib, shared with the other CUDA 13 wheels.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let site = dir.path().join("site");
        let wheel = site.join("nvidia/cu13/lib/libnvrtc.so.13");
        touch(&wheel);
        let env = SearchEnv {
            usr_local: dir.path().join("no-usr-local"),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(file(&wheel)),
            pythons: vec![PathBuf::from("/py/a")],
            sites: vec![(PathBuf::from("/py/a"), vec![site.clone()])],
            ..FakeHost::default()
        };
        let found = search(&env, &mut host).ok().map(|f| f.library);
        assert_eq!(found, Some(file(&wheel)));
        // The CUDA 12 wheel's folder is tried first (and is absent here).
        assert_eq!(host.loads.last(), Some(&file(&wheel)), "{:?}", host.loads);

        // A user-site install of the CUDA 13 wheel, with no python on PATH.
        let home = dir.path().join("home");
        let user = home.join(".local/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13");
        touch(&user);
        let env = SearchEnv {
            usr_local: dir.path().join("no-usr-local"),
            home: Some(home),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(file(&user)),
            ..FakeHost::default()
        };
        let found = search(&env, &mut host).ok().map(|f| f.found_by);
        assert_eq!(found.as_deref(), Some("user site-packages"));
    }

    #[test]
    fn both_wheels_in_one_site_prefer_cuda12() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let site = dir.path().join("site");
        let w12 = site.join(WHEEL_LIB_DIR).join("libnvrtc.so.12");
        let w13 = site.join("nvidia/cu13/lib/libnvrtc.so.13");
        touch(&w12);
        touch(&w13);
        let env = SearchEnv {
            usr_local: dir.path().join("no-usr-local"),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(file(&w12)),
            pythons: vec![PathBuf::from("/py/a")],
            sites: vec![(PathBuf::from("/py/a"), vec![site.clone()])],
            ..FakeHost::default()
        };
        let found = search(&env, &mut host).ok().map(|f| f.library);
        assert_eq!(found, Some(file(&w12)));
        assert!(!host.loads.contains(&file(&w13)));
    }

    #[test]
    fn windows_names_and_folders_in_order_when_nothing_loads() {
        // A fake Windows tree, searched with Windows' names: CUDA_PATH's `bin`, then `bin\x64`;
        // the installer's toolkits under Program Files, newest first; the loader by DLL name;
        // the wheels' `bin` folders; the user site under %APPDATA%.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let cuda_path = root.join("CUDA/v12.9");
        touch(&cuda_path.join("bin/nvrtc64_120_0.dll"));
        touch(&cuda_path.join("lib/x64/nvrtc.lib")); // the import library: never loaded
        let toolkits = root.join("Program Files/NVIDIA GPU Computing Toolkit/CUDA");
        touch(&toolkits.join("v13.0/bin/x64/nvrtc64_130_0.dll"));
        touch(&toolkits.join("v12.4/bin/nvrtc64_120_0.dll"));
        let venv_site = root.join("venv/Lib/site-packages");
        touch(&venv_site.join("nvidia/cuda_nvrtc/bin/nvrtc64_120_0.dll"));
        touch(&venv_site.join("nvidia/cu13/bin/x86_64/nvrtc64_130_0.dll"));
        let appdata = root.join("AppData/Roaming");
        let user = appdata.join("Python/Python312/site-packages");
        touch(&user.join("nvidia/cuda_nvrtc/bin/nvrtc64_120_0.dll"));
        // Linux names in a Windows folder are not Windows' NVRTC.
        touch(&venv_site.join("nvidia/cuda_nvrtc/bin/libnvrtc.so.12"));

        let env = SearchEnv {
            explicit: None,
            cuda_roots: vec![("CUDA_PATH", cuda_path.clone())],
            usr_local: toolkits.clone(),
            home: Some(appdata.clone()),
            layout: WINDOWS,
        };
        let mut host = FakeHost {
            likely: vec![venv_site.clone()],
            ..FakeHost::default()
        };
        let searched = search(&env, &mut host).err().unwrap_or_default();
        assert_eq!(
            host.loads,
            vec![
                file(&cuda_path.join("bin/nvrtc64_120_0.dll")),
                file(&toolkits.join("v13.0/bin/x64/nvrtc64_130_0.dll")),
                file(&toolkits.join("v12.4/bin/nvrtc64_120_0.dll")),
                LibrarySpec::LoaderName("nvrtc64_120_0.dll"),
                LibrarySpec::LoaderName("nvrtc64_130_0.dll"),
                file(&venv_site.join("nvidia/cuda_nvrtc/bin/nvrtc64_120_0.dll")),
                file(&venv_site.join("nvidia/cu13/bin/x86_64/nvrtc64_130_0.dll")),
                file(&user.join("nvidia/cuda_nvrtc/bin/nvrtc64_120_0.dll")),
            ]
        );
        let text = searched.join("\n");
        assert!(text.contains("dynamic loader (PATH)"), "{text}");
        assert!(
            text.contains(&format!(
                "{}: no nvrtc64_*.dll",
                toolkits.join("v13.0/bin").display()
            )),
            "{text}"
        );

        // A setting that names a folder without Windows' DLL says which file it wants.
        let env = SearchEnv {
            explicit: Some(root.join("AppData")),
            layout: WINDOWS,
            ..SearchEnv::default()
        };
        let searched = search(&env, &mut FakeHost::default())
            .err()
            .unwrap_or_default();
        assert!(
            searched[0].contains("point it at nvrtc64_120_0.dll"),
            "{searched:?}"
        );
    }

    #[test]
    fn windows_sites_of_venvs_installed_pythons_and_the_user() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let venv = root.join("venv");
        let venv_site = venv.join("Lib/site-packages");
        let python = root.join("Python312");
        let python_site = python.join("Lib/site-packages");
        let user = root.join("AppData/Roaming/Python/Python311/site-packages");
        for site in [&venv_site, &python_site, &user] {
            fs::create_dir_all(site).unwrap_or_else(|e| panic!("{e}"));
        }
        touch(&python.join("python.exe"));
        touch(&python.join("Scripts/pip.exe"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(python.join("python.exe"), fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let places = PythonPlaces {
            // gpuzzle.exe in the venv's Scripts folder: its prefixes, as from_process finds them.
            active_envs: WINDOWS.exe_prefixes(&venv.join("Scripts/gpuzzle.exe")),
            pythons: pythons_on_path(
                std::env::join_paths([python.join("Scripts"), python.clone()])
                    .unwrap_or_else(|e| panic!("{e}")),
                &WINDOWS,
            ),
            pyenv_root: None,
            home: Some(root.join("AppData/Roaming")),
            system_root: root.join("no-system"),
            layout: WINDOWS,
        };
        assert_eq!(places.pythons, vec![python.join("python.exe")]);
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let found: Vec<PathBuf> = likely_site_dirs(&places)
            .iter()
            .map(|p| canonical(p))
            .collect();
        assert_eq!(
            found,
            vec![
                canonical(&venv_site),
                canonical(&python_site),
                canonical(&user)
            ]
        );
    }

    #[test]
    fn the_loader_is_asked_by_bare_name() {
        let env = SearchEnv {
            usr_local: PathBuf::from("/nonexistent/gpuzzle-test"),
            ..linux_env()
        };
        let mut host = FakeHost {
            good: Some(LibrarySpec::LoaderName("libnvrtc.so")),
            ..FakeHost::default()
        };
        let found = search(&env, &mut host).ok().map(|f| f.found_by);
        assert_eq!(found.as_deref(), Some("dynamic loader"));
        assert_eq!(
            host.loads,
            vec![
                LibrarySpec::LoaderName("libnvrtc.so.12"),
                LibrarySpec::LoaderName("libnvrtc.so")
            ]
        );
    }

    #[test]
    fn pythons_on_path_are_found_once_each() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        for path in [a.join("python3"), a.join("python"), b.join("python3")] {
            touch(&path);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
        touch(&dir.path().join("c/python3")); // not executable
        #[cfg(unix)]
        std::os::unix::fs::symlink(a.join("python3"), dir.path().join("c/python"))
            .unwrap_or_else(|e| panic!("{e}"));
        let path =
            std::env::join_paths([&a, &b, &dir.path().join("c")]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            pythons_on_path(path, &LINUX),
            vec![a.join("python3"), a.join("python"), b.join("python3")]
        );
    }

    #[test]
    fn a_real_python_answers_with_site_dirs() {
        // Needs some python3 on PATH, which every machine that runs the
        // test suite has (NVRTC comes from pip). A missing one is a failure.
        let pythons = pythons_on_path(
            std::env::var_os("PATH").unwrap_or_default(),
            &crate::compile::layout::HOST,
        );
        let python = pythons
            .first()
            .unwrap_or_else(|| panic!("no python3 or python on PATH"));
        let sites = ask_python_for_sites(python).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            sites
                .iter()
                .any(|s| s.to_string_lossy().contains("-packages")),
            "{sites:?}"
        );
    }

    #[test]
    fn a_broken_python_is_a_reason_not_a_panic() {
        let reason = ask_python_for_sites(Path::new("/nonexistent/gpuzzle-test/python3"))
            .err()
            .unwrap_or_default();
        assert!(reason.starts_with("cannot run it"), "{reason}");
    }

    #[test]
    fn site_output_is_split_and_deduplicated() {
        assert_eq!(
            parse_site_dirs("/a/site-packages\n\n/b/site-packages\n/a/site-packages\n"),
            vec![
                PathBuf::from("/a/site-packages"),
                PathBuf::from("/b/site-packages")
            ]
        );
    }
}
