//! The reliability promise, through the real binary: never a panic, never a hang, bounded
//! memory, nothing the learner wrote or earned lost. Each class of failure gets a test with a
//! wall-clock ceiling and, where a runaway could eat memory, a peak-memory ceiling (the child's
//! `ru_maxrss` from `wait4`), so a regression fails CI rather than a learner's machine.
//!
//! Runaway kernels run with `GPUZZLE_TIME_LIMIT=1`: the emulator's wall-clock deadline is what
//! ends them here (a debug build steps too slowly to reach the step limit quickly), and the
//! test checks that mechanism; the default deadline (3 s in release builds at the default step
//! limit) is `Deadline::for_steps`. NVRTC must be installed. Unix only (pipes, FIFOs, /dev/full).
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gpuzzle");
/// Peak memory any of these commands may reach (the failures this guards against took GiBs).
const MEMORY_CEILING_KB: i64 = 400 * 1024;

fn gpuzzle(dir: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir)
        .env(
            "GPUZZLE_CACHE_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("reliability-cache"),
        )
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .env_remove("GPUZZLE_TIME_LIMIT");
    c
}

/// What a finished child did, with its wall time and peak memory.
struct Finished {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    secs: f64,
    max_rss_kb: i64,
}

impl Finished {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// No panic, and within both ceilings.
    fn assert_bounded(&self, what: &str, ceiling_secs: f64) {
        assert!(
            !self.stderr.contains("panicked"),
            "{what} panicked: {}",
            self.stderr
        );
        assert!(
            self.secs < ceiling_secs,
            "{what} took {:.1} s (ceiling {ceiling_secs} s); stderr: {}",
            self.secs,
            self.stderr
        );
        assert!(
            self.max_rss_kb < MEMORY_CEILING_KB,
            "{what} peaked at {} MiB (ceiling {} MiB)",
            self.max_rss_kb / 1024,
            MEMORY_CEILING_KB / 1024
        );
    }
}

/// Run `cmd` to the end (killed after `kill_after`, so a hang fails the test instead of
/// hanging it), keeping at most 8 MiB of its stdout, and reap it with `wait4` for its peak
/// memory.
fn measure(mut cmd: Command, kill_after: Duration) -> Finished {
    let start = Instant::now();
    // Reaped by `wait4` below (std's `wait` cannot report peak memory).
    #[allow(clippy::zombie_processes)]
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gpuzzle");
    let pid = child.id() as libc::pid_t;
    let drain = |r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut r = r;
            let mut buf = [0u8; 1 << 16];
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if kept.len() < 8 << 20 {
                    kept.extend_from_slice(&buf[..n]);
                }
            }
            kept
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let until = Instant::now() + kill_after;
            while Instant::now() < until {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: kill on our own child's pid, which `wait4` below has not reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        })
    };
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our unreaped child; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    let secs = start.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    let status = std::process::ExitStatus::from_raw(status);
    Finished {
        code: status.code(),
        signal: status.signal(),
        stdout: out.join().unwrap_or_default(),
        stderr: String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned(),
        secs,
        max_rss_kb: usage.ru_maxrss,
    }
}

/// A fresh workspace from the built-in pack.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let out = gpuzzle(tmp.path()).arg("init").arg(&root).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    (tmp, root)
}

fn kernel_file(dir: &Path, name: &str, source: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    path
}

// ---- Output failures -------------------------------------------------------------------------

/// Start a command with stdout on a pipe, read `lines` lines (0: none), then close the pipe.
fn closed_after(dir: &Path, args: &[&str], lines: usize) -> (Option<i32>, String) {
    let mut child = gpuzzle(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut out = BufReader::new(child.stdout.take().unwrap());
        for _ in 0..lines {
            let mut line = String::new();
            let _ = out.read_line(&mut line);
        }
    } // dropped: the reader goes away, as with `| head -1` or `| true`
    let mut stderr = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
    let status = child.wait().unwrap();
    (status.code(), stderr)
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_commands_own_code() {
    let (_t, ws) = workspace();
    for (args, lines) in [
        (&["list"][..], 0),
        (&["hint", "11", "--all"][..], 1),
        (&["show", "3"][..], 1),
        (&["completions", "bash"][..], 1),
    ] {
        let (code, stderr) = closed_after(&ws, args, lines);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("error"),
            "{args:?}: {stderr}"
        );
    }
    // `run` of an untouched starter fails (exit 1) whoever reads its output.
    let (code, stderr) = closed_after(&ws, &["run", "1"], 0);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_full_disk_is_exit_2_with_one_message() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let (_t, ws) = workspace();
    for args in [&["run", "1"][..], &["list"][..], &["show", "2"][..]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = gpuzzle(&ws).args(args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr.matches("could not write the output").count(),
            1,
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

// ---- Runaway kernels: time and memory ---------------------------------------------------------

const RUNAWAYS: &str = r#"
extern "C" __global__ void global_spin(volatile int *flag) {
    while (flag[0] == 0) { }
}
extern "C" __global__ void shared_spin(int *out) {
    __shared__ volatile int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    while (flag == 0) { out[threadIdx.x] += 1; }
}
extern "C" __global__ void chatter(int *out) {
    for (long i = 0; ; i++) {
        printf("%ld xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", i);
        out[0] = (int)i;
    }
}
"#;

fn exec_runaway(dir: &Path, kernel: &str, extra: &[&str]) -> Finished {
    let file = kernel_file(dir, "runaway.cu", RUNAWAYS);
    let mut c = gpuzzle(dir);
    c.env("GPUZZLE_TIME_LIMIT", "1")
        .arg("exec")
        .arg(&file)
        .args(["--kernel", kernel, "--grid", "2", "--block", "64"])
        .args(extra);
    measure(c, Duration::from_secs(60))
}

#[test]
fn spin_waits_in_exec_end_in_time_with_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    for (kernel, arg) in [
        ("global_spin", "flag=i32[1]:zeros"),
        ("shared_spin", "out=i32[64]:zeros"),
    ] {
        // A step limit out of reach, so the 1 s deadline is what stops the kernel however
        // fast the emulator runs (a release build reaches the default limit first).
        let f = exec_runaway(
            tmp.path(),
            kernel,
            &[
                "--arg",
                arg,
                "--format",
                "json",
                "--step-limit",
                "1000000000000",
            ],
        );
        f.assert_bounded(kernel, 4.0);
        assert_eq!(f.code, Some(1), "{kernel}: {}", f.stderr);
        let v: serde_json::Value = serde_json::from_slice(&f.stdout).unwrap();
        assert_eq!(v["diagnostics"][0]["kind"], "step-limit", "{kernel}: {v}");
        assert!(
            v["diagnostics"][0]["message"]
                .as_str()
                .unwrap()
                .contains(" s on this machine, "),
            "{v}"
        );
    }
}

#[test]
fn runaway_printf_output_is_capped_and_says_what_it_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let f = exec_runaway(tmp.path(), "chatter", &["--arg", "out=i32[1]:zeros"]);
    f.assert_bounded("printf in an endless loop", 4.0);
    assert_eq!(f.code, Some(1), "{}", f.stderr);
    let out = f.stdout();
    assert!(out.len() < 2 << 20, "{} bytes of output", out.len());
    assert!(out.contains("more lines of device output dropped"), "{out}");
    assert!(out.contains("error[step-limit]"), "{out}");
}

#[test]
fn an_endless_loop_on_the_instrumented_ptx_ends_in_time() {
    let tmp = tempfile::tempdir().unwrap();
    let f = exec_runaway(
        tmp.path(),
        "global_spin",
        &["--arg", "flag=i32[1]:zeros", "--via-instrumented-ptx"],
    );
    f.assert_bounded("--via-instrumented-ptx", 4.0);
    assert_eq!(f.code, Some(1), "{}\n{}", f.stdout(), f.stderr);
    assert!(f.stdout().contains("step-limit"), "{}", f.stdout());
}

#[test]
fn bench_of_an_endless_loop_ends_in_time_with_bounded_memory() {
    let (_t, ws) = workspace();
    // Puzzle 12's bench (its reference solution is quick even in a debug build).
    let file = std::fs::read_dir(ws.join("puzzles"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("12_"))
                && p.extension().is_some_and(|e| e == "cu")
        })
        .unwrap();
    let starter = std::fs::read_to_string(&file).unwrap();
    // Keep the starter's signature, make the body loop forever over memory.
    let open = starter.find('{').unwrap();
    let spin = format!(
        "{}{{\n    volatile float* p = out;\n    while (true) {{ p[threadIdx.x] = p[threadIdx.x] + 1.0f; }}\n}}\n",
        &starter[..open]
    );
    std::fs::write(&file, spin).unwrap();
    let mut c = gpuzzle(&ws);
    c.env("GPUZZLE_TIME_LIMIT", "1").args(["bench", "12"]);
    let f = measure(c, Duration::from_secs(60));
    f.assert_bounded("bench", 5.0);
    assert_eq!(f.code, Some(1), "{}\n{}", f.stdout(), f.stderr);
    assert!(f.stdout().contains("step-limit"), "{}", f.stdout());
}

#[test]
fn json_initialisers_from_devices_and_fifos_fail_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = kernel_file(tmp.path(), "k.cu", RUNAWAYS);
    let fifo = tmp.path().join("fifo");
    let fifo_made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut sources = vec!["/dev/zero".to_string()];
    if fifo_made {
        sources.push(fifo.display().to_string());
    }
    for src in sources {
        let mut c = gpuzzle(tmp.path());
        c.arg("exec")
            .arg(&file)
            .args(["--kernel", "global_spin", "--grid", "1", "--block", "1"])
            .arg("--arg")
            .arg(format!("flag=i32[1]:json={src}"));
        let f = measure(c, Duration::from_secs(30));
        f.assert_bounded(&src, 3.0);
        assert_eq!(f.code, Some(2), "{src}: {}", f.stderr);
        assert!(f.stderr.contains("not a regular file"), "{}", f.stderr);
    }
}

// ---- Progress and files -----------------------------------------------------------------------

#[test]
fn parallel_runs_keep_every_pass() {
    let (_t, ws) = workspace();
    let mut ids = Vec::new();
    // The pack's solutions (a workspace made by `init` has none: they stay in the binary).
    let solutions = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions");
    for e in std::fs::read_dir(solutions).unwrap() {
        let p = e.unwrap().path();
        // solutions/lazy/ holds the lint's lazy kernels, not solutions.
        if !p.is_file() {
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::copy(&p, ws.join("puzzles").join(&name)).unwrap();
        if let Some(id) = name.split('_').next().and_then(|n| n.parse::<u32>().ok()) {
            ids.push(id);
        }
    }
    ids.sort_unstable();
    ids.dedup();
    assert!(ids.len() >= 14, "{ids:?}");
    let children: Vec<_> = ids
        .iter()
        .map(|id| {
            gpuzzle(&ws)
                .args(["run", &id.to_string(), "-q"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let state = std::fs::read_to_string(ws.join(".gpuzzle/state.toml")).unwrap();
    assert_eq!(
        state.matches("status = \"passed\"").count(),
        ids.len(),
        "{state}"
    );
}

#[test]
fn a_kill_during_reset_leaves_the_old_text_or_the_starter() {
    let (_t, ws) = workspace();
    let file = ws.join("puzzles/01_map.cu");
    let starter = std::fs::read_to_string(&file).unwrap();
    // Large, so that a kill has a real chance to land while the file is being written.
    let mine = format!("// my work\n{}", "// notes notes notes\n".repeat(200_000));
    for i in 0..12u64 {
        std::fs::write(&file, &mine).unwrap();
        let mut child = gpuzzle(&ws)
            .args(["reset", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 + i * 7));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read_to_string(&file).unwrap();
        assert!(
            now == mine || now == starter,
            "try {i}: the file holds {} bytes, neither the learner's text nor the starter",
            now.len()
        );
    }
}

#[test]
fn reset_and_init_never_write_through_symlinks() {
    let (t, ws) = workspace();
    let outside = t.path().join("outside.cu");
    std::fs::write(&outside, "not the workspace's").unwrap();
    let file = ws.join("puzzles/01_map.cu");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    let out = gpuzzle(&ws).args(["reset", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "not the workspace's"
    );
    assert!(!file.symlink_metadata().unwrap().file_type().is_symlink());

    let fresh = t.path().join("fresh");
    std::fs::create_dir_all(fresh.join("puzzles")).unwrap();
    let target = t.path().join("created-by-init.cu");
    std::os::unix::fs::symlink(&target, fresh.join("puzzles/01_map.cu")).unwrap();
    let out = gpuzzle(t.path()).arg("init").arg(&fresh).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!target.exists());
}

#[test]
fn a_damaged_or_newer_state_file_is_never_lost() {
    let (_t, ws) = workspace();
    let state = ws.join(".gpuzzle/state.toml");
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    std::fs::write(&state, b"version = 1\n# \xff\xfe not utf-8\n").unwrap();
    let out = gpuzzle(&ws).args(["hint", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read(ws.join(".gpuzzle/state.toml.corrupt")).unwrap(),
        b"version = 1\n# \xff\xfe not utf-8\n"
    );

    let newer = "version = 9\nwritten_by = \"9.0.0\"\n";
    std::fs::write(&state, newer).unwrap();
    let out = gpuzzle(&ws).args(["hint", "1"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("gpuzzle 9.0.0"), "{stderr}");
    assert_eq!(stderr.matches("warning").count(), 1, "{stderr}");
    assert_eq!(std::fs::read_to_string(&state).unwrap(), newer);
}

// ---- Cache ------------------------------------------------------------------------------------

#[test]
fn a_poisoned_cache_entry_is_recompiled() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let file = kernel_file(
        tmp.path(),
        "k.cu",
        "extern \"C\" __global__ void k(int* o) { o[threadIdx.x] = 7; }\n",
    );
    let exec = || {
        let mut c = gpuzzle(tmp.path());
        c.env("GPUZZLE_CACHE_DIR", &cache)
            .arg("exec")
            .arg(&file)
            .args(["--kernel", "k", "--grid", "1", "--block", "2"])
            .args(["--arg", "o=i32[2]:zeros", "--format", "json"]);
        c.output().unwrap()
    };
    assert!(exec().status.success());
    let entries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(entries.len(), 1);
    let mut entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&entries[0]).unwrap()).unwrap();
    let ptx = entry["ptx"].as_str().unwrap().to_string();
    entry["ptx"] = serde_json::Value::from(&ptx[..ptx.len() / 2]);
    std::fs::write(&entries[0], entry.to_string()).unwrap();
    for _ in 0..2 {
        let out = exec();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["buffers"]["o"], serde_json::json!([7, 7]));
    }
}

// ---- Small ones -------------------------------------------------------------------------------

#[test]
fn exec_arguments_out_of_range_or_repeated_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let file = kernel_file(
        tmp.path(),
        "k.cu",
        "extern \"C\" __global__ void k(unsigned char* o) { o[0] += 1; }\n",
    );
    std::fs::write(tmp.path().join("v.json"), "[1, 256]").unwrap();
    let run = |args: &[&str]| {
        let out = gpuzzle(tmp.path())
            .arg("exec")
            .arg(&file)
            .args(["--kernel", "k", "--grid", "1", "--block", "1"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, e) = run(&["--arg", "o=u8[2]:json=v.json"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("element 1: 256 does not fit in u8"), "{e}");
    let (code, e) = run(&["--arg", "o=u8[2]:zeros", "--arg", "o=u8[2]:ones"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("already given"), "{e}");
}

#[test]
fn a_latin1_byte_in_a_comment_compiles() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("k.cu");
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(b"// caf\xe9\nextern \"C\" __global__ void k(int* o) { o[0] = 3; }\n")
        .unwrap();
    drop(f);
    let out = gpuzzle(tmp.path())
        .arg("exec")
        .arg(&path)
        .args(["--kernel", "k", "--grid", "1", "--block", "1"])
        .args(["--arg", "o=i32[1]:zeros", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn exec_json_of_a_large_buffer_stays_near_the_buffers_size() {
    // 4M f32 = 16 MiB of buffer; the JSON (about 40 MB) is streamed, not built in memory.
    let tmp = tempfile::tempdir().unwrap();
    let file = kernel_file(
        tmp.path(),
        "k.cu",
        "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n",
    );
    let baseline = {
        let mut c = gpuzzle(tmp.path());
        c.arg("exec").arg(&file).args([
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "--arg",
            "x=f32[1]:zeros",
            "--format",
            "json",
        ]);
        measure(c, Duration::from_secs(60))
    };
    let mut c = gpuzzle(tmp.path());
    c.arg("exec").arg(&file).args([
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "x=f32[4194304]:arange",
        "--format",
        "json",
    ]);
    let f = measure(c, Duration::from_secs(120));
    assert_eq!(f.code, Some(0), "{}", f.stderr);
    assert!(f.signal.is_none());
    let buffer_kb = 16 * 1024;
    let extra = f.max_rss_kb - baseline.max_rss_kb;
    assert!(
        extra < 4 * buffer_kb,
        "exec held {} MiB over its baseline for a 16 MiB buffer",
        extra / 1024
    );
}

#[test]
fn the_largest_launch_exec_accepts_stays_under_the_fuzzers_memory_bound() {
    // 512 MiB of buffers, the most one launch may take: held up to three times at the peak
    // (the inputs kept for a re-run, the emulator's copy, the results), under 2 GiB in all.
    let tmp = tempfile::tempdir().unwrap();
    let file = kernel_file(
        tmp.path(),
        "k.cu",
        "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }\n",
    );
    let exec = |spec: &str| {
        let mut c = gpuzzle(tmp.path());
        c.arg("exec").arg(&file).args([
            "--kernel", "k", "--grid", "1", "--block", "32", "--arg", spec,
        ]);
        measure(c, Duration::from_secs(120))
    };
    let f = exec("x=f32[134217728]:zeros");
    assert_eq!(f.code, Some(0), "{}", f.stderr);
    assert!(
        f.max_rss_kb < 2 * 1024 * 1024,
        "a 512 MiB launch peaked at {} MiB",
        f.max_rss_kb / 1024
    );
    let f = exec("x=f32[134217729]:zeros");
    assert_eq!(f.code, Some(2), "{}", f.stderr);
    assert!(f.stderr.contains("(512 MiB)"), "{}", f.stderr);
}
