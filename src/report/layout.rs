//! Small pieces of layout shared by the text reports: launch shapes, thread coordinates,
//! plurals, and lines with a right-aligned end.

/// Width the text reports are laid out for (right-aligned verdicts end at this column).
pub(crate) const WIDTH: usize = 76;

/// A launch shape as a learner writes it: `8`, `4×4`, `2×2×2` (trailing 1s dropped).
pub(crate) fn dims(d: [u32; 3]) -> String {
    let used = if d[2] != 1 {
        3
    } else if d[1] != 1 {
        2
    } else {
        1
    };
    join(&d[..used], "×")
}

/// A block or thread index: `5`, `(1,2)`, `(1,2,3)` (trailing 0s dropped).
pub(crate) fn coord(c: [u32; 3]) -> String {
    match c {
        [x, 0, 0] => x.to_string(),
        [x, y, 0] => format!("({x},{y})"),
        [x, y, z] => format!("({x},{y},{z})"),
    }
}

/// `thread 5 of block 0`: who a diagnostic or a counter maximum is about.
pub(crate) fn who(block: [u32; 3], thread: [u32; 3]) -> String {
    format!("thread {} of block {}", coord(thread), coord(block))
}

/// `block 3` (or `block (1,0,0)` in 2D/3D), as `who` names blocks.
pub(crate) fn block_name(block: [u32; 3]) -> String {
    format!("block {}", coord(block))
}

/// `warp 1 of block 0` for a warp's limit, else `block 0`: where a block limit was broken.
pub(crate) fn limit_place(block: [u32; 3], warp: Option<u32>) -> String {
    match warp {
        Some(w) => format!("warp {w} of {}", block_name(block)),
        None => block_name(block),
    }
}

fn join(xs: &[u32], sep: &str) -> String {
    xs.iter().map(u32::to_string).collect::<Vec<_>>().join(sep)
}

/// `1 error`, `3 errors`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The text without ANSI escape sequences (CSI `ESC [ … final`), for measuring and plain output.
pub(crate) fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates run until a final byte in '@'..='~'.
            for f in chars.by_ref() {
                if ('@'..='~').contains(&f) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Columns a (possibly coloured) string takes on a terminal.
pub(crate) fn width(s: &str) -> usize {
    strip_ansi(s).chars().count()
}

/// `left` and `right` on one line, `right` ending at column `WIDTH` (at least two spaces apart).
pub(crate) fn spread(left: &str, right: &str) -> String {
    let gap = WIDTH.saturating_sub(width(left) + width(right)).max(2);
    format!("{left}{}{right}", " ".repeat(gap))
}

/// Every line of `text` prefixed with `pad` (empty lines stay empty).
pub(crate) fn indent(text: &str, pad: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_drop_trailing_ones_and_zeros() {
        assert_eq!(dims([8, 1, 1]), "8");
        assert_eq!(dims([4, 3, 1]), "4×3");
        assert_eq!(dims([1, 1, 2]), "1×1×2");
        assert_eq!(coord([5, 0, 0]), "5");
        assert_eq!(coord([1, 2, 0]), "(1,2)");
        assert_eq!(coord([0, 0, 3]), "(0,0,3)");
        assert_eq!(who([0, 0, 0], [2, 1, 0]), "thread (2,1) of block 0");
    }

    #[test]
    fn spread_right_aligns_and_ignores_escapes() {
        let line = spread("ab", "\x1b[31mxy\x1b[0m");
        assert_eq!(width(&line), WIDTH);
        assert!(strip_ansi(&line).ends_with("xy"));
        let long = "x".repeat(WIDTH);
        assert!(spread(&long, "yz").ends_with("  yz"));
    }

    #[test]
    fn counts_and_indents() {
        assert_eq!(count(1, "error", "errors"), "1 error");
        assert_eq!(count(0, "error", "errors"), "0 errors");
        assert_eq!(indent("a\n\nb", "  "), "  a\n\n  b");
    }
}
