//! `mbarrier.*` and `cp.async.mbarrier.arrive` sites: the barrier object is 8 bytes of shared
//! memory, so each operation's `[address]` is checked as the emulator checks it
//! (`emu/async_copy`: 8 bytes inside one shared variable, 8-byte aligned) before the
//! operation runs. An illegal one would be an illegal address on a GPU and take the CUDA
//! context with it; instead the first is recorded as a shared out-of-bounds (or misaligned)
//! fault at the learner's line and the operation is skipped, leaving what the emulator leaves:
//! an arrival's state token 0, a `test_wait`/`try_wait` false. Nothing is counted: the
//! emulator does not count mbarrier operations as accesses (`helpers::SHARED_CHECK`).
//!
//! A generic address is converted to a shared one when it is shared (`isspacep.shared`); one
//! that is not is out of bounds, as on the emulator. `mbarrier.pending_count` reads only its
//! state token and is left alone.

use super::helpers::SHARED_CHECK;
use super::scan::Instr;
use super::site::{join, skip_guard, SiteWriter, Space};
use super::InstrumentError;
use crate::gpu::ctl::{Access, AccessKind};

/// Whether `i` operates on an mbarrier object in memory (`mbarrier.init|arrive|…`,
/// `cp.async.mbarrier.arrive`).
pub(super) fn is_mbarrier_op(i: &Instr) -> bool {
    let parts = i.parts();
    let on_object = parts.first() == Some(&"mbarrier") && parts.get(1) != Some(&"pending_count");
    let copy_arrive = parts.starts_with(&["cp", "async", "mbarrier"]);
    on_object || copy_arrive
}

/// The access a fault records: the 8-byte object (`Barrier`: the host words the fault as the
/// emulator words an mbarrier's).
fn object() -> Access {
    Access {
        kind: AccessKind::Barrier,
        elem_bytes: 8,
        n: 1,
        shared: true,
    }
}

/// The checked replacement of the mbarrier operation `i` (`orig`: its text without the guard).
pub(super) fn checked(
    w: &mut SiteWriter,
    i: &Instr,
    orig: &str,
    loc: u32,
    line: usize,
) -> Result<String, InstrumentError> {
    let Some(addr_idx) = i.operands.iter().position(|o| o.starts_with('[')) else {
        return Err(InstrumentError::Malformed {
            line,
            message: format!("`{}` has no `[address]` operand", i.opcode),
        });
    };
    let space = if i.parts().iter().any(|p| p.starts_with("shared")) {
        Space::Shared
    } else {
        Space::Generic
    };
    let n = w.label();
    let mut l = Vec::new();
    if let Some(g) = &i.guard {
        l.push(format!("{} bra $gz_E{n};", skip_guard(g)));
    }
    l.extend(w.address(&i.operands[addr_idx], space, line)?);
    if space == Space::Generic {
        // A generic address outside shared memory stays as it is: no shared variable holds it.
        l.push("isspacep.shared %gz_p0, %gz_rd0;".into());
        l.push("@%gz_p0 cvta.to.shared.u64 %gz_rd0, %gz_rd0;".into());
    }
    l.extend([
        "{".to_string(),
        ".param .b64 gz_arg0;".into(),
        ".param .b32 gz_arg1;".into(),
        ".param .b32 gz_arg2;".into(),
        ".param .b32 gz_ret;".into(),
        "st.param.b64 [gz_arg0], %gz_rd0;".into(),
        format!("mov.u32 %gz_r0, {};", object().pack()),
        "st.param.b32 [gz_arg1], %gz_r0;".into(),
        format!("mov.u32 %gz_r0, {loc};"),
        "st.param.b32 [gz_arg2], %gz_r0;".into(),
        format!("call (gz_ret), {SHARED_CHECK}, (gz_arg0, gz_arg1, gz_arg2);"),
        "ld.param.b32 %gz_r0, [gz_ret];".into(),
        "}".into(),
        "setp.eq.u32 %gz_p0, %gz_r0, 0;".into(),
    ]);
    // A destination before the address gets what the emulator leaves: a wait's predicate
    // false, an arrival's state token 0.
    let mut fail = Vec::new();
    let d = i.operands[0].trim();
    if addr_idx > 0 && d != "_" {
        if i.opcode.contains("wait") {
            fail.push(format!("setp.ne.u32 {d}, 0, 0;"));
        } else {
            let bits = w.regs.bits(d).ok_or_else(|| InstrumentError::Unsupported {
                line,
                what: format!(
                    "`{}` into `{d}`, whose declaration gpuzzle cannot find",
                    i.opcode
                ),
            })?;
            fail.push(format!("mov.b{bits} {d}, 0;"));
        }
    }
    if fail.is_empty() {
        l.push(format!("@%gz_p0 bra $gz_E{n};"));
        l.push(orig.to_string());
    } else {
        l.push(format!("@%gz_p0 bra $gz_F{n};"));
        l.push(orig.to_string());
        l.push(format!("bra $gz_E{n};"));
        l.push(format!("$gz_F{n}:"));
        l.extend(fail);
    }
    l.push(format!("$gz_E{n}:"));
    Ok(join(&l))
}
