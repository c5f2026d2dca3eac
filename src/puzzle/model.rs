//! A validated puzzle, as the judge uses it: parameters in kernel order, tests with their launch
//! shapes and input recipes, budget and tolerance. Built only by `parse` (which checks it), so the
//! judge may rely on its invariants (every param has a value in every test, lengths agree, ...).

use super::error::PuzzleError;
use super::generators::Generator;
use super::random;
use crate::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use crate::puzzle::{BlockLimits, Budget};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A set of defines as a report says it: `TPB=64, DEBUG` (empty for none).
pub fn defines_text(defines: &[(String, Option<String>)]) -> String {
    defines
        .iter()
        .map(|(name, value)| match value {
            Some(v) => format!("{name}={v}"),
            None => name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `base` with each of `overrides` replacing the value of its name (or added), sorted by name.
pub(crate) fn merge_defines(
    base: &[(String, Option<String>)],
    overrides: &[(String, Option<String>)],
) -> Vec<(String, Option<String>)> {
    let mut out = base.to_vec();
    for (name, value) in overrides {
        match out.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value.clone(),
            None => out.push((name.clone(), value.clone())),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Name of the spec kernel in `Puzzle::spec_source`.
pub const SPEC_KERNEL: &str = "gpuzzle_spec";

/// One puzzle, from a `NN_slug.toml` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Puzzle {
    pub id: u32,
    /// Short name used on the command line (`gpuzzle run pooling`) and as the progress key.
    pub slug: String,
    pub title: String,
    /// The group it belongs to in `gpuzzle list` ("Shared memory").
    pub part: String,
    /// Entry point the learner writes (`extern "C" __global__ void <kernel>(...)`); in a
    /// multi-launch puzzle, the first of `kernels`.
    pub kernel: String,
    /// Kernel parameters, in the kernel's order; in a multi-launch puzzle, the spec's
    /// parameters (the tests' buffers and scalars).
    pub params: Vec<Param>,
    /// The kernels of a multi-launch puzzle (`[[kernels]]`), in file order; empty for a
    /// single-launch puzzle, whose one kernel is `kernel` with `params`.
    pub kernels: Vec<KernelDef>,
    /// Preprocessor defines for the starter, the solution and the spec: `(name, value)`;
    /// `None` is a bare `-DNAME`. Sorted by name.
    pub defines: Vec<(String, Option<String>)>,
    /// `include_dirs`: folders searched for the kernel's own headers (NVRTC's `-I`), resolved
    /// against the puzzle file's folder (the learner's `.cu` sits beside it); each exists.
    pub include_dirs: Vec<PathBuf>,
    /// What to compute, the launch shape, the budget and why (plain text, a few paragraphs).
    pub description: String,
    /// Body of the sequential reference, in CUDA C (see `spec_source`).
    pub spec: String,
    /// 1-based line of the TOML file where `spec`'s first line sits (for `#line`).
    pub spec_line: usize,
    /// Progressive hints, gentlest first.
    pub hints: Vec<String>,
    /// `[[mistake]]`: hints for common mistakes, each shown by `gpuzzle hint` after a failed
    /// run that made it (`teach::hints` matches them), in file order.
    pub mistakes: Vec<Mistake>,
    /// Per-thread maxima, checked on every test (not on `bench`).
    pub budget: Budget,
    /// Maxima on a block's total of each counter (`block_budget`), judged on the worst block.
    pub block_budget: BlockLimits,
    /// Minima every block's total must reach (`require`): the access a lesson is about.
    pub require: BlockLimits,
    pub tolerance: Tolerance,
    /// Fixed tests, in file order. The judge also runs each with random inputs.
    pub tests: Vec<TestCase>,
    /// An optional large problem for `gpuzzle bench` (not judged against the budget).
    pub bench: Option<TestCase>,
    /// The bench's floating-point work, from `[bench] flops = "expr"` over its scalars.
    pub bench_flops: Option<BenchFlops>,
    /// The TOML file this came from (for embedded puzzles: `puzzles/NN_slug.toml`, virtual).
    pub toml_path: PathBuf,
    /// The kernel file's name, the TOML's stem plus `.cu` (`09_pooling.cu`), found in the
    /// puzzles directory (the learner's starter) and in the solutions directory.
    pub kernel_file: String,
    /// `[unseen]`: the test `check` adds at a size fixed by gpuzzle's version (`run` and
    /// `watch` do not run it: the learner cannot see it in advance).
    pub unseen: Option<Unseen>,
    /// `teaches`: what the lesson is, checked by `gpuzzle lint` (in file order, no repeats).
    pub teaches: Vec<Teach>,
    /// `points`: what passing the puzzle is worth in `check --format classroom` (default 1,
    /// at most `MAX_POINTS`).
    pub points: u32,
    /// `step_limit`: the test launches' step limit, where the default (`JudgeOptions`) is too
    /// small for the puzzle's largest test.
    pub step_limit: Option<u64>,
    /// `cooperative = true`: the learner's kernels launch cooperatively
    /// (`cudaLaunchCooperativeKernel`), so `cg::this_grid().sync()` works; the spec does not.
    pub cooperative: bool,
    /// `arch = "sm_90"`: the target its kernels (and spec) compile for; `None`: the default
    /// (or the GPU's own on a GPU).
    pub arch: Option<crate::compile::Arch>,
    /// `[technique]`: the technique the puzzle teaches, for messages and `gpuzzle lint`.
    pub technique: Option<super::limits::Technique>,
    /// `warp_require`: minima of the total of each warp with work, over every launch.
    pub warp_require: super::limits::ScaledMinima,
    /// The expressions of `require` (single-launch puzzles): worked out per test into the
    /// step's `require` (`require_for`), beside its whole numbers in `require`.
    pub require_scaled: super::limits::ScaledMinima,
}

/// The most a puzzle's `points` may be: a grade, not a counter.
pub const MAX_POINTS: u32 = 1000;

/// The `[unseen]` test, drawn (`puzzle::unseen` says how).
#[derive(Clone, Debug, PartialEq)]
pub struct Unseen {
    /// Named `unseen size (size = 137)`; its launches shaped as any test's.
    pub test: TestCase,
    /// The scalars drawn from a range, with their values, by name.
    pub drawn: Vec<(String, f64)>,
    /// `[unseen] defines`, checked like the puzzle's `defines`, sorted by name (also in
    /// `test.defines`, so the judge compiles with them); their values serve its expressions.
    pub defines: Vec<(String, Option<String>)>,
}

/// A `teaches` tag: a lesson `gpuzzle lint` can hold the puzzle's tests to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Teach {
    /// The bounds guard: some test leaves a block partly full.
    Bounds,
    /// `__syncthreads()` across warps: a test's (and the unseen one's) blocks have 64+ threads.
    BlockBarrier,
    /// Shared memory: the puzzle `require`s a shared read or write.
    Shared,
    /// Atomic operations: the puzzle `require`s a global or shared atomic.
    Atomics,
    /// 2D indexing: some test's matrix or launch is not square, so swapped x and y fail.
    TwoD,
    /// A grid-stride loop: tests with different grids, one with fewer threads than elements.
    GridStride,
    /// Coalescing: the budget holds `sectors_per_access`.
    Coalescing,
    /// Bank conflicts: the budget holds `bank_ways`.
    BankConflicts,
}

impl Teach {
    pub const ALL: [Teach; 8] = [
        Teach::Bounds,
        Teach::BlockBarrier,
        Teach::Shared,
        Teach::Atomics,
        Teach::TwoD,
        Teach::GridStride,
        Teach::Coalescing,
        Teach::BankConflicts,
    ];

    /// As written in `teaches`.
    pub fn name(self) -> &'static str {
        match self {
            Teach::Bounds => "bounds",
            Teach::BlockBarrier => "block-barrier",
            Teach::Shared => "shared",
            Teach::Atomics => "atomics",
            Teach::TwoD => "2d",
            Teach::GridStride => "grid-stride",
            Teach::Coalescing => "coalescing",
            Teach::BankConflicts => "bank-conflicts",
        }
    }

    pub fn from_name(s: &str) -> Option<Teach> {
        Teach::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// One `[[mistake]]`: what a failed run must have seen, and the hint for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mistake {
    pub kind: MistakeKind,
    /// `line`: text the diagnostic's source line must contain (whitespace ignored on both
    /// sides); only for a diagnostic kind. `None`: any line.
    pub line: Option<String>,
    /// `wrong`: which elements of an output are wrong, for a `wrong-output` hint about one
    /// shape of wrong output only. `None`: any wrong output.
    pub wrong: Option<WrongElements>,
    pub hint: String,
}

/// Which elements of a wrong output a `[[mistake]]`'s `wrong` key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WrongElements {
    /// `wrong = "last"`: only the output's last element (an odd size's tail, a bound that
    /// stops one short).
    Last,
}

impl WrongElements {
    pub const NAMES: [&'static str; 1] = ["last"];

    pub fn from_name(s: &str) -> Option<WrongElements> {
        match s {
            "last" => Some(WrongElements::Last),
            _ => None,
        }
    }

    /// Whether an output of `len` elements whose wrong ones are `mismatches` (ascending) has
    /// this shape.
    pub fn fits(&self, len: usize, mismatches: &[usize]) -> bool {
        match self {
            WrongElements::Last => len > 0 && mismatches == [len - 1],
        }
    }
}

/// What a `[[mistake]]` answers, as its `kind` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MistakeKind {
    /// A diagnostic of this kind (`shared-race`, ...).
    Diag(crate::emu::result::DiagKind),
    /// `over-budget:COUNTER`: a counter or performance figure over its budget;
    /// `over-budget` alone: any of them.
    OverBudget(Option<&'static str>),
    /// `wrong-output`: an output differs from the spec's.
    WrongOutput,
}

impl MistakeKind {
    /// The counters and performance figures `over-budget:` takes.
    pub const BUDGETED: [&'static str; 8] = [
        "global_reads",
        "global_writes",
        "shared_reads",
        "shared_writes",
        "global_atomics",
        "shared_atomics",
        "sectors_per_access",
        "bank_ways",
    ];

    /// Every spelling `kind` accepts, for an error message.
    pub fn valid_names() -> Vec<String> {
        let mut names: Vec<String> = crate::emu::result::DiagKind::ALL
            .iter()
            .map(|k| k.as_str().to_string())
            .collect();
        names.push("over-budget".into());
        names.extend(Self::BUDGETED.iter().map(|c| format!("over-budget:{c}")));
        names.push("wrong-output".into());
        names
    }

    /// The kind spelled `s`, as `name` spells it back.
    pub fn from_name(s: &str) -> Option<MistakeKind> {
        if let Some(k) = crate::emu::result::DiagKind::from_name(s) {
            return Some(MistakeKind::Diag(k));
        }
        match s {
            "wrong-output" => Some(MistakeKind::WrongOutput),
            "over-budget" => Some(MistakeKind::OverBudget(None)),
            _ => {
                let counter = s.strip_prefix("over-budget:")?;
                Self::BUDGETED
                    .into_iter()
                    .find(|c| *c == counter)
                    .map(|c| MistakeKind::OverBudget(Some(c)))
            }
        }
    }

    /// As written in the puzzle file and the state: `shared-race`, `over-budget:global_reads`.
    pub fn name(&self) -> String {
        match self {
            MistakeKind::Diag(k) => k.as_str().to_string(),
            MistakeKind::OverBudget(None) => "over-budget".into(),
            MistakeKind::OverBudget(Some(c)) => format!("over-budget:{c}"),
            MistakeKind::WrongOutput => "wrong-output".into(),
        }
    }
}

/// `[bench] flops`: the expression as written and its value for the bench's scalars.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchFlops {
    pub expr: String,
    pub value: f64,
}

/// One kernel of a multi-launch puzzle.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelDef {
    pub name: String,
    /// In the kernel's order; buffers bound to outputs or scratch are writable (not `const`).
    pub params: Vec<Param>,
    /// Its own `budget`, else the puzzle's.
    pub budget: Budget,
    /// Its own `block_budget` and `require`, else the puzzle's.
    pub block_budget: BlockLimits,
    pub require: BlockLimits,
}

impl KernelDef {
    /// `extern "C" __global__ void scan_blocks(float* out, const float* a, int size)`.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self.params.iter().map(Param::c_decl).collect();
        format!(
            "extern \"C\" __global__ void {}({})",
            self.name,
            params.join(", ")
        )
    }
}

/// One launch of a multi-launch test, its shape computed from the test's scalars.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchStep {
    /// Index into `Puzzle::kernels`.
    pub kernel: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// What each kernel parameter receives, in the kernel's order.
    pub args: Vec<ArgSource>,
}

/// What one parameter of a launch receives.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSource {
    /// The test's buffer or scratch buffer of this name (its current contents).
    Buffer(String),
    /// A value (a test scalar or an expression's result).
    Scalar(f64),
}

/// One launch as any executor runs it: the kernel, its parameters, the shape, the arguments.
#[derive(Clone, Debug)]
pub struct Step<'a> {
    pub kernel: &'a str,
    pub params: &'a [Param],
    pub budget: Budget,
    pub block_budget: BlockLimits,
    pub require: BlockLimits,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub args: Vec<ArgSource>,
    /// Module variables set before this launch (`symbols.NAME` of a single-launch test).
    pub symbols: Vec<Buffer>,
}

impl Step<'_> {
    /// The launch arguments from the buffers as they are now (see `TestCase::initial_buffers`).
    pub fn kernel_args(
        &self,
        buffers: &BTreeMap<String, Buffer>,
    ) -> Result<Vec<KernelArg>, PuzzleError> {
        self.params
            .iter()
            .zip(&self.args)
            .map(|(p, a)| match a {
                ArgSource::Buffer(name) => buffers
                    .get(name)
                    .map(|b| KernelArg::Buffer(b.clone()))
                    .ok_or_else(|| PuzzleError::TestArgs {
                        test: format!("(the launch of `{}`)", self.kernel),
                        problem: format!("no buffer `{name}` for parameter `{}`", p.name),
                        help: "declare it in the test's buffers or in [scratch]".into(),
                    }),
                ArgSource::Scalar(v) => Ok(KernelArg::Scalar(Scalar::from_f64(p.elem_type(), *v))),
            })
            .collect()
    }
}

/// Put a launch's final buffers back, by name, for the next launch and the comparison.
pub fn store_buffers(buffers: &mut BTreeMap<String, Buffer>, results: Vec<Buffer>) {
    for b in results {
        buffers.insert(b.name.clone(), b);
    }
}

/// One kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// For a buffer: the kernel writes it and it is compared with the spec's. Inputs are
    /// `const` in the spec's signature. Always false for scalars.
    pub output: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A pointer to a device buffer of this element type.
    Buffer(ElemType),
    /// A value passed by value.
    Scalar(ElemType),
}

impl Param {
    /// The C declaration of this parameter: `float* out`, `const float* a`, `int size`.
    pub fn c_decl(&self) -> String {
        match self.kind {
            ParamKind::Buffer(ty) if self.output => format!("{}* {}", ty.c_name(), self.name),
            ParamKind::Buffer(ty) => format!("const {}* {}", ty.c_name(), self.name),
            ParamKind::Scalar(ty) => format!("{} {}", ty.c_name(), self.name),
        }
    }

    pub fn elem_type(&self) -> ElemType {
        match self.kind {
            ParamKind::Buffer(ty) | ParamKind::Scalar(ty) => ty,
        }
    }
}

/// How close an output must be to the spec's: `|got - expected| <= abs + rel * |expected|`.
/// Both zero (the default) means exact.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tolerance {
    pub abs: f64,
    pub rel: f64,
}

impl Tolerance {
    pub fn is_exact(&self) -> bool {
        self.abs == 0.0 && self.rel == 0.0
    }

    /// Whether `got` is acceptable for `expected` (NaN matches only NaN).
    pub fn accepts(&self, expected: f64, got: f64) -> bool {
        if expected.is_nan() || got.is_nan() {
            return expected.is_nan() && got.is_nan();
        }
        if expected == got {
            return true;
        }
        (got - expected).abs() <= self.abs + self.rel * expected.abs()
    }
}

/// One launch: shape, scalars and buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    pub name: String,
    /// Blocks per grid, padded with 1s to three dimensions.
    pub grid: [u32; 3],
    /// Threads per block, padded with 1s to three dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes (0 unless the kernel uses `extern __shared__`).
    pub shared_bytes: u32,
    /// Scalar arguments by parameter name (converted to the parameter's type when launched).
    pub scalars: BTreeMap<String, f64>,
    /// Buffer arguments by parameter name.
    pub buffers: BTreeMap<String, BufferSpec>,
    /// `__constant__`/`__device__` variables set before the launch, by name (inputs only).
    pub symbols: BTreeMap<String, BufferSpec>,
    /// Multi-launch puzzles: `[scratch]` buffers sized for this test (zeros, never compared).
    pub scratch: BTreeMap<String, BufferSpec>,
    /// Multi-launch puzzles: the launches, in order, shaped for this test (empty otherwise;
    /// then `grid`, `block` and `shared_bytes` are the one launch's, else the first's).
    pub launches: Vec<LaunchStep>,
    /// `defines = { TPB = 64 }`: this test's values for some of the puzzle's defines, sorted by
    /// name; each name is one of `Puzzle::defines` (`parse` refuses any other). Empty: the
    /// puzzle's defines as they are. Everything that compiles a kernel or the spec for this
    /// test (and its random-input variant) uses `Puzzle::defines_for`.
    pub defines: Vec<(String, Option<String>)>,
}

impl BufferSpec {
    /// A row's length for generators that work row by row: the shape's columns.
    pub fn cols(&self) -> Option<usize> {
        self.shape.map(|[_, c]| c)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    pub ty: ElemType,
    /// Number of elements (at least 1).
    pub len: usize,
    /// Contents of an input buffer (always `Zeros` for an output).
    pub init: Init,
    /// Written by the kernel and compared with the spec's. Starts as poison (garbage, as
    /// `cudaMalloc`'d memory: `ElemType::poison_bits`) unless `zeroed`.
    pub output: bool,
    /// An output that starts as zeros (`zeroed = true`: a kernel that accumulates into it with
    /// atomics, as after a `cudaMemset`). Always false for inputs.
    pub zeroed: bool,
    /// `[rows, cols]` with `rows * cols == len`, when the buffer is a matrix (for 2D diffs).
    pub shape: Option<[usize; 2]>,
    /// Keep these contents in the random-input variant (e.g. indices that must stay in range).
    pub fixed: bool,
}

/// How an input buffer is filled.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zeros,
    Ones,
    /// 0, 1, 2, ...
    Arange,
    Fill(f64),
    /// Exactly these values (as many as `len`).
    Values(Vec<f64>),
    /// Small random integers (see `random`), the same for the same seed and buffer name.
    Random {
        seed: u64,
    },
    /// A generator that does not forgive (see `generators`), from this seed and the name.
    Generated {
        generator: Generator,
        seed: u64,
    },
}

impl Init {
    fn values(&self, buffer: &str, ty: ElemType, len: usize, cols: Option<usize>) -> Vec<f64> {
        match self {
            Init::Zeros => vec![0.0; len],
            Init::Ones => vec![1.0; len],
            Init::Arange => (0..len).map(|i| i as f64).collect(),
            Init::Fill(v) => vec![*v; len],
            Init::Values(v) => v.clone(),
            Init::Random { seed } => random::small_integers(*seed, buffer, ty, len),
            Init::Generated { generator, seed } => generator.values(*seed, buffer, ty, len, cols),
        }
    }
}

impl TestCase {
    /// The `symbols` of this test as the bytes to load, named as written.
    pub fn symbol_values(&self) -> Vec<Buffer> {
        self.symbols
            .iter()
            .map(|(name, spec)| {
                let values = spec.init.values(name, spec.ty, spec.len, spec.cols());
                Buffer::from_values(name, spec.ty, &values)
            })
            .collect()
    }

    /// The contents of buffer `name` at launch. With `random_seed`, every input buffer that is
    /// not `fixed` holds small random integers drawn from that seed instead (so float results
    /// stay exact, and a kernel that hard-codes the answer fails), or, where the buffer names a
    /// generator, that generator's data drawn again from the seed (the data stays as hard).
    /// Outputs are zeros here: the spec's start (the learner's outputs start as poison, see
    /// `initial_buffers`). An unknown name gives an empty vector.
    pub fn values(&self, name: &str, random_seed: Option<u64>) -> Vec<f64> {
        let Some(spec) = self.buffers.get(name) else {
            return Vec::new();
        };
        if spec.output {
            return vec![0.0; spec.len];
        }
        match (random_seed, &spec.init) {
            (Some(seed), Init::Generated { generator, .. }) if !spec.fixed => {
                generator.values(seed, name, spec.ty, spec.len, spec.cols())
            }
            (Some(seed), _) if !spec.fixed => random::small_integers(seed, name, spec.ty, spec.len),
            _ => spec.init.values(name, spec.ty, spec.len, spec.cols()),
        }
    }

    /// Launch arguments in `params` order: buffers as `KernelArg::Buffer` named after the
    /// parameter, scalars as `KernelArg::Scalar` of the parameter's type.
    pub fn kernel_args(
        &self,
        params: &[Param],
        random_seed: Option<u64>,
    ) -> Result<Vec<KernelArg>, PuzzleError> {
        params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Buffer(ty) => {
                    let spec = self.buffers.get(&p.name).ok_or_else(|| self.missing(p))?;
                    if spec.ty != ty {
                        return Err(PuzzleError::TestArgs {
                            test: self.name.clone(),
                            problem: format!(
                                "buffer `{}` holds {} but the parameter is {}",
                                p.name, spec.ty, ty
                            ),
                            help: "give the buffer and the parameter the same type".into(),
                        });
                    }
                    let values = self.values(&p.name, random_seed);
                    Ok(KernelArg::Buffer(Buffer::from_values(&p.name, ty, &values)))
                }
                ParamKind::Scalar(ty) => {
                    let v = self.scalars.get(&p.name).ok_or_else(|| self.missing(p))?;
                    Ok(KernelArg::Scalar(Scalar::from_f64(ty, *v)))
                }
            })
            .collect()
    }

    fn missing(&self, p: &Param) -> PuzzleError {
        let (what, how) = match p.kind {
            ParamKind::Buffer(_) => ("buffer", format!("buffers.{} = {{ ... }}", p.name)),
            ParamKind::Scalar(_) => ("scalar", format!("scalars = {{ {} = ... }}", p.name)),
        };
        PuzzleError::TestArgs {
            test: self.name.clone(),
            problem: format!("no {what} for parameter `{}`", p.name),
            help: format!("add `{how}` to the test"),
        }
    }

    /// Every buffer at the first launch of the learner's kernel, by name: the inputs (random
    /// with `random_seed`, see `values`), the outputs as poison (what `cudaMalloc` leaves:
    /// an element no thread writes stays wrong, `Buffer::holds_poison` finds it) unless
    /// `zeroed`, and the scratch buffers as zeros. Launches share these.
    pub fn initial_buffers(&self, random_seed: Option<u64>) -> BTreeMap<String, Buffer> {
        let mut out = BTreeMap::new();
        for (name, spec) in &self.buffers {
            let b = if spec.output && !spec.zeroed {
                Buffer::poisoned(name, spec.ty, spec.len)
            } else {
                Buffer::from_values(name, spec.ty, &self.values(name, random_seed))
            };
            out.insert(name.clone(), b);
        }
        for (name, spec) in &self.scratch {
            out.insert(
                name.clone(),
                Buffer::from_values(name, spec.ty, &vec![0.0; spec.len]),
            );
        }
        out
    }

    /// Names of the output buffers.
    pub fn outputs(&self) -> impl Iterator<Item = &str> {
        self.buffers
            .iter()
            .filter(|(_, b)| b.output)
            .map(|(n, _)| n.as_str())
    }

    /// Threads in one block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }
}

impl Puzzle {
    /// The `warp_require` minima of `test`, its expressions evaluated over the test's numeric
    /// defines (the puzzle's, then its own) and scalars; checked when the puzzle is read, so
    /// an error here means a test made after that (it names the key and why).
    pub fn warp_minima(&self, test: &TestCase) -> Result<Vec<(usize, u64)>, String> {
        self.warp_require
            .for_vars("warp_require", &self.test_vars(test))
    }

    /// The test's `require`: the whole numbers, and the expressions worked out for it (an
    /// expression that cannot be, which the puzzle's reading already refused, is left out).
    pub fn require_for(&self, test: &TestCase) -> BlockLimits {
        let mut r = self.require;
        if let Ok(minima) = self.require_minima(test) {
            for (i, min) in minima {
                if let Some(slot) = r.slot(i) {
                    *slot = Some(min);
                }
            }
        }
        r
    }

    /// The expressions of `require`, worked out for `test`.
    pub fn require_minima(&self, test: &TestCase) -> Result<Vec<(usize, u64)>, String> {
        self.require_scaled
            .for_vars("require", &self.test_vars(test))
    }

    /// What a test's expressions see: its numeric defines (the puzzle's, then its own) and
    /// its scalars.
    fn test_vars(&self, test: &TestCase) -> BTreeMap<String, f64> {
        let mut vars =
            super::launches::numeric_defines(&merge_defines(&self.defines, &test.defines));
        vars.extend(test.scalars.iter().map(|(k, v)| (k.clone(), *v)));
        vars
    }

    /// The CUDA C source of the spec kernel:
    /// `extern "C" __global__ void gpuzzle_spec(<params>) { <spec> }`, with a `#line` directive
    /// so that NVRTC messages and `.loc` lines point into the TOML file. Compile it with the
    /// same defines (`define_flags`) and run it with grid 1, block 1.
    pub fn spec_source(&self) -> String {
        let params: Vec<String> = self.params.iter().map(Param::c_decl).collect();
        let file = self
            .toml_path
            .display()
            .to_string()
            .replace('\\', "\\\\")
            .replace('"', "\\\"");
        let mut body = self.spec.clone();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        // `__half` and `__nv_bfloat16` in the signature need their headers, as in the
        // learner's file.
        let uses = |t: ElemType| self.params.iter().any(|p| p.elem_type() == t);
        let mut headers = String::new();
        if uses(ElemType::F16) {
            headers.push_str("#include <cuda_fp16.h>\n");
        }
        if uses(ElemType::Bf16) {
            headers.push_str("#include <cuda_bf16.h>\n");
        }
        format!(
            "// The spec of puzzle {id} ({slug}): a sequential reference, run by one thread.\n\
             {headers}\
             extern \"C\" __global__ void {SPEC_KERNEL}({params}) {{\n\
             #line {line} \"{file}\"\n\
             {body}}}\n",
            id = self.id,
            slug = self.slug,
            params = params.join(", "),
            line = self.spec_line,
        )
    }

    /// The defines as compiler options: `-DTPB=8`, `-DDEBUG`.
    pub fn define_flags(&self) -> Vec<String> {
        self.defines
            .iter()
            .map(|(name, value)| match value {
                Some(v) => format!("-D{name}={v}"),
                None => format!("-D{name}"),
            })
            .collect()
    }

    /// The defines `test` is compiled with: the puzzle's, each replaced by the test's own value
    /// where the test gives one (`[[test]] defines`), sorted by name. A name the puzzle does
    /// not define is added (`parse` never makes one, but a test built in code may).
    pub fn defines_for(&self, test: &TestCase) -> Vec<(String, Option<String>)> {
        merge_defines(&self.defines, &test.defines)
    }

    /// Whether the puzzle has several kernels (`[[kernels]]` and `[[launch]]`).
    pub fn is_multi_launch(&self) -> bool {
        !self.kernels.is_empty()
    }

    /// The launches of `test`, in order: the one kernel with the test's shape, or each
    /// `[[launch]]`.
    pub fn steps<'a>(&'a self, test: &TestCase) -> Vec<Step<'a>> {
        if !self.is_multi_launch() {
            let args = self
                .params
                .iter()
                .map(|p| match p.kind {
                    ParamKind::Buffer(_) => ArgSource::Buffer(p.name.clone()),
                    ParamKind::Scalar(_) => {
                        ArgSource::Scalar(test.scalars.get(&p.name).copied().unwrap_or(0.0))
                    }
                })
                .collect();
            return vec![Step {
                kernel: &self.kernel,
                params: &self.params,
                budget: self.budget,
                block_budget: self.block_budget,
                require: self.require_for(test),
                grid: test.grid,
                block: test.block,
                shared_bytes: test.shared_bytes,
                args,
                symbols: test.symbol_values(),
            }];
        }
        test.launches
            .iter()
            .filter_map(|l| {
                let k = self.kernels.get(l.kernel)?;
                Some(Step {
                    kernel: &k.name,
                    params: &k.params,
                    budget: k.budget,
                    block_budget: k.block_budget,
                    require: k.require,
                    grid: l.grid,
                    block: l.block,
                    shared_bytes: l.shared_bytes,
                    args: l.args.clone(),
                    symbols: Vec::new(),
                })
            })
            .collect()
    }

    /// The signature of every kernel the learner writes, one per line.
    pub fn signatures(&self) -> Vec<String> {
        if self.is_multi_launch() {
            self.kernels.iter().map(KernelDef::signature).collect()
        } else {
            let params: Vec<String> = self.params.iter().map(Param::c_decl).collect();
            vec![format!(
                "extern \"C\" __global__ void {}({})",
                self.kernel,
                params.join(", ")
            )]
        }
    }

    /// The fixed tests, then the bench if any, in order.
    pub fn tests_and_bench(&self) -> impl Iterator<Item = &TestCase> {
        self.tests.iter().chain(self.bench.iter())
    }

    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The kernel file's stem (`09_pooling`).
    pub fn file_stem(&self) -> &str {
        self.kernel_file
            .strip_suffix(".cu")
            .unwrap_or(&self.kernel_file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_case() -> TestCase {
        let mut buffers = BTreeMap::new();
        buffers.insert(
            "a".to_string(),
            BufferSpec {
                ty: ElemType::F32,
                len: 4,
                init: Init::Arange,
                output: false,
                zeroed: false,
                shape: None,
                fixed: false,
            },
        );
        buffers.insert(
            "idx".to_string(),
            BufferSpec {
                ty: ElemType::I32,
                len: 3,
                init: Init::Values(vec![2.0, 0.0, 1.0]),
                output: false,
                zeroed: false,
                shape: None,
                fixed: true,
            },
        );
        buffers.insert(
            "out".to_string(),
            BufferSpec {
                ty: ElemType::F32,
                len: 4,
                init: Init::Zeros,
                output: true,
                zeroed: false,
                shape: Some([2, 2]),
                fixed: false,
            },
        );
        TestCase {
            name: "t".into(),
            grid: [1, 1, 1],
            block: [4, 1, 1],
            shared_bytes: 0,
            scalars: BTreeMap::from([("size".to_string(), 4.0)]),
            buffers,
            symbols: BTreeMap::new(),
            scratch: BTreeMap::new(),
            launches: Vec::new(),
            defines: Vec::new(),
        }
    }

    fn params() -> Vec<Param> {
        vec![
            Param {
                name: "out".into(),
                kind: ParamKind::Buffer(ElemType::F32),
                output: true,
            },
            Param {
                name: "a".into(),
                kind: ParamKind::Buffer(ElemType::F32),
                output: false,
            },
            Param {
                name: "size".into(),
                kind: ParamKind::Scalar(ElemType::I32),
                output: false,
            },
        ]
    }

    #[test]
    fn values_follow_init_and_outputs_are_zero() {
        let t = test_case();
        assert_eq!(t.values("a", None), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(t.values("out", None), vec![0.0; 4]);
        assert_eq!(t.values("out", Some(7)), vec![0.0; 4]);
        assert!(t.values("nope", None).is_empty());
    }

    #[test]
    fn the_learners_outputs_start_as_poison_unless_zeroed() {
        let mut t = test_case();
        let first = t.initial_buffers(None);
        let out = &first["out"];
        assert!((0..4).all(|i| out.holds_poison(i)));
        assert!(out.values().iter().all(|v| v.is_nan()));
        // Inputs are as their init says.
        assert_eq!(first["a"].values(), vec![0.0, 1.0, 2.0, 3.0]);
        if let Some(o) = t.buffers.get_mut("out") {
            o.zeroed = true;
        }
        let zeroed = t.initial_buffers(Some(3));
        assert_eq!(zeroed["out"].values(), vec![0.0; 4]);
        assert!(!zeroed["out"].holds_poison(0));
    }

    #[test]
    fn a_generated_input_keeps_its_kind_in_the_random_variant() {
        let mut t = test_case();
        if let Some(a) = t.buffers.get_mut("a") {
            a.init = Init::Generated {
                generator: Generator::Large,
                seed: 5,
            };
            a.len = 64;
        }
        let fixed = t.values("a", None);
        let random = t.values("a", Some(11));
        assert_ne!(fixed, random);
        // Small random integers lie in [-9, 9]; the generator's data is hundreds apart.
        for v in [&fixed, &random] {
            assert!(v.iter().any(|x| x.abs() > 100.0), "{v:?}");
        }
    }

    #[test]
    fn random_variant_replaces_inputs_but_keeps_fixed_ones() {
        let t = test_case();
        let r1 = t.values("a", Some(1));
        assert_eq!(r1.len(), 4);
        assert_eq!(r1, t.values("a", Some(1)), "same seed, same data");
        assert_ne!(r1, t.values("a", Some(2)), "another seed, other data");
        assert!(r1
            .iter()
            .all(|v| v.fract() == 0.0 && (-9.0..=9.0).contains(v)));
        assert_eq!(t.values("idx", Some(1)), vec![2.0, 0.0, 1.0]);
    }

    #[test]
    fn kernel_args_follow_param_order() {
        let t = test_case();
        let args = t.kernel_args(&params(), None).unwrap();
        assert_eq!(args.len(), 3);
        match &args[0] {
            KernelArg::Buffer(b) => {
                assert_eq!(b.name, "out");
                assert_eq!(b.values(), vec![0.0; 4]);
            }
            other => panic!("expected a buffer, got {other:?}"),
        }
        match &args[1] {
            KernelArg::Buffer(b) => assert_eq!(b.values(), vec![0.0, 1.0, 2.0, 3.0]),
            other => panic!("expected a buffer, got {other:?}"),
        }
        assert_eq!(
            args[2],
            KernelArg::Scalar(Scalar::from_f64(ElemType::I32, 4.0))
        );
    }

    #[test]
    fn kernel_args_report_a_missing_param() {
        let t = test_case();
        let mut ps = params();
        ps.push(Param {
            name: "b".into(),
            kind: ParamKind::Buffer(ElemType::F32),
            output: false,
        });
        let e = t.kernel_args(&ps, None).unwrap_err().to_string();
        assert!(e.contains("no buffer for parameter `b`"), "{e}");
    }

    #[test]
    fn a_test_overrides_the_puzzles_defines_by_name() {
        let mut t = test_case();
        let mut p = crate::puzzle::embedded_puzzles()
            .expect("the pack loads")
            .remove(0);
        p.defines = vec![("DEBUG".into(), None), ("TPB".into(), Some("8".into()))];
        assert_eq!(p.defines_for(&t), p.defines, "no overrides: the puzzle's");
        t.defines = vec![("TPB".into(), Some("64".into()))];
        assert_eq!(
            p.defines_for(&t),
            [
                ("DEBUG".to_string(), None),
                ("TPB".to_string(), Some("64".to_string()))
            ]
        );
        assert_eq!(defines_text(&p.defines_for(&t)), "DEBUG, TPB=64");
        // One the puzzle lacks (a test built in code): added, in name order.
        t.defines.push(("HALO".into(), Some("(TPB + 2)".into())));
        let names: Vec<String> = p.defines_for(&t).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["DEBUG", "HALO", "TPB"]);
    }

    #[test]
    fn tolerance_is_exact_by_default() {
        let t = Tolerance::default();
        assert!(t.accepts(1.0, 1.0));
        assert!(!t.accepts(1.0, 1.0 + 1e-7));
        assert!(t.accepts(f64::NAN, f64::NAN));
        assert!(!t.accepts(1.0, f64::NAN));
        let r = Tolerance {
            abs: 0.0,
            rel: 1e-3,
        };
        assert!(r.accepts(1000.0, 1000.5));
        assert!(!r.accepts(1000.0, 1002.0));
    }

    #[test]
    fn c_decls_make_inputs_const() {
        let ps = params();
        assert_eq!(ps[0].c_decl(), "float* out");
        assert_eq!(ps[1].c_decl(), "const float* a");
        assert_eq!(ps[2].c_decl(), "int size");
    }
}
