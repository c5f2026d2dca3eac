//! The learner's own headers on every command that compiles a puzzle: `-I DIR` on `run`,
//! `check`, `bench` and `watch` (relative to the kernel file), and `include_dirs` in a puzzle
//! file (relative to its folder). Each test solves a puzzle with a kernel whose answer comes
//! from a header, so the verdict says whether the header was found. Needs NVRTC.

mod cli_support;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A fresh workspace made by `gpuzzle init`, with `puzzles/inc/offset.h` and puzzle 1 solved
/// through it (`out[i] = a[i] + OFFSET`, OFFSET being 10 in the header).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().join("ws");
    gpuzzle(dir.path()).arg("init").arg(&ws).assert().success();
    let inc = ws.join("puzzles/inc");
    std::fs::create_dir_all(&inc).unwrap_or_else(|e| panic!("{e}"));
    write(
        &inc.join("offset.h"),
        "#pragma once\n#define OFFSET 10.0f\n",
    );
    write(
        &ws.join("puzzles/01_map.cu"),
        "#include \"offset.h\"\n\
         extern \"C\" __global__ void map(float* out, const float* a) {\n\
         \x20   int local_i = threadIdx.x;\n\
         \x20   out[local_i] = a[local_i] + OFFSET;\n\
         }\n",
    );
    (dir, ws)
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn gpuzzle(ws: &Path) -> Command {
    let mut c = Command::cargo_bin("gpuzzle").unwrap_or_else(|e| panic!("{e}"));
    c.current_dir(ws)
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("include-dirs-cache"),
        )
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1");
    c
}

/// (exit code, stdout, stderr).
fn run(ws: &Path, args: &[&str]) -> (i32, String, String) {
    let out = gpuzzle(ws)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn run_and_check_find_the_header_with_i_and_not_without() {
    let (_dir, ws) = workspace();
    let (code, out, err) = run(&ws, &["run", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("offset.h"),
        "the compile error names the header:\n{out}{err}"
    );

    let (code, out, err) = run(&ws, &["run", "1", "-I", "inc"]);
    assert_eq!(code, 0, "{out}{err}");

    let (code, out, err) = run(&ws, &["check", "1", "-I", "inc", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value =
        serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["puzzles"][0]["passed"], true, "{v}");

    // An absolute folder works from anywhere.
    let abs = ws.join("puzzles/inc");
    let (code, out, err) = run(&ws, &["run", "1", "-I", &abs.to_string_lossy()]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_missing_i_folder_is_a_usage_error_naming_it() {
    let (_dir, ws) = workspace();
    for command in [
        vec!["run", "1", "-I", "nope"],
        vec!["check", "1", "-I", "nope"],
        vec!["bench", "6", "-I", "nope"],
        vec![
            "exec",
            "puzzles/01_map.cu",
            "--kernel",
            "map",
            "--grid",
            "1",
            "--block",
            "4",
            "--arg",
            "out=f32[4]:zeros",
            "--arg",
            "a=f32[4]:arange",
            "-I",
            "nope",
        ],
    ] {
        let (code, out, err) = run(&ws, &command);
        assert_eq!(code, 2, "{command:?}: {out}{err}");
        assert!(
            err.contains("-I nope: no such folder") && err.contains("puzzles/nope"),
            "{command:?}: {err}"
        );
    }
}

#[test]
fn bench_compiles_with_i() {
    let (_dir, ws) = workspace();
    write(
        &ws.join("puzzles/06_blocks.cu"),
        "#include \"offset.h\"\n\
         extern \"C\" __global__ void blocks(float* out, const float* a, int size) {\n\
         \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   if (i < size) out[i] = a[i] + OFFSET;\n\
         }\n",
    );
    let (code, out, err) = run(&ws, &["bench", "6", "--format", "json"]);
    assert_eq!(code, 1, "without -I it does not compile: {out}{err}");
    assert!(out.contains("offset.h"), "{out}");
    let (code, out, err) = run(&ws, &["bench", "6", "-I", "inc", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn include_dirs_in_the_puzzle_file_need_no_i() {
    let (_dir, ws) = workspace();
    let toml = ws.join("puzzles/01_map.toml");
    let text = std::fs::read_to_string(&toml).unwrap_or_else(|e| panic!("{e}"));
    write(&toml, &format!("include_dirs = [\"inc\"]\n{text}"));
    let (code, out, err) = run(&ws, &["run", "1"]);
    assert_eq!(code, 0, "{out}{err}");

    // A folder that is not there: the file, the key and what was looked for.
    write(
        &toml,
        &format!("include_dirs = [\"inc\", \"headers\"]\n{text}"),
    );
    let (code, out, err) = run(&ws, &["run", "1"]);
    assert_eq!(code, 2, "{out}{err}");
    for part in [
        "01_map.toml",
        "include_dirs[1]",
        "\"headers\" does not exist",
    ] {
        assert!(err.contains(part), "missing {part:?}:\n{err}");
    }
}

#[test]
fn watch_grades_with_i() {
    let (_dir, ws) = workspace();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpuzzle"))
        .args(["watch", "1", "-I", "inc"])
        .current_dir(&ws)
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("include-dirs-cache"),
        )
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let rx = cli_support::stdout_chunks(&mut child);
    // Puzzle 1 passes (the header was found), so watch moves on to puzzle 2.
    let mut text = String::new();
    let start = Instant::now();
    while !text.contains("now watching") {
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
        if let Ok(s) = rx.recv_timeout(Duration::from_millis(50)) {
            text.push_str(&s);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(text.contains("now watching"), "output:\n{text}");
    assert!(text.contains("02_zip.cu"), "output:\n{text}");
}
