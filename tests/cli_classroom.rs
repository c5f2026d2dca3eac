//! A classroom repository made by `gpuzzle init --ci github`: the workflow's `run:` steps are
//! read from the file init wrote and run as GitHub Actions runs them (bash -eo pipefail, in the
//! repository root, `GITHUB_STEP_SUMMARY` set), on a workspace with one planted failing
//! puzzle; the annotations must point at the planted line. Needs NVRTC.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1").env_remove("GPUZZLE_PUZZLES");
    c
}

/// One step of the workflow: its `name:` (if any) and its `run:` script.
#[derive(Debug)]
struct RunStep {
    name: Option<String>,
    script: String,
}

/// The `run:` steps of a workflow, in order. Reads the YAML subset the template uses: steps
/// start with `- `, a `run:` is a one-line plain scalar or a `|` block (the lines indented
/// deeper than the key, with that common indent removed, as YAML reads a literal block).
fn run_steps(yaml: &str) -> Vec<RunStep> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut steps = Vec::new();
    let mut name: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let body = trimmed.strip_prefix("- ").unwrap_or(trimmed);
        if trimmed.starts_with("- ") {
            name = None;
        }
        if let Some(n) = body.strip_prefix("name: ") {
            name = Some(n.trim().to_string());
        }
        if let Some(value) = body.strip_prefix("run: ") {
            let key_indent = line.len() - trimmed.len() + (trimmed.len() - body.len());
            let script = if value.trim() == "|" {
                let mut block = Vec::new();
                let mut indent = None;
                while let Some(next) = lines.get(i + 1) {
                    let ni = next.len() - next.trim_start().len();
                    if !next.trim().is_empty() && ni <= key_indent {
                        break;
                    }
                    let cut = *indent.get_or_insert(ni);
                    block.push(next.get(cut..).unwrap_or("").to_string());
                    i += 1;
                }
                block.join("\n") + "\n"
            } else {
                value.trim().to_string()
            };
            steps.push(RunStep {
                name: name.clone(),
                script,
            });
        }
        i += 1;
    }
    steps
}

/// Run `script` as a GitHub Actions `run:` step on Linux (`bash --noprofile --norc -eo
/// pipefail {0}`), in `dir`, with the test's gpuzzle first on PATH.
fn run_like_actions(script: &str, dir: &Path, summary: &Path) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("gpuzzle");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let file = dir.join(".step.sh");
    std::fs::write(&file, script).unwrap();
    let out = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&file)
        .current_dir(dir)
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary)
        // The runner has no GPU; this machine might.
        .env("GPUZZLE_BACKEND", "emu")
        // The workflow's env with the repository variable unset.
        .env("GPUZZLE_PACK", "builtin")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    out
}

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// How many puzzles the built-in pack has (what `--pack builtin` grades).
fn pack_size() -> usize {
    std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles"))
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            p.extension().is_some_and(|x| x == "toml")
        })
        .count()
}

/// A classroom repository: `init --ci github`, puzzles 1 and 3 solved, 2 with an
/// out-of-bounds write planted on line 3, the others untouched starters.
fn classroom(install: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("course");
    let mut init = gpuzzle();
    init.arg("init").arg(&ws).args(["--ci", "github"]);
    if let Some(args) = install {
        init.args(["--ci-install", args]);
    }
    init.assert().success();
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
    (dir, ws)
}

#[test]
fn the_workflows_commands_annotate_the_planted_line() {
    let (dir, ws) = classroom(Some(
        "--git https://example.org/gpuzzle.git --rev 0123abc gpuzzle",
    ));
    let yaml = std::fs::read_to_string(ws.join(".github/workflows/gpuzzle.yml")).unwrap();
    let steps = run_steps(&yaml);
    let scripts: Vec<&str> = steps.iter().map(|s| s.script.as_str()).collect();

    // It installs NVRTC and gpuzzle (from the source given), grades, and keeps JUnit.
    assert!(
        scripts
            .iter()
            .any(|s| s.starts_with("pip install nvidia-cuda-nvrtc-cu12")),
        "{scripts:#?}"
    );
    assert!(
        scripts
            .iter()
            .any(|s| s.contains("cargo install --locked $GPUZZLE_INSTALL")),
        "{scripts:#?}"
    );
    assert!(yaml.contains(
        "GPUZZLE_INSTALL: ${{ vars.GPUZZLE_INSTALL || '--git https://example.org/gpuzzle.git --rev 0123abc gpuzzle' }}"
    ));
    assert!(
        yaml.contains("uses: actions/upload-artifact@v4")
            && yaml.contains("path: gpuzzle-junit.xml")
    );
    assert!(yaml.contains("cache: pip") && yaml.contains("path: ~/.cargo/bin/gpuzzle"));

    // Every step that runs gpuzzle, exactly as written.
    let grading: Vec<&RunStep> = steps
        .iter()
        .filter(|s| s.script.trim_start().starts_with("gpuzzle "))
        .collect();
    assert_eq!(grading.len(), 2, "{steps:#?}");
    let summary = dir.path().join("step-summary.md");

    let grade = &grading[0];
    assert_eq!(
        grade.script,
        "gpuzzle check --all --pack \"$GPUZZLE_PACK\" --format github"
    );
    assert!(yaml.contains("GPUZZLE_PACK: ${{ vars.GPUZZLE_PACK || 'builtin' }}"));
    // The learner loosens puzzle 2's tests: the pinned pack grades with its own, and says so.
    let toml = ws.join("puzzles/02_zip.toml");
    let loosened = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("[[test]]", "# mine\n[[test]]");
    std::fs::write(&toml, loosened).unwrap();
    let out = run_like_actions(&grade.script, &ws, &summary);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failing puzzle fails the step: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    assert!(
        errors.iter().any(|l| l.starts_with(
            "::error file=puzzles/02_zip.cu,line=3,title=Puzzle 2 (zip)%3A out-of-bounds::"
        )),
        "{text}"
    );
    assert!(
        errors.iter().all(|l| l.contains("file=puzzles/02_zip.cu")),
        "only the planted puzzle fails: {text}"
    );
    assert!(
        text.starts_with("::warning file=puzzles/02_zip.toml,title=puzzle file not used (the pack is pinned)::puzzles/02_zip.toml differs from the puzzle built into gpuzzle"),
        "{text}"
    );
    let n = pack_size();
    assert!(
        text.ends_with(&format!("gpuzzle: 2 of {n} puzzles pass\n")),
        "{text}"
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with(&format!("## gpuzzle: 2 of {n} puzzles pass")),
        "{md}"
    );
    assert!(
        md.contains("| 1 | map | 4/4 | within budget | ✅ pass |"),
        "{md}"
    );

    let junit = &grading[1];
    assert_eq!(junit.name.as_deref(), Some("JUnit report"));
    let out = run_like_actions(&junit.script, &ws, &summary);
    assert_eq!(
        out.status.code(),
        Some(0),
        "exit 1 (a puzzle failed) is the grading step's news: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml = std::fs::read_to_string(ws.join("gpuzzle-junit.xml")).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.contains("<testsuite name=\"02_zip\""), "{xml}");
    assert!(xml.contains("<failure"), "{xml}");

    // A set-up error (gpuzzle's exit 2) is not excused by the JUnit step.
    std::fs::remove_dir_all(ws.join("puzzles")).unwrap();
    let out = run_like_actions(&junit.script, &ws, &summary);
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn without_an_install_source_the_install_step_says_what_to_set() {
    let (dir, ws) = classroom(None);
    let yaml = std::fs::read_to_string(ws.join(".github/workflows/gpuzzle.yml")).unwrap();
    assert!(yaml.contains("GPUZZLE_INSTALL: ${{ vars.GPUZZLE_INSTALL || '' }}"));
    let install = run_steps(&yaml)
        .into_iter()
        .find(|s| s.name.as_deref() == Some("Install gpuzzle"))
        .expect("an install step");
    // As the runner would see it with the variable unset: an annotation naming the fix.
    let out = run_like_actions(&install.script, &ws, &dir.path().join("s.md"));
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("::error title=gpuzzle source not set::No release wheel of gpuzzle ''")
            && text.contains("GPUZZLE_VERSION")
            && text.contains("GPUZZLE_INSTALL"),
        "{text}"
    );
    // init refuses a source that would break the YAML, writing nothing.
    let elsewhere = dir.path().join("other");
    gpuzzle()
        .arg("init")
        .arg(&elsewhere)
        .args(["--ci", "github", "--ci-install", "x' }}"])
        .assert()
        .code(2);
    assert!(!elsewhere.exists());
}

#[test]
fn the_step_reader_reads_blocks_and_one_liners() {
    let yaml = "jobs:\n  a:\n    steps:\n      - name: One\n        run: echo one\n      - name: Block\n        if: always()\n        run: |\n          if true; then\n            echo two\n          fi\n      - uses: x@v1\n";
    let steps = run_steps(yaml);
    assert_eq!(steps.len(), 2);
    assert_eq!(
        (steps[0].name.as_deref(), steps[0].script.as_str()),
        (Some("One"), "echo one")
    );
    assert_eq!(steps[1].script, "if true; then\n  echo two\nfi\n");
}

/// A fresh repository where the learner has worked on puzzle 2 only: the untouched starters of
/// 1 and 3 are one "not started" line, not annotations, so puzzle 2's are the ones shown.
#[test]
fn untouched_starters_are_not_started_not_annotated() {
    let (_dir, ws) = classroom(None);
    // Put the pack's starters of 1 and 3 back, as a fresh clone has them.
    for id in ["1", "3"] {
        gpuzzle()
            .current_dir(&ws)
            .args(["reset", id])
            .assert()
            .success();
    }
    let out = gpuzzle()
        .current_dir(&ws)
        .env("GPUZZLE_BACKEND", "emu")
        .args(["check", "--all", "--format", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let annotated: Vec<&str> = text.lines().filter(|l| l.starts_with("::")).collect();
    assert!(!annotated.is_empty(), "{text}");
    assert!(
        annotated
            .iter()
            .all(|l| l.contains("file=puzzles/02_zip.cu")),
        "only the puzzle worked on is annotated: {text}"
    );
    let n = pack_size();
    let rest: Vec<String> = (4..=n).map(|i| i.to_string()).collect();
    assert!(
        text.ends_with(&format!(
            "gpuzzle: {} not started (the starter as shipped, not annotated): 1, 3, {}\ngpuzzle: 0 of {n} puzzles pass\n",
            n - 1,
            rest.join(", ")
        )),
        "{text}"
    );
}

/// Every `#include <...>` and `#include "..."` name in `text`.
fn includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let (open, close) = match rest.chars().next()? {
                '<' => ('<', '>'),
                '"' => ('"', '"'),
                _ => return None,
            };
            let inner = rest.strip_prefix(open)?;
            Some(inner[..inner.find(close)?].to_string())
        })
        .collect()
}

/// The `include` folders of NVIDIA's wheels installed for this machine's python3, by wheel
/// folder (`cuda_runtime`, `cuda_nvcc`, ...).
fn nvidia_include_dirs() -> Vec<(String, PathBuf)> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import nvidia\nfor p in nvidia.__path__: print(p)"])
        .output()
        .expect("python3 runs");
    let roots = String::from_utf8_lossy(&out.stdout).to_string();
    let mut dirs = Vec::new();
    for root in roots.lines() {
        for e in std::fs::read_dir(root).into_iter().flatten().flatten() {
            let include = e.path().join("include");
            if include.is_dir() {
                dirs.push((e.file_name().to_string_lossy().into_owned(), include));
            }
        }
    }
    assert!(
        dirs.iter().any(|(w, _)| w == "cuda_runtime"),
        "this test reads NVIDIA's wheels (pip install nvidia-cuda-runtime-cu12 ...; .ci/run installs them), found {dirs:?}"
    );
    dirs
}

/// The pip packages the pack needs: NVRTC, and the wheel of every header a puzzle's starter,
/// solution or lazy kernel includes, followed through the headers' own includes (`mma.h`, in
/// the runtime wheel, includes `crt/mma.h`, in the compiler's). A name no wheel has must be
/// one of the host headers gpuzzle stands in for.
fn packages_the_pack_needs() -> Vec<String> {
    let dirs = nvidia_include_dirs();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    let mut stack = vec![root.join("puzzles"), root.join("solutions")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "cu") {
                sources.push(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    const STAND_INS: [&str; 4] = ["cfloat", "cmath", "cstdint", "climits"];
    let mut needed = vec!["cuda_nvrtc".to_string()];
    let mut seen = std::collections::HashSet::new();
    let mut todo: Vec<(String, bool)> = sources
        .iter()
        .flat_map(|s| includes(s))
        .map(|h| (h, true))
        .collect();
    while let Some((header, direct)) = todo.pop() {
        if !seen.insert(header.clone()) {
            continue;
        }
        match dirs.iter().find(|(_, d)| d.join(&header).is_file()) {
            Some((wheel, d)) => {
                if !needed.contains(wheel) {
                    needed.push(wheel.clone());
                }
                let text = std::fs::read_to_string(d.join(&header)).unwrap_or_default();
                todo.extend(includes(&text).into_iter().map(|h| (h, false)));
            }
            // A header's own includes may be for other platforms or compilers.
            None => assert!(
                !direct || STAND_INS.contains(&header.as_str()),
                "the pack includes <{header}>, which no installed NVIDIA wheel has"
            ),
        }
    }
    assert!(
        needed.iter().any(|w| w == "cuda_nvcc"),
        "puzzle 50's <mma.h> needs crt/mma.h from the compiler wheel: {needed:?}"
    );
    needed
        .into_iter()
        .map(|w| format!("nvidia-{}-cu12", w.replace('_', "-")))
        .collect()
}

/// Every file `init --ci` writes installs every NVIDIA wheel the pack needs, on the line that
/// installs them.
#[test]
fn every_generated_ci_installs_every_wheel_the_pack_needs() {
    let needed = packages_the_pack_needs();
    for (ci, file, install_line) in [
        (
            "github",
            ".github/workflows/gpuzzle.yml",
            "run: pip install ",
        ),
        (
            "classroom",
            ".github/workflows/classroom.yml",
            "run: pip install ",
        ),
        (
            "classroom50",
            "classroom50/autograder.py",
            "NVIDIA_WHEELS = ",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        gpuzzle()
            .arg("init")
            .arg(dir.path())
            .args(["--ci", ci, "--ci-only"])
            .assert()
            .success();
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(install_line))
            .unwrap_or_else(|| panic!("{ci}: no `{install_line}` line in {file}"));
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == '"')
            .collect();
        for package in &needed {
            assert!(
                words.contains(&package.as_str()),
                "{ci}: {file} does not install {package}: {line}"
            );
        }
    }
}

/// The install step as Actions runs it, with `pip` and `cargo` stand-ins that record their
/// arguments (`pip` fails for `gpuzzle==...` when `wheel` is false: no release exists).
fn run_install_step(ci: &str, wheel: bool, install: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    gpuzzle()
        .arg("init")
        .arg(dir.path())
        .args(["--ci", ci, "--ci-only", "--ci-install", install])
        .assert()
        .success();
    let file = if ci == "github" {
        "gpuzzle.yml"
    } else {
        "classroom.yml"
    };
    let yaml = std::fs::read_to_string(dir.path().join(".github/workflows").join(file)).unwrap();
    let step = run_steps(&yaml)
        .into_iter()
        .find(|s| s.name.as_deref() == Some("Install gpuzzle"))
        .expect("an install step");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.path().join("calls.log");
    let pip_exit = if wheel { "0" } else { "1" };
    for (name, body) in [
        (
            "pip",
            format!(
                "echo \"pip $*\" >> '{}'\ncase \"$*\" in *gpuzzle==*) exit {pip_exit};; esac\n",
                log.display()
            ),
        ),
        (
            "cargo",
            format!("echo \"cargo $*\" >> '{}'\n", log.display()),
        ),
    ] {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let version = yaml
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("GPUZZLE_VERSION: ${{ vars.GPUZZLE_VERSION || '")
        })
        .and_then(|v| v.strip_suffix("' }}"))
        .expect("a pinned version")
        .to_string();
    let output = dir.path().join("github_output");
    let out = std::process::Command::new("bash")
        .args([
            "--noprofile",
            "--norc",
            "-eo",
            "pipefail",
            "-c",
            &step.script,
        ])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("GPUZZLE_VERSION", &version)
        .env("GPUZZLE_INSTALL", install)
        .env("GITHUB_OUTPUT", &output)
        .output()
        .unwrap();
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let outputs = std::fs::read_to_string(&output).unwrap_or_default();
    (out.status.code(), calls, format!("{version}\n{outputs}"))
}

#[test]
fn gpuzzle_is_installed_prebuilt_and_built_only_without_a_release() {
    let install = "--git https://example.org/gpuzzle --rev 0123abc gpuzzle";
    for ci in ["github", "classroom"] {
        let (code, calls, outputs) = run_install_step(ci, true, install);
        let version = outputs.lines().next().unwrap_or_default().to_string();
        assert!(!version.is_empty() && version.contains('.'), "{version}");
        assert_eq!(code, Some(0), "{ci}: {calls}");
        assert_eq!(
            calls,
            format!("pip install --only-binary=:all: gpuzzle=={version}\n"),
            "{ci}: the release wheel, never a source build"
        );
        assert!(!outputs.contains("built=true"), "{outputs}");
        // No release of that version: cargo install, and the binary is saved to the cache.
        let (code, calls, outputs) = run_install_step(ci, false, install);
        assert_eq!(code, Some(0), "{ci}: {calls}");
        assert_eq!(
            calls,
            format!(
                "pip install --only-binary=:all: gpuzzle=={version}\ncargo install --locked {install}\n"
            ),
            "{ci}"
        );
        assert!(outputs.contains("built=true"), "{ci}: {outputs}");
    }
}
