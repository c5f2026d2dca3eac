//! Helpers shared by the CLI tests that run kernels through `gpuzzle exec` on the emulator.

use assert_cmd::Command;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;

/// What one `gpuzzle exec` gave.
pub struct Exec {
    /// The exit code (-1 when killed by a signal).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Exec {
    /// The JSON on stdout, or `Null` when there is none.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or(Value::Null)
    }
}

/// Runs `gpuzzle exec ARGS --format json` on the emulator from the repository root, with its
/// PTX cache in `cache` and no colour.
pub fn exec_json<S: AsRef<OsStr>>(cache: &Path, args: &[S]) -> Exec {
    let out = Command::cargo_bin("gpuzzle")
        .expect("the gpuzzle binary")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GPUZZLE_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .arg("exec")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run gpuzzle");
    Exec {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
