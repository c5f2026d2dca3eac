//! Memory-operation tables: per-thread maxima against a puzzle's budget (`run`), and per-thread
//! maxima beside grid totals (`exec`).

use super::layout;
use crate::emu::result::{BlockTotals, CounterSummary, Counters};
use crate::judge::outcome::{BlockOverrun, OverBudget, PerfFigure, TestOutcome};
use crate::puzzle::{BlockLimits, Budget, PerfKind};
use colored::Colorize;

/// The counters in `Counters::NAMES` order, as a learner reads them.
pub(crate) const LABELS: [&str; Counters::N] = Counters::names(
    [
        "global reads",
        "global writes",
        "shared reads",
        "shared writes",
        "global atomics",
        "shared atomics",
    ],
    true,
);

/// Whether a table shows counter `i`: the four access counters always, the atomics where a
/// kernel made one or a limit names them (most kernels make none), and the instruction
/// families where a limit names them, or (`exec`, which has no limits) where a kernel used one.
fn shown(i: usize, used: u64, limited: bool) -> bool {
    i < 4 || limited || (used > 0 && i < Counters::MEMORY)
}

/// `shown` for `exec`'s table: how the kernel computed is what it is run to see.
fn shown_in_exec(i: usize, used: u64) -> bool {
    i < 4 || used > 0
}

/// `max per thread` and `total` for one launch.
pub(crate) fn exec_table(c: &CounterSummary) -> String {
    let mut lines = vec![format!(
        "{:<16}{:>16}{:>12}",
        "memory", "max per thread", "total"
    )];
    for (i, label) in LABELS.iter().enumerate() {
        if !shown_in_exec(i, c.total.get(i)) {
            continue;
        }
        lines.push(format!(
            "  {label:<14}{:>16}{:>12}",
            c.max_per_thread.get(i),
            c.total.get(i)
        ));
    }
    lines.join("\n")
}

/// Per counter, the largest per-thread use over all tests: a budget holds for every test.
pub(crate) fn max_over(tests: &[TestOutcome]) -> Counters {
    let mut max = Counters::default();
    for t in tests {
        for i in 0..Counters::N {
            *max.get_mut(i) = max.get(i).max(t.counters.get(i));
        }
    }
    max
}

/// One table's worth of a test: counters, budget and overruns of the whole test (one kernel)
/// or of one kernel of a multi-launch test; `kernel` filters the perf figures.
struct Use<'a> {
    counters: &'a Counters,
    budget: &'a Budget,
    over: &'a [OverBudget],
    perf: Vec<&'a PerfFigure>,
    blocks: Option<&'a BlockTotals>,
    block_budget: &'a BlockLimits,
    require: &'a BlockLimits,
    block_over: &'a [BlockOverrun],
}

/// The memory table(s): one for a single-kernel puzzle, one per kernel otherwise, each with
/// its budgeted perf figures and the worst line.
pub(crate) fn budget_table(tests: &[TestOutcome]) -> String {
    let several = tests.len() > 1;
    let mut kernels: Vec<&str> = Vec::new();
    for t in tests {
        for k in &t.kernels {
            if !kernels.contains(&k.name.as_str()) {
                kernels.push(&k.name);
            }
        }
    }
    if kernels.is_empty() {
        let uses: Vec<Use> = tests
            .iter()
            .map(|t| Use {
                counters: &t.counters,
                budget: &t.budget,
                over: &t.over_budget,
                perf: t.perf.iter().collect(),
                blocks: t.blocks.as_ref(),
                block_budget: &t.block_budget,
                require: &t.require,
                block_over: &t.block_overruns,
            })
            .collect();
        let title = if several {
            "memory per thread (max over tests)".to_string()
        } else {
            "memory per thread (max)".to_string()
        };
        return table(&title, &uses);
    }
    kernels
        .iter()
        .map(|name| {
            let uses: Vec<Use> = tests
                .iter()
                .flat_map(|t| {
                    t.kernels.iter().filter(|k| k.name == *name).map(|k| Use {
                        counters: &k.counters,
                        budget: &k.budget,
                        over: &k.over_budget,
                        perf: t.perf.iter().filter(|p| p.kernel == *name).collect(),
                        blocks: k.blocks.as_ref(),
                        block_budget: &k.block_budget,
                        require: &k.require,
                        block_over: &k.block_overruns,
                    })
                })
                .collect();
            let title = format!(
                "{name}: memory per thread ({})",
                if several { "max over tests" } else { "max" }
            );
            table(&title, &uses)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `used` against `budget` per counter; rows over budget in red, naming the thread that used
/// most; then each budgeted perf figure with its worst line.
fn table(title: &str, uses: &[Use]) -> String {
    let mut max = Counters::default();
    for u in uses {
        for i in 0..Counters::N {
            *max.get_mut(i) = max.get(i).max(u.counters.get(i));
        }
    }
    let col = title.chars().count().max(22);
    let mut lines = vec![format!("{title:<col$}{:>6}{:>9}", "used", "budget")];
    for (i, label) in LABELS.iter().enumerate() {
        let limit = uses.iter().find_map(|u| u.budget.get(i));
        if !shown(i, max.get(i), limit.is_some()) {
            continue;
        }
        let budget = limit.map_or("-".to_string(), |b| b.to_string());
        let row = format!("  {label:<w$}{:>6}{budget:>9}", max.get(i), w = col - 2);
        let worst = first_max(
            uses.iter()
                .flat_map(|u| u.over)
                .filter(|o| o.counter == Counters::NAMES[i]),
        );
        lines.push(match worst {
            Some(o) => format!(
                "{}   {}",
                row.red().bold(),
                layout::who(o.thread.block, o.thread.thread)
            ),
            None => row,
        });
    }
    for kind in PerfKind::ALL {
        let Some(budget) = uses.iter().find_map(|u| u.budget.perf(kind)) else {
            continue;
        };
        // The worst figure over the tests, with its line.
        let Some(worst) = uses
            .iter()
            .flat_map(|u| u.perf.iter().copied())
            .filter(|p| p.kind == kind)
            .max_by(|a, b| a.value.total_cmp(&b.value))
        else {
            lines.push(format!(
                "  {:<w$}{:>6}{budget:>9}",
                kind.label(),
                "-",
                w = col - 2
            ));
            continue;
        };
        let value = perf_value(worst);
        let row = format!("  {:<w$}{value:>6}{budget:>9}", kind.label(), w = col - 2);
        let mut at = match worst.line {
            Some(l) => format!("worst: line {l}"),
            None if worst.accesses == 0 => "no such access".to_string(),
            None => "worst: (no line info)".to_string(),
        };
        if let Some(note) = worst.note {
            at += &format!(" ({note})");
        }
        lines.push(if worst.over() {
            format!("{}   {at}", row.red().bold())
        } else {
            format!("{row}   {}", at.dimmed())
        });
    }
    lines.extend(block_rows(uses, col));
    lines.join("\n")
}

/// Under the per-thread rows, only when a block broke a limit on its totals (a passing run, or
/// one that failed for another reason, is not asked to read them): per limited counter, the
/// most and the least of any block (over the tests), what is allowed (`at most 1`, `at least
/// 1`), and in red the block that broke it.
fn block_rows(uses: &[Use], col: usize) -> Vec<String> {
    let limited = |i: usize| {
        (uses.iter()).any(|u| u.block_budget.get(i).is_some() || u.require.get(i).is_some())
    };
    if uses.iter().all(|u| u.block_over.is_empty()) || !(0..Counters::N).any(limited) {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "{:<col$}{:>6}{:>7}  {}",
        "each block, all its threads together", "most", "least", "allowed"
    )];
    for (i, label) in LABELS.iter().enumerate().filter(|&(i, _)| limited(i)) {
        let blocks = || uses.iter().filter_map(|u| u.blocks);
        let most = blocks().map(|b| b.most.get(i)).max();
        let least = blocks().map(|b| b.least.get(i)).min();
        let show = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        let mut limit = Vec::new();
        if let Some(max) = uses.iter().find_map(|u| u.block_budget.get(i)) {
            limit.push(format!("at most {max}"));
        }
        if let Some(min) = uses.iter().find_map(|u| u.require.get(i)) {
            limit.push(format!("at least {min}"));
        }
        let row = format!(
            "  {label:<w$}{:>6}{:>7}  {}",
            show(most),
            show(least),
            limit.join(", "),
            w = col - 2
        );
        let broke =
            (uses.iter().flat_map(|u| u.block_over)).find(|o| o.counter == Counters::NAMES[i]);
        lines.push(match broke {
            Some(o) => format!("{}   {}", row.red().bold(), layout::block_name(o.block)),
            None => row,
        });
    }
    lines
}

/// The overrun with the largest figure, the first of equals (the earliest test): the one the
/// table marks, and so the one every other part of a report names.
fn first_max<'a>(overs: impl Iterator<Item = &'a OverBudget>) -> Option<&'a OverBudget> {
    overs.fold(None, |best: Option<&OverBudget>, o| match best {
        Some(b) if b.used >= o.used => Some(b),
        _ => Some(o),
    })
}

/// The counter overruns the memory table(s) mark, in table order (per kernel in order of
/// first launch, then per counter): for each counter, the largest over the tests, the first of
/// equals. The summary and the lines under the table name these, so they always say what the
/// table says.
pub(crate) fn worst_overruns(tests: &[TestOutcome]) -> Vec<&OverBudget> {
    let mut kernels: Vec<Option<&str>> = Vec::new();
    for o in tests.iter().flat_map(|t| &t.over_budget) {
        if !kernels.contains(&o.kernel.as_deref()) {
            kernels.push(o.kernel.as_deref());
        }
    }
    // Kernels as the tables list them: in order of first launch.
    let order: Vec<&str> = tests
        .iter()
        .flat_map(|t| t.kernels.iter().map(|k| k.name.as_str()))
        .collect();
    kernels.sort_by_key(|k| k.and_then(|k| order.iter().position(|o| *o == k)));
    let mut out = Vec::new();
    for k in kernels {
        for name in Counters::NAMES {
            let of_k = tests
                .iter()
                .flat_map(|t| &t.over_budget)
                .filter(|o| o.kernel.as_deref() == k && o.counter == name);
            out.extend(first_max(of_k));
        }
    }
    out
}

/// A perf figure as shown: sectors with one decimal (an average), ways as a whole number.
pub(crate) fn perf_value(p: &PerfFigure) -> String {
    match p.kind {
        PerfKind::SectorsPerAccess => format!("{:.1}", p.value),
        PerfKind::BankWays => format!("{}", p.value as u64),
    }
}

/// `1 global read, 1 global write, 3 shared reads per thread`: the nonzero maxima in a phrase.
pub(crate) fn phrase(tests: &[TestOutcome]) -> String {
    let max = max_over(tests);
    let parts: Vec<String> = LABELS
        .iter()
        .enumerate()
        .filter(|&(i, _)| max.get(i) > 0)
        .map(|(i, label)| {
            let n = max.get(i);
            let singular = label.trim_end_matches('s');
            layout::count(n as usize, singular, label)
        })
        .collect();
    // Several kernels: each figure is the busiest kernel's.
    let of = if tests.iter().any(|t| !t.kernels.is_empty()) {
        " (each the most of any one kernel)"
    } else {
        ""
    };
    if parts.is_empty() {
        "no memory operations".to_string()
    } else {
        format!("{} per thread{of}", parts.join(", "))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::emu::result::ThreadId;
    use crate::judge::outcome::KernelUse;
    use std::collections::BTreeMap;

    pub(crate) fn test_with(name: &str, c: [u64; 4]) -> TestOutcome {
        TestOutcome {
            name: name.into(),
            random: false,
            passed: true,
            grid: [1, 1, 1],
            block: [8, 1, 1],
            inputs: vec![],
            outputs: BTreeMap::new(),
            counters: Counters {
                global_reads: c[0],
                global_writes: c[1],
                shared_reads: c[2],
                shared_writes: c[3],
                ..Counters::default()
            },
            argmax: [ThreadId::default(); Counters::N],
            budget: Budget::default(),
            over_budget: vec![],
            blocks: None,
            block_budget: BlockLimits::default(),
            require: BlockLimits::default(),
            block_overruns: vec![],
            warp_require: vec![],
            warps: None,
            kernels: vec![],
            perf: vec![],
            diagnostics: vec![],
            stdout: String::new(),
            error: None,
            not_run: None,
            seconds: 0.0,
            cross: None,
            families_uncounted: false,
        }
    }

    #[test]
    fn budget_table_takes_the_max_over_tests_and_marks_overruns() {
        colored::control::set_override(false);
        let mut a = test_with("a", [1, 1, 3, 1]);
        let mut b = test_with("b", [3, 1, 0, 0]);
        for t in [&mut a, &mut b] {
            t.budget.global_reads = Some(1);
            t.budget.global_writes = Some(1);
        }
        b.over_budget.push(OverBudget {
            counter: "global_reads",
            used: 3,
            budget: 1,
            thread: ThreadId {
                block: [0, 0, 0],
                thread: [5, 0, 0],
            },
            ..OverBudget::default()
        });
        let out = budget_table(&[a, b]);
        println!("{out}");
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows.len(), 5);
        assert!(rows[0].contains("max over tests"));
        let used_col = rows[0].find("used").unwrap() + 3;
        assert_eq!(rows[1].find('3'), Some(used_col));
        let cells = |r: &str| r.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            cells(rows[1]),
            ["global", "reads", "3", "1", "thread", "5", "of", "block", "0"]
        );
        assert_eq!(cells(rows[2]), ["global", "writes", "1", "1"]);
        assert_eq!(cells(rows[3]), ["shared", "reads", "3", "-"]);
        assert_eq!(cells(rows[4]), ["shared", "writes", "1", "-"]);
    }

    #[test]
    fn perf_rows_show_the_figure_the_budget_and_the_worst_line() {
        colored::control::set_override(false);
        let mut t = test_with("a", [1, 1, 0, 0]);
        t.budget.sectors_per_access = Some(5);
        t.budget.bank_ways = Some(1);
        t.perf = vec![
            PerfFigure {
                kind: PerfKind::SectorsPerAccess,
                kernel: "transpose".into(),
                value: 23.25,
                budget: Some(5),
                file: Some("puzzles/34_coalesced_transpose.cu".into()),
                line: Some(5),
                accesses: 12,
                note: None,
                help: None,
            },
            PerfFigure {
                kind: PerfKind::BankWays,
                kernel: "transpose".into(),
                value: 0.0,
                budget: Some(1),
                file: None,
                line: None,
                accesses: 0,
                note: None,
                help: None,
            },
        ];
        let out = budget_table(&[t]);
        println!("{out}");
        let cells = |label: &str| -> Vec<String> {
            let row = out.lines().find(|l| l.contains(label)).unwrap();
            row.split_whitespace().map(str::to_string).collect()
        };
        assert_eq!(
            cells("sectors"),
            ["sectors", "per", "access", "23.2", "5", "worst:", "line", "5"]
        );
        assert_eq!(
            cells("bank-conflict"),
            ["bank-conflict", "ways", "0", "1", "no", "such", "access"]
        );
    }

    #[test]
    fn a_multi_launch_test_gets_a_table_per_kernel() {
        colored::control::set_override(false);
        let mut t = test_with("a", [2, 2, 3, 4]);
        let kernel = |name: &str, reads: u64, budget: Option<u64>| KernelUse {
            name: name.into(),
            counters: Counters {
                global_reads: reads,
                ..Counters::default()
            },
            argmax: [ThreadId::default(); Counters::N],
            budget: Budget {
                global_reads: budget,
                ..Budget::default()
            },
            over_budget: vec![],
            blocks: None,
            block_budget: BlockLimits::default(),
            require: BlockLimits::default(),
            block_overruns: vec![],
        };
        t.kernels = vec![
            kernel("scan_blocks", 1, Some(1)),
            kernel("add_offsets", 2, None),
        ];
        let out = budget_table(&[t]);
        println!("{out}");
        let tables: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(tables.len(), 2);
        assert!(tables[0].starts_with("scan_blocks: memory per thread (max)"));
        assert!(tables[1].starts_with("add_offsets: memory per thread (max)"));
        let reads = |t: &str| -> Vec<String> {
            let row = t.lines().find(|l| l.contains("global reads")).unwrap();
            row.split_whitespace().map(str::to_string).collect()
        };
        assert_eq!(reads(tables[0]), ["global", "reads", "1", "1"]);
        assert_eq!(reads(tables[1]), ["global", "reads", "2", "-"]);
    }

    #[test]
    fn phrase_names_nonzero_counts() {
        let t = test_with("a", [1, 2, 0, 1]);
        assert_eq!(
            phrase(&[t]),
            "1 global read, 2 global writes, 1 shared write per thread"
        );
        assert_eq!(phrase(&[test_with("z", [0; 4])]), "no memory operations");
    }

    #[test]
    fn exec_table_shows_max_and_total() {
        let c = CounterSummary {
            max_per_thread: Counters {
                global_reads: 2,
                ..Counters::default()
            },
            total: Counters {
                global_reads: 16,
                ..Counters::default()
            },
            ..CounterSummary::default()
        };
        let out = exec_table(&c);
        println!("{out}");
        let row: Vec<&str> = out.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(row, ["global", "reads", "2", "16"]);
    }
}
