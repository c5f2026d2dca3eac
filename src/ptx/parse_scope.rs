//! PTX's statement blocks: a `{ ... }` inside a function body is a scope. A `.reg`, `.param`
//! or `.local` declared in it is a new variable, visible only until its closing brace, and
//! hides a variable of the same name outside it; blocks nest. CUDA's headers rely on it:
//! `__syncthreads_count` expands to `{ .reg .pred %p1; setp... ; bar.red.popc... }`, and the
//! kernel's own `%p1` must keep its value across that block.
//!
//! The function body itself (the outermost braces) is no block here: what it declares is bound
//! for the whole function, as before, and a name declared twice there is one register.
//!
//! A closed block's registers can no longer be named, so the next block reuses their numbers:
//! a loop unrolled 64 times over a header's `{ .reg .b16 ...; }` needs one set of registers,
//! not 64, in every thread.

use super::FnCtx;
use std::collections::HashSet;

/// Which name space a declaration binds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Names {
    Reg,
    Param,
    Local,
}

/// One open block: what it declared, and the bindings it hid (restored at its `}`).
#[derive(Default)]
pub(super) struct Block {
    /// The first register number this block gave out (`FnCtx::next_reg` at its `{`).
    first_reg: usize,
    declared: HashSet<(Names, String)>,
    hidden: Vec<(Names, String, Option<u64>)>,
}

/// Open a block at its `{`.
pub(super) fn open(ctx: &mut FnCtx) {
    ctx.blocks.push(Block {
        first_reg: ctx.next_reg,
        ..Block::default()
    });
}

/// Close the innermost block at its `}`: the names it declared go, the ones they hid return.
/// A `}` with no open block (the function body's own) changes nothing.
pub(super) fn close(ctx: &mut FnCtx) {
    let Some(b) = ctx.blocks.pop() else {
        return;
    };
    ctx.next_reg = b.first_reg;
    for (names, name, prev) in b.hidden.into_iter().rev() {
        match (names, prev) {
            (Names::Reg, Some(v)) => {
                ctx.regs.insert(name, v as u32);
            }
            (Names::Param, Some(v)) => {
                ctx.params.insert(name, v as u32);
            }
            (Names::Local, Some(v)) => {
                ctx.locals.insert(name, v);
            }
            (Names::Reg, None) => {
                ctx.regs.remove(&name);
            }
            (Names::Param, None) => {
                ctx.params.remove(&name);
            }
            (Names::Local, None) => {
                ctx.locals.remove(&name);
            }
        }
    }
}

/// Whether `name` must get a new variable: true at the function's level only when the name is
/// new, and inside a block when the block has not declared it yet (the outer one, if any, is
/// remembered and comes back at the block's end).
fn fresh(ctx: &mut FnCtx, names: Names, name: &str) -> bool {
    let prev = match names {
        Names::Reg => ctx.regs.get(name).map(|&v| v as u64),
        Names::Param => ctx.params.get(name).map(|&v| v as u64),
        Names::Local => ctx.locals.get(name).copied(),
    };
    let Some(b) = ctx.blocks.last_mut() else {
        return prev.is_none();
    };
    if !b.declared.insert((names, name.to_string())) {
        return false;
    }
    b.hidden.push((names, name.to_string(), prev));
    true
}

/// Declare register `name`: a new virtual register unless it is already this scope's own.
pub(super) fn declare_reg(ctx: &mut FnCtx, name: String) {
    if !fresh(ctx, Names::Reg, &name) {
        return;
    }
    let r = ctx.next_reg;
    ctx.regs.insert(name.clone(), r as u32);
    match ctx.reg_names.get_mut(r) {
        Some(n) => *n = name,
        None => ctx.reg_names.push(name),
    }
    ctx.next_reg += 1;
}

/// Bind a `.param` (of a call sequence) or a `.local` variable declared in the body to the
/// slot it was given. A parameter or local redeclared in the same scope takes its new slot.
pub(super) fn bind(ctx: &mut FnCtx, names: Names, name: &str, slot: u64) {
    fresh(ctx, names, name);
    match names {
        Names::Reg => {
            ctx.regs.insert(name.to_string(), slot as u32);
        }
        Names::Param => {
            ctx.params.insert(name.to_string(), slot as u32);
        }
        Names::Local => {
            ctx.locals.insert(name.to_string(), slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ptx::ir::{Function, Op, Operand};
    use crate::ptx::parse;

    /// The kernel `k` of a module whose body is `body`.
    fn kernel(body: &str) -> Function {
        let text = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{body}\nret;\n}}\n"
        );
        let m = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        m.find_entry("k").expect("the kernel").1.clone()
    }

    /// (destination, predicate) of each `selp` and the destination of each `setp`, in order.
    fn uses(f: &Function) -> (Vec<u32>, Vec<(u32, u32)>) {
        let mut setps = Vec::new();
        let mut selps = Vec::new();
        for i in &f.body {
            match &i.op {
                Op::Setp { d, .. } => setps.push(*d),
                Op::Selp {
                    d,
                    p: Operand::Reg(p),
                    ..
                } => selps.push((*d, *p)),
                _ => {}
            }
        }
        (setps, selps)
    }

    /// `__syncthreads_count`'s `{ .reg .pred %p1; ... }` hides the kernel's `%p1` until its `}`:
    /// the `selp` after the block reads the kernel's own predicate again.
    #[test]
    fn a_block_hides_an_outer_register_until_its_end() {
        let f = kernel(
            ".reg .pred %p<3>;\n.reg .b32 %r<4>;\n\
             setp.lt.u32 %p1, %r1, %r2;\n\
             {\n.reg .pred %p1;\nsetp.ne.u32 %p1, %r3, 0;\nselp.u32 %r1, 1, 0, %p1;\n}\n\
             selp.u32 %r2, 1, 0, %p1;",
        );
        let (setps, selps) = uses(&f);
        assert_eq!(setps.len(), 2);
        let (outer, inner) = (setps[0], setps[1]);
        assert_ne!(outer, inner, "the block's %p1 is a register of its own");
        assert_eq!(selps[0].1, inner, "inside the block, %p1 is the block's");
        assert_eq!(
            selps[1].1, outer,
            "after the block, %p1 is the kernel's again"
        );
    }

    /// Blocks nest: each level's `%p1` is its own, and each `}` gives back the one outside it.
    #[test]
    fn nested_blocks_each_restore_the_name_outside_them() {
        let f = kernel(
            ".reg .pred %p<2>;\n.reg .b32 %r<6>;\n\
             setp.lt.u32 %p1, %r1, %r2;\n\
             {\n.reg .pred %p1;\nsetp.ne.u32 %p1, %r3, 0;\n\
               {\n.reg .pred %p1;\nsetp.eq.u32 %p1, %r3, 1;\nselp.u32 %r1, 1, 0, %p1;\n}\n\
               selp.u32 %r2, 1, 0, %p1;\n}\n\
             selp.u32 %r3, 1, 0, %p1;",
        );
        let (setps, selps) = uses(&f);
        let [outer, middle, inner] = setps[..] else {
            panic!("three setp: {setps:?}")
        };
        assert!(outer != middle && middle != inner && outer != inner);
        let preds: Vec<u32> = selps.iter().map(|s| s.1).collect();
        assert_eq!(preds, vec![inner, middle, outer]);
    }

    /// A register a block declares is unknown after the block (`ptxas` refuses it too), and a
    /// closed block's register numbers serve the next block.
    #[test]
    fn a_blocks_register_ends_with_it_and_its_number_is_reused() {
        let text = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
                    .reg .b32 %r<2>;\n{\n.reg .b32 t;\nmov.u32 t, 1;\n}\nmov.u32 %r1, t;\nret;\n}\n";
        let e = parse(text).expect_err("t is out of scope").to_string();
        assert!(e.contains("`t`") && e.contains("line 11"), "{e}");

        let unrolled: String = (0..64)
            .map(|i| format!("{{\n.reg .b32 t, u;\nmov.u32 t, {i};\nmov.u32 u, t;\n}}\n"))
            .collect();
        let f = kernel(&format!(".reg .b32 %r<2>;\n{unrolled}"));
        assert_eq!(f.num_regs, 4, "%r0, %r1, and one t and u for all 64 blocks");
    }

    /// The same name declared twice in one block is one register there; a call sequence's
    /// `.param` in a block is the block's own.
    #[test]
    fn a_redeclaration_in_one_block_is_the_same_register() {
        let f = kernel(
            ".reg .pred %p<2>;\n.reg .b32 %r<3>;\n\
             {\n.reg .pred q;\n.reg .pred q;\nsetp.ne.u32 q, %r1, 0;\nselp.u32 %r2, 1, 0, q;\n}",
        );
        let (setps, selps) = uses(&f);
        assert_eq!(selps[0].1, setps[0]);
    }
}
