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
