//! clap definitions and one small function per command, wiring the other modules together.

mod bench;
mod check;
mod classroom;
mod common;
mod completion;
mod doctor;
pub(crate) mod draw;
mod exec;
mod learn;
mod lint;
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
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, help_heading = GLOBAL)]
    pub color: ColorChoice,
    /// Print less: only the verdict and problems.
    #[arg(short, long, global = true, help_heading = GLOBAL, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more: which backend runs the kernels, and why there is no GPU when there is none.
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub verbose: bool,
    /// Without one, in a workspace: `watch` on the first puzzle not passed yet (where the
    /// learner left off; a single `run` when not in a terminal, or with -q); elsewhere, this
    /// help.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The `--help` section of the options every command takes, apart from its own.
pub const GLOBAL: &str = "Global options";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and NO_COLOR is not set.
    Auto,
    /// Always colour, e.g. through a pager.
    Always,
    /// Never colour.
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Readable text.
    Text,
    /// JSON for scripts.
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
    /// Create a fresh workspace from the built-in puzzle pack (with --ci github|classroom50|
    /// classroom, what grades a classroom repository too; --ci-only adds just that).
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
    /// Draw who read and wrote what in one test (SVG): cells, threads, lines; or --warps.
    Draw(draw::DrawArgs),
    /// Check a puzzle pack (for instructors): solutions pass, starters fail without warnings,
    /// lazy kernels fail, tests cover what each puzzle teaches.
    Lint(lint::LintArgs),
    /// Print a shell completion script (commands, options, puzzle numbers and names); see
    /// docs/usage.md for where to put it.
    Completions {
        /// The shell to complete in.
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
    // bench's figures depend on where it ran, so it always says when there is no GPU.
    common::set_say_no_gpu(cli.verbose || matches!(cli.command, Some(Command::Bench(_))));
    let Some(command) = &cli.command else {
        return finish(resume(&cli));
    };
    let result = match command {
        Command::Run(a) => run::run(a, cli.quiet, cli.verbose),
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
        Command::Draw(a) => draw::run(a, cli.quiet),
        Command::Lint(a) => lint::run(a),
        Command::GpuWorker => Ok(crate::gpu::worker::serve()),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            // Into memory first: `generate` panics when its writer fails.
            let mut script = Vec::new();
            let mut cmd = completion::with_puzzle_names(Cli::command());
            clap_complete::generate(*shell, &mut cmd, "gpuzzle", &mut script);
            if *shell == clap_complete::Shell::Fish {
                script.extend(completion::fish_puzzle_lines(&cmd).into_bytes());
            }
            output::with_stdout(|w| w.write_all(&script));
            Ok(0)
        }
    };
    if cli.verbose {
        // Said once, after the command: how kernels reached the GPU (CUBIN, or PTX and why).
        if let Some(how) = crate::gpu::backend::loaded_as() {
            let line = format!("kernels loaded on the GPU as {how}");
            errln!("{}", colored::Colorize::dimmed(line.as_str()));
        }
    }
    finish(result)
}

/// A bare `gpuzzle`: in a workspace, pick up where the learner left off, on the first puzzle
/// not passed yet: `watch` in a terminal (rustlings-style), a single `run` otherwise (a
/// script or pipe would wait on `watch` for ever) or with `-q` (the verdict line only);
/// elsewhere, the help and how to make a workspace.
fn resume(cli: &Cli) -> anyhow::Result<i32> {
    use std::io::IsTerminal;
    let Ok(Cli {
        command: Some(Command::Run(args)),
        ..
    }) = Cli::try_parse_from(["gpuzzle", "run"])
    else {
        anyhow::bail!("internal error: `gpuzzle run` did not parse (please report this)");
    };
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if terminal && !cli.quiet && common::is_workspace(&args.ws) {
        let Ok(Cli {
            command: Some(Command::Watch(w)),
            ..
        }) = Cli::try_parse_from(["gpuzzle", "watch"])
        else {
            anyhow::bail!("internal error: `gpuzzle watch` did not parse (please report this)");
        };
        return watch::run(&w, cli.quiet);
    }
    if !common::is_workspace(&args.ws) {
        use clap::CommandFactory;
        outln!("{}", Cli::command().render_help());
        outln!("No puzzles here or above: `gpuzzle init puzzles` makes a workspace; then `cd puzzles` and `gpuzzle` again.");
        return Ok(0);
    }
    if !cli.quiet {
        errln!(
            "gpuzzle run: the first puzzle not passed yet (`gpuzzle --help` lists every command)"
        );
    }
    run::run(&args, cli.quiet, cli.verbose)
}

/// The exit code of a command's result, its error printed first.
fn finish(result: anyhow::Result<i32>) -> i32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every option, argument and value a learner can see in `--help` says what it does.
    #[test]
    fn every_option_in_help_has_a_description() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                let name = format!("{path} {}", a.get_id());
                if a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(name.clone());
                }
                if a.get_value_parser().possible_values().is_some()
                    && !a.is_hide_possible_values_set()
                {
                    for v in a.get_possible_values().iter().filter(|v| !v.is_hide_set()) {
                        // Shell names need no words; every other value does.
                        if v.get_help().is_none() && a.get_id() != "shell" {
                            missing.push(format!("{name}={}", v.get_name()));
                        }
                    }
                }
            }
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {} (about)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut cmd = Cli::command();
        cmd.build();
        let mut missing = Vec::new();
        walk(&cmd, "gpuzzle", &mut missing);
        assert!(missing.is_empty(), "no description: {missing:?}");
    }

    /// The options every command takes sit together under one heading, after the command's own.
    #[test]
    fn global_options_are_grouped() {
        let mut cmd = Cli::command();
        cmd.build();
        let run = cmd.find_subcommand("run").unwrap();
        for id in ["color", "quiet", "verbose", "puzzles"] {
            let a = run.get_arguments().find(|a| a.get_id() == id).unwrap();
            assert_eq!(a.get_help_heading(), Some(GLOBAL), "{id}");
        }
        let own = run
            .get_arguments()
            .find(|a| a.get_id() == "solution")
            .unwrap();
        assert_eq!(own.get_help_heading(), None);
        let help = run.clone().render_long_help().to_string();
        let options = help.find("Options:").unwrap();
        let global = help.find("Global options:").unwrap();
        assert!(
            options < global && help[global..].contains("--verbose"),
            "{help}"
        );
        assert!(!help[..global].contains("--color"), "{help}");
    }
}
