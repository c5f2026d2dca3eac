//! `gpuzzle check`: every puzzle's verdict at once, for a learner's overview and for CI: a
//! table with one line per puzzle, JSON for scripts, JUnit XML for CI dashboards.

use super::{json as pieces, layout, number, puzzle, reason};
use crate::judge::outcome::{OutputCompare, PuzzleOutcome, TestOutcome};
use colored::Colorize;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde_json::{json, Map, Value};

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
    lines.join("\n")
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
/// with `"compile_error"` on a puzzle that did not compile (its `tests` empty).
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
    if let (Some(e), Some(map)) = (&o.compile_error, v.as_object_mut()) {
        map.insert("compile_error".into(), Value::from(e.as_str()));
    }
    v
}

/// One test; `"error"` is added only when something stopped the test.
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
        "diagnostics": pieces::diagnostics(&t.diagnostics),
    });
    if let Some(map) = v.as_object_mut() {
        if let Some(e) = &t.error {
            map.insert("error".into(), Value::from(e.as_str()));
        }
        // Added only where they apply, so single-launch puzzles keep their exact shape.
        if !t.kernels.is_empty() {
            let kernels = t
                .kernels
                .iter()
                .map(|k| {
                    json!({
                        "kernel": k.name,
                        "counters": pieces::counters(&k.counters),
                        "budget": pieces::budget(&k.budget),
                    })
                })
                .collect::<Vec<_>>();
            map.insert("kernels".into(), Value::Array(kernels));
        }
        if !t.perf.is_empty() {
            let perf = t.perf.iter().map(pieces::perf).collect::<Vec<_>>();
            map.insert("perf".into(), Value::Array(perf));
        }
    }
    v
}

fn output_json(c: &OutputCompare) -> Value {
    let list = |vs: &[f64]| Value::Array(vs.iter().map(|&v| number::exact_json(v)).collect());
    json!({"expected": list(&c.expected), "got": list(&c.got)})
}

/// JUnit XML: a testsuite per puzzle (`09_pooling`), a testcase per test (classname
/// `gpuzzle.09_pooling`); a failure's message is the one-line reason and its body the plain
/// text a learner would see. A puzzle that did not compile is one failing testcase `compile`.
pub fn junit(outcomes: &[PuzzleOutcome], solutions: bool) -> String {
    let mut report = Report::new(if solutions {
        "gpuzzle (reference solutions)"
    } else {
        "gpuzzle"
    });
    for o in outcomes {
        report.add_test_suite(suite(o, solutions));
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

fn suite(o: &PuzzleOutcome, solutions: bool) -> TestSuite {
    let name = format!("{:02}_{}", o.id, o.slug);
    let classname = format!("gpuzzle.{name}");
    let mut suite = TestSuite::new(name);
    suite.add_property(("title", o.title.as_str()));
    suite.add_property(("file", o.file.as_str()));
    suite.add_property(("graded", if solutions { "solutions" } else { "puzzles" }));
    let mut cases = vec![];
    if let Some(log) = &o.compile_error {
        cases.push(failing("compile", reason::puzzle(o), log.clone()));
    } else if o.tests.is_empty() && !o.passed {
        cases.push(failing("tests", reason::puzzle(o), String::new()));
    }
    for t in &o.tests {
        cases.push(if t.passed {
            TestCase::new(t.name.as_str(), TestCaseStatus::success())
        } else {
            failing(&t.name, reason::test(t), puzzle::test_detail(t, &o.file))
        });
    }
    for mut case in cases {
        case.set_classname(classname.as_str());
        suite.add_test_case(case);
    }
    suite
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
            warnings: Vec::new(),
            compile_error: None,
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
        });
        o
    }

    fn compile_error() -> PuzzleOutcome {
        PuzzleOutcome {
            passed: false,
            tests: vec![],
            compile_error: Some("puzzles/11_conv.cu(3): error: expected a \";\"\n".into()),
            ..pass(11, "conv")
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
            "11  conv             -  FAIL  does not compile: puzzles/11_conv.cu(3): error: expected a \";\""
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
        assert_eq!(
            t["counters"],
            json!({"global_reads": 1, "global_writes": 1, "shared_reads": 0, "shared_writes": 0})
        );
        assert_eq!(t["budget"], json!({"global_reads": 1}));
        assert_eq!(t["diagnostics"][0]["kind"], json!("shared-race"));
        assert_eq!(t["diagnostics"][0]["line"], json!(14));
        let c = &v["puzzles"][3];
        assert_eq!(c["tests"], json!([]));
        assert_eq!(
            c["compile_error"],
            json!("puzzles/11_conv.cu(3): error: expected a \";\"\n")
        );
        assert!(v["puzzles"][0].get("compile_error").is_none());
        assert!(serde_json::to_string(&v).is_ok());
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
        let xml = junit(&all(), false);
        println!("{xml}");
        assert_balanced(&xml);
        assert!(xml.contains("<testsuites name=\"gpuzzle\" tests=\"7\" failures=\"4\""));
        assert_eq!(count(&xml, "<testsuite "), 4);
        assert_eq!(count(&xml, "<testcase "), 7);
        assert_eq!(count(&xml, "<failure "), 4);
        assert!(xml.contains("<testsuite name=\"09_pooling\" tests=\"2\""));
        assert!(xml.contains("classname=\"gpuzzle.09_pooling\""));
        assert!(xml.contains("<testcase name=\"compile\" classname=\"gpuzzle.11_conv\""));
        assert!(xml.contains(
            "message=\"3 of 8 elements differ in out; shared-race at 09_pooling.cu:14\""
        ));
        assert!(xml.contains("while thread 1 writes it &amp; &lt;more&gt;"));
        assert!(xml.contains("out: 3 of 8 elements differ"));
        assert!(!xml.contains('\x1b'));
        assert!(junit(&all(), true).contains("gpuzzle (reference solutions)"));
    }
}
