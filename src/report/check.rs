//! `gpuzzle check`: every puzzle's verdict at once, for a learner's overview and for CI: a
//! table with one line per puzzle, JSON for scripts, JUnit XML for CI dashboards.

use super::{json as pieces, layout, number, puzzle, reason, snippet};
use crate::emu::result::BlockTotals;
use crate::judge::outcome::{BlockLimitKind, OutputCompare, PuzzleOutcome, TestOutcome};
use crate::puzzle::BlockLimits;
use crate::puzzle::Puzzle;
use colored::Colorize;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// Said first whenever the reference solutions were graded, so nobody mistakes it for progress.
const SOLUTIONS_NOTE: &str =
    "Graded the reference solutions (solutions/), not your own kernels in puzzles/.";

/// `#  puzzle  tests  result` with a one-line reason per failure, then `12 of 14 passed`.
pub fn table(outcomes: &[PuzzleOutcome], solutions: bool) -> String {
    let wid = outcomes
        .iter()
        .map(|o| o.id.to_string().len())
        .max()
        .unwrap_or(1)
        .max(2);
    let wslug = outcomes
        .iter()
        .map(|o| o.slug.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut lines = vec![];
    if solutions {
        lines.push(SOLUTIONS_NOTE.yellow().bold().to_string());
    }
    lines.push(format!(
        "{:>wid$}  {:<wslug$}  {:>5}  result",
        "#", "puzzle", "tests"
    ));
    for o in outcomes {
        let result = if o.passed {
            "pass".green().to_string()
        } else {
            format!("{}  {}", "FAIL".red().bold(), clip(&reason::puzzle(o)))
        };
        let slug = format!("{:<wslug$}", o.slug);
        lines.push(format!(
            "{:>wid$}  {slug}  {:>5}  {result}",
            o.id,
            tests_cell(o)
        ));
    }
    lines.push(String::new());
    lines.push(total(outcomes));
    // Graded on the emulator and also run on the GPU: whether the two agreed, in one line.
    lines.extend(super::also::summary(outcomes));
    // A kernel that fails only the test it could not see: said in full, below the table.
    for o in outcomes {
        if let Some(m) = o.unseen_message() {
            lines.push(String::new());
            lines.push(format!("Puzzle {} ({}): {m}.", o.id, o.slug));
        }
    }
    lines.join("\n")
}

/// NVRTC's warnings, puzzle by puzzle, each drawn over its line, for after the table (a warning
/// such as "expression has no effect" is often the whole bug, and a passing puzzle has no other
/// place to say it). `sources[i]` is the text of `outcomes[i].file` when it could be read.
pub fn warnings(outcomes: &[PuzzleOutcome], sources: &[Option<String>]) -> Option<String> {
    let parts: Vec<String> = outcomes
        .iter()
        .zip(sources)
        .filter_map(|(o, source)| {
            let shown = puzzle::compiler_warnings(o, source.as_deref())?;
            let head = format!("Puzzle {} ({}): NVRTC warns", o.id, o.slug);
            Some(format!(
                "{}
{shown}",
                head.yellow().bold()
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// A reason cut to fit a terminal line (JUnit and JSON keep it whole).
fn clip(reason: &str) -> String {
    const MAX: usize = 100;
    if reason.chars().count() <= MAX {
        return reason.to_string();
    }
    let cut: String = reason.chars().take(MAX - 1).collect();
    format!("{}…", cut.trim_end())
}

/// `2/2`: tests passed of tests run; `-` when nothing ran (a compile error).
fn tests_cell(o: &PuzzleOutcome) -> String {
    if o.tests.is_empty() {
        return "-".to_string();
    }
    let passed = o.tests.iter().filter(|t| t.passed).count();
    format!("{passed}/{}", o.tests.len())
}

fn total(outcomes: &[PuzzleOutcome]) -> String {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    let line = format!("{passed} of {} passed", outcomes.len());
    if passed == outcomes.len() {
        line.green().bold().to_string()
    } else {
        line.red().bold().to_string()
    }
}

/// The JSON scripts read (outside this repository too; keep the shape):
/// `{"passed", "failed", "puzzles": [{"id", "slug", "title", "file", "passed", "tests": [..]}]}`,
/// with `"compile_error"` on a puzzle that did not compile (its `tests` empty), or
/// `"puzzle_error"` on one whose puzzle file is broken (`file` is then that `.toml`),
/// `"missing_kernel"` (the name expected, beside `"compile_error"`'s message) on one whose file
/// lacks the kernel, and
/// `"also"` on one that also ran on the GPU (`--backend auto` with a GPU; see `also::json`),
/// and `"unseen_failure"` on one that fails only its `[unseen]` test (whose test object has
/// `"unseen": true`).
pub fn json(outcomes: &[PuzzleOutcome]) -> Value {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    json!({
        "passed": passed,
        "failed": outcomes.len() - passed,
        "puzzles": outcomes.iter().map(puzzle_json).collect::<Vec<_>>(),
    })
}

fn puzzle_json(o: &PuzzleOutcome) -> Value {
    let mut v = json!({
        "id": o.id,
        "slug": o.slug,
        "title": o.title,
        "file": o.file,
        "passed": o.passed,
        "tests": o.tests.iter().map(test_json).collect::<Vec<_>>(),
    });
    // The `[[mistake]]` hints that answer this failure (`{kind, line, hint}`): added only where
    // some matched, so other puzzles keep their exact shape.
    if let (false, Some(map)) = (o.mistakes.is_empty(), v.as_object_mut()) {
        map.insert("mistake_hints".into(), json!(o.mistakes));
    }
    if let (Some(e), Some(map)) = (&o.compile_error, v.as_object_mut()) {
        // A broken puzzle file is no compile error: its errors go under their own key.
        let key = if o.broken_puzzle_file {
            "puzzle_error"
        } else {
            "compile_error"
        };
        map.insert(key.into(), Value::from(e.as_str()));
    }
    // A kernel the file does not define (then `compile_error` says so): its name, added.
    if let (Some(name), Some(map)) = (&o.missing_kernel, v.as_object_mut()) {
        map.insert("missing_kernel".into(), Value::from(name.as_str()));
    }
    if let (Some(also), Some(map)) = (super::also::json(o), v.as_object_mut()) {
        map.insert("also".into(), also);
    }
    // The unseen test (`check` adds it): marked `"unseen": true`; and when it is the only
    // failure, `"unseen_failure"` says a size is probably hard-coded. Added only where they apply.
    if let Some(u) = &o.unseen {
        let tests = v.get_mut("tests").and_then(Value::as_array_mut);
        for t in tests.into_iter().flatten() {
            if let (true, Some(map)) = (t["name"] == u.test.as_str(), t.as_object_mut()) {
                map.insert("unseen".into(), Value::Bool(true));
            }
        }
    }
    if let (Some(m), Some(map)) = (o.unseen_message(), v.as_object_mut()) {
        map.insert("unseen_failure".into(), Value::from(m));
    }
    v
}

/// One test; `"error"` is added only when something stopped the test, `"kernels"` in a
/// multi-launch puzzle, `"perf"` where a perf figure is budgeted, `"over_budget"` (see
/// `json::over_budget`) where something went over budget, `"block_budget"`, `"require"` and
/// `"block_totals"` where the puzzle limits a block's totals, and `"over_block_budget"` and
/// `"under_require"` (see `json::block_overrun`) where a block broke those limits.
fn test_json(t: &TestOutcome) -> Value {
    let outputs: Map<String, Value> = t
        .outputs
        .iter()
        .map(|(name, c)| (name.clone(), output_json(c)))
        .collect();
    let mut v = json!({
        "name": t.name,
        "random": t.random,
        "passed": t.passed,
        "grid": t.grid,
        "block": t.block,
        "outputs": outputs,
        "counters": pieces::counters(&t.counters),
        "budget": pieces::budget(&t.budget),
        "diagnostics": pieces::diagnostics_with_help(&t.diagnostics),
    });
    if let Some(map) = v.as_object_mut() {
        if let Some(e) = &t.error {
            map.insert("error".into(), Value::from(e.as_str()));
        }
        // Only on a test left out after an earlier one ran into the step or time limit.
        if let Some(why) = &t.not_run {
            map.insert("not_run".into(), Value::from(why.as_str()));
        }
        // Added only where they apply, so single-launch puzzles keep their exact shape.
        if !t.kernels.is_empty() {
            let kernels = t
                .kernels
                .iter()
                .map(|k| {
                    let mut v = json!({
                        "kernel": k.name,
                        "counters": pieces::counters(&k.counters),
                        "budget": pieces::budget(&k.budget),
                    });
                    if let Some(map) = v.as_object_mut() {
                        block_keys(map, (&k.block_budget, &k.require), k.blocks.as_ref());
                    }
                    v
                })
                .collect::<Vec<_>>();
            map.insert("kernels".into(), Value::Array(kernels));
        }
        if !t.perf.is_empty() {
            let perf = t.perf.iter().map(pieces::perf).collect::<Vec<_>>();
            map.insert("perf".into(), Value::Array(perf));
        }
        if !t.over_budget.is_empty() {
            let over = t.over_budget.iter().map(pieces::over_budget);
            map.insert("over_budget".into(), Value::Array(over.collect()));
        }
        block_keys(map, (&t.block_budget, &t.require), t.blocks.as_ref());
        // `warp_require`: this test's minima, and the least warp with work beside them.
        if !t.warp_require.is_empty() {
            let minima: Map<String, Value> = (t.warp_require.iter())
                .map(|&(i, min)| {
                    (
                        crate::emu::result::Counters::NAMES[i].to_string(),
                        Value::from(min),
                    )
                })
                .collect();
            map.insert("warp_require".into(), Value::Object(minima));
            if let Some(w) = &t.warps {
                map.insert("warp_least".into(), pieces::counters(&w.least));
            }
        }
        let broke = |kind| {
            (t.block_overruns.iter())
                .filter(move |o| o.limit_kind == kind)
                .map(pieces::block_overrun)
                .collect::<Vec<_>>()
        };
        for (key, kind) in [
            ("over_block_budget", BlockLimitKind::Budget),
            ("under_require", BlockLimitKind::Require),
        ] {
            let list = broke(kind);
            if !list.is_empty() {
                map.insert(key.into(), Value::Array(list));
            }
        }
    }
    v
}

/// `"block_budget"` and `"require"` where set, with `"block_totals"` (the most and the least
/// of any block) beside them: absent from a puzzle that limits no block total.
fn block_keys(
    map: &mut Map<String, Value>,
    (budget, require): (&BlockLimits, &BlockLimits),
    blocks: Option<&BlockTotals>,
) {
    if budget.any() {
        map.insert("block_budget".into(), pieces::block_limits(budget));
    }
    if require.any() {
        map.insert("require".into(), pieces::block_limits(require));
    }
    if let (true, Some(b)) = (budget.any() || require.any(), blocks) {
        map.insert("block_totals".into(), pieces::block_totals(b));
    }
}

fn output_json(c: &OutputCompare) -> Value {
    let list = |vs: &[f64]| Value::Array(vs.iter().map(|&v| number::exact_json(v)).collect());
    json!({"expected": list(&c.expected), "got": list(&c.got)})
}

/// JUnit XML: a testsuite per puzzle (`09_pooling`), a testcase per test (classname
/// `gpuzzle.09_pooling`) with its `time`, and `file` and `line` attributes: the kernel file as
/// the learner names it and the line of the first diagnostic (or compile error). A failure's
/// message is the one-line reason and its body the plain text a learner would see. A puzzle
/// that did not compile fails each of its tests (named from `puzzles`) with the compile errors;
/// one whose puzzle file is broken has no tests, and fails one testcase `puzzle file`.
pub fn junit(outcomes: &[PuzzleOutcome], puzzles: &[Puzzle], solutions: bool) -> String {
    let mut report = Report::new(if solutions {
        "gpuzzle (reference solutions)"
    } else {
        "gpuzzle"
    });
    for o in outcomes {
        let names = puzzles
            .iter()
            .find(|p| p.id == o.id && p.slug == o.slug)
            .map(crate::judge::test_names)
            .unwrap_or_default();
        report.add_test_suite(suite(o, &names, solutions));
    }
    // Serializing in-memory strings only fails on a writer error, which a Vec never gives;
    // still, a broken report must not panic the CLI: say what happened in valid XML.
    report.to_string().unwrap_or_else(|e| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpuzzle\" tests=\"0\" failures=\"0\" errors=\"1\"><!-- {} --></testsuites>\n",
            e.to_string().replace("--", "- -")
        )
    })
}

/// One puzzle's testsuite; `test_names` are its tests as the judge names them (used when none
/// ran, so a compile error fails each of them).
fn suite(o: &PuzzleOutcome, test_names: &[String], solutions: bool) -> TestSuite {
    let name = format!("{:02}_{}", o.id, o.slug);
    let classname = format!("gpuzzle.{name}");
    let mut suite = TestSuite::new(name);
    suite.add_property(("title", o.title.as_str()));
    suite.add_property(("file", o.file.as_str()));
    suite.add_property(("graded", if solutions { "solutions" } else { "puzzles" }));
    // `also ran on NVIDIA H100: outputs match` (or how they differ): a failing test's message
    // names a disagreement too.
    if let Some(also) = super::also::line(o) {
        let first = layout::strip_ansi(also.lines().next().unwrap_or(""));
        suite.add_property(("also", first.trim()));
    }
    let mut cases = vec![];
    if let Some(log) = &o.compile_error {
        let body = compile_body(log);
        let line = snippet::compiler_notes(log)
            .iter()
            .find(|n| n.error)
            .map(|n| n.line);
        let names: Vec<&str> = match test_names {
            _ if o.broken_puzzle_file => vec!["puzzle file"],
            [] => vec!["tests"],
            names => names.iter().map(String::as_str).collect(),
        };
        for n in names {
            // Nothing ran: zero seconds, said rather than left out.
            let mut case = failing(n, reason::puzzle(o), body.clone());
            case.set_time(Duration::ZERO);
            cases.push((case, line));
        }
    } else if o.tests.is_empty() && !o.passed {
        cases.push((failing("tests", reason::puzzle(o), String::new()), None));
    }
    // A test left out after one ran into the step or time limit points where that one stopped.
    let limit_line = o.tests.iter().find_map(|t| {
        (t.diagnostics.iter())
            .find(|d| d.kind == crate::emu::result::DiagKind::StepLimit)
            .and_then(|d| d.line)
    });
    for t in &o.tests {
        let mut case = if t.passed {
            TestCase::new(t.name.as_str(), TestCaseStatus::success())
        } else if let Some(why) = &t.not_run {
            let mut status = TestCaseStatus::skipped();
            status.set_message(why.as_str());
            TestCase::new(t.name.as_str(), status)
        } else {
            // A disagreement with the GPU run: its elements and likelier cause first.
            let detail = puzzle::test_detail(t, &o.file);
            let body = match super::also::test_line(t) {
                Some(also) => format!("{also}\n\n{detail}"),
                None => detail,
            };
            // Failing only the unseen test is said as what it most likely means.
            let message = match o.fails_only_unseen() {
                Some(u) if u.test == t.name => o.unseen_message().unwrap_or_default(),
                _ => reason::test(t),
            };
            failing(&t.name, message, body)
        };
        if t.seconds.is_finite() && t.seconds >= 0.0 {
            case.set_time(Duration::from_secs_f64(t.seconds));
        }
        let line = match t.not_run {
            Some(_) => limit_line,
            None => failed_test_line(t),
        };
        cases.push((case, line));
    }
    let seconds: f64 = o
        .tests
        .iter()
        .map(|t| t.seconds)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .sum();
    suite.set_time(Duration::from_secs_f64(seconds));
    for (mut case, line) in cases {
        case.set_classname(classname.as_str());
        case.extra.insert("file".into(), o.file.as_str().into());
        if let Some(line) = line {
            case.extra.insert("line".into(), line.to_string().into());
        }
        suite.add_test_case(case);
    }
    suite
}

/// The line a failed test points at: its first diagnostic's (errors first), else the line of
/// a performance figure over budget.
pub(crate) fn failed_test_line(t: &TestOutcome) -> Option<u32> {
    if t.passed {
        return None;
    }
    reason::first_diagnostic(&t.diagnostics)
        .and_then(|d| d.line)
        .or_else(|| t.perf.iter().filter(|p| p.over()).find_map(|p| p.line))
}

/// The compile errors as plain located lines (`puzzles/03_guard.cu:3:58: error: ...`), without
/// the `does not compile` heading the failure's message already says; NVRTC's log as it is
/// when nothing in it is located (a missing file).
fn compile_body(log: &str) -> String {
    let notes = snippet::compiler_notes(log);
    if notes.is_empty() {
        return layout::strip_ansi(log.trim());
    }
    notes
        .iter()
        .map(|n| {
            let place = match n.column {
                Some(c) => format!("{}:{}:{c}", n.file, n.line),
                None => format!("{}:{}", n.file, n.line),
            };
            let level = if n.error { "error" } else { "warning" };
            let mut text = format!("{place}: {level}: {}", n.text);
            for more in &n.more {
                text += &format!("\n  {more}");
            }
            text
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn failing(name: &str, message: String, body: String) -> TestCase {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status.set_message(message);
    status.set_description(layout::strip_ansi(&body));
    TestCase::new(name, status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{DiagKind, Diagnostic, Severity, ThreadId};
    use crate::judge::outcome::OverBudget;
    use crate::report::counters::tests::test_with;

    fn pass(id: u32, slug: &str) -> PuzzleOutcome {
        PuzzleOutcome {
            id,
            slug: slug.into(),
            title: slug.to_uppercase(),
            file: format!("puzzles/{id:02}_{slug}.cu"),
            passed: true,
            tests: vec![
                test_with("one", [1, 1, 0, 0]),
                test_with("one, random inputs", [1, 1, 0, 0]),
            ],
            ..PuzzleOutcome::default()
        }
    }

    fn pooling_failure() -> PuzzleOutcome {
        let mut o = pass(9, "pooling");
        for t in &mut o.tests {
            t.passed = false;
            t.budget.global_reads = Some(1);
            t.outputs.insert(
                "out".into(),
                OutputCompare {
                    expected: vec![0.0, 1.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.5],
                    got: vec![0.0, 1.0, 2.0, 6.0, 9.0, 12.0, 15.0, f64::NAN],
                    mismatches: vec![2, 5, 7],
                    shape: None,
                    ..Default::default()
                },
            );
            t.diagnostics.push(Diagnostic {
                kind: DiagKind::SharedRace,
                severity: Severity::Error,
                message: "thread 2 reads shared[1] while thread 1 writes it & <more>".into(),
                help: None,
                file: Some("puzzles/09_pooling.cu".into()),
                line: Some(14),
                block: [0; 3],
                thread: [2, 0, 0],
                other_line: None,
                facts: Default::default(),
            });
        }
        o.tests[1].random = true;
        o.passed = false;
        o
    }

    fn over_budget() -> PuzzleOutcome {
        let mut o = pass(10, "dot-product");
        o.passed = false;
        o.tests[0].passed = false;
        o.tests[0].over_budget.push(OverBudget {
            counter: "global_reads",
            used: 9,
            budget: 2,
            thread: ThreadId::default(),
            ..OverBudget::default()
        });
        o
    }

    fn compile_error() -> PuzzleOutcome {
        PuzzleOutcome {
            passed: false,
            tests: vec![],
            compile_error: Some(
                "puzzles/11_conv-1d.cu does not compile\n  puzzles/11_conv-1d.cu:3:5: error: expected a \";\"\n".into(),
            ),
            ..pass(11, "conv-1d")
        }
    }

    fn all() -> Vec<PuzzleOutcome> {
        vec![
            pass(1, "map"),
            pooling_failure(),
            over_budget(),
            compile_error(),
        ]
    }

    #[test]
    fn table_has_a_row_and_reason_per_puzzle_and_a_total() {
        colored::control::set_override(false);
        let out = table(&all(), false);
        println!("{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], " #  puzzle       tests  result");
        assert_eq!(lines[1], " 1  map            2/2  pass");
        assert_eq!(
            lines[2],
            " 9  pooling        0/2  FAIL  3 of 8 elements differ in out; shared-race at 09_pooling.cu:14"
        );
        assert_eq!(
            lines[3],
            "10  dot-product    1/2  FAIL  over budget: global reads 9 > 2"
        );
        assert_eq!(
            lines[4],
            "11  conv-1d          -  FAIL  does not compile: expected a \";\" at 11_conv-1d.cu:3"
        );
        assert_eq!(lines.last(), Some(&"1 of 4 passed"));
        assert!(!out.contains("solutions/"));
        assert!(table(&all(), true).starts_with(SOLUTIONS_NOTE));
        let mut long = compile_error();
        long.compile_error = Some(format!("error: {}", "x".repeat(300)));
        let out = table(&[long], false);
        let row = out.lines().nth(1).unwrap();
        assert!(row.ends_with("x…") && row.chars().count() < 130);
    }

    #[test]
    fn json_has_exactly_the_agreed_shape() {
        let v = json(&all());
        assert_eq!(v["passed"], json!(1));
        assert_eq!(v["failed"], json!(3));
        let p = &v["puzzles"][1];
        let keys: Vec<&String> = p.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["file", "id", "passed", "slug", "tests", "title"]);
        // A failure that a `[[mistake]]` hint answers adds `mistake_hints`, nothing else.
        let mut with_hint = all();
        with_hint[1].mistakes = vec![crate::teach::hints::Matched {
            index: 0,
            kind: "shared-race".into(),
            line: Some(14),
            hint: "Put the barrier between the store and the reads.".into(),
        }];
        let h = &json(&with_hint)["puzzles"][1];
        let keys: Vec<&String> = h.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "file",
                "id",
                "mistake_hints",
                "passed",
                "slug",
                "tests",
                "title"
            ]
        );
        assert_eq!(
            h["mistake_hints"],
            json!([{"kind": "shared-race", "line": 14, "hint": "Put the barrier between the store and the reads."}])
        );
        assert_eq!(p["id"], json!(9));
        assert_eq!(p["slug"], json!("pooling"));
        assert_eq!(p["file"], json!("puzzles/09_pooling.cu"));
        let t = &p["tests"][1];
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "block",
                "budget",
                "counters",
                "diagnostics",
                "grid",
                "name",
                "outputs",
                "passed",
                "random"
            ]
        );
        assert_eq!(t["random"], json!(true));
        assert_eq!(t["passed"], json!(false));
        assert_eq!(t["grid"], json!([1, 1, 1]));
        assert_eq!(t["block"], json!([8, 1, 1]));
        assert_eq!(t["outputs"]["out"]["expected"][7], json!(18.5));
        assert_eq!(t["outputs"]["out"]["got"][7], Value::Null);
        assert!(t["outputs"]["out"]["got"][2].is_f64());
        let mut counters = json!({"global_reads": 1, "global_writes": 1, "shared_reads": 0,
                   "shared_writes": 0, "global_atomics": 0, "shared_atomics": 0});
        for f in crate::emu::technique::Family::ALL {
            counters[f.name()] = json!(0);
        }
        assert_eq!(t["counters"], counters);
        assert_eq!(t["budget"], json!({"global_reads": 1}));
        assert_eq!(t["diagnostics"][0]["kind"], json!("shared-race"));
        assert_eq!(t["diagnostics"][0]["line"], json!(14));
        let c = &v["puzzles"][3];
        assert_eq!(c["tests"], json!([]));
        assert_eq!(
            c["compile_error"],
            json!("puzzles/11_conv-1d.cu does not compile\n  puzzles/11_conv-1d.cu:3:5: error: expected a \";\"\n")
        );
        assert!(v["puzzles"][0].get("compile_error").is_none());
        assert!(serde_json::to_string(&v).is_ok());
    }

    #[test]
    fn json_adds_each_overrun_with_its_lines_and_keeps_the_rest() {
        let mut o = over_budget();
        o.tests[0].over_budget[0].thread.thread = [5, 0, 0];
        o.tests[0].over_budget[0].lines = vec![
            crate::judge::outcome::LineUse {
                file: Some("puzzles/10_dot_product.cu".into()),
                line: Some(14),
                count: 8,
                cells: vec!["a[5]".into()],
                distinct: 1,
            },
            crate::judge::outcome::LineUse {
                file: None,
                line: None,
                count: 1,
                ..Default::default()
            },
        ];
        let v = json(&[o]);
        let t = &v["puzzles"][0]["tests"][0];
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "block",
                "budget",
                "counters",
                "diagnostics",
                "grid",
                "name",
                "outputs",
                "over_budget",
                "passed",
                "random"
            ]
        );
        assert_eq!(
            t["over_budget"],
            json!([{
                "counter": "global_reads", "used": 9, "budget": 2,
                "block": [0, 0, 0], "thread": [5, 0, 0],
                "lines": [
                    {"file": "puzzles/10_dot_product.cu", "line": 14, "count": 8},
                    {"file": null, "line": null, "count": 1},
                ],
            }])
        );
        // A test within budget keeps its exact shape.
        assert!(v["puzzles"][0]["tests"][1].get("over_budget").is_none());
    }

    #[test]
    fn json_adds_block_limits_totals_and_the_blocks_that_broke_them() {
        use crate::emu::result::{BlockTotals, Counters};
        use crate::judge::outcome::{BlockLimitKind, BlockOverrun, LineUse};
        let mut o = pass(30, "dot-atomic");
        o.passed = false;
        for t in &mut o.tests {
            t.block_budget.global_atomics = Some(1);
            t.require.shared_writes = Some(1);
            t.blocks = Some(BlockTotals {
                least: Counters::default(),
                ..BlockTotals::of_block(
                    [1, 0, 0],
                    &Counters {
                        global_atomics: 16,
                        ..Counters::default()
                    },
                )
            });
        }
        let t = &mut o.tests[0];
        t.passed = false;
        t.block_overruns = vec![
            BlockOverrun {
                limit_kind: BlockLimitKind::Budget,
                counter: "global_atomics",
                used: 16,
                limit: 1,
                block: [1, 0, 0],
                warp: None,
                unfed: false,
                kernel: None,
                lines: vec![LineUse {
                    file: Some("puzzles/30_dot_atomic.cu".into()),
                    line: Some(6),
                    count: 16,
                    ..LineUse::default()
                }],
                help: None,
            },
            BlockOverrun {
                limit_kind: BlockLimitKind::Require,
                counter: "shared_writes",
                used: 0,
                limit: 1,
                block: [0, 0, 0],
                warp: None,
                unfed: false,
                kernel: None,
                lines: Vec::new(),
                help: None,
            },
        ];
        // The table's reason names the first: what was counted, the limit, the block.
        assert_eq!(
            reason::test(&o.tests[0]),
            "over block budget: global atomics 16 > 1 in block 1"
        );
        let v = json(&[o]);
        let t = &v["puzzles"][0]["tests"][0];
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "block",
                "block_budget",
                "block_totals",
                "budget",
                "counters",
                "diagnostics",
                "grid",
                "name",
                "outputs",
                "over_block_budget",
                "passed",
                "random",
                "require",
                "under_require",
            ]
        );
        assert_eq!(t["block_budget"], json!({"global_atomics": 1}));
        assert_eq!(t["require"], json!({"shared_writes": 1}));
        assert_eq!(t["block_totals"]["most"]["global_atomics"], 16);
        assert_eq!(t["block_totals"]["least"]["global_atomics"], 0);
        assert_eq!(
            t["over_block_budget"],
            json!([{"counter": "global_atomics", "used": 16, "budget": 1, "block": [1, 0, 0],
                    "lines": [{"file": "puzzles/30_dot_atomic.cu", "line": 6, "count": 16}]}])
        );
        assert_eq!(
            t["under_require"],
            json!([{"counter": "shared_writes", "used": 0, "require": 1, "block": [0, 0, 0]}])
        );
        // A test that broke nothing has the limits and totals, and no list.
        let other = &v["puzzles"][0]["tests"][1];
        assert!(other.get("over_block_budget").is_none() && other.get("under_require").is_none());
        assert!(other.get("block_totals").is_some());
    }

    #[test]
    fn a_broken_puzzle_file_is_said_so_by_its_outcome_not_its_file_name() {
        let broken = PuzzleOutcome {
            file: "puzzles/11_conv-1d.toml".into(),
            compile_error: Some("puzzles/11_conv-1d.toml:3: error: `titel`: unknown field".into()),
            broken_puzzle_file: true,
            ..pass(11, "conv-1d")
        };
        let j = puzzle_json(&broken);
        assert!(j.get("compile_error").is_none());
        assert_eq!(j["puzzle_error"], json!(broken.compile_error));
        assert!(reason::puzzle(&broken).starts_with("broken puzzle file: "));
        let xml = junit(std::slice::from_ref(&broken), &[], false);
        assert_eq!(count(&xml, "<testcase name=\"puzzle file\""), 1);
        // A kernel's compile error stays one whatever its file is called.
        let kernel = PuzzleOutcome {
            broken_puzzle_file: false,
            ..broken
        };
        assert!(puzzle_json(&kernel).get("puzzle_error").is_none());
        assert!(reason::puzzle(&kernel).starts_with("does not compile"));
        assert_eq!(count(&junit(&[kernel], &[], false), "puzzle file"), 0);
    }

    #[test]
    fn a_stopped_test_carries_its_error() {
        let mut o = over_budget();
        o.tests[0].error = Some("unsupported instruction".into());
        assert_eq!(
            json(&[o])["puzzles"][0]["tests"][0]["error"],
            json!("unsupported instruction")
        );
    }

    /// Counts of `needle` in `xml` (a small check; the XML is also parsed for balance below).
    fn count(xml: &str, needle: &str) -> usize {
        xml.matches(needle).count()
    }

    /// Every opened element is closed in order, and no raw `&`/`<` sits in text: well-formed enough
    /// to be sure the writer escaped our messages.
    fn assert_balanced(xml: &str) {
        let mut stack: Vec<String> = vec![];
        let mut rest = xml;
        while let Some(start) = rest.find('<') {
            let text = &rest[..start];
            assert!(!text.contains('<'));
            for (i, _) in text.match_indices('&') {
                let ent = &text[i..];
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                        .iter()
                        .any(|e| ent.starts_with(e)),
                    "bare & in {text:?}"
                );
            }
            let end = rest[start..].find('>').expect("unclosed tag") + start;
            let tag = &rest[start + 1..end];
            if tag.starts_with('?') || tag.starts_with('!') || tag.ends_with('/') {
            } else if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name));
            } else {
                stack.push(tag.split_whitespace().next().unwrap().to_string());
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
    }

    #[test]
    fn junit_has_a_case_per_test_and_the_right_counts() {
        colored::control::set_override(false);
        let pack = crate::puzzle::embedded_puzzles().unwrap();
        let conv = pack.iter().find(|p| p.id == 11).unwrap();
        let conv_tests = crate::judge::test_names(conv);
        assert!(conv_tests.len() >= 2);
        let mut outcomes = all();
        outcomes[1].tests[0].seconds = 0.25;
        outcomes[1].tests[1].seconds = 0.5;
        let xml = junit(&outcomes, &pack, false);
        println!("{xml}");
        assert_balanced(&xml);
        let cases = 6 + conv_tests.len();
        let failures = 3 + conv_tests.len();
        assert!(xml.contains(&format!(
            "<testsuites name=\"gpuzzle\" tests=\"{cases}\" failures=\"{failures}\""
        )));
        assert_eq!(count(&xml, "<testsuite "), 4);
        assert_eq!(count(&xml, "<testcase "), cases);
        assert_eq!(count(&xml, "<failure "), failures);
        assert!(xml.contains("<testsuite name=\"09_pooling\" tests=\"2\""));
        assert!(xml.contains("classname=\"gpuzzle.09_pooling\""));
        // Time, file and line on a testcase; the suite's time is its tests'.
        assert!(xml.contains(
            "<testcase name=\"one\" classname=\"gpuzzle.09_pooling\" time=\"0.250\" file=\"puzzles/09_pooling.cu\" line=\"14\">"
        ), "{xml}");
        assert!(xml.contains("time=\"0.750\""));
        // A compile error fails every test of the puzzle, at the error's line; no invented case.
        assert!(!xml.contains("name=\"compile\""));
        for name in &conv_tests {
            let head = format!("<testcase name=\"{name}\" classname=\"gpuzzle.11_conv-1d\"");
            let at = xml.find(&head).unwrap_or_else(|| panic!("{head}"));
            let tag = &xml[at..at + xml[at..].find('>').unwrap()];
            assert!(
                tag.contains("file=\"puzzles/11_conv-1d.cu\" line=\"3\""),
                "{tag}"
            );
        }
        let compile_failure = "<failure message=\"does not compile: expected a &quot;;&quot; at 11_conv-1d.cu:3\">puzzles/11_conv-1d.cu:3:5: error: expected a &quot;;&quot;</failure>";
        assert_eq!(count(&xml, compile_failure), conv_tests.len(), "{xml}");
        assert!(xml.contains(
            "message=\"3 of 8 elements differ in out; shared-race at 09_pooling.cu:14\""
        ));
        assert!(xml.contains("while thread 1 writes it &amp; &lt;more&gt;"));
        assert!(xml.contains("out: 3 of 8 elements differ"));
        assert!(!xml.contains('\x1b'));
        assert!(junit(&all(), &pack, true).contains("gpuzzle (reference solutions)"));
        // A puzzle the pack does not know still gets one failing case.
        let xml = junit(&[compile_error()], &[], false);
        assert_eq!(count(&xml, "<testcase name=\"tests\""), 1);
    }
}
