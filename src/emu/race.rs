//! The global-memory race checker (`global-race`): two threads of one launch touch the same
//! global word, at least one of them writes without an atomic, and nothing orders them.
//!
//! What orders two accesses:
//! - the same thread (program order);
//! - a `__syncthreads()` between them, for threads of one block (`Mem::epoch` counts barrier
//!   intervals); `__syncwarp(mask)` and other warp collectives, for the lanes of one warp that
//!   took part in them (as in the shared-memory checker; `block/order.rs`);
//! - for different blocks, only a release/acquire chain: a block releases when one of its
//!   threads does a global atomic after a `__threadfence()`; a thread acquires what was released
//!   into a word when it does an atomic on that word, and its whole block acquires it at the
//!   next `__syncthreads()` (the last-block reduction: every block fences and `atomicInc`s a
//!   counter, the block that sees it is last reads everyone's partial sums).
//!
//! Atomics never race with atomics. A plain write racing with an atomic is reported, and so is
//! a plain read of a word another thread of the block updates atomically in the same interval
//! (it sees a value in the middle of the updates), except against a compare-and-swap or an
//! exchange: a CAS loop starts with a plain read. An atomic leaves the word's state with no
//! thread's key (`THREAD_MASK`), so the next read, even by the same thread, meets the interval
//! table once. Between blocks, plain reads of atomically updated words are not checked
//! (spin-waits on flags read so).
//!
//! Accesses of different widths are checked byte by byte, as the shared-memory checker does:
//! the first 1- or 2-byte access to a word splits it, its state copied into four byte states
//! (`GlobalMem::race_bytes`, the word's own state becoming `SPLIT`), and from then on every
//! access of the word steps the states of the bytes it covers; the interval table splits the
//! word's entry the same way until the next barrier (`Interval::for_bytes`). So a `char`
//! written into a `float` another thread writes is a race, and threads writing neighbouring
//! `char`s are not. While blocks run at once a byte access claims its whole word (a conflict
//! reruns the blocks in order, where it is decided byte by byte).
//!
//! Memory: one `u32` per 4-byte global word for the whole launch (`WordState`, in
//! `GlobalMem::races`; the words are stored densely, whatever the distance between buffers,
//! see `memory.rs`), four more per word accessed in pieces, a per-block table of the words
//! touched in the current barrier interval (cleared at every barrier), and per released word
//! the set of blocks it publishes. The word state names only the last block, thread and
//! interval, so the other side of a race between blocks (its thread and line) is found by
//! running the blocks before it again with a watch on the word (`launch::watch_rerun`), only
//! when such a race was found.
//!
//! Limits, all ways to miss a race, never to invent one: blocks `BLOCK_SPAN` apart and
//! intervals 8 apart can share a number; a block's writes after its release still count as
//! released; plain reads of words other blocks update atomically are not checked, nor, inside
//! a block, the pieces of words past the first 2^30 (4 GiB of buffers); in a block of 1024
//! threads, thread 1023's own read after an atomic is not checked (its key is the "no thread"
//! one); a word remembers only the last block that touched it; at most 8 races between blocks
//! are reported per launch (`MAX_CROSS_RACES` in `launch.rs`: each costs a watch).
//!
//! Cost: the first access of a block-interval to each word takes the table, so kernels bound
//! by global loads pay most (when it was added, CPU time of one job: matmul 256^2 560 -> 1040 ms,
//! reduction of 2^22 floats 2690 -> 3390 ms); parallel blocks that share read-only words also
//! move the word's state between cores.
//!
//! This file keeps the state (word states, interval tables, block sets, watches), which the
//! launch and the blocks hold; the checks that work on a block are `race/check.rs`.

use super::access_kind::Kind;
use super::shadow::NONE;
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) mod check;

// The `u32` state of one global word (0 = untouched):
//   bits 0..10   the thread (index in its block) that last touched it
//   bits 10..25  that thread's block, as `block % BLOCK_SPAN + 1`
//   bits 25..28  the barrier interval of that access, modulo 8
//   bit 28       BLOCK_WROTE: that block wrote the word (plainly)
//   bit 29       THREAD_WROTE: that thread wrote it in that interval
//   bit 30       READERS: several threads of the block read it in that interval, none wrote
//   bit 31       BLOCKS_READ: other blocks read it too (or updated it atomically), unordered
// Only the recorded block's own accesses take the fast path (`fast_ok`), so a number that
// repeats (blocks `BLOCK_SPAN` apart, intervals 8 apart) can hide a race but never invent one.
const THREAD_MASK: u32 = (1 << 10) - 1;
const BLOCK_SHIFT: u32 = 10;
/// How many blocks the state tells apart.
pub(super) const BLOCK_SPAN: u32 = (1 << 15) - 1;
const BLOCK_MASK: u32 = ((1 << 15) - 1) << BLOCK_SHIFT;
const EPOCH_SHIFT: u32 = 25;
const EPOCH_MASK: u32 = 7 << EPOCH_SHIFT;
const KEY_MASK: u32 = THREAD_MASK | BLOCK_MASK | EPOCH_MASK;
const BLOCK_WROTE: u32 = 1 << 28;
const THREAD_WROTE: u32 = 1 << 29;
const READERS: u32 = 1 << 30;
const BLOCKS_READ: u32 = 1 << 31;
/// The state of a word accessed in pieces: its bytes' states are in `GlobalMem::race_bytes`.
/// No access leaves this state (its block number is 0, which no block has), and neither
/// `fast_ok` nor `read_ok` accepts it, so every access of the word reaches the slow path.
pub(super) const SPLIT: u32 = READERS;

/// The block and interval part of a word state's key (the thread is or-ed in per access).
pub(super) fn block_key(block_index: u32, epoch: u32) -> u32 {
    ((block_index % BLOCK_SPAN + 1) << BLOCK_SHIFT) | ((epoch & 7) << EPOCH_SHIFT)
}

/// True when the access needs nothing done: the same thread already touched the word in this
/// interval (and, for a write, wrote it, with no reader since), or several threads of the block
/// only read it in this interval and this is another read.
#[inline(always)]
pub(super) fn fast_ok(s: u32, key: u32, write: bool) -> bool {
    if write {
        s & (KEY_MASK | THREAD_WROTE | READERS | BLOCKS_READ) == key | THREAD_WROTE
    } else {
        read_ok(s, key & !THREAD_MASK, key & THREAD_MASK)
    }
}

/// `fast_ok` of a read, with the key in its block-and-interval part `block` (the same for
/// every lane of a warp, `Mem::gkey`) and its `thread`. Several readers first: what nearly
/// every lane of a warp load finds (a matrix's elements, read by a whole row or column of
/// threads).
#[inline(always)]
fn read_ok(s: u32, block: u32, thread: u32) -> bool {
    s & (BLOCK_MASK | EPOCH_MASK | READERS | THREAD_WROTE) == block | READERS
        || s & KEY_MASK == block | thread
}

/// An access of another block that conflicts with this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Conflict {
    /// The other block's number in the state (`block % BLOCK_SPAN + 1`); meaningless when
    /// `several`.
    field: u32,
    /// Several other blocks read the word (which ones is not recorded).
    several: bool,
    /// The other block wrote it.
    other_wrote: bool,
}

/// The next state of a word after an access with `key` (block, interval, thread), and the
/// other block's conflicting access if there is one. Conflicts inside the block are decided
/// by the interval table, not here.
#[inline(always)]
pub(super) fn transition(s: u32, key: u32, kind: Kind) -> (u32, Option<Conflict>) {
    let wrote = if kind == Kind::Write {
        THREAD_WROTE | BLOCK_WROTE
    } else {
        0
    };
    if s == 0 {
        return (key | wrote, None);
    }
    if s & BLOCK_MASK != key & BLOCK_MASK {
        let other_wrote = s & BLOCK_WROTE != 0;
        if kind == Kind::Write || other_wrote {
            let c = Conflict {
                field: s & BLOCK_MASK,
                several: s & BLOCKS_READ != 0 && !other_wrote,
                other_wrote,
            };
            // Ordered or reported, what came before no longer matters to this block.
            return (key | wrote, Some(c));
        }
        return (key | BLOCKS_READ, None);
    }
    let several = s & BLOCKS_READ;
    let block_wrote = s & BLOCK_WROTE;
    match kind {
        Kind::Write => {
            let c = (several != 0).then_some(Conflict {
                field: 0,
                several: true,
                other_wrote: false,
            });
            (key | THREAD_WROTE | BLOCK_WROTE, c)
        }
        Kind::Read => {
            let same_interval = s & EPOCH_MASK == key & EPOCH_MASK;
            if same_interval && s & THREAD_MASK == key & THREAD_MASK {
                (s, None)
            } else if same_interval && s & THREAD_WROTE == 0 {
                // Keep the first reader; note that there are several.
                (s | READERS, None)
            } else {
                (key | block_wrote | several, None)
            }
        }
        // No thread's key: the next read of the word, even by this thread, goes to the
        // interval table, where a plain read racing another thread's atomic is found.
        Kind::Atomic => (key | THREAD_MASK | block_wrote | several, None),
    }
}

/// Move a word's state on by an access with `key` (`transition`), with a compare-and-swap
/// when blocks run at once (`parallel`); the other block's conflicting access, if any. With
/// `keep_on_conflict`, a conflict leaves the state as it was (the caller then hands the access
/// to `global_race_slow`, which decides it from the start).
#[inline(always)]
fn advance(
    cell: &AtomicU32,
    key: u32,
    kind: Kind,
    parallel: bool,
    keep_on_conflict: bool,
) -> Option<Conflict> {
    let mut s = cell.load(Ordering::Relaxed);
    loop {
        let (next, c) = transition(s, key, kind);
        if (keep_on_conflict && c.is_some()) || next == s {
            return c;
        }
        if !parallel {
            // One block at a time: nobody else writes the state.
            cell.store(next, Ordering::Relaxed);
            return c;
        }
        match cell.compare_exchange_weak(s, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return c,
            Err(now) => s = now,
        }
    }
}

/// The block a state's block number stands for: the latest one at or before `me`.
fn block_of(field: u32, me: u32) -> u32 {
    let theirs = (field >> BLOCK_SHIFT).saturating_sub(1) as u64;
    let mine = (me % BLOCK_SPAN) as u64;
    let span = BLOCK_SPAN as u64;
    me.saturating_sub(((mine + span - theirs % span) % span) as u32)
}

/// A set of block indices (a bitset).
#[derive(Clone, Default, Debug)]
pub(super) struct BlockSet(Vec<u64>);

impl BlockSet {
    pub(super) fn insert(&mut self, b: u32) {
        let i = (b / 64) as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] |= 1 << (b % 64);
    }

    pub(super) fn union(&mut self, o: &BlockSet) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    pub(super) fn contains(&self, b: u32) -> bool {
        self.0
            .get((b / 64) as usize)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    }

    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}

/// What the threads of the running block acquired from other blocks (see the module docs).
#[derive(Default)]
pub(super) struct Acquired {
    /// Acquired by the whole block (at a barrier after the acquiring atomic).
    block: BlockSet,
    /// Acquired by one thread since the last barrier: (thread, blocks).
    threads: Vec<(u32, BlockSet)>,
}

impl Acquired {
    fn thread_mut(&mut self, t: u32) -> &mut BlockSet {
        let i = match self.threads.iter().position(|(x, _)| *x == t) {
            Some(i) => i,
            None => {
                self.threads.push((t, BlockSet::default()));
                self.threads.len() - 1
            }
        };
        &mut self.threads[i].1
    }

    fn has(&self, t: u32, b: u32) -> bool {
        self.block.contains(b) || self.threads.iter().any(|(x, s)| *x == t && s.contains(b))
    }

    /// Every block before `me` (a write after reads by blocks that were not recorded). Word by
    /// word, so a block that acquired nothing answers at once.
    fn has_all_before(&self, t: u32, me: u32) -> bool {
        let empty = BlockSet::default();
        let mine = self
            .threads
            .iter()
            .find(|(x, _)| *x == t)
            .map_or(&empty, |(_, s)| s);
        let word = |i: usize| {
            self.block.0.get(i).copied().unwrap_or(0) | mine.0.get(i).copied().unwrap_or(0)
        };
        let full = (me / 64) as usize;
        let rest = me % 64;
        (0..full).all(|i| word(i) == u64::MAX)
            && (rest == 0 || word(full) & ((1u64 << rest) - 1) == (1u64 << rest) - 1)
    }

    /// A barrier: what each thread acquired is now the block's.
    pub(super) fn barrier(&mut self) {
        for (_, s) in std::mem::take(&mut self.threads) {
            self.block.union(&s);
        }
    }

    pub(super) fn clear(&mut self) {
        self.block.clear();
        self.threads.clear();
    }
}

/// Who touched a word in the current barrier interval of the block. Threads are linear
/// indices within the block (at most 1024, so 16 bits; `NOBODY` for none), so a record is 44
/// bytes.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    wline: u32,
    wsync: u32,
    rline: u32,
    rsync: u32,
    aline: u32,
    async_: u32,
    writer: u16,
    reader: u16,
    atomic: u16,
    /// A second, different thread also read it.
    many: bool,
    /// With `many`: the second reader, its line and warp count (later readers are not
    /// recorded; most take the fast path). A write is checked against it as well as against
    /// `reader`, which may be the writer itself or ordered before it.
    reader2: u16,
    rline2: u32,
    rsync2: u32,
    /// The last atomic was a compare-and-swap or an exchange: a plain read racing it is the
    /// first read of a compare-and-swap loop (correct), not checked.
    acas: bool,
}

/// No thread, in an `Entry`.
const NOBODY: u16 = u16::MAX;

const ENTRY0: Entry = Entry {
    wline: 0,
    wsync: 0,
    rline: 0,
    rsync: 0,
    aline: 0,
    async_: 0,
    writer: NOBODY,
    reader: NOBODY,
    atomic: NOBODY,
    many: false,
    reader2: NOBODY,
    rline2: 0,
    rsync2: 0,
    acas: false,
};

/// A thread of an `Entry` as a linear thread index (`NONE` for nobody).
#[inline(always)]
fn who(t: u16) -> u32 {
    if t == NOBODY {
        NONE
    } else {
        t as u32
    }
}

/// One slot of the interval table: a word and its entry, valid while `stamp` is the table's.
#[derive(Clone, Copy)]
struct Slot {
    word: u32,
    stamp: u32,
    entry: Entry,
}

const SLOT0: Slot = Slot {
    word: 0,
    stamp: 0,
    entry: ENTRY0,
};

/// The words the block touched in the current barrier interval: an open-addressing table
/// (linear probing, at most three quarters full) whose slots belong to the current interval only while
/// their stamp is the table's, so clearing it at a barrier (every few instructions in a
/// reduction) is one increment, and a lookup is a multiply and, nearly always, one probe.
pub(super) struct Interval {
    slots: Vec<Slot>,
    /// The words accessed in pieces (a byte or a half-word) in this interval, byte by byte:
    /// byte `b` of word `w` under the key `4w + b`, and byte 0 present for every such word.
    /// Absent until the first such access.
    bytes: Option<Box<Interval>>,
    /// Slots in use in this interval.
    used: usize,
    /// The current interval's stamp (never 0, the stamp of a never-used slot).
    stamp: u32,
    /// 32 minus log2 of the number of 8-slot runs: a hash's top bits pick a run.
    shift: u32,
}

impl Default for Interval {
    fn default() -> Interval {
        Interval {
            slots: Vec::new(),
            bytes: None,
            used: 0,
            stamp: 1,
            shift: 32,
        }
    }
}

impl Interval {
    /// Forget every word (a new barrier interval, or a new block).
    pub(super) fn clear(&mut self) {
        if let Some(b) = self.bytes.as_mut() {
            b.clear();
        }
        if self.used == 0 {
            return;
        }
        self.used = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Stamps start over: no old slot may look current.
            self.slots.fill(SLOT0);
            self.stamp = 1;
        }
    }

    /// Where `word`'s probe starts: runs of 8 neighbouring words (a thread walking a row, a
    /// warp reading consecutive elements) stay neighbours in the table, so they share cache
    /// lines; the runs themselves are spread by Fibonacci hashing (the top bits of a product).
    #[inline(always)]
    fn home(word: u32, shift: u32, mask: usize) -> usize {
        let run = ((word >> 3).wrapping_mul(0x9E37_79B9) >> shift) as usize;
        ((run << 3) | (word & 7) as usize) & mask
    }

    /// The entry of `word` if the interval has one.
    fn get(&self, word: u32) -> Option<&Entry> {
        if self.used == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = Self::home(word, self.shift, mask);
        loop {
            let s = &self.slots[i];
            if s.stamp != self.stamp {
                return None;
            }
            if s.word == word {
                return Some(&s.entry);
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether `word` is checked byte by byte in this interval (see `bytes`).
    #[inline(always)]
    fn split(&self, word: u32) -> bool {
        self.bytes
            .as_ref()
            .is_some_and(|b| b.used > 0 && b.get(word.wrapping_mul(4)).is_some())
    }

    /// `f` on the entries of bytes `lo..hi` of `word`, which is split first if it is not yet:
    /// each of its four bytes starts from the word's entry. Not for words past the first 2^30
    /// (4 GiB of buffers), whose byte keys would not fit 32 bits: those are not checked.
    fn for_bytes(&mut self, word: u32, lo: u32, hi: u32, mut f: impl FnMut(&mut Entry)) {
        if word >= 1 << 30 {
            return;
        }
        let split = self.split(word);
        let whole = if split {
            ENTRY0
        } else {
            self.get(word).copied().unwrap_or(ENTRY0)
        };
        let bytes = self.bytes.get_or_insert_with(Box::default);
        let key = |b: u32| word.wrapping_mul(4).wrapping_add(b);
        if !split {
            for b in 0..4 {
                *bytes.entry(key(b)) = whole;
            }
        }
        for b in lo..hi {
            f(bytes.entry(key(b)));
        }
    }

    /// The entry of `word`, a fresh one (nobody touched it) when it is new to the interval.
    #[inline(always)]
    fn entry(&mut self, word: u32) -> &mut Entry {
        if (self.used + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = Self::home(word, self.shift, mask);
        loop {
            let s = &self.slots[i];
            if s.stamp != self.stamp {
                break;
            }
            if s.word == word {
                return &mut self.slots[i].entry;
            }
            i = (i + 1) & mask;
        }
        self.used += 1;
        let s = &mut self.slots[i];
        *s = Slot {
            word,
            stamp: self.stamp,
            entry: ENTRY0,
        };
        &mut s.entry
    }

    /// Twice the slots (at least 64), the current interval's entries moved over.
    #[cold]
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![SLOT0; len]);
        // The top bits of a hash pick one of the len / 8 runs of slots.
        self.shift = 32 - (len / 8).trailing_zeros();
        let (stamp, mask) = (self.stamp, len - 1);
        for s in old.into_iter().filter(|s| s.stamp == stamp) {
            let mut i = Self::home(s.word, self.shift, mask);
            while self.slots[i].stamp == stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

/// A race with another block, reported once the launch is over: the other side's thread and
/// line are found by running the earlier blocks again with a watch on the word.
#[derive(Clone, Debug)]
pub(super) struct CrossRace {
    pub(super) word: usize,
    pub(super) addr: u64,
    /// The other block, when the state names it (else: the latest other block that touched it).
    pub(super) other_block: Option<u32>,
    pub(super) other_wrote: bool,
    pub(super) kind: Kind,
    pub(super) block: [u32; 3],
    pub(super) block_index: u32,
    pub(super) thread: [u32; 3],
    pub(super) line: u32,
    pub(super) file: u32,
    /// Further threads that raced the same way (same lines).
    pub(super) more: u64,
}

/// What the watch saw of one racing word in the earlier blocks: the last write, and the last
/// access of any kind, each as (block, thread, line).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    pub(super) write: Option<([u32; 3], [u32; 3], u32)>,
    pub(super) any: Option<([u32; 3], [u32; 3], u32, Kind)>,
}

/// A word watched in a rerun: which blocks count (`block`, or any before `before`). With
/// `first`, the first access counted is kept (blocks that run together, `cooperative.rs`: what
/// they do after the racing access comes later in the rerun too), else the last.
#[derive(Clone, Copy, Debug)]
pub(super) struct Watch {
    pub(super) word: usize,
    pub(super) block: Option<u32>,
    pub(super) before: u32,
    pub(super) first: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(block: u32, epoch: u32, t: u32) -> u32 {
        block_key(block, epoch) | t
    }

    #[test]
    fn a_thread_touching_its_own_word_stays_on_the_fast_path() {
        let k = key(0, 0, 3);
        let (s, c) = transition(0, k, Kind::Write);
        assert!(c.is_none());
        assert!(fast_ok(s, k, true) && fast_ok(s, k, false));
        // another thread, or the same thread after a barrier, goes to the slow path
        assert!(!fast_ok(s, key(0, 0, 4), false));
        assert!(!fast_ok(s, key(0, 1, 3), true));
    }

    #[test]
    fn many_readers_take_the_fast_path_but_a_writer_does_not() {
        let (s, _) = transition(0, key(0, 0, 1), Kind::Read);
        let (s, _) = transition(s, key(0, 0, 2), Kind::Read);
        assert!(fast_ok(s, key(0, 0, 7), false));
        assert!(!fast_ok(s, key(0, 0, 1), true));
    }

    #[test]
    fn blocks_conflict_when_one_writes() {
        let (s, _) = transition(0, key(0, 0, 1), Kind::Write);
        let (s2, c) = transition(s, key(1, 0, 1), Kind::Read);
        let c = c.expect("a read of another block's write");
        assert!(c.other_wrote && !c.several);
        assert_eq!(block_of(c.field, 1), 0);
        assert!(fast_ok(s2, key(1, 0, 1), false));
        // reads by several blocks do not conflict, a later write does
        let (r, _) = transition(0, key(0, 0, 0), Kind::Read);
        let (r, c) = transition(r, key(1, 0, 0), Kind::Read);
        assert!(c.is_none());
        let (_, c) = transition(r, key(1, 0, 0), Kind::Write);
        assert!(c.expect("a write after other blocks read").several);
        // atomics count as reads between blocks
        let (a, _) = transition(0, key(0, 0, 0), Kind::Atomic);
        let (a, c) = transition(a, key(1, 0, 0), Kind::Atomic);
        assert!(c.is_none());
        assert!(transition(a, key(2, 0, 0), Kind::Write).1.is_some());
    }

    #[test]
    fn block_numbers_repeat_only_far_apart() {
        assert_eq!(block_of(block_key(5, 0) & BLOCK_MASK, 9), 5);
        let far = BLOCK_SPAN + 7;
        assert_eq!(block_of(block_key(3, 0) & BLOCK_MASK, far), BLOCK_SPAN + 3);
        assert_eq!(block_of(block_key(8, 0) & BLOCK_MASK, far), 8);
    }

    #[test]
    fn block_sets() {
        let mut a = BlockSet::default();
        a.insert(3);
        a.insert(130);
        let mut b = BlockSet::default();
        b.insert(64);
        b.union(&a);
        assert!(b.contains(3) && b.contains(64) && b.contains(130) && !b.contains(4));
        let mut acq = Acquired::default();
        acq.thread_mut(0).union(&b);
        assert!(acq.has(0, 64) && !acq.has(1, 64));
        acq.barrier();
        assert!(acq.has(1, 64));
        assert!(!acq.has_all_before(1, 3));
        let mut all = BlockSet::default();
        (0..70).for_each(|b| all.insert(b));
        acq.thread_mut(2).union(&all);
        assert!(acq.has_all_before(2, 70) && !acq.has_all_before(2, 71));
        assert!(!acq.has_all_before(1, 70) && acq.has_all_before(1, 0));
    }

    #[test]
    fn the_interval_table_keeps_words_until_cleared() {
        let mut t = Interval::default();
        // Enough words to grow the table several times, spread and neighbouring.
        let words: Vec<u32> = (0..3000u32)
            .map(|i| i.wrapping_mul(7919) ^ (i & 3))
            .collect();
        for (i, &w) in words.iter().enumerate() {
            let e = t.entry(w);
            assert_eq!(e.reader, NOBODY, "word {w} is new");
            e.reader = i as u16;
        }
        for (i, &w) in words.iter().enumerate() {
            assert_eq!(t.entry(w).reader, i as u16, "word {w} kept its entry");
        }
        t.clear();
        for &w in &words {
            assert_eq!(
                t.entry(w).reader,
                NOBODY,
                "word {w} forgotten at the barrier"
            );
        }
        // A word accessed in pieces: each byte starts from the word's entry, until a barrier.
        t.entry(40).writer = 3;
        assert!(!t.split(40));
        let mut writers = Vec::new();
        t.for_bytes(40, 1, 2, |e| {
            writers.push(e.writer);
            e.writer = 9;
        });
        assert_eq!(writers, [3]);
        assert!(t.split(40) && !t.split(41));
        let mut all = Vec::new();
        t.for_bytes(40, 0, 4, |e| all.push(e.writer));
        assert_eq!(all, [3, 9, 3, 3], "byte 1 kept its own writer");
        t.clear();
        assert!(!t.split(40));
        // Stamps that wrap around start the table over.
        t.stamp = u32::MAX;
        t.entry(5).writer = 3;
        t.clear();
        assert_eq!(t.stamp, 1);
        assert_eq!(t.entry(5).writer, NOBODY);
    }
}
