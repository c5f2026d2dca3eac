//! Parsing what sm_90 adds for thread-block clusters, and `elect.sync`: the kernel directive
//! `.reqnctapercluster X, Y, Z` (from `__cluster_dims__`), `barrier.cluster.arrive{.release,
//! .relaxed}{.aligned}` and `barrier.cluster.wait{.acquire}{.aligned}`, `mapa{.shared::cluster}
//! .u32/.u64 d, a, rank`, and `elect.sync d|p, membermask`. A child of `parser.rs` (it uses the
//! instruction builder); `emu/cluster.rs` runs them. `ld`/`st`/`atom` on `.shared::cluster` are
//! shared-space accesses (`Mods::space`), whose addresses `mapa` may point into another block.

use super::{Builder, Mods, PResult, Parser, Raw};
use crate::ptx::ir::{AtomOp, ClusterOp, Op, Ty};
use crate::ptx::lexer::Tok;

/// The cluster shape a kernel directive gives: `.reqnctapercluster 2, 1, 1` (missing
/// dimensions are 1); `None` for any other directive.
pub(super) fn cluster_directive(directive: &str, args: &[Tok]) -> Option<[u32; 3]> {
    if directive != ".reqnctapercluster" {
        return None;
    }
    let mut dims = [1u32; 3];
    let ints = args.iter().filter_map(|t| match t {
        Tok::Int(v) => u32::try_from(*v).ok(),
        _ => None,
    });
    for (d, v) in dims.iter_mut().zip(ints) {
        *d = v.max(1);
    }
    Some(dims)
}

/// Whether `base` with these modifiers is one of this file's instructions (`barrier` only
/// with `.cluster`: the others are block barriers).
pub(super) fn is_cluster(base: &str, m: &Mods) -> bool {
    match base {
        "barrier" => m.has("cluster"),
        "mapa" | "elect" => true,
        _ => false,
    }
}

/// The instruction, or `Op::Unsupported` for a form gpuzzle does not run.
pub(super) fn parse(b: &Builder, p: &Parser, ops: &[Raw], base: &str, m: &Mods) -> PResult<Op> {
    let unsupported = || -> PResult<Op> { b.unsupported().map(|(op, _, _)| op) };
    match base {
        "barrier" if m.has("arrive") => Ok(Op::Cluster(ClusterOp::Arrive)),
        "barrier" if m.has("wait") => Ok(Op::Cluster(ClusterOp::Wait)),
        "barrier" => unsupported(),
        "mapa" => {
            b.n(ops, 3)?;
            let ty = if m.has("u32") { Ty::U32 } else { Ty::U64 };
            Ok(Op::Cluster(ClusterOp::Mapa {
                d: b.dreg(&ops[0])?,
                a: b.src(p, &ops[1], ty)?,
                rank: b.src(p, &ops[2], Ty::U32)?,
                generic: !m.has("shared::cluster"),
            }))
        }
        "elect" if m.has("sync") => {
            b.n(ops, 2)?;
            let (d, pr) = match &ops[0] {
                Raw::Pair(d, pr) => (
                    (d != "_")
                        .then(|| b.dreg(&Raw::Name(d.clone())))
                        .transpose()?,
                    (pr != "_")
                        .then(|| b.dreg(&Raw::Name(pr.clone())))
                        .transpose()?,
                ),
                Raw::Sink => (None, None),
                r => (Some(b.dreg(r)?), None),
            };
            Ok(Op::Cluster(ClusterOp::Elect {
                d,
                p: pr,
                mask: b.src(p, &ops[1], Ty::B32)?,
            }))
        }
        _ => unsupported(),
    }
}

/// The first operand naming a `%` register that is neither declared nor a special register
/// gpuzzle knows (`%foo` of a newer PTX ISA), if any: the instruction then becomes
/// `Op::Unsupported` with that name, so only running it fails.
pub(super) fn unknown_special(
    ops: &[Raw],
    regs: &std::collections::HashMap<String, u32>,
) -> Option<String> {
    fn names(r: &Raw, out: &mut Vec<String>) {
        match r {
            Raw::Name(n) | Raw::Not(n) => out.push(n.clone()),
            Raw::Pair(a, b) => out.extend([a.clone(), b.clone()]),
            Raw::Vec(v) => v.iter().for_each(|r| names(r, out)),
            Raw::Addr(b, _) => names(b, out),
            _ => {}
        }
    }
    let mut all = Vec::new();
    ops.iter().for_each(|r| names(r, &mut all));
    all.into_iter().find(|n| {
        n.starts_with('%')
            && !regs.contains_key(n.as_str())
            && super::special(n).is_none()
            && !n.starts_with("%gz_")
    })
}

/// `atom`/`red{.sem}{.scope}.global.add.v2/.v4.f32` (`atomicAdd(float2*)` on sm_90): each
/// element atomically on its own. Other vector atomics (`.v8`, packed halves, min/max) are
/// not run: `Op::Unsupported`.
pub(super) fn vector_atom(
    b: &Builder,
    p: &Parser,
    ops: &[Raw],
    m: &Mods,
    aop: AtomOp,
    pair: Option<Ty>,
    red: bool,
) -> PResult<Op> {
    let ty = m.types().last().copied().unwrap_or(Ty::B32);
    if aop != AtomOp::Add || pair.is_some() || ty != Ty::F32 || m.has("v8") {
        return b.unsupported().map(|(op, _, _)| op);
    }
    let list = |r: &Raw| -> Vec<Raw> {
        match r {
            Raw::Vec(v) => v.clone(),
            other => vec![other.clone()],
        }
    };
    let (d, addr, src) = if red {
        b.n(ops, 2)?;
        (Vec::new(), &ops[0], &ops[1])
    } else {
        b.n(ops, 3)?;
        let d = list(&ops[0])
            .iter()
            .map(|r| b.dreg(r))
            .collect::<PResult<Vec<u32>>>()?;
        (d, &ops[1], &ops[2])
    };
    let srcs = list(src)
        .iter()
        .map(|r| b.src(p, r, ty))
        .collect::<PResult<Vec<_>>>()?;
    Ok(Op::AtomVec {
        space: m.space(),
        op: aop,
        ty,
        d,
        addr: b.addr(p, addr)?,
        b: srcs,
    })
}

#[cfg(test)]
mod tests {
    use crate::ptx::ir::{ClusterOp, Op};

    fn body(insts: &str) -> Vec<Op> {
        let text = format!(
            ".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n{insts}\nret;\n}}\n"
        );
        let m = crate::ptx::parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.cluster_dims, vec![(0, [2, 1, 1])]);
        m.functions[0].body.iter().map(|i| i.op.clone()).collect()
    }

    #[test]
    fn an_unknown_special_register_fails_only_its_instruction() {
        let ops = body("mov.u32 %r1, %future_reg;\nmov.u32 %r2, %cluster_ctarank;");
        assert_eq!(
            ops[0],
            Op::Unsupported {
                text: "%future_reg".into()
            }
        );
        assert!(matches!(ops[1], Op::Un { .. }));
        let said = crate::emu::unsupported_instruction("%future_reg", " (from k.cu:3)");
        assert!(
            said.contains("special register `%future_reg` (from k.cu:3)"),
            "{said}"
        );
    }

    #[test]
    fn reads_cluster_barriers_mapa_and_elect() {
        let ops = body(
            "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire;\nmapa.u64 %rd1, %rd2, %r1;\nmapa.shared::cluster.u32 %r2, %r3, 1;\nelect.sync %r1|%p1, -1;\nld.shared::cluster.f32 %r1, [%r2];",
        );
        assert_eq!(ops[0], Op::Cluster(ClusterOp::Arrive));
        assert_eq!(ops[1], Op::Cluster(ClusterOp::Wait));
        assert!(matches!(
            ops[2],
            Op::Cluster(ClusterOp::Mapa { generic: true, .. })
        ));
        assert!(matches!(
            ops[3],
            Op::Cluster(ClusterOp::Mapa { generic: false, .. })
        ));
        assert!(matches!(
            ops[4],
            Op::Cluster(ClusterOp::Elect {
                d: Some(_),
                p: Some(_),
                ..
            })
        ));
        assert!(matches!(
            ops[5],
            Op::Ld {
                space: crate::ptx::ir::Space::Shared,
                ..
            }
        ));
    }
}
