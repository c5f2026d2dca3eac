//! Global memory: every buffer and module variable is its own allocation, so an access can be
//! mapped back to `buffer[element]` or reported as out of bounds.
//!
//! Allocations sit `STRIDE` (128 GiB) apart in the address space, the `i`-th at
//! `GLOBAL_BASE + i * STRIDE`, so no index a kernel computes from a 32-bit integer (even times
//! 16 bytes, a `float4`) reaches from one buffer into another: an out-of-bounds access is
//! always outside every allocation, and is named against the buffer it overran (the nearest
//! one), never lands in a neighbour. The bytes themselves are stored densely, one word after
//! another (`GlobalMem::word_index` maps an address to its word: a shift, one table look-up
//! and an add), so the sparse placement costs no memory, nor does the race checker's state
//! per word. Finding the allocation of an address is a shift too.
//!
//! Generic addresses put shared and local memory in windows far above global memory, so `cvta`
//! is an add and a generic access is classified by its range.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// log2 of `STRIDE`.
const STRIDE_SHIFT: u32 = 37;
/// The distance between the starts of two neighbouring allocations (128 GiB): more than any
/// 32-bit index times 16 bytes, either way. No allocation is that large (host memory bounds
/// them far below), so every allocation is followed by a gap of at least 64 GiB.
pub const STRIDE: u64 = 1 << STRIDE_SHIFT;
/// First global address (nothing below it is valid, so null and small integers fault).
pub const GLOBAL_BASE: u64 = STRIDE;
/// Generic address of shared offset 0 (its low 32 bits are zero, like `LOCAL_WINDOW`'s, so a
/// 32-bit `cvta` gives the offset). Far above every allocation: 2^25 of them fit below it.
pub const SHARED_WINDOW: u64 = 0x4000_0000_0000_0000;
/// Generic address of local offset 0.
pub const LOCAL_WINDOW: u64 = 0x5000_0000_0000_0000;
const WINDOW_SIZE: u64 = 0x0000_0100_0000_0000;

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

/// Base addresses of allocations of the given lengths, in order: `STRIDE` apart from
/// `GLOBAL_BASE`, whatever their lengths.
pub fn layout(lens: impl IntoIterator<Item = u64>) -> Vec<u64> {
    (0..lens.into_iter().count() as u64)
        .map(|i| GLOBAL_BASE + i * STRIDE)
        .collect()
}

/// Global memory shared by every block of a launch. Words are atomics so that blocks can run on
/// several cores at once without undefined behaviour; relaxed loads and stores compile to plain moves.
pub struct GlobalMem {
    /// Every allocation's bytes, one after another (see the module docs).
    words: Vec<AtomicU32>,
    pub allocs: Vec<Allocation>,
    /// Per allocation, the index in `words` of its first word.
    starts: Vec<usize>,
    /// Per word, which block touched it (see `claim`); empty unless blocks run in parallel
    /// with the checkers off.
    claims: Vec<AtomicU32>,
    /// Per word, the global race checker's state (`race::WordState`); empty when the checkers
    /// are off. With the checkers on it also does `claims`' job for parallel blocks.
    pub races: Vec<AtomicU32>,
    /// The race checker's state of each byte of a word accessed in pieces (1 or 2 bytes), by
    /// word index; such a word's state in `races` is `race::SPLIT`. Only words a byte or
    /// half-word access touched, and only when blocks run one at a time.
    pub race_bytes: Mutex<HashMap<usize, [u32; 4]>>,
}

/// States of a word's claim: untouched, read by several blocks, or owned by one block
/// (its index, with `WRITTEN` set once that block wrote it).
const UNCLAIMED: u32 = u32::MAX;
const SHARED_READ: u32 = u32::MAX - 1;
const WRITTEN: u32 = 1 << 31;
/// Block indices that fit next to the `WRITTEN` bit (larger grids run sequentially).
pub const MAX_CLAIM_BLOCKS: usize = (SHARED_READ & !WRITTEN) as usize;

impl GlobalMem {
    /// Lay out allocations of the given (name, bytes, elem_size), `STRIDE` apart. The bytes
    /// are borrowed: a launch's buffers are copied once, straight into the words (peak memory).
    pub fn new<B: AsRef<[u8]>>(items: &[(String, B, u64)]) -> GlobalMem {
        let bases = layout(
            items
                .iter()
                .map(|(_, bytes, _)| bytes.as_ref().len() as u64),
        );
        let allocs: Vec<Allocation> = items
            .iter()
            .zip(bases)
            .map(|((name, bytes, elem), base)| Allocation {
                base,
                len: bytes.as_ref().len() as u64,
                name: name.clone(),
                elem_size: (*elem).max(1),
            })
            .collect();
        let mut starts = Vec::with_capacity(items.len());
        let mut total = 0usize;
        for (_, bytes, _) in items {
            starts.push(total);
            total += bytes.as_ref().len().div_ceil(4);
        }
        let mut words = Vec::with_capacity(total);
        for (_, bytes, _) in items {
            // Allocations start at a word, so bytes fill whole words from the start.
            words.extend(bytes.as_ref().chunks(4).map(|chunk| {
                let mut b = [0u8; 4];
                b[..chunk.len()].copy_from_slice(chunk);
                AtomicU32::new(u32::from_le_bytes(b))
            }));
        }
        GlobalMem {
            words,
            allocs,
            starts,
            claims: Vec::new(),
            races: Vec::new(),
            race_bytes: Mutex::new(HashMap::new()),
        }
    }

    /// Index (in the dense store, and in `races`) of the word holding global address `addr`,
    /// which must be inside an allocation.
    #[inline(always)]
    pub fn word_index(&self, addr: u64) -> usize {
        Self::word_in(self.alloc_start(addr), addr)
    }

    /// The index of the first word of the allocation holding `addr` (a valid address), for
    /// `word_in` of several addresses in one allocation.
    #[inline(always)]
    pub fn alloc_start(&self, addr: u64) -> usize {
        self.starts[((addr - GLOBAL_BASE) >> STRIDE_SHIFT) as usize]
    }

    /// `word_index` of `addr`, given `alloc_start` of its allocation.
    #[inline(always)]
    pub fn word_in(start: usize, addr: u64) -> usize {
        start + (((addr - GLOBAL_BASE) & (STRIDE - 1)) >> 2) as usize
    }

    /// Keep the global race checker's state: 4 bytes per 4-byte word, all zero (untouched).
    pub fn track_races(&mut self) {
        self.races = (0..self.words.len()).map(|_| AtomicU32::new(0)).collect();
    }

    /// Forget what the race checker saw: every access so far is ordered before every later
    /// one (a grid-wide sync, `cooperative.rs`).
    pub fn forget_races(&self) {
        for w in &self.races {
            w.store(0, std::sync::atomic::Ordering::Relaxed);
        }
        if let Ok(mut b) = self.race_bytes.lock() {
            b.clear();
        }
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
        let first = self.word_index(addr);
        let last = self.word_index(addr + size as u64 - 1);
        (first..=last).all(|w| match self.claims.get(w) {
            Some(c) => claim_word(c, block, write),
            None => true,
        })
    }

    /// The allocation holding all of `[addr, addr+size)`, if any.
    #[inline]
    pub fn find(&self, addr: u64, size: u64) -> Option<usize> {
        let i = (addr.wrapping_sub(GLOBAL_BASE) >> STRIDE_SHIFT) as usize;
        let a = self.allocs.get(i)?;
        // The allocations' slots start at their bases, so `addr >= a.base` here.
        let off = addr - a.base;
        (off < a.len && size <= a.len - off).then_some(i)
    }

    /// The allocation nearest to `addr` (for "out[9] of an 8-element buffer"). With
    /// allocations `STRIDE` apart, that is the one a 32-bit index from it reaches.
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
        let off = addr;
        let w = self.word_index(addr);
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
        let off = addr;
        let w = self.word_index(addr);
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
        let first = self.starts[idx];
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
        assert_eq!(b, a + STRIDE);
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
        let bases = layout([300, 8]);
        assert_eq!(bases, m.allocs.iter().map(|a| a.base).collect::<Vec<_>>());
        assert_eq!(bases[1], GLOBAL_BASE + STRIDE);
    }

    #[test]
    fn no_32_bit_index_reaches_another_allocation() {
        let m = GlobalMem::new(&[
            ("out".into(), vec![0; 16], 4),
            ("a".into(), vec![7; 16], 4),
            ("b".into(), vec![9; 6], 2),
        ]);
        let (out, a) = (m.allocs[0].base, m.allocs[1].base);
        // out[4], out[320], out[2^31 - 1] times 16 bytes, out[-1] and a[-2^31] times 16 bytes
        for addr in [
            out + 16,
            out + 320 * 4,
            out + (i32::MAX as u64) * 16,
            a.wrapping_sub(4),
            a - (1u64 << 31) * 16,
        ] {
            assert_eq!(m.find(addr, 4), None, "{addr:#x}");
        }
        assert_eq!(m.nearest(out + (i32::MAX as u64) * 16).unwrap().name, "out");
        assert_eq!(m.nearest(out + 320 * 4).unwrap().name, "out");
        assert_eq!(m.nearest(a - (1u64 << 31) * 16).unwrap().name, "a");
        assert_eq!(m.nearest(a - 4).unwrap().name, "a");
        // Dense storage: words follow one another, whatever the addresses.
        assert_eq!(m.word_index(a), 4);
        assert_eq!(m.word_index(m.allocs[2].base + 4), 9);
        assert_eq!(m.read(a + 12, 4), 0x0707_0707);
        assert_eq!(m.read(m.allocs[2].base + 4, 2), 0x0909);
        assert_eq!(m.find(m.allocs[2].base + 4, 4), None, "past b's 6 bytes");
        assert_eq!(m.bytes(2), vec![9; 6]);
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
