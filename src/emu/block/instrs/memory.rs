//! Loads, stores and atomics on the general path: operands evaluated here, the access itself
//! (state space, bounds, counters, checkers) in `crate::emu::access`.

use super::super::{Mem, Regs, Thread};
use crate::emu::alu;
use crate::ptx::ir::*;

/// Execute `inst`, a load, store or atomic (the dispatcher in `step.rs` sends only those here).
pub(in crate::emu::block) fn memory<R: Regs + ?Sized>(
    mem: &mut Mem,
    th: &mut Thread,
    regs: &mut R,
    linear: u32,
    inst: &Inst,
) {
    match &inst.op {
        Op::Ld {
            space, ty, d, addr, ..
        } => {
            let base = mem
                .val_in(th, regs, &addr.base)
                .wrapping_add(addr.offset as u64);
            let size = ty.size();
            let total = size * d.len() as u32;
            let mut vals = [0u64; 8];
            if mem.load_vec(
                th,
                linear,
                inst,
                *space,
                base,
                size,
                total,
                &mut vals[..d.len()],
            ) {
                for (i, r) in d.iter().enumerate() {
                    let v = vals[i];
                    regs.set(*r, alu::loaded(*ty, v));
                }
            }
        }
        Op::St {
            space,
            ty,
            src,
            addr,
        } => {
            let base = mem
                .val_in(th, regs, &addr.base)
                .wrapping_add(addr.offset as u64);
            let size = ty.size();
            let mut vals = [0u64; 8];
            for (i, s) in src.iter().enumerate() {
                vals[i] = mem.val_in(th, regs, s);
            }
            mem.store_vec(th, linear, inst, *space, base, size, &vals[..src.len()]);
        }
        Op::Atom {
            space,
            op,
            ty,
            d,
            addr,
            b,
            c,
        } => {
            let a = mem
                .val_in(th, regs, &addr.base)
                .wrapping_add(addr.offset as u64);
            let (b, c) = (mem.val_in(th, regs, b), mem.val_in(th, regs, c));
            let old = mem.atomic(th, linear, inst, *space, a, *op, *ty, b, c);
            if let Some(d) = d {
                regs.set(*d, old);
            }
        }
        // Other families are dispatched elsewhere by `step.rs`.
        _ => {}
    }
}
