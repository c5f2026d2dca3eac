//! Puzzles: the TOML format and its checks, the built-in pack, the learner's workspace and
//! progress. Knows nothing about PTX: the judge compiles and runs what this module describes.
//!
//! - `model`: the checked types the judge uses (`Puzzle`, `TestCase`, `BufferSpec`, ...).
//! - `schema` + `parse`: the file as written, and the checks with file/line/field errors.
//! - `load`: a directory of puzzles, with cross-file checks (unique ids, starters present);
//!   leniently, a broken file becomes a `BrokenPuzzle` and the others still load.
//! - `pack`: the puzzles and solutions built into the binary (`init` writes only the puzzles).
//! - `workspace`: finding, creating and resetting a learner's workspace.
//! - `index`: `.gpuzzle/index.json`, which puzzles a directory's files held when last loaded, so
//!   that a command about one puzzle parses only its file.
//! - `state`: progress in `.gpuzzle/state.toml`.
//! - `random`: deterministic small-integer inputs for the random-input variant.
//! - `generators`: inputs that do not forgive (`full-range`, `large`, `max-not-last`, `offset`).
//! - `run`: a test's launches in order on one set of buffers, stopping at the first fault.
//! - `unseen`: the `[unseen]` table drawn into a plain test (sizes fixed by gpuzzle's version).

mod error;
mod expr;
mod generators;
pub mod gitignore;
mod index;
mod launches;
pub mod limits;
mod load;
mod model;
mod pack;
mod parse;
pub mod pin;
mod random;
mod run;
mod schema;
mod state;
mod unseen;
mod workspace;

pub use error::{os_reason, Invalid, PuzzleError};
pub use generators::Generator;
pub use index::{Entry as IndexEntry, Index};
pub use limits::{BlockLimits, Budget, Minimum, PerfKind, ScaledMinima, Technique};
pub use load::{load_catalog, load_dir, BrokenPuzzle, Catalog};
pub use model::{
    defines_text, store_buffers, ArgSource, BenchFlops, BufferSpec, Init, KernelDef, LaunchStep,
    Mistake, MistakeKind, Param, ParamKind, Puzzle, Step, Teach, TestCase, Tolerance, Unseen,
    WrongElements, SPEC_KERNEL,
};
pub use pack::{
    embedded_puzzles, embedded_solution, embedded_starter, solution_for, starter_for, PUZZLES_DIR,
    SOLUTIONS_DIR,
};
pub use run::{run_steps, run_steps_moving, Launched, StepLaunch, StepsRun};
pub use state::{MistakeSeen, Progress, State, Status};
pub use unseen::show_number;

pub use workspace::{civil_from_days, Reference, Workspace, PUZZLES_ENV, STATE_DIR};

use std::path::Path;

/// Parse and check one puzzle file's text. `path` names it in errors and becomes `toml_path`
/// (the starter's presence is checked only when loading a directory).
pub fn parse_puzzle(text: &str, path: &Path) -> Result<Puzzle, PuzzleError> {
    parse::parse_puzzle(text, path).map(|p| p.puzzle)
}

/// The kernel signature a starter must have: `extern "C" __global__ void pooling(float* out, ...)`.
pub fn kernel_signature(puzzle: &Puzzle) -> String {
    load::signature(puzzle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTRIBUTING: &str = include_str!("../../docs/puzzle-format.md");

    /// The ```toml block after the example marker in docs/puzzle-format.md.
    fn contributing_example() -> &'static str {
        let marker = CONTRIBUTING
            .find("<!-- example: puzzles/36_reverse.toml")
            .expect("example marker in docs/puzzle-format.md");
        let rest = &CONTRIBUTING[marker..];
        let start = rest.find("```toml\n").expect("toml block") + "```toml\n".len();
        let len = rest[start..].find("```").expect("end of block");
        &rest[start..start + len]
    }

    #[test]
    fn the_contributing_example_is_a_valid_puzzle() {
        let p = parse_puzzle(contributing_example(), Path::new("puzzles/36_reverse.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (p.id, p.slug.as_str(), p.kernel_file.as_str()),
            (36, "reverse", "36_reverse.cu")
        );
        assert_eq!(p.tests.len(), 2);
        assert_eq!(p.hints.len(), 3);
        assert_eq!(
            kernel_signature(&p),
            "extern \"C\" __global__ void reverse(float* out, const float* a, int size)"
        );
        assert!(CONTRIBUTING.contains(&kernel_signature(&p)));
    }

    #[test]
    fn the_contributing_error_sample_is_what_gpuzzle_says() {
        let text = contributing_example().replacen(
            "buffers.out = { len = 8, output = true }\n",
            "buffers.out = { len = 8, output = true }\nbuffers.b = { len = 3 }\n",
            1,
        );
        let e = parse_puzzle(&text, Path::new("puzzles/36_reverse.toml")).unwrap_err();
        assert!(
            CONTRIBUTING.contains(&e.to_string()),
            "update docs/puzzle-format.md: {e}"
        );
    }
}
