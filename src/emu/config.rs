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
    /// Buffers (by name) that started as poison, what `cudaMalloc` leaves (a puzzle's outputs
    /// not `zeroed`): an element of one still holding the poison has not been written, and a
    /// read of it is an uninitialised read (`shadow::OutputShadow`; with `checkers` only).
    pub poisoned: Vec<String>,
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

    /// The deadline a command gives a launch of `step_limit` steps: a runaway backstop, not a
    /// rule. The step limit decides `step-limit` (an instruction count, the same on every
    /// machine); the clock only ends a launch whose steps are pathologically slow, so it is
    /// set at the time the step limit takes at a speed far below any this build reaches on a
    /// slow machine with its other cores busy (race-checked, perf-logged, memory-heavy loops
    /// included), and never under a minute. A kernel under its step limit does not meet it,
    /// and a user who raises the step limit gets the time to go with it.
    /// `GPUZZLE_TIME_LIMIT` (seconds) overrides it, e.g. for tests of the backstop itself.
    pub fn for_steps(step_limit: u64) -> Deadline {
        // Unoptimised builds run about ten times slower; the floor scales with them. The
        // emulator's own figures are 4 million (debug) and 40 million (release) instructions a
        // second at a modest speed; the floor is a hundredth of that.
        const SLOWEST_STEPS_PER_SECOND: u64 = if cfg!(debug_assertions) {
            40_000
        } else {
            400_000
        };
        const AT_LEAST: std::time::Duration = std::time::Duration::from_secs(60);
        let from_env = std::env::var("GPUZZLE_TIME_LIMIT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| std::time::Duration::from_secs_f64(s.min(1e9)));
        let scaled = std::time::Duration::from_secs(step_limit / SLOWEST_STEPS_PER_SECOND);
        Deadline::after(from_env.unwrap_or(scaled.max(AT_LEAST)))
    }

    pub fn passed(&self) -> bool {
        std::time::Instant::now() >= self.at
    }

    /// How long since the deadline was set (the limit, plus however far past it we are).
    pub fn elapsed(&self) -> std::time::Duration {
        let now = std::time::Instant::now();
        match self.at.checked_duration_since(now) {
            Some(left) => self.limit.saturating_sub(left),
            None => self.limit + now.saturating_duration_since(self.at),
        }
    }
}

/// `1.03 s` as "1 s", `0.52 s` as "0.5 s", `73.4 s` as "73 s": how long a launch ran, as a
/// person says it.
pub fn seconds_said(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 10.0 {
        format!("{s:.0}")
    } else {
        let t = format!("{s:.1}");
        t.strip_suffix(".0").map(str::to_string).unwrap_or(t)
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
            poisoned: Vec::new(),
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
