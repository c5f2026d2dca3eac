//! `gpuzzle watch` as a learner uses it: in a real terminal (a pseudo-terminal whose screen is
//! read back through a VT100 parser), typing single keys and saving the puzzle's file; and
//! without a terminal, as a plain re-run loop. These need NVRTC
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
    _master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    bytes: mpsc::Receiver<Vec<u8>>,
    parser: vt100::Parser,
}

impl Term {
    fn spawn(ws: &Path, args: &[&str]) -> Term {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
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
            _master: pair.master,
            writer,
            bytes,
            parser: vt100::Parser::new(ROWS, COLS, 0),
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

    /// Wait until the screen satisfies `pred`; panic with the screen after `limit`.
    fn wait_for(&mut self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) {
        let start = Instant::now();
        loop {
            if pred(&self.screen()) {
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

    // `l` lists the pack, any key goes back; `s` shows the task.
    t.key("l");
    t.wait_for("the list", LIMIT, |s| {
        s.contains("Zip") && s.contains("any key: back")
    });
    t.key("x");
    t.wait_for("the verdict again", LIMIT, |s| {
        s.contains("Passed! Press n")
    });
    t.key("s");
    t.wait_for("the task", LIMIT, |s| {
        s.contains("Kernel") && s.contains("any key: back")
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
