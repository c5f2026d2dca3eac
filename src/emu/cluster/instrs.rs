//! The cluster instructions, run for one thread on its block's state: `barrier.cluster`,
//! `mapa`, `elect.sync` (`exec`) and the vector atomics of sm_90 (`atom_vec`). What they do to
//! the launch (the cluster barrier, distributed shared memory) is `cluster.rs`'s.

use super::{arrive, cluster_of, leader, mapa, wait_over};
use crate::emu::access_kind::Kind;
use crate::emu::block::{Mem, State, Thread};
use crate::emu::context::Touch;
use crate::emu::diag::Site;
use crate::emu::facts::{Facts, Hazard};
use crate::emu::result::{DiagKind, Severity};
use crate::ptx::ir::{ClusterOp, Inst, Op};
use std::collections::HashMap;

/// `atom`/`red.global.add.v2/.v4.f32`: each element its own atomic, in order, counted as one
/// atomic each; the old values into `d`.
pub(in crate::emu) fn atom_vec(mem: &mut Mem<'_>, th: &mut Thread, linear: u32, inst: &Inst) {
    let Op::AtomVec {
        space,
        op,
        ty,
        d,
        addr,
        b,
    } = &inst.op
    else {
        return;
    };
    let base = mem.val(th, &addr.base).wrapping_add(addr.offset as u64);
    for (i, src) in b.iter().enumerate() {
        let v = mem.val(th, src);
        let at = base.wrapping_add(i as u64 * ty.size() as u64);
        let old = mem.atomic(th, linear, inst, *space, at, *op, *ty, v, 0);
        if let Some(r) = d.get(i).and_then(|&r| th.regs.get_mut(r as usize)) {
            *r = old;
        }
    }
}

/// Run a cluster instruction for thread `th` (its index in the block `linear`): false while it
/// waits at the cluster barrier (the instruction runs again at its next turn); after the
/// barrier's wait is over the thread is left waiting at its block's barrier
/// (`State::Barrier`).
pub(in crate::emu) fn exec(
    mem: &mut Mem<'_>,
    th: &mut Thread,
    op: &ClusterOp,
    linear: u32,
) -> bool {
    let launch = mem.launch;
    match *op {
        ClusterOp::Arrive => arrive(launch, mem.block, linear),
        ClusterOp::Wait => {
            if !wait_over(launch, mem.block, linear) {
                return false;
            }
            th.state = State::Barrier;
        }
        ClusterOp::Mapa {
            d,
            a,
            rank,
            generic,
        } => {
            let (a, rank) = (mem.val(th, &a), mem.val(th, &rank) as u32);
            let v = mapa(launch, mem.block, a, rank, generic);
            if let Some(r) = th.regs.get_mut(d as usize) {
                *r = if generic { v } else { v & 0xffff_ffff };
            }
        }
        ClusterOp::Elect { d, p, mask } => {
            let lead = leader(mem.val(th, &mask) as u32);
            if let Some(r) = d.and_then(|d| th.regs.get_mut(d as usize)) {
                *r = lead as u64;
            }
            if let Some(r) = p.and_then(|p| th.regs.get_mut(p as usize)) {
                *r = (linear % 32 == lead) as u64;
            }
        }
    }
    true
}

/// `Read`, `Write` or `Atomic` in the words of a diagnostic.
fn verb(k: Kind) -> &'static str {
    match k {
        Kind::Read => "read",
        Kind::Write => "wrote",
        Kind::Atomic => "atomically updated",
    }
}

/// Whether two accesses by different blocks conflict: one writes, and not both are atomic.
fn conflict(a: Kind, b: Kind) -> bool {
    (a != Kind::Read || b != Kind::Read) && !(a == Kind::Atomic && b == Kind::Atomic)
}

impl Mem<'_> {
    /// Check and keep thread `me`'s access (`th`, by `inst`) to `len` bytes at `off` of the
    /// shared memory of block `target` (launch order; this block's own, or another's through
    /// `mapa`), in a cluster launch with the checkers on: an access of another block's thread
    /// to the same word, one of them a write, that no cluster barrier orders before this one
    /// is reported as a `shared-race` at both lines.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::emu) fn dsmem_access(
        &mut self,
        th: &Thread,
        me: u32,
        inst: &Inst,
        target: u32,
        off: u64,
        len: u32,
        kind: Kind,
    ) {
        let launch = self.launch;
        let Some(run) = launch.cluster.as_ref() else {
            return;
        };
        let block = launch.block_index(self.block);
        let (arrivals, waits) = run
            .barrier
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .thread
            .get(&(block, me))
            .copied()
            .unwrap_or((0, 0));
        let now = Touch {
            block,
            blk: self.block,
            tid: th.tid,
            line: inst.line,
            kind,
            arrivals,
        };
        let unordered = |t: &Touch| t.block != block && waits <= t.arrivals;
        let mut found: Option<(Touch, u64)> = None;
        let cluster = cluster_of(launch, self.block);
        {
            let mut record = run.dsmem.lock().unwrap_or_else(|e| e.into_inner());
            if record.0 != cluster {
                *record = (cluster, HashMap::new());
            }
            let words = &mut record.1;
            let first = off / 4;
            let last = off.saturating_add(u64::from(len.max(1)) - 1) / 4;
            for w in first..=last {
                let word = words.entry((target, w)).or_default();
                let hit = word
                    .write
                    .iter()
                    .chain(word.reads.iter())
                    .find(|t| unordered(t) && conflict(t.kind, kind));
                if let (Some(t), None) = (hit, found) {
                    found = Some((*t, w * 4));
                }
                if kind == Kind::Read {
                    word.reads.retain(|t| t.block != block);
                    word.reads.push(now);
                } else {
                    word.write = Some(now);
                    word.reads.clear();
                }
            }
        }
        if let Some((other, at)) = found {
            self.report_dsmem_race(th, inst, target, at.max(off), len, kind, other);
        }
    }

    /// Whether every byte of `[off, off + len)` of this block's shared memory was written by
    /// some thread of its cluster as the distributed-shared-memory check saw it (another
    /// block's write through `mapa` initialises it, which this block's own shadow cannot see).
    pub(in crate::emu) fn dsmem_written(&self, off: u64, len: u32) -> bool {
        let Some(run) = self.launch.cluster.as_ref() else {
            return false;
        };
        let block = self.launch.block_index(self.block);
        let record = run.dsmem.lock().unwrap_or_else(|e| e.into_inner());
        let (first, last) = (off / 4, off.saturating_add(u64::from(len.max(1)) - 1) / 4);
        (first..=last).all(|w| {
            record
                .1
                .get(&(block, w))
                .is_some_and(|word| word.write.is_some())
        })
    }

    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn report_dsmem_race(
        &mut self,
        th: &Thread,
        inst: &Inst,
        target: u32,
        off: u64,
        len: u32,
        kind: Kind,
        other: Touch,
    ) {
        let launch = self.launch;
        let element = crate::emu::diag::nearest_shared_var(&launch.shared_vars, off)
            .map(|v| crate::emu::diag::shared_element(v, off, len.min(4)));
        let what = element.as_ref().map_or(format!("offset {off}"), |e| {
            format!("{}[{}]", e.name, e.index)
        });
        let who = self.namer.who(th.tid, self.block);
        let other_who = self.namer.who(other.tid, other.blk);
        let (line, oline) = (inst.line, other.line);
        let here = launch.block_index(self.block);
        let whose = if target == here {
            format!("its block's shared {what} (line {line})")
        } else {
            format!(
                "shared {what} of {} (line {line}, through map_shared_rank)",
                self.namer.block(launch.block_coords(target))
            )
        };
        let theirs = if target == other.block {
            format!("in its own block (line {oline})")
        } else {
            format!("through map_shared_rank (line {oline})")
        };
        let message = format!(
            "{who} {} {whose}, and {other_who} {} it {theirs}, with no cluster.sync() between them: the blocks of a cluster run at the same time, so which comes first is luck",
            verb(kind),
            verb(other.kind)
        );
        let hazard = match (other.kind, kind) {
            (Kind::Atomic, _) | (_, Kind::Atomic) => Hazard::AtomicAndPlain,
            (Kind::Write, Kind::Read) => Hazard::ReadAfterWrite,
            (Kind::Read, _) => Hazard::WriteAfterRead,
            _ => Hazard::WriteAfterWrite,
        };
        let facts = Facts::Race {
            space: crate::emu::facts::Space::Shared,
            hazard,
            element,
            other_thread: Some(other.tid),
            other_block: Some(other.blk),
            across_blocks: true,
            same_warp: false,
            block_threads: launch.threads_per_block(),
            mine: kind.access(),
            theirs: other.kind.access(),
        };
        let site = Site {
            file: launch.file_name(inst.file),
            line,
            block: self.block,
            thread: th.tid,
        };
        self.diags.report(
            DiagKind::SharedRace,
            Severity::Error,
            site,
            Some(oline),
            || (message, facts),
        );
    }
}
