//! One output buffer against the spec: a table of the elements around each difference, or for
//! a 2D buffer the expected and the actual grids. Differences are red and, so they still show
//! without colour (CI logs, JUnit), marked: `✗` at the end of a row, `*` after a cell.

use super::layout::{self, WIDTH};
use super::number::Style;
use crate::judge::outcome::{OutputCompare, TestInput};
use colored::Colorize;
use std::collections::BTreeSet;

/// Arrays this long or shorter are shown whole.
const SHOW_ALL: usize = 20;
/// Elements shown on each side of a difference.
const AROUND: usize = 2;
/// Stop opening new windows once this many rows are shown.
const MAX_ROWS: usize = 24;
/// The largest part of a 2D buffer shown as a grid.
const GRID_ROWS: usize = 10;
const GRID_COLS: usize = 8;
/// Spaces between the expected and the got grid.
const SIDE_GAP: usize = 6;

/// Input elements shown beside a differing output without `--verbose`.
const INPUT_PREVIEW: usize = 8;

/// The failing test's inputs, in the kernel's parameter order: `inputs: a = [0, 1, 2, 3, 4,
/// 5, 6, 7, …] (100 elements), size = 100`; with `all`, every element. One line when it fits
/// the width, else one input a line under the first, a long list wrapped under its `[`.
/// `None` when the test has none.
pub(crate) fn inputs(inputs: &[TestInput], all: bool) -> Option<String> {
    if inputs.is_empty() {
        return None;
    }
    let head = "inputs:";
    let parts: Vec<Vec<String>> = inputs.iter().map(|i| input(i, all)).collect();
    let one_line = parts
        .iter()
        .map(|p| p.join(" "))
        .collect::<Vec<_>>()
        .join(", ");
    let fits = parts.iter().all(|p| p.len() == 1);
    if fits && head.len() + 1 + one_line.chars().count() <= WIDTH {
        return Some(format!("{} {one_line}", head.bold()));
    }
    let pad = " ".repeat(head.len() + 1);
    let lines: Vec<String> = parts
        .iter()
        .flat_map(|p| p.iter().map(|l| format!("{pad}{l}")))
        .collect();
    let text = lines.join("\n");
    Some(format!("{}{}", head.bold(), &text[head.len()..]))
}

/// One input's lines: `size = 100`, or `a = [0, 1, …] (100 elements)` wrapped to the width.
fn input(i: &TestInput, all: bool) -> Vec<String> {
    let values = i.values.to_vec();
    let style = Style::of(&values);
    if i.scalar {
        let value = values.first().map_or("-".to_string(), |&v| style.text(v));
        return vec![format!("{} = {value}", i.name)];
    }
    let shown = if all {
        values.len()
    } else {
        values.len().min(INPUT_PREVIEW)
    };
    let mut cells: Vec<String> = values[..shown].iter().map(|&v| style.text(v)).collect();
    let more = shown < values.len();
    if more {
        cells.push("…".to_string());
    }
    let tail = match values.len() {
        n if more || n > INPUT_PREVIEW => format!(" ({n} elements)"),
        _ => String::new(),
    };
    // Wrapped under the `[`: room left after `inputs: ` and `name = [`.
    let lead = format!("{} = [", i.name);
    let room = WIDTH
        .saturating_sub("inputs: ".len() + lead.chars().count())
        .max(16);
    let mut lines: Vec<String> = vec![];
    let mut line = String::new();
    for (k, cell) in cells.iter().enumerate() {
        let piece = if k + 1 < cells.len() {
            format!("{cell}, ")
        } else {
            format!("{cell}]")
        };
        if !line.is_empty() && line.chars().count() + piece.trim_end().chars().count() > room {
            lines.push(line.trim_end().to_string());
            line = String::new();
        }
        line.push_str(&piece);
    }
    if cells.is_empty() {
        line.push(']');
    }
    lines.push(line);
    let indent = " ".repeat(lead.chars().count());
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let start = if k == 0 {
                lead.as_str()
            } else {
                indent.as_str()
            };
            let end = if k == last { tail.as_str() } else { "" };
            format!("{start}{l}{end}")
        })
        .collect()
}

/// `out: 3 of 8 elements differ` and the elements that show it.
pub(crate) fn output(name: &str, c: &OutputCompare) -> String {
    let len = c.expected.len().max(c.got.len());
    let wrong: BTreeSet<usize> = c.mismatches.iter().copied().filter(|&i| i < len).collect();
    let mut head = format!("{name}: {} of {len} elements differ", wrong.len());
    if c.expected.len() != c.got.len() {
        head += &format!(
            " (expected {} elements, got {})",
            c.expected.len(),
            c.got.len()
        );
    }
    let body = match c.shape {
        Some([rows, cols]) if rows * cols == len && len > 0 => grids(c, rows, cols, &wrong),
        _ => table(c, &wrong),
    };
    format!("{}\n{}", head.bold(), layout::indent(&body, "  "))
}

/// Which elements to show: all of a short array, else a window around each difference.
fn visible_rows(len: usize, wrong: &BTreeSet<usize>) -> BTreeSet<usize> {
    if len <= SHOW_ALL {
        return (0..len).collect();
    }
    let mut rows = BTreeSet::new();
    for &m in wrong {
        if rows.len() >= MAX_ROWS {
            break;
        }
        rows.extend(m.saturating_sub(AROUND)..(m + AROUND + 1).min(len));
    }
    if rows.is_empty() {
        rows.extend(0..SHOW_ALL.min(len));
    }
    rows
}

fn cell(values: &[f64], i: usize, style: Style) -> String {
    values.get(i).map_or("-".to_string(), |&v| style.text(v))
}

/// `i  expected  got` rows, `…` where rows are skipped, a count of differences not shown.
fn table(c: &OutputCompare, wrong: &BTreeSet<usize>) -> String {
    let len = c.expected.len().max(c.got.len());
    let style = Style::of(c.expected.iter().chain(&c.got));
    let rows = visible_rows(len, wrong);
    let texts: Vec<(usize, String, String)> = rows
        .iter()
        .map(|&i| (i, cell(&c.expected, i, style), cell(&c.got, i, style)))
        .collect();
    let wi = len.saturating_sub(1).to_string().len().max(1);
    let we = texts.iter().map(|t| t.1.len()).max().unwrap_or(0).max(8);
    let wg = texts.iter().map(|t| t.2.len()).max().unwrap_or(0).max(3);
    let mut lines = vec![
        format!("{:>wi$}   {:>we$}   {:>wg$}", "i", "expected", "got")
            .dimmed()
            .to_string(),
    ];
    let mut next = 0;
    for (i, e, g) in texts {
        if i > next {
            lines.push(format!("{:>wi$}", "…").dimmed().to_string());
        }
        next = i + 1;
        lines.push(if wrong.contains(&i) {
            let row = format!("{i:>wi$}   {e:>we$}   {g:>wg$}   ✗");
            row.red().bold().to_string()
        } else {
            format!("{i:>wi$}   {e:>we$}   {g:>wg$}")
        });
    }
    if next < len {
        lines.push(format!("{:>wi$}", "…").dimmed().to_string());
    }
    let hidden = wrong.iter().filter(|i| !rows.contains(i)).count();
    if hidden > 0 {
        lines.push(format!("and {hidden} more differences not shown"));
    }
    lines.join("\n")
}

/// The part of a `rows × cols` grid to show: all of it when small, else a window that starts
/// a little before the first difference.
fn window(n: usize, max: usize, first: usize) -> std::ops::Range<usize> {
    if n <= max {
        return 0..n;
    }
    let start = first.saturating_sub(max / 2).min(n - max);
    start..start + max
}

/// Expected and got as grids, side by side when they fit, else one above the other.
fn grids(c: &OutputCompare, rows: usize, cols: usize, wrong: &BTreeSet<usize>) -> String {
    let first = wrong.iter().next().copied().unwrap_or(0);
    let style = Style::of(c.expected.iter().chain(&c.got));
    let rr = window(rows, GRID_ROWS, first / cols);
    let w = cell_width(c, style, &rr, &window(cols, GRID_COLS, first % cols), cols);
    // As many columns as let the two grids sit side by side (but at least a few).
    let label = rr.end.saturating_sub(1).to_string().len();
    let fit = ((WIDTH - 2 - SIDE_GAP) / 2).saturating_sub(label) / (w + 2);
    let cc = window(cols, fit.clamp(4, GRID_COLS), first % cols);
    let view = GridView {
        rows: rr.clone(),
        cols: cc.clone(),
        stride: cols,
        width: w,
        style,
    };
    let expected = view.render(&c.expected, &BTreeSet::new());
    let got = view.render(&c.got, wrong);
    let mut out = side_by_side("expected", &expected, "got", &got);
    if rr.len() < rows || cc.len() < cols {
        out += &format!(
            "\nshowing {} and {} of {rows}×{cols}",
            span("row", &rr),
            span("column", &cc)
        );
        let outside = wrong
            .iter()
            .filter(|&&i| !rr.contains(&(i / cols)) || !cc.contains(&(i % cols)))
            .count();
        if outside > 0 {
            let more = layout::count(outside, "more difference", "more differences");
            out += &format!("; {more} outside this view");
        }
    }
    out
}

/// `rows 3–9`, or `row 3` for a single one.
fn span(word: &str, r: &std::ops::Range<usize>) -> String {
    if r.len() == 1 {
        format!("{word} {}", r.start)
    } else {
        format!("{word}s {}–{}", r.start, r.end - 1)
    }
}

/// Widest value text among the cells of a view, expected or got.
fn cell_width(
    c: &OutputCompare,
    style: Style,
    rows: &std::ops::Range<usize>,
    cols: &std::ops::Range<usize>,
    stride: usize,
) -> usize {
    rows.clone()
        .flat_map(|r| cols.clone().map(move |k| r * stride + k))
        .flat_map(|i| [cell(&c.expected, i, style), cell(&c.got, i, style)])
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1)
}

struct GridView {
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    stride: usize,
    width: usize,
    style: Style,
}

impl GridView {
    /// One grid with row and column indices; cells in `wrong` red with a `*`.
    fn render(&self, values: &[f64], wrong: &BTreeSet<usize>) -> Vec<String> {
        let rw = self.rows.end.saturating_sub(1).to_string().len();
        let w = self.width;
        let mut head = " ".repeat(rw);
        for k in self.cols.clone() {
            head += &format!(" {k:>w$} ");
        }
        let mut lines = vec![head.trim_end().dimmed().to_string()];
        for r in self.rows.clone() {
            let mut line = format!("{r:>rw$}").dimmed().to_string();
            for k in self.cols.clone() {
                let i = r * self.stride + k;
                let text = format!("{:>w$}", cell(values, i, self.style));
                line += &if wrong.contains(&i) {
                    format!(" {}", format!("{text}*").red().bold())
                } else {
                    format!(" {text} ")
                };
            }
            lines.push(line.trim_end().to_string());
        }
        lines
    }
}

/// Two titled blocks next to each other when both fit in `WIDTH`, else stacked.
fn side_by_side(ta: &str, a: &[String], tb: &str, b: &[String]) -> String {
    let wa = a
        .iter()
        .map(|l| layout::width(l))
        .max()
        .unwrap_or(0)
        .max(ta.len());
    let wb = b
        .iter()
        .map(|l| layout::width(l))
        .max()
        .unwrap_or(0)
        .max(tb.len());
    const GAP: usize = SIDE_GAP;
    if wa + GAP + wb > WIDTH - 2 {
        return format!("{ta}\n{}\n{tb}\n{}", a.join("\n"), b.join("\n"));
    }
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w - layout::width(s)));
    let mut lines = vec![format!("{}{}{tb}", pad(ta, wa), " ".repeat(GAP))];
    for (x, y) in a.iter().zip(b) {
        lines.push(format!("{}{}{y}", pad(x, wa), " ".repeat(GAP)));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(expected: Vec<f64>, got: Vec<f64>, shape: Option<[usize; 2]>) -> OutputCompare {
        let mismatches = (0..expected.len().max(got.len()))
            .filter(|&i| expected.get(i) != got.get(i))
            .collect();
        OutputCompare {
            expected,
            got,
            mismatches,
            shape,
            ..Default::default()
        }
    }

    fn plain(name: &str, c: &OutputCompare) -> String {
        colored::control::set_override(false);
        output(name, c)
    }

    fn buffer(name: &str, values: Vec<f64>) -> TestInput {
        TestInput {
            name: name.into(),
            values: values.into(),
            scalar: false,
        }
    }

    fn plain_inputs(i: &[TestInput], all: bool) -> String {
        colored::control::set_override(false);
        inputs(i, all).unwrap_or_default()
    }

    #[test]
    fn inputs_show_the_first_elements_and_the_scalars_on_one_line() {
        let size = TestInput {
            name: "size".into(),
            values: vec![100.0].into(),
            scalar: true,
        };
        let a = buffer("a", (0..100).map(f64::from).collect());
        assert_eq!(
            plain_inputs(&[a.clone(), size.clone()], false),
            "inputs: a = [0, 1, 2, 3, 4, 5, 6, 7, …] (100 elements), size = 100"
        );
        // A short buffer is whole, floats as floats; no inputs, no line.
        let b = buffer("b", vec![0.5, -2.0]);
        assert_eq!(plain_inputs(&[b], false), "inputs: b = [0.5, -2.0]");
        assert_eq!(inputs(&[], false), None);
        // Too long for one line: one input a line, under the first.
        let c = buffer("coefficients", vec![1000.0; 8]);
        assert_eq!(
            plain_inputs(&[a.clone(), c, size.clone()], false),
            "inputs: a = [0, 1, 2, 3, 4, 5, 6, 7, …] (100 elements)\n        \
             coefficients = [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000]\n        \
             size = 100"
        );
        // All of them: wrapped under the `[`, within the width.
        let all = plain_inputs(&[a, size], true);
        let lines: Vec<&str> = all.lines().collect();
        assert!(lines[0].starts_with("inputs: a = [0, 1, 2, 3,"), "{all}");
        assert!(lines[1].starts_with("             "), "{all}");
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{all}");
        assert!(
            all.ends_with(" 96, 97,\n             98, 99] (100 elements)\n        size = 100"),
            "{all}"
        );
        assert!(!all.contains('…'), "{all}");
    }

    #[test]
    fn short_arrays_show_every_element_and_mark_differences() {
        let c = compare(vec![0.0, 1.0, 3.0, 6.0], vec![0.0, 1.0, 2.0, 6.5], None);
        let out = plain("out", &c);
        println!("{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "out: 2 of 4 elements differ");
        assert_eq!(lines.len(), 6);
        let row = |i: usize| lines[i + 2].split_whitespace().collect::<Vec<_>>();
        assert_eq!(row(0), ["0", "0.0", "0.0"]);
        assert_eq!(row(2), ["2", "3.0", "2.0", "✗"]);
        assert_eq!(row(3), ["3", "6.0", "6.5", "✗"]);
        assert!(!out.contains('\x1b'));
    }

    #[test]
    fn long_arrays_show_windows_around_differences() {
        let expected: Vec<f64> = (0..1000).map(f64::from).collect();
        let mut got = expected.clone();
        got[500] = -1.0;
        got[503] = -1.0;
        got[900] = -1.0;
        let out = plain("out", &compare(expected, got, None));
        println!("{out}");
        let idx: Vec<String> = out
            .lines()
            .skip(2)
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect();
        let want = "… 498 499 500 501 502 503 504 505 … 898 899 900 901 902 …";
        assert_eq!(idx.join(" "), want);
        assert!(out.lines().any(|l| l.contains("900") && l.ends_with('✗')));
        // Integers stay integers when every value is one.
        assert!(out.contains("  -1"));
    }

    #[test]
    fn very_many_differences_are_counted_not_listed() {
        let expected = vec![1.0; 10_000];
        let got = vec![0.0; 10_000];
        let out = plain("out", &compare(expected, got, None));
        assert!(out.lines().count() < 40);
        assert!(out.starts_with("out: 10000 of 10000 elements differ"));
        assert!(out.contains("more differences not shown"));
    }

    #[test]
    fn unequal_lengths_are_said_and_padded() {
        let out = plain("out", &compare(vec![1.0, 2.0, 3.0], vec![1.0], None));
        println!("{out}");
        assert!(out.contains("(expected 3 elements, got 1)"));
        assert!(out
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["2", "3", "-", "✗"]));
    }

    #[test]
    fn two_d_buffers_show_as_grids_side_by_side() {
        let expected: Vec<f64> = (0..9).map(f64::from).collect();
        let mut got = expected.clone();
        got[4] = 40.0;
        let out = plain("out", &compare(expected, got, Some([3, 3])));
        println!("{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[1].trim_start().starts_with("expected"));
        assert!(lines[1].contains("got"));
        let middle: Vec<&str> = lines[4].split_whitespace().collect();
        assert_eq!(middle, ["1", "3", "4", "5", "1", "3", "40*", "5"]);
        assert_eq!(out.matches('*').count(), 1);
    }

    #[test]
    fn big_grids_show_a_window_near_the_first_difference() {
        let expected: Vec<f64> = (0..64 * 64).map(f64::from).collect();
        let mut got = expected.clone();
        got[40 * 64 + 30] = 0.5;
        got[0] = 0.5;
        let mut c = compare(expected, got, Some([64, 64]));
        c.mismatches = vec![40 * 64 + 30, 0];
        let out = plain("out", &c);
        println!("{out}");
        assert!(out.contains("showing rows 0–9 and columns 0–3 of 64×64"));
        assert!(out.contains("; 1 more difference outside this view"));
        assert!(out.lines().nth(1).unwrap().contains("got"));
        assert!(out.lines().count() < 20);
        // too wide to sit side by side: stacked
        let wide: Vec<f64> = (0..8).map(|i| 1.0e6 + i as f64 + 0.5).collect();
        let out = plain("o", &compare(wide.clone(), wide, Some([1, 8])));
        println!("{out}");
        assert!(out.lines().any(|l| l.trim() == "got"));
        assert!(out.contains("showing row 0 and columns 0–3 of 1×8"));
    }
}
