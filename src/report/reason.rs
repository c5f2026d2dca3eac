//! Why a puzzle or a test failed, in one line: `check`'s table and JUnit's failure message.
//! It describes the verdict the judge reached (from its data); it never re-decides it.

use super::counters::LABELS;
use crate::emu::result::{Diagnostic, Severity};
use crate::judge::outcome::{BlockLimitKind, PuzzleOutcome, TestOutcome};

/// How `compile::messages` ends an error it moved to the end of the line that needs the fix.
const END_OF_LINE: &str = " at the end of this line";

/// At most this many reasons in one line: the first explains, the second often says why.
const MAX_PARTS: usize = 2;

/// The reason for a failed puzzle: its compile error, or the first failed test's reason.
pub(crate) fn puzzle(o: &PuzzleOutcome) -> String {
    if let Some(e) = &o.compile_error {
        let notes = super::snippet::compiler_notes(e);
        return match notes.iter().find(|n| n.error) {
            _ if o.broken_puzzle_file => format!("broken puzzle file: {}", compile_line(e)),
            // Said as it is: it names the file, the kernel and what was found.
            _ if o.missing_kernel.is_some() => first_line(e).to_string(),
            // A token missing at a line's end: `expected a ";" at the end of 01_map.cu:5`.
            Some(n) if n.text.ends_with(END_OF_LINE) => format!(
                "does not compile: {} at the end of {}:{}",
                n.text.trim_end_matches(END_OF_LINE),
                base_name(&n.file),
                n.line
            ),
            // Said like a diagnostic: what, then where (`... at 03_guard.cu:3`).
            Some(n) => format!(
                "does not compile: {} at {}:{}",
                n.text,
                base_name(&n.file),
                n.line
            ),
            // Not NVRTC's words (a kernel file that cannot be read): as it is.
            None if e.starts_with("cannot read") => first_line(e).to_string(),
            None => format!("does not compile: {}", compile_line(e)),
        };
    }
    if let Some(u) = o.fails_only_unseen() {
        let drawn: Vec<String> = u
            .scalars
            .iter()
            .map(|(n, v)| format!("{n} = {}", crate::puzzle::show_number(*v)))
            .collect();
        return format!(
            "passes the tests it can see, fails an unseen size ({}): a size is probably hard-coded",
            drawn.join(", ")
        );
    }
    match o.tests.iter().find(|t| !t.passed) {
        Some(t) => test(t),
        None if o.tests.is_empty() => "no tests ran".to_string(),
        None => "failed".to_string(),
    }
}

/// The reason for a failed test: what stopped it, which output differs, the first diagnostic,
/// the first counter over budget, a disagreement with the GPU (the first two of these that apply).
pub(crate) fn test(t: &TestOutcome) -> String {
    let parts: Vec<String> = [
        stopped(t),
        differs(t),
        diagnosed(t),
        over_budget(t),
        block_limit(t),
        super::also::reason(t),
    ]
    .into_iter()
    .flatten()
    .take(MAX_PARTS)
    .collect();
    if parts.is_empty() {
        "failed".to_string()
    } else {
        parts.join("; ")
    }
}

fn stopped(t: &TestOutcome) -> Option<String> {
    let e = t.error.as_deref()?;
    Some(first_line(e).to_string())
}

fn differs(t: &TestOutcome) -> Option<String> {
    let (name, c) = t.outputs.iter().find(|(_, c)| !c.mismatches.is_empty())?;
    let len = c.expected.len().max(c.got.len());
    let never = match c.unwritten.len() {
        0 => String::new(),
        n => format!(" ({n} never written)"),
    };
    Some(format!(
        "{} of {len} elements differ in {name}{never}",
        c.mismatches.len()
    ))
}

/// The first error (else the first warning) as `kind at file:line`.
fn diagnosed(t: &TestOutcome) -> Option<String> {
    let d = first_diagnostic(&t.diagnostics)?;
    Some(match (&d.file, d.line) {
        (Some(f), Some(l)) => format!("{} at {}:{l}", d.kind.as_str(), base_name(f)),
        (None, Some(l)) => format!("{} at line {l}", d.kind.as_str()),
        _ => d.kind.as_str().to_string(),
    })
}

pub(crate) fn first_diagnostic(ds: &[Diagnostic]) -> Option<&Diagnostic> {
    ds.iter()
        .find(|d| d.severity == Severity::Error)
        .or_else(|| ds.first())
}

fn over_budget(t: &TestOutcome) -> Option<String> {
    let o = t.over_budget.first()?;
    let label = crate::emu::result::Counters::NAMES
        .iter()
        .position(|&n| n == o.counter)
        .map_or(o.counter, |i| LABELS[i]);
    Some(format!("over budget: {label} {} > {}", o.used, o.budget))
}

/// The first block limit broken: `over block budget: global atomics 64 > 1 in block 0`, or
/// `requires shared writes: 0 < 1 in block 0`.
fn block_limit(t: &TestOutcome) -> Option<String> {
    let o = t.block_overruns.first()?;
    let label = crate::emu::result::Counters::index(o.counter).map_or(o.counter, |i| LABELS[i]);
    let block = super::layout::limit_place(o.block, o.warp);
    Some(match o.limit_kind {
        BlockLimitKind::Budget => format!(
            "over block budget: {label} {} > {} in {block}",
            o.used, o.limit
        ),
        BlockLimitKind::Require => format!("requires {label}: {} < {} in {block}", o.used, o.limit),
    })
}

/// `puzzles/09_pooling.cu` → `09_pooling.cu`: the table has little room.
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn first_line(s: &str) -> &str {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}

/// The line of NVRTC's log that says what is wrong (the first `error`), else its first line.
fn compile_line(log: &str) -> &str {
    log.lines()
        .map(str::trim)
        .find(|l| l.contains("error"))
        .unwrap_or_else(|| first_line(log))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{DiagKind, ThreadId};
    use crate::judge::outcome::{OutputCompare, OverBudget};
    use crate::report::counters::tests::test_with;

    fn diag(severity: Severity, kind: DiagKind, line: Option<u32>) -> Diagnostic {
        Diagnostic {
            kind,
            severity,
            message: "m".into(),
            help: None,
            file: Some("puzzles/09_pooling.cu".into()),
            line,
            block: [0; 3],
            thread: [0; 3],
            other_line: None,
            facts: Default::default(),
        }
    }

    #[test]
    fn output_difference_then_first_error() {
        let mut t = test_with("t", [0; 4]);
        t.passed = false;
        t.outputs.insert(
            "out".into(),
            OutputCompare {
                expected: vec![0.0; 8],
                got: vec![1.0; 8],
                mismatches: vec![1, 2, 3],
                shape: None,
                ..Default::default()
            },
        );
        t.diagnostics = vec![
            diag(Severity::Warning, DiagKind::UninitializedRead, Some(3)),
            diag(Severity::Error, DiagKind::SharedRace, Some(14)),
        ];
        assert_eq!(
            test(&t),
            "3 of 8 elements differ in out; shared-race at 09_pooling.cu:14"
        );
    }

    #[test]
    fn elements_never_written_are_counted_in_the_reason() {
        let mut t = test_with("t", [0; 4]);
        t.passed = false;
        t.outputs.insert(
            "hist".into(),
            OutputCompare {
                expected: vec![0.0; 4],
                got: vec![f64::NAN, f64::NAN, 1.0, 0.0],
                mismatches: vec![0, 1, 2],
                unwritten: vec![0, 1],
                ..Default::default()
            },
        );
        assert_eq!(test(&t), "3 of 4 elements differ in hist (2 never written)");
    }

    #[test]
    fn over_budget_alone_names_the_counter() {
        let mut t = test_with("t", [9, 0, 0, 0]);
        t.over_budget.push(OverBudget {
            counter: "global_reads",
            used: 9,
            budget: 2,
            thread: ThreadId::default(),
            ..OverBudget::default()
        });
        assert_eq!(test(&t), "over budget: global reads 9 > 2");
        t.diagnostics
            .push(diag(Severity::Warning, DiagKind::StepLimit, None));
        assert_eq!(test(&t), "step-limit; over budget: global reads 9 > 2");
    }

    #[test]
    fn compile_errors_show_nvrtc_error_line() {
        let o = PuzzleOutcome {
            id: 1,
            slug: "map".into(),
            title: "Map".into(),
            file: "puzzles/01_map.cu".into(),
            compile_error: Some(
                "\npuzzles/01_map.cu(3): error: identifier \"x\" is undefined\n\n1 error detected"
                    .into(),
            ),
            ..PuzzleOutcome::default()
        };
        assert_eq!(
            puzzle(&o),
            "does not compile: puzzles/01_map.cu(3): error: identifier \"x\" is undefined"
        );
    }

    #[test]
    fn compile_errors_say_what_then_where_once() {
        let o = PuzzleOutcome {
            id: 3,
            slug: "guard".into(),
            title: "Guard".into(),
            file: "puzzles/03_guard.cu".into(),
            compile_error: Some(
                "puzzles/03_guard.cu does not compile\n  puzzles/03_guard.cu:3:58: error: identifier \"x\" is undefined\n  puzzles/03_guard.cu:5: error: expected a \";\"".into(),
            ),
            ..PuzzleOutcome::default()
        };
        let r = puzzle(&o);
        assert_eq!(
            r,
            "does not compile: identifier \"x\" is undefined at 03_guard.cu:3"
        );
        assert_eq!(r.matches("compile").count(), 1);
        let semicolon = PuzzleOutcome {
            compile_error: Some(
                "puzzles/03_guard.cu does not compile\n  puzzles/03_guard.cu:5:38: error: expected a \";\" at the end of this line\nNVRTC reported it at 7:1, at the next token".into(),
            ),
            ..o.clone()
        };
        assert_eq!(
            puzzle(&semicolon),
            "does not compile: expected a \";\" at the end of 03_guard.cu:5"
        );
        let missing = PuzzleOutcome {
            compile_error: Some(
                "cannot read puzzles/03_guard.cu: no such file; restore the starter with `gpuzzle reset 3`".into(),
            ),
            ..o
        };
        assert_eq!(puzzle(&missing), missing.compile_error.clone().unwrap());
    }

    #[test]
    fn base_names() {
        assert_eq!(base_name("a/b/c.cu"), "c.cu");
        assert_eq!(base_name("c.cu"), "c.cu");
        assert_eq!(base_name("a\\c.cu"), "c.cu");
    }
}
