//! The text twin of the pictures (`run N --trace`): per thread, what it read and then wrote,
//! in program order: `t3: a[1] a[2] a[3] → out[3]`. For screen readers and CI logs.

use super::capture::Capture;
use super::events::{EventKind, LaunchTrace, ThreadEvents};
use std::fmt::Write;

/// Threads listed per launch; the rest are counted (the picture of one block shows them).
const MAX_THREADS: usize = 128;
/// Elements listed per thread before "… and N more".
const MAX_ITEMS: usize = 24;

/// `t3` in a 1D block, `t(1,2)` in a 2D one.
pub fn thread_label(tid: [u32; 3], block: [u32; 3]) -> String {
    if block[1] == 1 && block[2] == 1 {
        format!("t{}", tid[0])
    } else if block[2] == 1 {
        format!("t({},{})", tid[0], tid[1])
    } else {
        format!("t({},{},{})", tid[0], tid[1], tid[2])
    }
}

fn block_label(b: [u32; 3], grid: [u32; 3]) -> String {
    if grid[1] == 1 && grid[2] == 1 {
        format!("block {}", b[0])
    } else {
        format!("block ({},{},{})", b[0], b[1], b[2])
    }
}

/// One thread's line: groups of reads then writes, separated by `;` when it reads again
/// after writing (staging through shared memory).
pub fn thread_line(t: &ThreadEvents, trace: &LaunchTrace) -> String {
    let mut line = thread_label(t.tid, trace.block);
    line.push(':');
    if t.events.is_empty() {
        line.push_str(" (no global or shared access)");
        return line;
    }
    let mut wrote = false;
    for (n, e) in t.events.iter().enumerate() {
        if n == MAX_ITEMS {
            let _ = write!(line, " … and {} more", t.events.len() - MAX_ITEMS);
            break;
        }
        let name = trace.name_of(e.cell);
        match e.kind {
            EventKind::Read => {
                if wrote {
                    line.push(';');
                    wrote = false;
                }
                let _ = write!(line, " {name}");
            }
            EventKind::Write | EventKind::Atomic => {
                if !wrote {
                    line.push_str(" →");
                    wrote = true;
                }
                let atomic = if e.kind == EventKind::Atomic {
                    "atomic "
                } else {
                    ""
                };
                let _ = write!(line, " {atomic}{name}");
            }
        }
    }
    line
}

/// The whole test: per launch, per block, per thread.
pub fn render(c: &Capture) -> String {
    let mut s = String::new();
    let multi = c.launches.len() > 1;
    let test = &c.verdict.name;
    let _ = writeln!(
        s,
        "Trace of test {} ({test}): what each thread read → wrote",
        c.test_index + 1
    );
    for (i, l) in c.launches.iter().enumerate() {
        let t = &l.trace;
        if multi {
            let _ = writeln!(s, "launch {} of {}: {}", i + 1, c.launches.len(), t.kernel);
        }
        if let Some(e) = &l.error {
            let _ = writeln!(s, "  (not traced: {e})");
            continue;
        }
        let many_blocks = t.grid.iter().product::<u32>() > 1;
        let mut shown = 0usize;
        let mut hidden = 0usize;
        for (b, threads) in &t.blocks {
            if shown >= MAX_THREADS {
                hidden += threads.len();
                continue;
            }
            if many_blocks {
                let _ = writeln!(s, "{}:", block_label(*b, t.grid));
            }
            for th in threads {
                if shown >= MAX_THREADS {
                    hidden += 1;
                    continue;
                }
                let _ = writeln!(s, "  {}", thread_line(th, t));
                shown += 1;
            }
        }
        if hidden > 0 {
            let _ = writeln!(
                s,
                "  … {hidden} more threads not listed (`gpuzzle draw {} --block X,Y` draws one block)",
                c.puzzle_id
            );
        }
        if !t.complete {
            let _ = writeln!(
                s,
                "  (the trace stops early: it keeps at most {} accesses per launch; try a smaller test)",
                crate::emu::trace::TRACE_CAP
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::events::{Cell, Event, Space, Var};

    fn trace() -> LaunchTrace {
        let var = |n: &str| Var {
            name: n.into(),
            base: 0,
            elem_size: 4,
            len: 8,
        };
        LaunchTrace {
            kernel: "k".into(),
            grid: [1, 1, 1],
            block: [8, 1, 1],
            globals: vec![var("out"), var("a")],
            shared: vec![var("cache")],
            blocks: Vec::new(),
            complete: true,
        }
    }

    fn ev(space: Space, var: usize, index: usize, kind: EventKind) -> Event {
        Event {
            cell: Cell { space, var, index },
            kind,
            line: 1,
            site: (0, 0),
            first: true,
        }
    }

    #[test]
    fn a_thread_line_reads_then_writes() {
        let t = ThreadEvents {
            tid: [3, 0, 0],
            events: vec![
                ev(Space::Global, 1, 1, EventKind::Read),
                ev(Space::Global, 1, 2, EventKind::Read),
                ev(Space::Global, 1, 3, EventKind::Read),
                ev(Space::Global, 0, 3, EventKind::Write),
            ],
            ..ThreadEvents::default()
        };
        assert_eq!(thread_line(&t, &trace()), "t3: a[1] a[2] a[3] → out[3]");
    }

    #[test]
    fn staging_through_shared_is_two_groups() {
        let t = ThreadEvents {
            tid: [2, 0, 0],
            events: vec![
                ev(Space::Global, 1, 2, EventKind::Read),
                ev(Space::Shared, 0, 2, EventKind::Write),
                ev(Space::Shared, 0, 2, EventKind::Read),
                ev(Space::Shared, 0, 1, EventKind::Read),
                ev(Space::Global, 0, 2, EventKind::Write),
            ],
            ..ThreadEvents::default()
        };
        assert_eq!(
            thread_line(&t, &trace()),
            "t2: a[2] → cache[2]; cache[2] cache[1] → out[2]"
        );
        let idle = ThreadEvents {
            tid: [1, 2, 0],
            events: Vec::new(),
            ..ThreadEvents::default()
        };
        let mut t2 = trace();
        t2.block = [4, 4, 1];
        assert_eq!(
            thread_line(&idle, &t2),
            "t(1,2): (no global or shared access)"
        );
    }
}
