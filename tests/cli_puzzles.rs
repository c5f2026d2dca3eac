//! The learner's commands through the real binary, on the real puzzle pack.
//! These need NVRTC (`pip install nvidia-cuda-nvrtc-cu12`); without it they fail and say so.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    // These check the emulator's diagnostics, which a GPU run does not have: pin the backend.
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// Run in the repository (its puzzles/ and solutions/).
fn in_repo() -> Command {
    let mut c = gpuzzle();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

/// A fresh workspace made by `gpuzzle init`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    gpuzzle()
        .arg("init")
        .arg(dir.path().join("ws"))
        .assert()
        .success()
        .stdout(predicate::str::contains("gpuzzle run 1"));
    dir
}

/// How many puzzles the repository's pack has (other puzzles join it over time).
fn pack_size() -> usize {
    std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "toml"))
        })
        .count()
}

/// The pack's reference solution `file` (the repository's solutions/: a learner's workspace
/// has none).
fn solution(file: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("solutions")
            .join(file),
    )
    .unwrap()
}

fn in_ws(dir: &Path) -> Command {
    let mut c = gpuzzle();
    c.current_dir(dir.join("ws"));
    c
}

#[test]
fn every_solution_passes_every_test_within_budget() {
    let out = in_repo()
        .args(["check", "--all", "--solutions", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["failed"], 0, "{v:#}");
    let puzzles = v["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), pack_size());
    for p in puzzles {
        let tests = p["tests"].as_array().unwrap();
        assert!(
            tests.iter().any(|t| t["random"] == true),
            "{} has a random variant",
            p["slug"]
        );
        for t in tests {
            assert_eq!(t["passed"], true, "{} / {}", p["slug"], t["name"]);
            assert_eq!(
                t["diagnostics"].as_array().unwrap().len(),
                0,
                "{} / {}",
                p["slug"],
                t["name"]
            );
            // The test's counters, or each kernel's in a multi-launch puzzle.
            let mut uses = vec![(&t["counters"], &t["budget"])];
            for k in t["kernels"].as_array().into_iter().flatten() {
                uses.push((&k["counters"], &k["budget"]));
            }
            for (counters, budgets) in uses {
                for (k, budget) in budgets.as_object().unwrap() {
                    if let Some(used) = counters[k].as_u64() {
                        assert!(used <= budget.as_u64().unwrap(), "{} {k}", p["slug"]);
                    }
                }
            }
            for f in t["perf"].as_array().into_iter().flatten() {
                assert!(
                    f["value"].as_f64().unwrap() <= f["budget"].as_f64().unwrap(),
                    "{} {}",
                    p["slug"],
                    f["kind"]
                );
            }
        }
    }
}

#[test]
fn every_untouched_starter_fails_cleanly() {
    let out = in_repo()
        .args(["check", "--all", "--format", "json"])
        .env("GPUZZLE_PUZZLES", "")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v = json_of(&out.stdout);
    assert_eq!(v["passed"], 0);
    for p in v["puzzles"].as_array().unwrap() {
        assert_eq!(p["passed"], false, "{}", p["slug"]);
        assert!(
            p.get("compile_error").is_none(),
            "starter of {} must compile: {}",
            p["slug"],
            p["compile_error"]
        );
        for t in p["tests"].as_array().unwrap() {
            assert!(t.get("error").is_none(), "{}: {}", p["slug"], t["error"]);
        }
    }
}

#[test]
fn check_prints_a_table_and_junit() {
    in_repo()
        .args(["check", "1", "map-2d", "--solutions"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("reference solutions")
                .and(predicate::str::contains("2 of 2 passed")),
        );
    in_repo()
        .args(["check", "9", "--format", "junit"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("<testsuites").and(predicate::str::contains("<failure")));
}

#[test]
fn run_explains_a_failure_and_a_pass() {
    in_repo().args(["run", "9"]).assert().code(1).stdout(
        predicate::str::contains("Puzzle 9 · Pooling")
            .and(predicate::str::contains("gpuzzle hint 9"))
            .and(predicate::str::contains("expected")),
    );
    in_repo()
        .args(["run", "pooling", "--solution"])
        .assert()
        .success()
        .stdout(predicate::str::contains("PASSED").and(predicate::str::contains("gpuzzle run 10")));
}

#[test]
fn run_reports_a_planted_race_with_its_line() {
    let dir = workspace();
    let file = dir.path().join("ws/puzzles/09_pooling.cu");
    // The solution without its __syncthreads(): line 11 reads what other threads wrote on line 8.
    std::fs::write(
        &file,
        "extern \"C\" __global__ void pooling(float* out, const float* a, int size) {\n\
         \x20   __shared__ float cache[TPB];\n\
         \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   int local_i = threadIdx.x;\n\
         \x20   if (i < size) {\n\
         \x20       cache[local_i] = a[i];\n\
         \x20   }\n\
         \x20   if (i < size) {\n\
         \x20       float sum = cache[local_i];\n\
         \x20       if (local_i >= 1) sum += cache[local_i - 1];\n\
         \x20       if (local_i >= 2) sum += cache[local_i - 2];\n\
         \x20       out[i] = sum;\n\
         \x20   }\n\
         }\n",
    )
    .unwrap();
    in_ws(dir.path())
        .args(["run", "9"])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("error[shared-race]")
                .and(predicate::str::contains("09_pooling.cu:10")),
        );
}

#[test]
fn hints_come_one_at_a_time_and_are_remembered() {
    let dir = workspace();
    in_ws(dir.path())
        .args(["hint", "9"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Hint 1 of 3"));
    in_ws(dir.path())
        .args(["hint", "9"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Hint 2 of 3"));
    in_ws(dir.path())
        .args(["hint", "9", "--all"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Hint 3 of 3"));
}

#[test]
fn list_shows_progress_after_a_run() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("ws/puzzles/01_map.cu"),
        solution("01_map.cu"),
    )
    .unwrap();
    in_ws(dir.path()).args(["run", "1"]).assert().success();
    in_ws(dir.path()).args(["run", "2"]).assert().code(1);
    in_ws(dir.path()).arg("list").assert().success().stdout(
        predicate::str::contains(format!("1/{}", pack_size()))
            .and(predicate::str::contains(" 1 ✓ Map"))
            .and(predicate::str::contains(" 2 ✗ Zip")),
    );
}

#[test]
fn show_describes_the_puzzle_and_its_spec() {
    in_repo()
        .args(["show", "14", "--spec"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Matrix multiply")
                .and(predicate::str::contains("grid 3×3 of blocks 3×3"))
                .and(predicate::str::contains("Spec")),
        );
}

#[test]
fn reset_backs_up_the_learners_work() {
    let dir = workspace();
    let file = dir.path().join("ws/puzzles/03_guard.cu");
    std::fs::write(&file, "// my precious attempt\n").unwrap();
    in_ws(dir.path())
        .args(["reset", "3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Saved your"));
    let backups: Vec<_> = std::fs::read_dir(dir.path().join("ws/.gpuzzle/backup"))
        .unwrap()
        .collect();
    assert_eq!(backups.len(), 1);
    let saved = std::fs::read_to_string(backups[0].as_ref().unwrap().path()).unwrap();
    assert_eq!(saved, "// my precious attempt\n");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("FILL ME IN"));
}

#[test]
fn init_refuses_to_overwrite() {
    let dir = workspace();
    let out = gpuzzle()
        .arg("init")
        .arg(dir.path().join("ws"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // A count and the first few paths, not every path; and how to add CI instead.
    let files = 2 * pack_size();
    assert!(
        err.contains(&format!("refusing to overwrite {files} existing files: ")),
        "{err}"
    );
    assert!(err.contains("01_map") && err.contains(" more\n"), "{err}");
    assert!(err.len() < 600, "{} characters: {err}", err.len());
    assert!(err.contains("--ci SERVICE --ci-only"), "{err}");
    // Which adds the CI files alone, and refuses them the second time.
    in_ws(dir.path())
        .args(["init", ".", "--ci", "classroom50", "--ci-only"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "gh teacher autograder set-default",
        ));
    assert!(dir.path().join("ws/classroom50/autograder.py").is_file());
    in_ws(dir.path())
        .args(["init", ".", "--ci", "classroom50", "--ci-only"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("2 existing files"));
}

#[test]
fn reset_restores_a_broken_puzzle_file_after_backing_it_up() {
    let dir = workspace();
    let toml = dir.path().join("ws/puzzles/05_broadcast.toml");
    let original = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, "id = 5\ntitle = \"Broadcast\n").unwrap();
    in_ws(dir.path()).args(["run", "5"]).assert().code(2);
    in_ws(dir.path())
        .args(["reset", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Restored the puzzle file puzzles/05_broadcast.toml.",
        ));
    assert_eq!(std::fs::read_to_string(&toml).unwrap(), original);
    let saved: Vec<String> = std::fs::read_dir(dir.path().join("ws/.gpuzzle/backup"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(saved, vec!["id = 5\ntitle = \"Broadcast\n".to_string()]);
    in_ws(dir.path()).args(["run", "5"]).assert().code(1);
}

#[test]
fn an_empty_kernel_file_names_gpuzzle_reset() {
    let dir = workspace();
    std::fs::write(dir.path().join("ws/puzzles/04_map_2d.cu"), "").unwrap();
    in_ws(dir.path())
        .args(["run", "4"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "`gpuzzle reset 4` puts the starter back",
        ));
}

#[test]
fn a_broken_puzzle_file_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("puzzles");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("01_x.toml"), "id = 1\nslug = \"x\"\ntitle = \"X\"\npart = \"P\"\nkernel = \"x\"\nparams = [\"out\"]\ndescription = \"d\"\nspec = \"\"\nbudgett = 3\n").unwrap();
    std::fs::write(p.join("01_x.cu"), "").unwrap();
    gpuzzle()
        .current_dir(dir.path())
        .args(["run", "1"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("01_x.toml")
                .and(predicate::str::contains(":9"))
                .and(predicate::str::contains("budgett")),
        );
    // Through --puzzles from elsewhere, `list` shows the broken puzzle with its error.
    gpuzzle()
        .args(["list", "--puzzles"])
        .arg(&p)
        .assert()
        .success()
        .stdout(
            predicate::str::contains(" 1 ! X (broken puzzle file")
                .and(predicate::str::contains("01_x.toml:9: error: `budgett`")),
        );
}

#[test]
fn a_missing_kernel_file_says_how_to_restore_it() {
    let dir = workspace();
    std::fs::remove_file(dir.path().join("ws/puzzles/05_broadcast.cu")).unwrap();
    in_ws(dir.path())
        .args(["run", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("gpuzzle reset 5"));
}

#[test]
fn a_wrong_kernel_name_is_explained() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("ws/puzzles/01_map.cu"),
        "extern \"C\" __global__ void mapp(float* out, const float* a) {}\n",
    )
    .unwrap();
    in_ws(dir.path())
        .args(["run", "1"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "puzzles/01_map.cu has no kernel `map`; it defines `mapp`: rename it back",
        ));
}

#[test]
fn a_compile_error_points_at_the_line() {
    let dir = workspace();
    std::fs::write(dir.path().join("ws/puzzles/01_map.cu"), "extern \"C\" __global__ void map(float* out, const float* a) {\n  out[threadIdx.x] = b;\n}\n").unwrap();
    in_ws(dir.path())
        .args(["run", "1"])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("01_map.cu")
                .and(predicate::str::contains("2"))
                .and(predicate::str::contains("\"b\" is undefined")),
        );
}

#[test]
fn unknown_puzzle_lists_valid_names() {
    in_repo()
        .args(["run", "99"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pooling"));
}

#[test]
fn doctor_reports_nvrtc_and_backend() {
    in_repo()
        .arg("doctor")
        .assert()
        .success()
        .stdout(predicate::str::contains("NVRTC").and(predicate::str::contains("backend")));
}

#[test]
fn completions_are_generated() {
    gpuzzle()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("gpuzzle"));
}

#[test]
fn watch_reruns_on_save_and_moves_on() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    use std::time::{Duration, Instant};
    let dir = workspace();
    let ws = dir.path().join("ws");
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("gpuzzle"))
        .args(["watch", "1"])
        .current_dir(&ws)
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    let wait_for = |needle: &str, seen: &mut String| {
        let start = Instant::now();
        while !seen.contains(needle) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no `{needle}` in:\n{seen}"
            );
            if let Ok(s) = rx.recv_timeout(Duration::from_millis(200)) {
                seen.push_str(&s);
            }
        }
    };
    wait_for("Watching", &mut seen);
    std::fs::write(ws.join("puzzles/01_map.cu"), solution("01_map.cu")).unwrap();
    wait_for("now watching", &mut seen);
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen.contains("PASSED"), "{seen}");
}

#[test]
fn run_reports_threads_adding_into_one_global_element_as_a_race() {
    let dir = workspace();
    let file = dir.path().join("ws/puzzles/10_dot_product.cu");
    // Every thread adds into out[0]: the output is right on the emulator (threads run one after
    // another) but not on a GPU, so the verdict must fail on the race at line 3.
    std::fs::write(
        &file,
        "extern \"C\" __global__ void dot_product(float* out, const float* a, const float* b, int size) {\n\
         \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   if (i < size) out[0] += a[i] * b[i];\n\
         }\n",
    )
    .unwrap();
    in_ws(dir.path())
        .args(["run", "10"])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("error[global-race]")
                .and(predicate::str::contains("10_dot_product.cu:3"))
                .and(predicate::str::contains("out[0]"))
                .and(predicate::str::contains("atomicAdd")),
        );
    let out = in_ws(dir.path())
        .args(["check", "10", "--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    let test = &v["puzzles"][0]["tests"][0];
    assert_eq!(test["passed"], false);
    let race = test["diagnostics"]
        .as_array()
        .and_then(|ds| ds.iter().find(|d| d["kind"] == "global-race"))
        .unwrap_or_else(|| panic!("no global-race in {test}"));
    assert_eq!(race["line"], 3);
    assert_eq!(race["severity"], "error");
}

/// Write `source` over the learner's file `file` (in `puzzles/`) of a fresh workspace, run
/// puzzle `id` there, and return the workspace and the report.
fn run_planted(id: &str, file: &str, source: &str) -> (tempfile::TempDir, String) {
    let dir = workspace();
    std::fs::write(dir.path().join("ws/puzzles").join(file), source).unwrap();
    let out = in_ws(dir.path()).args(["run", id]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, String::from_utf8(out.stdout).unwrap())
}

/// The report's row for `label` in the memory table, split into words.
fn table_row(report: &str, label: &str) -> Vec<String> {
    report
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` row in:\n{report}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_naive_transpose_fails_the_sectors_budget_at_its_line() {
    // Correct output; the write on line 5 goes down a column of `out`: one sector per thread.
    let (dir, report) = run_planted(
        "34",
        "34_coalesced_transpose.cu",
        "extern \"C\" __global__ void transpose(float* out, const float* a, int rows, int cols) {\n\
         \x20   int col = blockIdx.x * TILE + threadIdx.x;\n\
         \x20   int row = blockIdx.y * TILE + threadIdx.y;\n\
         \x20   if (row < rows && col < cols) {\n\
         \x20       out[col * rows + row] = a[row * cols + col];\n\
         \x20   }\n\
         }\n",
    );
    assert!(!report.contains("elements differ"), "{report}");
    let row = table_row(&report, "sectors per access");
    let used: f64 = row[3].parse().unwrap();
    assert!(used > 20.0, "{report}");
    assert_eq!(row[4], "5", "{report}");
    assert!(report.contains("worst: line 5"), "{report}");
    assert!(
        report.contains("line 5 of `transpose` touches") && report.contains("coalesce"),
        "{report}"
    );
    // `check`'s one-line reason names the figure too.
    in_ws(dir.path())
        .args(["check", "34"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("over budget: sectors_per_access"));
    // And the reference solution in the same workspace passes.
    std::fs::write(
        dir.path().join("ws/puzzles/34_coalesced_transpose.cu"),
        solution("34_coalesced_transpose.cu"),
    )
    .unwrap();
    in_ws(dir.path()).args(["run", "34"]).assert().success();
}

#[test]
fn an_unpadded_tile_fails_the_bank_conflict_budget_at_its_line() {
    let solution = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/35_bank_conflict_free_transpose.cu"),
    )
    .unwrap();
    let unpadded = solution.replace("tile[TILE][TILE + 1]", "tile[TILE][TILE]");
    assert_ne!(unpadded, solution);
    let line = unpadded
        .lines()
        .position(|l| l.contains("= tile[threadIdx.x][threadIdx.y]"))
        .unwrap()
        + 1;
    let (_dir, report) = run_planted("35", "35_bank_conflict_free_transpose.cu", &unpadded);
    let row = table_row(&report, "bank-conflict ways");
    assert_eq!(row[2..5], ["32", "1", "worst:"], "{report}");
    assert!(report.contains(&format!("worst: line {line}")), "{report}");
    assert!(report.contains("32-way shared bank conflicts"), "{report}");
    // The fix in the learner's own declaration: an odd row width.
    assert!(
        report.contains("`__shared__ float tile[TILE][TILE + 1];`"),
        "{report}"
    );
    assert!(
        report.contains("all 32 lanes land in the same bank"),
        "{report}"
    );
    // The sectors budget holds: the tile keeps global memory coalesced.
    let sectors = table_row(&report, "sectors per access");
    assert!(sectors[3].parse::<f64>().unwrap() <= 5.0, "{report}");
}

#[test]
fn check_json_carries_perf_figures_and_kernels_only_where_they_apply() {
    let out = in_repo()
        .args(["check", "1", "21", "35", "--solutions", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&out.stdout);
    assert_eq!(v["passed"], 3, "{v:#}");
    let test = |i: usize| &v["puzzles"][i]["tests"][0];
    assert!(test(0).get("perf").is_none() && test(0).get("kernels").is_none());
    let kernels: Vec<&str> = test(1)["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(kernels, ["scan_blocks", "scan_block_sums", "add_offsets"]);
    let perf = test(2)["perf"].as_array().unwrap();
    let kinds: Vec<&str> = perf.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["sectors_per_access", "bank_ways"]);
    assert_eq!(perf[1]["value"], 1.0);
    assert!(perf[1]["line"].as_u64().is_some());
}

#[test]
fn a_fault_in_one_launch_of_several_names_its_kernel() {
    let solution = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/21_multi_block_scan.cu"),
    )
    .unwrap();
    // add_offsets without its bound: the last block's threads past `size` write out of bounds.
    let planted = solution.replace("if (i < size && blockIdx.x > 0)", "if (blockIdx.x > 0)");
    assert_ne!(planted, solution);
    let line = planted
        .lines()
        .position(|l| l.contains("out[i] += block_sums"))
        .unwrap()
        + 1;
    let (_dir, report) = run_planted("21", "21_multi_block_scan.cu", &planted);
    assert!(report.contains("error[out-of-bounds]"), "{report}");
    assert!(
        report.contains("in `add_offsets` (launch 3 of 3)"),
        "{report}"
    );
    assert!(
        report.contains(&format!("21_multi_block_scan.cu:{line}")),
        "{report}"
    );
    // The memory tables are per kernel.
    assert!(
        report.contains("scan_blocks: memory per thread"),
        "{report}"
    );
    assert!(
        report.contains("add_offsets: memory per thread"),
        "{report}"
    );
}

#[test]
fn list_groups_by_part_and_show_draws_each_launch() {
    let out = in_repo().arg("list").output().unwrap();
    let list = String::from_utf8(out.stdout).unwrap();
    let basics = list.find("\nThreads\n").expect("a Threads heading");
    let scans = list.find("\nScans\n").expect("a Scans heading");
    let perf = list.find("\nPerformance\n").expect("a Performance heading");
    assert!(basics < scans && scans < perf, "{list}");
    assert!(list[scans..perf].contains("Multi-block scan"), "{list}");
    let show = in_repo().args(["show", "21"]).output().unwrap();
    let show = String::from_utf8(show.stdout).unwrap();
    let at = |needle: &str| {
        show.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {show}"))
    };
    assert!(at("launch 1 of 3: scan_blocks") < at("launch 2 of 3: scan_block_sums"));
    assert!(at("launch 2 of 3: scan_block_sums") < at("launch 3 of 3: add_offsets"));
    assert!(show.contains("grid 2 of blocks 64 = 128 threads"), "{show}");
    assert!(show.contains("block_sums: f32 [2] scratch"), "{show}");
    assert!(
        show.contains(
            "extern \"C\" __global__ void scan_block_sums(float* block_sums, int num_blocks)"
        ),
        "{show}"
    );
}

#[test]
fn a_counter_overrun_in_one_kernel_of_several_names_it() {
    let solution = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/21_multi_block_scan.cu"),
    )
    .unwrap();
    // scan_blocks reads `a` a second time: correct output, 2 global reads where 1 is allowed.
    let planted = solution.replacen("out[i] = v;", "out[i] = v + a[i] - a[i];", 1);
    assert_ne!(planted, solution);
    let (_dir, report) = run_planted("21", "21_multi_block_scan.cu", &planted);
    assert!(
        report.contains("2 global reads per thread in `scan_blocks` where the budget allows 1"),
        "{report}"
    );
    let scan = report.find("scan_blocks: memory per thread").unwrap();
    let sums = report.find("scan_block_sums: memory per thread").unwrap();
    assert_eq!(
        table_row(&report[scan..sums], "global reads")[2..4],
        ["2", "1"],
        "{report}"
    );
}

#[test]
fn check_format_github_annotates_the_learners_lines_and_writes_a_summary() {
    let dir = workspace();
    let ws = dir.path().join("ws");
    std::fs::write(
        ws.join("puzzles/10_dot_product.cu"),
        "extern \"C\" __global__ void dot_product(float* out, const float* a, const float* b, int size) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < size) out[0] += a[i] * b[i];\n}\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("puzzles/01_map.cu"),
        "extern \"C\" __global__ void map(float* out, const float* a, int size) {\n    out[threadIdx.x] = x;\n}\n",
    )
    .unwrap();
    // Worked on, but wrong (an untouched starter would be "not started", not annotated).
    std::fs::write(
        ws.join("puzzles/02_zip.cu"),
        "extern \"C\" __global__ void zip(float* out, const float* a, const float* b) {\n    int i = threadIdx.x;\n    out[i] = a[i] + a[i];\n}\n",
    )
    .unwrap();
    let summary = dir.path().join("summary.md");
    let out = in_ws(dir.path())
        .args(["check", "1", "2", "10", "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with(
            "::error file=puzzles/01_map.cu,line=2,col=24,title=Puzzle 1 (map)%3A does not compile::identifier \"x\" is undefined"
        )),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with(
            "::error file=puzzles/10_dot_product.cu,line=3,title=Puzzle 10 (dot-product)%3A global-race::"
        )),
        "{text}"
    );
    // The fixed test and its random variant are one annotation.
    let zip: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("::error file=puzzles/02_zip.cu"))
        .collect();
    assert_eq!(zip.len(), 1, "{text}");
    assert!(
        zip[0].contains("wrong output::`out` differs from the spec"),
        "{text}"
    );
    assert_eq!(lines.last(), Some(&"gpuzzle: 0 of 3 puzzles pass"));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("## gpuzzle: 0 of 3 puzzles pass"), "{md}");
    assert!(
        md.contains("| 10 | dot-product | 0/5 | over: global reads, required shared reads"),
        "{md}"
    );
    assert!(
        md.contains("| 1 | map | – | – | ❌ does not compile"),
        "{md}"
    );
}

#[test]
fn run_shows_nvrtc_warnings_with_their_source_line() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("ws/puzzles/09_pooling.cu"),
        "extern \"C\" __global__ void pooling(float* out, const float* a, int size) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float s = 0.0f;\n    for (int k = 0; k < 3; k * 2) { s += 1.0f; break; }\n    if (i < size) out[i] = a[i] + s;\n}\n",
    )
    .unwrap();
    let out = in_ws(dir.path()).args(["run", "9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("puzzles/09_pooling.cu:4:") && text.contains("expression has no effect"),
        "{text}"
    );
    assert!(
        text.contains("  4 |     for (int k = 0; k < 3; k * 2)"),
        "{text}"
    );
}

#[test]
fn check_shows_nvrtc_warnings_after_the_table() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("ws/puzzles/09_pooling.cu"),
        "extern \"C\" __global__ void pooling(float* out, const float* a, int size) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float s = 0.0f;\n    for (int k = 0; k < 3; k * 2) { s += 1.0f; break; }\n    if (i < size) out[i] = a[i] + s;\n}\n",
    )
    .unwrap();
    let out = in_ws(dir.path()).args(["check", "9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let table_end = text.find("Puzzle 9 (pooling): NVRTC warns").expect(&text);
    assert!(text[..table_end].contains("pooling"), "{text}");
    assert!(
        text[table_end..].contains("expression has no effect")
            && text[table_end..].contains("  4 |     for (int k = 0; k < 3; k * 2)"),
        "{text}"
    );
    assert_eq!(text.matches("NVRTC warns").count(), 1, "{text}");
}

#[test]
fn run_without_a_puzzle_grades_the_first_not_passed_and_reset_clears_its_pass() {
    let dir = workspace();
    let ws = dir.path().join("ws");
    // Nothing passed: `run` is puzzle 1.
    in_ws(dir.path())
        .arg("run")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Puzzle 1 · Map"));
    std::fs::write(ws.join("puzzles/01_map.cu"), solution("01_map.cu")).unwrap();
    in_ws(dir.path()).args(["run", "1"]).assert().success();
    // Puzzle 1 passed: `run` moves on to puzzle 2.
    in_ws(dir.path())
        .arg("run")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Puzzle 2 · Zip"));
    // `reset` brings the starter back and the pass mark goes with it.
    in_ws(dir.path()).args(["reset", "1"]).assert().success();
    let list = in_ws(dir.path()).arg("list").output().unwrap();
    let text = String::from_utf8(list.stdout).unwrap();
    assert!(text.contains(" 0/"), "the pass was cleared: {text}");
    in_ws(dir.path())
        .arg("run")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Puzzle 1 · Map"));
}

#[test]
fn the_last_hint_says_what_is_left_and_a_typo_gets_a_suggestion() {
    let dir = workspace();
    for _ in 0..2 {
        in_ws(dir.path()).args(["hint", "9"]).assert().success();
    }
    in_ws(dir.path())
        .args(["hint", "9"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Hint 3 of 3"))
        .stdout(predicate::str::contains("No more hints for puzzle 9"))
        .stdout(predicate::str::contains("gpuzzle show 9 --spec"));
    in_ws(dir.path())
        .args(["run", "poolng"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `9 pooling`?"));
}
