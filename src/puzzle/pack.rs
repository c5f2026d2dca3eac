//! The puzzle pack built into the binary (`puzzles/` and `solutions/` of this repository), so
//! `gpuzzle init` and `reset` work without a clone. `init` writes only `puzzles/` into a
//! learner's workspace: the reference solutions stay inside the binary, for
//! `gpuzzle solution N` (once the puzzle is passed) and `check --solutions`.
//!
//! Note: include_dir tracks the files it embeds, but a file ADDED to those folders is picked up
//! only when this crate is rebuilt for another reason (e.g. `touch src/puzzle/pack.rs`).

use super::error::PuzzleError;
use super::load::load_files;
use super::model::Puzzle;
use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};

static PUZZLES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/puzzles");
static SOLUTIONS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/solutions");

/// Folder names of the pack, as `gpuzzle init` writes them.
pub const PUZZLES_DIR: &str = "puzzles";
pub const SOLUTIONS_DIR: &str = "solutions";

/// The built-in puzzles, checked, sorted by id. Their `toml_path` is virtual:
/// `puzzles/NN_slug.toml`.
pub fn embedded_puzzles() -> Result<Vec<Puzzle>, PuzzleError> {
    let mut files = Vec::new();
    for f in PUZZLES.files() {
        if f.path().extension().is_some_and(|x| x == "toml") {
            let path = Path::new(PUZZLES_DIR).join(f.path());
            let text = f.contents_utf8().ok_or_else(|| {
                PuzzleError::invalid(
                    &path,
                    None,
                    "(file)",
                    "is not UTF-8 text",
                    "save the file as UTF-8",
                )
            })?;
            files.push((path, text.to_string()));
        }
    }
    files.sort();
    load_files(files, |kernel_file| embedded_starter(kernel_file).is_some())
}

/// The learner's starter `kernel_file` (`09_pooling.cu`) from the pack.
pub fn embedded_starter(kernel_file: &str) -> Option<&'static str> {
    PUZZLES.get_file(kernel_file)?.contents_utf8()
}

/// The puzzle file `toml_file` (`09_pooling.toml`) from the pack, as text.
pub fn embedded_toml(toml_file: &str) -> Option<&'static str> {
    PUZZLES.get_file(toml_file)?.contents_utf8()
}

/// The reference solution `kernel_file` from the pack.
pub fn embedded_solution(kernel_file: &str) -> Option<&'static str> {
    SOLUTIONS.get_file(kernel_file)?.contents_utf8()
}

/// The starter for `puzzle` when the pack has this very puzzle (same slug, kernel and file);
/// `None` for an instructor's own puzzle, even if its file name happens to match.
pub fn starter_for(puzzle: &Puzzle) -> Option<&'static str> {
    pack_puzzle(puzzle).and_then(|kernel_file| embedded_starter(&kernel_file))
}

/// The reference solution for `puzzle` when the pack has this very puzzle, as `starter_for`.
pub fn solution_for(puzzle: &Puzzle) -> Option<&'static str> {
    pack_puzzle(puzzle).and_then(|kernel_file| embedded_solution(&kernel_file))
}

/// The kernel file of the pack's puzzle that is `puzzle` (same slug, kernel and file).
fn pack_puzzle(puzzle: &Puzzle) -> Option<String> {
    let pack = embedded_puzzles().ok()?;
    pack.into_iter()
        .find(|p| {
            p.slug == puzzle.slug
                && p.kernel == puzzle.kernel
                && p.kernel_file == puzzle.kernel_file
        })
        .map(|p| p.kernel_file)
}

/// The files `init` writes into a learner's workspace, as (path relative to its root,
/// contents): the puzzles and their starters, not the solutions.
pub(crate) fn pack_files() -> Vec<(PathBuf, &'static [u8])> {
    let mut out: Vec<(PathBuf, &'static [u8])> = PUZZLES
        .files()
        .map(|f| (Path::new(PUZZLES_DIR).join(f.path()), f.contents()))
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::model::ParamKind;

    #[test]
    fn the_pack_loads_numbered_from_one_with_the_notebook_first() {
        let pack = embedded_puzzles().unwrap_or_else(|e| panic!("{e}"));
        let ids: Vec<u32> = pack.iter().map(|p| p.id).collect();
        assert_eq!(ids, (1..=pack.len() as u32).collect::<Vec<_>>());
        assert!(pack.len() >= 34, "the curriculum has at least 34 puzzles");
        let slugs: Vec<&str> = pack.iter().take(14).map(|p| p.slug.as_str()).collect();
        assert_eq!(
            slugs,
            [
                "map",
                "zip",
                "guard",
                "map-2d",
                "broadcast",
                "blocks",
                "blocks-2d",
                "shared",
                "pooling",
                "dot-product",
                "conv-1d",
                "block-sum",
                "axis-sum",
                "matmul"
            ]
        );
    }

    #[test]
    fn solutions_lazy_holds_no_solution() {
        // `gpuzzle lint`'s lazy kernels live in solutions/lazy/NN_slug/: only top-level files
        // are solutions, and the only folder is lazy/.
        for d in SOLUTIONS.dirs() {
            assert_eq!(d.path(), Path::new("lazy"), "{}", d.path().display());
        }
        assert!(embedded_solution("lazy").is_none());
        for p in embedded_puzzles().unwrap() {
            assert!(
                embedded_solution(&p.kernel_file).is_some(),
                "{}",
                p.kernel_file
            );
        }
    }

    /// Ids of the GPU-Puzzles notebook's puzzles: float inputs, int scalars, exact answers.
    const NOTEBOOK: std::ops::RangeInclusive<u32> = 1..=14;

    #[test]
    fn every_pack_puzzle_meets_the_content_rules() {
        for p in embedded_puzzles().unwrap() {
            let who = &p.kernel_file;
            assert!(p.hints.len() >= 3, "{who}: at least 3 hints");
            // Hints for its common mistakes, shown after a failed run that made one.
            assert!(
                (1..=6).contains(&p.mistakes.len()),
                "{who}: 1 to 6 [[mistake]] hints"
            );
            // A multi-launch puzzle budgets each kernel.
            let budgets: Vec<_> = if p.is_multi_launch() {
                p.kernels.iter().map(|k| k.budget).collect()
            } else {
                vec![p.budget]
            };
            for b in budgets {
                assert!(b.global_reads.is_some(), "{who}: global_reads budget");
                assert!(b.global_writes.is_some(), "{who}: global_writes budget");
                if p.id >= 8 {
                    assert!(b.shared_reads.is_some(), "{who}: shared budget");
                    assert!(b.shared_writes.is_some(), "{who}: shared budget");
                }
            }
            if NOTEBOOK.contains(&p.id) {
                assert!(p.tolerance.is_exact(), "{who}: small integers, exact");
                for t in p.tests_and_bench() {
                    for (name, b) in &t.buffers {
                        if !b.output {
                            assert_eq!(b.ty.name(), "f32", "{who}: {name} is float32");
                        }
                    }
                }
                for param in &p.params {
                    if let ParamKind::Scalar(ty) = param.kind {
                        assert_eq!(ty.name(), "i32", "{who}: scalars are int");
                    }
                }
            }
            let starter = embedded_starter(who).unwrap();
            let solution = embedded_solution(who).unwrap_or_else(|| panic!("{who}: solution"));
            for sig in p.signatures() {
                assert!(starter.contains(&sig), "{who}: starter signature {sig}");
                assert!(solution.contains(&sig), "{who}: solution signature {sig}");
            }
            // A starter has a gap to fill, or (debugging puzzles) a whole kernel with a bug.
            assert!(
                starter.contains("// FILL ME IN (roughly ") || starter.contains("// FIX ME"),
                "{who}: starter marks its gap (FILL ME IN) or its bug (FIX ME)"
            );
            assert!(!solution.contains("FILL ME IN"), "{who}");
            assert_ne!(starter, solution, "{who}: the starter is not the solution");
            assert!(p.spec_source().contains(&p.spec), "{who}");
        }
    }

    #[test]
    fn puzzle_ids_are_unique_and_every_part_is_contiguous() {
        let pack = embedded_puzzles().unwrap();
        let mut ids: Vec<u32> = pack.iter().map(|p| p.id).collect();
        ids.dedup();
        assert_eq!(ids.len(), pack.len(), "duplicate puzzle ids");
        // `list` groups by part in id order: a part that comes back later would be split.
        let mut seen: Vec<&str> = Vec::new();
        for p in &pack {
            if seen.last() != Some(&p.part.as_str()) {
                assert!(!seen.contains(&p.part.as_str()), "part {} is split", p.part);
                seen.push(&p.part);
            }
        }
    }

    #[test]
    fn notebook_launch_shapes_are_kept() {
        // The notebook's tests come first; a puzzle may add its own after them.
        let pack = embedded_puzzles().unwrap();
        let shape = |id: u32| -> Vec<([u32; 3], [u32; 3])> {
            pack[id as usize - 1]
                .tests
                .iter()
                .map(|t| (t.grid, t.block))
                .collect()
        };
        assert_eq!(shape(3)[..1], [([1, 1, 1], [8, 1, 1])]);
        assert_eq!(shape(7)[..1], [([2, 2, 1], [3, 3, 1])]);
        assert_eq!(
            shape(11)[..2],
            [([1, 1, 1], [8, 1, 1]), ([2, 1, 1], [8, 1, 1])]
        );
        assert_eq!(
            shape(12)[..2],
            [([1, 1, 1], [8, 1, 1]), ([2, 1, 1], [8, 1, 1])]
        );
        assert_eq!(shape(13)[..1], [([1, 4, 1], [8, 1, 1])]);
        assert_eq!(
            shape(14)[..2],
            [([1, 1, 1], [3, 3, 1]), ([3, 3, 1], [3, 3, 1])]
        );
        // Matmul's second test multiplies arange(64) by its transpose.
        let b = pack[13].tests[1].values("b", None);
        assert_eq!(b[1], 8.0);
        assert_eq!(b[8], 1.0);
        assert_eq!(b.len(), 64);
    }

    #[test]
    fn pack_files_are_the_puzzles_without_the_solutions() {
        let files = pack_files();
        assert!(files
            .iter()
            .any(|(p, _)| p == Path::new("puzzles/09_pooling.toml")));
        assert!(files.iter().all(|(p, _)| p.starts_with(PUZZLES_DIR)));
        // The solutions stay in the binary, one per puzzle.
        let pack = embedded_puzzles().unwrap();
        assert_eq!(SOLUTIONS.files().count(), pack.len());
        assert!(pack.iter().all(|p| solution_for(p).is_some()));
    }

    #[test]
    fn starter_and_solution_for_need_the_same_puzzle() {
        let mut p = embedded_puzzles().unwrap().remove(8);
        assert!(starter_for(&p).is_some());
        assert_eq!(solution_for(&p), embedded_solution("09_pooling.cu"));
        p.slug = "my-pooling".into();
        assert!(starter_for(&p).is_none());
        assert!(solution_for(&p).is_none());
    }
}
