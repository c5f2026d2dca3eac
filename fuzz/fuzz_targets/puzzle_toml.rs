//! The puzzle TOML reader and its checks on arbitrary text: a `Puzzle` or an error naming the
//! file, never a panic. Run at the repository root: `cargo +nightly fuzz run puzzle_toml`;
//! seed it with the pack by copying `puzzles/*.toml` into `fuzz/corpus/puzzle_toml/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gpuzzle::puzzle::parse_puzzle(text, Path::new("puzzles/99_fuzz.toml"));
    }
});
