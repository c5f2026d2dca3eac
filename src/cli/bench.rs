//! `gpuzzle bench N`: the puzzle's `[bench]` launch, timed on a GPU, or counted on the emulator.

use super::common::{self, BackendArgs, IncludeArgs, WorkspaceArgs};
use super::output::{errln, outln};
use super::{default_jobs, Format, EXIT_FAIL};
use crate::compile::{self, CompileError, CompileRequest};
use crate::emu::result::RunResult;
use crate::emu::value::{Buffer, KernelArg};
use crate::emu::{self, EmuOptions, LaunchConfig};
use crate::gpu::backend::{self, Executor};
use crate::gpu::bench::{
    count_mismatches, BenchOutcome, BenchWork, EmuFigures, EmuSide, GpuFigures, GpuSide, Measured,
    Roofline,
};
use crate::gpu::wire::{WireArg, WireConfig};
use crate::gpu::worker::{BenchRequest, TimedWire};
use crate::puzzle::{Puzzle, TestCase};
use crate::report;
use anyhow::{bail, Result};
use clap::Args;
use std::time::Duration;

/// Thread-instructions the emulator may spend on one bench launch: the biggest pack bench takes
/// under 30 million, and a runaway kernel must end within seconds (see `Deadline::for_steps`).
const BENCH_STEP_LIMIT: u64 = 100_000_000;
/// Default time limit of a GPU bench: compiling, checking and timing both kernels.
const BENCH_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The puzzle: its number or slug (it needs a [bench] table).
    pub puzzle: String,
    /// Bench the reference solution in solutions/ instead of your file.
    #[arg(long)]
    pub solution: bool,
    /// Timed launches per kernel on the GPU (the median is reported).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub reps: u32,
    /// Output: readable text, or JSON with every figure for scripts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also draw the roofline as an SVG: ceilings, ridge point, your kernel and the reference
    /// (on the emulator: a stated reference GPU's ceilings at the measured intensity).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub include: IncludeArgs,
}

pub fn run(a: &BenchArgs, quiet: bool) -> Result<i32> {
    let loaded = common::load(&a.ws)?;
    let puzzle = loaded.ws.find(&loaded.puzzles, &a.puzzle)?;
    let Some(bench) = &puzzle.bench else {
        let with: Vec<String> = loaded
            .puzzles
            .iter()
            .filter(|p| p.bench.is_some())
            .map(|p| format!("{} {}", p.id, p.slug))
            .collect();
        bail!(
            "puzzle {} ({}) has no [bench] table, so there is nothing to bench; puzzles with one: {}",
            puzzle.id,
            puzzle.slug,
            if with.is_empty() { "none".to_string() } else { with.join(", ") }
        );
    };
    if a.svg.is_some() && puzzle.bench_flops.is_none() {
        bail!(
            "{}; draw the table without --svg",
            crate::draw::roofline::RooflineError::NoFlops { id: puzzle.id }
        );
    }
    let selection = a.backend.select(!quiet && a.format == Format::Text)?;

    let (name, source) = if a.solution {
        common::read_reference(&loaded.ws, puzzle)
    } else {
        let path = loaded.ws.kernel_path(puzzle, false);
        let name = common::display_path(&path);
        let source = common::read_source(&path).map_err(|e| format!("cannot read {name}: {e}"));
        (name, source)
    };
    let source = source.map_err(anyhow::Error::msg)?;
    // `--arch` over the puzzle's own target (the reference compiles for it too).
    let mut targeted = puzzle.clone();
    targeted.arch = a.include.arch.or(puzzle.arch);
    let puzzle = &targeted;
    let include_dirs = a
        .include
        .resolve_for(&loaded.ws.kernel_path(puzzle, a.solution))?;
    let learner_ptx = match compile_kernel(puzzle, bench, &name, &source, &include_dirs) {
        Ok(ptx) => ptx,
        Err(e @ CompileError::Compilation { .. }) => {
            match a.format {
                Format::Json => outln!(
                    "{}",
                    serde_json::json!({"ok": false, "error": e.to_string()})
                ),
                Format::Text => errln!("{e}"),
            }
            return Ok(EXIT_FAIL);
        }
        Err(e) => return Err(e.into()),
    };
    let mut reference_note = None;
    let reference_ptx = if a.solution {
        None
    } else {
        // The workspace's solutions/ file, else the pack's built-in solution.
        let (rname, rsource) = common::read_reference(&loaded.ws, puzzle);
        match rsource {
            // The command line's -I is for the learner's file; the reference gets the puzzle's.
            Ok(src) => match compile_kernel(puzzle, bench, &rname, &src, &[]) {
                Ok(ptx) => Some(ptx),
                Err(e) => {
                    reference_note = Some(format!(
                        "the reference solution {rname} does not compile: {e}"
                    ));
                    None
                }
            },
            Err(why) => {
                reference_note = Some(why);
                None
            }
        }
    };

    let args = bench.kernel_args(&puzzle.params, None)?;
    let cfg = LaunchConfig {
        grid: bench.grid,
        block: bench.block,
        dynamic_shared: bench.shared_bytes,
        cooperative: puzzle.cooperative,
    };
    let work = BenchWork {
        compulsory_bytes: bench
            .buffers
            .values()
            .map(|b| (b.len * b.ty.size()) as u64)
            .sum(),
        flops: puzzle.bench_flops.as_ref().map(|f| f.value),
        flops_expr: puzzle.bench_flops.as_ref().map(|f| f.expr.clone()),
    };
    let outputs: Vec<&str> = bench.outputs().collect();
    let parts = match selection.executor {
        Executor::Gpu => {
            let request = BenchRequest {
                learner_ptx,
                reference_ptx,
                kernel: puzzle.kernel.clone(),
                cfg: WireConfig::from(&cfg),
                args: args.iter().map(WireArg::from).collect(),
                step_budget: u32::MAX as u64,
                warmup: 2,
                reps: a.reps,
            };
            let timeout = a.backend.timeout.unwrap_or(BENCH_TIMEOUT);
            let reply = match backend::bench_on_gpu(request, timeout) {
                Ok(r) => r,
                Err(backend::GpuError::Launch(e)) => {
                    bail!("{}", launch_advice(puzzle, &e.to_string()))
                }
                Err(e) => bail!("{e}"),
            };
            gpu_parts(reply, &work, &outputs, puzzle)?
        }
        Executor::Emulator | Executor::InstrumentedEmulator => emu_parts(
            &learner_ptx,
            reference_ptx.as_deref(),
            &cfg,
            &args,
            &work,
            bench,
            puzzle,
        )?,
    };
    let outcome = BenchOutcome {
        id: puzzle.id,
        slug: puzzle.slug.clone(),
        title: puzzle.title.clone(),
        bench: bench.name.clone(),
        file: name.clone(),
        grid: cfg.grid,
        block: cfg.block,
        threads: cfg.total_threads(),
        work,
        measured: parts.measured,
        mismatches_vs_reference: parts.mismatches,
        reference_note: parts.note.or(reference_note),
    };
    // A kernel that computes something else is not worth timing: fail, like `run` would.
    let ran_clean = parts.clean && parts.mismatches.unwrap_or(0) == 0;
    match a.format {
        Format::Json => outln!("{}", report::bench::json(&outcome)),
        Format::Text => super::print_block(&report::bench::text(&outcome)),
    }
    if let Some(path) = &a.svg {
        let svg = crate::draw::roofline::draw(&outcome)?;
        super::draw::write_picture(path, &svg)?;
        if a.format == Format::Text {
            outln!("Roofline: {}", common::display_path(path));
        }
    }
    Ok(if ran_clean { 0 } else { EXIT_FAIL })
}

/// With the bench's defines (`[bench] defines` over the puzzle's). `include_dirs`: the
/// command line's `-I` folders, resolved (the puzzle's own come after).
fn compile_kernel(
    puzzle: &Puzzle,
    bench: &TestCase,
    name: &str,
    source: &str,
    include_dirs: &[std::path::PathBuf],
) -> Result<String, CompileError> {
    let include_options = crate::judge::include_options(include_dirs, puzzle, None);
    let req = CompileRequest {
        file_name: name,
        source,
        defines: &puzzle.defines_for(bench),
        extra_options: &include_options,
    };
    compile::compile(&req).map(|c| c.ptx.to_string())
}

fn launch_advice(puzzle: &Puzzle, message: &str) -> String {
    format!(
        "{message}; keep the starter's kernel and parameters: {}",
        crate::puzzle::kernel_signature(puzzle)
    )
}

/// The largest element size among the bench's buffers (for the ideal sectors per access).
fn elem_bytes(bench: &TestCase) -> u64 {
    bench
        .buffers
        .values()
        .map(|b| b.ty.size() as u64)
        .max()
        .unwrap_or(4)
}

/// Run one kernel of a bench on the emulator with the perf counters on, checkers off.
fn emu_run(
    ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: &[KernelArg],
) -> Result<RunResult, String> {
    let module = crate::ptx::parse(ptx)
        .map_err(|e| format!("gpuzzle could not read the PTX (please report this): {e}"))?;
    let opts = EmuOptions {
        step_limit: BENCH_STEP_LIMIT,
        checkers: false,
        jobs: default_jobs(),
        perf: true,
        deadline: Some(emu::Deadline::for_steps(BENCH_STEP_LIMIT)),
        poisoned: Vec::new(),
    };
    emu::run(&module, kernel, cfg, args.to_vec(), &opts).map_err(|e| e.to_string())
}

/// What a backend measured, before it is put into a `BenchOutcome`.
struct Parts {
    measured: Measured,
    mismatches: Option<usize>,
    /// Why the reference was not measured.
    note: Option<String>,
    /// The learner's kernel ran (and on a GPU was timed) without errors.
    clean: bool,
}

/// Run both kernels on the emulator.
fn emu_parts(
    learner_ptx: &str,
    reference_ptx: Option<&str>,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    work: &BenchWork,
    bench: &TestCase,
    puzzle: &Puzzle,
) -> Result<Parts> {
    let elem = elem_bytes(bench);
    let mine = emu_run(learner_ptx, &puzzle.kernel, cfg, args)
        .map_err(|m| anyhow::anyhow!("{}", launch_advice(puzzle, &m)))?;
    let mut note = None;
    let reference = match reference_ptx.map(|ptx| emu_run(ptx, &puzzle.kernel, cfg, args)) {
        Some(Ok(r)) => Some(r),
        Some(Err(m)) => {
            note = Some(format!("the reference solution could not run: {m}"));
            None
        }
        None => None,
    };
    let outputs: Vec<&str> = bench.outputs().collect();
    let side = |r: &RunResult| EmuSide {
        figures: EmuFigures::new(r, work, cfg, elem),
        diagnostics: r.diagnostics.clone(),
    };
    Ok(Parts {
        mismatches: reference
            .as_ref()
            .map(|r| count_mismatches(&outputs, &mine.buffers, &r.buffers, &puzzle.tolerance)),
        measured: Measured::Emulator {
            kernel: side(&mine),
            reference: reference.as_ref().map(side),
        },
        note,
        clean: !mine.has_errors(),
    })
}

/// Turn a GPU bench reply into figures.
fn gpu_parts(
    reply: crate::gpu::worker::BenchReply,
    work: &BenchWork,
    outputs: &[&str],
    puzzle: &Puzzle,
) -> Result<Parts> {
    let check = RunResult::try_from(reply.check).map_err(anyhow::Error::msg)?;
    let specs = reply.specs;
    let buffers =
        |t: &TimedWire| -> Vec<Buffer> { t.buffers.iter().cloned().map(Buffer::from).collect() };
    let kernel = GpuSide {
        timing: reply
            .learner
            .as_ref()
            .and_then(|t| GpuFigures::new(&t.times_ms, work, &specs)),
        diagnostics: check.diagnostics.clone(),
    };
    let mut mismatches = None;
    let mut note = None;
    let reference = match &reply.reference {
        Some(Ok(t)) => {
            if let Some(l) = &reply.learner {
                mismatches = Some(count_mismatches(
                    outputs,
                    &buffers(l),
                    &buffers(t),
                    &puzzle.tolerance,
                ));
            }
            Some(GpuSide {
                timing: GpuFigures::new(&t.times_ms, work, &specs),
                diagnostics: vec![],
            })
        }
        Some(Err(m)) => {
            note = Some(format!("the reference solution could not be timed: {m}"));
            None
        }
        None => None,
    };
    Ok(Parts {
        measured: Measured::Gpu {
            peak_gbps: specs.peak_bytes_per_s().map(|b| b / 1e9),
            peak_gflops: specs.peak_flops().map(|f| f / 1e9),
            roofline: Roofline::new(work, &specs),
            device: specs,
            kernel,
            reference,
        },
        mismatches,
        note,
        clean: !check.has_errors() && reply.learner.is_some(),
    })
}
