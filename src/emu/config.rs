//! The plain types a launch is described and refused with: its shape (`LaunchConfig`), the
//! options (`EmuOptions`, `Deadline`) and why it could not run (`EmuError`). A leaf: every part
//! of the emulator may use them; `emu` re-exports them as its public names.

/// Grid and block shape of one launch, plus dynamic shared memory in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block is resident at once,
    /// so blocks may wait for each other (`this_grid().sync()`); see `emu/cooperative.rs`.
    pub cooperative: bool,
}

impl LaunchConfig {
    /// Threads in the whole grid.
    pub fn total_threads(&self) -> u64 {
        self.grid
            .iter()
            .chain(&self.block)
            .map(|&d| d as u64)
            .product()
    }
}

#[derive(Clone, Debug)]
pub struct EmuOptions {
    /// Thread-instructions allowed per launch before `step-limit` is reported.
    pub step_limit: u64,
    /// Race, uninitialised-read and barrier checkers (bounds checks are always on).
    pub checkers: bool,
    /// Worker threads for running blocks (1 = sequential).
    pub jobs: usize,
    /// Measure 32-byte sectors per warp access and shared bank conflicts (costs some speed).
    pub perf: bool,
    /// A wall-clock limit on top of the step limit, so a runaway kernel ends in bounded time
    /// however slow each step is (debug builds, memory-heavy loops). `None`: steps only, which
    /// keeps library results deterministic.
    pub deadline: Option<Deadline>,
}

/// When a launch must stop, and the limit it came from (for the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub at: std::time::Instant,
    pub limit: std::time::Duration,
}

impl Deadline {
    /// A deadline `limit` from now.
    pub fn after(limit: std::time::Duration) -> Deadline {
        Deadline {
            at: std::time::Instant::now() + limit,
            limit,
        }
    }

    /// The deadline a command gives a launch of `step_limit` steps: the time those steps take
    /// at a modest emulator speed for this build, and never under 3 s. At the default limits a
    /// runaway kernel thus ends within 5 s even where steps are slow (memory-heavy loops, perf
    /// logging), and a user who raises the step limit gets the time to go with it.
    /// `GPUZZLE_TIME_LIMIT` (seconds) overrides it, e.g. for tests of the limit itself.
    pub fn for_steps(step_limit: u64) -> Deadline {
        // Unoptimised builds run about ten times slower; their deadline scales with them so
        // that a kernel that fits the step limit is not cut short by the clock.
        const STEPS_PER_SECOND: u64 = if cfg!(debug_assertions) {
            4_000_000
        } else {
            40_000_000
        };
        const AT_LEAST: std::time::Duration = std::time::Duration::from_secs(3);
        let from_env = std::env::var("GPUZZLE_TIME_LIMIT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| std::time::Duration::from_secs_f64(s.min(1e9)));
        let scaled = std::time::Duration::from_secs(step_limit / STEPS_PER_SECOND);
        Deadline::after(from_env.unwrap_or(scaled.max(AT_LEAST)))
    }

    pub fn passed(&self) -> bool {
        std::time::Instant::now() >= self.at
    }
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            step_limit: 100_000_000,
            checkers: true,
            jobs: 1,
            perf: false,
            deadline: None,
        }
    }
}

/// Why a launch could not run at all (as opposed to a kernel bug, which is a diagnostic).
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    #[error("no kernel named `{name}` in the compiled module (kernels found: {found})")]
    NoSuchKernel { name: String, found: String },
    #[error("{0}")]
    Signature(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}")]
    Launch(String),
}
