//! The line `run` adds when the kernel was graded on the emulator and also ran on the GPU:
//! `also ran on NVIDIA H100: outputs match`, or what differed and what that most likely means.

use super::number::Style;
use crate::judge::outcome::{CrossVerdict, LikelyCause, PuzzleOutcome, TestOutcome};
use colored::Colorize;

/// None when the kernel ran on one executor only.
pub fn line(o: &PuzzleOutcome) -> Option<String> {
    let device = &o.tests.iter().find_map(|t| t.cross.as_ref())?.device;
    let named = o.tests.len() > 1;
    // The first test on which the runs disagree says it all; agreement is said once.
    let Some((t, verdict)) = o.tests.iter().find_map(|t| {
        t.cross
            .as_ref()
            .filter(|c| c.verdict != CrossVerdict::Match)
            .map(|c| (t, &c.verdict))
    }) else {
        return Some(format!("  also ran on {device}: outputs match"));
    };
    let in_test = if named {
        format!(" in test `{}`", t.name)
    } else {
        String::new()
    };
    let mut out = Vec::new();
    let likely = match verdict {
        CrossVerdict::Match => return None,
        CrossVerdict::Error(message) => {
            return Some(format!(
                "  also ran on {device}: {}{in_test}: {message}",
                "it could not run there (the verdict is the emulator's)"
                    .yellow()
                    .bold()
            ))
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
    Some(out.join("\n"))
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
            warnings: vec![],
            compile_error: None,
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
    }

    #[test]
    fn a_kernel_the_gpu_could_not_run_is_said_without_a_cause() {
        colored::control::set_override(false);
        let o = outcome(vec![CrossVerdict::Error(
            "cp.async cannot be instrumented".into(),
        )]);
        assert_eq!(
            line(&o).as_deref(),
            Some("  also ran on NVIDIA H100: it could not run there (the verdict is the emulator's): cp.async cannot be instrumented")
        );
        assert_eq!(reason(&o.tests[0]), None);
    }
}
