//! The text reports' colours as ratatui styles: `run`'s report is built with `colored`, which
//! writes SGR escape sequences (`ESC [ 1 ; 31 m`); the watch screen draws styled spans, so each
//! line is cut at those sequences and each piece gets the style they set. Only what `colored`
//! writes is understood (attributes, the 16 colours, 256 and RGB colours); any other escape
//! sequence is dropped rather than drawn as garbage.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Each line of `text` with its colours as styles.
pub fn lines(text: &str) -> Vec<Line<'static>> {
    let mut style = Style::default();
    text.lines()
        .map(|l| {
            let (line, after) = line(l, style);
            // A colour left on at a line's end (rare) carries on, as in a terminal.
            style = after;
            line
        })
        .collect()
}

/// One line (no newline) starting in `style`; the style in force at its end.
fn line(text: &str, mut style: Style) -> (Line<'static>, Style) {
    let mut spans = Vec::new();
    let mut piece = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            // Tabs would be drawn as one cell; the reports indent with spaces anyway.
            if c == '\t' {
                piece.push_str("    ");
            } else if !c.is_control() {
                piece.push(c);
            }
            continue;
        }
        if chars.peek() != Some(&'[') {
            continue;
        }
        chars.next();
        let mut params = String::new();
        let mut last = None;
        for f in chars.by_ref() {
            if ('@'..='~').contains(&f) {
                last = Some(f);
                break;
            }
            params.push(f);
        }
        if last != Some('m') {
            continue;
        }
        if !piece.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut piece), style));
        }
        style = apply(style, &params);
    }
    if !piece.is_empty() {
        spans.push(Span::styled(piece, style));
    }
    (Line::from(spans), style)
}

/// `style` after the SGR parameters `params` (`1;31`, `0`, `38;5;208`, empty = reset).
fn apply(mut style: Style, params: &str) -> Style {
    let codes: Vec<u16> = params.split(';').map(|p| p.parse().unwrap_or(0)).collect();
    let mut i = 0;
    while i < codes.len() {
        let code = codes[i];
        match code {
            0 => style = Style::default(),
            1 => style = style.add_modifier(Modifier::BOLD),
            2 => style = style.add_modifier(Modifier::DIM),
            3 => style = style.add_modifier(Modifier::ITALIC),
            4 => style = style.add_modifier(Modifier::UNDERLINED),
            5 => style = style.add_modifier(Modifier::SLOW_BLINK),
            7 => style = style.add_modifier(Modifier::REVERSED),
            8 => style = style.add_modifier(Modifier::HIDDEN),
            9 => style = style.add_modifier(Modifier::CROSSED_OUT),
            22 => style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style = style.remove_modifier(Modifier::ITALIC),
            24 => style = style.remove_modifier(Modifier::UNDERLINED),
            27 => style = style.remove_modifier(Modifier::REVERSED),
            30..=37 => style = style.fg(basic(code - 30, false)),
            90..=97 => style = style.fg(basic(code - 90, true)),
            40..=47 => style = style.bg(basic(code - 40, false)),
            100..=107 => style = style.bg(basic(code - 100, true)),
            39 => style.fg = None,
            49 => style.bg = None,
            38 | 48 => {
                let (color, used) = extended(&codes[i + 1..]);
                if let Some(c) = color {
                    style = if code == 38 { style.fg(c) } else { style.bg(c) };
                }
                i += used;
            }
            _ => {}
        }
        i += 1;
    }
    style
}

/// The colour after `38;` or `48;` (`5;N` or `2;R;G;B`) and how many codes it took.
fn extended(rest: &[u16]) -> (Option<Color>, usize) {
    let byte = |i: usize| rest.get(i).map(|&v| v.min(255) as u8);
    match rest.first() {
        Some(5) => (byte(1).map(Color::Indexed), 2),
        Some(2) => match (byte(1), byte(2), byte(3)) {
            (Some(r), Some(g), Some(b)) => (Some(Color::Rgb(r, g, b)), 4),
            _ => (None, rest.len()),
        },
        _ => (None, 0),
    }
}

fn basic(n: u16, bright: bool) -> Color {
    match (n, bright) {
        (0, false) => Color::Black,
        (1, false) => Color::Red,
        (2, false) => Color::Green,
        (3, false) => Color::Yellow,
        (4, false) => Color::Blue,
        (5, false) => Color::Magenta,
        (6, false) => Color::Cyan,
        (7, false) => Color::Gray,
        (0, true) => Color::DarkGray,
        (1, true) => Color::LightRed,
        (2, true) => Color::LightGreen,
        (3, true) => Color::LightYellow,
        (4, true) => Color::LightBlue,
        (5, true) => Color::LightMagenta,
        (6, true) => Color::LightCyan,
        _ => Color::White,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn colours_become_styles_and_the_escapes_disappear() {
        let text = "  test \"a\"  \x1b[1;31mFAILED\x1b[0m\n\x1b[2mdim\x1b[0m and plain";
        let ls = lines(text);
        assert_eq!(ls.len(), 2);
        assert_eq!(plain(&ls[0]), "  test \"a\"  FAILED");
        let failed = ls[0].spans.iter().find(|s| s.content == "FAILED").unwrap();
        assert_eq!(failed.style.fg, Some(Color::Red));
        assert!(failed.style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(plain(&ls[1]), "dim and plain");
        assert!(ls[1].spans[0].style.add_modifier.contains(Modifier::DIM));
        assert_eq!(ls[1].spans[1].style, Style::default());
    }

    #[test]
    fn extended_colours_and_a_colour_across_lines() {
        let ls = lines("\x1b[38;5;208morange\nstill\x1b[39m\x1b[38;2;1;2;3mrgb");
        assert_eq!(ls[0].spans[0].style.fg, Some(Color::Indexed(208)));
        assert_eq!(ls[1].spans[0].style.fg, Some(Color::Indexed(208)));
        assert_eq!(ls[1].spans[1].style.fg, Some(Color::Rgb(1, 2, 3)));
    }

    #[test]
    fn other_escapes_and_truncated_ones_are_dropped() {
        let ls = lines("a\x1b[2Kb\x1b]c\x1b[38;5");
        assert_eq!(plain(&ls[0]), "ab]c");
        // What the colored crate writes when colours are off: nothing to strip.
        assert_eq!(plain(&lines("plain")[0]), "plain");
        assert!(lines("").is_empty());
    }
}
