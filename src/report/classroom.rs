//! `check --format classroom`: the result GitHub Classroom's grading reporter
//! (`classroom-resources/autograding-grading-reporter`) reads from a step output, so the
//! teacher's dashboard gets points per puzzle.
//!
//! The reporter takes, for each runner id named in its `runners` input, the environment
//! variable `<ID>_RESULTS`: base64 of a JSON object shaped as the Classroom graders
//! (`autograding-command-grader`, `autograding-io-grader`) write it: `version` (1), `status`
//! (`pass`, `fail` or `error`), `max_score`, and `tests`, each with `name`, `status`, `score`,
//! `message`, `test_code`, `filename`, `line_no` and `execution_time`. It adds up the tests'
//! `score` against `max_score`, and fails its step when `status` is `fail` or `error`.
//! gpuzzle writes one test per puzzle, worth the puzzle's `points` when it passes and 0 when
//! not, as the line `result=BASE64` for `>> "$GITHUB_OUTPUT"`.

use super::{check, layout, reason, snippet};
use crate::judge::outcome::PuzzleOutcome;
use serde::Serialize;

/// The version of the result shape the graders write and the reporter reads.
const VERSION: u32 = 1;

/// The reporter's view of a whole run (`<ID>_RESULTS`, decoded).
#[derive(Debug, Serialize)]
struct Results {
    version: u32,
    status: Status,
    max_score: u64,
    tests: Vec<Test>,
}

/// One puzzle as one Classroom test.
#[derive(Debug, Serialize)]
struct Test {
    name: String,
    status: Status,
    score: u32,
    message: String,
    /// The command that grades this puzzle alone, as the learner would run it.
    test_code: String,
    /// The learner's kernel file (for a broken puzzle file, that `.toml`).
    filename: String,
    /// The line the failure points at; 0 when none is known (as the graders write it).
    line_no: u32,
    /// Seconds the puzzle's tests took, as the graders write it (`0.25s`).
    execution_time: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Pass,
    Fail,
    /// The puzzle could not be graded at all: its puzzle file is broken.
    Error,
}

/// The step-output line for the graded puzzles, each with what passing it is worth:
/// `result=` and the base64 of the reporter's JSON, ending in a newline.
pub fn output_line(graded: &[(&PuzzleOutcome, u32)]) -> String {
    format!("result={}\n", base64(results_json(graded).as_bytes()))
}

/// The reporter's JSON (before base64).
fn results_json(graded: &[(&PuzzleOutcome, u32)]) -> String {
    let tests: Vec<Test> = graded.iter().map(|&(o, points)| test(o, points)).collect();
    let status = if tests.iter().any(|t| t.status == Status::Fail) {
        Status::Fail
    } else if tests.iter().any(|t| t.status == Status::Error) {
        Status::Error
    } else {
        Status::Pass
    };
    let results = Results {
        version: VERSION,
        status,
        max_score: graded.iter().map(|&(_, p)| u64::from(p)).sum(),
        tests,
    };
    // Plain strings and numbers only: serialising cannot fail.
    serde_json::to_string(&results).unwrap_or_default()
}

fn test(o: &PuzzleOutcome, points: u32) -> Test {
    let status = if o.passed {
        Status::Pass
    } else if o.broken_puzzle_file {
        Status::Error
    } else {
        Status::Fail
    };
    let message = if o.passed {
        let n = o.tests.len();
        format!("passed ({n} test{})", if n == 1 { "" } else { "s" })
    } else if o.not_started {
        "not started (the starter as shipped)".to_string()
    } else {
        layout::strip_ansi(&reason::puzzle(o))
    };
    let seconds: f64 = o.tests.iter().map(|t| t.seconds).sum();
    Test {
        name: format!("Puzzle {} ({}): {}", o.id, o.slug, o.title),
        status,
        score: if o.passed { points } else { 0 },
        message,
        test_code: format!("gpuzzle check {}", o.id),
        filename: o.file.clone(),
        line_no: failure_line(o).unwrap_or(0),
        execution_time: format!("{seconds:.2}s"),
    }
}

/// Where a failed puzzle's failure is: the first failed test's line, else the first located
/// compile error (or puzzle-file error) in the puzzle's own file.
fn failure_line(o: &PuzzleOutcome) -> Option<u32> {
    if o.passed {
        return None;
    }
    o.tests
        .iter()
        .find_map(check::failed_test_line)
        .or_else(|| {
            let notes = snippet::compiler_notes(o.compile_error.as_deref()?);
            notes
                .iter()
                .find(|n| n.error && n.file == o.file)
                .or_else(|| notes.iter().find(|n| n.error))
                .map(|n| n.line)
        })
}

/// Standard base64 (RFC 4648, with `=` padding), as Node's `Buffer.from(s, "base64")` reads it.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::outcome::TestOutcome;
    use crate::report::counters::tests::test_with;

    #[test]
    fn base64_matches_rfc_4648() {
        // RFC 4648 section 10's test vectors.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
        // Every byte value and the last two alphabet characters.
        assert_eq!(base64(&[0xfb, 0xff, 0xbf]), "+/+/");
        assert_eq!(base64(&[0, 0x10, 0x83]), "ABCD");
    }

    fn outcome(id: u32, passed: bool) -> PuzzleOutcome {
        PuzzleOutcome {
            id,
            slug: format!("p{id}"),
            title: format!("Puzzle number {id}"),
            file: format!("puzzles/{id:02}_p{id}.cu"),
            passed,
            tests: vec![TestOutcome {
                passed,
                seconds: 0.25,
                error: (!passed).then(|| "out[0] is wrong".to_string()),
                ..test_with("one", [1, 1, 0, 0])
            }],
            ..PuzzleOutcome::default()
        }
    }

    #[test]
    fn the_json_scores_each_puzzle_by_its_points() {
        let (a, b, c) = (outcome(1, true), outcome(2, false), outcome(3, true));
        let json = results_json(&[(&a, 3), (&b, 2), (&c, 1)]);
        let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        assert_eq!(v["version"], 1);
        assert_eq!(v["status"], "fail");
        assert_eq!(v["max_score"], 6);
        let tests = v["tests"].as_array().expect("tests");
        let scores: Vec<_> = tests.iter().map(|t| t["score"].as_u64()).collect();
        assert_eq!(scores, vec![Some(3), Some(0), Some(1)]);
        assert_eq!(tests[0]["status"], "pass");
        assert_eq!(tests[1]["status"], "fail");
        assert_eq!(tests[0]["name"], "Puzzle 1 (p1): Puzzle number 1");
        assert_eq!(tests[0]["filename"], "puzzles/01_p1.cu");
        assert_eq!(tests[0]["test_code"], "gpuzzle check 1");
        assert_eq!(tests[0]["execution_time"], "0.25s");
        assert_eq!(tests[0]["line_no"], 0);
        assert!(!tests[1]["message"].as_str().unwrap_or("").is_empty());
        // All passing: `pass`, and the line decodes back to the JSON.
        let all = results_json(&[(&a, 3), (&c, 1)]);
        assert!(all.contains("\"status\":\"pass\""), "{all}");
        let line = output_line(&[(&a, 3), (&c, 1)]);
        assert_eq!(line, format!("result={}\n", base64(all.as_bytes())));
    }
}
