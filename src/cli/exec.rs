//! `gpuzzle exec`: compile any kernel file and run it on the emulator or the GPU.

use super::common::BackendArgs;
use super::output::{errln, outln};
use super::{default_jobs, parse_define, parse_dims, Format, EXIT_FAIL, EXIT_USAGE};
use crate::compile::{self, CompileError, CompileRequest};
use crate::emu::{self, spec, EmuOptions, LaunchConfig};
use crate::gpu::backend::{self, Executor, GpuError};
use crate::report;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExecArgs {
    /// The CUDA C file.
    pub file: PathBuf,
    /// The kernel to launch.
    #[arg(long)]
    pub kernel: String,
    /// Blocks in the grid: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub grid: [u32; 3],
    /// Threads per block: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes (for `extern __shared__` arrays).
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block resident at once, so
    /// `cg::this_grid().sync()` works. The grid must fit on the GPU at once (the emulator
    /// models the target's GPU: an A100 for sm_80, an H100 for sm_90; a GPU its own occupancy).
    #[arg(long)]
    pub cooperative: bool,
    /// The GPU architecture to compile for: sm_80 (the default), sm_86, sm_89 or sm_90 (thread-block
    /// clusters, distributed shared memory); on a GPU without it, the GPU's own.
    #[arg(long, value_name = "SM", value_parser = crate::compile::parse_arch_arg)]
    pub arch: Option<crate::compile::Arch>,
    /// A preprocessor define for NVRTC: NAME or NAME=VALUE.
    #[arg(short = 'D', value_parser = parse_define)]
    pub define: Vec<(String, Option<String>)>,
    /// A folder to search for the kernel's own headers (`#include "util.h"`), relative to
    /// the kernel file; CUDA's headers are found without it.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// A kernel argument, in parameter order: NAME=TYPE:VALUE, NAME=TYPE[LEN]:INIT
    /// (zeros, ones, arange, fill=V, rand=SEED, json=PATH), NAME={TYPE:VALUE,...}, or NAME=null
    /// for a null pointer (an optional pointer argument, `int* partial_sums = NULL`).
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// Set a `__constant__` or `__device__` variable before the launch (as cudaMemcpyToSymbol
    /// would): NAME=TYPE:VALUE or NAME=TYPE[LEN]:INIT, as for --arg. Emulator only.
    #[arg(long = "symbol", value_name = "NAME=SPEC")]
    pub symbols: Vec<String>,
    /// Output: readable text, or JSON (buffers, counters, diagnostics) for scripts.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Thread-instructions allowed before `step-limit` is reported (on the GPU: shared out
    /// over the threads as a per-thread loop budget). The count decides, on any machine; on the
    /// emulator a wall clock far above what the count costs (at least a minute;
    /// `GPUZZLE_TIME_LIMIT` sets it) is only a backstop for pathologically slow steps. It bounds
    /// the whole launch, whatever the grid: a grid of many short blocks is stopped between two
    /// blocks.
    #[arg(long, default_value_t = EmuOptions::default().step_limit)]
    pub step_limit: u64,
    /// Run the PTX the GPU backend would run (instrumented) on the emulator, checkers off, and
    /// report what the instrumentation reads back: buffers, counters, the first fault.
    #[arg(long, conflicts_with = "backend")]
    pub via_instrumented_ptx: bool,
    #[command(flatten)]
    pub backend: BackendArgs,
}

pub fn run(a: &ExecArgs, quiet: bool) -> Result<i32> {
    let source = super::common::read_source(&a.file)
        .with_context(|| format!("cannot read kernel file {}", a.file.display()))?;
    let base = a.file.parent().map(PathBuf::from).unwrap_or_default();
    // Sizes first: no buffer is filled before all of them are known to fit.
    spec::check_buffer_sizes(&a.args, &a.symbols).map_err(anyhow::Error::msg)?;
    let args = a
        .args
        .iter()
        .map(|s| spec::parse_arg(s, &base))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    reject_repeated_names(&a.args)?;
    let symbols = a
        .symbols
        .iter()
        .map(|s| spec::parse_symbol(s, &base))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    let name = a.file.display().to_string();
    // As on the other commands: relative to the kernel file, and a missing folder is said here.
    let mut include_options: Vec<String> = super::common::IncludeArgs {
        include: a.include.clone(),
        arch: None,
    }
    .resolve_for(&a.file)?
    .iter()
    .map(|dir| format!("-I{}", dir.display()))
    .collect();
    // Without --arch: the GPU's own target when it may run there (selected after compiling).
    let on_gpu = !matches!(
        a.backend.choice(),
        Ok(crate::gpu::backend::BackendChoice::Emu)
    );
    let device = || on_gpu.then(crate::gpu::backend::probed_arch).flatten();
    if let Some(arch) = a.arch.or_else(device).filter(|a| *a != Default::default()) {
        include_options.push(arch.nvrtc_option());
    }
    let req = CompileRequest {
        file_name: &name,
        source: &source,
        defines: &a.define,
        extra_options: &include_options,
    };
    let compiled = match compile::compile(&req) {
        Ok(c) => c,
        Err(CompileError::Compilation {
            log,
            messages,
            file,
        }) => {
            let err = CompileError::Compilation {
                log,
                messages,
                file,
            };
            match a.format {
                Format::Json => outln!("{}", compile_error_json(&err.to_string())),
                Format::Text => errln!("{err}"),
            }
            return Ok(EXIT_FAIL);
        }
        Err(e) => return Err(e.into()),
    };
    if !quiet && a.format == Format::Text {
        for w in &compiled.warnings {
            errln!("{w}");
        }
    }
    let module = match crate::ptx::parse(&compiled.ptx) {
        Ok(m) => m,
        Err(e) => match crate::ptx::learner_asm_error(&compiled.ptx, &e, &name) {
            // Invalid inline assembly is the learner's error at the `asm` line, as a compile
            // error is.
            Some(message) => {
                match a.format {
                    Format::Json => outln!("{}", compile_error_json(&message)),
                    Format::Text => errln!("{message}"),
                }
                return Ok(EXIT_FAIL);
            }
            None => {
                return Err(anyhow::Error::new(e)
                    .context("gpuzzle could not read the PTX NVRTC produced (please report this)"))
            }
        },
    };
    // What `teach` may use to explain a diagnostic: the integer defines and scalars by name.
    let mut values = crate::teach::Scene::define_values(&a.define);
    for (text, arg) in a.args.iter().zip(&args) {
        if let (Some((n, _)), crate::emu::value::KernelArg::Scalar(sc)) =
            (text.split_once('='), arg)
        {
            let v = sc.as_f64();
            if !sc.ty.is_float() && v.fract() == 0.0 {
                values.push((n.trim().to_string(), v as i64));
            }
        }
    }
    let cfg = LaunchConfig {
        grid: a.grid,
        block: a.block,
        dynamic_shared: a.shared,
        cooperative: a.cooperative,
    };
    let executor = if a.via_instrumented_ptx {
        Executor::InstrumentedEmulator
    } else {
        a.backend
            .select(!quiet && a.format == Format::Text)?
            .executor
    };
    if !symbols.is_empty() && executor != Executor::Emulator {
        anyhow::bail!(
            "--symbol sets module variables on the emulator only: add --backend emu (or leave --symbol out)"
        );
    }
    // Every `__device__` variable's final value (the emulator reads them back).
    let mut device_vars = Vec::new();
    let result = if executor == Executor::Emulator {
        let opts = EmuOptions {
            step_limit: a.step_limit,
            jobs: default_jobs(),
            // No perf figures: exec never prints them, and their log costs time and memory.
            deadline: Some(emu::Deadline::for_steps(a.step_limit)),
            ..EmuOptions::default()
        };
        emu::run_with_symbols(&module, &a.kernel, &cfg, args, &symbols, &opts)
            .map(|(r, vars)| {
                device_vars = vars;
                r
            })
            .map_err(GpuError::Launch)
    } else {
        let threads = cfg.total_threads();
        backend::launch(
            executor,
            &compiled.ptx,
            &a.kernel,
            &cfg,
            args,
            crate::gpu::plan::per_thread_budget(a.step_limit, threads),
            a.backend.timeout.unwrap_or(executor.default_timeout()),
        )
    };
    let mut result = match result {
        Ok(r) => r,
        Err(
            e @ (GpuError::Launch(emu::EmuError::Unsupported(_))
            | GpuError::Instrument(_)
            | GpuError::Driver(_)
            | GpuError::Isolation(_)),
        ) => {
            match a.format {
                Format::Json => outln!("{}", compile_error_json(&e.to_string())),
                Format::Text => errln!("error: {e}"),
            }
            return Ok(EXIT_FAIL);
        }
        // A launch refused before it ran (a limit, the arguments against the signature): the
        // same exit code and message in both formats, and JSON too for scripts that asked.
        Err(e) => {
            if a.format == Format::Json {
                outln!("{}", compile_error_json(&e.to_string()));
            }
            errln!("error: {e}");
            return Ok(EXIT_USAGE);
        }
    };
    if a.format == Format::Text {
        // Help is printed with text only (exec's JSON has no help).
        for d in &mut result.diagnostics {
            crate::report::endless_loop::name_the_loop(d, &module, &name, &source);
        }
        let scene = crate::teach::Scene {
            source: &source,
            file_name: &name,
            module: Some(&module),
            grid: a.grid,
            block: a.block,
            values,
            shapes: Vec::new(),
            cooperative: a.cooperative,
        };
        crate::teach::explain(&mut result.diagnostics, &scene);
    }
    match a.format {
        Format::Json => super::output::with_stdout(|w| {
            report::exec::write_json_with_symbols(&result, &device_vars, w)
        }),
        Format::Text => super::print_block(&report::exec::text_with_symbols(
            &result,
            &device_vars,
            &a.kernel,
            &name,
            Some(&source),
        )),
    }
    Ok(if result.has_errors() { EXIT_FAIL } else { 0 })
}

/// Two `--arg`s with one name are almost always a slip (and JSON output keys buffers by name).
fn reject_repeated_names(args: &[String]) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for text in args {
        let name = text
            .split_once('=')
            .map_or(text.as_str(), |(n, _)| n)
            .trim();
        if !seen.insert(name) {
            anyhow::bail!("--arg {text}: `{name}` is already given by an earlier --arg; give each argument its own name");
        }
    }
    Ok(())
}

/// The one JSON object exec prints when the kernel never ran (compile error, unsupported PTX).
fn compile_error_json(message: &str) -> serde_json::Value {
    serde_json::json!({
        "ok": false,
        "error": message,
        "buffers": {},
        "stdout": "",
        "diagnostics": [],
        "counters": {
            "max_per_thread": {"global_reads": 0, "global_writes": 0, "shared_reads": 0, "shared_writes": 0,
                               "global_atomics": 0, "shared_atomics": 0},
            "total": {"global_reads": 0, "global_writes": 0, "shared_reads": 0, "shared_writes": 0,
                      "global_atomics": 0, "shared_atomics": 0}
        }
    })
}
