//! `wmma.load` and `wmma.store` sites: every lane checks and counts each element of its own
//! fragment, as the emulator does (`emu/tensor/wmma.rs`: one access of the element's size per
//! element the lane owns, at the fragment layout gpuzzle gives WMMA), through the ordinary
//! checking helper; then the warp decides together (`vote.sync.any` over `activemask`) whether
//! any lane found an illegal element, and if one did the whole warp skips the instruction (a
//! load leaves zeros), since a `.aligned` WMMA instruction must be run by all 32 lanes or none.
//! `wmma.mma` touches no memory and stays as it is. Before the elements, each lane checks the
//! API's alignment rules as the emulator does (a 32-byte-aligned pointer, ldm a multiple of
//! 16 bytes): a lane that breaks one records a `WmmaPointer`/`WmmaStride` fault, which the
//! host words as the emulator does (`gpu/outcome.rs`), and the warp skips the instruction.
//!
//! A lane's element i sits at (row, col) = (α + Rᵢ, β + Cᵢ), where α and β are the lane's
//! group (lane / 4) and twice its index in the group (2 × (lane % 4)) in an order fixed by the
//! operand, and (Rᵢ, Cᵢ) is element i of lane 0: the layout is affine in them (checked by a
//! test), so the site computes α and β once from `%laneid` and adds constants.

use super::helpers::FAULT_WITH;
use super::scan::Instr;
use super::site::{join, SiteWriter, Space};
use super::InstrumentError;
use crate::emu::tensor::wmma::{coord, unique};
use crate::gpu::ctl::{Access, AccessKind, FaultKind};
use crate::ptx::wmma::{Layout, Matrix, Wmma};

/// Registers a site uses, declared in its own scope.
const DECLS: [&str; 3] = [
    ".reg .b64 %gz_w<4>;",
    ".reg .b32 %gz_v<6>;",
    ".reg .pred %gz_q<1>;",
];

/// The checked and counted replacement of the `wmma.load`/`wmma.store` `i` (`orig`, its text
/// without the guard), parsed as `op`; `None` for `wmma.mma`. `loc` is the learner's line (the
/// IR's).
pub fn site(
    w: &mut SiteWriter,
    i: &Instr,
    orig: &str,
    op: &Wmma,
    loc: u32,
    line: usize,
) -> Result<Option<String>, InstrumentError> {
    let (matrix, layout, shape, ty, space, load) = match op {
        Wmma::Load {
            matrix,
            layout,
            shape,
            ty,
            space,
            ..
        } => (*matrix, *layout, *shape, *ty, *space, true),
        Wmma::Store {
            layout,
            shape,
            ty,
            space,
            ..
        } => (Matrix::C, *layout, *shape, *ty, *space, false),
        Wmma::Mma { .. } => return Ok(None),
    };
    let space = match space {
        crate::ptx::ir::Space::Global => Space::Global,
        crate::ptx::ir::Space::Shared => Space::Shared,
        crate::ptx::ir::Space::Generic => Space::Generic,
        // Not a form NVRTC emits; the emulator would report it as it runs.
        _ => return Ok(None),
    };
    let (addr_idx, regs_idx) = if load { (1, 0) } else { (0, 1) };
    let malformed = |message: &str| InstrumentError::Malformed {
        line,
        message: format!("`{}`: {message}", i.opcode),
    };
    let addr = i
        .operands
        .get(addr_idx)
        .ok_or_else(|| malformed("no address"))?;
    let (rows, cols) = matrix.dims(shape);
    let stride = match i.operands.get(2) {
        Some(s) => s.clone(),
        None => (if layout == Layout::Row { cols } else { rows }).to_string(),
    };
    let esize = ty.size();
    let access = Access {
        kind: if load {
            AccessKind::Read
        } else {
            AccessKind::Write
        },
        elem_bytes: esize,
        n: 1,
        shared: space == Space::Shared,
    };
    let n = w.label();
    let mut l: Vec<String> = vec!["{".into()];
    l.extend(DECLS.iter().map(|d| d.to_string()));
    if let Some(g) = &i.guard {
        let skip = match g.strip_prefix('!') {
            Some(p) => format!("@{p}"),
            None => format!("@!{g}"),
        };
        l.push(format!("{skip} bra $gz_E{n};"));
    }
    l.extend(w.address(addr, space, line)?);
    l.push("mov.b64 %gz_w0, %gz_rd0;".into());
    l.push(format!("mov.u32 %gz_v4, {stride};"));
    l.push("cvt.u64.u32 %gz_w1, %gz_v4;".into());
    // α (%gz_v1) and β (%gz_v2): (group, 2 × index) for A and C, the other way round for B.
    l.push("mov.u32 %gz_v0, %laneid;".into());
    let (group, pair) = if matrix == Matrix::B {
        ("%gz_v2", "%gz_v1")
    } else {
        ("%gz_v1", "%gz_v2")
    };
    l.push(format!("shr.u32 {group}, %gz_v0, 2;"));
    l.push(format!("and.b32 {pair}, %gz_v0, 3;"));
    l.push(format!("shl.b32 {pair}, {pair}, 1;"));
    l.extend(alignment(n, loc, esize, space, load));
    l.push("setp.ne.u32 %gz_q0, 0, 0;".into());
    let helper = match space {
        Space::Generic => super::helpers::GENERIC,
        Space::Shared => super::helpers::SHARED,
        _ => super::helpers::GLOBAL,
    };
    let (ret_decl, ret_load, failed) = if space == Space::Shared {
        (
            ".param .b32 gz_ret;",
            "ld.param.b32 %gz_r0, [gz_ret];",
            "setp.eq.u32 %gz_p0, %gz_r0, 0;",
        )
    } else {
        (
            ".param .b64 gz_ret;",
            "ld.param.b64 %gz_rd1, [gz_ret];",
            "setp.ne.u64 %gz_p0, %gz_rd1, 0;",
        )
    };
    for e in 0..unique(shape, matrix) {
        let (r, c) = coord(shape, matrix, 0, e);
        l.push(format!("add.u32 %gz_v3, %gz_v1, {r};"));
        l.push(format!("add.u32 %gz_v5, %gz_v2, {c};"));
        // Row major: row × stride + col; column major: col × stride + row.
        let (outer, inner) = match layout {
            Layout::Row => ("%gz_v3", "%gz_v5"),
            Layout::Col => ("%gz_v5", "%gz_v3"),
        };
        l.push(format!("cvt.u64.u32 %gz_w2, {outer};"));
        l.push(format!("cvt.u64.u32 %gz_w3, {inner};"));
        l.push("mad.lo.u64 %gz_w2, %gz_w2, %gz_w1, %gz_w3;".into());
        l.push(format!("mad.lo.u64 %gz_rd0, %gz_w2, {esize}, %gz_w0;"));
        l.extend([
            "{".to_string(),
            ".param .b64 gz_arg0;".into(),
            ".param .b32 gz_arg1;".into(),
            ".param .b32 gz_arg2;".into(),
            ret_decl.into(),
            "st.param.b64 [gz_arg0], %gz_rd0;".into(),
            format!("mov.u32 %gz_r0, {};", access.pack()),
            "st.param.b32 [gz_arg1], %gz_r0;".into(),
            format!("mov.u32 %gz_r0, {loc};"),
            "st.param.b32 [gz_arg2], %gz_r0;".into(),
            format!("call (gz_ret), {helper}, (gz_arg0, gz_arg1, gz_arg2);"),
            ret_load.into(),
            "}".into(),
            failed.into(),
            "or.pred %gz_q0, %gz_q0, %gz_p0;".into(),
        ]);
    }
    // All the warp's lanes run a `.aligned` instruction, or none. The vote's mask is the lanes
    // here (a lane that exited cannot vote; the emulator reports such a warp).
    l.push(format!("$gz_V{n}:"));
    l.push("activemask.b32 %gz_v0;".into());
    l.push("vote.sync.any.pred %gz_q0, %gz_q0, %gz_v0;".into());
    let zeros = if load {
        let regs = i
            .operands
            .get(regs_idx)
            .ok_or_else(|| malformed("no fragment"))?;
        w.zero_destinations(regs, line)?
    } else {
        Vec::new()
    };
    l.push(format!("@%gz_q0 bra $gz_F{n};"));
    l.push(orig.trim().to_string());
    l.push(format!("bra $gz_E{n};"));
    l.push(format!("$gz_F{n}:"));
    l.extend(zeros);
    l.push(format!("$gz_E{n}:"));
    l.push("}".into());
    Ok(Some(join(&l)))
}

/// The API's alignment rules, checked as the emulator checks them (`emu/tensor/wmma.rs`): the
/// pointer (`%gz_w0`) 32-byte aligned, then the leading dimension (`%gz_v4` elements of
/// `esize` bytes) a multiple of 16 bytes. A lane that breaks one records the fault
/// (`WmmaPointer` with the pointer, `WmmaStride` with the leading dimension) and goes to the
/// warp's vote (`$gz_V{n}`) with `%gz_q0` true, checking and counting no element; one that
/// keeps both goes on at `$gz_C{n}`. The access recorded says which call (a load reads, a
/// store writes), the element size, and the space (shared bit; `n` 1 for global, 0 generic).
fn alignment(n: u32, loc: u32, esize: u32, space: Space, load: bool) -> Vec<String> {
    let access = Access {
        kind: if load {
            AccessKind::Read
        } else {
            AccessKind::Write
        },
        elem_bytes: esize,
        n: u32::from(space == Space::Global),
        shared: space == Space::Shared,
    };
    vec![
        "and.b64 %gz_w2, %gz_w0, 31;".into(),
        "setp.ne.u64 %gz_q0, %gz_w2, 0;".into(),
        format!("mov.u32 %gz_r0, {};", FaultKind::WmmaPointer as u32),
        "mov.b64 %gz_rd1, %gz_w0;".into(),
        format!("@%gz_q0 bra $gz_A{n};"),
        format!("mul.lo.u32 %gz_v3, %gz_v4, {esize};"),
        "and.b32 %gz_v3, %gz_v3, 15;".into(),
        "setp.ne.u32 %gz_q0, %gz_v3, 0;".into(),
        format!("mov.u32 %gz_r0, {};", FaultKind::WmmaStride as u32),
        "mov.b64 %gz_rd1, %gz_w1;".into(),
        format!("@!%gz_q0 bra $gz_C{n};"),
        format!("$gz_A{n}:"),
        "{".into(),
        ".param .b32 gz_arg0;".into(),
        ".param .b32 gz_arg1;".into(),
        ".param .b64 gz_arg2;".into(),
        ".param .b32 gz_arg3;".into(),
        "st.param.b32 [gz_arg0], %gz_r0;".into(),
        format!("mov.u32 %gz_r0, {loc};"),
        "st.param.b32 [gz_arg1], %gz_r0;".into(),
        "st.param.b64 [gz_arg2], %gz_rd1;".into(),
        format!("mov.u32 %gz_r0, {};", access.pack()),
        "st.param.b32 [gz_arg3], %gz_r0;".into(),
        format!("call {FAULT_WITH}, (gz_arg0, gz_arg1, gz_arg2, gz_arg3);"),
        "}".into(),
        "setp.eq.u32 %gz_q0, 0, 0;".into(),
        format!("bra $gz_V{n};"),
        format!("$gz_C{n}:"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::wmma::Shape;

    #[test]
    fn fragment_layouts_are_affine_in_the_lane() {
        for shape in [Shape::M16N16K16, Shape::M32N8K16, Shape::M8N32K16] {
            for matrix in [Matrix::A, Matrix::B, Matrix::C] {
                for lane in 0..32 {
                    let (g, t2) = (lane / 4, 2 * (lane % 4));
                    let (alpha, beta) = if matrix == Matrix::B {
                        (t2, g)
                    } else {
                        (g, t2)
                    };
                    for e in 0..unique(shape, matrix) {
                        let (r, c) = coord(shape, matrix, 0, e);
                        assert_eq!(
                            coord(shape, matrix, lane, e),
                            (r + alpha, c + beta),
                            "{shape:?} {matrix:?} lane {lane} element {e}"
                        );
                    }
                }
            }
        }
    }
}
