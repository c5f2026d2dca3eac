//! A worker process kept for many requests, so that a gpuzzle process pays for starting the
//! worker (and for the CUDA context the worker opens) once, not once per launch.
//!
//! The protocol is `isolate`'s, one request per line: the parent writes an envelope as one JSON
//! line to the child's stdin and reads the child's stdout line by line until the reply line with
//! that request's nonce; the lines before it are the request's device printf output. The worker
//! answers requests until its stdin closes, or exits after a reply when its CUDA context can no
//! longer be trusted (a driver error). A request past its time limit kills the child; a child
//! that is gone (killed, crashed, exited) is replaced by a fresh one at the next request.

use super::isolate::{
    describe_status, new_nonce, Envelope, IsolateError, Isolated, WorkerCommand, NONCE_END,
    REPLY_MARK, STDERR_TAIL,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A worker that answers requests one after another.
pub struct Session {
    cmd: WorkerCommand,
    running: Option<Running>,
    /// How many worker processes this session has started.
    started: u32,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    /// The child's stdout, a line at a time (each with its newline, unless the last).
    lines: Receiver<Vec<u8>>,
    /// The tail of the child's stderr, to explain a crash.
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Session {
    pub fn new(cmd: WorkerCommand) -> Session {
        Session {
            cmd,
            running: None,
            started: 0,
        }
    }

    /// Worker processes started so far (1 for a session whose worker never had to be replaced).
    pub fn started(&self) -> u32 {
        self.started
    }

    /// The running worker's process id, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.running.as_ref().map(|r| r.child.id())
    }

    /// Send `request` and wait at most `timeout` for its reply.
    pub fn call<Q: Serialize, R: DeserializeOwned>(
        &mut self,
        request: &Q,
        timeout: Duration,
    ) -> Result<Isolated<R>, IsolateError> {
        let started = Instant::now();
        let envelope = Envelope {
            nonce: new_nonce(),
            request,
        };
        let mut line = serde_json::to_vec(&envelope)
            .map_err(|e| IsolateError::Protocol(format!("cannot encode the request: {e}")))?;
        line.push(b'\n');
        let mut running = self.take_running()?;
        // A worker that exited after its last reply (a driver error) reads nothing: start anew.
        if running
            .stdin
            .write_all(&line)
            .and_then(|_| running.stdin.flush())
            .is_err()
        {
            let _ = running.child.kill();
            let _ = running.child.wait();
            running = self.spawn()?;
            if let Err(e) = running
                .stdin
                .write_all(&line)
                .and_then(|_| running.stdin.flush())
            {
                return Err(running.gone(format!("cannot send the request: {e}")));
            }
        }
        let mark = format!("{REPLY_MARK}{}{NONCE_END}", envelope.nonce);
        let mut printed = Vec::new();
        loop {
            let left = timeout.saturating_sub(started.elapsed());
            match running.lines.recv_timeout(left) {
                Ok(l) => {
                    let text = String::from_utf8_lossy(&l);
                    if let Some(json) = text.strip_prefix(mark.as_str()) {
                        let reply: R = serde_json::from_str(json.trim_end_matches('\n'))
                            .map_err(|e| IsolateError::Protocol(e.to_string()))?;
                        // `write_reply` puts a newline before the mark; it is not the kernel's.
                        if printed.last() == Some(&b'\n') {
                            printed.pop();
                        }
                        self.running = Some(running);
                        return Ok(Isolated {
                            reply,
                            printed: String::from_utf8_lossy(&printed).into_owned(),
                        });
                    }
                    printed.extend_from_slice(&l);
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = running.child.kill();
                    let _ = running.child.wait();
                    return Err(IsolateError::TimedOut {
                        secs: timeout.as_secs_f64(),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(running.gone(String::new()));
                }
            }
        }
    }

    /// The running worker, or a new one.
    fn take_running(&mut self) -> Result<Running, IsolateError> {
        match self.running.take() {
            Some(mut r) => {
                if matches!(r.child.try_wait(), Ok(None)) {
                    return Ok(r);
                }
                let _ = r.child.wait();
                self.spawn()
            }
            None => self.spawn(),
        }
    }

    fn spawn(&mut self) -> Result<Running, IsolateError> {
        let mut child = Command::new(&self.cmd.program)
            .args(&self.cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| IsolateError::Spawn(format!("{}: {e}", self.cmd.program.display())))?;
        self.started += 1;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(IsolateError::Spawn(
                "the worker's pipes were not opened".into(),
            ));
        };
        let (send, lines) = mpsc::channel();
        // Readers on their own threads: the parent waits on the channel with a time limit, and a
        // child that fills its stderr must never block on it.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if send.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&tail);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = keep.lock() {
                    t.extend_from_slice(&buf[..n]);
                    let extra = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..extra);
                }
            }
        });
        Ok(Running {
            child,
            stdin,
            lines,
            stderr: tail,
        })
    }
}

impl Running {
    /// The child ended before replying: its status and the tail of its stderr.
    fn gone(mut self, why: String) -> IsolateError {
        let status = match self.child.wait() {
            Ok(s) => describe_status(&s),
            Err(e) => format!("status unknown: {e}"),
        };
        // The stderr reader may still be draining the pipe the child closed.
        std::thread::sleep(Duration::from_millis(20));
        let mut stderr = self
            .stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        if !why.is_empty() {
            stderr.push_str(&why);
        }
        IsolateError::Crashed { status, stderr }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Closing stdin ends a worker between requests; one still busy is not waited for.
        if let Some(mut r) = self.running.take() {
            drop(r.stdin);
            let _ = r.child.try_wait();
        }
    }
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

    /// A shell worker that answers each request line with its own pid, after a printf line.
    const ECHO: &str = r#"while IFS= read -r l; do n=$(printf '%s' "$l" | sed 's/.*"nonce":"\([^"]*\)".*/\1/'); printf 'dev printf\n'; printf '\n\036gpuzzle-reply %s\037{"pid":%s}\n' "$n" "$$"; done"#;

    #[test]
    #[cfg(unix)]
    fn one_worker_answers_every_request() {
        let mut s = Session::new(sh(ECHO));
        let a: Isolated<serde_json::Value> = s
            .call(&serde_json::json!({"a": 1}), Duration::from_secs(20))
            .unwrap();
        let b: Isolated<serde_json::Value> = s
            .call(&serde_json::json!({"a": 2}), Duration::from_secs(20))
            .unwrap();
        assert_eq!(a.reply["pid"], b.reply["pid"]);
        assert_eq!(
            (a.printed.as_str(), b.printed.as_str()),
            ("dev printf\n", "dev printf\n")
        );
        assert_eq!(s.started(), 1);
    }

    #[test]
    #[cfg(unix)]
    fn a_hung_worker_is_killed_and_the_next_request_gets_a_fresh_one() {
        let mut s = Session::new(sh(&format!(r#"read -r first; sleep 30; {ECHO}"#)));
        let e = s
            .call::<_, serde_json::Value>(&1, Duration::from_millis(300))
            .unwrap_err();
        assert!(matches!(e, IsolateError::TimedOut { .. }), "{e:?}");
        // The fresh worker hangs on its first request too: a second one was started.
        let _ = s.call::<_, serde_json::Value>(&1, Duration::from_millis(300));
        assert_eq!(s.started(), 2);
    }

    #[test]
    #[cfg(unix)]
    fn a_worker_that_dies_is_reported_and_replaced() {
        let mut s = Session::new(sh(
            "read -r l; echo 'CUDA_ERROR_ILLEGAL_ADDRESS' >&2; kill -SEGV $$",
        ));
        let e = s
            .call::<_, serde_json::Value>(&1, Duration::from_secs(20))
            .unwrap_err();
        match e {
            IsolateError::Crashed { status, stderr } => {
                assert!(status.contains("signal 11"), "{status}");
                assert!(stderr.contains("ILLEGAL_ADDRESS"), "{stderr}");
            }
            other => panic!("{other:?}"),
        }
        let _ = s.call::<_, serde_json::Value>(&1, Duration::from_secs(20));
        assert_eq!(s.started(), 2);
    }
}
