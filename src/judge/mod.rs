//! One puzzle test: make inputs, run the spec, run the learner's kernel, compare, apply budgets.

pub mod outcome;

use crate::compile::{self, CompileError, CompileRequest};
use crate::emu::result::{Counters, RunResult};
use crate::emu::value::Buffer;
use crate::emu::{self, EmuError, EmuOptions, LaunchConfig};
use crate::ptx::Module;
use crate::puzzle::{Puzzle, TestCase, SPEC_KERNEL};
use outcome::{OutputCompare, OverBudget, PuzzleOutcome, TestOutcome};
use std::collections::BTreeMap;

/// The spec runs as one thread over the whole problem, so it may take far more steps than any
/// thread of the learner's kernel; an endless loop in a spec still ends.
const SPEC_STEP_LIMIT: u64 = 500_000_000;

#[derive(Clone, Debug)]
pub struct JudgeOptions {
    /// Thread-instructions allowed per test launch (puzzle tests are small).
    pub step_limit: u64,
    /// Worker threads per launch.
    pub jobs: usize,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            step_limit: 20_000_000,
            jobs: 1,
        }
    }
}

/// Problems that are not the learner's: no NVRTC, or a broken puzzle definition.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error("the spec of puzzle {id} ({file}) is broken: {message}")]
    Spec {
        id: u32,
        file: String,
        message: String,
    },
    #[error(transparent)]
    Puzzle(#[from] crate::puzzle::PuzzleError),
}

/// Grade the learner's kernel (`source`, shown as `display_name`) against every test of `puzzle`,
/// each fixed test followed by its random-input variant.
pub fn judge(
    puzzle: &Puzzle,
    display_name: &str,
    source: &str,
    opts: &JudgeOptions,
) -> Result<PuzzleOutcome, JudgeError> {
    let mut outcome = PuzzleOutcome {
        id: puzzle.id,
        slug: puzzle.slug.clone(),
        title: puzzle.title.clone(),
        file: display_name.to_string(),
        passed: false,
        tests: Vec::new(),
        compile_error: None,
    };
    let req = CompileRequest {
        file_name: display_name,
        source,
        defines: &puzzle.defines,
        extra_options: &[],
    };
    let learner = match compile::compile(&req) {
        Ok(c) => c,
        Err(e @ CompileError::Compilation { .. }) => {
            outcome.compile_error = Some(e.to_string());
            return Ok(outcome);
        }
        Err(e) => return Err(e.into()),
    };
    let learner = match crate::ptx::parse(&learner.ptx) {
        Ok(m) => m,
        Err(e) => {
            outcome.compile_error = Some(format!(
                "gpuzzle could not read the PTX of your kernel (please report this): {e}"
            ));
            return Ok(outcome);
        }
    };
    let spec = compile_spec(puzzle)?;
    let mut all_passed = true;
    for (i, test) in puzzle.tests.iter().enumerate() {
        for random in [false, true] {
            let seed = random.then(|| seed_for(puzzle.id, i));
            let t = run_test(puzzle, test, seed, &spec, &learner, opts)?;
            all_passed &= t.passed;
            outcome.tests.push(t);
        }
    }
    // Fixed tests first, then their random variants, as learners read them.
    outcome.tests.sort_by_key(|t| t.random);
    outcome.passed = all_passed && !outcome.tests.is_empty();
    Ok(outcome)
}

fn seed_for(id: u32, test: usize) -> u64 {
    0x6770_757a_7a6c_6500 ^ ((id as u64) << 16) ^ test as u64
}

fn spec_error(puzzle: &Puzzle, message: String) -> JudgeError {
    JudgeError::Spec {
        id: puzzle.id,
        file: puzzle.toml_path.display().to_string(),
        message,
    }
}

fn compile_spec(puzzle: &Puzzle) -> Result<Module, JudgeError> {
    let src = puzzle.spec_source();
    let name = puzzle.toml_path.display().to_string();
    let req = CompileRequest {
        file_name: &name,
        source: &src,
        defines: &puzzle.defines,
        extra_options: &[],
    };
    let compiled = match compile::compile(&req) {
        Ok(c) => c,
        Err(e @ CompileError::Compilation { .. }) => return Err(spec_error(puzzle, e.to_string())),
        Err(e) => return Err(e.into()),
    };
    crate::ptx::parse(&compiled.ptx).map_err(|e| spec_error(puzzle, e.to_string()))
}

fn run_test(
    puzzle: &Puzzle,
    test: &TestCase,
    seed: Option<u64>,
    spec: &Module,
    learner: &Module,
    opts: &JudgeOptions,
) -> Result<TestOutcome, JudgeError> {
    let args = test.kernel_args(&puzzle.params, seed)?;
    let emu_opts = EmuOptions {
        step_limit: opts.step_limit,
        jobs: opts.jobs,
        ..EmuOptions::default()
    };
    // The spec: one thread, sequential.
    let one = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared: 0,
    };
    let expected = emu::run(
        spec,
        SPEC_KERNEL,
        &one,
        args.clone(),
        &EmuOptions {
            step_limit: SPEC_STEP_LIMIT,
            ..emu_opts.clone()
        },
    )
    .map_err(|e| spec_error(puzzle, e.to_string()))?;
    if let Some(d) = expected.diagnostics.first() {
        return Err(spec_error(
            puzzle,
            format!("{}: {} (line {:?})", d.kind.as_str(), d.message, d.line),
        ));
    }
    let cfg = LaunchConfig {
        grid: test.grid,
        block: test.block,
        dynamic_shared: test.shared_bytes,
    };
    let name = if seed.is_some() {
        format!("{} (random inputs)", test.name)
    } else {
        test.name.clone()
    };
    let mut out = TestOutcome {
        name,
        random: seed.is_some(),
        passed: false,
        grid: test.grid,
        block: test.block,
        outputs: BTreeMap::new(),
        counters: Counters::default(),
        argmax: Default::default(),
        budget: puzzle.budget,
        over_budget: Vec::new(),
        diagnostics: Vec::new(),
        stdout: String::new(),
        error: None,
    };
    let got = match emu::run(learner, &puzzle.kernel, &cfg, args, &emu_opts) {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(launch_error(puzzle, e));
            return Ok(out);
        }
    };
    out.outputs = compare_outputs(puzzle, test, &expected, &got);
    out.counters = got.counters.max_per_thread;
    out.argmax = got.counters.argmax;
    for i in 0..4 {
        if let Some(b) = puzzle.budget.get(i) {
            let used = out.counters.get(i);
            if used > b {
                out.over_budget.push(OverBudget {
                    counter: Counters::NAMES[i],
                    used,
                    budget: b,
                    thread: out.argmax[i],
                });
            }
        }
    }
    out.passed = out
        .outputs
        .values()
        .all(|o| o.mismatches.is_empty() && o.got.len() == o.expected.len())
        && !got.has_errors()
        && out.over_budget.is_empty();
    out.diagnostics = got.diagnostics;
    out.stdout = got.stdout;
    Ok(out)
}

/// Why the learner's kernel could not be launched, with the fix.
fn launch_error(puzzle: &Puzzle, e: EmuError) -> String {
    match e {
        EmuError::NoSuchKernel { found, .. } => format!(
            "no kernel named `{}` in your file (found: {found}); keep the kernel's name and its `extern \"C\" __global__` from the starter: {}",
            puzzle.kernel,
            crate::puzzle::kernel_signature(puzzle)
        ),
        EmuError::Signature(m) => {
            format!("{m}; keep the starter's parameters exactly: {}", crate::puzzle::kernel_signature(puzzle))
        }
        other => other.to_string(),
    }
}

fn compare_outputs(
    puzzle: &Puzzle,
    test: &TestCase,
    expected: &RunResult,
    got: &RunResult,
) -> BTreeMap<String, OutputCompare> {
    let find = |r: &RunResult, name: &str| -> Vec<f64> {
        r.buffers
            .iter()
            .find(|b| b.name == name)
            .map(Buffer::values)
            .unwrap_or_default()
    };
    let mut map = BTreeMap::new();
    for name in test.outputs() {
        let e = find(expected, name);
        let g = find(got, name);
        let mismatches = e
            .iter()
            .zip(&g)
            .enumerate()
            .filter(|(_, (e, g))| !puzzle.tolerance.accepts(**e, **g))
            .map(|(i, _)| i)
            .collect();
        let shape = test.buffers.get(name).and_then(|b| b.shape);
        map.insert(
            name.to_string(),
            OutputCompare {
                expected: e,
                got: g,
                mismatches,
                shape,
            },
        );
    }
    map
}
