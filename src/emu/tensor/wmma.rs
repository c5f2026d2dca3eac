//! WMMA (`mma.h`, the `wmma.load`/`wmma.mma`/`wmma.store` instructions) as warp-wide
//! operations: a lane that reaches one waits (like a shuffle, `block/collectives.rs`), and the
//! instruction runs once every lane of the warp is there (`.aligned`: all 32 lanes, the same
//! instruction). A lane that never comes is a `warp-sync` diagnostic; the instruction then runs
//! with the lanes that came, an absent lane's elements taken as zero.
//!
//! **Fragment layout.** The PTX ISA calls WMMA fragments opaque. gpuzzle gives them the layout
//! of the `mma.sync.m16n8k16` fragments the ISA documents (groupID g = lane / 4 and
//! threadID_in_group t = lane % 4), tiled to cover the shape, which is how sm_80 runs WMMA (an
//! m16n16k16 multiply is two m16n8k16 ones):
//! - A (M×16): per 16-row tile, elements (g, 2t..2t+1), (g+8, 2t..2t+1), (g, 2t+8..2t+9),
//!   (g+8, 2t+8..2t+9); m32n8k16 has two tiles (rows +16), m8n32k16 keeps the rows g only.
//! - B (16×N): per 8-column tile, elements (2t..2t+1, g), (2t+8..2t+9, g).
//! - C/D (M×N): per 16×8 tile, elements (g, 2t..2t+1), (g+8, 2t..2t+1); m8n32k16 keeps the rows
//!   g only, four tiles side by side.
//!
//! A lane owns rows×columns/32 elements of an operand ([`unique`]). A `.f16` A or B fragment is
//! always 8 registers (16 halves) whatever the shape, more than a lane owns for 16×16 and 8×16
//! operands: the lane's elements repeat to fill it (slot s holds element s mod `unique`),
//! loaded once and counted once. Kernels that use fragments only through
//! `load_matrix_sync`/`mma_sync`/`store_matrix_sync` get the exact product whatever the layout;
//! one that reads `frag.x[i]` sees this one.
//!
//! **Memory.** Each lane loads and stores its own elements, one access of the element size
//! each, through the ordinary access path: bounds and alignment checks at the learner's line
//! (the parser moves `crt/mma.hpp`'s lines to the line that called it), the global/shared
//! read and write counters, races, uninitialised reads, coalescing and bank conflicts. The
//! CUDA guide's rules for the pointer (32-byte aligned) and the leading dimension (a multiple
//! of 16 bytes) are checked as `misaligned`, since a GPU computes garbage or faults; the
//! lane's load (zeros) or store is then skipped, as on the GPU backend.
//!
//! **Rounding.** The products of two `.f16` or `.bf16` values are exact; D = A×B + C is summed
//! in f64 (exact unless the terms span more than 53 bits) and rounded once, to nearest even, to
//! D's type. Hardware sums in an unspecified order with f32 precision, so results on a GPU may
//! differ from the emulator's in the last bits of an f32 accumulator.

use crate::emu::block::{Mem, State, Thread};
use crate::emu::facts::{Facts, LaneState, WmmaFacts};
use crate::emu::float::{bf16_to_f32, f16_to_f32, f64_to_half};
use crate::emu::result::{DiagKind, Severity};
use crate::emu::technique::Family;
use crate::ptx::ir::{Inst, Op, Operand, Rounding, Space, Ty};
use crate::ptx::wmma::{Layout, Matrix, Shape, Wmma};

/// Elements of `matrix` one lane owns in `shape`.
pub(crate) fn unique(shape: Shape, matrix: Matrix) -> usize {
    let (rows, cols) = matrix.dims(shape);
    rows * cols / 32
}

/// Elements a fragment of `matrix` of `ty` holds (its registers × elements per register).
fn slots(shape: Shape, matrix: Matrix, ty: Ty) -> usize {
    Wmma::regs(shape, matrix, ty) * if ty.size() == 2 { 2 } else { 1 }
}

/// (row, column) in the operand of element `i` (below [`unique`]) of `lane`'s fragment.
pub(crate) fn coord(shape: Shape, matrix: Matrix, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let (m, n, _) = shape.mnk();
    match matrix {
        Matrix::A if m == 8 => (g, 2 * t + (i & 1) + 8 * (i >> 1)),
        Matrix::A => {
            let (tile, j) = (i / 8, i % 8);
            (
                16 * tile + g + 8 * ((j >> 1) & 1),
                2 * t + (j & 1) + 8 * (j >> 2),
            )
        }
        Matrix::B => {
            let (tile, j) = (i / 4, i % 4);
            (2 * t + (j & 1) + 8 * (j >> 1), 8 * tile + g)
        }
        Matrix::C if m == 8 => (g, 8 * (i / 2) + 2 * t + (i & 1)),
        Matrix::C if n == 8 => {
            let (tile, j) = (i / 4, i % 4);
            (16 * tile + g + 8 * (j >> 1), 2 * t + (j & 1))
        }
        Matrix::C => {
            let (tile, j) = (i / 4, i % 4);
            (g + 8 * (j >> 1), 8 * tile + 2 * t + (j & 1))
        }
    }
}

/// Element offset of (row, col) in memory laid out as `layout` with `stride` elements.
fn offset(layout: Layout, stride: u64, (r, c): (usize, usize)) -> u64 {
    match layout {
        Layout::Row => (r as u64).wrapping_mul(stride).wrapping_add(c as u64),
        Layout::Col => (c as u64).wrapping_mul(stride).wrapping_add(r as u64),
    }
}

/// Element `s` of a fragment held in `regs` (32-bit pieces), as its raw bits.
fn slot_bits(regs: &[u64], ty: Ty, s: usize) -> u64 {
    let reg = |i: usize| regs.get(i).copied().unwrap_or(0);
    if ty.size() == 2 {
        (reg(s / 2) >> (16 * (s % 2))) & 0xffff
    } else {
        reg(s) & 0xffff_ffff
    }
}

/// Pack element bits into registers: 16-bit elements two to a register, low half first.
fn pack(elems: &[u64], ty: Ty) -> Vec<u64> {
    if ty.size() == 2 {
        elems
            .chunks(2)
            .map(|p| (p[0] & 0xffff) | (p.get(1).copied().unwrap_or(0) & 0xffff) << 16)
            .collect()
    } else {
        elems.iter().map(|v| v & 0xffff_ffff).collect()
    }
}

fn value(ty: Ty, bits: u64) -> f64 {
    match ty {
        Ty::F16 => f16_to_f32(bits as u16) as f64,
        Ty::BF16 => bf16_to_f32(bits as u16) as f64,
        _ => f32::from_bits(bits as u32) as f64,
    }
}

fn bits(ty: Ty, v: f64) -> u64 {
    match ty {
        Ty::F16 | Ty::BF16 => f64_to_half(v, ty, Rounding::Rn) as u64,
        _ => (v as f32).to_bits() as u64,
    }
}

/// Run the WMMA instruction lane `t` waits at, once the warp's lanes (`warp`, the block's
/// threads `base..base + warp.len()`) are all there; with `force`, with those that are.
/// Returns the lanes that took part (bit per lane), or `None` to keep waiting.
pub(in crate::emu) fn try_complete(
    mem: &mut Mem,
    warp: &mut [Thread],
    base: usize,
    t: usize,
    force: bool,
) -> Option<u32> {
    let module = mem.launch.module;
    let me = warp.get(t.checked_sub(base)?)?;
    let here = (me.func, me.pc);
    let inst = module
        .functions
        .get(here.0 as usize)?
        .body
        .get(here.1 as usize)?;
    let Op::Wmma(op) = &inst.op else {
        return None;
    };
    let mut met = 0u32;
    let mut missing = Vec::new();
    for (l, th) in warp.iter().enumerate() {
        if th.state == State::Warp && (th.func, th.pc) == here {
            met |= 1 << l;
        } else {
            missing.push(l);
        }
    }
    let waiting_for_someone = missing.iter().any(|&l| warp[l].state != State::Exited);
    if waiting_for_someone && !force {
        return None;
    }
    let lead = t - base;
    if !missing.is_empty() || warp.len() < 32 {
        report_missing(mem, warp, lead, inst, op, &missing);
    }
    let lanes: Vec<usize> = (0..warp.len()).filter(|l| met & (1 << l) != 0).collect();
    if matches!(op.as_ref(), Wmma::Mma { .. }) {
        for &l in &lanes {
            warp[l].counters.count(Family::Wmma, 1);
        }
    }
    match op.as_ref() {
        Wmma::Load {
            matrix,
            layout,
            shape,
            ty,
            space,
            d,
            addr,
            stride,
        } => {
            for &l in &lanes {
                let th = &mut warp[l];
                let at = mem.val(th, &addr.base).wrapping_add(addr.offset as u64);
                let stride = mem.val(th, stride) & 0xffff_ffff;
                if !check_alignment(mem, th, inst, op, *space, at, stride, *ty) {
                    // Skipped, as the GPU backend skips it: the fragment is zeros.
                    for r in d {
                        if let Some(reg) = th.regs.get_mut(*r as usize) {
                            *reg = 0;
                        }
                    }
                    continue;
                }
                let n = unique(*shape, *matrix);
                let mut elems = Vec::with_capacity(n);
                for i in 0..n {
                    let off = offset(*layout, stride, coord(*shape, *matrix, l, i));
                    let a = at.wrapping_add(off.wrapping_mul(ty.size() as u64));
                    let mut v = [0u64; 1];
                    let size = ty.size();
                    let linear = (base + l) as u32;
                    if !mem.load_vec(th, linear, inst, *space, a, size, size, &mut v) {
                        v[0] = 0;
                    }
                    elems.push(v[0]);
                }
                let full: Vec<u64> = (0..slots(*shape, *matrix, *ty))
                    .map(|s| elems[s % n])
                    .collect();
                for (r, v) in d.iter().zip(pack(&full, *ty)) {
                    if let Some(reg) = th.regs.get_mut(*r as usize) {
                        *reg = v;
                    }
                }
            }
        }
        Wmma::Store {
            layout,
            shape,
            ty,
            space,
            src,
            addr,
            stride,
        } => {
            for &l in &lanes {
                let th = &mut warp[l];
                let at = mem.val(th, &addr.base).wrapping_add(addr.offset as u64);
                let stride = mem.val(th, stride) & 0xffff_ffff;
                if !check_alignment(mem, th, inst, op, *space, at, stride, *ty) {
                    continue;
                }
                let regs: Vec<u64> = src.iter().map(|o| mem.val(th, o)).collect();
                for i in 0..unique(*shape, Matrix::C) {
                    let off = offset(*layout, stride, coord(*shape, Matrix::C, l, i));
                    let a = at.wrapping_add(off.wrapping_mul(ty.size() as u64));
                    let v = slot_bits(&regs, *ty, i);
                    let linear = (base + l) as u32;
                    mem.store_vec(th, linear, inst, *space, a, ty.size(), &[v]);
                }
            }
        }
        Wmma::Mma {
            shape,
            in_ty,
            d_ty,
            c_ty,
            d,
            a,
            b,
            c,
            c_unset,
            ..
        } => {
            if *c_unset && mem.launch.opts.checkers {
                report_unset_accumulator(mem, &warp[lead], inst);
            }
            let (m, n, k) = shape.mnk();
            let gather = |mem: &Mem, warp: &[Thread], ops: &[Operand], matrix: Matrix, ty: Ty| {
                let (rows, cols) = matrix.dims(*shape);
                let mut out = vec![0f64; rows * cols];
                for &l in &lanes {
                    let regs: Vec<u64> = ops.iter().map(|o| mem.val(&warp[l], o)).collect();
                    for i in 0..unique(*shape, matrix) {
                        let (r, col) = coord(*shape, matrix, l, i);
                        out[r * cols + col] = value(ty, slot_bits(&regs, ty, i));
                    }
                }
                out
            };
            let av = gather(mem, warp, a, Matrix::A, *in_ty);
            let bv = gather(mem, warp, b, Matrix::B, *in_ty);
            let cv = gather(mem, warp, c, Matrix::C, *c_ty);
            let dv: Vec<f64> = (0..m * n)
                .map(|e| {
                    let (r, col) = (e / n, e % n);
                    (0..k).map(|x| av[r * k + x] * bv[x * n + col]).sum::<f64>() + cv[e]
                })
                .collect();
            for &l in &lanes {
                let elems: Vec<u64> = (0..unique(*shape, Matrix::C))
                    .map(|i| {
                        let (r, col) = coord(*shape, Matrix::C, l, i);
                        bits(*d_ty, dv[r * n + col])
                    })
                    .collect();
                let th = &mut warp[l];
                for (r, v) in d.iter().zip(pack(&elems, *d_ty)) {
                    if let Some(reg) = th.regs.get_mut(*r as usize) {
                        *reg = v;
                    }
                }
            }
        }
    }
    for &l in &lanes {
        let th = &mut warp[l];
        th.pc += 1;
        th.state = State::Ready;
    }
    Some(met)
}

/// `mma_sync` with an accumulator some path reaches unset (`Wmma::Mma`'s `c_unset`).
fn report_unset_accumulator(mem: &mut Mem, th: &Thread, inst: &Inst) {
    let site = mem.site(th, inst);
    let who = mem.namer.who(th.tid, mem.block);
    mem.diags
        .report(DiagKind::UninitializedRead, Severity::Error, site, None, || {
            (
                format!("{who} (with its warp) called wmma::mma_sync with an accumulator fragment that nothing set before, on some path to this line (no fill_fragment or load_matrix_sync for it): a fragment is registers, which hold garbage on a GPU (the emulator's zeros only hide it)"),
                Facts::Wmma(WmmaFacts::UnsetAccumulator),
            )
        });
}

/// What `mma.h` calls the instruction, for messages.
fn api(op: &Wmma) -> &'static str {
    match op {
        Wmma::Load { .. } => "load_matrix_sync",
        Wmma::Store { .. } => "store_matrix_sync",
        Wmma::Mma { .. } => "mma_sync",
    }
}

/// A lane of the warp did not come to the WMMA instruction (or the warp has fewer than 32).
fn report_missing(
    mem: &mut Mem,
    warp: &[Thread],
    lead: usize,
    inst: &Inst,
    op: &Wmma,
    missing: &[usize],
) {
    let site = mem.site(&warp[lead], inst);
    let what = format!(
        "`{}` (wmma::{}) is warp-wide: all 32 lanes of a warp must call it together",
        op.name(),
        api(op)
    );
    let Some(&l) = missing.first() else {
        let n = warp.len();
        mem.diags
            .report(DiagKind::WarpSync, Severity::Error, site, None, || {
                (
                    format!("{what}, but this warp has only {n} threads (the block's size is not a multiple of 32), so lanes {n} to 31 never take part"),
                    Facts::Wmma(WmmaFacts::LaneMissing {
                        lane: n as u32,
                        lane_state: LaneState::Exited,
                        threads: n as u32,
                    }),
                )
            });
        return;
    };
    let other = &warp[l];
    let body = &mem.launch.module.functions[other.func as usize].body;
    let line = body.get(other.pc as usize).map_or(0, |i| i.line);
    let who = mem.namer.thread(other.tid);
    let (where_, lane_state) = match other.state {
        State::Exited => (
            format!("finished at line {line} without calling it (it took the other branch of an `if` around the call, or returned early)"),
            LaneState::Exited,
        ),
        State::Barrier => (
            format!("is waiting at the __syncthreads() on line {line}"),
            LaneState::AtBarrier,
        ),
        State::Warp => (
            format!("is waiting at a different warp-wide operation (line {line})"),
            LaneState::AtOtherWarpOp,
        ),
        State::Ready => (format!("is at line {line}"), LaneState::Elsewhere),
    };
    let others = match missing.len() {
        1 => String::new(),
        n => format!(" ({} other lanes are missing too)", n - 1),
    };
    mem.diags
        .report(DiagKind::WarpSync, Severity::Error, site, None, || {
            (
                format!("{what}, but lane {l} ({who}) {where_}{others}; it ran with the lanes that came, a missing lane's elements taken as zero"),
                Facts::Wmma(WmmaFacts::LaneMissing {
                    lane: l as u32,
                    lane_state,
                    threads: warp.len() as u32,
                }),
            )
        });
}

/// The CUDA guide's rules for `load_matrix_sync`/`store_matrix_sync`: the pointer 32-byte
/// aligned, the leading dimension a multiple of 16 bytes (8 halves, 4 floats). Broken, it is
/// reported and the lane's part is skipped (false), as the GPU backend skips the instruction
/// (`gpu/instrument/wmma.rs`, worded alike in `gpu/outcome.rs`): on a GPU it faults or
/// computes garbage.
#[allow(clippy::too_many_arguments)]
fn check_alignment(
    mem: &mut Mem,
    th: &Thread,
    inst: &Inst,
    op: &Wmma,
    space: Space,
    at: u64,
    stride: u64,
    ty: Ty,
) -> bool {
    let size = ty.size() as u64;
    let stride_bytes = stride.wrapping_mul(size);
    let aligned = at.is_multiple_of(32);
    if aligned && stride_bytes.is_multiple_of(16) {
        return true;
    }
    let site = mem.site(th, inst);
    let who = mem.namer.who(th.tid, mem.block);
    let call = api(op);
    let (message, facts) = if aligned {
        let per = 16 / size;
        (
            format!("{who} called wmma::{call} with a leading dimension of {stride} elements ({stride_bytes} bytes); WMMA needs a multiple of 16 bytes ({per} elements of this type)"),
            WmmaFacts::LeadingDimension { elements: stride, elem_bytes: size as u32 },
        )
    } else {
        let space = match space {
            Space::Shared => "shared ",
            Space::Global => "global ",
            _ => "",
        };
        (
            format!("{who} called wmma::{call} with a {space}pointer ({at:#x}) that is not aligned to 32 bytes, as WMMA needs"),
            WmmaFacts::Pointer { address: at },
        )
    };
    mem.diags
        .report(DiagKind::Misaligned, Severity::Error, site, None, || {
            (message, Facts::Wmma(facts))
        });
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: [Shape; 3] = [Shape::M16N16K16, Shape::M32N8K16, Shape::M8N32K16];

    #[test]
    fn every_element_of_every_operand_belongs_to_exactly_one_lane() {
        for shape in SHAPES {
            for matrix in [Matrix::A, Matrix::B, Matrix::C] {
                let (rows, cols) = matrix.dims(shape);
                let mut owner = vec![0u32; rows * cols];
                for lane in 0..32 {
                    for i in 0..unique(shape, matrix) {
                        let (r, c) = coord(shape, matrix, lane, i);
                        assert!(r < rows && c < cols, "{shape:?} {matrix:?} {lane} {i}");
                        owner[r * cols + c] += 1;
                    }
                }
                assert!(owner.iter().all(|&n| n == 1), "{shape:?} {matrix:?}");
            }
        }
    }

    #[test]
    fn m16n16k16_is_two_m16n8k16_fragments() {
        // mma.m16n8k16's A: a0 at (g, 2t), a2 at (g + 8, 2t), a4 at (g, 2t + 8).
        assert_eq!(coord(Shape::M16N16K16, Matrix::A, 5, 0), (1, 2));
        assert_eq!(coord(Shape::M16N16K16, Matrix::A, 5, 2), (9, 2));
        assert_eq!(coord(Shape::M16N16K16, Matrix::A, 5, 5), (1, 11));
        // B: b0 at (2t, g); the second n8 tile's first element at (2t, g + 8).
        assert_eq!(coord(Shape::M16N16K16, Matrix::B, 5, 0), (2, 1));
        assert_eq!(coord(Shape::M16N16K16, Matrix::B, 5, 4), (2, 9));
        // C: c0 at (g, 2t), c2 at (g + 8, 2t), the second tile 8 columns on.
        assert_eq!(coord(Shape::M16N16K16, Matrix::C, 5, 2), (9, 2));
        assert_eq!(coord(Shape::M16N16K16, Matrix::C, 5, 4), (1, 10));
    }

    #[test]
    fn fragments_fill_the_registers_the_isa_gives_them() {
        for shape in SHAPES {
            for (matrix, ty) in [
                (Matrix::A, Ty::F16),
                (Matrix::B, Ty::F16),
                (Matrix::A, Ty::BF16),
                (Matrix::B, Ty::BF16),
                (Matrix::C, Ty::F32),
                (Matrix::C, Ty::F16),
            ] {
                let s = slots(shape, matrix, ty);
                assert_eq!(s % unique(shape, matrix), 0, "{shape:?} {matrix:?} {ty:?}");
            }
        }
        assert_eq!(slots(Shape::M8N32K16, Matrix::A, Ty::F16), 16);
        assert_eq!(unique(Shape::M8N32K16, Matrix::A), 4);
        assert_eq!(slots(Shape::M8N32K16, Matrix::A, Ty::BF16), 4);
    }

    #[test]
    fn halves_pack_low_first_and_round_once() {
        assert_eq!(pack(&[0x3c00, 0x4000], Ty::F16), vec![0x4000_3c00]);
        assert_eq!(slot_bits(&[0x4000_3c00], Ty::F16, 1), 0x4000);
        // 1 + 2^-11 is halfway between two halves: ties to even, once.
        assert_eq!(bits(Ty::F16, 1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(value(Ty::BF16, 0x3f80), 1.0);
    }
}
