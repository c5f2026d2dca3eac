//! The screen `gpuzzle watch` draws in a terminal, with ratatui: one page the size of the
//! terminal, redrawn whole after every grade, key and resize, on the alternate screen.
//!
//! ```text
//! Puzzle 11 · 1D convolution  FAILED              run 2 · hint 1 of 3 · 3/35 passed   title
//!   FAIL    test "6 values, filter of 3, one block"  grid 1, block 8                  verdict rows
//!   per thread: global reads 0/2 · global writes 0/1 · shared reads 0/8             counters
//!    shared writes 0/2                                                              (folded)
//! ──────────────────────────────────────────────────────────────────────────────
//!   out: 5 of 6 elements differ                                                     body: scrolls
//!   …
//! ─────────────────────────────────────────────────────────── rows 1–10 of 45 ↓ ─
//! Save puzzles/11_conv_1d.cu to re-run.                                             status
//! h hint · n next · r re-run · l list · s show · ↑↓ PgUp PgDn scroll · q quit       keys
//! ```
//!
//! The title, verdict rows and keys never scroll; the body (the first failing test's diff, then
//! the diagnostics, the memory table and the hints shown) scrolls under them. When the terminal
//! is too short, the body keeps a third of it (at least three rows) and the other parts give
//! way in order: the verdict rows fold into failed ones and a count line, then the rules, the
//! counters, the count line and the status line go; the title and keys go last.
//!
//! The body is `run`'s own report (its colours turned into styles by `ansi`, folded to the width
//! by `wrap`), less its head (redrawn here as the verdict rows) and its closing "Stuck?"/"Next:"
//! lines, which ask for commands where the keys line names keys.
//!
//! The event loop lives in `cli::watch`; this module only lays out and draws.

mod ansi;
mod wrap;

use super::{counters, layout};
use crate::emu::result::Counters;
use crate::judge::outcome::{OverBudget, PerfFigure, PuzzleOutcome, TestOutcome};
use crate::puzzle::{Budget, PerfKind};
use crate::puzzle::{Puzzle, Status};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};
use ratatui::Frame;

/// One grade, ready to draw.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    /// `PASSED`, `FAILED`, `DOES NOT COMPILE`, `KERNEL NOT FOUND` or `ERROR`.
    pub word: &'static str,
    pub passed: bool,
    /// One per test, in the judge's order.
    pub rows: Vec<Row>,
    /// Each counter's use against its budget: one line, or one per kernel.
    pub counters: Vec<CounterLine>,
    /// The report below its head.
    pub body: Vec<Line<'static>>,
}

/// `per thread: global reads 0/2 · …`, folded to the width between figures, not inside one.
#[derive(Clone, Debug)]
pub struct CounterLine {
    /// `per thread:`, or `` `kernel` per thread:``.
    pub head: String,
    /// `global reads 0/2`, each styled (red where over budget).
    pub items: Vec<Span<'static>>,
}

impl CounterLine {
    /// The line as rows at most `width` wide (a figure wider than that alone on its row).
    fn rows(&self, width: usize) -> Vec<Line<'static>> {
        let mut rows = Vec::new();
        let mut row = vec![Span::raw("  "), Span::styled(self.head.clone(), dim())];
        let mut used: usize = row.iter().map(Span::width).sum();
        let mut fresh = true;
        for item in &self.items {
            let sep = if fresh { " " } else { " · " };
            if !fresh && used + sep.len() + item.width() > width {
                rows.push(Line::from(std::mem::take(&mut row)));
                row = vec![Span::raw("   ")];
                used = 3;
            } else {
                row.push(Span::raw(sep));
                used += Span::raw(sep).width();
            }
            row.push(item.clone());
            used += item.width();
            fresh = false;
        }
        rows.push(Line::from(row));
        rows
    }
}

/// A test's row: its verdict and the line that says it.
#[derive(Clone, Debug)]
pub struct Row {
    pub state: RowState,
    pub line: Line<'static>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowState {
    Passed,
    Failed,
    NotRun,
}

impl Verdict {
    /// The screen's view of one grade: `report` is `run`'s text for `o`.
    pub fn new(o: &PuzzleOutcome, report: &str) -> Verdict {
        let word = if o.missing_kernel.is_some() && o.compile_error.is_some() {
            "KERNEL NOT FOUND"
        } else if o.compile_error.is_some() {
            "DOES NOT COMPILE"
        } else if o.passed {
            "PASSED"
        } else {
            "FAILED"
        };
        let ran = o.compile_error.is_none();
        let rows = if ran { test_rows(&o.tests) } else { vec![] };
        let counters = if ran && !o.tests.is_empty() {
            counter_lines(&o.tests)
        } else {
            vec![]
        };
        let mut body = Vec::new();
        if ran && o.tests.is_empty() {
            body.push(Line::styled("  no tests ran", Style::new().fg(Color::Red)));
        }
        for section in report_body(report) {
            if !body.is_empty() {
                body.push(Line::default());
            }
            body.extend(ansi::lines(section));
        }
        Verdict {
            word,
            passed: o.passed,
            rows,
            counters,
            body,
        }
    }

    /// Grading could not start (the file is unreadable, the compiler is missing): `message` says
    /// why, in the body.
    pub fn error(message: &str) -> Verdict {
        Verdict {
            word: "ERROR",
            passed: false,
            rows: vec![],
            counters: vec![],
            body: ansi::lines(message),
        }
    }
}

/// The sections of `run`'s report below its head (title and test rows, drawn here as rows),
/// without the lines that tell the learner to type a command: the keys line names the key.
fn report_body(report: &str) -> impl Iterator<Item = &str> {
    report.split("\n\n").skip(1).filter(|s| {
        let plain = layout::strip_ansi(s);
        let t = plain.trim_start();
        !(t.starts_with("Stuck? ") || t.starts_with("Next: ") || t.starts_with("That was the last"))
    })
}

fn test_rows(tests: &[TestOutcome]) -> Vec<Row> {
    tests
        .iter()
        .map(|t| {
            let (state, word, color) = if t.passed {
                (RowState::Passed, "PASS   ", Color::Green)
            } else if t.not_run.is_some() {
                (RowState::NotRun, "NOT RUN", Color::Yellow)
            } else {
                (RowState::Failed, "FAIL   ", Color::Red)
            };
            let mut name = format!("test \"{}\"", t.name);
            if t.random && !t.name.contains("random") {
                name += " (random inputs)";
            }
            let shape = if t.kernels.is_empty() {
                format!(
                    "grid {}, block {}",
                    layout::dims(t.grid),
                    layout::dims(t.block)
                )
            } else {
                layout::count(t.kernels.len(), "kernel", "kernels")
            };
            Row {
                state,
                line: Line::from(vec![
                    Span::raw("  "),
                    Span::styled(word, Style::new().fg(color).add_modifier(Modifier::BOLD)),
                    Span::raw(format!(" {name}  ")),
                    Span::styled(shape, Style::new().add_modifier(Modifier::DIM)),
                ]),
            }
        })
        .collect()
}

/// `per thread: global reads 0/2 · …`: each counter's most per thread over the tests against
/// its budget, red where the judge found it over; one line per kernel of a multi-launch puzzle.
fn counter_lines(tests: &[TestOutcome]) -> Vec<CounterLine> {
    let mut kernels: Vec<&str> = Vec::new();
    for k in tests.iter().flat_map(|t| &t.kernels) {
        if !kernels.contains(&k.name.as_str()) {
            kernels.push(&k.name);
        }
    }
    if kernels.is_empty() {
        let budgets: Vec<&Budget> = tests.iter().map(|t| &t.budget).collect();
        let over: Vec<&OverBudget> = tests.iter().flat_map(|t| &t.over_budget).collect();
        let perf: Vec<&PerfFigure> = tests.iter().flat_map(|t| &t.perf).collect();
        return vec![counter_line(
            "per thread:".to_string(),
            &counters::max_over(tests),
            &budgets,
            &over,
            &perf,
        )];
    }
    kernels
        .iter()
        .map(|name| {
            let uses: Vec<_> = tests
                .iter()
                .flat_map(|t| t.kernels.iter().filter(|k| k.name == *name))
                .collect();
            let mut max = Counters::default();
            for k in &uses {
                for i in 0..Counters::N {
                    *max.get_mut(i) = max.get(i).max(k.counters.get(i));
                }
            }
            let budgets: Vec<&Budget> = uses.iter().map(|k| &k.budget).collect();
            let over: Vec<&OverBudget> = uses.iter().flat_map(|k| &k.over_budget).collect();
            let perf: Vec<&PerfFigure> = tests
                .iter()
                .flat_map(|t| &t.perf)
                .filter(|p| p.kernel == *name)
                .collect();
            counter_line(
                format!("`{name}` per thread:"),
                &max,
                &budgets,
                &over,
                &perf,
            )
        })
        .collect()
}

fn counter_line(
    head: String,
    max: &Counters,
    budgets: &[&Budget],
    over: &[&OverBudget],
    perf: &[&PerfFigure],
) -> CounterLine {
    let mut spans = Vec::new();
    let item = |spans: &mut Vec<Span<'static>>, label: &str, value: String, is_over: bool| {
        let style = if is_over {
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        spans.push(Span::styled(format!("{label} {value}"), style));
    };
    for (i, label) in counters::LABELS.iter().enumerate() {
        // The tightest budget any test sets on this counter.
        let budget = budgets.iter().filter_map(|b| b.get(i)).min();
        let used = max.get(i);
        // Atomics where used; the instruction families only where a budget names them.
        if i >= 4 && budget.is_none() && (used == 0 || i >= Counters::MEMORY) {
            continue;
        }
        let value = match budget {
            Some(b) => format!("{used}/{b}"),
            None => used.to_string(),
        };
        let is_over = over.iter().any(|o| o.counter == Counters::NAMES[i]);
        item(&mut spans, label, value, is_over);
    }
    for kind in [PerfKind::SectorsPerAccess, PerfKind::BankWays] {
        let figures: Vec<&&PerfFigure> = perf
            .iter()
            .filter(|p| p.kind == kind && p.budget.is_some())
            .collect();
        let Some(worst) = figures.iter().max_by(|a, b| a.value.total_cmp(&b.value)) else {
            continue;
        };
        let label = match kind {
            PerfKind::SectorsPerAccess => "sectors per access",
            PerfKind::BankWays => "bank ways",
        };
        let budget = worst.budget.unwrap_or(0);
        let value = format!("{}/{budget}", counters::perf_value(worst));
        item(&mut spans, label, value, figures.iter().any(|p| p.over()));
    }
    CounterLine { head, items: spans }
}

fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// What the middle of the screen shows.
pub enum View<'a> {
    /// The verdict's body and the hints shown.
    Verdict,
    /// Another page (the task, `s`), scrolled like the body; any other key goes back.
    Page(&'a str),
    /// Every puzzle, to move through and open (`l`).
    List(&'a [ListRow]),
}

/// A puzzle in the `l` list.
#[derive(Clone, Debug)]
pub struct ListRow {
    pub id: u32,
    pub title: String,
    pub status: Status,
    /// The puzzle watch is on.
    pub current: bool,
}

/// Everything the screen shows.
pub struct Screen<'a> {
    pub puzzle: &'a Puzzle,
    /// The kernel file as the learner would type it.
    pub file: &'a str,
    /// Puzzles passed, of how many.
    pub progress: (usize, usize),
    /// How many times this puzzle was graded since `watch` started (a save that changes nothing
    /// does not count).
    pub runs: u32,
    pub verdict: &'a Verdict,
    /// The hints shown so far in this session, in order: each heading (`Hint 1 of 3:`, or
    /// `For what went wrong in your last run (shared-race, line 14):`) and its text.
    pub hints: &'a [(String, String)],
    /// Progressive hints shown in this session, of how many the puzzle has.
    pub hint_count: (usize, usize),
    /// What went wrong, when a `[[mistake]]` hint for the last failure waits for `h`.
    pub mistake: Option<&'a str>,
    /// A one-line note from the last key (e.g. "no more hints").
    pub note: Option<&'a str>,
    pub view: View<'a>,
}

/// Where the scrolling body stands; the event loop keeps one per page and moves `top`, the
/// drawing clamps it and says how tall the body was.
#[derive(Clone, Debug, Default)]
pub struct Scroll {
    /// The first body row shown.
    pub top: usize,
    /// Scroll to this hint (index into `Screen::hints`) at the next draw: the hint just asked
    /// for comes into view.
    pub to_hint: Option<usize>,
    /// Rows of body the last draw showed (a page, for PgUp/PgDn).
    pub page: usize,
}

impl Scroll {
    /// Move by `delta` rows (negative: up); the next draw clamps at the end.
    pub fn by(&mut self, delta: isize) {
        self.to_hint = None;
        self.top = self.top.saturating_add_signed(delta);
    }

    /// A page's worth, less one row kept for context.
    pub fn page_step(&self) -> isize {
        self.page.saturating_sub(1).max(1) as isize
    }
}

/// How many rows each part of the screen gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Plan {
    title: u16,
    /// Verdict rows, the last one a count of the rows left out when not all fit.
    rows: u16,
    counters: u16,
    rule_top: u16,
    body: u16,
    rule_bottom: u16,
    status: u16,
    keys: u16,
}

/// Share `height` rows among the parts: title and keys first, a third of the rest (at least
/// three rows) kept for the body, then the status line, the verdict rows (at least one, as a
/// count), counters, rules, and the remaining verdict rows; the body gets what is left.
fn plan(height: u16, rows: usize, counters: usize) -> Plan {
    let mut p = Plan::default();
    let mut left = height;
    let take = |want: u16, left: &mut u16| {
        let got = want.min(*left);
        *left -= got;
        got
    };
    p.title = take(1, &mut left);
    p.keys = take(1, &mut left);
    let keep = (left / 3).max(3).min(left);
    let mut avail = left - keep;
    p.status = take(1, &mut avail);
    let rows = u16::try_from(rows).unwrap_or(u16::MAX);
    p.rows = take(rows.min(1), &mut avail);
    p.counters = take(u16::try_from(counters).unwrap_or(u16::MAX), &mut avail);
    p.rule_top = take(1, &mut avail);
    p.rule_bottom = take(1, &mut avail);
    p.rows += take(rows.saturating_sub(1), &mut avail);
    p.body = left - (p.status + p.rows + p.counters + p.rule_top + p.rule_bottom);
    p
}

/// Draw the whole screen into `frame`. `scroll` is the current page's (clamped here); `list`
/// the cursor of the `l` list.
pub fn draw(frame: &mut Frame, s: &Screen, scroll: &mut Scroll, list: &mut ListState) {
    let area = frame.area();
    let (w, h) = (area.width, area.height);
    if w == 0 || h == 0 {
        return;
    }
    let rows_wanted = s.verdict.rows.len();
    let counter_rows: Vec<Line<'static>> = (s.verdict.counters.iter())
        .flat_map(|c| c.rows(w as usize))
        .collect();
    let p = plan(h, rows_wanted, counter_rows.len());
    let mut y = area.y;
    let mut next = |n: u16| {
        let r = Rect::new(area.x, y, w, n);
        y += n;
        r
    };
    let title = next(p.title);
    let rows = next(p.rows);
    let counters = next(p.counters);
    let rule_top = next(p.rule_top);
    let body = next(p.body);
    let rule_bottom = next(p.rule_bottom);
    let status = next(p.status);
    let keys = next(p.keys);

    frame.render_widget(Paragraph::new(title_line(s, w)), title);
    frame.render_widget(Paragraph::new(verdict_rows(&s.verdict.rows, p.rows)), rows);
    frame.render_widget(Paragraph::new(counter_rows), counters);

    let (caption, position) = match s.view {
        View::Verdict => {
            let lines = body_rows(s, w as usize);
            let position = show_scrolled(frame, body, &lines.0, &lines.1, scroll);
            (None, position)
        }
        View::Page(text) => {
            let lines = wrap::rows(&ansi::lines(text), w as usize);
            let position = show_scrolled(frame, body, &lines, &[], scroll);
            (None, position)
        }
        View::List(items) => {
            scroll.page = body.height as usize;
            show_list(frame, body, items, list);
            let caption = format!("all puzzles · {} of {} passed", s.progress.0, s.progress.1);
            (Some(caption), None)
        }
    };
    frame.render_widget(Paragraph::new(rule(w, caption.as_deref())), rule_top);
    frame.render_widget(Paragraph::new(rule(w, position.as_deref())), rule_bottom);
    frame.render_widget(Paragraph::new(status_line(s)), status);
    frame.render_widget(Paragraph::new(keys_line(&s.view, w)), keys);
}

/// `Puzzle 11 · 1D convolution  FAILED` on the left, `run 2 · hint 1 of 3 · 3/35 passed` on
/// the right where the width allows (the least useful parts go first).
fn title_line(s: &Screen, width: u16) -> Line<'static> {
    let v = s.verdict;
    let color = if v.passed { Color::Green } else { Color::Red };
    let left = vec![
        Span::styled(
            format!("Puzzle {} · {}", s.puzzle.id, s.puzzle.title),
            bold(),
        ),
        Span::raw("  "),
        Span::styled(v.word, Style::new().fg(color).add_modifier(Modifier::BOLD)),
    ];
    let left_width: usize = left.iter().map(Span::width).sum();
    let mut parts = vec![format!("run {}", s.runs)];
    let (shown, total) = s.hint_count;
    if total > 0 {
        parts.push(if shown == 0 {
            layout::count(total, "hint", "hints")
        } else {
            format!("hint {shown} of {total}")
        });
    }
    parts.push(format!("{}/{} passed", s.progress.0, s.progress.1));
    while !parts.is_empty() {
        let right = parts.join(" · ");
        let right_width = Span::raw(right.as_str()).width();
        if left_width + 2 + right_width <= width as usize {
            let mut spans = left;
            spans.push(Span::raw(
                " ".repeat(width as usize - left_width - right_width),
            ));
            spans.push(Span::styled(right, dim()));
            return Line::from(spans);
        }
        // The run count goes last: it is how a learner sees that a save was graded.
        parts.pop();
    }
    Line::from(left)
}

/// The verdict rows in `n` lines: all of them, or the failed ones first and a count of the rest.
fn verdict_rows(rows: &[Row], n: u16) -> Vec<Line<'static>> {
    let n = n as usize;
    if rows.len() <= n {
        return rows.iter().map(|r| r.line.clone()).collect();
    }
    let failed = rows.iter().filter(|r| r.state != RowState::Passed).count();
    let passed = rows.len() - failed;
    let shown = n.saturating_sub(1);
    let mut order: Vec<&Row> = rows
        .iter()
        .filter(|r| r.state != RowState::Passed)
        .collect();
    order.extend(rows.iter().filter(|r| r.state == RowState::Passed));
    let mut out: Vec<Line<'static>> = order[..shown].iter().map(|r| r.line.clone()).collect();
    let hidden = &order[shown..];
    let hidden_failed = hidden
        .iter()
        .filter(|r| r.state != RowState::Passed)
        .count();
    let text = if shown == 0 {
        format!(
            "  {}: {passed} passed, {failed} failed",
            layout::count(rows.len(), "test", "tests")
        )
    } else {
        format!(
            "  … and {} ({hidden_failed} failed)",
            layout::count(hidden.len(), "more test", "more tests")
        )
    };
    let style = if failed > 0 {
        Style::new().fg(Color::Red)
    } else {
        Style::new().fg(Color::Green)
    };
    out.push(Line::styled(text, style));
    out
}

/// The verdict's body and the hints shown, folded to `width`; and the row each hint starts at.
fn body_rows(s: &Screen, width: usize) -> (Vec<Line<'static>>, Vec<usize>) {
    let mut rows = wrap::rows(&s.verdict.body, width);
    let mut anchors = Vec::new();
    for (heading, text) in s.hints {
        if !rows.is_empty() {
            rows.push(Line::default());
        }
        anchors.push(rows.len());
        let line = Line::from(vec![
            Span::styled(heading.clone(), bold().fg(Color::Cyan)),
            Span::raw(" "),
            Span::raw(text.clone()),
        ]);
        rows.extend(wrap::rows(&[line], width));
    }
    if rows.is_empty() && s.verdict.passed {
        rows.push(Line::styled(
            "  Every test passes.",
            Style::new().fg(Color::Green),
        ));
    }
    (rows, anchors)
}

/// Draw `rows` in `area` from the scroll position (clamped, or at the hint asked for); `rows
/// 1–10 of 45` when they do not all fit.
fn show_scrolled(
    frame: &mut Frame,
    area: Rect,
    rows: &[Line<'static>],
    anchors: &[usize],
    scroll: &mut Scroll,
) -> Option<String> {
    let height = area.height as usize;
    if let Some(i) = scroll.to_hint.take() {
        if let Some(&row) = anchors.get(i) {
            scroll.top = row;
        }
    }
    let max_top = rows.len().saturating_sub(height);
    scroll.top = scroll.top.min(max_top);
    scroll.page = height;
    let shown: Vec<Line<'static>> = rows.iter().skip(scroll.top).take(height).cloned().collect();
    frame.render_widget(Paragraph::new(shown), area);
    if rows.len() <= height || height == 0 {
        return None;
    }
    let last = (scroll.top + height).min(rows.len());
    let arrows = match (scroll.top > 0, last < rows.len()) {
        (true, true) => " ↑↓",
        (true, false) => " ↑",
        (false, true) => " ↓",
        (false, false) => "",
    };
    Some(format!(
        "rows {}–{last} of {}{arrows}",
        scroll.top + 1,
        rows.len()
    ))
}

fn show_list(frame: &mut Frame, area: Rect, items: &[ListRow], state: &mut ListState) {
    let width = items
        .iter()
        .map(|r| Span::raw(r.title.as_str()).width())
        .max()
        .unwrap_or(0);
    let list: Vec<ListItem> = items
        .iter()
        .map(|r| {
            let (word, style) = match r.status {
                Status::Passed => ("passed", Style::new().fg(Color::Green)),
                Status::Failed => ("tried", Style::new().fg(Color::Yellow)),
                Status::NotTried => ("not started", dim()),
            };
            let mark = if r.current { "▶ " } else { "  " };
            let pad = width.saturating_sub(Span::raw(r.title.as_str()).width());
            let mut spans = vec![
                Span::styled(mark, bold()),
                Span::raw(format!("{:>2}  {}{}  ", r.id, r.title, " ".repeat(pad))),
                Span::styled(word, style),
            ];
            if r.current {
                spans.push(Span::styled("  (watching)", dim()));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    // The cursor stays a third of the way from either edge where the list allows: what is
    // around it stays in view as it moves.
    let widget = List::new(list)
        .highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .scroll_padding(area.height as usize / 3);
    frame.render_stateful_widget(widget, area, state);
}

/// A rule across the width, with `caption` at its right end.
fn rule(width: u16, caption: Option<&str>) -> Line<'static> {
    let w = width as usize;
    match caption {
        Some(c) if Span::raw(c).width() + 6 <= w => {
            let cw = Span::raw(c).width();
            Line::styled(format!("{} {c} ──", "─".repeat(w - cw - 4)), dim())
        }
        _ => Line::styled("─".repeat(w), dim()),
    }
}

/// The note from the last key, else what to do next.
fn status_line(s: &Screen) -> Line<'static> {
    if let Some(note) = s.note {
        return Line::styled(note.to_string(), Style::new().fg(Color::Yellow));
    }
    if s.verdict.passed {
        return Line::styled(
            "Passed! Press n for the next puzzle, or keep improving this one.",
            Style::new().fg(Color::Green),
        );
    }
    let mut spans = vec![Span::styled(format!("Save {} to re-run.", s.file), dim())];
    if let Some(what) = s.mistake {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            format!("h: a hint for this mistake ({what})"),
            Style::new().fg(Color::Yellow),
        ));
    }
    Line::from(spans)
}

/// The keys of the view, in full where the width allows, else shorter.
fn keys_line(view: &View, width: u16) -> Line<'static> {
    let forms: &[&str] = match view {
        View::Verdict => &[
            "h hint · n next · r re-run · l list · s show · ↑↓ PgUp PgDn scroll · q quit",
            "h hint · n next · r re-run · l list · s show · q quit",
            "h n r l s ↑↓ q",
        ],
        View::Page(_) => &[
            "↑↓ PgUp PgDn scroll · any other key: back · q quit",
            "↑↓ scroll · other key: back · q quit",
            "↑↓ · back · q",
        ],
        View::List(_) => &[
            "↑↓ PgUp PgDn move · Enter open · Esc or l close · q quit",
            "↑↓ move · Enter open · Esc close · q quit",
            "↑↓ Enter Esc q",
        ],
    };
    let text = forms
        .iter()
        .find(|f| Span::raw(**f).width() <= width as usize)
        .unwrap_or(&forms[forms.len() - 1]);
    Line::styled(text.to_string(), bold())
}

#[cfg(test)]
mod tests;
