//! The Python wheel's definition (`pyproject.toml`) and the release workflow agree with the
//! crate: one binary named `gpuzzle`, its version from Cargo.toml, NVIDIA's wheels as the
//! dependencies the README and `.ci/run` install. (Building a wheel needs maturin and a
//! release build, minutes: it is done by the release workflow, not here.)

use std::path::Path;

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_wheel_is_the_binary_with_nvidias_compiler_as_dependencies() {
    let py: toml::Table = toml::from_str(&repo_file("pyproject.toml")).unwrap();
    assert_eq!(
        py["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
    let project = &py["project"];
    assert_eq!(project["name"].as_str(), Some("gpuzzle"));
    // The version is Cargo's, so the wheel and `gpuzzle --version` never disagree.
    let dynamic: Vec<&str> = (project["dynamic"].as_array().unwrap().iter())
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(dynamic, ["version"]);
    assert!(project.get("version").is_none());
    assert_eq!(py["tool"]["maturin"]["bindings"].as_str(), Some("bin"));
    // Each with its platform marker: `nvidia-cuda-nvrtc-cu12; sys_platform == 'linux' ...`.
    let deps: Vec<&str> = (project["dependencies"].as_array().unwrap().iter())
        .filter_map(|v| v.as_str())
        .map(|d| d.split(';').next().unwrap_or(d).trim())
        .collect();
    let readme = repo_file("README.md");
    let ci = repo_file(".ci/run");
    for dep in &deps {
        assert!(
            readme.contains(dep),
            "{dep} is not in the README's install line"
        );
        assert!(ci.contains(dep), "{dep} is not installed by .ci/run");
    }
    assert!(deps.contains(&"nvidia-cuda-nvrtc-cu12"), "{deps:?}");
}

#[test]
fn the_release_workflow_builds_and_publishes_the_wheels() {
    let yaml = repo_file(".github/workflows/release.yml");
    for needed in [
        "tags: [\"v*\"]",
        "uses: PyO3/maturin-action@v1",
        "command: sdist",
        "uses: pypa/gh-action-pypi-publish@release/v1",
        "id-token: write",
        "gh release create",
    ] {
        assert!(yaml.contains(needed), "missing {needed:?}");
    }
}

/// The wheel as a learner installs it: built with maturin (the debug profile, so the build is
/// the one `cargo test` already made), installed into a fresh venv with its NVIDIA
/// dependencies, then `gpuzzle init` and `gpuzzle run 1` with only that venv's `bin/` on PATH
/// and no Python environment active: gpuzzle must find NVRTC beside itself. Needs maturin
/// (`.ci/run` installs it) and pip's access to NVIDIA's wheels (cached after `.ci/run`).
#[test]
fn the_wheel_installs_into_a_fresh_venv_and_grades_puzzle_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let run = |cmd: &mut std::process::Command, what: &str| {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
        assert!(
            out.status.success(),
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let maturin = std::process::Command::new("python3")
        .args(["-m", "maturin", "--version"])
        .output();
    assert!(
        maturin.is_ok_and(|o| o.status.success()),
        "maturin is needed to build the wheel: python3 -m pip install 'maturin>=1.5,<2' (.ci/run does)"
    );
    let wheels = tmp.path().join("wheels");
    run(
        std::process::Command::new("python3")
            .args([
                "-m",
                "maturin",
                "build",
                "--profile",
                "dev",
                "--strip",
                "false",
                "-o",
            ])
            .arg(&wheels)
            .current_dir(root),
        "maturin build",
    );
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel was built");
    let venv = tmp.path().join("venv");
    run(
        std::process::Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv),
        "python3 -m venv",
    );
    run(
        std::process::Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(&wheel),
        "pip install the wheel",
    );
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let gpuzzle = |args: &[&str], dir: &Path| {
        std::process::Command::new(venv.join("bin/gpuzzle"))
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("PATH", venv.join("bin"))
            .env("HOME", &home)
            .env("NO_COLOR", "1")
            .env("GPUZZLE_BACKEND", "emu")
            .env("GPUZZLE_CACHE_DIR", tmp.path().join("cache"))
            .output()
            .unwrap()
    };
    let init = gpuzzle(&["init", "work"], tmp.path());
    assert!(init.status.success(), "{init:?}");
    let graded = gpuzzle(&["run", "1"], &tmp.path().join("work"));
    let text = String::from_utf8_lossy(&graded.stdout);
    assert_eq!(
        graded.status.code(),
        Some(1),
        "the untouched starter fails: {text}{}",
        String::from_utf8_lossy(&graded.stderr)
    );
    assert!(text.starts_with("Puzzle 1 · Map"), "{text}");
    assert!(text.contains("FAILED"), "{text}");
}

/// The archives the release attaches are the ones `cargo binstall` asks for: Cargo.toml's
/// `pkg-url` file names, with the tag for `v{ version }`, name the files release.yml writes,
/// for every target it builds; and Windows has its wheel and zip, macOS none (no NVRTC there).
#[test]
fn binstall_finds_the_archives_the_release_attaches() {
    let yaml = repo_file(".github/workflows/release.yml");
    let cargo: toml::Table = toml::from_str(&repo_file("Cargo.toml")).unwrap();
    let binstall = &cargo["package"]["metadata"]["binstall"];
    let file_name = |url: &str, target: &str| {
        let name = url.rsplit('/').next().unwrap_or(url);
        name.replace("{ name }", "gpuzzle")
            .replace("v{ version }", "${GITHUB_REF_NAME}")
            .replace("{ target }", target)
    };
    let linux_url = binstall["pkg-url"].as_str().unwrap();
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    for triple in ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"] {
        assert!(yaml.contains(&format!("triple: {triple}")), "{triple}");
    }
    let linux = file_name(linux_url, "${{ matrix.triple }}");
    assert!(yaml.contains(&linux), "release.yml writes no {linux}");
    let windows = &binstall["overrides"]["x86_64-pc-windows-msvc"];
    assert_eq!(windows["pkg-fmt"].as_str(), Some("zip"));
    let zip = file_name(
        windows["pkg-url"].as_str().unwrap(),
        "x86_64-pc-windows-msvc",
    );
    assert!(yaml.contains(&zip), "release.yml writes no {zip}");
    assert!(yaml.contains("runs-on: windows-latest"));
    assert!(yaml.contains("target: x86_64-pc-windows-msvc"));
    assert!(
        !yaml.contains("macos-"),
        "no macOS job: NVIDIA ships no NVRTC for macOS"
    );
    // Archives hold the binary alone, where `bin-dir` says.
    assert_eq!(binstall["bin-dir"].as_str(), Some("{ bin }{ binary-ext }"));
    // The NVIDIA wheels are asked for on Windows too (all four exist for win_amd64).
    let py: toml::Table = toml::from_str(&repo_file("pyproject.toml")).unwrap();
    for dep in py["project"]["dependencies"].as_array().unwrap() {
        let dep = dep.as_str().unwrap();
        assert!(dep.contains("platform_system == 'Windows'"), "{dep}");
    }
}
