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
    /// Every kind, in the order of the enum.
    pub const ALL: [DiagKind; 9] = [
        DiagKind::OutOfBounds,
        DiagKind::SharedRace,
        DiagKind::GlobalRace,
        DiagKind::UninitializedRead,
        DiagKind::BarrierDivergence,
        DiagKind::StepLimit,
        DiagKind::Misaligned,
        DiagKind::WarpSync,
        DiagKind::Assert,
    ];

    /// The kind `as_str` spells `s`.
    pub fn from_name(s: &str) -> Option<DiagKind> {
        DiagKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

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
    /// What causes it and how to fix it, written by `teach` from `facts` and the learner's
    /// source (shown under the snippet; not in exec's JSON).
    #[serde(skip)]
    pub help: Option<String>,
    /// What the checker saw, as data (`teach` derives `help` from it).
    #[serde(skip)]
    pub facts: super::facts::Facts,
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

    /// Per counter, the larger of `self` and `o`; `at` follows to `o_at` (the thread that used
    /// the most) wherever `o` is larger.
    pub fn raise_to(&mut self, at: &mut [ThreadId; 4], o: &Counters, o_at: &[ThreadId; 4]) {
        for k in 0..4 {
            if o.get(k) > self.get(k) {
                *self.get_mut(k) = o.get(k);
                at[k] = o_at[k];
            }
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
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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
    /// The same figures per instruction, sorted by (function, pc, space): where a budget was
    /// overrun. Not on the wire (only the emulator measures).
    #[serde(skip)]
    pub sites: Vec<PerfSite>,
}

/// One memory instruction's warp-level accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerfSite {
    /// Index of the function in the module, and of the instruction in its body.
    pub func: u32,
    pub pc: u32,
    pub shared: bool,
    /// Warp-level accesses made by this instruction.
    pub accesses: u64,
    /// Sectors (global) or bank-conflict ways (shared), summed over those accesses.
    pub total: u64,
    /// The most sectors or ways of one access.
    pub max: u32,
}

impl PerfSite {
    /// Average sectors or ways per warp-level access.
    pub fn average(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.total as f64 / self.accesses as f64
        }
    }
}

impl PerfStats {
    /// Add another block's (or launch's) figures.
    pub fn merge(&mut self, o: &PerfStats) {
        self.global_warp_accesses += o.global_warp_accesses;
        self.global_sectors += o.global_sectors;
        self.shared_warp_accesses += o.shared_warp_accesses;
        self.shared_bank_ways += o.shared_bank_ways;
        self.max_bank_ways = self.max_bank_ways.max(o.max_bank_ways);
        for s in &o.sites {
            let key = |x: &PerfSite| (x.func, x.pc, x.shared);
            match self.sites.binary_search_by_key(&key(s), key) {
                Ok(i) => {
                    let m = &mut self.sites[i];
                    m.accesses += s.accesses;
                    m.total += s.total;
                    m.max = m.max.max(s.max);
                }
                Err(i) => self.sites.insert(i, *s),
            }
        }
    }

    /// The global instruction with the most sectors per access on average (a misaligned
    /// first or partial last warp does not decide it; profilers report this average too).
    pub fn worst_global(&self) -> Option<&PerfSite> {
        self.sites.iter().filter(|s| !s.shared).fold(
            None,
            |best: Option<&PerfSite>, s| match best {
                Some(b) if b.average() >= s.average() => Some(b),
                _ => Some(s),
            },
        )
    }

    /// The shared instruction with the worst bank conflict in any one access.
    pub fn worst_shared(&self) -> Option<&PerfSite> {
        self.sites
            .iter()
            .filter(|s| s.shared)
            .fold(None, |best: Option<&PerfSite>, s| match best {
                Some(b) if (b.max, b.average()) >= (s.max, s.average()) => Some(b),
                _ => Some(s),
            })
    }
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
