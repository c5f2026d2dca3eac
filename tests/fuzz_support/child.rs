//! One child process, measured: its exit, its output (files, so no pipe can fill; at most
//! `OUTPUT_CAP` of each is read back, so the campaign stays small), its wall and CPU time
//! and its peak memory. A watchdog reads the child's `/proc/PID/status` every 20 ms: its
//! peak resident memory (`VmHWM`), and a kill past the time bound or when its resident memory
//! passes the memory bound, so a runaway mutant costs the campaign a bounded time and never
//! the machine's memory.
//!
//! `ru_maxrss` from `wait4` alone would not do: Linux carries the spawning process's peak over
//! into the child's through the exec, so a campaign that once held a large output would see
//! every later child at least that large. It counts only when above the campaign's own peak.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why the watchdog killed a child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Killed {
    Time,
    Memory,
}

/// What a finished child did.
#[derive(Debug)]
pub struct Finished {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    /// More than `OUTPUT_CAP` bytes were written to stdout (`stdout` holds the first ones).
    pub stdout_truncated: bool,
    pub stderr: String,
    pub secs: f64,
    /// CPU time (user and system): on a busy machine, much less than `secs`.
    pub cpu_secs: f64,
    pub max_rss_kb: i64,
    pub killed: Option<Killed>,
}

/// The most of a child's stdout or stderr read back.
pub const OUTPUT_CAP: u64 = 16 << 20;

/// A field of `/proc/PID/status` in KiB (0 when it cannot be read).
fn status_kb(pid: &str, field: &str) -> i64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn tv_secs(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

/// The first `OUTPUT_CAP` bytes of a file, and whether there was more.
fn read_lossy(path: &Path) -> (String, bool) {
    let mut bytes = Vec::new();
    let Ok(file) = File::open(path) else {
        return (String::new(), false);
    };
    let _ = file.take(OUTPUT_CAP + 1).read_to_end(&mut bytes);
    let more = bytes.len() as u64 > OUTPUT_CAP;
    bytes.truncate(OUTPUT_CAP as usize);
    (String::from_utf8_lossy(&bytes).into_owned(), more)
}

/// Run `cmd` to its end, its output in `dir/stdout` and `dir/stderr`, killed past `time` or
/// past `memory_kb` of resident memory.
pub fn run(
    mut cmd: Command,
    dir: &Path,
    time: Duration,
    memory_kb: i64,
) -> std::io::Result<Finished> {
    let out_path = dir.join("stdout");
    let err_path = dir.join("stderr");
    let start = Instant::now();
    // Reaped by `wait4` below (std's `wait` cannot report peak memory).
    #[allow(clippy::zombie_processes)]
    let child = cmd
        .stdin(Stdio::null())
        .stdout(File::create(&out_path)?)
        .stderr(File::create(&err_path)?)
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    let done = Arc::new(AtomicBool::new(false));
    // 0: not killed, 1: time, 2: memory.
    let killed = Arc::new(AtomicU8::new(0));
    let peak = Arc::new(AtomicI64::new(0));
    let watchdog = {
        let (done, killed, peak) = (Arc::clone(&done), Arc::clone(&killed), Arc::clone(&peak));
        std::thread::spawn(move || {
            let until = Instant::now() + time;
            let id = pid.to_string();
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(status_kb(&id, "VmHWM:"), Ordering::Relaxed);
                let why = if Instant::now() >= until {
                    1
                } else if status_kb(&id, "VmRSS:") > memory_kb {
                    2
                } else {
                    0
                };
                if why != 0 {
                    killed.store(why, Ordering::Relaxed);
                    // SAFETY: kill on our own child's pid, which `wait4` has not reaped yet
                    // (`done` is set only after it has).
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our unreaped child; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    if r != pid {
        return Err(std::io::Error::last_os_error());
    }
    let secs = start.elapsed().as_secs_f64();
    let (code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    let killed = match killed.load(Ordering::Relaxed) {
        1 => Some(Killed::Time),
        2 => Some(Killed::Memory),
        _ => None,
    };
    let ours = status_kb("self", "VmHWM:");
    let max_rss_kb = peak.load(Ordering::Relaxed).max(if usage.ru_maxrss > ours {
        usage.ru_maxrss
    } else {
        0
    });
    let (stdout, stdout_truncated) = read_lossy(&out_path);
    Ok(Finished {
        code,
        signal,
        stdout,
        stdout_truncated,
        stderr: read_lossy(&err_path).0,
        secs,
        cpu_secs: tv_secs(usage.ru_utime) + tv_secs(usage.ru_stime),
        max_rss_kb,
        killed,
    })
}
