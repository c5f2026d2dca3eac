//! `require` counts only work that feeds the output, checked on what the kernel computes: the
//! first test of a run that passed is run again with every result of a required family changed
//! (one bit flipped, a high one, then the lowest: `ptx::perturb`); when not one output changes, those results reach
//! nothing the kernel writes, and the requirement is not met. The static check before it
//! (`unfed_requirements`: results never read) catches dropped values; this one catches values
//! read and then cancelled (`__dp4a(...) & zero`, `+ 0.0f * shuffled`, `match | ~0u`).
//!
//! Emulator only, one re-run per required family, on the first fixed test alone: a kernel
//! whose technique feeds the first test's output and not a later test's is not what a
//! shortcut looks like, and each re-run costs a test's time.

use super::outcome::{BlockLimitKind, BlockOverrun, TestOutcome};
use super::{run_test, spec_run, Executor, JudgeError, JudgeOptions};
use crate::emu::result::Counters;
use crate::ptx::census::{Census, Work};
use crate::ptx::perturb::{self, Flip, Kind};
use crate::puzzle::{Puzzle, TestCase};

/// The instruction kinds whose results a required counter counts, and the census work that
/// places them in the learner's lines.
fn kinds_of(counter: &str) -> Option<(&'static [Kind], &'static [Work])> {
    Some(match counter {
        "shuffles" => (&[Kind::Shuffle], &[Work::Shuffle]),
        "votes" => (&[Kind::Vote], &[Work::Vote]),
        "matches" => (&[Kind::Match], &[Work::Match]),
        "warp_reduces" => (&[Kind::WarpReduce], &[Work::WarpReduce]),
        "mma" => (&[Kind::Mma], &[Work::Mma]),
        "wmma" => (&[Kind::Wmma], &[Work::Wmma]),
        "ldmatrix" => (&[Kind::Ldmatrix], &[Work::Ldmatrix]),
        "dp4a" => (&[Kind::Dp4a], &[Work::Dp4a]),
        "f16x2" => (&[Kind::F16x2], &[Work::F16x2]),
        "shared_reads" => (
            &[Kind::SharedLoad, Kind::Ldmatrix],
            &[Work::SharedLoad, Work::Ldmatrix],
        ),
        _ => return None,
    })
}

/// The counters the puzzle requires above 0 (of any kernel, or of every warp).
fn required(puzzle: &Puzzle) -> Vec<usize> {
    (0..Counters::N)
        .filter(|&i| {
            std::iter::once(&puzzle.require)
                .chain(puzzle.kernels.iter().map(|k| &k.require))
                .any(|r| r.get(i).is_some_and(|n| n > 0))
                || puzzle.warp_require.names(i)
                || puzzle.require_scaled.names(i)
        })
        .collect()
}

/// After test `t` (of `test`, which passed) ran: each required counter whose results change no
/// output when changed fails the test, with help naming its lines.
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    puzzle: &Puzzle,
    test: &TestCase,
    spec: &spec_run::CompiledSpec,
    learner_ptx: &str,
    opts: &JudgeOptions,
    census: impl Fn() -> Census,
    t: &mut TestOutcome,
) -> Result<(), JudgeError> {
    if !t.passed || t.random || puzzle.tests.first().map(|f| &f.name) != Some(&test.name) {
        return Ok(());
    }
    let opts = JudgeOptions {
        executor: Executor::Emulator,
        also: None,
        ..opts.clone()
    };
    let mut census_made: Option<Census> = None;
    for i in required(puzzle) {
        let name = Counters::NAMES[i];
        let Some((kinds, works)) = kinds_of(name) else {
            continue;
        };
        // The high bit first (it changes most results that feed anything); the low one only
        // when the high one changed nothing.
        let mut fed = false;
        for bit in [Flip::High, Flip::Low] {
            match outputs_unchanged(puzzle, test, spec, learner_ptx, kinds, bit, &opts, t)? {
                Some(true) => {}
                // Changed, or no verdict (no such instruction, a text the reader refuses).
                Some(false) | None => {
                    fed = true;
                    break;
                }
            }
        }
        if fed {
            continue;
        }
        let c = census_made.get_or_insert_with(&census);
        let mut lines: Vec<u32> = works.iter().flat_map(|&w| c.lines(w)).collect();
        lines.sort_unstable();
        lines.dedup();
        let limit = (t.require.get(i).filter(|&m| m > 0))
            .or_else(|| {
                (t.warp_require.iter())
                    .find(|(k, _)| *k == i)
                    .map(|&(_, m)| m)
            })
            .unwrap_or(1);
        t.block_overruns.push(BlockOverrun {
            limit_kind: BlockLimitKind::Require,
            counter: name,
            used: 0,
            limit,
            block: [0; 3],
            warp: None,
            unfed: true,
            kernel: None,
            lines: Vec::new(),
            help: Some(crate::teach::technique::unfed_results(
                puzzle.id, i, &lines, &t.name,
            )),
        });
        t.passed = false;
    }
    Ok(())
}

/// Whether the test's outputs stay bit for bit what `t` got when every result of the `kinds`
/// has `bit` flipped, with no error; `None` when there is nothing to flip or the changed text
/// cannot be read (no verdict either way).
#[allow(clippy::too_many_arguments)]
fn outputs_unchanged(
    puzzle: &Puzzle,
    test: &TestCase,
    spec: &spec_run::CompiledSpec,
    learner_ptx: &str,
    kinds: &[Kind],
    bit: Flip,
    opts: &JudgeOptions,
    t: &TestOutcome,
) -> Result<Option<bool>, JudgeError> {
    let (text, changed) = perturb::results_of(learner_ptx, kinds, bit);
    if changed == 0 {
        return Ok(None);
    }
    let Ok(module) = crate::ptx::parse(&text) else {
        return Ok(None);
    };
    let again = run_test(puzzle, test, None, spec, (&module, &text), opts)?;
    let errs = again.error.is_some()
        || (again.diagnostics.iter()).any(|d| d.severity == crate::emu::result::Severity::Error);
    Ok(Some(
        !errs
            && t.outputs.iter().all(|(n, o)| {
                again.outputs.get(n).is_some_and(|p| {
                    p.got.len() == o.got.len()
                        && p.got
                            .iter()
                            .zip(&o.got)
                            .all(|(a, b)| a.to_bits() == b.to_bits())
                })
            }),
    ))
}
