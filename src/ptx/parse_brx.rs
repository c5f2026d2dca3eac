//! The indirect branch through a jump table: `$L_brx_0: .branchtargets $L__BB0_3, $L__BB0_5;`
//! lists labels of the function, and `brx.idx{.uni} index, $L_brx_0;` jumps to the `index`-th
//! of them (NVRTC emits the pair for a dense `switch`). A child of `parser.rs`: the table is
//! read where its label is, the branch is built like any instruction, and its targets are
//! resolved with the function's other branches, once every label is known. `emu/block/step.rs`
//! runs it; an index past the table is an error at the learner's line there.

use super::{Builder, FnCtx, PResult, Parser, Raw};
use crate::ptx::ir::{Inst, Op, Ty};
use crate::ptx::lexer::Tok;
use crate::ptx::ParseError;

/// Whether the body's next tokens, after a label and its `:`, are a `.branchtargets` list.
pub(super) fn at_table(p: &Parser) -> bool {
    matches!(p.peek(), Some(Tok::Ident(w)) if w == ".branchtargets")
}

/// Read `.branchtargets L1, L2, ...;` (the directive is next) as the table named `label`.
pub(super) fn table(p: &mut Parser, ctx: &mut FnCtx, label: String) -> PResult<()> {
    p.pos += 1;
    let mut targets = Vec::new();
    loop {
        targets.push(p.ident()?);
        if p.eat_punct(';') {
            break;
        }
        if !p.eat_punct(',') {
            return p.err("expected `,` or `;` in a `.branchtargets` list");
        }
    }
    ctx.branch_tables.insert(label, targets);
    Ok(())
}

/// `brx.idx{.uni} index, tlist`: the branch with its targets still to resolve (the table's
/// label is the third part, as a `bra`'s label is).
pub(super) fn build(b: &Builder, p: &Parser, ops: &[Raw]) -> PResult<super::Built> {
    if !b.opcode.starts_with("brx.idx") {
        return b.err(format!("`{}`: an indirect branch is `brx.idx`", b.opcode));
    }
    let [index, Raw::Name(table)] = ops else {
        return b.err("brx.idx needs an index and the label of a `.branchtargets` list");
    };
    let index = b.src(p, index, Ty::U32)?;
    Ok((
        Op::Brx {
            index,
            targets: Vec::new(),
        },
        None,
        Some(table.clone()),
    ))
}

/// Fill in the targets of the `brx.idx` at `inst` from the table named `table`: each label's
/// instruction index. Returns false when `inst` is no `brx.idx` (a `bra`, resolved as such).
pub(super) fn resolve(ctx: &mut FnCtx, inst: usize, table: &str, line: usize) -> PResult<bool> {
    if !matches!(
        ctx.body.get(inst),
        Some(Inst {
            op: Op::Brx { .. },
            ..
        })
    ) {
        return Ok(false);
    }
    let unknown = |message: String| ParseError { line, message };
    let labels = ctx.branch_tables.get(table).ok_or_else(|| {
        unknown(format!(
            "brx.idx through `{table}`, which is no `.branchtargets` list of this function"
        ))
    })?;
    let targets = labels
        .iter()
        .map(|l| {
            ctx.labels
                .get(l)
                .copied()
                .ok_or_else(|| unknown(format!("`.branchtargets` names the unknown label `{l}`")))
        })
        .collect::<PResult<Vec<u32>>>()?;
    if let Some(Inst {
        op: Op::Brx { targets: t, .. },
        ..
    }) = ctx.body.get_mut(inst)
    {
        *t = targets;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use crate::ptx::ir::{Op, Operand};

    /// A kernel that jumps through a three-entry table on `%r1`.
    const SWITCH: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0)
{
\t.reg .b32 %r<3>;
\tld.param.u32 %r1, [k_param_0];
$L_brx_0: .branchtargets $L__BB0_2, $L__BB0_3, $L__BB0_2;
\tbrx.idx.uni %r1, $L_brx_0;
$L__BB0_2:
\tmov.u32 %r2, 1;
\tret;
$L__BB0_3:
\tmov.u32 %r2, 2;
\tret;
}
";

    #[test]
    fn a_jump_table_is_read_with_its_targets() {
        let m = crate::ptx::parse(SWITCH).unwrap_or_else(|e| panic!("{e}"));
        let k = &m.functions[0];
        let brx = k
            .body
            .iter()
            .find_map(|i| match &i.op {
                Op::Brx { index, targets } => Some((*index, targets.clone())),
                _ => None,
            })
            .expect("a brx.idx");
        // ld, brx, mov, ret, mov, ret: the table holds the indices of the two movs.
        assert_eq!(brx.0, Operand::Reg(1));
        assert_eq!(brx.1, vec![2, 4, 2]);
    }

    #[test]
    fn a_table_naming_an_unknown_label_is_an_error() {
        let bad = SWITCH.replace("$L__BB0_3, $L__BB0_2;", "$L__BB0_9;");
        let e = crate::ptx::parse(&bad).expect_err("an unknown label");
        assert!(e.message.contains("unknown label `$L__BB0_9`"), "{e}");
        let bad = SWITCH.replace("brx.idx.uni %r1, $L_brx_0;", "brx.idx.uni %r1, $L_nope;");
        let e = crate::ptx::parse(&bad).expect_err("an unknown table");
        assert!(e.message.contains("no `.branchtargets` list"), "{e}");
    }
}
