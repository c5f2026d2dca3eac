//! A wrong output that no rule explains, said as what was seen rather than as a guess: the
//! first wrong element, who wrote it last and on which line, and where the value it stored
//! came from (the array element it read on that line, and who wrote that element last, on
//! which line), all read from a traced rerun of the test (`judge::seen`). Facts only, and the
//! lines to look at: no fix is advised, since none was checked.
//!
//! One observation goes further, where the source and the diff both show it: a line on that
//! path that adds the same term twice (`s[t] + s[t + k] + s[t + k]`) while the wrong value is
//! too large.

use super::source::Source;
use super::Scene;
use crate::judge::outcome::OutputCompare;
use crate::trace::events::{Cell, EventKind, LaunchTrace, Space, ThreadEvents};
use crate::trace::text::thread_label;

/// A thread, as the trace knows it: its block and its index in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Who {
    block: [u32; 3],
    tid: [u32; 3],
}

/// Who wrote one element, in one launch: every writing thread with the line of its last
/// write there, and how many writes were made in all.
struct Writes {
    threads: Vec<(Who, u32)>,
    atomic: bool,
    count: usize,
}

/// An element as the learner declared it: `buf[1][33]` for a shared `buf[2][64]`, not
/// `buf[97]` (the trace counts flat).
fn cell_name(launch: &LaunchTrace, c: Cell, src: &Source, values: &[(String, i64)]) -> String {
    if c.space != Space::Shared {
        return launch.name_of(c);
    }
    let mut known = src.defines();
    known.extend(values.iter().cloned());
    let e = crate::emu::facts::Element {
        name: launch.var(c).name.clone(),
        index: c.index as i128,
        len: 0,
    };
    super::names::shown(&e, src, &known)
}

/// The facts for output `name` (compared in `o`), from `launches` (the test's launches, traced
/// in order). `None` when the trace cannot tell (incomplete, no launch wrote the element, a
/// line outside the learner's file).
pub fn explain(
    scene: &Scene,
    name: &str,
    o: &OutputCompare,
    launches: &[LaunchTrace],
) -> Option<String> {
    let &i = o.mismatches.first()?;
    let (expected, got) = (*o.expected.get(i)?, *o.got.get(i)?);
    if launches.iter().any(|l| !l.complete) {
        return None;
    }
    let src = Source::preprocessed(scene.source, &scene.values);
    // The last launch that wrote the element made its final value.
    let (launch, var) = launches.iter().rev().find_map(|l| {
        let var = l.global_named(name)?;
        let cell = Cell {
            space: Space::Global,
            var,
            index: i,
        };
        writes_of(l, cell, None).map(|_| (l, var))
    })?;
    let cell = Cell {
        space: Space::Global,
        var,
        index: i,
    };
    let w = writes_of(launch, cell, None)?;
    let element = element_name(name, o.shape, i);
    let mut said = vec![format!(
        "{element} is {} where the spec gives {}.",
        show(got),
        show(expected)
    )];
    let code = |l: u32| -> Option<String> {
        let c = src.line(l).trim();
        (l > 0 && !c.is_empty()).then(|| format!("line {l} (`{c}`)"))
    };
    let mut path_lines = Vec::new();
    match w.threads.as_slice() {
        [(who, line)] if !w.atomic => {
            let at = code(*line)?;
            path_lines.push(*line);
            let times = match w.count {
                1 => String::new(),
                n => format!(" ({n} writes to it, this the last)"),
            };
            said.push(format!(
                "Thread {} wrote it on {at}{times}.",
                thread_name(*who, launch).trim_start_matches("thread ")
            ));
            // The element it read on the same line just before its store (`out[i] = s[0]`),
            // and who wrote that element: facts, not a claim that the value is that element.
            if let Some(src_cell) = read_before_store(launch, *who, cell, *line) {
                let source_name = cell_name(launch, src_cell, &src, &scene.values);
                let scope = (src_cell.space == Space::Shared).then_some(who.block);
                match writes_of(launch, src_cell, scope) {
                    Some(sw) if !sw.atomic => {
                        let writers: Vec<String> = sw
                            .threads
                            .iter()
                            .map(|(who, _)| thread_name(*who, launch))
                            .collect();
                        let mut lines: Vec<u32> = sw.threads.iter().map(|(_, l)| *l).collect();
                        lines.sort_unstable();
                        lines.dedup();
                        let on: Vec<String> = lines.iter().filter_map(|&l| code(l)).collect();
                        if on.len() == lines.len() {
                            path_lines.extend(&lines);
                            let times = match sw.count {
                                1 => "once".to_string(),
                                n => format!("{n} times"),
                            };
                            said.push(format!(
                                "On that line it read `{source_name}`, which was written {times} before, last by {} on {}.",
                                super::output::and_list(&writers),
                                super::output::and_list(&on)
                            ));
                        }
                    }
                    _ => said.push(format!("On that line it read `{source_name}`.")),
                }
            }
        }
        [(who, line)] => {
            let at = code(*line)?;
            path_lines.push(*line);
            said.push(format!(
                "Thread {} updated it atomically on {at}, the only thread to write it{}.",
                thread_name(*who, launch).trim_start_matches("thread "),
                match w.count {
                    1 => String::new(),
                    n => format!(" ({n} updates)"),
                }
            ));
        }
        threads => {
            let mut lines: Vec<u32> = threads.iter().map(|(_, l)| *l).collect();
            lines.sort_unstable();
            lines.dedup();
            let on: Vec<String> = lines.iter().map(|&l| code(l)).collect::<Option<_>>()?;
            path_lines.extend(&lines);
            let how = if w.atomic {
                "updated it atomically"
            } else {
                "wrote it"
            };
            said.push(format!(
                "{} threads {how} ({} writes in all), on {}.",
                threads.len(),
                w.count,
                super::output::and_list(&on)
            ));
        }
    }
    // The locals the stored value is made of (`out[i] = sum;`), and the lines that set them:
    // where a register's value comes from, which the trace of memory does not show.
    if let [line] = path_lines[..] {
        let mut set = Vec::new();
        for local in stored_locals(src.line(line)) {
            let lines = assigning_lines(&src, line, &local);
            if lines.is_empty() || lines.len() > 4 {
                continue;
            }
            let on: Vec<String> = lines.iter().filter_map(|&l| code(l)).collect();
            path_lines.extend(&lines);
            set.push(format!(
                "`{local}` is set on {}",
                super::output::and_list(&on)
            ));
            if set.len() == 2 {
                break;
            }
        }
        if !set.is_empty() {
            said.push(format!("{}.", set.join("; ")));
        }
    }
    if got.abs() > expected.abs() {
        if let Some(twice) = path_lines.iter().find_map(|&l| added_twice(src.line(l), l)) {
            said.push(twice);
        }
    }
    Some(said.join(" "))
}

/// The plain names (not arrays, calls or members) in the value stored on `code`: the right
/// side of its assignment, or the value argument of an atomic (`atomicAdd(&out[0], total)`).
pub(super) fn stored_locals(code: &str) -> Vec<String> {
    let value = match code.find("atomic") {
        Some(at) => code[at..].find('(').and_then(|open| {
            let args = super::eval::split_top(&code[at + open + 1..], ',');
            args.get(1)
                .map(|a| a.trim().trim_end_matches([')', ';', ' ']).to_string())
        }),
        None => assigned_value(code).map(str::to_string),
    };
    let Some(value) = value else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let chars: Vec<char> = value.chars().collect();
    let mut k = 0;
    // Inside `[...]`: an index, not a part of the value.
    let mut depth = 0;
    while k < chars.len() {
        let c = chars[k];
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if depth > 0 || !(c.is_alphabetic() || c == '_') {
            k += 1;
            continue;
        }
        let start = k;
        while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
            k += 1;
        }
        let word: String = chars[start..k].iter().collect();
        let after = chars[k..].iter().find(|c| !c.is_whitespace());
        let before = chars[..start].iter().rev().find(|c| !c.is_whitespace());
        let member = matches!(before, Some('.')) || matches!(after, Some('.' | '[' | '(' | ':'));
        let number_suffix = start > 0 && chars[start - 1].is_ascii_digit();
        if !member && !number_suffix && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// The lines of `code`'s function before line `n` that assign to `name` (`name = ...`,
/// `float name = ...`, `name += ...`, `name++`).
pub(super) fn assigning_lines(src: &Source, n: u32, name: &str) -> Vec<u32> {
    let start = src.function_of(n).map_or(1, |f| f.0);
    (start..n)
        .filter(|&l| super::source::assigns(src.line(l), name))
        .collect()
}

/// Every write to `cell` in `launch` (in the block `only`, for a shared element), grouped by
/// thread; `None` when there is none.
fn writes_of(launch: &LaunchTrace, cell: Cell, only: Option<[u32; 3]>) -> Option<Writes> {
    let mut w = Writes {
        threads: Vec::new(),
        atomic: false,
        count: 0,
    };
    for (block, threads) in &launch.blocks {
        if only.is_some_and(|b| b != *block) {
            continue;
        }
        for t in threads {
            let mine = t
                .events
                .iter()
                .filter(|e| e.cell == cell && e.kind.writes());
            let mut last = None;
            for e in mine {
                w.count += 1;
                w.atomic |= e.kind == EventKind::Atomic;
                last = Some(e.line);
            }
            if let Some(line) = last {
                w.threads.push((
                    Who {
                        block: *block,
                        tid: t.tid,
                    },
                    line,
                ));
            }
        }
    }
    (w.count > 0).then_some(w)
}

/// The one element `who` read on `line` right before its last store to `cell` (`out[i] =
/// s[0]`); `None` when it read none there, or several.
fn read_before_store(launch: &LaunchTrace, who: Who, cell: Cell, line: u32) -> Option<Cell> {
    let t: &ThreadEvents = launch.block(who.block)?.iter().find(|t| t.tid == who.tid)?;
    let store = t
        .events
        .iter()
        .rposition(|e| e.cell == cell && e.kind.writes())?;
    let reads: Vec<Cell> = t.events[..store]
        .iter()
        .rev()
        .take_while(|e| e.line == line && e.kind == EventKind::Read)
        .map(|e| e.cell)
        .collect();
    match reads.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// `thread 3 of block 1`, `thread (1,2) of block (0,1,0)`.
fn thread_name(who: Who, launch: &LaunchTrace) -> String {
    let t = thread_label(who.tid, launch.block);
    let t = t.trim_start_matches('t');
    let b = if launch.grid[1] == 1 && launch.grid[2] == 1 {
        who.block[0].to_string()
    } else {
        format!("({},{},{})", who.block[0], who.block[1], who.block[2])
    };
    format!("thread {t} of block {b}")
}

/// `out[13]`, with its row and column where the output is a matrix.
fn element_name(name: &str, shape: Option<[usize; 2]>, i: usize) -> String {
    match shape {
        Some([_, cols]) if cols > 0 => {
            format!("{name}[{i}] (row {}, column {})", i / cols, i % cols)
        }
        _ => format!("{name}[{i}]"),
    }
}

fn show(v: f64) -> String {
    crate::puzzle::show_number(v)
}

/// A sum on `code` (the right side of its assignment) with the same term twice (`a + b + b`),
/// said as seen; not for a literal or a plain product's square (`x * x` is not a sum).
fn added_twice(code: &str, line: u32) -> Option<String> {
    let rhs = assigned_value(code)?;
    let terms: Vec<String> = super::eval::split_top(rhs, '+')
        .iter()
        .map(|t| t.trim().trim_end_matches(';').trim().to_string())
        .collect();
    if terms.len() < 2 {
        return None;
    }
    let twice = terms.iter().enumerate().find_map(|(k, t)| {
        let plain = !t.is_empty()
            && !t.contains(['-', '?', ':', '<', '>', '=', '&', '|'])
            && !t.starts_with(|c: char| c.is_ascii_digit() || c == '.');
        (plain && terms[k + 1..].contains(t)).then_some(t)
    })?;
    Some(format!(
        "Line {line} adds `{twice}` twice (`{}`), and the wrong value is larger than the spec's.",
        rhs.trim().trim_end_matches(';').trim()
    ))
}

/// The value assigned on a line (`x = VALUE;`, `x += VALUE;`), after any `if (...)` before it.
fn assigned_value(code: &str) -> Option<&str> {
    let bytes = code.as_bytes();
    for (k, &b) in bytes.iter().enumerate() {
        if b != b'=' {
            continue;
        }
        let prev = k.checked_sub(1).map(|p| bytes[p]);
        let next = bytes.get(k + 1).copied();
        if matches!(prev, Some(b'=' | b'!' | b'<' | b'>')) || next == Some(b'=') {
            continue;
        }
        return Some(&code[k + 1..]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::events::{Event, Var};

    fn scene(source: &str, block: u32, grid: u32) -> Scene<'_> {
        Scene {
            source,
            file_name: "k.cu",
            module: None,
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            values: Vec::new(),
            shapes: Vec::new(),
            cooperative: false,
        }
    }

    fn var(name: &str, len: usize) -> Var {
        Var {
            name: name.into(),
            base: 0,
            elem_size: 4,
            len,
        }
    }

    /// An event on `line`: `(space, var, index, kind)`.
    fn ev(space: Space, var: usize, index: usize, kind: EventKind, line: u32) -> Event {
        Event {
            cell: Cell { space, var, index },
            kind,
            line,
            site: (0, line),
            first: true,
        }
    }

    fn compare(expected: &[f64], got: &[f64]) -> OutputCompare {
        let mismatches = (0..expected.len())
            .filter(|&i| expected[i] != got[i])
            .collect();
        OutputCompare {
            expected: expected.to_vec(),
            got: got.to_vec(),
            mismatches,
            ..OutputCompare::default()
        }
    }

    /// A block of `threads` threads (1D), each with its events.
    fn launch(
        globals: Vec<Var>,
        shared: Vec<Var>,
        blocks: Vec<Vec<Vec<Event>>>,
        block: u32,
    ) -> LaunchTrace {
        LaunchTrace {
            kernel: "k".into(),
            grid: [blocks.len() as u32, 1, 1],
            block: [block, 1, 1],
            globals,
            shared,
            blocks: blocks
                .into_iter()
                .enumerate()
                .map(|(b, threads)| {
                    let threads = threads
                        .into_iter()
                        .enumerate()
                        .map(|(t, events)| ThreadEvents {
                            tid: [t as u32, 0, 0],
                            events,
                            failed: Vec::new(),
                        })
                        .collect();
                    ([b as u32, 0, 0], threads)
                })
                .collect(),
            complete: true,
        }
    }

    const ROW_TOTAL: &str = "__global__ void row_total(float* totals, const float* m, int cols) {
    __shared__ float acc[4];
    int k = threadIdx.x;
    acc[k] = m[blockIdx.x * cols + k];
    __syncthreads();
    for (int h = 2; h > 0; h >>= 1) {
        if (k < h) acc[k] += acc[k + h] + acc[k + h];
        __syncthreads();
    }
    if (k == 0) totals[blockIdx.x] = acc[0];
}
";

    /// Two blocks of 4 over a 2x4 matrix; block 1's thread 0 stores `acc[0]`, which it wrote
    /// on line 4 and twice on line 7.
    fn row_total_trace() -> LaunchTrace {
        use EventKind::{Read as R, Write as W};
        use Space::{Global as G, Shared as S};
        let thread0 = |b: usize| {
            vec![
                ev(G, 1, b * 4, R, 4),
                ev(S, 0, 0, W, 4),
                ev(S, 0, 0, R, 7),
                ev(S, 0, 2, R, 7),
                ev(S, 0, 2, R, 7),
                ev(S, 0, 0, W, 7),
                ev(S, 0, 0, R, 7),
                ev(S, 0, 1, R, 7),
                ev(S, 0, 1, R, 7),
                ev(S, 0, 0, W, 7),
                ev(S, 0, 0, R, 10),
                ev(G, 0, b, W, 10),
            ]
        };
        let other = |b: usize, k: usize| vec![ev(G, 1, b * 4 + k, R, 4), ev(S, 0, k, W, 4)];
        let block = |b: usize| vec![thread0(b), other(b, 1), other(b, 2), other(b, 3)];
        launch(
            vec![var("totals", 2), var("m", 8)],
            vec![var("acc", 4)],
            vec![block(0), block(1)],
            4,
        )
    }

    #[test]
    fn the_writer_of_a_wrong_total_and_the_shared_value_it_stored_are_named_with_the_term_added_twice(
    ) {
        let trace = row_total_trace();
        let o = compare(&[6.0, 22.0], &[6.0, 40.0]);
        let said = explain(&scene(ROW_TOTAL, 4, 2), "totals", &o, &[trace]).unwrap_or_default();
        for part in [
            "totals[1] is 40 where the spec gives 22.",
            "Thread 0 of block 1 wrote it on line 10 (`if (k == 0) totals[blockIdx.x] = acc[0];`)",
            "On that line it read `acc[0]`, which was written 3 times before, last by thread 0 of block 1 on line 7 (`if (k < h) acc[k] += acc[k + h] + acc[k + h];`)",
            "Line 7 adds `acc[k + h]` twice",
        ] {
            assert!(said.contains(part), "missing {part:?} in: {said}");
        }
        assert!(!said.contains("block 0 on"), "{said}");
    }

    #[test]
    fn a_shared_element_read_before_the_store_is_named_as_declared() {
        // The same trace over a 2 x 2 declaration: flat element 0 is `acc[0][0]`.
        let src = ROW_TOTAL.replace("acc[4];", "acc[2][2];");
        let o = compare(&[6.0, 22.0], &[6.0, 40.0]);
        let said =
            explain(&scene(&src, 4, 2), "totals", &o, &[row_total_trace()]).unwrap_or_default();
        assert!(said.contains("On that line it read `acc[0][0]`"), "{said}");
    }

    const SCATTER: &str = "__global__ void bump(float* y, const float* x, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < n) y[0] = x[g] * 2.0f;
}
";

    #[test]
    fn an_element_several_threads_overwrote_says_how_many_and_on_which_line() {
        use EventKind::{Read as R, Write as W};
        use Space::Global as G;
        let threads = (0..3)
            .map(|g| vec![ev(G, 1, g, R, 3), ev(G, 0, 0, W, 3)])
            .collect();
        let trace = launch(vec![var("y", 3), var("x", 3)], Vec::new(), vec![threads], 3);
        let o = compare(&[2.0, 4.0, 6.0], &[6.0, 4.0, 6.0]);
        let said = explain(&scene(SCATTER, 3, 1), "y", &o, &[trace]).unwrap_or_default();
        assert!(
            said.starts_with("y[0] is 6 where the spec gives 2."),
            "{said}"
        );
        assert!(
            said.contains("3 threads wrote it (3 writes in all), on line 3 (`if (g < n) y[0] = x[g] * 2.0f;`)"),
            "{said}"
        );
        // No sum on the line: nothing about a term added twice.
        assert!(!said.contains("twice"), "{said}");
    }

    const DOT_ROW: &str =
        "__global__ void rowdot(float* r, const float* m, const float* w, int k) {
    int row = blockIdx.x;
    float acc = 0.0f;
    for (int j = 0; j < k; j++) {
        acc += m[row * k + j] * w[k - 1 - j];
    }
    if (threadIdx.x == 0) r[row] = acc + 0.0f * row;
}
";

    #[test]
    fn a_register_stored_is_followed_to_the_lines_that_set_it() {
        use EventKind::{Read as R, Write as W};
        use Space::Global as G;
        // One thread per block; the store reads no memory on its line.
        let thread = |b: usize| {
            vec![
                ev(G, 1, b * 2, R, 5),
                ev(G, 2, 1, R, 5),
                ev(G, 1, b * 2 + 1, R, 5),
                ev(G, 2, 0, R, 5),
                ev(G, 0, b, W, 7),
            ]
        };
        let trace = launch(
            vec![var("r", 2), var("m", 4), var("w", 2)],
            Vec::new(),
            vec![vec![thread(0)], vec![thread(1)]],
            1,
        );
        let o = compare(&[5.0, 11.0], &[4.0, 10.0]);
        let said = explain(&scene(DOT_ROW, 1, 2), "r", &o, &[trace]).unwrap_or_default();
        assert!(
            said.contains("Thread 0 of block 0 wrote it on line 7 (`if (threadIdx.x == 0) r[row] = acc + 0.0f * row;`)"),
            "{said}"
        );
        // `acc` is followed, `row` too (it is set before the store), never the index's names.
        assert!(
            said.contains("`acc` is set on line 3 (`float acc = 0.0f;`) and line 5 (`acc += m[row * k + j] * w[k - 1 - j];`)"),
            "{said}"
        );
        assert!(!said.contains("`k` is set"), "{said}");
        assert_eq!(stored_locals("atomicAdd(&out[0], total);"), ["total"]);
        assert_eq!(stored_locals("y[i] = a[i] - mean;"), ["mean"]);
    }

    #[test]
    fn nothing_is_said_where_the_trace_is_incomplete_or_no_launch_wrote_the_element() {
        let o = compare(&[6.0, 22.0], &[6.0, 40.0]);
        let mut partial = row_total_trace();
        partial.complete = false;
        assert_eq!(
            explain(&scene(ROW_TOTAL, 4, 2), "totals", &o, &[partial]),
            None
        );
        // A trace whose launch never stores to `totals`.
        let mut unwritten = row_total_trace();
        for (_, threads) in &mut unwritten.blocks {
            for t in threads {
                t.events
                    .retain(|e| e.cell.space != Space::Global || e.cell.var != 0);
            }
        }
        assert_eq!(
            explain(&scene(ROW_TOTAL, 4, 2), "totals", &o, &[unwritten]),
            None
        );
    }

    #[test]
    fn a_repeated_term_is_not_said_where_the_value_is_too_small_or_the_terms_differ() {
        let trace = row_total_trace();
        let small = compare(&[6.0, 22.0], &[6.0, 10.0]);
        let said = explain(&scene(ROW_TOTAL, 4, 2), "totals", &small, &[trace]).unwrap_or_default();
        assert!(said.contains("Thread 0 of block 1"), "{said}");
        assert!(!said.contains("twice"), "{said}");
        assert_eq!(added_twice("s[t] = s[t] + s[t + 1] + s[t + 2];", 3), None);
        assert_eq!(added_twice("v = x * x;", 3), None);
        assert_eq!(added_twice("v = 1.0f + 1.0f + x;", 3), None);
        assert!(added_twice("v = a[i] + b[i] + a[i];", 3).is_some());
    }
}
