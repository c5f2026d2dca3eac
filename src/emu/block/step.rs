//! One thread's instructions until it stops: the fast path of decoded instructions inline,
//! the general path dispatched by family to `instrs/`, and control flow (branches, calls,
//! returns, exit, barriers, collectives) here, since it moves the program counter.

use super::instrs;
use super::{at_line, rd, unsupported_call, write_param, Block, Frame, State, Stop};
use crate::emu::access::le_read;
use crate::emu::alu;
use crate::emu::facts::Facts;
use crate::emu::fast::{self, Fast, FastInst, NO_GUARD};
use crate::emu::result::{DiagKind, Severity};
use crate::emu::technique::Family;
use crate::ptx::ir::*;
use crate::ptx::tensor::TensorOp;

/// Device-function calls a thread may nest, and the bytes of frames and local memory it may
/// use (a GPU's default stack is only 1 KiB per thread).
const MAX_CALL_DEPTH: usize = 1000;
const MAX_STACK: u64 = 1 << 20;

impl<'l> Block<'l> {
    /// Run thread `t` for at most `budget` instructions. On a processor with AVX2 and FMA the
    /// loop is the one compiled for it (as lockstep's, `lockstep.rs`): there `fma` is the
    /// hardware instruction inline, where the baseline build calls out for it at every one
    /// (and reloads the thread's registers after). Same results: `fma` rounds once either way,
    /// and nothing else is contracted.
    pub(super) fn step(&mut self, t: usize, budget: u64) -> (Stop, u64) {
        #[cfg(target_arch = "x86_64")]
        if super::lockstep::has_avx2() {
            // SAFETY: the processor has every feature the function is compiled for (tested
            // just above); the function itself is safe code.
            return unsafe { self.step_avx2(t, budget) };
        }
        self.step_run(t, budget)
    }

    /// `step` compiled for processors with AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    fn step_avx2(&mut self, t: usize, budget: u64) -> (Stop, u64) {
        self.step_run(t, budget)
    }

    /// `step`, for whichever build inlines it.
    #[inline(always)]
    fn step_run(&mut self, t: usize, budget: u64) -> (Stop, u64) {
        let launch = self.mem.launch;
        let module = launch.module;
        let mem = &mut self.mem;
        let th = &mut self.threads[t];
        let linear = t as u32;
        let mut code: &[Inst] = &module.functions[th.func as usize].body;
        let mut fcode: &[FastInst] = &launch.fast.functions[th.func as usize];
        let mut n = 0u64;
        // The program counter lives in a local while the fast path runs (stored back for the
        // general path, for the memory fast path's access log, and when the thread stops).
        let mut pc = th.pc as usize;
        while n < budget {
            // `fcode` and `code` have the same length (one decoded entry per instruction).
            let Some(fi) = fcode.get(pc) else {
                return (
                    Stop::Fatal(format!(
                        "program counter ran off the end of `{}`",
                        module.functions[th.func as usize].name
                    )),
                    n,
                );
            };
            n += 1;
            if fi.guard != NO_GUARD && (th.regs[fi.guard as usize] != 0) == fi.negate {
                pc += 1;
                continue;
            }
            // The fast path: done and `continue`, or fall through to the general path.
            match fi.op {
                // Vector shared loads are lockstep's; alone, the general path does them.
                Fast::Slow | Fast::LdSharedVec { .. } => {}
                Fast::Int32 { op, d, a, b } => {
                    th.regs[d as usize] = fast::int32(op, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::Int64 { op, d, a, b } => {
                    th.regs[d as usize] = fast::int64(op, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::MulWide { signed, d, a, b } => {
                    th.regs[d as usize] = fast::mul_wide(signed, rd(&th.regs, a), rd(&th.regs, b));
                    pc += 1;
                    continue;
                }
                Fast::Mad32 { d, a, b, c } => {
                    let (x, y, z) = (rd(&th.regs, a), rd(&th.regs, b), rd(&th.regs, c));
                    th.regs[d as usize] = fast::mad32(x, y, z);
                    pc += 1;
                    continue;
                }
                Fast::F32 { op, d, a, b } => {
                    th.regs[d as usize] = fast::float32(op, rd(&th.regs, a), rd(&th.regs, b));
                    th.counters.count(Family::F32, 1);
                    pc += 1;
                    continue;
                }
                Fast::Fma32 { d, a, b, c } => {
                    let (x, y, z) = (rd(&th.regs, a), rd(&th.regs, b), rd(&th.regs, c));
                    th.regs[d as usize] = fast::fma32(x, y, z);
                    th.counters.count(Family::F32, 1);
                    pc += 1;
                    continue;
                }
                Fast::F64 { op, d, a, b } => {
                    th.regs[d as usize] = fast::float64(op, rd(&th.regs, a), rd(&th.regs, b));
                    th.counters.count(Family::F64, 1);
                    pc += 1;
                    continue;
                }
                Fast::Fma64 { d, a, b, c } => {
                    let (x, y, z) = (rd(&th.regs, a), rd(&th.regs, b), rd(&th.regs, c));
                    th.regs[d as usize] = fast::fma64(x, y, z);
                    th.counters.count(Family::F64, 1);
                    pc += 1;
                    continue;
                }
                Fast::Setp { cmp, ty, d, a, b } => {
                    th.regs[d as usize] =
                        fast::setp(cmp, ty, rd(&th.regs, a), rd(&th.regs, b)) as u64;
                    pc += 1;
                    continue;
                }
                Fast::Special { d, s } => {
                    th.regs[d as usize] = mem.special(th, s);
                    pc += 1;
                    continue;
                }
                Fast::Cvta { to, window, d, a } => {
                    th.regs[d as usize] = fast::cvta(to, window, rd(&th.regs, a));
                    pc += 1;
                    continue;
                }
                Fast::LdParam { ty, d, base, off } => {
                    let a = rd(&th.regs, base).wrapping_add(off as u64) as usize;
                    let size = ty.size() as usize;
                    let aligned = a & (size - 1) == 0;
                    if let (true, Some(bytes)) = (aligned, th.params.get(a..a.wrapping_add(size))) {
                        let v = le_read(bytes);
                        th.regs[d as usize] = alu::loaded(ty, v);
                        pc += 1;
                        continue;
                    }
                }
                Fast::Mov { ty, d, a } => {
                    th.regs[d as usize] = alu::mask(ty, rd(&th.regs, a));
                    pc += 1;
                    continue;
                }
                Fast::CvtInt { dty, sty, d, a } => {
                    th.regs[d as usize] = fast::cvt_int(dty, sty, rd(&th.regs, a));
                    pc += 1;
                    continue;
                }
                Fast::Bra { target } => {
                    pc = target as usize;
                    continue;
                }
                Fast::LdGlobal {
                    ty,
                    d,
                    base,
                    off,
                    slot,
                } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    if let Some(v) =
                        mem.fast_global_load(th, linear, &code[pc], addr, ty.size(), slot)
                    {
                        th.regs[d as usize] = alu::loaded(ty, v);
                        pc += 1;
                        continue;
                    }
                }
                Fast::StGlobal {
                    size,
                    src,
                    base,
                    off,
                    slot,
                } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    let v = rd(&th.regs, src);
                    if mem.fast_global_store(th, linear, &code[pc], addr, size, slot, v) {
                        pc += 1;
                        continue;
                    }
                }
                Fast::LdShared { ty, d, base, off } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    if let Some(v) = mem.fast_shared_load(th, linear, &code[pc], addr, ty.size()) {
                        th.regs[d as usize] = alu::loaded(ty, v);
                        pc += 1;
                        continue;
                    }
                }
                Fast::StShared {
                    size,
                    src,
                    base,
                    off,
                } => {
                    th.pc = pc as u32;
                    let addr = rd(&th.regs, base).wrapping_add(off as u64);
                    let v = rd(&th.regs, src);
                    if mem.fast_shared_store(th, linear, &code[pc], addr, size, v) {
                        pc += 1;
                        continue;
                    }
                }
            }
            th.pc = pc as u32;
            let inst = &code[pc];
            if fi.guard == NO_GUARD {
                if let Some((p, neg)) = inst.guard {
                    // Only a guard the decoder could not take (never from a valid parse).
                    if (th.regs.get(p as usize).copied().unwrap_or(0) != 0) == neg {
                        pc += 1;
                        continue;
                    }
                }
            }
            'general: {
                match &inst.op {
                    instrs::arith_op!() => {
                        // Lent out for the call (`th` is borrowed beside them).
                        let mut regs = std::mem::take(&mut th.regs);
                        instrs::arith(mem, th, &mut regs[..], &inst.op);
                        th.regs = regs;
                        if let Some(f) = instrs::arith_family(&inst.op) {
                            th.counters.count(f, 1);
                        }
                    }
                    Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } => {
                        let mut regs = std::mem::take(&mut th.regs);
                        instrs::memory(mem, th, &mut regs[..], linear, inst);
                        th.regs = regs;
                    }
                    Op::Bra { target } => {
                        th.pc = *target;
                        break 'general;
                    }
                    Op::Brx { index, targets } => {
                        let i = mem.val(th, index) as u32;
                        if let Some(&t) = targets.get(i as usize) {
                            th.pc = t;
                            break 'general;
                        }
                        let site = mem.site(th, inst);
                        let who = mem.namer.who(th.tid, mem.block);
                        let len = targets.len();
                        mem.diags.report(DiagKind::OutOfBounds, Severity::Error, site, None, || {
                            (
                                format!(
                                    "{who} took an indirect branch (brx.idx){} with index {i}, but its jump table has {len} entries (0 to {}); on a GPU the jump lands anywhere",
                                    if inst.line > 0 { format!(" (line {})", inst.line) } else { String::new() },
                                    len as i64 - 1
                                ),
                                Facts::None,
                            )
                        });
                        th.state = State::Exited;
                        return (Stop::Exit, n);
                    }
                    Op::Call { callee, ret, args } => match resolve_callee(*callee, th, module) {
                        Err(addr) => {
                            let site = mem.site(th, inst);
                            let who = mem.namer.who(th.tid, mem.block);
                            mem.diags.report(DiagKind::OutOfBounds, Severity::Error, site, None, || {
                                (
                                    format!(
                                        "{who} called through a function pointer that points to no function (it holds {addr:#x}); on a GPU this is an illegal-address error"
                                    ),
                                    Facts::None,
                                )
                            });
                            th.state = State::Exited;
                            return (Stop::Exit, n);
                        }
                        Ok(Callee::Malloc) => {
                            let size = args.first().map_or(0, |&a| param_u64(&th.params, a));
                            let p = launch
                                .heap
                                .as_ref()
                                .map_or(0, |h| h.malloc(size, inst.line));
                            if let Some(r) = ret {
                                write_param(&mut th.params, *r, 8, p);
                            }
                        }
                        Ok(Callee::Free) => {
                            let p = args.first().map_or(0, |&a| param_u64(&th.params, a));
                            if let Some(Err(e)) = launch.heap.as_ref().map(|h| h.free(p, inst.line))
                            {
                                mem.free_refused(th, inst, p, &e);
                            }
                        }
                        Ok(Callee::Indirect(_)) => {}
                        Ok(Callee::Func(fi)) => {
                            let f = &module.functions[fi as usize];
                            let mut params = vec![0u8; f.param_area as usize];
                            for (arg, p) in args.iter().zip(&f.params) {
                                let src = *arg as usize;
                                let n = p.size as usize;
                                if let (Some(dst), Some(s)) = (
                                    params.get_mut(p.offset as usize..p.offset as usize + n),
                                    th.params.get(src..src + n),
                                ) {
                                    dst.copy_from_slice(s);
                                }
                            }
                            let new_base = (th.local.len() as u64).div_ceil(16) * 16;
                            let stack: u64 = th
                                .frames
                                .iter()
                                .map(|fr| fr.regs.len() as u64 * 8 + fr.params.len() as u64)
                                .sum::<u64>()
                                + new_base
                                + f.local_size;
                            if th.frames.len() >= MAX_CALL_DEPTH || stack > MAX_STACK {
                                return (
                                Stop::Fatal(format!(
                                    "the calls nest too deep (stack overflow) in `{}`{}: a recursion that never stops?",
                                    demangle_var(&f.name),
                                    at_line(inst, launch)
                                )),
                                n,
                            );
                            }
                            th.local.resize((new_base + f.local_size) as usize);
                            let frame = Frame {
                                func: th.func,
                                ret_pc: th.pc + 1,
                                regs: std::mem::replace(&mut th.regs, vec![0; f.num_regs as usize]),
                                params: std::mem::replace(&mut th.params, params),
                                local_base: th.local_base,
                                ret_slot: *ret,
                            };
                            th.frames.push(frame);
                            th.local_base = new_base;
                            th.func = fi;
                            th.pc = 0;
                            code = &f.body;
                            fcode = &launch.fast.functions[fi as usize];
                            break 'general;
                        }
                        Ok(Callee::Vprintf) => {
                            let count = mem.vprintf(th, args);
                            if let Some(r) = ret {
                                write_param(&mut th.params, *r, 4, count);
                            }
                        }
                        Ok(Callee::AssertFail) => {
                            mem.assert_fail(th, inst, args);
                            th.state = State::Exited;
                            return (Stop::Exit, n);
                        }
                        Ok(Callee::Unknown(i)) => {
                            let name = module.externs.get(i as usize).cloned().unwrap_or_default();
                            return (Stop::Fatal(unsupported_call(&name, inst, launch)), n);
                        }
                    },
                    Op::Ret => {
                        let Some(frame) = th.frames.pop() else {
                            th.state = State::Exited;
                            return (Stop::Exit, n);
                        };
                        let callee = &module.functions[th.func as usize];
                        let callee_params = std::mem::replace(&mut th.params, frame.params);
                        if let (Some(slot), Some(rv)) = (frame.ret_slot, &callee.retval) {
                            let (s, len) = (rv.offset as usize, rv.size as usize);
                            if let (Some(src), Some(dst)) = (
                                callee_params.get(s..s + len),
                                th.params.get_mut(slot as usize..slot as usize + len),
                            ) {
                                dst.copy_from_slice(src);
                            }
                        }
                        th.local.truncate(th.local_base as usize);
                        th.regs = frame.regs;
                        th.local_base = frame.local_base;
                        th.func = frame.func;
                        th.pc = frame.ret_pc;
                        code = &module.functions[th.func as usize].body;
                        fcode = &launch.fast.functions[th.func as usize];
                        break 'general;
                    }
                    Op::Exit => {
                        th.state = State::Exited;
                        return (Stop::Exit, n);
                    }
                    Op::Trap if module.group_sync_aborts.contains(&(th.func, th.pc)) => {
                        return (
                            Stop::Fatal(crate::emu::cooperative::not_cooperative(&at_line(
                                inst, launch,
                            ))),
                            n,
                        );
                    }
                    Op::Trap => {
                        let site = mem.site(th, inst);
                        let who = mem.namer.who(th.tid, mem.block);
                        mem.diags.report(DiagKind::Assert, Severity::Error, site, None, || {
                        (format!("{who} executed a trap instruction, which aborts the kernel"), Facts::None)
                    });
                        th.state = State::Exited;
                        return (Stop::Exit, n);
                    }
                    Op::BarSync { .. } | Op::BarRed { .. } => {
                        th.state = State::Barrier;
                        return (Stop::Wait, n);
                    }
                    Op::BarWarpSync { .. }
                    | Op::Shfl { .. }
                    | Op::Vote { .. }
                    | Op::Redux { .. }
                    | Op::MatchAny { .. }
                    | Op::MatchAll { .. }
                    | Op::Wmma(_) => {
                        th.state = State::Warp;
                        return (Stop::Wait, n);
                    }
                    Op::Activemask { .. } => {
                        th.state = State::Warp;
                        return (Stop::Wait, n);
                    }
                    Op::Async(a) => {
                        use crate::emu::async_copy::{instrs::exec, Flow};
                        let mut regs = std::mem::take(&mut th.regs);
                        let flow = exec(mem, th, &mut regs[..], linear, inst, a);
                        th.regs = regs;
                        match flow {
                            Flow::Next => {}
                            Flow::Wait => {
                                th.state = State::Barrier;
                                return (Stop::Wait, n);
                            }
                            Flow::Yield => {
                                th.pc += 1;
                                return (Stop::Quantum, n);
                            }
                        }
                    }
                    Op::Tensor(op) => match &**op {
                        TensorOp::CvtTf32 { d, a } => {
                            let v = crate::emu::tensor::mma::tf32_rna(mem.val(th, a) as u32);
                            th.regs[*d as usize] = v as u64;
                        }
                        // The warp collectives (`block/tensor.rs`).
                        _ => {
                            th.state = State::Warp;
                            return (Stop::Wait, n);
                        }
                    },
                    Op::Fence => th.fenced = true,
                    Op::Nop => {}
                    Op::AtomVec { .. } => {
                        crate::emu::cluster::instrs::atom_vec(mem, th, linear, inst)
                    }
                    Op::Cluster(c) => {
                        if !crate::emu::cluster::instrs::exec(mem, th, c, linear) {
                            // Waiting at the cluster barrier: this instruction again next turn.
                            return (Stop::Quantum, n);
                        }
                        if th.state == State::Barrier {
                            // The cluster barrier is over: the block's own barrier next.
                            return (Stop::Wait, n);
                        }
                    }
                    Op::Unsupported { text } => {
                        return (
                            Stop::Fatal(crate::emu::diag::unsupported_instruction(
                                text,
                                &super::at_line(inst, launch),
                            )),
                            n,
                        );
                    }
                }
                th.pc += 1;
            }
            pc = th.pc as usize;
        }
        th.pc = pc as u32;
        (Stop::Quantum, n)
    }
}

/// The function a call runs: an indirect call's target is read from its register; `Err` with
/// the address when it points to no device function.
fn resolve_callee(
    callee: Callee,
    th: &super::Thread,
    module: &crate::ptx::Module,
) -> Result<Callee, u64> {
    let Callee::Indirect(r) = callee else {
        return Ok(callee);
    };
    let addr = th.regs.get(r as usize).copied().unwrap_or(0);
    function_at(addr, module.functions.len())
        .filter(|&f| {
            let f = &module.functions[f as usize];
            !f.is_entry && !f.body.is_empty()
        })
        .map(Callee::Func)
        .ok_or(addr)
}

/// The 8 bytes at `off` of a parameter area (0 where it is too short).
fn param_u64(params: &[u8], off: u32) -> u64 {
    params
        .get(off as usize..off as usize + 8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}
