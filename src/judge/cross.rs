//! Grading on both executors: the test's verdict comes from the emulator (deterministic, every
//! checker), and the learner's kernel also runs on the GPU, whose outputs must match the spec
//! too. Here: comparing the two runs and saying what a disagreement most likely is.

use super::outcome::{CrossCheck, CrossVerdict, DiffElement, LikelyCause, OutputCompare};
use crate::emu::result::Diagnostic;
use std::collections::BTreeMap;

/// Differing elements listed in a report; the rest are counted.
pub const SHOWN_ELEMENTS: usize = 8;

/// Compare the emulator's outputs (`emu`, each against the spec) with the GPU's (`gpu`, each
/// against the same spec), given the GPU run's first error, if any, and whether the emulator
/// run itself reported one.
pub fn compare(
    device: &str,
    emu: &BTreeMap<String, OutputCompare>,
    gpu: &BTreeMap<String, OutputCompare>,
    gpu_fault: Option<&Diagnostic>,
    emu_faulted: bool,
) -> CrossCheck {
    let verdict = match gpu_fault {
        // A fault the emulator did not see: the GPU's outputs stop meaning anything after it.
        Some(d) if !emu_faulted => CrossVerdict::Fault {
            diagnostic: Box::new(d.clone()),
            likely: LikelyCause::KernelRaceOrUb,
        },
        _ => differing(emu, gpu),
    };
    CrossCheck {
        device: device.to_string(),
        verdict,
    }
}

/// The elements whose verdict or value differs between the runs, and the likelier cause.
fn differing(
    emu: &BTreeMap<String, OutputCompare>,
    gpu: &BTreeMap<String, OutputCompare>,
) -> CrossVerdict {
    let mut elements = Vec::new();
    let mut total = 0;
    let (mut emu_right, mut gpu_right) = (true, true);
    for (name, e) in emu {
        let Some(g) = gpu.get(name) else { continue };
        emu_right &= e.mismatches.is_empty();
        gpu_right &= g.mismatches.is_empty() && g.got.len() == g.expected.len();
        for (i, (&ev, &gv)) in e.got.iter().zip(&g.got).enumerate() {
            let e_ok = !e.mismatches.contains(&i);
            let g_ok = !g.mismatches.contains(&i);
            // Both within tolerance is agreement even if the bits differ (GPU maths may round
            // differently); both wrong with the same value is agreement too.
            let same =
                (e_ok && g_ok) || (!e_ok && !g_ok && (ev == gv || (ev.is_nan() && gv.is_nan())));
            if same {
                continue;
            }
            total += 1;
            if elements.len() < SHOWN_ELEMENTS {
                elements.push(DiffElement {
                    buffer: name.clone(),
                    index: i,
                    emulator: ev,
                    gpu: gv,
                    expected: e.expected.get(i).copied().unwrap_or(f64::NAN),
                });
            }
        }
    }
    if total == 0 {
        return CrossVerdict::Match;
    }
    // Right on the GPU and wrong on the emulator: the emulator computed something a GPU does not.
    // Anything else (right only on the emulator, or wrong differently on each) is a kernel
    // whose result depends on the schedule: a race or undefined behaviour that the emulator's
    // one-thread-at-a-time order happened to hide.
    let likely = if gpu_right && !emu_right {
        LikelyCause::EmulatorDefect
    } else {
        LikelyCause::KernelRaceOrUb
    };
    CrossVerdict::Differs {
        elements,
        more: total - total.min(SHOWN_ELEMENTS),
        likely,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{DiagKind, Severity};
    use crate::judge::outcome::CrossCheck;

    fn out(expected: &[f64], got: &[f64]) -> BTreeMap<String, OutputCompare> {
        let mismatches = expected
            .iter()
            .zip(got)
            .enumerate()
            .filter(|(_, (e, g))| e != g)
            .map(|(i, _)| i)
            .collect();
        BTreeMap::from([(
            "out".to_string(),
            OutputCompare {
                expected: expected.to_vec(),
                got: got.to_vec(),
                mismatches,
                shape: None,
                ..Default::default()
            },
        )])
    }

    #[test]
    fn the_same_outputs_match() {
        let c = compare(
            "GPU",
            &out(&[1.0, 2.0], &[1.0, 2.0]),
            &out(&[1.0, 2.0], &[1.0, 2.0]),
            None,
            false,
        );
        assert!(!c.fails_the_test());
        assert_eq!(c.verdict, CrossVerdict::Match);
        // Wrong the same way on both: they agree (the emulator's verdict already says it).
        let c = compare(
            "GPU",
            &out(&[1.0, 2.0], &[1.0, 5.0]),
            &out(&[1.0, 2.0], &[1.0, 5.0]),
            None,
            false,
        );
        assert_eq!(c.verdict, CrossVerdict::Match);
    }

    #[test]
    fn right_on_the_emulator_only_is_likelier_a_race() {
        let c = compare(
            "GPU",
            &out(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]),
            &out(&[1.0, 2.0, 3.0], &[1.0, 0.0, 3.0]),
            None,
            false,
        );
        let CrossVerdict::Differs {
            elements,
            more,
            likely,
        } = c.verdict
        else {
            panic!("{:?}", c.verdict)
        };
        assert_eq!(likely, LikelyCause::KernelRaceOrUb);
        assert_eq!(more, 0);
        assert_eq!(
            elements,
            vec![DiffElement {
                buffer: "out".into(),
                index: 1,
                emulator: 2.0,
                gpu: 0.0,
                expected: 2.0
            }]
        );
    }

    #[test]
    fn right_on_the_gpu_only_is_likelier_an_emulator_defect() {
        let n = 20;
        let want: Vec<f64> = (0..n).map(f64::from).collect();
        let c = compare(
            "GPU",
            &out(&want, &vec![0.0; n as usize]),
            &out(&want, &want),
            None,
            false,
        );
        let CrossVerdict::Differs {
            elements,
            more,
            likely,
        } = c.verdict
        else {
            panic!("{:?}", c.verdict)
        };
        assert_eq!(likely, LikelyCause::EmulatorDefect);
        // Element 0 is 0 on both: agreement. The other 19 differ; 8 are shown.
        assert_eq!(
            (elements.len(), more),
            (SHOWN_ELEMENTS, 19 - SHOWN_ELEMENTS)
        );
    }

    #[test]
    fn a_kernel_the_gpu_could_not_run_does_not_fail_the_test() {
        let c = CrossCheck {
            device: "GPU".into(),
            verdict: CrossVerdict::Error("the GPU worker could not start".into()),
        };
        assert!(!c.fails_the_test());
    }

    #[test]
    fn a_fault_only_the_gpu_saw_is_reported_as_such() {
        let d = Diagnostic {
            kind: DiagKind::OutOfBounds,
            severity: Severity::Error,
            message: "thread 3 wrote out[9]".into(),
            help: None,
            file: None,
            line: Some(4),
            block: [0; 3],
            thread: [3, 0, 0],
            other_line: None,
            facts: Default::default(),
        };
        let same = out(&[1.0], &[1.0]);
        let c = compare("GPU", &same, &same, Some(&d), false);
        assert!(
            matches!(c.verdict, CrossVerdict::Fault { .. }),
            "{:?}",
            c.verdict
        );
        // When the emulator faulted too, its report already says it: only outputs are compared.
        let c = compare("GPU", &same, &same, Some(&d), true);
        assert_eq!(c.verdict, CrossVerdict::Match);
    }
}
