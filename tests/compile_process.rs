//! `compile` as a whole process sees it: NVRTC is located once per process
//! from the environment, and the PTX cache outlives the process. Each case
//! runs this test binary again as a child with a chosen environment (the
//! `child_*` test below does the work there), so nothing has to be unloaded
//! or unset in the test process itself.

use gpuzzle::compile::{self, CompileRequest};
use std::path::Path;
use std::process::Command;

const CHILD_MARKER: &str = "GPUZZLE_COMPILE_TEST_CHILD";

/// Runs in the child only: reports what `locate()` and `compile()` did.
#[test]
fn child_reports_locate_and_compile() {
    let Some(mode) = std::env::var_os(CHILD_MARKER) else {
        return; // Run as an ordinary test: nothing to do.
    };
    let source = "extern \"C\" __global__ void k(int* out) { out[threadIdx.x] = 1; }\n";
    if mode == "warm" {
        // As `gpuzzle run` does: compile straight away, no `locate()`.
        match compile::compile(&CompileRequest::new("puzzles/k.cu", source)) {
            Ok(compiled) => println!(
                "COMPILED|cached={}|nvrtc loaded={}",
                compiled.cached,
                nvrtc_is_mapped()
            ),
            Err(err) => println!("COMPILE-ERROR|{}", one_line(&err.to_string())),
        }
        return;
    }
    match compile::locate() {
        Ok(info) => {
            println!(
                "FOUND|{}|{}|{}.{}",
                info.path.display(),
                info.found_by,
                info.version.0,
                info.version.1
            );
            match compile::compile(&CompileRequest::new("puzzles/k.cu", source)) {
                Ok(compiled) => println!("COMPILED|cached={}", compiled.cached),
                Err(err) => println!("COMPILE-ERROR|{}", one_line(&err.to_string())),
            }
        }
        Err(err) => println!("ERROR|{}", one_line(&err.to_string())),
    }
}

/// Whether a libnvrtc is loaded in this process (Linux: its file is mapped).
fn nvrtc_is_mapped() -> bool {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap_or_else(|err| panic!("/proc/self/maps: {err}"))
        .contains("libnvrtc")
}

/// Reports travel one per line; messages keep their line breaks as `\n`.
fn one_line(text: &str) -> String {
    text.replace('\n', "\\n")
}

/// Runs the child with `env` (on top of a cleared environment) and returns
/// its report lines.
fn child(env: &[(&str, &Path)]) -> Vec<String> {
    child_in_mode("1", env)
}

/// `child` in a mode: "1" locates then compiles, "warm" only compiles.
fn child_in_mode(mode: &str, env: &[(&str, &Path)]) -> Vec<String> {
    let exe = std::env::current_exe().unwrap_or_else(|err| panic!("{err}"));
    let mut command = Command::new(exe);
    command
        .args(["--exact", "child_reports_locate_and_compile", "--nocapture"])
        .args(["--test-threads", "1"])
        .env_clear()
        .env(CHILD_MARKER, mode);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap_or_else(|err| panic!("{err}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "child failed:\n{stdout}");
    // The harness prints "test name ... " on the same line as the first report.
    stdout
        .lines()
        .filter_map(|line| {
            ["FOUND|", "ERROR|", "COMPILED|", "COMPILE-ERROR|"]
                .iter()
                .filter_map(|tag| line.find(tag))
                .min()
                .map(|start| line[start..].replace("\\n", "\n"))
        })
        .collect()
}

fn real_nvrtc() -> compile::NvrtcInfo {
    compile::locate().unwrap_or_else(|err| panic!("{err}"))
}

#[test]
fn bogus_gpuzzle_nvrtc_is_a_clear_error_naming_it() {
    let empty = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let bogus = Path::new("/nonexistent/gpuzzle/libnvrtc.so.12");
    let report = child(&[("GPUZZLE_NVRTC", bogus), ("HOME", empty.path())]);
    assert_eq!(report.len(), 1, "{report:?}");
    let text = &report[0];
    assert!(
        text.starts_with("ERROR|NVRTC not found: pip install nvidia-cuda-nvrtc-cu12"),
        "{text}"
    );
    assert!(
        text.contains("GPUZZLE_NVRTC=/nonexistent/gpuzzle/libnvrtc.so.12: no such file"),
        "{text}"
    );
}

#[test]
fn gpuzzle_nvrtc_chooses_the_library_file_or_directory() {
    let real = real_nvrtc();
    let cache = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let dir = real
        .path
        .parent()
        .unwrap_or_else(|| panic!("{} has no directory", real.path.display()));
    for setting in [real.path.as_path(), dir] {
        let report = child(&[
            ("GPUZZLE_NVRTC", setting),
            ("GPUZZLE_CACHE_DIR", cache.path()),
        ]);
        let expected = format!(
            "FOUND|{}|GPUZZLE_NVRTC|{}.{}",
            real.path.display(),
            real.version.0,
            real.version.1
        );
        assert_eq!(report.first(), Some(&expected), "{report:?}");
    }
}

#[test]
fn the_disk_cache_outlives_the_process() {
    let real = real_nvrtc();
    let cache = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let env = [
        ("GPUZZLE_NVRTC", real.path.as_path()),
        ("GPUZZLE_CACHE_DIR", cache.path()),
    ];
    let first = child(&env);
    assert_eq!(
        first.get(1).map(String::as_str),
        Some("COMPILED|cached=false"),
        "{first:?}"
    );
    let second = child(&env);
    assert_eq!(
        second.get(1).map(String::as_str),
        Some("COMPILED|cached=true"),
        "{second:?}"
    );
    // One PTX entry, beside the memo of where NVRTC is.
    let mut entries: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap_or_else(|err| panic!("{err}"))
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(entries[1], "nvrtc-location.txt", "{entries:?}");
}

#[test]
fn a_warm_process_never_loads_nvrtc() {
    let real = real_nvrtc();
    let cache = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let env = [
        ("GPUZZLE_NVRTC", real.path.as_path()),
        ("GPUZZLE_CACHE_DIR", cache.path()),
    ];
    let cold = child_in_mode("warm", &env);
    assert_eq!(
        cold,
        vec!["COMPILED|cached=false|nvrtc loaded=true".to_string()],
        "the first process searches, loads and compiles"
    );
    let warm = child_in_mode("warm", &env);
    assert_eq!(
        warm,
        vec!["COMPILED|cached=true|nvrtc loaded=false".to_string()],
        "a cached kernel needs neither the search nor the library"
    );
    // Another library setting is another search (and another cache key).
    let dir = real
        .path
        .parent()
        .unwrap_or_else(|| panic!("{} has no directory", real.path.display()));
    let moved = child_in_mode(
        "warm",
        &[("GPUZZLE_NVRTC", dir), ("GPUZZLE_CACHE_DIR", cache.path())],
    );
    // (The PTX may come from the cache: the same file is found.)
    assert!(
        moved.len() == 1
            && moved[0].starts_with("COMPILED|")
            && moved[0].ends_with("|nvrtc loaded=true"),
        "the memo was for another setting, so the search ran and loaded NVRTC: {moved:?}"
    );
}

#[test]
fn with_nothing_on_path_the_search_explains_where_it_looked() {
    let empty = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let report = child(&[("PATH", empty.path()), ("HOME", empty.path())]);
    let text = report.first().cloned().unwrap_or_default();
    if let Some(found) = text.strip_prefix("FOUND|") {
        // This machine has a system-wide NVRTC (toolkit, ld.so.cache, or a
        // wheel in the system's own site-packages); with no Python on PATH
        // and an empty home it cannot have come from anyone's own site.
        assert!(
            !found.contains("site-packages") || found.contains("|python site-packages (/usr/"),
            "{text}"
        );
    } else {
        assert!(
            text.starts_with("ERROR|NVRTC not found: pip install nvidia-cuda-nvrtc-cu12"),
            "{text}"
        );
        for place in [
            "CUDA_PATH, CUDA_HOME: not set",
            "dynamic loader",
            "python site-packages: no python3 or python on PATH",
        ] {
            assert!(text.contains(place), "{place:?} missing from:\n{text}");
        }
    }
}

#[test]
fn python_site_packages_are_searched_via_path() {
    // The pip wheel's directory layout: <site>/nvidia/cuda_nvrtc/lib.
    let real = real_nvrtc();
    let Some(site) = real.path.ancestors().nth(4) else {
        panic!("{} is too short a path", real.path.display());
    };
    if !real.path.ends_with("nvidia/cuda_nvrtc/lib/libnvrtc.so.12") {
        // NVRTC here is a toolkit's; the wheel layout is covered by the
        // search's unit tests.
        eprintln!(
            "NVRTC is not from a pip wheel here: {}",
            real.path.display()
        );
        return;
    }
    // Python itself may need the real PATH, HOME and a version manager's
    // root (pyenv shims read PYENV_ROOT); GPUZZLE_NVRTC and CUDA_* stay unset.
    let cache = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let kept: Vec<(&str, std::path::PathBuf)> = ["PATH", "HOME", "PYENV_ROOT", "VIRTUAL_ENV"]
        .into_iter()
        .filter_map(|name| std::env::var_os(name).map(|value| (name, value.into())))
        .collect();
    let mut env: Vec<(&str, &Path)> = kept.iter().map(|(n, v)| (*n, v.as_path())).collect();
    env.push(("GPUZZLE_CACHE_DIR", cache.path()));
    let report = child(&env);
    let text = report.first().cloned().unwrap_or_default();
    assert!(
        text.starts_with("FOUND|"),
        "{text} (site {})",
        site.display()
    );
    assert!(text.contains("|python site-packages ("), "{text}");
}

/// `pip install gpuzzle` puts the binary in `<prefix>/bin` and NVIDIA's wheels (its
/// dependencies) in the same prefix's site-packages: gpuzzle finds NVRTC there with no
/// environment activated and no Python on PATH.
#[test]
#[cfg(unix)] // links the wheel's files into a fake venv
fn nvrtc_beside_gpuzzles_own_prefix_is_found_without_an_activated_env() {
    let real = real_nvrtc();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let prefix = dir.path().join("venv");
    let site = prefix.join("lib/python3.12/site-packages");
    let lib = site.join("nvidia/cuda_nvrtc/lib");
    std::fs::create_dir_all(&lib).unwrap_or_else(|err| panic!("{err}"));
    let real_dir = real
        .path
        .parent()
        .unwrap_or_else(|| panic!("{}", real.path.display()));
    // The library and its builtins, as the wheel lays them out.
    for e in std::fs::read_dir(real_dir).unwrap_or_else(|err| panic!("{err}")) {
        let path = e.unwrap_or_else(|err| panic!("{err}")).path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("libnvrtc") {
            std::os::unix::fs::symlink(&path, lib.join(&name))
                .unwrap_or_else(|err| panic!("{err}"));
        }
    }
    if !lib.join("libnvrtc.so.12").exists() {
        std::os::unix::fs::symlink(&real.path, lib.join("libnvrtc.so.12"))
            .unwrap_or_else(|err| panic!("{err}"));
    }
    std::fs::create_dir_all(prefix.join("bin")).unwrap_or_else(|err| panic!("{err}"));
    let exe = prefix.join("bin/gpuzzle");
    std::fs::copy(env!("CARGO_BIN_EXE_gpuzzle"), &exe).unwrap_or_else(|err| panic!("{err}"));
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap_or_else(|err| panic!("{err}"));
    let out = Command::new(&exe)
        .arg("doctor")
        .env_clear()
        .env("HOME", &home)
        .env("PATH", "/nonexistent")
        .env("NO_COLOR", "1")
        .env("GPUZZLE_CACHE_DIR", dir.path().join("cache"))
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.starts_with("ok  NVRTC")
            && l.contains(&format!("python site-packages ({})", site.display()))),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
