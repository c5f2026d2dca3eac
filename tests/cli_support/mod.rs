//! Helpers shared by the CLI tests that watch a running `gpuzzle` (`watch` without a terminal).

use std::io::Read;
use std::process::Child;
use std::sync::mpsc;

/// The child's stdout, read on a thread and handed over in chunks as it comes, so a test can
/// wait for a line with a deadline instead of blocking on the pipe.
pub fn stdout_chunks(child: &mut Child) -> mpsc::Receiver<String> {
    let Some(mut out) = child.stdout.take() else {
        panic!("the child's stdout is not piped")
    };
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    rx
}
