//! Loading a set of puzzle files: each parsed on its own, then the checks that need them all
//! (unique ids and slugs, a starter kernel next to each). All problems are reported at once.

use super::error::PuzzleError;
use super::model::Puzzle;
use super::parse::{parse_puzzle, Parsed};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Load every `*.toml` in `dir` (not recursive), checked, sorted by id.
pub fn load_dir(dir: &Path) -> Result<Vec<Puzzle>, PuzzleError> {
    let mut files = Vec::new();
    for path in toml_files(dir)? {
        let text = std::fs::read_to_string(&path).map_err(|e| PuzzleError::io("read", &path, e))?;
        files.push((path, text));
    }
    // A learner may delete or rename their kernel file: that is reported when the puzzle is run
    // (with `gpuzzle reset N` as the fix), not by refusing to load the whole workspace.
    load_files(files, |_| true)
}

/// The `*.toml` files directly in `dir`, sorted.
pub(crate) fn toml_files(dir: &Path) -> Result<Vec<PathBuf>, PuzzleError> {
    let entries = std::fs::read_dir(dir).map_err(|e| PuzzleError::io("read directory", dir, e))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| PuzzleError::io("read directory", dir, e))?;
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "toml") && path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Parse `(path, text)` pairs and check them as one set. `has_starter(kernel_file)` says whether
/// the starter kernel exists.
pub(crate) fn load_files(
    files: Vec<(PathBuf, String)>,
    has_starter: impl Fn(&str) -> bool,
) -> Result<Vec<Puzzle>, PuzzleError> {
    let mut errs = Vec::new();
    let mut parsed: Vec<Parsed> = Vec::new();
    for (path, text) in &files {
        match parse_puzzle(text, path) {
            Ok(p) => parsed.push(p),
            Err(e) => errs.push(e),
        }
    }
    let mut ids: BTreeMap<u32, &Path> = BTreeMap::new();
    let mut slugs: BTreeMap<&str, &Path> = BTreeMap::new();
    for p in &parsed {
        let pz = &p.puzzle;
        if let Some(first) = ids.insert(pz.id, &pz.toml_path) {
            errs.push(PuzzleError::invalid(
                &pz.toml_path,
                Some(p.id_line),
                "id",
                format!("puzzle {} is also defined in {}", pz.id, first.display()),
                "give every puzzle its own id",
            ));
        }
        if let Some(first) = slugs.insert(&pz.slug, &pz.toml_path) {
            errs.push(PuzzleError::invalid(
                &pz.toml_path,
                Some(p.slug_line),
                "slug",
                format!("slug `{}` is also used by {}", pz.slug, first.display()),
                "give every puzzle its own slug",
            ));
        }
        if !has_starter(&pz.kernel_file) {
            let starter = pz.toml_path.with_file_name(&pz.kernel_file);
            errs.push(PuzzleError::invalid(
                &pz.toml_path,
                Some(p.kernel_line),
                "kernel",
                format!("the starter kernel {} is missing", starter.display()),
                format!(
                    "create it next to the puzzle file, with the kernel the learner fills in: {}",
                    signature(pz)
                ),
            ));
        }
    }
    PuzzleError::collect(errs)?;
    let mut puzzles: Vec<Puzzle> = parsed.into_iter().map(|p| p.puzzle).collect();
    puzzles.sort_by_key(|p| p.id);
    Ok(puzzles)
}

/// `extern "C" __global__ void pooling(float* out, const float* a, int size)`.
/// Several kernels give one signature per line.
pub(crate) fn signature(p: &Puzzle) -> String {
    p.signatures().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn puzzle_text(id: u32, slug: &str) -> String {
        format!(
            r#"id = {id}
slug = "{slug}"
title = "T"
part = "P"
kernel = "k"
params = ["out", "n"]
description = "d"
spec = "out[0] = n;"

[[test]]
name = "t"
grid = [1]
block = [1]
scalars = {{ n = 1 }}
buffers.out = {{ len = 1, output = true }}
"#
        )
    }

    /// A directory with `(stem, id, slug)` puzzles, each with a starter unless listed in `bare`.
    fn dir_with(puzzles: &[(&str, u32, &str)], bare: &[&str]) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        for (stem, id, slug) in puzzles {
            std::fs::write(
                tmp.path().join(format!("{stem}.toml")),
                puzzle_text(*id, slug),
            )
            .unwrap();
            if !bare.contains(stem) {
                std::fs::write(tmp.path().join(format!("{stem}.cu")), "// starter").unwrap();
            }
        }
        tmp
    }

    #[test]
    fn a_directory_loads_sorted_by_id() {
        let tmp = dir_with(&[("b", 2, "two"), ("a", 10, "ten"), ("c", 1, "one")], &[]);
        std::fs::write(tmp.path().join("notes.txt"), "not a puzzle").unwrap();
        let ps = load_dir(tmp.path()).unwrap();
        let ids: Vec<u32> = ps.iter().map(|p| p.id).collect();
        assert_eq!(ids, [1, 2, 10]);
        assert_eq!(ps[2].kernel_file, "a.cu");
        assert_eq!(ps[2].toml_path, tmp.path().join("a.toml"));
    }

    #[test]
    fn duplicate_ids_are_reported_with_both_files() {
        let tmp = dir_with(&[("a", 3, "one"), ("b", 3, "two")], &[]);
        let e = load_dir(tmp.path()).unwrap_err();
        let inv = e.invalids();
        assert_eq!(inv.len(), 1, "{e}");
        assert_eq!(inv[0].file, tmp.path().join("b.toml"));
        assert_eq!((inv[0].line, inv[0].field.as_str()), (Some(1), "id"));
        assert!(inv[0].problem.contains("a.toml"), "{e}");
    }

    #[test]
    fn duplicate_slugs_are_reported() {
        let tmp = dir_with(&[("a", 1, "same"), ("b", 2, "same")], &[]);
        let e = load_dir(tmp.path()).unwrap_err();
        let inv = e.invalids();
        assert_eq!(inv.len(), 1, "{e}");
        assert_eq!((inv[0].line, inv[0].field.as_str()), (Some(2), "slug"));
    }

    #[test]
    fn a_missing_starter_does_not_stop_the_workspace_from_loading() {
        // The learner may have deleted their file; `run` then says how to restore it.
        let tmp = dir_with(&[("a", 1, "one")], &["a"]);
        assert_eq!(load_dir(tmp.path()).unwrap().len(), 1);
    }

    #[test]
    fn problems_in_several_files_are_all_reported() {
        let tmp = dir_with(&[("a", 1, "one"), ("b", 2, "one")], &[]);
        std::fs::write(tmp.path().join("c.toml"), "id = ").unwrap();
        let e = load_dir(tmp.path()).unwrap_err();
        assert!(
            matches!(e, PuzzleError::Several(ref v) if v.len() == 2),
            "{e}"
        );
        let shown = e.to_string();
        assert!(
            shown.contains("c.toml:1") && shown.contains("slug"),
            "{shown}"
        );
    }

    #[test]
    fn a_missing_directory_is_an_io_error_naming_it() {
        let e = load_dir(Path::new("/nonexistent/gpuzzle/puzzles")).unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent/gpuzzle/puzzles"),
            "{e}"
        );
    }
}
