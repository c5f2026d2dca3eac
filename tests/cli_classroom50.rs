//! Classroom 50: `init --ci classroom50` writes an `autograder.py`, run here as Classroom 50's
//! runner runs it (python3, in the student's checkout, with the runner's environment variables,
//! this gpuzzle on PATH); its `./result.json` is checked against the `classroom50/result/v1`
//! contract and must score exactly the puzzles that pass, by their `points`, as `gpuzzle check
//! --all --format classroom50` prints it. Needs NVRTC and python3.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The runner's variables, as Classroom 50 sets them.
const RUNNER_ENV: [(&str, &str); 6] = [
    ("CLASSROOM", "gpu-101"),
    ("ASSIGNMENT", "cuda-puzzles"),
    ("SUBMISSION_TAG", "submit/2026-06-01T14-32-05Z-a1b2c3d"),
    ("COMMIT_URL", "https://github.com/org/alice/commit/a1b2c3d"),
    (
        "RELEASE_URL",
        "https://github.com/org/alice/releases/tag/submit%2F2026",
    ),
    (
        "REVIEW_URL",
        "https://github.com/org/alice/compare/base...a1b2c3d",
    ),
];

/// The graded commit's committer date, and the same instant as UTC ISO 8601.
const COMMITTED: &str = "2026-06-01T16:32:01+02:00";
const COMMITTED_UTC: &str = "2026-06-01T14:32:01Z";

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    for (k, _) in RUNNER_ENV {
        c.env_remove(k);
    }
    c
}

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// A student's checkout: `init --ci classroom50`, trimmed to puzzles 1-3 (1 worth 3 points
/// and solved, 2 worth 2 with a planted out-of-bounds write, 3 worth 1 and solved), committed
/// with git at [`COMMITTED`]. Returns the temporary folder and the checkout.
fn checkout() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("alice");
    gpuzzle()
        .arg("init")
        .arg(&ws)
        .args(["--ci", "classroom50"])
        .assert()
        .success();
    for e in std::fs::read_dir(ws.join("puzzles")).unwrap() {
        let path = e.unwrap().path();
        let id: u32 = path.file_name().unwrap().to_string_lossy()[..2]
            .parse()
            .unwrap();
        if id > 3 {
            std::fs::remove_file(path).unwrap();
        }
    }
    for (toml, points) in [("01_map.toml", 3), ("02_zip.toml", 2)] {
        let path = ws.join("puzzles").join(toml);
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.replacen("\nhints = [", &format!("\npoints = {points}\nhints = ["), 1);
        std::fs::write(&path, text).unwrap();
    }
    for f in ["01_map.cu", "03_guard.cu"] {
        std::fs::write(
            ws.join("puzzles").join(f),
            repo_file(&format!("solutions/{f}")),
        )
        .unwrap();
    }
    std::fs::write(
        ws.join("puzzles/02_zip.cu"),
        "extern \"C\" __global__ void zip(float* out, const float* a, const float* b) {\n    int i = threadIdx.x;\n    out[i + 1] = a[i] + b[i];\n}\n",
    )
    .unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&ws)
            .env("GIT_AUTHOR_NAME", "alice")
            .env("GIT_AUTHOR_EMAIL", "alice@example.org")
            .env("GIT_COMMITTER_NAME", "alice")
            .env("GIT_COMMITTER_EMAIL", "alice@example.org")
            .env("GIT_COMMITTER_DATE", COMMITTED)
            .env("GIT_AUTHOR_DATE", COMMITTED)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "my puzzles"]);
    (dir, ws)
}

/// The instructor pins their own pack (its points changed), as the autograder's comment says:
/// GPUZZLE_PACK set to what `gpuzzle check --print-pin` prints.
fn pin_autograder(ws: &Path) -> PathBuf {
    let pin = gpuzzle()
        .current_dir(ws)
        .args(["check", "--print-pin"])
        .output()
        .unwrap();
    assert!(pin.status.success());
    let pin = String::from_utf8(pin.stdout).unwrap().trim().to_string();
    assert!(pin.starts_with("sha256:"), "{pin}");
    let path = ws.join("classroom50/autograder.py");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\nGPUZZLE_PACK = \"builtin\"\n"), "{text}");
    let pinned = text.replace(
        "\nGPUZZLE_PACK = \"builtin\"\n",
        &format!("\nGPUZZLE_PACK = \"{pin}\"\n"),
    );
    // The teacher keeps it in the classroom50 repository, not in the student's checkout.
    let kept = ws.parent().unwrap().join("autograder.py");
    std::fs::write(&kept, pinned).unwrap();
    kept
}

/// Run the autograder as the runner does: python3, in the checkout, with `env` and this
/// gpuzzle first on PATH.
fn run_autograder(script: &Path, ws: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("gpuzzle");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(script)
        .current_dir(ws)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    for (k, _) in RUNNER_ENV {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("python3 runs")
}

/// The contract, checked field by field; returns the tests' (passed, score, max-score).
fn check_contract(v: &Value) -> Vec<(bool, u64, u64)> {
    let keys: std::collections::BTreeSet<&str> = v
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    for key in [
        "schema",
        "classroom",
        "assignment",
        "submission",
        "commit",
        "release",
        "review",
        "datetime",
        "score",
        "max-score",
        "tests",
    ] {
        assert!(keys.contains(key), "no {key}: {v}");
    }
    assert_eq!(v["schema"], "classroom50/result/v1");
    for (json_key, (_, value)) in [
        "classroom",
        "assignment",
        "submission",
        "commit",
        "release",
        "review",
    ]
    .iter()
    .zip(RUNNER_ENV)
    {
        assert_eq!(v[json_key], value, "{json_key}");
    }
    assert_eq!(v["datetime"], COMMITTED_UTC, "the submission instant");
    let tests: Vec<(bool, u64, u64)> = v["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            assert!(
                t["test-name"].as_str().is_some_and(|n| !n.is_empty()),
                "{t}"
            );
            (
                t["passed"].as_bool().expect("passed: a boolean"),
                t["score"].as_u64().expect("score: a whole number"),
                t["max-score"].as_u64().expect("max-score: a whole number"),
            )
        })
        .collect();
    assert_eq!(
        v["score"].as_u64(),
        Some(tests.iter().map(|t| t.1).sum::<u64>())
    );
    assert_eq!(
        v["max-score"].as_u64(),
        Some(tests.iter().map(|t| t.2).sum::<u64>())
    );
    tests
}

#[test]
fn the_autograder_writes_a_result_that_scores_exactly_the_passing_puzzles() {
    let (_dir, ws) = checkout();
    let script = pin_autograder(&ws);
    let out = run_autograder(&script, &ws, &RUNNER_ENV);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "graded, whatever the score: {said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // gpuzzle was on PATH: nothing installed.
    assert!(
        said.contains("(on PATH)") && !said.contains("pip"),
        "{said}"
    );
    let text = std::fs::read_to_string(ws.join("result.json")).expect("./result.json");
    let v: Value = serde_json::from_str(&text).expect("valid JSON");
    let tests = check_contract(&v);
    assert_eq!(
        tests,
        vec![(true, 3, 3), (false, 0, 2), (true, 1, 1)],
        "{text}"
    );
    assert_eq!(
        (v["score"].as_u64(), v["max-score"].as_u64()),
        (Some(4), Some(6))
    );
    assert!(said.contains("Score: 4/6"), "{said}");

    // `check --format classroom50` prints the same result.
    let pin = std::fs::read_to_string(&script)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("GPUZZLE_PACK = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap()
        .to_string();
    std::fs::remove_file(ws.join("result.json")).unwrap();
    let mut check = gpuzzle();
    check
        .current_dir(&ws)
        .args(["check", "--all", "--pack", &pin, "--format", "classroom50"]);
    for (k, v) in RUNNER_ENV {
        check.env(k, v);
    }
    let printed = check.output().unwrap();
    assert_eq!(printed.status.code(), Some(0), "exit 0: it graded");
    let p: Value = serde_json::from_slice(&printed.stdout).expect("JSON");
    assert_eq!(p, v);

    // Solve puzzle 2 too: every point.
    std::fs::write(
        ws.join("puzzles/02_zip.cu"),
        repo_file("solutions/02_zip.cu"),
    )
    .unwrap();
    let out = run_autograder(&script, &ws, &RUNNER_ENV);
    assert_eq!(out.status.code(), Some(0));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("result.json")).unwrap()).unwrap();
    assert_eq!(
        check_contract(&v),
        vec![(true, 3, 3), (true, 2, 2), (true, 1, 1)]
    );
}

#[test]
fn without_the_runners_environment_it_is_an_infrastructure_error() {
    let (_dir, ws) = checkout();
    let script = ws.join("classroom50/autograder.py");
    // REVIEW_URL is optional: the commit stands in for it.
    let out = run_autograder(&script, &ws, &RUNNER_ENV[..5]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("result.json")).unwrap()).unwrap();
    assert_eq!(v["review"], RUNNER_ENV[3].1);
    // The built-in pack: every puzzle of it, those deleted here failing.
    let n = v["tests"].as_array().map_or(0, Vec::len);
    assert!(n > 3, "{n}");
    std::fs::remove_file(ws.join("result.json")).unwrap();

    let out = run_autograder(&script, &ws, &RUNNER_ENV[1..]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CLASSROOM"), "{err}");
    assert!(!ws.join("result.json").exists());
}

/// Without gpuzzle on PATH the autograder installs it into ~/.gpuzzle-venv: NVIDIA's wheels,
/// then the release wheel of its pinned version, and `cargo install` only when that fails.
/// `pip` (the venv's python) and `cargo` are stand-ins here that record their arguments and
/// "install" the gpuzzle this test built.
fn install_path(release_exists: bool) -> (Vec<String>, Value) {
    let (dir, ws) = checkout();
    let home = dir.path().join("home");
    let venv_bin = home.join(".gpuzzle-venv/bin");
    let tools = dir.path().join("tools");
    std::fs::create_dir_all(&venv_bin).unwrap();
    std::fs::create_dir_all(&tools).unwrap();
    let log = dir.path().join("calls.log");
    let bin = assert_cmd::cargo::cargo_bin("gpuzzle");
    let install_ok = if release_exists { "0" } else { "1" };
    let python = format!(
        "#!/bin/sh\n# the venv's python: `-m pip install ...` only\nshift 2\necho \"pip $*\" >> '{log}'\ncase \"$*\" in\n  *gpuzzle==*) [ {install_ok} = 0 ] && cp '{bin}' '{venv}/gpuzzle'; exit {install_ok};;\nesac\nexit 0\n",
        log = log.display(),
        bin = bin.display(),
        venv = venv_bin.display(),
    );
    let cargo = format!(
        "#!/bin/sh\necho \"cargo $*\" >> '{log}'\nmkdir -p \"$4/bin\" && cp '{bin}' \"$4/bin/gpuzzle\"\n",
        log = log.display(),
        bin = bin.display(),
    );
    use std::os::unix::fs::PermissionsExt;
    for (path, text) in [
        (venv_bin.join("python"), python),
        (tools.join("cargo"), cargo),
    ] {
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // PATH without any gpuzzle, the stand-in cargo first.
    let path: Vec<String> = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !Path::new(d).join("gpuzzle").exists())
        .map(String::from)
        .collect();
    let script = ws.join("classroom50/autograder.py");
    let text = std::fs::read_to_string(&script).unwrap();
    let text = text.replacen(
        "GPUZZLE_INSTALL = \"\"",
        "GPUZZLE_INSTALL = \"--git https://example.org/gpuzzle --rev 0123abc gpuzzle\"",
        1,
    );
    std::fs::write(&script, text).unwrap();
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(&script)
        .current_dir(&ws)
        .env("HOME", &home)
        .env("PATH", format!("{}:{}", tools.display(), path.join(":")))
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    for (k, v) in RUNNER_ENV {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("python3 runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let calls = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect();
    let v = serde_json::from_str(&std::fs::read_to_string(ws.join("result.json")).unwrap())
        .expect("result.json");
    (calls, v)
}

#[test]
fn without_gpuzzle_on_path_it_installs_the_release_and_builds_only_without_one() {
    let version = env!("CARGO_PKG_VERSION");
    let wheels = "nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12 nvidia-cuda-nvcc-cu12";
    let (calls, v) = install_path(true);
    assert_eq!(
        calls,
        vec![
            format!("pip install --disable-pip-version-check {wheels}"),
            format!(
                "pip install --disable-pip-version-check --only-binary=:all: gpuzzle=={version}"
            ),
        ]
    );
    assert_eq!(v["schema"], "classroom50/result/v1");
    let (calls, v) = install_path(false);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(
        calls[2].starts_with("cargo install --locked --root ")
            && calls[2]
                .ends_with(".gpuzzle-venv --git https://example.org/gpuzzle --rev 0123abc gpuzzle"),
        "{calls:?}"
    );
    assert_eq!(v["schema"], "classroom50/result/v1");
}
