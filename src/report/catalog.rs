//! Text for browsing the pack: `gpuzzle list` (progress) and `gpuzzle show` (one puzzle, with a
//! picture of its launch shape).

use crate::puzzle::{Puzzle, Status, TestCase};
use colored::Colorize;
use std::fmt::Write;

/// `gpuzzle list`: a progress bar, then one line per puzzle.
pub fn list(puzzles: &[(&Puzzle, Status)]) -> String {
    let total = puzzles.len();
    let passed = puzzles.iter().filter(|(_, s)| *s == Status::Passed).count();
    let width = total.clamp(1, 30);
    let filled = (passed * width).checked_div(total).unwrap_or(0);
    let mut out = format!(
        "Progress  {}{}  {passed}/{total}\n",
        "█".repeat(filled).green(),
        "░".repeat(width - filled)
    );
    let title_w = puzzles
        .iter()
        .map(|(p, _)| p.title.chars().count())
        .max()
        .unwrap_or(5);
    for (p, s) in puzzles {
        let mark = match s {
            Status::Passed => "✓".green().to_string(),
            Status::Failed => "✗".red().to_string(),
            Status::NotTried => "·".dimmed().to_string(),
        };
        let _ = writeln!(
            out,
            "{:>2} {mark} {:<title_w$}  {}",
            p.id,
            p.title,
            p.part.dimmed()
        );
    }
    out
}

/// `gpuzzle show`: description, launch shape, budget, tests; with `spec`, the reference too.
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
    let _ = writeln!(out, "\n{}", "Kernel".bold());
    let _ = writeln!(out, "  {}", crate::puzzle::kernel_signature(p));
    if !p.defines.is_empty() {
        let d: Vec<String> = p
            .defines
            .iter()
            .map(|(n, v)| v.as_ref().map_or(n.clone(), |v| format!("{n} = {v}")))
            .collect();
        let _ = writeln!(out, "  defines: {}", d.join(", "));
    }
    let _ = writeln!(out, "\n{}", "Budget (max per thread)".bold());
    let names = [
        "global reads",
        "global writes",
        "shared reads",
        "shared writes",
    ];
    for (i, n) in names.iter().enumerate() {
        if let Some(b) = p.budget.get(i) {
            let _ = writeln!(out, "  {n:<14} {b}");
        }
    }
    for t in &p.tests {
        let _ = writeln!(out, "\n{} {}", "Test".bold(), t.name);
        out.push_str(&launch_picture(t));
        for (name, b) in &t.buffers {
            let shape = b
                .shape
                .map_or(format!("{}", b.len), |[r, c]| format!("{r}×{c}"));
            let role = if b.output { "output" } else { "input" };
            let _ = writeln!(out, "  {name}: {} [{shape}] {role}", b.ty);
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
pub fn launch_picture(t: &TestCase) -> String {
    let [gx, gy, gz] = t.grid;
    let [bx, by, bz] = t.block;
    let mut out = format!(
        "  grid {} of blocks {} = {} threads\n",
        dims(t.grid),
        dims(t.block),
        t.grid.iter().product::<u32>() as u64 * t.block.iter().product::<u32>() as u64
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn test(grid: [u32; 3], block: [u32; 3]) -> TestCase {
        TestCase {
            name: "t".into(),
            grid,
            block,
            shared_bytes: 0,
            scalars: BTreeMap::new(),
            buffers: BTreeMap::new(),
        }
    }

    #[test]
    fn picture_draws_one_box_per_block() {
        colored::control::set_override(false);
        let s = launch_picture(&test([2, 2, 1], [3, 3, 1]));
        assert!(s.contains("grid 2×2 of blocks 3×3 = 36 threads"), "{s}");
        assert_eq!(s.matches("| · · · | · · · |").count(), 6, "{s}");
        let big = launch_picture(&test([64, 1, 1], [256, 1, 1]));
        assert_eq!(big.lines().count(), 1);
    }
}
