//! One puzzle test: make inputs, run the spec, run the learner's kernel, compare, apply budgets.
//!
//! `judge` compiles the learner's kernel and the spec once per distinct set of defines among the
//! tests (`[[test]] defines` changes a define for one test; most puzzles have one set), then
//! runs each test, with the modules of its set, with its fixed inputs and again with random
//! ones (seeded per puzzle and test). A compile error is reported once: as NVRTC says it when
//! the first set fails, or naming the set and its tests when only a later one does. The spec always runs on the
//! emulator as one thread. The learner's launches of a test run in order on one set of buffers
//! (`puzzle::run_steps`), on the chosen executor; a launch that faults ends the test, and in a
//! multi-launch puzzle its diagnostics are prefixed with the kernel and launch number. Budgets
//! apply per kernel. After each test `teach::explain` writes every diagnostic's help (and first
//! restates a step limit's message as its loop).
//!
//! Perf budgets (`sectors_per_access`, `bank_ways`) turn on `EmuOptions::perf` for that test
//! only; the judge takes the worst source line (highest average sectors, highest maximum
//! ways) and records a `PerfFigure` with its line (on the GPU backend measured
//! by the emulator, which its `note` says). With a second executor (`JudgeOptions::also`) the
//! same launches run again there and must match the spec too (`cross.rs`); a counter over
//! budget gets its source lines from a traced re-run (`overrun.rs`), only then.

mod cross;
mod feeds;
pub mod outcome;
mod overrun;
pub mod pattern;
mod seen;
mod spec_run;

use crate::compile::{self, CompileError, CompileRequest};
use crate::emu::facts::Facts;
use crate::emu::result::{Counters, PerfStats, RunResult, Severity, WarpLeast};
use crate::emu::value::{Buffer, KernelArg};
use crate::emu::{self, EmuError, EmuOptions, LaunchConfig};
use crate::gpu::backend::{self, AlsoRun, Executor, GpuError};
use crate::ptx::ir::EntryLookup;
use crate::ptx::Module;
use crate::puzzle::{
    run_steps, run_steps_moving, Launched, MistakeKind, ParamKind, PerfKind, Puzzle, Step,
    StepsRun, TestCase, SPEC_KERNEL,
};
use crate::teach;
use outcome::{
    BlockLimitKind, BlockOverrun, InputValues, KernelUse, OutputCompare, OverBudget, PerfFigure,
    PuzzleOutcome, TestInput, TestOutcome,
};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The spec runs as one thread over the whole problem, so it may take far more steps than any
/// thread of the learner's kernel; an endless loop in a spec still ends.
const SPEC_STEP_LIMIT: u64 = 500_000_000;

#[derive(Clone, Debug)]
pub struct JudgeOptions {
    /// Thread-instructions allowed per test launch (puzzle tests are small).
    pub step_limit: u64,
    /// Worker threads per launch.
    pub jobs: usize,
    /// What runs the learner's kernel (the spec always runs on the emulator).
    pub executor: Executor,
    /// How long a launch in a worker process may take (`Executor::default_timeout` when None).
    pub timeout: Option<Duration>,
    /// A second executor the learner's kernel also runs on (`auto` with a GPU): each test then
    /// passes only when that run's outputs match the spec too (`cross.rs`).
    pub also: Option<AlsoRun>,
    /// The command line's `-I` folders, resolved: searched for the learner's own headers before
    /// the puzzle's `include_dirs`.
    pub include_dirs: Vec<PathBuf>,
    /// Also run the puzzle's `[unseen]` test, after the others (`check` and `lint`; `run` and
    /// `watch` leave it out, since the learner cannot see it in advance).
    pub unseen: bool,
    /// `--arch`: the target to compile for, over the puzzle's `arch` (see `target_arch`).
    pub arch: Option<crate::compile::Arch>,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            step_limit: 20_000_000,
            jobs: 1,
            executor: Executor::Emulator,
            timeout: None,
            also: None,
            include_dirs: Vec::new(),
            unseen: false,
            arch: None,
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
    // A puzzle whose largest test needs more steps than the default says so in its file.
    let with_limit;
    let opts = match puzzle.step_limit {
        Some(limit) => {
            with_limit = JudgeOptions {
                step_limit: limit,
                ..opts.clone()
            };
            &with_limit
        }
        None => opts,
    };
    let mut outcome = PuzzleOutcome {
        id: puzzle.id,
        slug: puzzle.slug.clone(),
        title: puzzle.title.clone(),
        file: display_name.to_string(),
        ..PuzzleOutcome::default()
    };
    let include_options = include_options(&opts.include_dirs, puzzle, opts.arch);
    // The learner's kernel once per distinct set of defines the tests use (most puzzles: one).
    let unseen = opts.unseen.then_some(puzzle.unseen.as_ref()).flatten();
    let sets = define_sets(puzzle, unseen.map(|u| &u.test));
    let mut learners: Vec<(Module, String)> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let req = CompileRequest {
            file_name: display_name,
            source,
            defines: &set.defines,
            extra_options: &include_options,
        };
        let learner = match compile::compile(&req) {
            Ok(c) => c,
            Err(e @ CompileError::Compilation { .. }) => {
                // An error under the first set is the file's, said as NVRTC says it; one that
                // only a later set brings out names that set and its tests.
                outcome.compile_error = Some(match k {
                    0 => e.to_string(),
                    _ => under_defines(e, &set.describe(puzzle)),
                });
                return Ok(outcome);
            }
            Err(e) => return Err(e.into()),
        };
        for w in &learner.warnings {
            let w = w.to_string();
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        let learner_ptx = learner.ptx.to_string();
        let learner = match crate::ptx::parse(&learner.ptx) {
            Ok(m) => m,
            Err(e) => {
                // Invalid inline assembly is the learner's error, at the `asm` line.
                outcome.compile_error = Some(
                    crate::ptx::learner_asm_error(&learner_ptx, &e, display_name)
                        .unwrap_or_else(|| format!(
                            "gpuzzle could not read the PTX of your kernel (please report this): {e}"
                        )),
                );
                return Ok(outcome);
            }
        };
        // A kernel renamed or deleted fails the whole puzzle once, not every test.
        if let Some((name, message)) = missing_kernel(puzzle, display_name, &learner) {
            outcome.compile_error = Some(message);
            outcome.missing_kernel = Some(name);
            return Ok(outcome);
        }
        learners.push((learner, learner_ptx));
    }
    outcome.warnings = warnings;
    let specs = sets
        .iter()
        .enumerate()
        .map(|(k, set)| compile_spec(puzzle, set, k > 0, &include_options))
        .collect::<Result<Vec<_>, _>>()?;
    let mut all_passed = true;
    let graded =
        |test: &TestCase, k: usize, seed: Option<u64>| -> Result<TestOutcome, JudgeError> {
            // One compiled kernel and spec per set, every test in one set (`define_sets`).
            let ((learner, learner_ptx), spec) = (&learners[k], &specs[k]);
            let started = std::time::Instant::now();
            let mut t = run_test(puzzle, test, seed, spec, (learner, learner_ptx), opts)?;
            // Every diagnostic gets its help from its facts and the source (a step limit is
            // said as the loop that never ends).
            let scene = teach_scene(puzzle, test, display_name, source, learner);
            crate::teach::explain(&mut t.diagnostics, &scene);
            for p in t.perf.iter_mut().filter(|p| p.over()) {
                let advice = crate::teach::perf::advice(p, source, &scene.values, scene.block);
                p.help = Some(advice.unwrap_or_else(|| crate::teach::perf::general(p.kind).into()));
            }
            unfed_requirements(puzzle, &mut t, learner, display_name);
            let census = || crate::ptx::census::Census::of(learner, display_name);
            feeds::check(
                puzzle,
                test,
                spec,
                learner_ptx,
                opts,
                census,
                &scene,
                &mut t,
            )?;
            technique_help(puzzle, &mut t, learner, display_name, &scene);
            // A wrong output the source explains (a collective's fill value that is a real
            // key, a packed pair of two different halves): said before the pattern, and in
            // place of the puzzle's wrong-output hint, which is about another mistake.
            let after_error = t.diagnostics.iter().any(|d| d.severity == Severity::Error);
            let mut unexplained = Vec::new();
            for (name, o) in t.outputs.iter_mut() {
                if let Some(h) = crate::teach::output::explained(&scene, name, o, after_error) {
                    o.help = Some(h);
                } else if !after_error && !o.mismatches.is_empty() && o.pattern.is_none() {
                    unexplained.push(name.clone());
                }
            }
            // Where neither a rule nor the diff's pattern speaks: what a traced rerun saw.
            if !unexplained.is_empty() {
                seen::say(
                    (puzzle, test, seed),
                    learner,
                    opts,
                    &scene,
                    &mut t,
                    &unexplained,
                );
            }
            t.seconds = started.elapsed().as_secs_f64();
            Ok(t)
        };
    let set_of = |i: usize| sets.iter().position(|s| s.tests.contains(&i)).unwrap_or(0);
    // The first test that runs into the step or time limit is the puzzle's report of it: the
    // tests after it are marked not run rather than each run to the limit again.
    let mut stopper: Option<String> = None;
    for (i, test) in puzzle.tests.iter().enumerate() {
        for random in [false, true] {
            let seed = random.then(|| seed_for(puzzle.id, i));
            let t = match &stopper {
                Some(name) => not_run(puzzle, test, seed, name),
                None => graded(test, set_of(i), seed)?,
            };
            if stopper.is_none() && hit_the_limit(&t) {
                stopper = Some(t.name.clone());
            }
            all_passed &= t.passed;
            outcome.tests.push(t);
        }
    }
    // Fixed tests first, then their random variants, as learners read them.
    outcome.tests.sort_by_key(|t| t.random);
    // The unseen test last: its inputs are already drawn, so it has no random variant.
    if let (true, Some(u)) = (opts.unseen, &puzzle.unseen) {
        let t = match &stopper {
            Some(name) => not_run(puzzle, &u.test, None, name),
            None => graded(&u.test, set_of(puzzle.tests.len()), None)?,
        };
        all_passed &= t.passed;
        let scalars = if u.drawn.is_empty() {
            u.test
                .scalars
                .iter()
                .map(|(n, v)| (n.clone(), *v))
                .collect()
        } else {
            u.drawn.clone()
        };
        outcome.unseen = Some(outcome::UnseenRun {
            test: t.name.clone(),
            scalars,
        });
        outcome.tests.push(t);
    }
    outcome.passed = all_passed && !outcome.tests.is_empty();
    Ok(outcome)
}

/// One distinct set of defines among a puzzle's tests, and the tests (indices) compiled with it.
struct DefineSet {
    defines: Vec<(String, Option<String>)>,
    tests: Vec<usize>,
}

impl DefineSet {
    /// `with TPB=64, in test "64 threads"`: the values this set gives that
    /// differ from the puzzle's own (all of them if none does), and the tests that use it.
    fn describe(&self, puzzle: &Puzzle) -> String {
        let differing: Vec<(String, Option<String>)> = self
            .defines
            .iter()
            .filter(|d| !puzzle.defines.contains(d))
            .cloned()
            .collect();
        let shown = if differing.is_empty() {
            crate::puzzle::defines_text(&self.defines)
        } else {
            crate::puzzle::defines_text(&differing)
        };
        let names: Vec<String> = self
            .tests
            .iter()
            .filter_map(|&i| puzzle.tests.get(i))
            .map(|t| format!("\"{}\"", t.name))
            .collect();
        let tests = match names.len() {
            1 => format!("test {}", names[0]),
            _ => format!("tests {}", names.join(", ")),
        };
        format!("with {shown}, in {tests}")
    }
}

/// The distinct define sets of the puzzle's tests (`Puzzle::defines_for`), in the order of the
/// first test using each; a puzzle whose tests change no define has one.
fn define_sets(puzzle: &Puzzle, unseen: Option<&TestCase>) -> Vec<DefineSet> {
    let mut sets: Vec<DefineSet> = Vec::new();
    // The unseen test, when it runs, is index `tests.len()`.
    for (i, test) in puzzle.tests.iter().chain(unseen).enumerate() {
        let defines = puzzle.defines_for(test);
        match sets.iter_mut().find(|s| s.defines == defines) {
            Some(set) => set.tests.push(i),
            None => sets.push(DefineSet {
                defines,
                tests: vec![i],
            }),
        }
    }
    if sets.is_empty() {
        sets.push(DefineSet {
            defines: puzzle.defines.clone(),
            tests: Vec::new(),
        });
    }
    sets
}

/// A compile error that only some tests' defines bring out, with `what` (`DefineSet::describe`)
/// after each error's text, so every report shows it at the learner's line.
fn under_defines(e: CompileError, what: &str) -> String {
    match e {
        CompileError::Compilation {
            file,
            log,
            mut messages,
        } => {
            let mut located = false;
            for m in &mut messages {
                if m.severity == compile::MessageSeverity::Error {
                    m.message = after_the_error(&m.message, what);
                    located = true;
                }
            }
            let text = CompileError::Compilation {
                file,
                log,
                messages,
            }
            .to_string();
            // No parsed error: NVRTC's log is shown as it is, under a line that says when.
            if located {
                text
            } else {
                format!("{what}:\n{text}")
            }
        }
        other => format!("{what}: {other}"),
    }
}

/// An error's text with `(what)` after it, so the error reads first (in a cut table too); before
/// NVRTC's " at the end of this line" (`compile::messages`), which reports read as a place.
fn after_the_error(message: &str, what: &str) -> String {
    const END_OF_LINE: &str = " at the end of this line";
    // On the first line: the lines after it (NVRTC's own place, a note) stay as they are.
    let (first, rest) = match message.split_once('\n') {
        Some((first, rest)) => (first, format!("\n{rest}")),
        None => (message, String::new()),
    };
    match first.strip_suffix(END_OF_LINE) {
        Some(error) => format!("{error} ({what}){END_OF_LINE}{rest}"),
        None => format!("{first} ({what}){rest}"),
    }
}

/// What `teach` may know of a test beyond the facts: the source, the launch's shape, the
/// defines' (the test's, `Puzzle::defines_for`) and scalars' integer values and the matrix
/// buffers' shapes.
fn teach_scene<'a>(
    puzzle: &Puzzle,
    test: &TestCase,
    display_name: &'a str,
    source: &'a str,
    learner: &'a Module,
) -> crate::teach::Scene<'a> {
    let mut values = crate::teach::Scene::define_values(&puzzle.defines_for(test));
    values.extend(
        test.scalars
            .iter()
            .filter(|(_, v)| v.fract() == 0.0 && v.abs() < 1e15)
            .map(|(n, v)| (n.clone(), *v as i64)),
    );
    let shapes = test
        .buffers
        .iter()
        .filter_map(|(n, b)| b.shape.map(|s| (n.clone(), s)))
        .collect();
    crate::teach::Scene {
        source,
        file_name: display_name,
        module: Some(learner),
        grid: test.grid,
        block: test.block,
        values,
        shapes,
        cooperative: puzzle.cooperative,
    }
}

/// The name of a test as outcomes carry it: the fixed test's, or its random-input variant's.
pub fn test_name(test: &TestCase, random: bool) -> String {
    if random {
        format!("{} (random inputs)", test.name)
    } else {
        test.name.clone()
    }
}

/// The names of every test `judge` runs for `puzzle` with the unseen test (as `check` runs
/// it), in the order outcomes list them (fixed tests, their random variants, the unseen test):
/// what a report lists when no test could run.
pub fn test_names(puzzle: &Puzzle) -> Vec<String> {
    [false, true]
        .into_iter()
        .flat_map(|random| puzzle.tests.iter().map(move |t| test_name(t, random)))
        .chain(puzzle.unseen.as_ref().map(|u| u.test.name.clone()))
        .collect()
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

/// NVRTC's `-I` options for a puzzle's kernels: the command line's folders, then the puzzle's.
pub fn include_options(
    command_line: &[PathBuf],
    puzzle: &Puzzle,
    arch: Option<crate::compile::Arch>,
) -> Vec<String> {
    let mut options: Vec<String> = command_line
        .iter()
        .chain(&puzzle.include_dirs)
        .map(|dir| format!("-I{}", dir.display()))
        .collect();
    if let Some(arch) = target_arch(arch, puzzle.arch).filter(|a| *a != Default::default()) {
        options.push(arch.nvrtc_option());
    }
    options
}

/// The target a kernel compiles for: `--arch`, else the puzzle's `arch`, else, when a GPU
/// runs kernels in this process, that GPU's own (`Arch::for_device`); `None`: the default
/// (sm_80).
pub fn target_arch(
    given: Option<crate::compile::Arch>,
    puzzle: Option<crate::compile::Arch>,
) -> Option<crate::compile::Arch> {
    given.or(puzzle).or_else(crate::gpu::device_arch)
}

/// The spec, with one set of defines (`named`: say which, for a set after the first). It sees
/// the same include folders as the learner's kernel (an author's header may define what both
/// use).
fn compile_spec(
    puzzle: &Puzzle,
    set: &DefineSet,
    named: bool,
    include_options: &[String],
) -> Result<spec_run::CompiledSpec, JudgeError> {
    let src = puzzle.spec_source();
    let name = puzzle.toml_path.display().to_string();
    let req = CompileRequest {
        file_name: &name,
        source: &src,
        defines: &set.defines,
        extra_options: include_options,
    };
    let compiled = match compile::compile(&req) {
        Ok(c) => c,
        Err(e @ CompileError::Compilation { .. }) => {
            let message = match named {
                false => e.to_string(),
                true => under_defines(e, &set.describe(puzzle)),
            };
            return Err(spec_error(puzzle, message));
        }
        Err(e) => return Err(e.into()),
    };
    let module = crate::ptx::parse(&compiled.ptx).map_err(|e| spec_error(puzzle, e.to_string()))?;
    Ok(spec_run::CompiledSpec {
        module,
        ptx: compiled.ptx,
    })
}

fn run_test(
    puzzle: &Puzzle,
    test: &TestCase,
    seed: Option<u64>,
    spec: &spec_run::CompiledSpec,
    learner: (&Module, &str),
    opts: &JudgeOptions,
) -> Result<TestOutcome, JudgeError> {
    // Buffers more than one launch may hold: refused before any is filled, in exec's words.
    let sizes = (test
        .buffers
        .iter()
        .chain(&test.scratch)
        .chain(&test.symbols))
    .map(|(n, b)| (String::new(), n.clone(), b.len as u64 * b.ty.size() as u64));
    if let Err(m) = emu::spec::check_launch_bytes(sizes) {
        let mut out = blank_outcome(puzzle, test, seed);
        out.error = Some(m);
        return Ok(out);
    }
    let args = test.kernel_args(&puzzle.params, seed)?;
    let steps = puzzle.steps(test);
    // Perf figures cost emulator time: measured only where a kernel budgets one.
    let perf = steps.iter().any(|s| s.budget.has_perf());
    let emu_opts = EmuOptions {
        step_limit: opts.step_limit,
        jobs: opts.jobs,
        perf,
        ..EmuOptions::default()
    };
    // The spec: one thread, sequential.
    let one = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    // The spec gets the test's symbols it declares itself (it may read the table another way).
    let spec_symbols: Vec<_> = test
        .symbol_values()
        .into_iter()
        .filter(|b| emu::declares_symbol(&spec.module, &b.name))
        .collect();
    // Only the outputs are compared: the spec's copies of the inputs go (peak memory). A
    // re-run of the same spec on the same launch reads its outputs from the cache.
    let outputs: Vec<&str> = test.outputs().collect();
    let cache = compile::SpecCache::default_place();
    let ran = spec_run::run_spec(
        spec,
        SPEC_KERNEL,
        &one,
        args,
        &spec_symbols,
        &outputs,
        &EmuOptions {
            step_limit: SPEC_STEP_LIMIT,
            perf: false,
            ..emu_opts.clone()
        },
        cache.as_ref(),
    )
    .map_err(|e| spec_error(puzzle, e.to_string()))?;
    let expected = match ran {
        spec_run::SpecRun::Clean(r) => r,
        spec_run::SpecRun::Diagnosed(r) => {
            let message = match r.diagnostics.first() {
                Some(d) => match d.line {
                    Some(line) => format!("{}: {} (line {line})", d.kind.as_str(), d.message),
                    None => format!("{}: {}", d.kind.as_str(), d.message),
                },
                None => "the spec's run was diagnosed".to_string(),
            };
            return Err(spec_error(puzzle, message));
        }
    };
    // The learner's launches of this test get a wall-clock backstop as well as the step limit
    // (which decides), so a kernel whose steps are pathologically slow still ends.
    // Its outputs start as poison (unless `zeroed`): a read of one before any thread wrote it
    // is an uninitialised read, as on a GPU.
    let emu_opts = EmuOptions {
        deadline: Some(emu::Deadline::for_steps(opts.step_limit)),
        poisoned: (test.buffers.iter())
            .filter(|(_, b)| b.output && !b.zeroed)
            .map(|(name, _)| name.clone())
            .collect(),
        ..emu_opts
    };
    // The inputs the outcome shows are made once the launches are done and their buffers gone
    // (peak memory: making them takes their `f64`s for a moment).
    let mut out = blank_outcome_of(puzzle, test, seed, false);
    let multi = puzzle.is_multi_launch();
    let mut uses: Vec<(KernelUse, PerfStats)> = Vec::new();
    // The least warp with work over every launch, where `warp_require` reads it.
    let mut warps: Option<WarpLeast> = None;
    let mut warps_uncounted = false;
    // The launch's buffers move into its arguments rather than being copied (peak memory).
    let ran = run_steps_moving(&steps, test.initial_buffers(seed), |at| {
        // In a multi-launch puzzle every message says which launch it is about.
        let which = |m: &str| {
            if multi {
                format!(
                    "in `{}` (launch {} of {}): {m}",
                    at.step.kernel,
                    at.index + 1,
                    at.count
                )
            } else {
                m.to_string()
            }
        };
        let got = at
            .args
            .map_err(|e| e.to_string())
            .and_then(|args| launch_step(puzzle, at.step, args, learner, &emu_opts, opts))
            .map_err(|e| which(&e))?;
        let use_at = match uses.iter().position(|(u, _)| u.name == at.step.kernel) {
            Some(found) => found,
            None => {
                uses.push((
                    KernelUse {
                        name: at.step.kernel.to_string(),
                        counters: Counters::default(),
                        argmax: Default::default(),
                        budget: at.step.budget,
                        over_budget: Vec::new(),
                        blocks: None,
                        block_budget: at.step.block_budget,
                        require: at.step.require,
                        block_overruns: Vec::new(),
                    },
                    PerfStats::default(),
                ));
                uses.len() - 1
            }
        };
        let (u, p) = &mut uses[use_at];
        out.families_uncounted |= got.result.families_uncounted;
        if got.result.families_uncounted {
            // The GPU's instrumenter counts memory only: its run cannot judge a family's limit
            // (the emulator's can, and grades by default).
            for i in Counters::MEMORY..Counters::N {
                let limits = [u.budget.slot(i), u.block_budget.slot(i), u.require.slot(i)];
                for l in limits.into_iter().flatten() {
                    *l = None;
                }
            }
        }
        let c = &got.result.counters;
        u.counters
            .raise_to(&mut u.argmax, &c.max_per_thread, &c.argmax);
        if puzzle.warp_require.any() {
            warps_uncounted |= got.result.families_uncounted;
            WarpLeast::fold(&mut warps, &c.warps);
        }
        // Block totals only where a limit reads them.
        if u.block_budget.any() || u.require.any() {
            if let Some(b) = &c.blocks {
                match &mut u.blocks {
                    Some(kept) => kept.merge(b),
                    None => u.blocks = Some(*b),
                }
            }
        }
        p.merge(&got.perf);
        let faulted = got.result.has_errors();
        out.diagnostics
            .extend(got.result.diagnostics.into_iter().map(|mut d| {
                d.message = which(&d.message);
                d
            }));
        out.stdout.push_str(&got.result.stdout);
        Ok(Launched {
            buffers: got.result.buffers,
            faulted,
        })
    });
    let StepsRun { buffers, faulted } = match ran {
        Ok(ran) => ran,
        Err(message) => {
            out.error = Some(message);
            out.inputs = test_inputs(puzzle, test, seed);
            return Ok(out);
        }
    };
    for (u, p) in &mut uses {
        u.block_overruns = block_overruns(u, multi);
        for i in 0..Counters::N {
            if let Some(b) = u.budget.get(i) {
                let used = u.counters.get(i);
                if used > b {
                    u.over_budget.push(OverBudget {
                        counter: Counters::NAMES[i],
                        used,
                        budget: b,
                        thread: u.argmax[i],
                        kernel: multi.then(|| u.name.clone()),
                        lines: Vec::new(),
                        help: None,
                    });
                }
            }
        }
        for kind in PerfKind::ALL {
            let Some(budget) = u.budget.perf(kind) else {
                continue;
            };
            let figure = perf_figure(kind, &u.name, budget, p, learner.0, opts.executor);
            if figure.over() {
                u.over_budget.push(OverBudget {
                    counter: kind.key(),
                    used: figure.value.ceil() as u64,
                    budget,
                    kernel: multi.then(|| u.name.clone()),
                    ..OverBudget::default()
                });
            }
            out.perf.push(figure);
        }
    }
    // Only a test over a counter's budget pays for the traced run that finds its lines; not
    // one stopped at its step or time limit, whose counters only say how long it ran (and
    // whose rerun would run to the limit again).
    let endless = hit_the_limit(&out);
    if !endless
        && uses.iter().any(|(u, _)| {
            u.over_budget.iter().any(OverBudget::is_counter)
                || (u.block_overruns.iter()).any(|o| o.limit_kind == BlockLimitKind::Budget)
        })
    {
        let mut kernels: Vec<&mut KernelUse> = uses.iter_mut().map(|(u, _)| u).collect();
        overrun::find_lines((puzzle, test, seed), learner.0, &emu_opts, &mut kernels);
    }
    if puzzle.warp_require.any() {
        // Checked when the puzzle was read; a failure here is the puzzle's, said as the test's.
        match puzzle.warp_minima(test) {
            Ok(minima) => out.warp_require = minima,
            Err(why) => out.error = Some(format!("the puzzle's {why}")),
        }
        if let Some(w) = &warps {
            let under = warp_overruns(&out.warp_require, w, warps_uncounted);
            out.block_overruns.extend(under);
        }
        out.warps = warps;
    }
    for (u, _) in &uses {
        out.counters
            .raise_to(&mut out.argmax, &u.counters, &u.argmax);
        out.over_budget.extend(u.over_budget.iter().cloned());
        out.block_overruns.extend(u.block_overruns.iter().cloned());
        if let Some(b) = &u.blocks {
            match &mut out.blocks {
                Some(kept) => kept.merge(b),
                None => out.blocks = Some(*b),
            }
        }
    }
    if multi {
        out.kernels = uses.into_iter().map(|(u, _)| u).collect();
    }
    // The puzzle's `wrong-output` hint fits where nothing else went wrong (as `teach::hints`
    // matches it).
    let clean = !out
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    // Outputs the kernel read before writing: their poison was read and carried into what
    // was stored, so "never written" would be false; the uninitialised-read error says it.
    let read_unwritten: Vec<String> = out
        .diagnostics
        .iter()
        .filter_map(|d| match &d.facts {
            Facts::UnwrittenOutput { element: Some(e) } => Some(e.name.clone()),
            _ => None,
        })
        .collect();
    out.outputs = compare_outputs(
        puzzle,
        test,
        &expected,
        &buffers,
        (clean, &read_unwritten, !clean),
    );
    if let Some(also) = &opts.also {
        out.cross = Some(also_run(
            (puzzle, test, seed),
            learner.1,
            opts,
            also,
            &expected,
            (&out.outputs, faulted),
        ));
    }
    out.passed = out
        .outputs
        .values()
        .all(|o| o.mismatches.is_empty() && o.got.len() == o.expected.len())
        && !faulted
        && out.over_budget.is_empty()
        && out.block_overruns.is_empty()
        && out.error.is_none()
        && !out.cross.as_ref().is_some_and(|c| c.fails_the_test());
    drop((buffers, expected));
    out.inputs = test_inputs(puzzle, test, seed);
    Ok(out)
}

/// A test's outcome before anything ran: its name, shape, inputs and limits, nothing compared.
fn blank_outcome(puzzle: &Puzzle, test: &TestCase, seed: Option<u64>) -> TestOutcome {
    blank_outcome_of(puzzle, test, seed, true)
}

/// `blank_outcome`, its inputs left empty unless `with_inputs`.
fn blank_outcome_of(
    puzzle: &Puzzle,
    test: &TestCase,
    seed: Option<u64>,
    with_inputs: bool,
) -> TestOutcome {
    TestOutcome {
        name: test_name(test, seed.is_some()),
        random: seed.is_some(),
        passed: false,
        grid: test.grid,
        block: test.block,
        inputs: if with_inputs {
            test_inputs(puzzle, test, seed)
        } else {
            Vec::new()
        },
        outputs: BTreeMap::new(),
        counters: Counters::default(),
        argmax: Default::default(),
        budget: puzzle.budget,
        over_budget: Vec::new(),
        blocks: None,
        block_budget: puzzle.block_budget,
        require: puzzle.require_for(test),
        block_overruns: Vec::new(),
        warp_require: Vec::new(),
        warps: None,
        kernels: Vec::new(),
        perf: Vec::new(),
        diagnostics: Vec::new(),
        stdout: String::new(),
        error: None,
        not_run: None,
        seconds: 0.0,
        cross: None,
        families_uncounted: false,
    }
}

/// Whether a test ran into its step or time limit (a loop that never ends, most likely).
fn hit_the_limit(t: &TestOutcome) -> bool {
    t.diagnostics
        .iter()
        .any(|d| d.kind == crate::emu::result::DiagKind::StepLimit)
}

/// A test left out because `stopper` (an earlier test) ran into the step or time limit: the
/// same kernel would most likely only run into it again, costing each test its limit.
fn not_run(puzzle: &Puzzle, test: &TestCase, seed: Option<u64>, stopper: &str) -> TestOutcome {
    TestOutcome {
        not_run: Some(format!(
            "not run: test \"{stopper}\" already ran into the step or time limit"
        )),
        ..blank_outcome(puzzle, test, seed)
    }
}

/// `require` counts only work that feeds something: a required counter whose every instruction
/// in the learner's file has its result dropped (a `volatile` read of shared memory into a
/// variable never used, an `mma` whose result is never read) is not met, whatever the counts
/// say (`ptx::census::Feeds`, one level of liveness).
fn unfed_requirements(puzzle: &Puzzle, t: &mut TestOutcome, learner: &Module, file: &str) {
    use crate::ptx::census::Feeds;
    let required = feeds::block_required(puzzle, t);
    if required.is_empty() || t.error.is_some() {
        return;
    }
    let works = |name: &str| feeds::work_of(name).map_or(&[][..], |(w, _)| w);
    let mut feeds: Option<Feeds> = None;
    for (i, min) in required {
        let name = Counters::NAMES[i];
        let kinds = works(name);
        if kinds.is_empty() || t.block_overruns.iter().any(|o| o.counter == name) {
            continue;
        }
        let feeds = feeds.get_or_insert_with(|| Feeds::of(learner, file));
        // Unfed when the learner's file has work of the kinds the counter counts and none of
        // it feeds anything.
        let present: Vec<(bool, &[u32])> = kinds.iter().filter_map(|&w| feeds.of_kind(w)).collect();
        if present.is_empty() || present.iter().any(|&(live, _)| live) {
            continue;
        }
        let lines: Vec<u32> = present
            .iter()
            .flat_map(|&(_, l)| l.iter().copied())
            .collect();
        let block = t.blocks.map_or([0; 3], |b| b.least_at[i]);
        t.block_overruns.push(BlockOverrun {
            unfed: true,
            help: Some(crate::teach::technique::unfed(puzzle.id, i, &lines)),
            ..BlockOverrun::under_require(i, 0, min, block)
        });
        t.passed = false;
    }
}

/// Help for each counter a test broke, from `teach::technique`: a family under `require` or
/// over its budget (or `forbid`), a memory counter over a budget whose `[technique]` says what
/// it is built for. The census of the learner's lines is read only when there is one.
fn technique_help(
    puzzle: &Puzzle,
    t: &mut TestOutcome,
    learner: &Module,
    file: &str,
    scene: &crate::teach::Scene,
) {
    // Families, and global atomics (whose block budget teach explains: fewer atomics).
    let helped = |i: usize| i >= Counters::MEMORY || Counters::NAMES[i] == "global_atomics";
    let family = |name: &str| Counters::index(name).is_some_and(helped);
    // A memory counter under `require` too: teach says when the census shows why (tiles for
    // the tensor cores never staged in shared memory), and nothing otherwise.
    let required =
        |o: &crate::judge::outcome::BlockOverrun| matches!(o.limit_kind, BlockLimitKind::Require);
    let wanted = t.over_budget.iter().any(|o| o.is_counter())
        || (t.block_overruns.iter()).any(|o| family(o.counter) || required(o));
    if !wanted {
        return;
    }
    let census = crate::ptx::census::Census::of(learner, file);
    let cx = crate::teach::technique::Context {
        puzzle_id: puzzle.id,
        technique: puzzle.technique.as_ref(),
        census: &census,
        source: scene.source,
        values: &scene.values,
        block: scene.block,
    };
    use crate::teach::technique::{help, Miss};
    for o in t.over_budget.iter_mut() {
        let Some(i) = Counters::index(o.counter) else {
            continue;
        };
        let forbidden = puzzle.budget.forbids(i)
            || (puzzle.kernels.iter())
                .any(|k| Some(&k.name) == o.kernel.as_ref() && k.budget.forbids(i));
        let miss = Miss::OverBudget {
            used: o.used,
            limit: o.budget,
            forbidden,
        };
        o.help = help(i, miss, &cx);
    }
    // An overrun with its help already said (`unfed_requirements`) keeps it.
    for o in t.block_overruns.iter_mut().filter(|o| o.help.is_none()) {
        let Some(i) = Counters::index(o.counter).filter(|&i| helped(i) || required(o)) else {
            continue;
        };
        let miss = match o.limit_kind {
            BlockLimitKind::Require => Miss::Required {
                used: o.used,
                min: o.limit,
                warp: o.warp.is_some(),
            },
            BlockLimitKind::Budget => Miss::BlockOverBudget {
                used: o.used,
                limit: o.limit,
            },
        };
        o.help = help(i, miss, &cx);
    }
}

/// The blocks of one kernel's launches over its `block_budget` (the block with the most of a
/// counter) or under its `require` (the block with the least), in `Counters::NAMES` order,
/// the budget's before the requirement's.
fn block_overruns(u: &KernelUse, multi: bool) -> Vec<BlockOverrun> {
    let Some(b) = &u.blocks else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for i in 0..Counters::N {
        if let Some(max) = u.block_budget.get(i).filter(|&max| b.most.get(i) > max) {
            found.push(BlockOverrun {
                limit_kind: BlockLimitKind::Budget,
                counter: Counters::NAMES[i],
                used: b.most.get(i),
                limit: max,
                block: b.most_at[i],
                warp: None,
                unfed: false,
                kernel: multi.then(|| u.name.clone()),
                lines: Vec::new(),
                help: None,
            });
        }
    }
    for i in 0..Counters::N {
        if let Some(min) = u.require.get(i).filter(|&min| b.least.get(i) < min) {
            found.push(BlockOverrun {
                kernel: multi.then(|| u.name.clone()),
                ..BlockOverrun::under_require(i, b.least.get(i), min, b.least_at[i])
            });
        }
    }
    found
}

/// The warps with work under the test's `warp_require` `minima` (the warp with the least, per
/// counter, over every launch of the test), in `Counters::NAMES` order. Where the executor
/// counted memory only (`uncounted`: the GPU's instrumenter), the families are not judged.
fn warp_overruns(minima: &[(usize, u64)], w: &WarpLeast, uncounted: bool) -> Vec<BlockOverrun> {
    let mut minima = minima.to_vec();
    minima.sort_by_key(|(i, _)| *i);
    minima
        .into_iter()
        .filter(|&(i, min)| !(uncounted && i >= Counters::MEMORY) && w.least.get(i) < min)
        .map(|(i, min)| BlockOverrun {
            warp: Some(w.at[i].warp),
            ..BlockOverrun::under_require(i, w.least.get(i), min, w.at[i].block)
        })
        .collect()
}

/// Run every launch of the test again on `also`'s executor, from the same inputs, and compare
/// its outputs with the emulator's (`emu`; both against the spec in `expected`).
fn also_run(
    (puzzle, test, seed): (&Puzzle, &TestCase, Option<u64>),
    learner_ptx: &str,
    opts: &JudgeOptions,
    also: &AlsoRun,
    expected: &RunResult,
    (emu, emu_faulted): (&BTreeMap<String, OutputCompare>, bool),
) -> outcome::CrossCheck {
    let mut fault = None;
    let ran = run_steps(&puzzle.steps(test), test.initial_buffers(seed), |at| {
        let cfg = LaunchConfig {
            grid: at.step.grid,
            block: at.step.block,
            dynamic_shared: at.step.shared_bytes,
            cooperative: puzzle.cooperative,
        };
        let result = at.args.map_err(|e| e.to_string()).and_then(|args| {
            launch_isolated(
                puzzle,
                at.step,
                learner_ptx,
                &cfg,
                args,
                opts,
                also.executor,
            )
        })?;
        fault = result
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .cloned();
        Ok(Launched {
            buffers: result.buffers,
            faulted: fault.is_some(),
        })
    });
    let buffers = match ran {
        Ok(ran) => ran.buffers,
        Err(message) => {
            return outcome::CrossCheck {
                device: also.device.clone(),
                verdict: outcome::CrossVerdict::Error(message),
            }
        }
    };
    let gpu = compare_outputs(puzzle, test, expected, &buffers, (false, &[], false));
    cross::compare(&also.device, emu, &gpu, fault.as_ref(), emu_faulted)
}

/// One launch in a worker process (the GPU, or the instrumented emulator).
fn launch_isolated(
    puzzle: &Puzzle,
    step: &Step,
    learner_ptx: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    opts: &JudgeOptions,
    executor: Executor,
) -> Result<RunResult, String> {
    backend::launch(
        executor,
        learner_ptx,
        step.kernel,
        cfg,
        args,
        crate::gpu::plan::per_thread_budget(opts.step_limit, cfg.total_threads()),
        opts.timeout.unwrap_or(executor.default_timeout()),
    )
    .map_err(|e| match e {
        GpuError::Launch(e) => launch_error(puzzle, step, e),
        other => other.to_string(),
    })
}

/// One launch's result, with perf figures from wherever they were measured.
struct StepRun {
    result: RunResult,
    perf: PerfStats,
}

/// Run one launch of the learner's kernel on the chosen executor, with `args` built from the
/// current buffers.
fn launch_step(
    puzzle: &Puzzle,
    step: &Step,
    args: Vec<KernelArg>,
    (learner, learner_ptx): (&Module, &str),
    emu_opts: &EmuOptions,
    opts: &JudgeOptions,
) -> Result<StepRun, String> {
    let cfg = LaunchConfig {
        grid: step.grid,
        block: step.block,
        dynamic_shared: step.shared_bytes,
        cooperative: puzzle.cooperative,
    };
    let run_emu = |args: Vec<KernelArg>, perf: bool| {
        let o = EmuOptions {
            perf,
            ..emu_opts.clone()
        };
        emu::run_with_symbols(learner, step.kernel, &cfg, args, &step.symbols, &o)
            .map(|(r, _)| r)
            .map_err(|e| launch_error(puzzle, step, e))
    };
    match opts.executor {
        Executor::Emulator => {
            let mut result = run_emu(args, emu_opts.perf)?;
            let perf = std::mem::take(&mut result.perf);
            Ok(StepRun { result, perf })
        }
        _ if !step.symbols.is_empty() => Err(
            "this puzzle sets module variables (symbols) before the launch, which gpuzzle does on the emulator only: run it with --backend emu".to_string()
        ),
        other => {
            // Only the emulator measures sectors and bank conflicts: a budgeted figure is
            // graded on an emulator run of the same launch (said so in the report).
            let perf = if step.budget.has_perf() {
                run_emu(args.clone(), true)?.perf
            } else {
                PerfStats::default()
            };
            let result = launch_isolated(puzzle, step, learner_ptx, &cfg, args, opts, other)?;
            Ok(StepRun { result, perf })
        }
    }
}

/// The worst line for `kind` in one kernel's launches, against `budget`.
fn perf_figure(
    kind: PerfKind,
    kernel: &str,
    budget: u64,
    perf: &PerfStats,
    learner: &Module,
    executor: Executor,
) -> PerfFigure {
    let site = match kind {
        PerfKind::SectorsPerAccess => perf.worst_global(),
        PerfKind::BankWays => perf.worst_shared(),
    };
    let value = site.map_or(0.0, |s| match kind {
        PerfKind::SectorsPerAccess => s.average(),
        PerfKind::BankWays => s.max as f64,
    });
    let inst = site.and_then(|s| {
        learner
            .functions
            .get(s.func as usize)?
            .body
            .get(s.pc as usize)
    });
    PerfFigure {
        kind,
        kernel: kernel.to_string(),
        value,
        budget: Some(budget),
        file: inst.and_then(|i| learner.file_name(i.file).map(str::to_string)),
        line: inst.map(|i| i.line).filter(|&l| l > 0),
        accesses: site.map_or(0, |s| s.accesses),
        note: (executor != Executor::Emulator).then_some("measured on the emulator"),
        help: None,
    }
}

/// The test's inputs as launched, in the puzzle's parameter order: each input buffer's values
/// (from `seed` for the random variant) and each scalar.
fn test_inputs(puzzle: &Puzzle, test: &TestCase, seed: Option<u64>) -> Vec<TestInput> {
    // A large input is made again from the test when shown, not kept (`InputValues::made`).
    let shared = std::sync::Arc::new(test.clone());
    puzzle
        .params
        .iter()
        .filter_map(|p| match p.kind {
            ParamKind::Buffer(ty) if !p.output => Some(TestInput {
                name: p.name.clone(),
                values: match test.buffers.get(&p.name).map(|b| b.len) {
                    Some(len) if len > outcome::KEPT_INPUT_ELEMENTS => {
                        let (test, name) = (shared.clone(), p.name.clone());
                        InputValues::made(len, move || test.values(&name, seed))
                    }
                    _ => InputValues::of(ty, test.values(&p.name, seed)),
                },
                scalar: false,
            }),
            ParamKind::Buffer(_) => None,
            ParamKind::Scalar(_) => Some(TestInput {
                name: p.name.clone(),
                values: InputValues::from(Vec::from_iter(test.scalars.get(&p.name).copied())),
                scalar: true,
            }),
        })
        .collect()
}

/// The first kernel the puzzle launches that the learner's module does not define (by its C
/// name, or a C++ kernel's name as written), with the message that says so: the file, the
/// name expected, the kernels found (the puzzle's other kernels left out) and the fix.
fn missing_kernel(puzzle: &Puzzle, file: &str, learner: &Module) -> Option<(String, String)> {
    let wanted: Vec<(String, String)> = if puzzle.is_multi_launch() {
        puzzle
            .kernels
            .iter()
            .map(|k| (k.name.clone(), k.signature()))
            .collect()
    } else {
        vec![(
            puzzle.kernel.clone(),
            crate::puzzle::kernel_signature(puzzle),
        )]
    };
    let (name, signature) = wanted
        .iter()
        .find(|(name, _)| matches!(learner.lookup_entry(name), Err(EntryLookup::Missing)))?;
    // The puzzle's other kernels, found, are not what this one was renamed to.
    let launched: Vec<&str> = wanted
        .iter()
        .filter_map(|(w, _)| learner.find_entry(w).map(|(_, f)| f.name.as_str()))
        .collect();
    let others: Vec<String> = learner
        .entries()
        .filter(|f| !launched.contains(&f.name.as_str()))
        .map(|f| format!("`{}`", f.display_name()))
        .collect();
    let message = if others.is_empty() {
        let other = if launched.is_empty() { "" } else { "other " };
        format!(
            "{file} has no kernel `{name}`; it defines no {other}`__global__` function: \
             put the kernel back as the starter declares it: `{signature}`"
        )
    } else {
        format!(
            "{file} has no kernel `{name}`; it defines {}: rename it back, or check `{signature}`",
            others.join(", ")
        )
    };
    Some((name.clone(), message))
}

/// Why the learner's kernel could not be launched, with the fix.
fn launch_error(puzzle: &Puzzle, step: &Step, e: EmuError) -> String {
    let signature = if puzzle.is_multi_launch() {
        puzzle
            .kernels
            .iter()
            .find(|k| k.name == step.kernel)
            .map_or_else(
                || crate::puzzle::kernel_signature(puzzle),
                |k| k.signature(),
            )
    } else {
        crate::puzzle::kernel_signature(puzzle)
    };
    match e {
        EmuError::NoSuchKernel { found, .. } => format!(
            "no kernel named `{}` in your file (found: {found}); keep the kernel's name and its `extern \"C\" __global__` from the starter: {signature}",
            step.kernel,
        ),
        EmuError::Signature(m) => {
            format!("{m}; keep the starter's parameters exactly: {signature}")
        }
        other => other.to_string(),
    }
}

/// Each output against the spec's: the wrong elements, those still holding the poison they
/// started with, the pattern of the difference and its help (with the puzzle's first
/// `wrong-output` hint where `hint_fits`). An output in `read_unwritten` was read before any
/// thread wrote it: its poison was read, not left, so no element of it is called unwritten and
/// no pattern is guessed from values computed from the poison. After an error (`after_error`:
/// a race, an access out of bounds) the values may come from it, and `teach::output` says only
/// what the outputs show for certain.
fn compare_outputs(
    puzzle: &Puzzle,
    test: &TestCase,
    expected: &RunResult,
    got: &BTreeMap<String, Buffer>,
    (hint_fits, read_unwritten, after_error): (bool, &[String], bool),
) -> BTreeMap<String, OutputCompare> {
    let mut map = BTreeMap::new();
    // The first `wrong-output` hint whose `wrong` (if any) fits this output's wrong elements.
    let rung = |len: usize, mismatches: &[usize]| {
        puzzle
            .mistakes
            .iter()
            .find(|m| {
                m.kind == MistakeKind::WrongOutput
                    && m.wrong.is_none_or(|w| w.fits(len, mismatches))
            })
            .filter(|_| hint_fits)
            .map(|m| teach::output::MistakeRung {
                puzzle: puzzle.id,
                hint: &m.hint,
            })
    };
    // Elements one block covers, for "only the first block is right" (several blocks only).
    let blocks: u64 = test.grid.iter().map(|&d| d as u64).product();
    let block_len = if blocks > 1 && test.launches.is_empty() {
        test.threads_per_block() as usize
    } else {
        0
    };
    for name in test.outputs() {
        let e = expected
            .buffers
            .iter()
            .find(|b| b.name == name)
            .map(Buffer::values)
            .unwrap_or_default();
        let buffer = got.get(name);
        let g = buffer.map(Buffer::values).unwrap_or_default();
        let mismatches: Vec<usize> = e
            .iter()
            .zip(&g)
            .enumerate()
            .filter(|(_, (e, g))| !puzzle.tolerance.accepts(**e, **g))
            .map(|(i, _)| i)
            .collect();
        let garbage_read = read_unwritten.iter().any(|r| r == name);
        let unwritten: Vec<usize> = match buffer {
            Some(_) if garbage_read => Vec::new(),
            Some(b) => mismatches
                .iter()
                .copied()
                .filter(|&i| b.holds_poison(i))
                .collect(),
            None => Vec::new(),
        };
        let shape = test.buffers.get(name).and_then(|b| b.shape);
        let pattern = if garbage_read {
            None
        } else {
            pattern::find(
                &e,
                &g,
                &mismatches,
                &unwritten,
                shape,
                block_len,
                &puzzle.tolerance,
            )
        };
        let help = if mismatches.is_empty() {
            None
        } else {
            teach::output::help(
                &teach::output::WrongOutput {
                    name,
                    shape,
                    expected: &e,
                    pattern: pattern.as_ref(),
                    after_error,
                },
                rung(e.len(), &mismatches).as_ref(),
            )
        };
        map.insert(
            name.to_string(),
            OutputCompare {
                expected: e,
                got: g,
                mismatches,
                shape,
                unwritten,
                pattern,
                help,
            },
        );
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::PerfSite;

    fn stats(shared: bool, accesses: u64, total: u64, max: u32) -> PerfStats {
        PerfStats {
            sites: vec![PerfSite {
                func: 0,
                pc: 0,
                shared,
                write: false,
                accesses,
                total,
                max,
            }],
            ..PerfStats::default()
        }
    }

    /// A pooling-like puzzle with TPB = 8, whose second and third tests give TPB = 64.
    fn puzzle_with_test_defines() -> Puzzle {
        let test = |name: &str, extra: &str| {
            format!(
                "[[test]]\nname = \"{name}\"\n{extra}grid = [1]\nblock = [8]\nscalars = {{ size = 8 }}\nbuffers.a = {{ len = 8 }}\nbuffers.out = {{ len = 8, output = true }}\n\n"
            )
        };
        let text = format!(
            "id = 9\nslug = \"pooling\"\ntitle = \"P\"\npart = \"S\"\nkernel = \"pooling\"\nparams = [\"out\", \"a\", \"size\"]\ndefines = {{ TPB = 8, DEBUG = true }}\ndescription = \"d\"\nspec = \"out[0] = a[0];\"\n\n{}{}{}{}",
            test("eight", ""),
            test("sixty-four", "defines = { TPB = 64 }\n"),
            test("again eight", "defines = { TPB = 8 }\n"),
            test("sixty-four again", "defines = { TPB = 64 }\n"),
        );
        crate::puzzle::parse_puzzle(&text, std::path::Path::new("puzzles/09_pooling.toml"))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn tests_share_a_compile_per_distinct_define_set() {
        let p = puzzle_with_test_defines();
        let sets = define_sets(&p, None);
        assert_eq!(sets.len(), 2);
        // A test that restates the puzzle's value compiles with the first test.
        assert_eq!(sets[0].tests, [0, 2]);
        assert_eq!(sets[0].defines, p.defines);
        assert_eq!(sets[1].tests, [1, 3]);
        assert_eq!(
            sets[1].describe(&p),
            "with TPB=64, in tests \"sixty-four\", \"sixty-four again\""
        );
        // A set that changes nothing is said in full.
        assert_eq!(
            sets[0].describe(&p),
            "with DEBUG, TPB=8, in tests \"eight\", \"again eight\""
        );
    }

    #[test]
    fn a_spec_that_breaks_under_a_tests_defines_names_the_test() {
        let mut p = puzzle_with_test_defines();
        p.spec = "static_assert(TPB == 8, \"eight only\");\nout[0] = a[0];\n".into();
        let source = "extern \"C\" __global__ void pooling(float* out, const float* a, int size) { out[0] = a[0]; }\n";
        let e = judge(&p, "k.cu", source, &JudgeOptions::default())
            .expect_err("the spec is broken")
            .to_string();
        assert!(e.contains("the spec of puzzle 9"), "{e}");
        assert!(
            e.contains("eight only\" (with TPB=64, in tests \"sixty-four\", \"sixty-four again\")"),
            "{e}"
        );
    }

    #[test]
    fn teach_evaluates_indices_with_the_tests_defines() {
        let p = puzzle_with_test_defines();
        let m = Module::default();
        let value = |t: &TestCase| {
            teach_scene(&p, t, "k.cu", "", &m)
                .values
                .into_iter()
                .find(|(n, _)| n == "TPB")
                .map(|(_, v)| v)
        };
        assert_eq!(value(&p.tests[0]), Some(8));
        assert_eq!(value(&p.tests[1]), Some(64));
    }

    #[test]
    fn a_multi_launch_test_runs_its_launches_with_its_own_defines() {
        let text = r#"id = 21
slug = "two-steps"
title = "T"
part = "P"
params = ["out", "a", "size"]
defines = { TPB = 8 }
description = "d"
spec = "for (int i = 0; i < size; i++) out[i] = a[i] * TPB + 1;"

[[kernels]]
name = "scale"
params = ["out", "a", "size"]

[[kernels]]
name = "bump"
params = ["out", "size"]

[[launch]]
kernel = "scale"
grid = ["(size + TPB - 1) / TPB"]
block = ["TPB"]

[[launch]]
kernel = "bump"
grid = ["(size + TPB - 1) / TPB"]
block = ["TPB"]

[[test]]
name = "blocks of 8"
scalars = { size = 20 }
buffers.a = { len = 20, init = "arange" }
buffers.out = { len = 20, output = true }

[[test]]
name = "blocks of 16"
defines = { TPB = 16 }
scalars = { size = 40 }
buffers.a = { len = 40, init = "arange" }
buffers.out = { len = 40, output = true }
"#;
        let p = crate::puzzle::parse_puzzle(text, std::path::Path::new("puzzles/21_two.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        // Each thread checks that its block is TPB wide, then scales by TPB.
        let source = r#"
extern "C" __global__ void scale(float* out, const float* a, int size) {
    int i = blockIdx.x * TPB + threadIdx.x;
    if (blockDim.x == TPB && i < size) out[i] = a[i] * TPB;
}
extern "C" __global__ void bump(float* out, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i] += 1.0f;
}
"#;
        let outcome = judge(&p, "k.cu", source, &JudgeOptions::default()).expect("judged");
        assert!(
            outcome.compile_error.is_none(),
            "{:?}",
            outcome.compile_error
        );
        let got: Vec<(&str, bool, [u32; 3])> = outcome
            .tests
            .iter()
            .map(|t| (t.name.as_str(), t.passed, t.block))
            .collect();
        assert_eq!(
            got,
            [
                ("blocks of 8", true, [8, 1, 1]),
                ("blocks of 16", true, [16, 1, 1]),
                ("blocks of 8 (random inputs)", true, [8, 1, 1]),
                ("blocks of 16 (random inputs)", true, [16, 1, 1]),
            ]
        );
        let out = &outcome.tests[1].outputs["out"];
        assert_eq!(out.expected[39], 39.0 * 16.0 + 1.0);
    }

    #[test]
    fn an_error_only_some_defines_bring_out_names_them_at_the_learners_line() {
        let messages = vec![
            compile::CompilerMessage {
                file: "k.cu".into(),
                line: Some(2),
                column: Some(5),
                severity: compile::MessageSeverity::Error,
                code: None,
                message: "static assertion failed".into(),
                notes: Vec::new(),
            },
            compile::CompilerMessage {
                file: "k.cu".into(),
                line: Some(3),
                column: None,
                severity: compile::MessageSeverity::Warning,
                code: Some("177-D".into()),
                message: "unused".into(),
                notes: Vec::new(),
            },
        ];
        let e = CompileError::Compilation {
            file: "k.cu".into(),
            log: String::new(),
            messages,
        };
        let text = under_defines(e, "with TPB=64, in test \"big\"");
        assert_eq!(
            text,
            "k.cu does not compile\n  k.cu:2:5: error: static assertion failed (with TPB=64, in test \"big\")"
        );
        // A log gpuzzle could not read: NVRTC's words under a line that says when.
        let e = CompileError::Compilation {
            file: "k.cu".into(),
            log: "something odd".into(),
            messages: Vec::new(),
        };
        assert_eq!(
            after_the_error("expected a \";\" at the end of this line", "with TPB=64"),
            "expected a \";\" (with TPB=64) at the end of this line"
        );
        assert_eq!(
            after_the_error(
                "expected a \";\" at the end of this line\nNVRTC reported it at 7:1",
                "with TPB=64"
            ),
            "expected a \";\" (with TPB=64) at the end of this line\nNVRTC reported it at 7:1"
        );
        assert_eq!(
            under_defines(e, "with TPB=64"),
            "with TPB=64:\nk.cu does not compile:\nsomething odd"
        );
    }

    #[test]
    fn block_limits_judge_the_block_with_the_most_and_the_block_with_the_least() {
        use crate::emu::result::{BlockTotals, Counters};
        let block = |b: u32, atomics: u64, writes: u64| {
            BlockTotals::of_block(
                [b, 0, 0],
                &Counters {
                    global_atomics: atomics,
                    shared_writes: writes,
                    ..Counters::default()
                },
            )
        };
        let mut blocks = block(0, 1, 8);
        blocks.merge(&block(1, 16, 0));
        blocks.merge(&block(2, 16, 0));
        let mut u = KernelUse {
            name: "k".into(),
            counters: Counters::default(),
            argmax: Default::default(),
            budget: Default::default(),
            over_budget: Vec::new(),
            blocks: Some(blocks),
            block_budget: Default::default(),
            require: Default::default(),
            block_overruns: Vec::new(),
        };
        // No limits: nothing, whatever the totals.
        assert!(block_overruns(&u, false).is_empty());
        u.block_budget.global_atomics = Some(1);
        u.require.shared_writes = Some(1);
        u.require.global_atomics = Some(1);
        let found = block_overruns(&u, true);
        let seen: Vec<_> = (found.iter())
            .map(|o| (o.limit_kind, o.counter, o.used, o.limit, o.block[0]))
            .collect();
        // The first block of the most atomics; the first block without a shared write; every
        // block makes at least one atomic.
        assert_eq!(
            seen,
            [
                (BlockLimitKind::Budget, "global_atomics", 16, 1, 1),
                (BlockLimitKind::Require, "shared_writes", 0, 1, 1),
            ]
        );
        assert!(found.iter().all(|o| o.kernel.as_deref() == Some("k")));
        // Within the limits: nothing.
        u.block_budget.global_atomics = Some(16);
        u.require.shared_writes = Some(0);
        assert!(block_overruns(&u, false).is_empty());
    }

    #[test]
    fn perf_figures_take_the_average_sectors_and_the_worst_ways() {
        let m = Module::default();
        let f = perf_figure(
            PerfKind::SectorsPerAccess,
            "k",
            5,
            &stats(false, 4, 90, 32),
            &m,
            Executor::Emulator,
        );
        assert_eq!((f.value, f.accesses, f.over()), (22.5, 4, true));
        // No line info in an empty module: no line, rather than a wrong one.
        assert_eq!((f.line, f.note), (None, None));
        let f = perf_figure(
            PerfKind::BankWays,
            "k",
            1,
            &stats(true, 4, 5, 2),
            &m,
            Executor::Gpu,
        );
        assert_eq!((f.value, f.over()), (2.0, true));
        assert_eq!(f.note, Some("measured on the emulator"));
        // No shared access at all: 0 ways, within any budget.
        let f = perf_figure(
            PerfKind::BankWays,
            "k",
            1,
            &stats(false, 4, 16, 4),
            &m,
            Executor::Emulator,
        );
        assert_eq!((f.value, f.accesses, f.over()), (0.0, 0, false));
    }
}
