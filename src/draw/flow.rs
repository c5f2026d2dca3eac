//! The data-flow picture of one block: input buffers, shared variables and outputs as rows
//! (2D buffers as grids) of cells with values; each thread a coloured box with its read and
//! write counts; lines from the cells it read to the box and from the box to the cells it
//! wrote. Output cells that differ from the spec are outlined red, cells nobody wrote are
//! hatched, cells written by two threads are marked. What the checkers reported is marked in
//! red (see `marks`): a refused access's line, to a dashed "ghost" cell outside its array when
//! it lies outside, and the cells of races and uninitialised reads with their lines; the
//! first diagnostic is named under the heading.
//!
//! Elements carry classes (`cell wrong`, `cell unwritten`, `cell twice`, `thread over`,
//! `cell out-of-bounds`, `cell raced`, `cell uninitialized`, `cell misaligned`, `flow read
//! failed`, `flow write failed`; marks with `data-kind` and `data-line`) so tests and scripts
//! can find them.

use super::marks::{self, Mark, Marks};
use super::svg::{esc, short_value, thread_colour, Svg};
use crate::trace::events::{Cell, EventKind, LaunchTrace, Space, ThreadEvents};
use crate::trace::text::thread_label;
use crate::trace::{Capture, LaunchCapture};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const CELL_W: f64 = 40.0;
const CELL_H: f64 = 28.0;
const LABEL_W: f64 = 110.0;
const MARGIN: f64 = 16.0;
const ROW_GAP: f64 = 26.0;
/// Lines need room to be told apart: the gap above and below the thread row.
const FLOW_GAP: f64 = 70.0;
const BOX_W: f64 = 58.0;
const BOX_H: f64 = 40.0;
/// Columns of a 1D row before it wraps, and the most rows of cells shown per variable.
const MAX_COLS: usize = 32;
const MAX_ROWS: usize = 16;
/// Thread boxes drawn per block (larger blocks: the first ones, said in the picture).
const MAX_THREADS: usize = 128;
/// Space between an array's cells and its ghost cells (elements outside it).
const GHOST_GAP: f64 = 10.0;
/// What the checkers' marks are drawn in.
const FAIL_RED: &str = "#d00000";

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error("this test's grid is {grid}: block {asked} is outside it (use --block X,Y with X < {gx}, Y < {gy})")]
    NoSuchBlock {
        asked: String,
        grid: String,
        gx: u32,
        gy: u32,
    },
}

/// Which cells of a variable are shown: a window of whole rows and columns.
#[derive(Clone, Debug)]
struct Window {
    /// Columns of the variable as a matrix (its row length).
    stride: usize,
    row0: usize,
    rows: usize,
    col0: usize,
    cols: usize,
    len: usize,
}

impl Window {
    fn new(len: usize, shape: Option<[usize; 2]>, touched: &BTreeSet<usize>) -> Window {
        let stride = match shape {
            Some([_, c]) if c > 0 => c,
            _ => len.clamp(1, MAX_COLS),
        };
        let total_rows = len.div_ceil(stride).max(1);
        let first = touched.iter().next().copied().unwrap_or(0);
        let (min_c, max_c) = touched
            .iter()
            .map(|i| i % stride)
            .fold((usize::MAX, 0), |(lo, hi), c| (lo.min(c), hi.max(c)));
        let cols = stride.min(MAX_COLS);
        let col0 = if stride <= MAX_COLS || min_c == usize::MAX {
            0
        } else {
            min_c.min(stride - cols).min(max_c)
        };
        let rows = total_rows.min(MAX_ROWS);
        let row0 = (first / stride).min(total_rows - rows);
        Window {
            stride,
            row0,
            rows,
            col0,
            cols,
            len,
        }
    }

    /// (row, column) on screen of element `i`, if shown.
    fn place(&self, i: usize) -> Option<(usize, usize)> {
        let (r, c) = (i / self.stride, i % self.stride);
        (r >= self.row0 && r < self.row0 + self.rows && c >= self.col0 && c < self.col0 + self.cols)
            .then(|| (r - self.row0, c - self.col0))
    }

    fn whole(&self) -> bool {
        self.row0 == 0 && self.col0 == 0 && self.rows * self.cols >= self.len
    }
}

/// What a row of cells shows and where it sits.
struct Row {
    cell_space: Space,
    var: usize,
    label: String,
    window: Window,
    values: Option<Vec<f64>>,
    /// Top left of the first cell (the name sits above it).
    x: f64,
    y: f64,
    /// Output buffer compared with the spec: wrong cells and cells nobody wrote.
    wrong: BTreeMap<usize, (f64, f64)>,
    unwritten: BTreeSet<usize>,
    /// Elements outside the array that threads tried to touch (negative: before it), drawn
    /// as ghost cells on either side; empty for a run without out-of-bounds accesses.
    ghosts: Vec<(i64, Mark)>,
}

impl Row {
    fn height(&self) -> f64 {
        self.window.rows as f64 * CELL_H
    }

    fn ghosts_before(&self) -> usize {
        self.ghosts.iter().filter(|(i, _)| *i < 0).count()
    }

    fn ghosts_after(&self) -> usize {
        self.ghosts.len() - self.ghosts_before()
    }

    /// Room for the ghost cells before the first cell.
    fn lead(&self) -> f64 {
        match self.ghosts_before() {
            0 => 0.0,
            n => n as f64 * CELL_W + GHOST_GAP,
        }
    }

    /// Width of the cells and the ghosts.
    fn width(&self) -> f64 {
        let after = match self.ghosts_after() {
            0 => 0.0,
            n => n as f64 * CELL_W + GHOST_GAP,
        };
        self.lead() + self.window.cols as f64 * CELL_W + after
    }

    /// Top left of the ghost cell for element `index` (outside the array): those before it
    /// left of the first row, the nearest first; those past it right of the last row.
    fn ghost_xy(&self, index: i64) -> Option<(f64, f64)> {
        if index < 0 {
            let k = self
                .ghosts
                .iter()
                .filter(|(i, _)| *i < 0 && *i > index)
                .count();
            self.ghosts
                .iter()
                .any(|(i, _)| *i == index)
                .then_some((self.x - GHOST_GAP - (k + 1) as f64 * CELL_W, self.y))
        } else {
            let k = (self.ghosts.iter())
                .filter(|(i, _)| *i >= 0 && *i < index)
                .count();
            let last_row = self.y + (self.window.rows.max(1) - 1) as f64 * CELL_H;
            let right = self.x + self.window.cols as f64 * CELL_W + GHOST_GAP;
            self.ghosts
                .iter()
                .any(|(i, _)| *i == index)
                .then_some((right + k as f64 * CELL_W, last_row))
        }
    }

    fn cell_xy(&self, i: usize) -> Option<(f64, f64)> {
        self.window
            .place(i)
            .map(|(r, c)| (self.x + c as f64 * CELL_W, self.y + r as f64 * CELL_H))
    }
}

/// Place a group's rows left to right, wrapping at `max_w`, from `top` (names above the
/// cells); returns (bottom, right edge).
fn place(rows: &mut [Row], top: f64, max_w: f64) -> (f64, f64) {
    let left = MARGIN + LABEL_W;
    let (mut x, mut y, mut line_h, mut width) = (left, top, 0.0f64, 0.0f64);
    for r in rows.iter_mut() {
        let w = r.width();
        if x > left && x + w > max_w {
            x = left;
            y += line_h + ROW_GAP;
            line_h = 0.0;
        }
        r.x = x + r.lead();
        r.y = y + 18.0;
        line_h = line_h.max(18.0 + r.height());
        width = width.max(x + w);
        x += w + 40.0;
    }
    (y + line_h, width)
}

/// Draw test `c`'s launches for block `block` (one panel per launch).
pub fn draw(c: &Capture, block: [u32; 3]) -> Result<String, DrawError> {
    let mut svg = Svg::new();
    svg.def(r##"<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f2f2f2"/><line x1="0" y1="0" x2="0" y2="6" stroke="#9a9a9a" stroke-width="2.5"/></pattern>"##);
    svg.def(r##"<marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="context-stroke"/></marker>"##);
    let mut y = MARGIN;
    let mut width: f64 = 640.0;
    let verdict = if c.verdict.passed { "passes" } else { "fails" };
    let heading = format!(
        "Puzzle {} · {} — test {} ({}): {verdict}",
        c.puzzle_id,
        c.title,
        c.test_index + 1,
        c.verdict.name
    );
    // Bold 16px text is about 9.5px a character.
    width = width.max(MARGIN + heading.chars().count() as f64 * 9.5);
    svg.text(
        MARGIN,
        y + 14.0,
        &heading,
        r#"font-size="16" font-weight="bold" class="heading""#,
    );
    y += 30.0;
    // What the checkers reported, in one line (nothing for a run without diagnostics).
    if let Some(text) = marks::caption(c.launches.iter().flat_map(|l| &l.diagnostics)) {
        // 12px text is about 7px a character.
        width = width.max(MARGIN + text.chars().count() as f64 * 7.0);
        svg.text(
            MARGIN,
            y + 8.0,
            &text,
            &format!(r#"font-size="12" fill="{FAIL_RED}" class="diagnostics""#),
        );
        y += 22.0;
    }
    let mut marked = false;
    for (i, l) in c.launches.iter().enumerate() {
        let (w, h, m) = panel(&mut svg, c, i, l, block, y)?;
        width = width.max(w);
        marked |= m;
        y += h + ROW_GAP;
    }
    y = legend(&mut svg, y);
    if marked {
        y = legend_marks(&mut svg, y);
    }
    Ok(svg.finish(
        width + MARGIN,
        y + MARGIN,
        &format!("gpuzzle draw {}", c.puzzle_id),
    ))
}

/// Per cell, the threads (over every block) that wrote it with a plain store.
fn writers(trace: &LaunchTrace) -> HashMap<Cell, BTreeSet<(usize, usize)>> {
    let mut w: HashMap<Cell, BTreeSet<(usize, usize)>> = HashMap::new();
    for (bi, (_, threads)) in trace.blocks.iter().enumerate() {
        for (ti, t) in threads.iter().enumerate() {
            for e in &t.events {
                // Atomics on one cell by many threads are the point of an atomic.
                if e.kind == EventKind::Write && e.cell.space == Space::Global {
                    w.entry(e.cell).or_default().insert((bi, ti));
                }
            }
        }
    }
    w
}

/// Block coordinates as the grid's dimensions have them: `1`, `(2,1)`, `(2,1,0)`.
fn coords_text(b: [u32; 3], grid: [u32; 3]) -> String {
    if grid[1] == 1 && grid[2] == 1 && b[1] == 0 && b[2] == 0 {
        b[0].to_string()
    } else if grid[2] == 1 && b[2] == 0 {
        format!("({},{})", b[0], b[1])
    } else {
        format!("({},{},{})", b[0], b[1], b[2])
    }
}

fn dims_text(d: [u32; 3]) -> String {
    if d[1] == 1 && d[2] == 1 {
        d[0].to_string()
    } else if d[2] == 1 {
        format!("({},{})", d[0], d[1])
    } else {
        format!("({},{},{})", d[0], d[1], d[2])
    }
}

/// One launch's panel at `top`; returns its (width, height) and whether it marked anything
/// the checkers reported.
fn panel(
    svg: &mut Svg,
    c: &Capture,
    index: usize,
    l: &LaunchCapture,
    block: [u32; 3],
    top: f64,
) -> Result<(f64, f64, bool), DrawError> {
    let t = &l.trace;
    let mut y = top;
    let multi = c.launches.len() > 1;
    let grid = t.grid;
    if (0..3).any(|k| block[k] >= grid[k]) {
        return Err(DrawError::NoSuchBlock {
            asked: coords_text(block, grid),
            grid: dims_text(grid),
            gx: grid[0],
            gy: grid[1],
        });
    }
    let launch = if multi {
        format!("launch {} of {}: ", index + 1, c.launches.len())
    } else {
        String::new()
    };
    svg.text(
        MARGIN,
        y + 12.0,
        &format!(
            "{launch}{}<<<{}, {}>>>, block {} shown",
            t.kernel,
            dims_text(grid),
            dims_text(t.block),
            coords_text(block, grid)
        ),
        r##"font-size="13" fill="#333333""##,
    );
    y += 22.0;
    if let Some(e) = &l.error {
        svg.text(
            MARGIN,
            y + 12.0,
            &format!("not traced: {e}"),
            r##"font-size="12" fill="#b00000""##,
        );
        return Ok((640.0, 30.0, false));
    }
    if !t.complete {
        svg.text(
            MARGIN,
            y + 12.0,
            &format!(
                "the trace stops early (at most {} accesses per launch are kept): cells may look unread or unwritten",
                crate::emu::trace::TRACE_CAP
            ),
            r##"font-size="12" fill="#b00000""##,
        );
        y += 20.0;
    }
    let empty: Vec<ThreadEvents> = Vec::new();
    let threads = t.block(block).unwrap_or(&empty);
    let writers = writers(t);

    // What the shown block touched, per variable.
    let mut touched: BTreeMap<(Space, usize), BTreeSet<usize>> = BTreeMap::new();
    let mut written_in_launch: BTreeSet<usize> = BTreeSet::new();
    for (_, ts) in &t.blocks {
        for e in ts.iter().flat_map(|t| &t.events) {
            if e.cell.space == Space::Global && e.kind.writes() {
                written_in_launch.insert(e.cell.var);
            }
        }
    }
    for e in threads.iter().flat_map(|t| &t.events) {
        touched
            .entry((e.cell.space, e.cell.var))
            .or_default()
            .insert(e.cell.index);
    }
    // The accesses the checkers reported: an array touched only by refused accesses is still
    // drawn, with its ghost cells.
    let marks = marks::marks(t, &l.diagnostics, block);
    for &(space, var, _) in marks.ghosts.keys() {
        touched.entry((space, var)).or_default();
    }
    for cell in marks.cells.keys() {
        touched
            .entry((cell.space, cell.var))
            .or_default()
            .insert(cell.index);
    }
    let ghosts_of = |space: Space, var: usize| -> Vec<(i64, Mark)> {
        (marks.ghosts.iter())
            .filter(|((s, v, _), _)| *s == space && *v == var)
            .map(|((_, _, i), m)| (*i, m.clone()))
            .collect()
    };

    // Rows: the launch's buffers (read-only ones above, written ones and outputs below),
    // module variables it touched, and the shared variables the block touched.
    let is_output = |name: &str| c.outputs.iter().any(|(n, _)| n == name);
    let last = index + 1 == c.launches.len();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut globals: Vec<usize> = l
        .buffer_args
        .iter()
        .filter_map(|n| t.global_named(n))
        .collect();
    for k in touched.keys().filter(|k| k.0 == Space::Global) {
        if !globals.contains(&k.1) {
            globals.push(k.1);
        }
    }
    for var in globals {
        let name = t.globals[var].name.clone();
        let written = written_in_launch.contains(&var);
        let out = written || (is_output(&name) && last);
        let buf = if out {
            l.after.get(&name)
        } else {
            l.before.get(&name)
        };
        let shape = c.shapes.get(&name).copied();
        let len = buf.map(|b| b.len()).unwrap_or(t.globals[var].len);
        let seen = touched
            .get(&(Space::Global, var))
            .cloned()
            .unwrap_or_default();
        let mut row = Row {
            cell_space: Space::Global,
            var,
            label: name.clone(),
            window: Window::new(len, shape, &seen),
            values: buf.map(|b| b.values()),
            x: 0.0,
            y: 0.0,
            wrong: BTreeMap::new(),
            unwritten: BTreeSet::new(),
            ghosts: ghosts_of(Space::Global, var),
        };
        if out && is_output(&name) && last {
            if let Some(cmp) = c.verdict.outputs.get(&name) {
                for &m in &cmp.mismatches {
                    let e = cmp.expected.get(m).copied().unwrap_or(f64::NAN);
                    let g = cmp.got.get(m).copied().unwrap_or(f64::NAN);
                    row.wrong.insert(m, (e, g));
                }
            }
            row.unwritten = c.unwritten(&name).into_iter().collect();
        }
        if out {
            outputs.push(row);
        } else {
            inputs.push(row);
        }
    }
    let mut shared = Vec::new();
    for ((space, var), seen) in &touched {
        if *space != Space::Shared {
            continue;
        }
        let v = &t.shared[*var];
        // A 2D tile `[TPB][TPB]` (or padded `[TPB][TPB + 1]`) in a 2D block: a grid.
        let bx = t.block[0] as usize;
        let shape = if t.block[1] > 1 && bx > 1 {
            [bx, bx + 1]
                .into_iter()
                .find(|&w| v.len.is_multiple_of(w) && v.len / w > 1)
                .map(|w| [v.len / w, w])
        } else {
            None
        };
        shared.push(Row {
            cell_space: Space::Shared,
            var: *var,
            label: format!("{} (shared)", v.name),
            window: Window::new(v.len, shape, seen),
            values: None,
            x: 0.0,
            y: 0.0,
            wrong: BTreeMap::new(),
            unwritten: BTreeSet::new(),
            ghosts: ghosts_of(Space::Shared, *var),
        });
    }

    // Vertical layout: inputs, shared, threads, outputs; narrow rows and grids of one group
    // side by side, as wide as the thread boxes (or a page).
    let bx = t.block[0] as usize;
    let per_row = if t.block[1] > 1 { bx.min(32) } else { 32 };
    let shown = threads.len().min(MAX_THREADS);
    let thread_cols = shown.min(per_row);
    let left = MARGIN + LABEL_W;
    let max_w = (left + thread_cols as f64 * (BOX_W + 8.0)).max(900.0);
    let mut width: f64 = 640.0;
    for group in [&mut inputs, &mut shared] {
        if !group.is_empty() {
            let (bottom, w) = place(group, y, max_w);
            y = bottom + ROW_GAP;
            width = width.max(w);
        }
    }
    y += FLOW_GAP - ROW_GAP;
    let threads_top = y;
    let box_at = |i: usize| -> (f64, f64) {
        let (r, col) = (i / per_row, i % per_row);
        (
            left + col as f64 * (BOX_W + 8.0),
            threads_top + r as f64 * (BOX_H + 22.0),
        )
    };
    let box_rows = shown.div_ceil(per_row).max(1);
    y = threads_top + box_rows as f64 * (BOX_H + 22.0) - 22.0 + FLOW_GAP;
    if !outputs.is_empty() {
        let (bottom, w) = place(&mut outputs, y - 8.0, max_w);
        y = bottom + ROW_GAP;
        width = width.max(w);
    }
    width = width.max(left + thread_cols as f64 * (BOX_W + 8.0));

    // Cells, then the lines over them (into a grid's cell, not just its edge), then boxes.
    let rows: Vec<&Row> = inputs.iter().chain(&shared).chain(&outputs).collect();
    for r in &rows {
        draw_row(svg, r, &writers, t, &marks);
    }
    let find = |cell: Cell| {
        rows.iter()
            .find(|r| r.cell_space == cell.space && r.var == cell.var)
    };
    svg.group(r#"class="lines" fill="none""#);
    let mut drawn = 0usize;
    for (i, th) in threads.iter().take(shown).enumerate() {
        let colour = thread_colour(i);
        let (bxp, byp) = box_at(i);
        let mut done: BTreeSet<(Cell, bool)> = BTreeSet::new();
        for e in &th.events {
            for write in [false, true] {
                if (write && !e.kind.writes()) || (!write && !e.kind.reads()) {
                    continue;
                }
                if !done.insert((e.cell, write)) {
                    continue;
                }
                let Some(row) = find(e.cell) else { continue };
                let Some((cx, cy)) = row.cell_xy(e.cell.index) else {
                    continue;
                };
                let above = row.y < threads_top;
                let cell_pt = if row.window.rows > 1 {
                    (cx + CELL_W / 2.0, cy + CELL_H / 2.0)
                } else {
                    (cx + CELL_W / 2.0, if above { cy + CELL_H } else { cy })
                };
                let box_pt = (bxp + BOX_W / 2.0, if above { byp } else { byp + BOX_H });
                if let Some(mark) = marks.lines.get(&(i, e.cell, write)) {
                    let data = format!(
                        r#" data-cell="{}" data-thread="{}""#,
                        esc(&t.name_of(e.cell)),
                        esc(&thread_label(th.tid, t.block))
                    );
                    failed_line(svg, cell_pt, box_pt, write, mark, &data);
                    drawn += 1;
                    continue;
                }
                let (from, to, attrs) = if write {
                    (
                        box_pt,
                        cell_pt,
                        format!(
                            r#"class="flow write" stroke="{colour}" stroke-width="1.6" marker-end="url(#arrow)" opacity="0.8""#
                        ),
                    )
                } else {
                    (
                        cell_pt,
                        box_pt,
                        format!(
                            r#"class="flow read" stroke="{colour}" stroke-width="1.1" stroke-dasharray="4 2" opacity="0.7""#
                        ),
                    )
                };
                // For the HTML page: which cell and thread a line joins.
                let data = format!(
                    r#" data-cell="{}" data-thread="{}""#,
                    esc(&t.name_of(e.cell)),
                    esc(&thread_label(th.tid, t.block))
                );
                svg.line(from, to, &(attrs + &data));
                drawn += 1;
            }
        }
    }
    // The refused accesses: to their ghost cells, or to a cell inside (misaligned).
    for f in &marks.failed {
        if f.thread >= shown {
            continue;
        }
        let Some(th) = threads.get(f.thread) else {
            continue;
        };
        let (space, var, index) = f.slot;
        let Some(row) = rows.iter().find(|r| r.cell_space == space && r.var == var) else {
            continue;
        };
        let inside = usize::try_from(index)
            .ok()
            .filter(|&i| i < row.window.len)
            .and_then(|i| row.cell_xy(i));
        let ghost = row.ghost_xy(index);
        let Some((cx, cy)) = inside.or(ghost) else {
            continue;
        };
        let (bxp, byp) = box_at(f.thread);
        let above = row.y < threads_top;
        let cell_pt = if row.window.rows > 1 && inside.is_some() {
            (cx + CELL_W / 2.0, cy + CELL_H / 2.0)
        } else {
            (cx + CELL_W / 2.0, if above { cy + CELL_H } else { cy })
        };
        let box_pt = (bxp + BOX_W / 2.0, if above { byp } else { byp + BOX_H });
        let name = match space {
            Space::Global => t.globals.get(var),
            Space::Shared => t.shared.get(var),
        }
        .map_or("?", |v| v.name.as_str());
        let data = format!(
            r#" data-cell="{}" data-thread="{}""#,
            esc(&format!("{name}[{index}]")),
            esc(&thread_label(th.tid, t.block))
        );
        failed_line(svg, cell_pt, box_pt, f.write, &f.mark, &data);
        drawn += 1;
    }
    svg.close();

    // Thread boxes with counts; over budget in red.
    let budget = l.budget;
    svg.group(r#"class="threads""#);
    for (i, th) in threads.iter().take(shown).enumerate() {
        let (x, by) = box_at(i);
        let counts = th.counts();
        let over: Vec<usize> = (0..4)
            .filter(|&k| budget.get(k).is_some_and(|b| counts[k] > b))
            .collect();
        let colour = thread_colour(i);
        let label = thread_label(th.tid, t.block);
        let names = [
            "global reads",
            "global writes",
            "shared reads",
            "shared writes",
        ];
        let mut tip = format!("{label}: ");
        tip.push_str(
            &(0..4)
                .map(|k| match budget.get(k) {
                    Some(b) => format!("{} {} of {b}", counts[k], names[k]),
                    None => format!("{} {}", counts[k], names[k]),
                })
                .collect::<Vec<_>>()
                .join(", "),
        );
        let class = if over.is_empty() {
            "thread"
        } else {
            "thread over"
        };
        let stroke = if over.is_empty() {
            format!(r#"stroke="{colour}" stroke-width="2""#)
        } else {
            r##"stroke="#d00000" stroke-width="3.5""##.to_string()
        };
        svg.rect(
            x,
            by,
            BOX_W,
            BOX_H,
            &format!(
                r##"class="{class}" rx="5" fill="#ffffff" {stroke} data-thread="{}""##,
                esc(&label)
            ),
            Some(&tip),
        );
        svg.text(
            x + BOX_W / 2.0,
            by + 13.0,
            &label,
            &format!(r#"font-size="11" font-weight="bold" text-anchor="middle" fill="{colour}""#),
        );
        let part = |k: usize, tag: &str| -> String { format!("{}{tag}", counts[k]) };
        let g = format!("g {} {}", part(0, "r"), part(1, "w"));
        let s = format!("s {} {}", part(2, "r"), part(3, "w"));
        let over_g = over.iter().any(|&k| k < 2);
        let over_s = over.iter().any(|&k| k >= 2);
        let fill = |o: bool| {
            if o {
                r##"fill="#d00000" font-weight="bold""##
            } else {
                r##"fill="#333333""##
            }
        };
        svg.text(
            x + BOX_W / 2.0,
            by + 25.0,
            &g,
            &format!(r#"font-size="9" text-anchor="middle" {}"#, fill(over_g)),
        );
        svg.text(
            x + BOX_W / 2.0,
            by + 36.0,
            &s,
            &format!(r#"font-size="9" text-anchor="middle" {}"#, fill(over_s)),
        );
    }
    svg.close();
    svg.text(
        MARGIN,
        threads_top + 14.0,
        "threads",
        r##"font-size="12" fill="#333333" font-weight="bold""##,
    );
    if threads.len() > shown {
        svg.text(
            MARGIN,
            threads_top + 30.0,
            &format!("first {shown} of {}", threads.len()),
            r##"font-size="10" fill="#666666""##,
        );
    }
    if drawn == 0 && !threads.is_empty() {
        svg.text(
            MARGIN + LABEL_W,
            threads_top - 12.0,
            "no thread of this block read or wrote global or shared memory",
            r##"font-size="11" fill="#b00000" class="idle""##,
        );
    }
    Ok((width, y - top, !marks.is_empty()))
}

/// A read or write line of an access the checkers reported: red, thicker, with the
/// diagnostic's kind and line.
fn failed_line(
    svg: &mut Svg,
    cell_pt: (f64, f64),
    box_pt: (f64, f64),
    write: bool,
    mark: &Mark,
    data: &str,
) {
    let (from, to, attrs) = if write {
        (
            box_pt,
            cell_pt,
            format!(
                r#"class="flow write failed" stroke="{FAIL_RED}" stroke-width="2.2" marker-end="url(#arrow)""#
            ),
        )
    } else {
        (
            cell_pt,
            box_pt,
            format!(
                r#"class="flow read failed" stroke="{FAIL_RED}" stroke-width="2" stroke-dasharray="5 2""#
            ),
        )
    };
    svg.line(from, to, &(attrs + data + &mark.data()));
}

/// The ghost cells of a row: elements outside the array that threads tried to touch, red
/// with a dashed outline, labelled with their names.
fn draw_ghosts(svg: &mut Svg, r: &Row, t: &LaunchTrace) {
    let name = match r.cell_space {
        Space::Global => t.globals.get(r.var),
        Space::Shared => t.shared.get(r.var),
    }
    .map_or("?", |v| v.name.as_str());
    for (index, mark) in &r.ghosts {
        let Some((x, y)) = r.ghost_xy(*index) else {
            continue;
        };
        let cell = format!("{name}[{index}]");
        let side = if *index < 0 {
            "before the start"
        } else {
            "past the end"
        };
        let tip = format!(
            "{cell}: {side} of {name} ({} elements): {}",
            r.window.len, mark.note
        );
        svg.rect(
            x,
            y,
            CELL_W,
            CELL_H,
            &format!(
                r##"class="cell out-of-bounds" fill="#fde4e4" stroke="{FAIL_RED}" stroke-width="2" stroke-dasharray="4 2" data-cell="{}"{}"##,
                esc(&cell),
                mark.data()
            ),
            Some(&tip),
        );
        // The name when it fits, else the index alone.
        let label = if cell.chars().count() <= 6 {
            cell.clone()
        } else {
            format!("[{index}]")
        };
        svg.text(
            x + CELL_W / 2.0,
            y + CELL_H / 2.0 + 4.0,
            &label,
            &format!(
                r#"font-size="9" text-anchor="middle" fill="{FAIL_RED}" font-weight="bold" class="ghost-label""#
            ),
        );
    }
}

fn draw_row(
    svg: &mut Svg,
    r: &Row,
    writers: &HashMap<Cell, BTreeSet<(usize, usize)>>,
    t: &LaunchTrace,
    marks: &Marks,
) {
    svg.group(&format!(r#"class="row" data-name="{}""#, esc(&r.label)));
    let label = if r.window.whole() {
        r.label.clone()
    } else {
        format!("{} (part of {} cells)", r.label, r.window.len)
    };
    svg.text(
        r.x,
        r.y - 5.0,
        &label,
        r##"font-size="12" fill="#222222" font-weight="bold""##,
    );
    for row in 0..r.window.rows {
        for col in 0..r.window.cols {
            let i = (r.window.row0 + row) * r.window.stride + r.window.col0 + col;
            if i >= r.window.len || (r.window.col0 + col) >= r.window.stride {
                continue;
            }
            let Some((x, y)) = r.cell_xy(i) else { continue };
            let cell = Cell {
                space: r.cell_space,
                var: r.var,
                index: i,
            };
            let twice = writers.get(&cell).is_some_and(|w| w.len() > 1);
            let wrong = r.wrong.get(&i);
            let unwritten = r.unwritten.contains(&i);
            let mut class = String::from("cell");
            let mut tip = t.name_of(cell);
            if let Some(v) = r.values.as_ref().and_then(|v| v.get(i)) {
                tip.push_str(&format!(" = {}", short_value(*v)));
            }
            let (fill, stroke) = if unwritten {
                class.push_str(" unwritten");
                tip.push_str(": nobody wrote it");
                ("url(#hatch)", r##"stroke="#777777" stroke-width="1""##)
            } else if r.cell_space == Space::Shared {
                ("#eef3fb", r##"stroke="#7f93b5" stroke-width="1""##)
            } else {
                ("#fbfbf7", r##"stroke="#8a8a8a" stroke-width="1""##)
            };
            if twice {
                class.push_str(" twice");
                let n = writers.get(&cell).map(|w| w.len()).unwrap_or(0);
                tip.push_str(&format!(": written by {n} threads"));
            }
            let mark = marks.cells.get(&cell);
            if let Some((word, m)) = mark {
                class.push(' ');
                class.push_str(word);
                tip.push_str(&format!(": {} ({})", m.note, m.kind));
            }
            let stroke = match wrong {
                Some((e, g)) => {
                    class.push_str(" wrong");
                    tip.push_str(&format!(
                        ": expected {}, got {}",
                        short_value(*e),
                        short_value(*g)
                    ));
                    r##"stroke="#d00000" stroke-width="3""##.to_string()
                }
                None if mark.is_some() => {
                    format!(r#"stroke="{FAIL_RED}" stroke-width="2.5" stroke-dasharray="5 3""#)
                }
                None => stroke.to_string(),
            };
            let data = mark.map(|(_, m)| m.data()).unwrap_or_default();
            svg.rect(
                x,
                y,
                CELL_W,
                CELL_H,
                &format!(
                    r#"class="{class}" fill="{fill}" {stroke} data-cell="{}"{data}"#,
                    esc(&t.name_of(cell))
                ),
                Some(&tip),
            );
            if mark.is_some() {
                svg.text(
                    x + CELL_W - 3.0,
                    y + CELL_H - 3.0,
                    "!",
                    &format!(
                        r#"font-size="10" text-anchor="end" fill="{FAIL_RED}" font-weight="bold" class="fail-mark""#
                    ),
                );
            }
            svg.text(
                x + 3.0,
                y + 9.0,
                &i.to_string(),
                r##"font-size="7" fill="#888888""##,
            );
            if let Some(v) = r.values.as_ref().and_then(|v| v.get(i)) {
                if !unwritten {
                    svg.text(
                        x + CELL_W / 2.0,
                        y + 20.0,
                        &short_value(*v),
                        r##"font-size="11" text-anchor="middle" fill="#111111""##,
                    );
                }
            }
            if twice {
                svg.text(
                    x + CELL_W - 2.0,
                    y + 9.0,
                    "×2",
                    r##"font-size="8" text-anchor="end" fill="#c05000" font-weight="bold" class="twice-mark""##,
                );
            }
        }
    }
    draw_ghosts(svg, r, t);
    svg.close();
}

/// The key under the panels; returns the y below it.
fn legend(svg: &mut Svg, top: f64) -> f64 {
    let x = MARGIN;
    let y = top;
    svg.group(r#"class="legend""#);
    svg.rect(
        x,
        y,
        18.0,
        14.0,
        r##"fill="#fbfbf7" stroke="#d00000" stroke-width="3""##,
        None,
    );
    svg.text(
        x + 24.0,
        y + 11.0,
        "differs from the spec",
        r#"font-size="11""#,
    );
    svg.rect(
        x + 170.0,
        y,
        18.0,
        14.0,
        r##"fill="url(#hatch)" stroke="#777777""##,
        None,
    );
    svg.text(x + 194.0, y + 11.0, "nobody wrote it", r#"font-size="11""#);
    svg.text(
        x + 310.0,
        y + 11.0,
        "×2",
        r##"font-size="11" fill="#c05000" font-weight="bold""##,
    );
    svg.text(
        x + 330.0,
        y + 11.0,
        "written by two threads",
        r#"font-size="11""#,
    );
    let y2 = y + 22.0;
    svg.line(
        (x, y2 + 6.0),
        (x + 30.0, y2 + 6.0),
        r##"stroke="#555555" stroke-width="1.1" stroke-dasharray="4 2""##,
    );
    svg.text(x + 36.0, y2 + 10.0, "read", r#"font-size="11""#);
    svg.line(
        (x + 90.0, y2 + 6.0),
        (x + 120.0, y2 + 6.0),
        r##"stroke="#555555" stroke-width="1.6" marker-end="url(#arrow)""##,
    );
    svg.text(x + 126.0, y2 + 10.0, "write", r#"font-size="11""#);
    svg.rect(
        x + 180.0,
        y2,
        18.0,
        14.0,
        r##"fill="#ffffff" stroke="#d00000" stroke-width="3""##,
        None,
    );
    svg.text(
        x + 204.0,
        y2 + 11.0,
        "thread over budget (g: global, s: shared; r reads, w writes)",
        r#"font-size="11""#,
    );
    svg.close();
    y2 + 20.0
}

/// The key to the checkers' marks, under the usual key when a panel has any; returns the y
/// below it.
fn legend_marks(svg: &mut Svg, top: f64) -> f64 {
    let x = MARGIN;
    let y = top;
    svg.group(r#"class="legend marks""#);
    svg.rect(
        x,
        y,
        18.0,
        14.0,
        &format!(r##"fill="#fde4e4" stroke="{FAIL_RED}" stroke-width="2" stroke-dasharray="4 2""##),
        None,
    );
    svg.text(
        x + 24.0,
        y + 11.0,
        "outside its array (named: a[4])",
        r#"font-size="11""#,
    );
    svg.line(
        (x + 210.0, y + 7.0),
        (x + 240.0, y + 7.0),
        &format!(r#"stroke="{FAIL_RED}" stroke-width="2" stroke-dasharray="5 2""#),
    );
    svg.text(
        x + 246.0,
        y + 11.0,
        "an access the run reported",
        r#"font-size="11""#,
    );
    svg.rect(
        x + 420.0,
        y,
        18.0,
        14.0,
        &format!(
            r##"fill="#fbfbf7" stroke="{FAIL_RED}" stroke-width="2.5" stroke-dasharray="5 3""##
        ),
        None,
    );
    svg.text(
        x + 444.0,
        y + 11.0,
        "raced on, or read before written (!)",
        r#"font-size="11""#,
    );
    svg.close();
    y + 20.0
}
