//! `draw --warps`: the warp-level view of the performance puzzles. For the worst global
//! access (most 32-byte sectors for one warp), each lane's address against the sectors it falls
//! in; for the worst shared access (most bank-conflict ways), the 32 banks with the lanes that
//! hit each, so an n-way conflict is a column n high.

use super::svg::{thread_colour, Svg};
use crate::trace::events::{Cell, EventKind, LaunchTrace, Space};
use crate::trace::Capture;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One warp-level access: the lanes of one warp executing one memory instruction together.
#[derive(Clone, Debug, PartialEq)]
pub struct WarpAccess {
    pub launch: usize,
    pub kernel: String,
    pub block: [u32; 3],
    pub warp: usize,
    pub line: u32,
    pub write: bool,
    /// (lane, element) per active lane, in lane order.
    pub lanes: Vec<(usize, Cell)>,
    /// Sectors (global) or bank-conflict ways (shared).
    pub figure: usize,
    pub var_name: String,
}

/// Byte address (global) or shared offset of an element.
fn byte_of(t: &LaunchTrace, c: Cell) -> u64 {
    let v = t.var(c);
    v.base + c.index as u64 * v.elem_size
}

/// Distinct 32-byte sectors touched.
pub fn sectors(t: &LaunchTrace, lanes: &[(usize, Cell)]) -> BTreeSet<u64> {
    lanes
        .iter()
        .flat_map(|&(_, c)| {
            let a = byte_of(t, c);
            let size = t.var(c).elem_size;
            (a / 32)..=((a + size - 1) / 32)
        })
        .collect()
}

/// Per bank, the distinct 4-byte words the lanes hit (and which lanes hit each word).
pub fn banks(t: &LaunchTrace, lanes: &[(usize, Cell)]) -> BTreeMap<u64, BTreeMap<u64, Vec<usize>>> {
    let mut b: BTreeMap<u64, BTreeMap<u64, Vec<usize>>> = BTreeMap::new();
    for &(lane, c) in lanes {
        let a = byte_of(t, c);
        let size = t.var(c).elem_size.max(1);
        for w in (a / 4)..(a + size).div_ceil(4) {
            b.entry(w % 32)
                .or_default()
                .entry(w)
                .or_default()
                .push(lane);
        }
    }
    b
}

fn ways(t: &LaunchTrace, lanes: &[(usize, Cell)]) -> usize {
    banks(t, lanes)
        .values()
        .map(BTreeMap::len)
        .max()
        .unwrap_or(1)
}

/// The worst global and worst shared warp access over every launch and block of the test
/// (ties: the first in launch, block, warp and program order).
pub fn worst(c: &Capture) -> (Option<WarpAccess>, Option<WarpAccess>) {
    let mut g: Option<WarpAccess> = None;
    let mut s: Option<WarpAccess> = None;
    for (li, l) in c.launches.iter().enumerate() {
        let t = &l.trace;
        for (block, threads) in &t.blocks {
            for (wi, warp) in threads.chunks(32).enumerate() {
                // (line, n-th time there, space) → lanes, in first-seen order: a line's
                // loads, or its stores and atomics, as the perf figures group them
                // (`emu::perf`), so an access issued one lane at a time is one warp access.
                let mut order: Vec<GroupKey> = Vec::new();
                let mut groups: HashMap<GroupKey, Group> = HashMap::new();
                for (lane, th) in warp.iter().enumerate() {
                    let mut nth: HashMap<LineSite, u32> = HashMap::new();
                    for e in &th.events {
                        let write = e.kind != EventKind::Read;
                        // Without line information, each instruction is its own.
                        let site = match e.line {
                            0 => (e.site.0, 0, write, e.site.1),
                            line => (e.site.0, line, write, u32::MAX),
                        };
                        // A vector access is one instruction: its elements share the count.
                        let n = nth.entry(site).or_insert(0);
                        if e.first {
                            *n += 1;
                        }
                        let n = n.saturating_sub(1);
                        let key = (site, n, e.cell.space);
                        let g = groups.entry(key).or_insert_with(|| {
                            order.push(key);
                            (e.line, e.kind != EventKind::Read, Vec::new())
                        });
                        if !g.2.iter().any(|&(l, c)| l == lane && c == e.cell) {
                            g.2.push((lane, e.cell));
                        }
                    }
                }
                for key in order {
                    let (line, write, lanes) = &groups[&key];
                    let shared = key.2 == Space::Shared;
                    let figure = if shared {
                        ways(t, lanes)
                    } else {
                        sectors(t, lanes).len()
                    };
                    let slot = if shared { &mut s } else { &mut g };
                    if slot.as_ref().is_none_or(|w| figure > w.figure) {
                        *slot = Some(WarpAccess {
                            launch: li,
                            kernel: t.kernel.clone(),
                            block: *block,
                            warp: wi,
                            line: *line,
                            write: *write,
                            var_name: lanes
                                .first()
                                .map(|&(_, c)| t.var(c).name.clone())
                                .unwrap_or_default(),
                            lanes: lanes.clone(),
                            figure,
                        });
                    }
                }
            }
        }
    }
    (g, s)
}

/// A warp-level access: (instruction, n-th execution by the lane, space).
/// (function, line, writes, instruction when the line is unknown).
type LineSite = (u32, u32, bool, u32);
type GroupKey = (LineSite, u32, Space);
/// Its line, whether it writes, and (lane, element) per lane.
type Group = (u32, bool, Vec<(usize, Cell)>);

const LANE_W: f64 = 26.0;
const LEFT: f64 = 16.0;

/// The SVG: a global panel and a shared panel (each says when the test has no such access).
pub fn draw(c: &Capture) -> String {
    let (g, s) = worst(c);
    let mut svg = Svg::new();
    let mut y = 16.0;
    svg.text(
        LEFT,
        y + 14.0,
        &format!(
            "Puzzle {} · {} — test {} ({}): warps, sectors and banks",
            c.puzzle_id,
            c.title,
            c.test_index + 1,
            c.verdict.name
        ),
        r#"font-size="16" font-weight="bold" class="heading""#,
    );
    y += 34.0;
    let width = LEFT * 2.0 + 32.0 * LANE_W + 150.0;
    y = global_panel(&mut svg, c, g.as_ref(), y, width);
    y = shared_panel(&mut svg, c, s.as_ref(), y + 24.0);
    svg.finish(
        width,
        y + 16.0,
        &format!("gpuzzle draw {} --warps", c.puzzle_id),
    )
}

fn where_text(w: &WarpAccess, multi: bool) -> String {
    let launch = if multi {
        format!("launch {} ({}), ", w.launch + 1, w.kernel)
    } else {
        String::new()
    };
    let verb = if w.write { "write to" } else { "read of" };
    let line = if w.line > 0 {
        format!("line {}: ", w.line)
    } else {
        String::new()
    };
    format!(
        "{line}{verb} {}, {launch}block ({},{}), warp {}",
        w.var_name, w.block[0], w.block[1], w.warp
    )
}

fn global_panel(svg: &mut Svg, c: &Capture, w: Option<&WarpAccess>, top: f64, width: f64) -> f64 {
    let mut y = top;
    let Some(w) = w else {
        svg.text(
            LEFT,
            y + 12.0,
            "No global memory access in this test.",
            r#"font-size="13""#,
        );
        return y + 20.0;
    };
    let t = &c.launches[w.launch].trace;
    let secs: Vec<u64> = sectors(t, &w.lanes).into_iter().collect();
    let bytes: u64 = w.lanes.iter().map(|&(_, c)| t.var(c).elem_size).sum();
    let ideal = bytes.div_ceil(32).max(1);
    let n = secs.len() as u64;
    let verdict = if n <= ideal {
        "coalesced".to_string()
    } else if n == ideal + 1 {
        "coalesced, but it starts inside a sector, so it costs one more".to_string()
    } else {
        format!("scattered: {n} sectors where {ideal} would do")
    };
    svg.text(
        LEFT,
        y + 12.0,
        &format!(
            "Worst global access — {}",
            where_text(w, c.launches.len() > 1)
        ),
        r#"font-size="13" font-weight="bold""#,
    );
    svg.text(
        LEFT,
        y + 28.0,
        &format!(
            "{} lanes moved {bytes} bytes in {} sectors of 32 bytes (at best {ideal}): {verdict}",
            w.lanes.len(),
            secs.len()
        ),
        r##"font-size="12" fill="#333333" class="sector-summary""##,
    );
    y += 44.0;
    let lane_y = y;
    let sector_y = y + 120.0;
    // Sectors spread across the width, in address order.
    let n = secs.len().max(1);
    let sw = ((width - 2.0 * LEFT) / n as f64).clamp(6.0, 120.0);
    let sector_x = |k: usize| LEFT + k as f64 * sw;
    svg.group(r#"class="lanes""#);
    for &(lane, cell) in &w.lanes {
        let a = byte_of(t, cell);
        let k = secs.iter().position(|&s| s == a / 32).unwrap_or(0);
        let lx = LEFT + lane as f64 * LANE_W + LANE_W / 2.0;
        svg.line(
            (lx, lane_y + 22.0),
            (sector_x(k) + sw / 2.0, sector_y),
            &format!(
                r#"stroke="{}" stroke-width="1.2" opacity="0.8""#,
                thread_colour(k)
            ),
        );
    }
    for &(lane, cell) in &w.lanes {
        let x = LEFT + lane as f64 * LANE_W;
        svg.rect(
            x + 1.0,
            lane_y,
            LANE_W - 2.0,
            22.0,
            r##"class="lane" fill="#ffffff" stroke="#555555""##,
            Some(&format!("lane {lane}: {}", t.name_of(cell))),
        );
        svg.text(
            x + LANE_W / 2.0,
            lane_y + 15.0,
            &lane.to_string(),
            r#"font-size="9" text-anchor="middle""#,
        );
    }
    svg.close();
    svg.text(
        LEFT,
        lane_y - 4.0,
        "lanes",
        r##"font-size="10" fill="#666666""##,
    );
    svg.group(r#"class="sectors""#);
    for (k, s) in secs.iter().enumerate() {
        let var = t.var(w.lanes[0].1);
        let first = (s * 32).saturating_sub(var.base) / var.elem_size.max(1);
        let last = ((s * 32 + 31).saturating_sub(var.base)) / var.elem_size.max(1);
        svg.rect(
            sector_x(k) + 1.0,
            sector_y,
            (sw - 2.0).max(2.0),
            26.0,
            &format!(
                r#"class="sector" fill="{}" fill-opacity="0.25" stroke="{}""#,
                thread_colour(k),
                thread_colour(k)
            ),
            Some(&format!("sector {k}: {}[{first}..{last}]", var.name)),
        );
        if sw >= 40.0 {
            svg.text(
                sector_x(k) + sw / 2.0,
                sector_y + 17.0,
                &format!("[{first}..{last}]"),
                r#"font-size="9" text-anchor="middle""#,
            );
        }
    }
    svg.close();
    svg.text(
        LEFT,
        sector_y + 42.0,
        "32-byte sectors touched, in address order",
        r##"font-size="10" fill="#666666""##,
    );
    sector_y + 50.0
}

fn shared_panel(svg: &mut Svg, c: &Capture, w: Option<&WarpAccess>, top: f64) -> f64 {
    let y = top;
    let Some(w) = w else {
        svg.text(
            LEFT,
            y + 12.0,
            "No shared memory access in this test.",
            r#"font-size="13""#,
        );
        return y + 20.0;
    };
    let t = &c.launches[w.launch].trace;
    let b = banks(t, &w.lanes);
    let ways = b.values().map(BTreeMap::len).max().unwrap_or(1);
    let verdict = if ways <= 1 {
        "conflict-free: every bank serves at most one word".to_string()
    } else {
        format!("{ways}-way bank conflict: the warp waits {ways} turns on the busiest bank")
    };
    svg.text(
        LEFT,
        y + 12.0,
        &format!(
            "Worst shared access — {}",
            where_text(w, c.launches.len() > 1)
        ),
        r#"font-size="13" font-weight="bold""#,
    );
    svg.text(
        LEFT,
        y + 28.0,
        &verdict,
        r##"font-size="12" fill="#333333" class="bank-summary""##,
    );
    let head = y + 44.0;
    svg.group(r#"class="banks""#);
    for bank in 0..32u64 {
        let x = LEFT + bank as f64 * LANE_W;
        let words = b.get(&bank);
        let n = words.map(BTreeMap::len).unwrap_or(0);
        let conflict = n > 1;
        svg.rect(
            x + 1.0,
            head,
            LANE_W - 2.0,
            18.0,
            if conflict {
                r##"class="bank conflict" fill="#ffe1e1" stroke="#d00000" stroke-width="2""##
            } else {
                r##"class="bank" fill="#eef3fb" stroke="#7f93b5""##
            },
            Some(&format!("bank {bank}: {n} distinct word(s)")),
        );
        svg.text(
            x + LANE_W / 2.0,
            head + 13.0,
            &bank.to_string(),
            r#"font-size="9" text-anchor="middle""#,
        );
        for (k, (word, lanes)) in words.into_iter().flatten().enumerate() {
            let by = head + 22.0 + k as f64 * 30.0;
            let first = lanes.first().copied().unwrap_or(0);
            let label = if lanes.len() == 1 {
                format!("L{first}")
            } else {
                format!("L{first}+{}", lanes.len() - 1)
            };
            svg.rect(
                x + 1.0,
                by,
                LANE_W - 2.0,
                26.0,
                &format!(
                    r#"class="bank-lane" fill="{}" fill-opacity="0.3" stroke="{}""#,
                    thread_colour(first),
                    if conflict { "#d00000" } else { "#555555" }
                ),
                Some(&format!(
                    "bank {bank}, word {word}: lane(s) {}",
                    lanes
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
            svg.text(
                x + LANE_W / 2.0,
                by + 16.0,
                &label,
                r#"font-size="8" text-anchor="middle""#,
            );
        }
    }
    svg.close();
    svg.text(
        LEFT,
        head + 22.0 + ways as f64 * 30.0 + 14.0,
        "32 banks of 4-byte words; each box under a bank is one distinct word the warp asked of it (Lk: lane k, +n: n more lanes on the same word)",
        r##"font-size="10" fill="#666666""##,
    );
    head + 22.0 + ways as f64 * 30.0 + 20.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::events::Var;

    fn trace() -> LaunchTrace {
        LaunchTrace {
            kernel: "k".into(),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            globals: vec![Var {
                name: "a".into(),
                base: 0x1000,
                elem_size: 4,
                len: 1024,
            }],
            shared: vec![Var {
                name: "tile".into(),
                base: 0,
                elem_size: 4,
                len: 1024,
            }],
            blocks: Vec::new(),
            complete: true,
        }
    }

    fn lanes(space: Space, index: impl Fn(usize) -> usize) -> Vec<(usize, Cell)> {
        (0..32)
            .map(|l| {
                (
                    l,
                    Cell {
                        space,
                        var: 0,
                        index: index(l),
                    },
                )
            })
            .collect()
    }

    #[test]
    fn a_row_is_four_sectors_and_a_column_thirty_two() {
        let t = trace();
        assert_eq!(sectors(&t, &lanes(Space::Global, |l| l)).len(), 4);
        assert_eq!(sectors(&t, &lanes(Space::Global, |l| l + 2)).len(), 5);
        assert_eq!(sectors(&t, &lanes(Space::Global, |l| l * 32)).len(), 32);
    }

    #[test]
    fn a_column_of_a_32_wide_tile_is_one_bank_and_a_padded_one_all() {
        let t = trace();
        let column = banks(&t, &lanes(Space::Shared, |l| l * 32));
        assert_eq!(column.len(), 1);
        assert_eq!(column[&0].len(), 32);
        let padded = banks(&t, &lanes(Space::Shared, |l| l * 33));
        assert_eq!(padded.len(), 32);
        assert!(padded.values().all(|w| w.len() == 1));
        // Every lane reading one word is a broadcast, not a conflict.
        assert_eq!(ways(&t, &lanes(Space::Shared, |_| 5)), 1);
    }
}
