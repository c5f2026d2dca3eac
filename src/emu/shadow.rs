//! The shadow of shared memory for the race and uninitialised-read checkers: what each byte
//! last saw in the current barrier interval. Also, at the end, the shadow of the outputs that
//! start as poison (`OutputShadow`): which of their bytes no thread has written yet.
//!
//! Kernels almost always touch shared memory in whole 4-byte words (floats, ints, and vectors of
//! them), so the state is kept per word: one record stands for its four bytes while they have
//! always been accessed together, and an aligned access of 4, 8 or 16 bytes costs one record
//! step per word instead of one per byte. The first 1- or 2-byte access to a word splits it:
//! its record is copied into four byte records (which then hold the same state the word did)
//! and the word is checked byte by byte from then on. The answers are thus exactly those of a
//! per-byte shadow; only the common case is cheaper.
//!
//! Within an interval, two accesses of lanes of one warp are ordered when a warp collective
//! both lanes took part in lies between them (`block/order.rs`: a `__syncwarp(mask)` orders
//! the lanes of its mask that arrived, no others).

use super::access_kind::Kind;
use super::block::{ordered_by, WarpOrder};
use std::sync::atomic::Ordering::Relaxed;

/// No thread (as a linear thread index).
pub(super) const NONE: u32 = u32::MAX;
/// No thread, in a record.
const NOBODY: u16 = u16::MAX;

/// What a byte (or a whole word) of shared memory last saw in this barrier interval. Epochs
/// (barrier intervals) and generations (blocks) keep counting across the blocks a `Block` runs,
/// so a stale entry is recognised by its numbers instead of being cleared. Threads are linear
/// indices within the block (at most 1024, so 16 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Record {
    epoch: u32,
    /// The block generation that last wrote the byte (written in this block iff equal).
    init_gen: u32,
    wline: u32,
    wsync: u32,
    rline: u32,
    rsync: u32,
    writer: u16,
    reader: u16,
    /// A second, different thread also read in this interval.
    many: bool,
    /// With `many`: the second reader, its line and warp count (later readers are not
    /// recorded: they take `unchanged` or `clean_read`). A write is checked against it as
    /// well as against `reader`, which may be the writer itself or ordered before it.
    reader2: u16,
    rline2: u32,
    rsync2: u32,
    /// The writer's last write was an atomic update: it conflicts with plain reads and
    /// writes of other threads, never with their atomics.
    atomic: bool,
    /// A word's record only: the word is checked byte by byte (after a 1- or 2-byte access),
    /// in `SharedShadow::bytes`. Kept here, in the record's padding, so that the common
    /// access reads one record and nothing else.
    split: bool,
    /// A word's record only: the shared variable (index + 1) holding all four bytes of the
    /// word, `VAR_UNKNOWN` until an access looks it up, `VAR_NONE` when no one variable does.
    /// Also in the padding: the bounds check of the fast path reads it from the record the
    /// checkers read next instead of from the launch's per-byte map.
    var: u16,
    /// A word's record only: the interval (`epoch`) in which several threads read the word,
    /// none wrote it, and it was written before in this block; `NOT_CLEAN` otherwise. Any
    /// read in that interval then finds nothing and changes nothing, which `clean_read`
    /// tells from this one field (the tiled matmul's inner loop, every lane reading a row of
    /// the tile). Set only by a step, after a bounds check of the access covering the whole
    /// word, so it also says that the word lies inside one variable.
    clean: u32,
}

/// Never an epoch (epochs start over long before they reach it).
const NOT_CLEAN: u32 = u32::MAX;

/// A word's variable not looked up yet.
const VAR_UNKNOWN: u16 = 0;
/// No one variable holds the word (or its index does not fit): ask the launch.
const VAR_NONE: u16 = u16::MAX;

const RECORD0: Record = Record {
    epoch: u32::MAX,
    init_gen: u32::MAX,
    wline: 0,
    wsync: 0,
    rline: 0,
    rsync: 0,
    writer: NOBODY,
    reader: NOBODY,
    many: false,
    reader2: NOBODY,
    rline2: 0,
    rsync2: 0,
    atomic: false,
    split: false,
    var: VAR_UNKNOWN,
    clean: NOT_CLEAN,
};

fn who(t: u16) -> u32 {
    if t == NOBODY {
        NONE
    } else {
        t as u32
    }
}

/// The access being checked, as every record step needs it.
pub(super) struct Probe<'a> {
    pub me: u32,
    pub line: u32,
    pub kind: Kind,
    pub epoch: u32,
    pub gen: u32,
    /// The `__syncwarp`/collective count of this thread's warp.
    pub sync: u32,
    /// What this thread knows of its warp's lanes (`WarpOrder::row`): empty while every
    /// collective of the warp had every lane, when `sync` says it all.
    pub know: &'a [u32],
}

/// The two accesses of a conflict, this one first: `Raw` is a read after another thread's
/// write, `Aar` an atomic update after a plain read, and so on (`A`: an atomic update). An
/// enum, not the names as strings: a racing launch finds one at nearly every access, and
/// comparing strings there cost a sixth of reporting it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pair {
    Raw,
    Waw,
    War,
    Raa,
    Waa,
    Aaw,
    Aar,
}

/// What a checked access found: whether it read never-written bytes, and its first conflict
/// (hazard, the other thread or `NONE`, the other line).
#[derive(Default, Debug, PartialEq, Eq)]
pub(super) struct Found {
    pub uninit: bool,
    /// The never-written bytes were read by an atomic update (which no other atomic races).
    pub uninit_atomic: bool,
    pub conflict: Option<(Pair, u32, u32)>,
    /// The access is the first of its word since the interval (`epoch`) in which another
    /// thread wrote it, or, for a write, read it: the barrier that ended that interval
    /// ordered the two (`Family::OrderingBarriers`).
    pub ordered: Option<u32>,
}

impl Probe<'_> {
    /// Lanes of one warp are ordered by a `__syncwarp` (or collective) between their accesses
    /// that both took part in (`block/order.rs`).
    fn ordered(&self, other: u32, other_sync: u32) -> bool {
        ordered_by(self.me, self.sync, self.know, other, other_sync)
    }

    /// Whether this access finds nothing and leaves the whole word's record `s` as it is: the
    /// same thread again in this interval, or another read of a word that only reads (by
    /// this thread or by several) touched since the barrier. Nearly every access after a
    /// word's first in an interval; `step` would come to the same answer the long way.
    #[inline(always)]
    fn unchanged(&self, s: &Record) -> bool {
        let me = self.me as u16;
        s.epoch == self.epoch
            && !s.split
            && match self.kind {
                Kind::Read => {
                    s.init_gen == self.gen
                        && (s.writer == NOBODY || s.writer == me)
                        && (s.reader == me || s.many)
                }
                Kind::Write => {
                    s.writer == me
                        && !s.atomic
                        && s.wline == self.line
                        && s.wsync == self.sync
                        && s.init_gen == self.gen
                        && (s.reader == NOBODY || (s.reader == me && !s.many))
                }
                Kind::Atomic => false,
            }
    }

    /// Check one record against this access and update it: the step every byte takes.
    #[inline(always)]
    fn step(&self, s: &mut Record, found: &mut Found) {
        self.update(s, found);
        s.clean = if s.writer == NOBODY && s.many && s.init_gen == self.gen {
            self.epoch
        } else {
            NOT_CLEAN
        };
    }

    /// `step` but for the `clean` field.
    #[inline(always)]
    fn update(&self, s: &mut Record, found: &mut Found) {
        if s.epoch != self.epoch {
            let other = |t: u16| t != NOBODY && t as u32 != self.me;
            if other(s.writer)
                || (self.kind != Kind::Read && (other(s.reader) || (s.many && other(s.reader2))))
            {
                found.ordered = Some(s.epoch);
            }
            s.epoch = self.epoch;
            s.writer = NOBODY;
            s.reader = NOBODY;
            s.many = false;
            s.reader2 = NOBODY;
            s.atomic = false;
        }
        if self.kind != Kind::Write && s.init_gen != self.gen {
            found.uninit = true;
            found.uninit_atomic = self.kind == Kind::Atomic;
        }
        let me = self.me as u16;
        if found.conflict.is_none() {
            let (writer, reader) = (who(s.writer), who(s.reader));
            let atomic = self.kind == Kind::Atomic;
            // Atomics never race with each other; with a plain access of another thread they do.
            let writer_races = writer != NONE
                && writer != self.me
                && !self.ordered(writer, s.wsync)
                && !(atomic && s.atomic);
            if writer_races {
                found.conflict = Some((
                    match (self.kind, s.atomic) {
                        (Kind::Read, true) => Pair::Raa,
                        (Kind::Read, false) => Pair::Raw,
                        (Kind::Write, true) => Pair::Waa,
                        (Kind::Write, false) => Pair::Waw,
                        (Kind::Atomic, _) => Pair::Aaw,
                    },
                    writer,
                    s.wline,
                ));
            } else if atomic
                && reader != NONE
                && (reader != self.me || s.many)
                && !self.ordered(reader, s.rsync)
            {
                found.conflict = Some((
                    Pair::Aar,
                    if reader != self.me { reader } else { NONE },
                    s.rline,
                ));
            } else if self.kind == Kind::Write && reader != NONE {
                // Several readers: the first two are checked (either may be this thread, or
                // ordered before it by a `__syncwarp`). Readers of two warps are never both
                // ordered before one write.
                let reader2 = who(s.reader2);
                if reader != self.me && !self.ordered(reader, s.rsync) {
                    found.conflict = Some((Pair::War, reader, s.rline));
                } else if s.many
                    && reader2 != NONE
                    && reader2 != self.me
                    && !self.ordered(reader2, s.rsync2)
                {
                    found.conflict = Some((Pair::War, reader2, s.rline2));
                }
            }
        }
        match self.kind {
            Kind::Read => {
                if s.reader == NOBODY {
                    s.reader = me;
                    s.rline = self.line;
                    s.rsync = self.sync;
                } else if s.reader != me && !s.many {
                    s.many = true;
                    s.reader2 = me;
                    s.rline2 = self.line;
                    s.rsync2 = self.sync;
                }
            }
            _ => {
                s.writer = me;
                s.wline = self.line;
                s.wsync = self.sync;
                s.init_gen = self.gen;
                s.atomic = self.kind == Kind::Atomic;
            }
        }
    }
}

/// What `SharedShadow::settled_read` knows of a read without stepping the word's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Settled {
    /// It finds nothing and changes nothing.
    Unchanged,
    /// It is the race it met before: a read after the write of this thread on this line.
    Raced(u32, u32),
}

/// The shadow of one block's shared memory (empty when the checkers are off).
#[derive(Default)]
pub(super) struct SharedShadow {
    /// One record per 4-byte word.
    words: Vec<Record>,
    /// Byte records of split words (allocated at the first split).
    bytes: Vec<Record>,
}

impl SharedShadow {
    /// A shadow of `len` bytes of shared memory, or an empty one (checkers off).
    pub(super) fn new(len: usize, on: bool) -> SharedShadow {
        if !on {
            return SharedShadow::default();
        }
        let words = len.div_ceil(4);
        SharedShadow {
            words: vec![RECORD0; words],
            bytes: Vec::new(),
        }
    }

    pub(super) fn is_on(&self) -> bool {
        !self.words.is_empty()
    }

    /// Forget everything (when the epoch and generation numbers start over).
    pub(super) fn clear(&mut self) {
        self.words.fill(RECORD0);
        self.bytes.clear();
    }

    /// Whether a 4-byte read at `off` (4-byte aligned) in interval `epoch` finds nothing and
    /// changes nothing, and lies inside one variable (see `Record::clean`).
    #[inline(always)]
    pub(super) fn clean_read(&self, off: u64, epoch: u32) -> bool {
        self.words
            .get((off / 4) as usize)
            .is_some_and(|r| r.clean == epoch)
    }

    /// True when the word records show that the aligned 4- or 8-byte access at `off` lies
    /// inside one shared variable; false when they cannot tell (a word shared by two
    /// variables or half outside shared memory, a word past the shadow): then ask the launch.
    /// `var_of(o)` is the variable (index) holding the word at offset `o` whole, looked up
    /// once per word.
    #[inline(always)]
    pub(super) fn known_inside(
        &mut self,
        off: u64,
        size: u32,
        var_of: impl Fn(u64) -> Option<usize>,
    ) -> bool {
        let w = (off / 4) as usize;
        let Some(words) = self.words.get_mut(w..w + (size / 4) as usize) else {
            return false;
        };
        let mut var = VAR_UNKNOWN;
        for (i, r) in words.iter_mut().enumerate() {
            if r.var == VAR_UNKNOWN {
                r.var = Self::lookup(&var_of, (w + i) as u64 * 4);
            }
            if r.var == VAR_NONE || (var != VAR_UNKNOWN && r.var != var) {
                return false;
            }
            var = r.var;
        }
        true
    }

    /// `known_inside` and `check` at once for a 4-byte access at `off` (4-byte aligned), the
    /// common one: what it found, or `None` (nothing checked) when the word's record cannot
    /// tell whether it lies inside one variable.
    #[inline(always)]
    pub(super) fn check_word(
        &mut self,
        p: &Probe,
        off: u64,
        var_of: impl Fn(u64) -> Option<usize>,
    ) -> Option<Found> {
        let w = (off / 4) as usize;
        let r = self.words.get_mut(w)?;
        if r.var == VAR_UNKNOWN {
            r.var = Self::lookup(&var_of, off);
        }
        if r.var == VAR_NONE {
            return None;
        }
        let mut found = Found::default();
        if r.split {
            for s in &mut self.bytes[w * 4..w * 4 + 4] {
                p.step(s, &mut found);
            }
        } else if !p.unchanged(r) {
            p.step(r, &mut found);
        }
        Some(found)
    }

    /// `check_word` of a 4-byte read at `off` (4-byte aligned) by thread `me` in interval
    /// `epoch` of block generation `gen`, in the two cases a racing launch meets at nearly
    /// every read the clean test (`clean_read`) does not take: the word lies inside one
    /// variable (its record knows which), was written in this block before, and this read
    /// changes no reader field (this thread read it already in this interval, or several
    /// did); and then either nobody but this thread wrote it in this interval (`Unchanged`:
    /// nothing found, as `Probe::unchanged`), or another thread did, unordered with this one
    /// (`order`), not atomically: the same race again, `Pair::Raw` against that writer
    /// (`Raced`). Either way the record stays as it is (`step` would only mark it not clean,
    /// which it already is). `None`: neither case, ask `check_word`. So after the first report
    /// of a race on a word, the checker's work on it is this one record test. Built without a
    /// `Probe`: the warp's order is looked at only when the writer is in this thread's warp.
    #[inline(always)]
    pub(super) fn settled_read(
        &self,
        me: u32,
        off: u64,
        epoch: u32,
        gen: u32,
        order: &WarpOrder,
    ) -> Option<Settled> {
        let r = self.words.get((off / 4) as usize)?;
        let me16 = me as u16;
        let settled = r.epoch == epoch
            && (r.reader == me16 || r.many)
            && r.init_gen == gen
            && !r.split
            && r.var != VAR_UNKNOWN
            && r.var != VAR_NONE;
        if !settled {
            return None;
        }
        if r.writer == NOBODY || r.writer == me16 {
            return Some(Settled::Unchanged);
        }
        let writer = r.writer as u32;
        // Threads of other warps are never ordered within an interval: the warp's order is
        // looked up only for a writer in this one.
        let raced = r.clean == NOT_CLEAN
            && !r.atomic
            && ((writer ^ me) >= 32 || !order.ordered(me, writer, r.wsync));
        raced.then_some(Settled::Raced(writer, r.wline))
    }

    #[cold]
    fn lookup(var_of: &impl Fn(u64) -> Option<usize>, off: u64) -> u16 {
        match var_of(off) {
            Some(v) if v + 1 < VAR_NONE as usize => v as u16 + 1,
            _ => VAR_NONE,
        }
    }

    /// Check the access `[off, off+total)` (naturally aligned, inside shared memory) and record it.
    #[inline(always)]
    pub(super) fn check(&mut self, p: &Probe, off: u64, total: u32) -> Found {
        let (first, end) = (off as usize, off as usize + total as usize);
        if first.is_multiple_of(4) && total.is_multiple_of(4) {
            if let Some(words) = self.words.get(first / 4..end / 4) {
                // A plain loop: `Iterator::all` was not inlined here.
                let mut clean = true;
                for s in words {
                    clean &= p.unchanged(s);
                }
                if clean {
                    return Found::default();
                }
            }
        }
        self.check_steps(p, first, end)
    }

    /// `check` record by record, for an access that changes a record or may find something.
    #[inline(never)]
    fn check_steps(&mut self, p: &Probe, off: usize, end: usize) -> Found {
        let mut found = Found::default();
        if off.is_multiple_of(4) && end.is_multiple_of(4) {
            for w in off / 4..end / 4 {
                if self.words[w].split {
                    for s in &mut self.bytes[w * 4..w * 4 + 4] {
                        p.step(s, &mut found);
                    }
                } else {
                    p.step(&mut self.words[w], &mut found);
                }
            }
        } else {
            for b in off..end {
                self.split_word(b / 4);
                p.step(&mut self.bytes[b], &mut found);
            }
        }
        found
    }

    /// From now on, check word `w` byte by byte (each byte starting from the word's state).
    fn split_word(&mut self, w: usize) {
        if self.words[w].split {
            return;
        }
        if self.bytes.is_empty() {
            self.bytes = vec![RECORD0; self.words.len() * 4];
        }
        let r = self.words[w];
        self.bytes[w * 4..w * 4 + 4].fill(r);
        self.words[w].split = true;
        self.words[w].clean = NOT_CLEAN;
    }

    fn record(&self, b: usize) -> &Record {
        let w = b / 4;
        if self.words[w].split {
            &self.bytes[b]
        } else {
            &self.words[w]
        }
    }

    /// Whether a thread other than `reader` wrote a byte of `[off, off+len)` in interval
    /// `epoch`, unordered with the reader's access (made at warp-sync count `rsync`): such a
    /// write explains a read of never-written memory as a race rather than a missing write.
    /// `order` tells what the writer knows now (at the barrier): a write after the read with
    /// no collective between (`wsync == rsync`) is never ordered after it; with one, it is
    /// taken as ordered when the writer knows the reader's access by now.
    /// An atomic reader is explained only by a plain write: another thread's atomic on the
    /// same bytes does not race it, so it read never-written memory all the same (a
    /// histogram whose bins were never zeroed).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn written_unordered(
        &self,
        off: u64,
        len: u32,
        reader: u32,
        rsync: u32,
        epoch: u32,
        atomic_reader: bool,
        order: &WarpOrder,
    ) -> bool {
        (off as usize..off as usize + len as usize).any(|b| {
            let s = self.record(b);
            let writer = who(s.writer);
            s.epoch == epoch
                && writer != NONE
                && writer != reader
                && !(atomic_reader && s.atomic)
                && !(s.wsync != rsync && order.ordered(writer, reader, rsync))
        })
    }
}

/// The bytes of the outputs that start as poison (`EmuOptions::poisoned`: what `cudaMalloc`
/// leaves) that no thread has written yet, so that a read of one is an uninitialised read as
/// on a GPU (`out[i] += a[i]` on an output nobody set). Only those buffers carry a shadow: a
/// launch without any has no range, and every global access pays one `is_empty` test. A byte
/// is unwritten when its element still holds the poison pattern at the launch (so the second
/// launch of a multi-launch puzzle sees what the first wrote), until a store or an atomic to
/// it. Bytes are atomics because blocks may run on several cores.
#[derive(Default)]
pub struct OutputShadow {
    ranges: Vec<PoisonRange>,
}

/// One poisoned output: its global address range and, per byte, 1 while unwritten.
struct PoisonRange {
    base: u64,
    end: u64,
    unwritten: Vec<std::sync::atomic::AtomicU8>,
}

impl OutputShadow {
    /// The shadow of the buffers among `buffers` (their base address and contents) whose name
    /// is in `poisoned`: each element still holding its type's poison is unwritten.
    pub fn of(buffers: &[(u64, &super::value::Buffer)], poisoned: &[String]) -> OutputShadow {
        use std::sync::atomic::AtomicU8;
        let ranges = buffers
            .iter()
            .filter(|(_, b)| poisoned.contains(&b.name))
            .filter_map(|&(base, b)| {
                let size = b.ty.size();
                let unwritten: Vec<AtomicU8> = (0..b.len())
                    .flat_map(|i| {
                        let v = b.holds_poison(i) as u8;
                        (0..size).map(move |_| AtomicU8::new(v))
                    })
                    .collect();
                unwritten
                    .iter()
                    .any(|u| u.load(Relaxed) != 0)
                    .then(|| PoisonRange {
                        base,
                        end: base + b.data.len() as u64,
                        unwritten,
                    })
            })
            .collect();
        OutputShadow { ranges }
    }

    /// No poisoned output has an unwritten byte at the launch: nothing to check.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The unwritten flags of the bytes `[addr, addr + len)` when they lie in a poisoned
    /// output (clipped to it; an access past its end is the bounds check's).
    #[inline(always)]
    fn bytes(&self, addr: u64, len: u32) -> Option<&[std::sync::atomic::AtomicU8]> {
        let r = self
            .ranges
            .iter()
            .find(|r| addr >= r.base && addr < r.end)?;
        let from = (addr - r.base) as usize;
        let to = (from + len as usize).min(r.unwritten.len());
        r.unwritten.get(from..to)
    }

    /// Whether a read of `[addr, addr + len)` takes a byte no thread has written.
    #[inline(always)]
    pub fn reads_unwritten(&self, addr: u64, len: u32) -> bool {
        self.bytes(addr, len)
            .is_some_and(|b| b.iter().any(|u| u.load(Relaxed) != 0))
    }

    /// A store (or an atomic) wrote `[addr, addr + len)`.
    #[inline(always)]
    pub fn wrote(&self, addr: u64, len: u32) {
        if let Some(b) = self.bytes(addr, len) {
            for u in b {
                u.store(0, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_named_poisoned_outputs_carry_a_shadow_until_written() {
        use crate::emu::value::{Buffer, ElemType};
        let mut out = Buffer::poisoned("out", ElemType::F32, 4);
        // Element 1 was written by an earlier launch: no longer poison.
        out.data[4..8].copy_from_slice(&1.0f32.to_le_bytes());
        let a = Buffer::poisoned("a", ElemType::F32, 4);
        let none = OutputShadow::of(&[(0x1000, &a)], &["out".to_string()]);
        assert!(none.is_empty(), "a buffer not named poisoned has no shadow");
        let s = OutputShadow::of(&[(0x1000, &out), (0x2000, &a)], &["out".to_string()]);
        assert!(!s.is_empty());
        assert!(s.reads_unwritten(0x1000, 4));
        assert!(
            !s.reads_unwritten(0x1004, 4),
            "written by an earlier launch"
        );
        // A float4 read over elements 0..3 takes unwritten bytes.
        assert!(s.reads_unwritten(0x1000, 16));
        assert!(!s.reads_unwritten(0x2000, 4), "not a poisoned output");
        s.wrote(0x1000, 4);
        assert!(!s.reads_unwritten(0x1000, 8));
        assert!(s.reads_unwritten(0x1000, 12), "element 2 still unwritten");
        s.wrote(0x1008, 8);
        assert!(!s.reads_unwritten(0x1000, 16));
        // Past the end is the bounds check's, not this one's.
        assert!(!s.reads_unwritten(0x1010, 4));
    }

    fn probe(me: u32, kind: Kind, epoch: u32, sync: &[u32]) -> Probe<'static> {
        Probe {
            me,
            line: 10 + me,
            kind,
            epoch,
            gen: 1,
            sync: sync[(me / 32) as usize],
            know: &[],
        }
    }

    #[test]
    fn atomics_race_plain_accesses_but_not_each_other() {
        let sync = [0u32; 2];
        // Thread 0 initialises the word; threads 1 and 2 meet in the next interval.
        let pair = |first: Kind, second: Kind| {
            let mut sh = SharedShadow::new(8, true);
            sh.check(&probe(0, Kind::Write, 1, &sync), 0, 4);
            sh.check(&probe(1, first, 2, &sync), 0, 4);
            sh.check(&probe(2, second, 2, &sync), 0, 4)
                .conflict
                .map(|c| c.0)
        };
        assert_eq!(pair(Kind::Atomic, Kind::Atomic), None);
        assert_eq!(pair(Kind::Atomic, Kind::Read), Some(Pair::Raa));
        assert_eq!(pair(Kind::Atomic, Kind::Write), Some(Pair::Waa));
        assert_eq!(pair(Kind::Write, Kind::Atomic), Some(Pair::Aaw));
        assert_eq!(pair(Kind::Read, Kind::Atomic), Some(Pair::Aar));
        assert_eq!(pair(Kind::Write, Kind::Write), Some(Pair::Waw));
        assert_eq!(pair(Kind::Write, Kind::Read), Some(Pair::Raw));
    }

    #[test]
    fn a_word_and_its_bytes_agree() {
        let sync = [0u32; 4];
        // Thread 0 writes a word; thread 40 (another warp) then reads one byte of it: the
        // split word keeps the write, so the byte read is a race with thread 0's line.
        let mut sh = SharedShadow::new(16, true);
        let f = sh.check(&probe(0, Kind::Write, 1, &sync), 4, 4);
        assert!(f.conflict.is_none() && !f.uninit);
        let f = sh.check(&probe(40, Kind::Read, 1, &sync), 6, 1);
        assert_eq!(f.conflict, Some((Pair::Raw, 0, 10)));
        // The word is split now; a whole-word read by thread 0 sees its own write, clean.
        let f = sh.check(&probe(0, Kind::Read, 1, &sync), 4, 4);
        assert!(f.conflict.is_none() && !f.uninit);
        // Thread 0 writing it again conflicts with thread 40's read of byte 6 only.
        let f = sh.check(&probe(0, Kind::Write, 1, &sync), 4, 4);
        assert_eq!(f.conflict, Some((Pair::War, 40, 50)));
    }

    #[test]
    fn bytes_of_one_word_written_by_different_threads_do_not_race() {
        let sync = [0u32; 4];
        let mut sh = SharedShadow::new(8, true);
        for t in 0..4u32 {
            let f = sh.check(&probe(t * 32, Kind::Write, 1, &sync), t as u64, 1);
            assert!(f.conflict.is_none(), "byte {t}");
        }
        // A later whole-word read by a fifth thread races with the first byte's writer.
        let f = sh.check(&probe(100, Kind::Read, 1, &sync), 0, 4);
        assert_eq!(f.conflict, Some((Pair::Raw, 0, 10)));
    }

    #[test]
    fn a_read_of_never_written_memory_is_found_and_a_new_interval_forgets_threads() {
        let sync = [0u32; 4];
        let order = WarpOrder::new(128);
        let mut sh = SharedShadow::new(8, true);
        assert!(sh.check(&probe(1, Kind::Read, 1, &sync), 0, 8).uninit);
        assert!(sh
            .check(&probe(2, Kind::Write, 1, &sync), 0, 4)
            .conflict
            .is_some());
        // Thread 2's write explains thread 1's read of bytes 0..8 as a race.
        assert!(sh.written_unordered(0, 8, 1, 0, 1, false, &order));
        assert!(!sh.written_unordered(4, 4, 1, 0, 1, false, &order));
        // After the barrier (epoch 2) the write is old news: a read is clean and initialised.
        let f = sh.check(&probe(3, Kind::Read, 2, &sync), 0, 4);
        assert!(f.conflict.is_none() && !f.uninit);
        assert!(!sh.written_unordered(0, 4, 1, 0, 2, false, &order));
    }

    #[test]
    fn a_partial_syncwarp_orders_only_the_lanes_that_met() {
        // Lane 1 writes a word; lane 0 reads it after a collective of its warp.
        let read_after = |met: u32| {
            let mut order = WarpOrder::new(32);
            let mut sh = SharedShadow::new(8, true);
            fn p(me: u32, kind: Kind, order: &WarpOrder) -> Probe<'_> {
                Probe {
                    me,
                    line: 10 + me,
                    kind,
                    epoch: 1,
                    gen: 1,
                    sync: order.sync_of(me),
                    know: order.row(me),
                }
            }
            sh.check(&p(1, Kind::Write, &order), 0, 4);
            order.collective(0, met);
            let found = sh.check(&p(0, Kind::Read, &order), 0, 4).conflict;
            // The other way round, the barrier-time question: lane 0 reads never-written
            // memory, the collective, then lane 1 writes it. The write explains the read as
            // a race exactly when the collective did not order them.
            let mut order2 = WarpOrder::new(32);
            let mut sh2 = SharedShadow::new(8, true);
            assert!(sh2.check(&p(0, Kind::Read, &order2), 0, 4).uninit);
            order2.collective(0, met);
            let war = sh2.check(&p(1, Kind::Write, &order2), 0, 4).conflict;
            let unordered = sh2.written_unordered(0, 4, 0, 0, 1, false, &order2);
            assert_eq!(war.is_some(), unordered, "mask {met:#x}");
            assert_eq!(found.is_some(), unordered, "mask {met:#x}");
            found
        };
        // `if (lane == 0) __syncwarp(1)`: lane 0 alone orders nothing.
        assert_eq!(read_after(0b1), Some((Pair::Raw, 1, 11)));
        assert_eq!(read_after(0b101), Some((Pair::Raw, 1, 11)));
        // Lanes 0 and 1 met, or the whole warp did.
        assert_eq!(read_after(0b11), None);
        assert_eq!(read_after(u32::MAX), None);
    }

    #[test]
    fn a_write_after_several_readers_is_checked_against_more_than_the_first() {
        fn p(me: u32, kind: Kind, epoch: u32, order: &WarpOrder) -> Probe<'_> {
            Probe {
                me,
                line: 10 + me,
                kind,
                epoch,
                gen: 1,
                sync: order.sync_of(me),
                know: order.row(me),
            }
        }
        // Written before the barrier; then lane 0 reads, the warp meets, lane 1 reads, lane 0
        // writes: lane 0's own read is ordered before its write, lane 1's is not.
        let (mut order, mut sh) = (WarpOrder::new(64), SharedShadow::new(8, true));
        sh.check(&p(2, Kind::Write, 0, &order), 0, 4);
        // The first access since thread 2's write: the barrier that ended interval 0 ordered
        // them (`Family::OrderingBarriers`); nothing is wrong.
        assert_eq!(
            sh.check(&p(0, Kind::Read, 1, &order), 0, 4),
            Found {
                ordered: Some(0),
                ..Found::default()
            }
        );
        order.collective(0, u32::MAX);
        assert_eq!(
            sh.check(&p(1, Kind::Read, 1, &order), 0, 4),
            Found::default()
        );
        let f = sh.check(&p(0, Kind::Write, 1, &order), 0, 4);
        assert_eq!(f.conflict, Some((Pair::War, 1, 11)));
        // Both reads before the meeting: ordered, no race.
        let (mut order, mut sh) = (WarpOrder::new(64), SharedShadow::new(8, true));
        sh.check(&p(2, Kind::Write, 0, &order), 0, 4);
        sh.check(&p(0, Kind::Read, 1, &order), 0, 4);
        sh.check(&p(1, Kind::Read, 1, &order), 0, 4);
        order.collective(0, u32::MAX);
        assert_eq!(sh.check(&p(0, Kind::Write, 1, &order), 0, 4).conflict, None);
        // A reader of another warp is never ordered before the write.
        let (mut order, mut sh) = (WarpOrder::new(64), SharedShadow::new(8, true));
        sh.check(&p(2, Kind::Write, 0, &order), 0, 4);
        sh.check(&p(0, Kind::Read, 1, &order), 0, 4);
        sh.check(&p(40, Kind::Read, 1, &order), 0, 4);
        order.collective(0, u32::MAX);
        let f = sh.check(&p(0, Kind::Write, 1, &order), 0, 4);
        assert_eq!(f.conflict, Some((Pair::War, 40, 50)));
    }

    #[test]
    fn word_records_know_their_variable() {
        // Variable 0 holds bytes 0..8, variable 1 bytes 8..14 (its last word is half outside).
        let var_of = |o: u64| match o {
            0..=4 => Some(0),
            8 => Some(1),
            _ => None,
        };
        let mut sh = SharedShadow::new(16, true);
        assert!(sh.known_inside(0, 8, var_of));
        assert!(sh.known_inside(4, 4, var_of));
        // Two variables, a word no one variable holds, past the shadow: ask the launch.
        assert!(!sh.known_inside(0, 16, var_of));
        assert!(!sh.known_inside(4, 8, var_of));
        assert!(!sh.known_inside(12, 4, var_of));
        assert!(!sh.known_inside(16, 4, var_of));
        // Looked up once: the records answer without asking again.
        assert!(sh.known_inside(0, 8, |_| None));
    }

    #[test]
    fn a_racing_read_met_again_takes_the_shortcut() {
        // Lane 3 writes a word; lanes 5 and 9 read it unordered (the first reads step the
        // record), then lane 9 reads it again: the same race, answered by the record alone.
        let sync = [0u32; 1];
        let mut order = WarpOrder::new(32);
        let mut sh = SharedShadow::new(8, true);
        sh.check_word(&probe(3, Kind::Write, 1, &sync), 4, |_| Some(0));
        assert_eq!(sh.settled_read(5, 4, 1, 1, &order), None, "first reader");
        sh.check_word(&probe(5, Kind::Read, 1, &sync), 4, |_| Some(0));
        sh.check_word(&probe(9, Kind::Read, 1, &sync), 4, |_| Some(0));
        assert_eq!(
            sh.settled_read(9, 4, 1, 1, &order),
            Some(Settled::Raced(3, 13))
        );
        let f = sh.check_word(&probe(9, Kind::Read, 1, &sync), 4, |_| Some(0));
        assert_eq!(f.and_then(|f| f.conflict), Some((Pair::Raw, 3, 13)));
        // The writer reading its own write among several readers finds nothing.
        assert_eq!(
            sh.settled_read(3, 4, 1, 1, &order),
            Some(Settled::Unchanged)
        );
        let f = sh.check_word(&probe(3, Kind::Read, 1, &sync), 4, |_| Some(0));
        assert_eq!(f, Some(Found::default()));
        // A thread's first read of a word written by nobody in this interval steps the record.
        sh.check_word(&probe(3, Kind::Write, 1, &sync), 0, |_| Some(0));
        sh.check_word(&probe(5, Kind::Read, 2, &sync), 0, |_| Some(0));
        assert_eq!(sh.settled_read(6, 0, 2, 1, &order), None, "a second reader");
        assert_eq!(
            sh.settled_read(5, 0, 2, 1, &order),
            Some(Settled::Unchanged)
        );
        // A read after the barrier, and one after a collective of the warp (ordered) are not
        // that race.
        assert_eq!(sh.settled_read(9, 4, 2, 1, &order), None);
        order.collective(0, u32::MAX);
        assert_eq!(sh.settled_read(9, 4, 1, 1, &order), None);
    }

    proptest::proptest! {
        /// A word checked through `check_word` ends as through `check`, finding the same.
        #[test]
        fn check_word_is_check_of_one_word(
            ops in proptest::collection::vec((0u32..3, 0u32..70, 0u64..16, 0u32..3, 0u32..4), 1..60),
        ) {
            let (mut a, mut b) = (SharedShadow::new(16, true), SharedShadow::new(16, true));
            for (kind, me, off, size, epoch) in ops {
                let kind = [Kind::Read, Kind::Write, Kind::Atomic][kind as usize];
                let p = Probe { me, line: 10 + me % 3, kind, epoch, gen: epoch / 2, sync: 0, know: &[] };
                let size = [1u32, 2, 4][size as usize];
                let off = off / size as u64 * size as u64;
                let fa = a.check(&p, off, size);
                let fb = if size == 4 {
                    b.check_word(&p, off, |_| Some(0)).expect("inside")
                } else {
                    b.check(&p, off, size)
                };
                proptest::prop_assert_eq!(fa, fb);
                for w in 0..4 {
                    let (ra, rb) = (a.words[w], b.words[w]);
                    proptest::prop_assert_eq!(Record { var: 0, ..ra }, Record { var: 0, ..rb });
                }
                // Byte records carry a copy of the word's `var`, which only `check_word` sets.
                let unvar = |v: &[Record]| v.iter().map(|r| Record { var: 0, ..*r }).collect::<Vec<_>>();
                proptest::prop_assert_eq!(unvar(&a.bytes), unvar(&b.bytes));
            }
        }

        /// The racing launch's shortcut agrees with the long way: whenever `settled_read` answers,
        /// `check_word` finds the same race and leaves the records as they were. Collectives
        /// of part of a warp (per-lane knowledge) and of all of it come between the accesses.
        #[test]
        fn a_settled_read_is_check_word_leaving_the_record(
            ops in proptest::collection::vec((0u32..4, 0u32..70, 0u64..4, 0u32..3, proptest::num::u32::ANY), 1..80),
        ) {
            let mut sh = SharedShadow::new(16, true);
            let mut order = WarpOrder::new(70);
            for (kind, me, word, epoch, mask) in ops {
                if kind == 3 {
                    order.collective((me / 32) as usize, if mask % 2 == 0 { u32::MAX } else { mask });
                    continue;
                }
                let kind = [Kind::Read, Kind::Write, Kind::Atomic][kind as usize];
                let p = Probe {
                    me,
                    line: 10 + me % 3,
                    kind,
                    epoch,
                    gen: 1,
                    sync: order.sync_of(me),
                    know: order.row(me),
                };
                let off = word * 4;
                let shortcut = if kind == Kind::Read { sh.settled_read(me, off, epoch, 1, &order) } else { None };
                let before = (sh.words.clone(), sh.bytes.clone());
                let found = sh.check_word(&p, off, |_| Some(0)).expect("inside");
                let want = match shortcut {
                    None => continue,
                    Some(Settled::Unchanged) => Found::default(),
                    Some(Settled::Raced(writer, line)) => Found { conflict: Some((Pair::Raw, writer, line)), ..Found::default() },
                };
                proptest::prop_assert_eq!(found, want);
                proptest::prop_assert!(before == (sh.words.clone(), sh.bytes.clone()));
            }
        }

        /// The early exit agrees with the long way: whenever `unchanged` says so, a step finds
        /// nothing and leaves the record as it was.
        #[test]
        fn unchanged_records_are_what_a_step_leaves_alone(
            ops in proptest::collection::vec((0u32..3, 0u32..70, 0u32..4, 0u32..2), 1..40),
        ) {
            let mut s = RECORD0;
            for (kind, me, epoch, sync) in ops {
                // A block's intervals share its generation (both count on at a block's start).
                let gen = epoch / 2;
                let kind = [Kind::Read, Kind::Write, Kind::Atomic][kind as usize];
                let p = Probe { me, line: 10 + me % 3, kind, epoch, gen, sync, know: &[] };
                let before = s;
                let mut found = Found::default();
                p.step(&mut s, &mut found);
                if p.unchanged(&before) {
                    proptest::prop_assert_eq!(s, before);
                    proptest::prop_assert_eq!(&found, &Found::default());
                }
                // A clean word is one any read leaves alone, finding nothing.
                if before.clean == epoch && kind == Kind::Read {
                    proptest::prop_assert_eq!(s, before);
                    proptest::prop_assert_eq!(&found, &Found::default());
                }
            }
        }
    }
}
