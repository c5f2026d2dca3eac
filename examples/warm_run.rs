//! How long `gpuzzle run 1` takes, as a learner sees it: the first run in a fresh workspace with
//! an empty cache (NVRTC searched for, loaded, the kernel and the spec compiled), and then warm
//! runs (the PTX cached: no search, no NVRTC loaded). Prints the figures; the warm target is
//! under 5 ms.
//!
//! Times the real binary, process start and exit included:
//!
//! ```text
//! cargo build --release && cargo run --release --example warm_run [-- RUNS]
//! ```
//!
//! The backend is left as a learner leaves it (`auto`, or `GPUZZLE_BACKEND` when set).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WARM_TARGET: Duration = Duration::from_millis(5);
/// How old the puzzle files must be before gpuzzle indexes them (`puzzle::index::SETTLE`), with
/// a margin.
const SETTLE: Duration = Duration::from_millis(2100);

fn main() {
    if let Err(message) = run() {
        eprintln!("warm_run: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let runs: usize = match std::env::args().nth(1) {
        Some(text) => text
            .parse()
            .map_err(|_| format!("`{text}`: give the number of warm runs, e.g. 50"))?,
        None => 50,
    };
    let binary = gpuzzle_binary()?;
    let scratch = std::env::temp_dir().join(format!("gpuzzle-warm-run-{}", std::process::id()));
    let result = measure(&binary, &scratch, runs.max(1));
    let _ = std::fs::remove_dir_all(&scratch);
    let figures = result?;

    println!("gpuzzle run 1 ({})", binary.display());
    println!(
        "  first run, empty cache (find NVRTC, load it, compile):   {:>7.1} ms",
        ms(figures.first)
    );
    println!(
        "  first run, PTX cached, NVRTC's place not remembered:     {:>7.1} ms",
        ms(figures.unremembered)
    );
    let (min, median, max) = summary(&figures.warm);
    println!(
        "  warm run ({} runs):  min {:.2} ms  median {:.2} ms  max {:.2} ms  (target < {} ms: {})",
        figures.warm.len(),
        ms(min),
        ms(median),
        ms(max),
        WARM_TARGET.as_millis(),
        if median < WARM_TARGET {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(())
}

struct Figures {
    first: Duration,
    unremembered: Duration,
    warm: Vec<Duration>,
}

fn measure(binary: &Path, scratch: &Path, runs: usize) -> Result<Figures, String> {
    let ws = scratch.join("ws");
    let cache = scratch.join("cache");
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let gpuzzle = |args: &[&str]| -> Result<Duration, String> {
        let start = Instant::now();
        let status = Command::new(binary)
            .args(args)
            .current_dir(&ws)
            .env("GPUZZLE_CACHE_DIR", &cache)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
        let took = start.elapsed();
        // 0 passed, 1 failed (the starter fails); anything else is a set-up problem.
        match status.code() {
            Some(0 | 1) => Ok(took),
            _ => Err(format!(
                "`gpuzzle {}` ended with {status}; run it by hand in {} to see why",
                args.join(" "),
                ws.display()
            )),
        }
    };
    let status = Command::new(binary)
        .arg("init")
        .arg(&ws)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !status.success() {
        return Err(format!("`gpuzzle init {}` failed", ws.display()));
    }
    let made = Instant::now();
    let first = gpuzzle(&["run", "1"])?;
    std::fs::remove_file(cache.join("nvrtc-location.txt"))
        .map_err(|e| format!("the first run remembered no NVRTC location: {e}"))?;
    let unremembered = gpuzzle(&["run", "1"])?;
    // gpuzzle indexes the puzzle files (`.gpuzzle/index.json`, so that `run 1` parses only
    // puzzle 1's file) once they are 2 s old (`puzzle::index::SETTLE`): a learner's workspace
    // is older than that by the time of a second run.
    std::thread::sleep(SETTLE.saturating_sub(made.elapsed()));
    // One more to settle the files in the page cache and write the index, then the measured runs.
    gpuzzle(&["run", "1"])?;
    let warm = (0..runs)
        .map(|_| gpuzzle(&["run", "1"]))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Figures {
        first,
        unremembered,
        warm,
    })
}

/// The release binary beside this example (`target/release/examples/warm_run` →
/// `target/release/gpuzzle`).
fn gpuzzle_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("where am I: {e}"))?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} has no target directory", exe.display()))?;
    let binary = dir.join(format!("gpuzzle{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "{} is missing: build it first with `cargo build --release`",
            binary.display()
        ))
    }
}

/// (min, median, max).
fn summary(times: &[Duration]) -> (Duration, Duration, Duration) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    (sorted[0], median, sorted[sorted.len() - 1])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
