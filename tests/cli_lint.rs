//! `gpuzzle lint PACK_DIR` through the real binary, on small packs made in a temporary folder:
//! a clean pack passes; a planted shortcut (a budget loosened so that a lazy kernel passes), a
//! starter that warns and a "bounds" puzzle without a partly full block are each flagged at
//! their file and line with exit 1; and `check` on a kernel with a hard-coded size passes the
//! visible tests, fails the `[unseen]` one and says a size is probably hard-coded, where `run`
//! does not run it. Needs NVRTC.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

const BUDGET: &str = "budget = { global_reads = 1, global_writes = 1 }";
const PARTIAL_TEST: &str = "[[test]]
name = \"13 elements\"
grid = [2]
block = [8]
scalars = { size = 13 }
buffers.a = { len = 13, init = \"arange\" }
buffers.out = { len = 13, output = true }
";
const UNSEEN: &str = "[unseen]
scalars = { size = [40, 200] }
grid = [\"(size + TPB - 1) / TPB\"]
block = [\"TPB\"]
buffers.a = { len = \"size\", init = \"random\" }
buffers.out = { len = \"size\", output = true }
";

/// The puzzle file, with `budget` and the tests (and `[unseen]`) as given.
fn puzzle_toml(budget: &str, tests: &str) -> String {
    format!(
        r#"id = 1
slug = "add-ten"
title = "Add ten"
part = "Threads"
kernel = "add_ten"
params = ["out", "a", "size"]
defines = {{ TPB = 8 }}
teaches = ["bounds"]
description = """
Add 10 to each element of `a`, one thread per element, in blocks of TPB = 8
threads; the last block may be partly full.

Budget: 1 global read and 1 global write per thread.
"""
spec = """
for (int i = 0; i < size; i++) out[i] = a[i] + 10.0f;
"""
{budget}
hints = ["One thread per element.", "Guard with i < size.", "out[i] = a[i] + 10."]

{tests}"#
    )
}

const SOLUTION: &str =
    "extern \"C\" __global__ void add_ten(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i] = a[i] + 10.0f;
}
";
const STARTER: &str = "extern \"C\" __global__ void add_ten(float* out, const float* a, int size) {
    // One thread per element: add 10 to a[i], and keep the threads past the end out.
}
";
/// Fails the unseen test: the only size it knows is the visible test's.
const LAZY_FIXED_SIZE: &str = "// lazy: hard-codes the visible test's 13 elements
extern \"C\" __global__ void add_ten(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 13) out[i] = a[i] + 10.0f;
}
";
/// Skips the lesson (one thread per element): passes only a loosened budget.
const LAZY_SERIAL: &str = "// lazy: thread 0 does every element in a loop
extern \"C\" __global__ void add_ten(float* out, const float* a, int size) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (int j = 0; j < size; j++) out[j] = a[j] + 10.0f;
    }
}
";

/// A pack in a temporary folder: puzzles/01_add_ten.{toml,cu}, solutions/01_add_ten.cu and
/// the lazy kernels in solutions/lazy/01_add_ten/.
fn pack(toml: &str, starter: &str, lazy: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("puzzles")).unwrap();
    std::fs::create_dir_all(root.join("solutions/lazy/01_add_ten")).unwrap();
    std::fs::write(root.join("puzzles/01_add_ten.toml"), toml).unwrap();
    std::fs::write(root.join("puzzles/01_add_ten.cu"), starter).unwrap();
    std::fs::write(root.join("solutions/01_add_ten.cu"), SOLUTION).unwrap();
    for (name, text) in lazy {
        std::fs::write(root.join("solutions/lazy/01_add_ten").join(name), text).unwrap();
    }
    dir
}

fn clean_toml() -> String {
    puzzle_toml(BUDGET, &format!("{PARTIAL_TEST}\n{UNSEEN}"))
}

/// `gpuzzle lint DIR`: exit code, stdout.
fn lint(dir: &Path, json: bool) -> (Option<i32>, String) {
    let mut c = gpuzzle();
    c.arg("lint").arg(dir);
    if json {
        c.args(["--format", "json"]);
    }
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The rules of every problem in `lint --format json`'s output.
fn rules(v: &Value) -> Vec<String> {
    v["puzzles"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["problems"].as_array().unwrap().iter())
        .map(|q| q["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_clean_pack_passes() {
    let dir = pack(
        &clean_toml(),
        STARTER,
        &[
            ("fixed_size.cu", LAZY_FIXED_SIZE),
            ("serial.cu", LAZY_SERIAL),
        ],
    );
    let (code, out) = lint(dir.path(), false);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with(" 1  add-ten  ok"), "{out}");
    assert!(out.contains("1 puzzles, all ok"), "{out}");
    let (code, out) = lint(dir.path(), true);
    assert_eq!(code, Some(0));
    let v = json_of(&out);
    assert_eq!(v["ok"], true);
    assert_eq!(v["problems"], 0);
    assert_eq!(v["puzzles"][0]["slug"], "add-ten");
    assert_eq!(v["puzzles"][0]["lazy_kernels"], 2);
}

#[test]
fn a_planted_shortcut_is_flagged() {
    // A budget loose enough for one thread to do all the work.
    let loose = "budget = { global_reads = 1000, global_writes = 1000 }";
    let dir = pack(
        &puzzle_toml(loose, &format!("{PARTIAL_TEST}\n{UNSEEN}")),
        STARTER,
        &[
            ("fixed_size.cu", LAZY_FIXED_SIZE),
            ("serial.cu", LAZY_SERIAL),
        ],
    );
    let (code, out) = lint(dir.path(), true);
    assert_eq!(code, Some(1), "{out}");
    let v = json_of(&out);
    let problems = v["puzzles"][0]["problems"].as_array().unwrap();
    let passes: Vec<&Value> = problems
        .iter()
        .filter(|q| q["rule"] == "lazy-passes")
        .collect();
    assert_eq!(passes.len(), 1, "{v:#}");
    let q = passes[0];
    assert!(
        q["file"]
            .as_str()
            .unwrap()
            .ends_with("solutions/lazy/01_add_ten/serial.cu"),
        "{q}"
    );
    assert_eq!(q["line"], 1);
    assert!(
        q["problem"]
            .as_str()
            .unwrap()
            .contains("thread 0 does every element in a loop"),
        "{q}"
    );
    // The loosened budget no longer matches the description's.
    assert!(rules(&v).contains(&"text-budget".to_string()), "{v:#}");
    let (code, text) = lint(dir.path(), false);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("serial.cu:1: the lazy kernel passes every test"),
        "{text}"
    );
    assert!(text.contains("fix: change"), "{text}");
}

#[test]
fn a_starter_with_an_unused_variable_is_flagged() {
    let starter = "extern \"C\" __global__ void add_ten(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
}
";
    let dir = pack(&clean_toml(), starter, &[]);
    let (code, out) = lint(dir.path(), true);
    assert_eq!(code, Some(1), "{out}");
    let v = json_of(&out);
    assert_eq!(rules(&v), ["starter-warns"], "{v:#}");
    let q = &v["puzzles"][0]["problems"][0];
    assert!(q["file"]
        .as_str()
        .unwrap()
        .ends_with("puzzles/01_add_ten.cu"));
    assert_eq!(q["line"], 2);
    assert!(
        q["problem"].as_str().unwrap().contains("never referenced"),
        "{q}"
    );
}

#[test]
fn bounds_without_a_partly_full_block_is_flagged() {
    let full = "[[test]]
name = \"16 elements\"
grid = [2]
block = [8]
scalars = { size = 16 }
buffers.a = { len = 16, init = \"arange\" }
buffers.out = { len = 16, output = true }
";
    // The unseen size fixed at a multiple of the block too.
    let unseen = UNSEEN.replace("[40, 200]", "[64, 64]");
    let toml = puzzle_toml(BUDGET, &format!("{full}\n{unseen}"));
    let dir = pack(&toml, STARTER, &[]);
    let (code, out) = lint(dir.path(), true);
    assert_eq!(code, Some(1), "{out}");
    let v = json_of(&out);
    assert_eq!(rules(&v), ["bounds-untested"], "{v:#}");
    let q = &v["puzzles"][0]["problems"][0];
    assert!(q["file"]
        .as_str()
        .unwrap()
        .ends_with("puzzles/01_add_ten.toml"));
    let line = toml.lines().position(|l| l.starts_with("teaches")).unwrap() + 1;
    assert_eq!(q["line"], line);
}

#[test]
fn a_missing_pack_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _) = lint(&dir.path().join("nothing"), false);
    assert_eq!(code, Some(2));
    let out = gpuzzle().arg("lint").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A workspace (the pack's folder) whose puzzles/01_add_ten.cu is `kernel`.
fn workspace_with(kernel: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = pack(&clean_toml(), kernel, &[]);
    let root = dir.path().to_path_buf();
    (dir, root)
}

#[test]
fn check_fails_a_hard_coded_size_on_the_unseen_test_and_says_so() {
    let hard_coded =
        LAZY_FIXED_SIZE.replace("// lazy: hard-codes the visible test's 13 elements\n", "");
    let (_dir, root) = workspace_with(&hard_coded);
    // `run` shows only the tests the learner can see: it passes.
    let out = gpuzzle()
        .current_dir(&root)
        .args(["run", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("unseen"), "{text}");

    let out = gpuzzle()
        .current_dir(&root)
        .args(["check", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("passes the tests it can see, fails an unseen size (size = "),
        "{text}"
    );
    assert!(
        text.contains("the kernel passes the tests it can see but fails a size it could not see")
            && text.contains("a size is probably hard-coded; use `size`"),
        "{text}"
    );

    let out = gpuzzle()
        .current_dir(&root)
        .args(["check", "1", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&String::from_utf8_lossy(&out.stdout));
    let p = &v["puzzles"][0];
    assert!(
        p["unseen_failure"]
            .as_str()
            .unwrap()
            .contains("a size is probably hard-coded"),
        "{p:#}"
    );
    let tests = p["tests"].as_array().unwrap();
    let (unseen, seen): (Vec<&Value>, Vec<&Value>) =
        tests.iter().partition(|t| t.get("unseen").is_some());
    assert_eq!(unseen.len(), 1, "{p:#}");
    assert_eq!(unseen[0]["unseen"], true);
    assert_eq!(unseen[0]["passed"], false);
    assert!(unseen[0]["name"]
        .as_str()
        .unwrap()
        .starts_with("unseen size (size = "));
    assert!(seen.iter().all(|t| t["passed"] == true), "{p:#}");
    // It is the last test, and a visible one's shape is unchanged.
    assert_eq!(tests.last().unwrap()["unseen"], true);
    assert!(tests[0].get("unseen").is_none());

    for format in ["junit", "github"] {
        let out = gpuzzle()
            .current_dir(&root)
            .args(["check", "1", "--format", format])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains("a size is probably hard-coded"),
            "{format}: {text}"
        );
    }

    // The reference solution passes it, with `check --solutions` too.
    let out = gpuzzle()
        .current_dir(&root)
        .args(["check", "1", "--solutions", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    let tests = v["puzzles"][0]["tests"].as_array().unwrap();
    assert_eq!(tests.last().unwrap()["unseen"], true);
    assert_eq!(tests.last().unwrap()["passed"], true);
}

/// `[unseen] defines` are compiled in: a kernel that only works for the puzzle's TPB = 8
/// (it guards with the define, not with `size`) passes the visible test and fails the unseen
/// one, run with blocks of TPB = 64; the reference solution passes it.
#[test]
fn the_unseen_test_compiles_with_its_own_defines() {
    let unseen = UNSEEN.replace(
        "block = [\"TPB\"]",
        "block = [\"TPB\"]\ndefines = { TPB = 64 }",
    );
    let toml = puzzle_toml(BUDGET, &format!("{PARTIAL_TEST}\n{unseen}"));
    // Right only while the block holds TPB threads: element i is handled by thread i % TPB of
    // block i / TPB, so a TPB compiled as 8 with blocks of 64 leaves most elements undone.
    let by_define = "extern \"C\" __global__ void add_ten(float* out, const float* a, int size) {
    int i = blockIdx.x * TPB + threadIdx.x;
    if (threadIdx.x < TPB && i < size) out[i] = a[i] + 10.0f;
}
";
    let dir = pack(&toml, by_define, &[]);
    let out = gpuzzle()
        .current_dir(dir.path())
        .args(["check", "1", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&String::from_utf8_lossy(&out.stdout));
    // With TPB = 64 compiled in, this kernel is right at every size: it passes.
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    let tests = v["puzzles"][0]["tests"].as_array().unwrap();
    assert_eq!(tests.last().unwrap()["unseen"], true, "{v:#}");

    // The same kernel with the block size written as 8 fails only the unseen test.
    let fixed = by_define.replace("TPB", "8");
    let dir = pack(&toml, &fixed, &[]);
    let out = gpuzzle()
        .current_dir(dir.path())
        .args(["check", "1", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    let tests = v["puzzles"][0]["tests"].as_array().unwrap();
    let failed: Vec<&Value> = tests.iter().filter(|t| t["passed"] == false).collect();
    assert_eq!(failed.len(), 1, "{v:#}");
    assert_eq!(failed[0]["unseen"], true, "{v:#}");
}
