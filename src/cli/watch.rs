//! `gpuzzle watch [N]`: re-grade a puzzle whenever the content of its file changes.
//!
//! In a terminal it draws one screen the size of the terminal on its alternate screen
//! (`report::watch` lays it out, with ratatui; nothing reaches the scrollback, and the shell's
//! screen comes back on quit, on an error and on a panic) and takes single keys: `h` next hint,
//! `n` next puzzle, `r` re-run, `l` the list of puzzles (arrows or j/k and Enter to open one),
//! `s` show, `q` (or Esc, Ctrl-C) quit; arrows, j/k, PgUp/PgDn, Home/End scroll the body. A
//! resize redraws. After a pass it stays on the puzzle until `n`. Without a terminal it prints
//! each verdict in turn and moves on after a pass, as a plain re-run loop.
//!
//! A file event alone never re-grades: grading itself opens the file, editors write twice, and
//! some file systems report reads. Only a change of the file's content (its hash) does.

use super::common::{self, BackendArgs, IncludeArgs, Loaded, WorkspaceArgs};
use super::default_jobs;
use super::output::{self, outln};
use super::run::{grade_report, Detail};
use crate::judge::JudgeOptions;
use crate::puzzle::{Puzzle, State};
use crate::report::watch::{self as screen, ListRow, Screen, Scroll};
use crate::teach::hints;
use anyhow::{Context, Result};
use clap::Args;
use colored::Colorize;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode};
use ratatui::backend::CrosstermBackend;
use ratatui::widgets::ListState;
use ratatui::Terminal;
use std::hash::{Hash, Hasher};
use std::io::IsTerminal;
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
    Key(Key),
    /// The terminal changed size.
    Resize,
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
                    Ok(Event::Key(_) | Event::Resize) => {}
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

    /// In a terminal: one screen on the alternate screen, single keys.
    fn interactive(self, first: &'a Puzzle, tx: mpsc::Sender<Event>) -> Result<i32> {
        let mut tui = Tui::enter()?;
        std::thread::spawn(move || read_keys(tx));
        let mut on = On::new(self.loaded, first);
        let mut ui = Ui::default();
        let mut grade = true;
        let mut seen = content_hash(&on.file);
        loop {
            let current = on.puzzle;
            if grade {
                grade = false;
                seen = content_hash(&on.file);
                // Say so while it runs: on the GPU or a slow kernel it takes seconds.
                let file = common::display_path(&on.file);
                ui.note = Some(format!("Grading {file}…"));
                self.draw(&mut tui, &on, &mut ui)?;
                ui.verdict = self.grade(current);
                ui.note = None;
                on.runs += 1;
                ui.body_scroll = Scroll::default();
                // Anything the grading wrote to the terminal behind ratatui's back goes.
                tui.clear()?;
            }
            self.draw(&mut tui, &on, &mut ui)?;
            // Wait for something that changes the screen.
            let key = loop {
                match self.rx.recv() {
                    Err(_) => return Ok(0),
                    Ok(Event::WatchFailed(m)) => anyhow::bail!("watching files failed: {m}"),
                    Ok(Event::Resize) => break None,
                    Ok(Event::Touched(paths)) => {
                        if touches(&paths, &on.file) && changed(&on.file, &mut seen) {
                            grade = true;
                            ui.view = View::Verdict;
                            break None;
                        }
                    }
                    Ok(Event::Key(k)) => break Some(k),
                }
            };
            let Some(key) = key else { continue };
            // A note answers one key: the next key (not a resize) takes it away.
            ui.note = None;
            if key == Key::Quit || key == Key::Char('q') {
                return Ok(0);
            }
            let scroll = match ui.view {
                View::Verdict => &mut ui.body_scroll,
                View::List | View::Show => &mut ui.page_scroll,
            };
            match ui.view {
                View::List => match key {
                    Key::Up | Key::Char('k') => ui.cursor.select_previous(),
                    Key::Down | Key::Char('j') => ui.cursor.select_next(),
                    Key::PageUp => ui.cursor.scroll_up_by(list_page(scroll)),
                    Key::PageDown => ui.cursor.scroll_down_by(list_page(scroll)),
                    Key::Home => ui.cursor.select_first(),
                    Key::End => ui.cursor.select_last(),
                    Key::Esc | Key::Char('l') => ui.view = View::Verdict,
                    Key::Enter => {
                        ui.view = View::Verdict;
                        let chosen = ui
                            .cursor
                            .selected()
                            .and_then(|i| self.loaded.puzzles.get(i));
                        if let Some(p) = chosen.filter(|p| p.id != current.id) {
                            on = On::new(self.loaded, p);
                            grade = true;
                            // No verdict yet: the last one was another puzzle's.
                            ui.verdict = screen::Verdict::default();
                        }
                    }
                    _ => {}
                },
                View::Verdict | View::Show => match key {
                    Key::Up | Key::Char('k') => scroll.by(-1),
                    Key::Down | Key::Char('j') => scroll.by(1),
                    Key::PageUp => scroll.by(-scroll.page_step()),
                    Key::PageDown => scroll.by(scroll.page_step()),
                    Key::Home => scroll.top = 0,
                    Key::End => scroll.by(isize::MAX),
                    // On another page any other key goes back to the verdict.
                    _ if ui.view == View::Show => ui.view = View::Verdict,
                    Key::Esc => return Ok(0),
                    Key::Char('r') => grade = true,
                    Key::Char('l') => {
                        ui.view = View::List;
                        let at = self.loaded.puzzles.iter().position(|p| p.id == current.id);
                        ui.cursor.select(at);
                    }
                    Key::Char('s') => {
                        ui.view = View::Show;
                        ui.page_scroll = Scroll::default();
                    }
                    Key::Char('h') => {
                        let before = on.hints.len();
                        ui.note = self.next_hint(current, &mut on.hints, &mut on.progressive);
                        if on.hints.len() > before {
                            ui.body_scroll.to_hint = Some(on.hints.len() - 1);
                        }
                    }
                    Key::Char('n') => match common::next_of(&self.loaded.puzzles, current) {
                        Some(next) => {
                            on = On::new(self.loaded, next);
                            grade = true;
                            // No verdict yet: the last one was another puzzle's.
                            ui.verdict = screen::Verdict::default();
                        }
                        None => {
                            ui.note = Some(format!(
                                "Puzzle {} is the last one: press l to see what is left.",
                                current.id
                            ))
                        }
                    },
                    _ => {}
                },
            }
        }
    }

    /// Draw the screen as `ui` and the state file say it is now.
    fn draw(&self, tui: &mut Tui, on: &On, ui: &mut Ui) -> Result<()> {
        let current = on.puzzle;
        let (state, _) = State::load(&self.loaded.ws);
        let progress = (
            state.passed_count(self.loaded.puzzles.iter().map(|p| p.slug.as_str())),
            self.loaded.puzzles.len(),
        );
        // A `[[mistake]]` hint for the last failure that `h` has not shown yet.
        let mistake = (!ui.verdict.passed)
            .then(|| hints::waiting(&state, current))
            .flatten();
        let rows: Vec<ListRow> = self
            .loaded
            .puzzles
            .iter()
            .map(|p| ListRow {
                id: p.id,
                title: p.title.clone(),
                status: state.status(&p.slug),
                current: p.id == current.id,
            })
            .collect();
        let display = common::display_path(&on.file);
        let page;
        let (shown_view, scroll) = match ui.view {
            View::Verdict => (screen::View::Verdict, &mut ui.body_scroll),
            View::List => (screen::View::List(&rows), &mut ui.page_scroll),
            View::Show => {
                page = crate::report::catalog::show(current, &display, false);
                (screen::View::Page(&page), &mut ui.page_scroll)
            }
        };
        let s = Screen {
            puzzle: current,
            file: &display,
            progress,
            runs: on.runs,
            verdict: &ui.verdict,
            hints: &on.hints,
            hint_count: (on.progressive, current.hints.len()),
            mistake: mistake.as_deref(),
            note: ui.note.as_deref(),
            view: shown_view,
        };
        tui.terminal
            .draw(|f| screen::draw(f, &s, scroll, &mut ui.cursor))?;
        Ok(())
    }

    /// Grade `p` for the screen. Quiet: the report goes on the screen, and warnings on stderr
    /// would tear it.
    fn grade(&self, p: &Puzzle) -> screen::Verdict {
        let run = || -> Result<screen::Verdict> {
            let selection = self.backend.select_for_grading(false)?;
            let opts = JudgeOptions {
                jobs: default_jobs(),
                executor: selection.executor,
                also: selection.also,
                timeout: self.backend.timeout,
                ..JudgeOptions::default()
            };
            let (outcome, source) = common::grade(&self.loaded.ws, p, false, &opts, self.include)?;
            common::record(&self.loaded.ws, &[&outcome], true);
            // No hint counts and no next puzzle: the screen's title and keys say those, and
            // its body leaves out the lines that would ask for commands.
            let report = crate::report::puzzle::text_with(
                &outcome,
                source.as_deref(),
                None,
                (0, 0),
                false,
                false,
            );
            Ok(screen::Verdict::new(&outcome, &report))
        };
        run()
            .unwrap_or_else(|e| screen::Verdict::error(&format!("{}: {e:#}", "error".red().bold())))
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

/// What the screen shows besides the puzzle: the page, the last verdict, the note from the last
/// key, where each page is scrolled to, the list's cursor.
#[derive(Default)]
struct Ui {
    view: View,
    note: Option<String>,
    verdict: screen::Verdict,
    body_scroll: Scroll,
    page_scroll: Scroll,
    cursor: ListState,
}

/// The puzzle the screen is on, and what this session did with it; a new one on `n` or Enter.
struct On<'a> {
    puzzle: &'a Puzzle,
    file: PathBuf,
    /// Times graded since watch came to it.
    runs: u32,
    /// The hints shown, headings and texts, in order.
    hints: Vec<(String, String)>,
    /// Progressive hints among them (mistake hints are counted by the state).
    progressive: usize,
}

impl<'a> On<'a> {
    fn new(loaded: &Loaded, puzzle: &'a Puzzle) -> On<'a> {
        On {
            puzzle,
            file: loaded.ws.kernel_path(puzzle, false),
            runs: 0,
            hints: Vec::new(),
            progressive: 0,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum View {
    #[default]
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

/// Send each key press and resize; Ctrl-C counts as `q` in raw mode, where the terminal no
/// longer turns it into a signal.
fn read_keys(tx: mpsc::Sender<Event>) {
    loop {
        let event = match crossterm::event::read() {
            Ok(crossterm::event::Event::Key(k)) => match key_of(k) {
                Some(k) => Event::Key(k),
                None => continue,
            },
            Ok(crossterm::event::Event::Resize(..)) => Event::Resize,
            Ok(_) => continue,
            Err(_) => return,
        };
        if tx.send(event).is_err() {
            return;
        }
    }
}

/// A key the screen knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Char(char),
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    Esc,
    /// Ctrl-C.
    Quit,
}

fn key_of(k: KeyEvent) -> Option<Key> {
    if k.kind == KeyEventKind::Release {
        return None;
    }
    Some(match k.code {
        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => Key::Quit,
        KeyCode::Char(c) => Key::Char(c.to_ascii_lowercase()),
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        _ => return None,
    })
}

/// A list page: the rows the body showed last, less one.
fn list_page(scroll: &Scroll) -> u16 {
    u16::try_from(scroll.page_step()).unwrap_or(u16::MAX)
}

/// The terminal as the screen uses it, until dropped (also when an error or a panic unwinds,
/// and a panic hook restores it before the message is printed): raw mode (keys arrive one by
/// one, unechoed), the alternate screen (nothing drawn reaches the scrollback, and the shell's
/// screen comes back on quit), the cursor hidden.
struct Tui {
    terminal: Terminal<CrosstermBackend<std::io::Stdout>>,
}

impl Tui {
    fn enter() -> Result<Tui> {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        crossterm::terminal::enable_raw_mode()
            .context("cannot read single keys from this terminal")?;
        // From here on, dropping the guard undoes what was done.
        let mut stdout = std::io::stdout();
        let entered = crossterm::execute!(
            stdout,
            crossterm::terminal::EnterAlternateScreen,
            crossterm::cursor::Hide
        );
        let terminal = entered.and_then(|()| Terminal::new(CrosstermBackend::new(stdout)));
        match terminal {
            Ok(terminal) => Ok(Tui { terminal }),
            Err(e) => {
                restore();
                Err(e).context("cannot draw on this terminal")
            }
        }
    }
}

impl Tui {
    /// Clear the screen and have the next draw redraw it whole. (Not `Terminal::clear`: it asks
    /// the terminal where its cursor is, and waits for an answer that, with keys read on
    /// another thread, can be taken for a key or never come.)
    fn clear(&mut self) -> Result<()> {
        let size = self.terminal.size()?;
        self.terminal
            .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
        Ok(())
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        restore();
    }
}

/// Leave the alternate screen and raw mode, and show the cursor again.
fn restore() {
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = crossterm::execute!(
        std::io::stdout(),
        crossterm::cursor::Show,
        crossterm::terminal::LeaveAlternateScreen
    );
}
