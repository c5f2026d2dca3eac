//! Memory-operation tables: per-thread maxima against a puzzle's budget (`run`), and per-thread
//! maxima beside grid totals (`exec`).

use super::layout;
use crate::emu::result::{CounterSummary, Counters};
use crate::judge::outcome::{OverBudget, TestOutcome};
use colored::Colorize;

/// The counters in `Counters::NAMES` order, as a learner reads them.
pub(crate) const LABELS: [&str; 4] = [
    "global reads",
    "global writes",
    "shared reads",
    "shared writes",
];

/// `max per thread` and `total` for one launch.
pub(crate) fn exec_table(c: &CounterSummary) -> String {
    let mut lines = vec![format!(
        "{:<16}{:>16}{:>12}",
        "memory", "max per thread", "total"
    )];
    for (i, label) in LABELS.iter().enumerate() {
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
        for i in 0..4 {
            *max.get_mut(i) = max.get(i).max(t.counters.get(i));
        }
    }
    max
}

/// The puzzle's limit for counter `i` (the same in every test; the first that sets one wins).
fn budget_of(tests: &[TestOutcome], i: usize) -> Option<u64> {
    tests.iter().find_map(|t| t.budget.get(i))
}

/// The worst overrun of counter `name` over all tests, if any test went over.
fn worst_overrun<'a>(tests: &'a [TestOutcome], name: &str) -> Option<&'a OverBudget> {
    tests
        .iter()
        .flat_map(|t| &t.over_budget)
        .filter(|o| o.counter == name)
        .max_by_key(|o| o.used)
}

/// `used` against `budget` per counter; rows over budget in red, naming the thread that used most.
pub(crate) fn budget_table(tests: &[TestOutcome]) -> String {
    let max = max_over(tests);
    let title = if tests.len() > 1 {
        "memory per thread (max over tests)"
    } else {
        "memory per thread (max)"
    };
    let col = title.len();
    let mut lines = vec![format!("{title}{:>6}{:>9}", "used", "budget")];
    for (i, label) in LABELS.iter().enumerate() {
        let budget = budget_of(tests, i).map_or("-".to_string(), |b| b.to_string());
        let row = format!("  {label:<w$}{:>6}{budget:>9}", max.get(i), w = col - 2);
        lines.push(match worst_overrun(tests, Counters::NAMES[i]) {
            Some(o) => format!(
                "{}   {}",
                row.red().bold(),
                layout::who(o.thread.block, o.thread.thread)
            ),
            None => row,
        });
    }
    lines.join("\n")
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
    if parts.is_empty() {
        "no memory operations".to_string()
    } else {
        format!("{} per thread", parts.join(", "))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::emu::result::ThreadId;
    use crate::judge::outcome::Budget;
    use std::collections::BTreeMap;

    pub(crate) fn test_with(name: &str, c: [u64; 4]) -> TestOutcome {
        TestOutcome {
            name: name.into(),
            random: false,
            passed: true,
            grid: [1, 1, 1],
            block: [8, 1, 1],
            outputs: BTreeMap::new(),
            counters: Counters {
                global_reads: c[0],
                global_writes: c[1],
                shared_reads: c[2],
                shared_writes: c[3],
            },
            argmax: [ThreadId::default(); 4],
            budget: Budget::default(),
            over_budget: vec![],
            kernels: vec![],
            perf: vec![],
            diagnostics: vec![],
            stdout: String::new(),
            error: None,
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
