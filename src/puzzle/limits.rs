//! What a puzzle allows and asks of a kernel, counter by counter: `budget` (per-thread maxima),
//! `block_budget` (maxima of a block's total) and `require` (minima of a block's total), over
//! the memory counters and the instruction families of `emu::technique`, plus the technique a
//! puzzle teaches (`technique`, whose counters `require` must name). Plain data from the TOML;
//! `judge` applies them, `report` and `teach` name them.

use crate::emu::result::Counters;
use serde::{Deserialize, Serialize};

/// Defines a struct with an `Option<u64>` limit per counter, in `Counters::NAMES` order (the
/// order `get` indexes), followed by the given fields.
macro_rules! counter_limits {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $extra:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        pub struct $name {
                #[serde(skip_serializing_if = "Option::is_none")]
                pub global_reads: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub global_writes: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub shared_reads: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub shared_writes: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub global_atomics: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub shared_atomics: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub local_reads: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub local_writes: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub shuffles: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub votes: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub matches: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub warp_reduces: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub barriers: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub grid_syncs: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub mma: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub wmma: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub ldmatrix: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub cp_async: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub cp_async_overlap: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub dp4a: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub f16x2: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub f64: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub global_load_instrs: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub global_store_instrs: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub shared_write_warps: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub activemask: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub f32: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub f16: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub ordering_barriers: Option<u64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                pub popc: Option<u64>,
            $($(#[$fm])* pub $extra: $ty,)*
        }

        impl $name {
            /// The limit on counter `i` (`Counters::NAMES` order).
            pub fn get(&self, i: usize) -> Option<u64> {
                match i {
                    0 => self.global_reads,
                    1 => self.global_writes,
                    2 => self.shared_reads,
                    3 => self.shared_writes,
                    4 => self.global_atomics,
                    5 => self.shared_atomics,
                    6 => self.local_reads,
                    7 => self.local_writes,
                    8 => self.shuffles,
                    9 => self.votes,
                    10 => self.matches,
                    11 => self.warp_reduces,
                    12 => self.barriers,
                    13 => self.grid_syncs,
                    14 => self.mma,
                    15 => self.wmma,
                    16 => self.ldmatrix,
                    17 => self.cp_async,
                    18 => self.cp_async_overlap,
                    19 => self.dp4a,
                    20 => self.f16x2,
                    21 => self.f64,
                    22 => self.global_load_instrs,
                    23 => self.global_store_instrs,
                    24 => self.shared_write_warps,
                    25 => self.activemask,
                    26 => self.f32,
                    27 => self.f16,
                    28 => self.ordering_barriers,
                    29 => self.popc,
                    _ => None,
                }
            }

            /// The limit on counter `i`, to set it.
            pub fn slot(&mut self, i: usize) -> Option<&mut Option<u64>> {
                match i {
                    0 => Some(&mut self.global_reads),
                    1 => Some(&mut self.global_writes),
                    2 => Some(&mut self.shared_reads),
                    3 => Some(&mut self.shared_writes),
                    4 => Some(&mut self.global_atomics),
                    5 => Some(&mut self.shared_atomics),
                    6 => Some(&mut self.local_reads),
                    7 => Some(&mut self.local_writes),
                    8 => Some(&mut self.shuffles),
                    9 => Some(&mut self.votes),
                    10 => Some(&mut self.matches),
                    11 => Some(&mut self.warp_reduces),
                    12 => Some(&mut self.barriers),
                    13 => Some(&mut self.grid_syncs),
                    14 => Some(&mut self.mma),
                    15 => Some(&mut self.wmma),
                    16 => Some(&mut self.ldmatrix),
                    17 => Some(&mut self.cp_async),
                    18 => Some(&mut self.cp_async_overlap),
                    19 => Some(&mut self.dp4a),
                    20 => Some(&mut self.f16x2),
                    21 => Some(&mut self.f64),
                    22 => Some(&mut self.global_load_instrs),
                    23 => Some(&mut self.global_store_instrs),
                    24 => Some(&mut self.shared_write_warps),
                    25 => Some(&mut self.activemask),
                    26 => Some(&mut self.f32),
                    27 => Some(&mut self.f16),
                    28 => Some(&mut self.ordering_barriers),
                    29 => Some(&mut self.popc),
                    _ => None,
                }
            }

            /// Whether any counter is limited.
            pub fn any(&self) -> bool {
                (0..Counters::N).any(|i| self.get(i).is_some())
            }
        }
    };
}

counter_limits! {
    /// Per-thread maxima a puzzle allows (`budget`); `None` means no limit for that counter.
    /// `forbid` sets a family's to 0 and marks it, so a message says "forbids".
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Budget {
        /// Most 32-byte sectors per warp-level global access, averaged over each source line's
        /// accesses; the budget holds for the worst line (4 is a coalesced row of floats). A
        /// warp-level access is what the warp's lanes do at one line, each its n-th time there,
        /// however many instructions the compiler made of it (`emu::perf`).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub sectors_per_access: Option<u64>,
        /// Most bank-conflict ways of any warp-level shared access (1 = conflict-free).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub bank_ways: Option<u64>,
        /// Counters (bit `i` for counter `i`) whose 0 comes from `forbid`, not `budget`. 32
        /// bits: with the 6 memory counters and 24 families, room for 2 more counters before
        /// this must widen (the assertion below fails the build then).
        #[serde(skip)]
        pub forbidden: u32,
    }
}

// `Budget::forbidden` has one bit per counter.
const _: () = assert!(
    Counters::N <= 32,
    "Budget::forbidden needs a bit per counter"
);

impl Budget {
    /// Whether a performance figure is budgeted (then the emulator must measure them).
    pub fn has_perf(&self) -> bool {
        self.sectors_per_access.is_some() || self.bank_ways.is_some()
    }

    /// The limit on `kind`.
    pub fn perf(&self, kind: PerfKind) -> Option<u64> {
        match kind {
            PerfKind::SectorsPerAccess => self.sectors_per_access,
            PerfKind::BankWays => self.bank_ways,
        }
    }

    /// Whether counter `i`'s limit of 0 comes from `forbid`.
    pub fn forbids(&self, i: usize) -> bool {
        i < 32 && self.forbidden & (1 << i) != 0
    }
}

counter_limits! {
    /// Limits on a block's total of each counter (the sum over its threads): `block_budget`
    /// (maxima, judged on the block with the most) and `require` (minima, judged on the block
    /// with the least). `None` means no limit for that counter.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct BlockLimits {}
}

/// Minima that may grow with a test's sizes: each a number or an expression over the test's
/// scalars and numeric defines ("K / 16 * 32" is one `mma` per 16-wide step of k, 32 lanes).
/// Two uses: `warp_require`, minima of the total of each warp with work (the sum over its
/// lanes, judged on the warp with the least; a warp none of whose lanes reads, writes or makes
/// an atomic on global memory has no share of the work and is not held to it), and the
/// expressions of a single-launch puzzle's `require` (a block's total, as its numbers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScaledMinima {
    /// (index into `Counters::NAMES`, minimum as written), in the file's order.
    pub minima: Vec<(usize, Minimum)>,
}

/// One minimum, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Minimum {
    Fixed(u64),
    /// Arithmetic over the test's scalars (`puzzle::expr`, whole numbers).
    Expr(String),
}

impl ScaledMinima {
    pub fn any(&self) -> bool {
        !self.minima.is_empty()
    }

    /// Whether counter `i` has a minimum above 0 (an expression counts: it grows with the
    /// problem).
    pub fn names(&self, i: usize) -> bool {
        (self.minima.iter()).any(|(k, m)| *k == i && *m != Minimum::Fixed(0))
    }

    /// The minima for a test whose scalars and numeric defines are `vars`; the error says
    /// which key of `table` (`warp_require`, `require`) failed and why.
    pub fn for_vars(
        &self,
        table: &str,
        vars: &std::collections::BTreeMap<String, f64>,
    ) -> Result<Vec<(usize, u64)>, String> {
        (self.minima.iter())
            .map(|(i, m)| match m {
                Minimum::Fixed(v) => Ok((*i, *v)),
                Minimum::Expr(e) => match super::expr::eval_int(e, vars) {
                    Ok(v) if v >= 0 => Ok((*i, v as u64)),
                    Ok(v) => Err(format!(
                        "`{table}.{}` = \"{e}\" is {v}, below 0",
                        Counters::NAMES[*i]
                    )),
                    Err(why) => Err(format!(
                        "`{table}.{}` = \"{e}\": {why}",
                        Counters::NAMES[*i]
                    )),
                },
            })
            .collect()
    }
}

/// A memory-efficiency figure a puzzle can budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PerfKind {
    /// 32-byte sectors per warp-level global access (the worst line's average).
    SectorsPerAccess,
    /// Bank-conflict ways of a warp-level shared access (the worst line's maximum).
    BankWays,
}

impl PerfKind {
    pub const ALL: [PerfKind; 2] = [PerfKind::SectorsPerAccess, PerfKind::BankWays];

    /// The budget key, also the `counter` of its `OverBudget`.
    pub fn key(self) -> &'static str {
        match self {
            PerfKind::SectorsPerAccess => "sectors_per_access",
            PerfKind::BankWays => "bank_ways",
        }
    }

    /// As a learner reads it.
    pub fn label(self) -> &'static str {
        match self {
            PerfKind::SectorsPerAccess => "sectors per access",
            PerfKind::BankWays => "bank-conflict ways",
        }
    }
}

/// The technique a puzzle teaches (`[technique]`): how messages name it, the counters that
/// show a kernel uses it (each must be in the puzzle's `require`, or, for a family shown by
/// running fewer (`Family::shown_by_fewer`), in a budget; `gpuzzle lint` checks), and
/// what its budget is built for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Technique {
    /// As a message names it: "`__dp4a`", "a shuffle fold (`__shfl_down_sync`)".
    pub name: String,
    /// Indices into `Counters::NAMES` of the counters that show the technique.
    pub counters: Vec<usize>,
    /// What the budget is built for, shown when a run is over it ("one global read per
    /// element: each input is read once, into shared memory").
    pub budget_for: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_has_a_limit_field_in_names_order() {
        let mut b = BlockLimits::default();
        assert!(!b.any());
        for (i, name) in Counters::NAMES.iter().enumerate() {
            *b.slot(i).expect("a field per counter") = Some(i as u64 + 1);
            assert_eq!(b.get(i), Some(i as u64 + 1), "{name}");
            // The field serde reads is the one `get` answers for.
            let t: BlockLimits =
                toml::from_str(&format!("{name} = 7")).expect("every counter is a key");
            assert_eq!(t.get(i), Some(7), "{name}");
            assert_eq!((0..Counters::N).filter(|&k| t.get(k).is_some()).count(), 1);
        }
        assert!(b.any());
        assert_eq!(b.get(Counters::N), None);
        assert!(b.slot(Counters::N).is_none());
        let bad: Result<Budget, _> = toml::from_str("shuffle = 1");
        assert!(bad.is_err());
        let perf: Budget = toml::from_str("bank_ways = 1\nf64 = 0").expect("a budget");
        assert_eq!(perf.perf(PerfKind::BankWays), Some(1));
        let f64 = Counters::index("f64").expect("a counter");
        assert_eq!(perf.get(f64), Some(0));
        assert!(!perf.forbids(f64));
    }
}
