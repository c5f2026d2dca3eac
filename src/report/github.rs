//! `check --format github`: GitHub Actions workflow commands (`::error file=...,line=...::...`)
//! that put each failure at the learner's line in a pull request or job view, and a markdown
//! summary for `$GITHUB_STEP_SUMMARY`.

use super::{layout, reason};
use crate::emu::result::Severity;
use crate::judge::outcome::PuzzleOutcome;
use crate::puzzle::PerfKind;
use std::fmt::Write;

/// One annotation before escaping.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Annotation {
    level: &'static str,
    file: String,
    line: Option<u32>,
    col: Option<u32>,
    title: String,
    message: String,
}

/// GitHub shows at most this many annotations of each level (error, warning, notice) per step;
/// the rest are dropped unseen, so gpuzzle drops them itself and says how many.
pub const SHOWN_PER_LEVEL: usize = 10;

/// Every annotation of the graded puzzles, one workflow command per line. The same finding in
/// several tests (a fixed test and its random-input variant, say) is one annotation naming
/// the tests. Untouched starters are "not started": one line lists them, with no annotations,
/// so the puzzle the learner is on is not cut off by GitHub's per-step limit; the failing
/// puzzles the learner has worked on come first (in puzzle order), then the others' warnings,
/// at most [`SHOWN_PER_LEVEL`] of each level.
pub fn annotations(outcomes: &[PuzzleOutcome]) -> String {
    let mut out = String::new();
    let worked_on_failing = outcomes.iter().filter(|o| !o.passed && !o.not_started);
    let others = outcomes.iter().filter(|o| o.passed);
    let mut shown: Vec<(&str, usize)> = Vec::new();
    let mut dropped = 0usize;
    for o in worked_on_failing.chain(others) {
        for (a, tests, detail) in puzzle_annotations(o) {
            let count = match shown.iter_mut().find(|(level, _)| *level == a.level) {
                Some((_, n)) => n,
                None => {
                    shown.push((a.level, 0));
                    &mut shown.last_mut().expect("just pushed").1
                }
            };
            if *count == SHOWN_PER_LEVEL {
                dropped += 1;
                continue;
            }
            *count += 1;
            let mut message = a.message.clone();
            if let Some(d) = detail {
                message.push_str(&d);
            }
            if !tests.is_empty() {
                let noun = if tests.len() == 1 { "test" } else { "tests" };
                let _ = write!(message, " ({noun} {})", quoted_list(&tests));
            }
            let _ = write!(out, "::{} file={}", a.level, escape_property(&a.file));
            if let Some(l) = a.line {
                let _ = write!(out, ",line={l}");
            }
            if let Some(c) = a.col {
                let _ = write!(out, ",col={c}");
            }
            let _ = writeln!(
                out,
                ",title={}::{}",
                escape_property(&a.title),
                escape_data(&message)
            );
        }
    }
    if dropped > 0 {
        let _ = writeln!(
            out,
            "gpuzzle: {dropped} more finding(s) not annotated (GitHub shows {SHOWN_PER_LEVEL} of each kind per step): run `gpuzzle check` to see them all"
        );
    }
    let not_started: Vec<String> = (outcomes.iter().filter(|o| o.not_started))
        .map(|o| o.id.to_string())
        .collect();
    if !not_started.is_empty() {
        let _ = writeln!(
            out,
            "gpuzzle: {} not started (the starter as shipped, not annotated): {}",
            not_started.len(),
            not_started.join(", ")
        );
    }
    let passed = outcomes.iter().filter(|o| o.passed).count();
    let _ = writeln!(out, "gpuzzle: {passed} of {} puzzles pass", outcomes.len());
    out
}

/// A warning at each workspace puzzle file that `check --pack builtin` did not use.
pub fn pin_notes(notes: &[crate::puzzle::pin::PinNote]) -> String {
    let mut out = String::new();
    for n in notes {
        let file = n.file.display().to_string();
        let _ = writeln!(
            out,
            "::warning file={},title={}::{}",
            escape_property(&file),
            escape_property("puzzle file not used (the pack is pinned)"),
            escape_data(&format!("{file} {}", n.message))
        );
    }
    out
}

/// An annotation, the tests it was seen in (in order, no repeats), and a detail of its first
/// sighting (which elements differed) that does not keep later tests from joining it.
type Found = (Annotation, Vec<String>, Option<String>);

/// The annotations of one puzzle.
fn puzzle_annotations(o: &PuzzleOutcome) -> Vec<Found> {
    let title = |what: &str| format!("Puzzle {} ({}): {what}", o.id, o.slug);
    // An error on the learner's file, at `line` when one is known.
    let error = |line: Option<u32>, what: &str, message: String| Annotation {
        level: "error",
        file: o.file.clone(),
        line,
        col: None,
        title: title(what),
        message,
    };
    let mut found: Vec<Found> = Vec::new();
    let mut add = |a: Annotation, test: Option<&str>, detail: Option<String>| {
        let tests = match found.iter_mut().find(|(b, _, _)| *b == a) {
            Some((_, tests, _)) => tests,
            None => {
                found.push((a, Vec::new(), detail));
                &mut found.last_mut().expect("just pushed").1
            }
        };
        if let Some(t) = test {
            if !tests.iter().any(|x| x == t) {
                tests.push(t.to_string());
            }
        }
    };
    // NVRTC's located messages: the compile errors, or the warnings of a kernel that compiled.
    let log = match &o.compile_error {
        Some(log) => log.clone(),
        None => o.warnings.join("\n"),
    };
    let located = compiler_lines(&log);
    // A puzzle file that could not be loaded carries its errors as a compile log does.
    let error_title = if o.broken_puzzle_file {
        "broken puzzle file"
    } else if o.missing_kernel.is_some() {
        "kernel not found"
    } else {
        "does not compile"
    };
    if o.compile_error.is_some() && located.is_empty() {
        add(error(None, error_title, first_line(&log)), None, None);
    }
    for (level, file, line, col, text) in located {
        let what = if level == "error" {
            error_title
        } else {
            "compiler warning"
        };
        let a = Annotation {
            level,
            file,
            line: Some(line),
            col,
            title: title(what),
            message: text,
        };
        add(a, None, None);
    }
    if o.compile_error.is_some() {
        return found;
    }
    if o.tests.is_empty() && !o.passed {
        add(error(None, "not graded", reason::puzzle(o)), None, None);
    }
    if let Some(m) = o.unseen_message() {
        add(error(None, "a size is probably hard-coded", m), None, None);
    }
    for t in &o.tests {
        let test = Some(base_name(&t.name));
        for d in &t.diagnostics {
            let a = Annotation {
                level: match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                file: d.file.clone().unwrap_or_else(|| o.file.clone()),
                ..error(d.line, d.kind.as_str(), layout::strip_ansi(&d.message))
            };
            add(a, test, None);
        }
        if t.passed {
            continue;
        }
        if let Some(e) = &t.error {
            add(
                error(None, "the test stopped", layout::strip_ansi(e)),
                test,
                None,
            );
        }
        for (name, c) in &t.outputs {
            if c.mismatches.is_empty() && c.got.len() == c.expected.len() {
                continue;
            }
            let first = c.mismatches.first().map_or(String::new(), |&i| {
                format!(
                    "; first at {name}[{i}]: expected {}, got {}",
                    c.expected.get(i).copied().unwrap_or_default(),
                    c.got.get(i).copied().unwrap_or_default()
                )
            });
            let detail = format!(
                ": {} of {} elements{first}",
                c.mismatches.len(),
                c.expected.len()
            );
            let message = format!("`{name}` differs from the spec");
            add(error(None, "wrong output", message), test, Some(detail));
        }
        // A perf overrun is also an `OverBudget` (its key as the counter): annotated below, at
        // its worst line.
        for over in t.over_budget.iter().filter(|b| !is_perf_key(b.counter)) {
            let message = format!(
                "{} {} per thread where the budget allows {}",
                over.used,
                over.counter.replace('_', " "),
                over.budget
            );
            add(error(None, "over budget", message), test, None);
        }
        // A block limit broken: over `block_budget` at the line that made most of the
        // accesses (the puzzle file's level when none was found); under `require`, no line
        // made the access.
        for b in &t.block_overruns {
            let what = b.counter.replace('_', " ");
            let (title, message, line) = match b.limit_kind {
                crate::judge::outcome::BlockLimitKind::Budget => (
                    "over the block budget",
                    format!(
                        "{} {what} in block {} (all its threads) where the block budget allows {}",
                        b.used,
                        layout::coord(b.block),
                        b.limit
                    ),
                    (b.lines.iter()).max_by_key(|l| l.count).and_then(|l| l.line),
                ),
                crate::judge::outcome::BlockLimitKind::Require => (
                    "required access missing",
                    match b.warp {
                        None => format!(
                            "{} {what} in block {} where the puzzle requires at least {} in every block: its lesson needs that access",
                            b.used,
                            layout::coord(b.block),
                            b.limit
                        ),
                        Some(_) => format!(
                            "{} {what} in {} where the puzzle requires at least {} in every warp with work (one that reads or writes global memory): its lesson needs that access",
                            b.used,
                            layout::limit_place(b.block, b.warp),
                            b.limit
                        ),
                    },
                    None,
                ),
            };
            add(error(line, title, message), test, None);
        }
        for p in t.perf.iter().filter(|p| p.over()) {
            let message = format!(
                "{} {:.1} at this line where the budget allows {}",
                p.kind.label(),
                p.value,
                p.budget.unwrap_or_default()
            );
            let a = Annotation {
                file: p.file.clone().unwrap_or_else(|| o.file.clone()),
                ..error(p.line, "over the performance budget", message)
            };
            add(a, test, None);
        }
    }
    found
}

/// Whether an `OverBudget` counter is a performance figure's key (`sectors_per_access`).
fn is_perf_key(counter: &str) -> bool {
    PerfKind::ALL.iter().any(|k| k.key() == counter)
}

/// `out[i] (random inputs)` and `out[i]` are the same test for an annotation's list.
fn base_name(name: &str) -> &str {
    name.strip_suffix(" (random inputs)").unwrap_or(name)
}

fn quoted_list(tests: &[String]) -> String {
    tests
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_line(text: &str) -> String {
    layout::strip_ansi(text.lines().next().unwrap_or_default())
}

type Located = (&'static str, String, u32, Option<u32>, String);

/// The `FILE:LINE[:COL]: error|warning: TEXT` lines of a compile log (gpuzzle's form of
/// NVRTC's messages).
fn compiler_lines(log: &str) -> Vec<Located> {
    let mut found = Vec::new();
    for raw in log.lines() {
        let line = layout::strip_ansi(raw);
        let line = line.trim();
        for (marker, level) in [(": error: ", "error"), (": warning: ", "warning")] {
            let Some(at) = line.find(marker) else {
                continue;
            };
            let place = &line[..at];
            let text = line[at + marker.len()..].to_string();
            let mut parts = place.rsplitn(3, ':');
            let (a, b, c) = (parts.next(), parts.next(), parts.next());
            let parsed = match (a, b, c) {
                (Some(col), Some(l), Some(file)) => match (l.parse(), col.parse()) {
                    (Ok(l), Ok(col)) => Some((file.to_string(), l, Some(col))),
                    _ => None,
                },
                _ => None,
            }
            .or_else(|| {
                let (file, l) = place.rsplit_once(':')?;
                Some((file.to_string(), l.parse().ok()?, None))
            });
            if let Some((file, l, col)) = parsed {
                found.push((level, file, l, col, text));
            }
            break;
        }
    }
    found
}

/// GitHub's escaping of a command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping of a command's property values.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The markdown summary: one row per puzzle with its tests, budgets and verdict.
pub fn summary(outcomes: &[PuzzleOutcome], solutions: bool) -> String {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    let mut out = format!(
        "## gpuzzle: {passed} of {} puzzles pass{}\n\n| # | puzzle | tests passed | budgets | result |\n| --: | --- | --: | --- | --- |\n",
        outcomes.len(),
        if solutions {
            " (reference solutions)"
        } else {
            ""
        }
    );
    for o in outcomes {
        let tests = if o.compile_error.is_some() || o.tests.is_empty() {
            "–".to_string()
        } else {
            format!(
                "{}/{}",
                o.tests.iter().filter(|t| t.passed).count(),
                o.tests.len()
            )
        };
        // Each budget over in any test, once, in the order first seen.
        let mut over: Vec<String> = Vec::new();
        for t in &o.tests {
            let counters = t
                .over_budget
                .iter()
                .filter(|b| !is_perf_key(b.counter))
                .map(|b| b.counter.replace('_', " "));
            let perf = t
                .perf
                .iter()
                .filter(|p| p.over())
                .map(|p| p.kind.label().to_string());
            let blocks = (t.block_overruns.iter()).map(|b| match b.limit_kind {
                crate::judge::outcome::BlockLimitKind::Budget => {
                    format!("{} per block", b.counter.replace('_', " "))
                }
                crate::judge::outcome::BlockLimitKind::Require if b.warp.is_some() => {
                    format!("required {} per warp", b.counter.replace('_', " "))
                }
                crate::judge::outcome::BlockLimitKind::Require => {
                    format!("required {}", b.counter.replace('_', " "))
                }
            });
            for name in counters.chain(perf).chain(blocks) {
                if !over.contains(&name) {
                    over.push(name);
                }
            }
        }
        let budgets = if o.tests.is_empty() {
            "–".to_string()
        } else if over.is_empty() {
            "within budget".to_string()
        } else {
            format!("over: {}", over.join(", "))
        };
        let result = if o.passed {
            "✅ pass".to_string()
        } else if o.not_started {
            "⏸ not started".to_string()
        } else {
            format!("❌ {}", markdown_cell(&reason::puzzle(o)))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {tests} | {budgets} | {result} |",
            o.id, o.slug
        );
    }
    out
}

/// Text safe inside a markdown table cell: one line, no column breaks.
fn markdown_cell(s: &str) -> String {
    layout::strip_ansi(s)
        .lines()
        .next()
        .unwrap_or_default()
        .replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped_as_github_reads_them() {
        assert_eq!(escape_data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(
            escape_property("a:b,c%"),
            "a%3Ab%2Cc%25",
            "colons and commas would end a property"
        );
    }

    #[test]
    fn compile_logs_give_file_line_and_column() {
        let log = "puzzles/01_map.cu does not compile\n  puzzles/01_map.cu:5:12: error: identifier \"x\" is undefined\n  puzzles/01_map.cu:7: warning: variable \"y\" was declared but never referenced\nsome note";
        let found = compiler_lines(log);
        assert_eq!(
            found,
            [
                (
                    "error",
                    "puzzles/01_map.cu".to_string(),
                    5,
                    Some(12),
                    "identifier \"x\" is undefined".to_string()
                ),
                (
                    "warning",
                    "puzzles/01_map.cu".to_string(),
                    7,
                    None,
                    "variable \"y\" was declared but never referenced".to_string()
                )
            ]
        );
    }

    #[test]
    fn random_variants_fold_into_their_fixed_test() {
        assert_eq!(base_name("8 elements (random inputs)"), "8 elements");
        assert_eq!(base_name("8 elements"), "8 elements");
    }

    /// A failed verdict on puzzle `id` whose kernel did not compile, at `lines` of its file.
    fn broken(id: u32, lines: &[u32]) -> PuzzleOutcome {
        let log: Vec<String> = (lines.iter())
            .map(|l| format!("  puzzles/{id:02}_p.cu:{l}:1: error: expected a \";\""))
            .collect();
        PuzzleOutcome {
            id,
            slug: format!("p{id}"),
            file: format!("puzzles/{id:02}_p.cu"),
            compile_error: Some(format!("does not compile\n{}", log.join("\n"))),
            ..Default::default()
        }
    }

    #[test]
    fn untouched_starters_are_listed_not_annotated() {
        let mut starter = broken(2, &[4]);
        starter.not_started = true;
        let out = annotations(&[broken(1, &[3]), starter, broken(3, &[5])]);
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error")).collect();
        assert_eq!(errors.len(), 2, "{out}");
        assert!(errors.iter().all(|l| !l.contains("02_p.cu")), "{out}");
        assert!(
            out.ends_with(
                "gpuzzle: 1 not started (the starter as shipped, not annotated): 2\ngpuzzle: 0 of 3 puzzles pass\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn worked_on_failures_come_first_and_no_more_than_github_shows() {
        // Puzzle 1 with 12 errors, puzzle 2 with 1: GitHub would show the first 10 only.
        let many: Vec<u32> = (1..=12).collect();
        let out = annotations(&[broken(1, &many), broken(2, &[7])]);
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error")).collect();
        assert_eq!(errors.len(), SHOWN_PER_LEVEL, "{out}");
        assert!(errors[0].contains("01_p.cu,line=1,"), "{out}");
        assert!(
            out.contains(
                "gpuzzle: 3 more finding(s) not annotated (GitHub shows 10 of each kind per step)"
            ),
            "{out}"
        );
        assert!(out.ends_with("gpuzzle: 0 of 2 puzzles pass\n"), "{out}");
    }
}
