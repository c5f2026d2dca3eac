//! What kind of work each line of the learner's file compiles to, read from the IR: facts
//! for `teach::technique`, which names the lines where a kernel does a puzzle's work without
//! its technique ("your kernel multiplies the bytes one by one (lines 14-17)"). Static: a line
//! is listed when some instruction of it is of a kind, whether or not a thread ran it; the
//! run's counters say what ran.

use super::ir::*;
use super::tensor::TensorOp;
use super::wmma::Wmma;

/// A kind of work an instruction does, as a bit of a line's set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Work {
    /// Integer `mul.lo`/`mad.lo` of 32 bits or less (not address arithmetic's `.wide`).
    IntMul,
    /// Bytes taken out of a word: `bfe` of 8 bits, `cvt` from 8-bit types, `prmt`, or a
    /// load of 8-bit elements.
    ByteExtract,
    /// `f32` multiplies and FMAs.
    FloatMulAdd,
    /// `f64` arithmetic.
    F64Math,
    /// A half converted to float (`cvt.f32.f16`).
    HalfToFloat,
    /// Scalar half arithmetic (`.f16`, not `.f16x2`).
    HalfScalar,
    SharedLoad,
    SharedStore,
    GlobalLoad,
    GlobalStore,
    LocalLoad,
    LocalStore,
    SharedAtomic,
    GlobalAtomic,
    Shuffle,
    Vote,
    Match,
    WarpReduce,
    /// `bar.sync`/`bar.red`.
    Barrier,
    CpAsync,
    /// `cp.async.wait_group 0` or `wait_all`: every copy waited for.
    WaitAll,
    /// `cp.async.wait_group n` with n > 0: the newest groups left in flight.
    WaitSome,
    Mma,
    Ldmatrix,
    Wmma,
    Dp4a,
    F16x2,
    /// A global load of fewer than 16 bytes (a scalar, a `float2`, an 8-byte integer): where a
    /// `float4` would move the same bytes in fewer instructions.
    GlobalNarrowLoad,
    /// A global store of fewer than 16 bytes.
    GlobalNarrowStore,
    /// `bar.warp.sync` (`__syncwarp()`): a barrier for one warp only.
    WarpSync,
    /// `activemask` (`__activemask()`): which lanes are running, not what they vote.
    ActiveMask,
    /// `bar.red` (`__syncthreads_count/_and/_or`): a block-wide barrier that also counts.
    BarrierCount,
}

/// Per source line of the learner's file, the kinds of work its instructions do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// `(line, bits)`, sorted by line; bit `Work as u8` set when the line does that work.
    lines: Vec<(u32, u32)>,
}

impl Census {
    /// The census of every function of `module`, counting only instructions whose `.loc` file
    /// is `file` (the learner's; headers' code is theirs).
    pub fn of(module: &Module, file: &str) -> Census {
        let mut lines: Vec<(u32, u32)> = Vec::new();
        for f in &module.functions {
            for inst in &f.body {
                if inst.line == 0 || !same_file(module.file_name(inst.file), file) {
                    continue;
                }
                let bits = work_of(&inst.op)
                    .into_iter()
                    .fold(0u32, |b, w| b | 1 << w as u8);
                if bits == 0 {
                    continue;
                }
                match lines.binary_search_by_key(&inst.line, |&(l, _)| l) {
                    Ok(i) => lines[i].1 |= bits,
                    Err(i) => lines.insert(i, (inst.line, bits)),
                }
            }
        }
        Census { lines }
    }

    /// The lines doing `w`, in order.
    pub fn lines(&self, w: Work) -> Vec<u32> {
        self.lines
            .iter()
            .filter(|&&(_, b)| b & (1 << w as u8) != 0)
            .map(|&(l, _)| l)
            .collect()
    }

    /// The lines doing all of `ws`.
    pub fn lines_with_all(&self, ws: &[Work]) -> Vec<u32> {
        let mask = ws.iter().fold(0u32, |b, &w| b | 1 << w as u8);
        self.lines
            .iter()
            .filter(|&&(_, b)| b & mask == mask)
            .map(|&(l, _)| l)
            .collect()
    }

    pub fn any(&self, w: Work) -> bool {
        self.lines.iter().any(|&(_, b)| b & (1 << w as u8) != 0)
    }
}

/// Which of the learner's loads and collectives feed something: an instruction is live when
/// some instruction of its function reads one of the registers it writes (or tests it as a
/// guard). One level only: a result read by work that is itself dead still counts as live, so
/// this never calls used work dead; it catches a value loaded or exchanged and then dropped
/// (`volatile float x = s[0];` with `x` unused), which `require` must not count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Feeds {
    /// Per kind of work (`Work as u8`): whether any of the learner's instructions of that kind
    /// is live, and the lines of those that are dead.
    kinds: Vec<(u8, bool, Vec<u32>)>,
}

impl Feeds {
    pub fn of(module: &Module, file: &str) -> Feeds {
        let mut kinds: Vec<(u8, bool, Vec<u32>)> = Vec::new();
        for f in &module.functions {
            let read = registers_read(f);
            for inst in &f.body {
                if inst.line == 0 || !same_file(module.file_name(inst.file), file) {
                    continue;
                }
                let Some(dests) = written(&inst.op) else {
                    continue;
                };
                let live = dests.is_empty() || dests.iter().any(|r| read.contains(r));
                for w in work_of(&inst.op) {
                    let k = match kinds.iter_mut().find(|k| k.0 == w as u8) {
                        Some(k) => k,
                        None => {
                            kinds.push((w as u8, false, Vec::new()));
                            kinds.last_mut().expect("just pushed")
                        }
                    };
                    if live {
                        k.1 = true;
                    } else if !k.2.contains(&inst.line) {
                        k.2.push(inst.line);
                    }
                }
            }
        }
        Feeds { kinds }
    }

    /// For the learner's instructions of kind `w`: whether any of them feeds something, and
    /// the lines of those that do not; `None` when the file has none.
    pub fn of_kind(&self, w: Work) -> Option<(bool, &[u32])> {
        let k = self.kinds.iter().find(|k| k.0 == w as u8)?;
        Some((k.1, &k.2))
    }
}

/// Registers some instruction of `f` reads: its `Operand::Reg` sources (found through the
/// operands' `Debug` form, which every operation has, so no variant can be missed) and its
/// guards.
fn registers_read(f: &Function) -> std::collections::HashSet<u32> {
    let mut read = std::collections::HashSet::new();
    for inst in &f.body {
        if let Some((p, _)) = inst.guard {
            read.insert(p);
        }
        let text = format!("{:?}", inst.op);
        let mut rest = text.as_str();
        while let Some(at) = rest.find("Reg(") {
            rest = &rest[at + 4..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(r) = digits.parse() {
                read.insert(r);
            }
        }
    }
    read
}

/// The registers an instruction whose liveness `Feeds` judges writes; `None` for the others.
fn written(op: &Op) -> Option<Vec<u32>> {
    Some(match op {
        Op::Ld { d, .. } => d.clone(),
        Op::Shfl { d, .. }
        | Op::Vote { d, .. }
        | Op::MatchAny { d, .. }
        | Op::MatchAll { d, .. }
        | Op::Redux { d, .. }
        | Op::Dot { d, .. } => vec![*d],
        Op::Half2 { d, pair: true, .. } => vec![*d],
        Op::Tensor(t) => match &**t {
            TensorOp::Mma(m) => m.d.clone(),
            TensorOp::Ldmatrix(m) => m.regs.clone(),
            _ => return None,
        },
        Op::Wmma(w) => match &**w {
            Wmma::Mma { d, .. } => d.clone(),
            _ => return None,
        },
        _ => return None,
    })
}

/// `.file` names are paths as NVRTC was given them; the learner's may be given bare.
fn same_file(name: Option<&str>, file: &str) -> bool {
    let Some(name) = name else { return false };
    let base = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string();
    name == file || base(name) == base(file)
}

/// The kinds of work of one instruction (most have none or one).
fn work_of(op: &Op) -> Vec<Work> {
    let int = |ty: &Ty| !ty.is_float() && ty.size() <= 4;
    let byte = |ty: &Ty| ty.size() == 1;
    match op {
        Op::Bin {
            op: BinOp::MulLo,
            ty,
            ..
        } if int(ty) => vec![Work::IntMul],
        Op::Mad {
            mode: BinOp::MulLo,
            ty,
            ..
        } if int(ty) => vec![Work::IntMul],
        Op::Bin {
            op: BinOp::MulLo,
            ty,
            ..
        }
        | Op::Mad { ty, .. }
            if *ty == Ty::F32 =>
        {
            vec![Work::FloatMulAdd]
        }
        Op::Bin { ty: Ty::F64, .. } | Op::Un { ty: Ty::F64, .. } | Op::Mad { ty: Ty::F64, .. } => {
            vec![Work::F64Math]
        }
        Op::Bfe {
            c: Operand::Imm(8), ..
        } => vec![Work::ByteExtract],
        Op::Prmt { .. } => vec![Work::ByteExtract],
        Op::Cvt { sty, .. } if byte(sty) => vec![Work::ByteExtract],
        Op::Cvt {
            dty: Ty::F32, sty, ..
        } if sty.size() == 2 && sty.is_float() => {
            vec![Work::HalfToFloat]
        }
        // Two floats packed into a pair (`__floats2half2_rn`) is a conversion, as the emulator's
        // `f16x2` counts it.
        Op::Half2 {
            pair: true,
            op: Half2Op::PackCvt(_),
            ..
        } => vec![],
        Op::Half2 { pair: true, .. } => vec![Work::F16x2],
        Op::Half2 { pair: false, .. } => vec![Work::HalfScalar],
        // One half's arithmetic in the general forms (`add.f16`, `fma.rn.f16`: `__hadd`,
        // `__hfma`), as the emulator's `f16` family counts it.
        Op::Bin {
            ty: Ty::F16 | Ty::BF16,
            ..
        }
        | Op::Mad {
            ty: Ty::F16 | Ty::BF16,
            ..
        } => vec![Work::HalfScalar],
        Op::Un {
            ty: Ty::F16 | Ty::BF16,
            op,
            ..
        } if *op != UnOp::Mov => vec![Work::HalfScalar],
        Op::Ld { space, ty, d, .. } => {
            let narrow = ty.size() as usize * d.len() < 16;
            let mut w = match space {
                Space::Shared => vec![Work::SharedLoad],
                Space::Global | Space::Generic | Space::Const if narrow => {
                    vec![Work::GlobalLoad, Work::GlobalNarrowLoad]
                }
                Space::Global | Space::Generic | Space::Const => vec![Work::GlobalLoad],
                Space::Local => vec![Work::LocalLoad],
                Space::Param => vec![],
            };
            if byte(ty) {
                w.push(Work::ByteExtract);
            }
            w
        }
        Op::St { space, ty, src, .. } => match space {
            Space::Shared => vec![Work::SharedStore],
            Space::Global | Space::Generic if (ty.size() as usize * src.len()) < 16 => {
                vec![Work::GlobalStore, Work::GlobalNarrowStore]
            }
            Space::Global | Space::Generic => vec![Work::GlobalStore],
            Space::Local => vec![Work::LocalStore],
            _ => vec![],
        },
        Op::Atom { space, .. } | Op::AtomVec { space, .. } => match space {
            Space::Shared => vec![Work::SharedAtomic],
            _ => vec![Work::GlobalAtomic],
        },
        Op::Shfl { .. } => vec![Work::Shuffle],
        Op::Vote { .. } => vec![Work::Vote],
        Op::MatchAny { .. } | Op::MatchAll { .. } => vec![Work::Match],
        Op::Redux { .. } => vec![Work::WarpReduce],
        Op::BarSync { .. } => vec![Work::Barrier],
        Op::BarRed { .. } => vec![Work::Barrier, Work::BarrierCount],
        Op::BarWarpSync { .. } => vec![Work::WarpSync],
        Op::Activemask { .. } => vec![Work::ActiveMask],
        Op::Dot {
            kind: super::ir::DotKind::Dp4a,
            ..
        } => vec![Work::Dp4a],
        Op::Async(a) => match **a {
            AsyncOp::Copy { .. } => vec![Work::CpAsync],
            AsyncOp::Wait { n: 0, .. } | AsyncOp::Wait { all: true, .. } => vec![Work::WaitAll],
            AsyncOp::Wait { .. } => vec![Work::WaitSome],
            _ => vec![],
        },
        Op::Tensor(t) => match **t {
            TensorOp::Mma(_) => vec![Work::Mma],
            TensorOp::Ldmatrix(_) => vec![Work::Ldmatrix],
            _ => vec![],
        },
        Op::Wmma(w) => match **w {
            Wmma::Mma { .. } => vec![Work::Wmma],
            _ => vec![],
        },
        _ => vec![],
    }
}
