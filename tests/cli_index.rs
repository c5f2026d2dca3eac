//! `.gpuzzle/index.json`: a command about one puzzle reads only that puzzle's file when the
//! index is up to date, and an edited, broken or unknown file is seen exactly as without it.
//! Runs the reference solution of puzzle 1, so it needs NVRTC like tests/cli_puzzles.rs.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;
use std::time::Duration;

fn gpuzzle(ws: &Path) -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.current_dir(ws)
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// A workspace made by `gpuzzle init`, its files old enough to be indexed (an index is written
/// only once every puzzle file is 2 s old: see `puzzle::index::SETTLE`).
fn settled_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    Command::cargo_bin("gpuzzle")
        .unwrap()
        .arg("init")
        .arg(dir.path().join("ws"))
        .assert()
        .success();
    std::thread::sleep(Duration::from_millis(2100));
    dir
}

/// Rewrite `file` with `from` replaced by `to` (of the same length) and its modification time
/// put back: only the change time, which cannot be set back, tells that it changed.
fn edit_in_place(file: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let before = std::fs::metadata(file).unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{from} in {}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    assert_eq!(std::fs::metadata(file).unwrap().len(), before.len());
}

#[test]
fn an_edited_title_shows_on_the_next_run() {
    let dir = settled_workspace();
    let ws = dir.path().join("ws");
    gpuzzle(&ws)
        .args(["show", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Zip"));
    assert!(
        ws.join(".gpuzzle/index.json").is_file(),
        "the first command indexes the settled workspace"
    );
    gpuzzle(&ws)
        .args(["run", "1", "--solution"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Next: gpuzzle run 2   (Zip)"));

    edit_in_place(
        &ws.join("puzzles/02_zip.toml"),
        "title = \"Zip\"",
        "title = \"Zap\"",
    );
    gpuzzle(&ws)
        .args(["run", "1", "--solution"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Next: gpuzzle run 2   (Zap)"));
    gpuzzle(&ws)
        .args(["show", "zip"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Zap").and(predicate::str::contains("Zip").not()));
}

#[test]
fn a_file_broken_after_indexing_gives_the_same_errors() {
    let dir = settled_workspace();
    let ws = dir.path().join("ws");
    gpuzzle(&ws).args(["show", "3"]).assert().success();
    assert!(ws.join(".gpuzzle/index.json").is_file());

    edit_in_place(&ws.join("puzzles/03_guard.toml"), "title =", "titel =");
    gpuzzle(&ws)
        .args(["show", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("03_guard.toml:3").and(predicate::str::contains("titel")));
    // A misspelt slug is still answered with the closest one.
    gpuzzle(&ws)
        .args(["hint", "zipp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no puzzle `zipp`; did you mean `2 zip`?",
        ));
    // The other puzzles still run, from a fresh index or without one.
    gpuzzle(&ws)
        .args(["run", "1", "--solution"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Next: gpuzzle run 2   (Zip)"));
}

#[test]
fn a_new_puzzle_file_is_found_and_a_removed_one_is_gone() {
    let dir = settled_workspace();
    let ws = dir.path().join("ws");
    gpuzzle(&ws).args(["show", "1"]).assert().success();
    assert!(ws.join(".gpuzzle/index.json").is_file());

    // Puzzle 2 moved to a new file under a new id: puzzle 1's next is 3, 2 is unknown, 99 runs.
    let zip = std::fs::read_to_string(ws.join("puzzles/02_zip.toml")).unwrap();
    std::fs::remove_file(ws.join("puzzles/02_zip.toml")).unwrap();
    std::fs::write(
        ws.join("puzzles/99_zip.toml"),
        zip.replacen("id = 2", "id = 99", 1),
    )
    .unwrap();
    gpuzzle(&ws)
        .args(["run", "1", "--solution"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Next: gpuzzle run 3   (Guard)"));
    gpuzzle(&ws)
        .args(["show", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no puzzle `2`"));
    gpuzzle(&ws)
        .args(["show", "99"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Zip"));
}
