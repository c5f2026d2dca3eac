//! Verdicts independent of the schedule: lockstep (the default) and one thread at a time
//! (`GPUZZLE_LOCKSTEP=off`) must grade every kernel alike: the same tests pass, with the same
//! diagnostics (kind, file, line, block, thread, message). Graded by the real binary,
//! `gpuzzle check --format json` (emulator backend), over a corpus:
//!
//! - `tests/kernels/schedules/NN_*.cu`: kernels written for this, graded against puzzle NN:
//!   `__syncwarp` with partial masks, shuffles with partial masks, ballots in a guard. Each
//!   header says its verdict (`expect: pass|fail`) and, failing, the first diagnostic's kind
//!   (`kind: K`, or `wrong-output`), which both schedules must give;
//! - a fixed sample of `tests/mistakes/*/*.cu` (those about races, barriers and warps: the
//!   first two by name of each puzzle's attempts that use a barrier or a warp collective, or
//!   whose header names such a kind), graded against their puzzles;
//! - the warp, race and bug kernels of `tests/kernels/` run by `gpuzzle exec --format json`
//!   in a full and a partial warp: buffers, counters and diagnostics must be the same.
//!
//! `GPUZZLE_SCHEDULES_ALL=1` grades every attempt of tests/mistakes instead of the sample
//! (minutes). Needs NVRTC (no GPU).

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GPUZZLE_LOCKSTEP");
    c
}

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One kernel file graded against puzzle `puzzle` (its `NN_slug` stem).
struct Entry {
    /// Relative to the crate root, for messages.
    rel: String,
    puzzle: String,
    text: String,
}

impl Entry {
    fn id(&self) -> u32 {
        self.puzzle[..2].parse().expect("a puzzle number")
    }

    /// The value of header key `key` (`// key: value` lines at the top).
    fn header(&self, key: &str) -> Option<String> {
        self.text
            .lines()
            .map_while(|l| l.strip_prefix("// "))
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.trim().to_string())
    }
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    v.sort();
    v
}

fn entry(path: &Path, puzzle: &str) -> Entry {
    Entry {
        rel: path
            .strip_prefix(manifest())
            .unwrap_or(path)
            .display()
            .to_string(),
        puzzle: puzzle.to_string(),
        text: std::fs::read_to_string(path).expect("readable kernel"),
    }
}

/// The puzzle stem (`10_dot_product`) for number `id`.
fn puzzle_stem(id: u32) -> String {
    let prefix = format!("{id:02}_");
    sorted_files(&manifest().join("puzzles"))
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_string))
        .find(|s| s.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no puzzle {id}"))
}

fn own_kernels() -> Vec<Entry> {
    sorted_files(&manifest().join("tests/kernels/schedules"))
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .map(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).expect("a name");
            entry(p, &puzzle_stem(name[..2].parse().expect("NN_ prefix")))
        })
        .collect()
}

/// About races, barriers and warps: the first two of each puzzle's attempts (or every
/// attempt, with `GPUZZLE_SCHEDULES_ALL`).
fn mistakes_sample() -> Vec<Entry> {
    const KINDS: [&str; 5] = [
        "shared-race",
        "global-race",
        "barrier-divergence",
        "warp-sync",
        "uninitialized-read",
    ];
    const CALLS: [&str; 3] = ["__syncthreads", "__syncwarp", "_sync("];
    let all = std::env::var_os("GPUZZLE_SCHEDULES_ALL").is_some();
    let mut out = Vec::new();
    for dir in sorted_files(&manifest().join("tests/mistakes")) {
        if !dir.is_dir() {
            continue;
        }
        let puzzle = dir.file_name().and_then(|n| n.to_str()).expect("a name");
        let picked = sorted_files(&dir)
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "cu"))
            .map(|p| entry(p, puzzle))
            .filter(|e| {
                all || CALLS.iter().any(|c| e.text.contains(c))
                    || e.header("kind")
                        .is_some_and(|k| KINDS.contains(&k.as_str()))
            })
            .take(if all { usize::MAX } else { 2 })
            .collect::<Vec<_>>();
        out.extend(picked);
    }
    out
}

/// What a grading says about one test: passed, and each diagnostic.
type Verdicts = BTreeMap<(u32, String), (bool, Vec<String>)>;

/// Grade `round` (at most one file per puzzle) in a fresh workspace, with lockstep on or off.
fn grade(round: &[&Entry], lockstep: bool) -> Verdicts {
    let ws = tempfile::tempdir().expect("temp dir");
    gpuzzle().args(["init"]).arg(ws.path()).assert().success();
    for e in round {
        std::fs::write(ws.path().join(format!("puzzles/{}.cu", e.puzzle)), &e.text)
            .expect("writable workspace");
    }
    let mut cmd = gpuzzle();
    cmd.current_dir(ws.path())
        .args(["check", "--format", "json"]);
    cmd.args(round.iter().map(|e| e.id().to_string()));
    if !lockstep {
        cmd.env("GPUZZLE_LOCKSTEP", "off");
    }
    let out = cmd.output().expect("gpuzzle runs");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check printed no JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let mut v = Verdicts::new();
    for p in json["puzzles"].as_array().expect("puzzles") {
        let id = p["id"].as_u64().expect("id") as u32;
        let tests = p["tests"].as_array().cloned().unwrap_or_default();
        if tests.is_empty() {
            // Did not compile, or a puzzle-wide error: keep what it said.
            v.insert((id, String::new()), (false, vec![p.to_string()]));
        }
        for t in tests {
            let diags = t["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|d| {
                    format!(
                        "{} at {}:{} block {} thread {}: {}",
                        d["kind"], d["file"], d["line"], d["block"], d["thread"], d["message"]
                    )
                })
                .collect();
            let name = t["name"].as_str().unwrap_or_default().to_string();
            v.insert((id, name), (t["passed"] == true, diags));
        }
    }
    v
}

/// Rounds of at most one file per puzzle, in corpus order.
fn rounds(corpus: &[Entry]) -> Vec<Vec<&Entry>> {
    let mut rounds: Vec<Vec<&Entry>> = Vec::new();
    for e in corpus {
        match rounds
            .iter_mut()
            .find(|r| r.iter().all(|o| o.id() != e.id()))
        {
            Some(r) => r.push(e),
            None => rounds.push(vec![e]),
        }
    }
    rounds
}

/// Grade the corpus both ways; every difference, and each file's lockstep verdicts.
fn both_ways(corpus: &[Entry]) -> (String, BTreeMap<String, Verdicts>) {
    let mut diff = String::new();
    let mut by_file = BTreeMap::new();
    for round in rounds(corpus) {
        let (on, off) = (grade(&round, true), grade(&round, false));
        for e in &round {
            let mine = |v: &Verdicts| -> Verdicts {
                v.iter()
                    .filter(|((id, _), _)| *id == e.id())
                    .map(|(k, x)| (k.clone(), x.clone()))
                    .collect()
            };
            let (a, b) = (mine(&on), mine(&off));
            if a != b {
                let _ = writeln!(
                    diff,
                    "{}:\n  lockstep: {a:#?}\n  one thread at a time: {b:#?}",
                    e.rel
                );
            }
            by_file.insert(e.rel.clone(), a);
        }
    }
    (diff, by_file)
}

#[test]
fn partial_masks_and_guarded_collectives_grade_alike_both_ways() {
    let corpus = own_kernels();
    assert!(corpus.len() >= 8, "the corpus lost its kernels");
    let (diff, by_file) = both_ways(&corpus);
    assert!(diff.is_empty(), "the schedule changed a verdict:\n{diff}");
    // And the verdict is the right one.
    let mut wrong = String::new();
    for e in &corpus {
        let v = &by_file[&e.rel];
        let passed = !v.is_empty() && v.values().all(|(p, _)| *p);
        let first = v.values().flat_map(|(_, d)| d.iter()).next().map(|d| {
            d.split(' ')
                .next()
                .unwrap_or("")
                .trim_matches('"')
                .to_string()
        });
        match e.header("expect").as_deref() {
            Some("pass") if !passed => {
                let _ = writeln!(wrong, "{} should pass: {v:#?}", e.rel);
            }
            Some("fail") => {
                let want = e.header("kind").expect("kind: with expect: fail");
                let got = first.unwrap_or_else(|| "wrong-output".to_string());
                if passed || got != want {
                    let _ = writeln!(wrong, "{} should fail with {want}: {v:#?}", e.rel);
                }
            }
            Some("pass") => {}
            other => panic!("{}: expect: {other:?}", e.rel),
        }
    }
    assert!(wrong.is_empty(), "{wrong}");
}

#[test]
fn the_mistakes_about_races_barriers_and_warps_grade_alike_both_ways() {
    let corpus = mistakes_sample();
    assert!(
        corpus.len() >= 50,
        "the sample shrank to {} attempts",
        corpus.len()
    );
    let (diff, _) = both_ways(&corpus);
    assert!(diff.is_empty(), "the schedule changed a verdict:\n{diff}");
}

/// `tests/kernels/FILE.cu`, kernel, arguments (for `exec --arg`).
const EXEC: &[(&str, &str, &[&str])] = &[
    (
        "warp",
        "shuffles",
        &["out=i32[256]:zeros", "in=i32[256]:arange"],
    ),
    (
        "warp",
        "float_shuffle",
        &["out=f32[256]:zeros", "in=f32[256]:arange"],
    ),
    (
        "warp",
        "votes",
        &["out=u32[256]:zeros", "in=i32[256]:arange", "n=i32:50"],
    ),
    (
        "warp",
        "active_in_branch",
        &["out=u32[256]:zeros", "sums=i32[256]:zeros"],
    ),
    (
        "warp",
        "warp_reduce",
        &["out=f32[256]:zeros", "in=f32[256]:ones"],
    ),
    ("warp", "syncwarp_exchange", &["out=i32[256]:zeros"]),
    (
        "warp",
        "barrier_reductions",
        &["out=i32[256]:zeros", "in=i32[256]:arange"],
    ),
    (
        "warp",
        "warp_reduce_intrinsics",
        &["out=u32[256]:zeros", "in=u32[256]:arange"],
    ),
    ("warp", "half_warp_exchange", &["out=i32[256]:zeros"]),
    ("warp", "activemask_then_flag", &["out=u32[256]:zeros"]),
    (
        "races",
        "dot_racy",
        &[
            "out=f32[256]:zeros",
            "a=f32[256]:ones",
            "b=f32[256]:arange",
            "size=i32:100",
        ],
    ),
    (
        "races",
        "read_neighbour_early",
        &["out=i32[256]:zeros", "res=i32[256]:zeros", "n=i32:100"],
    ),
    (
        "races",
        "write_sync_read",
        &["out=i32[256]:zeros", "res=i32[256]:zeros"],
    ),
    (
        "races",
        "warp_ordered",
        &["out=i32[256]:zeros", "res=i32[256]:zeros"],
    ),
    (
        "races",
        "histogram",
        &["bins=u32[256]:zeros", "data=i32[256]:arange", "n=i32:128"],
    ),
    ("races", "reset_while_adding", &["count=u32[256]:zeros"]),
    (
        "bugs",
        "race_missing_sync",
        &["out=f32[256]:zeros", "a=f32[256]:ones"],
    ),
    ("bugs", "race_war", &["out=i32[256]:zeros"]),
    ("bugs", "uninit_read", &["out=i32[256]:zeros"]),
    ("bugs", "barrier_in_if", &["out=i32[256]:zeros"]),
];

fn exec(file: &str, kernel: &str, args: &[&str], block: u32, lockstep: bool) -> String {
    let mut cmd = gpuzzle();
    cmd.current_dir(manifest())
        .arg("exec")
        .arg(format!("tests/kernels/{file}.cu"))
        .args(["--kernel", kernel, "--grid", "1", "--block"])
        .arg(block.to_string())
        .args(["--format", "json"]);
    for a in args {
        cmd.args(["--arg", a]);
    }
    if !lockstep {
        cmd.env("GPUZZLE_LOCKSTEP", "off");
    }
    let out = cmd.output().expect("gpuzzle runs");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "exec {file}:{kernel} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    serde_json::to_string_pretty(&json).expect("prints")
}

#[test]
fn the_warp_and_race_kernels_run_alike_both_ways() {
    let mut diff = String::new();
    let mut reported = 0;
    for (file, kernel, args) in EXEC {
        for block in [64, 40] {
            let (on, off) = (
                exec(file, kernel, args, block, true),
                exec(file, kernel, args, block, false),
            );
            reported += on.contains("\"kind\"") as usize;
            if on != off {
                let _ = writeln!(
                    diff,
                    "{file}:{kernel} on {block} threads:\n  lockstep: {on}\n  one thread at a time: {off}"
                );
            }
        }
    }
    assert!(diff.is_empty(), "the schedule changed a result:\n{diff}");
    // The corpus holds both kinds: kernels that report something and kernels that do not.
    assert!(reported > 10 && reported < 2 * EXEC.len(), "{reported}");
}
