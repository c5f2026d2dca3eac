//! The PTX reader on arbitrary text: it must return a module or an error, never panic or hang.
//! Run at the repository root: `cargo +nightly fuzz run ptx_parse`; seed it with real PTX by
//! copying `tests/ptx/**/*.ptx` into `fuzz/corpus/ptx_parse/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gpuzzle::ptx::parse(text);
    }
});
