//! Teaching: what the checkers saw (a diagnostic's `facts`), read against the learner's source,
//! becomes the help a learner reads, in one place above both executors, so the emulator and
//! the GPU teach alike. The checkers never say how to fix anything; each class of cause is one
//! small named rule here (`bounds`, `race`, `barrier`, `endless`, `warp`), with its tests.
//! Where a rule cannot tell the cause, its help says what was seen rather than guess.
//!
//! `hints` matches a puzzle's `[[mistake]]` hints against a failed run, so that `gpuzzle
//! hint` answers what just went wrong before the progressive hints.
//!
//! `explain` also orders a test's diagnostics root cause first and drops those that only
//! follow from an earlier one (see `order`), and names shared elements as the learner
//! declared them (`tile[4][0]`, not `tile[40]`).

mod barrier;
mod bounds;
mod endless;
pub mod eval;
pub mod hints;
mod index;
mod names;
mod order;
pub mod perf;
mod race;
pub mod source;
mod warp;

use crate::emu::facts::Facts;
use crate::emu::result::{DiagKind, Diagnostic};
use crate::ptx::Module;
use eval::Env;
use source::Source;

/// What the rules may know beyond a diagnostic's facts: the source, the launch's shape and
/// the values a kernel's names have (the puzzle's defines and the test's scalars).
pub struct Scene<'a> {
    pub source: &'a str,
    /// The file name diagnostics carry for the learner's source (others are headers).
    pub file_name: &'a str,
    /// The learner's compiled module, when there is one (for barrier lines in the IR).
    pub module: Option<&'a Module>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Defines and scalar arguments with integer values, by name.
    pub values: Vec<(String, i64)>,
    /// Buffers declared as matrices: name and `[rows, cols]`.
    pub shapes: Vec<(String, [usize; 2])>,
}

impl Scene<'_> {
    /// The integer values of defines (`NAME=VALUE`, where VALUE may use the other defines,
    /// `TILE = "(TPB + K - 1)"`; others are skipped).
    pub fn define_values(defines: &[(String, Option<String>)]) -> Vec<(String, i64)> {
        let mut known: Vec<(String, i64)> = Vec::new();
        // Each pass can settle the defines whose parts are known: as many passes as defines.
        for _ in 0..defines.len() {
            let mut env = Env::default();
            for (n, v) in &known {
                env.set(n.clone(), *v);
            }
            let before = known.len();
            for (n, v) in defines {
                if known.iter().any(|(k, _)| k == n) {
                    continue;
                }
                if let Some(v) = v.as_deref().and_then(|v| eval::eval(v.trim(), &env)) {
                    known.push((n.clone(), v));
                }
            }
            if known.len() == before {
                break;
            }
        }
        known
    }
}

/// One diagnostic as a rule sees it.
pub(crate) struct Case<'a> {
    pub d: &'a Diagnostic,
    pub src: &'a Source,
    pub scene: &'a Scene<'a>,
    /// The diagnostic's line in the learner's file (None: no line, or in a header).
    pub line: Option<u32>,
}

impl Case<'_> {
    /// The code of the diagnostic's line, trimmed ("" when unknown).
    pub fn code(&self) -> &str {
        self.line.map_or("", |l| self.src.line(l).trim())
    }

    /// Values of the diagnostic's thread at its line: its coordinates, the launch's shape,
    /// the defines and scalars, and the locals set before the line.
    pub fn env(&self) -> Env {
        self.env_for(self.d.thread, self.d.block)
    }

    pub fn env_for(&self, thread: [u32; 3], block: [u32; 3]) -> Env {
        let mut env = Env::default();
        for (n, v) in &self.scene.values {
            env.set(n.clone(), *v);
        }
        let axes = ["x", "y", "z"];
        for (i, a) in axes.iter().enumerate() {
            env.set(format!("threadIdx.{a}"), thread[i] as i64);
            env.set(format!("blockIdx.{a}"), block[i] as i64);
            env.set(format!("blockDim.{a}"), self.scene.block[i] as i64);
            env.set(format!("gridDim.{a}"), self.scene.grid[i] as i64);
        }
        match self.line {
            Some(l) => self.src.locals_before(l, &env),
            None => env,
        }
    }

    /// `thread 5 of block 1` (1D) or with tuples, as the messages name threads.
    pub fn who(&self, thread: [u32; 3], block: [u32; 3]) -> String {
        let c = |v: [u32; 3]| {
            if self.one_d() {
                v[0].to_string()
            } else {
                format!("({},{},{})", v[0], v[1], v[2])
            }
        };
        format!("thread {} of block {}", c(thread), c(block))
    }

    /// For a row-major index `row * stride + col` whose column part reaches the stride for a
    /// thread (so it spills into the next row): what to guard.
    pub fn spill(&self, expr: &str, env: &Env, idx: Option<i128>) -> Option<String> {
        let (row, stride, col) = eval::row_major(expr)?;
        let sv = eval::eval(&stride, env)?;
        // A column the evaluator cannot know (a loop's variable) is what the element leaves
        // once the row's part is taken off.
        let cv = eval::eval(&col, env).or_else(|| {
            let rv = eval::eval(&row, env)?;
            Some((idx? - rv as i128 * sv as i128) as i64)
        })?;
        if cv < sv {
            return None;
        }
        let guard = self
            .line
            .and_then(|l| self.src.guards(l).into_iter().find(|g| !g.returns))
            .map_or(String::new(), |g| {
                format!(" (the guard `if ({})` lets it through)", g.cond)
            });
        Some(format!("the column part `{col}` is {cv}, but a row is `{stride}` = {sv} elements long, so it reaches into the next row{guard}: keep `{col} < {stride}` (and `{row}` below the number of rows)"))
    }

    pub fn one_d(&self) -> bool {
        self.scene.block[1] == 1
            && self.scene.block[2] == 1
            && self.scene.grid[1] == 1
            && self.scene.grid[2] == 1
    }
}

/// Write the help of every diagnostic of one test from its facts and the source, name shared
/// elements as declared, and put root causes first (dropping what only follows from them).
pub fn explain(diags: &mut Vec<Diagnostic>, scene: &Scene) {
    let src = Source::new(scene.source);
    // The source's own `#define`s count as values too (the puzzle's and the test's win).
    let mut values = src.defines();
    values.extend(scene.values.iter().cloned());
    let scene = &Scene {
        values,
        shapes: scene.shapes.clone(),
        ..*scene
    };
    for d in diags.iter_mut() {
        let in_file = d
            .file
            .as_deref()
            .is_none_or(|f| same_file(f, scene.file_name));
        let line = d.line.filter(|_| in_file);
        names::rename(d, &src, &scene.values);
        let case = Case {
            d,
            src: &src,
            scene,
            line,
        };
        let help = help_for(&case);
        d.help = Some(help);
    }
    order::root_causes_first(diags);
}

/// Put a launch's diagnostics root cause first and drop those that only follow from an
/// earlier one, without writing help (for pictures that name the first).
pub fn root_causes_first(diags: &mut Vec<Diagnostic>) {
    order::root_causes_first(diags);
}

/// Help for one diagnostic, without source when it has none (exec without a file).
fn help_for(c: &Case) -> String {
    match (&c.d.kind, &c.d.facts) {
        (DiagKind::OutOfBounds | DiagKind::Misaligned, Facts::Bounds { .. }) => bounds::help(c),
        (DiagKind::SharedRace | DiagKind::GlobalRace, Facts::Race { .. }) => race::help(c),
        (DiagKind::BarrierDivergence, _) => barrier::help(c),
        (DiagKind::StepLimit, _) => endless::help(c),
        (DiagKind::WarpSync, _) => warp::help(c),
        (DiagKind::UninitializedRead, _) => uninitialized(c),
        (DiagKind::Assert, _) => {
            if c.d.message.contains("trap instruction") {
                "a trap (asm(\"trap;\") or __trap()) stops the whole kernel on a GPU".into()
            } else {
                "an assert() in the kernel did not hold; on a GPU this aborts the whole kernel"
                    .into()
            }
        }
        (DiagKind::OutOfBounds, _) => bounds::help(c),
        (DiagKind::SharedRace | DiagKind::GlobalRace, _) => race::help(c),
        (DiagKind::Misaligned, _) => bounds::help(c),
    }
}

/// A read of shared memory no thread wrote.
fn uninitialized(c: &Case) -> String {
    let Facts::Uninitialized {
        element: Some(e), ..
    } = &c.d.facts
    else {
        return "shared memory starts out holding garbage: write every element before any thread reads it, with __syncthreads() between the writes and the reads".into();
    };
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    let writes: Vec<u32> = (1..=c.src.lines())
        .filter(|&l| {
            !c.src.line(l).contains("__shared__")
                && source::uses_in(c.src.line(l), short)
                    .iter()
                    .any(|u| u.write)
        })
        .collect();
    let Some(&w) = writes.first() else {
        return format!("nothing in the kernel writes `{short}` before this read: shared memory starts out holding garbage, so fill it first (e.g. `{short}[threadIdx.x] = 0;` for counters, or the values it should hold), then __syncthreads(), then read");
    };
    let shown = names::shown(e, c.src, &c.scene.values);
    let r = c.line.unwrap_or(0);
    // Past the elements the block's threads write one each: the halo nobody loads.
    let b = c.scene.block;
    let halo = match names::indices(e, c.src, &c.scene.values).as_deref() {
        Some([row, col]) => *row >= b[1] as i128 || *col >= b[0] as i128,
        Some([i]) => *i >= (b[0] * b[1] * b[2]) as i128,
        _ => false,
    };
    if halo {
        return format!("{shown} lies past the elements the block's threads write one each (line {w}): it is halo that no thread loads, yet line {r} reads it. Let some threads load the extra elements too (e.g. the first threads also store `{short}[local_i + TPB]`, or a loop over the whole tile), then __syncthreads()");
    }
    if let Some(g) = c.src.guards(w).into_iter().find(|g| !g.returns) {
        return format!("line {w} writes `{short}` only inside `if ({})` (line {}), so the threads that skip it leave their element holding garbage, and line {r} reads {shown}: store 0.0f when the condition fails (`{short}[..] = {} ? ... : 0.0f;`), so the element holds a neutral value", g.cond, g.line, g.cond);
    }
    format!("no thread wrote {shown} before this read; line {w} writes `{short}`, but not this element before it is read: check that the writes cover every element the reads use (each thread its own, for every thread of the block, with any padding set to 0), with __syncthreads() between the writes and the reads")
}

/// Whether two file names name the same file (NVRTC may give a path, the judge a name).
fn same_file(a: &str, b: &str) -> bool {
    let base = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string();
    base(a) == base(b)
}

/// One test per rule: a planted cause (facts as a checker reports them, and the source) and
/// the fix its help must name, and the wrong fix it must not.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::facts::{Access, Element, Hazard, Space};
    use crate::emu::result::Severity;

    fn help(src: &str, d: Diagnostic, block: [u32; 3], values: &[(&str, i64)]) -> String {
        let scene = Scene {
            source: src,
            file_name: "k.cu",
            module: None,
            grid: [2, 1, 1],
            block,
            values: values.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            shapes: Vec::new(),
        };
        let mut v = vec![d];
        explain(&mut v, &scene);
        v[0].help.clone().unwrap_or_default()
    }

    fn diag(
        kind: DiagKind,
        line: u32,
        other: Option<u32>,
        thread: u32,
        facts: Facts,
    ) -> Diagnostic {
        Diagnostic {
            kind,
            severity: Severity::Error,
            message: String::new(),
            help: None,
            facts,
            file: Some("k.cu".into()),
            line: Some(line),
            block: [0; 3],
            thread: [thread, 0, 0],
            other_line: other,
        }
    }

    fn el(name: &str, index: i128, len: u64) -> Option<Element> {
        Some(Element {
            name: name.into(),
            index,
            len,
        })
    }

    fn oob(name: &str, index: i128, len: u64, access: Access) -> Facts {
        Facts::Bounds {
            space: Space::Global,
            access,
            element: el(name, index, len),
            address: 0,
            bytes: 4,
            misaligned_to: None,
        }
    }

    fn race(
        space: Space,
        hazard: Hazard,
        e: Option<Element>,
        other: u32,
        across: bool,
        (mine, theirs): (Access, Access),
    ) -> Facts {
        Facts::Race {
            space,
            hazard,
            element: e,
            other_thread: Some([other, 0, 0]),
            other_block: Some(if across { [1, 0, 0] } else { [0; 3] }),
            across_blocks: across,
            same_warp: !across,
            block_threads: 8,
            mine,
            theirs,
        }
    }

    const MAP: &str = "__global__ void k(float* out, const float* a, int size) {\n    int i = threadIdx.x;\n    if (i < size) {\n        out[i + 1] = a[i];\n    }\n}\n";

    #[test]
    fn bounds_a_guarded_wrong_index_gets_the_index_not_the_same_guard() {
        let h = help(
            MAP,
            diag(
                DiagKind::OutOfBounds,
                4,
                None,
                3,
                oob("out", 4, 4, Access::Write),
            ),
            [8, 1, 1],
            &[("size", 4)],
        );
        assert!(h.contains("`a[i]`") || h.contains("same index"), "{h}");
        assert!(!h.contains("guard the access with"), "{h}");
    }

    #[test]
    fn bounds_a_less_equal_guard_gets_less_than() {
        let src = MAP
            .replace("i < size", "i <= size")
            .replace("out[i + 1]", "out[i]");
        let h = help(
            &src,
            diag(
                DiagKind::OutOfBounds,
                4,
                None,
                4,
                oob("out", 4, 4, Access::Write),
            ),
            [8, 1, 1],
            &[("size", 4)],
        );
        assert!(h.contains("use `<` instead of `<=`"), "{h}");
    }

    #[test]
    fn bounds_a_missing_guard_gets_one() {
        let src = "__global__ void k(float* out, int size) {\n    int i = threadIdx.x;\n    out[i] = 1.0f;\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                3,
                None,
                4,
                oob("out", 4, 4, Access::Write),
            ),
            [8, 1, 1],
            &[("size", 4)],
        );
        assert!(h.contains("`if (i < size)`"), "{h}");
    }

    #[test]
    fn race_a_read_modify_write_by_many_gets_an_atomic_not_a_barrier() {
        let src = "__global__ void k(int* hist, const int* a) {\n    int i = threadIdx.x;\n    hist[a[i]]++;\n}\n";
        let f = race(
            Space::Global,
            Hazard::ReadAfterWrite,
            el("hist", 2, 4),
            0,
            false,
            (Access::Read, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::GlobalRace, 3, Some(3), 1, f),
            [8, 1, 1],
            &[],
        );
        assert!(
            h.contains("atomicAdd(&hist[a[i]], 1)") && h.contains("A barrier cannot fix this"),
            "{h}"
        );
    }

    #[test]
    fn race_an_in_place_scan_gets_register_barrier_write() {
        let src = "__global__ void k(float* s0) {\n    __shared__ float s[8];\n    int i = threadIdx.x;\n    for (int d = 1; d < 8; d *= 2) {\n        if (i >= d) s[i] += s[i - d];\n        __syncthreads();\n    }\n}\n";
        let f = race(
            Space::Shared,
            Hazard::ReadAfterWrite,
            el("s", 1, 8),
            1,
            false,
            (Access::Read, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 5, Some(5), 2, f),
            [8, 1, 1],
            &[],
        );
        assert!(
            h.contains("float v = s[i - d]; __syncthreads(); s[i] += v;"),
            "{h}"
        );
        assert!(!h.contains("atomic"), "{h}");
    }

    #[test]
    fn race_a_tiled_loop_without_its_trailing_barrier_gets_the_second_barrier() {
        let src = "__global__ void k(float* out, const float* a) {\n    __shared__ float t[8];\n    float sum = 0.0f;\n    for (int p = 0; p < 4; p++) {\n        t[threadIdx.x] = a[p * 8 + threadIdx.x];\n        __syncthreads();\n        for (int k = 0; k < 8; k++)\n            sum += t[k];\n    }\n    out[threadIdx.x] = sum;\n}\n";
        let f = race(
            Space::Shared,
            Hazard::WriteAfterRead,
            el("t", 3, 8),
            3,
            false,
            (Access::Write, Access::Read),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 5, Some(8), 3, f),
            [8, 1, 1],
            &[],
        );
        assert!(
            h.contains("already orders")
                && h.contains("second __syncthreads() at the end of the loop body"),
            "{h}"
        );
        assert!(!h.contains("__syncwarp"), "{h}");
    }

    #[test]
    fn race_blocks_writing_through_thread_idx_get_the_global_index() {
        let src = "__global__ void k(float* out, const float* a, int size) {\n    int i = threadIdx.x;\n    if (i < size) out[i] = a[i] + 10.0f;\n}\n";
        let f = race(
            Space::Global,
            Hazard::WriteAfterWrite,
            el("out", 0, 16),
            0,
            true,
            (Access::Write, Access::Write),
        );
        let mut d = diag(DiagKind::GlobalRace, 3, Some(3), 0, f);
        d.block = [1, 0, 0];
        let h = help(src, d, [8, 1, 1], &[("size", 16)]);
        assert!(h.contains("blockIdx.x * blockDim.x + threadIdx.x"), "{h}");
        assert!(
            !h.contains("atomicAdd") && !h.contains("__threadfence"),
            "{h}"
        );
    }

    #[test]
    fn race_every_thread_storing_one_element_gets_one_writer() {
        let src = "__global__ void k(float* out) {\n    float sum = 1.0f;\n    out[0] = sum;\n}\n";
        let f = race(
            Space::Global,
            Hazard::WriteAfterWrite,
            el("out", 0, 1),
            0,
            false,
            (Access::Write, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::GlobalRace, 3, Some(3), 1, f),
            [8, 1, 1],
            &[],
        );
        assert!(h.contains("`if (threadIdx.x == 0)`"), "{h}");
        assert!(!h.contains("atomicAdd"), "{h}");
    }

    #[test]
    fn barrier_inside_a_helper_called_under_an_if_names_the_if() {
        let src = "__device__ float sum(float v) {\n    __syncthreads();\n    return v;\n}\n__global__ void k(float* out) {\n    float s = 0.0f;\n    if (threadIdx.x < 4) {\n        s = sum(1.0f);\n    }\n    out[threadIdx.x] = s;\n}\n";
        let f = Facts::BarrierDivergence {
            arrived: 4,
            total: 8,
            other_barrier: None,
            exited: vec![[4, 0, 0]],
            elsewhere: Vec::new(),
        };
        let h = help(
            src,
            diag(DiagKind::BarrierDivergence, 2, None, 0, f),
            [8, 1, 1],
            &[],
        );
        assert!(
            h.contains("inside `sum()`") && h.contains("`if (threadIdx.x < 4)` (line 7)"),
            "{h}"
        );
    }

    #[test]
    fn endless_a_variable_settling_at_zero_gets_the_condition_fixed() {
        let src = "__global__ void k(float* s) {\n    for (int d = 4; d >= 0; d /= 2) {\n        s[d] = 0.0f;\n    }\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::StepLimit,
                2,
                None,
                0,
                Facts::StepLimit { in_loop: true },
            ),
            [8, 1, 1],
            &[],
        );
        assert!(
            h.contains("stops changing at 0") && h.contains("`d > 0`"),
            "{h}"
        );
        assert!(!h.contains("drops it"), "{h}");
    }

    #[test]
    fn a_kernel_stopped_at_the_time_limit_is_sent_to_the_emulator_for_its_line() {
        let mut d = diag(
            DiagKind::StepLimit,
            1,
            None,
            0,
            Facts::TimedOut { on_gpu: true },
        );
        d.line = None;
        let h = help("", d, [8, 1, 1], &[]);
        assert!(
            h.contains("--backend emu") && h.contains("--timeout"),
            "{h}"
        );
    }

    #[test]
    fn warp_a_full_mask_inside_a_guard_names_the_guard() {
        let src = "__global__ void k(unsigned* out, int size) {\n    int i = threadIdx.x;\n    if (i < size) {\n        out[0] = __ballot_sync(0xffffffff, 1);\n    }\n}\n";
        let f = Facts::WarpSync(crate::emu::facts::WarpSyncFacts::LaneMissing {
            mask: u32::MAX,
            lane: 20,
            lane_state: crate::emu::facts::LaneState::Exited,
            arrived: 0xfffff,
        });
        let h = help(
            src,
            diag(DiagKind::WarpSync, 4, None, 0, f),
            [32, 1, 1],
            &[("size", 20)],
        );
        assert!(
            h.contains("inside `if (i < size)`")
                && h.contains("__ballot_sync(0xffffffff, i < size)"),
            "{h}"
        );
    }
}
