//! Running a request in a child process with a time limit, so that a kernel that hangs the GPU
//! or kills its CUDA context (or the driver itself) takes down only that child.
//!
//! The parent writes one JSON request to the child's stdin and closes it. The child writes its
//! reply as one line, `MARK nonce MARK2 json`, to its stdout. Everything else the child prints on
//! stdout is device printf output (the CUDA driver writes it to the process's stdout), which the
//! parent returns beside the reply; the nonce keeps a kernel's printf from forging a reply.
//! The child's stderr is kept (the tail of it) to explain a crash.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Starts the reply line (ASCII record separator, unlikely in printf output).
pub const REPLY_MARK: &str = "\u{1e}gpuzzle-reply ";
/// Ends the nonce (ASCII unit separator).
pub const NONCE_END: char = '\u{1f}';

/// How much of the child's stderr is kept for messages.
pub(super) const STDERR_TAIL: usize = 4096;

/// The program and arguments that start a worker.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl WorkerCommand {
    /// This very executable, with the hidden `__gpu-worker` subcommand.
    pub fn current_exe() -> Result<WorkerCommand, IsolateError> {
        let program = std::env::current_exe().map_err(|e| {
            IsolateError::Spawn(format!("cannot find gpuzzle's own executable: {e}"))
        })?;
        Ok(WorkerCommand {
            program,
            args: vec!["__gpu-worker".into()],
        })
    }
}

/// Why no reply came back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IsolateError {
    #[error("could not start the GPU worker process: {0}")]
    Spawn(String),
    #[error("the kernel was still running after {secs:.1} s and was stopped")]
    TimedOut { secs: f64 },
    #[error("the GPU worker process died ({status}) before replying{}", tail_of(.stderr))]
    Crashed { status: String, stderr: String },
    #[error("the GPU worker's reply could not be read (a gpuzzle bug): {0}")]
    Protocol(String),
}

fn tail_of(stderr: &str) -> String {
    let t = stderr.trim();
    if t.is_empty() {
        String::new()
    } else {
        format!(": {}", t.lines().last().unwrap_or(t))
    }
}

/// A reply and the child's other stdout output (device printf).
#[derive(Debug)]
pub struct Isolated<R> {
    pub reply: R,
    pub printed: String,
}

/// A nonce unique enough for one parent: pid, time, and a counter.
pub(super) fn new_nonce() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{}-{nanos}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The envelope on the child's stdin.
#[derive(Serialize, serde::Deserialize)]
pub struct Envelope<Q> {
    pub nonce: String,
    pub request: Q,
}

/// Send `request` to a fresh worker and wait at most `timeout` for its reply.
pub fn call<Q: Serialize, R: DeserializeOwned>(
    cmd: &WorkerCommand,
    request: &Q,
    timeout: Duration,
) -> Result<Isolated<R>, IsolateError> {
    let envelope = Envelope {
        nonce: new_nonce(),
        request,
    };
    let input = serde_json::to_vec(&envelope)
        .map_err(|e| IsolateError::Protocol(format!("cannot encode the request: {e}")))?;
    let out = run_child(cmd, input, timeout)?;
    parse_reply(&out.stdout, &envelope.nonce, &out.status, &out.stderr)
}

struct ChildOutput {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: String,
}

/// Start the child, feed it `input`, collect its output; kill it at `timeout`.
fn run_child(
    cmd: &WorkerCommand,
    input: Vec<u8>,
    timeout: Duration,
) -> Result<ChildOutput, IsolateError> {
    let started = Instant::now();
    let mut child = Command::new(&cmd.program)
        .args(&cmd.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| IsolateError::Spawn(format!("{}: {e}", cmd.program.display())))?;
    // Writer and readers on their own threads: a child that writes before it has read all its
    // input (or never reads) must not deadlock the parent.
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            // A child that exits early closes the pipe; its status says why.
            let _ = s.write_all(&input);
        }
        drop(stdin);
    });
    let mut stdout = child.stdout.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let mut stderr = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });

    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                // The child may exit between the check and the kill; either way it is gone.
                let _ = child.kill();
                let _ = child.wait();
                // The pipe threads end when the pipes close; they are not joined, because a
                // grandchild could keep a pipe open long after.
                drop((writer, out_reader, err_reader));
                return Err(IsolateError::TimedOut {
                    secs: timeout.as_secs_f64(),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(IsolateError::Spawn(format!(
                    "cannot wait for the worker: {e}"
                )));
            }
        }
    };
    let _ = writer.join();
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr);
    let keep = stderr.len().saturating_sub(STDERR_TAIL);
    let keep = (keep..stderr.len())
        .find(|&i| stderr.is_char_boundary(i))
        .unwrap_or(stderr.len());
    Ok(ChildOutput {
        status,
        stdout,
        stderr: stderr[keep..].to_string(),
    })
}

/// How a child ended, in words.
pub(super) fn describe_status(status: &ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                7 => " (SIGBUS)",
                _ => "",
            };
            return format!("killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(c) => format!("exit code {c}"),
        None => "no exit code".into(),
    }
}

/// Find the reply line for `nonce` in the child's stdout; the rest is printf output.
fn parse_reply<R: DeserializeOwned>(
    stdout: &[u8],
    nonce: &str,
    status: &ExitStatus,
    stderr: &str,
) -> Result<Isolated<R>, IsolateError> {
    let text = String::from_utf8_lossy(stdout);
    let mark = format!("{REPLY_MARK}{nonce}{NONCE_END}");
    let Some(at) = text.find(&mark) else {
        return Err(IsolateError::Crashed {
            status: describe_status(status),
            stderr: stderr.to_string(),
        });
    };
    let json_start = at + mark.len();
    let json_end = text[json_start..]
        .find('\n')
        .map_or(text.len(), |i| json_start + i);
    let reply: R = serde_json::from_str(&text[json_start..json_end])
        .map_err(|e| IsolateError::Protocol(e.to_string()))?;
    // `write_reply` puts a newline before the mark; it is not the kernel's.
    let before = &text[..at];
    let mut printed = before.strip_suffix('\n').unwrap_or(before).to_string();
    printed.push_str(text.get(json_end + 1..).unwrap_or(""));
    Ok(Isolated { reply, printed })
}

/// The child's side: read the next envelope, one JSON line, from `input`; `Ok(None)` when the
/// parent closed the pipe (no more requests). A parent of `call` sends one request and closes
/// stdin; a `session::Session` sends one line per request.
pub fn read_request<Q: DeserializeOwned>(
    input: &mut impl std::io::BufRead,
) -> Result<Option<Envelope<Q>>, String> {
    let mut line = Vec::new();
    input
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("cannot read the request: {e}"))?;
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(&line)
        .map(Some)
        .map_err(|e| format!("the request is not valid: {e}"))
}

/// The child's side: write the reply line (flushing, so it is out before any exit).
pub fn write_reply<R: Serialize>(nonce: &str, reply: &R) -> Result<(), String> {
    let json = serde_json::to_string(reply).map_err(|e| format!("cannot encode the reply: {e}"))?;
    let mut out = std::io::stdout().lock();
    // A newline first, so the mark starts a line even after printf output without one.
    write!(out, "\n{REPLY_MARK}{nonce}{NONCE_END}{json}\n")
        .and_then(|_| out.flush())
        .map_err(|e| format!("cannot write the reply: {e}"))
}

// Every test here drives a shell worker.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> WorkerCommand {
        WorkerCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
        }
    }

    #[cfg(unix)]
    fn status(code: i32) -> ExitStatus {
        use std::os::unix::process::ExitStatusExt;
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    #[cfg(unix)]
    fn the_reply_is_found_among_printf_output() {
        let out = format!("hello\n\n{REPLY_MARK}n1{NONCE_END}{{\"x\":1}}\nafter\n");
        let r: Isolated<serde_json::Value> =
            parse_reply(out.as_bytes(), "n1", &status(0), "").unwrap();
        assert_eq!(r.reply["x"], 1);
        assert_eq!(r.printed, "hello\nafter\n");
        // A forged reply with another nonce is printf output, not a reply.
        let forged = format!("{REPLY_MARK}n0{NONCE_END}{{\"x\":2}}\n");
        let e = parse_reply::<serde_json::Value>(forged.as_bytes(), "n1", &status(3), "boom\n")
            .unwrap_err();
        assert_eq!(
            e,
            IsolateError::Crashed {
                status: "exit code 3".into(),
                stderr: "boom\n".into()
            }
        );
        assert!(e.to_string().ends_with("before replying: boom"), "{e}");
        let bad = format!("{REPLY_MARK}n1{NONCE_END}{{nope\n");
        assert!(matches!(
            parse_reply::<serde_json::Value>(bad.as_bytes(), "n1", &status(0), ""),
            Err(IsolateError::Protocol(_))
        ));
    }

    #[test]
    #[cfg(unix)]
    fn a_worker_that_hangs_is_killed_at_the_timeout() {
        let t = Instant::now();
        let e = call::<_, serde_json::Value>(
            &sh("sleep 30"),
            &serde_json::json!({}),
            Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(matches!(e, IsolateError::TimedOut { .. }), "{e:?}");
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert_eq!(
            e.to_string(),
            "the kernel was still running after 0.3 s and was stopped"
        );
    }

    #[test]
    #[cfg(unix)]
    fn a_worker_that_crashes_is_reported_with_its_signal_and_stderr() {
        let e = call::<_, serde_json::Value>(
            &sh("cat >/dev/null; echo 'CUDA_ERROR_ILLEGAL_ADDRESS' >&2; kill -SEGV $$"),
            &serde_json::json!({"big": "x".repeat(1 << 20)}),
            Duration::from_secs(20),
        )
        .unwrap_err();
        match e {
            IsolateError::Crashed { status, stderr } => {
                assert!(status.contains("signal 11"), "{status}");
                assert!(stderr.contains("ILLEGAL_ADDRESS"), "{stderr}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_worker_that_never_reads_its_input_does_not_block_the_parent() {
        let e = call::<_, serde_json::Value>(
            &sh("exit 4"),
            &serde_json::json!({"big": "x".repeat(4 << 20)}),
            Duration::from_secs(20),
        )
        .unwrap_err();
        assert!(
            matches!(&e, IsolateError::Crashed { status, .. } if status == "exit code 4"),
            "{e:?}"
        );
    }

    #[test]
    #[cfg(unix)]
    fn a_worker_that_echoes_the_nonce_replies() {
        // Reads the envelope, pulls out the nonce with sed, prints printf-like text and a reply.
        let script = r#"n=$(sed 's/.*"nonce":"\([^"]*\)".*/\1/'); printf 'dev printf\n'; printf '\n\036gpuzzle-reply %s\037{"ok":true}\n' "$n""#;
        let r: Isolated<serde_json::Value> = call(
            &sh(script),
            &serde_json::json!({"a": 1}),
            Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(r.reply["ok"], true);
        assert_eq!(r.printed, "dev printf\n");
        let missing = WorkerCommand {
            program: "/nonexistent/gpuzzle".into(),
            args: vec![],
        };
        assert!(matches!(
            call::<_, serde_json::Value>(&missing, &1, Duration::from_secs(1)),
            Err(IsolateError::Spawn(_))
        ));
    }
}
