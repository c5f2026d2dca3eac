//! Loops in a function's body, found from its backward branches: enough to say which loop a
//! thread was stuck in and which line decides whether it goes round again.
//!
//! A loop is the instructions from a backward branch's target to the branch itself. NVRTC lays
//! out each loop this way (rotated or not), so the innermost loop around an instruction is the
//! smallest such range that contains it. This runs after a launch, on the IR, never while
//! instructions execute.

use super::ir::{Function, Inst, Op};

/// One loop of a function body, by instruction index and source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The first instruction of the loop (the backward branch's target).
    pub start: u32,
    /// The backward branch that closes the loop.
    pub back_branch: u32,
    /// The smallest source line of the loop's instructions (0 when none has a line).
    pub first_line: u32,
    /// The line of the test that decides whether the loop goes round again or leaves: the
    /// predicate feeding the back branch when it is conditional, else that of the first branch
    /// out of the loop. `None` when the loop has no way out at all (the compiler proved the
    /// condition always true) or the test has no line.
    pub condition_line: Option<u32>,
    /// Whether anything leaves the loop: a branch out of it, a return, an exit.
    pub has_exit: bool,
}

/// Every loop of `f`, outermost first where they nest. Backward branches to one target are one
/// loop (a `continue`, or an `if` at the end of the body, adds a second back edge), ending at
/// the last of them.
pub fn loops(f: &Function) -> Vec<Loop> {
    let body = &f.body;
    let mut ends: Vec<(u32, u32)> = Vec::new();
    for (i, inst) in body.iter().enumerate() {
        if let Op::Bra { target } = inst.op {
            if (target as usize) <= i {
                match ends.iter_mut().find(|(start, _)| *start == target) {
                    Some((_, end)) => *end = (*end).max(i as u32),
                    None => ends.push((target, i as u32)),
                }
            }
        }
    }
    // Wider ranges first, so that a caller keeping the last match gets the innermost loop.
    ends.sort_by_key(|&(start, end)| (start, std::cmp::Reverse(end)));
    ends.into_iter()
        .map(|(start, end)| describe(body, start, end))
        .collect()
}

/// The innermost loop that contains instruction `pc`.
pub fn innermost_at(f: &Function, pc: u32) -> Option<Loop> {
    loops(f)
        .into_iter()
        .filter(|l| (l.start..=l.back_branch).contains(&pc))
        .min_by_key(|l| l.back_branch - l.start)
}

/// The innermost loop of any function of `functions` that holds an instruction on source line
/// `line` (a diagnostic names a line, not an instruction): the smallest such range. With
/// `file` (an index into `Module::files`), only that file's lines count: an included header
/// has line numbers of its own.
pub fn innermost_on_line<'a>(
    functions: impl IntoIterator<Item = &'a Function>,
    file: Option<u32>,
    line: u32,
) -> Option<Loop> {
    if line == 0 {
        return None;
    }
    let here = move |inst: &Inst| inst.line == line && file.is_none_or(|f| inst.file == f);
    functions
        .into_iter()
        .flat_map(|f| {
            loops(f).into_iter().filter(move |l| {
                f.body[l.start as usize..=l.back_branch as usize]
                    .iter()
                    .any(here)
            })
        })
        .min_by_key(|l| l.back_branch - l.start)
}

fn describe(body: &[Inst], start: u32, back_branch: u32) -> Loop {
    let range = start as usize..=back_branch as usize;
    let inside = |t: u32| range.contains(&(t as usize));
    let first_line = body[range.clone()]
        .iter()
        .map(|i| i.line)
        .filter(|&l| l > 0)
        .min()
        .unwrap_or(0);
    let exits: Vec<usize> = range
        .clone()
        .filter(|&i| match &body[i].op {
            Op::Bra { target } => !inside(*target),
            Op::Brx { targets, .. } => targets.iter().any(|&t| !inside(t)),
            Op::Ret | Op::Exit | Op::Trap => true,
            _ => false,
        })
        .collect();
    let latch = &body[back_branch as usize];
    // A guarded last back branch falls through out of the loop when its test fails.
    let condition_line = match latch.guard {
        Some((pred, _)) => writer_line(body, start as usize, back_branch as usize, pred),
        None => exits.iter().find_map(|&i| match body[i].guard {
            Some((pred, _)) => writer_line(body, start as usize, i, pred),
            None => None,
        }),
    };
    Loop {
        start,
        back_branch,
        first_line,
        condition_line,
        has_exit: latch.guard.is_some() || !exits.is_empty(),
    }
}

/// The line of the last instruction in `from..before` that writes predicate `pred` (the
/// comparison a guarded branch tests); the branch's own line when none is found.
fn writer_line(body: &[Inst], from: usize, before: usize, pred: u32) -> Option<u32> {
    let writes = |op: &Op| match op {
        Op::Setp { d, d2, .. } | Op::Half2 { d, d2, .. } => *d == pred || *d2 == Some(pred),
        Op::Bin { d, .. } => *d == pred,
        _ => false,
    };
    body[from..before]
        .iter()
        .rev()
        .find(|i| writes(&i.op))
        .map(|i| i.line)
        .or(Some(body[before].line))
        .filter(|&l| l > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(ptx_body: &str) -> Function {
        let text = format!(
            ".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 k_n)\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n{ptx_body}\n}}\n.file 1 \"k.cu\"\n"
        );
        let m = crate::ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        m.functions.into_iter().next().unwrap()
    }

    /// NVRTC's layout of a `for` whose step has no effect: the condition folded away, so the
    /// loop has no way out (the body is on lines 8-11; the `for` itself left no instruction).
    const ENDLESS: &str = "
.loc 1 3 5
mov.u32 %r1, %tid.x;
bar.sync 0;
bra.uni $L__BB0_3;
$L__BB0_5:
.loc 1 11 9
bar.sync 0;
$L__BB0_3:
.loc 1 0 9
setp.gt.s32 %p2, %r1, 3;
.loc 1 8 9
@%p2 bra $L__BB0_5;
.loc 1 9 13
add.s32 %r2, %r1, 1;
bra.uni $L__BB0_5;
";

    #[test]
    fn a_loop_without_a_way_out_has_no_condition() {
        let f = function(ENDLESS);
        let ls = loops(&f);
        // Two back edges to one target: one loop, from the barrier on line 11 to the last branch.
        assert_eq!(ls.len(), 1, "{ls:?}");
        let l = innermost_on_line([&f], None, 8).unwrap();
        assert_eq!(innermost_on_line([&f], None, 9).as_ref(), Some(&l));
        assert_eq!(l.first_line, 8);
        assert!(!l.has_exit);
        assert_eq!(l.condition_line, None);
        assert_eq!(innermost_on_line([&f], None, 3), None);
        // Line 8 of file 1 is in the loop; line 8 of another file (a header) is not.
        assert!(innermost_on_line([&f], Some(1), 8).is_some());
        assert_eq!(innermost_on_line([&f], Some(2), 8), None);
        assert_eq!(innermost_on_line([&f], None, 0), None);
    }

    /// A rotated `for (int s = 1; s < n; s *= 2)` on line 7 with a nested `while` on line 9:
    /// the condition of each is the `setp` feeding its back branch.
    const NESTED: &str = "
ld.param.u32 %r5, [k_n];
.loc 1 7 5
mov.u32 %r1, 1;
$L_outer:
.loc 1 8 9
mov.u32 %r2, 0;
$L_inner:
.loc 1 10 13
add.s32 %r2, %r2, 1;
.loc 1 9 9
setp.lt.s32 %p1, %r2, %r1;
@%p1 bra $L_inner;
.loc 1 7 40
shl.b32 %r1, %r1, 1;
.loc 1 7 5
setp.lt.s32 %p2, %r1, %r5;
@%p2 bra $L_outer;
ret;
";

    #[test]
    fn nested_loops_resolve_to_the_innermost_with_its_condition() {
        let f = function(NESTED);
        let inner = innermost_on_line([&f], None, 10).unwrap();
        assert_eq!((inner.first_line, inner.condition_line), (9, Some(9)));
        assert!(inner.has_exit);
        let outer = innermost_on_line([&f], None, 8).unwrap();
        assert_eq!((outer.first_line, outer.condition_line), (7, Some(7)));
        // By instruction: the add on line 10 is inside both; the inner one wins.
        let add = f.body.iter().position(|i| i.line == 10).unwrap() as u32;
        assert_eq!(innermost_at(&f, add), Some(inner));
        assert_eq!(innermost_at(&f, 0), None);
    }

    /// A loop tested at the top (`while (x) { ... }` not rotated): the back branch is
    /// unconditional, the condition is that of the branch leaving the loop.
    #[test]
    fn a_top_tested_loop_takes_the_exit_branch_condition() {
        let f = function(
            "
$L_top:
.loc 1 4 5
setp.ge.s32 %p1, %r1, 10;
@%p1 bra $L_done;
.loc 1 5 9
add.s32 %r1, %r1, 1;
bra.uni $L_top;
$L_done:
ret;
",
        );
        let l = innermost_on_line([&f], None, 5).unwrap();
        assert_eq!(
            (l.first_line, l.condition_line, l.has_exit),
            (4, Some(4), true)
        );
    }
}
