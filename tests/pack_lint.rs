//! `gpuzzle lint .` on this repository's own pack: every solution passes (the `[unseen]` test
//! included), every starter fails cleanly without NVRTC warnings, every lazy kernel in
//! `solutions/lazy/` fails, the tests cover what each puzzle `teaches`, and the descriptions'
//! numbers match the TOML. Needs NVRTC.

use assert_cmd::Command;

#[test]
fn the_pack_passes_its_own_lint() {
    let out = Command::cargo_bin("gpuzzle")
        .expect("binary builds")
        .env("NO_COLOR", "1")
        .env_remove("GPUZZLE_PUZZLES")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["lint", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("all ok"), "{stdout}");
}
