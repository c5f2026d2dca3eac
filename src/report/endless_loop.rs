//! A `step-limit` diagnostic said as the loop that never ends: "the loop on line 7 never ends:
//! its condition `stride > 0` on line 7 stays true", instead of the line a thread happened to
//! be on when the launch was stopped.
//!
//! Runs once per diagnostic after a launch (the judge calls it with the learner's module and
//! source), never inside the emulator: the loop comes from the IR's backward branches
//! (`ptx::loops`), its `for`/`while` line and condition text from the source.

use super::layout;
use crate::emu::result::{DiagKind, Diagnostic};
use crate::ptx::loops;
use crate::ptx::Module;

/// How far above the loop's first instruction its `for`/`while`/`do` may be (a `for` whose
/// test was folded away leaves no instruction on its own line).
const HEADER_LOOKBACK: u32 = 3;

/// Rewrite a `step-limit` diagnostic `d` of the learner's `module` (compiled from `source`,
/// named `file_name`) to name the innermost loop around its line; any other diagnostic, one in
/// another file (a header), or one not in a loop, is left as it is.
pub fn name_the_loop(d: &mut Diagnostic, module: &Module, file_name: &str, source: &str) {
    if d.kind != DiagKind::StepLimit
        || matches!(
            d.facts,
            crate::emu::facts::Facts::GridSyncNeverCompletes { .. }
                // The clock, not the step limit, stopped it: no evidence of a loop that never ends.
                | crate::emu::facts::Facts::StoppedByClock { .. }
        )
    {
        return;
    }
    let Some(line) = d.line else { return };
    let base = super::reason::base_name;
    if d.file
        .as_deref()
        .is_some_and(|f| base(f) != base(file_name))
    {
        return;
    }
    // The module's index of the learner's file, when its `.file` table names it.
    let file = module
        .files
        .iter()
        .position(|f| !f.is_empty() && base(f) == base(file_name))
        .map(|i| i as u32);
    let Some(l) = loops::innermost_on_line(&module.functions, file, line) else {
        return;
    };
    if l.first_line == 0 {
        return;
    }
    let lines: Vec<&str> = source.lines().collect();
    let text = |n: u32| lines.get((n as usize).wrapping_sub(1)).copied();
    let head = (l.first_line.saturating_sub(HEADER_LOOKBACK).max(1)..=l.first_line)
        .rev()
        .find(|&n| text(n).is_some_and(|t| loop_keyword(t).is_some()))
        .unwrap_or(l.first_line);
    // The condition as written, when the header line holds it (`for (..; s < n; ..)`).
    let written = text(head).and_then(condition_text);
    let quoted = written.map_or(String::new(), |c| format!(" `{c}`"));
    let who = layout::who(d.block, d.thread);
    let (prefix, stopped) = split_original(&d.message);
    let what = if !l.has_exit {
        format!(
            "the loop on line {head} never ends: its condition{quoted} cannot become false once the loop is entered (NVRTC compiled it without a way out)"
        )
    } else if let Some(cond) = l.condition_line {
        let at = if cond == head && written.is_some() {
            String::new()
        } else {
            format!(" on line {cond}")
        };
        d.other_line = Some(cond).filter(|&c| c != head);
        format!(
            "the loop on line {head} never ends: its condition{quoted}{at} stays true for {who}"
        )
    } else {
        format!("the loop on line {head} never ends for {who}")
    };
    d.message = match stopped {
        Some(s) => format!("{prefix}{what} ({s})"),
        None => format!("{prefix}{what}"),
    };
    d.line = Some(head);
}

/// The emulator's and the GPU's message, split into a multi-launch prefix (`in `k` (launch 1
/// of 2): `) and the clause saying how the launch was stopped (`the kernel ran more than N
/// instructions`); the part naming the thread's line is dropped (the loop replaces it).
fn split_original(message: &str) -> (&str, Option<&str>) {
    match message.find("the kernel ") {
        Some(at) => {
            let rest = &message[at..];
            let clause = rest.split(['.', ';', ':']).next().unwrap_or(rest).trim();
            (&message[..at], Some(clause).filter(|c| !c.is_empty()))
        }
        None => ("", Some(message).filter(|m| !m.is_empty())),
    }
}

/// The loop keyword a source line starts a loop with, if any.
fn loop_keyword(line: &str) -> Option<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    ["for", "while", "do"].into_iter().find(|kw| {
        code.match_indices(kw).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + kw.len()..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !ident(before) && !ident(after)
        })
    })
}

/// The condition of a `for (init; cond; step)` or `while (cond)` written on `line`.
fn condition_text(line: &str) -> Option<&str> {
    let kw = loop_keyword(line)?;
    let code = line.split("//").next().unwrap_or("");
    let open = code.find(kw)? + kw.len();
    let open = open + code[open..].find('(')?;
    // The text inside the header's parentheses, to its matching `)` or the end of the line.
    let mut depth = 0usize;
    let mut close = code.len();
    for (i, c) in code[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let inside = code.get(open + 1..close)?;
    let cond = match kw {
        "for" => inside.split(';').nth(1)?,
        _ => inside,
    };
    Some(cond.trim()).filter(|c| !c.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::Severity;

    fn step_limit(line: u32, message: &str) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::StepLimit,
            severity: Severity::Error,
            message: message.into(),
            help: Some("a loop that never ends?".into()),
            file: Some("puzzles/12_block_sum.cu".into()),
            line: Some(line),
            block: [0; 3],
            thread: [2, 0, 0],
            other_line: None,
            facts: Default::default(),
        }
    }

    fn module(body: &str) -> Module {
        let text = format!(
            ".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 k_n)\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n{body}\n}}\n.file 1 \"k.cu\"\n"
        );
        crate::ptx::parse(&text).unwrap()
    }

    const SOURCE: &str = "extern \"C\" __global__ void k(int n) {\n\
        \x20   int local_i = threadIdx.x;\n\
        \x20   __syncthreads();\n\
        \x20   int t = 0;\n\
        \x20   int u = 0;\n\
        \x20   // the loop:\n\
        \x20   for (int s = 4; s > 0; s * 2) {\n\
        \x20       if (local_i < s) {\n\
        \x20           t += 1;\n\
        \x20       }\n\
        \x20       __syncthreads();\n\
        \x20   }\n\
        }\n";

    #[test]
    fn a_folded_condition_names_the_for_line_above_the_body() {
        let m = module(
            "
.loc 1 3 5
mov.u32 %r1, %tid.x;
bra.uni $L3;
$L5:
.loc 1 11 9
bar.sync 0;
$L3:
setp.gt.s32 %p2, %r1, 3;
.loc 1 8 9
@%p2 bra $L5;
.loc 1 9 13
add.s32 %r2, %r1, 1;
bra.uni $L5;
",
        );
        let mut d = step_limit(
            8,
            "the kernel ran more than 20000000 instructions; thread 2 of block 0 was still in the loop on line 8",
        );
        name_the_loop(&mut d, &m, "puzzles/12_block_sum.cu", SOURCE);
        assert_eq!(d.line, Some(7));
        assert_eq!(
            d.message,
            "the loop on line 7 never ends: its condition `s > 0` cannot become false once the loop is entered (NVRTC compiled it without a way out) (the kernel ran more than 20000000 instructions)"
        );
    }

    #[test]
    fn a_condition_on_its_own_line_is_named_and_marked() {
        let m = module(
            "
.loc 1 7 5
mov.u32 %r1, 4;
$L_top:
.loc 1 9 13
add.s32 %r2, %r2, 1;
.loc 1 7 5
setp.gt.s32 %p1, %r1, 0;
@%p1 bra $L_top;
ret;
",
        );
        let mut d = step_limit(9, "in `k` (launch 1 of 2): the kernel was stopped: thread 2 of block 0 took more than 1000 loop iterations and was still running line 9");
        name_the_loop(&mut d, &m, "puzzles/12_block_sum.cu", SOURCE);
        assert_eq!(d.line, Some(7));
        assert_eq!(d.other_line, None);
        assert_eq!(
            d.message,
            "in `k` (launch 1 of 2): the loop on line 7 never ends: its condition `s > 0` stays true for thread 2 of block 0 (the kernel was stopped)"
        );
    }

    #[test]
    fn other_kinds_and_lines_outside_loops_are_left_alone() {
        let m = module(".loc 1 3 5\nmov.u32 %r1, 1;\nret;\n");
        let before = step_limit(3, "the kernel ran more than 5 instructions");
        let mut d = before.clone();
        name_the_loop(&mut d, &m, "puzzles/12_block_sum.cu", SOURCE);
        assert_eq!(d, before);
        // A step limit in an included header: its lines are not the kernel file's.
        let mut in_header = Diagnostic {
            file: Some("helpers.cuh".into()),
            ..step_limit(9, "the kernel ran more than 5 instructions")
        };
        let copy = in_header.clone();
        let looping =
            module(".loc 1 7 5\n$L_top:\n.loc 1 9 13\nadd.s32 %r2, %r2, 1;\nbra.uni $L_top;\n");
        name_the_loop(&mut in_header, &looping, "puzzles/12_block_sum.cu", SOURCE);
        assert_eq!(in_header, copy);
        let mut race = Diagnostic {
            kind: DiagKind::SharedRace,
            ..before.clone()
        };
        let copy = race.clone();
        name_the_loop(&mut race, &m, "puzzles/12_block_sum.cu", SOURCE);
        assert_eq!(race, copy);
    }

    #[test]
    fn conditions_are_read_from_headers() {
        assert_eq!(
            condition_text("for (int s = 1; s < n; s *= 2) {"),
            Some("s < n")
        );
        assert_eq!(
            condition_text("  while ((i < n) && ok) { // go"),
            Some("(i < n) && ok")
        );
        assert_eq!(condition_text("for (;;) {"), None);
        assert_eq!(condition_text("int format = 2;"), None);
        assert_eq!(condition_text("} while (x != 0);"), Some("x != 0"));
        assert_eq!(loop_keyword("int fork = 1; // for"), None);
        assert_eq!(loop_keyword("do {"), Some("do"));
    }
}
