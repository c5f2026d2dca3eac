//! Global memory: every buffer and module variable is its own allocation with a red zone after
//! it, so an access can be mapped back to `buffer[element]` or reported as out of bounds.
//! Generic addresses put shared and local memory in windows far above global memory, so `cvta`
//! is an add and a generic access is classified by its range.

use std::sync::atomic::{AtomicU32, Ordering};

/// First global address (nothing below it is valid, so null and small integers fault).
pub const GLOBAL_BASE: u64 = 0x0000_0001_0000_0000;
/// Generic address of shared offset 0.
pub const SHARED_WINDOW: u64 = 0x0000_5000_0000_0000;
/// Generic address of local offset 0.
pub const LOCAL_WINDOW: u64 = 0x0000_6000_0000_0000;
const WINDOW_SIZE: u64 = 0x0000_0100_0000_0000;
/// Unused bytes between allocations.
pub const RED_ZONE: u64 = 1024;

/// Which state space a generic address falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    Global(u64),
    Shared(u64),
    Local(u64),
}

pub fn classify(addr: u64) -> Window {
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
        Window::Shared(addr - SHARED_WINDOW)
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
        Window::Local(addr - LOCAL_WINDOW)
    } else {
        Window::Global(addr)
    }
}

#[derive(Clone, Debug)]
pub struct Allocation {
    pub base: u64,
    pub len: u64,
    /// The name learners know it by (`out`, or a `__device__` variable's name).
    pub name: String,
    /// Element size for `name[i]` in messages.
    pub elem_size: u64,
}

/// Base addresses of allocations of the given lengths, in order, from `GLOBAL_BASE` with each
/// rounded up to 256 bytes and followed by a red zone; also the first address after them.
pub fn layout(lens: impl IntoIterator<Item = u64>) -> (Vec<u64>, u64) {
    let mut bases = Vec::new();
    let mut next = GLOBAL_BASE;
    for len in lens {
        bases.push(next);
        next += len.div_ceil(256) * 256 + RED_ZONE;
    }
    (bases, next)
}

/// Global memory shared by every block of a launch. Words are atomics so that blocks can run on
/// several cores at once without undefined behaviour; relaxed loads and stores compile to plain moves.
pub struct GlobalMem {
    words: Vec<AtomicU32>,
    pub allocs: Vec<Allocation>,
    /// Per word, which block touched it (see `claim`); empty unless blocks run in parallel
    /// with the checkers off.
    claims: Vec<AtomicU32>,
    /// Per word, the global race checker's state (`race::WordState`); empty when the checkers
    /// are off. With the checkers on it also does `claims`' job for parallel blocks.
    pub races: Vec<AtomicU32>,
}

/// States of a word's claim: untouched, read by several blocks, or owned by one block
/// (its index, with `WRITTEN` set once that block wrote it).
const UNCLAIMED: u32 = u32::MAX;
const SHARED_READ: u32 = u32::MAX - 1;
const WRITTEN: u32 = 1 << 31;
/// Index of the word holding global address `addr` (a valid address).
#[inline(always)]
pub fn word_index(addr: u64) -> usize {
    ((addr - GLOBAL_BASE) / 4) as usize
}

/// Block indices that fit next to the `WRITTEN` bit (larger grids run sequentially).
pub const MAX_CLAIM_BLOCKS: usize = (SHARED_READ & !WRITTEN) as usize;

impl GlobalMem {
    /// Lay out allocations of the given (name, bytes, elem_size) with red zones between them.
    pub fn new(items: &[(String, Vec<u8>, u64)]) -> GlobalMem {
        let (bases, next) = layout(items.iter().map(|(_, bytes, _)| bytes.len() as u64));
        let allocs: Vec<Allocation> = items
            .iter()
            .zip(bases)
            .map(|((name, bytes, elem), base)| Allocation {
                base,
                len: bytes.len() as u64,
                name: name.clone(),
                elem_size: (*elem).max(1),
            })
            .collect();
        let mut words = vec![0u32; ((next - GLOBAL_BASE) / 4) as usize];
        for (a, (_, bytes, _)) in allocs.iter().zip(items) {
            // Allocations start 256-aligned, so bytes fill whole words from the start.
            let first = ((a.base - GLOBAL_BASE) / 4) as usize;
            for (w, chunk) in words[first..].iter_mut().zip(bytes.chunks(4)) {
                let mut b = [0u8; 4];
                b[..chunk.len()].copy_from_slice(chunk);
                *w = u32::from_le_bytes(b);
            }
        }
        GlobalMem {
            words: words.into_iter().map(AtomicU32::new).collect(),
            allocs,
            claims: Vec::new(),
            races: Vec::new(),
        }
    }

    /// Keep the global race checker's state: 4 bytes per 4-byte word, all zero (untouched).
    pub fn track_races(&mut self) {
        self.races = (0..self.words.len()).map(|_| AtomicU32::new(0)).collect();
    }

    /// Whether `claim` does anything (parallel blocks with the checkers off).
    #[inline(always)]
    pub fn claims_tracked(&self) -> bool {
        !self.claims.is_empty()
    }

    /// Track which block touches which word, so that a launch whose blocks communicate through
    /// global memory (a result that depends on the order blocks run in) can be detected.
    pub fn track_claims(&mut self) {
        self.claims = (0..self.words.len())
            .map(|_| AtomicU32::new(UNCLAIMED))
            .collect();
    }

    /// Record that `block` reads (or writes) `[addr, addr+size)`. False when another block
    /// wrote a word this one reads, or touched a word this one writes: then the outcome
    /// depends on the order of the blocks. Always true when claims are not tracked.
    #[inline]
    pub fn claim(&self, addr: u64, size: u32, block: u32, write: bool) -> bool {
        if self.claims.is_empty() {
            return true;
        }
        let first = ((addr - GLOBAL_BASE) / 4) as usize;
        let last = ((addr + size as u64 - 1 - GLOBAL_BASE) / 4) as usize;
        (first..=last).all(|w| match self.claims.get(w) {
            Some(c) => claim_word(c, block, write),
            None => true,
        })
    }

    #[inline]
    pub fn find(&self, addr: u64, size: u64) -> Option<usize> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i == 0 {
            return None;
        }
        let a = &self.allocs[i - 1];
        (addr.wrapping_sub(a.base).wrapping_add(size) <= a.len).then_some(i - 1)
    }

    /// The allocation nearest to `addr` (for "out[9] of an 8-element buffer").
    pub fn nearest(&self, addr: u64) -> Option<&Allocation> {
        self.allocs.iter().min_by_key(|a| {
            if addr < a.base {
                a.base - addr
            } else if addr >= a.base + a.len {
                addr - (a.base + a.len) + 1
            } else {
                0
            }
        })
    }

    /// The 4-byte word with index `w` (`word_index` of a valid address).
    #[inline(always)]
    pub fn word(&self, w: usize) -> u32 {
        self.words[w].load(Ordering::Relaxed)
    }

    /// Read `size` (1, 2, 4 or 8) bytes at a valid, aligned address.
    #[inline]
    pub fn read(&self, addr: u64, size: u32) -> u64 {
        let off = addr - GLOBAL_BASE;
        let w = (off / 4) as usize;
        match size {
            4 => self.words[w].load(Ordering::Relaxed) as u64,
            8 => {
                self.words[w].load(Ordering::Relaxed) as u64
                    | (self.words[w + 1].load(Ordering::Relaxed) as u64) << 32
            }
            _ => {
                let sh = (off % 4) * 8;
                let v = self.words[w].load(Ordering::Relaxed) as u64 >> sh;
                v & ((1u64 << (size * 8)) - 1)
            }
        }
    }

    /// Write the low `size` bytes of `v` at a valid, aligned address.
    #[inline]
    pub fn write(&self, addr: u64, size: u32, v: u64) {
        let off = addr - GLOBAL_BASE;
        let w = (off / 4) as usize;
        match size {
            4 => self.words[w].store(v as u32, Ordering::Relaxed),
            8 => {
                self.words[w].store(v as u32, Ordering::Relaxed);
                self.words[w + 1].store((v >> 32) as u32, Ordering::Relaxed);
            }
            _ => {
                let sh = (off % 4) * 8;
                let mask = (((1u64 << (size * 8)) - 1) << sh) as u32;
                let bits = ((v << sh) as u32) & mask;
                let _ = self.words[w].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                    Some((old & !mask) | bits)
                });
            }
        }
    }

    /// The bytes of an allocation (to copy buffers back after the launch).
    pub fn bytes(&self, idx: usize) -> Vec<u8> {
        let a = &self.allocs[idx];
        let first = ((a.base - GLOBAL_BASE) / 4) as usize;
        let nwords = a.len.div_ceil(4) as usize;
        // Sized up front: `flat_map` gives no size hint and would grow the vector to 2x.
        let mut out: Vec<u8> = Vec::with_capacity(nwords * 4);
        for w in &self.words[first..first + nwords] {
            out.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        out.truncate(a.len as usize);
        out
    }
}

fn claim_word(c: &AtomicU32, block: u32, write: bool) -> bool {
    let mine = block | if write { WRITTEN } else { 0 };
    let mut cur = c.load(Ordering::Relaxed);
    loop {
        let next = match cur {
            UNCLAIMED => mine,
            SHARED_READ => return !write,
            _ if cur & !WRITTEN == block => {
                if !write || cur & WRITTEN != 0 {
                    return true;
                }
                mine
            }
            // Another block's word: reading it is fine only if nobody wrote it.
            _ if write || cur & WRITTEN != 0 => return false,
            _ => SHARED_READ,
        };
        match c.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(now) => cur = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_separated_and_found() {
        let m = GlobalMem::new(&[("a".into(), vec![1; 32], 4), ("b".into(), vec![2; 8], 4)]);
        let a = m.allocs[0].base;
        let b = m.allocs[1].base;
        assert!(b >= a + 32 + RED_ZONE);
        assert_eq!(m.find(a, 4), Some(0));
        assert_eq!(m.find(a + 28, 4), Some(0));
        assert_eq!(m.find(a + 32, 4), None);
        assert_eq!(m.find(a - 4, 4), None);
        assert_eq!(m.find(b + 4, 4), Some(1));
        assert_eq!(m.nearest(a + 40).unwrap().name, "a");
        assert_eq!(m.read(b, 4), 0x0202_0202);
    }

    #[test]
    fn layout_is_what_new_allocates() {
        let items = [("a".into(), vec![0; 300], 4), ("b".into(), vec![0; 8], 1)];
        let m = GlobalMem::new(&items);
        let (bases, _) = layout([300, 8]);
        assert_eq!(bases, m.allocs.iter().map(|a| a.base).collect::<Vec<_>>());
        assert_eq!(bases[1], GLOBAL_BASE + 512 + RED_ZONE);
    }

    #[test]
    fn sub_word_writes_keep_neighbours() {
        let m = GlobalMem::new(&[("a".into(), vec![0; 8], 1)]);
        let a = m.allocs[0].base;
        m.write(a + 1, 1, 0xAB);
        m.write(a + 2, 2, 0xCDEF);
        assert_eq!(m.read(a, 4), 0xCDEF_AB00);
        m.write(a, 8, 0x1122_3344_5566_7788);
        assert_eq!(m.read(a + 4, 4), 0x1122_3344);
        assert_eq!(m.bytes(0)[0], 0x88);
    }

    #[test]
    fn claims_detect_blocks_that_share_written_words() {
        let mut m = GlobalMem::new(&[("a".into(), vec![0; 64], 4)]);
        let a = m.allocs[0].base;
        assert!(m.claim(a, 4, 1, true), "not tracked: always fine");
        m.track_claims();
        // reads by many blocks are fine; a write after them is not
        assert!(m.claim(a, 4, 1, false) && m.claim(a, 4, 2, false) && m.claim(a, 4, 1, false));
        assert!(!m.claim(a, 4, 3, true));
        // one block reading and writing its own words is fine
        assert!(m.claim(a + 8, 8, 5, false) && m.claim(a + 8, 8, 5, true));
        assert!(m.claim(a + 8, 4, 5, false));
        // another block reading or writing them is not
        assert!(!m.claim(a + 12, 4, 6, false));
        assert!(!m.claim(a + 8, 1, 6, true));
        // a byte access claims its whole word
        assert!(m.claim(a + 16, 1, 7, true));
        assert!(!m.claim(a + 17, 1, 8, true));
    }

    #[test]
    fn windows_classify_generic_addresses() {
        assert_eq!(classify(SHARED_WINDOW + 8), Window::Shared(8));
        assert_eq!(classify(LOCAL_WINDOW), Window::Local(0));
        assert_eq!(classify(GLOBAL_BASE), Window::Global(GLOBAL_BASE));
    }
}
