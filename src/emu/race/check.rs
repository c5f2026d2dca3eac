//! The global race checker's checks: each global access of a thread against the word's state
//! and the block's interval table (`Mem::global_race` and its slow paths), the release and
//! acquire of atomics, and the report of races between blocks after a launch. What orders two
//! accesses, and the state kept (word states, interval tables, block sets), is in `race.rs`.

use super::*;
use crate::emu::block::order::ordered_by;
use crate::emu::block::{Mem, Thread};
use crate::emu::context::Launch;
use crate::emu::diag::{Diags, Namer, Site};
use crate::emu::facts::{Element, Facts, Hazard as FHazard, Space};
use crate::emu::result::{DiagKind, Severity};
use crate::ptx::ir::Inst;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hazard {
    /// A read after another thread's write.
    ReadAfterWrite,
    WriteAfterWrite,
    /// A write after another thread's read.
    WriteAfterRead,
    /// A plain write and an atomic update of the same word.
    Mixed,
    /// A plain read and another thread's atomic update of the same word.
    MixedRead,
}

/// One access as the interval table checks it: the thread (linear index in the block), its
/// warp's `__syncwarp` count, the line, the kind, and whether an atomic is a compare-and-swap
/// or an exchange.
struct Who<'a> {
    me: u32,
    sync: u32,
    /// What `me` knows of its warp's lanes once a collective left some out
    /// (`WarpOrder::row`; empty while every collective held the whole warp).
    row: &'a [u32],
    line: u32,
    kind: Kind,
    cas: bool,
}

impl Who<'_> {
    /// Check `e` (a word's or a byte's entry) against this access and record the access in
    /// it: the conflicting earlier access of another thread, as (hazard, thread, line).
    #[inline(always)]
    fn check(&self, e: &mut Entry) -> Option<(Hazard, u32, u32)> {
        let (me, sync, kind) = (self.me, self.sync, self.kind);
        let unordered = |other: u32, other_sync: u32| {
            other != NONE && other != me && !ordered_by(me, sync, self.row, other, other_sync)
        };
        let (writer, reader, atomic) = (who(e.writer), who(e.reader), who(e.atomic));
        let found = match kind {
            // A plain read of a word others update atomically is not checked here: the
            // first plain read of a compare-and-swap loop is one, and correct.
            Kind::Read => {
                if unordered(writer, e.wsync) {
                    Some((Hazard::ReadAfterWrite, writer, e.wline))
                } else {
                    (!e.acas && unordered(atomic, e.async_)).then_some((
                        Hazard::MixedRead,
                        atomic,
                        e.aline,
                    ))
                }
            }
            Kind::Write => {
                if unordered(writer, e.wsync) {
                    Some((Hazard::WriteAfterWrite, writer, e.wline))
                } else if unordered(reader, e.rsync) {
                    Some((Hazard::WriteAfterRead, reader, e.rline))
                } else if e.many && unordered(who(e.reader2), e.rsync2) {
                    // The first reader is this thread or ordered before it; the second is not.
                    Some((Hazard::WriteAfterRead, who(e.reader2), e.rline2))
                } else if unordered(atomic, e.async_) {
                    Some((Hazard::Mixed, atomic, e.aline))
                } else {
                    None
                }
            }
            Kind::Atomic => {
                if unordered(writer, e.wsync) {
                    Some((Hazard::Mixed, writer, e.wline))
                } else if !self.cas && reader != me && unordered(reader, e.rsync) {
                    Some((Hazard::MixedRead, reader, e.rline))
                } else {
                    None
                }
            }
        };
        // Linear thread indices are below 1024, so they fit an entry's 16 bits.
        let me16 = me as u16;
        match kind {
            Kind::Read => {
                if e.reader == NOBODY {
                    e.reader = me16;
                    e.rline = self.line;
                    e.rsync = sync;
                } else if e.reader != me16 && !e.many {
                    e.many = true;
                    e.reader2 = me16;
                    e.rline2 = self.line;
                    e.rsync2 = sync;
                }
            }
            Kind::Write => {
                e.writer = me16;
                e.wline = self.line;
                e.wsync = sync;
            }
            Kind::Atomic => {
                e.atomic = me16;
                e.aline = self.line;
                e.async_ = sync;
                e.acas = self.cas;
            }
        }
        found
    }
}

impl<'l> Mem<'l> {
    /// The checker's part of one global access (bounds already checked). Cheap when the same
    /// thread touches its own word again or many threads only read; everything else goes to
    /// `global_race_slow`. Also the claim of parallel blocks, and the watch of a rerun.
    #[inline(always)]
    pub(in crate::emu) fn global_race(
        &mut self,
        th: &Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        size: u32,
        kind: Kind,
    ) {
        let g = &self.launch.global;
        if g.races.is_empty() {
            if g.claims_tracked() {
                self.claim(addr, size, kind != Kind::Read);
            }
            if !self.launch.watch.is_empty() {
                self.launch.watch_access(
                    addr,
                    size,
                    self.block,
                    self.block_index,
                    th.tid,
                    inst.line,
                    kind,
                );
            }
            return;
        }
        if size >= 4 && kind != Kind::Atomic {
            let key = self.gkey | linear;
            let first = g.word_index(addr);
            let last = g.word_index(addr + size as u64 - 1);
            let write = kind == Kind::Write;
            // A plain loop: a 4-byte access (nearly all) is one word, and `RangeInclusive`'s
            // iterator costs more than the check here.
            let mut w = first;
            while w <= last && fast_ok(g.races[w].load(Ordering::Relaxed), key, write) {
                w += 1;
            }
            if w > last {
                return;
            }
            if size == 4 && kind == Kind::Read {
                // One word (aligned): the small function a warp's loads take, which hands
                // anything but a plain step on to `global_race_slow` (a thread's loads one at
                // a time cost nearly twice as much there).
                return self.read_word_slow(th, linear, inst, addr, first);
            }
        }
        self.global_race_slow(th, linear, inst, addr, size, kind);
    }

    /// Whether a plain 4-byte read of word `w` by the thread `linear` needs nothing from the
    /// checker (`fast_ok`; the race checker must be on). Otherwise `read_word_slow` does it.
    #[inline(always)]
    pub(in crate::emu) fn read_settled(&self, w: usize, linear: u32) -> bool {
        let races = &self.launch.global.races;
        races
            .get(w)
            .is_some_and(|s| read_ok(s.load(Ordering::Relaxed), self.gkey, linear))
    }

    /// `global_race_slow` of a plain aligned 4-byte read of word `w` at `addr`, the case of
    /// a warp's loads, with no other block's access to order it against: the state update and
    /// the interval table with the kind known, in one small function. A conflict with another
    /// block goes to `global_race_slow`, which decides it from the start.
    #[inline(never)]
    pub(in crate::emu) fn read_word_slow(
        &mut self,
        th: &Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        w: usize,
    ) {
        let key = self.gkey | linear;
        let parallel = self.launch.parallel;
        let Some(cell) = self.launch.global.races.get(w) else {
            return self.global_race_slow(th, linear, inst, addr, 4, Kind::Read);
        };
        if cell.load(Ordering::Relaxed) == SPLIT {
            return self.global_race_slow(th, linear, inst, addr, 4, Kind::Read);
        }
        if advance(cell, key, Kind::Read, parallel, true).is_some() {
            // The state was left as it was.
            return self.global_race_slow(th, linear, inst, addr, 4, Kind::Read);
        }
        if let Some((hazard, other, other_line)) = self.interval_check(linear, inst, w, Kind::Read)
        {
            self.report_block_race(th, inst, addr, (hazard, Kind::Read), other, other_line);
        }
    }

    #[inline(never)]
    pub(in crate::emu) fn global_race_slow(
        &mut self,
        th: &Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        size: u32,
        kind: Kind,
    ) {
        let parallel = self.launch.parallel;
        let key = self.gkey | linear;
        let g = &self.launch.global;
        let first = g.word_index(addr);
        let last = g.word_index(addr + size as u64 - 1);
        // Accesses are aligned: a byte or half-word access lies inside one word (these bytes
        // of it), every other access covers whole words.
        let (lo, hi) = if size < 4 {
            ((addr % 4) as u32, (addr % 4) as u32 + size)
        } else {
            (0, 4)
        };
        let mut reported = false;
        // An exclusive range: `RangeInclusive` costs more per step than the check here.
        for w in first..last + 1 {
            let cell = &self.launch.global.races[w];
            // Blocks running at once keep a word's state whole (a byte access claims its
            // word: a conflict reruns them in order, where it is decided byte by byte).
            let conflict = if parallel || (size >= 4 && cell.load(Ordering::Relaxed) != SPLIT) {
                advance(cell, key, kind, parallel, false)
            } else {
                self.advance_bytes(w, lo, hi, key, kind)
            };
            if let Some(c) = conflict {
                if parallel {
                    // Blocks running at once: the order of the two is timing. Rerun in order,
                    // where this is decided (and reported) deterministically.
                    self.launch.order_conflict();
                    return;
                }
                if !reported && !self.cross_ordered(linear, c) {
                    reported = true;
                    self.note_cross_race(th, inst, w, addr, c, kind);
                }
            }
            let found = if size < 4 {
                let who = Who {
                    me: linear,
                    sync: self.order.sync_of(linear),
                    row: self.order.row(linear),
                    line: inst.line,
                    kind,
                    cas: self.atomic_cas,
                };
                interval_check_bytes(&mut self.interval, &who, w, lo, hi)
            } else {
                self.interval_check(linear, inst, w, kind)
            };
            if let Some((hazard, other, other_line)) = found {
                if !reported {
                    reported = true;
                    self.report_block_race(th, inst, addr, (hazard, kind), other, other_line);
                }
            }
        }
    }

    /// `advance` of bytes `lo..hi` of word `w` (blocks one at a time): the word is split
    /// first if it is not yet, each byte starting from the word's state (see `SPLIT`). The
    /// first conflict of any of the bytes.
    #[cold]
    #[inline(never)]
    fn advance_bytes(&self, w: usize, lo: u32, hi: u32, key: u32, kind: Kind) -> Option<Conflict> {
        let g = &self.launch.global;
        let cell = &g.races[w];
        let Ok(mut split) = g.race_bytes.lock() else {
            return None;
        };
        let s = cell.load(Ordering::Relaxed);
        let bytes = split
            .entry(w)
            .or_insert([if s == SPLIT { 0 } else { s }; 4]);
        cell.store(SPLIT, Ordering::Relaxed);
        let mut found = None;
        for b in &mut bytes[lo as usize..hi as usize] {
            let (next, c) = transition(*b, key, kind);
            *b = next;
            found = found.or(c);
        }
        found
    }

    /// Whether this thread acquired the other block's accesses (see the module docs).
    #[cold]
    #[inline(never)]
    fn cross_ordered(&self, linear: u32, c: Conflict) -> bool {
        let me = self.block_index;
        if c.several {
            self.acquired.has_all_before(linear, me)
        } else {
            self.acquired.has(linear, block_of(c.field, me))
        }
    }

    #[cold]
    #[inline(never)]
    fn note_cross_race(
        &mut self,
        th: &Thread,
        inst: &Inst,
        word: usize,
        addr: u64,
        c: Conflict,
        kind: Kind,
    ) {
        if let Some(r) = self
            .cross
            .iter_mut()
            .find(|r| r.line == inst.line && r.kind == kind && r.file == inst.file)
        {
            if r.thread != th.tid || r.block != self.block {
                r.more += 1;
            }
            return;
        }
        let other_block = (!c.several).then(|| block_of(c.field, self.block_index));
        self.cross.push(CrossRace {
            word,
            addr,
            other_block,
            other_wrote: c.other_wrote,
            kind,
            block: self.block,
            block_index: self.block_index,
            thread: th.tid,
            line: inst.line,
            file: inst.file,
            more: 0,
        });
    }

    /// Record the access in the block's interval table; the conflicting earlier access of
    /// another thread of the block in this interval, if any, as (hazard, thread, line).
    /// Inline: a read's checker path (`read_word_slow`) gets it with the kind known.
    #[inline(always)]
    fn interval_check(
        &mut self,
        me: u32,
        inst: &Inst,
        w: usize,
        kind: Kind,
    ) -> Option<(Hazard, u32, u32)> {
        let who = Who {
            me,
            sync: self.order.sync_of(me),
            row: self.order.row(me),
            line: inst.line,
            kind,
            cas: self.atomic_cas,
        };
        if self.interval.split(w as u32) {
            return interval_check_bytes(&mut self.interval, &who, w, 0, 4);
        }
        who.check(self.interval.entry(w as u32))
    }

    #[allow(clippy::too_many_arguments)]
    #[cold]
    #[inline(never)]
    fn report_block_race(
        &mut self,
        th: &Thread,
        inst: &Inst,
        addr: u64,
        (hazard, kind): (Hazard, Kind),
        other: u32,
        other_line: u32,
    ) {
        let what = self.launch.element(addr);
        let namer = self.namer;
        let block = namer.block(self.block);
        let other_name = |o: u32| {
            if o == NONE {
                "another thread".to_string()
            } else {
                namer.thread(self.launch.tid_of(o))
            }
        };
        let line = inst.line;
        // A write on an earlier line than a read that came before it: the read ran too early
        // (threads happened to run in this order); report it as the read, where the fix goes.
        if hazard == Hazard::WriteAfterRead && other != NONE && other_line > line && line > 0 {
            let reader = self.launch.tid_of(other);
            if self.repeat_block_race(other_line, line, reader) {
                return;
            }
            let site = Site {
                file: self.launch.file_name(inst.file),
                line: other_line,
                block: self.block,
                thread: reader,
            };
            let (r, w) = (namer.thread(reader), namer.thread(th.tid));
            let facts = self.race_facts(
                addr,
                other,
                th.tid,
                Hazard::ReadAfterWrite,
                (Kind::Read, Kind::Write),
            );
            self.diags.report(DiagKind::GlobalRace, Severity::Error, site, Some(line), || {
                (
                    format!("{r} of {block} read {what} (line {other_line}) before {w} wrote it (line {line}), with nothing ordering them: on a GPU the read may get the old or the new value"),
                    facts,
                )
            });
            return;
        }
        // An atomic update after another thread's plain read: reported at the read, where
        // the fix (wait for the updates) goes.
        if hazard == Hazard::MixedRead && kind == Kind::Atomic && other != NONE {
            let reader = self.launch.tid_of(other);
            if self.repeat_block_race(other_line, line, reader) {
                return;
            }
            let site = Site {
                file: self.launch.file_name(inst.file),
                line: other_line,
                block: self.block,
                thread: reader,
            };
            let (r, a) = (namer.thread(reader), namer.thread(th.tid));
            let facts = self.race_facts(
                addr,
                linear_of_tid(self.launch, th.tid),
                reader,
                hazard,
                (Kind::Read, Kind::Atomic),
            );
            self.diags.report(DiagKind::GlobalRace, Severity::Error, site, Some(line), || {
                (
                    format!("{r} of {block} read {what} (line {other_line}) while {a} updated it atomically (line {line}), with nothing ordering them: the read may see any value in the middle of the updates"),
                    facts,
                )
            });
            return;
        }
        if self.repeat_block_race(line, other_line, th.tid) {
            return;
        }
        let site = self.site(th, inst);
        let (me_name, them) = (namer.thread(th.tid), other_name(other));
        let both = format!("{me_name} and {them} of {block}");
        let same_line = line == other_line;
        let (message, kinds) = match hazard {
            Hazard::ReadAfterWrite | Hazard::WriteAfterRead if same_line => (
                format!("{me_name} and {them} of {block} both run line {line} on {what}, one reading it while the other writes it, with nothing ordering them"),
                if hazard == Hazard::ReadAfterWrite { (Kind::Read, Kind::Write) } else { (Kind::Write, Kind::Read) },
            ),
            Hazard::ReadAfterWrite => (
                format!("{me_name} of {block} read {what} (line {line}) after {them} wrote it (line {other_line}), with nothing ordering them: on a GPU the read may get the old or the new value"),
                (Kind::Read, Kind::Write),
            ),
            Hazard::WriteAfterWrite => (
                format!("{both} both write {what} ({}) with nothing ordering them: on a GPU either value may be left", lines(other_line, line)),
                (Kind::Write, Kind::Write),
            ),
            Hazard::WriteAfterRead => (
                format!("{me_name} of {block} wrote {what} (line {line}) while {them} read it (line {other_line}), with nothing ordering them: on a GPU the read may get the new value"),
                (Kind::Write, Kind::Read),
            ),
            Hazard::MixedRead => (
                format!("{me_name} of {block} read {what} (line {line}) while {them} updated it atomically (line {other_line}), with nothing ordering them: the read may see any value in the middle of the updates"),
                (Kind::Read, Kind::Atomic),
            ),
            Hazard::Mixed => (
                format!("{both} access {what} with nothing ordering them, one with a plain write and one atomically ({}): the plain write can undo the atomic update", lines(other_line, line)),
                if kind == Kind::Atomic { (Kind::Atomic, Kind::Write) } else { (Kind::Write, Kind::Atomic) },
            ),
        };
        let facts = self.race_facts(addr, other, th.tid, hazard, kinds);
        self.diags.report(
            DiagKind::GlobalRace,
            Severity::Error,
            site,
            Some(other_line),
            || (message, facts),
        );
    }

    /// A race inside this block on global memory at `line` (against `other_line`) by `thread`
    /// already reported: count it as `Diags::report` would and say true, before the message
    /// (names, the element) is built, which every later access of a racing launch would pay.
    fn repeat_block_race(&mut self, line: u32, other_line: u32, thread: [u32; 3]) -> bool {
        self.diags.repeat(
            DiagKind::GlobalRace,
            Severity::Error,
            line,
            Some(other_line),
            self.block,
            thread,
        )
    }

    /// The facts of a race inside this block on the global word at `addr`, between the thread
    /// at `me` and the thread of linear index `other` (`NONE`: not known).
    fn race_facts(
        &self,
        addr: u64,
        other: u32,
        me: [u32; 3],
        hazard: Hazard,
        (mine, theirs): (Kind, Kind),
    ) -> Facts {
        let known = other != NONE;
        let b = self.launch.cfg.block;
        let me_linear = me[0] + b[0] * (me[1] + b[1] * me[2]);
        Facts::Race {
            space: Space::Global,
            hazard: match hazard {
                Hazard::ReadAfterWrite => FHazard::ReadAfterWrite,
                Hazard::WriteAfterRead => FHazard::WriteAfterRead,
                Hazard::WriteAfterWrite => FHazard::WriteAfterWrite,
                Hazard::Mixed | Hazard::MixedRead => FHazard::AtomicAndPlain,
            },
            element: global_element(self.launch, addr),
            other_thread: known.then(|| self.launch.tid_of(other)),
            other_block: known.then_some(self.block),
            across_blocks: false,
            same_warp: known && other / 32 == me_linear / 32,
            block_threads: self.launch.threads_per_block(),
            mine: mine.access(),
            theirs: theirs.access(),
        }
    }

    /// A `__syncthreads()`: a new interval (clear its table) and what threads acquired is the
    /// block's.
    pub(in crate::emu) fn global_barrier(&mut self) {
        self.interval.clear();
        self.acquired.barrier();
        self.gkey = block_key(self.block_index, self.epoch);
    }

    /// A global atomic on the word at `addr`: acquire what was released into it, then release
    /// this block into it if the thread fenced before (see the module docs).
    pub(in crate::emu) fn atomic_order(&mut self, th: &Thread, linear: u32, addr: u64) {
        if self.launch.global.races.is_empty() {
            return;
        }
        let w = self.launch.global.word_index(addr);
        let released = &self.launch.released;
        if !th.fenced && !released.load(Ordering::Relaxed) {
            // Nothing was released yet, and this is no release: the usual histogram.
            return;
        }
        released.store(true, Ordering::Relaxed);
        let Ok(mut published) = self.launch.published.lock() else {
            return;
        };
        if let Some(set) = published.get(&w) {
            let set = set.clone();
            self.acquired.thread_mut(linear).union(&set);
        }
        if th.fenced {
            let mut mine = self.acquired.block.clone();
            if let Some((_, s)) = self.acquired.threads.iter().find(|(x, _)| *x == linear) {
                mine.union(s);
            }
            mine.insert(self.block_index);
            published.entry(w).or_default().union(&mine);
        }
    }
}

/// `line 7`, or `lines 5 and 7`.
fn lines(a: u32, b: u32) -> String {
    if a == b {
        format!("line {a}")
    } else {
        format!("lines {a} and {b}")
    }
}

/// A thread's linear index in its block.
fn linear_of_tid(launch: &Launch, tid: [u32; 3]) -> u32 {
    launch.linear(tid)
}

/// The global element at `addr`, as facts.
fn global_element(launch: &Launch, addr: u64) -> Option<Element> {
    launch.global.nearest(addr).map(|al| Element {
        name: al.name.clone(),
        index: (addr as i128 - al.base as i128).div_euclid(al.elem_size.max(1) as i128),
        len: al.len / al.elem_size.max(1),
    })
}

/// The diagnostics of the races between blocks found in a launch, with what the watch saw.
pub(in crate::emu) fn report_cross(
    launch: &Launch,
    namer: Namer,
    races: &[CrossRace],
    seen: &[Seen],
) -> Diags {
    let mut diags = Diags::default();
    for (r, s) in races.iter().zip(seen) {
        let what = launch.element(r.addr);
        let who = namer.who(r.thread, r.block);
        let line = r.line;
        let other = if r.other_wrote {
            s.write.map(|(b, t, l)| (b, t, l, Kind::Write))
        } else {
            s.any
        };
        let (other_who, other_line, other_kind) = match other {
            Some((b, t, l, k)) => (namer.who(t, b), l, k),
            None => (
                match r.other_block {
                    Some(b) => format!("a thread of {}", namer.block(launch.block_coords(b))),
                    None => "a thread of another block".to_string(),
                },
                0,
                if r.other_wrote {
                    Kind::Write
                } else {
                    Kind::Read
                },
            ),
        };
        let at = |l: u32| {
            if l > 0 {
                format!(" (line {l})")
            } else {
                String::new()
            }
        };
        let verb = |k: Kind| match k {
            Kind::Read => "read",
            Kind::Write => "wrote",
            Kind::Atomic => "atomically updated",
        };
        let message = format!(
            "{who} {} {what}{} after {other_who} {} it{}, and nothing orders the two blocks: on a GPU blocks run at the same time and in any order",
            verb(r.kind),
            at(line),
            verb(other_kind),
            at(other_line),
        );
        let site = Site {
            file: launch.file_name(r.file),
            line,
            block: r.block,
            thread: r.thread,
        };
        let more = r.more;
        let (other_block, other_thread) = match other {
            Some((b, t, _, _)) => (Some(b), Some(t)),
            None => (r.other_block.map(|b| launch.block_coords(b)), None),
        };
        let hazard = match (r.kind, other_kind) {
            (Kind::Atomic, Kind::Atomic) => FHazard::Update,
            (Kind::Atomic, _) | (_, Kind::Atomic) => FHazard::AtomicAndPlain,
            (Kind::Read, _) => FHazard::ReadAfterWrite,
            (Kind::Write, Kind::Read) => FHazard::WriteAfterRead,
            (Kind::Write, Kind::Write) => FHazard::WriteAfterWrite,
        };
        let facts = Facts::Race {
            space: Space::Global,
            hazard,
            element: global_element(launch, r.addr),
            other_thread,
            other_block,
            across_blocks: true,
            same_warp: false,
            block_threads: launch.threads_per_block(),
            mine: r.kind.access(),
            theirs: other_kind.access(),
        };
        diags.report(
            DiagKind::GlobalRace,
            Severity::Error,
            site,
            (other_line > 0).then_some(other_line),
            || (message, facts),
        );
        for _ in 0..more {
            diags.count_another(DiagKind::GlobalRace, line, other_line);
        }
    }
    diags
}

/// `interval_check` of bytes `lo..hi` of word `w` (a byte or half-word access, or any access
/// of a word such an access split in this interval): the first conflict of any of its bytes.
#[cold]
#[inline(never)]
fn interval_check_bytes(
    interval: &mut Interval,
    who: &Who,
    w: usize,
    lo: u32,
    hi: u32,
) -> Option<(Hazard, u32, u32)> {
    let mut found = None;
    interval.for_bytes(w as u32, lo, hi, |e| {
        let f = who.check(e);
        found = found.or(f);
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_after_several_readers_is_checked_against_more_than_the_first() {
        let at = |me: u32, sync: u32, kind: Kind| Who {
            me,
            sync,
            row: &[],
            line: 10 + me,
            kind,
            cas: false,
        };
        // Lane 0 reads (warp count 0), the warp meets (count 1), lane 1 reads, lane 0 writes.
        let mut e = ENTRY0;
        assert!(at(0, 0, Kind::Read).check(&mut e).is_none());
        assert!(at(1, 1, Kind::Read).check(&mut e).is_none());
        let found = at(0, 1, Kind::Write).check(&mut e);
        assert!(matches!(found, Some((Hazard::WriteAfterRead, 1, 11))));
        // Both reads before the meeting: ordered, no race.
        let mut e = ENTRY0;
        at(0, 0, Kind::Read).check(&mut e);
        at(1, 0, Kind::Read).check(&mut e);
        assert!(at(0, 1, Kind::Write).check(&mut e).is_none());
        // A reader of another warp is never ordered before the write.
        let mut e = ENTRY0;
        at(0, 0, Kind::Read).check(&mut e);
        at(40, 0, Kind::Read).check(&mut e);
        let found = at(0, 1, Kind::Write).check(&mut e);
        assert!(matches!(found, Some((Hazard::WriteAfterRead, 40, 50))));
    }
}
