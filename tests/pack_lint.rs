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

/// The puzzles whose lesson is a technique the counters can see (issue 34): each declares a
/// `[technique]` whose counters its `require` names (or, for a counter whose technique shows as
/// fewer, its `block_budget`: 36's load and store instructions, 16's warps writing shared memory).
const GRADED_ON_TECHNIQUE: [u32; 20] = [
    16, 27, 28, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52,
];

/// The puzzle file `puzzles/NN_*.toml` of this repository.
fn puzzle_file(id: u32) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
    let prefix = format!("{id:02}_");
    std::fs::read_dir(&dir)
        .expect("puzzles/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(&prefix) && name.ends_with(".toml")
        })
        .unwrap_or_else(|| panic!("no puzzles/{prefix}*.toml"))
}

#[test]
fn every_technique_puzzle_declares_a_technique_that_it_requires() {
    for id in GRADED_ON_TECHNIQUE {
        let path = puzzle_file(id);
        let text = std::fs::read_to_string(&path).expect("readable");
        let t: toml::Value = toml::from_str(&text).expect("valid TOML");
        let technique = t
            .get("technique")
            .and_then(|v| v.as_table())
            .unwrap_or_else(|| panic!("puzzle {id} declares no [technique]"));
        assert!(
            technique.get("name").and_then(|n| n.as_str()).is_some(),
            "puzzle {id}: [technique] has no name"
        );
        let counters = technique
            .get("counters")
            .and_then(|c| c.as_array())
            .unwrap_or_else(|| panic!("puzzle {id}: [technique] has no counters"));
        assert!(!counters.is_empty(), "puzzle {id}: no technique counters");
        // A top-level `require`: `[technique]` must not have swallowed it.
        let require = t.get("require").and_then(|r| r.as_table());
        let block_budget = t.get("block_budget").and_then(|r| r.as_table());
        for c in counters {
            let c = c.as_str().expect("a counter name");
            let fewer =
                gpuzzle::emu::technique::Family::from_name(c).is_some_and(|f| f.shown_by_fewer());
            if fewer {
                // Shown by running fewer (wide loads, warps left idle): a block budget grades it.
                let n = block_budget
                    .and_then(|r| r.get(c))
                    .and_then(|n| n.as_integer());
                assert!(
                    n.is_some(),
                    "puzzle {id}: the technique's counter `{c}` is not budgeted per block"
                );
                continue;
            }
            // A whole number above 0, or an expression worked out per test (`"K / 16 * 128"`).
            let n = require.and_then(|r| r.get(c));
            assert!(
                n.is_some_and(|n| n.as_integer().is_some_and(|n| n > 0) || n.is_str()),
                "puzzle {id}: the technique's counter `{c}` is not required (require = {require:?})"
            );
        }
    }
}

/// The same check as `gpuzzle lint` makes it: a puzzle of the pack whose technique counter is
/// required at 0 is reported, and the real one is not.
#[test]
fn lint_reports_a_technique_that_nothing_requires() {
    let lint = |toml: &str| -> String {
        let dir = tempfile::tempdir().expect("a temp dir");
        let puzzles = dir.path().join("puzzles");
        let solutions = dir.path().join("solutions");
        std::fs::create_dir_all(&puzzles).expect("puzzles/");
        std::fs::create_dir_all(&solutions).expect("solutions/");
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::write(puzzles.join("27_warp_shuffle_sum.toml"), toml).expect("write");
        for (from, to) in [
            ("puzzles/27_warp_shuffle_sum.cu", &puzzles),
            ("solutions/27_warp_shuffle_sum.cu", &solutions),
        ] {
            std::fs::copy(root.join(from), to.join("27_warp_shuffle_sum.cu")).expect("copy");
        }
        let out = Command::cargo_bin("gpuzzle")
            .expect("binary builds")
            .env("NO_COLOR", "1")
            .env_remove("GPUZZLE_PUZZLES")
            .args(["lint", "--format", "json"])
            .arg(dir.path())
            .output()
            .expect("gpuzzle runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let real = std::fs::read_to_string(puzzle_file(27)).expect("readable");
    assert!(
        real.contains("require = { shuffles = 160 }"),
        "27's require moved"
    );
    let ok = lint(&real);
    assert!(!ok.contains("technique-unrequired"), "{ok}");
    let unrequired =
        lint(&real.replace("require = { shuffles = 160 }", "require = { shuffles = 0 }"));
    assert!(unrequired.contains("technique-unrequired"), "{unrequired}");
}
