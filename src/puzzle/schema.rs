//! The puzzle file as written: serde structs that mirror the TOML, with spans kept for error
//! lines. `parse` checks them and turns them into `model` types. Unknown fields are rejected
//! everywhere, so a misspelt key is an error, not a silently ignored setting.
//! docs/puzzle-format.md documents these fields one by one; keep the two in step.

use crate::emu::result::Counters;
use crate::puzzle::{BlockLimits, Budget};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPuzzle {
    pub id: Spanned<u32>,
    pub slug: Spanned<String>,
    pub title: Spanned<String>,
    pub part: Spanned<String>,
    /// The one kernel of a single-launch puzzle (absent when `[[kernels]]` lists several).
    #[serde(default)]
    pub kernel: Option<Spanned<String>>,
    /// `"name"` or `"name: type"`: the kernel's parameters in order (single launch), or the
    /// spec's parameters, the test's buffers and scalars (several launches).
    pub params: Spanned<Vec<Spanned<String>>>,
    /// `[[kernels]]`: the kernels of a multi-launch puzzle, all in the learner's one `.cu`.
    #[serde(default)]
    pub kernels: Vec<Spanned<RawKernel>>,
    /// `[[launch]]`: the launches of a multi-launch puzzle, in order.
    #[serde(rename = "launch", default)]
    pub launches: Vec<Spanned<RawLaunch>>,
    /// `[scratch]`: buffers the launches share that are neither inputs nor compared outputs.
    #[serde(default)]
    pub scratch: BTreeMap<String, Spanned<RawScratch>>,
    #[serde(default)]
    pub defines: BTreeMap<String, Spanned<toml::Value>>,
    /// Folders for the kernel's own headers (`#include "util.h"`), relative to this file's folder.
    #[serde(default)]
    pub include_dirs: Option<Spanned<Vec<Spanned<String>>>>,
    pub description: Spanned<String>,
    pub spec: Spanned<String>,
    #[serde(default)]
    pub hints: Vec<Spanned<String>>,
    /// `[[mistake]]`: a hint for one common mistake, shown after a failed run that made it.
    #[serde(rename = "mistake", default)]
    pub mistakes: Vec<Spanned<RawMistake>>,
    #[serde(default)]
    pub budget: Option<Spanned<Budget>>,
    /// Maxima on a block's total (over its threads) of each counter.
    #[serde(default)]
    pub block_budget: Option<Spanned<BlockLimits>>,
    /// Minima every block's total must reach: the memory space a lesson is about. Whole
    /// numbers, or (single-launch puzzles) expressions over a test's scalars in quotes.
    #[serde(default)]
    pub require: Option<Spanned<RawRequire>>,
    /// Minima of the total of each warp with work: numbers or expressions over the scalars.
    #[serde(default)]
    pub warp_require: Option<Spanned<toml::Table>>,
    #[serde(default)]
    pub tolerance: Option<Spanned<RawTolerance>>,
    /// `[[test]]` tables. Optional here so that a file without any gets a helpful message.
    #[serde(rename = "test", default)]
    pub tests: Option<Spanned<Vec<Spanned<RawTest>>>>,
    #[serde(default)]
    pub bench: Option<Spanned<RawTest>>,
    /// `[unseen]`: the test `check` adds at a size drawn from the pack version (see `unseen.rs`).
    #[serde(default)]
    pub unseen: Option<Spanned<RawUnseen>>,
    /// `teaches = ["bounds", ...]`: what the puzzle's lesson is, for `gpuzzle lint`.
    #[serde(default)]
    pub teaches: Option<Spanned<Vec<Spanned<String>>>>,
    /// `points = 3`: what the puzzle is worth in `check --format classroom` (default 1).
    #[serde(default)]
    pub points: Option<Spanned<u32>>,
    /// `step_limit = 60_000_000`: thread-instructions a test launch may take before it is
    /// stopped as a loop that never ends (default 20 million), for puzzles with a large test.
    #[serde(default)]
    pub step_limit: Option<Spanned<u64>>,
    /// `cooperative = true`: every launch is cooperative (`this_grid().sync()` works).
    #[serde(default)]
    pub cooperative: Option<Spanned<bool>>,
    /// `arch = "sm_90"`: the target the puzzle's kernels compile for (default sm_80).
    #[serde(default)]
    pub arch: Option<Spanned<String>>,
    /// `forbid = ["f64", "local_reads"]`: counters every thread must keep at 0 (a budget of 0
    /// that messages call forbidden).
    #[serde(default)]
    pub forbid: Option<Spanned<Vec<Spanned<String>>>>,
    /// `[technique]`: what the puzzle teaches and the counters that show a kernel uses it.
    #[serde(default)]
    pub technique: Option<Spanned<RawTechnique>>,
}

/// `[technique]`: `name` as messages say it, `counters` that show it (each in `require`),
/// `budget_for` what the budget is built for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTechnique {
    pub name: Spanned<String>,
    pub counters: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub budget_for: Option<Spanned<String>>,
}

/// `[unseen]`: a test written with ranges and expressions instead of numbers. Scalars are a
/// number, `[lo, hi]` (drawn) or an expression string; `grid`, `block`, `shared_bytes`, `len`
/// and `shape` are numbers or expressions over the scalars and the numeric defines.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnseen {
    #[serde(default)]
    pub scalars: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    pub grid: Option<Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    pub block: Option<Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    pub shared_bytes: Option<Spanned<toml::Value>>,
    /// The unseen test's own defines, checked as the top-level `defines` (their values also
    /// serve its expressions), compiled as a test's own defines (`Puzzle::defines_for`).
    #[serde(default)]
    pub defines: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    pub buffers: BTreeMap<String, Spanned<RawUnseenBuffer>>,
    /// `__constant__`/`__device__` variables, as in `[[test]]` (sizes may be expressions).
    #[serde(default)]
    pub symbols: BTreeMap<String, Spanned<RawUnseenBuffer>>,
}

/// A buffer of `[unseen]`: as in `[[test]]`, with `len` and `shape` also expressions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnseenBuffer {
    #[serde(rename = "type", default)]
    pub ty: Option<Spanned<String>>,
    #[serde(default)]
    pub len: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub shape: Option<Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    pub init: Option<Spanned<String>>,
    #[serde(default)]
    pub fill: Option<Spanned<f64>>,
    #[serde(default)]
    pub values: Option<Spanned<Vec<f64>>>,
    #[serde(default)]
    pub seed: Option<Spanned<u64>>,
    #[serde(default)]
    pub output: bool,
    /// An output that starts as zeros instead of poison.
    #[serde(default)]
    pub zeroed: bool,
    #[serde(default)]
    pub fixed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTolerance {
    #[serde(default)]
    pub abs: f64,
    #[serde(default)]
    pub rel: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTest {
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    /// Single launch only (a multi-launch puzzle shapes each `[[launch]]`).
    #[serde(default)]
    pub grid: Option<Spanned<Vec<u32>>>,
    #[serde(default)]
    pub block: Option<Spanned<Vec<u32>>>,
    #[serde(default)]
    pub shared_bytes: u32,
    /// Any TOML value: its type is checked against the parameter's (`i32` unless declared),
    /// so an error says `expected i32`, at the scalar's own line.
    #[serde(default)]
    pub scalars: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    pub buffers: BTreeMap<String, Spanned<RawBuffer>>,
    /// `__constant__`/`__device__` variables set before the launch (as cudaMemcpyToSymbol
    /// would), written like buffers; single-launch puzzles only.
    #[serde(default)]
    pub symbols: BTreeMap<String, Spanned<RawBuffer>>,
    /// This test's values for some of the puzzle's `defines` (same value rules), e.g.
    /// `{ TPB = 64 }`: the kernel and the spec are compiled with them for this test.
    #[serde(default)]
    pub defines: BTreeMap<String, Spanned<toml::Value>>,
    /// `[bench]` only: floating-point operations of the launch, as an expression of its scalars.
    #[serde(default)]
    pub flops: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBuffer {
    #[serde(rename = "type", default)]
    pub ty: Option<Spanned<String>>,
    #[serde(default)]
    pub len: Option<Spanned<usize>>,
    #[serde(default)]
    pub shape: Option<Spanned<Vec<usize>>>,
    #[serde(default)]
    pub init: Option<Spanned<String>>,
    #[serde(default)]
    pub fill: Option<Spanned<f64>>,
    #[serde(default)]
    pub values: Option<Spanned<Vec<f64>>>,
    #[serde(default)]
    pub seed: Option<Spanned<u64>>,
    #[serde(default)]
    pub output: bool,
    /// An output that starts as zeros instead of poison.
    #[serde(default)]
    pub zeroed: bool,
    #[serde(default)]
    pub fixed: bool,
}

/// One `[[kernels]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawKernel {
    pub name: Spanned<String>,
    /// `"name"` or `"name: type"`, in the kernel's order.
    pub params: Spanned<Vec<Spanned<String>>>,
    /// This kernel's limits; the top-level `budget` when absent.
    #[serde(default)]
    pub budget: Option<Spanned<Budget>>,
    /// This kernel's `block_budget` and `require`; the top-level ones when absent.
    #[serde(default)]
    pub block_budget: Option<Spanned<BlockLimits>>,
    #[serde(default)]
    pub require: Option<Spanned<BlockLimits>>,
}

/// One `[[launch]]` table. Dimensions are numbers or expressions (strings) over the test's
/// scalars and the numeric defines.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLaunch {
    pub kernel: Spanned<String>,
    pub grid: Spanned<Vec<toml::Value>>,
    pub block: Spanned<Vec<toml::Value>>,
    #[serde(default)]
    pub shared_bytes: Option<Spanned<toml::Value>>,
    /// Parameter name → what it receives: a buffer, a scratch buffer, a scalar, or an
    /// expression. A parameter not listed receives the buffer or scalar of its own name.
    #[serde(default)]
    pub args: BTreeMap<String, Spanned<String>>,
}

/// One `[scratch]` buffer: zeros at the first launch, kept across launches, never compared.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScratch {
    #[serde(rename = "type", default)]
    pub ty: Option<Spanned<String>>,
    /// A number or an expression over the test's scalars and the numeric defines.
    pub len: Spanned<toml::Value>,
}

/// One `[[mistake]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMistake {
    /// A diagnostic kind (`shared-race`), `over-budget:COUNTER`, `over-budget` or `wrong-output`.
    pub kind: Spanned<String>,
    /// Text the diagnostic's source line must contain (whitespace ignored).
    #[serde(default)]
    pub line: Option<Spanned<String>>,
    /// Which elements are wrong (`"last"`), for a `wrong-output` hint about that shape only.
    #[serde(default)]
    pub wrong: Option<Spanned<String>>,
    pub hint: Spanned<String>,
}

/// `require` as written: each key a counter, each value a whole number (`fixed`) or an
/// expression in quotes (`scaled`, in file order), read key by key so that a misspelt counter
/// or a negative number is an error at its key, in the words `BlockLimits` gives.
#[derive(Debug, Default)]
pub(super) struct RawRequire {
    pub fixed: BlockLimits,
    pub scaled: Vec<(usize, String)>,
}

impl<'de> Deserialize<'de> for RawRequire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RawRequire;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of counters and their minima")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawRequire, A::Error> {
                use serde::de::Error;
                let mut out = RawRequire::default();
                while let Some(key) = map.next_key::<String>()? {
                    let Some(i) = Counters::index(&key) else {
                        return Err(A::Error::unknown_field(&key, &Counters::NAMES));
                    };
                    // The value's own type checks it, so an error points at the value.
                    match map.next_value::<RequireValue>()? {
                        RequireValue::Whole(v) => {
                            if let Some(slot) = out.fixed.slot(i) {
                                *slot = Some(v);
                            }
                        }
                        RequireValue::Expr(e) => out.scaled.push((i, e)),
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(Visit)
    }
}

/// One `require` value: a whole number, or an expression in quotes.
enum RequireValue {
    Whole(u64),
    Expr(String),
}

impl<'de> Deserialize<'de> for RequireValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = RequireValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("u64")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RequireValue, E> {
                Ok(RequireValue::Whole(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RequireValue, E> {
                u64::try_from(v)
                    .map(RequireValue::Whole)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RequireValue, E> {
                match v.trim() {
                    "" => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                    e => Ok(RequireValue::Expr(e.to_string())),
                }
            }
        }
        d.deserialize_any(Visit)
    }
}
