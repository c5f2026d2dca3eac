//! What one kernel launch produces: final buffers, device printf output, diagnostics and counters.
//! Both executors (the emulator and the GPU backend) fill this same shape, so the judge and the
//! reports never care which one ran.

use serde::Serialize;

/// The kinds of problem gpuzzle reports. Spelled exactly as `as_str` says: scripts match on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiagKind {
    OutOfBounds,
    SharedRace,
    GlobalRace,
    UninitializedRead,
    BarrierDivergence,
    StepLimit,
    Misaligned,
    WarpSync,
    Assert,
}

impl DiagKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiagKind::OutOfBounds => "out-of-bounds",
            DiagKind::SharedRace => "shared-race",
            DiagKind::GlobalRace => "global-race",
            DiagKind::UninitializedRead => "uninitialized-read",
            DiagKind::BarrierDivergence => "barrier-divergence",
            DiagKind::StepLimit => "step-limit",
            DiagKind::Misaligned => "misaligned",
            DiagKind::WarpSync => "warp-sync",
            DiagKind::Assert => "assert",
        }
    }
}

impl Serialize for DiagKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found while running a kernel, in a learner's words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub kind: DiagKind,
    pub severity: Severity,
    /// What happened: which thread, which element of which buffer, which line.
    pub message: String,
    /// What usually causes it and how to fix it (shown under the snippet; not in exec's JSON).
    #[serde(skip)]
    pub help: Option<String>,
    /// The learner's source file as NVRTC named it (from `.file`), if line info was available.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// A second source line involved (the other side of a race, the other barrier).
    #[serde(skip)]
    pub other_line: Option<u32>,
}

/// Memory operations of one thread (or summed over threads). Atomics count as a read and a write;
/// a vector access counts one per element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub global_reads: u64,
    pub global_writes: u64,
    pub shared_reads: u64,
    pub shared_writes: u64,
}

impl Counters {
    pub const NAMES: [&'static str; 4] = [
        "global_reads",
        "global_writes",
        "shared_reads",
        "shared_writes",
    ];

    pub fn get(&self, i: usize) -> u64 {
        [
            self.global_reads,
            self.global_writes,
            self.shared_reads,
            self.shared_writes,
        ][i]
    }

    pub fn get_mut(&mut self, i: usize) -> &mut u64 {
        match i {
            0 => &mut self.global_reads,
            1 => &mut self.global_writes,
            2 => &mut self.shared_reads,
            _ => &mut self.shared_writes,
        }
    }

    pub fn add(&mut self, o: &Counters) {
        for i in 0..4 {
            *self.get_mut(i) += o.get(i);
        }
    }
}

/// Which thread reached a per-thread maximum (for "thread 5 of block 0 read …").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ThreadId {
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CounterSummary {
    /// Per counter, the maximum over all threads of the grid.
    pub max_per_thread: Counters,
    /// Per counter, the sum over all threads.
    pub total: Counters,
    /// Per counter, the first thread (in block then thread order) that reached the maximum.
    #[serde(skip)]
    pub argmax: [ThreadId; 4],
}

/// Memory-efficiency figures per warp-level access, for performance puzzles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PerfStats {
    /// Warp-level global accesses (one per instruction executed by a warp's active lanes).
    pub global_warp_accesses: u64,
    /// 32-byte sectors those accesses touched (32 per access when uncoalesced 4-byte reads).
    pub global_sectors: u64,
    /// Warp-level shared accesses.
    pub shared_warp_accesses: u64,
    /// Sum over shared accesses of the bank-conflict degree (1 = conflict-free).
    pub shared_bank_ways: u64,
    /// Worst bank-conflict degree seen.
    pub max_bank_ways: u32,
}

/// The outcome of one launch.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// Final contents of every buffer argument, in parameter order.
    pub buffers: Vec<super::value::Buffer>,
    /// Device printf output, in a deterministic order (block, then thread, then call order).
    pub stdout: String,
    pub diagnostics: Vec<Diagnostic>,
    pub counters: CounterSummary,
    pub perf: PerfStats,
    /// Thread-instructions executed (for speed figures and the step limit).
    pub instructions: u64,
}

impl RunResult {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}
