//! clap definitions and one small function per command, wiring the other modules together.

mod bench;
mod check;
mod classroom;
mod common;
mod doctor;
mod exec;
mod learn;
pub mod output;
mod run;
mod watch;

use clap::{Parser, Subcommand, ValueEnum};
use output::{errln, out, outln};

/// Exit codes: 0 success, 1 the kernel or puzzle failed, 2 a usage or set-up error.
pub const EXIT_FAIL: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "gpuzzle",
    version,
    about = "Learn CUDA by solving puzzles: compile with NVRTC, run on a GPU or gpuzzle's PTX emulator, get exact feedback."
)]
pub struct Cli {
    /// When to use colour (NO_COLOR is honoured under `auto`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    /// Print less: only the verdict and problems.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Grade one puzzle: your output against the spec, memory budget, diagnostics.
    Run(run::RunArgs),
    /// Grade many puzzles (for CI: exit code, JSON, JUnit).
    Check(check::CheckArgs),
    /// Show the next hint for a puzzle.
    Hint(learn::HintArgs),
    /// List the puzzles and your progress.
    List(learn::ListArgs),
    /// Describe a puzzle: task, launch shape, budget, tests.
    Show(learn::ShowArgs),
    /// Print a puzzle's reference solution, once you have passed it (or with --force).
    Solution(learn::SolutionArgs),
    /// Restore a puzzle's starter (your file is backed up first).
    Reset(learn::ResetArgs),
    /// Create a fresh workspace from the built-in puzzle pack (with --ci github, a classroom
    /// repository's grading workflow too).
    Init(learn::InitArgs),
    /// Re-run a puzzle each time you save it.
    Watch(watch::WatchArgs),
    /// Check the set-up: NVRTC, GPU, workspace, cache.
    Doctor(doctor::DoctorArgs),
    /// Run any kernel on the emulator or the GPU: the playground.
    Exec(exec::ExecArgs),
    /// Time a puzzle's large [bench] launch on the GPU (GB/s, GFLOP/s, roofline), or count its
    /// memory traffic on the emulator.
    Bench(bench::BenchArgs),
    /// Print a shell completion script.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Internal: the isolated process that runs one GPU launch (a request on stdin).
    #[command(name = "__gpu-worker", hide = true)]
    GpuWorker,
}

/// Entry point of the binary; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    set_color(cli.color);
    let result = match &cli.command {
        Command::Run(a) => run::run(a, cli.quiet),
        Command::Check(a) => check::run(a, cli.quiet),
        Command::Hint(a) => learn::hint(a),
        Command::List(a) => learn::list(a),
        Command::Show(a) => learn::show(a),
        Command::Solution(a) => learn::solution(a),
        Command::Reset(a) => learn::reset(a),
        Command::Init(a) => learn::init(a),
        Command::Watch(a) => watch::run(a, cli.quiet),
        Command::Doctor(a) => doctor::run(a),
        Command::Exec(a) => exec::run(a, cli.quiet),
        Command::Bench(a) => bench::run(a, cli.quiet),
        Command::GpuWorker => Ok(crate::gpu::worker::serve()),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            // Into memory first: `generate` panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "gpuzzle", &mut script);
            output::with_stdout(|w| w.write_all(&script));
            Ok(0)
        }
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            errln!(
                "{} {e:#}",
                colored::Colorize::bold(colored::Colorize::red("error:"))
            );
            EXIT_USAGE
        }
    };
    output::finish(code)
}

fn set_color(choice: ColorChoice) {
    use std::io::IsTerminal;
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    colored::control::set_override(on);
}

/// Worker threads for running blocks: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Print text that should end with exactly one newline.
pub fn print_block(text: &str) {
    if text.ends_with('\n') {
        out!("{text}");
    } else {
        outln!("{text}");
    }
}

/// Parse `X[,Y[,Z]]` into three dimensions.
pub fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: give 1 to 3 numbers, e.g. 8 or 4,4"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .map_err(|_| format!("`{p}` is not a whole number"))?;
        if d[i] == 0 {
            return Err(format!("`{s}`: dimensions must be at least 1"));
        }
    }
    Ok(d)
}

/// `-D NAME[=VALUE]` → (NAME, VALUE).
pub fn parse_define(s: &str) -> Result<(String, Option<String>), String> {
    match s.split_once('=') {
        Some((n, v)) if !n.is_empty() => Ok((n.to_string(), Some(v.to_string()))),
        None if !s.is_empty() => Ok((s.to_string(), None)),
        _ => Err(format!("`{s}`: write NAME or NAME=VALUE")),
    }
}
