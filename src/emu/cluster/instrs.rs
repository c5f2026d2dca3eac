//! The cluster instructions, run for one thread on its block's state: `barrier.cluster`,
//! `mapa`, `elect.sync` (`exec`) and the vector atomics of sm_90 (`atom_vec`). What they do to
//! the launch (the cluster barrier, distributed shared memory) is `cluster.rs`'s.

use super::{arrive, leader, mapa, wait_over};
use crate::emu::block::{Mem, State, Thread};
use crate::ptx::ir::{ClusterOp, Inst, Op};

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
