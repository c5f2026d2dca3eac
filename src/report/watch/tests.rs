//! The screen drawn into ratatui's `TestBackend` and read back row by row.

use super::*;
use crate::judge::outcome::PuzzleOutcome;
use crate::report::counters::tests::test_with;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn puzzle(id: u32) -> Puzzle {
    crate::puzzle::embedded_puzzles()
        .expect("the embedded pack loads")
        .into_iter()
        .find(|p| p.id == id)
        .expect("the puzzle is in the pack")
}

/// Puzzle 11's starter as the judge sees it, roughly: eight tests, all failed, a budget, and a
/// long body.
fn outcome() -> PuzzleOutcome {
    let tests = (0..8)
        .map(|i| {
            let mut t = test_with(&format!("test number {i}"), [3, 1, 0, 0]);
            t.passed = i == 2;
            t.random = i >= 4;
            t.budget.global_reads = Some(2);
            t.budget.global_writes = Some(1);
            if i == 0 {
                t.over_budget.push(OverBudget {
                    counter: "global_reads",
                    used: 3,
                    budget: 2,
                    thread: Default::default(),
                    kernel: None,
                    lines: vec![],
                    help: None,
                });
            }
            t
        })
        .collect();
    PuzzleOutcome {
        id: 11,
        slug: "conv_1d".into(),
        title: "1D convolution".into(),
        file: "puzzles/11_conv_1d.cu".into(),
        tests,
        ..PuzzleOutcome::default()
    }
}

/// A verdict whose body has `n` numbered lines.
fn long_verdict(n: usize) -> Verdict {
    let o = outcome();
    let report = crate::report::puzzle::text(&o, None, Some((12, "Next one")), (0, 3), false);
    let mut v = Verdict::new(&o, &report);
    v.body = (1..=n)
        .map(|i| Line::from(format!("  body line {i}")))
        .collect();
    v
}

struct Drawn {
    rows: Vec<String>,
    terminal: Terminal<TestBackend>,
}

fn draw_at(w: u16, h: u16, s: &Screen, scroll: &mut Scroll, list: &mut ListState) -> Drawn {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| draw(f, s, scroll, list)).unwrap();
    let buf = terminal.backend().buffer().clone();
    let rows = (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect();
    Drawn { rows, terminal }
}

fn screen<'a>(p: &'a Puzzle, v: &'a Verdict, hints: &'a [(String, String)]) -> Screen<'a> {
    Screen {
        puzzle: p,
        file: "puzzles/11_conv_1d.cu",
        progress: (3, 35),
        runs: 2,
        verdict: v,
        hints,
        hint_count: (hints.len(), 3),
        mistake: None,
        note: None,
        view: View::Verdict,
    }
}

#[test]
fn at_80x24_the_title_rows_and_keys_stay_put_around_the_body() {
    let p = puzzle(11);
    let v = long_verdict(60);
    let s = screen(&p, &v, &[]);
    let d = draw_at(
        80,
        24,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    let r = &d.rows;
    assert!(
        r[0].starts_with("Puzzle 11 · 1D convolution  FAILED"),
        "{r:#?}"
    );
    assert!(r[0].ends_with("run 2 · 3 hints · 3/35 passed"), "{r:#?}");
    // All eight tests fit, in the judge's order, each with its verdict first.
    assert!(
        r[1].starts_with("  FAIL    test \"test number 0\""),
        "{r:#?}"
    );
    assert!(
        r[3].starts_with("  PASS    test \"test number 2\""),
        "{r:#?}"
    );
    assert!(r[5].contains("(random inputs)"), "{r:#?}");
    // The counters fold to the width.
    assert!(r[9].starts_with("  per thread: global reads 3/2 · global writes 1/1"));
    assert_eq!(r[10], "   shared writes 0", "{r:#?}");
    assert!(r[11].starts_with("────"));
    assert_eq!(r[12], "  body line 1");
    // The body ends above the bottom rule, which says where the view is.
    let body_rows = r.iter().filter(|l| l.starts_with("  body line")).count();
    assert_eq!(body_rows, 9, "{r:#?}");
    assert!(r[21].ends_with("rows 1–9 of 60 ↓ ──"), "{r:#?}");
    assert_eq!(r[22], "Save puzzles/11_conv_1d.cu to re-run.");
    assert_eq!(
        r[23],
        "h hint · n next · r re-run · l list · s show · ↑↓ PgUp PgDn scroll · q quit"
    );
    // The over-budget counter is red.
    let buf = d.terminal.backend().buffer();
    let x = r[9].find("global reads").unwrap() as u16;
    assert_eq!(buf[(x, 9)].fg, Color::Red, "{:?}", buf[(x, 9)]);
}

#[test]
fn at_120x40_there_is_room_for_more_body() {
    let p = puzzle(11);
    let v = long_verdict(60);
    let s = screen(&p, &v, &[]);
    let d = draw_at(
        120,
        40,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    let r = &d.rows;
    assert!(r[0].starts_with("Puzzle 11 · 1D convolution  FAILED"));
    assert!(r[39].ends_with("q quit"));
    assert_eq!(
        r.iter().filter(|l| l.starts_with("  body line")).count(),
        26
    );
}

#[test]
fn a_short_terminal_folds_the_rows_into_a_count_and_tiny_ones_never_panic() {
    let p = puzzle(11);
    let v = long_verdict(60);
    let s = screen(&p, &v, &[]);
    let d = draw_at(
        80,
        12,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    let r = &d.rows;
    assert!(r[0].starts_with("Puzzle 11"));
    assert!(r[11].starts_with("h hint"));
    // Failed tests first, then how many more were left out.
    assert!(
        r.iter()
            .any(|l| l.contains("… and ") && l.contains("more tests")),
        "{r:#?}"
    );
    assert!(
        r.iter().filter(|l| l.contains("PASS ")).count() == 0,
        "{r:#?}"
    );
    let d = draw_at(20, 5, &s, &mut Scroll::default(), &mut ListState::default());
    assert!(d.rows[0].starts_with("Puzzle 11"), "{:#?}", d.rows);
    assert_eq!(d.rows[4], "h n r l s ↑↓ q");
    for (w, h) in [
        (1, 1),
        (80, 1),
        (80, 2),
        (3, 3),
        (10, 40),
        (200, 3),
        (2, 60),
    ] {
        let d = draw_at(w, h, &s, &mut Scroll::default(), &mut ListState::default());
        assert!(d.rows[0].starts_with('P'), "{w}x{h}: {:#?}", d.rows);
    }
}

#[test]
fn the_plan_always_adds_up_and_keeps_title_and_keys() {
    for h in 0..70u16 {
        for rows in [0, 1, 8, 40] {
            for counters in [0, 1, 3] {
                let p = plan(h, rows, counters);
                let sum = p.title
                    + p.rows
                    + p.counters
                    + p.rule_top
                    + p.body
                    + p.rule_bottom
                    + p.status
                    + p.keys;
                assert_eq!(sum, h, "{h} {rows} {counters}: {p:?}");
                assert_eq!(p.title, h.min(1));
                assert_eq!(p.keys, h.saturating_sub(1).min(1));
                assert!(p.rows as usize <= rows);
                if h >= 5 {
                    assert!(p.body >= 3, "{h}: {p:?}");
                }
            }
        }
    }
}

#[test]
fn scrolling_moves_the_body_and_stops_at_its_ends() {
    let p = puzzle(11);
    let v = long_verdict(60);
    let s = screen(&p, &v, &[]);
    let mut scroll = Scroll::default();
    let mut list = ListState::default();
    draw_at(80, 24, &s, &mut scroll, &mut list);
    assert_eq!(scroll.page, 9);
    scroll.by(scroll.page_step());
    let d = draw_at(80, 24, &s, &mut scroll, &mut list);
    assert_eq!(d.rows[12], "  body line 9");
    assert!(
        d.rows[21].ends_with("rows 9–17 of 60 ↑↓ ──"),
        "{:#?}",
        d.rows
    );
    // End: clamped so the last line sits at the bottom; then up by one.
    scroll.by(isize::MAX);
    let d = draw_at(80, 24, &s, &mut scroll, &mut list);
    assert_eq!(d.rows[20], "  body line 60");
    assert_eq!(scroll.top, 51);
    scroll.by(-1);
    let d = draw_at(80, 24, &s, &mut scroll, &mut list);
    assert_eq!(d.rows[20], "  body line 59");
    scroll.by(isize::MIN);
    let d = draw_at(80, 24, &s, &mut scroll, &mut list);
    assert_eq!(d.rows[12], "  body line 1");
}

#[test]
fn a_new_hint_scrolls_into_view_and_the_counter_says_how_many() {
    let p = puzzle(11);
    let v = long_verdict(60);
    let hints = vec![
        ("Hint 1 of 3:".to_string(), "first".to_string()),
        ("Hint 2 of 3:".to_string(), "second".to_string()),
    ];
    let s = screen(&p, &v, &hints);
    let mut scroll = Scroll {
        to_hint: Some(1),
        ..Scroll::default()
    };
    let d = draw_at(80, 24, &s, &mut scroll, &mut ListState::default());
    assert!(
        d.rows[0].ends_with("run 2 · hint 2 of 3 · 3/35 passed"),
        "{:#?}",
        d.rows
    );
    // Near the end of the body the view stops at the end: the hint is on screen all the same.
    assert!(
        d.rows[12..21].iter().any(|l| l == "Hint 2 of 3: second"),
        "{:#?}",
        d.rows
    );
}

#[test]
fn the_list_marks_the_current_puzzle_and_highlights_the_cursor() {
    let p = puzzle(11);
    let v = long_verdict(5);
    let items: Vec<ListRow> = (1..=30)
        .map(|id| ListRow {
            id,
            title: format!("Title {id}"),
            status: match id {
                1..=9 => Status::Passed,
                10 => Status::Failed,
                _ => Status::NotTried,
            },
            current: id == 11,
        })
        .collect();
    let mut s = screen(&p, &v, &[]);
    s.view = View::List(&items);
    let mut list = ListState::default().with_selected(Some(12));
    let d = draw_at(80, 24, &s, &mut Scroll::default(), &mut list);
    let r = &d.rows;
    assert!(r[11].ends_with("all puzzles · 3 of 35 passed ──"), "{r:#?}");
    let current = r
        .iter()
        .position(|l| l.contains("▶ 11  Title 11"))
        .expect("marked");
    assert!(r[current].ends_with("not started  (watching)"), "{r:#?}");
    let cursor = r.iter().position(|l| l.contains("13  Title 13")).unwrap();
    let buf = d.terminal.backend().buffer();
    assert!(buf[(4, cursor as u16)]
        .modifier
        .contains(Modifier::REVERSED));
    assert!(!buf[(4, current as u16)]
        .modifier
        .contains(Modifier::REVERSED));
    assert!(
        r.iter().any(|l| l.contains("10  Title 10  tried")),
        "{r:#?}"
    );
    assert!(r[23].starts_with("↑↓ PgUp PgDn move · Enter open · Esc or l close · q quit"));
    // The title and verdict rows stay.
    assert!(r[0].starts_with("Puzzle 11"));
}

#[test]
fn the_body_is_the_report_without_its_head_or_its_command_lines() {
    let mut o = outcome();
    let report = crate::report::puzzle::text(&o, None, Some((12, "Next")), (1, 3), false);
    let plain = crate::report::layout::strip_ansi(&report);
    assert!(plain.contains("Stuck? gpuzzle hint 11"), "{plain}");
    let v = Verdict::new(&o, &report);
    let body: Vec<String> = v.body.iter().map(|l| l.to_string()).collect();
    let body = body.join("\n");
    assert!(
        !body.contains("Stuck?") && !body.contains("Puzzle 11 ·"),
        "{body}"
    );
    assert!(body.contains("memory per thread"), "{body}");
    assert_eq!(v.rows.len(), 8);
    assert_eq!(v.word, "FAILED");

    for t in &mut o.tests {
        t.passed = true;
        t.over_budget.clear();
    }
    o.passed = true;
    let report = crate::report::puzzle::text(&o, None, Some((12, "Next")), (1, 3), false);
    assert!(crate::report::layout::strip_ansi(&report).contains("Next: gpuzzle run 12"));
    let v = Verdict::new(&o, &report);
    assert!(v.body.is_empty(), "{:?}", v.body);
    assert_eq!(v.word, "PASSED");
    let p = puzzle(11);
    let s = screen(&p, &v, &[]);
    let d = draw_at(
        80,
        24,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    assert!(d.rows[0].contains("PASSED"));
    assert!(
        d.rows.iter().any(|l| l == "  Every test passes."),
        "{:#?}",
        d.rows
    );
    assert!(d.rows[22].starts_with("Passed! Press n"));
}

#[test]
fn an_error_or_a_compile_error_has_no_rows_and_says_why_in_the_body() {
    let v = Verdict::error("error: cannot read puzzles/11_conv_1d.cu");
    assert_eq!(v.word, "ERROR");
    let p = puzzle(11);
    let s = screen(&p, &v, &[]);
    let d = draw_at(
        80,
        24,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    assert!(d.rows[0].contains("ERROR"));
    assert_eq!(
        d.rows[2], "error: cannot read puzzles/11_conv_1d.cu",
        "{:#?}",
        d.rows
    );

    let o = PuzzleOutcome {
        id: 11,
        title: "1D convolution".into(),
        file: "puzzles/11_conv_1d.cu".into(),
        compile_error: Some("puzzles/11_conv_1d.cu(3): error: expected a \";\"".into()),
        ..PuzzleOutcome::default()
    };
    let report = crate::report::puzzle::text(&o, None, None, (0, 3), false);
    let v = Verdict::new(&o, &report);
    assert_eq!(v.word, "DOES NOT COMPILE");
    assert!(v.rows.is_empty() && v.counters.is_empty());
    let body: String = v.body.iter().map(|l| l.to_string() + "\n").collect();
    assert!(body.contains("expected a"), "{body}");
}

#[test]
fn a_narrow_title_drops_the_progress_then_the_hints_before_the_run_count() {
    let p = puzzle(11);
    let v = long_verdict(3);
    let s = screen(&p, &v, &[]);
    let full = title_line(&s, 80).to_string();
    assert!(full.ends_with("run 2 · 3 hints · 3/35 passed"), "{full}");
    let mid = title_line(&s, 52).to_string();
    assert!(mid.ends_with("run 2 · 3 hints"), "{mid}");
    let narrow = title_line(&s, 43).to_string();
    assert!(narrow.ends_with("FAILED    run 2"), "{narrow}");
    let tiny = title_line(&s, 20).to_string();
    assert_eq!(tiny, "Puzzle 11 · 1D convolution  FAILED");
}

#[test]
fn a_multi_launch_puzzle_has_a_counter_line_per_kernel() {
    use crate::emu::result::ThreadId;
    use crate::judge::outcome::KernelUse;
    use crate::puzzle::BlockLimits;
    let kernel = |name: &str, reads: u64, budget: u64| KernelUse {
        name: name.into(),
        counters: Counters {
            global_reads: reads,
            ..Counters::default()
        },
        argmax: [ThreadId::default(); Counters::N],
        budget: Budget {
            global_reads: Some(budget),
            ..Budget::default()
        },
        over_budget: vec![],
        blocks: None,
        block_budget: BlockLimits::default(),
        require: BlockLimits::default(),
        block_overruns: vec![],
    };
    let mut t = test_with("two launches", [0; 4]);
    t.kernels = vec![kernel("partial", 4, 4), kernel("finish", 9, 2)];
    t.kernels[1].over_budget.push(OverBudget {
        counter: "global_reads",
        used: 9,
        budget: 2,
        thread: Default::default(),
        kernel: Some("finish".into()),
        lines: vec![],
        help: None,
    });
    let lines = counter_lines(&[t]);
    let text: Vec<String> = lines
        .iter()
        .flat_map(|c| c.rows(200))
        .map(|l| l.to_string())
        .collect();
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(text[0].starts_with("  `partial` per thread: global reads 4/4 · global writes 0"));
    assert!(text[1].starts_with("  `finish` per thread: global reads 9/2"));
    assert_eq!(lines[1].items[0].style.fg, Some(Color::Red));
    assert_eq!(lines[0].items[0].style.fg, None);
}

#[test]
fn the_status_line_names_a_waiting_mistake_hint_and_a_note_replaces_it() {
    let p = puzzle(11);
    let v = long_verdict(3);
    let mut s = screen(&p, &v, &[]);
    s.mistake = Some("shared-race, line 14");
    let d = draw_at(
        100,
        24,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    assert_eq!(
        d.rows[22],
        "Save puzzles/11_conv_1d.cu to re-run.  h: a hint for this mistake (shared-race, line 14)"
    );
    s.note = Some("Puzzle 11 has no more hints.");
    let d = draw_at(
        100,
        24,
        &s,
        &mut Scroll::default(),
        &mut ListState::default(),
    );
    assert_eq!(d.rows[22], "Puzzle 11 has no more hints.");
}
