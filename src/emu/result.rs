//! What one kernel launch produces: final buffers, device printf output, diagnostics and counters.
//! Both executors (the emulator and the GPU backend) fill this same shape, so the judge and the
//! reports never care which one ran.

use super::technique::{Family, Technique};
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
    AsyncCopy,
}

impl DiagKind {
    /// Every kind, in the order of the enum.
    pub const ALL: [DiagKind; 10] = [
        DiagKind::OutOfBounds,
        DiagKind::SharedRace,
        DiagKind::GlobalRace,
        DiagKind::UninitializedRead,
        DiagKind::BarrierDivergence,
        DiagKind::StepLimit,
        DiagKind::Misaligned,
        DiagKind::WarpSync,
        DiagKind::Assert,
        DiagKind::AsyncCopy,
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
            DiagKind::AsyncCopy => "async-copy",
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

/// Memory operations of one thread (or summed over threads), and how it computed. A read or a
/// write counts one per 4-byte word it moves (`technique::words`: a `float4` is 4, a `double`
/// 2, a `char` 1); atomics count as one read, one write and one atomic per element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub global_reads: u64,
    pub global_writes: u64,
    pub shared_reads: u64,
    pub shared_writes: u64,
    /// Atomic operations on global memory (`atomicAdd(&out[0], x)`), each also a read and a
    /// write above.
    pub global_atomics: u64,
    /// Atomic operations on shared memory, each also a shared read and a shared write.
    pub shared_atomics: u64,
    /// Instruction families and local memory (`technique.rs`): counters 6 and up.
    #[serde(flatten)]
    pub how: Technique,
}

impl Counters {
    /// How many memory counters there are (the families follow them).
    pub const MEMORY: usize = 6;

    /// How many counters there are.
    pub const N: usize = Counters::MEMORY + Family::N;

    /// The memory counters' names, then each family's (`Family::name`), in `Family::ALL` order.
    pub const NAMES: [&'static str; Counters::N] = Counters::names(
        [
            "global_reads",
            "global_writes",
            "shared_reads",
            "shared_writes",
            "global_atomics",
            "shared_atomics",
        ],
        false,
    );

    /// `memory`, then each family's name (or, with `labels`, its label): the names and the
    /// labels of the counters, in order, from one list of families.
    pub const fn names(
        memory: [&'static str; Counters::MEMORY],
        labels: bool,
    ) -> [&'static str; Counters::N] {
        let mut out = [""; Counters::N];
        let mut i = 0;
        while i < Counters::N {
            out[i] = if i < Counters::MEMORY {
                memory[i]
            } else if labels {
                Family::ALL[i - Counters::MEMORY].label()
            } else {
                Family::ALL[i - Counters::MEMORY].name()
            };
            i += 1;
        }
        out
    }

    /// The family counter `i` counts (`None` for the memory counters).
    pub fn family(i: usize) -> Option<Family> {
        i.checked_sub(Counters::MEMORY)
            .and_then(|k| Family::ALL.get(k).copied())
    }

    /// The index of the counter `name` spells.
    pub fn index(name: &str) -> Option<usize> {
        Self::NAMES.iter().position(|&n| n == name)
    }

    pub fn get(&self, i: usize) -> u64 {
        match i {
            0 => self.global_reads,
            1 => self.global_writes,
            2 => self.shared_reads,
            3 => self.shared_writes,
            4 => self.global_atomics,
            5 => self.shared_atomics,
            _ => self.how.0.get(i - Counters::MEMORY).copied().unwrap_or(0),
        }
    }

    pub fn get_mut(&mut self, i: usize) -> &mut u64 {
        match i {
            0 => &mut self.global_reads,
            1 => &mut self.global_writes,
            2 => &mut self.shared_reads,
            3 => &mut self.shared_writes,
            4 => &mut self.global_atomics,
            5 => &mut self.shared_atomics,
            _ => &mut self.how.0[(i - Counters::MEMORY).min(Family::N - 1)],
        }
    }

    /// The memory counters alone (the families at 0): what the GPU's instrumenter counts.
    pub fn memory(&self) -> Counters {
        Counters {
            how: Technique::default(),
            ..*self
        }
    }

    /// Count `n` of family `f`.
    #[inline(always)]
    pub fn count(&mut self, f: Family, n: u64) {
        self.how.count(f, n);
    }

    /// Per counter, the larger of `self` and `o`; `at` follows to `o_at` (the thread that used
    /// the most) wherever `o` is larger.
    pub fn raise_to<T: Copy>(
        &mut self,
        at: &mut [T; Counters::N],
        o: &Counters,
        o_at: &[T; Counters::N],
    ) {
        for k in 0..Self::N {
            if o.get(k) > self.get(k) {
                *self.get_mut(k) = o.get(k);
                at[k] = o_at[k];
            }
        }
    }

    /// Per counter, the smaller of `self` and `o`; `at` follows to `o_at` wherever `o` is
    /// smaller.
    pub fn lower_to<T: Copy>(
        &mut self,
        at: &mut [T; Counters::N],
        o: &Counters,
        o_at: &[T; Counters::N],
    ) {
        for k in 0..Self::N {
            if o.get(k) < self.get(k) {
                *self.get_mut(k) = o.get(k);
                at[k] = o_at[k];
            }
        }
    }

    pub fn add(&mut self, o: &Counters) {
        for i in 0..Self::N {
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

/// Per counter, the largest and the smallest total of one block over a launch's blocks, and
/// which block (the first in block order of equals): what `block_budget` and `require` judge.
/// A block's total is the sum over its threads, which the launch adds up anyway (`total`), so
/// keeping these costs a comparison per block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockTotals {
    pub most: Counters,
    pub most_at: [[u32; 3]; Counters::N],
    pub least: Counters,
    pub least_at: [[u32; 3]; Counters::N],
}

impl BlockTotals {
    /// One block's totals.
    pub fn of_block(block: [u32; 3], total: &Counters) -> BlockTotals {
        BlockTotals {
            most: *total,
            most_at: [block; Counters::N],
            least: *total,
            least_at: [block; Counters::N],
        }
    }

    /// Fold in another block's (or launch's) extremes; `self` must already hold one block.
    pub fn merge(&mut self, o: &BlockTotals) {
        self.most.raise_to(&mut self.most_at, &o.most, &o.most_at);
        self.least
            .lower_to(&mut self.least_at, &o.least, &o.least_at);
    }
}

/// A warp of a launch: its block, and its index in the block (threads `32 * warp` to
/// `32 * warp + 31` in the block's linear order, x fastest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpId {
    pub block: [u32; 3],
    pub warp: u32,
}

/// Per counter, the smallest total of one warp (the sum over its lanes) among the warps with
/// work (a lane read, wrote or made an atomic on global memory), and which warp (the first
/// of equals): what `warp_require` judges ("every warp with a tile runs its `mma`"). A warp
/// that touches no global memory has no input to reduce and no output to write (a warp past
/// the end of the data, a warp with no tile), so it is not held to the minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpLeast {
    pub least: Counters,
    pub at: [WarpId; Counters::N],
    /// The warp indices (bit `w`: warp `w` of its block; warps past 32 share bit 31) that had
    /// work in some block: what `judge::feeds` checks warp by warp. All bits where unknown.
    pub with_work: u32,
}

impl WarpLeast {
    /// The least of one block's warps with work, from its threads' counters in linear order;
    /// `None` when no warp of it has any.
    pub fn of_block(block: [u32; 3], per_thread: &[Counters]) -> Option<WarpLeast> {
        let mut found: Option<WarpLeast> = None;
        for (w, lanes) in per_thread.chunks(32).enumerate() {
            let mut sum = Counters::default();
            for c in lanes {
                sum.add(c);
            }
            if sum.global_reads + sum.global_writes + sum.global_atomics == 0 {
                continue;
            }
            let one = WarpLeast {
                least: sum,
                at: [WarpId {
                    block,
                    warp: w as u32,
                }; Counters::N],
                with_work: 1 << w.min(31),
            };
            match &mut found {
                Some(f) => f.merge(&one),
                None => found = Some(one),
            }
        }
        found
    }

    /// Fold in another block's (or launch's) least warps.
    pub fn merge(&mut self, o: &WarpLeast) {
        self.least.lower_to(&mut self.at, &o.least, &o.at);
        self.with_work |= o.with_work;
    }

    /// `kept` with `o` folded in, where either may have no warp with work.
    pub fn fold(kept: &mut Option<WarpLeast>, o: &Option<WarpLeast>) {
        match (kept.as_mut(), o) {
            (Some(k), Some(o)) => k.merge(o),
            (None, Some(o)) => *kept = Some(*o),
            _ => {}
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CounterSummary {
    /// Per counter, the maximum over all threads of the grid.
    pub max_per_thread: Counters,
    /// Per counter, the sum over all threads.
    pub total: Counters,
    /// Per counter, the first thread (in block then thread order) that reached the maximum.
    #[serde(skip)]
    pub argmax: [ThreadId; Counters::N],
    /// Per counter, the largest and smallest block totals (`None` for a launch of no block).
    #[serde(skip)]
    pub blocks: Option<BlockTotals>,
    /// Per counter, the least total of a warp with work (`None` when no warp had any, or
    /// where the executor does not keep them).
    #[serde(skip)]
    pub warps: Option<WarpLeast>,
}

impl CounterSummary {
    /// The memory counters alone, families at 0 (and their threads and blocks at the origin):
    /// what the GPU's instrumenter counts, to compare an executor with another.
    pub fn memory(&self) -> CounterSummary {
        let mut argmax = self.argmax;
        for a in &mut argmax[Counters::MEMORY..] {
            *a = ThreadId::default();
        }
        CounterSummary {
            max_per_thread: self.max_per_thread.memory(),
            total: self.total.memory(),
            argmax,
            blocks: self.blocks.map(|b| {
                let mut m = BlockTotals {
                    most: b.most.memory(),
                    least: b.least.memory(),
                    ..b
                };
                for at in [&mut m.most_at, &mut m.least_at] {
                    for a in &mut at[Counters::MEMORY..] {
                        *a = [0; 3];
                    }
                }
                m
            }),
            warps: self.warps.map(|w| {
                let mut m = WarpLeast {
                    least: w.least.memory(),
                    ..w
                };
                for a in &mut m.at[Counters::MEMORY..] {
                    *a = WarpId::default();
                }
                m
            }),
        }
    }

    /// Fold another launch's block extremes into `self.blocks`.
    pub fn merge_blocks(&mut self, o: &Option<BlockTotals>) {
        match (&mut self.blocks, o) {
            (Some(b), Some(o)) => b.merge(o),
            (None, Some(o)) => self.blocks = Some(*o),
            _ => {}
        }
    }

    /// Fold another block's (or launch's) least warps into `self.warps`.
    pub fn merge_warps(&mut self, o: &Option<WarpLeast>) {
        WarpLeast::fold(&mut self.warps, o);
    }
}

/// Memory-efficiency figures per warp-level access, for performance puzzles.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PerfStats {
    /// Warp-level global accesses (one per source line a warp's lanes reach together, see
    /// `emu::perf`).
    pub global_warp_accesses: u64,
    /// 32-byte sectors those accesses touched (32 per access when uncoalesced 4-byte reads).
    pub global_sectors: u64,
    /// Warp-level shared accesses.
    pub shared_warp_accesses: u64,
    /// Sum over shared accesses of the bank-conflict degree (1 = conflict-free).
    pub shared_bank_ways: u64,
    /// Worst bank-conflict degree seen.
    pub max_bank_ways: u32,
    /// The same figures per source line, sorted by `PerfSite::key`: where a budget was
    /// overrun. Not on the wire (only the emulator measures).
    #[serde(skip)]
    pub sites: Vec<PerfSite>,
}

/// One source line's warp-level accesses of one space and side (loads, or stores and atomics;
/// see `emu::perf`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerfSite {
    /// Index of the function in the module, and of the line's first instruction in its body.
    pub func: u32,
    pub pc: u32,
    pub shared: bool,
    /// Stores and atomics (the line's loads are another site).
    pub write: bool,
    /// Warp-level accesses made by this instruction.
    pub accesses: u64,
    /// Sectors (global) or bank-conflict ways (shared), summed over those accesses.
    pub total: u64,
    /// The most sectors or ways of one access.
    pub max: u32,
}

impl PerfSite {
    /// What sites are sorted and merged by.
    pub fn key(&self) -> (u32, u32, bool, bool) {
        (self.func, self.pc, self.shared, self.write)
    }

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
            match self.sites.binary_search_by_key(&s.key(), PerfSite::key) {
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

    /// The global line with the most sectors per access on average (a misaligned
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

    /// The shared line with the worst bank conflict in any one access.
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
    /// The instruction families (`technique.rs`) were not counted: a run on the GPU, whose
    /// instrumenter counts memory only. Their limits cannot be judged from this run.
    pub families_uncounted: bool,
}

impl RunResult {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atomics(n: u64) -> Counters {
        Counters {
            global_atomics: n,
            ..Counters::default()
        }
    }

    #[test]
    fn warp_least_skips_warps_without_global_work_and_keeps_the_first_least() {
        let shuffles = Counters::index("shuffles").expect("a counter");
        // 80 threads: warps of 32, 32 and 16. Warp 0 reads and folds (5 shuffles a lane);
        // warp 1 reads and folds in 8 lanes only; warp 2 touches no global memory.
        let lane = |read: u64, shfl: u64| {
            let mut c = Counters {
                global_reads: read,
                ..Counters::default()
            };
            *c.get_mut(shuffles) = shfl;
            c
        };
        let mut threads: Vec<Counters> = (0..32).map(|_| lane(1, 5)).collect();
        threads.extend((0..32).map(|l| lane(1, if l < 8 { 5 } else { 0 })));
        threads.extend((0..16).map(|_| lane(0, 0)));
        let w = WarpLeast::of_block([2, 0, 0], &threads).expect("two warps with work");
        assert_eq!(w.least.get(shuffles), 40);
        assert_eq!(
            w.at[shuffles],
            WarpId {
                block: [2, 0, 0],
                warp: 1
            }
        );
        // A block with no warp touching global memory has none.
        assert_eq!(WarpLeast::of_block([0; 3], &threads[64..]), None);
        // Folded over blocks: the smaller wins, the first of equals stays.
        let mut s = CounterSummary::default();
        let all = |n: u64| -> Vec<Counters> { (0..32).map(|_| lane(1, n)).collect() };
        for (b, n) in [(0, 5), (1, 1), (2, 1)] {
            s.merge_warps(&WarpLeast::of_block([b, 0, 0], &all(n)));
        }
        s.merge_warps(&None);
        let w = s.warps.expect("warps folded");
        assert_eq!(w.least.get(shuffles), 32);
        assert_eq!(w.at[shuffles].block, [1, 0, 0]);
        // The memory view zeroes the families' warps as it does their blocks.
        let m = s.memory().warps.expect("kept");
        assert_eq!(
            (m.least.get(shuffles), m.at[shuffles]),
            (0, WarpId::default())
        );
        assert_eq!(m.least.global_reads, 32);
    }

    #[test]
    fn block_totals_keep_the_first_block_of_the_most_and_of_the_least() {
        let mut s = CounterSummary::default();
        assert_eq!(s.blocks, None);
        for (b, n) in [(0, 3), (1, 7), (2, 1), (3, 7), (4, 1)] {
            s.merge_blocks(&Some(BlockTotals::of_block([b, 0, 0], &atomics(n))));
        }
        let b = s.blocks.expect("blocks folded");
        let k = Counters::index("global_atomics").expect("a counter");
        assert_eq!((b.most.get(k), b.most_at[k]), (7, [1, 0, 0]));
        assert_eq!((b.least.get(k), b.least_at[k]), (1, [2, 0, 0]));
        // A launch of no block changes nothing.
        s.merge_blocks(&None);
        assert_eq!(s.blocks, Some(b));
        assert_eq!(Counters::NAMES.len(), Counters::N);
        assert_eq!(Counters::index("nope"), None);
        // The families follow the memory counters, in their own order and names.
        for f in Family::ALL {
            let i = Counters::index(f.name()).expect("a family is a counter");
            assert_eq!(Counters::family(i), Some(f));
            let mut c = Counters::default();
            c.count(f, 3);
            assert_eq!(c.get(i), 3);
            *c.get_mut(i) += 1;
            assert_eq!(c.how.get(f), 4);
        }
        assert_eq!(Counters::family(0), None);
    }
}
