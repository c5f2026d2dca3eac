//! Loads, stores and atomics of one thread: resolving the state space, bounds and alignment
//! checks, counters, and the shared-memory race and uninitialised-read checkers.

use super::access_kind::Kind;
use super::alu::{self, atom_combine};
use super::block::{Mem, PendingUninit, Thread, WarpOrder, NONE};
use super::cluster::Target;
use super::diag::Site;
use super::facts::{Access as FAccess, Element, Facts, Hazard, Space as FSpace};
use super::memory::{classify, GlobalMem, Window};
use super::perf::Access;
use super::printf;
use super::result::{DiagKind, Severity};
use super::shadow::{Found, Pair, Probe, Settled};
use super::technique::{words, Family};
use crate::ptx::ir::{AtomOp, Inst, Op, Space, Ty};

/// Accesses logged per block for the performance figures (about 24 bytes each), shared out over
/// its threads; past it a thread's further accesses are not logged.
pub(super) const ACCESS_LOG_CAP: usize = 1 << 21;

/// " (line L)" after what a thread did, or nothing when the line is unknown.
fn at_line(line: u32) -> String {
    if line > 0 {
        format!(" (line {line})")
    } else {
        String::new()
    }
}

/// Where an access lands after resolving generic addresses.
#[derive(Clone, Copy)]
enum Place {
    Global(u64),
    Shared(u64),
    Local(u64),
    Param(u64),
}

impl Mem<'_> {
    /// Where a shared access at `p` lands when its address is another block's shared memory
    /// as `mapa` makes it (a thread-block cluster's distributed shared memory, `cluster.rs`);
    /// `None` for every other access.
    #[inline(always)]
    fn cluster_place(&self, p: Place) -> Option<Target> {
        match p {
            Place::Shared(o) if o >= super::cluster::DSMEM_BIT => {
                Some(super::cluster::target(self.launch, self.block, o))
            }
            _ => None,
        }
    }

    /// The grid workspace of a cooperative launch, when the access at `p` may be in it (its
    /// accesses are the library's: not counted, logged or checked; `cooperative.rs`).
    #[inline(always)]
    fn grid_workspace(&self, p: Place) -> Option<&super::cooperative::Workspace> {
        match p {
            Place::Global(a) if super::cooperative::Workspace::contains(a) => {
                self.launch.grid_workspace.as_ref()
            }
            _ => None,
        }
    }
}

fn place(space: Space, addr: u64) -> Place {
    match space {
        Space::Global | Space::Const => Place::Global(addr),
        Space::Shared => Place::Shared(addr),
        Space::Local => Place::Local(addr),
        Space::Param => Place::Param(addr),
        Space::Generic => match classify(addr) {
            Window::Global(a) => Place::Global(a),
            Window::Shared(o) => Place::Shared(o),
            Window::Local(o) => Place::Local(o),
        },
    }
}

/// A little-endian value of 1, 2, 4 or 8 bytes (any other length reads as the bytes it has).
/// The usual sizes are fixed-size loads, not a variable-length copy (which costs a `memcpy`
/// call per access).
#[inline(always)]
pub(super) fn le_read(bytes: &[u8]) -> u64 {
    match bytes.len() {
        4 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64,
        8 => u64::from_le_bytes([
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        ]),
        2 => u16::from_le_bytes([bytes[0], bytes[1]]) as u64,
        1 => bytes[0] as u64,
        n => {
            let mut w = [0u8; 8];
            let n = n.min(8);
            w[..n].copy_from_slice(&bytes[..n]);
            u64::from_le_bytes(w)
        }
    }
}

/// Store the low `dst.len()` (1, 2, 4 or 8) bytes of `v`, little-endian, with fixed-size
/// stores for those sizes.
#[inline(always)]
pub(super) fn le_write(dst: &mut [u8], v: u64) {
    match dst.len() {
        4 => dst.copy_from_slice(&(v as u32).to_le_bytes()),
        8 => dst.copy_from_slice(&v.to_le_bytes()),
        2 => dst.copy_from_slice(&(v as u16).to_le_bytes()),
        1 => dst[0] = v as u8,
        n => {
            let n = n.min(8);
            dst[..n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
}

/// Which report a race on shared memory between this access (`pair`, thread `me`, `line`)
/// and `other`'s on `other_line` counts, as (line, other line, thread), the way
/// `shared_found_report` decides it: a read that came too early (a write on an earlier line
/// after it) is the reader's report at the read; a store on an earlier line after another
/// thread's atomic update, the updater's at the update; anything else, this access's.
fn race_report_key(pair: Pair, me: u32, other: u32, line: u32, other_line: u32) -> (u32, u32, u32) {
    let later_other = other != NONE && other_line > line && line > 0;
    match pair {
        Pair::War | Pair::Aar | Pair::Waa if later_other => (other_line, line, other),
        _ => (line, other_line, me),
    }
}

impl<'l> Mem<'l> {
    /// Load `out.len()` elements of `size` bytes. Returns false (registers untouched) when the
    /// access was reported and skipped.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn load_vec(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        space: Space,
        addr: u64,
        size: u32,
        total: u32,
        out: &mut [u64],
    ) -> bool {
        let mut p = place(space, addr);
        if let (Place::Global(a), [o], Some(ws)) = (p, &mut *out, self.grid_workspace(p)) {
            if let Some(v) = ws.load(a, size) {
                *o = v;
                return true;
            }
        }
        match self.cluster_place(p) {
            Some(Target::Local(o)) => p = Place::Shared(o),
            Some(Target::Remote(b, o)) => {
                let launch = self.launch;
                let n = out.len() as u64;
                let done = super::cluster::remote(launch, b, o, n * size as u64, |bytes| {
                    for (o, c) in out.iter_mut().zip(bytes.chunks(size as usize)) {
                        *o = le_read(c);
                    }
                });
                if done.is_some() {
                    th.counters.shared_reads += n * words(size as u64);
                    if self.shadow.is_on() {
                        self.dsmem_access(th, linear, inst, b, o, total, Kind::Read);
                    }
                    return true;
                }
            }
            _ => {}
        }
        if !self.check(th, inst, p, size, total, Kind::Read) {
            return false;
        }
        let n = out.len() as u64;
        match p {
            Place::Global(a) => {
                th.counters.global_reads += n * words(size as u64);
                // One instruction however wide; an async copy, a wmma fragment load or
                // ldmatrix reading through here is not an `ld` (`Family::GlobalLoadInstrs`).
                if matches!(inst.op, Op::Ld { .. }) {
                    th.counters.count(Family::GlobalLoadInstrs, 1);
                }
                if !self.launch.outputs.is_empty() {
                    self.output_read(th, inst, a, total);
                }
                self.global_race(th, linear, inst, a, total, Kind::Read);
                for (i, o) in out.iter_mut().enumerate() {
                    *o = self.launch.global.read(a + i as u64 * size as u64, size);
                }
                self.log_at(th, a, total, false, Kind::Read);
            }
            Place::Shared(off) => {
                th.counters.shared_reads += n * words(size as u64);
                if self.asyncs.live() {
                    self.async_shared(th, linear, inst, off, total, Kind::Read);
                }
                if self.shadow.is_on() {
                    self.shared_checks(th, linear, inst, off, total, Kind::Read);
                }
                for (i, o) in out.iter_mut().enumerate() {
                    let s = (off + i as u64 * size as u64) as usize;
                    *o = le_read(&self.shared[s..s + size as usize]);
                }
                self.log_at(th, off, total, true, Kind::Read);
            }
            Place::Local(off) => {
                th.counters
                    .count(Family::LocalReads, n * words(size as u64));
                for (i, o) in out.iter_mut().enumerate() {
                    let s = (off + i as u64 * size as u64) as usize;
                    *o = th.local.read(s, size as usize).unwrap_or(0);
                }
            }
            Place::Param(off) => {
                for (i, o) in out.iter_mut().enumerate() {
                    let s = (off + i as u64 * size as u64) as usize;
                    *o = le_read(&th.params[s..s + size as usize]);
                }
            }
        }
        true
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_vec(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        space: Space,
        addr: u64,
        size: u32,
        vals: &[u64],
    ) {
        let total = size * vals.len() as u32;
        let mut p = place(space, addr);
        if let (Place::Global(a), [v], Some(ws)) = (p, vals, self.grid_workspace(p)) {
            if ws.store(a, size, *v) {
                return;
            }
        }
        match self.cluster_place(p) {
            Some(Target::Local(o)) => p = Place::Shared(o),
            Some(Target::Remote(b, o)) => {
                let launch = self.launch;
                let n = vals.len() as u64;
                let done = super::cluster::remote(launch, b, o, n * size as u64, |bytes| {
                    for (v, c) in vals.iter().zip(bytes.chunks_mut(size as usize)) {
                        le_write(c, *v);
                    }
                });
                if done.is_some() {
                    th.counters.shared_writes += n * words(size as u64);
                    if self.shadow.is_on() {
                        self.dsmem_access(th, linear, inst, b, o, total, Kind::Write);
                    }
                    return;
                }
            }
            _ => {}
        }
        if !self.check(th, inst, p, size, total, Kind::Write) {
            return;
        }
        let n = vals.len() as u64;
        match p {
            Place::Global(a) => {
                th.counters.global_writes += n * words(size as u64);
                if matches!(inst.op, Op::St { .. }) {
                    th.counters.count(Family::GlobalStoreInstrs, 1);
                }
                if !self.launch.outputs.is_empty() {
                    self.launch.outputs.wrote(a, total);
                }
                if self.asyncs.live() {
                    self.async_global_write(th, linear, inst, a, total);
                }
                self.global_race(th, linear, inst, a, total, Kind::Write);
                for (i, v) in vals.iter().enumerate() {
                    self.launch
                        .global
                        .write(a + i as u64 * size as u64, size, *v);
                }
                self.log_at(th, a, total, false, Kind::Write);
            }
            Place::Shared(off) => {
                th.counters.shared_writes += n * words(size as u64);
                self.wrote_shared(linear);
                if self.asyncs.live() {
                    self.async_shared(th, linear, inst, off, total, Kind::Write);
                }
                if self.shadow.is_on() {
                    self.shared_checks(th, linear, inst, off, total, Kind::Write);
                }
                for (i, v) in vals.iter().enumerate() {
                    let s = (off + i as u64 * size as u64) as usize;
                    le_write(&mut self.shared[s..s + size as usize], *v);
                }
                self.log_at(th, off, total, true, Kind::Write);
            }
            Place::Local(off) => {
                th.counters
                    .count(Family::LocalWrites, n * words(size as u64));
                for (i, v) in vals.iter().enumerate() {
                    let s = (off + i as u64 * size as u64) as usize;
                    th.local.write(s, size as usize, *v);
                }
            }
            Place::Param(off) => {
                for (i, v) in vals.iter().enumerate() {
                    let s = (off + i as u64 * size as u64) as usize;
                    le_write(&mut th.params[s..s + size as usize], *v);
                }
            }
        }
    }

    /// An atomic read-modify-write; returns the old value. Blocks run one at a time whenever a
    /// kernel has atomics, so a plain read then write is atomic here.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        space: Space,
        addr: u64,
        op: AtomOp,
        ty: Ty,
        b: u64,
        c: u64,
    ) -> u64 {
        let size = ty.size();
        let mut p = place(space, addr);
        match self.cluster_place(p) {
            Some(Target::Local(o)) => p = Place::Shared(o),
            Some(Target::Remote(blk, o)) => {
                let launch = self.launch;
                let done = super::cluster::remote(launch, blk, o, size as u64, |bytes| {
                    let old = le_read(bytes);
                    le_write(bytes, atom_combine(op, ty, old, b, c));
                    old
                });
                if let Some(old) = done {
                    th.counters.shared_reads += 1;
                    th.counters.shared_writes += 1;
                    th.counters.shared_atomics += 1;
                    if self.shadow.is_on() {
                        self.dsmem_access(th, linear, inst, blk, o, size, Kind::Atomic);
                    }
                    return old;
                }
            }
            _ => {}
        }
        if let (Place::Global(a), Some(ws)) = (p, self.grid_workspace(p)) {
            if let Some((old, flipped)) = ws.atomic(a, size, |old| atom_combine(op, ty, old, b, c))
            {
                if super::cooperative::Workspace::is_arrival(a, size) {
                    th.counters.count(Family::GridSyncs, 1);
                }
                if flipped {
                    // Every block reached the grid sync: what came before it is ordered
                    // before what comes after (`cooperative.rs`).
                    self.launch.global.forget_races();
                }
                return old;
            }
        }
        if !self.check(th, inst, p, size, size, Kind::Atomic) {
            return 0;
        }
        match p {
            Place::Global(a) => {
                th.counters.global_reads += 1;
                th.counters.global_writes += 1;
                th.counters.global_atomics += 1;
                if !self.launch.outputs.is_empty() {
                    // An exchange does not combine with the old value; every other atomic
                    // (an add into an output nobody set) reads it.
                    if !matches!(op, AtomOp::Exch) {
                        self.output_read(th, inst, a, size);
                    }
                    self.launch.outputs.wrote(a, size);
                }
                if self.asyncs.live() {
                    self.async_global_write(th, linear, inst, a, size);
                }
                self.atomic_cas = matches!(op, AtomOp::Cas | AtomOp::Exch);
                self.global_race(th, linear, inst, a, size, Kind::Atomic);
                self.atomic_order(th, linear, a);
                let old = self.launch.global.read(a, size);
                self.launch
                    .global
                    .write(a, size, atom_combine(op, ty, old, b, c));
                self.log_at(th, a, size, false, Kind::Atomic);
                old
            }
            Place::Shared(off) => {
                th.counters.shared_reads += 1;
                th.counters.shared_writes += 1;
                th.counters.shared_atomics += 1;
                self.wrote_shared(linear);
                if self.asyncs.live() {
                    self.async_shared(th, linear, inst, off, size, Kind::Atomic);
                }
                if self.shadow.is_on() {
                    self.shared_checks(th, linear, inst, off, size, Kind::Atomic);
                }
                let s = off as usize..(off + size as u64) as usize;
                let old = le_read(&self.shared[s.clone()]);
                let new = atom_combine(op, ty, old, b, c);
                le_write(&mut self.shared[s], new);
                self.log_at(th, off, size, true, Kind::Atomic);
                old
            }
            Place::Local(_) | Place::Param(_) => {
                let site = self.site(th, inst);
                let who = self.namer.who(th.tid, self.block);
                self.diags.report(DiagKind::OutOfBounds, Severity::Error, site, None, || {
                    (format!("{who} used an atomic on local memory, which atomics cannot address"), Facts::Bounds { space: FSpace::Local, access: FAccess::Atomic, element: None, address: 0, bytes: size, misaligned_to: None })
                });
                0
            }
        }
    }

    /// The fast path of a scalar global load: `None` (nothing done) unless the access is
    /// aligned and inside one allocation, in which case it is counted, logged and performed.
    /// `slot` caches the allocation this instruction last touched.
    #[inline(always)]
    pub(super) fn fast_global_load(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        size: u32,
        slot: u32,
    ) -> Option<u64> {
        if !self.global_hit(addr, size, slot) {
            return None;
        }
        Some(self.global_load_hit(th, linear, inst, addr, size))
    }

    /// A scalar global load whose address `global_hit` (or `global_hit_all`) accepted: counted,
    /// checked, logged and performed.
    #[inline(always)]
    pub(super) fn global_load_hit(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        size: u32,
    ) -> u64 {
        self.global_race(th, linear, inst, addr, size, Kind::Read);
        th.counters.global_reads += words(size as u64);
        th.counters.count(Family::GlobalLoadInstrs, 1);
        if !self.launch.outputs.is_empty() {
            self.output_read(th, inst, addr, size);
        }
        if self.accesses.is_some() {
            self.log_at(th, addr, size, false, Kind::Read);
        }
        self.launch.global.read(addr, size)
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fast_global_store(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        size: u32,
        slot: u32,
        v: u64,
    ) -> bool {
        if !self.global_hit(addr, size, slot) {
            return false;
        }
        self.global_store_hit(th, linear, inst, addr, size, v);
        true
    }

    /// A scalar global store whose address `global_hit` (or `global_hit_all`) accepted:
    /// counted, checked, logged and performed.
    #[inline(always)]
    pub(super) fn global_store_hit(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        addr: u64,
        size: u32,
        v: u64,
    ) {
        if self.asyncs.live() {
            self.async_global_write(th, linear, inst, addr, size);
        }
        self.global_race(th, linear, inst, addr, size, Kind::Write);
        th.counters.global_writes += words(size as u64);
        th.counters.count(Family::GlobalStoreInstrs, 1);
        if !self.launch.outputs.is_empty() {
            self.launch.outputs.wrote(addr, size);
        }
        if self.accesses.is_some() {
            self.log_at(th, addr, size, false, Kind::Write);
        }
        self.launch.global.write(addr, size, v);
    }

    /// Whether a warp's 4-byte global load whose addresses `global_hit_all` accepted can go
    /// through `global_load_warp`: the race checker is on (so the block-order claims and the
    /// rerun's watch, which only run without it, have nothing to do) and nothing is logged.
    #[inline(always)]
    pub(super) fn warp_loads(&self) -> bool {
        !self.launch.global.races.is_empty() && self.accesses.is_none()
    }

    /// A warp's 4-byte global load: what `global_load_hit` does for each lane of `on`, in lane
    /// order, with what is the same for every lane looked up once, the checker's common case
    /// inline and the rest out of line; the caller counts the reads. `addrs` are
    /// accepted by `global_hit_all`; `warp_loads` holds; `first` is lane 0's linear index,
    /// `pc` the load's instruction (where a diagnostic finds the lane); `out` is the
    /// destination register's column.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn global_load_warp(
        &mut self,
        warp: &mut [Thread],
        first: u32,
        on: u32,
        pc: u32,
        inst: &Inst,
        ty: Ty,
        addrs: &[u64; 32],
        out: &mut [u64],
    ) {
        if on == 0 {
            return;
        }
        // Every lane's address lies in one allocation (`global_hit_all`): its first word is
        // looked up once.
        let start = self
            .launch
            .global
            .alloc_start(addrs[on.trailing_zeros() as usize]);
        let mut m = on;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            let (addr, linear) = (addrs[i], first + i as u32);
            let w = GlobalMem::word_in(start, addr);
            if !self.read_settled(w, linear) {
                let th = &mut warp[i];
                // Where a diagnostic of the access finds the lane.
                th.pc = pc;
                self.read_word_slow(th, linear, inst, addr, w);
            }
            if !self.launch.outputs.is_empty() {
                let th = &mut warp[i];
                th.pc = pc;
                self.output_read(th, inst, addr, 4);
            }
            out[i] = alu::loaded(ty, self.launch.global.word(w) as u64);
        }
    }

    /// The addresses of a warp's access, `[lowest, highest, all of them or-ed together]`, are
    /// all aligned and inside one allocation: then no lane's access needs a check of its own
    /// (one test for the warp instead of one per lane).
    #[inline(always)]
    pub(super) fn global_hit_all(&mut self, span: [u64; 3], size: u32, slot: u32) -> bool {
        let [lo, hi, or] = span;
        if or & (size as u64 - 1) != 0 || !self.global_hit(lo, size, slot) {
            return false;
        }
        // `global_hit` left the allocation holding `lo` in the slot.
        let cached = self.alloc_cache.get(slot as usize).copied();
        match cached.and_then(|c| self.launch.global.allocs.get(c as usize)) {
            Some(a) => hi >= a.base && hi - a.base + size as u64 <= a.len,
            None => false,
        }
    }

    /// Note the access for the order check of parallel blocks (see `GlobalMem::claim`).
    #[inline(always)]
    pub(super) fn claim(&self, addr: u64, size: u32, write: bool) {
        if !self
            .launch
            .global
            .claim(addr, size, self.block_index, write)
        {
            self.launch.order_conflict();
        }
    }

    /// Aligned and inside one allocation (looked up through the instruction's cache slot).
    #[inline(always)]
    pub(super) fn global_hit(&mut self, addr: u64, size: u32, slot: u32) -> bool {
        let size = size as u64;
        if addr & (size - 1) != 0 {
            return false;
        }
        let g = &self.launch.global;
        let cached = self
            .alloc_cache
            .get(slot as usize)
            .copied()
            .unwrap_or(u32::MAX);
        if let Some(a) = g.allocs.get(cached as usize) {
            if addr >= a.base && addr - a.base + size <= a.len {
                return true;
            }
        }
        match g.find(addr, size) {
            // The device heap is checked block by block (`check`), never through the cache.
            Some(_)
                if self
                    .launch
                    .heap
                    .as_ref()
                    .is_some_and(|h| h.at_or_after(addr)) =>
            {
                false
            }
            Some(i) => {
                if let Some(c) = self.alloc_cache.get_mut(slot as usize) {
                    *c = i as u32;
                }
                true
            }
            None => false,
        }
    }

    /// A warp's 4-byte shared load with nothing to log: what `fast_shared_load` does for each
    /// lane of `on`, in lane order, with the common case inline: a lane whose word is a clean
    /// read (`SharedShadow::clean_read`: in bounds, and the checkers find and change nothing)
    /// just reads it; any other goes through the checkers out of line, which count its read.
    /// `out` is the destination register's column, `first` lane 0's linear index, `pc` the
    /// load's instruction (where a diagnostic finds the lane). Returns the lanes that read a
    /// clean word (the caller counts their reads) and the first lane the fast path declined,
    /// if any (the lanes before it did the load, it and those after it did not).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn shared_load_warp(
        &mut self,
        warp: &mut [Thread],
        first: u32,
        on: u32,
        pc: u32,
        inst: &Inst,
        ty: Ty,
        addrs: &[u64; 32],
        out: &mut [u64],
    ) -> (u32, Option<usize>) {
        let mut clean = 0;
        let mut m = on;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = addrs[i];
            if a & 3 == 0 && self.shadow.clean_read(a, self.epoch) && !self.asyncs.live() {
                clean |= 1 << i;
            } else {
                let th = &mut warp[i];
                // Where a diagnostic of the access finds the lane.
                th.pc = pc;
                if !self.fast_shared_checked::<false>(th, first + i as u32, inst, a, 4) {
                    return (clean, Some(i));
                }
            }
            // Both tests above found the word inside shared memory; `None` cannot happen.
            match self.shared.as_chunks::<4>().0.get((a / 4) as usize) {
                Some(w) => out[i] = alu::loaded(ty, u32::from_le_bytes(*w) as u64),
                None => return (clean & !(1 << i), Some(i)),
            }
        }
        (clean, None)
    }

    /// Whether a warp's `ld.shared.v2/v4` may take `shared_vec_clean`/`shared_vec_read` for
    /// its lanes: checkers on, nothing logged, no async copy in flight, not a cluster launch
    /// (each of which the general path, `load_vec`, has more to do for).
    #[inline(always)]
    pub(super) fn shared_vec_fast(&self) -> bool {
        self.accesses.is_none()
            && !self.asyncs.live()
            && self.launch.cluster.is_none()
            && self.shadow.is_on()
    }

    /// Whether a lane's `ld.shared` of `n` 4-byte words at `a` is aligned, inside one variable,
    /// and reads only clean words (`SharedShadow::clean_read`: the checkers find and change
    /// nothing): then `shared_vec_read` does all `load_vec` would (with `shared_vec_fast`).
    #[inline(always)]
    pub(super) fn shared_vec_clean(&self, a: u64, n: u64) -> bool {
        a.is_multiple_of(4 * n)
            && (0..n).all(|k| self.shadow.clean_read(a + 4 * k, self.epoch))
            && self.launch.shared_var(a, 4 * n).is_some()
    }

    /// The 4-byte word of shared memory at `a` (inside it: `shared_vec_clean` said so).
    #[inline(always)]
    pub(super) fn shared_word(&self, a: u64) -> u64 {
        let words = self.shared.as_chunks::<4>().0;
        words
            .get((a / 4) as usize)
            .map_or(0, |b| u32::from_le_bytes(*b) as u64)
    }

    /// A lane's clean vector shared load (see `shared_vec_clean`): the words at `a` into the
    /// registers `dst` of lane `lane` of the warp's register file `file`, counted.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shared_vec_read(
        &self,
        th: &mut Thread,
        a: u64,
        ty: Ty,
        dst: &[u32],
        file: &mut [u64],
        lane: usize,
    ) {
        let words = self.shared.as_chunks::<4>().0;
        let w = (a / 4) as usize;
        for (k, &r) in dst.iter().enumerate() {
            // Inside shared memory: `shared_var` said so.
            let v = words
                .get(w + k)
                .map_or(0, |b| u32::from_le_bytes(*b) as u64);
            file[r as usize * 32 + lane] = alu::loaded(ty, v);
        }
        th.counters.shared_reads += dst.len() as u64;
    }

    /// The fast path of a scalar shared load (bounds, alignment, counters, checkers, log).
    #[inline(always)]
    pub(super) fn fast_shared_load(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        size: u32,
    ) -> Option<u64> {
        if !self.fast_shared_access(th, linear, inst, off, size, Kind::Read) {
            return None;
        }
        let s = off as usize;
        Some(le_read(&self.shared[s..s + size as usize]))
    }

    #[inline(always)]
    pub(super) fn fast_shared_store(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        size: u32,
        v: u64,
    ) -> bool {
        if !self.fast_shared_access(th, linear, inst, off, size, Kind::Write) {
            return false;
        }
        self.wrote_shared(linear);
        let s = off as usize;
        le_write(&mut self.shared[s..s + size as usize], v);
        true
    }

    /// Thread `linear` wrote the block's shared memory in this barrier interval
    /// (`Family::SharedWriteWarps`, credited by `take_write_warps`).
    #[inline(always)]
    pub(super) fn wrote_shared(&mut self, linear: u32) {
        self.write_warps[(linear >> 5) as usize & 31] |= 1 << (linear & 31);
    }

    /// The barrier interval ended: per warp that wrote shared memory in it, its lowest
    /// writing lane (a block-linear thread index), and the interval's record starts over.
    pub(super) fn take_write_warps(&mut self) -> impl Iterator<Item = usize> {
        let w = std::mem::take(&mut self.write_warps);
        (0..32)
            .filter(move |&k| w[k] != 0)
            .map(move |k| k * 32 + w[k].trailing_zeros() as usize)
    }

    /// What a plain aligned, in-bounds shared access does besides moving the data: count it,
    /// check it for races, log it. False (nothing done) when the general path must report it.
    #[inline(always)]
    fn fast_shared_access(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        size: u32,
        kind: Kind,
    ) -> bool {
        if self.shadow.is_on() {
            return if kind == Kind::Read {
                self.fast_shared_checked_read(th, linear, inst, off, size)
            } else {
                self.fast_shared_checked::<true>(th, linear, inst, off, size)
            };
        }
        if off & (size as u64 - 1) != 0 || self.launch.shared_var(off, size as u64).is_none() {
            return false;
        }
        if kind == Kind::Read {
            th.counters.shared_reads += words(size as u64);
        } else {
            th.counters.shared_writes += words(size as u64);
        }
        if self.accesses.is_some() {
            self.log_at(th, off, size, true, kind);
        }
        true
    }

    /// `fast_shared_access` of a read with the checkers on. The common read of a tile
    /// (several readers, no writer in this interval) costs one record field; the rest goes
    /// on to `fast_shared_checked`. Out of line, and small, so that it needs few registers:
    /// the interpreter loop that inlines the fast path stays as small as with the checkers
    /// off (any more code there spilled registers and ran the checkers-off path a fifth to a
    /// third slower).
    #[inline(never)]
    fn fast_shared_checked_read(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        size: u32,
    ) -> bool {
        if size == 4
            && off & 3 == 0
            && self.shadow.clean_read(off, self.epoch)
            && !self.asyncs.live()
        {
            th.counters.shared_reads += 1;
            if self.accesses.is_some() {
                self.log_at(th, off, size, true, Kind::Read);
            }
            return true;
        }
        self.fast_shared_settled_read(th, linear, inst, off, size)
    }

    /// `fast_shared_checked_read` past the clean word: a read that changes no record
    /// (`SharedShadow::settled_read`: nearly every read of a racing launch) is counted, and
    /// when it meets a race it met before, goes straight to the report's memo, as
    /// `fast_shared_checked` would after looking at the record; anything else goes on to
    /// `fast_shared_checked`.
    #[inline(never)]
    fn fast_shared_settled_read(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        size: u32,
    ) -> bool {
        if self.settled_reads
            && size == 4
            && off & 3 == 0
            && !self.asyncs.live()
            && self.launch.cluster.is_none()
        {
            let settled = self
                .shadow
                .settled_read(linear, off, self.epoch, self.gen, &self.order);
            if let Some(settled) = settled {
                th.counters.shared_reads += 1;
                if let Settled::Raced(writer, wline) = settled {
                    // `shared_found` of a `Raw` race: its report is (this line, the write's
                    // line, this thread), counted at once when the memo knows where it is.
                    match self.race_memo.index(inst.line, wline) {
                        Some(i) if off < self.launch.unchecked_shared_from => {
                            self.diags.count_at(i, self.block, th.tid)
                        }
                        _ => {
                            let found = Found {
                                conflict: Some((Pair::Raw, writer, wline)),
                                ..Found::default()
                            };
                            self.shared_found(th, linear, inst, off, size, found);
                        }
                    }
                }
                if self.accesses.is_some() {
                    self.log_at(th, off, size, true, Kind::Read);
                }
                return true;
            }
        }
        self.fast_shared_checked::<false>(th, linear, inst, off, size)
    }

    /// `fast_shared_access` with the checkers on, out of line (see `fast_shared_checked_read`).
    #[inline(never)]
    fn fast_shared_checked<const WRITE: bool>(
        &mut self,
        th: &mut Thread,
        linear: u32,
        inst: &Inst,
        off: u64,
        size: u32,
    ) -> bool {
        if off & (size as u64 - 1) != 0 {
            return false;
        }
        let launch = self.launch;
        let kind = if WRITE { Kind::Write } else { Kind::Read };
        if self.asyncs.live() && launch.shared_var(off, size as u64).is_some() {
            self.async_shared(th, linear, inst, off, size, kind);
        }
        // (In a cluster launch every shared access goes through `shared_checks`, which also
        // checks it against the other blocks' accesses.)
        if size == 4 && launch.cluster.is_none() {
            // The common access, one word: its record gives the bounds and the checkers'
            // answer at once.
            let probe = Self::probe(&self.order, (self.epoch, self.gen), linear, inst, kind);
            if let Some(found) = self
                .shadow
                .check_word(&probe, off, |o| launch.shared_var(o, 4))
            {
                if WRITE {
                    th.counters.shared_writes += words(size as u64);
                } else {
                    th.counters.shared_reads += words(size as u64);
                }
                if let Some(e) = found.ordered {
                    self.ordered_by(e, linear);
                }
                if found.uninit || found.conflict.is_some() {
                    self.shared_found(th, linear, inst, off, size, found);
                }
                if self.accesses.is_some() {
                    self.log_at(th, off, size, true, kind);
                }
                return true;
            }
        }
        // The shadow's word records know their variable (the record the checkers read next);
        // when they cannot tell, the launch's per-byte map decides.
        let known = size >= 4
            && self
                .shadow
                .known_inside(off, size, |o| launch.shared_var(o, 4));
        if !known && launch.shared_var(off, size as u64).is_none() {
            return false;
        }
        if WRITE {
            th.counters.shared_writes += words(size as u64);
        } else {
            th.counters.shared_reads += words(size as u64);
        }
        self.shared_checks(th, linear, inst, off, size, kind);
        if self.accesses.is_some() {
            self.log_at(th, off, size, true, kind);
        }
        true
    }

    fn log_at(&mut self, th: &Thread, addr: u64, size: u32, shared: bool, kind: Kind) {
        if let Some(acc) = self.accesses.as_mut() {
            let t = self.launch.linear(th.tid) as usize;
            // Bounded memory: the figures come from each thread's first accesses only, the
            // same count for every lane, so lanes in step still group together.
            if acc[t].len() >= ACCESS_LOG_CAP / self.launch.threads_per_block() as usize {
                return;
            }
            acc[t].push(Access {
                pc: th.pc,
                func: th.func,
                addr,
                size,
                shared,
                write: kind != Kind::Read,
                atomic: kind == Kind::Atomic,
                failed: false,
            });
        }
    }

    /// A traced launch's log of an access `check` refused (out of bounds or misaligned), so a
    /// picture can show where it went. Only on that cold path and only when traced; never in a
    /// log the perf figures read.
    #[cold]
    fn log_failed(&mut self, th: &Thread, p: Place, total: u32, kind: Kind) {
        if !self.launch.trace || self.launch.opts_perf() {
            return;
        }
        let (addr, shared) = match p {
            Place::Global(a) => (a, false),
            Place::Shared(o) => (o, true),
            Place::Local(_) | Place::Param(_) => return,
        };
        let Some(acc) = self.accesses.as_mut() else {
            return;
        };
        let t = self.launch.linear(th.tid) as usize;
        let cap = ACCESS_LOG_CAP / self.launch.threads_per_block() as usize;
        if let Some(log) = acc.get_mut(t).filter(|l| l.len() < cap) {
            log.push(Access {
                pc: th.pc,
                func: th.func,
                addr,
                size: total,
                shared,
                write: kind != Kind::Read,
                atomic: kind == Kind::Atomic,
                failed: true,
            });
        }
    }

    /// Bounds and alignment. Reports and returns false when the access must be skipped.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        th: &Thread,
        inst: &Inst,
        p: Place,
        size: u32,
        total: u32,
        kind: Kind,
    ) -> bool {
        let align = total.min(16) as u64;
        let off = match p {
            Place::Global(a) | Place::Shared(a) | Place::Local(a) | Place::Param(a) => a,
        };
        let inside = match p {
            Place::Global(a) => self.launch.global.find(a, total as u64).is_some(),
            Place::Shared(o) => self.launch.shared_var(o, total as u64).is_some(),
            Place::Local(o) => o
                .checked_add(total as u64)
                .is_some_and(|e| e <= th.local.len() as u64),
            Place::Param(o) => o
                .checked_add(total as u64)
                .is_some_and(|e| e <= th.params.len() as u64),
        };
        if inside {
            if let (Place::Global(a), Some(h)) = (p, self.launch.heap.as_ref()) {
                if h.at_or_after(a) {
                    if let Some(f) = h.check(a, total) {
                        self.heap_fault(th, inst, a, total, kind, f);
                        return false;
                    }
                }
            }
        }
        if inside && off % align == 0 {
            return true;
        }
        self.log_failed(th, p, total, kind);
        let site = self.site(th, inst);
        let who = self.namer.who(th.tid, self.block);
        let verb = kind.verb();
        let line = site.line;
        let at_line = if line > 0 {
            format!(" (line {line})")
        } else {
            String::new()
        };
        let space = match p {
            Place::Global(_) => FSpace::Global,
            Place::Shared(_) => FSpace::Shared,
            Place::Local(_) => FSpace::Local,
            Place::Param(_) => FSpace::Param,
        };
        let facts = |element: Option<Element>, misaligned_to: Option<u32>| Facts::Bounds {
            space,
            access: kind.access(),
            element,
            address: off,
            bytes: total,
            misaligned_to,
        };
        if inside {
            let what = self.describe(p, size);
            let element = self.element_at(p, size);
            self.diags.report(DiagKind::Misaligned, Severity::Error, site, None, || {
                (
                    format!("{who} {verb} {total} bytes at {what}{at_line}, which is not aligned to {align} bytes"),
                    facts(element, Some(align as u32)),
                )
            });
            return false;
        }
        let (message, element) = match p {
            Place::Global(a) => self.global_oob(a, size, &who, verb, &at_line),
            Place::Shared(o) => self.shared_oob(o, size, &who, verb, &at_line),
            Place::Local(_) => (
                format!("{who} {verb} outside its local (per-thread) array{at_line}"),
                None,
            ),
            Place::Param(_) => (
                format!("{who} {verb} outside the kernel's parameters{at_line}"),
                None,
            ),
        };
        self.diags
            .report(DiagKind::OutOfBounds, Severity::Error, site, None, || {
                (message, facts(element, None))
            });
        false
    }

    /// An access in the device heap outside every live block (`Heap::check`), reported.
    #[cold]
    fn heap_fault(
        &mut self,
        th: &Thread,
        inst: &Inst,
        a: u64,
        total: u32,
        kind: Kind,
        f: super::facts::HeapFacts,
    ) {
        self.log_failed(th, Place::Global(a), total, kind);
        let site = self.site(th, inst);
        let who = self.namer.who(th.tid, self.block);
        let verb = kind.verb();
        let at_line = at_line(site.line);
        self.diags
            .report(DiagKind::OutOfBounds, Severity::Error, site, None, || {
                let rest = super::heap::access_message(&f);
                (
                    format!("{who} {verb} {total} bytes at address {a:#x}{at_line}, {rest}"),
                    Facts::Heap(f),
                )
            });
    }

    /// A `free` (or `delete`) of `p` that the heap refused, reported at its line.
    pub(super) fn free_refused(
        &mut self,
        th: &Thread,
        inst: &Inst,
        p: u64,
        e: &super::heap::FreeError,
    ) {
        let site = self.site(th, inst);
        let who = self.namer.who(th.tid, self.block);
        let at_line = at_line(site.line);
        self.diags
            .report(DiagKind::OutOfBounds, Severity::Error, site, None, || {
                (
                    format!(
                        "{who} called free (or delete) on {p:#x}{at_line}, but {}",
                        super::heap::free_message(e)
                    ),
                    Facts::Heap(super::heap::free_facts(e, p)),
                )
            });
    }

    /// The element `p` names in the nearest array (global or shared), as facts.
    fn element_at(&self, p: Place, size: u32) -> Option<Element> {
        match p {
            Place::Global(a) => self.launch.global.nearest(a).map(|al| Element {
                name: al.name.clone(),
                index: (a as i128 - al.base as i128).div_euclid(al.elem_size.max(1) as i128),
                len: al.len / al.elem_size.max(1),
            }),
            Place::Shared(o) => {
                let var = super::diag::nearest_shared_var(&self.launch.shared_vars, o)?;
                Some(super::diag::shared_element(var, o, size))
            }
            _ => None,
        }
    }

    fn describe(&self, p: Place, size: u32) -> String {
        match p {
            Place::Global(a) => self.launch.element(a),
            Place::Shared(o) => match self.launch.nearest_shared(o) {
                Some((name, base, elem)) => {
                    let elem = if elem > 1 { elem } else { size as u64 };
                    format!(
                        "{name}[{}]",
                        (o as i64 as i128 - base as i128).div_euclid(elem as i128)
                    )
                }
                None => format!("shared offset {o}"),
            },
            _ => "local memory".to_string(),
        }
    }

    fn global_oob(
        &self,
        a: u64,
        size: u32,
        who: &str,
        verb: &str,
        at_line: &str,
    ) -> (String, Option<Element>) {
        let Some(al) = self.launch.global.nearest(a) else {
            return (
                format!(
                    "{who} {verb} {size} bytes at address {a:#x}{at_line}, but no buffer exists"
                ),
                None,
            );
        };
        let dist = if a < al.base {
            al.base - a
        } else {
            a.saturating_sub(al.base + al.len)
        };
        if a < 1 << 16 {
            return (
                format!("{who} {verb} {size} bytes at address {a:#x}{at_line}, which is not inside any buffer (a null pointer?)"),
                None,
            );
        }
        let idx = (a as i128 - al.base as i128).div_euclid(al.elem_size as i128);
        let n = al.len / al.elem_size;
        let name = &al.name;
        let element = Element {
            name: name.clone(),
            index: idx,
            len: n,
        };
        // Far from every buffer, the nearest one still names the index the kernel computed.
        let far = if dist > 1 << 20 {
            " and is far from every other buffer"
        } else {
            ""
        };
        if (0..n as i128).contains(&idx) {
            // A vector access (float4, __half2) that starts at the last elements and runs on.
            return (format!("{who} {verb} {size} bytes from {name}[{idx}]{at_line}, which run past the end of {name}: it has {n} elements ({name}[0] to {name}[{}])", n as i128 - 1), Some(element));
        }
        (format!("{who} {verb} {name}[{idx}]{at_line}, but {name} has {n} elements ({name}[0] to {name}[{}]){far}", n as i128 - 1), Some(element))
    }

    fn shared_oob(
        &self,
        o: u64,
        size: u32,
        who: &str,
        verb: &str,
        at_line: &str,
    ) -> (String, Option<Element>) {
        super::diag::shared_oob_message(&self.launch.shared_vars, o, size, who, verb, at_line)
    }

    /// The race and uninitialised-read checkers for one shared access: the shadow check inline
    /// (a clean access, nearly every one, costs a record step per word), what it found out of
    /// line.
    #[inline(always)]
    fn shared_checks(
        &mut self,
        th: &Thread,
        me: u32,
        inst: &Inst,
        off: u64,
        total: u32,
        kind: Kind,
    ) {
        let probe = Self::probe(&self.order, (self.epoch, self.gen), me, inst, kind);
        let mut found = self.shadow.check(&probe, off, total);
        // In a cluster launch: against the other blocks' accesses too (`cluster.rs`).
        if self.launch.cluster.is_some() {
            found.uninit &= !self.dsmem_written(off, total);
            let here = self.launch.block_index(self.block);
            self.dsmem_access(th, me, inst, here, off, total, kind);
        }
        if let Some(e) = found.ordered {
            self.ordered_by(e, me);
        }
        if found.uninit || found.conflict.is_some() {
            self.shared_found(th, me, inst, off, total, found);
        }
    }

    /// Thread `me`'s access is ordered after another thread's, made in interval `epoch`, by
    /// the barrier that ended it: that barrier counts (`Family::OrderingBarriers`), once.
    /// Out of line: an access meets it at most once per word and interval.
    #[inline(never)]
    fn ordered_by(&mut self, epoch: u32, me: u32) {
        if epoch < self.first_epoch || self.ordering.iter().any(|&(e, _)| e == epoch) {
            return;
        }
        self.ordering.push((epoch, me));
    }

    /// Thread `me`'s access by `inst`, as the shadow checks it. A function of the fields it
    /// reads, so that the probe can borrow `order` while the shadow is borrowed mutably.
    #[inline(always)]
    fn probe<'a>(
        order: &'a WarpOrder,
        (epoch, gen): (u32, u32),
        me: u32,
        inst: &Inst,
        kind: Kind,
    ) -> Probe<'a> {
        Probe {
            me,
            line: inst.line,
            kind,
            epoch,
            gen,
            sync: order.sync_of(me),
            know: order.row(me),
        }
    }

    /// Note a read of never-written shared memory (decided at the next barrier) and report a
    /// race. Inline, for the memo's test; what it skips is out of line.
    #[inline(always)]
    fn shared_found(
        &mut self,
        th: &Thread,
        me: u32,
        inst: &Inst,
        off: u64,
        total: u32,
        found: Found,
    ) {
        // The CUDA library's own scratch (reserved shared memory): it orders it itself.
        if off >= self.launch.unchecked_shared_from {
            return;
        }
        // A race alone (no uninitialised read) counts one report, which its lines and one
        // thread name (`race_report_key`); once the report is made, counting that thread again
        // is all `shared_found_report` would do (`Diags::repeat`). A racing launch meets its
        // races at nearly every access (a tile loop, two of them in turn): the memo knows
        // where their reports are, and skips the names and the lookup.
        let key = match found.conflict {
            Some((pair, other, other_line)) if !found.uninit => {
                Some(race_report_key(pair, me, other, inst.line, other_line))
            }
            _ => None,
        };
        // (`GPUZZLE_RACE_SHORTCUT=off`, `settled_reads` false: no memo either, to compare.)
        if let Some((line, other_line, t)) = key.filter(|_| self.settled_reads) {
            if let Some(i) = self.race_memo.index(line, other_line) {
                let tid = if t == me {
                    th.tid
                } else {
                    self.launch.tid_of(t)
                };
                self.diags.count_at(i, self.block, tid);
                return;
            }
        }
        self.shared_found_report(th, me, inst, off, total, found);
        if let Some((line, other_line, _)) = key {
            if let Some(i) = self.diags.index_of(
                DiagKind::SharedRace,
                Severity::Error,
                line,
                Some(other_line),
            ) {
                self.race_memo.remember(line, other_line, i);
            }
        }
    }

    /// `shared_found` past its memo: record an uninitialised read, report the race.
    #[cold]
    #[inline(never)]
    fn shared_found_report(
        &mut self,
        th: &Thread,
        me: u32,
        inst: &Inst,
        off: u64,
        total: u32,
        found: Found,
    ) {
        let (uninit, conflict) = (found.uninit, found.conflict);
        if uninit {
            let (epoch, sync) = (self.epoch, self.order.sync_of(me));
            // Decided at the next barrier: if another thread writes these bytes before it,
            // unordered, the read was early (a race, reported at that write), not uninitialised.
            self.pending_uninit.push(PendingUninit {
                off,
                len: total,
                reader: me,
                rsync: sync,
                tid: th.tid,
                line: inst.line,
                file: inst.file,
                epoch,
                atomic: found.uninit_atomic,
            });
        }
        if let Some((hazard, other, other_line)) = conflict {
            // A write that comes before the read in the source (lower line), reached after it
            // only because threads ran in some order, is the read-too-early race of a missing
            // __syncthreads(): report it as the read, like the same race seen the other way.
            if (hazard == Pair::War || hazard == Pair::Aar)
                && other != NONE
                && other_line > inst.line
                && inst.line > 0
            {
                self.report_early_read(
                    me,
                    other,
                    other_line,
                    inst,
                    off,
                    total,
                    hazard == Pair::Aar,
                );
                return;
            }
            // A plain store on an earlier line reached after another thread's atomic update
            // on a later one (a clear racing the counting): report it at the update.
            if hazard == Pair::Waa && other != NONE && other_line > inst.line && inst.line > 0 {
                let atomic_tid = self.launch.tid_of(other);
                if self.repeat_race(other_line, inst.line, atomic_tid) {
                    return;
                }
                let site = Site {
                    file: self.launch.file_name(inst.file),
                    line: other_line,
                    block: self.block,
                    thread: atomic_tid,
                };
                let who = self.namer.who(atomic_tid, self.block);
                let other_who = self.namer.thread(th.tid);
                let what = self.describe(Place::Shared(off), total);
                let store_line = inst.line;
                let facts = self.shared_race_facts(
                    other,
                    me,
                    off,
                    total,
                    Hazard::AtomicAndPlain,
                    (FAccess::Atomic, FAccess::Write),
                );
                self.diags.report(DiagKind::SharedRace, Severity::Error, site, Some(store_line), || {
                    (
                        format!("{who} updated shared {what} atomically (line {other_line}) before {other_who} stored to it (line {store_line}), with no __syncthreads() between them: the store wipes the update"),
                        facts,
                    )
                });
                return;
            }
            if self.repeat_race(inst.line, other_line, th.tid) {
                return;
            }
            let site = self.site(th, inst);
            let who = self.namer.who(th.tid, self.block);
            let other_who = if other == NONE {
                "another thread".to_string()
            } else {
                self.namer.thread(self.launch.tid_of(other))
            };
            let what = self.describe(Place::Shared(off), total);
            let line = site.line;
            // What ordered nothing: a barrier between two lines; one statement run by both.
            let between = if line == other_line {
                ", in the same statement".to_string()
            } else {
                ", with no __syncthreads() between them".to_string()
            };
            let (message, hazard, mine, theirs) = match hazard {
                Pair::Raw => (
                    format!("{who} read shared {what} (line {line}) while {other_who} wrote it (line {other_line}){between}"),
                    Hazard::ReadAfterWrite, FAccess::Read, FAccess::Write,
                ),
                Pair::Waw => (
                    format!("{who} wrote shared {what} (line {line}) after {other_who} wrote it (line {other_line}){between}"),
                    Hazard::WriteAfterWrite, FAccess::Write, FAccess::Write,
                ),
                Pair::Raa => (
                    format!("{who} read shared {what} (line {line}) while {other_who} updated it atomically (line {other_line}){between}: the read may see any value in the middle of the updates"),
                    Hazard::AtomicAndPlain, FAccess::Read, FAccess::Atomic,
                ),
                Pair::Waa => (
                    format!("{who} wrote shared {what} (line {line}) after {other_who} updated it atomically (line {other_line}){between}: the plain write can undo the atomic update"),
                    Hazard::AtomicAndPlain, FAccess::Write, FAccess::Atomic,
                ),
                Pair::Aaw => (
                    format!("{who} updated shared {what} atomically (line {line}) after {other_who} wrote it plainly (line {other_line}){between}"),
                    Hazard::AtomicAndPlain, FAccess::Atomic, FAccess::Write,
                ),
                Pair::Aar => (
                    format!("{who} updated shared {what} atomically (line {line}) while {other_who} read it plainly (line {other_line}){between}: the read may see any value in the middle of the updates"),
                    Hazard::AtomicAndPlain, FAccess::Atomic, FAccess::Read,
                ),
                Pair::War => (
                    format!("{who} wrote shared {what} (line {line}) while {other_who} read it (line {other_line}){between}"),
                    Hazard::WriteAfterRead, FAccess::Write, FAccess::Read,
                ),
            };
            let facts = self.shared_race_facts(me, other, off, total, hazard, (mine, theirs));
            self.diags.report(
                DiagKind::SharedRace,
                Severity::Error,
                site,
                Some(other_line),
                || (message, facts),
            );
        }
    }

    /// `reader` read `[off, off+total)` on `read_line`; this thread (`writer`) then wrote it on
    /// an earlier line of the source, with no barrier between: the read came too early.
    #[allow(clippy::too_many_arguments)]
    fn report_early_read(
        &mut self,
        writer: u32,
        reader: u32,
        read_line: u32,
        inst: &Inst,
        off: u64,
        total: u32,
        atomic: bool,
    ) {
        let reader_tid = self.launch.tid_of(reader);
        if self.repeat_race(read_line, inst.line, reader_tid) {
            return;
        }
        let site = Site {
            file: self.launch.file_name(inst.file),
            line: read_line,
            block: self.block,
            thread: reader_tid,
        };
        let who = self.namer.who(reader_tid, self.block);
        let other_who = self.namer.thread(self.launch.tid_of(writer));
        let what = self.describe(Place::Shared(off), total);
        let write_line = inst.line;
        let (hazard, theirs, wrote) = if atomic {
            (
                Hazard::AtomicAndPlain,
                FAccess::Atomic,
                "updated it atomically",
            )
        } else {
            (Hazard::ReadAfterWrite, FAccess::Write, "wrote it")
        };
        let facts =
            self.shared_race_facts(reader, writer, off, total, hazard, (FAccess::Read, theirs));
        self.diags.report(DiagKind::SharedRace, Severity::Error, site, Some(write_line), || {
            (
                format!("{who} read shared {what} (line {read_line}) before {other_who} {wrote} (line {write_line}), with no __syncthreads() between them"),
                facts,
            )
        });
    }

    /// A shared-memory race at `line` (against `other_line`) by `thread` of this block already
    /// reported: count it as `Diags::report` would and say true, before any message is built.
    /// A racing launch meets its race again at nearly every access; formatting each one made it
    /// run many times slower than its race-free twin.
    fn repeat_race(&mut self, line: u32, other_line: u32, thread: [u32; 3]) -> bool {
        self.diags.repeat(
            DiagKind::SharedRace,
            Severity::Error,
            line,
            Some(other_line),
            self.block,
            thread,
        )
    }

    /// The facts of a race on shared memory between threads `me` and `other` (linear indices
    /// in the block; `NONE` when the other is not known).
    fn shared_race_facts(
        &self,
        me: u32,
        other: u32,
        off: u64,
        total: u32,
        hazard: Hazard,
        (mine, theirs): (FAccess, FAccess),
    ) -> Facts {
        let known = other != NONE;
        Facts::Race {
            space: FSpace::Shared,
            hazard,
            element: self.element_at(Place::Shared(off), total),
            other_thread: known.then(|| self.launch.tid_of(other)),
            other_block: known.then_some(self.block),
            across_blocks: false,
            same_warp: known && other / 32 == me / 32,
            block_threads: self.launch.threads_per_block(),
            mine,
            theirs,
        }
    }

    /// A read of `[addr, addr + len)` in global memory: an uninitialised read when it takes a
    /// byte of a poisoned output no thread has written (`shadow::OutputShadow`), as on a GPU,
    /// where the output holds whatever was in memory. Reported once per line (`diags`).
    #[inline(always)]
    fn output_read(&mut self, th: &Thread, inst: &Inst, addr: u64, len: u32) {
        if self.launch.outputs.reads_unwritten(addr, len) {
            self.unwritten_output(th, inst, addr, len);
        }
    }

    #[cold]
    #[inline(never)]
    fn unwritten_output(&mut self, th: &Thread, inst: &Inst, addr: u64, len: u32) {
        let site = self.site(th, inst);
        let who = self.namer.who(th.tid, self.block);
        let what = self.describe(Place::Global(addr), len);
        let element = self.element_at(Place::Global(addr), len);
        let line = inst.line;
        self.diags.report(DiagKind::UninitializedRead, Severity::Error, site, None, || {
            (
                format!("{who} read {what}{} before any thread wrote it: the output starts as whatever was in memory (gpuzzle fills it with NaN, or 0xdeadbeef for integers), not 0", at_line(line)),
                Facts::UnwrittenOutput { element },
            )
        });
    }

    /// Report the reads of never-written shared memory recorded in this barrier interval,
    /// except those that another thread's unordered write in the same interval explains.
    pub(super) fn resolve_uninit(&mut self) {
        for p in std::mem::take(&mut self.pending_uninit) {
            if self.shadow.written_unordered(
                p.off,
                p.len,
                p.reader,
                p.rsync,
                p.epoch,
                p.atomic,
                &self.order,
            ) {
                continue;
            }
            let site = Site {
                file: self.launch.file_name(p.file),
                line: p.line,
                block: self.block,
                thread: p.tid,
            };
            let who = self.namer.who(p.tid, self.block);
            let what = self.describe(Place::Shared(p.off), p.len);
            let element = self.element_at(Place::Shared(p.off), p.len);
            let line = p.line;
            self.diags.report(DiagKind::UninitializedRead, Severity::Error, site, None, || {
                (
                    format!("{who} read shared {what} (line {line}) before any thread of the block wrote it"),
                    Facts::Uninitialized { element },
                )
            });
        }
    }

    /// `vprintf(fmt, args)`: format into the thread's output. Returns the argument count.
    pub(super) fn vprintf(&mut self, th: &mut Thread, args: &[u32]) -> u64 {
        let slot = |i: usize| {
            args.get(i)
                .and_then(|&o| th.params.get(o as usize..o as usize + 8))
                .map(le_read)
                .unwrap_or(0)
        };
        let (fmt_addr, buf_addr) = (slot(0), slot(1));
        let fmt = self.c_string(th, fmt_addr);
        if th.out.is_full() {
            // Past the output cap: count the lines, skip the formatting (a printf in an
            // endless loop must stay cheap until the step or time limit stops it).
            th.out.count_dropped(fmt.as_bytes());
            return printf::count_args(fmt.as_bytes());
        }
        let mut count = 0u64;
        let text = printf::format(
            fmt.as_bytes(),
            |off, size| {
                count += 1;
                self.raw_read(th, buf_addr.wrapping_add(off), size)
            },
            |p| self.c_string(th, p),
        );
        th.out.push(&text, printf::THREAD_OUTPUT_CAP);
        count
    }

    /// `__assertfail(message, file, line, function, charSize)`.
    pub(super) fn assert_fail(&mut self, th: &Thread, inst: &Inst, args: &[u32]) {
        let slot = |i: usize| {
            args.get(i)
                .and_then(|&o| th.params.get(o as usize..o as usize + 8))
                .map(le_read)
                .unwrap_or(0)
        };
        let msg = self.c_string(th, slot(0));
        let mut site = self.site(th, inst);
        let c_line = slot(2) as u32;
        if site.line == 0 {
            site.line = c_line;
        }
        let who = self.namer.who(th.tid, self.block);
        self.diags
            .report(DiagKind::Assert, Severity::Error, site, None, || {
                (format!("assertion `{msg}` failed in {who}"), Facts::None)
            });
    }

    /// Read memory for printf/assert without counting or checking (gpuzzle's own reads).
    fn raw_read(&self, th: &Thread, addr: u64, size: u32) -> Option<u64> {
        match classify(addr) {
            Window::Global(a) => self
                .launch
                .global
                .find(a, size as u64)
                .map(|_| self.launch.global.read(a, size)),
            Window::Shared(o) => self
                .shared
                .get(o as usize..(o + size as u64) as usize)
                .map(le_read),
            Window::Local(o) => th.local.read(o as usize, size as usize),
        }
    }

    fn c_string(&self, th: &Thread, addr: u64) -> String {
        let mut bytes = Vec::new();
        for i in 0..4096u64 {
            match self.raw_read(th, addr.wrapping_add(i), 1) {
                Some(0) | None => break,
                Some(b) => bytes.push(b as u8),
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
