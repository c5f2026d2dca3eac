//! Hints that answer the failure: a puzzle's `[[mistake]]` tables against what a failed run
//! saw (its diagnostics with their source lines, the counters over budget, wrong outputs).
//!
//! `matching` is pure: mistakes and a `Seen` in, the matching hints out, most specific first
//! (a diagnostic kind with a line pattern, then a diagnostic kind alone for a diagnostic no
//! pattern took, then a budget counter, then any budget; file order within each), each hint
//! once; `wrong-output` only when nothing else matched. `cli::common`
//! fills `PuzzleOutcome::mistakes` after grading and records them in the progress state;
//! `take_next` and `take_all` give them to `gpuzzle hint` and `watch`'s `h` key, each once per
//! failure, before the progressive hints.

use crate::emu::result::{DiagKind, Diagnostic};
use crate::judge::outcome::PuzzleOutcome;
use crate::puzzle::{Mistake, MistakeKind, MistakeSeen, Puzzle, State, WrongElements};
use serde::Serialize;

/// One distinct diagnostic a run saw: its kind, its line, and the text of the source lines
/// it names (its own and, for a race or a divergent barrier, the other one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenDiag {
    pub kind: DiagKind,
    pub line: Option<u32>,
    pub texts: Vec<String>,
}

/// What a failed run saw, as far as mistake hints care.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// In report order (tests in order, each test's diagnostics in order), each (kind, line)
    /// once.
    pub diagnostics: Vec<SeenDiag>,
    /// Budget keys over budget (`global_reads`, `bank_ways`, ...), each once.
    pub over_budget: Vec<&'static str>,
    /// An output differs from the spec's.
    pub wrong_output: bool,
    /// The shapes of wrong output seen (only the last element wrong, ...), each once: a
    /// `wrong-output` hint with a `wrong` key matches only its own.
    pub wrong_shapes: Vec<WrongElements>,
}

impl Seen {
    /// What `o` saw; `source` is the text of the graded file (`o.file`), for the lines'
    /// text. A diagnostic in another file (an included header) is matched by kind only.
    pub fn from_outcome(o: &PuzzleOutcome, source: Option<&str>) -> Seen {
        let mut seen = Seen::default();
        let lines: Vec<&str> = source.map(|s| s.lines().collect()).unwrap_or_default();
        let text_of = |d: &Diagnostic, line: Option<u32>| -> Option<String> {
            let in_graded = d
                .file
                .as_deref()
                .is_none_or(|f| base_name(f) == base_name(&o.file));
            let n = line? as usize;
            in_graded
                .then(|| lines.get(n.checked_sub(1)?).map(|t| t.to_string()))
                .flatten()
        };
        for t in &o.tests {
            for d in &t.diagnostics {
                if seen
                    .diagnostics
                    .iter()
                    .any(|s| s.kind == d.kind && s.line == d.line)
                {
                    continue;
                }
                let texts = [d.line, d.other_line]
                    .into_iter()
                    .filter_map(|l| text_of(d, l))
                    .collect();
                seen.diagnostics.push(SeenDiag {
                    kind: d.kind,
                    line: d.line,
                    texts,
                });
            }
            let over = t
                .over_budget
                .iter()
                .chain(t.kernels.iter().flat_map(|k| &k.over_budget))
                .map(|b| b.counter)
                .chain(t.perf.iter().filter(|p| p.over()).map(|p| p.kind.key()));
            for counter in over {
                if !seen.over_budget.contains(&counter) {
                    seen.over_budget.push(counter);
                }
            }
            seen.wrong_output |= t.outputs.values().any(|c| !c.mismatches.is_empty());
            for c in t.outputs.values() {
                let shape = WrongElements::Last;
                if shape.fits(c.expected.len(), &c.mismatches)
                    && !seen.wrong_shapes.contains(&shape)
                {
                    seen.wrong_shapes.push(shape);
                }
            }
        }
        seen
    }
}

/// A mistake hint that matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Matched {
    /// Its index among the puzzle's `[[mistake]]` tables.
    #[serde(skip)]
    pub index: usize,
    /// Its `kind` as written in the puzzle file.
    pub kind: String,
    /// The line of the diagnostic it matched (none for budgets and wrong output).
    pub line: Option<u32>,
    pub hint: String,
}

/// How specific a match is: lower first.
fn tier(m: &Mistake) -> u8 {
    match m.kind {
        MistakeKind::Diag(_) if m.line.is_some() => 0,
        MistakeKind::Diag(_) => 1,
        MistakeKind::OverBudget(Some(_)) => 2,
        MistakeKind::OverBudget(None) => 3,
        MistakeKind::WrongOutput => 4,
    }
}

/// The hints of `mistakes` that match what a failed run saw, most specific first, each hint
/// text once. A diagnostic a line pattern matched is taken: an entry of the same kind without
/// a pattern (the general advice for that kind) matches only another diagnostic of that kind.
/// `wrong-output` is the fallback: it matches only when nothing else did (a wrong output is
/// usually the consequence of the mistake a diagnostic or a budget already names).
pub fn matching(mistakes: &[Mistake], seen: &Seen) -> Vec<Matched> {
    let mut order: Vec<usize> = (0..mistakes.len()).collect();
    // Stable: file order within a tier.
    order.sort_by_key(|&i| tier(&mistakes[i]));
    let mut taken: Vec<(DiagKind, Option<u32>)> = Vec::new();
    let mut out: Vec<Matched> = Vec::new();
    for index in order {
        let m = &mistakes[index];
        let line = match m.kind {
            MistakeKind::Diag(kind) => {
                let hit = seen.diagnostics.iter().find(|d| {
                    d.kind == kind
                        && match m.line.as_deref() {
                            Some(pat) => d.texts.iter().any(|t| contains(t, pat)),
                            None => !taken.contains(&(d.kind, d.line)),
                        }
                });
                match hit {
                    Some(d) => {
                        taken.push((d.kind, d.line));
                        d.line
                    }
                    None => continue,
                }
            }
            MistakeKind::OverBudget(Some(counter)) if seen.over_budget.contains(&counter) => None,
            MistakeKind::OverBudget(None) if !seen.over_budget.is_empty() => None,
            MistakeKind::WrongOutput
                if seen.wrong_output
                    && out.is_empty()
                    && m.wrong.is_none_or(|w| seen.wrong_shapes.contains(&w)) =>
            {
                None
            }
            _ => continue,
        };
        if !out.iter().any(|o| o.hint == m.hint) {
            out.push(Matched {
                index,
                kind: m.kind.name(),
                line,
                hint: m.hint.clone(),
            });
        }
    }
    out
}

/// The mistake hints for a graded puzzle: none when it passed or did not compile, nor for the
/// pack's untouched starter (nothing written yet is no mistake: the progressive hints start).
pub fn for_outcome(p: &Puzzle, o: &PuzzleOutcome, source: Option<&str>) -> Vec<Matched> {
    if o.passed || o.compile_error.is_some() || p.mistakes.is_empty() {
        return Vec::new();
    }
    if source.is_some_and(|s| is_untouched(p, s)) {
        return Vec::new();
    }
    matching(&p.mistakes, &Seen::from_outcome(o, source))
}

/// Whether `source` is the pack's starter of `p` as shipped (line endings and trailing space
/// aside): nothing written yet.
pub fn is_untouched(p: &Puzzle, source: &str) -> bool {
    crate::puzzle::starter_for(p).is_some_and(|st| same_text(st, source))
}

/// As the progress state keeps them (not shown yet).
pub fn to_seen(matched: &[Matched]) -> Vec<MistakeSeen> {
    matched
        .iter()
        .map(|m| MistakeSeen {
            index: m.index,
            kind: m.kind.clone(),
            line: m.line,
            shown: false,
        })
        .collect()
}

/// A mistake hint to show: what went wrong (`shared-race, line 14`) and the hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub what: String,
    pub hint: String,
}

/// `shared-race, line 14`; `global_reads over budget`; `wrong output`.
pub fn what_went_wrong(kind: &MistakeKind, line: Option<u32>) -> String {
    match (kind, line) {
        (MistakeKind::Diag(k), Some(l)) => format!("{}, line {l}", k.as_str()),
        (MistakeKind::Diag(k), None) => k.as_str().to_string(),
        (MistakeKind::OverBudget(Some(c)), _) => format!("{c} over budget"),
        (MistakeKind::OverBudget(None), _) => "over budget".to_string(),
        (MistakeKind::WrongOutput, _) => "wrong output".to_string(),
    }
}

/// The puzzle's mistake a recorded one names, if the puzzle file still has it.
fn resolve(p: &Puzzle, s: &MistakeSeen) -> Option<Pending> {
    let m = p
        .mistakes
        .get(s.index)
        .filter(|m| m.kind.name() == s.kind)?;
    Some(Pending {
        what: what_went_wrong(&m.kind, s.line),
        hint: m.hint.clone(),
    })
}

/// The next mistake hint of the last failed run not shown yet, marked shown; `None` when
/// every one was (then the progressive hints go on).
pub fn take_next(state: &mut State, p: &Puzzle) -> Option<Pending> {
    for s in state.mistakes_mut(&p.slug) {
        if s.shown {
            continue;
        }
        s.shown = true;
        if let Some(pending) = resolve(p, s) {
            return Some(pending);
        }
    }
    None
}

/// Every mistake hint of the last failed run, shown or not (for `hint --all`), all marked
/// shown.
pub fn take_all(state: &mut State, p: &Puzzle) -> Vec<Pending> {
    let mut out = Vec::new();
    for s in state.mistakes_mut(&p.slug) {
        s.shown = true;
        out.extend(resolve(p, s));
    }
    out
}

/// What went wrong, for the first mistake hint waiting to be shown (for `run`'s "Stuck?" line).
pub fn waiting(state: &State, p: &Puzzle) -> Option<String> {
    state
        .mistakes(&p.slug)
        .iter()
        .filter(|s| !s.shown)
        .find_map(|s| resolve(p, s))
        .map(|pending| pending.what)
}

/// Whether `line` contains `pattern`, whitespace ignored on both sides (`cache[i]=` matches
/// `cache[i] = a[i];`).
pub fn contains(line: &str, pattern: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let pattern = squash(pattern);
    !pattern.is_empty() && squash(line).contains(&pattern)
}

/// The same text, whatever the line endings.
fn same_text(a: &str, b: &str) -> bool {
    a.lines().eq(b.lines())
}

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mistake(kind: &str, line: Option<&str>, hint: &str) -> Mistake {
        Mistake {
            kind: MistakeKind::from_name(kind).unwrap_or_else(|| panic!("kind {kind}")),
            line: line.map(str::to_string),
            wrong: None,
            hint: hint.to_string(),
        }
    }

    fn diag(kind: DiagKind, line: u32, text: &str) -> SeenDiag {
        SeenDiag {
            kind,
            line: Some(line),
            texts: vec![text.to_string()],
        }
    }

    fn hints(m: &[Matched]) -> Vec<&str> {
        m.iter().map(|m| m.hint.as_str()).collect()
    }

    #[test]
    fn a_line_pattern_comes_before_the_kind_alone_and_budgets_and_outputs_after() {
        let mistakes = [
            mistake("wrong-output", None, "output"),
            mistake("shared-race", None, "race"),
            mistake("over-budget", None, "any budget"),
            mistake("over-budget:global_reads", None, "reads"),
            mistake("shared-race", Some("cache[local_i]="), "race at the store"),
        ];
        let seen = Seen {
            diagnostics: vec![diag(
                DiagKind::SharedRace,
                14,
                "        cache[local_i] = a[i];",
            )],
            over_budget: vec!["global_reads"],
            wrong_output: true,
            wrong_shapes: Vec::new(),
        };
        let m = matching(&mistakes, &seen);
        // The race's line is taken by the pattern: the general race hint is for another line.
        assert_eq!(hints(&m), ["race at the store", "reads", "any budget"]);
        assert_eq!((m[0].index, m[0].line), (4, Some(14)));
        assert_eq!(m[0].kind, "shared-race");
        assert_eq!(
            (m[1].kind.as_str(), m[1].line),
            ("over-budget:global_reads", None)
        );
        // A second race elsewhere gets the general hint, after the specific one.
        let mut two = seen.clone();
        two.diagnostics.push(diag(
            DiagKind::SharedRace,
            20,
            "out[i] = cache[local_i + 1];",
        ));
        let m = matching(&mistakes, &two);
        assert_eq!(
            hints(&m),
            ["race at the store", "race", "reads", "any budget"]
        );
        assert_eq!(m[1].line, Some(20));
        // Wrong output is the fallback: given only when nothing else matched.
        let only_wrong = Seen {
            wrong_output: true,
            ..Seen::default()
        };
        assert_eq!(hints(&matching(&mistakes, &only_wrong)), ["output"]);
    }

    #[test]
    fn a_wrong_output_hint_with_a_shape_answers_only_that_shape() {
        let mut last = mistake("wrong-output", None, "the odd tail");
        last.wrong = Some(WrongElements::Last);
        let mistakes = [last, mistake("wrong-output", None, "any output")];
        let other = Seen {
            wrong_output: true,
            ..Seen::default()
        };
        assert_eq!(hints(&matching(&mistakes, &other)), ["any output"]);
        let tail = Seen {
            wrong_output: true,
            wrong_shapes: vec![WrongElements::Last],
            ..Seen::default()
        };
        assert_eq!(hints(&matching(&mistakes, &tail)), ["the odd tail"]);
    }

    #[test]
    fn nothing_matches_what_the_run_did_not_see() {
        let mistakes = [
            mistake("shared-race", Some("+="), "atomic"),
            mistake("out-of-bounds", None, "guard"),
            mistake("over-budget:shared_reads", None, "shared"),
            mistake("wrong-output", None, "output"),
        ];
        let seen = Seen {
            diagnostics: vec![diag(DiagKind::SharedRace, 9, "cache[0] = x;")],
            over_budget: vec!["global_reads"],
            wrong_output: false,
            wrong_shapes: Vec::new(),
        };
        assert!(matching(&mistakes, &seen).is_empty());
        assert!(matching(&mistakes, &Seen::default()).is_empty());
    }

    #[test]
    fn an_over_budget_hint_answers_the_counter_that_is_over_in_puzzle_46() {
        let pack = crate::puzzle::embedded_puzzles().expect("the pack loads");
        let p = pack.iter().find(|p| p.id == 46).expect("puzzle 46");
        let over = |counter: &'static str| {
            let seen = Seen {
                over_budget: vec![counter],
                ..Seen::default()
            };
            matching(&p.mistakes, &seen)
        };
        // Shared reads over: the shared tile read twice, not the global passes.
        let m = over("shared_reads");
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].kind, "over-budget:shared_reads");
        assert!(
            m[0].hint.contains("second loop over the tile"),
            "{}",
            m[0].hint
        );
        // Global writes over: the output written after every tile, not the shared tile.
        let m = over("global_writes");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].hint.contains("writes its output row once"),
            "{}",
            m[0].hint
        );
        assert!(!m[0].hint.contains("shared `k` tile"), "{}", m[0].hint);
    }

    #[test]
    fn the_same_hint_twice_is_given_once_and_the_first_matching_line_is_named() {
        let mistakes = [
            mistake("global-race", Some("+="), "use atomicAdd"),
            mistake("global-race", None, "use atomicAdd"),
            mistake("global-race", Some("out[0] ="), "use atomicAdd"),
        ];
        let seen = Seen {
            diagnostics: vec![
                diag(DiagKind::GlobalRace, 5, "out[0] = s;"),
                diag(DiagKind::GlobalRace, 7, "out[0] += s;"),
            ],
            ..Seen::default()
        };
        let m = matching(&mistakes, &seen);
        assert_eq!(hints(&m), ["use atomicAdd"]);
        assert_eq!((m[0].index, m[0].line), (0, Some(7)));
    }

    #[test]
    fn line_patterns_ignore_whitespace_and_an_empty_pattern_matches_nothing() {
        assert!(contains("    out[0] += cache[i];", "out[0]+="));
        assert!(contains("sum=sum+a[i];", "sum = sum + a[i]"));
        assert!(!contains("out[0] = x;", "+="));
        assert!(!contains("anything", "  "));
    }

    /// A failed outcome with one race at line 3 of `k.cu` (the other side at line 1) and a
    /// wrong output.
    fn outcome() -> PuzzleOutcome {
        use crate::emu::result::Severity;
        use crate::judge::outcome::{OutputCompare, TestOutcome};
        let d = Diagnostic {
            kind: DiagKind::SharedRace,
            severity: Severity::Error,
            message: String::new(),
            help: None,
            file: Some("/tmp/ws/puzzles/k.cu".into()),
            line: Some(3),
            block: [0; 3],
            thread: [0; 3],
            other_line: Some(1),
            facts: Default::default(),
        };
        let test = TestOutcome {
            name: "t".into(),
            random: false,
            passed: false,
            grid: [1; 3],
            block: [1; 3],
            inputs: vec![],
            outputs: [(
                "out".to_string(),
                OutputCompare {
                    expected: vec![1.0],
                    got: vec![0.0],
                    mismatches: vec![0],
                    shape: None,
                    ..Default::default()
                },
            )]
            .into(),
            counters: Default::default(),
            argmax: Default::default(),
            budget: Default::default(),
            over_budget: Vec::new(),
            blocks: None,
            block_budget: Default::default(),
            require: Default::default(),
            block_overruns: Vec::new(),
            warp_require: Vec::new(),
            warps: None,
            kernels: Vec::new(),
            perf: Vec::new(),
            diagnostics: vec![d.clone(), d],
            stdout: String::new(),
            error: None,
            not_run: None,
            seconds: 0.0,
            cross: None,
            families_uncounted: false,
        };
        PuzzleOutcome {
            file: "puzzles/k.cu".into(),
            tests: vec![test],
            ..PuzzleOutcome::default()
        }
    }

    #[test]
    fn an_outcome_tells_which_shape_its_wrong_output_has() {
        let with = |mismatches: Vec<usize>| {
            let mut o = outcome();
            for c in o.tests[0].outputs.values_mut() {
                c.expected = vec![1.0, 2.0, 3.0];
                c.got = vec![1.0, 0.0, 0.0];
                c.mismatches = mismatches.clone();
            }
            Seen::from_outcome(&o, None).wrong_shapes
        };
        assert_eq!(with(vec![2]), [WrongElements::Last]);
        assert!(with(vec![1]).is_empty());
        assert!(with(vec![1, 2]).is_empty());
    }

    #[test]
    fn an_outcome_gives_its_diagnostics_once_with_both_lines_text() {
        let src = "cache[t] = a[t];\n__syncthreads_missing();\nout[t] = cache[t + 1];\n";
        let seen = Seen::from_outcome(&outcome(), Some(src));
        assert_eq!(
            seen.diagnostics,
            [SeenDiag {
                kind: DiagKind::SharedRace,
                line: Some(3),
                texts: vec!["out[t] = cache[t + 1];".into(), "cache[t] = a[t];".into()],
            }]
        );
        assert!(seen.wrong_output);
        assert!(seen.over_budget.is_empty());
        // The other side of the race matches a pattern too.
        let m = matching(
            &[mistake("shared-race", Some("cache[t] ="), "store")],
            &seen,
        );
        assert_eq!(hints(&m), ["store"]);
        // Without the source, only patternless kinds match.
        let seen = Seen::from_outcome(&outcome(), None);
        assert!(matching(&[mistake("shared-race", Some("cache"), "x")], &seen).is_empty());
    }

    #[test]
    fn the_untouched_starter_gets_no_mistake_hint() {
        let text = include_str!("../../puzzles/09_pooling.toml");
        let p = crate::puzzle::parse_puzzle(text, std::path::Path::new("puzzles/09_pooling.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        // A failed run with a shared race, which puzzle 9 has a hint for.
        let mut o = outcome();
        o.file = "puzzles/09_pooling.cu".into();
        o.tests[0].diagnostics[0].file = Some("puzzles/09_pooling.cu".into());
        let starter = include_str!("../../puzzles/09_pooling.cu");
        assert!(for_outcome(&p, &o, Some(starter)).is_empty());
        // One edit and it is the learner's kernel: the race gets its hint.
        let edited = format!("{starter}// tried something\n");
        let m = for_outcome(&p, &o, Some(&edited));
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!((m[0].kind.as_str(), m[0].line), ("shared-race", Some(3)));
        // A pass has none.
        o.passed = true;
        assert!(for_outcome(&p, &o, Some(&edited)).is_empty());
    }

    #[test]
    fn a_shown_hint_is_not_shown_again_for_the_same_failure() {
        let text = include_str!("../../puzzles/09_pooling.toml");
        let p = crate::puzzle::parse_puzzle(text, std::path::Path::new("puzzles/09_pooling.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        let race = p
            .mistakes
            .iter()
            .position(|m| m.kind == MistakeKind::Diag(DiagKind::SharedRace))
            .expect("puzzle 9 has a shared-race mistake");
        let matched = vec![Matched {
            index: race,
            kind: "shared-race".into(),
            line: Some(14),
            hint: p.mistakes[race].hint.clone(),
        }];
        let mut state = State::default();
        state.record(&p.slug, false);
        state.set_mistakes(&p.slug, to_seen(&matched));
        assert_eq!(waiting(&state, &p).as_deref(), Some("shared-race, line 14"));
        let first = take_next(&mut state, &p).expect("the mistake hint");
        assert_eq!(first.what, "shared-race, line 14");
        assert_eq!(first.hint, p.mistakes[race].hint);
        assert_eq!(take_next(&mut state, &p), None);
        assert_eq!(waiting(&state, &p), None);
        // The same failure again: still shown.
        state.set_mistakes(&p.slug, to_seen(&matched));
        assert_eq!(take_next(&mut state, &p), None);
        // --all gives it again.
        assert_eq!(take_all(&mut state, &p), std::slice::from_ref(&first));
        // A pass clears it; the failure coming back brings it back.
        state.record(&p.slug, true);
        assert!(state.mistakes(&p.slug).is_empty());
        state.record(&p.slug, false);
        state.set_mistakes(&p.slug, to_seen(&matched));
        assert_eq!(take_next(&mut state, &p), Some(first));
        // A record that no longer fits the puzzle file (edited since) is skipped.
        let mut stale = to_seen(&matched);
        stale[0].kind = "global-race".into();
        state.set_mistakes(&p.slug, stale);
        assert_eq!(take_next(&mut state, &p), None);
    }
}
