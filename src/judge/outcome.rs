//! The verdict on one puzzle: per test, outputs against the spec, counters against the budget,
//! diagnostics. Plain data: `report` formats it, `cli` picks the exit code from `passed`.

use crate::emu::result::{Counters, Diagnostic, ThreadId};
use serde::Serialize;
use std::collections::BTreeMap;

/// Per-thread maxima a puzzle allows; `None` means no limit for that counter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_reads: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_writes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_reads: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_writes: Option<u64>,
}

impl Budget {
    pub fn get(&self, i: usize) -> Option<u64> {
        [
            self.global_reads,
            self.global_writes,
            self.shared_reads,
            self.shared_writes,
        ][i]
    }
}

/// One output buffer compared with the spec.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutputCompare {
    pub expected: Vec<f64>,
    pub got: Vec<f64>,
    /// Indices where `got` is not within tolerance of `expected`.
    #[serde(skip)]
    pub mismatches: Vec<usize>,
    /// `[rows, cols]` when the puzzle declares the buffer 2D (for a 2D diff).
    #[serde(skip)]
    pub shape: Option<[usize; 2]>,
}

/// A counter that went over its budget, and the thread that used the most.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverBudget {
    /// One of `Counters::NAMES`.
    pub counter: &'static str,
    pub used: u64,
    pub budget: u64,
    pub thread: ThreadId,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestOutcome {
    pub name: String,
    /// True for the random-input variant of a fixed test.
    pub random: bool,
    pub passed: bool,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Output buffers by name (BTreeMap: stable order in JSON).
    pub outputs: BTreeMap<String, OutputCompare>,
    /// Maximum per thread over the grid.
    pub counters: Counters,
    #[serde(skip)]
    pub argmax: [ThreadId; 4],
    pub budget: Budget,
    #[serde(skip)]
    pub over_budget: Vec<OverBudget>,
    pub diagnostics: Vec<Diagnostic>,
    /// Device printf output of the learner's kernel.
    #[serde(skip)]
    pub stdout: String,
    /// A failure that stopped the test before outputs could be compared (e.g. an unsupported instruction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleOutcome {
    pub id: u32,
    pub slug: String,
    pub title: String,
    /// The kernel file graded, as the learner would type it (relative to the workspace).
    pub file: String,
    pub passed: bool,
    pub tests: Vec<TestOutcome>,
    /// NVRTC's message when the kernel did not compile (then `tests` is empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compile_error: Option<String>,
}
