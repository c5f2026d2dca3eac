//! `require` counts only work that feeds the output, checked on what the kernel computes: the
//! first test of a run that passed is run again with every result of a required family changed
//! (one bit flipped, a high one, then the lowest: `ptx::perturb`); when not one output changes, those results reach
//! nothing the kernel writes, and the requirement is not met. The static check before it
//! (`unfed_requirements`: results never read) catches dropped values; this one catches values
//! read and then cancelled (`__dp4a(...) & zero`, `+ 0.0f * shuffled`, `match | ~0u`).
//!
//! Emulator only, one re-run per required family, on every fixed test (a kernel that uses its
//! technique only for one launch shape, `gridDim.x == 1` or an even size, meets another). On
//! the first test, a counter every warp must run (`warp_require`) is also checked warp by warp,
//! for each warp index that had work: the results flipped in that warp of every block alone
//! (`perturb::results_in`), so a warp that computes them only to be counted while another
//! warp's feed the output is found. On a test of at most `MAX_BLOCKS_ONE_BY_ONE` blocks, an
//! instruction family every block must run is checked block by block the same way; where a
//! thread runs the family 4 times or more, the executions after the first half of the most any
//! thread ran are checked alone (`Gate::Late`: the later steps of a loop).

use super::outcome::{BlockOverrun, TestOutcome};
use super::{run_test, spec_run, Executor, JudgeError, JudgeOptions};
use crate::emu::result::Counters;
use crate::ptx::census::{Census, Work};
use crate::ptx::perturb::{self, Flip, Gate, Kind};

/// The most blocks a test may have for its required families to be flipped block by block
/// (each block a re-run of the test).
const MAX_BLOCKS_ONE_BY_ONE: u32 = 4;
use crate::puzzle::{Puzzle, TestCase};

/// What a required counter counts, for both feed checks: the census work that places it in
/// the learner's lines (the static check of `unfed_requirements`), and the instruction kinds
/// whose results this re-run changes (none for global reads: a load's result is data). `None`
/// for a counter whose work neither check can follow.
pub(super) fn work_of(counter: &str) -> Option<(&'static [Work], &'static [Kind])> {
    Some(match counter {
        "shuffles" => (&[Work::Shuffle], &[Kind::Shuffle]),
        "votes" => (&[Work::Vote], &[Kind::Vote]),
        "matches" => (&[Work::Match], &[Kind::Match]),
        "warp_reduces" => (&[Work::WarpReduce], &[Kind::WarpReduce]),
        "mma" => (&[Work::Mma], &[Kind::Mma]),
        "wmma" => (&[Work::Wmma], &[Kind::Wmma]),
        "ldmatrix" => (&[Work::Ldmatrix], &[Kind::Ldmatrix]),
        "dp4a" => (&[Work::Dp4a], &[Kind::Dp4a]),
        // No census work places a popcount: the static check skips it, the re-run does not.
        "popc" => (&[], &[Kind::Popc]),
        "f16x2" => (&[Work::F16x2], &[Kind::F16x2]),
        "shared_reads" => (
            &[Work::SharedLoad, Work::Ldmatrix],
            &[Kind::SharedLoad, Kind::Ldmatrix],
        ),
        "global_reads" => (&[Work::GlobalLoad], &[]),
        _ => return None,
    })
}

/// The counters test `t` requires of every block above 0, with the minimum: its own `require`
/// (the expressions worked out) and each kernel's, the largest.
pub(super) fn block_required(puzzle: &Puzzle, t: &TestOutcome) -> Vec<(usize, u64)> {
    (0..Counters::N)
        .filter_map(|i| {
            let limits =
                std::iter::once(&t.require).chain(puzzle.kernels.iter().map(|k| &k.require));
            limits.filter_map(|r| r.get(i)).max().map(|m| (i, m))
        })
        .filter(|&(_, m)| m > 0)
        .collect()
}

/// `block_required`, then the counters required only of every warp (`warp_require`).
fn required(puzzle: &Puzzle, t: &TestOutcome) -> Vec<(usize, u64)> {
    let mut all = block_required(puzzle, t);
    for &(i, min) in &t.warp_require {
        if min > 0 && !all.iter().any(|&(k, _)| k == i) {
            all.push((i, min));
        }
    }
    all
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
    scene: &crate::teach::Scene,
    t: &mut TestOutcome,
) -> Result<(), JudgeError> {
    let first = puzzle.tests.first().map(|f| &f.name) == Some(&test.name);
    // The fixed tests only: a random variant has its test's shape, and the unseen test (not
    // among `tests`) is graded on what the fixed ones showed.
    let fixed = puzzle.tests.iter().any(|f| f.name == test.name);
    if !t.passed || t.random || !fixed {
        return Ok(());
    }
    let opts = JudgeOptions {
        executor: Executor::Emulator,
        also: None,
        ..opts.clone()
    };
    let last = puzzle.tests.last().map(|f| &f.name) == Some(&test.name);
    // Block by block on one test: the first of 2 to `MAX_BLOCKS_ONE_BY_ONE` blocks.
    let few_blocks =
        |c: &TestCase| (2..=MAX_BLOCKS_ONE_BY_ONE).contains(&c.grid.iter().product::<u32>());
    let block_test =
        puzzle.tests.iter().find(|c| few_blocks(c)).map(|c| &c.name) == Some(&test.name);
    let mut census_made: Option<Census> = None;
    for (i, limit) in required(puzzle, t) {
        let name = Counters::NAMES[i];
        let Some((works, kinds)) = work_of(name) else {
            continue;
        };
        // Shared reads are data, not an instruction family: the first test alone.
        if kinds.contains(&Kind::SharedLoad) && !first {
            continue;
        }
        // Every thread at once; then, on the first test, each warp index with work alone for
        // a counter every warp must run; then, on a test of a few blocks, each block alone for
        // an instruction family every block must run (not shared reads: a block's data).
        let per_warp = first && t.warp_require.iter().any(|&(k, m)| k == i && m > 0);
        let per_block =
            !kinds.contains(&Kind::SharedLoad) && t.require.get(i).is_some_and(|m| m > 0);
        let threads: u32 = test.block.iter().product();
        let blocks: u32 = test.grid.iter().product();
        let with_work = t.warps.map_or(0, |w| w.with_work);
        let mut gates = vec![Gate::All];
        let working: Vec<u32> = (0..threads.div_ceil(32).min(32))
            .filter(|w| with_work & (1 << w) != 0)
            .collect();
        if per_warp && working.len() > 1 {
            // The first two, a middle one and the last: a warp that only counts is one of a
            // pattern (all but the first, every other one, the tail), which these meet, at a
            // re-run each.
            let mut picked: Vec<u32> = [0, 1, working.len() / 2, working.len() - 1]
                .iter()
                .map(|&k| working[k.min(working.len() - 1)])
                .collect();
            picked.sort_unstable();
            picked.dedup();
            gates.extend(picked.into_iter().map(Gate::Warp));
        }
        if per_warp {
            // Every lane but each warp's first: a warp that uses them in lane 0 alone.
            gates.push(Gate::NotLane0);
        }
        if per_block && block_test {
            gates.extend((0..blocks).map(Gate::Block));
        }
        // A thread that runs the family several times (a step of a loop each): its later half
        // alone, so one that uses it in the first steps only and counts the rest is found. Not
        // shared reads: data, which a thread may read and drop in its later steps (a guard).
        let most = t.counters.get(i);
        if last && most >= 4 && !kinds.contains(&Kind::SharedLoad) {
            gates.push(Gate::Late((most / 2) as u32));
        }
        let mut unfed_in = None;
        for gate in gates {
            if !fed_by(puzzle, test, spec, learner_ptx, kinds, gate, &opts, t)? {
                unfed_in = Some(gate);
                break;
            }
        }
        let Some(gate) = unfed_in else {
            continue;
        };
        let warp = match gate {
            Gate::Warp(w) => Some(w),
            _ => None,
        };
        // A warp's failure is told against the warp's minimum, a block's at that block.
        let limit = match warp {
            Some(_) => (t.warp_require.iter())
                .find(|&&(k, _)| k == i)
                .map_or(limit, |&(_, m)| m),
            None => limit,
        };
        let block = match gate {
            Gate::Block(b) => {
                let [gx, gy, _] = test.grid;
                [
                    b % gx.max(1),
                    b / gx.max(1) % gy.max(1),
                    b / (gx.max(1) * gy.max(1)),
                ]
            }
            _ => [0; 3],
        };
        let c = census_made.get_or_insert_with(&census);
        let mut lines: Vec<u32> = works.iter().flat_map(|&w| c.lines(w)).collect();
        lines.sort_unstable();
        lines.dedup();
        t.block_overruns.push(BlockOverrun {
            unfed: true,
            help: Some(crate::teach::technique::unfed_results(
                puzzle.id,
                i,
                &lines,
                (&t.name, gate),
                &crate::teach::source::Source::preprocessed(scene.source, &scene.values),
            )),
            warp,
            ..BlockOverrun::under_require(i, 0, limit, block)
        });
        t.passed = false;
    }
    Ok(())
}

/// Whether the results of the `kinds` (in warp `warp` of each block only, when given) feed the
/// test's outputs: the high bit flipped first (it changes most results that feed anything),
/// the low one only when the high one changed nothing. No verdict (nothing to flip, a text
/// the reader refuses) counts as fed.
#[allow(clippy::too_many_arguments)]
fn fed_by(
    puzzle: &Puzzle,
    test: &TestCase,
    spec: &spec_run::CompiledSpec,
    learner_ptx: &str,
    kinds: &[Kind],
    warp: Gate,
    opts: &JudgeOptions,
    t: &TestOutcome,
) -> Result<bool, JudgeError> {
    let changes =
        |bit| outputs_unchanged(puzzle, test, spec, learner_ptx, (kinds, warp), bit, opts, t);
    if kinds == [Kind::F16x2] {
        // Packed halves: each lane of the results must feed the output (bit 20 is in the
        // high half, `LowHalf` in the low one), or an instruction computes one useful half
        // beside a dummy (`__hfma2` on `(h, 0)`), which is scalar work in a packed coat.
        for bit in [Flip::High, Flip::LowHalf] {
            if changes(bit)? == Some(true) {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    if kinds == [Kind::Dp4a] {
        // An integer sum in which every bit counts: a dot product must move the output when
        // 1 is added to it and when 2^20 is (`perturb` adds to dp4a results), or it reaches the
        // output only through something that keeps a few of its bits
        // (`(d + (1 << 20)) >> 30`, 0 for every real product sum).
        for bit in [Flip::High, Flip::Low] {
            if changes(bit)? == Some(true) {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    for bit in [Flip::High, Flip::Low] {
        match changes(bit)? {
            Some(true) => {}
            Some(false) | None => return Ok(true),
        }
    }
    Ok(false)
}

/// Whether the test's outputs stay bit for bit what `t` got when every result of the `kinds`
/// (in warp `warp` only, when given) has `bit` flipped, with no error; `None` when there is
/// nothing to flip or the changed text cannot be read (no verdict either way).
#[allow(clippy::too_many_arguments)]
fn outputs_unchanged(
    puzzle: &Puzzle,
    test: &TestCase,
    spec: &spec_run::CompiledSpec,
    learner_ptx: &str,
    (kinds, warp): (&[Kind], Gate),
    bit: Flip,
    opts: &JudgeOptions,
    t: &TestOutcome,
) -> Result<Option<bool>, JudgeError> {
    let (text, changed) = perturb::results_in(learner_ptx, kinds, bit, warp);
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
