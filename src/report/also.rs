//! The line `run` adds when the kernel was graded on the emulator and also ran on the GPU:
//! `also ran on NVIDIA H100: outputs match`, or what differed and what that most likely means;
//! the same for `check`: a line under its table, a key in its JSON, a property in its JUnit.

use super::number::{exact_json, Style};
use crate::judge::outcome::{CrossCheck, CrossVerdict, LikelyCause, PuzzleOutcome, TestOutcome};
use colored::Colorize;
use serde_json::{json, Value};

/// The first test whose second run disagreed with the emulator's or could not be made, else the
/// first that ran there; None when the puzzle ran on one executor only.
fn first_telling(o: &PuzzleOutcome) -> Option<(&TestOutcome, &CrossCheck)> {
    let ran = || o.tests.iter().filter_map(|t| Some((t, t.cross.as_ref()?)));
    ran()
        .find(|(_, c)| c.verdict != CrossVerdict::Match)
        .or_else(|| ran().next())
}

/// `check --format json`'s `"also"` of a puzzle that also ran on the GPU (absent otherwise, so
/// a run on one executor keeps the shape it always had):
/// `{"device", "outputs_match", "verdict"}`, where `verdict` is `match`, `outputs-differ`,
/// `fault` (one only the GPU saw) or `could-not-run`, and `outputs_match` is true for `match`,
/// false for a disagreement and null when nothing could be compared. A disagreement adds the
/// first test it happened in (`"test"`) and what `run` shows: `"likely"`
/// (`race-or-undefined-behaviour` or `emulator-defect`) with `"elements"` (`{"buffer", "index",
/// "emulator", "gpu", "expected"}`, the first few) and `"more"` for `outputs-differ`,
/// `"diagnostic"` (as in `diagnostics`) for `fault`, `"message"` for `could-not-run`.
pub fn json(o: &PuzzleOutcome) -> Option<Value> {
    let (t, c) = first_telling(o)?;
    let (verdict, outputs_match) = match &c.verdict {
        CrossVerdict::Match => ("match", Value::Bool(true)),
        CrossVerdict::Differs { .. } => ("outputs-differ", Value::Bool(false)),
        CrossVerdict::Fault { .. } => ("fault", Value::Bool(false)),
        CrossVerdict::Error(_) => ("could-not-run", Value::Null),
    };
    let mut v = json!({
        "device": c.device,
        "outputs_match": outputs_match,
        "verdict": verdict,
    });
    let Some(map) = v.as_object_mut() else {
        return Some(v);
    };
    if c.verdict != CrossVerdict::Match {
        map.insert("test".into(), Value::from(t.name.as_str()));
    }
    match &c.verdict {
        CrossVerdict::Match => {}
        CrossVerdict::Differs {
            elements,
            more,
            likely,
        } => {
            map.insert("likely".into(), Value::from(likely_key(*likely)));
            let elements = elements
                .iter()
                .map(|e| {
                    json!({
                        "buffer": e.buffer,
                        "index": e.index,
                        "emulator": exact_json(e.emulator),
                        "gpu": exact_json(e.gpu),
                        "expected": exact_json(e.expected),
                    })
                })
                .collect();
            map.insert("elements".into(), Value::Array(elements));
            map.insert("more".into(), Value::from(*more));
        }
        CrossVerdict::Fault { diagnostic, likely } => {
            map.insert("likely".into(), Value::from(likely_key(*likely)));
            map.insert("diagnostic".into(), super::json::diagnostic(diagnostic));
        }
        CrossVerdict::Error(message) => {
            map.insert("message".into(), Value::from(message.as_str()));
        }
    }
    Some(v)
}

fn likely_key(l: LikelyCause) -> &'static str {
    match l {
        LikelyCause::KernelRaceOrUb => "race-or-undefined-behaviour",
        LikelyCause::EmulatorDefect => "emulator-defect",
    }
}

/// The line under `check`'s table when the puzzles also ran on the GPU: `also ran on NVIDIA
/// H100: outputs match in all 14 puzzles`, or in how many they differ (and which), or could not
/// run. None when nothing ran there.
pub fn summary(outcomes: &[PuzzleOutcome]) -> Option<String> {
    let ran: Vec<(&PuzzleOutcome, &CrossCheck)> = outcomes
        .iter()
        .filter_map(|o| Some((o, first_telling(o)?.1)))
        .collect();
    let device = &ran.first()?.1.device;
    let named = |pick: &dyn Fn(&CrossVerdict) -> bool| -> Vec<String> {
        ran.iter()
            .filter(|(_, c)| pick(&c.verdict))
            .map(|(o, _)| format!("{} {}", o.id, o.slug))
            .collect()
    };
    let differ = named(&|v| matches!(v, CrossVerdict::Differs { .. } | CrossVerdict::Fault { .. }));
    let not_run = named(&|v| matches!(v, CrossVerdict::Error(_)));
    let agree = ran.len() - differ.len() - not_run.len();
    let of = |n: usize| {
        if n == ran.len() && n > 1 {
            format!("all {n} puzzles")
        } else {
            format!(
                "{n} of {} puzzle{}",
                ran.len(),
                if ran.len() == 1 { "" } else { "s" }
            )
        }
    };
    let mut parts = vec![format!("outputs match in {}", of(agree))];
    if !differ.is_empty() {
        parts.push(
            format!("differ in {} ({})", of(differ.len()), differ.join(", "))
                .red()
                .bold()
                .to_string(),
        );
    }
    if !not_run.is_empty() {
        parts.push(format!(
            "could not run {} ({})",
            of(not_run.len()),
            not_run.join(", ")
        ));
    }
    Some(format!("also ran on {device}: {}", parts.join("; ")))
}

/// None when the kernel ran on one executor only.
pub fn line(o: &PuzzleOutcome) -> Option<String> {
    // The first test on which the runs disagree says it all; agreement is said once.
    let (t, c) = first_telling(o)?;
    let in_test = if o.tests.len() > 1 && c.verdict != CrossVerdict::Match {
        format!(" in test `{}`", t.name)
    } else {
        String::new()
    };
    Some(describe(c, &in_test))
}

/// What a test's JUnit failure adds when the GPU run disagreed: `line`'s text for that test.
pub(crate) fn test_line(t: &TestOutcome) -> Option<String> {
    let c = t.cross.as_ref().filter(|c| c.fails_the_test())?;
    Some(
        super::layout::strip_ansi(&describe(c, ""))
            .trim_start()
            .to_string(),
    )
}

fn describe(c: &CrossCheck, in_test: &str) -> String {
    let device = &c.device;
    let mut out = Vec::new();
    let likely = match &c.verdict {
        CrossVerdict::Match => return format!("  also ran on {device}: outputs match"),
        CrossVerdict::Error(message) => {
            return format!(
                "  also ran on {device}: {}{in_test}: {message}",
                "it could not run there (the verdict is the emulator's)"
                    .yellow()
                    .bold()
            )
        }
        CrossVerdict::Fault { diagnostic, likely } => {
            let at = diagnostic
                .line
                .map_or(String::new(), |l| format!(" (line {l})"));
            out.push(format!(
                "  also ran on {device}: {}{in_test}: {}{at}: {}",
                "a fault the emulator did not see".red().bold(),
                diagnostic.kind.as_str(),
                diagnostic.message
            ));
            *likely
        }
        CrossVerdict::Differs {
            elements,
            more,
            likely,
        } => {
            out.push(format!(
                "  also ran on {device}: {}{in_test}",
                "outputs differ from the emulator's".red().bold()
            ));
            let style = Style::of(
                elements
                    .iter()
                    .flat_map(|e| [&e.emulator, &e.gpu, &e.expected]),
            );
            for e in elements {
                out.push(format!(
                    "    {}[{}]: emulator {}, GPU {}, expected {}",
                    e.buffer,
                    e.index,
                    style.text(e.emulator),
                    style.text(e.gpu),
                    style.text(e.expected)
                ));
            }
            if *more > 0 {
                out.push(format!("    ({more} more elements differ)"));
            }
            *likely
        }
    };
    out.push(format!("  {}", cause(likely)));
    out.join("\n")
}

/// The disagreement in a few words, for `check`'s table and JUnit (None when the runs agree).
pub(crate) fn reason(t: &TestOutcome) -> Option<String> {
    let c = t.cross.as_ref().filter(|c| c.fails_the_test())?;
    let what = match &c.verdict {
        CrossVerdict::Fault { diagnostic, .. } => diagnostic.kind.as_str(),
        _ => "outputs differ",
    };
    Some(format!("{what} on {}", c.device))
}

fn cause(likely: LikelyCause) -> &'static str {
    match likely {
        LikelyCause::KernelRaceOrUb => "likelier a race or undefined behaviour in the kernel that the emulator's schedule hid (it runs one thread at a time, the GPU runs them together): look for a missing __syncthreads(), a value read before another thread wrote it, or an uninitialised variable",
        LikelyCause::EmulatorDefect => "likelier a defect of gpuzzle's emulator: the GPU computed the spec's answer and the emulator did not; please report it with this kernel (--backend gpu grades on the GPU alone)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::outcome::{CrossCheck, DiffElement};
    use crate::report::counters::tests::test_with;

    fn outcome(verdicts: Vec<CrossVerdict>) -> PuzzleOutcome {
        let tests = verdicts
            .into_iter()
            .enumerate()
            .map(|(i, verdict)| {
                let mut t = test_with(&format!("t{i}"), [1, 1, 0, 0]);
                t.cross = Some(CrossCheck {
                    device: "NVIDIA H100".into(),
                    verdict,
                });
                t
            })
            .collect();
        PuzzleOutcome {
            id: 1,
            slug: "map".into(),
            title: "Map".into(),
            file: "puzzles/01_map.cu".into(),
            passed: true,
            tests,
            ..PuzzleOutcome::default()
        }
    }

    #[test]
    fn agreement_is_one_line_and_one_run_says_nothing() {
        colored::control::set_override(false);
        let o = outcome(vec![CrossVerdict::Match, CrossVerdict::Match]);
        assert_eq!(
            line(&o).as_deref(),
            Some("  also ran on NVIDIA H100: outputs match")
        );
        let mut o = o;
        o.tests.iter_mut().for_each(|t| t.cross = None);
        assert_eq!(line(&o), None);
    }

    #[test]
    fn a_disagreement_shows_the_elements_and_the_likelier_cause() {
        colored::control::set_override(false);
        let o = outcome(vec![
            CrossVerdict::Match,
            CrossVerdict::Differs {
                elements: vec![DiffElement {
                    buffer: "out".into(),
                    index: 3,
                    emulator: 4.0,
                    gpu: 0.0,
                    expected: 4.0,
                }],
                more: 2,
                likely: LikelyCause::KernelRaceOrUb,
            },
        ]);
        let text = line(&o).unwrap();
        assert!(text.starts_with(
            "  also ran on NVIDIA H100: outputs differ from the emulator's in test `t1`\n    out[3]: emulator 4, GPU 0, expected 4\n    (2 more elements differ)\n  likelier a race"
        ), "{text}");
        assert_eq!(
            reason(&o.tests[1]).as_deref(),
            Some("outputs differ on NVIDIA H100")
        );
        assert_eq!(reason(&o.tests[0]), None);
        // JUnit's failure body for that test: the same, without naming the test.
        let detail = test_line(&o.tests[1]).unwrap();
        assert!(detail.starts_with(
            "also ran on NVIDIA H100: outputs differ from the emulator's\n    out[3]: emulator 4, GPU 0, expected 4\n"
        ), "{detail}");
        assert_eq!(test_line(&o.tests[0]), None);
    }

    #[test]
    fn check_json_says_whether_the_outputs_matched_and_how_they_differ() {
        let o = outcome(vec![CrossVerdict::Match, CrossVerdict::Match]);
        assert_eq!(
            json(&o),
            Some(
                serde_json::json!({"device": "NVIDIA H100", "outputs_match": true, "verdict": "match"})
            )
        );
        let o = outcome(vec![
            CrossVerdict::Match,
            CrossVerdict::Differs {
                elements: vec![DiffElement {
                    buffer: "out".into(),
                    index: 3,
                    emulator: 4.0,
                    gpu: f64::NAN,
                    expected: 4.0,
                }],
                more: 2,
                likely: LikelyCause::EmulatorDefect,
            },
        ]);
        assert_eq!(
            json(&o),
            Some(serde_json::json!({
                "device": "NVIDIA H100", "outputs_match": false, "verdict": "outputs-differ",
                "test": "t1", "likely": "emulator-defect",
                "elements": [{"buffer": "out", "index": 3, "emulator": 4.0, "gpu": null, "expected": 4.0}],
                "more": 2
            }))
        );
        let o = outcome(vec![CrossVerdict::Error("the worker died".into())]);
        assert_eq!(
            json(&o),
            Some(serde_json::json!({
                "device": "NVIDIA H100", "outputs_match": null, "verdict": "could-not-run",
                "test": "t0", "message": "the worker died"
            }))
        );
        let mut o = o;
        o.tests.iter_mut().for_each(|t| t.cross = None);
        assert_eq!(json(&o), None);
    }

    #[test]
    fn a_fault_only_the_gpu_saw_carries_its_diagnostic() {
        let d = crate::emu::result::Diagnostic {
            kind: crate::emu::result::DiagKind::OutOfBounds,
            severity: crate::emu::result::Severity::Error,
            message: "thread 3 wrote out[9]".into(),
            help: None,
            file: None,
            line: Some(4),
            block: [0; 3],
            thread: [3, 0, 0],
            other_line: None,
            facts: Default::default(),
        };
        let o = outcome(vec![CrossVerdict::Fault {
            diagnostic: Box::new(d.clone()),
            likely: LikelyCause::KernelRaceOrUb,
        }]);
        let v = json(&o).unwrap();
        assert_eq!(v["verdict"], "fault");
        assert_eq!(v["outputs_match"], false);
        assert_eq!(v["likely"], "race-or-undefined-behaviour");
        assert_eq!(v["diagnostic"], crate::report::json::diagnostic(&d));
    }

    #[test]
    fn checks_summary_counts_the_puzzles_that_agreed() {
        colored::control::set_override(false);
        let agree = outcome(vec![CrossVerdict::Match]);
        let mut differ = outcome(vec![CrossVerdict::Differs {
            elements: vec![],
            more: 1,
            likely: LikelyCause::KernelRaceOrUb,
        }]);
        differ.id = 2;
        differ.slug = "zip".into();
        let mut alone = outcome(vec![CrossVerdict::Match]);
        alone.tests.iter_mut().for_each(|t| t.cross = None);
        assert_eq!(
            summary(&[agree.clone(), agree.clone()]).as_deref(),
            Some("also ran on NVIDIA H100: outputs match in all 2 puzzles")
        );
        assert_eq!(
            summary(&[agree, differ, alone.clone()]).as_deref(),
            Some("also ran on NVIDIA H100: outputs match in 1 of 2 puzzles; differ in 1 of 2 puzzles (2 zip)")
        );
        assert_eq!(summary(&[alone]), None);
    }

    #[test]
    fn a_kernel_the_gpu_could_not_run_is_said_without_a_cause() {
        colored::control::set_override(false);
        let o = outcome(vec![CrossVerdict::Error(
            "the GPU worker could not start".into(),
        )]);
        assert_eq!(
            line(&o).as_deref(),
            Some("  also ran on NVIDIA H100: it could not run there (the verdict is the emulator's): the GPU worker could not start")
        );
        assert_eq!(reason(&o.tests[0]), None);
    }
}
