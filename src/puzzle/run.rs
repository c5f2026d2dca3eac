//! A test's launches run in order on one set of buffers: each launch's arguments are built from
//! the buffers as the launches before it left them, its final buffers are put back by name, and
//! the first launch that faults is the last (later launches would only run on damaged buffers).
//! The judge, its cross-run on a second executor and the traced run for pictures all go through
//! `run_steps`; what each does with a launch is its hook.
//!
//! Memory: `run_steps` gives each launch copies of its buffers (the hook may look at the buffers
//! as they were, a traced run does). The judge needs no such view, and a test's buffers may be
//! hundreds of MB: `run_steps_moving` moves each launch's buffers into its arguments instead,
//! so they are not held twice while the emulator holds them too.

use super::error::PuzzleError;
use super::model::{store_buffers, ArgSource, Step};
use crate::emu::value::{Buffer, KernelArg};
use std::collections::BTreeMap;

/// One launch, as `run_steps` hands it to the caller's hook.
pub struct StepLaunch<'r, 'p> {
    /// 0-based position among the test's launches.
    pub index: usize,
    /// How many launches the test has (whether or not all of them run).
    pub count: usize,
    pub step: &'r Step<'p>,
    /// The buffers as the earlier launches left them (what this launch starts with); under
    /// `run_steps_moving`, those the launch takes are there without their bytes.
    pub buffers: &'r BTreeMap<String, Buffer>,
    /// The launch's arguments built from `buffers`, or why they could not be: each caller says
    /// that in its own words.
    pub args: Result<Vec<KernelArg>, PuzzleError>,
}

/// What one launch left, as the hook reports it.
#[derive(Debug, Default)]
pub struct Launched {
    /// Its final buffers, put back by name (none when it never ran).
    pub buffers: Vec<Buffer>,
    /// Whether it faulted: then no later launch runs.
    pub faulted: bool,
}

/// Where a test's launches ended.
#[derive(Debug)]
pub struct StepsRun {
    /// The buffers after the last launch that ran.
    pub buffers: BTreeMap<String, Buffer>,
    /// Whether that launch faulted (so some launches may not have run).
    pub faulted: bool,
}

/// Run `steps` in order from `buffers` (usually `TestCase::initial_buffers`), calling `launch`
/// for each, until one faults or the hook gives an error, which ends the run and is returned.
pub fn run_steps<'p, E>(
    steps: &[Step<'p>],
    buffers: BTreeMap<String, Buffer>,
    launch: impl FnMut(StepLaunch<'_, 'p>) -> Result<Launched, E>,
) -> Result<StepsRun, E> {
    run_steps_handing(steps, buffers, Handover::Copy, launch)
}

/// `run_steps`, moving each launch's buffers into its arguments rather than copying them (see
/// the module docs): the hook must hand back every buffer it was given (the emulator's result
/// does) or end the run with an error, since what it does not hand back is left empty.
pub fn run_steps_moving<'p, E>(
    steps: &[Step<'p>],
    buffers: BTreeMap<String, Buffer>,
    launch: impl FnMut(StepLaunch<'_, 'p>) -> Result<Launched, E>,
) -> Result<StepsRun, E> {
    run_steps_handing(steps, buffers, Handover::Move, launch)
}

/// How a launch gets its buffers' bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Handover {
    Copy,
    Move,
}

fn run_steps_handing<'p, E>(
    steps: &[Step<'p>],
    mut buffers: BTreeMap<String, Buffer>,
    handover: Handover,
    mut launch: impl FnMut(StepLaunch<'_, 'p>) -> Result<Launched, E>,
) -> Result<StepsRun, E> {
    for (index, step) in steps.iter().enumerate() {
        let args = match handover {
            Handover::Copy => step.kernel_args(&buffers),
            Handover::Move => moved_args(step, &mut buffers),
        };
        let launched = launch(StepLaunch {
            index,
            count: steps.len(),
            step,
            buffers: &buffers,
            args,
        })?;
        store_buffers(&mut buffers, launched.buffers);
        if launched.faulted {
            return Ok(StepsRun {
                buffers,
                faulted: true,
            });
        }
    }
    Ok(StepsRun {
        buffers,
        faulted: false,
    })
}

/// `step`'s arguments with the bytes of its buffers moved out of `buffers` (a buffer passed
/// twice: the first argument gets a copy, the last the bytes), the names and types left there.
fn moved_args(
    step: &Step<'_>,
    buffers: &mut BTreeMap<String, Buffer>,
) -> Result<Vec<KernelArg>, PuzzleError> {
    let mut bytes: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for a in &step.args {
        if let ArgSource::Buffer(name) = a {
            if let Some(b) = buffers.get_mut(name) {
                if !bytes.contains_key(name) {
                    bytes.insert(name.clone(), std::mem::take(&mut b.data));
                }
            }
        }
    }
    // Built from the buffers without their bytes: the same arguments (and the same error for
    // a missing buffer) as `Step::kernel_args`, at no cost.
    let mut args = step.kernel_args(buffers)?;
    // `kernel_args` gives one argument per parameter, in `step.args`' order.
    let names: Vec<Option<&String>> = (step.args.iter())
        .map(|a| match a {
            ArgSource::Buffer(name) => Some(name),
            ArgSource::Scalar(_) => None,
        })
        .collect();
    for (i, arg) in args.iter_mut().enumerate() {
        let (KernelArg::Buffer(b), Some(Some(name))) = (arg, names.get(i)) else {
            continue;
        };
        let again = names[i + 1..].contains(&Some(*name));
        let data = if again {
            bytes.get(*name).cloned()
        } else {
            bytes.remove(*name)
        };
        if let Some(data) = data {
            b.data = data;
        }
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::value::ElemType;
    use crate::puzzle::Budget;
    use crate::puzzle::{ArgSource, Param, ParamKind};

    fn params() -> Vec<Param> {
        vec![Param {
            name: "data".into(),
            kind: ParamKind::Buffer(ElemType::I32),
            output: true,
        }]
    }

    fn step<'a>(kernel: &'a str, params: &'a [Param], buffer: &str) -> Step<'a> {
        Step {
            kernel,
            params,
            budget: Budget::default(),
            block_budget: Default::default(),
            require: Default::default(),
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
            args: vec![ArgSource::Buffer(buffer.into())],
            symbols: Vec::new(),
        }
    }

    fn start() -> BTreeMap<String, Buffer> {
        let b = Buffer::from_values("data", ElemType::I32, &[1.0]);
        BTreeMap::from([("data".to_string(), b)])
    }

    /// A launch that adds one to `data`, faulting when it reaches `fault_at`.
    fn add_one(at: StepLaunch, fault_at: f64) -> Launched {
        let Ok(args) = at.args else {
            panic!("the test's buffers are all there");
        };
        let KernelArg::Buffer(b) = &args[0] else {
            panic!("data is a buffer");
        };
        let v = b.values()[0] + 1.0;
        Launched {
            buffers: vec![Buffer::from_values("data", ElemType::I32, &[v])],
            faulted: v == fault_at,
        }
    }

    #[test]
    fn each_launch_starts_from_the_buffers_the_last_one_left() {
        let ps = params();
        let steps = vec![step("a", &ps, "data"), step("b", &ps, "data")];
        let mut seen = Vec::new();
        let ran = run_steps(&steps, start(), |at| {
            seen.push((
                at.index,
                at.count,
                at.step.kernel,
                at.buffers["data"].values(),
            ));
            Ok::<_, ()>(add_one(at, 0.0))
        })
        .unwrap();
        assert_eq!(seen, vec![(0, 2, "a", vec![1.0]), (1, 2, "b", vec![2.0])]);
        assert_eq!(ran.buffers["data"].values(), vec![3.0]);
        assert!(!ran.faulted);
    }

    #[test]
    fn the_first_fault_ends_the_run_with_its_buffers_kept() {
        let ps = params();
        let steps = vec![step("a", &ps, "data"), step("b", &ps, "data")];
        let mut launches = 0;
        let ran = run_steps(&steps, start(), |at| {
            launches += 1;
            Ok::<_, ()>(add_one(at, 2.0))
        })
        .unwrap();
        assert_eq!(launches, 1);
        assert!(ran.faulted);
        assert_eq!(ran.buffers["data"].values(), vec![2.0]);
    }

    #[test]
    fn a_hook_error_ends_the_run() {
        let ps = params();
        let steps = vec![step("a", &ps, "data"), step("b", &ps, "data")];
        let mut launches = 0;
        let ran = run_steps(&steps, start(), |_| {
            launches += 1;
            Err("no such kernel")
        });
        assert_eq!((ran.unwrap_err(), launches), ("no such kernel", 1));
    }

    #[test]
    fn moving_runs_as_copying_does_without_holding_the_bytes_twice() {
        let ps = params();
        let steps = vec![step("a", &ps, "data"), step("b", &ps, "data")];
        let mut held = Vec::new();
        let ran = run_steps_moving(&steps, start(), |at| {
            held.push(at.buffers["data"].data.len());
            Ok::<_, ()>(add_one(at, 0.0))
        })
        .unwrap();
        assert_eq!(held, vec![0, 0], "the map kept the bytes the launch took");
        assert_eq!(ran.buffers["data"].values(), vec![3.0]);
    }

    #[test]
    fn a_buffer_passed_twice_reaches_both_parameters_when_moved() {
        let ps = vec![
            Param {
                name: "x".into(),
                kind: ParamKind::Buffer(ElemType::I32),
                output: true,
            },
            Param {
                name: "y".into(),
                kind: ParamKind::Buffer(ElemType::I32),
                output: false,
            },
        ];
        let mut twice = step("a", &ps, "data");
        twice.args.push(ArgSource::Buffer("data".into()));
        let mut got = Vec::new();
        run_steps_moving(&[twice], start(), |at| {
            for a in at.args.unwrap() {
                if let KernelArg::Buffer(b) = a {
                    got.push(b.values());
                }
            }
            Ok::<_, ()>(Launched::default())
        })
        .unwrap();
        assert_eq!(got, vec![vec![1.0], vec![1.0]]);
    }

    #[test]
    fn a_missing_buffer_reaches_the_hook_as_the_puzzle_error() {
        let ps = params();
        let steps = vec![step("a", &ps, "nowhere")];
        let ran = run_steps(&steps, start(), |at| match at.args {
            Ok(_) => Ok(Launched::default()),
            Err(e) => Err(e.to_string()),
        });
        let message = ran.unwrap_err();
        assert!(message.contains("no buffer `nowhere`"), "{message}");
    }
}
