//! Text reports folded to the terminal's width, as `watch` folds its screen (`watch/wrap.rs`):
//! a line breaks at its last space that fits (inside a word only where the word alone is wider
//! than the row), so a terminal never cuts a word in two ("FAI / LED"). Continuation rows are
//! indented as the line itself is, past a `= help: ` label or a source line's `12 | ` gutter,
//! so a long help stays one block. Colour escapes take no width and are kept.
//!
//! The width: the terminal's, when stdout is one; else `COLUMNS` when set (a pipe inside a
//! terminal, tests); else none, and text is left as it is (a file or a CI log wraps on its own).

use std::io::IsTerminal;

/// The narrowest row folded to: below it, indentation would leave no room for words.
const MIN_WIDTH: usize = 20;

/// The width stdout's text should fold to, if any.
pub fn stdout_width() -> Option<usize> {
    let from_terminal = std::io::stdout()
        .is_terminal()
        .then(|| crossterm::terminal::size().ok())
        .flatten()
        .map(|(cols, _)| usize::from(cols));
    let from_env = || {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
    };
    from_terminal.or_else(from_env).filter(|&w| w >= MIN_WIDTH)
}

/// `text` folded to stdout's width (unchanged when it has none).
pub fn for_stdout(text: &str) -> String {
    match stdout_width() {
        Some(w) => fold(text, w),
        None => text.to_string(),
    }
}

/// Every line of `text` as rows of at most `width` columns.
pub fn fold(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        fold_line(line, width.max(MIN_WIDTH), &mut out);
    }
    out
}

/// One visible character: its text (with the escapes before it) and whether it is a space.
struct Cell<'a> {
    text: &'a str,
    ch: char,
}

/// The line as cells, each carrying the colour escapes just before it; escapes at the end of
/// the line come back separately.
fn cells(line: &str) -> (Vec<Cell<'_>>, &str) {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < line.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            // CSI: parameters until a final byte in '@'..='~'.
            i += 2;
            while i < line.len() && !(b'@'..=b'~').contains(&bytes[i]) {
                i += 1;
            }
            i = (i + 1).min(line.len());
            continue;
        }
        let Some(ch) = line[i..].chars().next() else {
            break;
        };
        i += ch.len_utf8();
        out.push(Cell {
            text: &line[start..i],
            ch,
        });
        start = i;
    }
    (out, &line[start..])
}

/// Where continuation rows start: after the line's indentation, and past a `= help: ` style
/// label or a `12 | ` gutter when there is one.
fn hanging_indent(cells: &[Cell]) -> usize {
    let visible: String = cells.iter().map(|c| c.ch).collect();
    let lead = visible.len() - visible.trim_start().len();
    let rest = &visible[lead..];
    let label = ["= help: ", "= note: ", "help: ", "hint: ", "note: "]
        .iter()
        .find(|l| rest.starts_with(**l))
        .map(|l| l.len());
    let gutter = rest
        .find("| ")
        .filter(|&at| rest[..at].trim().chars().all(|c| c.is_ascii_digit()))
        .map(|at| {
            let code = &rest[at + 2..];
            at + 2 + (code.len() - code.trim_start().len())
        });
    // Characters, not bytes: the labels and gutters are ASCII, the indentation is spaces.
    lead + label.or(gutter).unwrap_or(0)
}

fn fold_line(line: &str, width: usize, out: &mut String) {
    let (cells, tail) = cells(line);
    if cells.len() <= width {
        out.push_str(line);
        return;
    }
    let hang = hanging_indent(&cells);
    let hang = if hang * 2 < width { hang } else { 0 };
    let mut start = 0;
    let mut first = true;
    while start < cells.len() {
        if !first {
            while start < cells.len() && cells[start].ch == ' ' {
                // A skipped space may carry a colour escape: keep it.
                push_escapes(cells[start].text, out);
                start += 1;
            }
            if start == cells.len() {
                break;
            }
            out.push('\n');
            out.push_str(&" ".repeat(hang));
        }
        let room = if first { width } else { width - hang };
        let mut end = (start + room).min(cells.len());
        let mut next = end;
        if end < cells.len() {
            // Break at the last space of the row past the indentation, if there is one.
            let floor = if first { hang.max(1) } else { start + 1 };
            if let Some(space) = (floor..=end).rev().find(|&i| cells[i].ch == ' ') {
                end = space;
                next = space;
            }
        }
        for c in &cells[start..end] {
            out.push_str(c.text);
        }
        start = next;
        first = false;
    }
    out.push_str(tail);
}

/// Only the escape sequences of a cell's text (its character dropped).
fn push_escapes(text: &str, out: &mut String) {
    let ch_len = text.chars().next_back().map_or(0, char::len_utf8);
    out.push_str(&text[..text.len() - ch_len]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widths(s: &str) -> Vec<usize> {
        s.lines()
            .map(|l| super::super::layout::strip_ansi(l).chars().count())
            .collect()
    }

    #[test]
    fn words_are_never_cut_and_rows_fit() {
        let line = format!("{}FAILED", "puzzle 12 block sum ".repeat(3));
        let folded = fold(&line, 64);
        assert!(widths(&folded).iter().all(|&w| w <= 64), "{folded}");
        assert!(
            folded
                .lines()
                .any(|l| l.trim() == "FAILED" || l.ends_with("FAILED")),
            "{folded}"
        );
        for word in folded.split_whitespace() {
            assert!(
                ["puzzle", "12", "block", "sum", "FAILED"].contains(&word),
                "{folded}"
            );
        }
        // A short line is left exactly as it is.
        assert_eq!(fold("  ok  ", 40), "  ok  ");
    }

    #[test]
    fn help_and_source_lines_hang_under_their_text() {
        let help = format!("   = help: {}", "put the barrier after the loop ".repeat(4));
        let folded = fold(help.trim_end(), 50);
        let rows: Vec<&str> = folded.lines().collect();
        assert!(rows.len() > 2, "{folded}");
        assert!(
            rows[1].starts_with(&" ".repeat(11)) && !rows[1].starts_with(&" ".repeat(12)),
            "{folded}"
        );
        let code = format!(
            "  12 |     out[i] = {};",
            "a[i] + ".repeat(12).trim_end_matches(" + ")
        );
        let folded = fold(&code, 40);
        let second = folded.lines().nth(1).unwrap();
        assert!(
            second.starts_with(&" ".repeat(11)) && second.trim_start().starts_with("a[i]")
                || second.trim_start().starts_with('+'),
            "{folded}"
        );
    }

    #[test]
    fn colour_escapes_take_no_width_and_survive() {
        let red = "\x1b[31m";
        let reset = "\x1b[0m";
        let line = format!("{red}error{reset}: {}", "word ".repeat(20).trim_end());
        let folded = fold(&line, 30);
        assert!(widths(&folded).iter().all(|&w| w <= 30), "{folded}");
        assert!(
            folded.starts_with(red) && folded.contains(reset),
            "{folded}"
        );
        assert_eq!(
            super::super::layout::strip_ansi(&folded)
                .split_whitespace()
                .count(),
            21
        );
    }

    #[test]
    fn a_word_wider_than_the_row_is_cut_only_then() {
        let long = "x".repeat(50);
        let folded = fold(&format!("a {long}"), 24);
        assert!(widths(&folded).iter().all(|&w| w <= 24), "{folded}");
        assert_eq!(folded.replace(['\n', ' '], ""), format!("a{long}"));
    }
}
