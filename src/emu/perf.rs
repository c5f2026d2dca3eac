//! Memory-efficiency figures of a block for performance puzzles: its accesses grouped into
//! warp-level accesses, then 32-byte sectors per global access (coalescing) and the
//! bank-conflict degree per shared access.

use super::result::{PerfSite, PerfStats};
use std::collections::HashMap;

/// A per-access record for the warp-level coalescing and bank-conflict figures.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub pc: u32,
    pub func: u32,
    pub addr: u64,
    pub size: u32,
    pub shared: bool,
    /// A store, or an atomic (which also reads); for access traces, unused by the figures.
    pub write: bool,
    pub atomic: bool,
    /// Refused (out of bounds or misaligned): reported, not performed, not counted. Logged
    /// only by a traced launch (`emu::run_traced`), so pictures can show it; never in the
    /// figures.
    pub failed: bool,
}

/// Group each warp's accesses by (instruction, n-th execution by the lane) into warp-level
/// accesses, then count 32-byte sectors (global) and bank-conflict degree (shared).
///
/// Lanes of a warp usually run the same sequence of accesses (see the loop); a map with a cheap
/// hash catches the rest.
pub(super) fn perf_of(accesses: &[Vec<Access>]) -> PerfStats {
    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
    struct Key {
        func: u32,
        pc: u32,
        nth: u32,
        shared: bool,
    }
    let mut p = PerfStats::default();
    let mut keys: Vec<Key> = Vec::new();
    let mut groups: Vec<Vec<(u64, u32)>> = Vec::new();
    let mut index: HashMap<Key, usize, FastHash> = HashMap::default();
    let mut nth: HashMap<(u32, u32), u32, FastHash> = HashMap::default();
    let mut scratch: Vec<u64> = Vec::new();
    // Per instruction (function, pc, space): index into `p.sites`, sorted at the end.
    let mut sites: HashMap<(u32, u32, bool), usize, FastHash> = HashMap::default();
    for warp in accesses.chunks(32) {
        keys.clear();
        groups.iter_mut().for_each(Vec::clear);
        index.clear();
        // The groups of the warp's first lane are its accesses in order: a later lane whose
        // accesses so far are the same instructions in the same order has the same n-th counts,
        // so it joins those groups by position, without hashing.
        let mut first_len = None;
        for lane in warp {
            let lockstep = first_len.unwrap_or(0);
            let mut k = 0;
            while k < lane.len().min(lockstep) {
                let (a, key) = (&lane[k], &keys[k]);
                if (a.func, a.pc, a.shared) != (key.func, key.pc, key.shared) {
                    break;
                }
                groups[k].push((a.addr, a.size));
                k += 1;
            }
            if k < lane.len() {
                nth.clear();
                for a in &lane[..k] {
                    *nth.entry((a.func, a.pc)).or_insert(0) += 1;
                }
                for a in &lane[k..] {
                    let n = nth.entry((a.func, a.pc)).or_insert(0);
                    let key = Key {
                        func: a.func,
                        pc: a.pc,
                        nth: *n,
                        shared: a.shared,
                    };
                    *n += 1;
                    let g = *index.entry(key).or_insert_with(|| {
                        keys.push(key);
                        keys.len() - 1
                    });
                    if groups.len() <= g {
                        groups.resize_with(g + 1, Vec::new);
                    }
                    groups[g].push((a.addr, a.size));
                }
            }
            first_len.get_or_insert(lane.len());
        }
        for (key, accs) in keys.iter().zip(&groups) {
            let figure;
            if key.shared {
                p.shared_warp_accesses += 1;
                // (bank, word) pairs; the degree is the most distinct words in one bank.
                scratch.clear();
                for &(addr, size) in accs {
                    for w in (addr / 4)..(addr + size as u64).div_ceil(4) {
                        scratch.push(((w % 32) << 58) | (w & ((1 << 58) - 1)));
                    }
                }
                scratch.sort_unstable();
                scratch.dedup();
                let mut ways = 1u32;
                let mut run = 0u32;
                let mut bank = u64::MAX;
                for &bw in &scratch {
                    if bw >> 58 == bank {
                        run += 1;
                    } else {
                        bank = bw >> 58;
                        run = 1;
                    }
                    ways = ways.max(run);
                }
                p.shared_bank_ways += ways as u64;
                p.max_bank_ways = p.max_bank_ways.max(ways);
                figure = ways;
            } else {
                p.global_warp_accesses += 1;
                scratch.clear();
                for &(a, s) in accs {
                    scratch.extend((a / 32)..=((a + s as u64 - 1) / 32));
                }
                scratch.sort_unstable();
                scratch.dedup();
                p.global_sectors += scratch.len() as u64;
                figure = scratch.len() as u32;
            }
            let at = *sites
                .entry((key.func, key.pc, key.shared))
                .or_insert_with(|| {
                    p.sites.push(PerfSite {
                        func: key.func,
                        pc: key.pc,
                        shared: key.shared,
                        ..PerfSite::default()
                    });
                    p.sites.len() - 1
                });
            let site = &mut p.sites[at];
            site.accesses += 1;
            site.total += figure as u64;
            site.max = site.max.max(figure);
        }
    }
    p.sites.sort_unstable_by_key(|s| (s.func, s.pc, s.shared));
    p
}

/// A cheap multiplicative hash for the small integer keys of `perf_of` (SipHash, the default,
/// costs more than the rest of the grouping).
#[derive(Default, Clone, Copy)]
struct FastHash;

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain definition `perf_of` must agree with: group by (function, pc, n-th execution by
    /// the lane, space), then count sectors or bank-conflict ways per group.
    fn reference(accesses: &[Vec<Access>]) -> PerfStats {
        let mut p = PerfStats::default();
        for warp in accesses.chunks(32) {
            // (function, pc, n-th execution, shared) → (address, size) of each lane
            type Groups = HashMap<(u32, u32, u32, bool), Vec<(u64, u32)>>;
            let mut groups = Groups::new();
            for lane in warp {
                let mut seen: HashMap<(u32, u32), u32> = HashMap::new();
                for a in lane {
                    let k = seen.entry((a.func, a.pc)).or_insert(0);
                    groups
                        .entry((a.func, a.pc, *k, a.shared))
                        .or_default()
                        .push((a.addr, a.size));
                    *k += 1;
                }
            }
            for ((func, pc, _, shared), accs) in groups {
                let figure;
                if shared {
                    p.shared_warp_accesses += 1;
                    let mut per_bank: HashMap<u64, Vec<u64>> = HashMap::new();
                    for (addr, size) in accs {
                        for w in (addr / 4)..(addr + size as u64).div_ceil(4) {
                            let b = per_bank.entry(w % 32).or_default();
                            if !b.contains(&w) {
                                b.push(w);
                            }
                        }
                    }
                    let ways = per_bank.values().map(|v| v.len() as u32).max().unwrap_or(1);
                    p.shared_bank_ways += ways.max(1) as u64;
                    p.max_bank_ways = p.max_bank_ways.max(ways.max(1));
                    figure = ways.max(1);
                } else {
                    p.global_warp_accesses += 1;
                    let mut s: Vec<u64> = accs
                        .iter()
                        .flat_map(|&(a, s)| (a / 32)..=((a + s as u64 - 1) / 32))
                        .collect();
                    s.sort_unstable();
                    s.dedup();
                    p.global_sectors += s.len() as u64;
                    figure = s.len() as u32;
                }
                let one = PerfStats {
                    sites: vec![PerfSite {
                        func,
                        pc,
                        shared,
                        accesses: 1,
                        total: figure as u64,
                        max: figure,
                    }],
                    ..PerfStats::default()
                };
                p.merge(&one);
            }
        }
        p
    }

    fn access() -> impl Strategy<Value = Access> {
        (
            0u32..2,
            0u32..4,
            0u64..4096,
            prop_oneof![Just(4u32), Just(8), Just(16)],
            any::<bool>(),
        )
            .prop_map(|(func, pc, addr, size, shared)| Access {
                pc,
                func,
                addr: addr / size as u64 * size as u64,
                size,
                shared,
                write: false,
                atomic: false,
                failed: false,
            })
    }

    /// One warp's accesses at `pc`: lane `l` at `addr(l)`, 4 bytes each.
    fn warp_at(pc: u32, shared: bool, addr: impl Fn(u64) -> u64) -> Vec<Vec<Access>> {
        (0..32)
            .map(|l| {
                vec![Access {
                    pc,
                    func: 0,
                    addr: addr(l),
                    size: 4,
                    shared,
                    write: false,
                    atomic: false,
                    failed: false,
                }]
            })
            .collect()
    }

    #[test]
    fn the_worst_instruction_is_named_per_space() {
        // pc 1 reads a row (coalesced), pc 2 writes a column (one sector per lane), pc 3 reads a
        // row of a shared tile, pc 4 a column of a [32][32] tile (all lanes in one bank).
        let mut p = PerfStats::default();
        for (pc, shared, stride) in [(1, false, 4), (2, false, 180), (3, true, 4), (4, true, 128)] {
            p.merge(&perf_of(&warp_at(pc, shared, |l| l * stride)));
        }
        let g = p.worst_global().unwrap();
        assert_eq!((g.pc, g.accesses, g.max), (2, 1, 32));
        assert_eq!(g.average(), 32.0);
        let s = p.worst_shared().unwrap();
        assert_eq!((s.pc, s.max), (4, 32));
        // The coalesced and conflict-free ones: 4 sectors, 1 way.
        let site = |pc: u32| *p.sites.iter().find(|s| s.pc == pc).unwrap();
        assert_eq!(site(1).max, 4);
        assert_eq!(site(3).max, 1);
        // Merging another block adds up per instruction.
        let mut twice = p.clone();
        twice.merge(&p);
        assert_eq!(twice.worst_global().unwrap().accesses, 2);
        assert_eq!(twice.sites.len(), 4);
    }

    proptest! {
        #[test]
        fn perf_figures_match_their_definition(
            lanes in proptest::collection::vec(proptest::collection::vec(access(), 0..12), 1..70)
        ) {
            prop_assert_eq!(perf_of(&lanes), reference(&lanes));
        }

        #[test]
        fn perf_figures_of_lockstep_lanes(
            seq in proptest::collection::vec(access(), 1..12),
            lanes in 1usize..64,
            spread in 0u64..64,
        ) {
            // Every lane runs the same instructions at its own addresses (the common case).
            let logs: Vec<Vec<Access>> = (0..lanes)
                .map(|l| seq.iter().map(|a| Access { addr: a.addr + l as u64 * spread / a.size as u64 * a.size as u64, ..*a }).collect())
                .collect();
            prop_assert_eq!(perf_of(&logs), reference(&logs));
        }
    }
}
