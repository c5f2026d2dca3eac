//! The device heap behind `malloc` and `free` (`new` and `delete` compile to them): one region
//! of global memory per launch, [`HEAP_SIZE`] bytes as CUDA's default `cudaLimitMallocHeapSize`.
//! `malloc` past it returns NULL, as on a GPU. Freed memory is not handed out again within the
//! launch: reusing it would make two threads' unrelated writes look like a race, and it keeps
//! every freed block known, so a use after free is named by its block. Each block is followed
//! by a red zone as large as itself (at most [`MAX_RED_ZONE`]), so an index past its end lands in
//! no block instead of in the next one; the red zones do not count against the limit.
//!
//! Each block keeps its size as passed to `malloc` and the lines of its `malloc` and `free`:
//! an access in the heap is checked against the block it falls in ([`Heap::check`]), so an
//! overrun into the next block or into unallocated space, and a use after free, are reported
//! (the global access path asks only for addresses in the heap's range).

use std::collections::BTreeMap;
use std::sync::RwLock;

use super::facts::{HeapFacts, HeapProblem};

/// Bytes of the device heap (CUDA's default heap size, 8 MiB).
pub const HEAP_SIZE: u64 = 8 << 20;

/// What messages call the heap's memory.
pub const HEAP_NAME: &str = "malloc'd memory (the device heap)";

/// Bytes of global memory the heap takes: its blocks and a red zone after each.
pub const REGION: u64 = 2 * HEAP_SIZE;

/// Every allocation starts on this boundary (as CUDA's `malloc` aligns).
const ALIGN: u64 = 16;

/// The most bytes of red zone after a block (it gets as many as it holds, up to this): an
/// index up to twice the block's size, or this far past it, lands in no block.
const MAX_RED_ZONE: u64 = 1024;

/// Why `free` was refused, with the block concerned when there is one.
#[derive(Debug, PartialEq, Eq)]
pub enum FreeError {
    /// The address is no block's start; `within` is the block it lies in, if any.
    NotAllocated { within: Option<(u64, BlockInfo)> },
    /// The block was already freed.
    Twice(BlockInfo),
}

/// What the heap knows of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    /// Bytes asked of `malloc`.
    pub size: u64,
    /// The line of the `malloc` (or `new`) that returned it (0: unknown).
    pub malloc_line: u32,
    /// The line of the `free` (or `delete`) that gave it back, once freed (0: unknown).
    pub freed_line: Option<u32>,
}

pub struct Heap {
    base: u64,
    /// Written by `malloc` and `free`, read by every heap access (blocks run on several
    /// cores at once).
    state: RwLock<State>,
}

#[derive(Default)]
struct State {
    /// Bytes handed out so far (what counts against [`HEAP_SIZE`]).
    used: u64,
    /// Where the next block goes, from `base` (blocks and their red zones).
    next: u64,
    /// Every block ever allocated, by address.
    blocks: BTreeMap<u64, BlockInfo>,
}

impl Heap {
    /// A heap of [`HEAP_SIZE`] bytes starting at global address `base`.
    pub fn new(base: u64) -> Heap {
        Heap {
            base,
            state: RwLock::new(State::default()),
        }
    }

    /// Whether `addr` is at or past the heap's start (the heap is the last global allocation,
    /// so an address inside some allocation and here is in the heap).
    #[inline(always)]
    pub fn at_or_after(&self, addr: u64) -> bool {
        addr >= self.base
    }

    /// An allocation of `size` bytes for the `malloc` at `line`, or 0 (NULL) when the heap has
    /// no room left.
    pub fn malloc(&self, size: u64, line: u32) -> u64 {
        let Ok(mut s) = self.state.write() else {
            return 0;
        };
        let len = size.max(1).div_ceil(ALIGN).saturating_mul(ALIGN);
        if len > HEAP_SIZE - s.used {
            return 0;
        }
        let addr = self.base + s.next;
        s.used += len;
        // Within REGION: the red zones add at most as much again as the blocks.
        s.next += len + len.min(MAX_RED_ZONE);
        s.blocks.insert(
            addr,
            BlockInfo {
                size,
                malloc_line: line,
                freed_line: None,
            },
        );
        addr
    }

    /// Give back an allocation at the `free` on `line`; freeing NULL does nothing.
    pub fn free(&self, addr: u64, line: u32) -> Result<(), FreeError> {
        if addr == 0 {
            return Ok(());
        }
        let Ok(mut s) = self.state.write() else {
            return Ok(());
        };
        if let Some(b) = s.blocks.get_mut(&addr) {
            if b.freed_line.is_some() {
                return Err(FreeError::Twice(*b));
            }
            b.freed_line = Some(line);
            return Ok(());
        }
        let within = s
            .blocks
            .range(..addr)
            .next_back()
            .filter(|(&base, b)| addr - base < b.size.max(1))
            .map(|(&base, b)| (base, *b));
        Err(FreeError::NotAllocated { within })
    }

    /// The access of `bytes` bytes at `addr` (inside the heap's range): `None` when it lies
    /// wholly in a live block, else what is wrong, as facts about the block it concerns.
    pub fn check(&self, addr: u64, bytes: u32) -> Option<HeapFacts> {
        let s = self.state.read().ok()?;
        let facts = |problem, base: u64, b: &BlockInfo| HeapFacts {
            problem,
            offset: addr as i128 - base as i128,
            bytes,
            block_size: b.size,
            malloc_line: b.malloc_line,
            freed_line: b.freed_line,
        };
        let Some((&base, b)) = s.blocks.range(..=addr).next_back() else {
            // Below every block: only when nothing was allocated before it.
            return Some(HeapFacts {
                problem: HeapProblem::NoBlock,
                offset: addr as i128 - self.base as i128,
                bytes,
                block_size: 0,
                malloc_line: 0,
                freed_line: None,
            });
        };
        let off = addr - base;
        let fits = off.checked_add(bytes as u64).is_some_and(|e| e <= b.size);
        match (fits, b.freed_line) {
            (true, None) => None,
            (true, Some(_)) => Some(facts(HeapProblem::AfterFree, base, b)),
            (false, _) if off < b.size && b.freed_line.is_some() => {
                Some(facts(HeapProblem::AfterFree, base, b))
            }
            (false, _) => Some(facts(HeapProblem::PastEnd, base, b)),
        }
    }
}

/// The words after "{who} {verb} {bytes} bytes at address {addr}{at_line}" for a heap access
/// `Heap::check` refused: first what the GPU backend says of such a fault (it knows less), then
/// what the emulator knows of the block.
pub fn access_message(f: &HeapFacts) -> String {
    let lead = "in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran";
    let from = from_line(f.malloc_line);
    let block = format!("the malloc'd block of {} bytes{from}", f.block_size);
    let detail = match f.problem {
        HeapProblem::NoBlock => "no block was malloc'd at or before this address".to_string(),
        HeapProblem::NoLiveBlock => {
            "past the end of a block, or a block used after free".to_string()
        }
        HeapProblem::AfterFree => format!(
            "it is byte {} of {block}, freed{} (a use after free)",
            f.offset,
            at(f.freed_line.unwrap_or(0))
        ),
        HeapProblem::PastEnd => {
            let size = f.bytes.max(1) as u64;
            let elems = f.block_size / size;
            let freed = match f.freed_line {
                Some(l) => format!(", which was also freed{}", at(l)),
                None => String::new(),
            };
            let as_elems = if f.block_size.is_multiple_of(size) && f.offset >= 0 {
                format!(
                    "; as {size}-byte elements that is element [{}] of a block that holds {elems} ([0] to [{}])",
                    f.offset as u64 / size,
                    elems as i128 - 1
                )
            } else {
                String::new()
            };
            if (f.offset as u64) < f.block_size {
                format!(
                    "it starts at byte {} of {block} and runs past its end{freed}{as_elems}",
                    f.offset
                )
            } else {
                format!(
                    "it is {} bytes past the end of {block}{freed}{as_elems}",
                    f.offset as u64 - f.block_size
                )
            }
        }
        HeapProblem::DoubleFree | HeapProblem::BadFree => String::new(),
    };
    format!("{lead}: {detail}")
}

/// The words after "{who} called free (or delete) on {addr}{at_line}, but " for a refused free.
pub fn free_message(e: &FreeError) -> String {
    match e {
        FreeError::Twice(b) => format!(
            "it was already freed{} (the block of {} bytes malloc'd{})",
            at(b.freed_line.unwrap_or(0)),
            b.size,
            at(b.malloc_line)
        ),
        FreeError::NotAllocated { within: Some((base, b)) } => format!(
            "its address was never returned by malloc or new: it points into the block of {} bytes malloc'd{}, which starts at {base:#x}",
            b.size,
            at(b.malloc_line)
        ),
        FreeError::NotAllocated { within: None } => {
            "its address was never returned by malloc or new".to_string()
        }
    }
}

/// The facts of a refused free at `addr`.
pub fn free_facts(e: &FreeError, addr: u64) -> HeapFacts {
    let (problem, base, b) = match e {
        FreeError::Twice(b) => (HeapProblem::DoubleFree, addr, Some(*b)),
        FreeError::NotAllocated { within } => (
            HeapProblem::BadFree,
            within.map_or(addr, |w| w.0),
            within.map(|w| w.1),
        ),
    };
    HeapFacts {
        problem,
        offset: addr as i128 - base as i128,
        bytes: 0,
        block_size: b.map_or(0, |b| b.size),
        malloc_line: b.map_or(0, |b| b.malloc_line),
        freed_line: b.and_then(|b| b.freed_line),
    }
}

/// " at line L", or nothing when the line is unknown.
fn at(line: u32) -> String {
    if line > 0 {
        format!(" at line {line}")
    } else {
        String::new()
    }
}

/// " from line L", or nothing when the line is unknown.
fn from_line(line: u32) -> String {
    if line > 0 {
        format!(" from line {line}")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_apart_and_end_in_null() {
        let h = Heap::new(0x1000);
        let a = h.malloc(3, 1);
        let b = h.malloc(40, 1);
        // 16 bytes and their red zone, then 48 and theirs.
        assert_eq!((a, b), (0x1000, 0x1020));
        assert_eq!(h.malloc(HEAP_SIZE, 1), 0);
        let c = h.malloc(16, 1);
        assert_eq!(c, 0x1080);
        assert_eq!(h.malloc(u64::MAX, 1), 0);
        // The limit counts the blocks, not their red zones: 8 blocks of 1 MiB fit.
        let h = Heap::new(0x1000);
        let mut last = 0;
        for _ in 0..7 {
            last = h.malloc(1 << 20, 1);
        }
        assert_ne!(last, 0);
        let eighth = h.malloc(1 << 20, 1);
        assert_ne!(eighth, 0);
        assert!(eighth + (1 << 20) <= 0x1000 + REGION);
        assert_eq!(h.malloc(1 << 20, 1), 0);
    }

    #[test]
    fn free_checks_its_address() {
        let h = Heap::new(0x1000);
        let a = h.malloc(8, 3);
        assert_eq!(h.free(0, 4), Ok(()));
        let inside = BlockInfo {
            size: 8,
            malloc_line: 3,
            freed_line: None,
        };
        assert_eq!(
            h.free(a + 4, 4),
            Err(FreeError::NotAllocated {
                within: Some((a, inside))
            })
        );
        assert_eq!(
            h.free(a + 8, 4),
            Err(FreeError::NotAllocated { within: None })
        );
        assert_eq!(h.free(a, 5), Ok(()));
        let twice = h.free(a, 6);
        assert_eq!(
            twice,
            Err(FreeError::Twice(BlockInfo {
                freed_line: Some(5),
                ..inside
            }))
        );
        let Err(e) = twice else { unreachable!() };
        assert_eq!(
            free_message(&e),
            "it was already freed at line 5 (the block of 8 bytes malloc'd at line 3)"
        );
        assert_eq!(free_facts(&e, a).problem, HeapProblem::DoubleFree);
    }

    #[test]
    fn an_access_is_checked_against_its_own_block() {
        let h = Heap::new(0x1000);
        // Four floats, then another block after a's red zone.
        let a = h.malloc(16, 7);
        let b = h.malloc(16, 8);
        assert_eq!(b, a + 32);
        assert_eq!(h.check(a, 4), None);
        assert_eq!(h.check(a + 12, 4), None);
        assert_eq!(h.check(b, 16), None);
        // a[4] to a[7] land in a's red zone, not in b.
        for i in 4..8 {
            let f = h.check(a + 4 * i, 4).expect("past a");
            assert_eq!((f.problem, f.malloc_line), (HeapProblem::PastEnd, 7));
        }
        let past = h.check(a + 12, 8).expect("runs past a");
        assert_eq!(past.problem, HeapProblem::PastEnd);
        assert_eq!(
            (past.offset, past.block_size, past.malloc_line),
            (12, 16, 7)
        );
        // A 12-byte block: its fourth float is in the padding before the next block.
        let c = h.malloc(12, 9);
        let f = h.check(c + 12, 4).expect("past c");
        assert_eq!(
            (f.problem, f.offset, f.block_size),
            (HeapProblem::PastEnd, 12, 12)
        );
        assert!(access_message(&f).contains(
            "0 bytes past the end of the malloc'd block of 12 bytes from line 9; as 4-byte elements that is element [3] of a block that holds 3 ([0] to [2])"
        ), "{}", access_message(&f));
        // Past every block, in space never allocated: the last block's overrun.
        let f = h.check(c + 4096, 4).expect("past everything");
        assert_eq!((f.problem, f.offset), (HeapProblem::PastEnd, 4096));
    }

    #[test]
    fn a_freed_block_is_a_use_after_free() {
        let h = Heap::new(0x1000);
        let a = h.malloc(4, 4);
        h.free(a, 6).expect("a live block");
        let f = h.check(a, 4).expect("freed");
        assert_eq!(f.problem, HeapProblem::AfterFree);
        assert_eq!(f.freed_line, Some(6));
        let m = access_message(&f);
        assert!(m.starts_with("in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran"), "{m}");
        assert!(m.ends_with("it is byte 0 of the malloc'd block of 4 bytes from line 4, freed at line 6 (a use after free)"), "{m}");
    }

    #[test]
    fn an_access_before_any_block_names_none() {
        let h = Heap::new(0x1000);
        let f = h.check(0x1000, 4).expect("nothing allocated");
        assert_eq!(f.problem, HeapProblem::NoBlock);
    }
}
