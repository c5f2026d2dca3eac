//! gpuzzle's own mutation fuzzer, shared by the short campaign `cargo test` runs
//! (`tests/fuzz_campaign.rs`) and the long one (`examples/fuzz.rs`, which includes this
//! directory by path). It is test code, not part of the product: the CLI needs none of it.
//!
//! A campaign is a function of its seed. Mutant `n` is a learner-like mutation
//! (`mutate.rs`) of solution `n mod 35`, graded by the real binary, `gpuzzle check N
//! --format json`, in a scratch workspace, once with the emulator's lockstep on and once
//! with `GPUZZLE_LOCKSTEP=off`; exec run `n` is a random `gpuzzle exec` argument set
//! (`exec_args.rs`) for one solution, run both ways too. Each run is a child process
//! (`child.rs`) with its wall time and peak memory measured.
//!
//! Each run gets a class (`pass`, `compile-error`, `fail:KIND` with the first diagnostic's
//! kind, `ok`, `usage-error`, ...), and a run is *flagged* when it shows a gpuzzle bug:
//! `panic` (a panic message or a signal), `please-report` (the words, for a learner's kernel),
//! `timeout` (over the time bound, 30 s), `memory` (over the memory bound, 2 GiB of peak
//! resident memory), `bad-json` (JSON output that does not parse), `setup-error` (`check`
//! could not grade: exit 2), `schedule-verdict` and `schedule-diagnostics` (the verdict, or
//! the diagnostics' kinds and lines, differ between lockstep on and off), `schedule-output`
//! (an `exec` whose outputs differ between the schedules with nothing reported), `wrong-pass`
//! (a passed test whose output is not the spec's within the puzzle's tolerance, recomputed
//! here, or whose spec output differs from the solution's run), and `solution-fails`.

#![allow(dead_code)]

pub mod child;
pub mod exec_args;
pub mod mutate;
pub mod rng;

use gpuzzle::puzzle::{parse_puzzle, Puzzle, Tolerance};
use rng::Rng;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The time bound of one run: slower is flagged `timeout`.
pub const TIME_BOUND: Duration = Duration::from_secs(30);
/// The memory bound of one run in KiB (2 GiB): more is flagged `memory`.
pub const MEMORY_BOUND_KB: i64 = 2 * 1024 * 1024;

/// What a campaign runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The gpuzzle binary.
    pub bin: PathBuf,
    /// The pack: `puzzles/` (TOML files and starters) and `solutions/`.
    pub pack: PathBuf,
    /// Scratch space (made afresh).
    pub work: PathBuf,
    pub seed: u64,
    pub mutants: usize,
    pub exec_runs: usize,
    /// Runs at once.
    pub jobs: usize,
    /// `GPUZZLE_TIME_LIMIT` for every run (None: gpuzzle's own deadline, which a busy machine
    /// can reach before the step limit; a long one, e.g. 20, leaves the step limit to decide).
    pub time_limit: Option<f64>,
    /// `exec` may draw grids of a million blocks and buffers at the size limit.
    pub huge: bool,
    /// Only this mutant (and no exec runs), to reproduce one.
    pub only: Option<usize>,
    /// Print a line per flagged run as it happens.
    pub verbose: bool,
    /// Print every run whose class starts with this, with its first line of stderr.
    pub show: Option<String>,
    /// Start no item after this long (the report counts the items done).
    pub budget: Option<Duration>,
}

impl Config {
    /// A deadline shorter than gpuzzle's own (3 s): the wall clock, not the step limit, ends
    /// slow launches, so a step limit depends on the machine's load (`schedule_flags`).
    pub fn short_deadline(&self) -> bool {
        self.time_limit.is_some_and(|t| t < 3.0)
    }
}

/// A flagged run: the class of trouble, the item, and what showed it.
#[derive(Clone, Debug)]
pub struct Flag {
    pub class: String,
    pub item: String,
    pub detail: String,
    /// The mutant's source, for a mutant.
    pub source: Option<String>,
}

/// What a campaign found.
#[derive(Debug, Default)]
pub struct Report {
    pub mutants: usize,
    pub exec_runs: usize,
    pub runs: usize,
    pub secs: f64,
    pub slowest_secs: f64,
    pub peak_rss_kb: i64,
    /// Runs per class (the lockstep-on run of each item).
    pub classes: BTreeMap<String, usize>,
    pub flags: Vec<Flag>,
}

impl Report {
    pub fn flagged_classes(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for f in &self.flags {
            *m.entry(f.class.clone()).or_insert(0) += 1;
        }
        m
    }

    /// The figures, one block of text.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} mutants and {} exec argument sets: {} runs in {:.1} s (slowest {:.1} s, peak memory {} MiB)\nclasses:\n",
            self.mutants,
            self.exec_runs,
            self.runs,
            self.secs,
            self.slowest_secs,
            self.peak_rss_kb / 1024
        );
        for (c, n) in &self.classes {
            s.push_str(&format!("  {n:6}  {c}\n"));
        }
        if self.flags.is_empty() {
            s.push_str("flagged: none\n");
        } else {
            s.push_str(&format!("flagged: {} runs\n", self.flags.len()));
            for (c, n) in self.flagged_classes() {
                s.push_str(&format!("  {n:6}  {c}\n"));
            }
            let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
            for f in &self.flags {
                let seen = shown.entry(&f.class).or_insert(0);
                *seen += 1;
                if *seen <= 3 {
                    s.push_str(&format!("  [{}] {}\n      {}\n", f.class, f.item, f.detail));
                }
            }
        }
        s
    }
}

/// One puzzle of the pack with its solution's text.
struct Entry {
    puzzle: Puzzle,
    solution_path: PathBuf,
    solution: String,
    /// `puzzles/NN_slug.cu`: where a mutant is written in a workspace.
    kernel_file: String,
}

fn load_pack(pack: &Path) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let dir = pack.join("puzzles");
    let mut tomls: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    tomls.sort();
    for toml in tomls {
        let text =
            std::fs::read_to_string(&toml).map_err(|e| format!("{}: {e}", toml.display()))?;
        let puzzle = parse_puzzle(&text, &toml).map_err(|e| format!("{}: {e}", toml.display()))?;
        let stem = toml
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let solution_path = pack.join("solutions").join(format!("{stem}.cu"));
        let Ok(solution) = std::fs::read_to_string(&solution_path) else {
            continue;
        };
        entries.push(Entry {
            puzzle,
            solution_path,
            solution,
            kernel_file: format!("puzzles/{stem}.cu"),
        });
    }
    if entries.is_empty() {
        return Err(format!(
            "no puzzle with a solution under {}",
            pack.display()
        ));
    }
    Ok(entries)
}

/// A scratch workspace: every puzzle's TOML and starter, ready for a mutant.
fn make_workspace(pack: &Path, dir: &Path) -> std::io::Result<()> {
    let to = dir.join("puzzles");
    std::fs::create_dir_all(&to)?;
    for e in std::fs::read_dir(pack.join("puzzles"))? {
        let p = e?.path();
        if p.is_file() {
            if let Some(name) = p.file_name() {
                std::fs::copy(&p, to.join(name))?;
            }
        }
    }
    Ok(())
}

/// One run's outcome as the campaign sees it.
#[derive(Clone)]
struct Outcome {
    class: String,
    /// What must be equal between the two schedules.
    verdict: String,
    diagnostics: Vec<String>,
    /// Output values (exec, with nothing reported): must be equal too.
    outputs: Option<String>,
    flags: Vec<(String, String)>,
    secs: f64,
    rss_kb: i64,
    json: Option<Value>,
    /// The first line of stderr (what `--show` prints).
    note: String,
}

fn base_flags(f: &child::Finished) -> Vec<(String, String)> {
    let mut flags = Vec::new();
    let all = format!("{}\n{}", f.stdout, f.stderr);
    if let Some(k) = f.killed {
        let (class, what) = match k {
            child::Killed::Time => (
                "timeout",
                format!("killed after {:.1} s (CPU {:.1} s)", f.secs, f.cpu_secs),
            ),
            child::Killed::Memory => ("memory", "killed over the memory bound".to_string()),
        };
        flags.push((class.to_string(), what));
    } else if f.stderr.contains("panicked") || f.signal.is_some() {
        flags.push(("panic".into(), excerpt(&f.stderr, "panicked", f.signal)));
    }
    if f.max_rss_kb > MEMORY_BOUND_KB && f.killed != Some(child::Killed::Memory) {
        flags.push(("memory".into(), format!("peak {} MiB", f.max_rss_kb / 1024)));
    }
    if f.killed.is_none() && f.secs > TIME_BOUND.as_secs_f64() {
        flags.push((
            "timeout".into(),
            format!("{:.1} s (CPU {:.1} s)", f.secs, f.cpu_secs),
        ));
    }
    if all.to_lowercase().contains("please report") {
        flags.push(("please-report".into(), excerpt(&all, "report", None)));
    }
    flags
}

/// The line of `text` around `word`, else its start.
fn excerpt(text: &str, word: &str, signal: Option<i32>) -> String {
    let line = text
        .lines()
        .find(|l| l.to_lowercase().contains(word))
        .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    let mut s: String = line.trim().chars().take(240).collect();
    if let Some(sig) = signal {
        s = format!("signal {sig}; {s}");
    }
    s
}

fn spawn(
    cfg: &Config,
    dir: &Path,
    args: &[String],
    lockstep: bool,
) -> std::io::Result<child::Finished> {
    spawn_with_limit(cfg, dir, args, lockstep, cfg.time_limit)
}

/// `spawn` with its own `GPUZZLE_TIME_LIMIT` (None: gpuzzle's own deadline). A solution's
/// baseline runs under gpuzzle's own: the campaign's short deadline is for mutants, and a
/// puzzle with a large test (46) would otherwise fail its own reference.
fn spawn_with_limit(
    cfg: &Config,
    dir: &Path,
    args: &[String],
    lockstep: bool,
    time_limit: Option<f64>,
) -> std::io::Result<child::Finished> {
    let mut cmd = Command::new(&cfg.bin);
    cmd.args(args)
        .current_dir(dir)
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .env("GPUZZLE_CACHE_DIR", cfg.work.join("cache"))
        .env_remove("GPUZZLE_PUZZLES");
    if lockstep {
        cmd.env_remove("GPUZZLE_LOCKSTEP");
    } else {
        cmd.env("GPUZZLE_LOCKSTEP", "off");
    }
    match time_limit {
        Some(t) => cmd.env("GPUZZLE_TIME_LIMIT", t.to_string()),
        None => cmd.env_remove("GPUZZLE_TIME_LIMIT"),
    };
    child::run(
        cmd,
        dir,
        TIME_BOUND + Duration::from_secs(5),
        MEMORY_BOUND_KB + 256 * 1024,
    )
}

/// The diagnostics of a check or exec JSON object's test: `kind@line`.
fn diag_keys(diags: Option<&Value>) -> Vec<String> {
    diags
        .and_then(Value::as_array)
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    format!(
                        "{}@{}",
                        d.get("kind").and_then(Value::as_str).unwrap_or("?"),
                        d.get("line").map(Value::to_string).unwrap_or_default()
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Grade `check N --format json` output.
fn grade_check(f: &child::Finished) -> Outcome {
    let mut flags = base_flags(f);
    let mut out = Outcome {
        class: String::new(),
        verdict: String::new(),
        diagnostics: Vec::new(),
        outputs: None,
        flags: Vec::new(),
        secs: f.secs,
        rss_kb: f.max_rss_kb,
        json: None,
        note: excerpt(&f.stderr, "error", None),
    };
    if f.killed.is_some() || f.signal.is_some() {
        out.class = flags.first().map_or("killed".into(), |f| f.0.clone());
        out.verdict = out.class.clone();
        out.flags = flags;
        return out;
    }
    if f.code == Some(2) {
        flags.push(("setup-error".into(), excerpt(&f.stderr, "error", None)));
        out.class = "setup-error".into();
        out.verdict = out.class.clone();
        out.flags = flags;
        return out;
    }
    if f.stdout_truncated {
        flags.push(("bad-json".into(), "check printed over 16 MiB".into()));
    }
    let json: Value = match serde_json::from_str(&f.stdout) {
        Ok(j) => j,
        Err(e) => {
            flags.push((
                "bad-json".into(),
                format!("{e}: {}", excerpt(&f.stdout, "", None)),
            ));
            out.class = "bad-json".into();
            out.verdict = out.class.clone();
            out.flags = flags;
            return out;
        }
    };
    let p = &json["puzzles"][0];
    let passed = p["passed"].as_bool().unwrap_or(false);
    let tests = p["tests"].as_array().cloned().unwrap_or_default();
    out.class = if passed {
        "pass".into()
    } else if p.get("compile_error").is_some() {
        "compile-error".into()
    } else if p.get("puzzle_error").is_some() {
        flags.push((
            "setup-error".into(),
            "puzzle_error for a pack puzzle".into(),
        ));
        "puzzle-error".into()
    } else {
        let failing: Vec<&Value> = tests
            .iter()
            .filter(|t| t["passed"] != Value::Bool(true))
            .collect();
        let kind = failing
            .iter()
            .find_map(|t| {
                t["diagnostics"]
                    .as_array()
                    .and_then(|d| d.first())
                    .and_then(|d| d["kind"].as_str())
            })
            .map(str::to_string);
        match kind {
            Some(k) => format!("fail:{k}"),
            None if failing.iter().any(|t| t.get("error").is_some()) => "fail:error".into(),
            None if failing.iter().any(|t| {
                t.get("over_budget")
                    .is_some_and(|o| o.as_array().is_some_and(|a| !a.is_empty()))
            }) =>
            {
                "fail:over-budget".into()
            }
            None if failing.iter().any(|t| {
                t.get("over_block_budget").is_some() || t.get("under_require").is_some()
            }) =>
            {
                "fail:block-budget".into()
            }
            None => "fail:wrong-output".into(),
        }
    };
    out.verdict = format!(
        "{}:{}",
        passed,
        tests
            .iter()
            .map(|t| if t["passed"] == Value::Bool(true) {
                '+'
            } else {
                '-'
            })
            .collect::<String>()
    );
    out.diagnostics = tests
        .iter()
        .map(|t| {
            format!(
                "{}: {}",
                t["name"].as_str().unwrap_or("?"),
                diag_keys(t.get("diagnostics")).join(" ")
            )
        })
        .collect();
    out.flags = flags;
    out.json = Some(json);
    out
}

/// Grade `exec` output (JSON or text).
fn grade_exec(f: &child::Finished, json_out: bool) -> Outcome {
    let mut flags = base_flags(f);
    let mut out = Outcome {
        class: String::new(),
        verdict: String::new(),
        diagnostics: Vec::new(),
        outputs: None,
        flags: Vec::new(),
        secs: f.secs,
        rss_kb: f.max_rss_kb,
        json: None,
        note: excerpt(&f.stderr, "error", None),
    };
    if f.killed.is_some() || f.signal.is_some() {
        out.class = flags.first().map_or("killed".into(), |f| f.0.clone());
        out.verdict = out.class.clone();
        out.flags = flags;
        return out;
    }
    let code = f.code.unwrap_or(-1);
    out.verdict = format!("exit {code}");
    if code == 2 || (code != 0 && code != 1) {
        let lower = f.stderr.to_lowercase();
        out.class = if lower.contains("does not compile")
            || lower.contains("compile") && lower.contains("error")
        {
            "exec:compile-error".into()
        } else {
            "exec:usage-error".into()
        };
        if code != 2 {
            flags.push(("setup-error".into(), format!("exit code {code}")));
        }
        out.flags = flags;
        return out;
    }
    if f.stdout_truncated {
        // Too large to read back and compare (a buffer of millions of elements printed).
        out.class = "exec:output-over-16MiB".into();
    } else if json_out {
        match serde_json::from_str::<Value>(&f.stdout) {
            Ok(j) => {
                let ok = j["ok"].as_bool();
                let kinds = diag_keys(j.get("diagnostics"));
                out.class = match (ok, kinds.first()) {
                    (Some(true), None) => "exec:ok".into(),
                    (_, Some(k)) => format!("exec:{}", k.split('@').next().unwrap_or("?")),
                    (_, None) => "exec:not-ok".into(),
                };
                out.verdict = format!("exit {code} ok {ok:?}");
                if kinds.is_empty() {
                    out.outputs = Some(j["buffers"].to_string());
                }
                out.diagnostics = kinds;
                out.json = Some(j);
            }
            Err(e) => {
                flags.push((
                    "bad-json".into(),
                    format!("{e}: {}", excerpt(&f.stdout, "", None)),
                ));
                out.class = "bad-json".into();
            }
        }
    } else {
        out.class = if code == 0 {
            "exec:ok (text)".into()
        } else {
            "exec:failed (text)".into()
        };
    }
    out.flags = flags;
    out
}

/// Compare the two schedules' outcomes of one item. With a short deadline (`lenient`), where
/// the wall clock rather than the step limit ends a launch (a slow test as well as an endless
/// one), a step limit is not the schedule's doing: where either run reached one, the verdicts
/// are not compared, and the diagnostics are compared without the step limits.
fn schedule_flags(on: &Outcome, off: &Outcome, lenient: bool) -> Vec<(String, String)> {
    let mut flags = Vec::new();
    // A run killed at a bound is flagged for that; the other schedule's verdict says nothing.
    let killed =
        |o: &Outcome| matches!(o.class.as_str(), "timeout" | "memory" | "panic" | "killed");
    if killed(on) || killed(off) {
        return flags;
    }
    let step_limit = |o: &Outcome| {
        o.class.contains("step-limit") || o.diagnostics.iter().any(|d| d.contains("step-limit"))
    };
    if lenient && (step_limit(on) || step_limit(off)) {
        let strip = |o: &Outcome| -> Vec<String> {
            o.diagnostics
                .iter()
                .map(|d| {
                    d.split(' ')
                        .filter(|k| !k.starts_with("step-limit@"))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                // A diagnostic that was only the step limit leaves nothing to compare.
                .filter(|d| !d.is_empty())
                .collect()
        };
        // The clock may cut either run at any point (and a lockstep run cut by it is not run
        // again one thread at a time), so the run it cut sees only part of what the other
        // saw: flag only findings neither run's contain all of.
        let tokens = |o: &Outcome| -> std::collections::BTreeSet<String> {
            strip(o)
                .iter()
                .flat_map(|d| d.split(' ').filter(|k| k.contains('@')).map(str::to_string))
                .collect()
        };
        let (a, b) = (tokens(on), tokens(off));
        let nested = a.is_subset(&b) || b.is_subset(&a);
        if on.verdict == off.verdict && strip(on) != strip(off) && !nested {
            flags.push((
                "schedule-diagnostics".into(),
                format!("on: {:?} / off: {:?}", strip(on), strip(off))
                    .chars()
                    .take(300)
                    .collect(),
            ));
        }
        return flags;
    }
    if on.verdict != off.verdict {
        flags.push((
            "schedule-verdict".into(),
            format!(
                "lockstep on: {} ({}); off: {} ({})",
                on.verdict, on.class, off.verdict, off.class
            ),
        ));
    } else if on.diagnostics != off.diagnostics {
        let first = on
            .diagnostics
            .iter()
            .zip(&off.diagnostics)
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("on: {a} / off: {b}"))
            .unwrap_or_else(|| format!("on: {:?} / off: {:?}", on.diagnostics, off.diagnostics));
        flags.push((
            "schedule-diagnostics".into(),
            first.chars().take(300).collect(),
        ));
    } else if on.outputs.is_some() && off.outputs.is_some() && on.outputs != off.outputs {
        flags.push((
            "schedule-output".into(),
            "buffers differ with nothing reported".into(),
        ));
    }
    flags
}

fn close(got: &Value, expected: &Value, tol: Tolerance) -> bool {
    match (got.as_f64(), expected.as_f64()) {
        (Some(g), Some(e)) => (g - e).abs() <= tol.abs + tol.rel * e.abs(),
        _ => got == expected,
    }
}

/// A passed puzzle's tests, checked here: every output within tolerance of the spec's, and
/// the spec's outputs those of the solution's run (`baseline`).
fn pass_flags(json: &Value, baseline: Option<&Value>, tol: Tolerance) -> Vec<(String, String)> {
    let mut flags = Vec::new();
    let tests = json["puzzles"][0]["tests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let base_tests = baseline
        .and_then(|b| b["puzzles"][0]["tests"].as_array().cloned())
        .unwrap_or_default();
    for t in tests.iter().filter(|t| t["passed"] == Value::Bool(true)) {
        let name = t["name"].as_str().unwrap_or("?");
        let Some(outputs) = t["outputs"].as_object() else {
            continue;
        };
        for (buf, o) in outputs {
            let (got, exp) = (o["got"].as_array(), o["expected"].as_array());
            let ok = match (got, exp) {
                (Some(g), Some(e)) => {
                    g.len() == e.len() && g.iter().zip(e).all(|(g, e)| close(g, e, tol))
                }
                _ => false,
            };
            if !ok {
                flags.push((
                    "wrong-pass".into(),
                    format!("test `{name}`: `{buf}` passed but differs from the spec"),
                ));
            }
            let base = base_tests
                .iter()
                .find(|b| b["name"] == t["name"])
                .map(|b| &b["outputs"][buf]["expected"]);
            if let Some(base) = base {
                if base != &o["expected"] {
                    flags.push((
                        "wrong-pass".into(),
                        format!(
                            "test `{name}`: the spec's `{buf}` differs from the solution's run"
                        ),
                    ));
                }
            }
        }
    }
    flags
}

/// Shared state of a running campaign.
struct Shared<'a> {
    cfg: &'a Config,
    pack: Vec<Entry>,
    baselines: Mutex<HashMap<usize, Option<Value>>>,
    report: Mutex<Report>,
    next: AtomicUsize,
}

impl Shared<'_> {
    fn record(
        &self,
        item: &str,
        on: &Outcome,
        extra: Vec<(String, String)>,
        source: Option<&str>,
        runs: usize,
    ) {
        if self
            .cfg
            .show
            .as_ref()
            .is_some_and(|c| on.class.starts_with(c.as_str()))
        {
            eprintln!("[{}] {item}\n    {}", on.class, on.note);
        }
        let mut r = self.report.lock().unwrap_or_else(|e| e.into_inner());
        r.runs += runs;
        *r.classes.entry(on.class.clone()).or_insert(0) += 1;
        r.slowest_secs = r.slowest_secs.max(on.secs);
        r.peak_rss_kb = r.peak_rss_kb.max(on.rss_kb);
        for (class, detail) in on.flags.iter().cloned().chain(extra) {
            if self.cfg.verbose {
                eprintln!("flagged [{class}] {item}: {detail}");
            }
            r.flags.push(Flag {
                class,
                item: item.to_string(),
                detail,
                source: source.map(str::to_string),
            });
        }
    }

    /// The solution's graded JSON for puzzle `k` (graded once; `None` if it could not be).
    fn baseline(&self, k: usize, dir: &Path) -> Option<Value> {
        if let Some(b) = self
            .baselines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&k)
        {
            return b.clone();
        }
        let e = &self.pack[k];
        let graded = std::fs::write(dir.join(&e.kernel_file), &e.solution)
            .ok()
            .and_then(|()| spawn_with_limit(self.cfg, dir, &check_args(&e.puzzle), true, None).ok())
            .map(|f| grade_check(&f));
        let item = format!("solution {}", e.solution_path.display());
        let value = match graded {
            Some(g) if g.class == "pass" => g.json,
            Some(g) => {
                self.record(
                    &item,
                    &g,
                    vec![("solution-fails".into(), g.class.clone())],
                    Some(&e.solution),
                    1,
                );
                None
            }
            None => None,
        };
        self.baselines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k, value.clone());
        value
    }

    fn mutant(&self, n: usize, dir: &Path) {
        let k = n % self.pack.len();
        let e = &self.pack[k];
        let mut rng = Rng::for_item(self.cfg.seed, 1, n as u64);
        let Some(m) = mutate::mutate(&e.solution, &mut rng) else {
            let mut r = self.report.lock().unwrap_or_else(|e| e.into_inner());
            *r.classes.entry("no-mutation".into()).or_insert(0) += 1;
            return;
        };
        let baseline = self.baseline(k, dir);
        let item = format!(
            "mutant {n} of {} ({}: {})",
            e.kernel_file.trim_start_matches("puzzles/"),
            m.operators.join("+"),
            m.what.join("; ")
        );
        if std::fs::write(dir.join(&e.kernel_file), &m.text).is_err() {
            return;
        }
        let args = check_args(&e.puzzle);
        let Ok(on) = spawn(self.cfg, dir, &args, true) else {
            return;
        };
        let on = grade_check(&on);
        let lenient = self.cfg.short_deadline();
        let mut extra: Vec<(String, String)> = Vec::new();
        let mut runs = 1;
        // Under a short deadline a step limit is the clock's doing; the other schedule would
        // only hit it too (`schedule_flags`), so it is not run.
        if !(lenient && on.class == "fail:step-limit") {
            let Ok(off) = spawn(self.cfg, dir, &args, false) else {
                return;
            };
            runs = 2;
            let off = grade_check(&off);
            extra.extend(off.flags.clone());
            extra.extend(schedule_flags(&on, &off, lenient));
        }
        if let Some(j) = on.json.as_ref().filter(|_| on.class == "pass") {
            extra.extend(pass_flags(j, baseline.as_ref(), e.puzzle.tolerance));
        }
        dedup(&on.flags, &mut extra);
        self.record(&item, &on, extra, Some(&m.text), runs);
    }

    fn exec(&self, n: usize, dir: &Path) {
        let mut rng = Rng::for_item(self.cfg.seed, 2, n as u64);
        let k = rng.below(self.pack.len());
        let e = &self.pack[k];
        let (args, json) =
            exec_args::exec_args(&e.puzzle, &e.solution_path, &mut rng, self.cfg.huge, dir);
        let item = format!("exec {n}: gpuzzle {}", args[1..].join(" "));
        let Ok(on) = spawn(self.cfg, dir, &args, true) else {
            return;
        };
        let on = grade_exec(&on, json);
        let mut extra = Vec::new();
        let mut runs = 1;
        if !on.class.ends_with("usage-error")
            && !on.class.ends_with("compile-error")
            && on.flags.is_empty()
        {
            if let Ok(off) = spawn(self.cfg, dir, &args, false) {
                runs = 2;
                let off = grade_exec(&off, json);
                extra.extend(off.flags.clone());
                extra.extend(schedule_flags(&on, &off, self.cfg.short_deadline()));
            }
        }
        dedup(&on.flags, &mut extra);
        self.record(&item, &on, extra, None, runs);
    }
}

/// Drop from `extra` what `first` already says (the same class twice for one item).
fn dedup(first: &[(String, String)], extra: &mut Vec<(String, String)>) {
    extra.retain(|(c, _)| !first.iter().any(|(f, _)| f == c));
    let mut seen = Vec::new();
    extra.retain(|(c, _)| {
        let new = !seen.contains(c);
        seen.push(c.clone());
        new
    });
}

fn check_args(p: &Puzzle) -> Vec<String> {
    vec![
        "check".into(),
        p.id.to_string(),
        "--format".into(),
        "json".into(),
        "--jobs".into(),
        "1".into(),
    ]
}

/// Run a campaign.
pub fn run_campaign(cfg: &Config) -> Result<Report, String> {
    let start = Instant::now();
    let pack = load_pack(&cfg.pack)?;
    let _ = std::fs::remove_dir_all(&cfg.work);
    std::fs::create_dir_all(&cfg.work).map_err(|e| format!("{}: {e}", cfg.work.display()))?;
    let (mutants, execs): (Vec<usize>, usize) = match cfg.only {
        Some(n) => (vec![n], 0),
        None => ((0..cfg.mutants).collect(), cfg.exec_runs),
    };
    let shared = Shared {
        cfg,
        pack,
        baselines: Mutex::new(HashMap::new()),
        report: Mutex::new(Report {
            mutants: mutants.len(),
            exec_runs: execs,
            ..Report::default()
        }),
        next: AtomicUsize::new(0),
    };
    // Mutants and exec runs interleaved in proportion, so a campaign cut short by its budget
    // has done some of each.
    let mut items: Vec<(f64, Option<usize>)> = mutants
        .iter()
        .enumerate()
        .map(|(k, &m)| (k as f64 / mutants.len() as f64, Some(m)))
        .chain((0..execs).map(|e| (e as f64 / execs as f64, None::<usize>)))
        .collect();
    items.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut exec_n = 0;
    let items: Vec<Result<usize, usize>> = items
        .into_iter()
        .map(|(_, m)| match m {
            Some(m) => Ok(m),
            None => {
                exec_n += 1;
                Err(exec_n - 1)
            }
        })
        .collect();
    let total = items.len();
    let done = AtomicUsize::new(0);
    let (done_mutants, done_execs) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|s| {
        for w in 0..cfg.jobs.max(1) {
            let (shared, items, done) = (&shared, &items, &done);
            let (done_mutants, done_execs) = (&done_mutants, &done_execs);
            s.spawn(move || {
                let dir = cfg.work.join(format!("w{w}"));
                if make_workspace(&cfg.pack, &dir).is_err() {
                    return;
                }
                loop {
                    let i = shared.next.fetch_add(1, Ordering::Relaxed);
                    let over = cfg.budget.is_some_and(|b| start.elapsed() > b);
                    if i >= total || over {
                        break;
                    }
                    match items[i] {
                        Ok(m) => {
                            shared.mutant(m, &dir);
                            done_mutants.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            shared.exec(e, &dir);
                            done_execs.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if cfg.verbose && d % 100 == 0 {
                        eprintln!("{d}/{total} items, {:.0} s", start.elapsed().as_secs_f64());
                    }
                }
            });
        }
    });
    let mut report = shared
        .report
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    report.secs = start.elapsed().as_secs_f64();
    report.mutants = done_mutants.into_inner();
    report.exec_runs = done_execs.into_inner();
    report
        .flags
        .sort_by(|a, b| (&a.class, &a.item).cmp(&(&b.class, &b.item)));
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: i32, stdout: &str, stderr: &str) -> child::Finished {
        child::Finished {
            code: Some(code),
            signal: None,
            stdout: stdout.into(),
            stdout_truncated: false,
            stderr: stderr.into(),
            secs: 0.1,
            cpu_secs: 0.1,
            max_rss_kb: 1000,
            killed: None,
        }
    }

    fn classes(flags: &[(String, String)]) -> Vec<&str> {
        flags.iter().map(|f| f.0.as_str()).collect()
    }

    const FAILED: &str = r#"{"puzzles":[{"passed":false,"tests":[{"name":"t","passed":false,"diagnostics":[{"kind":"shared-race","line":7}],"outputs":{}}]}]}"#;

    #[test]
    fn a_panic_please_report_and_the_bounds_are_flagged() {
        let panic = finished(101, "", "thread 'main' panicked at src/emu/x.rs:1:1");
        assert_eq!(classes(&base_flags(&panic)), ["panic"]);
        let report = finished(2, "", "error: could not read the PTX; please report this");
        assert_eq!(classes(&base_flags(&report)), ["please-report"]);
        let mut slow = finished(1, "", "");
        slow.killed = Some(child::Killed::Time);
        slow.signal = Some(9);
        assert_eq!(classes(&grade_check(&slow).flags), ["timeout"]);
        let mut big = finished(1, "", "");
        big.max_rss_kb = MEMORY_BOUND_KB + 1;
        assert_eq!(classes(&base_flags(&big)), ["memory"]);
        assert!(base_flags(&finished(1, FAILED, "")).is_empty());
    }

    #[test]
    fn check_runs_are_classified_and_broken_json_flagged() {
        let failed = grade_check(&finished(1, FAILED, ""));
        assert_eq!(failed.class, "fail:shared-race");
        assert_eq!(
            classes(&grade_check(&finished(1, "{\"puzzles\": [", "")).flags),
            ["bad-json"]
        );
        assert_eq!(
            classes(&grade_check(&finished(2, "", "error: no NVRTC")).flags),
            ["setup-error"]
        );
    }

    #[test]
    fn a_verdict_or_diagnostic_that_changes_with_the_schedule_is_flagged() {
        let failed = grade_check(&finished(1, FAILED, ""));
        let passed_text = FAILED
            .replace("false", "true")
            .replace(r#"{"kind":"shared-race","line":7}"#, "");
        let passed = grade_check(&finished(0, &passed_text, ""));
        assert_eq!(passed.class, "pass");
        assert_eq!(
            classes(&schedule_flags(&failed, &passed, false)),
            ["schedule-verdict"]
        );
        let moved = grade_check(&finished(
            1,
            &FAILED.replace("\"line\":7", "\"line\":8"),
            "",
        ));
        assert_eq!(
            classes(&schedule_flags(&failed, &moved, false)),
            ["schedule-diagnostics"]
        );
        assert!(schedule_flags(&failed, &failed, false).is_empty());
        // Under a short deadline a step limit in one schedule only is the clock's doing.
        let stopped = grade_check(&finished(
            1,
            &FAILED.replace("shared-race", "step-limit"),
            "",
        ));
        assert!(schedule_flags(&stopped, &passed, true).is_empty());
        // A run the clock cut saw part of what the other saw: not flagged; a finding the cut
        // run has and the other lacks still is.
        let cut = |diags: &[&str]| Outcome {
            diagnostics: diags.iter().map(|d| d.to_string()).collect(),
            ..failed.clone()
        };
        let short = cut(&["out-of-bounds@20", "step-limit@5"]);
        let long = cut(&["out-of-bounds@20", "step-limit@5", "global-race@37"]);
        assert!(schedule_flags(&short, &long, true).is_empty());
        let other = cut(&["shared-race@9", "step-limit@5"]);
        assert_eq!(
            classes(&schedule_flags(&other, &long, true)),
            ["schedule-diagnostics"]
        );
        assert_eq!(
            classes(&schedule_flags(&stopped, &passed, false)),
            ["schedule-verdict"]
        );
    }

    #[test]
    fn a_pass_whose_output_is_not_the_specs_is_flagged() {
        let json = |got: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"puzzles":[{{"passed":true,"tests":[{{"name":"t","passed":true,"outputs":{{"out":{{"expected":[1.0,2.0],"got":{got}}}}}}}]}}]}}"#
            ))
            .expect("json")
        };
        let exact = Tolerance::default();
        assert!(pass_flags(&json("[1.0,2.0]"), None, exact).is_empty());
        assert_eq!(
            classes(&pass_flags(&json("[1.0,2.5]"), None, exact)),
            ["wrong-pass"]
        );
        let loose = Tolerance { abs: 0.5, rel: 0.0 };
        assert!(pass_flags(&json("[1.0,2.5]"), None, loose).is_empty());
    }
}
