//! `gpuzzle watch [N]`: re-grade a puzzle whenever the content of its file changes.
//!
//! In a terminal it draws one fixed screen (progress, puzzle, verdict, hints, keys) and takes
//! single keys: `h` next hint, `n` next puzzle, `r` re-run, `l` list, `s` show, `q` quit. After a
//! pass it stays on the puzzle until `n`. Without a terminal it prints each verdict in turn and
//! moves on after a pass, as a plain re-run loop.
//!
//! A file event alone never re-grades: grading itself opens the file, editors write twice, and
//! some file systems report reads. Only a change of the file's content (its hash) does.

use super::common::{self, BackendArgs, IncludeArgs, Loaded, WorkspaceArgs};
use super::output::{self, outln};
use super::run::{grade_report, Detail};
use crate::puzzle::{Puzzle, State};
use crate::report::watch::{self as screen, Body, Screen};
use crate::teach::hints;
use anyhow::{Context, Result};
use clap::Args;
use colored::Colorize;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode};
use std::hash::{Hash, Hasher};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// The puzzle to start with (default: the first one not passed yet).
    pub puzzle: Option<String>,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    #[command(flatten)]
    pub include: IncludeArgs,
}

enum Event {
    /// Files of the puzzle directory were written (maybe without a change of content).
    Touched(Vec<PathBuf>),
    /// A key pressed in the terminal.
    Key(char),
    /// The watcher failed; the message says why.
    WatchFailed(String),
}

pub fn run(a: &WatchArgs, quiet: bool) -> Result<i32> {
    let loaded = common::load(&a.ws)?;
    let current = match &a.puzzle {
        Some(q) => loaded.ws.find(&loaded.puzzles, q)?,
        None => common::current_puzzle(&loaded)?,
    };
    let (tx, rx) = mpsc::channel();
    let watch_tx = tx.clone();
    let mut debouncer = new_debouncer(
        Duration::from_millis(150),
        move |res: notify_debouncer_mini::DebounceEventResult| {
            let _ = watch_tx.send(match res {
                Ok(events) => Event::Touched(events.into_iter().map(|e| e.path).collect()),
                Err(e) => Event::WatchFailed(e.to_string()),
            });
        },
    )
    .context("cannot watch files")?;
    debouncer
        .watcher()
        .watch(&loaded.ws.puzzles_dir, RecursiveMode::NonRecursive)
        .with_context(|| {
            format!(
                "cannot watch the puzzles directory {}",
                loaded.ws.puzzles_dir.display()
            )
        })?;
    let w = Watch {
        loaded: &loaded,
        backend: &a.backend,
        include: &a.include,
        quiet,
        rx,
    };
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        w.interactive(current, tx)
    } else {
        w.plain(current)
    }
}

struct Watch<'a> {
    loaded: &'a Loaded,
    backend: &'a BackendArgs,
    include: &'a IncludeArgs,
    quiet: bool,
    rx: mpsc::Receiver<Event>,
}

impl<'a> Watch<'a> {
    /// Without a terminal: print each verdict, wait for a change of content, move on after a
    /// pass.
    fn plain(self, mut current: &'a Puzzle) -> Result<i32> {
        loop {
            let file = self.loaded.ws.kernel_path(current, false);
            let mut seen = content_hash(&file);
            let (passed, text) = grade_report(
                self.loaded,
                current,
                false,
                Detail {
                    quiet: self.quiet,
                    verbose: false,
                },
                (self.backend, self.include),
                !self.quiet,
            )?;
            super::print_block(&text);
            if output::stdout_gone() {
                // Nobody reads the verdicts any more (a closed pipe): stop watching.
                return Ok(0);
            }
            if passed {
                if let Some(next) = common::next_of(&self.loaded.puzzles, current) {
                    current = next;
                    outln!(
                        "\n{} now watching {}",
                        "→".green(),
                        common::display_path(&self.loaded.ws.kernel_path(current, false))
                    );
                    continue;
                }
                outln!("Every puzzle passes. Well done!");
                return Ok(0);
            }
            outln!(
                "{}",
                format!(
                    "Watching {} — save it to re-run",
                    common::display_path(&file)
                )
                .dimmed()
            );
            loop {
                match self.rx.recv() {
                    Err(_) => return Ok(0),
                    Ok(Event::WatchFailed(m)) => anyhow::bail!("watching files failed: {m}"),
                    Ok(Event::Key(_)) => {}
                    Ok(Event::Touched(paths)) => {
                        if touches(&paths, &file) && changed(&file, &mut seen) {
                            outln!();
                            break;
                        }
                    }
                }
            }
        }
    }

    /// In a terminal: one screen, single keys.
    fn interactive(self, mut current: &'a Puzzle, tx: mpsc::Sender<Event>) -> Result<i32> {
        let _raw = RawMode::enable()?;
        std::thread::spawn(move || read_keys(tx));
        let mut view = View::Verdict;
        let mut note: Option<String> = None;
        let mut grade = true;
        let mut runs = 0;
        let mut verdict = (false, String::new());
        let mut hints: Vec<(String, String)> = Vec::new();
        // Progressive hints shown in this session (mistake hints are counted by the state).
        let mut progressive = 0;
        let mut file = self.loaded.ws.kernel_path(current, false);
        let mut seen = content_hash(&file);
        loop {
            if grade {
                grade = false;
                runs += 1;
                seen = content_hash(&file);
                // quiet: the report goes on the screen; warnings on stderr would tear it.
                verdict = match grade_report(
                    self.loaded,
                    current,
                    false,
                    Detail {
                        quiet: true,
                        verbose: false,
                    },
                    (self.backend, self.include),
                    false,
                ) {
                    Ok(v) => v,
                    Err(e) => (false, format!("{}: {e:#}", "error".red().bold())),
                };
            }
            let (state, _) = State::load(&self.loaded.ws);
            let progress = (
                state.passed_count(self.loaded.puzzles.iter().map(|p| p.slug.as_str())),
                self.loaded.puzzles.len(),
            );
            let page;
            let body = match view {
                View::Verdict => Body::Verdict(&verdict.1),
                View::List => {
                    let rows: Vec<_> = self
                        .loaded
                        .puzzles
                        .iter()
                        .map(|p| (p, state.status(&p.slug)))
                        .collect();
                    page = crate::report::catalog::list_with_broken(
                        &rows,
                        &super::learn::broken_rows(self.loaded),
                    );
                    Body::Page(&page)
                }
                View::Show => {
                    page =
                        crate::report::catalog::show(current, &common::display_path(&file), false);
                    Body::Page(&page)
                }
            };
            let text = screen::screen(
                &Screen {
                    puzzle: current,
                    file: &common::display_path(&file),
                    progress,
                    runs,
                    passed: verdict.0,
                    hints: &hints,
                    note: note.as_deref(),
                },
                body,
            );
            draw(&text)?;
            note = None;
            // Wait for something that changes the screen.
            loop {
                let event = match self.rx.recv() {
                    Ok(e) => e,
                    Err(_) => return Ok(0),
                };
                match event {
                    Event::WatchFailed(m) => anyhow::bail!("watching files failed: {m}"),
                    Event::Touched(paths) => {
                        if touches(&paths, &file) && changed(&file, &mut seen) {
                            grade = true;
                            view = View::Verdict;
                            break;
                        }
                    }
                    Event::Key(k) if view != View::Verdict && k != 'q' => {
                        view = View::Verdict;
                        break;
                    }
                    Event::Key('q') => return Ok(0),
                    Event::Key('r') => {
                        grade = true;
                        break;
                    }
                    Event::Key('l') => {
                        view = View::List;
                        break;
                    }
                    Event::Key('s') => {
                        view = View::Show;
                        break;
                    }
                    Event::Key('h') => {
                        note = self.next_hint(current, &mut hints, &mut progressive);
                        break;
                    }
                    Event::Key('n') => {
                        match common::next_of(&self.loaded.puzzles, current) {
                            Some(next) => {
                                current = next;
                                file = self.loaded.ws.kernel_path(current, false);
                                hints.clear();
                                progressive = 0;
                                runs = 0;
                                grade = true;
                            }
                            None => {
                                note = Some(format!(
                                    "Puzzle {} is the last one: `gpuzzle list` shows what is left.",
                                    current.id
                                ))
                            }
                        }
                        break;
                    }
                    Event::Key(_) => {}
                }
            }
        }
    }

    /// Put the next hint of `p` on screen and remember it was shown (as `gpuzzle hint` does):
    /// a hint for what went wrong in the last failed run first, once per failure, then the
    /// progressive ones (`progressive` of them shown in this session); the note to show instead
    /// when there is none left.
    fn next_hint(
        &self,
        p: &Puzzle,
        shown: &mut Vec<(String, String)>,
        progressive: &mut usize,
    ) -> Option<String> {
        let total = p.hints.len();
        // Under the state lock, as `gpuzzle hint` counts it. A failed save only means the next
        // session starts from the first hint again: not worth tearing the screen for.
        let n = *progressive;
        let given = State::update(&self.loaded.ws, |s| {
            if let Some(m) = hints::take_next(s, p) {
                return Some(Err(m));
            }
            (n < total).then(|| Ok(s.next_hint(&p.slug, total)))
        })
        .value;
        match given {
            Some(Err(m)) => {
                shown.push((super::learn::heading_for_mistake(&m.what), m.hint));
                None
            }
            Some(Ok(_)) => {
                *progressive += 1;
                shown.push((format!("Hint {} of {total}:", n + 1), p.hints[n].clone()));
                None
            }
            None if total == 0 => Some(format!(
                "Puzzle {} has no hints: press s to read the task again.",
                p.id
            )),
            None => Some(crate::report::catalog::no_more_hints(p)),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Verdict,
    List,
    Show,
}

/// Whether any of the written paths is `file` (events carry absolute paths; compare names in
/// the watched directory).
fn touches(paths: &[PathBuf], file: &Path) -> bool {
    paths.iter().any(|p| p.file_name() == file.file_name())
}

/// Hash of a file's content; None when it cannot be read (deleted, mid-rename).
fn content_hash(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    Some(h.finish())
}

/// The file's content hash once it has stopped changing: a save is often a truncation and then a
/// write (or two writes), and grading the half-written file would show a bogus verdict and then
/// re-grade. Waits up to about half a second for two reads 60 ms apart to agree.
fn settled_hash(path: &Path) -> Option<u64> {
    let mut last = content_hash(path);
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(60));
        let now = content_hash(path);
        if now == last {
            break;
        }
        last = now;
    }
    last
}

/// Whether the file's content differs from `seen`; updates `seen` when it does. A file that
/// cannot be read right now (an editor between delete and rename) is not a change: its next
/// write brings another event.
fn changed(path: &Path, seen: &mut Option<u64>) -> bool {
    match settled_hash(path) {
        Some(h) if Some(h) != *seen => {
            *seen = Some(h);
            true
        }
        _ => false,
    }
}

/// Send each key press as a character; Ctrl-C and Esc count as `q` in raw mode, where the
/// terminal no longer turns them into signals.
fn read_keys(tx: mpsc::Sender<Event>) {
    loop {
        let key = match crossterm::event::read() {
            Ok(crossterm::event::Event::Key(k)) => k,
            Ok(_) => continue,
            Err(_) => return,
        };
        if let Some(c) = key_char(key) {
            if tx.send(Event::Key(c)).is_err() {
                return;
            }
        }
    }
}

fn key_char(k: KeyEvent) -> Option<char> {
    if k.kind == KeyEventKind::Release {
        return None;
    }
    match k.code {
        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => Some('q'),
        KeyCode::Char(c) => Some(c.to_ascii_lowercase()),
        KeyCode::Esc => Some('q'),
        KeyCode::Enter => Some('\n'),
        _ => None,
    }
}

/// Clear the terminal and draw `text` from the top. In raw mode a newline does not return the
/// carriage, so each line ends with `\r\n`.
fn draw(text: &str) -> Result<()> {
    use crossterm::{cursor::MoveTo, queue, terminal::Clear, terminal::ClearType};
    let mut out = std::io::stdout().lock();
    queue!(out, MoveTo(0, 0), Clear(ClearType::All))?;
    out.write_all(text.replace('\n', "\r\n").as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The terminal in raw mode (keys arrive one by one, unechoed) until dropped, also when a
/// panic unwinds.
struct RawMode;

impl RawMode {
    fn enable() -> Result<RawMode> {
        crossterm::terminal::enable_raw_mode()
            .context("cannot read single keys from this terminal")?;
        Ok(RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
        outln!();
    }
}
