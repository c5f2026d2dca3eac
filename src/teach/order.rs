//! A test's diagnostics root cause first: an out-of-bounds access before the race it causes,
//! a barrier only part of the block reaches before the races and uninitialised reads that
//! follow from it (those are dropped: they only say the barrier did not order anything), the
//! plain store that wipes an atomic update before a harmless pair of equal stores, and a read
//! that raced a write before the pair of writes on the same two lines.

use crate::emu::facts::{Facts, Hazard};
use crate::emu::result::{DiagKind, Diagnostic, Severity};

/// How early a diagnostic comes: causes before what they cause.
fn rank(d: &Diagnostic) -> u8 {
    let base = match d.kind {
        DiagKind::OutOfBounds | DiagKind::Misaligned => 0,
        DiagKind::BarrierDivergence => 1,
        DiagKind::WarpSync | DiagKind::AsyncCopy => 2,
        DiagKind::StepLimit => 3,
        DiagKind::GlobalRace | DiagKind::SharedRace => match d.facts {
            Facts::Race {
                hazard: Hazard::AtomicAndPlain | Hazard::Update,
                ..
            } => 4,
            _ => 5,
        },
        DiagKind::UninitializedRead => 6,
        DiagKind::Assert => 7,
    };
    match d.severity {
        Severity::Error => base,
        Severity::Warning => 10 + base,
    }
}

/// The launch a message is about in a multi-launch puzzle (`in `k` (launch 2 of 3): `).
fn launch_of(d: &Diagnostic) -> &str {
    if d.message.starts_with("in `") {
        d.message.find("): ").map_or("", |at| &d.message[..at])
    } else {
        ""
    }
}

fn element_of(d: &Diagnostic) -> Option<(&str, i128)> {
    match &d.facts {
        Facts::Race {
            element: Some(e), ..
        } => Some((e.name.as_str(), e.index)),
        _ => None,
    }
}

/// A race's two lines, in order, when they differ.
fn line_pair(d: &Diagnostic) -> Option<[u32; 2]> {
    let (a, b) = (d.line?, d.other_line?);
    (a != b).then(|| [a.min(b), a.max(b)])
}

pub fn root_causes_first(diags: &mut Vec<Diagnostic>) {
    let diverged: Vec<String> = diags
        .iter()
        .filter(|d| d.kind == DiagKind::BarrierDivergence && d.severity == Severity::Error)
        .map(|d| launch_of(d).to_string())
        .collect();
    let wiped: Vec<(String, i128)> = diags
        .iter()
        .filter(|d| {
            matches!(
                d.facts,
                Facts::Race {
                    hazard: Hazard::AtomicAndPlain,
                    ..
                }
            )
        })
        .filter_map(|d| element_of(d).map(|(n, i)| (n.to_string(), i)))
        .collect();
    // The pairs of lines with a read racing a write: a missing barrier between two lines shows
    // as a read that came too early, the race a barrier fixes. The same pair of lines as two
    // writes (a load's store and a later update of the element) is that race again, seen at
    // the store: it is dropped so that the read comes first.
    let read_pairs: Vec<(String, [u32; 2])> = diags
        .iter()
        .filter(|d| {
            matches!(
                d.facts,
                Facts::Race {
                    hazard: Hazard::ReadAfterWrite | Hazard::WriteAfterRead,
                    ..
                }
            )
        })
        .filter_map(|d| Some((launch_of(d).to_string(), line_pair(d)?)))
        .collect();
    // Once a block's threads reach different barriers, every later barrier mismatches too:
    // the first divergence of a launch is the cause, the rest follow from it.
    let mut first_divergence: Vec<String> = Vec::new();
    diags.retain(|d| {
        if d.kind == DiagKind::BarrierDivergence && d.severity == Severity::Error {
            let launch = launch_of(d).to_string();
            if first_divergence.contains(&launch) {
                return false;
            }
            first_divergence.push(launch);
        }
        let follows_divergence =
            matches!(d.kind, DiagKind::SharedRace | DiagKind::UninitializedRead)
                && diverged.iter().any(|l| l == launch_of(d));
        let pair_of_wiped = matches!(
            d.facts,
            Facts::Race {
                hazard: Hazard::WriteAfterWrite,
                ..
            }
        ) && element_of(d)
            .is_some_and(|(n, i)| wiped.iter().any(|w| w.0 == n && w.1 == i));
        let same_lines_as_a_read = matches!(
            d.facts,
            Facts::Race {
                hazard: Hazard::WriteAfterWrite,
                ..
            }
        ) && line_pair(d)
            .is_some_and(|p| read_pairs.iter().any(|(l, q)| *q == p && l == launch_of(d)));
        !follows_divergence && !pair_of_wiped && !same_lines_as_a_read
    });
    diags.sort_by_key(rank);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::facts::{Access, Element, Space};

    fn diag(kind: DiagKind, facts: Facts) -> Diagnostic {
        Diagnostic {
            kind,
            severity: Severity::Error,
            message: kind.as_str().into(),
            help: None,
            facts,
            file: None,
            line: Some(3),
            block: [0; 3],
            thread: [0; 3],
            other_line: None,
        }
    }

    fn race(hazard: Hazard, index: i128) -> Facts {
        Facts::Race {
            space: Space::Global,
            hazard,
            element: Some(Element {
                name: "out".into(),
                index,
                len: 1,
            }),
            other_thread: None,
            other_block: None,
            across_blocks: true,
            same_warp: false,
            block_threads: 8,
            mine: Access::Write,
            theirs: Access::Write,
        }
    }

    #[test]
    fn two_writes_on_the_lines_of_a_read_race_give_way_to_the_read() {
        let at = |hazard: Hazard, line: u32, other: u32| {
            let mut d = diag(DiagKind::SharedRace, race(hazard, 1));
            d.line = Some(line);
            d.other_line = Some(other);
            d
        };
        // A load's store (line 4) after another thread's update (line 9), and the update's
        // read before the store: the read is the one kept.
        let mut v = vec![
            at(Hazard::WriteAfterWrite, 4, 9),
            at(Hazard::ReadAfterWrite, 9, 4),
        ];
        root_causes_first(&mut v);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].line, Some(9));
        // Two writes on other lines than any read race stay.
        let mut v = vec![
            at(Hazard::WriteAfterWrite, 4, 7),
            at(Hazard::ReadAfterWrite, 9, 4),
        ];
        root_causes_first(&mut v);
        assert_eq!(v.len(), 2);
        // One line racing with itself is not a pair of lines.
        let mut v = vec![
            at(Hazard::WriteAfterWrite, 4, 4),
            at(Hazard::ReadAfterWrite, 4, 4),
        ];
        root_causes_first(&mut v);
        assert_eq!(v.len(), 2);
    }

    #[test]
    fn the_out_of_bounds_cause_comes_before_its_race() {
        let mut v = vec![
            diag(DiagKind::SharedRace, Facts::None),
            diag(DiagKind::OutOfBounds, Facts::None),
        ];
        root_causes_first(&mut v);
        assert_eq!(v[0].kind, DiagKind::OutOfBounds);
        assert_eq!(v.len(), 2);
    }

    #[test]
    fn races_after_a_divergent_barrier_are_dropped() {
        let mut v = vec![
            diag(DiagKind::SharedRace, Facts::None),
            diag(DiagKind::BarrierDivergence, Facts::None),
            diag(DiagKind::UninitializedRead, Facts::None),
            diag(DiagKind::BarrierDivergence, Facts::None),
        ];
        root_causes_first(&mut v);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].kind, DiagKind::BarrierDivergence);
    }

    #[test]
    fn the_store_that_wipes_an_atomic_is_blamed_not_the_equal_stores() {
        let mut v = vec![
            diag(DiagKind::GlobalRace, race(Hazard::WriteAfterWrite, 0)),
            diag(DiagKind::GlobalRace, race(Hazard::AtomicAndPlain, 0)),
            diag(DiagKind::GlobalRace, race(Hazard::WriteAfterWrite, 3)),
        ];
        root_causes_first(&mut v);
        assert_eq!(v.len(), 2);
        assert!(matches!(
            v[0].facts,
            Facts::Race {
                hazard: Hazard::AtomicAndPlain,
                ..
            }
        ));
    }
}
