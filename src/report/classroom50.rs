//! `check --format classroom50`: Classroom 50's `result.json` (`classroom50/result/v1`), the
//! file a teacher's `autograder.py` must leave in the student's checkout.
//!
//! The contract: `schema`; the submission's identity, `classroom`, `assignment`, `submission`,
//! `commit`, `release` and `review`, copied from the runner's environment (`CLASSROOM`,
//! `ASSIGNMENT`, `SUBMISSION_TAG`, `COMMIT_URL`, `RELEASE_URL`, `REVIEW_URL`, the last falling
//! back to the commit as Classroom 50's own templates do); `datetime`, the submission instant
//! in UTC ISO 8601; `score` and `max-score`, the sums of the tests'; and `tests`, each
//! `{test-name, passed, score, max-score}` (extra fields are kept by the runner: gpuzzle adds
//! the learner's `file` and a one-line `message`). One test per puzzle, worth its `points`.

use super::{layout, reason};
use crate::judge::outcome::PuzzleOutcome;
use serde::Serialize;

/// The schema sentinel the runner checks.
pub const SCHEMA: &str = "classroom50/result/v1";

/// The runner's environment variables that name the submission, in the order of the JSON keys
/// they fill. `REVIEW_URL` is optional (see [`Identity::from_env`]).
pub const IDENTITY_VARS: [&str; 6] = [
    "CLASSROOM",
    "ASSIGNMENT",
    "SUBMISSION_TAG",
    "COMMIT_URL",
    "RELEASE_URL",
    "REVIEW_URL",
];

/// Who and what is graded, as the runner names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub classroom: String,
    pub assignment: String,
    pub submission: String,
    pub commit: String,
    pub release: String,
    pub review: String,
}

impl Identity {
    /// The identity from `get` (the process environment in `check`): every variable but
    /// `REVIEW_URL` must be set and non-empty; a missing `REVIEW_URL` is the commit's URL. The
    /// error names the variables missing.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Identity, Vec<&'static str>> {
        let value = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let missing: Vec<&'static str> = IDENTITY_VARS[..5]
            .iter()
            .copied()
            .filter(|n| value(n).is_none())
            .collect();
        if !missing.is_empty() {
            return Err(missing);
        }
        let v = |name: &str| value(name).unwrap_or_default();
        Ok(Identity {
            classroom: v("CLASSROOM"),
            assignment: v("ASSIGNMENT"),
            submission: v("SUBMISSION_TAG"),
            commit: v("COMMIT_URL"),
            release: v("RELEASE_URL"),
            review: value("REVIEW_URL").unwrap_or_else(|| v("COMMIT_URL")),
        })
    }
}

#[derive(Debug, Serialize)]
struct Result50<'a> {
    schema: &'static str,
    #[serde(flatten)]
    identity: &'a Identity,
    datetime: String,
    score: u64,
    #[serde(rename = "max-score")]
    max_score: u64,
    tests: Vec<Test>,
}

#[derive(Debug, Serialize)]
struct Test {
    #[serde(rename = "test-name")]
    test_name: String,
    passed: bool,
    score: u64,
    #[serde(rename = "max-score")]
    max_score: u64,
    /// The learner's kernel file (for a broken puzzle file, that `.toml`).
    file: String,
    /// `passed`, `not started`, or why it failed, in one line.
    message: String,
}

/// The result JSON (pretty-printed, as Classroom 50's templates write it) for the graded
/// puzzles, each with what passing it is worth; `datetime` is the submission instant, already
/// formatted (see [`iso_utc`]).
pub fn result_json(
    graded: &[(&PuzzleOutcome, u32)],
    identity: &Identity,
    datetime: String,
) -> String {
    let tests: Vec<Test> = graded.iter().map(|&(o, points)| test(o, points)).collect();
    let result = Result50 {
        schema: SCHEMA,
        identity,
        datetime,
        score: tests.iter().map(|t| t.score).sum(),
        max_score: tests.iter().map(|t| t.max_score).sum(),
        tests,
    };
    // Plain strings, numbers and booleans: serialising cannot fail.
    serde_json::to_string_pretty(&result).unwrap_or_default()
}

fn test(o: &PuzzleOutcome, points: u32) -> Test {
    let points = u64::from(points);
    let message = if o.passed {
        "passed".to_string()
    } else if o.not_started {
        "not started (the starter as shipped)".to_string()
    } else {
        // One line: the reason's first, without colours.
        let text = layout::strip_ansi(&reason::puzzle(o));
        text.lines().next().unwrap_or_default().trim().to_string()
    };
    Test {
        test_name: format!("Puzzle {} ({}): {}", o.id, o.slug, o.title),
        passed: o.passed,
        score: if o.passed { points } else { 0 },
        max_score: points,
        file: o.file.clone(),
        message,
    }
}

/// Seconds since the Unix epoch as `2026-06-01T14:32:01Z`.
pub fn iso_utc(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = crate::puzzle::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::outcome::TestOutcome;
    use crate::report::counters::tests::test_with;

    fn outcome(id: u32, passed: bool) -> PuzzleOutcome {
        PuzzleOutcome {
            id,
            slug: format!("p{id}"),
            title: format!("Puzzle number {id}"),
            file: format!("puzzles/{id:02}_p{id}.cu"),
            passed,
            tests: vec![TestOutcome {
                passed,
                error: (!passed).then(|| "out[0] is wrong".to_string()),
                ..test_with("one", [1, 1, 0, 0])
            }],
            ..PuzzleOutcome::default()
        }
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    const FULL: [(&str, &str); 6] = [
        ("CLASSROOM", "gpu-101"),
        ("ASSIGNMENT", "puzzles"),
        ("SUBMISSION_TAG", "submit/2026-06-01T14-32-05Z-a1b2c3d"),
        ("COMMIT_URL", "https://github.com/o/r/commit/abc"),
        (
            "RELEASE_URL",
            "https://github.com/o/r/releases/tag/submit%2Fx",
        ),
        ("REVIEW_URL", "https://github.com/o/r/compare/a...b"),
    ];

    #[test]
    fn the_identity_comes_from_the_runners_variables() {
        let id = Identity::from_env(env(&FULL)).expect("all set");
        assert_eq!(id.classroom, "gpu-101");
        assert_eq!(id.submission, "submit/2026-06-01T14-32-05Z-a1b2c3d");
        assert_eq!(id.review, "https://github.com/o/r/compare/a...b");
        // REVIEW_URL missing: the commit.
        let id = Identity::from_env(env(&FULL[..5])).expect("review optional");
        assert_eq!(id.review, id.commit);
        // Missing or empty ones are named.
        let e = Identity::from_env(env(&[("CLASSROOM", "x"), ("ASSIGNMENT", " ")])).unwrap_err();
        assert_eq!(
            e,
            vec!["ASSIGNMENT", "SUBMISSION_TAG", "COMMIT_URL", "RELEASE_URL"]
        );
    }

    #[test]
    fn the_result_follows_the_contract_and_scores_by_points() {
        let id = Identity::from_env(env(&FULL)).expect("all set");
        let (a, b, c) = (outcome(1, true), outcome(2, false), outcome(3, true));
        let json = result_json(
            &[(&a, 3), (&b, 2), (&c, 1)],
            &id,
            "2026-06-01T14:32:01Z".into(),
        );
        let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        let keys: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = vec![
            "schema",
            "classroom",
            "assignment",
            "submission",
            "commit",
            "release",
            "review",
            "datetime",
            "score",
            "max-score",
            "tests",
        ];
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["assignment"], "puzzles");
        assert_eq!(v["review"], "https://github.com/o/r/compare/a...b");
        assert_eq!(v["score"], 4);
        assert_eq!(v["max-score"], 6);
        let tests = v["tests"].as_array().expect("tests");
        let row = |i: usize| {
            (
                tests[i]["passed"].as_bool(),
                tests[i]["score"].as_u64(),
                tests[i]["max-score"].as_u64(),
            )
        };
        assert_eq!(row(0), (Some(true), Some(3), Some(3)));
        assert_eq!(row(1), (Some(false), Some(0), Some(2)));
        assert_eq!(row(2), (Some(true), Some(1), Some(1)));
        assert_eq!(tests[0]["test-name"], "Puzzle 1 (p1): Puzzle number 1");
        assert_eq!(tests[1]["file"], "puzzles/02_p2.cu");
        let why = tests[1]["message"].as_str().unwrap_or_default();
        assert!(!why.is_empty() && !why.contains('\n'), "{why:?}");
    }

    #[test]
    fn instants_are_utc_iso_8601() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(1_780_324_321), "2026-06-01T14:32:01Z");
        assert_eq!(iso_utc(951_782_400), "2000-02-29T00:00:00Z");
    }
}
