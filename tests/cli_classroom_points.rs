//! GitHub Classroom autograding: `check --all --format classroom` writes the step output that
//! Classroom's grading reporter (`classroom-resources/autograding-grading-reporter`) reads,
//! decoded here and checked against the shape the reporter reads (`version`, `status`,
//! `max_score`, `tests[]` with `name`, `status`, `score`, `message`, `filename`, `line_no`),
//! with each puzzle's `points`; and `init --ci classroom` writes Classroom's workflow, whose
//! grading step is run here as Actions runs it. Needs NVRTC.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GITHUB_STEP_SUMMARY");
    c
}

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// Standard base64 decoding, written apart from gpuzzle's encoder so that the test does not
/// trust it; `None` on anything that is not base64.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        let mut n: u32 = 0;
        for &c in &quad[..4 - pad] {
            n = (n << 6) | ALPHABET.iter().position(|&a| a == c)? as u32;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// The reporter's JSON from `gpuzzle check --format classroom`'s stdout: exactly one line,
/// `result=BASE64`.
fn decode_output(stdout: &str) -> Value {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stdout}");
    let b64 = lines[0].strip_prefix("result=").expect("`result=` first");
    let json = decode_base64(b64).expect("valid base64");
    serde_json::from_slice(&json).expect("valid JSON")
}

/// A workspace trimmed to puzzles 1-3: puzzle 1 worth 3 points and solved, puzzle 2 worth 2
/// with an out-of-bounds write planted on line 3, puzzle 3 without `points` (1) and solved.
fn workspace(ci: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("course");
    let mut init = gpuzzle();
    init.arg("init").arg(&ws);
    if let Some(ci) = ci {
        init.args(["--ci", ci]);
    }
    init.assert().success();
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
        assert!(text.contains("\nhints = ["), "{toml} has hints");
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
    (dir, ws)
}

/// Check the reporter's fields on one test; return its score.
fn score_of(t: &Value, status: &str, file: &str) -> u64 {
    assert_eq!(t["status"], status, "{t}");
    assert_eq!(t["filename"], file, "{t}");
    assert!(t["name"].as_str().is_some_and(|n| !n.is_empty()), "{t}");
    assert!(t["message"].as_str().is_some_and(|m| !m.is_empty()), "{t}");
    assert!(t["line_no"].is_u64(), "{t}");
    t["score"].as_u64().expect("a whole-number score")
}

#[test]
fn each_puzzle_scores_its_points_when_it_passes_and_zero_when_not() {
    let (_dir, ws) = workspace(None);
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["check", "--all", "--format", "classroom"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The grading step succeeds; the reporter decides the job's fate.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = decode_output(&stdout);
    assert_eq!(v["version"], 1);
    assert_eq!(v["status"], "fail");
    assert_eq!(v["max_score"], 6);
    let tests = v["tests"].as_array().expect("tests");
    assert_eq!(tests.len(), 3, "{v}");
    assert_eq!(score_of(&tests[0], "pass", "puzzles/01_map.cu"), 3);
    assert_eq!(score_of(&tests[1], "fail", "puzzles/02_zip.cu"), 0);
    assert_eq!(score_of(&tests[2], "pass", "puzzles/03_guard.cu"), 1);
    assert!(tests[1]["name"].as_str().unwrap().contains("zip"), "{v}");
    // The failure is at the planted line.
    assert_eq!(tests[1]["line_no"], 3, "{v}");
    assert_eq!(tests[1]["test_code"], "gpuzzle check 2");
    // The reporter's total: the tests' scores added up.
    let total: u64 = tests.iter().filter_map(|t| t["score"].as_u64()).sum();
    assert_eq!(total, 4);

    // The reference solutions pass: every puzzle gets its points, status `pass`.
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["check", "--all", "--solutions", "--format", "classroom"])
        .output()
        .unwrap();
    let v = decode_output(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(v["status"], "pass", "{v}");
    let scores: Vec<_> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["score"].as_u64())
        .collect();
    assert_eq!(scores, vec![Some(3), Some(2), Some(1)]);
}

#[test]
fn bad_points_are_a_located_error() {
    let (_dir, ws) = workspace(None);
    let path = ws.join("puzzles/03_guard.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\nhints = [", "\npoints = \"many\"\nhints = [", 1),
    )
    .unwrap();
    let out = gpuzzle()
        .current_dir(&ws)
        .args(["check", "--all", "--format", "classroom"])
        .output()
        .unwrap();
    let v = decode_output(&String::from_utf8_lossy(&out.stdout));
    // A puzzle file that cannot be read is an `error` worth its default point, never earned.
    let t = &v["tests"][2];
    assert_eq!(t["status"], "error", "{v}");
    assert_eq!(t["score"], 0);
    assert_eq!(t["filename"], "puzzles/03_guard.toml");
    assert!(t["message"].as_str().unwrap().contains("points"), "{v}");
    assert_eq!(v["status"], "fail", "puzzle 2 still fails: {v}");
}

#[test]
fn init_writes_classrooms_workflow_and_its_grading_step_feeds_the_reporter() {
    let (dir, ws) = workspace(Some("classroom"));
    let yaml = std::fs::read_to_string(ws.join(".github/workflows/classroom.yml")).unwrap();
    // Classroom's conventions: the workflow and job names it looks for, its permissions,
    // the guard against its bot's first commit, and the reporter reading the step's output.
    for needed in [
        "name: Autograding Tests\n",
        "  run-autograding-tests:\n",
        "  checks: write\n",
        "  actions: read\n",
        "  contents: read\n",
        "if: github.actor != 'github-classroom[bot]'",
        "uses: classroom-resources/autograding-grading-reporter@v1",
        "GPUZZLE_RESULTS: \"${{ steps.gpuzzle.outputs.result }}\"",
        "runners: gpuzzle\n",
    ] {
        assert!(yaml.contains(needed), "missing {needed:?} in:\n{yaml}");
    }
    // The grading step: its id, and its command run as Actions runs it.
    let lines: Vec<&str> = yaml.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "id: gpuzzle")
        .expect("a step with id gpuzzle");
    let run = lines[at + 1]
        .trim()
        .strip_prefix("run: ")
        .expect("its run: line follows");
    assert_eq!(
        run,
        "gpuzzle check --all --pack \"$GPUZZLE_PACK\" --format classroom >> \"$GITHUB_OUTPUT\""
    );
    // This pack is the instructor's own (its points changed): pinned by its hash, as the
    // workflow's comment says, through the repository variable GPUZZLE_PACK.
    let pin = gpuzzle()
        .current_dir(&ws)
        .args(["check", "--print-pin"])
        .output()
        .unwrap();
    assert!(pin.status.success());
    let pin = String::from_utf8(pin.stdout).unwrap().trim().to_string();
    assert!(pin.starts_with("sha256:") && pin.len() == 71, "{pin}");
    let output = dir.path().join("github_output");
    let summary = dir.path().join("step_summary.md");
    std::fs::write(&output, "earlier=1\n").unwrap();
    let bin = assert_cmd::cargo::cargo_bin("gpuzzle");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let step = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", run])
        .current_dir(&ws)
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &output)
        .env("GPUZZLE_PACK", &pin)
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .env_remove("GPUZZLE_PUZZLES")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(
        step.status.success(),
        "{}",
        String::from_utf8_lossy(&step.stderr)
    );
    let written = std::fs::read_to_string(&output).unwrap();
    let added = written.strip_prefix("earlier=1\n").expect("appended");
    // Only the result line goes to the step output; the learner's table goes to the summary.
    let v = decode_output(added);
    let table = std::fs::read_to_string(&summary).expect("a job summary");
    assert!(table.contains("zip"), "{table}");
    assert_eq!(v["max_score"], 6, "{v}");
    let scores: Vec<_> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["score"].as_u64())
        .collect();
    assert_eq!(scores, vec![Some(3), Some(0), Some(1)]);

    // A learner who then edits a puzzle file grades nothing: the pinned hash no longer matches.
    let toml = std::fs::read_dir(ws.join("puzzles"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "toml"))
        .unwrap();
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replace("[[test]]", "# easier\n[[test]]")).unwrap();
    let refused = gpuzzle()
        .current_dir(&ws)
        .env("GPUZZLE_BACKEND", "emu")
        .args(["check", "--all", "--pack", &pin, "--format", "classroom"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("are not the pack this check pins")
            && err.contains("gpuzzle check --print-pin"),
        "{err}"
    );
}
