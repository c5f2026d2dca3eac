//! Memory-efficiency figures of a block for performance puzzles: its accesses grouped into
//! warp-level accesses, then 32-byte sectors per global access (coalescing) and the
//! bank-conflict degree per shared access.
//!
//! A warp-level access is what the lanes of one warp do at one source line (and space, load or
//! store), each lane its n-th time there: the accesses the warp's lanes make together at that
//! point of the kernel, however many instructions the compiler made of the line. Grouping by
//! instruction instead would let a kernel lower its figures by issuing an access one lane at a
//! time (`for (l = 0; l < 32; l++) if (lane == l) out[i] = v;`, which NVRTC unrolls into 32
//! stores of one lane each, 1 sector each): by line, those 32 stores are still one warp-level
//! access of 32 lanes, with the sectors and ways the lanes really need. A lane that never gets
//! to a line (thread 0's `out[blockIdx.x] = sum`) is not part of it, so such an access counts
//! only what its own lanes touch. Instructions without line information stand for themselves.

use super::result::{PerfSite, PerfStats};
use crate::ptx::ir::{Module, Op};
use std::collections::HashMap;

/// A per-access record for the warp-level coalescing and bank-conflict figures.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub pc: u32,
    pub func: u32,
    pub addr: u64,
    pub size: u32,
    pub shared: bool,
    /// A store, or an atomic (which also reads): one side of a line's accesses in the figures.
    pub write: bool,
    pub atomic: bool,
    /// Refused (out of bounds or misaligned): reported, not performed, not counted. Logged
    /// only by a traced launch (`emu::run_traced`), so pictures can show it; never in the
    /// figures.
    pub failed: bool,
}

/// Per function and instruction, the instruction that stands for its source line in the
/// figures: the function's first load (for a load) or first store or atomic (for those) with
/// the same file and line. Any other instruction, and one without line information, stands for
/// itself. Built once per measured launch; empty, every instruction stands for itself.
#[derive(Clone, Debug, Default)]
pub struct LineSites {
    first: Vec<Vec<u32>>,
}

impl LineSites {
    pub fn of(module: &Module) -> LineSites {
        let first = module
            .functions
            .iter()
            .map(|f| {
                let mut seen: HashMap<(u32, u32, bool), u32, FastHash> = HashMap::default();
                (f.body.iter().enumerate())
                    .map(|(pc, i)| {
                        let write = match i.op {
                            Op::Ld { .. } => false,
                            Op::St { .. } | Op::Atom { .. } => true,
                            _ => return pc as u32,
                        };
                        match i.line {
                            0 => pc as u32,
                            line => *seen.entry((i.file, line, write)).or_insert(pc as u32),
                        }
                    })
                    .collect()
            })
            .collect();
        LineSites { first }
    }

    /// The instruction standing for `pc`'s line.
    #[inline]
    pub fn site(&self, func: u32, pc: u32) -> u32 {
        (self.first.get(func as usize))
            .and_then(|f| f.get(pc as usize))
            .copied()
            .unwrap_or(pc)
    }
}

/// Group each warp's accesses by (line, space, load or store, n-th time by the lane) into
/// warp-level accesses, then count 32-byte sectors (global) and bank-conflict degree (shared).
///
/// Lanes of a warp usually run the same sequence of accesses (see the loop); a map with a cheap
/// hash catches the rest.
pub(super) fn perf_of(accesses: &[Vec<Access>], lines: &LineSites) -> PerfStats {
    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
    struct Key {
        func: u32,
        pc: u32,
        nth: u32,
        shared: bool,
        write: bool,
    }
    // The (function, line's instruction, space, side) of an access.
    let side = |a: &Access| (a.func, lines.site(a.func, a.pc), a.shared, a.write);
    let mut p = PerfStats::default();
    let mut keys: Vec<Key> = Vec::new();
    let mut groups: Vec<Vec<(u64, u32)>> = Vec::new();
    let mut index: HashMap<Key, usize, FastHash> = HashMap::default();
    let mut nth: HashMap<(u32, u32, bool, bool), u32, FastHash> = HashMap::default();
    let mut scratch: Vec<u64> = Vec::new();
    // Per line (function, pc, space, side): index into `p.sites`, sorted at the end.
    let mut sites: HashMap<(u32, u32, bool, bool), usize, FastHash> = HashMap::default();
    for warp in accesses.chunks(32) {
        keys.clear();
        groups.iter_mut().for_each(Vec::clear);
        index.clear();
        // The groups of the warp's first lane are its accesses in order: a later lane whose
        // accesses so far are the same lines in the same order has the same n-th counts,
        // so it joins those groups by position, without hashing.
        let mut first_len = None;
        for lane in warp {
            let lockstep = first_len.unwrap_or(0);
            let mut k = 0;
            while k < lane.len().min(lockstep) {
                let (a, key) = (&lane[k], &keys[k]);
                if side(a) != (key.func, key.pc, key.shared, key.write) {
                    break;
                }
                groups[k].push((a.addr, a.size));
                k += 1;
            }
            if k < lane.len() {
                nth.clear();
                for a in &lane[..k] {
                    *nth.entry(side(a)).or_insert(0) += 1;
                }
                for a in &lane[k..] {
                    let at = side(a);
                    let n = nth.entry(at).or_insert(0);
                    let key = Key {
                        func: at.0,
                        pc: at.1,
                        nth: *n,
                        shared: at.2,
                        write: at.3,
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
                .entry((key.func, key.pc, key.shared, key.write))
                .or_insert_with(|| {
                    p.sites.push(PerfSite {
                        func: key.func,
                        pc: key.pc,
                        shared: key.shared,
                        write: key.write,
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
    p.sites.sort_unstable_by_key(PerfSite::key);
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

    /// Lines as `perf_of` reads them: instruction `pc` is on line `pc / 4` (so 0-3 are one
    /// line, 4-7 the next).
    fn four_per_line(funcs: usize, pcs: u32) -> LineSites {
        LineSites {
            first: vec![(0..pcs).map(|pc| pc / 4 * 4).collect(); funcs],
        }
    }

    /// The plain definition `perf_of` must agree with: group by (function, line, space, side,
    /// n-th time the lane gets there), then count sectors or bank-conflict ways per group.
    fn reference(accesses: &[Vec<Access>], lines: &LineSites) -> PerfStats {
        let mut p = PerfStats::default();
        for warp in accesses.chunks(32) {
            // (function, line, n-th time, shared, write) → (address, size) of each lane
            type Groups = HashMap<(u32, u32, u32, bool, bool), Vec<(u64, u32)>>;
            let mut groups = Groups::new();
            for lane in warp {
                let mut seen: HashMap<(u32, u32, bool, bool), u32> = HashMap::new();
                for a in lane {
                    let line = lines.site(a.func, a.pc);
                    let k = seen.entry((a.func, line, a.shared, a.write)).or_insert(0);
                    groups
                        .entry((a.func, line, *k, a.shared, a.write))
                        .or_default()
                        .push((a.addr, a.size));
                    *k += 1;
                }
            }
            for ((func, pc, _, shared, write), accs) in groups {
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
                        write,
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
            0u32..8,
            0u64..4096,
            prop_oneof![Just(4u32), Just(8), Just(16)],
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(func, pc, addr, size, shared, write)| Access {
                pc,
                func,
                addr: addr / size as u64 * size as u64,
                size,
                shared,
                write,
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
            p.merge(&perf_of(
                &warp_at(pc, shared, |l| l * stride),
                &LineSites::default(),
            ));
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

    #[test]
    fn a_store_issued_one_lane_at_a_time_is_still_one_warp_access() {
        // Lane l stores its column element from instruction l (an unrolled
        // `for (l = 0; l < 32; l++) if (lane == l) out[...] = v;`), all on one line.
        let one_line = LineSites {
            first: vec![vec![0; 32]],
        };
        let serialised: Vec<Vec<Access>> = (0..32u32)
            .map(|l| {
                vec![Access {
                    pc: l,
                    write: true,
                    ..warp_at(0, false, |l| l * 180)[l as usize][0]
                }]
            })
            .collect();
        let p = perf_of(&serialised, &one_line);
        assert_eq!((p.global_warp_accesses, p.global_sectors), (1, 32));
        let site = p.worst_global().unwrap();
        assert_eq!((site.pc, site.accesses, site.average()), (0, 1, 32.0));
        // By instruction (no line information) they were 32 accesses of one sector each.
        let p = perf_of(&serialised, &LineSites::default());
        assert_eq!((p.global_warp_accesses, p.global_sectors), (32, 32));
        // The same for a shared column read: 32 ways, not 1.
        let column: Vec<Vec<Access>> = (0..32u32)
            .map(|l| {
                vec![Access {
                    pc: l,
                    ..warp_at(0, true, |l| l * 128)[l as usize][0]
                }]
            })
            .collect();
        assert_eq!(perf_of(&column, &one_line).max_bank_ways, 32);
        // One lane alone at a line (thread 0's store of a block's sum) is one sector.
        let alone = vec![warp_at(5, false, |l| l * 4).swap_remove(0)];
        let p = perf_of(&alone, &one_line);
        assert_eq!((p.global_warp_accesses, p.global_sectors), (1, 1));
    }

    #[test]
    fn a_line_s_loads_and_stores_are_separate_sites() {
        // `out[l * 45] = a[l]` on one line: a coalesced load and a column store.
        let one_line = LineSites {
            first: vec![vec![0; 2]],
        };
        let lanes: Vec<Vec<Access>> = (0..32u64)
            .map(|l| {
                let load = warp_at(0, false, |l| l * 4)[l as usize][0];
                let store = Access {
                    pc: 1,
                    addr: 4096 + l * 180,
                    write: true,
                    ..load
                };
                vec![load, store]
            })
            .collect();
        let p = perf_of(&lanes, &one_line);
        assert_eq!(p.sites.len(), 2);
        let worst = p.worst_global().unwrap();
        assert!(worst.write);
        assert_eq!(worst.average(), 32.0);
    }

    proptest! {
        #[test]
        fn perf_figures_match_their_definition(
            lanes in proptest::collection::vec(proptest::collection::vec(access(), 0..12), 1..70)
        ) {
            let lines = four_per_line(2, 8);
            prop_assert_eq!(perf_of(&lanes, &lines), reference(&lanes, &lines));
            let each = LineSites::default();
            prop_assert_eq!(perf_of(&lanes, &each), reference(&lanes, &each));
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
            let lines = four_per_line(2, 8);
            prop_assert_eq!(perf_of(&logs, &lines), reference(&logs, &lines));
        }
    }
}
