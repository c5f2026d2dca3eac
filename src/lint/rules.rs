//! The rules `gpuzzle lint` checks without running anything: what the puzzle file says it
//! teaches against its tests, an `[unseen]` test where there are sizes, and the numbers its
//! description states against its TOML.
//!
//! - `bounds`: some test (the unseen one included) leaves a block partly full. A test does when,
//!   along some launch dimension d (x or y) whose block has more than one thread, one of its
//!   sizes is not a multiple of block[d]: then the threads that cover it end inside a block
//!   (or, in a grid-stride loop, inside the last stride), and the rest must be kept out by the
//!   guard. A size is a whole-number scalar that is also an extent of an output buffer or of the
//!   test's largest buffer or largest input (so a filter's width, the length of a small input, is none): in a 2D
//!   launch (grid or block with y > 1) a matrix's columns along x and its rows along y; in a 1D
//!   launch, or for a buffer without a shape, its length, rows and columns along x. A kernel
//!   that covers two elements per thread is not modelled (such a test needs a size that is no
//!   multiple of the block); the rule cannot tell which size a thread index really covers, so
//!   where a matrix has several it leans towards accepting.
//! - `block-barrier`: some fixed test, and the unseen one, has blocks of at least 64 threads
//!   (the largest block of its launches), so a warp barrier cannot stand in for a block barrier;
//!   smaller first tests may stay (the notebook's own, in puzzles 12 to 14).
//! - `shared`: the puzzle `require`s `shared_reads` or `shared_writes` of at least 1 (at the
//!   top level or in a `[[kernels]]` table); `atomics`: `global_atomics` or `shared_atomics`.
//! - `[unseen]`: a puzzle whose tests have scalars (sizes) has one.
//! - Description, define values: each `NAME = N` in the description where NAME is a define
//!   with a whole-number value must give that value (or the value some test's or the unseen
//!   test's `defines` gives it). Arithmetic is skipped: `2 * TPB = 32`, `K x K = 3 x 3` and
//!   `N = 2 * TPB` say nothing about one define alone.
//! - Description, budget: in a single-launch puzzle, the sentence that starts `Budget:` (to its
//!   first `.` or `:`, parentheses left out) states per-thread counts such as `1 global read`
//!   or `7 shared reads`; each must equal `budget`'s value for that counter.

use super::Problem;
use crate::puzzle::{Puzzle, Teach, TestCase};
use std::collections::{BTreeMap, BTreeSet};

/// Fewest threads per block for `block-barrier`: two warps.
pub const BARRIER_THREADS: u64 = 64;

/// The tests the rules look at: the puzzle's and its unseen one.
fn all_tests(p: &Puzzle) -> Vec<&TestCase> {
    p.tests
        .iter()
        .chain(p.unseen.as_ref().map(|u| &u.test))
        .collect()
}

/// Each launch of a test as (grid, block).
fn shapes(t: &TestCase) -> Vec<([u32; 3], [u32; 3])> {
    if t.launches.is_empty() {
        vec![(t.grid, t.block)]
    } else {
        t.launches.iter().map(|l| (l.grid, l.block)).collect()
    }
}

/// A buffer's extents: its length, and its rows and columns when it is a matrix.
fn extents(b: &crate::puzzle::BufferSpec) -> Vec<u64> {
    let mut out = vec![b.len as u64];
    if let Some([r, c]) = b.shape {
        out.extend([r as u64, c as u64]);
    }
    out
}

/// Whether `t` leaves a block partly full (the module's definition).
/// A matrix buffer with rows != columns, or a 2D launch whose threads along x and y differ.
fn not_square(t: &TestCase) -> bool {
    let matrix = t
        .buffers
        .values()
        .any(|b| b.shape.is_some_and(|[r, c]| r != c && r > 1 && c > 1));
    let launch = shapes(t).iter().any(|(g, b)| {
        let (x, y) = (
            u64::from(g[0]) * u64::from(b[0]),
            u64::from(g[1]) * u64::from(b[1]),
        );
        y > 1 && x != y
    });
    matrix || launch
}

/// The grid has fewer threads than the largest buffer has elements: each thread loops.
fn fewer_threads_than_elements(t: &TestCase) -> bool {
    let threads: u64 = shapes(t)
        .iter()
        .map(|(g, b)| g.iter().chain(b).map(|&x| u64::from(x)).product::<u64>())
        .max()
        .unwrap_or(0);
    t.buffers.values().any(|b| b.len as u64 > threads)
}

pub fn has_partial_block(t: &TestCase) -> bool {
    // The buffers threads may cover: the outputs and the largest buffer (a filter's width, the
    // length of a small input, is no size).
    // The largest input too: an output padded to whole warps is larger than the array.
    let largest = t.buffers.values().max_by_key(|b| b.len);
    let largest_input = t
        .buffers
        .values()
        .filter(|b| !b.output)
        .max_by_key(|b| b.len);
    let covered: Vec<&crate::puzzle::BufferSpec> = t
        .buffers
        .values()
        .filter(|b| b.output)
        .chain(largest)
        .chain(largest_input)
        .collect();
    let scalars: BTreeSet<u64> = t
        .scalars
        .values()
        .filter(|v| v.fract() == 0.0 && **v >= 1.0 && **v < 1e15)
        .map(|v| *v as u64)
        .collect();
    shapes(t).iter().any(|(grid, block)| {
        let two_d = block[1] > 1 || grid[1] > 1;
        (0..2).any(|d| {
            let b = u64::from(block[d]);
            // In a 2D launch x runs along a matrix's columns and y along its rows.
            let sizes = covered.iter().flat_map(|buf| match (two_d, buf.shape) {
                (true, Some([r, c])) => vec![if d == 0 { c as u64 } else { r as u64 }],
                _ => extents(buf),
            });
            b > 1 && sizes.filter(|s| scalars.contains(s)).any(|s| s % b != 0)
        })
    })
}

/// The largest block of a test's launches, in threads.
pub fn largest_block(t: &TestCase) -> u64 {
    shapes(t)
        .iter()
        .map(|(_, b)| b.iter().map(|&x| u64::from(x)).product::<u64>())
        .max()
        .unwrap_or(1)
}

/// The 1-based line of the first line of `text` that contains `needle` (after `from`, a line).
pub fn line_of(text: &str, needle: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
}

/// The line of a top-level key (`teaches =`, `[unseen]`, `description =`).
fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim_start();
            t.starts_with(key)
                && t[key.len()..]
                    .trim_start()
                    .starts_with(|c: char| c == '=' || key.starts_with('['))
        })
        .map(|i| i + 1)
}

/// Every rule of this module on one puzzle; `text` is its TOML file.
pub fn check(p: &Puzzle, text: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let file = p.toml_path.display().to_string();
    let raw: toml::Table = text.parse().unwrap_or_default();
    let teaches_line = key_line(text, "teaches");
    let problem = |line: Option<usize>, rule: &'static str, what: String, fix: String| Problem {
        file: file.clone(),
        line,
        rule,
        what,
        fix,
    };
    for tag in &p.teaches {
        match tag {
            Teach::Bounds => {
                if !all_tests(p).iter().any(|t| has_partial_block(t)) {
                    out.push(problem(
                        teaches_line,
                        "bounds-untested",
                        "teaches \"bounds\" but no test leaves a block partly full, so a kernel without the guard passes".into(),
                        "add a test whose size is not a multiple of the block (e.g. size = 13 with blocks of 8), or say so in [unseen]".into(),
                    ));
                }
            }
            Teach::BlockBarrier => {
                // One fixed test of two warps fails a warp barrier; small first tests may stay
                // (the notebook's own, in puzzles 12 to 14). The unseen test must hold it too.
                let big = |t: &TestCase| largest_block(t) >= BARRIER_THREADS;
                if !p.tests.iter().any(big) {
                    out.push(problem(
                        teaches_line,
                        "block-barrier-small",
                        format!("teaches \"block-barrier\" but no test has blocks of {BARRIER_THREADS} threads or more: within one warp, __syncwarp() passes for __syncthreads()"),
                        format!("add a test with blocks of at least {BARRIER_THREADS} threads (two warps)"),
                    ));
                }
                if let Some(u) = p.unseen.as_ref().filter(|u| !big(&u.test)) {
                    out.push(problem(
                        test_line(text, &u.test, p).or(teaches_line),
                        "block-barrier-small",
                        format!("teaches \"block-barrier\" but the unseen test has blocks of {} threads, within one warp", largest_block(&u.test)),
                        format!("give [unseen] blocks of at least {BARRIER_THREADS} threads (two warps)"),
                    ));
                }
            }
            Teach::Shared | Teach::Atomics => {
                let keys: &[&str] = if *tag == Teach::Shared {
                    &["shared_reads", "shared_writes"]
                } else {
                    &["global_atomics", "shared_atomics"]
                };
                if !requires_any(&raw, keys) {
                    out.push(problem(
                        teaches_line,
                        "teaches-unrequired",
                        format!("teaches \"{}\" but nothing `require`s it, so a kernel that skips it passes", tag.name()),
                        format!("add `require = {{ {} = 1 }}` (a block's total in every block)", keys[1]),
                    ));
                }
            }
            Teach::TwoD => {
                if !all_tests(p).iter().any(|t| not_square(t)) {
                    out.push(problem(
                        teaches_line,
                        "square-only",
                        "teaches \"2d\" but every test is square (its matrices and its launch), so a kernel with x and y swapped passes".into(),
                        "add a test whose matrices have rows != columns and whose launch covers them with a different x and y".into(),
                    ));
                }
            }
            Teach::GridStride => {
                let grids: BTreeSet<[u32; 3]> = p.tests.iter().map(|t| t.grid).collect();
                if grids.len() < 2 || !p.tests.iter().any(fewer_threads_than_elements) {
                    out.push(problem(
                        teaches_line,
                        "grid-stride-fixed",
                        "teaches \"grid-stride\" but the tests do not use two grid sizes with fewer threads than elements, so a hard-coded stride or a loop-free kernel passes".into(),
                        "add a test with another grid (e.g. 3 blocks where the others use 2), smaller than the array".into(),
                    ));
                }
            }
            Teach::Coalescing | Teach::BankConflicts => {
                let (set, key) = match tag {
                    Teach::Coalescing => {
                        (p.budget.sectors_per_access.is_some(), "sectors_per_access")
                    }
                    _ => (p.budget.bank_ways.is_some(), "bank_ways"),
                };
                if !set {
                    out.push(problem(
                        teaches_line,
                        "teaches-unbudgeted",
                        format!("teaches \"{}\" but the budget has no `{key}`, so a kernel that ignores it passes", tag.name()),
                        format!("add `{key}` to `budget`, at what the reference solution needs"),
                    ));
                }
            }
        }
    }
    if let Some(t) = &p.technique {
        let line = line_of(text, "[technique]", 1).or(teaches_line);
        for &i in &t.counters {
            let name = crate::emu::result::Counters::NAMES[i];
            let fewer = crate::emu::result::Counters::family(i).is_some_and(|f| f.shown_by_fewer());
            if fewer {
                // A load or store instruction count shows the technique by staying low: a
                // budget grades it (`Family::shown_by_fewer`).
                let budgeted = p.block_budget.get(i).is_some()
                    || p.budget.get(i).is_some()
                    || (p.kernels.iter())
                        .any(|k| k.block_budget.get(i).is_some() || k.budget.get(i).is_some());
                if !budgeted {
                    out.push(problem(
                        line,
                        "technique-unrequired",
                        format!("the technique \"{}\" is shown by few `{name}`, but nothing budgets it, so a kernel that does without it passes", t.name),
                        format!("add `block_budget = {{ {name} = N }}` with the N the reference solution's busiest block reaches"),
                    ));
                }
                continue;
            }
            let required = p.require.get(i).is_some_and(|n| n > 0)
                || p.warp_require.names(i)
                || p.require_scaled.names(i)
                || p.kernels
                    .iter()
                    .any(|k| k.require.get(i).is_some_and(|n| n > 0));
            if !required {
                out.push(problem(
                    line,
                    "technique-unrequired",
                    format!("the technique \"{}\" is shown by `{name}`, but nothing `require`s it, so a kernel that does without it passes", t.name),
                    format!("add `require = {{ {name} = N }}` with the N every block of the reference solution reaches"),
                ));
            }
        }
    }
    let sized = p.tests.iter().any(|t| !t.scalars.is_empty());
    if sized && p.unseen.is_none() {
        out.push(problem(
            line_of(text, "[[test]]", 1),
            "unseen-missing",
            "the tests have sizes but there is no [unseen] test, so a kernel with a hard-coded size can pass".into(),
            "add an [unseen] table with a range to draw each size from, e.g. scalars = { size = [40, 200] } (docs/puzzle-format.md: [unseen])".into(),
        ));
    }
    let desc_line = key_line(text, "description").unwrap_or(1);
    for (what, fix, needle) in define_mismatches(p) {
        out.push(problem(
            line_of(text, &needle, desc_line),
            "text-define",
            what,
            fix,
        ));
    }
    if !p.is_multi_launch() {
        for (what, fix, needle) in budget_mismatches(p) {
            out.push(problem(
                line_of(text, &needle, desc_line),
                "text-budget",
                what,
                fix,
            ));
        }
    }
    out
}

/// The line of a test's `name = "..."` (the unseen test: its `[unseen]` header).
fn test_line(text: &str, t: &TestCase, p: &Puzzle) -> Option<usize> {
    if p.unseen.as_ref().is_some_and(|u| u.test.name == t.name) {
        return key_line(text, "[unseen]");
    }
    line_of(text, &format!("\"{}\"", t.name), 1)
}

/// Whether `require` (top level, or a `[[kernels]]` table's) sets one of `keys` to 1 or more.
fn requires_any(raw: &toml::Table, keys: &[&str]) -> bool {
    let sets = |t: Option<&toml::Value>| {
        t.and_then(toml::Value::as_table).is_some_and(|r| {
            keys.iter()
                .any(|k| r.get(*k).and_then(toml::Value::as_integer).unwrap_or(0) >= 1)
        })
    };
    sets(raw.get("require"))
        || raw
            .get("kernels")
            .and_then(toml::Value::as_array)
            .is_some_and(|ks| ks.iter().any(|k| sets(k.get("require"))))
}

/// Every value each define takes: the puzzle's, `[unseen] defines` and each test's `defines`
/// (each test's `TestCase::defines` holds only its overrides).
fn define_values(p: &Puzzle) -> BTreeMap<String, BTreeSet<i64>> {
    let mut out: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    let tests = p.tests.iter().chain(p.unseen.as_ref().map(|u| &u.test));
    let lists = std::iter::once(&p.defines).chain(tests.map(|t| &t.defines));
    for (n, v) in lists.flatten() {
        if let Some(x) = v.as_deref().and_then(|v| v.trim().parse::<i64>().ok()) {
            out.entry(n.clone()).or_default().insert(x);
        }
    }
    out
}

/// Words that make `NAME = N` arithmetic rather than a define's value.
fn is_operator(word: &str) -> bool {
    matches!(word, "x" | "×" | "*" | "+" | "-" | "/" | "by")
        || word.ends_with(['*', '+', '-', '/', '×'])
}

/// `(what, fix, text to find the line by)` for each `NAME = N` that gives a define another value.
fn define_mismatches(p: &Puzzle) -> Vec<(String, String, String)> {
    let values = define_values(p);
    let words: Vec<&str> = p.description.split_whitespace().collect();
    let mut out = Vec::new();
    for i in 1..words.len().saturating_sub(1) {
        if words[i] != "=" {
            continue;
        }
        let name = words[i - 1].trim_start_matches(['(', '`']);
        let Some(allowed) = values.get(name) else {
            continue;
        };
        let digits: String = words[i + 1]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let rest = &words[i + 1][digits.len()..];
        let Ok(n) = digits.parse::<i64>() else {
            continue;
        };
        // `1.5`, `8x`: not a whole number standing alone.
        if rest.starts_with(|c: char| c == '.' && rest.len() > 1 || c.is_alphanumeric()) {
            continue;
        }
        let before = (i >= 2).then(|| words[i - 2]);
        let after = words.get(i + 2).copied();
        if before.is_some_and(is_operator)
            || after.is_some_and(|w| is_operator(w) || w == "=")
            || rest.starts_with(['*', '+', '-', '/'])
        {
            continue;
        }
        if !allowed.contains(&n) {
            let want: Vec<String> = allowed.iter().map(i64::to_string).collect();
            out.push((
                format!(
                    "the description says {name} = {n}, but the file defines {name} = {}",
                    want.join(" or ")
                ),
                format!(
                    "make the text say {name} = {}, or change the define",
                    want.join(" or ")
                ),
                format!("{name} = {n}"),
            ));
        }
    }
    out
}

/// The first sentence after `Budget:`, parentheses left out.
fn budget_sentence(description: &str) -> Option<String> {
    let start = description.find("Budget:")? + "Budget:".len();
    let mut depth = 0usize;
    let mut out = String::new();
    let chars: Vec<char> = description[start..].chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            ':' => break,
            '.' if chars.get(i + 1).is_none_or(|n| n.is_whitespace()) => break,
            _ => out.push(c),
        }
    }
    Some(out)
}

/// `(what, fix, text to find the line by)` for each count the budget sentence states that
/// `budget` does not have.
fn budget_mismatches(p: &Puzzle) -> Vec<(String, String, String)> {
    let Some(sentence) = budget_sentence(&p.description) else {
        return Vec::new();
    };
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let mut out = Vec::new();
    for w in words.windows(3) {
        let Ok(n) = w[0].parse::<u64>() else { continue };
        let space = w[1];
        let access = w[2].trim_end_matches([',', ';']);
        let counter = match (space, access) {
            ("global", "read" | "reads") => "global_reads",
            ("global", "write" | "writes") => "global_writes",
            ("shared", "read" | "reads") => "shared_reads",
            ("shared", "write" | "writes") => "shared_writes",
            _ => continue,
        };
        let i = crate::emu::result::Counters::NAMES
            .iter()
            .position(|c| *c == counter)
            .unwrap_or(0);
        let set = p.budget.get(i);
        if set != Some(n) {
            let what = match set {
                Some(b) => format!(
                    "the description's budget says {n} {space} {access}, but `budget` sets {counter} = {b}"
                ),
                None => format!(
                    "the description's budget says {n} {space} {access}, but `budget` sets no {counter}"
                ),
            };
            out.push((
                what,
                format!("make the text and `budget` agree on {counter}"),
                format!("{n} {space} {access}"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn puzzle(extra: &str, tests: &str) -> (Puzzle, String) {
        let text = format!(
            r#"id = 3
slug = "guard"
title = "Guard"
part = "Threads"
kernel = "guard"
params = ["out", "a", "size"]
defines = {{ TPB = 8 }}
description = """
Launch: blocks of TPB = 8 threads. 2 * TPB = 16 elements, K x TPB = 3 x 8.
Budget: 1 global read (and 3 global reads when 5 shared reads) and 1 global write per thread. Later, 9 global reads.
"""
spec = "for (int i = 0; i < size; i++) out[i] = a[i];"
budget = {{ global_reads = 1, global_writes = 1 }}
{extra}
{tests}
"#
        );
        let p = crate::puzzle::parse_puzzle(&text, Path::new("puzzles/03_guard.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        (p, text)
    }

    fn test(name: &str, grid: u32, block: u32, size: u32) -> String {
        format!(
            "[[test]]\nname = \"{name}\"\ngrid = [{grid}]\nblock = [{block}]\nscalars = {{ size = {size} }}\nbuffers.a = {{ len = {size} }}\nbuffers.out = {{ len = {size}, output = true }}\n"
        )
    }

    const UNSEEN: &str = "[unseen]\nscalars = { size = [64, 64] }\ngrid = [\"(size + TPB - 1) / TPB\"]\nblock = [\"TPB\"]\nbuffers.a = { len = \"size\", init = \"random\" }\nbuffers.out = { len = \"size\", output = true }\n";

    fn rules(extra: &str, tests: &str) -> Vec<&'static str> {
        let (p, text) = puzzle(extra, tests);
        check(&p, &text).iter().map(|p| p.rule).collect()
    }

    #[test]
    fn todays_text_and_a_clean_puzzle_have_no_problems() {
        let tests = test("full", 1, 8, 8) + &test("partial", 2, 8, 13);
        assert_eq!(
            rules(&format!("teaches = [\"bounds\"]\n{UNSEEN}"), &tests),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn a_declared_technique_must_be_required() {
        let tests = test("full", 1, 8, 8) + &test("partial", 2, 8, 13);
        let technique = "[technique]\nname = \"a shuffle fold\"\ncounters = [\"shuffles\"]\n";
        // `require` before the table, so that it stays a top-level key.
        let unrequired = format!("teaches = [\"bounds\"]\n{UNSEEN}{technique}");
        assert_eq!(rules(&unrequired, &tests), ["technique-unrequired"]);
        let (p, text) = puzzle(&unrequired, &tests);
        let found = check(&p, &text);
        assert_eq!(found[0].line, line_of(&text, "[technique]", 1));
        assert!(found[0].what.contains("shuffles"), "{}", found[0].what);
        let required =
            format!("teaches = [\"bounds\"]\nrequire = {{ shuffles = 1 }}\n{UNSEEN}{technique}");
        assert_eq!(rules(&required, &tests), Vec::<&str>::new());
        // Required at 0 is not required.
        let zero = required.replace("shuffles = 1", "shuffles = 0");
        assert_eq!(rules(&zero, &tests), ["technique-unrequired"]);
        // Required of every warp with work is required.
        let per_warp = format!(
            "teaches = [\"bounds\"]\nwarp_require = {{ shuffles = 160 }}\n{UNSEEN}{technique}"
        );
        assert_eq!(rules(&per_warp, &tests), Vec::<&str>::new());
        // Wide loads are shown by few load instructions: a block budget grades them, and a
        // `require` does not.
        let wide = "[technique]\nname = \"float4 loads\"\ncounters = [\"global_load_instrs\"]\n";
        let unbudgeted = format!(
            "teaches = [\"bounds\"]\nrequire = {{ global_load_instrs = 1 }}\n{UNSEEN}{wide}"
        );
        assert_eq!(rules(&unbudgeted, &tests), ["technique-unrequired"]);
        let budgeted = format!(
            "teaches = [\"bounds\"]\nblock_budget = {{ global_load_instrs = 16 }}\n{UNSEEN}{wide}"
        );
        assert_eq!(rules(&budgeted, &tests), Vec::<&str>::new());
    }

    #[test]
    fn bounds_needs_a_partly_full_block() {
        let full = test("full", 1, 8, 8) + &test("two blocks", 2, 8, 16);
        assert_eq!(
            rules(&format!("teaches = [\"bounds\"]\n{UNSEEN}"), &full),
            ["bounds-untested"]
        );
        assert!(has_partial_block(
            &puzzle(UNSEEN, &test("x", 1, 8, 4)).0.tests[0]
        ));
        // Grid-stride: 75 elements over 4 blocks of 8 threads, the last stride partly full.
        assert!(has_partial_block(
            &puzzle(UNSEEN, &test("x", 4, 8, 75)).0.tests[0]
        ));
        assert!(!has_partial_block(
            &puzzle(UNSEEN, &test("x", 4, 8, 64)).0.tests[0]
        ));
        // A scalar that is no buffer's extent (a filter width) is no size.
        let filter = "[[test]]\nname = \"f\"\ngrid = [2]\nblock = [8]\nscalars = { size = 3 }\nbuffers.a = { len = 16 }\nbuffers.out = { len = 16, output = true }\n";
        assert!(!has_partial_block(&puzzle(UNSEEN, filter).0.tests[0]));
        // A column sum: one block per column, its threads over 6 rows.
        let columns = "[[test]]\nname = \"c\"\ngrid = [5]\nblock = [8]\nscalars = { size = 6 }\nbuffers.a = { shape = [6, 5] }\nbuffers.out = { shape = [1, 5], output = true }\n";
        assert!(has_partial_block(&puzzle(UNSEEN, columns).0.tests[0]));
    }

    #[test]
    fn block_barrier_needs_two_warps_in_a_test_and_the_unseen_one() {
        // A small first test beside a big one is fine; the unseen one (TPB = 8) is not.
        let tests = test("small", 1, 32, 32) + &test("big", 1, 64, 64);
        let (p, text) = puzzle(&format!("teaches = [\"block-barrier\"]\n{UNSEEN}"), &tests);
        let found = check(&p, &text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0]
            .what
            .contains("the unseen test has blocks of 8 threads"));
        // Only small tests: flagged at the `teaches` line.
        let tests = test("small", 1, 32, 32);
        let (p, text) = puzzle(&format!("teaches = [\"block-barrier\"]\n{UNSEEN}"), &tests);
        let found = check(&p, &text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].what.contains("no test has blocks of 64"));
        assert_eq!(found[0].line, line_of(&text, "teaches", 1));
    }

    #[test]
    fn grid_stride_needs_two_grids_smaller_than_the_array() {
        let tag = format!("teaches = [\"grid-stride\"]\n{UNSEEN}");
        let rules = |tests: &str| {
            let (p, text) = puzzle(&tag, tests);
            check(&p, &text).iter().map(|f| f.rule).collect::<Vec<_>>()
        };
        // One grid only: a hard-coded stride passes.
        assert!(rules(&test("a", 2, 8, 40)).contains(&"grid-stride-fixed"));
        // Two grids, but each covers its array: no thread loops.
        let covered = test("a", 2, 8, 16) + &test("b", 3, 8, 24);
        assert!(rules(&covered).contains(&"grid-stride-fixed"));
        let looping = test("a", 2, 8, 40) + &test("b", 3, 8, 24);
        assert!(!rules(&looping).contains(&"grid-stride-fixed"));
    }

    #[test]
    fn two_d_needs_a_test_that_is_not_square() {
        let tag = format!("teaches = [\"2d\"]\n{UNSEEN}");
        let matrix = |rows: usize, cols: usize, block: &str| {
            format!("[[test]]\nname = \"m\"\ngrid = [1, 1]\nblock = {block}\nscalars = {{ size = {rows} }}\nbuffers.a = {{ shape = [{rows}, {cols}] }}\nbuffers.out = {{ shape = [{rows}, {cols}], output = true }}\n")
        };
        let rules = |tests: &str| {
            let (p, text) = puzzle(&tag, tests);
            check(&p, &text).iter().map(|f| f.rule).collect::<Vec<_>>()
        };
        assert!(rules(&matrix(4, 4, "[4, 4]")).contains(&"square-only"));
        assert!(!rules(&matrix(3, 5, "[5, 5]")).contains(&"square-only"));
        assert!(!rules(&matrix(4, 4, "[8, 4]")).contains(&"square-only"));
    }

    #[test]
    fn performance_tags_need_their_figure_in_the_budget() {
        let (p, text) = puzzle(
            &format!("teaches = [\"coalescing\", \"bank-conflicts\"]\n{UNSEEN}"),
            &test("a", 2, 8, 13),
        );
        let found = check(&p, &text);
        let unbudgeted: Vec<&Problem> = found
            .iter()
            .filter(|f| f.rule == "teaches-unbudgeted")
            .collect();
        assert_eq!(unbudgeted.len(), 2, "{found:?}");
        assert!(unbudgeted[0].what.contains("sectors_per_access"));
        assert!(unbudgeted[1].what.contains("bank_ways"));
    }

    #[test]
    fn memory_space_tags_need_a_require() {
        let raw: toml::Table = "require = { shared_writes = 1 }".parse().unwrap();
        assert!(requires_any(&raw, &["shared_reads", "shared_writes"]));
        assert!(!requires_any(&raw, &["global_atomics"]));
        let raw: toml::Table = "[[kernels]]\nrequire = { global_atomics = 1 }"
            .parse()
            .unwrap();
        assert!(requires_any(&raw, &["global_atomics", "shared_atomics"]));
        let raw: toml::Table = "require = { shared_reads = 0 }".parse().unwrap();
        assert!(!requires_any(&raw, &["shared_reads", "shared_writes"]));
        assert_eq!(
            rules(
                &format!("teaches = [\"shared\"]\n{UNSEEN}"),
                &test("t", 1, 8, 8)
            ),
            ["teaches-unrequired"]
        );
    }

    #[test]
    fn sizes_need_an_unseen_test() {
        assert_eq!(rules("", &test("t", 1, 8, 8)), ["unseen-missing"]);
    }

    #[test]
    fn the_descriptions_numbers_are_held_to_the_file() {
        let (mut p, text) = puzzle(UNSEEN, &test("t", 1, 8, 8));
        p.description = p.description.replace("TPB = 8 threads", "TPB = 4 threads");
        p.budget.global_writes = Some(2);
        let found = check(&p, &text);
        let whats: Vec<&str> = found.iter().map(|f| f.what.as_str()).collect();
        assert_eq!(found.len(), 2, "{whats:?}");
        assert!(whats[0].contains("says TPB = 4, but the file defines TPB = 8"));
        assert!(whats[1].contains("1 global write, but `budget` sets global_writes = 2"));
        assert_eq!(found[1].line, Some(10));
    }

    #[test]
    fn the_packs_descriptions_raise_no_false_alarms() {
        // Today's text: only the define and budget rules, which must not misread it.
        for p in crate::puzzle::embedded_puzzles().unwrap() {
            let defines = define_mismatches(&p);
            assert!(defines.is_empty(), "{}: {defines:?}", p.slug);
            if !p.is_multi_launch() {
                let budget = budget_mismatches(&p);
                assert!(budget.is_empty(), "{}: {budget:?}", p.slug);
            }
        }
    }
}
