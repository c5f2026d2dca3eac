//! Loading a set of puzzle files: each parsed on its own, then the checks that need them all
//! (unique ids and slugs, a starter kernel next to each).
//!
//! A learner's or instructor's directory is loaded leniently (`load_catalog`): a file with a
//! mistake becomes a `BrokenPuzzle` carrying its error, and every other puzzle still loads, so
//! one typo breaks one puzzle, not the course. The built-in pack is loaded strictly
//! (`load_files`): any problem is an error.

use super::error::PuzzleError;
use super::model::Puzzle;
use super::parse::{parse_puzzle, Parsed};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A puzzle file that could not be loaded, with what it seems to be (read leniently from the
/// TOML, else guessed from its name `NN_slug.toml`) so that `list`, `check` and `run` can name it.
#[derive(Debug)]
pub struct BrokenPuzzle {
    pub toml_path: PathBuf,
    pub id: Option<u32>,
    pub slug: String,
    pub title: Option<String>,
    pub part: Option<String>,
    /// Every problem of the file (file, line, field, fix).
    pub error: PuzzleError,
}

impl BrokenPuzzle {
    /// Whether `query` names this puzzle as `Workspace::find` names a good one: its id (`9`,
    /// `09`), slug or file stem.
    pub fn matches(&self, query: &str) -> bool {
        let q = query.trim();
        let by_id = q.parse::<u32>().ok();
        (by_id.is_some() && by_id == self.id) || self.slug == q || self.file_stem() == q
    }

    /// `09_pooling` for `puzzles/09_pooling.toml`.
    pub fn file_stem(&self) -> String {
        self.toml_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// `3 guard` (or the file stem when no id is known), for messages.
    pub fn label(&self) -> String {
        match self.id {
            Some(id) => format!("{id} {}", self.slug),
            None => self.slug.clone(),
        }
    }
}

/// The puzzles of a directory that load, and the files that do not.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Checked, sorted by id.
    pub puzzles: Vec<Puzzle>,
    /// Sorted by file name.
    pub broken: Vec<BrokenPuzzle>,
}

/// Load every `*.toml` in `dir` (not recursive), checked, sorted by id; any problem in any
/// file is an error (all of them reported at once).
pub fn load_dir(dir: &Path) -> Result<Vec<Puzzle>, PuzzleError> {
    let catalog = load_catalog(dir)?;
    PuzzleError::collect(catalog.broken.into_iter().map(|b| b.error).collect())?;
    Ok(catalog.puzzles)
}

/// Load every `*.toml` in `dir`: the good puzzles, and each file with a problem as a
/// `BrokenPuzzle`. Only a directory that cannot be listed is an error.
pub fn load_catalog(dir: &Path) -> Result<Catalog, PuzzleError> {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for path in toml_files(dir)? {
        match std::fs::read_to_string(&path) {
            Ok(text) => files.push((path, text)),
            Err(e) => {
                let error = PuzzleError::io("read", &path, e);
                unreadable.push(broken(&path, "", error));
            }
        }
    }
    // A learner may delete or rename their kernel file: that is reported when the puzzle is run
    // (with `gpuzzle reset N` as the fix), not by refusing to load the puzzle.
    let mut catalog = sort_out(&files, |_| true);
    catalog.broken.extend(unreadable);
    catalog.broken.sort_by(|a, b| a.toml_path.cmp(&b.toml_path));
    Ok(catalog)
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

/// Parse `(path, text)` pairs and check them as one set; any problem is an error. `has_starter(kernel_file)` says whether
/// the starter kernel exists.
pub(crate) fn load_files(
    files: Vec<(PathBuf, String)>,
    has_starter: impl Fn(&str) -> bool,
) -> Result<Vec<Puzzle>, PuzzleError> {
    let catalog = sort_out(&files, has_starter);
    PuzzleError::collect(catalog.broken.into_iter().map(|b| b.error).collect())?;
    Ok(catalog.puzzles)
}

/// Parse each file, then the checks across files: the first file (in path order) to use an id
/// or slug keeps it; a later one is broken, its error naming the first.
fn sort_out(files: &[(PathBuf, String)], has_starter: impl Fn(&str) -> bool) -> Catalog {
    let mut catalog = Catalog::default();
    let mut parsed: Vec<(Parsed, &str)> = Vec::new();
    for (path, text) in files {
        match parse_puzzle(text, path) {
            Ok(p) => parsed.push((p, text)),
            Err(e) => catalog.broken.push(broken(path, text, e)),
        }
    }
    let mut ids: BTreeMap<u32, PathBuf> = BTreeMap::new();
    let mut slugs: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (p, text) in parsed {
        let pz = &p.puzzle;
        let mut errs = Vec::new();
        if let Some(first) = ids.get(&pz.id) {
            errs.push(PuzzleError::invalid(
                &pz.toml_path,
                Some(p.id_line),
                "id",
                format!("puzzle {} is also defined in {}", pz.id, first.display()),
                "give every puzzle its own id",
            ));
        }
        if let Some(first) = slugs.get(&pz.slug) {
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
        match PuzzleError::collect(errs) {
            Ok(()) => {
                ids.insert(pz.id, pz.toml_path.clone());
                slugs.insert(pz.slug.clone(), pz.toml_path.clone());
                catalog.puzzles.push(p.puzzle);
            }
            Err(e) => {
                let path = pz.toml_path.clone();
                catalog.broken.push(broken(&path, text, e));
            }
        }
    }
    catalog.puzzles.sort_by_key(|p| p.id);
    catalog
}

/// A broken file, with its identity read from whatever of the TOML still parses (a syntax
/// error leaves only the file name: `03_guard.toml` is puzzle 3, `guard`).
fn broken(path: &Path, text: &str, error: PuzzleError) -> BrokenPuzzle {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let digits: String = stem.chars().take_while(char::is_ascii_digit).collect();
    let guessed_slug = stem[digits.len()..]
        .trim_start_matches(['_', '-'])
        .replace('_', "-");
    let table = toml::from_str::<toml::Table>(text).ok();
    let field = |name: &str| {
        table
            .as_ref()
            .and_then(|t| t.get(name))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let id = table
        .as_ref()
        .and_then(|t| t.get("id"))
        .and_then(|v| v.as_integer())
        .and_then(|v| u32::try_from(v).ok())
        .or_else(|| digits.parse().ok());
    let slug = field("slug")
        .filter(|s| !s.is_empty())
        .unwrap_or(if guessed_slug.is_empty() {
            stem
        } else {
            guessed_slug
        });
    BrokenPuzzle {
        toml_path: path.to_path_buf(),
        id,
        slug,
        title: field("title"),
        part: field("part"),
        error,
    }
}

/// `extern "C" __global__ void pooling(float* out, const float* a, int size)`.
/// Several kernels give one signature per line.
pub(crate) fn signature(p: &Puzzle) -> String {
    p.signatures().join("\n")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn puzzle_text(id: u32, slug: &str) -> String {
        titled_puzzle_text(id, slug, "T")
    }

    /// A minimal valid puzzle TOML (also the puzzle index's tests' fixture).
    pub(crate) fn titled_puzzle_text(id: u32, slug: &str, title: &str) -> String {
        format!(
            r#"id = {id}
slug = "{slug}"
title = "{title}"
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
    #[test]
    fn a_broken_file_breaks_only_its_puzzle() {
        let tmp = dir_with(
            &[("01_a", 1, "one"), ("02_b", 2, "two"), ("03_c", 3, "one")],
            &[],
        );
        // A syntax error: only the file name tells which puzzle it was.
        std::fs::write(
            tmp.path().join("04_dot_product.toml"),
            "id = 4\nslug = \"dot\n",
        )
        .unwrap();
        // A field error: the TOML still says which puzzle it is.
        let typo = puzzle_text(5, "five").replace("title = \"T\"", "titel = \"T\"");
        std::fs::write(tmp.path().join("x.toml"), typo).unwrap();
        let c = load_catalog(tmp.path()).unwrap();
        let ids: Vec<u32> = c.puzzles.iter().map(|p| p.id).collect();
        assert_eq!(ids, [1, 2]);
        let broken: Vec<(Option<u32>, &str)> =
            c.broken.iter().map(|b| (b.id, b.slug.as_str())).collect();
        assert_eq!(
            broken,
            [
                (Some(3), "one"),
                (Some(4), "dot-product"),
                (Some(5), "five")
            ]
        );
        assert!(
            c.broken[0].error.to_string().contains("01_a.toml"),
            "the first keeps the slug"
        );
        assert!(
            c.broken[2].error.to_string().contains("x.toml:3"),
            "{}",
            c.broken[2].error
        );
        assert!(c.broken[1].matches("4") && c.broken[1].matches("04_dot_product"));
        assert!(c.broken[2].matches("five") && !c.broken[2].matches("4"));
        // The strict loader still refuses the directory, naming every problem.
        assert_eq!(load_dir(tmp.path()).unwrap_err().invalids().len(), 3);
    }
}
