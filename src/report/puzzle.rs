//! `gpuzzle run N`: one puzzle's verdict for the learner who just edited it. On failure: which
//! tests failed, the first failing test's differing elements and printf output, each distinct
//! diagnostic with its source line, the memory table, and where to get a hint. On success: one
//! summary line and the next puzzle.

use super::{counters, diff, layout, snippet};
use crate::emu::result::Diagnostic;
use crate::judge::outcome::{BlockLimitKind, BlockOverrun, PerfFigure, PuzzleOutcome, TestOutcome};
use crate::puzzle::PerfKind;
use colored::Colorize;

/// Distinct diagnostics shown in full; more are counted.
const MAX_DIAGNOSTICS: usize = 5;
/// Lines of device printf output shown.
const MAX_PRINTF_LINES: usize = 20;

/// Where the learner stands with a puzzle's hints, for the "Stuck?" line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// Progressive hints shown so far.
    pub shown: usize,
    /// Progressive hints there are.
    pub total: usize,
    /// What went wrong (`shared-race, line 14`) when a `[[mistake]]` hint for this failure
    /// waits to be shown: `gpuzzle hint` gives it first.
    pub for_mistake: Option<String>,
}

impl From<(usize, usize)> for Hints {
    fn from((shown, total): (usize, usize)) -> Hints {
        Hints {
            shown,
            total,
            for_mistake: None,
        }
    }
}

/// The report for one puzzle. `source` is the text of `o.file`; `next` the following puzzle's
/// id and title; `hints` how many hints were shown of how many there are (and whether one for
/// this mistake waits); `solutions` whether the reference solution was graded instead of the
/// learner's file.
pub fn text(
    o: &PuzzleOutcome,
    source: Option<&str>,
    next: Option<(u32, &str)>,
    hints: impl Into<Hints>,
    solutions: bool,
) -> String {
    text_with(o, source, next, hints, solutions, false)
}

/// [`text`], with `verbose` (`run -v`): every element of the failing test's inputs, not the
/// first few.
pub fn text_with(
    o: &PuzzleOutcome,
    source: Option<&str>,
    next: Option<(u32, &str)>,
    hints: impl Into<Hints>,
    solutions: bool,
    verbose: bool,
) -> String {
    let hints = hints.into();
    let mut sections = vec![];
    if let (Some(message), Some(_)) = (&o.compile_error, &o.missing_kernel) {
        // One error for the whole puzzle: no test ran, so no table.
        sections.push(header(
            o,
            solutions,
            "KERNEL NOT FOUND".red().bold().to_string(),
        ));
        sections.push(format!("  {} {message}", "error:".red().bold()));
        sections.extend(stuck(o.id, &hints));
    } else if let Some(log) = &o.compile_error {
        sections.push(header(
            o,
            solutions,
            "DOES NOT COMPILE".red().bold().to_string(),
        ));
        sections.push(compile_errors(o, log, source));
        sections.extend(stuck(o.id, &hints));
    } else if o.passed {
        sections.push(passed(o, solutions));
        sections.extend(families_uncounted_note(&o.tests));
        sections.extend(compiler_warnings(o, source));
        sections.extend(diagnostics(o, source));
        sections.extend(super::also::line(o));
        sections.push(format!("  {}", next_step(next)));
    } else {
        sections.push(failed_head(o, solutions));
        sections.extend(compiler_warnings(o, source));
        let named = o.tests.len() > 1;
        let first_failed = o.tests.iter().find(|t| !t.passed);
        sections.extend(first_failed.and_then(|t| failed_detail(t, named, verbose)));
        sections.extend(diagnostics(o, source));
        sections.extend(super::also::line(o));
        if !o.tests.is_empty() {
            sections.push(layout::indent(&counters::budget_table(&o.tests), "  "));
        }
        sections.extend(overrun_lines(o, source));
        sections.extend(block_lines(&o.tests, &o.file, source));
        sections.extend(only_budget_note(&o.tests));
        sections.extend(technique_help(&o.tests));
        sections.extend(families_uncounted_note(&o.tests));
        sections.extend(stuck(o.id, &hints));
    }
    sections.join("\n\n")
}

/// Why the kernel did not compile, each of NVRTC's errors once, over the source line it points
/// at. A log with no located message (a missing file, an option NVRTC refused) is shown as it is.
fn compile_errors(o: &PuzzleOutcome, log: &str, source: Option<&str>) -> String {
    let notes = snippet::compiler_notes(log);
    if notes.is_empty() {
        return layout::indent(log.trim(), "  ");
    }
    let shown: Vec<String> = notes
        .iter()
        .map(|n| {
            layout::indent(
                &snippet::compiler_note(n, source_of(o, &n.file, source)),
                "  ",
            )
        })
        .collect();
    shown.join("\n\n")
}

/// `source` when `file` is the graded file (NVRTC may name an included header instead).
fn source_of<'a>(o: &PuzzleOutcome, file: &str, source: Option<&'a str>) -> Option<&'a str> {
    (super::reason::base_name(file) == super::reason::base_name(&o.file))
        .then_some(source)
        .flatten()
}

/// NVRTC's warnings about the kernel, each over the source line it points at: a warning such
/// as "expression has no effect" on `for (...; s * 2)` is often the whole bug.
pub(crate) fn compiler_warnings(o: &PuzzleOutcome, source: Option<&str>) -> Option<String> {
    let shown: Vec<String> = o
        .warnings
        .iter()
        .flat_map(|w| {
            let notes = snippet::compiler_notes(w);
            if notes.is_empty() {
                // A warning about no line of the file (an option): NVRTC's words as they are.
                return vec![layout::indent(w.trim(), "  ")];
            }
            notes
                .iter()
                .map(|n| {
                    let text = snippet::compiler_note(n, source_of(o, &n.file, source));
                    layout::indent(&text, "  ")
                })
                .collect()
        })
        .collect();
    (!shown.is_empty()).then(|| shown.join("\n\n"))
}

/// One failed test on its own, for a JUnit failure body: what stopped it, its differing
/// outputs, its diagnostics (located, without source), and its memory table.
pub(crate) fn test_detail(t: &TestOutcome, file: &str) -> String {
    let one = std::slice::from_ref(t);
    let mut parts: Vec<String> = failed_detail(t, false, false).into_iter().collect();
    parts.extend(distinct(one).iter().map(|s| {
        let d = snippet::located(s.first, file);
        snippet::diagnostic(&d, None)
    }));
    parts.push(counters::budget_table(one));
    // Where the table's overruns were made, as located notes (JUnit has no source to draw).
    parts.extend(
        counters::worst_overruns(one)
            .into_iter()
            .filter_map(|over| snippet::overrun(over, counter_label(over.counter), file, None)),
    );
    parts.extend(block_lines(one, file, None));
    parts.join("\n\n")
}

/// `Puzzle 9 · Pooling` with `right` at the right edge; loud when grading the reference solution.
fn header(o: &PuzzleOutcome, solutions: bool, right: String) -> String {
    let mut left = format!("Puzzle {} · {}", o.id, o.title).bold().to_string();
    if solutions {
        left += &format!("  {}", "(reference solution)".yellow().bold());
    }
    layout::spread(&left, &right)
}

fn passed(o: &PuzzleOutcome, solutions: bool) -> String {
    let head = header(o, solutions, "PASSED".green().bold().to_string());
    let mut summary = format!(
        "{} · {}",
        layout::count(o.tests.len(), "test", "tests"),
        counters::phrase(&o.tests)
    );
    let budgeted = |b: &crate::puzzle::Budget| (0..4).any(|i| b.get(i).is_some()) || b.has_perf();
    if o.tests
        .iter()
        .any(|t| budgeted(&t.budget) || t.kernels.iter().any(|k| budgeted(&k.budget)))
    {
        summary += " (within budget)";
    }
    let mut lines = vec![head, format!("  {summary}")];
    if solutions {
        lines.push(format!("  {}", o.file.dimmed()));
    }
    lines.join("\n")
}

fn failed_head(o: &PuzzleOutcome, solutions: bool) -> String {
    let mut lines = vec![header(o, solutions, o.file.dimmed().to_string())];
    let names: Vec<String> = o.tests.iter().map(test_name).collect();
    let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (t, name) in o.tests.iter().zip(&names) {
        lines.push(test_line(t, &format!("{name:<w$}")));
    }
    if o.tests.is_empty() {
        lines.push(format!("  {}", "no tests ran".red()));
    }
    // Said once for the tests left out after one ran into the step or time limit.
    if let Some(why) = o.tests.iter().find_map(|t| t.not_run.as_deref()) {
        let n = o.tests.iter().filter(|t| t.not_run.is_some()).count();
        let what = layout::count(n, "test", "tests");
        let why = why.trim_start_matches("not run: ");
        lines.push(format!("  {}", format!("{what} not run: {why}").yellow()));
    }
    lines.join("\n")
}

/// `test "one block"`, saying so when a random variant's name does not.
fn test_name(t: &TestOutcome) -> String {
    let mut name = format!("test \"{}\"", t.name);
    if t.random && !t.name.contains("random") {
        name += " (random inputs)";
    }
    name
}

/// `test "one block"  grid 1, block 8 ... FAILED`, the name already padded to line up.
fn test_line(t: &TestOutcome, name: &str) -> String {
    let mut left = format!("  {name}");
    let shape = if t.kernels.is_empty() {
        format!(
            "grid {}, block {}",
            layout::dims(t.grid),
            layout::dims(t.block)
        )
    } else {
        layout::count(t.kernels.len(), "kernel", "kernels")
    };
    left += &format!("  {}", shape.dimmed());
    let verdict = if t.passed {
        "PASSED".green().bold()
    } else if t.not_run.is_some() {
        "NOT RUN".yellow().bold()
    } else {
        "FAILED".red().bold()
    };
    layout::spread(&left, &verdict.to_string())
}

/// What went wrong in one failed test: what stopped it, each differing output, its printf;
/// `named` says which test it was (worth saying when there are several).
fn failed_detail(t: &TestOutcome, named: bool, all_inputs: bool) -> Option<String> {
    let mut parts = vec![];
    if let Some(e) = &t.error {
        parts.push(format!("{} {}", "stopped:".red().bold(), e.trim()));
    }
    let mut differ = t
        .outputs
        .iter()
        .filter(|(_, c)| !c.mismatches.is_empty())
        .peekable();
    // What the test gave the kernel, above what it got wrong.
    if differ.peek().is_some() {
        parts.extend(diff::inputs(&t.inputs, all_inputs));
    }
    for (name, c) in differ {
        parts.push(diff::output(name, c));
        // What the difference looks like, from `teach::output`.
        if let Some(help) = &c.help {
            parts.push(format!("{}: {help}", "help".cyan().bold()));
        }
    }
    if !t.stdout.is_empty() {
        parts.push(printf(&t.stdout));
    }
    if parts.is_empty() {
        return None;
    }
    let mut text = parts.join("\n\n");
    if named {
        let title = format!("in test \"{}\":", t.name).dimmed();
        text = format!("{title}\n{text}");
    }
    Some(layout::indent(&text, "  "))
}

fn printf(out: &str) -> String {
    let lines: Vec<&str> = out.lines().collect();
    let mut shown = lines[..lines.len().min(MAX_PRINTF_LINES)].join("\n");
    if lines.len() > MAX_PRINTF_LINES {
        shown += &format!("\n… {} more lines", lines.len() - MAX_PRINTF_LINES);
    }
    format!(
        "{}\n{}",
        "printf output".bold(),
        layout::indent(&shown, "  ")
    )
}

/// A diagnostic found in one or more tests: the first occurrence, and in how many other tests.
struct Seen<'a> {
    first: &'a Diagnostic,
    tests: Vec<usize>,
}

/// Each distinct diagnostic (same kind at the same place) once, in order of appearance.
fn distinct(tests: &[TestOutcome]) -> Vec<Seen<'_>> {
    let mut seen: Vec<Seen> = vec![];
    for (ti, t) in tests.iter().enumerate() {
        for d in &t.diagnostics {
            let same = |s: &&mut Seen| {
                s.first.kind == d.kind && s.first.line == d.line && s.first.file == d.file
            };
            match seen.iter_mut().find(same) {
                Some(s) if !s.tests.contains(&ti) => s.tests.push(ti),
                Some(_) => {}
                None => seen.push(Seen {
                    first: d,
                    tests: vec![ti],
                }),
            }
        }
    }
    seen
}

fn diagnostics(o: &PuzzleOutcome, source: Option<&str>) -> Vec<String> {
    let seen = distinct(&o.tests);
    let mut out: Vec<String> = seen
        .iter()
        .take(MAX_DIAGNOSTICS)
        .map(|s| {
            let d = snippet::located(s.first, &o.file);
            let mut text = snippet::diagnostic(&d, snippet::source_for(&d, &o.file, source));
            if s.tests.len() > 1 {
                let n = s.tests.len() - 1;
                let also = format!(
                    "(also in {})",
                    layout::count(n, "other test", "other tests")
                );
                text += &format!("\n{}", also.dimmed());
            }
            layout::indent(&text, "  ")
        })
        .collect();
    if seen.len() > MAX_DIAGNOSTICS {
        let more = layout::count(
            seen.len() - MAX_DIAGNOSTICS,
            "more diagnostic",
            "more diagnostics",
        );
        out.push(format!("  … and {more}; fix the ones above first"));
    }
    out
}

/// When every output matched and nothing stopped a test, the budget is all that failed: say so.
fn only_budget_note(tests: &[TestOutcome]) -> Option<String> {
    let outputs_ok = tests
        .iter()
        .all(|t| t.error.is_none() && t.outputs.values().all(|c| c.mismatches.is_empty()));
    // An error diagnostic (a race, say) fails the test on its own: "correct output" would
    // suggest the budget is all that is left to fix.
    let clean = tests.iter().all(|t| {
        t.diagnostics
            .iter()
            .all(|d| d.severity != crate::emu::result::Severity::Error)
    });
    tests.iter().flat_map(|t| &t.over_budget).next()?;
    if !outputs_ok || !clean {
        return None;
    }
    if let Some(p) = tests.iter().flat_map(|t| &t.perf).find(|p| p.over()) {
        return Some(perf_advice(p));
    }
    // The overruns the table marks, each with its figure and thread as the table shows them.
    let said: Vec<String> = counters::worst_overruns(tests)
        .into_iter()
        .map(|over| {
            // In a multi-launch puzzle, say which kernel went over.
            let kernel = over
                .kernel
                .as_ref()
                .map_or(String::new(), |k| format!(" in `{k}`"));
            format!(
                "{} {} per thread{kernel} where the budget allows {} ({})",
                over.used,
                counter_label(over.counter),
                over.budget,
                layout::who(over.thread.block, over.thread.thread)
            )
        })
        .collect();
    let text = match said.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    };
    // What the budget is built for follows as `technique_help` (from the puzzle's
    // `[technique]`); the `-->` of the overrun's snippet names the line that made the extra
    // accesses (`snippet::overrun`).
    Some(format!("  Correct output, but {text}."))
}

/// The help `teach::technique` wrote for the counters the tests broke (a technique a puzzle
/// requires and the kernel skipped, a family over its budget or forbidden, what a budget is
/// built for), each said once: a block limit's for the first test that broke it (as
/// `block_lines` says the limit), so the same miss on two tests is one help.
fn technique_help(tests: &[TestOutcome]) -> Vec<String> {
    let mut said: Vec<&str> = Vec::new();
    let mut limits: Vec<LimitKey> = Vec::new();
    let mut block_helps: Vec<&str> = Vec::new();
    for o in tests.iter().flat_map(|t| &t.block_overruns) {
        let key = limit_key(o);
        if !limits.contains(&key) {
            limits.push(key);
            block_helps.extend(o.help.as_deref());
        }
    }
    let helps = block_helps.into_iter().chain(
        tests
            .iter()
            .flat_map(|t| t.over_budget.iter().filter_map(|o| o.help.as_deref())),
    );
    for h in helps {
        if !said.contains(&h) {
            said.push(h);
        }
    }
    said.into_iter()
        .map(|h| format!("  {}: {h}", "help".cyan().bold()))
        .collect()
}

/// Where a test ran on the GPU, whose instrumenter counts memory only, and the puzzle limits
/// an instruction family: say those limits were not judged there.
fn families_uncounted_note(tests: &[TestOutcome]) -> Option<String> {
    let family_limited = |t: &TestOutcome| {
        (crate::emu::result::Counters::MEMORY..crate::emu::result::Counters::N).any(|i| {
            t.budget.get(i).is_some()
                || t.require.get(i).is_some()
                || t.block_budget.get(i).is_some()
        })
    };
    tests
        .iter()
        .any(|t| t.families_uncounted && family_limited(t))
        .then(|| {
            "  The GPU counts memory accesses only, not instruction families (shuffles, mma, cp.async, ...): their limits were not judged on it. `--backend emu` judges them.".to_string()
        })
}

/// `global reads` for `global_reads`; a perf key as it is.
fn counter_label(counter: &'static str) -> &'static str {
    crate::emu::result::Counters::NAMES
        .iter()
        .position(|&n| n == counter)
        .map_or(counter, |i| counters::LABELS[i])
}

/// Under the table, each counter it marks over budget at the lines that made the accesses,
/// for the thread it names.
fn overrun_lines(o: &PuzzleOutcome, source: Option<&str>) -> Vec<String> {
    counters::worst_overruns(&o.tests)
        .into_iter()
        .filter_map(|over| {
            let label = counter_label(over.counter);
            let text = snippet::overrun(over, label, &o.file, source)?;
            Some(layout::indent(&text, "  "))
        })
        .collect()
}

/// Which block limit an overrun breaks, said once across tests: its kernel, counter, kind
/// and whether it is a warp's.
type LimitKey<'a> = (&'a Option<String>, &'a str, BlockLimitKind, bool);

fn limit_key(o: &BlockOverrun) -> LimitKey<'_> {
    (&o.kernel, o.counter, o.limit_kind, o.warp.is_some())
}

/// Each block limit broken (the first test's of each kernel, counter and kind): a block over
/// its `block_budget` drawn over the lines its threads made the accesses at; a block under
/// `require` said in words, since the lesson's access is what is missing.
fn block_lines(tests: &[TestOutcome], file: &str, source: Option<&str>) -> Vec<String> {
    let mut said: Vec<LimitKey> = Vec::new();
    let mut out = Vec::new();
    for o in tests.iter().flat_map(|t| &t.block_overruns) {
        let key = limit_key(o);
        if said.contains(&key) {
            continue;
        }
        said.push(key);
        let label = counter_label(o.counter);
        let kernel = (o.kernel.as_ref()).map_or(String::new(), |k| format!(" in `{k}`"));
        let block = layout::block_name(o.block);
        let text = match o.limit_kind {
            BlockLimitKind::Budget => snippet::block_overrun(o, label, file, source)
                .map(|t| layout::indent(&t, "  "))
                .unwrap_or_else(|| {
                    format!(
                        "  The threads of {block}{kernel} made {} {label} in all, where the block budget allows {}.",
                        o.used, o.limit
                    )
                }),
            BlockLimitKind::Require if o.unfed => format!(
                "  {}{kernel} made no {label} whose results feed the output, where this puzzle requires at least {} in every {}: work whose results are dropped or cancelled does not count.",
                capitalised(&layout::limit_place(o.block, o.warp)),
                o.limit,
                if o.warp.is_some() { "warp with work" } else { "block" }
            ),
            BlockLimitKind::Require => match o.warp {
                None => format!(
                    "  {}{kernel} made {} {label} in all, where this puzzle requires at least {} in every block: its lesson needs that access, so a kernel that does without it does not pass, even with the right output.",
                    capitalised(&block),
                    o.used,
                    o.limit
                ),
                Some(_) => format!(
                    "  {}{kernel} made {} {label} in all (its 32 lanes together), where this puzzle requires at least {} in every warp with work (one that reads or writes global memory): every warp computes its share with the lesson's instructions, so a kernel where some warps do without them does not pass, even with the right output.",
                    capitalised(&layout::limit_place(o.block, o.warp)),
                    o.used,
                    o.limit
                ),
            },
        };
        out.push(text);
    }
    out
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// A perf budget overrun in words: the figure, the line, and what usually fixes it.
fn perf_advice(p: &PerfFigure) -> String {
    let at = match p.line {
        Some(l) => format!("line {l}"),
        None => "one access".to_string(),
    };
    let kernel = if p.kernel.is_empty() {
        String::new()
    } else {
        format!(" of `{}`", p.kernel)
    };
    let budget = p.budget.unwrap_or(0);
    let what = match p.kind {
        PerfKind::SectorsPerAccess => format!(
            "{at}{kernel} touches {} 32-byte sectors per warp access where the budget allows {budget}",
            counters::perf_value(p)
        ),
        PerfKind::BankWays => format!(
            "{at}{kernel} has {}-way shared bank conflicts where the budget allows {budget}",
            counters::perf_value(p)
        ),
    };
    let mut text = format!("  Correct output, but {what}.");
    if let Some(note) = p.note {
        text += &format!("\n  ({note}: the GPU does not report these figures.)");
    }
    // What fixes it (`teach::perf`), as its own help paragraph.
    if let Some(help) = &p.help {
        text += &format!("\n\n  {}: {help}", "help".cyan().bold());
    }
    text
}

fn stuck(id: u32, hints: &Hints) -> Option<String> {
    let cmd = format!("gpuzzle hint {id}").bold();
    if let Some(what) = &hints.for_mistake {
        return Some(format!(
            "  Stuck? {cmd}   (it has a hint for this mistake: {what})"
        ));
    }
    let (shown, total) = (hints.shown, hints.total);
    match total {
        0 => None,
        _ if shown >= total => Some(format!(
            "  Stuck? {cmd}   (all {} shown)",
            layout::count(total, "hint", "hints")
        )),
        _ => Some(format!("  Stuck? {cmd}   (hint {} of {total})", shown + 1)),
    }
}

fn next_step(next: Option<(u32, &str)>) -> String {
    match next {
        Some((id, title)) => format!("Next: {}   ({title})", format!("gpuzzle run {id}").bold()),
        None => "That was the last puzzle. Well done!"
            .green()
            .bold()
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{DiagKind, Severity, ThreadId};
    use crate::judge::outcome::{LineUse, OutputCompare, OverBudget};
    use crate::report::counters::tests::test_with;

    const SRC: &str = "__global__ void pooling(float* out, float* a, int size) {\n\
        \x20   __shared__ float shared[TPB];\n\
        \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
        \x20   shared[threadIdx.x] = a[i];\n\
        \x20   out[i] = shared[threadIdx.x] + shared[max((int)threadIdx.x - 1, 0)];\n\
        }\n";

    fn race(thread: u32) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::SharedRace,
            severity: Severity::Error,
            message: format!("thread {thread} reads shared[1] while thread 1 writes it"),
            help: Some("put __syncthreads() between the write and the read".into()),
            file: Some("puzzles/09_pooling.cu".into()),
            line: Some(5),
            block: [0; 3],
            thread: [thread, 0, 0],
            other_line: Some(4),
            facts: Default::default(),
        }
    }

    fn failing_test(name: &str, random: bool) -> TestOutcome {
        let mut t = test_with(name, [1, 1, 3, 1]);
        t.random = random;
        t.passed = false;
        t.budget.global_reads = Some(1);
        t.budget.global_writes = Some(1);
        t.outputs.insert(
            "out".into(),
            OutputCompare {
                expected: vec![0.0, 1.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0],
                got: vec![0.0, 1.0, 2.0, 6.0, 9.0, 12.0, 15.0, 13.0],
                mismatches: vec![2, 7],
                shape: None,
                ..Default::default()
            },
        );
        t.diagnostics = vec![race(2)];
        t
    }

    fn outcome(tests: Vec<TestOutcome>) -> PuzzleOutcome {
        PuzzleOutcome {
            id: 9,
            slug: "pooling".into(),
            title: "Pooling".into(),
            file: "puzzles/09_pooling.cu".into(),
            passed: tests.iter().all(|t| t.passed),
            tests,
            ..PuzzleOutcome::default()
        }
    }

    fn plain(o: &PuzzleOutcome, next: Option<(u32, &str)>, hints: (usize, usize)) -> String {
        colored::control::set_override(false);
        text(o, Some(SRC), next, hints, false)
    }

    #[test]
    fn failure_shows_tests_diff_one_diagnostic_table_and_hint() {
        let mut t2 = failing_test("one block, random inputs", true);
        t2.diagnostics = vec![race(3)];
        let o = outcome(vec![failing_test("one block", false), t2]);
        let out = plain(&o, Some((10, "Dot product")), (0, 3));
        println!("{out}");
        assert!(!out.contains('\x1b'));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("Puzzle 9 · Pooling"));
        assert!(lines[0].ends_with("puzzles/09_pooling.cu"));
        assert_eq!(layout::width(lines[0]), layout::WIDTH);
        assert!(lines[1].starts_with("  test \"one block\"  "));
        assert_eq!(lines[1].find("grid"), lines[2].find("grid"));
        assert!(lines[1].ends_with("FAILED"));
        assert!(lines[2].contains("random inputs") && !lines[2].contains("(random inputs)"));
        assert!(out.contains("in test \"one block\":\n  out: 2 of 8"));
        assert!(out.contains("out: 2 of 8 elements differ"));
        assert_eq!(out.matches("error[shared-race]").count(), 1);
        assert!(out.contains("(also in 1 other test)"));
        assert!(out.contains("^^^"));
        assert!(out.contains("the other access"));
        assert!(out.contains("memory per thread (max over tests)"));
        assert!(out
            .trim_end()
            .ends_with("Stuck? gpuzzle hint 9   (hint 1 of 3)"));
        assert!(!out.contains("Next:"));
    }

    #[test]
    fn a_hint_for_this_mistake_is_announced_instead_of_the_next_one() {
        let mut t = failing_test("one block", false);
        t.diagnostics = vec![race(3)];
        let o = outcome(vec![t]);
        colored::control::set_override(false);
        let hints = Hints {
            shown: 3,
            total: 3,
            for_mistake: Some("shared-race, line 3".into()),
        };
        let out = text(&o, Some(SRC), None, hints, false);
        assert!(
            out.trim_end().ends_with(
                "Stuck? gpuzzle hint 9   (it has a hint for this mistake: shared-race, line 3)"
            ),
            "{out}"
        );
    }

    #[test]
    fn success_is_short_and_points_on() {
        let mut t = test_with("one block", [1, 1, 3, 1]);
        t.budget.global_reads = Some(1);
        let o = outcome(vec![t.clone(), t]);
        let out = plain(&o, Some((10, "Dot product")), (1, 3));
        println!("{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].ends_with("PASSED"));
        assert_eq!(
            lines[1],
            "  2 tests · 1 global read, 1 global write, 3 shared reads, 1 shared write per thread (within budget)"
        );
        assert_eq!(lines[3], "  Next: gpuzzle run 10   (Dot product)");
        let last = plain(&o, None, (0, 0));
        assert!(last.ends_with("That was the last puzzle. Well done!"));
    }

    #[test]
    fn reference_solution_is_marked() {
        let o = outcome(vec![test_with("t", [1, 0, 0, 0])]);
        colored::control::set_override(false);
        let out = text(&o, None, None, (0, 0), true);
        assert!(out.lines().next().unwrap().contains("(reference solution)"));
        let o = outcome(vec![failing_test("t", false)]);
        let out = text(&o, None, None, (0, 0), true);
        assert!(out.lines().next().unwrap().contains("(reference solution)"));
    }

    #[test]
    fn compile_error_shows_only_nvrtc() {
        let mut o = outcome(vec![]);
        o.passed = false;
        o.compile_error =
            Some("puzzles/09_pooling.cu(5): error: identifier \"x\" is undefined\n".into());
        let out = plain(&o, Some((10, "Dot product")), (3, 3));
        println!("{out}");
        assert!(out.contains("DOES NOT COMPILE"));
        assert!(out.contains("  puzzles/09_pooling.cu(5): error: identifier \"x\" is undefined"));
        assert!(!out.contains("memory per thread"));
        assert!(!out.contains("test \""));
        assert!(out.ends_with("Stuck? gpuzzle hint 9   (all 3 hints shown)"));
    }

    #[test]
    fn a_missing_kernel_is_one_error_without_tests_or_table() {
        let mut o = outcome(vec![]);
        o.passed = false;
        o.missing_kernel = Some("pooling".into());
        o.compile_error = Some(
            "puzzles/09_pooling.cu has no kernel `pooling`; it defines `pool`: rename it back"
                .into(),
        );
        let out = plain(&o, None, (0, 3));
        assert!(
            out.lines()
                .next()
                .unwrap_or("")
                .ends_with("KERNEL NOT FOUND"),
            "{out}"
        );
        assert!(!out.contains("DOES NOT COMPILE"), "{out}");
        assert!(
            out.contains("\n\n  error: puzzles/09_pooling.cu has no kernel `pooling`; it defines `pool`: rename it back\n\n"),
            "{out}"
        );
        assert!(!out.contains("memory per thread"), "{out}");
    }

    /// Each located error once, over its source line with the token marked; the heading that
    /// repeats "does not compile" is not shown again.
    #[test]
    fn compile_errors_are_drawn_over_the_source_once() {
        let mut o = outcome(vec![]);
        o.passed = false;
        o.compile_error = Some(
            "puzzles/09_pooling.cu does not compile\n  puzzles/09_pooling.cu:4:27: error: identifier \"q\" is undefined\n  other.h:2: error: bad thing\nargument types are: (int)".into(),
        );
        let out = plain(&o, None, (0, 3));
        println!("{out}");
        assert_eq!(out.matches("does not compile").count(), 0);
        assert_eq!(out.matches("DOES NOT COMPILE").count(), 1);
        assert_eq!(out.matches("identifier \"q\" is undefined").count(), 1);
        assert!(out.contains("--> puzzles/09_pooling.cu:4:27"));
        let code = out
            .lines()
            .find(|l| l.contains("shared[threadIdx.x] = a[i];"))
            .unwrap();
        let carets = out.lines().find(|l| l.contains('^')).unwrap();
        // The caret is under column 27 of line 4: `a` of `a[i]`, one character.
        let col = code.find("a[i]").unwrap();
        assert_eq!(carets.find('^'), Some(col));
        assert_eq!(carets.matches('^').count(), 1);
        // A header NVRTC names is not shown with lines of the kernel file.
        assert!(out.contains("--> other.h:2"));
        assert!(out.contains("note: argument types are: (int)"));
    }

    #[test]
    fn over_budget_only_says_output_was_correct() {
        let mut t = test_with("one block", [3, 1, 0, 0]);
        t.passed = false;
        t.budget.global_reads = Some(1);
        t.over_budget.push(OverBudget {
            counter: "global_reads",
            used: 3,
            budget: 1,
            thread: ThreadId {
                block: [0; 3],
                thread: [5, 0, 0],
            },
            ..OverBudget::default()
        });
        let out = plain(&outcome(vec![t]), None, (0, 2));
        println!("{out}");
        let row = out.lines().find(|l| l.contains("global reads")).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cells,
            ["global", "reads", "3", "1", "thread", "5", "of", "block", "0"]
        );
        assert!(!out.contains("\n\n\n"));
        assert!(out.contains(
            "Correct output, but 3 global reads per thread where the budget allows 1 (thread 5 of block 0)."
        ));
        assert!(!out.contains("in test"));
        // No lines found: no snippet.
        assert!(!out.contains("over-budget"), "{out}");
    }

    fn over(counter: &'static str, used: u64, budget: u64, thread: u32) -> OverBudget {
        OverBudget {
            counter,
            used,
            budget,
            thread: ThreadId {
                block: [0; 3],
                thread: [thread, 0, 0],
            },
            ..OverBudget::default()
        }
    }

    /// Issue 23: the summary named the first test's figure (8 writes) under a table that
    /// showed the largest (11), with another thread.
    #[test]
    fn the_summary_names_the_figure_and_thread_the_table_marks() {
        let mut tests = Vec::new();
        for (name, used, thread) in [("small", 8, 3), ("large", 11, 6), ("large (random)", 11, 7)] {
            let mut t = test_with(name, [20, used, 0, 0]);
            t.passed = false;
            t.budget.global_reads = Some(20);
            t.budget.global_writes = Some(1);
            t.over_budget.push(over("global_writes", used, 1, thread));
            tests.push(t);
        }
        // A second counter over budget in one test only.
        tests[0].counters.global_reads = 21;
        tests[0]
            .over_budget
            .insert(0, over("global_reads", 21, 20, 2));
        let out = plain(&outcome(tests), None, (0, 2));
        println!("{out}");
        let row = |label: &str| {
            let row = out.lines().find(|l| l.contains(label)).unwrap();
            row.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        assert_eq!(
            row("global writes"),
            "global writes 11 1 thread 6 of block 0"
        );
        assert_eq!(
            row("global reads"),
            "global reads 21 20 thread 2 of block 0"
        );
        assert!(
            out.contains(
                "Correct output, but 21 global reads per thread where the budget allows 20 \
                 (thread 2 of block 0), and 11 global writes per thread where the budget allows 1 \
                 (thread 6 of block 0)."
            ),
            "{out}"
        );
    }

    #[test]
    fn an_overrun_is_drawn_over_the_lines_that_made_it() {
        let line = |line: u32, count: u64, cells: &[&str], file: &str| LineUse {
            file: Some(file.into()),
            line: Some(line),
            count,
            cells: cells.iter().map(|c| c.to_string()).collect(),
            distinct: cells.len(),
        };
        let mut t = test_with("one block", [3, 1, 0, 0]);
        t.passed = false;
        t.budget.global_reads = Some(1);
        let mut ob = over("global_reads", 3, 1, 2);
        ob.lines = vec![
            line(4, 1, &["a[2]"], "puzzles/09_pooling.cu"),
            line(5, 2, &["a[1]", "shared[0]"], "puzzles/09_pooling.cu"),
            line(7, 1, &["a[0]"], "include/helpers.cuh"),
        ];
        t.over_budget.push(ob);
        let o = outcome(vec![t]);
        colored::control::set_override(false);
        let out = text(&o, Some(SRC), None, (0, 2), false);
        println!("{out}");
        assert!(
            out.contains("error[over-budget]: thread 2 of block 0 made 3 global reads where the budget allows 1"),
            "{out}"
        );
        let marked = |code: &str, label: &str| {
            let at = out.lines().position(|l| l.contains(code)).unwrap();
            let under = out.lines().nth(at + 1).unwrap();
            assert!(under.trim_end().ends_with(label), "{under}");
        };
        marked("shared[threadIdx.x] = a[i];", "1 read: a[2]");
        marked("out[i] = shared[threadIdx.x]", "2 reads: a[1], shared[0]");
        // A line of another file is said, not drawn from the wrong source.
        assert!(out.contains("note: helpers.cuh:7: 1 read: a[0]"), "{out}");
        // The `-->` names line 5, which makes the most of the reads, not line 4, the first.
        assert!(out.contains("--> puzzles/09_pooling.cu:5"), "{out}");
        assert!(!out.contains("--> puzzles/09_pooling.cu:4"), "{out}");
        // Another shape: the heavy line first in the file, a light one after it.
        let mut t = test_with("one block", [3, 1, 0, 0]);
        t.passed = false;
        t.budget.global_reads = Some(1);
        let mut ob = over("global_reads", 5, 1, 2);
        ob.lines = vec![
            line(4, 4, &["a[2]", "a[3]"], "puzzles/09_pooling.cu"),
            line(5, 1, &["a[1]"], "puzzles/09_pooling.cu"),
        ];
        t.over_budget.push(ob);
        let out = text(&outcome(vec![t]), Some(SRC), None, (0, 2), false);
        assert!(out.contains("--> puzzles/09_pooling.cu:4"), "{out}");
        // Equal counts (one element read on two lines): the second read is the extra one.
        let mut t = test_with("one block", [3, 1, 0, 0]);
        t.passed = false;
        t.budget.global_reads = Some(1);
        let mut ob = over("global_reads", 2, 1, 2);
        ob.lines = vec![
            line(4, 1, &["a[2]"], "puzzles/09_pooling.cu"),
            line(5, 1, &["a[2]"], "puzzles/09_pooling.cu"),
        ];
        t.over_budget.push(ob);
        let out = text(&outcome(vec![t]), Some(SRC), None, (0, 2), false);
        assert!(out.contains("--> puzzles/09_pooling.cu:5"), "{out}");
    }

    #[test]
    fn errors_printf_and_2d_outputs_appear_in_detail() {
        let mut t = failing_test("grid", false);
        t.error = Some("unsupported instruction `tex.2d` at line 7".into());
        t.stdout = (0..30).map(|i| format!("line {i}\n")).collect();
        t.outputs.insert(
            "out2".into(),
            OutputCompare {
                expected: vec![1.0, 2.0, 3.0, 4.0],
                got: vec![1.0, 2.0, 3.0, 5.0],
                mismatches: vec![3],
                shape: Some([2, 2]),
                ..Default::default()
            },
        );
        let out = plain(&outcome(vec![t]), None, (0, 1));
        println!("{out}");
        assert!(out.contains("stopped: unsupported instruction `tex.2d` at line 7"));
        assert!(out.contains("out2: 1 of 4 elements differ"));
        assert!(out.contains("5*"));
        assert!(out.contains("line 19\n"));
        assert!(!out.contains("line 20\n"));
        assert!(out.contains("… 10 more lines"));
    }

    #[test]
    fn many_distinct_diagnostics_are_capped() {
        let mut t = failing_test("t", false);
        t.diagnostics = (1..=8)
            .map(|l| Diagnostic {
                line: Some(l),
                ..race(1)
            })
            .collect();
        let out = plain(&outcome(vec![t]), None, (0, 1));
        assert_eq!(out.matches("error[shared-race]").count(), MAX_DIAGNOSTICS);
        assert!(out.contains("… and 3 more diagnostics"));
    }
}
