//! gpuzzle's own mutation fuzzer, the long campaign: learner-like mutants of every solution
//! and random `exec` argument sets, each run by the real binary with the emulator's lockstep
//! on and off, classified, and flagged when it shows a gpuzzle bug (the classes are listed in
//! `tests/fuzz_support/mod.rs`, which holds the fuzzer; `cargo test` runs a short campaign of
//! it in `tests/fuzz_campaign.rs`). Run with:
//!     cargo build --release && cargo run --release --example fuzz -- --seed 1 --mutants 2000
//! Options: `--seed N`, `--mutants M` (default 1000), `--exec E` (random exec argument sets,
//! default M/4), `--jobs J` (default: the cores), `--time-limit S` (GPUZZLE_TIME_LIMIT for
//! every run), `--no-huge` (no million-block grids or size-limit buffers), `--only N` (mutant
//! N alone, to reproduce it), `--show CLASS` (print each run of a class with its first line
//! of stderr), `--bin PATH` (another gpuzzle binary), `--minutes T` (start no item after T
//! minutes; the figures count the items done), `--work DIR` (scratch space, default a
//! temporary directory; the flagged mutants' sources are left in DIR/flagged/). Exit 1 when
//! anything is flagged.
//! On a busy machine gpuzzle's wall-clock deadline (3 s) can end a slow test before its step
//! limit, in one schedule and not the other; `--time-limit 20` leaves the step limit to decide.
//! A timeout's flag gives its CPU time beside its wall time, to tell load from a runaway.
#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{run_campaign, Config};
use std::path::PathBuf;

fn usage(msg: &str) -> ! {
    eprintln!("fuzz: {msg}\nusage: fuzz [--seed N] [--mutants M] [--exec E] [--jobs J] [--time-limit S] [--no-huge] [--only N] [--show CLASS] [--bin PATH] [--minutes T] [--work DIR]");
    std::process::exit(2);
}

fn number<T: std::str::FromStr>(args: &mut impl Iterator<Item = String>, flag: &str) -> T {
    args.next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| usage(&format!("{flag} needs a number")))
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The gpuzzle binary of the same profile as this example (target/PROFILE/gpuzzle).
    let bin = std::env::current_exe()
        .ok()
        .and_then(|e| {
            e.parent()
                .and_then(|d| d.parent())
                .map(|d| d.join("gpuzzle"))
        })
        .unwrap_or_default();
    let mut cfg = Config {
        bin,
        pack: root,
        work: std::env::temp_dir().join(format!("gpuzzle-fuzz-{}", std::process::id())),
        seed: 1,
        mutants: 1000,
        exec_runs: usize::MAX,
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        time_limit: None,
        huge: true,
        only: None,
        verbose: true,
        show: None,
        budget: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => cfg.seed = number(&mut args, &a),
            "--mutants" => cfg.mutants = number(&mut args, &a),
            "--exec" => cfg.exec_runs = number(&mut args, &a),
            "--jobs" => cfg.jobs = number(&mut args, &a),
            "--time-limit" => cfg.time_limit = Some(number(&mut args, &a)),
            "--only" => cfg.only = Some(number(&mut args, &a)),
            "--no-huge" => cfg.huge = false,
            "--minutes" => {
                cfg.budget = Some(std::time::Duration::from_secs_f64(
                    60.0 * number::<f64>(&mut args, &a),
                ))
            }
            "--bin" => {
                cfg.bin = PathBuf::from(args.next().unwrap_or_else(|| usage("--bin needs a path")))
            }
            "--show" => {
                cfg.show = Some(args.next().unwrap_or_else(|| usage("--show needs a class")))
            }
            "--work" => {
                cfg.work = PathBuf::from(
                    args.next()
                        .unwrap_or_else(|| usage("--work needs a directory")),
                )
            }
            _ => usage(&format!("unknown argument `{a}`")),
        }
    }
    if !cfg.bin.is_file() {
        usage("build the binary first (cargo build --release), or name one with --bin PATH");
    }
    if cfg.exec_runs == usize::MAX {
        cfg.exec_runs = cfg.mutants / 4;
    }
    if let Ok(abs) = std::path::absolute(&cfg.work) {
        cfg.work = abs;
    }
    eprintln!(
        "fuzz: seed {}, {} mutants, {} exec argument sets, {} jobs, binary {}",
        cfg.seed,
        cfg.mutants,
        cfg.exec_runs,
        cfg.jobs,
        cfg.bin.display()
    );
    let report = run_campaign(&cfg).unwrap_or_else(|e| usage(&e));
    print!("{}", report.summary());
    if !report.flags.is_empty() {
        let dir = cfg.work.join("flagged");
        let _ = std::fs::create_dir_all(&dir);
        let mut list = String::new();
        for (i, f) in report.flags.iter().enumerate() {
            list.push_str(&format!(
                "{i:04} [{}] {}\n     {}\n",
                f.class, f.item, f.detail
            ));
            if let Some(src) = &f.source {
                let _ = std::fs::write(dir.join(format!("{i:04}-{}.cu", f.class)), src);
            }
        }
        let _ = std::fs::write(dir.join("flagged.txt"), list);
        println!("every flagged run: {}", dir.join("flagged.txt").display());
        std::process::exit(1);
    }
}
