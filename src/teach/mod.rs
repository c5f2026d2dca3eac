//! Teaching: what the checkers saw (a diagnostic's `facts`), read against the learner's source,
//! becomes the help a learner reads, in one place above both executors, so the emulator and
//! the GPU teach alike. The checkers never say how to fix anything; each class of cause is one
//! small named rule here (`bounds`, `race`, `ballot`, `barrier`, `endless`, `warp`, `uninit`), with its tests.
//! Where a rule cannot tell the cause, its help says what was seen rather than guess.
//!
//! `hints` matches a puzzle's `[[mistake]]` hints against a failed run, so that `gpuzzle
//! hint` answers what just went wrong before the progressive hints. `output` says what a
//! wrong output's pattern is (elements never written, values shifted, a factor off, ...).
//!
//! `explain` first says a step limit as the loop that never ends (`loop_name`), and also orders a test's diagnostics root cause first and drops those that only
//! follow from an earlier one (see `order`), and names shared elements as the learner
//! declared them (`tile[4][0]`, not `tile[40]`).

mod after_swap;
mod async_copy;
mod atomics;
mod ballot;
mod ballot_rank;
mod barrier;
mod below_guard;
mod block_slot;
mod block_step;
mod block_writer;
mod bounds;
mod broadcast_read;
mod butterfly;
mod call_site;
mod coalesce;
mod commit_order;
pub mod compile_fix;
mod double_buffer;
mod endless;
pub mod eval;
mod fill;
mod half_swap;
mod heap;
pub mod hints;
mod index;
mod interleaved;
mod last_merge;
mod lone;
mod loop_name;
mod loop_range;
mod loop_store;
mod mean_divisor;
mod moved;
mod names;
mod order;
pub mod output;
mod padding;
mod pair_overlap;
mod passes;
pub mod perf;
mod ping_pong;
mod race;
mod read_side;
mod repeated_arg;
mod reread;
mod rescale;
mod reset_in_loop;
mod restore;
mod rounds;
mod same_rescale;
mod scan_total;
pub mod seen;
mod shift;
mod short_step;
pub mod source;
mod staging;
pub mod technique;
mod tile_load;
mod tile_pairs;
mod tile_transposed;
mod transposed;
mod tree;
mod uninit;
mod unread_shared;
mod unread_tree;
mod warp;
mod warp_writer;
mod whole_tiles;
mod wide_index;
mod window;
mod wmma;
mod wrong;

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
    /// A cooperative launch: blocks can wait for each other (`this_grid().sync()`).
    pub cooperative: bool,
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
        self.env_with(thread, block, &[])
    }

    /// The diagnostic's thread at its line in one round of a loop around it: the loop's
    /// variable `var` set to `v` before the locals are evaluated (`int right = 2 * stride - 1`).
    pub fn env_at(&self, var: &str, v: i64) -> Env {
        self.env_with(self.d.thread, self.d.block, &[(var, v)])
    }

    /// Thread `thread` of block `block` at line `line` (another line than the diagnostic's:
    /// the store that should have written what it read).
    pub fn env_on_line(&self, line: u32, thread: [u32; 3], block: [u32; 3]) -> Env {
        // The locals as of `line`, not as of the diagnostic's line.
        let env = Case {
            line: None,
            ..*self
        }
        .env_with(thread, block, &[]);
        self.src.locals_before(line, &env)
    }

    pub(crate) fn env_with(&self, thread: [u32; 3], block: [u32; 3], set: &[(&str, i64)]) -> Env {
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
        for (n, v) in set {
            env.set(*n, *v);
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
            .and_then(|l| self.src.guards(l).into_iter().find(|g| !g.returns));
        if let Some((g, fixed, bound, other)) = guard
            .as_ref()
            .and_then(|g| swapped_bounds(&g.cond, &col, &stride).map(|s| (g, s.0, s.1, s.2)))
        {
            return Some(format!("the column part `{col}` is {cv}, but a row is `{stride}` = {sv} elements long, so it reaches into the next row. The guard `if ({})` (line {}) compares `{col}` with `{bound}` and `{other}` with `{stride}`, the other way round: a column must stay below the row length `{stride}`, and the row below `{bound}`: `if ({fixed})`", g.cond, g.line));
        }
        let guard = guard.map_or(String::new(), |g| {
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
    // The lines NVRTC compiled: regions an `#if` leaves out are blank (a `__syncthreads()` in
    // a compiled-out `#ifndef` orders nothing).
    let src = Source::preprocessed(scene.source, &scene.values);
    // The source's own `#define`s count as values too (the puzzle's and the test's win).
    let mut values = src.defines();
    values.extend(scene.values.iter().cloned());
    let scene = &Scene {
        values,
        shapes: scene.shapes.clone(),
        ..*scene
    };
    for d in diags.iter_mut() {
        // A step limit inside a loop is said as that loop (from the IR and the source) before
        // its help is written.
        if let Some(module) = scene.module {
            loop_name::name_the_loop(d, module, scene.file_name, scene.source);
        }
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
        // An address made in a helper comes from its calls: name them (bounds, async copies).
        let help = match (d.kind, line) {
            (DiagKind::OutOfBounds | DiagKind::AsyncCopy, Some(l)) => {
                match call_site::note(&src, l, &scene.values) {
                    Some(n) if !help.contains("called on line") => {
                        format!("{}.{n}", help.trim_end().trim_end_matches('.'))
                    }
                    _ => help,
                }
            }
            _ => help,
        };
        // A template whose name came out empty would print "`` long" or "`if (i < )`": say
        // what was seen instead.
        let help = if has_empty_name(&help) {
            seen(&case)
        } else {
            help
        };
        // Shared elements as declared (`tile[1][0]`), in the help as in the message.
        let help = names::in_help(&help, d, &src, &scene.values);
        d.help = Some(help);
    }
    order::root_causes_first(diags);
}

/// Whether a help text has an empty name in it: an empty code span, an empty subscript, or a
/// comparison with nothing on one side.
fn has_empty_name(help: &str) -> bool {
    let spans_empty = help
        .split('`')
        .skip(1)
        .step_by(2)
        .any(|s| s.trim().is_empty());
    spans_empty
        || ["[]", "< )", "<= )", "> )", "( <", "()[", "( )"]
            .iter()
            .any(|p| help.contains(p))
}

/// The help of last resort: what the checker saw, on which line, without a guess at the fix.
fn seen(c: &Case) -> String {
    let at = c.line.map_or(String::new(), |l| format!(" on line {l}"));
    let what = match c.d.kind {
        DiagKind::OutOfBounds => "an access outside its array",
        DiagKind::SharedRace | DiagKind::GlobalRace => {
            "two threads touching one element with nothing ordering them"
        }
        DiagKind::UninitializedRead => "a read of memory no thread had written",
        DiagKind::BarrierDivergence => "a barrier that not every thread of the block reached",
        _ => "what the message above says",
    };
    format!("gpuzzle saw {what}{at} ({}), but could not read the names in the code well enough to name the fix: compare the line with the message above", c.who(c.d.thread, c.d.block))
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
        (_, Facts::Heap(f)) => heap::help(c, f),
        (DiagKind::SharedRace | DiagKind::GlobalRace, Facts::Race { .. }) => race::help(c),
        (_, Facts::AsyncCopy(_)) | (DiagKind::AsyncCopy, _) => async_copy::help(c),
        (DiagKind::BarrierDivergence, _) => barrier::help(c),
        (DiagKind::StepLimit, _) => endless::help(c),
        (_, Facts::Wmma(f)) => wmma::help(c, f),
        (DiagKind::WarpSync, _) => warp::help(c),
        (DiagKind::UninitializedRead, Facts::UnwrittenOutput { .. }) => uninit::output_help(c),
        (DiagKind::UninitializedRead, _) => uninit::help(c),
        (DiagKind::Assert, _) => {
            if c.d.message.contains("trap instruction") {
                "a trap (asm(\"trap;\") or __trap()) stops the whole kernel on a GPU".into()
            } else {
                "an assert() in the kernel did not hold; on a GPU this aborts the whole kernel"
                    .into()
            }
        }
        (DiagKind::OutOfBounds, Facts::None) if c.d.message.contains("(brx.idx)") => {
            "an indirect branch (`brx.idx`) jumps to the label its index picks from its `.branchtargets` list: check the index against the list's length before the branch, as a `switch` does with its `default` case".into()
        }
        (DiagKind::OutOfBounds, _) => bounds::help(c),
        (DiagKind::SharedRace | DiagKind::GlobalRace, _) => race::help(c),
        (DiagKind::Misaligned, _) => bounds::help(c),
    }
}

/// A guard of `&&`-joined bounds that compares the column `col` with some `B` and another
/// name with the row length `stride` (`row < N && col < M` where rows are `N` long): the
/// bounds swapped. Gives the guard with them put back (`row < M && col < N`), `B`, and the
/// name compared with `stride`.
fn swapped_bounds(cond: &str, col: &str, stride: &str) -> Option<(String, String, String)> {
    if cond.contains("||") {
        return None;
    }
    let parts: Vec<&str> = cond.split("&&").collect();
    // `a < b` (or `<=`): (a, the operator, b).
    let bound = |p: &str| {
        let (a, b) = p.split_once('<')?;
        let (op, b) = match b.strip_prefix('=') {
            Some(b) => ("<=", b),
            None => ("<", b),
        };
        let strip = |x: &str| x.trim().trim_matches(['(', ')']).trim().to_string();
        Some((strip(a), op, strip(b)))
    };
    let (col_c, stride_c) = (eval::canonical(col), eval::canonical(stride));
    let ci = parts.iter().position(|p| {
        bound(p).is_some_and(|(a, _, b)| {
            eval::canonical(&a) == col_c && eval::canonical(&b) != stride_c
        })
    })?;
    let ri = parts.iter().position(|p| {
        bound(p).is_some_and(|(a, _, b)| {
            eval::canonical(&a) != col_c && eval::canonical(&b) == stride_c
        })
    })?;
    let (c_name, c_op, b) = bound(parts[ci])?;
    let (other, r_op, _) = bound(parts[ri])?;
    let mut fixed: Vec<String> = parts.iter().map(|p| p.trim().to_string()).collect();
    fixed[ci] = format!("{c_name} {c_op} {}", stride.trim());
    fixed[ri] = format!("{other} {r_op} {b}");
    Some((fixed.join(" && "), b, other))
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
            cooperative: false,
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

    const BLOCK_TOTALS: &str = "__global__ void totals(float* sums, const float* x) {\n    __shared__ float cache[64];\n    int tid = threadIdx.x;\n    int gid = blockIdx.x * blockDim.x + tid;\n    cache[tid] = x[gid];\n    __syncthreads();\n    if (tid == 0) {\n        sums[gid] = cache[0] + cache[1];\n    }\n}\n";

    #[test]
    fn bounds_a_block_result_at_a_thread_index_gets_the_block_slot_not_a_guard() {
        // Another shape than the cooperative-groups sum: a shared cache, `tid == 0` stores.
        let h = help(
            BLOCK_TOTALS,
            diag(
                DiagKind::OutOfBounds,
                8,
                None,
                0,
                oob("sums", 64, 2, Access::Write),
            ),
            [64, 1, 1],
            &[],
        );
        assert!(
            h.contains("sums has one element per block (2 blocks)")
                && h.contains("`if (tid == 0)` (line 7)")
                && h.contains("`gid` (`blockIdx.x * blockDim.x + tid`) counts threads")
                && h.contains("`sums[blockIdx.x]`"),
            "{h}"
        );
        assert!(!h.contains("guard `gid <"), "{h}");
    }

    #[test]
    fn bounds_a_block_slot_is_not_offered_where_the_output_is_not_one_per_block() {
        // 100 elements for 2 blocks: a map's output, whatever the guard.
        let h = help(
            BLOCK_TOTALS,
            diag(
                DiagKind::OutOfBounds,
                8,
                None,
                0,
                oob("sums", 128, 100, Access::Write),
            ),
            [64, 1, 1],
            &[],
        );
        assert!(!h.contains("one element per block"), "{h}");
    }

    #[test]
    fn bounds_a_vector_access_over_the_end_gets_the_vector_guard_and_a_scalar_tail() {
        // A float4 read at a[1028] of 1030 floats: it starts inside and runs past the end.
        let src = "__global__ void k(float* out, const float* a, int size) {\n    int j = threadIdx.x;\n    if (4 * j < size) {\n        float4 v = reinterpret_cast<const float4*>(a)[j];\n        out[j] = v.x;\n    }\n}\n";
        let mut facts = oob("a", 1028, 1030, Access::Read);
        if let Facts::Bounds { bytes, .. } = &mut facts {
            *bytes = 16;
        }
        let h = help(
            src,
            diag(DiagKind::OutOfBounds, 4, None, 257, facts),
            [64, 1, 1],
            &[("size", 1030)],
        );
        assert!(h.contains("16-byte access starts at a[1028]"), "{h}");
        assert!(
            h.contains("i + 3 < size") && h.contains("scalar code"),
            "{h}"
        );
        assert!(!h.contains("4 * j < size"), "{h}");
    }

    #[test]
    fn bounds_through_a_wider_alias_count_in_the_alias_elements_and_name_the_row_count() {
        // k4 = float4 view of k (4 floats each): row 70 of 70 rows of D / 4 = 4 float4s.
        let src = "#define D 16\n__global__ void att(float* out, const float* k, int nk) {\n    __shared__ float4 ks[32][D / 4];\n    const float4* k4 = reinterpret_cast<const float4*>(k);\n    int row = 64 + threadIdx.x;\n    for (int d = 0; d < D / 4; d++) {\n        ks[threadIdx.x][d] = k4[row * (D / 4) + d];\n    }\n}\n";
        let mut facts = oob("k", 1120, 1120, Access::Read);
        if let Facts::Bounds { bytes, .. } = &mut facts {
            *bytes = 16;
        }
        let h = help(
            src,
            diag(DiagKind::OutOfBounds, 7, None, 6, facts),
            [32, 1, 1],
            &[("nk", 70)],
        );
        assert!(
            h.contains("k4[280]") && h.contains("`if (row < nk)`"),
            "{h}"
        );
        assert!(!h.contains("1120"), "{h}");
        // Another name and width: a __half2 view (2 halves) of a vector, flat index.
        let src = "__global__ void axpy(__half* y, const __half* x, int n2) {\n    const __half2* x2 = reinterpret_cast<const __half2*>(x);\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    y[0] = __low2half(x2[i]);\n}\n";
        let mut facts = oob("x", 200, 200, Access::Read);
        if let Facts::Bounds { bytes, .. } = &mut facts {
            *bytes = 4;
        }
        let h = help(
            src,
            diag(DiagKind::OutOfBounds, 4, None, 100, facts),
            [128, 1, 1],
            &[("n2", 100)],
        );
        assert!(h.contains("x2 has 100 elements") && h.contains("n2"), "{h}");
    }

    #[test]
    fn bounds_a_transposed_index_gets_the_row_major_index_not_a_guard() {
        // Other names and shape: an early return as the guard, a write, a 2D block of 8 x 4.
        let src = "__global__ void scale(float* m, int h, int w) {\n    int x = threadIdx.x;\n    int y = threadIdx.y;\n    if (y >= h) return;\n    if (x < w && y < h) m[x * w + y] *= 2.0f;\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            5,
            None,
            7,
            oob("m", 35, 24, Access::Write),
        );
        d.thread = [4, 3, 0];
        let h = help(src, d, [8, 4, 1], &[("h", 4), ("w", 6)]);
        assert!(h.contains("the index is transposed"), "{h}");
        assert!(h.contains("`m[y * w + x]`"), "{h}");
        assert!(!h.contains("guard both") && !h.contains("if (x < "), "{h}");
        // No guard, but another access the right way round names the row.
        let src = "__global__ void cp(float* o, const float* p, int h, int w) {\n    int x = threadIdx.x;\n    int y = threadIdx.y;\n    o[y * w + x] = p[x * w + y];\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            4,
            None,
            0,
            oob("p", 30, 24, Access::Read),
        );
        d.thread = [5, 0, 0];
        let h = help(src, d, [6, 4, 1], &[("h", 4), ("w", 6)]);
        assert!(
            h.contains("`o[y * w + x]` on line 4 takes `y` as the row"),
            "{h}"
        );
        assert!(h.contains("`p[y * w + x]`"), "{h}");
    }

    #[test]
    fn bounds_a_row_major_index_past_the_rows_is_not_called_transposed() {
        // `row * cols + col` with a guard on the column only: the row is missing its guard.
        let src = "__global__ void k(float* out, const float* a, int rows, int cols) {\n    int col = threadIdx.x;\n    int row = threadIdx.y;\n    if (col < cols) out[row * cols + col] = a[row * cols + col];\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            4,
            None,
            0,
            oob("a", 15, 15, Access::Read),
        );
        d.thread = [0, 3, 0];
        let h = help(src, d, [5, 4, 1], &[("rows", 3), ("cols", 5)]);
        assert!(!h.contains("transposed"), "{h}");
    }

    #[test]
    fn bounds_an_array_indexed_by_the_other_coordinate_gets_that_coordinate() {
        // A broadcast: b has one element per column, indexed by the row.
        let src = "__global__ void bc(float* out, const float* a, const float* b, int rows, int cols) {\n    int c = threadIdx.x;\n    int r = threadIdx.y;\n    if (r < rows && c < cols) {\n        out[r * cols + c] = a[r] + b[r];\n    }\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            5,
            None,
            0,
            oob("b", 3, 3, Access::Read),
        );
        d.thread = [0, 3, 0];
        let h = help(src, d, [4, 4, 1], &[("rows", 4), ("cols", 3)]);
        assert!(h.contains("index it with `c` (`b[c]`)"), "{h}");
        assert!(!h.contains("compare it with"), "{h}");
        // Another shape: other names, the bias of a column read with the row's coordinate.
        let src = "__global__ void bias(float* o, const float* colb, int H, int W) {\n    int x = blockIdx.x * 8 + threadIdx.x;\n    int y = threadIdx.y;\n    if (y < H && x < W) o[y * W + x] = colb[y];\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            4,
            None,
            1,
            oob("colb", 5, 5, Access::Read),
        );
        d.thread = [1, 5, 0];
        let h = help(src, d, [8, 8, 1], &[("H", 8), ("W", 5)]);
        assert!(h.contains("(`colb[x]`)"), "{h}");
    }

    #[test]
    fn bounds_a_row_loop_bounded_by_the_wrong_size_gets_its_bound() {
        // The inner product over N, where b has K rows.
        let src = "__global__ void mm(float* out, const float* a, const float* b, int M, int K, int N) {\n    int c = threadIdx.x;\n    float s = 0.0f;\n    for (int q = 0; q < N; q++)\n        s += a[q] * b[q * N + c];\n    out[c] = s;\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                5,
                None,
                1,
                oob("b", 41, 40, Access::Read),
            ),
            [8, 1, 1],
            &[("M", 3), ("K", 5), ("N", 8)],
        );
        assert!(h.contains("`q < K`"), "{h}");
        assert!(!h.contains("guard both coordinates"), "{h}");
        // Another shape: a matrix-vector product over the wrong dimension, other names.
        let src = "__global__ void mv(float* y, const float* A, int nk, int nc, int nr) {\n    int i = threadIdx.x;\n    float acc = 0.0f;\n    for (int kk = 0; kk < nr; kk++) {\n        acc += A[kk * nc + i];\n    }\n    y[i] = acc;\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                5,
                None,
                1,
                oob("A", 33, 32, Access::Read),
            ),
            [8, 1, 1],
            &[("nk", 4), ("nc", 8), ("nr", 6)],
        );
        assert!(h.contains("`kk < nk`"), "{h}");
    }

    #[test]
    fn bounds_padding_is_advised_only_where_a_read_reaches_it_in_the_element_s_type() {
        // A block sum: the tree reads cache[t + s], which reaches the slot of a thread past the
        // end: 0 in float.
        let tree = "__global__ void bsum(float* out, const float* a, int n) {\n    __shared__ float cache[8];\n    int t = threadIdx.x;\n    cache[t] = a[blockIdx.x * 8 + t];\n    __syncthreads();\n    for (int s = 4; s > 0; s /= 2) {\n        if (t < s) cache[t] += cache[t + s];\n        __syncthreads();\n    }\n    if (t == 0) out[blockIdx.x] = cache[0];\n}\n";
        let h = help(
            tree,
            {
                let mut d = diag(
                    DiagKind::OutOfBounds,
                    4,
                    None,
                    6,
                    oob("a", 14, 14, Access::Read),
                );
                d.block = [1, 0, 0];
                d
            },
            [8, 1, 1],
            &[("n", 14)],
        );
        assert!(
            h.contains("are still read (line 7)") && h.contains(": 0.0f;`"),
            "{h}"
        );
        // Another shape: a float4 tile of rows, every row read by a loop over the tile: the
        // neutral value is a float4.
        let rows = "__global__ void dots(float* o, const float4* v, int m) {\n    __shared__ float4 tile[16];\n    int r = threadIdx.x;\n    tile[r] = v[blockIdx.x * 16 + r];\n    __syncthreads();\n    float acc = 0.0f;\n    for (int q = 0; q < 16; q++) {\n        float4 x = tile[q];\n        acc += x.x + x.y + x.z + x.w;\n    }\n    o[blockIdx.x * 16 + r] = acc;\n}\n";
        let h = help(
            rows,
            {
                let mut d = diag(
                    DiagKind::OutOfBounds,
                    4,
                    None,
                    12,
                    oob("v", 28, 28, Access::Read),
                );
                d.block = [1, 0, 0];
                d
            },
            [16, 1, 1],
            &[("m", 28)],
        );
        assert!(h.contains("make_float4(0.f, 0.f, 0.f, 0.f)"), "{h}");
        assert!(!h.contains("0.0f"), "{h}");
        // A transpose: the read of the tile is guarded by the output's bounds, which skip
        // exactly the slots outside the data: no padding.
        let tr = "__global__ void tp(float* out, const float* in, int h, int w) {\n    __shared__ float blk[4][4];\n    int x = blockIdx.x * 4 + threadIdx.x;\n    int y = blockIdx.y * 4 + threadIdx.y;\n    blk[threadIdx.y][threadIdx.x] = in[y * w + x];\n    __syncthreads();\n    int ox = blockIdx.y * 4 + threadIdx.x;\n    int oy = blockIdx.x * 4 + threadIdx.y;\n    if (oy < w && ox < h) out[oy * h + ox] = blk[threadIdx.x][threadIdx.y];\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            5,
            None,
            0,
            oob("in", 18, 18, Access::Read),
        );
        d.thread = [0, 3, 0];
        d.block = [0, 0, 0];
        let h = help(tr, d, [4, 4, 1], &[("h", 3), ("w", 6)]);
        assert!(h.contains("no later read of `blk` reaches"), "{h}");
        assert!(!h.contains("0.0f"), "{h}");
        // A sort of ints: the padding must sort after every real value.
        let sort = "__global__ void srt(int* out, const int* keys, int n) {\n    __shared__ int v[8];\n    int t = threadIdx.x;\n    v[t] = keys[blockIdx.x * 8 + t];\n    __syncthreads();\n    int p = t ^ 1;\n    if (p > t) {\n        int lo = v[t];\n        int hi = v[p];\n        if (lo > hi) { v[t] = hi; v[p] = lo; }\n    }\n    __syncthreads();\n    if (blockIdx.x * 8 + t < n) out[blockIdx.x * 8 + t] = v[t];\n}\n";
        let h = help(
            sort,
            {
                let mut d = diag(
                    DiagKind::OutOfBounds,
                    4,
                    None,
                    5,
                    oob("keys", 13, 13, Access::Read),
                );
                d.block = [1, 0, 0];
                d
            },
            [8, 1, 1],
            &[("n", 13)],
        );
        assert!(h.contains("INT_MAX"), "{h}");
        assert!(!h.contains("0.0f"), "{h}");
    }

    #[test]
    fn bounds_a_load_guarded_by_its_own_ternary_gets_the_index_the_guard_tests_not_a_zero_fill() {
        // A matmul's b tile: the guard tests the row t0 + ty, the index uses t0 + tx.
        let src = "__global__ void mm(float* out, const float* b, int K, int N) {\n    __shared__ float bs[16][16];\n    int tx = threadIdx.x, ty = threadIdx.y;\n    int col = blockIdx.x * 16 + tx;\n    for (int t0 = 0; t0 < K; t0 += 16) {\n        bs[ty][tx] = (t0 + ty < K && col < N) ? b[(t0 + tx) * N + col] : 0.0f;\n    }\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                6,
                None,
                4,
                oob("b", 244, 240, Access::Read),
            ),
            [16, 16, 1],
            &[("K", 20), ("N", 12)],
        );
        assert!(
            h.contains("its part `t0 + tx` where the guard tests `t0 + ty`")
                && h.contains("`b[(t0 + ty) * N + col]`"),
            "{h}"
        );
        assert!(!h.contains("store 0.0f"), "{h}");
        // Another shape: a 1D window, the index takes a sibling's offset.
        let src = "__global__ void win(float* o, const float* x, int n) {\n    __shared__ float w[64];\n    int t = threadIdx.x, j = t + 1;\n    int base = blockIdx.x * 64;\n    w[t] = base + t < n ? x[base + j] : 0.0f;\n    o[base + t] = w[t];\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                5,
                None,
                63,
                oob("x", 128, 128, Access::Read),
            ),
            [64, 1, 1],
            &[("n", 128)],
        );
        assert!(h.contains("`x[base + t]`"), "{h}");
        // The guard tests the index itself: not this cause.
        let same = src.replace("base + t < n ?", "base + j <= n ?");
        let h = help(
            &same,
            diag(
                DiagKind::OutOfBounds,
                5,
                None,
                63,
                oob("x", 128, 128, Access::Read),
            ),
            [64, 1, 1],
            &[("n", 128)],
        );
        assert!(!h.contains("already guards the access"), "{h}");
    }

    #[test]
    fn bounds_equal_sizes_are_named_by_the_index_they_bound() {
        // A square test: rows = cols = 2. The unguarded column names `cols`, not `rows`.
        let src = "__global__ void k(float* out, const float* b, int rows, int cols) {\n    int col = threadIdx.x;\n    int row = threadIdx.y;\n    if (row < rows) {\n        out[row] = b[col];\n    }\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                5,
                None,
                2,
                oob("b", 2, 2, Access::Read),
            ),
            [3, 3, 1],
            &[("cols", 2), ("rows", 2)],
        );
        assert!(h.contains("`col < cols`"), "{h}");
        assert!(!h.contains("col < rows"), "{h}");
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
    fn race_an_in_place_update_inside_one_warp_s_if_waits_with_syncwarp() {
        let src = "__global__ void k(float* out) {\n    __shared__ float s[64];\n    int lane = threadIdx.x;\n    if (lane < 32) {\n        s[lane] += s[lane + 1];\n    }\n}\n";
        let f = race(
            Space::Shared,
            Hazard::ReadAfterWrite,
            el("s", 1, 64),
            1,
            false,
            (Access::Read, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 5, Some(5), 0, f.clone()),
            [64, 1, 1],
            &[],
        );
        assert!(
            h.contains("float v = s[lane + 1]; __syncwarp(); s[lane] += v; __syncwarp();"),
            "{h}"
        );
        assert!(!h.contains("__syncthreads();"), "{h}");
        // Another shape: `threadIdx.x <= 31` written in the if, another array.
        let src = "__global__ void fold(float* out) {\n    __shared__ float acc[64];\n    if (threadIdx.x <= 31) {\n        acc[threadIdx.x] += acc[threadIdx.x + 2];\n    }\n}\n";
        let f = race(
            Space::Shared,
            Hazard::ReadAfterWrite,
            el("acc", 2, 64),
            2,
            false,
            (Access::Read, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 4, Some(4), 0, f),
            [64, 1, 1],
            &[],
        );
        assert!(h.contains("__syncwarp(); acc[threadIdx.x] += v;"), "{h}");
    }

    #[test]
    fn race_a_map_writing_one_element_gets_the_thread_s_index_not_one_writer() {
        let src = "__global__ void k(float* out, const float* a) {\n    int i = blockIdx.x;\n    out[i] = a[i] * 2.0f;\n}\n";
        let f = race(
            Space::Global,
            Hazard::WriteAfterWrite,
            el("out", 0, 16),
            1,
            false,
            (Access::Write, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::GlobalRace, 3, None, 0, f),
            [8, 1, 1],
            &[],
        );
        assert!(h.contains("an element for each thread"), "{h}");
        assert!(!h.contains("threadIdx.x == 0"), "{h}");
        // Another shape: a shared staging array written at a constant slot.
        let src = "__global__ void stage(int* out, const int* src) {\n    __shared__ int buf[8];\n    buf[0] = src[0];\n}\n";
        let f = race(
            Space::Shared,
            Hazard::WriteAfterWrite,
            el("buf", 0, 8),
            1,
            false,
            (Access::Write, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 3, None, 0, f),
            [8, 1, 1],
            &[],
        );
        assert!(
            h.contains("an element for each thread") && h.contains("`threadIdx.x`"),
            "{h}"
        );
        assert!(!h.contains("== 0)`"), "{h}");
    }

    const PING_PONG: &str = "__global__ void smooth(float* y, const float* x) {\n    __shared__ float pp[2][16];\n    int j = threadIdx.x;\n    pp[0][j] = x[j];\n    __syncthreads();\n    int cur = 0;\n    for (int it = 0; it < 3; it++) {\n        float left = j > 0 ? pp[1 - cur][j - 1] : 0.0f;\n        pp[1 - cur][j] = 0.5f * (pp[cur][j] + left);\n        __syncthreads();\n        cur = 1 - cur;\n    }\n    y[j] = pp[cur][j];\n}\n";

    fn ping_pong_race(src: &str) -> String {
        let f = race(
            Space::Shared,
            Hazard::ReadAfterWrite,
            el("pp", 18, 32),
            2,
            false,
            (Access::Read, Access::Write),
        );
        help(
            src,
            diag(DiagKind::SharedRace, 8, Some(9), 3, f),
            [16, 1, 1],
            &[],
        )
    }

    #[test]
    fn race_a_pass_reading_the_half_it_writes_gets_the_other_half_not_a_barrier() {
        // Another shape than the scan: a smoothing stencil, `cur` for the half read.
        let h = ping_pong_race(PING_PONG);
        assert!(
            h.contains(
                "line 8 reads `pp[1 - cur][j - 1]` from the half of `pp` this pass writes (line 9"
            ) && h.contains("takes `pp[cur]` (line 9)")
                && h.contains("read `pp[cur][j - 1]` there"),
            "{h}"
        );
        assert!(!h.contains("registers first"), "{h}");
    }

    #[test]
    fn race_in_a_double_buffer_whose_pass_reads_one_half_only_keeps_the_ordering_help() {
        // Every read of the pass names the half it writes: no other half to point to.
        let one_half = PING_PONG.replace("(pp[cur][j] + left)", "(pp[1 - cur][j] + left)");
        let h = ping_pong_race(&one_half);
        assert!(!h.contains("from the half of"), "{h}");
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
    fn race_a_double_buffered_cp_async_loop_without_its_end_barrier_gets_the_barrier_before_the_next_copy(
    ) {
        let read_after_copy = |src: &str, read: u32, copy: u32| {
            let f = race(
                Space::Shared,
                Hazard::ReadAfterWrite,
                el("buf", 3, 64),
                3,
                false,
                (Access::Read, Access::Write),
            );
            help(
                src,
                diag(DiagKind::SharedRace, read, Some(copy), 1, f),
                [32, 1, 1],
                &[],
            )
        };
        // The copy in the kernel, started at the top of the loop for the next pass.
        let src = "__global__ void dot(float* out, const float* x, int n) {\n    __shared__ __align__(16) float buf[2][32];\n    float acc = 0.0f;\n    int passes = n / 32;\n    for (int p = 0; p < passes; p++) {\n        if (p + 1 < passes) __pipeline_memcpy_async(&buf[(p + 1) % 2][threadIdx.x], &x[(p + 1) * 32 + threadIdx.x], 4);\n        __pipeline_commit();\n        __pipeline_wait_prior(1);\n        __syncthreads();\n        for (int j = 0; j < 32; j++) {\n            acc += buf[p % 2][j];\n        }\n    }\n    out[threadIdx.x] = acc;\n}\n";
        let h = read_after_copy(src, 11, 6);
        assert!(
            h.contains("double-buffered")
                && h.contains("after line 12")
                && h.contains("before the next pass's copy (line 6)"),
            "{h}"
        );
        // Another shape: a helper starts the copy, called at the end of the loop body.
        let src = "__device__ void stage(float* dst, const float* g) {\n    __pipeline_memcpy_async(dst, g, 16);\n}\n__global__ void sums(float* out, const float* g, int steps) {\n    __shared__ __align__(16) float tiles[2][128];\n    float total = 0.0f;\n    stage(&tiles[0][4 * threadIdx.x], g + 4 * threadIdx.x);\n    __pipeline_commit();\n    for (int it = 0; it < steps; it++) {\n        __pipeline_wait_prior(0);\n        __syncthreads();\n        total += tiles[it & 1][threadIdx.x];\n        if (it + 1 < steps) stage(&tiles[(it + 1) & 1][4 * threadIdx.x], g + (it + 1) * 128 + 4 * threadIdx.x);\n        __pipeline_commit();\n    }\n    out[threadIdx.x] = total;\n}\n";
        let h = read_after_copy(src, 12, 2);
        assert!(
            h.contains("in `stage()`") && h.contains("before the next pass's copy (line 13)"),
            "{h}"
        );
        // The end barrier is there: the premise fails and this help is not given.
        let fixed = src.replace(
            "        __pipeline_commit();\n    }",
            "        __pipeline_commit();\n        __syncthreads();\n    }",
        );
        let fixed = fixed.replace(
            "        total += tiles[it & 1][threadIdx.x];\n",
            "        total += tiles[it & 1][threadIdx.x];\n        __syncthreads();\n",
        );
        assert!(!read_after_copy(&fixed, 12, 2).contains("double-buffered"));
    }

    #[test]
    fn race_in_an_if_inside_a_loop_without_any_barrier_gets_the_end_of_the_loop_body() {
        let write_after_read = |src: &str, write: u32, read: u32| {
            let f = race(
                Space::Shared,
                Hazard::WriteAfterRead,
                el("t", 3, 8),
                2,
                false,
                (Access::Write, Access::Read),
            );
            help(
                src,
                diag(DiagKind::SharedRace, write, Some(read), 3, f),
                [8, 1, 1],
                &[],
            )
        };
        // A compare-exchange network: partners change every pass.
        let src = "__global__ void net(int* o) {\n    __shared__ int t[8];\n    int me = threadIdx.x;\n    t[me] = o[me];\n    __syncthreads();\n    for (int d = 4; d > 0; d >>= 1) {\n        int q = me ^ d;\n        if (q > me) {\n            int lo = t[me];\n            int hi = t[q];\n            if (lo > hi) {\n                t[me] = hi;\n                t[q] = lo;\n            }\n        }\n    }\n    o[me] = t[me];\n}\n";
        let h = write_after_read(src, 12, 10);
        assert!(
            h.contains("end of the loop body, after the if (before line 16")
                && h.contains("loop on line 6"),
            "{h}"
        );
        assert!(!h.contains("end the if after"), "{h}");
        // Another shape: an odd-even step over a while loop, the if on one line.
        let src = "__global__ void oe(int* o, int rounds) {\n    __shared__ int t[8];\n    int k = threadIdx.x;\n    t[k] = o[k];\n    __syncthreads();\n    int r = 0;\n    while (r < rounds) {\n        if ((k + r) % 2 == 0 && k + 1 < 8) {\n            int a = t[k + 1];\n            if (t[k] > a) { t[k + 1] = t[k]; t[k] = a; }\n        }\n        r++;\n    }\n    o[k] = t[k];\n}\n";
        let h = write_after_read(src, 10, 9);
        assert!(h.contains("before line 13's closing brace"), "{h}");
        // A barrier in the loop body: the premise fails, this help is not given.
        let with = src.replace("        r++;\n", "        r++;\n        __syncthreads();\n");
        assert!(!write_after_read(&with, 10, 9).contains("whose body has no __syncthreads()"));
    }

    #[test]
    fn race_a_write_inside_one_writer_if_gets_the_barrier_after_the_if_and_a_scalar_by_name() {
        let read_after_write = |src: &str, name: &str, len: u64, read: u32, write: u32| {
            let f = race(
                Space::Shared,
                Hazard::ReadAfterWrite,
                el(name, 0, len),
                0,
                false,
                (Access::Read, Access::Write),
            );
            help(
                src,
                diag(DiagKind::SharedRace, read, Some(write), 3, f),
                [8, 1, 1],
                &[],
            )
        };
        let src = "__global__ void mean(float* o, const float* a) {\n    __shared__ float avg;\n    if (threadIdx.x == 0) {\n        float t = 0.0f;\n        for (int i = 0; i < 8; i++) t += a[i];\n        avg = t / 8;\n    }\n    o[threadIdx.x] = a[threadIdx.x] - avg;\n}\n";
        let h = read_after_write(src, "avg", 1, 8, 6);
        assert!(
            h.contains("reads avg,")
                && h.contains(
                    "after the `if (threadIdx.x == 0)` that holds the write (after line 7)"
                ),
            "{h}"
        );
        assert!(!h.contains("avg[0]"), "{h}");
        // Another shape: an array, a one-line if, read two lines below.
        let src = "__global__ void bcast(int* o, const int* a) {\n    __shared__ int head[2];\n    int me = threadIdx.x;\n    if (me == 1) head[0] = a[0];\n    int v = head[0];\n    o[me] = v;\n}\n";
        let h = read_after_write(src, "head", 2, 5, 4);
        assert!(
            h.contains("reads head[0]") && h.contains("after line 4"),
            "{h}"
        );
    }

    fn shared_race(src: &str, hazard: Hazard, line: u32, other: u32, mine: Access) -> String {
        let theirs = if mine == Access::Read {
            Access::Write
        } else {
            Access::Read
        };
        let f = race(
            Space::Shared,
            hazard,
            el("t", 3, 8),
            3,
            false,
            (mine, theirs),
        );
        help(
            src,
            diag(DiagKind::SharedRace, line, Some(other), 2, f),
            [8, 1, 1],
            &[],
        )
    }

    #[test]
    fn race_a_prefetch_for_the_next_pass_gets_the_barrier_after_the_write() {
        // The read (line 6) stands above the write (line 8) that fills the next pass's tile.
        let src = "__global__ void k(float* out, const float* a) {\n    __shared__ float t[8];\n    t[threadIdx.x] = a[threadIdx.x];\n    __syncthreads();\n    for (int p = 1; p < 4; p++) {\n        float v = t[(threadIdx.x + 1) % 8];\n        out[p * 8 + threadIdx.x] = v;\n        t[threadIdx.x] = a[p * 8 + threadIdx.x];\n    }\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 6, 8, Access::Read);
        assert!(h.contains("put a __syncthreads() after line 8"), "{h}");
        assert!(!h.contains("after the reads and before the write"), "{h}");
        // Another shape: a `while` loop, the write textually last in the body.
        let src = "__global__ void stage(int* dst, const int* src, int n) {\n    __shared__ int t[8];\n    int k = 0;\n    while (k < n) {\n        dst[k] = t[7 - threadIdx.x];\n        t[threadIdx.x] = src[k];\n        k++;\n    }\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 5, 6, Access::Read);
        assert!(
            h.contains("after line 6, at the end of the loop body"),
            "{h}"
        );
        // When the read really came first, the barrier goes between the read and the write.
        let h = shared_race(src, Hazard::WriteAfterRead, 6, 5, Access::Write);
        assert!(
            h.contains("after the reads and before the write (line 6)"),
            "{h}"
        );
    }

    #[test]
    fn race_a_write_before_the_read_in_one_pass_gets_the_barrier_between_them_not_a_second_end_barrier(
    ) {
        // Odd-even steps: each thread reads its neighbour, then writes its own slot; the
        // barrier at the end of the body already separates the passes.
        let src = "__global__ void oe(int* o) {\n    __shared__ int t[8];\n    t[threadIdx.x] = o[threadIdx.x];\n    __syncthreads();\n    for (int ph = 0; ph < 8; ph++) {\n        int nb = t[threadIdx.x ^ 1];\n        t[threadIdx.x] = min(t[threadIdx.x], nb);\n        __syncthreads();\n    }\n    o[threadIdx.x] = t[threadIdx.x];\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 6, 7, Access::Read);
        assert!(
            h.contains("on line 8 already ends each pass")
                && h.contains("after the reads and before the write (line 7)"),
            "{h}"
        );
        assert!(!h.contains("at the end of the loop body"), "{h}");
        // Another shape: a compare-and-swap of a pair, reads into named registers, the
        // barrier after an `if`.
        let src = "__global__ void cas(float* o) {\n    __shared__ float t[8];\n    int me = threadIdx.x;\n    t[me] = o[me];\n    __syncthreads();\n    for (int r = 0; r < 3; r++) {\n        float mine = t[me];\n        float theirs = t[me ^ 2];\n        if (mine > theirs) {\n            t[me] = theirs;\n        }\n        __syncthreads();\n    }\n    o[me] = t[me];\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 8, 10, Access::Read);
        assert!(
            h.contains("on line 12 already ends each pass")
                && h.contains("before the write (line 10)"),
            "{h}"
        );
        // Without the end barrier the prefetch rule still holds.
        let h = shared_race(
            &src.replace(
                "        __syncthreads();\n    }\n    o[me]",
                "    }\n    o[me]",
            ),
            Hazard::ReadAfterWrite,
            8,
            10,
            Access::Read,
        );
        assert!(!h.contains("already ends each pass"), "{h}");
    }

    #[test]
    fn race_one_writer_per_warp_at_one_slot_gets_the_warp_s_number_as_index() {
        let collide = |src: &str, name: &str, len: u64| {
            let f = race(
                Space::Shared,
                Hazard::WriteAfterWrite,
                el(name, 0, len),
                0,
                false,
                (Access::Write, Access::Write),
            );
            help(
                src,
                diag(DiagKind::SharedRace, 6, Some(6), 32, f),
                [64, 1, 1],
                &[],
            )
        };
        let cg = "__global__ void bs(float* out, const float* a) {\n    __shared__ float sums[2];\n    cg::thread_block blk = cg::this_thread_block();\n    cg::thread_block_tile<32> w = cg::tiled_partition<32>(blk);\n    float v = cg::reduce(w, a[threadIdx.x], cg::plus<float>());\n    if (w.thread_rank() == 0) sums[w.thread_rank()] = v;\n}\n";
        let h = collide(cg, "sums", 2);
        assert!(h.contains("`sums[w.meta_group_rank()]`"), "{h}");
        assert!(!h.contains("atomicAdd"), "{h}");
        // Another shape: a lane number, a constant slot, the `if` around a block.
        let lanes = "__global__ void ws(float* out, const float* a) {\n    __shared__ float part[2];\n    int lane = threadIdx.x % 32;\n    float v = a[threadIdx.x];\n    if (lane == 0) {\n        part[0] = v;\n    }\n}\n";
        let h = collide(lanes, "part", 2);
        assert!(h.contains("`part[threadIdx.x / 32]`"), "{h}");
        // One element only: a slot per warp does not exist; the one-writer advice stays.
        let h = collide(lanes, "part", 1);
        assert!(!h.contains("threadIdx.x / 32"), "{h}");
    }

    #[test]
    fn race_across_two_calls_of_a_helper_gets_a_barrier_between_the_calls() {
        let src = "__device__ float stage(float* t, float v) {\n    t[threadIdx.x] = v;\n    __syncthreads();\n    return t[(threadIdx.x + 1) % 8];\n}\n__global__ void k(float* out, const float* a) {\n    __shared__ float t[8];\n    float x = stage(t, a[threadIdx.x]);\n    float y = stage(t, x * 2.0f);\n    out[threadIdx.x] = y;\n}\n";
        let h = shared_race(src, Hazard::WriteAfterRead, 2, 4, Access::Write);
        assert!(
            h.contains("both in `stage()`") && h.contains("between two calls"),
            "{h}"
        );
        assert!(h.contains("after line 8"), "{h}");
        assert!(!h.contains("did not pass it together"), "{h}");
        // Another shape: one call, inside a loop.
        let src = "__device__ void rotate(int* t) {\n    int v = t[threadIdx.x];\n    __syncthreads();\n    t[(threadIdx.x + 1) % 8] = v;\n}\n__global__ void spin(int* out) {\n    __shared__ int t[8];\n    t[threadIdx.x] = threadIdx.x;\n    __syncthreads();\n    for (int r = 0; r < 3; r++) {\n        rotate(t);\n    }\n    out[threadIdx.x] = t[threadIdx.x];\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 2, 4, Access::Read);
        assert!(
            h.contains("both in `rotate()`") && h.contains("line 11 calls it inside a loop"),
            "{h}"
        );
    }

    #[test]
    fn race_one_lane_per_warp_in_a_wider_guard_writing_one_slot_gets_the_grid_warp_number() {
        // Another shape than puzzle 27's: other names, the lane test second in the guard.
        let src = "__global__ void wsum(float* partial, const float* x, int n) {\n    int g = blockIdx.x * blockDim.x + threadIdx.x;\n    int l = threadIdx.x & 31;\n    float v = g < n ? x[g] : 0.0f;\n    v += __shfl_xor_sync(0xffffffff, v, 1);\n    if (g < n && l == 0) partial[l] = v;\n}\n";
        let f = race(
            Space::Global,
            Hazard::WriteAfterWrite,
            el("partial", 0, 4),
            0,
            false,
            (Access::Write, Access::Write),
        );
        let mut d = diag(DiagKind::GlobalRace, 6, None, 32, f);
        d.thread = [32, 0, 0];
        let h = help(src, d, [64, 1, 1], &[("n", 128)]);
        assert!(
            h.contains("`if (l == 0)` (line 6) lets one thread of each warp through")
                && h.contains("`partial[g / 32]`")
                && h.contains("`if (threadIdx.x == 0)`"),
            "{h}"
        );
        assert!(
            !h.contains("threadIdx.x / 32"),
            "a block's warp number repeats across blocks: {h}"
        );
    }

    #[test]
    fn race_a_one_writer_guard_that_lets_several_through_is_named_not_repeated() {
        let src = "__global__ void k(float* out, const float* a) {\n    __shared__ float total[1];\n    int lane = threadIdx.x % 32;\n    if (lane == 0) {\n        total[0] = a[threadIdx.x];\n    }\n}\n";
        let f = race(
            Space::Shared,
            Hazard::WriteAfterWrite,
            el("total", 0, 1),
            0,
            false,
            (Access::Write, Access::Write),
        );
        let mut d = diag(DiagKind::SharedRace, 5, None, 32, f);
        d.thread = [32, 0, 0];
        let h = help(src, d, [64, 1, 1], &[]);
        assert!(
            h.contains("already inside `if (lane == 0)` (line 4)"),
            "{h}"
        );
        assert!(h.contains("`if (threadIdx.x == 0)`"), "{h}");
        // Another shape: a per-warp flag, a global output.
        let src = "__global__ void flag(int* out) {\n    int w = threadIdx.x / 32;\n    if (w == 0) out[0] = 1;\n}\n";
        let f = race(
            Space::Global,
            Hazard::WriteAfterWrite,
            el("out", 0, 1),
            1,
            false,
            (Access::Write, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::GlobalRace, 3, None, 0, f),
            [64, 1, 1],
            &[],
        );
        assert!(h.contains("already inside `if (w == 0)`"), "{h}");
    }

    #[test]
    fn race_inside_a_warp_s_if_gets_syncwarp_not_a_skipped_barrier() {
        let src = "__global__ void k(float* out) {\n    __shared__ float t[8];\n    if (threadIdx.x < 32) {\n        t[threadIdx.x % 8] = 1.0f;\n        out[threadIdx.x] = t[(threadIdx.x + 1) % 8];\n    }\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 5, 4, Access::Read);
        assert!(
            h.contains("`__syncwarp()` after line 4 and before line 5"),
            "{h}"
        );
        assert!(!h.contains("put __syncthreads() after line 4"), "{h}");
        // Another shape: an `if` of more than one warp: split the if around the barrier.
        let src = "__global__ void half(float* out) {\n    __shared__ float t[8];\n    int me = threadIdx.x;\n    if (me < blockDim.x / 2) {\n        t[me % 8] = 2.0f;\n        out[me] = t[(me + 3) % 8];\n    }\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 6, 5, Access::Read);
        assert!(h.contains("end the if after line 5"), "{h}");
    }

    #[test]
    fn race_help_names_a_2d_shared_element_as_declared() {
        let src = "__global__ void k(float* out) {\n    __shared__ float tile[2][32];\n    tile[threadIdx.x / 32][threadIdx.x % 32] = 1.0f;\n    out[threadIdx.x] = tile[1][0];\n}\n";
        let f = race(
            Space::Shared,
            Hazard::ReadAfterWrite,
            el("tile", 32, 64),
            32,
            false,
            (Access::Read, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 4, Some(3), 0, f),
            [64, 1, 1],
            &[],
        );
        assert!(h.contains("tile[1][0]"), "{h}");
        assert!(!h.contains("tile[32]"), "{h}");
        // Another shape: a 3D array of another name, element [1][1][2].
        let src = "__global__ void cube(float* out) {\n    __shared__ float box[2][2][4];\n    box[0][0][threadIdx.x % 4] = 1.0f;\n    out[threadIdx.x] = box[1][1][2];\n}\n";
        let f = race(
            Space::Shared,
            Hazard::ReadAfterWrite,
            el("box", 14, 16),
            3,
            false,
            (Access::Read, Access::Write),
        );
        let h = help(
            src,
            diag(DiagKind::SharedRace, 4, Some(3), 0, f),
            [8, 1, 1],
            &[],
        );
        assert!(h.contains("box[1][1][2]") && !h.contains("box[14]"), "{h}");
    }

    #[test]
    fn bounds_an_ldmatrix_row_gets_the_pitch_not_float4_advice() {
        let src = "__global__ void k(float* out) {\n    __shared__ __half t[16][18];\n    unsigned a = __cvta_generic_to_shared(&t[threadIdx.x % 16][0]);\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(r) : \"r\"(a));\n}\n";
        let mut f = oob("t", 18, 288, Access::Read);
        if let Facts::Bounds {
            space,
            misaligned_to,
            bytes,
            ..
        } = &mut f
        {
            *space = Space::Shared;
            *misaligned_to = Some(16);
            *bytes = 16;
        }
        let h = help(
            src,
            diag(DiagKind::Misaligned, 4, None, 1, f.clone()),
            [32, 1, 1],
            &[],
        );
        assert!(
            h.contains("`ldmatrix`") && h.contains("pad a row of halves by 8"),
            "{h}"
        );
        assert!(!h.contains("float4"), "{h}");
        // Another shape: the x4 form through a named helper variable.
        let src = "__global__ void mm(float* out) {\n    __shared__ __half sa[32][34];\n    unsigned row_addr = __cvta_generic_to_shared(&sa[threadIdx.x][0]);\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\" : \"=r\"(a0), \"=r\"(a1), \"=r\"(a2), \"=r\"(a3) : \"r\"(row_addr));\n}\n";
        let h = help(
            src,
            diag(DiagKind::Misaligned, 4, None, 1, f),
            [32, 1, 1],
            &[],
        );
        assert!(h.contains("multiple of 16") && !h.contains("float4"), "{h}");
    }

    #[test]
    fn bounds_with_a_guard_in_place_does_not_ask_for_the_guard_again() {
        let src = "__global__ void k(float* out, const float* a, int size) {\n    const float* p = a + 4;\n    if (threadIdx.x < size) {\n        out[threadIdx.x] = *(p + threadIdx.x);\n    }\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                4,
                None,
                5,
                oob("a", 9, 8, Access::Read),
            ),
            [8, 1, 1],
            &[("size", 8)],
        );
        assert!(
            h.contains("although the access is inside `if (threadIdx.x < size)` (line 3)"),
            "{h}"
        );
        assert!(!h.contains("check the index against the size"), "{h}");
        let src = "__global__ void shift(int* dst, const int* src, int n) {\n    int k = threadIdx.x;\n    if (k < n) dst[k] = src[k + 2 * n];\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                3,
                None,
                1,
                oob("buf", 17, 8, Access::Read),
            ),
            [8, 1, 1],
            &[("n", 8)],
        );
        assert!(
            !h.contains("check the index against the size before"),
            "{h}"
        );
    }

    #[test]
    fn race_across_a_barrier_every_thread_reaches_says_what_was_seen() {
        // The barrier is unguarded and no loop is found around both lines: no "inside an if".
        let src = "__global__ void k(float* out) {\n    __shared__ float t[8];\n    t[threadIdx.x] = 1.0f;\n    __syncthreads();\n    out[threadIdx.x] = t[7 - threadIdx.x];\n}\n";
        let h = shared_race(src, Hazard::WriteAfterRead, 3, 5, Access::Write);
        assert!(
            h.contains("different passes of a loop (or calls of a function)"),
            "{h}"
        );
        assert!(!h.contains("not inside an if"), "{h}");
        // Another shape: the barrier really is inside an if, and the help names that if.
        let src = "__global__ void gate(int* out, int n) {\n    __shared__ int t[8];\n    t[threadIdx.x] = n;\n    if (n > 2) {\n        __syncthreads();\n    }\n    out[threadIdx.x] = t[(threadIdx.x + 1) % 8];\n}\n";
        let h = shared_race(src, Hazard::ReadAfterWrite, 7, 3, Access::Read);
        assert!(h.contains("inside `if (n > 2)` (line 4)"), "{h}");
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

    fn barrier_help(src: &str, line: u32, other: Option<u32>) -> String {
        let f = Facts::BarrierDivergence {
            arrived: 4,
            total: 8,
            other_barrier: other,
            exited: Vec::new(),
            elsewhere: Vec::new(),
        };
        help(
            src,
            diag(DiagKind::BarrierDivergence, line, None, 0, f),
            [8, 1, 1],
            &[],
        )
    }

    #[test]
    fn an_empty_name_in_a_help_is_caught() {
        assert!(has_empty_name("s is only `` long there"));
        assert!(has_empty_name("guard it: `if (per - 1 - j < )`"));
        assert!(!has_empty_name(
            "put `__syncthreads()` after line 4 (`tile[1][0]`)"
        ));
        // Another planted case: a bounds help on an unsized `extern __shared__` array.
        let src = "__global__ void k(float* out) {\n    extern __shared__ int s[];\n    s[threadIdx.x] = 1;\n}\n";
        let mut f = oob("s", 3, 0, Access::Write);
        if let Facts::Bounds { space, .. } = &mut f {
            *space = Space::Shared;
        }
        let h = help(
            src,
            diag(DiagKind::OutOfBounds, 3, None, 3, f),
            [8, 1, 1],
            &[],
        );
        assert!(h.contains("`__shared__ int s[N];`"), "{h}");
        assert!(!has_empty_name(&h), "{h}");
    }

    #[test]
    fn a_barrier_skipped_by_continue_names_the_continue_not_an_if() {
        let src = "__global__ void k(float* s, int n) {\n    for (int r = 0; r < n; r++) {\n        if (threadIdx.x >= r) continue;\n        s[threadIdx.x] += 1.0f;\n        __syncthreads();\n    }\n}\n";
        let h = barrier_help(src, 5, None);
        assert!(
            h.starts_with("the `continue` on line 3 (`if (threadIdx.x >= r) continue;`)"),
            "{h}"
        );
        assert!(!h.contains("inside `if"), "{h}");
        // Another shape: a `while` loop, the `continue` in a braced if.
        let src = "__global__ void scan_rows(int* rows) {\n    int k = 0;\n    while (k < 4) {\n        k++;\n        if (rows[k] == 0) {\n            continue;\n        }\n        __syncthreads();\n    }\n}\n";
        let h = barrier_help(src, 8, None);
        assert!(h.starts_with("the `continue` on line 6"), "{h}");
        assert!(h.contains("`if (rows[k] == 0) continue;`"), "{h}");
    }

    #[test]
    fn a_barrier_in_a_loop_and_one_after_it_is_a_loop_not_an_if_else() {
        let src = "__global__ void k(float* s) {\n    for (int d = threadIdx.x; d < 8; d *= 2) {\n        s[d] = 0.0f;\n        __syncthreads();\n    }\n    __syncthreads();\n}\n";
        let h = barrier_help(src, 4, Some(6));
        assert!(
            h.contains("different numbers of passes of the loop on line 2"),
            "{h}"
        );
        assert!(h.contains("line 4") && h.contains("line 6"), "{h}");
        assert!(!h.contains("if/else"), "{h}");
        // The other way round: the diagnostic at the barrier after a `while`.
        let src = "__global__ void fold(int* v) {\n    int left = threadIdx.x;\n    while (left > 0) {\n        left /= 2;\n        __syncthreads();\n    }\n    __syncthreads();\n}\n";
        let h = barrier_help(src, 7, Some(5));
        assert!(h.contains("loop on line 3 (`left > 0`)"), "{h}");
        assert!(!h.contains("if/else"), "{h}");
        // A real if/else keeps its words.
        let src = "__global__ void k(float* s) {\n    if (threadIdx.x < 4) {\n        __syncthreads();\n    } else {\n        __syncthreads();\n    }\n}\n";
        let h = barrier_help(src, 3, Some(5));
        assert!(
            h.contains("one in each branch of an if/else") || h.contains("inside `if"),
            "{h}"
        );
    }

    #[test]
    fn a_grid_sync_is_named_as_written() {
        let src = "__global__ void k(float* s) {\n    auto grid = cg::this_grid();\n    if (blockIdx.x == 0) {\n        grid.sync();\n    }\n}\n";
        let h = barrier_help(src, 4, None);
        assert!(h.contains("the `grid.sync()` on line 4"), "{h}");
        assert!(!h.contains("__syncthreads() on line 4"), "{h}");
        let src = "__global__ void k(int* s) {\n    if (threadIdx.x < 4) {\n        int c = __syncthreads_count(s[0] > 0);\n    }\n}\n";
        let h = barrier_help(src, 3, None);
        assert!(h.contains("the `__syncthreads_count()` on line 3"), "{h}");
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

    fn shared_oob(name: &str, index: i128, len: u64, access: Access) -> Facts {
        Facts::Bounds {
            space: Space::Shared,
            access,
            element: el(name, index, len),
            address: 0,
            bytes: 4,
            misaligned_to: None,
        }
    }

    #[test]
    fn bounds_a_tree_started_at_the_whole_array_starts_at_half() {
        let src = "__global__ void k(float* out) {\n    __shared__ float cache[THREADS];\n    unsigned int tid = threadIdx.x;\n    for (unsigned int offset = blockDim.x; offset > 0; offset >>= 1) {\n        if (tid < offset) {\n            cache[tid] += cache[tid + offset];\n        }\n        __syncthreads();\n    }\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                6,
                None,
                0,
                shared_oob("cache", 8, 8, Access::Read),
            ),
            [8, 1, 1],
            &[("THREADS", 8)],
        );
        assert!(
            h.contains("start the loop at `blockDim.x / 2`") && h.contains("first round"),
            "{h}"
        );
        assert!(!h.contains("`tid + offset < THREADS`"), "{h}");
        // A tree that starts at half and indexes one too far is another cause.
        let src = src
            .replace("offset = blockDim.x;", "offset = blockDim.x / 2;")
            .replace("tid + offset]", "tid + offset + 1]");
        let h = help(
            &src,
            diag(
                DiagKind::OutOfBounds,
                6,
                None,
                3,
                shared_oob("cache", 8, 8, Access::Read),
            ),
            [8, 1, 1],
            &[("THREADS", 8)],
        );
        assert!(!h.contains("start the loop at"), "{h}");
    }

    #[test]
    fn bounds_an_unguarded_pair_of_indices_guards_the_larger_one() {
        let src = "__global__ void k(float* out) {\n    __shared__ float buf[M];\n    int tid = threadIdx.x;\n    for (int d = 1; d < M; d <<= 1) {\n        __syncthreads();\n        int hi = (tid + 1) * d * 2 - 1;\n        buf[hi] += buf[hi - d];\n    }\n}\n";
        let h = help(
            src,
            diag(
                DiagKind::OutOfBounds,
                7,
                None,
                4,
                shared_oob("buf", 17, 16, Access::Read),
            ),
            [8, 1, 1],
            &[("M", 16)],
        );
        assert!(
            h.contains("`if (hi < M)`") && h.contains("when `d` is 2"),
            "{h}"
        );
        // A read beside it (a stencil's neighbour) is no reason to guard another index.
        let stencil = src.replace("buf[hi] += buf[hi - d];", "out[0] = buf[hi] + buf[hi - d];");
        let h = help(
            &stencil,
            diag(
                DiagKind::OutOfBounds,
                7,
                None,
                4,
                shared_oob("buf", 17, 16, Access::Read),
            ),
            [8, 1, 1],
            &[("M", 16)],
        );
        assert!(!h.contains("guard the larger index"), "{h}");
        // The other index is the smaller one: guard the one that ran out.
        let src = src.replace("buf[hi - d]", "buf[hi + d]");
        let h = help(
            &src,
            diag(
                DiagKind::OutOfBounds,
                7,
                None,
                4,
                shared_oob("buf", 21, 16, Access::Read),
            ),
            [8, 1, 1],
            &[("M", 16)],
        );
        assert!(
            !h.contains("`if (hi < M)`") && h.contains("`if (hi + d < M)`"),
            "{h}"
        );
    }

    #[test]
    fn bounds_a_guard_with_its_bounds_swapped_gets_them_put_back() {
        let src = "__global__ void k(float* res, const float* lhs, const float* rhs, int height, int depth, int width) {\n    int x = blockIdx.x * blockDim.x + threadIdx.x;\n    int y = blockIdx.y * blockDim.y + threadIdx.y;\n    if (y < width && x < height) {\n        float acc = 0.0f;\n        for (int j = 0; j < depth; j++)\n            acc += lhs[y * depth + j] * rhs[j * width + x];\n        res[y * width + x] = acc;\n    }\n}\n";
        let mut d = diag(
            DiagKind::OutOfBounds,
            7,
            None,
            2,
            oob("rhs", 8, 8, Access::Read),
        );
        d.thread = [2, 0, 0];
        let h = help(
            src,
            d,
            [4, 4, 1],
            &[("height", 5), ("depth", 4), ("width", 2)],
        );
        assert!(
            h.contains("`if (y < height && x < width)`") && h.contains("other way round"),
            "{h}"
        );
        assert_eq!(
            swapped_bounds("(r <= W) && (c < H)", "c", "W").map(|s| s.0),
            Some("r <= H && c < W".into())
        );
        assert_eq!(swapped_bounds("r < H && c < W", "c", "W"), None);
        assert_eq!(swapped_bounds("r < W || c < H", "c", "W"), None);
    }

    #[test]
    fn bounds_swapped_thread_axes_swap_the_coordinates_and_keep_the_offsets() {
        let src = "__global__ void k(float* out, const float* f) {\n    __shared__ float sh[ROWS][COLS];\n    __shared__ float wt[3][3];\n    int tx = threadIdx.x;\n    int ty = threadIdx.y;\n    float acc = 0.0f;\n    for (int a = 0; a < 3; a++)\n        for (int b = 0; b < 3; b++)\n            acc += sh[tx + a][ty + b] * wt[a][b];\n    out[0] = acc;\n}\n";
        let d = || {
            let mut d = diag(
                DiagKind::OutOfBounds,
                9,
                None,
                6,
                shared_oob("sh", 60, 60, Access::Read),
            );
            d.thread = [6, 0, 0];
            d
        };
        let vals = [("ROWS", 6), ("COLS", 10)];
        let h = help(src, d(), [8, 4, 1], &vals);
        assert!(h.contains("`sh[ty + a][tx + b]`"), "{h}");
        // The offsets crossed as well (`wt[a][b]` beside `sh[tx + b][ty + a]`): all swap.
        let src = src.replace("sh[tx + a][ty + b]", "sh[tx + b][ty + a]");
        let h = help(&src, d(), [8, 4, 1], &vals);
        assert!(h.contains("`sh[ty + a][tx + b]`"), "{h}");
    }

    fn ballot_race(line: u32, index: i128, across: bool) -> Diagnostic {
        let f = race(
            Space::Global,
            Hazard::WriteAfterWrite,
            el("res", index, 256),
            0,
            across,
            (Access::Write, Access::Write),
        );
        let mut d = diag(DiagKind::GlobalRace, line, Some(line), 3, f);
        if across {
            d.block = [1, 0, 0];
        }
        d
    }

    #[test]
    fn race_a_ballot_slot_counting_the_lane_s_own_bit_gets_the_lanes_below() {
        let src = "__global__ void k(float* res, const float* src, int n) {\n    int w = threadIdx.x % 32;\n    float x = src[threadIdx.x];\n    bool ok = x > 0.0f;\n    unsigned int votes = __ballot_sync(0xffffffff, ok);\n    unsigned int me = 1u << w;\n    int pos = __popc(me & votes);\n    if (ok) res[pos] = x;\n}\n";
        let h = help(src, ballot_race(8, 1, false), [32, 1, 1], &[]);
        assert!(
            h.contains("`__popc(((1u << w) - 1) & votes)`") && h.contains("line 7"),
            "{h}"
        );
        assert!(!h.contains("atomicAdd"), "{h}");
    }

    #[test]
    fn race_a_slot_from_the_whole_ballot_gets_the_lanes_below() {
        // Another shape than the suite's: the slot through a local `at`, blocks of 64, and
        // the lane as `threadIdx.x & 31`.
        let src = "__global__ void k(float* res, const float* src, int n) {\n    int me = threadIdx.x & 31;\n    float x = src[blockIdx.x * 64 + threadIdx.x];\n    unsigned int keep = __ballot_sync(0xffffffff, x < 0.0f);\n    int at = __popc(keep);\n    if (x < 0.0f) res[blockIdx.x * 64 + threadIdx.x / 32 * 32 + at] = x;\n}\n";
        let same = |mut d: Diagnostic| {
            if let Facts::Race { same_warp, .. } = &mut d.facts {
                *same_warp = true;
            }
            d
        };
        let h = help(src, same(ballot_race(6, 5, false)), [64, 1, 1], &[]);
        assert!(
            h.contains("`__popc(keep)` (line 5) counts every kept lane")
                && h.contains("`__popc(keep & ((1u << me) - 1))`"),
            "{h}"
        );
        assert!(!h.contains("atomicAdd"), "{h}");
        // The lanes below already masked: not this cause.
        let masked = src.replace("__popc(keep)", "__popc(keep & ((1u << me) - 1))");
        let h = help(&masked, same(ballot_race(6, 5, false)), [64, 1, 1], &[]);
        assert!(!h.contains("counts every kept lane"), "{h}");
    }

    #[test]
    fn race_a_ballot_slot_without_the_warp_s_start_gets_the_start() {
        let src = "__global__ void k(float* res, const float* src, int n) {\n    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n    int l = threadIdx.x % 32;\n    float x = src[gid];\n    unsigned int b = __ballot_sync(0xffffffff, x > 0.0f);\n    int r = __popc(b & ((1u << l) - 1));\n    if (x > 0.0f) res[r] = x;\n}\n";
        let h = help(src, ballot_race(7, 0, true), [64, 1, 1], &[]);
        assert!(h.contains("`res[gid / 32 * 32 + r]`"), "{h}");
        assert!(
            !h.contains("atomicAdd") && !h.contains("__threadfence"),
            "{h}"
        );
        // One warp per block: the block's start.
        let h = help(src, ballot_race(7, 0, true), [32, 1, 1], &[]);
        assert!(h.contains("`res[blockIdx.x * 32 + r]`"), "{h}");
        // Two lanes of one warp: their counts differ, so a missing start is not the cause.
        let mut d = ballot_race(7, 0, false);
        if let Facts::Race { same_warp, .. } = &mut d.facts {
            *same_warp = true;
        }
        let h = help(src, d, [32, 1, 1], &[]);
        assert!(!h.contains("counts lanes"), "{h}");
        // A slot that already has a start is not this cause.
        let src = src.replace("res[r]", "res[blockIdx.x * 32 + r]");
        let h = help(&src, ballot_race(7, 0, true), [32, 1, 1], &[]);
        assert!(!h.contains("counts lanes"), "{h}");
    }
}
