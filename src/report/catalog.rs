//! Text for browsing the pack: `gpuzzle list` (progress) and `gpuzzle show` (one puzzle, with a
//! picture of its launch shape).

use crate::puzzle::{BlockLimits, Budget, PerfKind};
use crate::puzzle::{Puzzle, Status};
use colored::Colorize;
use std::fmt::Write;

/// A puzzle whose file could not be loaded, as `list` shows it.
pub struct BrokenRow {
    pub id: Option<u32>,
    /// The title if the file still says it, else the slug or file name.
    pub name: String,
    pub part: Option<String>,
    /// The file's errors, one `FILE:LINE: error: ...` line each (with their `help:` lines).
    pub error: String,
}

/// `gpuzzle list`: a progress bar, then the puzzles under a heading per part (parts in pack
/// order: the order of their first puzzle).
pub fn list(puzzles: &[(&Puzzle, Status)]) -> String {
    list_with_broken(puzzles, &[])
}

/// `list`, with the puzzles whose file is broken among the others of their part (or, when the
/// part is unknown, under a heading of their own), each with its errors.
pub fn list_with_broken(puzzles: &[(&Puzzle, Status)], broken: &[BrokenRow]) -> String {
    let total = puzzles.len() + broken.len();
    let passed = puzzles.iter().filter(|(_, s)| *s == Status::Passed).count();
    let width = total.clamp(1, 30);
    let filled = (passed * width).checked_div(total).unwrap_or(0);
    let mut out = format!(
        "Progress  {}{}  {passed}/{total}\n",
        "█".repeat(filled).green(),
        "░".repeat(width - filled)
    );
    const NO_PART: &str = "Puzzle files with errors";
    let part_of = |b: &BrokenRow| b.part.clone().unwrap_or_else(|| NO_PART.to_string());
    let mut parts: Vec<String> = Vec::new();
    let named = puzzles
        .iter()
        .map(|(p, _)| p.part.clone())
        .chain(broken.iter().map(part_of));
    for part in named {
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    // A part-less broken file goes last, after every real part.
    if let Some(i) = parts.iter().position(|p| p == NO_PART) {
        let last = parts.remove(i);
        parts.push(last);
    }
    enum Row<'a> {
        Good(&'a Puzzle, Status),
        Broken(&'a BrokenRow),
    }
    for part in parts {
        let _ = writeln!(out, "\n{}", part.bold());
        let mut rows: Vec<(u32, Row)> = puzzles
            .iter()
            .filter(|(p, _)| p.part == part)
            .map(|(p, s)| (p.id, Row::Good(p, *s)))
            .collect();
        rows.extend(
            broken
                .iter()
                .filter(|b| part_of(b) == part)
                .map(|b| (b.id.unwrap_or(u32::MAX), Row::Broken(b))),
        );
        rows.sort_by_key(|(id, _)| *id);
        for (_, row) in rows {
            match row {
                Row::Good(p, s) => {
                    let mark = match s {
                        Status::Passed => "✓".green().to_string(),
                        Status::Failed => "✗".red().to_string(),
                        Status::NotTried => "·".dimmed().to_string(),
                    };
                    let _ = writeln!(out, "  {:>2} {mark} {}", p.id, p.title);
                }
                Row::Broken(b) => {
                    let id = b.id.map_or(String::new(), |i| i.to_string());
                    let _ = writeln!(
                        out,
                        "  {id:>2} {} {} {}",
                        "!".red().bold(),
                        b.name,
                        "(broken puzzle file: fix it to play this puzzle)".red()
                    );
                    for line in b.error.lines() {
                        let _ = writeln!(out, "       {line}");
                    }
                }
            }
        }
    }
    out
}

/// The budget lines of one kernel: `global reads   1`, `sectors per access 5`.
fn budget_lines(out: &mut String, b: &Budget, indent: &str) {
    for (i, n) in crate::report::counters::LABELS.iter().enumerate() {
        if let Some(v) = b.get(i) {
            let _ = writeln!(out, "{indent}{n:<18} {v}");
        }
    }
    for kind in PerfKind::ALL {
        if let Some(v) = b.perf(kind) {
            let _ = writeln!(out, "{indent}{:<18} {v}", kind.label());
        }
    }
}

/// The limits on a block's totals: `global atomics     at most 1 per block (all its threads)`,
/// `shared writes      at least 1 in every block`.
fn block_lines(out: &mut String, (most, least): (&BlockLimits, &BlockLimits), indent: &str) {
    for (i, n) in crate::report::counters::LABELS.iter().enumerate() {
        if let Some(v) = most.get(i) {
            let _ = writeln!(
                out,
                "{indent}{n:<18} at most {v} per block (all its threads)"
            );
        }
        if let Some(v) = least.get(i) {
            let _ = writeln!(out, "{indent}{n:<18} at least {v} in every block");
        }
    }
}

/// `gpuzzle show`: description, kernels, budget, tests with their launches; with `spec`, the
/// reference too.
pub fn show(p: &Puzzle, file: &str, spec: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}  {}",
        format!("Puzzle {} · {}", p.id, p.title).bold(),
        file.dimmed()
    );
    let _ = writeln!(out, "{}\n", p.part.dimmed());
    for line in p.description.trim_end().lines() {
        let _ = writeln!(out, "  {line}");
    }
    let heading = if p.is_multi_launch() {
        "Kernels"
    } else {
        "Kernel"
    };
    let _ = writeln!(out, "\n{}", heading.bold());
    for sig in p.signatures() {
        let _ = writeln!(out, "  {sig}");
    }
    if !p.defines.is_empty() {
        let d: Vec<String> = p
            .defines
            .iter()
            .map(|(n, v)| v.as_ref().map_or(n.clone(), |v| format!("{n} = {v}")))
            .collect();
        let _ = writeln!(out, "  defines: {}", d.join(", "));
    }
    if p.is_multi_launch() {
        for k in &p.kernels {
            let _ = writeln!(
                out,
                "\n{}",
                format!("Budget of {} (max per thread)", k.name).bold()
            );
            budget_lines(&mut out, &k.budget, "  ");
            block_lines(&mut out, (&k.block_budget, &k.require), "  ");
        }
    } else {
        let _ = writeln!(
            out,
            "\n{}",
            "Budget (memory: max per thread; perf: worst line)".bold()
        );
        budget_lines(&mut out, &p.budget, "  ");
        block_lines(&mut out, (&p.block_budget, &p.require), "  ");
    }
    for t in &p.tests {
        let _ = writeln!(out, "\n{} {}", "Test".bold(), t.name);
        let steps = p.steps(t);
        if p.is_multi_launch() {
            for (i, s) in steps.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  launch {} of {}: {}",
                    i + 1,
                    steps.len(),
                    s.kernel.bold()
                );
                out.push_str(&launch_picture(s.grid, s.block));
                if s.shared_bytes > 0 {
                    let _ = writeln!(out, "  dynamic shared: {} bytes", s.shared_bytes);
                }
            }
        } else {
            out.push_str(&launch_picture(t.grid, t.block));
        }
        // `[[test]] defines`: the values this test compiles the kernel with instead.
        if !t.defines.is_empty() {
            let d: Vec<String> = t
                .defines
                .iter()
                .map(|(n, v)| v.as_ref().map_or(n.clone(), |v| format!("{n} = {v}")))
                .collect();
            let _ = writeln!(out, "  defines: {} (in this test)", d.join(", "));
        }
        for (name, b) in &t.buffers {
            let shape = b
                .shape
                .map_or(format!("{}", b.len), |[r, c]| format!("{r}×{c}"));
            let role = if b.output { "output" } else { "input" };
            let _ = writeln!(out, "  {name}: {} [{shape}] {role}", b.ty);
        }
        for (name, b) in &t.scratch {
            let _ = writeln!(out, "  {name}: {} [{}] scratch", b.ty, b.len);
        }
        for (name, v) in &t.scalars {
            let _ = writeln!(out, "  {name} = {v}");
        }
    }
    if spec {
        let _ = writeln!(
            out,
            "\n{}",
            "Spec (the reference the output is compared with)".bold()
        );
        for line in p.spec.trim_end().lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

/// A small picture of the grid: blocks as boxes holding one dot per thread when it fits,
/// otherwise a one-line summary.
pub fn launch_picture(grid: [u32; 3], block: [u32; 3]) -> String {
    let [gx, gy, gz] = grid;
    let [bx, by, bz] = block;
    let mut out = format!(
        "  grid {} of blocks {} = {} threads\n",
        dims(grid),
        dims(block),
        grid.iter().map(|&d| d as u64).product::<u64>()
            * block.iter().map(|&d| d as u64).product::<u64>()
    );
    if gz > 1 || bz > 1 || gx > 6 || gy > 4 || bx > 16 || by > 8 {
        return out;
    }
    let cell = bx as usize * 2 + 1;
    let rule = format!(
        "  +{}\n",
        format!("{}+", "-".repeat(cell)).repeat(gx as usize)
    );
    for _ in 0..gy {
        out.push_str(&rule);
        for _ in 0..by {
            let row = format!("|{} ", " ·".repeat(bx as usize)).repeat(gx as usize);
            let _ = writeln!(out, "  {row}|");
        }
    }
    out.push_str(&rule);
    out.push_str("  (one box per block, one · per thread; x grows right, y grows down)\n");
    out
}

fn dims(d: [u32; 3]) -> String {
    match d {
        [x, 1, 1] => format!("{x}"),
        [x, y, 1] => format!("{x}×{y}"),
        [x, y, z] => format!("{x}×{y}×{z}"),
    }
}

/// What `hint` (and `watch`'s `h`) says once every hint was shown: where help goes on from
/// there.
pub fn no_more_hints(p: &Puzzle) -> String {
    format!(
        "No more hints for puzzle {}: `gpuzzle show {} --spec` prints the sequential reference, \
         and `gpuzzle solution {} --force` prints a solution if you decide to look.",
        p.id, p.id, p.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_file_is_listed_in_its_part_with_its_errors() {
        colored::control::set_override(false);
        let pack = crate::puzzle::embedded_puzzles().unwrap();
        let rows: Vec<_> = pack[..4].iter().map(|p| (p, Status::NotTried)).collect();
        let broken = [
            BrokenRow {
                id: Some(9),
                name: "Pooling".into(),
                part: Some(pack[0].part.clone()),
                error: "puzzles/09_pooling.toml:3: error: `titel`: unknown field\n  help: fix it"
                    .into(),
            },
            BrokenRow {
                id: None,
                name: "notes".into(),
                part: None,
                error: "puzzles/notes.toml:1: error: bad".into(),
            },
        ];
        let out = list_with_broken(&rows, &broken);
        assert!(out.contains("0/6"), "{out}");
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains(" 9 ! Pooling"))
            .unwrap();
        assert!(
            lines[at - 1].contains(" 4 · "),
            "in id order within its part: {out}"
        );
        assert!(lines[at + 1]
            .trim()
            .starts_with("puzzles/09_pooling.toml:3: error"));
        assert!(lines[at + 2].trim() == "help: fix it");
        let tail: Vec<&&str> = lines.iter().rev().take(3).collect();
        assert_eq!(tail[2].trim(), "Puzzle files with errors", "{out}");
    }

    #[test]
    fn picture_draws_one_box_per_block() {
        colored::control::set_override(false);
        let s = launch_picture([2, 2, 1], [3, 3, 1]);
        assert!(s.contains("grid 2×2 of blocks 3×3 = 36 threads"), "{s}");
        assert_eq!(s.matches("| · · · | · · · |").count(), 6, "{s}");
        let big = launch_picture([64, 1, 1], [256, 1, 1]);
        assert_eq!(big.lines().count(), 1);
    }
}
