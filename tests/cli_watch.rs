//! `gpuzzle watch` as a learner uses it: in a real terminal (a pseudo-terminal whose screen is
//! read back through a VT100 parser), typing single keys and saving the puzzle's file; and
//! without a terminal, as a plain re-run loop. The screen is checked at common terminal sizes
//! (80×24, 120×40) on the longest starters: title and keys stay on it, the body scrolls, and
//! nothing reaches the scrollback. These need NVRTC
//! (`pip install nvidia-cuda-nvrtc-cu12`); without it they fail and say so.

mod cli_support;

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gpuzzle");
const ROWS: u16 = 200;
const COLS: u16 = 140;
/// Lines the parser keeps when they scroll off the primary screen: the screen must leave none.
const SCROLLBACK: usize = 10_000;

/// A fresh workspace made by `gpuzzle init`; returns the temp dir and the workspace root.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let out = std::process::Command::new(BIN)
        .arg("init")
        .arg(&ws)
        .output()
        .unwrap();
    assert!(out.status.success(), "init failed: {out:?}");
    (dir, ws)
}

/// `gpuzzle watch ARGS` on a pseudo-terminal, with its screen.
struct Term {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    bytes: mpsc::Receiver<Vec<u8>>,
    parser: vt100::Parser,
}

impl Term {
    fn spawn(ws: &Path, args: &[&str]) -> Term {
        Term::sized(ws, args, ROWS, COLS)
    }

    /// `spawn` on a terminal of `rows` × `cols`, keeping what scrolls off its primary screen.
    fn sized(ws: &Path, args: &[&str], rows: u16, cols: u16) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pseudo-terminal");
        let mut cmd = CommandBuilder::new(BIN);
        cmd.args(args);
        cmd.cwd(ws);
        cmd.env("GPUZZLE_BACKEND", "emu");
        cmd.env_remove("GPUZZLE_PUZZLES");
        cmd.env_remove("NO_COLOR");
        let child = pair.slave.spawn_command(cmd).expect("spawn gpuzzle watch");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let (tx, bytes) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Term {
            child,
            master: pair.master,
            writer,
            bytes,
            parser: vt100::Parser::new(rows, cols, SCROLLBACK),
        }
    }

    /// Feed whatever the program printed into the screen, waiting up to `wait` for more.
    fn pump(&mut self, wait: Duration) {
        if let Ok(b) = self.bytes.recv_timeout(wait) {
            self.parser.process(&b);
            while let Ok(b) = self.bytes.try_recv() {
                self.parser.process(&b);
            }
        }
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Wait until the screen satisfies `pred`, and then until the program stops writing (the
    /// rest of the frame); panic with the screen after `limit`.
    fn wait_for(&mut self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) {
        let start = Instant::now();
        loop {
            if pred(&self.screen()) {
                while let Ok(b) = self.bytes.recv_timeout(Duration::from_millis(100)) {
                    self.parser.process(&b);
                }
                return;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                panic!(
                    "waited {limit:?} for {what}; the screen shows:\n{}",
                    self.screen()
                );
            }
            self.pump(Duration::from_millis(50));
        }
    }

    /// Read the screen for `d` without expecting anything.
    fn idle(&mut self, d: Duration) {
        let start = Instant::now();
        while start.elapsed() < d {
            self.pump(Duration::from_millis(50));
        }
    }

    fn key(&mut self, k: &str) {
        self.writer.write_all(k.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Row `i` of the screen as text, without trailing blanks (negative: from the bottom).
    fn row(&self, i: i32) -> String {
        let (rows, cols) = self.parser.screen().size();
        let i = if i < 0 { rows as i32 + i } else { i } as u16;
        self.parser
            .screen()
            .rows(0, cols)
            .nth(i as usize)
            .unwrap_or_default()
            .trim_end()
            .to_string()
    }

    /// Make the terminal `rows` × `cols`, as a window resize does (the program gets SIGWINCH).
    fn resize(&mut self, rows: u16, cols: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        self.parser.screen_mut().set_size(rows, cols);
    }

    /// Quit with `q` and wait for the exit, checking it succeeded.
    fn quit(&mut self) {
        self.key("q");
        let start = Instant::now();
        let status = loop {
            self.pump(Duration::from_millis(20));
            if let Some(st) = self.child.try_wait().unwrap() {
                break st;
            }
            if start.elapsed() > LIMIT {
                let _ = self.child.kill();
                panic!("watch did not quit on q:\n{}", self.screen());
            }
        };
        self.idle(Duration::from_millis(200));
        assert!(status.success(), "exit status {status:?}");
    }

    /// After quitting: back on the primary screen, which is as it was (blank) and has nothing
    /// in its scrollback: every screen was drawn on the alternate screen.
    fn assert_primary_screen_untouched(&mut self) {
        let screen = self.parser.screen_mut();
        assert!(!screen.alternate_screen(), "still on the alternate screen");
        screen.set_scrollback(usize::MAX);
        let lines = screen.scrollback();
        screen.set_scrollback(0);
        assert_eq!(lines, 0, "{lines} lines went into the scrollback");
        let text = self.screen();
        assert!(text.trim().is_empty(), "the primary screen shows:\n{text}");
    }
}

const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn watch_in_a_terminal_takes_single_keys_and_regrades_only_on_a_change() {
    let (_dir, ws) = workspace();
    let file = ws.join("puzzles/01_map.cu");
    let solution =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/01_map.cu")).unwrap();
    let mut t = Term::spawn(&ws, &["watch", "1"]);

    // First screen: the starter's verdict, graded once, with the keys.
    t.wait_for("the first verdict", LIMIT, |s| {
        s.contains("Puzzle 1 · Map") && s.contains("run 1") && s.contains("q quit")
    });
    assert!(!t.screen().contains("Passed!"), "{}", t.screen());

    // `h` (no Enter): the first hint appears under the verdict.
    t.key("h");
    t.wait_for("hint 1", LIMIT, |s| s.contains("Hint 1 of"));

    // Nothing saved: no re-run, however long we wait (no runaway re-grading) and the progress
    // file is not rewritten.
    let state = ws.join(".gpuzzle/state.toml");
    let before = std::fs::metadata(&state).and_then(|m| m.modified()).ok();
    t.idle(Duration::from_millis(1500));
    assert!(t.screen().contains("run 1"), "{}", t.screen());
    let after = std::fs::metadata(&state).and_then(|m| m.modified()).ok();
    assert_eq!(before, after, "state.toml was rewritten without a save");

    // Saving the same content is not a change.
    std::fs::write(&file, std::fs::read(&file).unwrap()).unwrap();
    t.idle(Duration::from_millis(1000));
    assert!(t.screen().contains("run 1"), "{}", t.screen());

    // Saving the solution re-grades once: it passes, and watch stays on the puzzle.
    std::fs::write(&file, &solution).unwrap();
    t.wait_for("the passing verdict", LIMIT, |s| {
        s.contains("run 2") && s.contains("Passed! Press n")
    });
    // The same content saved again (editors often write twice) changes nothing.
    std::fs::write(&file, &solution).unwrap();
    t.idle(Duration::from_millis(1000));
    let s = t.screen();
    assert!(s.contains("run 2") && s.contains("Puzzle 1 · Map"), "{s}");

    // `r` re-runs on demand.
    t.key("r");
    t.wait_for("run 3", LIMIT, |s| s.contains("run 3"));

    // `l` lists the pack, `l` again closes it; `s` shows the task, any other key goes back.
    t.key("l");
    t.wait_for("the list", LIMIT, |s| {
        s.contains("Zip") && s.contains("Esc or l close")
    });
    t.key("l");
    t.wait_for("the verdict again", LIMIT, |s| {
        s.contains("Passed! Press n")
    });
    t.key("s");
    t.wait_for("the task", LIMIT, |s| {
        s.contains("Kernel") && s.contains("any other key: back")
    });
    t.key(" ");
    t.wait_for("the verdict again", LIMIT, |s| s.contains("r re-run"));

    // `n` moves to the next puzzle.
    t.key("n");
    t.wait_for("puzzle 2", LIMIT, |s| {
        s.contains("Puzzle 2 · Zip") && s.contains("run 1")
    });

    // `q` quits cleanly.
    t.key("q");
    let start = Instant::now();
    let status = loop {
        t.pump(Duration::from_millis(20));
        if let Some(st) = t.child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > LIMIT {
            let _ = t.child.kill();
            panic!("watch did not quit on q:\n{}", t.screen());
        }
    };
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn watch_shows_every_hint_then_says_what_is_left() {
    let (_dir, ws) = workspace();
    let mut t = Term::spawn(&ws, &["watch", "2"]);
    t.wait_for("the first verdict", LIMIT, |s| s.contains("Puzzle 2 · Zip"));
    for _ in 0..6 {
        t.key("h");
    }
    t.wait_for("the end of the hints", LIMIT, |s| {
        s.contains("Hint 3 of 3") && s.contains("No more hints for puzzle 2")
    });
    t.key("q");
    t.idle(Duration::from_millis(300));
    let _ = t.child.kill();
}

#[test]
fn watch_without_a_terminal_prints_each_verdict_once_per_change() {
    let (_dir, ws) = workspace();
    let file = ws.join("puzzles/01_map.cu");
    let mut child = std::process::Command::new(BIN)
        .args(["watch", "1"])
        .current_dir(&ws)
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let rx = cli_support::stdout_chunks(&mut child);
    let mut text = String::new();
    let wait_for = |what: &str, pred: &dyn Fn(&str) -> bool, text: &mut String| {
        let start = Instant::now();
        while !pred(text) {
            if start.elapsed() > LIMIT {
                panic!("waited for {what}; output so far:\n{text}");
            }
            if let Ok(s) = rx.recv_timeout(Duration::from_millis(50)) {
                text.push_str(&s);
            }
        }
    };
    let watching = |t: &str| t.matches("save it to re-run").count();
    wait_for("the first verdict", &|t| watching(t) == 1, &mut text);
    // Same content: no new verdict.
    std::fs::write(&file, std::fs::read(&file).unwrap()).unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    while let Ok(s) = rx.try_recv() {
        text.push_str(&s);
    }
    assert_eq!(watching(&text), 1, "re-graded without a change:\n{text}");
    // A real change: one new verdict.
    let mut changed = std::fs::read_to_string(&file).unwrap();
    changed.push_str("\n// edited\n");
    std::fs::write(&file, changed).unwrap();
    wait_for("the second verdict", &|t| watching(t) == 2, &mut text);
    std::thread::sleep(Duration::from_millis(1000));
    while let Ok(s) = rx.try_recv() {
        text.push_str(&s);
    }
    assert_eq!(watching(&text), 2, "re-graded more than once:\n{text}");
    let _ = child.kill();
    let _ = child.wait();
}

/// A bare `gpuzzle` in a terminal resumes where the learner left off: `watch` on the first
/// puzzle not passed yet, keys and all.
#[test]
fn a_bare_gpuzzle_in_a_terminal_resumes_in_watch() {
    let (_dir, ws) = workspace();
    let solution =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/01_map.cu")).unwrap();
    std::fs::write(ws.join("puzzles/01_map.cu"), solution).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["run", "1"])
        .current_dir(&ws)
        .env("GPUZZLE_BACKEND", "emu")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut t = Term::spawn(&ws, &[]);
    t.wait_for("watch on puzzle 2", LIMIT, |s| {
        s.contains("Puzzle 2 · Zip") && s.contains("q quit")
    });
    t.key("q");
    let start = Instant::now();
    loop {
        t.pump(Duration::from_millis(20));
        if t.child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > LIMIT {
            let _ = t.child.kill();
            panic!("a bare gpuzzle did not quit on q:\n{}", t.screen());
        }
    }
}

/// The body's position, as the bottom rule says it (`rows 1–10 of 45 ↓`).
fn position(t: &Term) -> String {
    let rule = t.row(-3);
    rule.trim_matches(|c| c == '─' || c == ' ').to_string()
}

/// Puzzle 26's starter (its report runs to some 90 lines) on an 80×24 terminal: the title and
/// the keys stay on screen while the body scrolls, `h` updates the hint counter at once, re-grades
/// and keys leave nothing in the scrollback, and a resize redraws at the new size.
#[test]
fn a_long_starter_fits_80x24_and_scrolls_without_filling_the_scrollback() {
    let (_dir, ws) = workspace();
    let file = ws.join("puzzles/26_fast_matmul_debug.cu");
    let mut t = Term::sized(&ws, &["watch", "26"], 24, 80);
    t.wait_for("the first verdict", LIMIT, |s| {
        s.contains("run 1") && s.contains("FAILED")
    });
    assert!(
        t.parser.screen().alternate_screen(),
        "not on the alternate screen"
    );
    let title = t.row(0);
    assert!(
        title.starts_with("Puzzle 26 · Debug: fast_matmul  FAILED")
            && title.contains("run 1 · 3 hints · 0/")
            && title.ends_with(" passed"),
        "{}",
        t.screen()
    );
    assert!(
        t.row(-1).contains("r re-run") && t.row(-1).ends_with("q quit"),
        "{}",
        t.screen()
    );
    // Verdict rows under the title: every test, with its verdict first.
    assert!(
        t.row(1).starts_with("  PASS    test \"16x16"),
        "{}",
        t.screen()
    );
    assert!(
        t.row(2).starts_with("  FAIL    test \"20x20"),
        "{}",
        t.screen()
    );
    assert!(
        t.screen().contains("per thread: global reads 4/4"),
        "{}",
        t.screen()
    );
    let first = position(&t);
    assert!(
        first.starts_with("rows 1–") && first.ends_with('↓'),
        "{}",
        t.screen()
    );

    // PgDn moves the body a page, j a row, Home back to the top; title and keys stay.
    // The body's first row: the one under the rule below the counters.
    let body_top = |t: &Term| {
        let rule = (0..24).find(|&i| t.row(i).starts_with("────")).unwrap_or(0);
        t.row(rule + 1)
    };
    let top_before = body_top(&t);
    t.key("\x1b[6~");
    t.wait_for("a page down", LIMIT, |s| !s.contains(&first));
    let paged = position(&t);
    assert_ne!(body_top(&t), top_before, "{}", t.screen());
    t.key("j");
    t.wait_for("a row down", LIMIT, |s| !s.contains(&paged));
    assert!(t.row(0).starts_with("Puzzle 26") && t.row(-1).ends_with("q quit"));
    t.key("\x1b[H");
    t.wait_for("the top again", LIMIT, |s| s.contains(&first));
    assert_eq!(body_top(&t), top_before);

    // `h`: the counter in the title and the hint on screen agree at once (a hint for the
    // mistake seen may come before the numbered ones).
    for n in 1..=2 {
        let want = format!("hint {n} of 3");
        let heading = format!("Hint {n} of 3:");
        for _ in 0..3 {
            t.key("h");
            t.idle(Duration::from_millis(300));
            if t.row(0).contains(&want) {
                break;
            }
        }
        assert!(t.row(0).contains(&want), "{}", t.screen());
        assert!(t.screen().contains(&heading), "{}", t.screen());
    }

    // Re-grades, by key and by a save, and more keys: all on the alternate screen.
    t.key("r");
    t.wait_for("run 2", LIMIT, |s| s.contains("run 2 ·"));
    let mut changed = std::fs::read_to_string(&file).unwrap();
    changed.push_str("\n// edited\n");
    std::fs::write(&file, changed).unwrap();
    t.wait_for("run 3", LIMIT, |s| s.contains("run 3 ·"));
    for k in ["s", "x", "l", "l", "j", "\x1b[6~", "\x1b[F", "k"] {
        t.key(k);
        t.idle(Duration::from_millis(150));
    }
    assert!(
        t.row(0).starts_with("Puzzle 26") && t.row(-1).ends_with("q quit"),
        "{}",
        t.screen()
    );

    // A resize redraws at the new size.
    t.resize(40, 120);
    let start = Instant::now();
    while !(t.row(-1).ends_with("q quit") && t.row(0).starts_with("Puzzle 26")) {
        assert!(
            start.elapsed() < LIMIT,
            "no redraw at 120×40:\n{}",
            t.screen()
        );
        t.pump(Duration::from_millis(50));
    }
    assert!(
        t.row(0).len() > 80,
        "the title is not laid out at 120 columns: {}",
        t.row(0)
    );

    t.quit();
    t.assert_primary_screen_untouched();
}

/// Puzzle 11's starter at 120×40: title and keys visible; `l` opens the list with the current
/// puzzle marked, arrows move, Enter switches watch to the chosen puzzle.
#[test]
fn at_120x40_the_list_moves_and_opens_a_puzzle_with_the_current_one_marked() {
    let (_dir, ws) = workspace();
    let mut t = Term::sized(&ws, &["watch", "11"], 40, 120);
    t.wait_for("the first verdict", LIMIT, |s| {
        s.contains("run 1") && s.contains("FAILED")
    });
    assert!(
        t.row(0).starts_with("Puzzle 11 · 1D convolution  FAILED"),
        "{}",
        t.screen()
    );
    assert!(t.row(-1).ends_with("q quit"), "{}", t.screen());
    // All eight test rows fit at 40 rows, and the first failing test's diff is on screen.
    assert_eq!(
        t.screen().matches("FAIL    test").count(),
        8,
        "{}",
        t.screen()
    );
    assert!(
        t.screen().contains("out: 6 of 6 elements differ"),
        "{}",
        t.screen()
    );

    t.key("l");
    t.wait_for("the list", LIMIT, |s| s.contains("all puzzles · 0 of"));
    let marked: Vec<String> = t
        .screen()
        .lines()
        .filter(|l| l.contains('▶'))
        .map(String::from)
        .collect();
    assert_eq!(marked.len(), 1, "{}", t.screen());
    assert!(
        marked[0].contains("▶ 11  1D convolution") && marked[0].contains("(watching)"),
        "{}",
        t.screen()
    );
    assert!(t.screen().contains("not started"), "{}", t.screen());
    // Down twice (an arrow and j), up once: the cursor is on puzzle 12; Enter opens it.
    t.key("\x1b[B");
    t.key("j");
    t.key("\x1b[A");
    t.idle(Duration::from_millis(300));
    t.key("\r");
    t.wait_for("puzzle 12", LIMIT, |s| {
        s.contains("Puzzle 12 ·") && s.contains("run 1 ·")
    });
    assert!(t.row(0).starts_with("Puzzle 12 ·"), "{}", t.screen());
    // Puzzle 11 was graded, so the list now calls it tried; 12 is marked.
    t.key("l");
    t.wait_for("the list again", LIMIT, |s| s.contains("all puzzles"));
    let s = t.screen();
    let current = s.lines().find(|l| l.contains('▶')).unwrap_or_default();
    assert!(
        current.contains("▶ 12") && current.contains("(watching)"),
        "{s}"
    );
    let eleven = s
        .lines()
        .find(|l| l.contains("11  1D convolution"))
        .unwrap_or_default();
    assert!(eleven.contains("tried") && !eleven.contains('▶'), "{s}");
    // Esc (or `l`) closes the list without switching.
    t.key("\x1b");
    t.wait_for("the verdict", LIMIT, |s| s.contains("r re-run"));
    assert!(t.row(0).starts_with("Puzzle 12 ·"), "{}", t.screen());

    t.quit();
    t.assert_primary_screen_untouched();
}
