//! `gpuzzle watch [N]`: re-run a puzzle whenever its file is saved, moving on when it passes.

use super::common::{self, WorkspaceArgs};
use super::output::outln;
use super::run::run_one;
use crate::puzzle::{State, Status};
use anyhow::{Context, Result};
use clap::Args;
use colored::Colorize;
use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode};
use std::io::{BufRead, IsTerminal};
use std::sync::mpsc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct WatchArgs {
    /// The puzzle to start with (default: the first one not passed yet).
    pub puzzle: Option<String>,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

enum Event {
    Saved(Vec<std::path::PathBuf>),
    Quit,
}

pub fn run(a: &WatchArgs, quiet: bool) -> Result<i32> {
    let loaded = common::load(&a.ws)?;
    let (state, _) = State::load(&loaded.ws);
    let mut current = match &a.puzzle {
        Some(q) => loaded.ws.find(&loaded.puzzles, q)?,
        None => match loaded
            .puzzles
            .iter()
            .find(|p| state.status(&p.slug) != Status::Passed)
            .or(loaded.puzzles.first())
        {
            Some(p) => p,
            None => anyhow::bail!("no puzzles to watch"),
        },
    };
    let (tx, rx) = mpsc::channel();
    let watch_tx = tx.clone();
    let mut debouncer = new_debouncer(
        Duration::from_millis(200),
        move |res: notify_debouncer_mini::DebounceEventResult| {
            if let Ok(events) = res {
                let _ = watch_tx.send(Event::Saved(events.into_iter().map(|e| e.path).collect()));
            }
        },
    )
    .context("cannot watch files")?;
    debouncer
        .watcher()
        .watch(&loaded.ws.puzzles_dir, RecursiveMode::NonRecursive)
        .context("cannot watch the puzzles directory")?;
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                match line {
                    Ok(l) if l.trim() == "q" => {
                        let _ = tx.send(Event::Quit);
                        break;
                    }
                    Err(_) => break,
                    _ => {}
                }
            }
        });
    }
    loop {
        let code = run_one(&loaded, &current.id.to_string(), false, quiet)?;
        if code == 0 {
            if let Some(next) = common::next_of(&loaded.puzzles, current) {
                current = next;
                outln!(
                    "\n{} now watching {}",
                    "→".green(),
                    common::display_path(&loaded.ws.kernel_path(current, false))
                );
                continue;
            }
            outln!("Every puzzle passes. Well done!");
            return Ok(0);
        }
        let file = loaded.ws.kernel_path(current, false);
        let file_name = file.file_name().map(|f| f.to_os_string());
        let hint = if interactive {
            " (q + Enter to quit)"
        } else {
            ""
        };
        outln!(
            "{}",
            format!(
                "Watching {} — save it to re-run{hint}",
                common::display_path(&file)
            )
            .dimmed()
        );
        // Nobody reads the output any more (closed pipe, full disk): stop watching.
        if super::output::stdout_gone() {
            return Ok(0);
        }
        loop {
            match rx.recv() {
                Ok(Event::Quit) | Err(_) => return Ok(0),
                Ok(Event::Saved(paths)) => {
                    if paths
                        .iter()
                        .any(|p| p.file_name().map(|f| f.to_os_string()) == file_name)
                    {
                        outln!();
                        break;
                    }
                }
            }
        }
    }
}
