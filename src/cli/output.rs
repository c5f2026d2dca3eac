//! Everything the commands print goes through here, so a failed write never panics.
//!
//! `print!` panics when stdout fails (a reader that closed the pipe, a full disk). Instead the
//! first failure is remembered and later output is dropped: a closed pipe ends the command
//! quietly with its own exit code (the reader asked for no more), any other failure (e.g.
//! `> /dev/full`) turns the exit code into 2 with one message on stderr. The command itself
//! still finishes, so progress it records is never lost half-way.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;

/// What happened to stdout so far.
enum Fate {
    Fine,
    /// The reader went away: drop the rest without a word.
    Closed,
    /// A real write error: report it once at exit.
    Failed(io::Error),
}

static STDOUT_FATE: Mutex<Fate> = Mutex::new(Fate::Fine);

fn note_error(e: io::Error) {
    let mut fate = STDOUT_FATE.lock().unwrap_or_else(|p| p.into_inner());
    if matches!(*fate, Fate::Fine) {
        *fate = if e.kind() == io::ErrorKind::BrokenPipe {
            Fate::Closed
        } else {
            Fate::Failed(e)
        };
    }
}

/// True once stdout failed: long-running commands (watch) stop, and nothing more is written.
pub fn stdout_gone() -> bool {
    !matches!(
        *STDOUT_FATE.lock().unwrap_or_else(|p| p.into_inner()),
        Fate::Fine
    )
}

/// Write formatted text to stdout, remembering (not panicking on) a failure.
pub fn write_stdout(args: fmt::Arguments) {
    if stdout_gone() {
        return;
    }
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        note_error(e);
    }
}

/// Write bytes to stdout through `f` (for large streamed output such as exec's JSON), with the
/// same failure rules; `f` gets a buffered writer.
pub fn with_stdout(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) {
    if stdout_gone() {
        return;
    }
    let lock = io::stdout().lock();
    let mut buf = io::BufWriter::with_capacity(1 << 16, lock);
    let result = f(&mut buf).and_then(|()| buf.flush());
    if let Err(e) = result {
        note_error(e);
    }
}

/// Write to stderr, ignoring failures: there is nowhere left to report them.
pub fn write_stderr(args: fmt::Arguments) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Flush stdout and turn what happened into the process exit code: `code` when all went well
/// or the reader closed the pipe, 2 with a message when the output could not be written.
pub fn finish(code: i32) -> i32 {
    if !stdout_gone() {
        if let Err(e) = io::stdout().lock().flush() {
            note_error(e);
        }
    }
    let fate = std::mem::replace(
        &mut *STDOUT_FATE.lock().unwrap_or_else(|p| p.into_inner()),
        Fate::Fine,
    );
    match fate {
        Fate::Fine | Fate::Closed => code,
        Fate::Failed(e) => {
            write_stderr(format_args!("error: could not write the output: {e}\n"));
            super::EXIT_USAGE
        }
    }
}

/// `print!` that never panics.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!($($arg)*)) };
}

/// `println!` that never panics.
macro_rules! outln {
    () => { $crate::cli::output::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that never panics (a closed stderr is ignored).
macro_rules! errln {
    () => { $crate::cli::output::write_stderr(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::cli::output::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {errln, out, outln};
