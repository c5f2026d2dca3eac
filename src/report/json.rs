//! JSON pieces shared by `exec --format json` and `check --format json`. Built by hand rather
//! than derived: scripts outside this repository rely on these exact keys, so the shape lives
//! here in one place and does not move when a shared type gains a field.

use crate::emu::result::{BlockTotals, Counters, Diagnostic};
use crate::judge::outcome::{BlockLimitKind, BlockOverrun, OverBudget, PerfFigure};
use crate::puzzle::{BlockLimits, Budget, PerfKind};

use serde_json::{json, Map, Value};

/// `{"kind", "severity", "message", "file", "line", "block", "thread"}`; file and line may be null.
pub(crate) fn diagnostic(d: &Diagnostic) -> Value {
    json!({
        "kind": d.kind.as_str(),
        "severity": severity(d),
        "message": d.message,
        "file": d.file,
        "line": d.line,
        "block": d.block,
        "thread": d.thread,
    })
}

fn severity(d: &Diagnostic) -> &'static str {
    match d.severity {
        crate::emu::result::Severity::Error => "error",
        crate::emu::result::Severity::Warning => "warning",
    }
}

pub(crate) fn diagnostics(ds: &[Diagnostic]) -> Value {
    Value::Array(ds.iter().map(diagnostic).collect())
}

/// `diagnostic`'s keys plus `"help"` (the fix `teach` derived; null when none): what `check`
/// prints for each test.
pub(crate) fn diagnostics_with_help(ds: &[Diagnostic]) -> Value {
    Value::Array(
        ds.iter()
            .map(|d| {
                let mut v = diagnostic(d);
                if let Value::Object(m) = &mut v {
                    m.insert("help".into(), json!(d.help));
                }
                v
            })
            .collect(),
    )
}

/// `{"global_reads": n, "global_writes": n, ...}`: every counter of `Counters::NAMES`, the
/// memory counters and the instruction families (`emu::technique`), 0 included.
pub(crate) fn counters(c: &Counters) -> Value {
    let map: Map<String, Value> = Counters::NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| (name.to_string(), Value::from(c.get(i))))
        .collect();
    Value::Object(map)
}

/// Only the limits a puzzle sets, under the same keys as `counters`, then the perf limits
/// (`sectors_per_access`, `bank_ways`) where set.
pub(crate) fn budget(b: &Budget) -> Value {
    let mut map: Map<String, Value> = Counters::NAMES
        .iter()
        .enumerate()
        .filter_map(|(i, name)| b.get(i).map(|v| (name.to_string(), Value::from(v))))
        .collect();
    for kind in PerfKind::ALL {
        if let Some(v) = b.perf(kind) {
            map.insert(kind.key().to_string(), Value::from(v));
        }
    }
    Value::Object(map)
}

/// Only the limits set, under the same keys as `counters` (a `block_budget` or `require`).
pub(crate) fn block_limits(b: &BlockLimits) -> Value {
    let map: Map<String, Value> = Counters::NAMES
        .iter()
        .enumerate()
        .filter_map(|(i, name)| b.get(i).map(|v| (name.to_string(), Value::from(v))))
        .collect();
    Value::Object(map)
}

/// `{"most": counters, "least": counters}`: the largest and smallest block totals.
pub(crate) fn block_totals(b: &BlockTotals) -> Value {
    json!({"most": counters(&b.most), "least": counters(&b.least)})
}

/// A block over its `block_budget`, shaped as `over_budget`'s entries: `{"counter", "used",
/// "budget", "block", "lines"}` (no `"thread"`: the figure is the block's threads together),
/// plus `"kernel"` in a multi-launch puzzle. A block under `require`: `{"counter", "used",
/// "require", "block"}` (and `"kernel"`); a warp under `warp_require` adds `"warp"`, its
/// index in the block, and `"used"` is its lanes' total.
pub(crate) fn block_overrun(o: &BlockOverrun) -> Value {
    let mut v = match o.limit_kind {
        BlockLimitKind::Budget => {
            let lines: Vec<Value> = (o.lines.iter())
                .map(|l| json!({"file": l.file, "line": l.line, "count": l.count}))
                .collect();
            json!({
                "counter": o.counter,
                "used": o.used,
                "budget": o.limit,
                "block": o.block,
                "lines": lines,
            })
        }
        BlockLimitKind::Require => json!({
            "counter": o.counter,
            "used": o.used,
            "require": o.limit,
            "block": o.block,
        }),
    };
    if let (Some(k), Some(map)) = (&o.kernel, v.as_object_mut()) {
        map.insert("kernel".into(), Value::from(k.as_str()));
    }
    // A warp under `warp_require`: which warp of the block, its lanes' total in "used".
    if let (Some(w), Some(map)) = (o.warp, v.as_object_mut()) {
        map.insert("warp".into(), Value::from(w));
    }
    v
}

/// `{"kind", "kernel", "value", "budget", "file", "line", "accesses"}`: one measured figure,
/// its worst line.
pub(crate) fn perf(p: &PerfFigure) -> Value {
    json!({
        "kind": p.kind.key(),
        "kernel": p.kernel,
        "value": p.value,
        "budget": p.budget,
        "file": p.file,
        "line": p.line,
        "accesses": p.accesses,
    })
}

/// `{"counter", "used", "budget", "block", "thread", "lines": [{"file", "line", "count"}]}`,
/// plus `"kernel"` in a multi-launch puzzle: one counter over budget, the thread that used
/// the most, and where that thread made the accesses (the counts add up to `used`; the list
/// is empty when they could not be found). A perf figure over budget has no thread: no
/// `"block"`/`"thread"`, and its line is in `"perf"`.
pub(crate) fn over_budget(o: &OverBudget) -> Value {
    let lines: Vec<Value> = (o.lines.iter())
        .map(|l| json!({"file": l.file, "line": l.line, "count": l.count}))
        .collect();
    let mut v = json!({
        "counter": o.counter,
        "used": o.used,
        "budget": o.budget,
        "lines": lines,
    });
    if let Some(map) = v.as_object_mut() {
        if o.is_counter() {
            map.insert("block".into(), json!(o.thread.block));
            map.insert("thread".into(), json!(o.thread.thread));
        }
        if let Some(k) = &o.kernel {
            map.insert("kernel".into(), Value::from(k.as_str()));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{DiagKind, Severity};

    #[test]
    fn diagnostic_has_exactly_the_agreed_keys() {
        let d = Diagnostic {
            kind: DiagKind::OutOfBounds,
            severity: Severity::Warning,
            message: "m".into(),
            help: Some("not in json".into()),
            file: None,
            line: None,
            block: [1, 2, 3],
            thread: [4, 5, 6],
            other_line: Some(3),
            facts: Default::default(),
        };
        assert_eq!(
            diagnostic(&d),
            json!({"kind": "out-of-bounds", "severity": "warning", "message": "m",
                   "file": null, "line": null, "block": [1, 2, 3], "thread": [4, 5, 6]})
        );
    }

    #[test]
    fn budget_lists_only_the_limits_set() {
        let b = Budget {
            global_reads: Some(2),
            shared_writes: Some(0),
            ..Budget::default()
        };
        assert_eq!(budget(&b), json!({"global_reads": 2, "shared_writes": 0}));
        let c = Counters {
            global_reads: 1,
            global_writes: 2,
            shared_reads: 3,
            shared_writes: 4,
            global_atomics: 5,
            shared_atomics: 0,
            how: Default::default(),
        };
        let mut want = json!({"global_reads": 1, "global_writes": 2, "shared_reads": 3,
                   "shared_writes": 4, "global_atomics": 5, "shared_atomics": 0});
        // Every instruction family too, always present (0 when unused).
        for f in crate::emu::technique::Family::ALL {
            want[f.name()] = json!(0);
        }
        assert_eq!(counters(&c), want);
    }
}
