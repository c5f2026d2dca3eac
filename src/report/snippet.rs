//! A diagnostic with the learner's source around it: the line it happened on, marked, with a
//! line of context, the other line involved (the other side of a race), and the help text.
//!
//! Rendering is `annotate-snippets` (rustc's layout, which many learners already read); its
//! colour follows `colored`'s switch so one setting governs all output.

use super::layout;
use crate::emu::result::{DiagKind, Diagnostic, Severity};
use crate::judge::outcome::{LineUse, OverBudget};
use annotate_snippets::{AnnotationKind, Element, Group, Level, Origin, Renderer, Snippet};
use colored::Colorize;
use std::ops::Range;

/// Render `d` with its source line marked when `source` (the text of `d.file`) holds that line;
/// otherwise with just the location, or just the message when there is no location.
pub fn diagnostic(d: &Diagnostic, source: Option<&str>) -> String {
    let who = layout::who(d.block, d.thread);
    let marked = match (d.line, source) {
        (Some(line), Some(src)) => source_view(d, src, line, &who),
        _ => None,
    };
    let (title, location): (String, Option<Element>) = match (marked, &d.file) {
        (Some(snippet), _) => (d.message.clone(), Some(snippet.into())),
        // Without the source line to hang it on, who it happened to joins the message.
        (None, Some(file)) => {
            let origin = Origin::path(file.as_str());
            let origin = match d.line {
                Some(line) => origin.line(line as usize),
                None => origin,
            };
            (with_who(&d.message, &who), Some(origin.into()))
        }
        (None, None) => return bare(d, &who),
    };
    let mut group = Group::with_title(level(d).primary_title(title).id(d.kind.as_str()));
    if let Some(location) = location {
        group = group.element(location);
    }
    if let Some(help) = &d.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    renderer().render(&[group]).trim_end().to_string()
}

fn level(d: &Diagnostic) -> Level<'static> {
    match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    }
}

/// A diagnostic with no location at all: the title line and the help, nothing drawn around them
/// (annotate-snippets would draw an empty gutter).
fn bare(d: &Diagnostic, who: &str) -> String {
    let head = format!("{}[{}]", severity_word(d.severity), d.kind.as_str());
    let head = match d.severity {
        Severity::Error => head.red().bold(),
        Severity::Warning => head.yellow().bold(),
    };
    let mut out = format!("{head}: {}", with_who(&d.message, who).bold());
    if let Some(help) = &d.help {
        out += &format!("\n  {}: {}", "help".cyan().bold(), help);
    }
    out
}

/// `message (thread 2 of block 0)`, unless the message already says who it is about.
fn with_who(message: &str, who: &str) -> String {
    if message.contains(who) {
        message.to_string()
    } else {
        format!("{message} ({who})")
    }
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A diagnostic with a line but no file happened in the only file there is: say which.
pub(crate) fn located(d: &Diagnostic, source_name: &str) -> Diagnostic {
    let mut d = d.clone();
    if d.file.is_none() && d.line.is_some() {
        d.file = Some(source_name.to_string());
    }
    d
}

/// `source` when the diagnostic is in that file (NVRTC may name it by another path), else None:
/// lines of one file must never be shown under another's name.
pub(crate) fn source_for<'a>(
    d: &Diagnostic,
    source_name: &str,
    source: Option<&'a str>,
) -> Option<&'a str> {
    match &d.file {
        Some(f) if super::reason::base_name(f) != super::reason::base_name(source_name) => None,
        _ => source,
    }
}

/// One NVRTC message as gpuzzle prints it (`file:line[:col]: error: text`, continuation lines
/// after it): what the report needs to draw it over the learner's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompilerNote {
    pub error: bool,
    pub file: String,
    pub line: u32,
    pub column: Option<u32>,
    /// The message's first line.
    pub text: String,
    /// Its continuation lines (argument types, candidates).
    pub more: Vec<String>,
}

/// The located messages of a compile log or warning list, in order; lines that belong to no
/// located message (the `does not compile` heading, trailers) are left out.
pub(crate) fn compiler_notes(log: &str) -> Vec<CompilerNote> {
    let mut found: Vec<CompilerNote> = Vec::new();
    let mut open = false;
    for raw in log.lines() {
        let plain = layout::strip_ansi(raw);
        let line = plain.trim();
        if let Some(note) = parse_compiler_line(line) {
            found.push(note);
            open = true;
        } else if line.is_empty() {
            open = false;
        } else if let (true, Some(last)) = (open, found.last_mut()) {
            last.more.push(line.to_string());
        }
    }
    found
}

/// `file:line:col: error: text` or `file:line: warning: text`.
fn parse_compiler_line(line: &str) -> Option<CompilerNote> {
    let (at, marker, error) = [(": error: ", true), (": warning: ", false)]
        .into_iter()
        .find_map(|(m, e)| line.find(m).map(|at| (at, m, e)))?;
    let place = &line[..at];
    let text = line[at + marker.len()..].trim().to_string();
    let (file, line_no, column) = match place.rsplitn(3, ':').collect::<Vec<_>>()[..] {
        [col, l, file] if col.parse::<u32>().is_ok() && l.parse::<u32>().is_ok() => {
            (file, l.parse().ok()?, col.parse().ok())
        }
        _ => {
            let (file, l) = place.rsplit_once(':')?;
            (file, l.parse().ok()?, None)
        }
    };
    Some(CompilerNote {
        error,
        file: file.to_string(),
        line: line_no,
        column,
        text,
        more: Vec::new(),
    })
}

/// An NVRTC message drawn like a diagnostic: the source line marked at NVRTC's column (the
/// identifier or token there), with the line above for context; just the location when
/// `source` (the text of `n.file`) does not hold that line.
pub(crate) fn compiler_note(n: &CompilerNote, source: Option<&str>) -> String {
    let level = if n.error {
        Level::ERROR
    } else {
        Level::WARNING
    };
    let mut group = Group::with_title(level.primary_title(n.text.as_str()));
    let here = source.and_then(|src| Some((src, trimmed_span(src, n.line)?)));
    match here {
        Some((src, line_span)) => {
            let mark = n
                .column
                .and_then(|c| token_span(src, line_span.start, line_span.end, n.line, c))
                .unwrap_or(line_span);
            let mut snippet = Snippet::source(src)
                .path(n.file.as_str())
                .annotation(AnnotationKind::Primary.span(mark));
            if let Some(above) = n.line.checked_sub(1).and_then(|p| trimmed_span(src, p)) {
                snippet = snippet.annotation(AnnotationKind::Visible.span(above));
            }
            group = group.element(snippet);
        }
        None => {
            let mut origin = Origin::path(n.file.as_str()).line(n.line as usize);
            if let Some(c) = n.column {
                origin = origin.char_column(c.saturating_sub(1) as usize);
            }
            group = group.element(origin);
        }
    }
    for more in &n.more {
        group = group.element(Level::NOTE.message(more.as_str()));
    }
    renderer().render(&[group]).trim_end().to_string()
}

/// A counter over budget, over the lines that made its accesses: each marked with what the
/// thread that used the most did there (`2 reads: a[3], a[4]`). `label` is the counter as the
/// table says it (`global reads`); `source` is the text of `source_name`, the graded file. A
/// line in another file (a header), or one `source` does not hold, is said as a note instead.
/// None when the overrun has no lines (they could not be found).
pub(crate) fn overrun(
    o: &OverBudget,
    label: &str,
    source_name: &str,
    source: Option<&str>,
) -> Option<String> {
    let who = layout::who(o.thread.block, o.thread.thread);
    let kernel = o
        .kernel
        .as_ref()
        .map_or(String::new(), |k| format!("in `{k}`, "));
    let title = format!(
        "{kernel}{who} made {} {label} where the budget allows {}",
        o.used, o.budget
    );
    lines_over_source(&title, &o.lines, label, source_name, source)
}

/// A block over its `block_budget`, drawn like `overrun`: the lines where the block's threads
/// together made the counted accesses.
pub(crate) fn block_overrun(
    o: &crate::judge::outcome::BlockOverrun,
    label: &str,
    source_name: &str,
    source: Option<&str>,
) -> Option<String> {
    let kernel = o
        .kernel
        .as_ref()
        .map_or(String::new(), |k| format!("in `{k}`, "));
    let title = format!(
        "{kernel}the threads of {} made {} {label} in all where the block budget allows {}",
        layout::block_name(o.block),
        o.used,
        o.limit
    );
    lines_over_source(&title, &o.lines, label, source_name, source)
}

/// `title` over the source, each of `lines` marked with its count of `label`'s accesses.
fn lines_over_source(
    title: &str,
    lines: &[LineUse],
    label: &str,
    source_name: &str,
    source: Option<&str>,
) -> Option<String> {
    if lines.is_empty() {
        return None;
    }
    let title = title.to_string();
    let mut marks = Vec::new();
    let mut notes = Vec::new();
    // The `-->` points at the line that makes the most of the accesses (the extra ones, in a
    // loop or a second read), not the first access in the kernel, which is often within the
    // budget: that line is the primary mark, the others are context. Of equals, the last in
    // the file: the first one's accesses fit the budget, the one read again is the extra.
    let ours_of = |l: &LineUse| {
        l.file
            .as_deref()
            .is_none_or(|f| super::reason::base_name(f) == super::reason::base_name(source_name))
    };
    let primary = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.line.is_some() && ours_of(l))
        .max_by_key(|(_, l)| (l.count, l.line))
        .map(|(i, _)| i);
    for (i, l) in lines.iter().enumerate() {
        let text = line_use_of(l, label);
        let ours = l
            .file
            .as_deref()
            .is_none_or(|f| super::reason::base_name(f) == super::reason::base_name(source_name));
        let span = match (l.line, source) {
            (Some(line), Some(src)) if ours => trimmed_span(src, line),
            _ => None,
        };
        let kind = if primary.is_none_or(|p| p == i) {
            AnnotationKind::Primary
        } else {
            AnnotationKind::Context
        };
        match span {
            Some(span) => marks.push((i, kind.span(span).label(text))),
            None => {
                let at = match (&l.file, l.line) {
                    (Some(f), Some(line)) => format!("{}:{line}", super::reason::base_name(f)),
                    (None, Some(line)) => format!("line {line}"),
                    (_, None) => "(no line information)".to_string(),
                };
                notes.push(format!("{at}: {text}"));
            }
        }
    }
    let mut group = Group::with_title(Level::ERROR.primary_title(title).id("over-budget"));
    if let (false, Some(src)) = (marks.is_empty(), source) {
        let mut snippet = Snippet::source(src).path(source_name);
        // The primary mark first: the renderer's `-->` names the first primary annotation.
        marks.sort_by_key(|(i, _)| Some(*i) != primary);
        for (_, m) in marks {
            snippet = snippet.annotation(m);
        }
        group = group.element(snippet);
    }
    for n in notes {
        group = group.element(Level::NOTE.message(n));
    }
    Some(renderer().render(&[group]).trim_end().to_string())
}

/// `line_use` in the words of a counter's label (`global writes`, `shared atomics`).
fn line_use_of(l: &LineUse, label: &str) -> String {
    if label.ends_with("atomics") {
        line_use_words(l, ("atomic", "atomics", "on"))
    } else if label.ends_with("writes") {
        line_use(l, true)
    } else {
        line_use(l, false)
    }
}

/// `2 reads: a[3], a[4]`, `10 writes to out[0]`, `20 reads: a[0], b[0], a[1], b[3] and 16 more`.
pub(crate) fn line_use(l: &LineUse, write: bool) -> String {
    line_use_words(
        l,
        if write {
            ("write", "writes", "to")
        } else {
            ("read", "reads", "of")
        },
    )
}

fn line_use_words(l: &LineUse, (one, many, of): (&str, &str, &str)) -> String {
    let n = layout::count(l.count as usize, one, many);
    match l.cells.as_slice() {
        [] => n,
        [only] if l.distinct == 1 && l.count > 1 => format!("{n} {of} {only}"),
        cells => {
            let mut text = format!("{n}: {}", cells.join(", "));
            if l.distinct > cells.len() {
                text += &format!(" and {} more", l.distinct - cells.len());
            }
            text
        }
    }
}

/// The byte range of the token at 1-based character `column` of line `line` (whose trimmed
/// text is `start..end` of `src`): an identifier or number, else one character.
fn token_span(src: &str, start: usize, end: usize, line: u32, column: u32) -> Option<Range<usize>> {
    let line_start = src
        .split_inclusive('\n')
        .take(line.checked_sub(1)? as usize)
        .map(str::len)
        .sum::<usize>();
    let text = &src[line_start..end];
    let index = column.checked_sub(1)? as usize;
    if index > 0 && index == text.chars().count() {
        // Just past the line's last character: where something is missing.
        return Some(end..end);
    }
    let (offset, first) = text.char_indices().nth(index)?;
    let at = line_start + offset;
    if at < start {
        return None;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let len = if word(first) {
        text[offset..]
            .char_indices()
            .find(|&(_, c)| !word(c))
            .map_or(text.len() - offset, |(i, _)| i)
    } else {
        first.len_utf8()
    };
    Some(at..at + len)
}

fn renderer() -> Renderer {
    if colored::control::SHOULD_COLORIZE.should_colorize() {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
}

/// The marked source, or None when `line` is not in `src` (a stale file, a wrong line table).
fn source_view<'a>(
    d: &'a Diagnostic,
    src: &'a str,
    line: u32,
    who: &str,
) -> Option<Snippet<'a, annotate_snippets::Annotation<'a>>> {
    let here = trimmed_span(src, line)?;
    let mut snippet = Snippet::source(src)
        .path(d.file.as_deref())
        .annotation(AnnotationKind::Primary.span(here).label(who.to_string()));
    let other = d.other_line.filter(|&o| o != line);
    if let Some(span) = other.and_then(|o| trimmed_span(src, o)) {
        snippet = snippet.annotation(
            AnnotationKind::Context
                .span(span)
                .label(other_label(d.kind)),
        );
    }
    // One line of context above each marked line, so the reader sees what leads into it.
    for l in [Some(line), other].into_iter().flatten() {
        if let Some(span) = l.checked_sub(1).and_then(|p| trimmed_span(src, p)) {
            snippet = snippet.annotation(AnnotationKind::Visible.span(span));
        }
    }
    Some(snippet)
}

/// What the second marked line is, in the words of the diagnostic's kind.
fn other_label(kind: DiagKind) -> &'static str {
    match kind {
        DiagKind::SharedRace | DiagKind::GlobalRace => "the other access",
        DiagKind::BarrierDivergence | DiagKind::WarpSync => "the other barrier",
        DiagKind::StepLimit => "the loop's condition",
        _ => "also involved",
    }
}

/// Byte range of 1-based `line` in `src` without its leading and trailing whitespace; None when
/// the line does not exist or is blank.
fn trimmed_span(src: &str, line: u32) -> Option<Range<usize>> {
    let index = (line as usize).checked_sub(1)?;
    let mut start = 0;
    for (i, text) in src.split_inclusive('\n').enumerate() {
        if i == index {
            let body = text.trim_end();
            let lead = body.len() - body.trim_start().len();
            return (lead < body.len()).then(|| start + lead..start + body.len());
        }
        start += text.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "__global__ void pooling(float* out, float* a, int size) {\n\
        \x20   __shared__ float shared[TPB];\n\
        \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
        \x20   int local_i = threadIdx.x;\n\
        \x20   shared[local_i] = a[i];\n\
        \x20   out[i] = shared[local_i] + shared[max(local_i - 1, 0)];\n\
        }\n";

    fn race() -> Diagnostic {
        Diagnostic {
            kind: DiagKind::SharedRace,
            severity: Severity::Error,
            message: "thread 2 reads shared[1] while thread 1 writes it".into(),
            help: Some("put __syncthreads() between the write and the read".into()),
            file: Some("puzzles/09_pooling.cu".into()),
            line: Some(6),
            block: [0, 0, 0],
            thread: [2, 0, 0],
            other_line: None,
            facts: Default::default(),
        }
    }

    fn plain(d: &Diagnostic, src: Option<&str>) -> String {
        colored::control::set_override(false);
        diagnostic(d, src)
    }

    #[test]
    fn a_column_past_the_line_end_is_one_caret_after_its_last_character() {
        colored::control::set_override(false);
        let src = "{\n    out[0] = 1.0f\n\n}\n";
        let notes = compiler_notes("p.cu:2:18: error: expected a \";\" at the end of this line\nNVRTC reported it at 4:1, at the next token");
        assert_eq!(notes.len(), 1);
        let text = compiler_note(&notes[0], Some(src));
        let lines: Vec<&str> = text.lines().collect();
        let code = lines
            .iter()
            .position(|l| l.ends_with("out[0] = 1.0f"))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(lines[code + 1].find('^'), Some(lines[code].len()), "{text}");
        assert_eq!(lines[code + 1].matches('^').count(), 1, "{text}");
        assert!(text.contains("= note: NVRTC reported it at 4:1"), "{text}");
    }

    #[test]
    fn a_line_use_says_its_count_and_the_elements() {
        let l = |count, cells: &[&str], distinct| LineUse {
            count,
            cells: cells.iter().map(|c| c.to_string()).collect(),
            distinct,
            ..LineUse::default()
        };
        assert_eq!(line_use(&l(1, &["a[2]"], 1), false), "1 read: a[2]");
        assert_eq!(
            line_use(&l(2, &["a[3]", "a[4]"], 2), false),
            "2 reads: a[3], a[4]"
        );
        assert_eq!(
            line_use(&l(10, &["out[0]"], 1), true),
            "10 writes to out[0]"
        );
        assert_eq!(line_use(&l(3, &["a[1]"], 1), false), "3 reads of a[1]");
        let many = l(20, &["a[0]", "b[0]", "a[1]", "b[3]"], 20);
        assert_eq!(
            line_use(&many, false),
            "20 reads: a[0], b[0], a[1], b[3] and 16 more"
        );
        // A float4 read is 4 reads of 4 elements; no elements known: the count alone.
        assert_eq!(line_use(&l(4, &[], 0), true), "4 writes");
    }

    #[test]
    fn marks_the_trimmed_line_with_context_above() {
        let out = plain(&race(), Some(SRC));
        println!("{out}");
        assert!(out.starts_with("error[shared-race]: thread 2 reads shared[1]"));
        assert!(out.contains("puzzles/09_pooling.cu:6:5"));
        assert!(out.contains("5 |     shared[local_i] = a[i];"));
        let code = "out[i] = shared[local_i] + shared[max(local_i - 1, 0)];";
        let code_line = out.lines().find(|l| l.contains(code)).unwrap();
        let caret_line = out.lines().find(|l| l.contains('^')).unwrap();
        let col = code_line.find(code).unwrap();
        let carets = caret_line.trim_start_matches(|c| c != '^');
        assert_eq!(caret_line.find('^'), Some(col));
        assert!(carets.starts_with(&"^".repeat(code.len())));
        assert!(caret_line.ends_with("thread 2 of block 0"));
        assert!(out.contains("help: put __syncthreads()"));
        assert!(!out.contains('\x1b'));
    }

    #[test]
    fn marks_the_other_line_of_a_race() {
        let d = Diagnostic {
            other_line: Some(5),
            facts: Default::default(),
            ..race()
        };
        let out = plain(&d, Some(SRC));
        println!("{out}");
        assert!(out.contains("the other access"));
        let other = out.lines().position(|l| l.contains("a[i];")).unwrap();
        assert!(out.lines().nth(other + 1).unwrap().contains("---"));
    }

    #[test]
    fn warnings_say_warning() {
        let d = Diagnostic {
            severity: Severity::Warning,
            kind: DiagKind::UninitializedRead,
            ..race()
        };
        assert!(plain(&d, Some(SRC)).starts_with("warning[uninitialized-read]:"));
    }

    #[test]
    fn falls_back_to_location_or_message_without_source() {
        let out = plain(&race(), None);
        println!("{out}");
        assert!(out.contains("puzzles/09_pooling.cu:6"));
        assert!(out.contains("thread 2 of block 0"));
        assert!(!out.contains('^'));

        let past_end = Diagnostic {
            line: Some(999),
            other_line: Some(1000),
            facts: Default::default(),
            ..race()
        };
        let out = plain(&past_end, Some(SRC));
        assert!(out.contains("puzzles/09_pooling.cu:999"));

        let nowhere = Diagnostic {
            file: None,
            line: None,
            help: None,
            ..race()
        };
        let out = plain(&nowhere, Some(SRC));
        println!("{out}");
        assert_eq!(
            out,
            "error[shared-race]: thread 2 reads shared[1] while thread 1 writes it (thread 2 of block 0)"
        );
    }

    #[test]
    fn odd_line_numbers_never_panic() {
        for line in [0, 1, 7, 8, u32::MAX] {
            let d = Diagnostic {
                line: Some(line),
                other_line: Some(line.wrapping_add(1)),
                facts: Default::default(),
                ..race()
            };
            let _ = plain(&d, Some(SRC));
            let _ = plain(&d, Some(""));
            let _ = plain(&d, Some("\n\n"));
        }
    }

    #[test]
    fn spans_skip_blank_lines_and_handle_crlf() {
        assert_eq!(trimmed_span("a\n  bc  \r\n", 2), Some(4..6));
        assert_eq!(trimmed_span("a\n   \n", 2), None);
        assert_eq!(trimmed_span("a", 0), None);
        assert_eq!(trimmed_span("a", 2), None);
    }
}
