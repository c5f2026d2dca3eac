//! Racing kernels (tests/kernels/race_shortcut.cu) give the same JSON, diagnostics and their
//! counts of threads included, with the race checker's shortcut for shared reads that change
//! no record (`SharedShadow::settled_read`, and the report memo after it) and without it
//! (`GPUZZLE_RACE_SHORTCUT=off`: every read steps its record and goes through the report
//! path), in lockstep and one thread at a time.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const FILE: &str = "tests/kernels/race_shortcut.cu";

fn exec_once(kernel: &str, block: u32, shortcut: &str, lockstep: &str) -> (i32, Value) {
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-race-shortcut-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_RACE_SHORTCUT", shortcut)
        .env("GPUZZLE_LOCKSTEP", lockstep)
        .args(["exec", FILE, "--kernel", kernel, "--format", "json"])
        .args(["--grid", "2", "--block", &block.to_string()])
        .args(["--arg", "out=f32[128]:zeros", "--arg", "in=f32[64]:arange"])
        .output()
        .expect("run gpuzzle");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    (out.status.code().unwrap_or(-1), v)
}

/// The kernel's shared races, reported alike with and without the shortcut.
fn same_with_and_without(kernel: &str, block: u32) {
    let with = exec_once(kernel, block, "on", "on");
    for (shortcut, lockstep) in [("off", "on"), ("on", "off"), ("off", "off")] {
        let other = exec_once(kernel, block, shortcut, lockstep);
        assert_eq!(
            with, other,
            "{kernel}: shortcut {shortcut}, lockstep {lockstep} differs"
        );
    }
    let (code, v) = with;
    assert_eq!(code, 1, "{kernel}: {v}");
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    assert!(
        diags.iter().any(|d| d["kind"] == "shared-race"),
        "{kernel}: no shared race in {v}"
    );
    // Threads counted again and again: the counts the shortcut must keep.
    assert!(
        diags.iter().any(|d| d["message"]
            .as_str()
            .is_some_and(|m| m.contains("other threads did the same"))),
        "{kernel}: no report counts other threads: {v}"
    );
}

#[test]
fn a_tile_loop_without_its_barrier_reports_alike() {
    same_with_and_without("tile_no_barrier", 64);
}

#[test]
fn half_a_warp_meeting_reports_alike() {
    same_with_and_without("half_warp_sync", 64);
}

#[test]
fn an_early_window_in_a_partial_warp_reports_alike() {
    same_with_and_without("window_early", 48);
}
