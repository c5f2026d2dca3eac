//! The asynchronous-copy family in the IR and its parsing: `cp.async` (4, 8 or 16 bytes from
//! global to shared memory, with the source-size operand's zero fill), its commit groups and
//! waits, `mbarrier` (the shared-memory barrier objects `cuda::barrier` and `cuda::pipeline`
//! are built on), `cp.async.mbarrier.arrive`, and named barriers (`bar.sync id, count`,
//! `bar.arrive id, count`) for producer/consumer warps. One `Op::Async` holds them all, so
//! the shared IR gains one variant; `emu/async_copy.rs` runs them.
//!
//! A child of the parser (it uses the parser's operand reader); cache hints (`.L2::128B`,
//! `.L2::cache_hint` and its policy operand), memory-order qualifiers (`.release`,
//! `.acquire`, `.relaxed`) and scopes (`.cta`) are read and ignored: the emulator is
//! sequentially consistent and has no caches.

use super::{Builder, Built, Mods, PResult, Parser, Raw, SourceLoc};
use crate::ptx::ir::{Address, Module, Op, Operand, Space, Ty};
use std::collections::HashMap;

/// Which of NVIDIA's interfaces issued an async copy, read from the header its `cp.async` was
/// inlined from: the help names the wait of that interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AsyncApi {
    /// `cp.async` written in inline PTX (or an interface gpuzzle does not recognise).
    #[default]
    Ptx,
    /// `__pipeline_memcpy_async` / `__pipeline_commit` / `__pipeline_wait_prior`
    /// (`cuda_pipeline.h`).
    Primitives,
    /// `cooperative_groups::memcpy_async` / `cg::wait` (`cooperative_groups/memcpy_async.h`).
    CooperativeGroups,
    /// `cuda::memcpy_async` with a `cuda::pipeline` (`<cuda/pipeline>`).
    CudaPipeline,
    /// `cuda::memcpy_async` completing on a `cuda::barrier` (`<cuda/barrier>`).
    CudaBarrier,
}

/// One instruction of the family.
#[derive(Clone, Debug, PartialEq)]
pub enum AsyncOp {
    /// `cp.async.ca|cg.shared.global [dst], [src], size{, src_size | ignore_src}`.
    Copy {
        dst: Address,
        dst_space: Space,
        src: Address,
        /// 4, 8 or 16 bytes.
        size: u32,
        /// Bytes actually read from `src` (the rest of `size` is zero-filled); `None`: `size`.
        src_size: Option<Operand>,
        /// `ignore-src` predicate (`true` reads nothing and fills zeros), and whether negated.
        ignore: Option<(Operand, bool)>,
        api: AsyncApi,
    },
    /// `cp.async.commit_group`.
    Commit,
    /// `cp.async.wait_group n` (`all`: `cp.async.wait_all`, which also commits).
    Wait { n: u32, all: bool },
    /// `cp.async.mbarrier.arrive{.noinc}.b64 [bar]`.
    CopyArrive {
        bar: Address,
        space: Space,
        noinc: bool,
    },
    /// `mbarrier.init.b64 [bar], count`.
    Init {
        bar: Address,
        space: Space,
        count: Operand,
    },
    /// `mbarrier.arrive{_drop}{.expect_tx}.b64 state, [bar]{, count | tx}`.
    Arrive {
        d: Option<u32>,
        bar: Address,
        space: Space,
        count: Option<Operand>,
        drop: bool,
        expect_tx: Option<Operand>,
    },
    /// `mbarrier.expect_tx` (`complete` false) / `mbarrier.complete_tx` (`true`) `[bar], tx`.
    Tx {
        bar: Address,
        space: Space,
        tx: Operand,
        complete: bool,
    },
    /// `mbarrier.test_wait` / `try_wait` `{.parity}` `d, [bar], state|parity`.
    TestWait {
        d: u32,
        bar: Address,
        space: Space,
        state: Operand,
        parity: bool,
    },
    /// `mbarrier.inval.b64 [bar]`.
    Inval { bar: Address, space: Space },
    /// `mbarrier.pending_count.b64 d, state`.
    PendingCount { d: u32, state: Operand },
    /// `bar.sync|barrier.sync id{, count}` with a count or a nonzero id, and `bar.arrive id,
    /// count`: a named barrier (`count` threads; all of the block when absent).
    Named {
        id: Operand,
        count: Option<Operand>,
        arrive: bool,
    },
}

impl AsyncOp {
    /// The PTX mnemonic family, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            AsyncOp::Copy { .. } => "cp.async",
            AsyncOp::Commit => "cp.async.commit_group",
            AsyncOp::Wait { all: false, .. } => "cp.async.wait_group",
            AsyncOp::Wait { all: true, .. } => "cp.async.wait_all",
            AsyncOp::CopyArrive { .. } => "cp.async.mbarrier.arrive",
            AsyncOp::Init { .. } => "mbarrier.init",
            AsyncOp::Arrive { .. } => "mbarrier.arrive",
            AsyncOp::Tx { .. } => "mbarrier.expect_tx",
            AsyncOp::TestWait { .. } => "mbarrier.test_wait",
            AsyncOp::Inval { .. } => "mbarrier.inval",
            AsyncOp::PendingCount { .. } => "mbarrier.pending_count",
            AsyncOp::Named { .. } => "bar.sync",
        }
    }
}

/// The state space named by an mbarrier's modifiers: shared (`.shared`, `.shared::cta`) or
/// generic (none).
fn bar_space(m: &Mods) -> Space {
    if m.words.iter().any(|w| w.starts_with("shared")) {
        Space::Shared
    } else {
        Space::Generic
    }
}

/// The family's instructions (`cp.async…`, `mbarrier…`); `None` for any other opcode. A form
/// this reader does not know (operands it cannot read) becomes `Unsupported`, an error only
/// if a thread runs it, never one that makes the whole file unreadable.
pub(super) fn build(
    b: &Builder,
    p: &Parser,
    base: &str,
    m: &Mods,
    ops: &[Raw],
) -> Option<PResult<Built>> {
    read(b, p, base, m, ops).map(|r| r.or_else(|_| b.unsupported()))
}

fn read(b: &Builder, p: &Parser, base: &str, m: &Mods, ops: &[Raw]) -> Option<PResult<Built>> {
    let plain = |op: AsyncOp| -> PResult<Built> { Ok((Op::Async(Box::new(op)), None, None)) };
    match base {
        "cp" if m.words.first() == Some(&"async") => Some((|| {
            if m.has("bulk") || m.words.iter().any(|w| w.starts_with("tensor")) {
                // TMA (`cp.async.bulk…`): not implemented.
                return b.unsupported();
            }
            if m.has("commit_group") {
                return plain(AsyncOp::Commit);
            }
            if m.has("wait_all") {
                return plain(AsyncOp::Wait { n: 0, all: true });
            }
            if m.has("wait_group") {
                b.n(ops, 1)?;
                let Raw::Int(n) = &ops[0] else {
                    return b.err("cp.async.wait_group needs a constant group count");
                };
                return plain(AsyncOp::Wait {
                    n: (*n).min(u32::MAX as u64) as u32,
                    all: false,
                });
            }
            if m.has("mbarrier") {
                b.n(ops, 1)?;
                return plain(AsyncOp::CopyArrive {
                    bar: b.addr(p, &ops[0])?,
                    space: bar_space(m),
                    noinc: m.has("noinc"),
                });
            }
            if !(m.has("ca") || m.has("cg")) {
                return b.unsupported();
            }
            b.n(ops, 3)?;
            let size = match &ops[2] {
                Raw::Int(s @ (4 | 8 | 16)) => *s as u32,
                _ => return b.err("cp.async copies 4, 8 or 16 bytes"),
            };
            let dst_space = if m.words.iter().any(|w| w.starts_with("shared")) {
                Space::Shared
            } else {
                Space::Generic
            };
            // The operands after the size: a source size (integer or register) or an
            // `ignore-src` predicate, then the cache policy of `.L2::cache_hint` (ignored).
            let hinted = m.has("L2::cache_hint");
            let extra = ops.len() - 3 - usize::from(hinted && ops.len() > 3);
            let (mut src_size, mut ignore) = (None, None);
            if extra >= 1 {
                match &ops[3] {
                    Raw::Not(n) => ignore = Some((b.name_operand(p, n)?, true)),
                    Raw::Name(n) if is_predicate(b, n) => {
                        ignore = Some((b.name_operand(p, n)?, false))
                    }
                    r => src_size = Some(b.src(p, r, Ty::U32)?),
                }
            }
            plain(AsyncOp::Copy {
                dst: b.addr(p, &ops[0])?,
                dst_space,
                src: b.addr(p, &ops[1])?,
                size,
                src_size,
                ignore,
                api: AsyncApi::Ptx,
            })
        })()),
        "mbarrier" => Some((|| {
            let space = bar_space(m);
            if m.has("init") {
                b.n(ops, 2)?;
                return plain(AsyncOp::Init {
                    bar: b.addr(p, &ops[0])?,
                    space,
                    count: b.src(p, &ops[1], Ty::U32)?,
                });
            }
            if m.has("inval") {
                b.n(ops, 1)?;
                return plain(AsyncOp::Inval {
                    bar: b.addr(p, &ops[0])?,
                    space,
                });
            }
            if m.has("expect_tx") && !m.has("arrive") || m.has("complete_tx") {
                b.n(ops, 2)?;
                return plain(AsyncOp::Tx {
                    bar: b.addr(p, &ops[0])?,
                    space,
                    tx: b.src(p, &ops[1], Ty::U32)?,
                    complete: m.has("complete_tx"),
                });
            }
            if m.has("arrive") || m.has("arrive_drop") {
                b.n(ops, 2)?;
                if m.words.iter().any(|w| w.starts_with("shared::cluster")) {
                    // An arrival on another block's barrier of the cluster: not implemented.
                    return b.unsupported();
                }
                let d = match &ops[0] {
                    Raw::Sink => None,
                    r => Some(b.dreg(r)?),
                };
                let third = ops.get(2).map(|r| b.src(p, r, Ty::U32)).transpose()?;
                let expect = m.has("expect_tx");
                return plain(AsyncOp::Arrive {
                    d,
                    bar: b.addr(p, &ops[1])?,
                    space,
                    count: if expect { None } else { third },
                    drop: m.has("arrive_drop"),
                    expect_tx: if expect { third } else { None },
                });
            }
            if m.has("test_wait") || m.has("try_wait") {
                b.n(ops, 3)?;
                return plain(AsyncOp::TestWait {
                    d: b.dreg(&ops[0])?,
                    bar: b.addr(p, &ops[1])?,
                    space,
                    state: b.src(p, &ops[2], Ty::B64)?,
                    parity: m.has("parity"),
                });
            }
            if m.has("pending_count") {
                b.n(ops, 2)?;
                return plain(AsyncOp::PendingCount {
                    d: b.dreg(&ops[0])?,
                    state: b.src(p, &ops[1], Ty::B64)?,
                });
            }
            b.unsupported()
        })()),
        _ => None,
    }
}

/// A named barrier: `bar.sync id, count`, `barrier.sync{.aligned} id{, count}`,
/// `bar.arrive id, count` (the forms the block barrier `bar.sync 0` is not).
pub(super) fn named_barrier(b: &Builder, p: &Parser, ops: &[Raw], m: &Mods) -> PResult<Built> {
    let arrive = m.has("arrive");
    // Cluster barriers (`barrier.cluster.arrive`, no operands) and other forms are not this
    // family: unsupported when run, never a parse error.
    let known = arrive || m.has("sync") || m.words.is_empty() || m.has("aligned");
    let operands = if arrive { 2..=2 } else { 1..=2 };
    if !known || m.has("cluster") || !operands.contains(&ops.len()) {
        return b.unsupported();
    }
    let read = || -> PResult<AsyncOp> {
        Ok(AsyncOp::Named {
            id: b.src(p, &ops[0], Ty::U32)?,
            count: ops.get(1).map(|r| b.src(p, r, Ty::U32)).transpose()?,
            arrive,
        })
    };
    match read() {
        Ok(op) => Ok((Op::Async(Box::new(op)), None, None)),
        Err(_) => b.unsupported(),
    }
}

/// Whether register `n` holds a predicate (NVRTC's predicates are `%p…`; inline PTX declares
/// them with `.pred`, which the parser records by name only).
fn is_predicate(b: &Builder, n: &str) -> bool {
    b.ctx.regs.contains_key(n) && (n.starts_with("%p") || !n.starts_with('%'))
}

/// The file names of NVIDIA's headers whose code is placed at the learner's line that called
/// it (the async-copy and barrier interfaces, and cooperative groups).
pub(super) fn is_nvidia_async_header(name: &str) -> bool {
    let n = name.replace('\\', "/");
    n.contains("cuda_pipeline")
        || n.contains("cooperative_groups")
        || n.contains("/cuda_cccl/")
        || n.contains("/include/cuda/")
}

/// Where an instruction was inlined, innermost first (`.loc … inlined_at` followed outwards).
pub(super) type Chain = std::rc::Rc<[SourceLoc]>;

/// The chain of a `.loc` at `here` inlined at `at`: `at`, then wherever `at` itself was
/// inlined (remembered for the `.loc`s that follow).
pub(super) fn chain(
    chains: &mut HashMap<SourceLoc, Chain>,
    here: SourceLoc,
    at: SourceLoc,
) -> Chain {
    let mut v = vec![at];
    if let Some(outer) = chains.get(&at) {
        v.extend(outer.iter().copied());
    }
    let c: Chain = v.into();
    chains.insert(here, c.clone());
    c
}

/// Code moved out of NVIDIA's async-copy and barrier headers goes to the innermost location
/// in the learner's own code (the line in their `__device__` helper that calls
/// `__pipeline_memcpy_async`), not the outermost (the kernel's call of that helper). Other
/// moves (NVRTC's builtin header) stay as they are.
pub(super) fn innermost_user(
    module: &Module,
    fidx: u32,
    moves: &[(usize, SourceLoc)],
    chains: &[Option<Chain>],
) -> Vec<(usize, SourceLoc)> {
    let Some(f) = module.functions.get(fidx as usize) else {
        return moves.to_vec();
    };
    let header = |file: u32| {
        module
            .file_name(file)
            .is_some_and(|n| n.contains("__nv_nvrtc_builtin_header") || is_nvidia_async_header(n))
    };
    moves
        .iter()
        .map(|&(i, outer)| {
            let ours = f.body.get(i).is_some_and(|inst| {
                module
                    .file_name(inst.file)
                    .is_some_and(is_nvidia_async_header)
            });
            let inner = chains
                .get(i)
                .and_then(Option::as_ref)
                .filter(|_| ours)
                .and_then(|c| {
                    c.iter()
                        .copied()
                        .find(|&(file, line)| line > 0 && !header(file))
                });
            (i, inner.unwrap_or(outer))
        })
        .collect()
}

/// Which interface each `cp.async` came from, by the header it was inlined from (the file
/// names are known only once the module is read; call before `.loc`s are moved).
pub(super) fn note_apis(module: &mut Module) {
    let apis: Vec<Vec<Option<AsyncApi>>> = module
        .functions
        .iter()
        .map(|f| {
            let uses_barrier = f.body.iter().any(|i| match &i.op {
                Op::Async(a) => matches!(**a, AsyncOp::CopyArrive { .. }),
                _ => false,
            });
            f.body
                .iter()
                .map(|i| match &i.op {
                    Op::Async(a) if matches!(**a, AsyncOp::Copy { .. }) => {
                        let name = module.file_name(i.file).unwrap_or("").replace('\\', "/");
                        Some(if name.contains("cuda_pipeline") {
                            if cg_copy(module, f) {
                                AsyncApi::CooperativeGroups
                            } else {
                                AsyncApi::Primitives
                            }
                        } else if name.contains("cooperative_groups") {
                            AsyncApi::CooperativeGroups
                        } else if name.contains("/cuda_cccl/") || name.contains("/include/cuda/") {
                            if uses_barrier && !pipeline_code(module, f) {
                                AsyncApi::CudaBarrier
                            } else {
                                AsyncApi::CudaPipeline
                            }
                        } else {
                            AsyncApi::Ptx
                        })
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    for (f, apis) in module.functions.iter_mut().zip(apis) {
        for (i, api) in f.body.iter_mut().zip(apis) {
            if let (Op::Async(a), Some(api)) = (&mut i.op, api) {
                if let AsyncOp::Copy { api: slot, .. } = a.as_mut() {
                    *slot = api;
                }
            }
        }
    }
}

/// Whether a function holds code from cooperative groups' async-copy headers (whose copies
/// reach `cp.async` through `cuda_pipeline_helpers.h`).
fn cg_copy(module: &Module, f: &crate::ptx::ir::Function) -> bool {
    f.body.iter().any(|j| {
        module.file_name(j.file).is_some_and(|n| {
            let n = n.replace('\\', "/");
            n.contains("cooperative_groups/details/async")
                || n.contains("cooperative_groups/memcpy_async")
        })
    })
}

/// Whether a function holds code from `<cuda/pipeline>`.
fn pipeline_code(module: &Module, f: &crate::ptx::ir::Function) -> bool {
    f.body.iter().any(|j| {
        module
            .file_name(j.file)
            .is_some_and(|n| n.replace('\\', "/").ends_with("/cuda/pipeline"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(body: &str) -> Vec<AsyncOp> {
        let text = format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 8 .b64 bar;\n\
             {body}\nret;\n}}\n"
        );
        let m = crate::ptx::parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let (_, k) = m.find_entry("k").expect("the kernel");
        k.body
            .iter()
            .filter_map(|i| match &i.op {
                Op::Async(a) => Some((**a).clone()),
                Op::Unsupported { text } => panic!("unsupported: {text}"),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn copies_with_sizes_source_sizes_hints_and_ignore_predicates_parse() {
        let got = ops("cp.async.ca.shared.global [%r1], [%rd1], 4, 4;\n\
             cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, %r2;\n\
             cp.async.cg.shared::cta.global.L2::cache_hint [%r1], [%rd1], 16, %rd2;\n\
             cp.async.ca.shared.global [%r1], [%rd1], 8, !%p1;");
        assert_eq!(got.len(), 4);
        let size = |o: &AsyncOp| match o {
            AsyncOp::Copy {
                size,
                src_size,
                ignore,
                ..
            } => (*size, src_size.is_some(), ignore.is_some()),
            _ => panic!("{o:?}"),
        };
        assert_eq!(size(&got[0]), (4, true, false));
        assert_eq!(size(&got[1]), (16, true, false));
        // The cache policy is not a source size.
        assert_eq!(size(&got[2]), (16, false, false));
        assert_eq!(size(&got[3]), (8, false, true));
    }

    #[test]
    fn groups_waits_and_the_mbarrier_forms_nvrtc_emits_parse() {
        let got = ops(
            "cp.async.commit_group;\ncp.async.wait_group 1;\ncp.async.wait_all;\n\
             mbarrier.init.shared.b64 [bar], %r1;\n\
             mbarrier.arrive.shared.b64 %rd1, [bar];\n\
             mbarrier.arrive.release.cta.shared::cta.b64 _, [bar], 2;\n\
             mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 64;\n\
             mbarrier.arrive_drop.shared.b64 %rd1, [bar];\n\
             mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;\n\
             mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], %r2;\n\
             mbarrier.pending_count.b64 %r3, %rd1;\n\
             mbarrier.inval.shared.b64 [bar];\n\
             cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n\
             bar.sync 1, 64;\nbarrier.sync.aligned 2, 96;\nbar.arrive 1, 64;",
        );
        assert_eq!(got[0], AsyncOp::Commit);
        assert_eq!(got[1], AsyncOp::Wait { n: 1, all: false });
        assert_eq!(got[2], AsyncOp::Wait { n: 0, all: true });
        assert!(matches!(got[3], AsyncOp::Init { .. }));
        assert!(matches!(
            got[4],
            AsyncOp::Arrive {
                d: Some(_),
                count: None,
                drop: false,
                expect_tx: None,
                ..
            }
        ));
        assert!(matches!(
            got[5],
            AsyncOp::Arrive {
                d: None,
                count: Some(_),
                ..
            }
        ));
        assert!(matches!(
            got[6],
            AsyncOp::Arrive {
                count: None,
                expect_tx: Some(_),
                ..
            }
        ));
        assert!(matches!(got[7], AsyncOp::Arrive { drop: true, .. }));
        assert!(matches!(got[8], AsyncOp::TestWait { parity: false, .. }));
        assert!(matches!(got[9], AsyncOp::TestWait { parity: true, .. }));
        assert!(matches!(got[10], AsyncOp::PendingCount { .. }));
        assert!(matches!(got[11], AsyncOp::Inval { .. }));
        assert!(matches!(got[12], AsyncOp::CopyArrive { noinc: true, .. }));
        assert!(matches!(
            got[13],
            AsyncOp::Named {
                arrive: false,
                count: Some(_),
                ..
            }
        ));
        assert!(matches!(
            got[14],
            AsyncOp::Named {
                arrive: false,
                count: Some(_),
                ..
            }
        ));
        assert!(matches!(got[15], AsyncOp::Named { arrive: true, .. }));
    }

    #[test]
    fn cluster_barriers_belong_to_the_cluster_family_and_a_countless_arrive_is_unsupported() {
        let text = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
                    barrier.cluster.arrive;\nbarrier.cluster.wait;\nbar.arrive 1;\nret;\n}\n";
        let m = crate::ptx::parse(text).expect("parses");
        let (_, k) = m.find_entry("k").expect("the kernel");
        // `barrier.cluster.*` is the cluster family's (`emu/cluster.rs`), not this one's.
        assert!(
            k.body[..2].iter().all(|i| matches!(i.op, Op::Cluster(_))),
            "{:?}",
            &k.body[..2]
        );
        // `bar.arrive` needs its count: without one it is not run.
        assert!(matches!(k.body[2].op, Op::Unsupported { .. }));
    }

    #[test]
    fn a_form_the_reader_does_not_know_is_unsupported_not_an_error() {
        let text = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
                    .reg .b64 %rd<2>;\nmbarrier.init.shared.b64 %rd1, 4;\ncp.async.ca.shared.global [%rd1], [%rd1], 3;\nret;\n}\n";
        let m = crate::ptx::parse(text).expect("parses");
        let (_, k) = m.find_entry("k").expect("the kernel");
        assert!(k.body[..2]
            .iter()
            .all(|i| matches!(i.op, Op::Unsupported { .. })));
    }

    #[test]
    fn the_plain_block_barrier_stays_a_block_barrier() {
        let text = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
                    bar.sync 0;\nbarrier.sync 0;\nret;\n}\n";
        let m = crate::ptx::parse(text).expect("parses");
        let (_, k) = m.find_entry("k").expect("the kernel");
        assert!(k.body[..2]
            .iter()
            .all(|i| matches!(i.op, Op::BarSync { .. })));
    }
}
