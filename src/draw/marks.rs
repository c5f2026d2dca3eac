//! The accesses a run's diagnostics are about, as marks on the flow picture of one block:
//! refused accesses (out of bounds, misaligned) from the trace, each a red line to its cell, a
//! "ghost" cell past the end (or before the start) of its array when it lies outside; the two
//! accesses of a race and the element they share; the element an uninitialised read read; the
//! tile element an async copy was still filling when a thread read (or wrote) it.
//! Nothing here is drawn: `flow` places and draws what this finds. A run without diagnostics
//! and without refused accesses has no marks, and its picture is the same as without this.

use crate::emu::facts::{Access as FAccess, Element, Facts, Space as FSpace};
use crate::emu::result::{DiagKind, Diagnostic};
use crate::trace::events::{Cell, EventKind, LaunchTrace, Space};
use std::collections::{BTreeMap, HashMap};

/// Ghost cells drawn per side of an array (the ones nearest it); further ones are left out.
pub const MAX_GHOSTS: usize = 8;

/// What a mark says: the diagnostic kind (`out-of-bounds`), its line, and a few words for
/// the tooltip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub kind: &'static str,
    pub line: Option<u32>,
    pub note: String,
}

impl Mark {
    /// ` data-kind="…" data-line="…"` for the element the mark is on.
    pub fn data(&self) -> String {
        match self.line {
            Some(l) => format!(r#" data-kind="{}" data-line="{l}""#, self.kind),
            None => format!(r#" data-kind="{}""#, self.kind),
        }
    }
}

/// An element by array and index, inside the array or not.
pub type Slot = (Space, usize, i64);

/// A refused access of one thread of the block (deduplicated by element and direction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedLine {
    /// The thread's linear index in the block.
    pub thread: usize,
    pub slot: Slot,
    pub write: bool,
    pub mark: Mark,
}

#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// Cells inside their arrays that a diagnostic is about: the class word (`raced`,
    /// `uninitialized`, `misaligned`) and the mark.
    pub cells: HashMap<Cell, (&'static str, Mark)>,
    /// Lines of the block's threads to draw in red: (thread, cell, write).
    pub lines: HashMap<(usize, Cell, bool), Mark>,
    /// Elements outside their arrays that threads of the block tried to touch, nearest the
    /// array first (at most `MAX_GHOSTS` a side), with the first such access's mark.
    pub ghosts: BTreeMap<Slot, Mark>,
    /// The refused accesses to draw: to a ghost, or to a cell inside (misaligned).
    pub failed: Vec<FailedLine>,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty() && self.lines.is_empty() && self.failed.is_empty()
    }
}

fn linear(tid: [u32; 3], block: [u32; 3]) -> usize {
    (tid[0] + tid[1] * block[0] + tid[2] * block[0] * block[1]) as usize
}

fn verb(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Read => "read",
        EventKind::Write => "wrote",
        EventKind::Atomic => "updated",
    }
}

/// The directions (write or not) of the lines an access is drawn as.
fn directions(a: FAccess) -> &'static [bool] {
    match a {
        FAccess::Read => &[false],
        FAccess::Write => &[true],
        FAccess::Atomic => &[false, true],
    }
}

/// The trace's cell for a diagnostic's element, when it lies inside its array.
fn cell_of(t: &LaunchTrace, space: FSpace, el: &Element) -> Option<Cell> {
    let (space, vars) = match space {
        FSpace::Global => (Space::Global, &t.globals),
        FSpace::Shared => (Space::Shared, &t.shared),
        FSpace::Local | FSpace::Param => return None,
    };
    let var = vars.iter().position(|v| v.name == el.name)?;
    let index = usize::try_from(el.index).ok()?;
    (index < vars[var].len).then_some(Cell { space, var, index })
}

/// The marks for block `block` of launch `t`, whose checkers reported `diags`.
pub fn marks(t: &LaunchTrace, diags: &[Diagnostic], block: [u32; 3]) -> Marks {
    let mut m = Marks::default();
    let Some(threads) = t.block(block) else {
        return m;
    };
    // Refused accesses, as the trace recorded them: every thread's, not only the one the
    // (deduplicated) diagnostic names.
    let mut before: BTreeMap<(Space, usize), Vec<(i64, Mark)>> = BTreeMap::new();
    let mut after: BTreeMap<(Space, usize), Vec<(i64, Mark)>> = BTreeMap::new();
    for (ti, th) in threads.iter().enumerate() {
        for f in &th.failed {
            let len = match f.space {
                Space::Global => t.globals.get(f.var),
                Space::Shared => t.shared.get(f.var),
            }
            .map_or(0, |v| v.len);
            let outside = f.index < 0 || f.index as u64 >= len as u64;
            let name = t.failed_name(f);
            let who = crate::trace::text::thread_label(th.tid, t.block);
            let at = if f.line > 0 {
                format!(" (line {})", f.line)
            } else {
                String::new()
            };
            let mark = Mark {
                kind: if outside {
                    DiagKind::OutOfBounds.as_str()
                } else {
                    DiagKind::Misaligned.as_str()
                },
                line: (f.line > 0).then_some(f.line),
                note: format!("{who} {} {name}{at}", verb(f.kind)),
            };
            let slot = (f.space, f.var, f.index);
            if outside {
                let side = if f.index < 0 { &mut before } else { &mut after };
                let list = side.entry((f.space, f.var)).or_default();
                if !list.iter().any(|(i, _)| *i == f.index) {
                    list.push((f.index, mark.clone()));
                }
            } else if let Ok(index) = usize::try_from(f.index) {
                let cell = Cell {
                    space: f.space,
                    var: f.var,
                    index,
                };
                m.cells.entry(cell).or_insert(("misaligned", mark.clone()));
            }
            for &write in directions(match f.kind {
                EventKind::Read => FAccess::Read,
                EventKind::Write => FAccess::Write,
                EventKind::Atomic => FAccess::Atomic,
            }) {
                let seen = m
                    .failed
                    .iter()
                    .any(|l| l.thread == ti && l.slot == slot && l.write == write);
                if !seen {
                    m.failed.push(FailedLine {
                        thread: ti,
                        slot,
                        write,
                        mark: mark.clone(),
                    });
                }
            }
        }
    }
    // The ghosts nearest each array; a refused access to one left out is not drawn.
    for (side, nearest_first) in [(before, true), (after, false)] {
        for ((space, var), mut list) in side {
            list.sort_by_key(|(i, _)| *i);
            if nearest_first {
                list.reverse();
            }
            for (index, mark) in list.into_iter().take(MAX_GHOSTS) {
                m.ghosts.insert((space, var, index), mark);
            }
        }
    }
    let ghosts = &m.ghosts;
    m.failed.retain(|l| {
        let inside = m
            .cells
            .keys()
            .any(|c| (c.space, c.var, c.index as i64) == l.slot);
        inside || ghosts.contains_key(&l.slot)
    });

    // Races and uninitialised reads, from the diagnostics.
    for d in diags {
        let kind = d.kind.as_str();
        let line = d.line;
        let who = crate::trace::text::thread_label(d.thread, t.block);
        match &d.facts {
            Facts::Race {
                space,
                element: Some(el),
                other_thread,
                other_block,
                mine,
                theirs,
                ..
            } => {
                let Some(cell) = cell_of(t, *space, el) else {
                    continue;
                };
                let here = d.block == block;
                let there = other_block.unwrap_or(d.block) == block;
                // A shared element is the block's own: only the shown block's races.
                if cell.space == Space::Shared && !here {
                    continue;
                }
                let other = other_thread.map(|o| crate::trace::text::thread_label(o, t.block));
                let note = match &other {
                    Some(o) => format!("{who} and {o} raced on {}", t.name_of(cell)),
                    None => format!("{who} raced on {}", t.name_of(cell)),
                };
                let mark = Mark { kind, line, note };
                m.cells.entry(cell).or_insert(("raced", mark.clone()));
                if here {
                    for &w in directions(*mine) {
                        let key = (linear(d.thread, t.block), cell, w);
                        m.lines.entry(key).or_insert(mark.clone());
                    }
                }
                if let (true, Some(o)) = (there, other_thread) {
                    let other_mark = Mark {
                        line: d.other_line.or(line),
                        ..mark.clone()
                    };
                    for &w in directions(*theirs) {
                        let key = (linear(*o, t.block), cell, w);
                        m.lines.entry(key).or_insert(other_mark.clone());
                    }
                }
            }
            Facts::Uninitialized { element: Some(el) } => {
                if d.block != block {
                    continue;
                }
                let Some(cell) = cell_of(t, FSpace::Shared, el) else {
                    continue;
                };
                let mark = Mark {
                    kind,
                    line,
                    note: format!("{who} read {} before any thread wrote it", t.name_of(cell)),
                };
                m.cells
                    .entry(cell)
                    .or_insert(("uninitialized", mark.clone()));
                let key = (linear(d.thread, t.block), cell, false);
                m.lines.entry(key).or_insert(mark);
            }
            // An async copy's tile read (or overwritten) while the copy was in flight: the
            // cell the copy was filling, and the line of the thread that touched it.
            Facts::AsyncCopy(f) => {
                use crate::emu::facts::AsyncHazard as H;
                let (Some(el), true) = (&f.element, d.block == block) else {
                    continue;
                };
                let (space, write) = match f.hazard {
                    H::ReadBeforeWait | H::ReadBeforeBarrier => (FSpace::Shared, false),
                    H::DestinationOverwritten => (FSpace::Shared, true),
                    H::SourceOverwritten => (FSpace::Global, true),
                    _ => continue,
                };
                let Some(cell) = cell_of(t, space, el) else {
                    continue;
                };
                let issuer = crate::trace::text::thread_label(f.issuer, t.block);
                let did = if write { "wrote" } else { "read" };
                let copy = if f.own_copy {
                    "its own async copy".to_string()
                } else {
                    format!("the async copy of {issuer}")
                };
                let mark = Mark {
                    kind,
                    line,
                    note: format!(
                        "{who} {did} {} while {copy} (line {}) was in flight",
                        t.name_of(cell),
                        f.issue_line
                    ),
                };
                m.cells.entry(cell).or_insert(("in-flight", mark.clone()));
                let key = (linear(d.thread, t.block), cell, write);
                m.lines.entry(key).or_insert(mark);
            }
            _ => {}
        }
    }
    m
}

/// One line naming what the checkers reported over every launch, or `None` when nothing
/// was: `out-of-bounds: thread 4 of block 0 read a[4] … (line 3); also shared-race`.
pub fn caption<'a>(diags: impl IntoIterator<Item = &'a Diagnostic>) -> Option<String> {
    let diags: Vec<&Diagnostic> = diags.into_iter().collect();
    let first = diags.first()?;
    let mut text = format!("{}: {}", first.kind.as_str(), first.message);
    if let Some(cut) = text.char_indices().nth(220).map(|(i, _)| i) {
        text.truncate(cut);
        text.push('…');
    }
    let mut others: Vec<&str> = Vec::new();
    for d in &diags[1..] {
        let k = d.kind.as_str();
        if !others.contains(&k) {
            others.push(k);
        }
    }
    match diags.len() - 1 {
        0 => {}
        1 => text.push_str(&format!("; and 1 more ({})", others.join(", "))),
        n => text.push_str(&format!("; and {n} more ({})", others.join(", "))),
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::facts::Hazard;
    use crate::emu::result::Severity;
    use crate::trace::events::{Event, FailedAccess, ThreadEvents, Var};

    fn var(name: &str, len: usize) -> Var {
        Var {
            name: name.into(),
            base: 0,
            elem_size: 4,
            len,
        }
    }

    fn failed(index: i64, kind: EventKind, line: u32) -> FailedAccess {
        FailedAccess {
            space: Space::Global,
            var: 1,
            index,
            kind,
            line,
            site: (0, 1),
        }
    }

    fn event(space: Space, var: usize, index: usize, kind: EventKind, line: u32) -> Event {
        Event {
            cell: Cell { space, var, index },
            kind,
            line,
            site: (0, line),
            first: true,
        }
    }

    /// Four threads of `guard` without the guard: t2, t3 read past the end of a (2 elements).
    fn guard_trace() -> LaunchTrace {
        let threads = (0..4u32)
            .map(|i| ThreadEvents {
                tid: [i, 0, 0],
                events: vec![event(Space::Global, 0, i as usize, EventKind::Write, 3)],
                failed: if i >= 2 {
                    vec![failed(i as i64, EventKind::Read, 3)]
                } else {
                    Vec::new()
                },
            })
            .collect();
        LaunchTrace {
            kernel: "guard".into(),
            grid: [1, 1, 1],
            block: [4, 1, 1],
            globals: vec![var("out", 4), var("a", 2)],
            shared: vec![var("cache", 4)],
            blocks: vec![([0, 0, 0], threads)],
            complete: true,
        }
    }

    fn diag(kind: DiagKind, thread: u32, line: u32, facts: Facts) -> Diagnostic {
        Diagnostic {
            kind,
            severity: Severity::Error,
            message: format!("thread {thread} of block 0 did it (line {line})"),
            help: None,
            facts,
            file: None,
            line: Some(line),
            block: [0, 0, 0],
            thread: [thread, 0, 0],
            other_line: None,
        }
    }

    #[test]
    fn reads_past_the_end_are_ghosts_with_their_lines() {
        let t = guard_trace();
        let m = marks(&t, &[], [0, 0, 0]);
        let ghosts: Vec<(String, &Mark)> = m
            .ghosts
            .iter()
            .map(|((s, v, i), mk)| {
                let f = FailedAccess {
                    space: *s,
                    var: *v,
                    index: *i,
                    ..failed(0, EventKind::Read, 0)
                };
                (t.failed_name(&f), mk)
            })
            .collect();
        assert_eq!(ghosts.len(), 2);
        assert_eq!(ghosts[0].0, "a[2]");
        assert_eq!(ghosts[1].0, "a[3]");
        assert_eq!(ghosts[0].1.kind, "out-of-bounds");
        assert_eq!(ghosts[0].1.line, Some(3));
        assert_eq!(ghosts[0].1.note, "t2 read a[2] (line 3)");
        let lines: Vec<(usize, i64, bool)> = m
            .failed
            .iter()
            .map(|l| (l.thread, l.slot.2, l.write))
            .collect();
        assert_eq!(lines, [(2, 2, false), (3, 3, false)]);
        assert!(m.cells.is_empty() && m.lines.is_empty());
        assert!(!m.is_empty());
    }

    #[test]
    fn ghosts_are_the_nearest_on_each_side_and_bounded() {
        let mut t = guard_trace();
        for th in &mut t.blocks[0].1 {
            th.failed.clear();
        }
        let th = &mut t.blocks[0].1[0];
        th.failed = (0..20)
            .map(|k| failed(2 + k * 3, EventKind::Write, 5))
            .chain((1..12).map(|k| failed(-k, EventKind::Read, 4)))
            .collect();
        let m = marks(&t, &[], [0, 0, 0]);
        let after: Vec<i64> = m.ghosts.keys().filter(|k| k.2 >= 0).map(|k| k.2).collect();
        let before: Vec<i64> = m.ghosts.keys().filter(|k| k.2 < 0).map(|k| k.2).collect();
        assert_eq!(after, [2, 5, 8, 11, 14, 17, 20, 23]);
        assert_eq!(before, [-8, -7, -6, -5, -4, -3, -2, -1]);
        // Lines only to the ghosts drawn.
        assert_eq!(m.failed.len(), 2 * MAX_GHOSTS);
        assert!(m.failed.iter().all(|l| m.ghosts.contains_key(&l.slot)));
        assert!(m
            .failed
            .iter()
            .any(|l| l.write && l.mark.kind == "out-of-bounds"));
    }

    #[test]
    fn a_race_marks_its_cell_and_both_threads_lines() {
        let t = guard_trace();
        let facts = Facts::Race {
            space: FSpace::Shared,
            hazard: Hazard::ReadAfterWrite,
            element: Some(Element {
                name: "cache".into(),
                index: 0,
                len: 4,
            }),
            other_thread: Some([0, 0, 0]),
            other_block: None,
            across_blocks: false,
            same_warp: true,
            block_threads: 4,
            mine: FAccess::Read,
            theirs: FAccess::Write,
        };
        let mut d = diag(DiagKind::SharedRace, 1, 9, facts);
        d.other_line = Some(7);
        let m = marks(&t, std::slice::from_ref(&d), [0, 0, 0]);
        let cache0 = Cell {
            space: Space::Shared,
            var: 0,
            index: 0,
        };
        let (class, mark) = &m.cells[&cache0];
        assert_eq!(*class, "raced");
        assert_eq!(mark.kind, "shared-race");
        assert_eq!(mark.note, "t1 and t0 raced on cache[0]");
        assert_eq!(m.lines[&(1, cache0, false)].line, Some(9));
        assert_eq!(m.lines[&(0, cache0, true)].line, Some(7));
        assert_eq!(m.lines.len(), 2);
        // Another block's shared race is not this block's.
        d.block = [1, 0, 0];
        assert!(marks(&t, &[d], [0, 0, 0]).cells.is_empty());
    }

    #[test]
    fn a_read_of_a_tile_in_flight_marks_the_cell_and_the_reader() {
        let t = guard_trace();
        let facts = Facts::AsyncCopy(crate::emu::facts::AsyncFacts {
            element: Some(Element {
                name: "cache".into(),
                index: 2,
                len: 4,
            }),
            issuer: [3, 0, 0],
            issue_line: 4,
            ..crate::emu::facts::AsyncFacts::new(crate::emu::facts::AsyncHazard::ReadBeforeWait)
        });
        let d = diag(DiagKind::AsyncCopy, 1, 6, facts);
        let m = marks(&t, &[d], [0, 0, 0]);
        let cell = Cell {
            space: Space::Shared,
            var: 0,
            index: 2,
        };
        let (class, mark) = &m.cells[&cell];
        assert_eq!(*class, "in-flight");
        assert_eq!(mark.kind, "async-copy");
        assert_eq!(
            mark.note,
            "t1 read cache[2] while the async copy of t3 (line 4) was in flight"
        );
        assert_eq!(m.lines[&(1, cell, false)].line, Some(6));
    }

    #[test]
    fn an_uninitialised_read_marks_the_cell_and_the_reader() {
        let t = guard_trace();
        let facts = Facts::Uninitialized {
            element: Some(Element {
                name: "cache".into(),
                index: 3,
                len: 4,
            }),
        };
        let d = diag(DiagKind::UninitializedRead, 2, 6, facts);
        let m = marks(&t, &[d], [0, 0, 0]);
        let cell = Cell {
            space: Space::Shared,
            var: 0,
            index: 3,
        };
        assert_eq!(m.cells[&cell].0, "uninitialized");
        assert_eq!(m.lines[&(2, cell, false)].kind, "uninitialized-read");
        // An element outside the array names no cell.
        let far = Facts::Uninitialized {
            element: Some(Element {
                name: "cache".into(),
                index: 9,
                len: 4,
            }),
        };
        let d = diag(DiagKind::UninitializedRead, 2, 6, far);
        assert!(marks(&t, &[d], [0, 0, 0]).cells.is_empty());
    }

    #[test]
    fn nothing_reported_is_no_marks_and_no_caption() {
        let mut t = guard_trace();
        for th in &mut t.blocks[0].1 {
            th.failed.clear();
        }
        assert!(marks(&t, &[], [0, 0, 0]).is_empty());
        assert_eq!(caption(&[]), None);
    }

    #[test]
    fn the_caption_names_the_first_diagnostic_and_counts_the_rest() {
        let a = diag(DiagKind::OutOfBounds, 4, 3, Facts::None);
        let b = diag(DiagKind::SharedRace, 1, 7, Facts::None);
        let c = diag(DiagKind::SharedRace, 2, 7, Facts::None);
        assert_eq!(
            caption([&a]).as_deref(),
            Some("out-of-bounds: thread 4 of block 0 did it (line 3)")
        );
        assert_eq!(
            caption([&a, &b, &c]).as_deref(),
            Some("out-of-bounds: thread 4 of block 0 did it (line 3); and 2 more (shared-race)")
        );
    }
}
