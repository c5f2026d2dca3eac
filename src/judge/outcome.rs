//! The verdict on one puzzle: per test, outputs against the spec, counters against the budget,
//! diagnostics. Plain data: `report` formats it, `cli` picks the exit code from `passed`.

use crate::emu::result::{Counters, Diagnostic, ThreadId};
use crate::emu::value::{Buffer, ElemType};
use crate::puzzle::{BlockLimits, Budget, PerfKind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which of a block's limits a `BlockOverrun` broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockLimitKind {
    /// `block_budget`: the block's total is above the maximum.
    Budget,
    /// `require`: the block's total is below the minimum (the lesson's access is missing).
    Require,
}

/// A block whose total of one counter broke `block_budget` or `require`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlockOverrun {
    pub limit_kind: BlockLimitKind,
    /// One of `Counters::NAMES`.
    pub counter: &'static str,
    /// The block's total.
    pub used: u64,
    /// The maximum (`Budget`) or minimum (`Require`).
    pub limit: u64,
    /// The block with the most (`Budget`) or the least (`Require`), first of equals.
    pub block: [u32; 3],
    /// `Require` of `warp_require`: the warp of `block` with the least (its index in the
    /// block), whose total over its lanes is `used`; `None` for a block's limit.
    pub warp: Option<u32>,
    /// `Require` met only by work whose results feed nothing the kernel writes (`used` is
    /// then 0: none that count).
    #[serde(skip)]
    pub unfed: bool,
    /// The kernel it is about, in a multi-launch puzzle.
    pub kernel: Option<String>,
    /// `Budget` only: where the block's threads made the counted accesses, one entry per
    /// source line, adding up to `used` (from a traced re-run, as `OverBudget::lines`; empty
    /// when that run could not account for every access).
    pub lines: Vec<LineUse>,
    /// What to change, from `teach::technique` (a technique `require`d and not used); not in
    /// the JSON.
    #[serde(skip)]
    pub help: Option<String>,
}

impl BlockOverrun {
    /// A block under `require` for counter `i` (`used` of `limit`), with no warp, kernel,
    /// lines or help yet: the fields a `warp_require` miss or an unfed requirement set on top.
    pub fn under_require(i: usize, used: u64, limit: u64, block: [u32; 3]) -> BlockOverrun {
        BlockOverrun {
            limit_kind: BlockLimitKind::Require,
            counter: Counters::NAMES[i],
            used,
            limit,
            block,
            warp: None,
            unfed: false,
            kernel: None,
            lines: Vec::new(),
            help: None,
        }
    }
}

/// A measured performance figure of one kernel in one test: its worst source line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfFigure {
    pub kind: PerfKind,
    /// The kernel measured (named in multi-launch puzzles; the puzzle's kernel otherwise).
    pub kernel: String,
    /// The worst line's figure (average sectors, or maximum ways); 0 with no access.
    pub value: f64,
    pub budget: Option<u64>,
    /// The worst line's source file and line, when the PTX had line info.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Warp-level accesses that instruction made.
    pub accesses: u64,
    /// Where the figure was measured when not by the executor that ran the test.
    pub note: Option<&'static str>,
    /// What fixes it, from `teach` and the source (the report's general advice when None).
    #[serde(skip)]
    pub help: Option<String>,
}

impl PerfFigure {
    pub fn over(&self) -> bool {
        self.budget.is_some_and(|b| self.value > b as f64)
    }
}

/// Per-kernel use in a multi-launch test: counters (max per thread over that kernel's launches)
/// against that kernel's budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelUse {
    pub name: String,
    pub counters: Counters,
    #[serde(skip)]
    pub argmax: [ThreadId; Counters::N],
    pub budget: Budget,
    #[serde(skip)]
    pub over_budget: Vec<OverBudget>,
    /// The block totals' extremes over this kernel's launches (kept only where the puzzle
    /// sets `block_budget` or `require`).
    #[serde(skip)]
    pub blocks: Option<crate::emu::result::BlockTotals>,
    #[serde(skip)]
    pub block_budget: BlockLimits,
    #[serde(skip)]
    pub require: BlockLimits,
    #[serde(skip)]
    pub block_overruns: Vec<BlockOverrun>,
}

/// One output buffer compared with the spec.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OutputCompare {
    pub expected: Vec<f64>,
    pub got: Vec<f64>,
    /// Indices where `got` is not within tolerance of `expected`.
    #[serde(skip)]
    pub mismatches: Vec<usize>,
    /// `[rows, cols]` when the puzzle declares the buffer 2D (for a 2D diff).
    #[serde(skip)]
    pub shape: Option<[usize; 2]>,
    /// The mismatches that still hold the poison the output started with, bit for bit: no
    /// thread wrote them (or one only copied the garbage back).
    #[serde(skip)]
    pub unwritten: Vec<usize>,
    /// What the difference looks like (`judge::pattern`), when it has a shape a learner can
    /// act on.
    #[serde(skip)]
    pub pattern: Option<super::pattern::OutputPattern>,
    /// What to change, from `teach::output` (the pattern, then a matching mistake hint).
    #[serde(skip)]
    pub help: Option<String>,
}

/// A counter that went over its budget, and the thread that used the most.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OverBudget {
    /// One of `Counters::NAMES` (or a perf figure's key, `PerfKind::key`).
    pub counter: &'static str,
    pub used: u64,
    pub budget: u64,
    pub thread: ThreadId,
    /// The kernel it is about, in a multi-launch puzzle (`None` for the puzzle's one kernel).
    pub kernel: Option<String>,
    /// Where `thread` made the counted accesses, one entry per source line (in file and line
    /// order), their counts adding up to `used`. Found by running the test again on the
    /// emulator with access traces (`judge::overrun`), only for counters over budget; empty
    /// for perf figures, and when that run could not account for every access (a thread whose
    /// accesses depend on the schedule, a log past its cap).
    pub lines: Vec<LineUse>,
    /// What to change, from `teach::technique` (a family's budget or `forbid`, or what a
    /// memory budget is built for); not in the JSON.
    #[serde(skip)]
    pub help: Option<String>,
}

impl OverBudget {
    /// Whether this is a per-thread counter (one of `Counters::NAMES`), not a perf figure.
    pub fn is_counter(&self) -> bool {
        crate::emu::result::Counters::NAMES.contains(&self.counter)
    }
}

/// One source line's share of an over-budget counter, for the thread that used the most.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LineUse {
    /// The source file, as the PTX names it (the kernel file, or a header it includes).
    pub file: Option<String>,
    /// `None` where the PTX had no line information.
    pub line: Option<u32>,
    /// Accesses this line made, counted as the counter counts them (a `float4` is 4, an
    /// atomic one read and one write).
    pub count: u64,
    /// The elements accessed there (`a[3]`), distinct, in order of first access; the first
    /// few only (`distinct` says how many in all).
    pub cells: Vec<String>,
    pub distinct: usize,
}

/// One input of a test as it was launched: an input buffer's values (a random variant's own
/// random values), or a scalar's value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestInput {
    pub name: String,
    pub values: InputValues,
    /// A value passed by value (`size = 100`), not a buffer.
    pub scalar: bool,
}

/// A test input's values, read as `f64`s (and serialized as a list of them), kept as the
/// buffer's own elements when those give back every value exactly, and a large input not at
/// all but made again from its test when read: a test's input may be hundreds of MB, and every
/// test's outcome keeps its inputs (a `float` buffer's `f64`s took twice its bytes, per test,
/// for the whole run, and the next test's launch came on top).
#[derive(Clone)]
pub struct InputValues(Held);

#[derive(Clone)]
enum Held {
    Elements(ElemType, Vec<u8>),
    Floats(Vec<f64>),
    /// `len` values that `make` gives (a pure function: a test's generator and seed).
    Made {
        len: usize,
        make: Arc<dyn Fn() -> Vec<f64> + Send + Sync>,
    },
}

/// Inputs of more elements than this are made again when read (`Held::Made`), not kept.
pub const KEPT_INPUT_ELEMENTS: usize = 1 << 20;

impl InputValues {
    /// `values` as elements of `ty` when each comes back bit for bit, else as they are.
    pub fn of(ty: ElemType, values: Vec<f64>) -> InputValues {
        let elements = Buffer::from_values("", ty, &values);
        let exact = (values.iter())
            .zip(elements.data.chunks_exact(ty.size().max(1)))
            .all(|(v, e)| ty.decode(e).to_bits() == v.to_bits());
        if exact && elements.len() == values.len() {
            InputValues(Held::Elements(ty, elements.data))
        } else {
            InputValues(Held::Floats(values))
        }
    }

    /// `len` values that `make` gives whenever they are read (it must give the same each time).
    pub fn made(len: usize, make: impl Fn() -> Vec<f64> + Send + Sync + 'static) -> InputValues {
        InputValues(Held::Made {
            len,
            make: Arc::new(make),
        })
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Held::Elements(ty, bytes) => bytes.len() / ty.size().max(1),
            Held::Floats(v) => v.len(),
            Held::Made { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values in order.
    pub fn to_vec(&self) -> Vec<f64> {
        match &self.0 {
            Held::Elements(ty, bytes) => (bytes.chunks_exact(ty.size().max(1)))
                .map(|e| ty.decode(e))
                .collect(),
            Held::Floats(v) => v.clone(),
            Held::Made { make, .. } => make(),
        }
    }
}

impl From<Vec<f64>> for InputValues {
    fn from(v: Vec<f64>) -> InputValues {
        InputValues(Held::Floats(v))
    }
}

impl PartialEq for InputValues {
    fn eq(&self, other: &InputValues) -> bool {
        self.len() == other.len()
            && (self.to_vec().iter().zip(other.to_vec())).all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl std::fmt::Debug for InputValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Held::Made { len, .. } => write!(f, "InputValues(made, {len} values)"),
            _ => f.debug_tuple("InputValues").field(&self.to_vec()).finish(),
        }
    }
}

impl Serialize for InputValues {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Held::Elements(ty, bytes) => {
                s.collect_seq(bytes.chunks_exact(ty.size().max(1)).map(|e| ty.decode(e)))
            }
            Held::Floats(v) => s.collect_seq(v),
            Held::Made { make, .. } => s.collect_seq(make()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestOutcome {
    pub name: String,
    /// True for the random-input variant of a fixed test.
    pub random: bool,
    pub passed: bool,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The test's inputs in the kernel's parameter order (output buffers left out), shown
    /// beside a differing output.
    #[serde(skip)]
    pub inputs: Vec<TestInput>,
    /// Output buffers by name (BTreeMap: stable order in JSON).
    pub outputs: BTreeMap<String, OutputCompare>,
    /// Maximum per thread over the grid.
    pub counters: Counters,
    #[serde(skip)]
    pub argmax: [ThreadId; Counters::N],
    pub budget: Budget,
    #[serde(skip)]
    pub over_budget: Vec<OverBudget>,
    /// Per counter, the largest and smallest block totals (over the kernels of a multi-launch
    /// test), where the puzzle sets `block_budget` or `require`; `None` otherwise.
    #[serde(skip)]
    pub blocks: Option<crate::emu::result::BlockTotals>,
    /// The puzzle's limits on a block's totals (the one kernel's; per kernel in `kernels`).
    #[serde(skip)]
    pub block_budget: BlockLimits,
    #[serde(skip)]
    pub require: BlockLimits,
    /// Blocks over `block_budget` or under `require`, and warps under `warp_require` (any
    /// fails the test).
    #[serde(skip)]
    pub block_overruns: Vec<BlockOverrun>,
    /// The puzzle's `warp_require` minima for this test, (counter index, minimum); empty
    /// where it sets none.
    #[serde(skip)]
    pub warp_require: Vec<(usize, u64)>,
    /// The least totals of a warp with work (over every launch), where `warp_require` is set.
    #[serde(skip)]
    pub warps: Option<crate::emu::result::WarpLeast>,
    /// Multi-launch puzzles: each kernel's counters and budget, in order of first launch.
    #[serde(skip)]
    pub kernels: Vec<KernelUse>,
    /// Measured performance figures (only when the puzzle budgets one).
    #[serde(skip)]
    pub perf: Vec<PerfFigure>,
    pub diagnostics: Vec<Diagnostic>,
    /// Device printf output of the learner's kernel.
    #[serde(skip)]
    pub stdout: String,
    /// A failure that stopped the test before outputs could be compared (e.g. an unsupported instruction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The test was not run, and why: an earlier test of the puzzle ran into the step or time
    /// limit (a loop that never ends would only cost each test its limit again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    /// Wall-clock seconds the test took (compiling excluded), for JUnit's `time`.
    #[serde(skip)]
    pub seconds: f64,
    /// When graded on both executors: how the GPU's run of the same test compared.
    #[serde(skip)]
    pub cross: Option<CrossCheck>,
    /// The kernel ran where instruction families are not counted (the GPU's instrumenter
    /// counts memory only), so their limits were not judged in this test.
    #[serde(skip)]
    pub families_uncounted: bool,
}

/// The learner's kernel run on a second executor (the GPU) beside the emulator.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossCheck {
    /// The device as the report names it (`NVIDIA H100`).
    pub device: String,
    pub verdict: CrossVerdict,
}

impl CrossCheck {
    /// The GPU run disagreed with the emulator's (different outputs, or a fault only it saw):
    /// the test fails. A kernel the GPU could not run at all (`Error`: an instruction the
    /// instrumenter does not handle, a worker that could not start) is said, but does not fail
    /// the test: that is gpuzzle's limit, not the learner's bug.
    pub fn fails_the_test(&self) -> bool {
        matches!(
            self.verdict,
            CrossVerdict::Differs { .. } | CrossVerdict::Fault { .. }
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum CrossVerdict {
    /// Every output element has the same verdict on both, and the same value where wrong.
    Match,
    /// Outputs differ: the first few differing elements, how many more, and the likelier cause.
    Differs {
        elements: Vec<DiffElement>,
        more: usize,
        likely: LikelyCause,
    },
    /// The GPU run reported a fault the emulator's did not.
    Fault {
        diagnostic: Box<Diagnostic>,
        likely: LikelyCause,
    },
    /// The kernel could not be run on the GPU (the instrumenter refused it, the worker died).
    Error(String),
}

/// One output element on which the two runs disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffElement {
    pub buffer: String,
    pub index: usize,
    pub emulator: f64,
    pub gpu: f64,
    pub expected: f64,
}

/// What a disagreement most likely is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LikelyCause {
    /// The kernel's result depends on the schedule (a race, or undefined behaviour such as an
    /// uninitialised value) and the emulator's order happened to give the right answer.
    KernelRaceOrUb,
    /// The GPU computed the spec's answer and the emulator did not.
    EmulatorDefect,
}

/// The verdict on one puzzle. `Default` is a failed verdict on nothing yet: builders name the
/// puzzle and the file and fill in what they found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PuzzleOutcome {
    pub id: u32,
    pub slug: String,
    pub title: String,
    /// The kernel file graded, as the learner would type it (relative to the workspace).
    pub file: String,
    pub passed: bool,
    pub tests: Vec<TestOutcome>,
    /// NVRTC's warnings about the learner's kernel (`file:line:col: warning: text`), shown by
    /// `run`, `watch` and `check --format github`; not in the JSON, whose shape is fixed.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// NVRTC's message when the kernel did not compile (then `tests` is empty); for a broken
    /// puzzle file, that file's problems as `FILE:LINE: error: ...` lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compile_error: Option<String>,
    /// The puzzle file (`file`, a `.toml`) could not be loaded, so no kernel was compiled:
    /// `compile_error` holds the file's problems. Set only by `cli::common::broken_outcome`;
    /// reports name it a broken puzzle file, and `check`'s JSON puts it under `puzzle_error`.
    #[serde(skip)]
    pub broken_puzzle_file: bool,
    /// The kernel the puzzle launches that the learner's file does not define (renamed or
    /// deleted): then no test ran and `compile_error` holds the one message that says so
    /// (the file, this name, the kernels found); `check`'s JSON adds it as `missing_kernel`.
    #[serde(skip)]
    pub missing_kernel: Option<String>,
    /// The puzzle's `[[mistake]]` hints that answer this failure, most specific first; empty
    /// when it passed. Filled by `cli::common` after grading (`teach::hints::for_outcome`);
    /// `check`'s JSON lists them as `mistake_hints`.
    #[serde(skip)]
    pub mistakes: Vec<crate::teach::hints::Matched>,
    /// The puzzle's `[unseen]` test, when it ran (`check`, `lint`): the last of `tests`.
    #[serde(skip)]
    pub unseen: Option<UnseenRun>,
    /// The learner's file is the pack's starter as shipped (and fails): nothing is written
    /// yet, so CI reports name it "not started" instead of annotating its failures. Set by
    /// `cli::common` after grading.
    #[serde(skip)]
    pub not_started: bool,
}

/// The unseen test of a graded puzzle: which test it is and what was drawn.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UnseenRun {
    /// Its name in `tests` (`unseen size (size = 137)`).
    pub test: String,
    /// The scalars drawn from a range, with their values (every scalar when none was drawn).
    pub scalars: Vec<(String, f64)>,
}

impl PuzzleOutcome {
    /// When the kernel passed every test it could see and failed only the unseen one: the
    /// unseen test's run (a size is then probably hard-coded).
    pub fn fails_only_unseen(&self) -> Option<&UnseenRun> {
        let u = self.unseen.as_ref()?;
        let mut unseen_failed = false;
        for t in &self.tests {
            match (t.name == u.test, t.passed) {
                (true, false) => unseen_failed = true,
                (false, false) => return None,
                _ => {}
            }
        }
        (unseen_failed && self.compile_error.is_none()).then_some(u)
    }

    /// `the kernel passes the tests it can see but fails an unseen size (size = 137)...`.
    pub fn unseen_message(&self) -> Option<String> {
        let u = self.fails_only_unseen()?;
        let names: Vec<String> = u.scalars.iter().map(|(n, _)| format!("`{n}`")).collect();
        let values: Vec<String> = u
            .scalars
            .iter()
            .map(|(n, v)| format!("{n} = {}", crate::puzzle::show_number(*v)))
            .collect();
        Some(format!(
            "the kernel passes the tests it can see but fails a size it could not see ({}): a size is probably hard-coded; use {} (and the launch's shape) instead of fixed numbers",
            values.join(", "),
            if names.is_empty() { "the scalars".to_string() } else { names.join(" and ") }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_with(name: &str) -> TestOutcome {
        TestOutcome {
            name: name.into(),
            random: false,
            passed: true,
            grid: [1, 1, 1],
            block: [8, 1, 1],
            inputs: vec![],
            outputs: BTreeMap::new(),
            counters: Counters::default(),
            argmax: Default::default(),
            budget: Budget::default(),
            over_budget: vec![],
            blocks: None,
            block_budget: BlockLimits::default(),
            require: BlockLimits::default(),
            block_overruns: vec![],
            warp_require: vec![],
            warps: None,
            kernels: vec![],
            perf: vec![],
            diagnostics: vec![],
            stdout: String::new(),
            error: None,
            not_run: None,
            seconds: 0.0,
            cross: None,
            families_uncounted: false,
        }
    }

    fn outcome(visible_pass: bool, unseen_pass: bool) -> PuzzleOutcome {
        let mut seen = test_with("8 elements");
        seen.passed = visible_pass;
        let mut unseen = test_with("unseen size (size = 137)");
        unseen.passed = unseen_pass;
        PuzzleOutcome {
            tests: vec![seen, unseen],
            unseen: Some(UnseenRun {
                test: "unseen size (size = 137)".into(),
                scalars: vec![("size".into(), 137.0)],
            }),
            ..PuzzleOutcome::default()
        }
    }

    #[test]
    fn only_a_failure_of_the_unseen_test_alone_is_said_to_be_a_hard_coded_size() {
        let o = outcome(true, false);
        assert_eq!(
            o.fails_only_unseen().map(|u| u.test.as_str()),
            Some("unseen size (size = 137)")
        );
        let m = o.unseen_message().unwrap();
        assert!(
            m.contains(
                "passes the tests it can see but fails a size it could not see (size = 137)"
            ) && m.contains("use `size`"),
            "{m}"
        );
        assert!(outcome(false, false).unseen_message().is_none());
        assert!(outcome(true, true).unseen_message().is_none());
        let mut no_unseen = outcome(true, false);
        no_unseen.unseen = None;
        assert!(no_unseen.unseen_message().is_none());
    }

    #[test]
    fn input_values_keep_their_elements_and_read_back_as_the_f64s_they_were() {
        let exact = vec![0.0, 1.5, -3.0, 1048576.0];
        let kept = InputValues::of(ElemType::F32, exact.clone());
        assert!(matches!(kept.0, Held::Elements(..)), "{kept:?}");
        assert_eq!(kept.to_vec(), exact);
        assert_eq!(kept.len(), 4);
        // 0.1 is no `float`: kept as the f64 it was, so nothing shown changes.
        let inexact = vec![0.1, 2.0];
        let kept = InputValues::of(ElemType::F32, inexact.clone());
        assert!(matches!(kept.0, Held::Floats(..)), "{kept:?}");
        assert_eq!(kept.to_vec(), inexact);
        let made = InputValues::made(3, || vec![1.0, 2.5, -1.0]);
        assert_eq!((made.len(), made.to_vec()), (3, vec![1.0, 2.5, -1.0]));
        assert_eq!(
            serde_json::to_string(&made).ok().as_deref(),
            Some("[1.0,2.5,-1.0]")
        );
        let json = serde_json::to_string(&InputValues::of(ElemType::I32, vec![1.0, -2.0]));
        assert_eq!(json.ok().as_deref(), Some("[1.0,-2.0]"));
        assert_eq!(
            serde_json::to_string(&InputValues::from(vec![1.0, -2.0])).ok(),
            serde_json::to_string(&vec![1.0f64, -2.0]).ok()
        );
    }
}
