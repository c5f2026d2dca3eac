//! Styled lines folded to the screen's width, before scrolling: the body scrolls by screen rows,
//! so it must know how many rows each report line takes. A line breaks at its last space that
//! fits (at a character where a word is longer than the row), and its continuation rows are
//! indented as the line itself is, so a diagnostic's long `= help:` stays one block.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Each of `lines` as one or more rows at most `width` cells wide.
pub fn rows(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for l in lines {
        fold(l, width.max(1), &mut out);
    }
    out
}

/// How many cells `c` takes (ratatui's own measure, so rows and drawing agree).
fn cells(c: char) -> usize {
    let mut buf = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

fn fold(line: &Line<'static>, width: usize, out: &mut Vec<Line<'static>>) {
    let chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| {
            let style = line.style.patch(s.style);
            s.content.chars().map(move |c| (c, style))
        })
        .collect();
    let total: usize = chars.iter().map(|&(c, _)| cells(c)).sum();
    if total <= width {
        out.push(line.clone());
        return;
    }
    // Continuation rows keep the line's indentation, unless it leaves too little room.
    let indent = chars.iter().take_while(|(c, _)| *c == ' ').count();
    let indent = if indent * 2 < width { indent } else { 0 };
    let mut start = 0;
    let mut first = true;
    while start < chars.len() {
        if !first {
            // A continuation row starts at a word: its indentation is the line's own.
            while start < chars.len() && chars[start].0 == ' ' {
                start += 1;
            }
            if start == chars.len() {
                break;
            }
        }
        let room = if first { width } else { width - indent };
        // The longest run from `start` that fits in `room` cells.
        let mut end = start;
        let mut used = 0;
        while end < chars.len() && used + cells(chars[end].0) <= room {
            used += cells(chars[end].0);
            end += 1;
        }
        if end == start {
            // A character wider than the row: put it alone on one.
            end = start + 1;
        }
        let mut next = end;
        if end < chars.len() {
            // Break at the last space of the row, if the row has one past its indentation.
            let floor = if first { indent } else { start };
            if let Some(space) = (floor + 1..=end).rev().find(|&i| chars[i].0 == ' ') {
                end = space;
                next = space + 1;
            }
        }
        let mut spans: Vec<Span<'static>> = Vec::new();
        if !first && indent > 0 {
            spans.push(Span::raw(" ".repeat(indent)));
        }
        push_run(&chars[start..end], &mut spans);
        out.push(Line::from(spans));
        start = next;
        first = false;
    }
}

/// `chars` as spans, one per run of the same style.
fn push_run(chars: &[(char, Style)], spans: &mut Vec<Span<'static>>) {
    let mut text = String::new();
    let mut style = None;
    for &(c, s) in chars {
        if style.is_some_and(|st| st != s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        text.push(c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    fn plain(rows: &[Line]) -> Vec<String> {
        rows.iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn a_short_line_stays_whole_and_a_long_one_breaks_at_spaces_keeping_its_indent() {
        let lines = vec![
            Line::from("short"),
            Line::from("  = help: put the barrier outside the branch"),
        ];
        let r = rows(&lines, 20);
        assert_eq!(
            plain(&r),
            [
                "short",
                "  = help: put the",
                "  barrier outside",
                "  the branch"
            ]
        );
        assert!(r.iter().all(|l| l.width() <= 20));
    }

    #[test]
    fn a_word_longer_than_the_row_is_cut_and_styles_survive_the_break() {
        let red = Style::default().fg(Color::Red);
        let lines = vec![Line::from(vec![
            Span::raw("x "),
            Span::styled("abcdefghij", red),
        ])];
        let r = rows(&lines, 4);
        assert_eq!(plain(&r), ["x", "abcd", "efgh", "ij"]);
        assert_eq!(r[1].spans[0].style.fg, Some(Color::Red));
        assert_eq!(r[3].spans[0].style.fg, Some(Color::Red));
    }

    #[test]
    fn a_width_of_zero_or_one_never_loops_or_panics() {
        let lines = vec![Line::from("ab cd"), Line::from("")];
        assert_eq!(plain(&rows(&lines, 0)), ["a", "b", "c", "d", ""]);
        assert_eq!(plain(&rows(&lines, 1)), ["a", "b", "c", "d", ""]);
    }
}
