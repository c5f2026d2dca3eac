//! The PTX reader on arbitrary text: it must return a module or an error, never panic or hang.
//! Seed it with real PTX: `cargo fuzz run ptx_parse corpus/ptx_parse ../tests/ptx`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gpuzzle::ptx::parse(text);
    }
});
