//! The learner's first steps and safety nets through the real binary: solutions kept out of
//! plain view until earned, one broken puzzle file costing only its puzzle, and every
//! next-step command gpuzzle prints working as printed. These need NVRTC.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// A fresh workspace made by `gpuzzle init` (its root is `<tmp>/ws`).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    (dir, ws)
}

/// Keep only puzzles `1..=last` of a workspace, so that `check --all` stays quick.
fn keep_first(ws: &Path, last: u32) {
    for e in std::fs::read_dir(ws.join("puzzles")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let id: u32 = name[..2].parse().unwrap();
        if id > last {
            std::fs::remove_file(path).unwrap();
        }
    }
}

fn in_ws(ws: &Path) -> Command {
    let mut c = gpuzzle();
    c.current_dir(ws);
    c
}

fn stdout_of(c: &mut Command) -> (Option<i32>, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_solution_is_kept_until_the_puzzle_passes_or_the_learner_insists() {
    let (_dir, ws) = workspace();
    assert!(!ws.join("solutions").exists(), "init leaves solutions out");
    let reference = repo_file("solutions/01_map.cu");

    // Not passed: refused (exit 1), saying how to get it.
    let (code, out, err) = stdout_of(in_ws(&ws).args(["solution", "1"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("not passed yet")
            && err.contains("gpuzzle run 1")
            && err.contains("gpuzzle solution 1 --force"),
        "{err}"
    );
    // --force: printed, after saying that looking is a choice.
    let (code, out, err) = stdout_of(in_ws(&ws).args(["solution", "map", "--force"]));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, reference);
    assert!(err.contains("looking now is your choice"), "{err}");
    // A usage error is exit 2.
    in_ws(&ws)
        .args(["solution", "mapp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `1 map`?"));

    // Passed: printed; a later failing run keeps it; `reset` takes it back.
    std::fs::write(ws.join("puzzles/01_map.cu"), &reference).unwrap();
    in_ws(&ws).args(["run", "1"]).assert().success();
    let (code, out, err) = stdout_of(in_ws(&ws).args(["solution", "1"]));
    assert_eq!((code, out.as_str()), (Some(0), reference.as_str()), "{err}");
    assert!(!err.contains("your choice"), "{err}");
    std::fs::write(ws.join("puzzles/01_map.cu"), repo_file("puzzles/01_map.cu")).unwrap();
    in_ws(&ws).args(["run", "1"]).assert().code(1);
    in_ws(&ws).args(["solution", "1"]).assert().success();
    in_ws(&ws).args(["reset", "1"]).assert().success();
    in_ws(&ws).args(["solution", "1"]).assert().code(1);
}

#[test]
fn reference_runs_need_no_solutions_folder() {
    let (_dir, ws) = workspace();
    let (code, out, err) =
        stdout_of(in_ws(&ws).args(["check", "1", "9", "21", "--solutions", "--format", "json"]));
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["passed"], 3, "{v:#}");
    assert_eq!(v["puzzles"][1]["file"], "solutions/09_pooling.cu");
    in_ws(&ws)
        .args(["run", "12", "--solution"])
        .assert()
        .success()
        .stdout(predicate::str::contains("PASSED"));
    // An instructor's solutions/ beside the puzzles wins over the built-in one.
    std::fs::create_dir_all(ws.join("solutions")).unwrap();
    std::fs::write(
        ws.join("solutions/01_map.cu"),
        repo_file("puzzles/01_map.cu"),
    )
    .unwrap();
    in_ws(&ws)
        .args(["check", "1", "--solutions"])
        .assert()
        .code(1);
}

#[test]
fn one_broken_puzzle_file_breaks_only_its_puzzle() {
    let (_dir, ws) = workspace();
    keep_first(&ws, 5);
    std::fs::write(
        ws.join("puzzles/01_map.cu"),
        repo_file("solutions/01_map.cu"),
    )
    .unwrap();
    // A typo in a field name (line 3), and a string never closed (a TOML syntax error).
    let guard = std::fs::read_to_string(ws.join("puzzles/03_guard.toml")).unwrap();
    std::fs::write(
        ws.join("puzzles/03_guard.toml"),
        guard.replacen("title = ", "titel = ", 1),
    )
    .unwrap();
    let map2d = std::fs::read_to_string(ws.join("puzzles/04_map_2d.toml")).unwrap();
    std::fs::write(
        ws.join("puzzles/04_map_2d.toml"),
        map2d.replacen("title = \"Map 2D\"", "title = \"Map 2D", 1),
    )
    .unwrap();

    // `list`: both shown as broken, with file:line, among the others.
    let (code, out, err) = stdout_of(in_ws(&ws).arg("list"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(" 1 ✓ Map") || out.contains(" 1 · Map"),
        "{out}"
    );
    assert!(out.contains(" 3 ! guard (broken puzzle file"), "{out}");
    assert!(
        out.contains("puzzles/03_guard.toml:3: error: `titel`"),
        "{out}"
    );
    assert!(out.contains(" 4 ! map-2d (broken puzzle file"), "{out}");
    assert!(out.contains("puzzles/04_map_2d.toml:3: error"), "{out}");
    assert!(out.contains(" 5 · Broadcast"), "{out}");

    // `run` of another puzzle works; of a broken one, prints its error (exit 2).
    in_ws(&ws).args(["run", "1"]).assert().success();
    in_ws(&ws)
        .args(["run", "guard"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("03_guard.toml:3: `titel`"));
    in_ws(&ws)
        .args(["run", "4"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("04_map_2d.toml:3"));

    // `check --all` grades the others and fails the broken ones, in every format.
    let (code, text, _) = stdout_of(in_ws(&ws).args(["check", "--all"]));
    assert_eq!(code, Some(1));
    let row = |id: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(id))
            .unwrap_or_else(|| panic!("no row {id}: {text}"))
            .to_string()
    };
    assert!(row("1 ").contains("pass"), "{text}");
    assert!(
        row("2 ").contains("FAIL") && row("2 ").contains("elements differ"),
        "{text}"
    );
    assert!(
        row("3 ").contains("FAIL  broken puzzle file: puzzles/03_guard.toml:3"),
        "{text}"
    );
    assert!(row("4 ").contains("broken puzzle file"), "{text}");
    assert!(row("5 ").contains("FAIL"), "{text}");
    assert!(text.contains("1 of 5 passed"), "{text}");

    let (code, json, _) = stdout_of(in_ws(&ws).args(["check", "--all", "--format", "json"]));
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(4))
    );
    let p3 = &v["puzzles"][2];
    assert_eq!(
        (p3["id"].as_u64(), p3["file"].as_str()),
        (Some(3), Some("puzzles/03_guard.toml"))
    );
    assert!(
        p3["puzzle_error"].as_str().unwrap().contains("`titel`"),
        "{p3}"
    );
    assert!(!v["puzzles"][4]["tests"].as_array().unwrap().is_empty());

    let (code, xml, _) = stdout_of(in_ws(&ws).args(["check", "--all", "--format", "junit"]));
    assert_eq!(code, Some(1));
    assert!(xml.contains("<testsuite name=\"03_guard\""), "{xml}");
    assert!(xml.contains("<testcase name=\"puzzle file\""), "{xml}");
    assert!(xml.contains("failures=\"1\"") && xml.contains("<testsuite name=\"05_broadcast\""));

    let (code, gh, _) = stdout_of(in_ws(&ws).args(["check", "--all", "--format", "github"]));
    assert_eq!(code, Some(1));
    assert!(
        gh.lines().any(|l| l.starts_with(
            "::error file=puzzles/03_guard.toml,line=3,title=Puzzle 3 (guard)%3A broken puzzle file::`titel`"
        )),
        "{gh}"
    );
    assert!(
        gh.lines()
            .any(|l| l.starts_with("::error file=puzzles/04_map_2d.toml,line=3,")),
        "{gh}"
    );
    // Puzzles 2 and 5 are the starters as shipped: listed as not started, not annotated.
    assert!(
        !gh.lines()
            .any(|l| l.starts_with("::error file=puzzles/02_zip.cu")),
        "{gh}"
    );
    assert!(
        gh.ends_with(
            "gpuzzle: 2 not started (the starter as shipped, not annotated): 2, 5\ngpuzzle: 1 of 5 puzzles pass\n"
        ),
        "{gh}"
    );

    // Named, a broken puzzle fails the same way.
    in_ws(&ws)
        .args(["check", "3", "1"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("broken puzzle file"));
    // `doctor` still says the workspace has a problem.
    in_ws(&ws)
        .arg("doctor")
        .assert()
        .code(2)
        .stdout(predicate::str::contains("titel"));
}

/// The `gpuzzle ...` commands in `text`: after `gpuzzle`, a subcommand, then puzzle numbers
/// and `--flags` (the words after those are prose).
fn printed_commands(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("gpuzzle ") {
        let before = text[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '_' || c == '-') {
            continue; // part of a path or another word
        }
        let mut words = text[at..].split([' ', '`', '\n', ';', ')', ',']);
        let mut cmd = vec![words.next().unwrap().to_string()];
        const SUBCOMMANDS: [&str; 13] = [
            "run",
            "check",
            "hint",
            "list",
            "show",
            "solution",
            "reset",
            "init",
            "watch",
            "doctor",
            "exec",
            "bench",
            "completions",
        ];
        match words.next() {
            Some(sub) if SUBCOMMANDS.contains(&sub) => cmd.push(sub.to_string()),
            _ => continue, // prose: "a gpuzzle workspace"
        }
        for w in words {
            if !w.is_empty() && (w.chars().all(|c| c.is_ascii_digit()) || w.starts_with("--")) {
                cmd.push(w.to_string());
            } else {
                break;
            }
        }
        found.push(cmd.join(" "));
    }
    found
}

#[test]
fn every_next_step_gpuzzle_prints_runs_as_printed() {
    let bin = assert_cmd::cargo::cargo_bin("gpuzzle");
    let bin_dir = bin.parent().unwrap().to_path_buf();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");

    // Not on PATH: init says how to install it, naming this clone.
    let (code, out, _) = stdout_of(gpuzzle().env("PATH", "/usr/bin:/bin").arg("init").arg(&ws));
    assert_eq!(code, Some(0));
    assert!(out.contains("`gpuzzle` is not on your PATH"), "{out}");
    assert!(
        out.contains(&format!(
            "cargo install --locked --path {}",
            env!("CARGO_MANIFEST_DIR")
        )),
        "{out}"
    );
    assert!(out.contains("open puzzles/01_map.cu"), "{out}");
    // This gpuzzle first; the rest as it was (NVRTC is found through the Pythons on PATH).
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::fs::remove_dir_all(&ws).unwrap();
    // On PATH: no note; every command it prints runs from where it says to be.
    let (_, init_out, _) = stdout_of(gpuzzle().env("PATH", &path).arg("init").arg(&ws));
    assert!(!init_out.contains("not on your PATH"), "{init_out}");
    assert!(
        init_out.contains(&format!("cd {}", ws.display())),
        "{init_out}"
    );

    // Collect what the first minutes print: init, a failing run, hints to the last, a refused
    // solution, a pass with its "Next".
    let mut printed = init_out.clone();
    let run = |args: &[&str]| {
        let (_, out, err) = stdout_of(in_ws(&ws).env("PATH", &path).args(args));
        format!("{out}\n{err}")
    };
    printed.push_str(&run(&["run", "1"]));
    for _ in 0..3 {
        printed.push_str(&run(&["hint", "1"]));
    }
    printed.push_str(&run(&["solution", "1"]));
    printed.push_str(&run(&["run"]));
    std::fs::write(
        ws.join("puzzles/01_map.cu"),
        repo_file("solutions/01_map.cu"),
    )
    .unwrap();
    printed.push_str(&run(&["run", "1"]));
    let commands = printed_commands(&printed);
    for expected in [
        "gpuzzle run 1",
        "gpuzzle hint 1",
        "gpuzzle list",
        "gpuzzle show 1 --spec",
        "gpuzzle solution 1 --force",
        "gpuzzle run 2",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "`{expected}` not among {commands:?}"
        );
    }
    for cmd in commands {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .current_dir(&ws)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("GPUZZLE_BACKEND", "emu")
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "`{cmd}` as printed gave {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A hint that answers the failure: puzzle 9 with its barrier removed races on `cache`; the
/// next `hint` names that mistake and its line, the following ones go on with the progressive
/// hints, the same failure again does not bring it back, `--all` shows it with the others,
/// `check --format json` lists it, and once the kernel passes only progressive hints remain.
#[test]
fn a_failed_run_brings_the_hint_for_its_mistake_first() {
    let (_dir, ws) = workspace();
    keep_first(&ws, 10);
    let solution = repo_file("solutions/09_pooling.cu");
    let planted = solution.replace("    __syncthreads();\n", "");
    assert_ne!(planted, solution, "the barrier was removed");
    std::fs::write(ws.join("puzzles/09_pooling.cu"), &planted).unwrap();
    let pack = repo_file("puzzles/09_pooling.toml");
    let puzzle = gpuzzle::puzzle::parse_puzzle(&pack, Path::new("puzzles/09_pooling.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let race_hint = &puzzle
        .mistakes
        .iter()
        .find(|m| m.kind.name() == "shared-race")
        .expect("puzzle 9 has a shared-race mistake hint")
        .hint;
    // The race is reported at the read of the window, line 13 of the planted file.
    let race_line = planted
        .lines()
        .position(|l| l.contains("cache[local_i + 1]"))
        .unwrap()
        + 1;
    let what = format!("shared-race, line {race_line}");

    let (code, out, err) = stdout_of(in_ws(&ws).args(["run", "9"]));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("error[shared-race]"), "{out}");
    assert!(
        out.trim_end()
            .ends_with(&format!("(it has a hint for this mistake: {what})")),
        "{out}"
    );

    let (code, first, err) = stdout_of(in_ws(&ws).args(["hint", "9"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        first.starts_with(&format!(
            "For what went wrong in your last run ({what}): {race_hint}\n"
        )),
        "{first}"
    );
    assert!(
        first.contains("gpuzzle hint 9 shows hint 1 of 3."),
        "{first}"
    );
    let (_, second, _) = stdout_of(in_ws(&ws).args(["hint", "9"]));
    assert!(
        second.starts_with(&format!("Hint 1 of 3: {}", puzzle.hints[0])),
        "{second}"
    );
    // The same failure again: no repeat of its hint; progressive hints go on.
    in_ws(&ws).args(["run", "9"]).assert().code(1);
    let (_, out, _) = stdout_of(in_ws(&ws).args(["run", "9"]));
    assert!(out.trim_end().ends_with("(hint 2 of 3)"), "{out}");
    let (_, third, _) = stdout_of(in_ws(&ws).args(["hint", "9"]));
    assert!(third.starts_with("Hint 2 of 3: "), "{third}");
    // --all shows the mistake's hint and every progressive one.
    let (_, all, _) = stdout_of(in_ws(&ws).args(["hint", "9", "--all"]));
    assert!(
        all.starts_with("For what went wrong in your last run ("),
        "{all}"
    );
    assert!(
        all.contains(race_hint.as_str()) && all.contains("Hint 3 of 3: "),
        "{all}"
    );
    // check's JSON lists it.
    let (code, json, err) = stdout_of(in_ws(&ws).args(["check", "9", "--format", "json"]));
    assert_eq!(code, Some(1), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    let listed = &v["puzzles"][0]["mistake_hints"];
    assert_eq!(listed[0]["kind"], "shared-race", "{v:#}");
    assert_eq!(listed[0]["line"], race_line, "{v:#}");
    assert_eq!(listed[0]["hint"], race_hint.as_str(), "{v:#}");

    // Fixed and passed: the mistake is forgotten; only progressive hints remain.
    std::fs::write(ws.join("puzzles/09_pooling.cu"), &solution).unwrap();
    in_ws(&ws).args(["run", "9"]).assert().success();
    let (_, after, _) = stdout_of(in_ws(&ws).args(["hint", "9"]));
    assert!(after.starts_with("Hint 3 of 3: "), "{after}");
    assert!(!after.contains("For what went wrong"), "{after}");
    let (_, json, _) = stdout_of(in_ws(&ws).args(["check", "9", "--format", "json"]));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["passed"], 1, "{v:#}");
    assert!(v["puzzles"][0].get("mistake_hints").is_none(), "{v:#}");
}

/// Issue 23: a counter over budget names the lines that made the accesses, for the thread the
/// table names, in `run`'s text and in `check --format json`; the summary says the table's
/// figure and thread.
#[test]
fn an_overrun_names_its_lines_in_run_and_in_json() {
    let (_dir, ws) = workspace();
    keep_first(&ws, 9);
    let kernel = "\
// Puzzle 9, read straight from `a`: 3 global reads where the budget allows 2.
extern \"C\" __global__ void pooling(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float s = a[i];
        if (i > 0) s += a[i - 1];
        if (i > 1) s += a[i - 2];
        out[i] = s;
    }
}
";
    std::fs::write(ws.join("puzzles/09_pooling.cu"), kernel).unwrap();
    let (code, out, err) = stdout_of(in_ws(&ws).args(["run", "9"]));
    assert_eq!(code, Some(1), "{out}{err}");
    println!("{out}");
    let row = out.lines().find(|l| l.contains("global reads")).unwrap();
    let row: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        row,
        ["global", "reads", "3", "2", "thread", "2", "of", "block", "0"]
    );
    assert!(
        out.contains(
            "error[over-budget]: thread 2 of block 0 made 3 global reads where the budget allows 2"
        ),
        "{out}"
    );
    // One read on each line: the `-->` names the last, the read past the budget (issue 35),
    // not the thread's own element on line 5.
    assert!(out.contains("--> puzzles/09_pooling.cu:7:"), "{out}");
    // Each line drawn, and marked with what thread 2 read there.
    for (line, code, label) in [
        (5, "float s = a[i];", "1 read: a[2]"),
        (6, "if (i > 0) s += a[i - 1];", "1 read: a[1]"),
        (7, "if (i > 1) s += a[i - 2];", "1 read: a[0]"),
    ] {
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("{line} |")) && l.ends_with(code))
            .unwrap_or_else(|| panic!("line {line} not drawn:\n{out}"));
        assert!(lines[at + 1].ends_with(label), "{}", lines[at + 1]);
    }
    assert!(
        out.contains(
            "Correct output, but 3 global reads per thread where the budget allows 2 (thread 2 of block 0)."
        ),
        "{out}"
    );

    let (code, json, err) = stdout_of(in_ws(&ws).args(["check", "9", "--format", "json"]));
    assert_eq!(code, Some(1), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    // The first test (one block of 8) and its random-input variant.
    let tests: Vec<&Value> = v["puzzles"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["name"]
                .as_str()
                .unwrap_or("")
                .starts_with("8 elements, 8 threads")
        })
        .collect();
    assert_eq!(tests.len(), 2);
    for t in tests {
        let over = t["over_budget"].as_array().unwrap();
        assert_eq!(over.len(), 1, "{t}");
        let o = &over[0];
        assert_eq!(o["counter"], "global_reads");
        assert_eq!(
            (o["used"].as_u64(), o["budget"].as_u64()),
            (Some(3), Some(2))
        );
        assert_eq!(o["block"], serde_json::json!([0, 0, 0]));
        assert_eq!(o["thread"], serde_json::json!([2, 0, 0]));
        let file = "puzzles/09_pooling.cu";
        assert_eq!(
            o["lines"],
            serde_json::json!([
                {"file": file, "line": 5, "count": 1},
                {"file": file, "line": 6, "count": 1},
                {"file": file, "line": 7, "count": 1},
            ])
        );
        // The counts add up to the table's figure, which is the test's counter.
        let sum: u64 = o["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["count"].as_u64().unwrap())
            .sum();
        assert_eq!(Some(sum), t["counters"]["global_reads"].as_u64());
    }
}

/// Map (puzzle 1) with the answer for `a = 0, 1, 2, 3` written in: the fixed test passes,
/// the random-input variant fails.
const HARD_CODED_MAP: &str = "extern \"C\" __global__ void map(float* out, const float* a) {\n    int local_i = threadIdx.x;\n    out[local_i] = local_i + 10.0f;\n}\n";

#[test]
fn a_differing_output_shows_the_tests_inputs_beside_it() {
    let (_dir, ws) = workspace();
    keep_first(&ws, 6);

    // Puzzle 6's starter writes nothing: its first test's inputs, the first 8 elements.
    let (code, out, err) = stdout_of(in_ws(&ws).args(["run", "6"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains(
            "\n  inputs: a = [0, 1, 2, 3, 4, 5, 6, 7, …] (9 elements), size = 9\n\n  out: 9 of 9 elements differ\n"
        ),
        "{out}"
    );
    // `-v`: all of them.
    let (_, out, _) = stdout_of(in_ws(&ws).args(["run", "-v", "6"]));
    assert!(
        out.contains("\n  inputs: a = [0, 1, 2, 3, 4, 5, 6, 7, 8] (9 elements), size = 9\n"),
        "{out}"
    );

    // The random variant shows the random values it ran on: each is its expected output - 10.
    std::fs::write(ws.join("puzzles/01_map.cu"), HARD_CODED_MAP).unwrap();
    let (code, out, err) = stdout_of(in_ws(&ws).args(["run", "1"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("in test \"4 elements, 4 threads (random inputs)\":\n  inputs: a = ["),
        "{out}"
    );
    let line = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("inputs: a = ["))
        .unwrap_or_else(|| panic!("no inputs line:\n{out}"));
    let shown: Vec<f64> = line
        .trim_end_matches(']')
        .split(", ")
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{v} in:\n{out}")))
        .collect();
    let expected: Vec<f64> = out
        .lines()
        .skip_while(|l| !l.contains("i   expected   got"))
        .skip(1)
        .take(4)
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            cells[1]
                .parse()
                .unwrap_or_else(|_| panic!("{l} in:\n{out}"))
        })
        .collect();
    assert_eq!(shown.len(), 4, "{out}");
    assert_eq!(
        shown.iter().map(|a| a + 10.0).collect::<Vec<_>>(),
        expected,
        "{out}"
    );
    assert_ne!(shown, [0.0, 1.0, 2.0, 3.0], "{out}");
}

#[test]
fn init_writes_a_gitignore_that_keeps_what_gpuzzle_writes_out_of_git() {
    let (_dir, ws) = workspace();
    let ignore = std::fs::read_to_string(ws.join(".gitignore")).unwrap();
    for line in [
        ".gpuzzle/state.lock",
        ".gpuzzle/index.json",
        ".gpuzzle/pictures/",
        ".gpuzzle/backup/",
    ] {
        assert!(ignore.lines().any(|l| l == line), "{line}: {ignore}");
    }
    // What a learner's first minutes write: the lock, a picture, a backup (the index only
    // once the puzzle files have settled, so git is asked about its name below).
    in_ws(&ws).args(["run", "1", "--draw"]).assert().code(1);
    std::fs::write(ws.join("puzzles/01_map.cu"), "// my attempt\n").unwrap();
    in_ws(&ws).args(["reset", "1"]).assert().success();
    for name in ["state.lock", "pictures", "backup"] {
        let path = ws.join(".gpuzzle").join(name);
        assert!(path.exists(), "{} was written", path.display());
    }
    // Git itself agrees, where it is installed.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&ws)
            .output()
    };
    if git(&["init", "-q"]).is_ok_and(|o| o.status.success()) {
        let out = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
        let listed = String::from_utf8_lossy(&out.stdout);
        assert!(listed.contains("puzzles/01_map.cu"), "{listed}");
        for name in ["state.lock", "index.json", "pictures/", "backup/"] {
            assert!(!listed.contains(&format!(".gpuzzle/{name}")), "{listed}");
        }
        for path in [
            ".gpuzzle/index.json",
            ".gpuzzle/state.lock",
            ".gpuzzle/pictures/01_map-test1.svg",
            ".gpuzzle/backup/01_map.cu.20260101T000000Z",
        ] {
            let ignored = git(&["check-ignore", "-q", "--no-index", path]).unwrap();
            assert!(ignored.status.success(), "{path} is not ignored");
        }
    }
}

#[test]
fn init_appends_only_the_missing_lines_to_an_existing_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join(".gitignore"), "notes/\n.gpuzzle/index.json\n").unwrap();
    let (code, out, _) = stdout_of(gpuzzle().arg("init").arg(&ws));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Added to your .gitignore"), "{out}");
    assert!(out.contains(".gpuzzle/state.lock"), "{out}");
    let ignore = std::fs::read_to_string(ws.join(".gitignore")).unwrap();
    assert!(
        ignore.starts_with("notes/\n.gpuzzle/index.json\n"),
        "{ignore}"
    );
    assert_eq!(ignore.matches(".gpuzzle/index.json").count(), 1, "{ignore}");
    assert!(ignore.lines().any(|l| l == ".gpuzzle/backup/"), "{ignore}");
}

#[test]
fn a_reset_whose_backup_cannot_be_written_keeps_the_file_and_says_so() {
    let (_dir, ws) = workspace();
    let file = ws.join("puzzles/01_map.cu");
    std::fs::write(&file, "// my attempt\n").unwrap();
    // A file where the backup folder should be: the backup cannot be written.
    std::fs::create_dir_all(ws.join(".gpuzzle")).unwrap();
    std::fs::write(ws.join(".gpuzzle/backup"), "in the way").unwrap();
    let (code, _, err) = stdout_of(in_ws(&ws).args(["reset", "1"]));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot write the backup"), "{err}");
    assert!(
        err.contains(
            "01_map.cu is untouched (the starter was not put back), and no backup was made"
        ),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "// my attempt\n");
    assert_eq!(
        std::fs::read_to_string(ws.join(".gpuzzle/backup")).unwrap(),
        "in the way"
    );
}

/// A bare `gpuzzle` picks up where the learner left off: `run` on the first puzzle not passed
/// yet; outside a workspace it prints the help and how to make one, and is no error.
#[test]
fn a_bare_gpuzzle_resumes_the_current_puzzle() {
    let (_dir, ws) = workspace();
    keep_first(&ws, 3);
    std::fs::write(
        ws.join("puzzles/01_map.cu"),
        repo_file("solutions/01_map.cu"),
    )
    .unwrap();
    in_ws(&ws).arg("run").arg("1").assert().success();
    let (code, out, err) = stdout_of(&mut in_ws(&ws));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.starts_with("Puzzle 2 · Zip"), "{out}");
    assert!(err.contains("the first puzzle not passed yet"), "{err}");

    let elsewhere = tempfile::tempdir().unwrap();
    let (code, out, _) = stdout_of(&mut in_ws(elsewhere.path()));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Usage: gpuzzle"), "{out}");
    assert!(
        out.contains("`gpuzzle init puzzles` makes a workspace"),
        "{out}"
    );
}
