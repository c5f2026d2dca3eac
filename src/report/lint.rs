//! `gpuzzle lint`: one line per puzzle (`ok`, or how many problems), each problem under it as
//! `file:line: problem` with its fix; and the JSON for scripts.

use crate::lint::{Problem, PuzzleLint};
use colored::Colorize;
use serde_json::{json, Value};

/// `puzzles/03_guard.toml:12` (the line when there is one).
fn place(p: &Problem) -> String {
    match p.line {
        Some(l) => format!("{}:{l}", p.file),
        None => p.file.clone(),
    }
}

/// The text report: a line per puzzle, its problems indented below it, then a total.
pub fn text(results: &[PuzzleLint]) -> String {
    let wid = results
        .iter()
        .map(|r| r.id.map_or(1, |i| i.to_string().len()))
        .max()
        .unwrap_or(1)
        .max(2);
    let wslug = results
        .iter()
        .map(|r| r.slug.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut lines = Vec::new();
    for r in results {
        let id = r.id.map_or_else(|| "-".to_string(), |i| i.to_string());
        let verdict = match r.problems.len() {
            0 => "ok".green().to_string(),
            1 => "1 problem".red().bold().to_string(),
            n => format!("{n} problems").red().bold().to_string(),
        };
        lines.push(format!("{id:>wid$}  {:<wslug$}  {verdict}", r.slug));
        for p in &r.problems {
            lines.push(format!("    {}: {}", place(p), p.what));
            lines.push(format!("      {} {}", "fix:".bold(), p.fix));
        }
    }
    let bad = results.iter().filter(|r| !r.problems.is_empty()).count();
    let problems: usize = results.iter().map(|r| r.problems.len()).sum();
    lines.push(String::new());
    let total = if bad == 0 {
        format!("{} puzzles, all ok", results.len()).green().bold()
    } else {
        format!(
            "{} puzzles: {} ok, {bad} with problems ({problems} in all)",
            results.len(),
            results.len() - bad
        )
        .red()
        .bold()
    };
    lines.push(total.to_string());
    lines.join("\n")
}

/// `{"ok", "problems", "puzzles": [{"id", "slug", "file", "ok", "lazy_kernels",
/// "problems": [{"file", "line", "rule", "problem", "fix"}]}]}`; `id` and `line` may be null.
pub fn json(results: &[PuzzleLint]) -> Value {
    let problems: usize = results.iter().map(|r| r.problems.len()).sum();
    json!({
        "ok": problems == 0,
        "problems": problems,
        "puzzles": results.iter().map(|r| json!({
            "id": r.id,
            "slug": r.slug,
            "file": r.file,
            "ok": r.problems.is_empty(),
            "lazy_kernels": r.lazy_kernels,
            "problems": r.problems,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results() -> Vec<PuzzleLint> {
        vec![
            PuzzleLint {
                id: Some(1),
                slug: "map".into(),
                file: "puzzles/01_map.toml".into(),
                lazy_kernels: 0,
                problems: vec![],
            },
            PuzzleLint {
                id: Some(3),
                slug: "guard".into(),
                file: "puzzles/03_guard.toml".into(),
                lazy_kernels: 1,
                problems: vec![Problem {
                    file: "solutions/lazy/03_guard/fixed.cu".into(),
                    line: Some(1),
                    rule: "lazy-passes",
                    what: "the lazy kernel passes".into(),
                    fix: "tighten the tests".into(),
                }],
            },
        ]
    }

    #[test]
    fn text_has_a_line_per_puzzle_and_each_problem_with_its_fix() {
        colored::control::set_override(false);
        let t = text(&results());
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], " 1  map     ok");
        assert_eq!(lines[1], " 3  guard   1 problem");
        assert_eq!(
            lines[2],
            "    solutions/lazy/03_guard/fixed.cu:1: the lazy kernel passes"
        );
        assert_eq!(lines[3], "      fix: tighten the tests");
        assert_eq!(
            lines.last(),
            Some(&"2 puzzles: 1 ok, 1 with problems (1 in all)")
        );
    }

    #[test]
    fn json_has_the_documented_shape() {
        let v = json(&results());
        assert_eq!(v["ok"], false);
        assert_eq!(v["problems"], 1);
        assert_eq!(v["puzzles"][0]["ok"], true);
        let p = &v["puzzles"][1]["problems"][0];
        let mut keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["file", "fix", "line", "problem", "rule"]);
        assert_eq!(p["rule"], "lazy-passes");
        assert_eq!(v["puzzles"][1]["lazy_kernels"], 1);
    }
}
