//! `ldmatrix` and `stmatrix` sites: each lane that gives a row address (lanes `0..8 * num`)
//! checks and counts its 16-byte row with the shared helper, as four 4-byte accesses like the
//! emulator counts them. These instructions are `.aligned` (the whole warp executes them
//! together), so a lane cannot skip one alone: the warp votes, and when any lane's row is out of
//! bounds or misaligned (the fault recorded by that lane) the whole warp skips it, an `ldmatrix`
//! leaving its destinations 0. Only the `.shared` forms are instrumented; a generic
//! `ldmatrix` in the launched kernel is refused.

use super::helpers::SHARED;
use super::scan::Instr;
use super::site::{join, skip_guard, SiteWriter, Space};
use super::InstrumentError;
use crate::gpu::ctl::{Access, AccessKind};

/// Whether the opcode's first word is one of these.
pub(super) fn is_matrix_move(base: &str) -> bool {
    matches!(base, "ldmatrix" | "stmatrix")
}

/// The instrumented text of the site `i` (`orig` is the instruction as written, guard left out).
pub(super) fn checked(
    w: &mut SiteWriter,
    i: &Instr,
    orig: &str,
    loc: u32,
    line: usize,
) -> Result<String, InstrumentError> {
    let parts = i.parts();
    let load = parts[0] == "ldmatrix";
    let num = if parts.contains(&"x4") {
        4
    } else if parts.contains(&"x2") {
        2
    } else {
        1
    };
    if !parts.iter().any(|p| *p == "shared" || *p == "shared::cta") {
        return Err(InstrumentError::Unsupported {
            line,
            what: format!("`{}` on a generic address", i.opcode),
        });
    }
    let addr_idx = if load { 1 } else { 0 };
    let Some(addr) = i.operands.get(addr_idx) else {
        return Err(InstrumentError::Malformed {
            line,
            message: format!("`{}` has no `[address]` operand", i.opcode),
        });
    };
    let access = Access {
        kind: if load {
            AccessKind::Read
        } else {
            AccessKind::Write
        },
        elem_bytes: 4,
        n: 4,
        shared: true,
    };
    let n = w.label();
    let mut l = Vec::new();
    if let Some(g) = &i.guard {
        l.push(format!("{} bra $gz_E{n};", skip_guard(g)));
    }
    l.push("mov.u32 %gz_r0, %laneid;".into());
    l.push(format!("setp.ge.u32 %gz_p0, %gz_r0, {};", 8 * num));
    l.push(format!("@%gz_p0 bra $gz_S{n};"));
    l.extend(w.address(addr, Space::Shared, line)?);
    l.extend([
        "{".to_string(),
        ".param .b64 gz_arg0;".into(),
        ".param .b32 gz_arg1;".into(),
        ".param .b32 gz_arg2;".into(),
        ".param .b32 gz_ret;".into(),
        "st.param.b64 [gz_arg0], %gz_rd0;".into(),
        format!("mov.u32 %gz_r0, {};", access.pack()),
        "st.param.b32 [gz_arg1], %gz_r0;".into(),
        format!("mov.u32 %gz_r0, {loc};"),
        "st.param.b32 [gz_arg2], %gz_r0;".into(),
        format!("call (gz_ret), {SHARED}, (gz_arg0, gz_arg1, gz_arg2);"),
        "ld.param.b32 %gz_r0, [gz_ret];".into(),
        "}".into(),
        format!("bra $gz_T{n};"),
        format!("$gz_S{n}:"),
        // A lane that gives no address has nothing to check.
        "mov.u32 %gz_r0, 1;".into(),
        format!("$gz_T{n}:"),
        "setp.eq.u32 %gz_p0, %gz_r0, 0;".into(),
        "vote.sync.any.pred %gz_p0, %gz_p0, 0xffffffff;".into(),
        format!("@%gz_p0 bra $gz_F{n};"),
        orig.to_string(),
        format!("bra $gz_E{n};"),
        format!("$gz_F{n}:"),
    ]);
    if load {
        l.extend(w.zero_destinations(&i.operands[0], line)?);
    }
    l.push(format!("$gz_E{n}:"));
    Ok(join(&l))
}
