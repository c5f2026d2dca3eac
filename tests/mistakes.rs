//! The mistakes suite: realistic wrong attempts at every puzzle (and correct alternatives),
//! each graded by the real binary, `gpuzzle check N --format json`, and held to what its header
//! states: the verdict, the first error's kind and line, and what its help must (not) say.
//! The format is described in tests/mistakes/README.md. Needs NVRTC (no GPU): without it the
//! test fails and says so; it never skips.
//!
//! `GPUZZLE_MISTAKES=09_pooling` (a substring of `09_pooling/no_barrier.cu`; several separated
//! by commas) runs only the matching attempts. `GPUZZLE_MISTAKES_WRITE_GAPS=1` rewrites
//! tests/mistakes/KNOWN_HELP_GAPS from this run (all attempts only). `GPUZZLE_MISTAKES_BIN`
//! grades with another gpuzzle binary (an older build, to count what a change fixed).

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Attempts graded at once: the machines this runs on are small and shared.
const WORKERS: usize = 3;

const KINDS: [&str; 10] = [
    "out-of-bounds",
    "shared-race",
    "global-race",
    "uninitialized-read",
    "barrier-divergence",
    "step-limit",
    "misaligned",
    "warp-sync",
    "assert",
    "async-copy",
];
/// Wrong without a diagnostic: an output differs, or a counter is over its budget.
const WRONG_OUTPUT: &str = "wrong-output";
const OVER_BUDGET: &str = "over-budget";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mistakes")
}

fn gpuzzle() -> Command {
    // `GPUZZLE_MISTAKES_BIN=path` grades with another build (an older one, to compare).
    let mut c = match std::env::var_os("GPUZZLE_MISTAKES_BIN") {
        Some(bin) => Command::new(bin),
        None => Command::cargo_bin("gpuzzle").expect("binary builds"),
    };
    // The step limit stops an endless loop at the same place on every machine; the wall-clock
    // deadline (5 s in a debug build) would also stop a long correct launch on a loaded machine
    // (puzzle 46's largest test takes about 0.8 s of CPU in a debug build), so it is pushed back.
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env("GPUZZLE_TIME_LIMIT", "120")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

// ---------------------------------------------------------------------------------------------
// The header

#[derive(Debug, PartialEq)]
enum Expect {
    Pass,
    Fail,
}

#[derive(Debug)]
struct Attempt {
    /// `09_pooling/no_barrier.cu`, relative to tests/mistakes.
    rel: String,
    puzzle_id: u32,
    /// `09_pooling.cu`: the workspace file it replaces.
    puzzle_file: String,
    text: String,
    expect: Expect,
    kind: Option<String>,
    line: Option<usize>,
    counter: Option<String>,
    /// Each entry: alternatives, any one of which must occur (case-insensitive).
    help_has: Vec<Vec<String>>,
    help_not: Vec<String>,
}

/// Reads the `// key: value` lines at the top of an attempt (see the README).
fn parse(rel: &str, text: &str) -> Result<Attempt, String> {
    let dir = rel.split('/').next().unwrap_or("");
    let puzzle_id: u32 = dir
        .get(..2)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("folder `{dir}` does not start with a puzzle number"))?;
    let mut a = Attempt {
        rel: rel.to_string(),
        puzzle_id,
        puzzle_file: format!("{dir}.cu"),
        text: text.to_string(),
        expect: Expect::Fail,
        kind: None,
        line: None,
        counter: None,
        help_has: vec![],
        help_not: vec![],
    };
    let mut expect = None;
    let mut line_spec = None;
    for l in text.lines() {
        let Some(rest) = l.strip_prefix("// ") else {
            break;
        };
        let Some((key, value)) = rest.split_once(':') else {
            break;
        };
        let value = value.trim().to_string();
        match key {
            "expect" => {
                expect = Some(match value.as_str() {
                    "pass" => Expect::Pass,
                    "fail" => Expect::Fail,
                    v => return Err(format!("expect: `{v}` is neither pass nor fail")),
                })
            }
            "kind" => a.kind = Some(value),
            "line" => line_spec = Some(value),
            "counter" => a.counter = Some(value),
            // Alternatives are separated by ` | ` (spaces around), so `||` can be asked for.
            "help-has" => a.help_has.push(
                value
                    .split(" | ")
                    .map(|s| s.trim().to_lowercase())
                    .filter(|s| !s.is_empty())
                    .collect(),
            ),
            "help-not" => a.help_not.push(value.to_lowercase()),
            "why" => {}
            // A comment such as `// Puzzle 9 · Pooling: ...` ends the header.
            _ => break,
        }
    }
    a.expect = expect.ok_or("no `// expect:` line at the top")?;
    if let Some(spec) = line_spec {
        a.line = Some(resolve_line(text, &spec)?);
    }
    match (&a.expect, a.kind.as_deref()) {
        (Expect::Pass, None) => {
            if a.line.is_some() || !a.help_has.is_empty() || !a.help_not.is_empty() {
                return Err("expect: pass takes no line or help checks".into());
            }
        }
        (Expect::Pass, Some(_)) => return Err("expect: pass takes no kind".into()),
        (Expect::Fail, None) => return Err("expect: fail needs a `// kind:`".into()),
        (Expect::Fail, Some(k)) if KINDS.contains(&k) => {
            if a.line.is_none() {
                return Err(format!("kind: {k} needs a `// line:`"));
            }
        }
        (Expect::Fail, Some(WRONG_OUTPUT)) => {}
        (Expect::Fail, Some(OVER_BUDGET)) => {
            if a.counter.is_none() {
                return Err("kind: over-budget needs a `// counter:`".into());
            }
        }
        (Expect::Fail, Some(k)) => return Err(format!("unknown kind `{k}`")),
    }
    Ok(a)
}

/// `14`, or `@mark`: the one line that holds the comment `// @mark`.
fn resolve_line(text: &str, spec: &str) -> Result<usize, String> {
    if let Some(mark) = spec.strip_prefix('@') {
        let tag = format!("// @{mark}");
        let hits: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                l.find(&tag).is_some_and(|p| {
                    let after = &l[p + tag.len()..];
                    !l.trim_start().starts_with("// line:")
                        && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
            .map(|(i, _)| i + 1)
            .collect();
        match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!("no line holds `{tag}`")),
            _ => Err(format!("several lines hold `{tag}`: {hits:?}")),
        }
    } else {
        spec.parse()
            .map_err(|_| format!("line: `{spec}` is neither a number nor @mark"))
    }
}

fn attempts() -> Vec<Result<Attempt, (String, String)>> {
    let mut out = vec![];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .expect("tests/mistakes exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cu"))
            .collect();
        files.sort();
        for f in files {
            let rel = f
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&f).unwrap();
            out.push(parse(&rel, &text).map_err(|e| (rel, e)));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Grading

/// What happened to one attempt.
struct Graded {
    rel: String,
    /// Verdict, kind or line wrong: (expected, got).
    failure: Option<(String, String)>,
    /// The help check failed: (expected, got). Only when the verdict part held.
    help_gap: Option<(String, String)>,
    /// The help was read from the text report (the JSON had no `help`).
    help_from_text: bool,
    /// A help text (any diagnostic's in the JSON, or the report's) with an empty name or a
    /// template's leftover: (what was found, the help).
    placeholder: Option<(String, String)>,
}

/// What in a help text shows an empty name or a template's leftover: an empty code span, a
/// `line 0`, an empty call or subscript in code, a `{name}` or `{}` never filled, or two spaces
/// where a word was empty (outside code spans, which quote the learner's spacing).
fn placeholder_in(help: &str) -> Option<String> {
    let mut prose = String::new();
    for (k, part) in help.split('`').enumerate() {
        if k % 2 == 0 {
            prose.push_str(part);
        } else {
            // The span stands as one word in the prose.
            prose.push_str("CODE");
            let code = part.trim();
            if code.is_empty() {
                return Some("an empty code span (``)".into());
            }
            if code == "()" || code.contains("[]") || code.ends_with("< )") {
                return Some(format!("an empty name in `{code}`"));
            }
        }
    }
    let b = help.as_bytes();
    for (at, _) in help.match_indices("line 0") {
        let next = b.get(at + 6).copied();
        if !next.is_some_and(|c| c.is_ascii_digit()) {
            return Some("`line 0`".into());
        }
    }
    if help.contains("{}") {
        return Some("an unfilled `{}`".into());
    }
    for (at, _) in help.match_indices('{') {
        let rest = &help[at + 1..];
        if let Some(end) = rest.find('}') {
            let word = &rest[..end];
            let ident = !word.is_empty()
                && word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if ident {
                return Some(format!("an unfilled `{{{word}}}`"));
            }
        }
    }
    let prose = prose.trim_end();
    if let Some(at) = prose.find("  ") {
        // A line break in the report is not an empty word.
        let around = &prose[at.saturating_sub(20)..(at + 22).min(prose.len())];
        if !around.contains('\n') {
            return Some(format!(
                "two spaces where a word is empty (`...{}...`)",
                around.trim()
            ));
        }
    }
    None
}

/// Every `help` string in a `gpuzzle check` JSON value (the diagnostics' and the figures').
fn helps_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("help", Value::String(h)) => out.push(h.clone()),
                    _ => helps_in(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| helps_in(x, out)),
        _ => {}
    }
}

fn run_in(ws: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = gpuzzle().current_dir(ws).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn diagnostics(puzzle: &Value) -> Vec<&Value> {
    puzzle["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["diagnostics"].as_array().into_iter().flatten())
        .collect()
}

/// The diagnostic the learner reads first: the first error over the tests in order, else the
/// first warning.
fn first_diagnostic(puzzle: &Value) -> Option<&Value> {
    let ds = diagnostics(puzzle);
    ds.iter()
        .find(|d| d["severity"] == "error")
        .or_else(|| ds.first())
        .copied()
}

fn describe(d: &Value) -> String {
    format!(
        "{} at line {}",
        d["kind"].as_str().unwrap_or("?"),
        d["line"]
    )
}

/// The verdict as a learner would summarise it: pass, compile error, first diagnostic, or what
/// else failed.
fn summary(puzzle: &Value, tol: Tolerance) -> String {
    if puzzle["passed"] == true {
        return "pass".into();
    }
    if let Some(e) = puzzle["compile_error"].as_str() {
        let first = e
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or(e.lines().next().unwrap_or(""));
        return format!("does not compile: {}", first.trim());
    }
    if let Some(d) = first_diagnostic(puzzle) {
        return format!("fail, {}", describe(d));
    }
    let mut parts = vec![];
    if outputs_differ(puzzle, tol) {
        parts.push(WRONG_OUTPUT.to_string());
    }
    for c in over_budget(puzzle) {
        parts.push(format!("{OVER_BUDGET} ({c})"));
    }
    for t in puzzle["tests"].as_array().into_iter().flatten() {
        if let Some(e) = t["error"].as_str() {
            parts.push(format!("error: {}", e.lines().next().unwrap_or("")));
            break;
        }
    }
    format!("fail, {}", parts.join(", "))
}

/// The puzzle's `tolerance` (softmax and layer norm compare within one): an output within it
/// is not a wrong output, as the judge sees it.
#[derive(Clone, Copy, Debug, Default)]
struct Tolerance {
    abs: f64,
    rel: f64,
}

/// The `tolerance` of the puzzle file `toml` (exact when it has none or cannot be read).
fn tolerance_of(toml: &Path) -> Tolerance {
    let text = std::fs::read_to_string(toml).unwrap_or_default();
    let v: toml::Value = toml::from_str(&text).unwrap_or(toml::Value::Boolean(false));
    let get = |k: &str| {
        v.get("tolerance")
            .and_then(|t| t.get(k))
            .and_then(|x| x.as_float().or(x.as_integer().map(|i| i as f64)))
            .unwrap_or(0.0)
    };
    Tolerance {
        abs: get("abs"),
        rel: get("rel"),
    }
}

fn outputs_differ(puzzle: &Value, tol: Tolerance) -> bool {
    puzzle["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["outputs"].as_object().into_iter().flatten())
        .any(|(_, o)| {
            let e = o["expected"].as_array();
            let g = o["got"].as_array();
            match (e, g) {
                (Some(e), Some(g)) => {
                    e.len() != g.len()
                        || e.iter()
                            .zip(g)
                            .any(|(e, g)| match (e.as_f64(), g.as_f64()) {
                                (Some(e), Some(g)) => {
                                    let allowed = tol.abs + tol.rel * e.abs();
                                    (e - g).abs() > allowed.max(1e-5 * e.abs().max(1.0))
                                }
                                // NaN and infinities are written as strings: compare the text.
                                _ => e != g,
                            })
                }
                _ => true,
            }
        })
}

/// The counters over budget in any test or kernel, and the perf figures over theirs; a block's
/// total over `block_budget` as `block_budget:COUNTER`, under `require` as `require:COUNTER`.
fn over_budget(puzzle: &Value) -> BTreeSet<String> {
    let mut over = BTreeSet::new();
    let check = |over: &mut BTreeSet<String>, counters: &Value, budget: &Value| {
        for (name, limit) in budget.as_object().into_iter().flatten() {
            if let (Some(used), Some(limit)) = (counters[name].as_f64(), limit.as_f64()) {
                if used > limit {
                    over.insert(name.clone());
                }
            }
        }
    };
    for t in puzzle["tests"].as_array().into_iter().flatten() {
        for (list, prefix) in [
            ("over_block_budget", "block_budget"),
            ("under_require", "require"),
        ] {
            for b in t[list].as_array().into_iter().flatten() {
                if let Some(counter) = b["counter"].as_str() {
                    over.insert(format!("{prefix}:{counter}"));
                }
            }
        }
        check(&mut over, &t["counters"], &t["budget"]);
        for k in t["kernels"].as_array().into_iter().flatten() {
            check(&mut over, &k["counters"], &k["budget"]);
        }
        for p in t["perf"].as_array().into_iter().flatten() {
            if let (Some(v), Some(b)) = (p["value"].as_f64(), p["budget"].as_f64()) {
                if v > b {
                    if let Some(kind) = p["kind"].as_str() {
                        over.insert(kind.to_string());
                    }
                }
            }
        }
    }
    over
}

/// The `= help:` line drawn under the first diagnostic of `kind` at `line` in the text report
/// of `gpuzzle run N` (for as long as the JSON carries no `help`). Continuation lines (indented
/// text up to the next blank line or diagnostic) are joined to it.
/// Every help paragraph of a text report without a diagnostic (a wrong output's pattern, a
/// budget's technique, the puzzle's mistake hint shown in the run), joined: the paragraphs
/// that start with `help:` or `The puzzle's hint`, each up to its blank line.
fn report_help(report: &str) -> Option<String> {
    let mut help = String::new();
    let mut inside = false;
    for l in report.lines() {
        let t = l.trim();
        if t.is_empty() {
            inside = false;
            continue;
        }
        if t.starts_with("help:") || t.starts_with("The puzzle's hint") {
            inside = true;
        }
        if inside {
            help.push_str(t.strip_prefix("help:").unwrap_or(t).trim());
            help.push(' ');
        }
    }
    let help = help.trim().to_string();
    (!help.is_empty()).then_some(help)
}

fn help_from_text(report: &str, kind: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = report.lines().collect();
    let heads = [format!("error[{kind}]"), format!("warning[{kind}]")];
    let at = format!(":{line}:");
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if heads.iter().any(|h| l.starts_with(h.as_str())) {
            // The `--> file:line:col` within the next few lines says where this one is.
            let here = lines[i + 1..]
                .iter()
                .take(3)
                .any(|l| l.trim_start().starts_with("-->") && l.contains(&at));
            let mut j = i + 1;
            while j < lines.len() {
                let t = lines[j].trim_start();
                if t.starts_with("error[") || t.starts_with("warning[") {
                    break;
                }
                if let Some(h) = t.strip_prefix("= help:") {
                    if !here {
                        break;
                    }
                    let mut help = h.trim().to_string();
                    for more in &lines[j + 1..] {
                        let m = more.trim();
                        if m.is_empty()
                            || m.starts_with('=')
                            || m.starts_with("(also in")
                            || m.starts_with("error[")
                            || m.starts_with("warning[")
                            || !more.starts_with("    ")
                        {
                            break;
                        }
                        help.push(' ');
                        help.push_str(m);
                    }
                    return Some(help);
                }
                j += 1;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    None
}

fn grade(ws: &Path, a: &Attempt) -> Graded {
    let mut g = Graded {
        rel: a.rel.clone(),
        failure: None,
        help_gap: None,
        help_from_text: false,
        placeholder: None,
    };
    std::fs::write(ws.join("puzzles").join(&a.puzzle_file), &a.text).unwrap();
    let id = a.puzzle_id.to_string();
    let (code, out, err) = run_in(ws, &["check", &id, "--format", "json"]);
    let v: Value = match serde_json::from_str(&out) {
        Ok(v) => v,
        Err(e) => {
            g.failure = Some((
                "JSON from `gpuzzle check`".into(),
                format!("exit {code:?}, {e}: {}", err.trim()),
            ));
            return g;
        }
    };
    let puzzle = &v["puzzles"][0];
    let toml = Path::new(&a.puzzle_file).with_extension("toml");
    let tol = tolerance_of(&ws.join("puzzles").join(toml));
    let got = summary(puzzle, tol);
    let expected = match (&a.expect, a.kind.as_deref()) {
        (Expect::Pass, _) => "pass".to_string(),
        (Expect::Fail, Some(k)) if KINDS.contains(&k) => {
            format!("fail, {k} at line {}", a.line.unwrap_or(0))
        }
        (Expect::Fail, Some(OVER_BUDGET)) => format!(
            "fail, {OVER_BUDGET} ({})",
            a.counter.as_deref().unwrap_or("")
        ),
        (Expect::Fail, k) => format!("fail, {}", k.unwrap_or("")),
    };
    let passed = puzzle["passed"] == true;
    let code_ok = code == Some(if passed { 0 } else { 1 });
    if !code_ok {
        g.failure = Some((expected, format!("{got} (but exit code {code:?})")));
        return g;
    }
    let verdict_ok = match (&a.expect, a.kind.as_deref()) {
        (Expect::Pass, _) => passed,
        _ if passed || puzzle.get("compile_error").is_some() => false,
        (Expect::Fail, Some(WRONG_OUTPUT)) => {
            first_diagnostic(puzzle).is_none() && outputs_differ(puzzle, tol)
        }
        (Expect::Fail, Some(OVER_BUDGET)) => {
            first_diagnostic(puzzle).is_none()
                && !outputs_differ(puzzle, tol)
                && over_budget(puzzle).contains(a.counter.as_deref().unwrap_or(""))
        }
        (Expect::Fail, Some(kind)) => first_diagnostic(puzzle)
            .is_some_and(|d| d["kind"] == kind && d["line"].as_u64() == a.line.map(|l| l as u64)),
        (Expect::Fail, None) => false,
    };
    if !verdict_ok {
        g.failure = Some((expected, got));
        return g;
    }
    // No help, of any diagnostic, with an empty name or a template's leftover.
    let mut helps = Vec::new();
    helps_in(puzzle, &mut helps);
    g.placeholder = helps
        .iter()
        .find_map(|h| placeholder_in(h).map(|what| (what, h.clone())));
    if a.help_has.is_empty() && a.help_not.is_empty() {
        return g;
    }
    let help = match first_diagnostic(puzzle) {
        Some(d) => match d.get("help") {
            Some(h) => h.as_str().map(str::to_string),
            None => {
                g.help_from_text = true;
                let (_, report, _) = run_in(ws, &["run", &id]);
                help_from_text(
                    &report,
                    a.kind.as_deref().unwrap_or(""),
                    a.line.unwrap_or(0),
                )
            }
        },
        // A wrong output or a budget: its help is not in the JSON, only in the report.
        None => {
            let (_, report, _) = run_in(ws, &["run", &id]);
            report_help(&report)
        }
    };
    let Some(help) = help else {
        g.help_gap = Some((help_wanted(a), "no help".into()));
        return g;
    };
    if g.placeholder.is_none() {
        g.placeholder = placeholder_in(&help).map(|what| (what, help.clone()));
    }
    let lower = help.to_lowercase();
    let has = a
        .help_has
        .iter()
        .all(|any| any.iter().any(|s| lower.contains(s.as_str())));
    let not = a.help_not.iter().all(|s| !lower.contains(s.as_str()));
    if !(has && not) {
        g.help_gap = Some((help_wanted(a), format!("help: {help}")));
    }
    g
}

fn help_wanted(a: &Attempt) -> String {
    let mut parts: Vec<String> = a
        .help_has
        .iter()
        .map(|any| format!("has `{}`", any.join("` or `")))
        .collect();
    parts.extend(a.help_not.iter().map(|s| format!("not `{s}`")));
    format!("help {}", parts.join(", "))
}

// ---------------------------------------------------------------------------------------------
// The one test

/// One workspace per worker (each overwrites its puzzle files in turn), made once per process.
fn workspace(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join(format!("ws{n}"));
    let (code, _, err) = {
        let out = gpuzzle().arg("init").arg(&ws).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(0), "gpuzzle init failed: {err}");
    (dir, ws)
}

/// Grading a reference solution proves NVRTC is there; without it every attempt would "fail"
/// for the wrong reason, so say so plainly instead.
fn require_nvrtc(ws: &Path) {
    let (code, out, err) = run_in(ws, &["check", "1", "--solutions", "--format", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    if code == Some(0) && v["passed"] == 1 {
        return;
    }
    let why = v["puzzles"][0]["compile_error"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("exit {code:?}: {out}{err}"));
    panic!(
        "the mistakes suite needs NVRTC to compile the attempts, and `gpuzzle check 1 \
         --solutions` could not grade even the reference solution:\n{why}\nInstall NVRTC \
         (e.g. `pip install nvidia-cuda-nvrtc-cu12`) or point GPUZZLE_NVRTC at libnvrtc; this \
         suite does not skip."
    );
}

/// The attempt paths listed in `tests/mistakes/<file>` (`#` starts a comment).
fn listed(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn filter() -> Option<Vec<String>> {
    let f = std::env::var("GPUZZLE_MISTAKES").ok()?;
    let parts: Vec<String> = f
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    (!parts.is_empty()).then_some(parts)
}

#[test]
fn every_mistake_is_diagnosed_as_stated_and_every_alternative_passes() {
    let started = Instant::now();
    let filter = filter();
    let selected = |rel: &str| {
        filter
            .as_ref()
            .is_none_or(|f| f.iter().any(|p| rel.contains(p.as_str())))
    };
    let mut problems: Vec<(String, String, String)> = vec![];
    let mut todo = vec![];
    for a in attempts() {
        match a {
            Ok(a) if selected(&a.rel) => todo.push(a),
            Ok(_) => {}
            Err((rel, e)) => problems.push((rel, "a valid header".into(), e)),
        }
    }
    let all_rels: BTreeSet<String> = todo.iter().map(|a| a.rel.clone()).collect();
    assert!(
        !todo.is_empty() || !problems.is_empty(),
        "no attempt matches GPUZZLE_MISTAKES={filter:?}"
    );

    let workspaces: Vec<_> = (0..WORKERS.min(todo.len().max(1))).map(workspace).collect();
    require_nvrtc(&workspaces[0].1);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for (_, ws) in &workspaces {
            let (todo, next, results) = (&todo, &next, &results);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(a) = todo.get(i) else { break };
                let g = grade(ws, a);
                results.lock().unwrap().push(g);
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.rel.cmp(&b.rel));

    let gaps = listed("KNOWN_HELP_GAPS");
    let gap_set: BTreeSet<&str> = gaps.iter().map(String::as_str).collect();
    let bugs = listed("KNOWN_TOOL_BUGS");
    let bug_set: BTreeSet<&str> = bugs.iter().map(String::as_str).collect();
    let mut now_gaps = vec![];
    let mut known_bugs = 0;
    let mut help_text_note = false;
    for g in &results {
        help_text_note |= g.help_from_text;
        let bug = bug_set.contains(g.rel.as_str());
        match (&g.failure, bug) {
            (Some(_), true) => {
                known_bugs += 1;
                continue;
            }
            (Some((want, got)), false) => {
                problems.push((g.rel.clone(), want.clone(), got.clone()));
                continue;
            }
            (None, true) => problems.push((
                g.rel.clone(),
                "a verdict, kind or line the tool gets wrong (listed in KNOWN_TOOL_BUGS)".into(),
                "the tool now agrees: remove it from KNOWN_TOOL_BUGS".into(),
            )),
            (None, false) => {}
        }
        // A placeholder is never a known gap: every help must read whole.
        if let Some((what, help)) = &g.placeholder {
            problems.push((
                g.rel.clone(),
                "help without an empty name or a template's leftover".into(),
                format!("{what} in: {help}"),
            ));
        }
        let listed = gap_set.contains(g.rel.as_str());
        match (&g.help_gap, listed) {
            (Some((want, got)), false) => {
                problems.push((g.rel.clone(), want.clone(), got.clone()));
                now_gaps.push(g.rel.clone());
            }
            (Some(_), true) => now_gaps.push(g.rel.clone()),
            (None, true) => problems.push((
                g.rel.clone(),
                "a help gap (listed in KNOWN_HELP_GAPS)".into(),
                "the help check now passes: remove it from KNOWN_HELP_GAPS".into(),
            )),
            (None, false) => {}
        }
    }
    // A listed attempt that was not graded at all: stale, unless a filter left it out.
    for (file, list) in [("KNOWN_HELP_GAPS", &gaps), ("KNOWN_TOOL_BUGS", &bugs)] {
        for rel in list {
            if filter.is_none() && !all_rels.contains(rel) {
                problems.push((
                    rel.clone(),
                    format!("an attempt listed in {file}"),
                    format!("no such attempt: remove it from {file}"),
                ));
            }
        }
    }

    if std::env::var_os("GPUZZLE_MISTAKES_WRITE_GAPS").is_some() {
        assert!(
            filter.is_none(),
            "GPUZZLE_MISTAKES_WRITE_GAPS needs the whole suite (no GPUZZLE_MISTAKES)"
        );
        let mut text = String::from(
            "# Attempts whose help check fails today (verdict, kind and line still hold).\n\
             # Written by GPUZZLE_MISTAKES_WRITE_GAPS=1 cargo test --test mistakes; see README.md.\n",
        );
        for rel in &now_gaps {
            text.push_str(rel);
            text.push('\n');
        }
        std::fs::write(root().join("KNOWN_HELP_GAPS"), text).unwrap();
        eprintln!(
            "wrote {} entries to tests/mistakes/KNOWN_HELP_GAPS",
            now_gaps.len()
        );
        problems.retain(|(_, want, _)| !want.starts_with("help ") && !want.starts_with("a help"));
    }

    let wrong = todo.iter().filter(|a| a.expect == Expect::Fail).count();
    let mut report =
        format!(
        "mistakes suite: {} attempts ({wrong} wrong, {} correct) in {:.1}s, {} known help gaps, \
         {known_bugs} known tool bugs\n",
        todo.len(),
        todo.len() - wrong,
        started.elapsed().as_secs_f64(),
        now_gaps.iter().filter(|r| gap_set.contains(r.as_str())).count(),
    );
    if help_text_note {
        report.push_str(
            "note: the JSON of `gpuzzle check` has no `help` on its diagnostics yet, so the help \
             was read from the text report of `gpuzzle run N`; once the JSON carries `help`, the \
             suite reads it from there.\n",
        );
    }
    eprint!("{report}");
    if problems.is_empty() {
        return;
    }
    let mut table = format!("{} problems:\n", problems.len());
    for (rel, want, got) in &problems {
        let _ = writeln!(
            table,
            "  {rel}\n      expected: {want}\n      got:      {got}"
        );
    }
    panic!("{table}");
}

#[test]
fn headers_parse_as_documented() {
    let text = "// expect: fail\n// kind: shared-race\n// line: @race\n\
                // help-has: __syncthreads() | barrier\n// help-not: atomicAdd\n\
                // Puzzle 9\n// kind: ignored\nint x; // @race\n";
    let a = parse("09_pooling/x.cu", text).unwrap();
    assert_eq!((a.puzzle_id, a.puzzle_file.as_str()), (9, "09_pooling.cu"));
    assert_eq!(a.kind.as_deref(), Some("shared-race"));
    assert_eq!(a.line, Some(8));
    assert_eq!(a.help_has, vec![vec!["__syncthreads()", "barrier"]]);
    assert_eq!(a.help_not, vec!["atomicadd"]);
    assert!(parse("09_pooling/x.cu", "// expect: fail\n// kind: shared-race\n").is_err());
    assert!(parse("09_pooling/x.cu", "// expect: pass\n// kind: assert\n").is_err());
    assert!(parse("09_pooling/x.cu", "// expect: maybe\n").is_err());
    assert!(parse("x/x.cu", "// expect: pass\n").is_err());
    let report = "  error[shared-race]: thread 1 ...\n   --> puzzles/09_pooling.cu:14:9\n    |\n\
                  14 |  x\n    |\n    = help: put a barrier\n      between them\n\n";
    assert_eq!(
        help_from_text(report, "shared-race", 14).as_deref(),
        Some("put a barrier between them")
    );
    assert_eq!(help_from_text(report, "shared-race", 15), None);
}

#[test]
fn outputs_within_the_puzzles_tolerance_do_not_differ() {
    let puzzle: Value = serde_json::from_str(
        r#"{"tests": [{"outputs": {"out": {"expected": [0.5, 100.0], "got": [0.5004, 100.0]}}}]}"#,
    )
    .unwrap();
    assert!(outputs_differ(&puzzle, Tolerance::default()));
    assert!(!outputs_differ(
        &puzzle,
        Tolerance {
            abs: 1e-3,
            rel: 0.0
        }
    ));
    let dir = std::env::temp_dir().join(format!("mistakes-tol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("40_x.toml");
    std::fs::write(&file, "id = 40\ntolerance = { abs = 2e-3, rel = 1 }\n").unwrap();
    let t = tolerance_of(&file);
    assert_eq!((t.abs, t.rel), (2e-3, 1.0));
    let none = tolerance_of(&dir.join("missing.toml"));
    assert_eq!((none.abs, none.rel), (0.0, 0.0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn placeholders_and_empty_names_in_a_help_are_caught() {
    // The issue's examples: an empty name in a code span, a comparison with nothing on a side.
    assert!(placeholder_in("s is only `` long there").is_some());
    assert!(placeholder_in("guard it: `if (per - 1 - j < )`").is_some());
    assert!(placeholder_in("the barrier on line 0 is skipped").is_some());
    assert!(placeholder_in("call `()` first").is_some());
    assert!(placeholder_in("index `tile[]` again").is_some());
    assert!(placeholder_in("the {name} of the array").is_some());
    assert!(placeholder_in("read {} twice").is_some());
    assert!(placeholder_in("store it in  before the loop").is_some());
    // Whole help: code with braces and spacing as the learner wrote it, line 10, `f()`.
    assert_eq!(
        placeholder_in("a tree: `for (int s = 64; s > 0; s /= 2) { if (t < s) a[t] += a[t + s]; }` on line 10, then `__syncthreads()`; `x  = 1` as written"),
        None
    );
}
