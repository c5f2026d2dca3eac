//! The puzzle TOML reader and its checks on arbitrary text: a `Puzzle` or an error naming the
//! file, never a panic. Seed it with the pack: `cargo fuzz run puzzle_toml corpus/puzzle_toml
//! ../puzzles`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gpuzzle::puzzle::parse_puzzle(text, Path::new("puzzles/99_fuzz.toml"));
    }
});
