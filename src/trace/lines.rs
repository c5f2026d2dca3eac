//! One thread's accesses of one counter, per source line: where an over-budget figure comes
//! from (`judge::overrun`). Counted exactly as the emulator's counters count: a vector access
//! as one per element it moves, an atomic as one read and one write.

use super::events::{EventKind, LaunchTrace, Space, ThreadEvents};
use crate::judge::outcome::LineUse;
use crate::ptx::ir::Op;
use crate::ptx::Module;

/// Elements named per line (`a[3], a[4], …`); `LineUse::distinct` counts them all.
pub const MAX_CELLS: usize = 4;

/// What `counter` (an index into `Counters::NAMES`: global reads, global writes, shared
/// reads, shared writes, global atomics, shared atomics) counted of `thread`'s accesses, per
/// source line, in file and line order. The counts add up to the thread's figure for that
/// counter when its log is complete.
pub fn per_line(
    trace: &LaunchTrace,
    module: &Module,
    thread: &ThreadEvents,
    counter: usize,
) -> Vec<LineUse> {
    per_line_of(trace, module, std::slice::from_ref(thread), counter)
}

/// `per_line` of several threads together (a block's, for `block_budget`): their counts on a
/// line add up, and its cells are the distinct ones of all of them.
pub fn per_line_of(
    trace: &LaunchTrace,
    module: &Module,
    threads: &[ThreadEvents],
    counter: usize,
) -> Vec<LineUse> {
    let space = if matches!(counter, 0 | 1 | 4) {
        Space::Global
    } else {
        Space::Shared
    };
    // (file index, line) → its entry, in order of first access; sorted at the end.
    let mut found: Vec<((u32, u32), LineUse)> = Vec::new();
    // Cells seen per entry, all of them, to count the distinct ones.
    let mut seen: Vec<std::collections::HashSet<super::Cell>> = Vec::new();
    for e in threads.iter().flat_map(|t| &t.events) {
        let counted = match counter {
            0 | 2 => e.kind.reads(),
            1 | 3 => e.kind.writes(),
            _ => e.kind == EventKind::Atomic,
        };
        if e.cell.space != space || !counted {
            continue;
        }
        let inst =
            (module.functions.get(e.site.0 as usize)).and_then(|f| f.body.get(e.site.1 as usize));
        let file = inst.map_or(0, |i| i.file);
        let key = (file, e.line);
        let at = match found.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                found.push((
                    key,
                    LineUse {
                        file: module.file_name(file).map(str::to_string),
                        line: (e.line > 0).then_some(e.line),
                        ..LineUse::default()
                    },
                ));
                seen.push(Default::default());
                found.len() - 1
            }
        };
        let entry = &mut found[at].1;
        // One access, however many elements the trace split it into, counts as the
        // instruction moved registers (`ld.global.v4.f32`: 4).
        if e.first {
            entry.count += if counter >= 4 {
                1
            } else {
                inst.map_or(1, |i| elements(&i.op))
            };
        }
        if seen[at].insert(e.cell) {
            entry.distinct += 1;
            if entry.cells.len() < MAX_CELLS {
                entry.cells.push(trace.name_of(e.cell));
            }
        }
    }
    let mut lines: Vec<((u32, u32), LineUse)> = found;
    lines.sort_by_key(|(k, _)| *k);
    lines.into_iter().map(|(_, l)| l).collect()
}

/// How many elements the counters count for one execution of `op`: its registers for a
/// vector load or store, else one (atomics count one read and one write).
fn elements(op: &Op) -> u64 {
    match op {
        Op::Ld { d, .. } => d.len().max(1) as u64,
        Op::St { src, .. } => src.len().max(1) as u64,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::events::{Cell, Event, EventKind, Var};

    fn event(space: Space, index: usize, kind: EventKind, line: u32, first: bool) -> Event {
        Event {
            cell: Cell {
                space,
                var: 0,
                index,
            },
            kind,
            line,
            site: (0, 0),
            first,
        }
    }

    fn var(name: &str) -> Var {
        Var {
            name: name.into(),
            base: 0,
            elem_size: 4,
            len: 64,
        }
    }

    #[test]
    fn counts_per_line_in_line_order_atomics_both_ways_and_one_space_at_a_time() {
        let trace = LaunchTrace {
            globals: vec![var("a")],
            shared: vec![var("cache")],
            ..LaunchTrace::default()
        };
        use EventKind::*;
        use Space::*;
        let thread = ThreadEvents {
            tid: [0, 0, 0],
            events: vec![
                event(Global, 9, Read, 12, true),
                event(Global, 3, Read, 7, true),
                // One access split over two elements (a u64 load of two floats): one read.
                event(Global, 4, Read, 7, true),
                event(Global, 5, Read, 7, false),
                event(Global, 3, Read, 7, true),
                event(Global, 1, Atomic, 12, true),
                event(Global, 2, Write, 14, true),
                event(Shared, 0, Read, 7, true),
                event(Global, 6, Read, 7, true),
                event(Global, 7, Read, 7, true),
                event(Global, 8, Read, 7, true),
            ],
            ..ThreadEvents::default()
        };
        let m = Module::default();
        let reads = per_line(&trace, &m, &thread, 0);
        let got: Vec<_> = reads
            .iter()
            .map(|l| (l.line, l.count, l.distinct))
            .collect();
        assert_eq!(got, [(Some(7), 6, 6), (Some(12), 2, 2)]);
        assert_eq!(reads[0].cells, ["a[3]", "a[4]", "a[5]", "a[6]"]);
        let writes = per_line(&trace, &m, &thread, 1);
        let got: Vec<_> = writes.iter().map(|l| (l.line, l.count)).collect();
        assert_eq!(got, [(Some(12), 1), (Some(14), 1)]);
        let shared = per_line(&trace, &m, &thread, 2);
        assert_eq!(shared.len(), 1);
        assert_eq!(
            (shared[0].count, &shared[0].cells[..]),
            (1, &["cache[0]".to_string()][..])
        );
        assert!(per_line(&trace, &m, &thread, 3).is_empty());
    }

    #[test]
    fn atomics_count_on_their_own_and_a_block_s_threads_add_up() {
        let trace = LaunchTrace {
            globals: vec![var("out")],
            shared: vec![var("s")],
            ..LaunchTrace::default()
        };
        use EventKind::*;
        use Space::*;
        // Each thread: one global atomic on out[0] (line 4), a write of out[t] (line 5) and
        // a shared atomic (line 6).
        let threads: Vec<ThreadEvents> = (0..3)
            .map(|t| ThreadEvents {
                tid: [t, 0, 0],
                events: vec![
                    event(Global, 0, Atomic, 4, true),
                    event(Global, t as usize, Write, 5, true),
                    event(Shared, 0, Atomic, 6, true),
                ],
                ..ThreadEvents::default()
            })
            .collect();
        let m = Module::default();
        let of = |counter| -> Vec<(Option<u32>, u64, usize)> {
            (per_line_of(&trace, &m, &threads, counter).iter())
                .map(|l| (l.line, l.count, l.distinct))
                .collect()
        };
        // Global atomics: 3 on one line, one cell; shared atomics likewise at line 6.
        assert_eq!(of(4), [(Some(4), 3, 1)]);
        assert_eq!(of(5), [(Some(6), 3, 1)]);
        // Global writes: the atomics' and the three distinct cells of line 5.
        assert_eq!(of(1), [(Some(4), 3, 1), (Some(5), 3, 3)]);
        // One thread alone, as `per_line` counts it.
        let one = per_line(&trace, &m, &threads[1], 4);
        assert_eq!(
            (one[0].count, &one[0].cells[..]),
            (1, &["out[0]".to_string()][..])
        );
    }
}
