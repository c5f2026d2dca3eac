//! The tensor-core family as warp collectives: once the warp's lanes have met at an `mma`,
//! `ldmatrix`, `stmatrix` or `movmatrix` (`collectives.rs` waits for them and reports a lane
//! that never comes, as for `shfl`), gather their registers, run the semantics of
//! `crate::emu::tensor`, and write each lane's results.
//!
//! Memory goes through the ordinary checked accesses, so bounds, alignment (16 bytes per row),
//! the race and uninitialised-read checkers, counters and traces see it as any other shared
//! access: each lane that supplies a row address reads or writes that row's 16 bytes, counted
//! as four 4-byte accesses (like `ld.shared.v4.b32`), checked as that lane's access. The
//! hardware moves one 8x8 matrix (eight 16-byte rows) per shared-memory wavefront, so each
//! matrix must be its own warp-level access in the bank-conflict figures (`perf.rs` groups a
//! warp's accesses by line and by the n-th time each lane gets there): the logged access of row
//! `r` of matrix `i` is filed under lane `r` of the warp, as its `i`-th at this instruction.
//! Matrix `i` is then the group of lanes 0..7's `i`-th accesses: eight rows 128 bytes apart are
//! 8-way, rows padded or XOR-swizzled across the banks conflict-free. (So a trace shows lanes
//! 0..7 moving every row of an `.x2`/`.x4`; the counters stay with the lanes that gave the
//! addresses.) A row whose access was refused reads as zeros (a skipped load leaves 0).

use super::{Block, Lane, Mem, Thread};
use crate::emu::technique::Family;
use crate::emu::tensor::matrix::{self, Row};
use crate::emu::tensor::mma::{self, LaneFrags};
use crate::emu::tensor::mma_fused;
use crate::ptx::ir::{Inst, Op, Operand};
use crate::ptx::tensor::{MatrixMove, Mma, TensorOp};

/// Complete `mma` or `ldmatrix` (`inst`, at `pc`) inside a lockstep run, for the lanes `on`
/// (every live lane of the warp, none waiting elsewhere: what the general path's `present`
/// holds when the last lane arrives), from and into the run's register file `file`
/// (`file[reg * 32 + lane]`), as `Block::complete_tensor` and `try_warp_collective` complete
/// it: the same reads in lane order, the same results, counts and order. Returns false having
/// changed nothing for anything else (`stmatrix`, `movmatrix`, an `ldmatrix` whose accesses
/// are logged for perf figures or a trace, which `file_row` must refile): the lanes then go on
/// alone to it. Saves the warp's register hand-over and one scheduler turn per lane.
pub(super) fn lockstep_tensor(
    mem: &mut Mem,
    warp: &mut [Thread],
    base: usize,
    file: &mut [u64],
    on: u32,
    pc: usize,
    inst: &Inst,
) -> bool {
    let Op::Tensor(op) = &inst.op else {
        return false;
    };
    // The lanes of `on`, in lane order.
    let each = || (0..32usize).filter(move |i| on >> i & 1 != 0);
    let family = match &**op {
        TensorOp::Mma(m) if mma::is_f16_k16(m) && register_columns(m, file.len()) => {
            // The whole warp, on a processor with fused multiply-adds: straight from and into
            // the file (`mma_fused`), unless D holds a NaN.
            if on == u32::MAX && mma_fused::run(file, &fused_regs(m)) {
                for i in each() {
                    warp[i].counters.count(Family::Mma, 1);
                }
                mem.order.collective(base / 32, on);
                return true;
            }
            // Every operand a register: copied from the file's columns (a lane that does not
            // take part gives zeros, as `LaneFrags::default`), D written into them.
            let mut f = mma::WarpFrags::default();
            let column = |dst: &mut [u64; 32], o: &Operand| {
                if let Operand::Reg(r) = *o {
                    let src = &file[r as usize * 32..r as usize * 32 + 32];
                    if on == u32::MAX {
                        dst.copy_from_slice(src);
                    } else {
                        for i in each() {
                            dst[i] = src[i];
                        }
                    }
                }
            };
            for (dst, o) in f.a.iter_mut().zip(&m.a) {
                column(dst, o);
            }
            for (dst, o) in f.b.iter_mut().zip(&m.b) {
                column(dst, o);
            }
            for (dst, o) in f.c.iter_mut().zip(&m.c) {
                column(dst, o);
            }
            let d = mma::f16_k16(&f);
            for (r, vals) in m.d.iter().zip(&d) {
                let dst = &mut file[*r as usize * 32..*r as usize * 32 + 32];
                if on == u32::MAX {
                    dst.copy_from_slice(vals);
                } else {
                    for i in each() {
                        dst[i] = vals[i];
                    }
                }
            }
            Family::Mma
        }
        TensorOp::Mma(m) => {
            let mut lanes = [LaneFrags::default(); 32];
            for i in each() {
                let regs = Lane {
                    file: &mut *file,
                    lane: i,
                };
                let f = &mut lanes[i];
                let fill = |out: &mut [u64], ops: &[Operand]| {
                    for (r, o) in out.iter_mut().zip(ops) {
                        *r = mem.val_in(&warp[i], &regs, o);
                    }
                };
                fill(&mut f.a, &m.a);
                fill(&mut f.b, &m.b);
                fill(&mut f.c, &m.c);
            }
            let out = mma::run(m, &lanes);
            for i in each() {
                for (r, v) in m.d.iter().zip(&out[i]) {
                    if let Some(slot) = file.get_mut(*r as usize * 32 + i) {
                        *slot = *v;
                    }
                }
            }
            Family::Mma
        }
        TensorOp::Ldmatrix(mv) if mem.accesses.is_none() => {
            // `Block::read_rows`, from the run's registers.
            let mut mats = vec![[[0u16; 8]; 8]; mv.num as usize];
            for i in each().filter(|&i| i < 8 * mv.num as usize) {
                let regs = Lane {
                    file: &mut *file,
                    lane: i,
                };
                let addr = mem
                    .val_in(&warp[i], &regs, &mv.addr.base)
                    .wrapping_add(mv.addr.offset as u64);
                let th = &mut warp[i];
                // Where a diagnostic of the access finds the lane.
                th.pc = pc as u32;
                let mut words = [0u64; 4];
                let linear = (base + i) as u32;
                if mem.load_vec(th, linear, inst, mv.space, addr, 4, 16, &mut words) {
                    let row = &mut mats[i / 8][i % 8];
                    for (w, v) in words.iter().enumerate() {
                        row[2 * w] = *v as u16;
                        row[2 * w + 1] = (*v >> 16) as u16;
                    }
                }
            }
            for i in each() {
                for (r, mat) in mv.regs.iter().zip(&mats) {
                    let v = matrix::load(mat, i as u32, mv.trans);
                    if let Some(slot) = file.get_mut(*r as usize * 32 + i) {
                        *slot = v as u64;
                    }
                }
            }
            Family::Ldmatrix
        }
        _ => return false,
    };
    for i in each() {
        warp[i].counters.count(family, 1);
    }
    mem.order.collective(base / 32, on);
    true
}

/// The register numbers of `m`, an `f16_k16` form whose operands are all registers
/// (`register_columns`).
fn fused_regs(m: &Mma) -> mma_fused::Regs {
    let reg = |o: &Operand| match *o {
        Operand::Reg(r) => r as usize,
        // Not reached (`register_columns`); a register outside every file declines the path.
        _ => usize::MAX / 64,
    };
    mma_fused::Regs {
        a: std::array::from_fn(|i| reg(&m.a[i])),
        b: std::array::from_fn(|i| reg(&m.b[i])),
        c: std::array::from_fn(|i| reg(&m.c[i])),
        d: std::array::from_fn(|i| m.d[i] as usize),
    }
}

/// Whether every operand of `m` is a register inside a register file of `len` values
/// (`file[reg * 32 + lane]`), with the register counts of `f16_k16`'s form.
fn register_columns(m: &Mma, len: usize) -> bool {
    let fits = |o: &Operand| matches!(*o, Operand::Reg(r) if (r as usize + 1) * 32 <= len);
    m.a.len() == 4
        && m.b.len() == 2
        && m.c.len() == 4
        && m.d.len() == 4
        && m.a.iter().chain(&m.b).chain(&m.c).all(fits)
        && m.d.iter().all(|&r| (r as usize + 1) * 32 <= len)
}

impl<'l> Block<'l> {
    /// Complete the tensor instruction the lanes `present` (sorted, one warp, all at the same
    /// instruction) wait at, and move them past it.
    pub(super) fn complete_tensor(&mut self, present: &[usize]) {
        let Some(&first) = present.first() else {
            return;
        };
        let launch = self.mem.launch;
        let th = &self.threads[first];
        let Some(inst) = launch.module.functions[th.func as usize]
            .body
            .get(th.pc as usize)
        else {
            return;
        };
        let Op::Tensor(op) = &inst.op else {
            return;
        };
        match &**op {
            TensorOp::Mma(m) => {
                let mut lanes = [LaneFrags::default(); 32];
                for &l in present {
                    let th = &self.threads[l];
                    let f = &mut lanes[l % 32];
                    let fill = |regs: &mut [u64], ops: &[crate::ptx::ir::Operand]| {
                        for (r, o) in regs.iter_mut().zip(ops) {
                            *r = self.mem.val(th, o);
                        }
                    };
                    fill(&mut f.a, &m.a);
                    fill(&mut f.b, &m.b);
                    fill(&mut f.c, &m.c);
                }
                let out = mma::run(m, &lanes);
                for &l in present {
                    for (r, v) in m.d.iter().zip(&out[l % 32]) {
                        self.set_reg(l, *r, *v);
                    }
                }
            }
            TensorOp::Ldmatrix(mv) => {
                let mats = self.read_rows(present, inst, mv);
                for &l in present {
                    for (r, mat) in mv.regs.iter().zip(&mats) {
                        let v = matrix::load(mat, (l % 32) as u32, mv.trans);
                        self.set_reg(l, *r, v as u64);
                    }
                }
            }
            TensorOp::Stmatrix(mv) => {
                let mut mats = Vec::with_capacity(mv.num as usize);
                for src in &mv.srcs {
                    let mut regs = [0u32; 32];
                    for &l in present {
                        regs[l % 32] = self.mem.val(&self.threads[l], src) as u32;
                    }
                    mats.push(matrix::store(&regs, mv.trans));
                }
                self.write_rows(present, inst, mv, &mats);
            }
            TensorOp::Movmatrix { d, a } => {
                let mut regs = [0u32; 32];
                for &l in present {
                    regs[l % 32] = self.mem.val(&self.threads[l], a) as u32;
                }
                for &l in present {
                    let v = matrix::transpose(&regs, (l % 32) as u32);
                    self.set_reg(l, *d, v as u64);
                }
            }
            // Not a collective: `step.rs` runs it.
            TensorOp::CvtTf32 { .. } => {}
        }
    }

    fn set_reg(&mut self, l: usize, r: u32, v: u64) {
        if let Some(slot) = self.threads[l].regs.get_mut(r as usize) {
            *slot = v;
        }
    }

    /// The address lane `l` gives for its row.
    fn row_addr(&self, l: usize, mv: &MatrixMove) -> u64 {
        self.mem
            .val(&self.threads[l], &mv.addr.base)
            .wrapping_add(mv.addr.offset as u64)
    }

    /// `ldmatrix`: each address-giving lane reads its row (16 bytes), matrix by matrix.
    fn read_rows(&mut self, present: &[usize], inst: &Inst, mv: &MatrixMove) -> Vec<[Row; 8]> {
        let mut mats = vec![[[0u16; 8]; 8]; mv.num as usize];
        for &l in present {
            let lane = l % 32;
            if lane >= 8 * mv.num as usize {
                continue;
            }
            let addr = self.row_addr(l, mv);
            let logged = self.logged(l);
            let mut words = [0u64; 4];
            let th = &mut self.threads[l];
            if self
                .mem
                .load_vec(th, l as u32, inst, mv.space, addr, 4, 16, &mut words)
            {
                let row = &mut mats[lane / 8][lane % 8];
                for (w, v) in words.iter().enumerate() {
                    row[2 * w] = *v as u16;
                    row[2 * w + 1] = (*v >> 16) as u16;
                }
            }
            self.file_row(l, logged);
        }
        mats
    }

    /// `stmatrix`: each address-giving lane writes its row of the matrices `mats`.
    fn write_rows(&mut self, present: &[usize], inst: &Inst, mv: &MatrixMove, mats: &[[Row; 8]]) {
        for &l in present {
            let lane = l % 32;
            let Some(row) = mats.get(lane / 8).map(|m| m[lane % 8]) else {
                continue;
            };
            let addr = self.row_addr(l, mv);
            let words: [u64; 4] =
                std::array::from_fn(|w| row[2 * w] as u64 | (row[2 * w + 1] as u64) << 16);
            let logged = self.logged(l);
            let th = &mut self.threads[l];
            self.mem
                .store_vec(th, l as u32, inst, mv.space, addr, 4, &words);
            self.file_row(l, logged);
        }
    }

    /// How many accesses thread `l` has logged (perf figures or trace), if any are logged.
    fn logged(&self, l: usize) -> Option<usize> {
        self.mem
            .accesses
            .as_ref()
            .and_then(|a| a.get(l))
            .map(Vec::len)
    }

    /// File the access thread `l` logged since `before` (its row of a matrix) under lane
    /// `l % 8` of its warp, so each matrix is one warp-level access (see the module's doc).
    fn file_row(&mut self, l: usize, before: Option<usize>) {
        let Some(before) = before else {
            return;
        };
        let to = l / 32 * 32 + l % 8;
        if to == l {
            return;
        }
        if let Some(acc) = self.mem.accesses.as_mut() {
            let moved: Vec<_> = match acc.get_mut(l) {
                Some(log) if log.len() > before => log.drain(before..).collect(),
                _ => return,
            };
            if let Some(dst) = acc.get_mut(to) {
                dst.extend(moved);
            }
        }
    }
}
