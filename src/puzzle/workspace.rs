//! Where the learner works: a root folder holding `puzzles/` (TOML files and the kernels being
//! written) and `.gpuzzle/` (progress, backups); an instructor's folder may also hold
//! `solutions/`. Finding it, creating it, and restoring a starter without ever losing the
//! learner's file.

use super::error::PuzzleError;
use super::index::{self, Entry, Index};
use super::load::{load_catalog, load_dir, BrokenPuzzle, Catalog};
use super::model::Puzzle;
use super::pack::{self, PUZZLES_DIR, SOLUTIONS_DIR};
use super::parse::parse_puzzle;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Environment variable naming a puzzle directory, like `--puzzles DIR`.
pub const PUZZLES_ENV: &str = "GPUZZLE_PUZZLES";
/// gpuzzle's own folder inside a workspace root.
pub const STATE_DIR: &str = ".gpuzzle";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    /// Holds `.gpuzzle/` (progress and backups); normally the parent of `puzzles_dir`.
    pub root: PathBuf,
    /// The puzzle files and the learner's kernels.
    pub puzzles_dir: PathBuf,
    /// Reference solutions of an instructor's own puzzles (absent in a learner's workspace: the
    /// pack's solutions are built into gpuzzle; see `reference`).
    pub solutions_dir: PathBuf,
}

/// Where a puzzle's reference solution comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// A file in the workspace's `solutions/` (an instructor's, or this repository's).
    File(PathBuf),
    /// The pack's solution built into gpuzzle; `name` is its place in the pack
    /// (`solutions/09_pooling.cu`), as compile messages name it.
    BuiltIn { name: String, text: &'static str },
}

impl Workspace {
    /// The override a command should use: `--puzzles DIR` if given, else `$GPUZZLE_PUZZLES`.
    pub fn puzzles_override(cli: Option<&Path>) -> Option<PathBuf> {
        cli.map(Path::to_path_buf).or_else(|| {
            std::env::var_os(PUZZLES_ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// Find the workspace. With `puzzles_override` (a directory of `*.toml`, or a workspace root
    /// with `puzzles/` inside), use it; otherwise the nearest ancestor of `start` (itself
    /// included) that has a `puzzles/` folder holding `*.toml` files.
    pub fn discover(
        start: &Path,
        puzzles_override: Option<&Path>,
    ) -> Result<Workspace, PuzzleError> {
        if let Some(dir) = puzzles_override {
            let dir = absolute(dir);
            if !dir.is_dir() {
                return Err(PuzzleError::io(
                    "open puzzle directory",
                    &dir,
                    std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
                ));
            }
            if has_toml(&dir) {
                return Ok(Workspace::from_puzzles_dir(&dir));
            }
            if has_toml(&dir.join(PUZZLES_DIR)) {
                return Ok(Workspace::at_root(&dir));
            }
            return Err(PuzzleError::NoPuzzlesIn { dir });
        }
        let start = absolute(start);
        for dir in start.ancestors() {
            if has_toml(&dir.join(PUZZLES_DIR)) {
                return Ok(Workspace::at_root(dir));
            }
        }
        Err(PuzzleError::NoWorkspace { start })
    }

    /// The workspace whose root is `root` (`root/puzzles`, `root/solutions`).
    pub fn at_root(root: &Path) -> Workspace {
        Workspace {
            root: root.to_path_buf(),
            puzzles_dir: root.join(PUZZLES_DIR),
            solutions_dir: root.join(SOLUTIONS_DIR),
        }
    }

    /// The workspace around a puzzle directory: its parent is the root, `solutions/` beside it.
    pub fn from_puzzles_dir(dir: &Path) -> Workspace {
        let root = dir.parent().unwrap_or(dir).to_path_buf();
        Workspace {
            solutions_dir: root.join(SOLUTIONS_DIR),
            puzzles_dir: dir.to_path_buf(),
            root,
        }
    }

    /// All puzzles of `puzzles_dir`, checked, sorted by id; any broken file is an error.
    pub fn load_puzzles(&self) -> Result<Vec<Puzzle>, PuzzleError> {
        load_dir(&self.puzzles_dir)
    }

    /// The puzzles of `puzzles_dir` that load, and the files that do not (each with its error),
    /// so that one broken file costs only its own puzzle. Also brings `.gpuzzle/index.json` up
    /// to date for `fresh_index` (when the workspace can be written).
    pub fn load_catalog(&self) -> Result<Catalog, PuzzleError> {
        // Stamped before reading: a file changed meanwhile leaves the index stale, not wrong.
        let stamps = index::scan(&self.puzzles_dir);
        let catalog = load_catalog(&self.puzzles_dir)?;
        if let Some(stamps) = stamps {
            self.refresh_index(stamps, &catalog);
        }
        Ok(catalog)
    }

    /// Write the index of `catalog` unless the one there already describes these files.
    fn refresh_index(&self, stamps: Vec<index::Stamp>, catalog: &Catalog) {
        let state_dir = self.state_dir();
        if Index::read_fresh(&state_dir, &self.puzzles_dir, &stamps).is_some() {
            return;
        }
        if let Some(index) = Index::build(&self.puzzles_dir, stamps, catalog, SystemTime::now()) {
            // A read-only workspace goes without: the next command loads every file again.
            let _ = index.write(&state_dir);
        }
    }

    /// The index of `puzzles_dir` when every puzzle file is as it was when it was written (a
    /// listing and a stat per file); `None` sends the caller to `load_catalog`.
    pub fn fresh_index(&self) -> Option<Index> {
        let stamps = index::scan(&self.puzzles_dir)?;
        Index::read_fresh(&self.state_dir(), &self.puzzles_dir, &stamps)
    }

    /// Parse the one puzzle file `entry` names, as `load_catalog` would have loaded it; `None`
    /// when the file no longer says what the index remembers (changed since the stamps were
    /// taken), so that the caller loads everything instead.
    pub fn load_indexed(&self, entry: &Entry) -> Option<Puzzle> {
        let path = self.puzzles_dir.join(&entry.file);
        let text = std::fs::read_to_string(&path).ok()?;
        let puzzle = parse_puzzle(&text, &path).ok()?.puzzle;
        (puzzle.id == entry.id && puzzle.slug == entry.slug && puzzle.title == entry.title)
            .then_some(puzzle)
    }

    /// The puzzle called `query`: its id (`9`, `09`), slug (`pooling`) or file stem
    /// (`09_pooling`). A puzzle whose file is broken gives that file's error; any other miss
    /// lists the valid names.
    pub fn find<'a>(&self, puzzles: &'a [Puzzle], query: &str) -> Result<&'a Puzzle, PuzzleError> {
        let q = query.trim();
        let by_id = q.parse::<u32>().ok();
        let found = puzzles
            .iter()
            .find(|p| Some(p.id) == by_id || p.slug == q || p.file_stem() == q);
        if let Some(p) = found {
            return Ok(p);
        }
        // Only on a miss: read the directory again for a broken file of that name.
        let broken = self
            .load_catalog()
            .ok()
            .and_then(|c| c.broken.into_iter().find(|b| b.matches(q)));
        if let Some(b) = broken {
            return Err(b.error);
        }
        Err(PuzzleError::UnknownPuzzle {
            query: query.to_string(),
            closest: closest_slug(puzzles, q),
            valid: puzzles
                .iter()
                .map(|p| format!("{} {}", p.id, p.slug))
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// The reference solution of `puzzle`: `solutions/<file>` of this workspace when there is
    /// one (an instructor's own puzzles), else the pack's built-in solution when `puzzle` is
    /// one of the pack's; `None` when neither exists.
    pub fn reference(&self, puzzle: &Puzzle) -> Option<Reference> {
        let path = self.kernel_path(puzzle, true);
        // `symlink_metadata`: a file that exists but cannot be read is reported when read.
        if path.symlink_metadata().is_ok() {
            return Some(Reference::File(path));
        }
        pack::solution_for(puzzle).map(|text| Reference::BuiltIn {
            name: format!("{SOLUTIONS_DIR}/{}", puzzle.kernel_file),
            text,
        })
    }

    /// The learner's kernel (`puzzles/09_pooling.cu`) or the reference (`solutions/...`).
    pub fn kernel_path(&self, puzzle: &Puzzle, solutions: bool) -> PathBuf {
        let dir = if solutions {
            &self.solutions_dir
        } else {
            &self.puzzles_dir
        };
        dir.join(&puzzle.kernel_file)
    }

    /// `<root>/.gpuzzle`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR)
    }

    /// Create a workspace in `dir` (made if needed) with the built-in pack's `puzzles/` (the
    /// solutions stay in the binary). Refuses, writing nothing, if any of those files exists.
    pub fn init(dir: &Path) -> Result<Workspace, PuzzleError> {
        Workspace::init_with(dir, Vec::new())
    }

    /// `init`, also writing `extra` files (path relative to `dir`, contents), such as a CI
    /// workflow; they are refused, with the pack's, if any exists.
    pub fn init_with(dir: &Path, extra: Vec<(PathBuf, Vec<u8>)>) -> Result<Workspace, PuzzleError> {
        let mut files: Vec<(PathBuf, std::borrow::Cow<'static, [u8]>)> = pack::pack_files()
            .into_iter()
            .map(|(p, c)| (p, std::borrow::Cow::Borrowed(c)))
            .collect();
        files.extend(
            extra
                .into_iter()
                .map(|(p, c)| (p, std::borrow::Cow::Owned(c))),
        );
        Workspace::write_files(dir, files)?;
        Ok(Workspace::at_root(dir))
    }

    /// Write `files` (path relative to `dir`, contents) into `dir`, made if needed: all or
    /// nothing, refused if any exists or would land outside `dir` through a symlink. `init
    /// --ci-only` writes its CI files into an existing workspace with it.
    pub fn write_files<C: AsRef<[u8]>>(
        dir: &Path,
        files: Vec<(PathBuf, C)>,
    ) -> Result<(), PuzzleError> {
        // `symlink_metadata`: a dangling symlink exists too (writing to it would create its
        // target, wherever that is).
        let existing: Vec<PathBuf> = files
            .iter()
            .map(|(rel, _)| dir.join(rel))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        if !existing.is_empty() {
            return Err(PuzzleError::WouldOverwrite { paths: existing });
        }
        // Checked before writing anything: a refused init leaves nothing behind.
        for (rel, _) in &files {
            ensure_inside(dir, &dir.join(rel))?;
        }
        for (rel, contents) in &files {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| PuzzleError::io("create directory", parent, e))?;
            }
            ensure_inside(dir, &path)?;
            write_new(&path, contents.as_ref()).map_err(|e| PuzzleError::io("write", &path, e))?;
        }
        Ok(())
    }

    /// Put the starter of `puzzle` back. The learner's current file, if it differs from the
    /// starter, is first copied to `.gpuzzle/backup/<file>.<UTC timestamp>`, whose path is
    /// returned. Only the pack's own puzzles have a known starter.
    pub fn reset(&self, puzzle: &Puzzle) -> Result<Option<PathBuf>, PuzzleError> {
        self.reset_writing_backup_with(puzzle, write_new)
    }

    /// Put the pack's own puzzle file back over a broken one (`gpuzzle reset N` of a `.toml`
    /// that does not load): the learner's file is first backed up as a kernel is, whose path is
    /// returned. Only a file the pack has (same name) can be restored.
    pub fn reset_puzzle_file(&self, broken: &BrokenPuzzle) -> Result<Option<PathBuf>, PuzzleError> {
        let name = broken
            .toml_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let original = pack::embedded_toml(&name).ok_or_else(|| PuzzleError::NoStarter {
            slug: broken.slug.clone(),
            file: broken.toml_path.display().to_string(),
        })?;
        let path = &broken.toml_path;
        let backup = match std::fs::read(path) {
            Ok(current) if current == original.as_bytes() => None,
            Ok(current) => Some(self.back_up(path, &name, &current, write_new)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(PuzzleError::io("read", path, e)),
        };
        ensure_inside(&self.root, path)?;
        replace_file(path, original.as_bytes()).map_err(|e| PuzzleError::io("write", path, e))?;
        Ok(backup)
    }

    /// [`Workspace::reset`], the backup's temporary file written by `write` (tests inject a
    /// full disk here).
    fn reset_writing_backup_with(
        &self,
        puzzle: &Puzzle,
        write: impl Fn(&Path, &[u8]) -> std::io::Result<()>,
    ) -> Result<Option<PathBuf>, PuzzleError> {
        let starter = pack::starter_for(puzzle).ok_or_else(|| PuzzleError::NoStarter {
            slug: puzzle.slug.clone(),
            file: self.kernel_path(puzzle, false).display().to_string(),
        })?;
        let path = self.kernel_path(puzzle, false);
        let backup = match std::fs::read(&path) {
            Ok(current) if current == starter.as_bytes() => None,
            Ok(current) => Some(self.back_up(&path, &puzzle.kernel_file, &current, write)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(PuzzleError::io("read", &path, e)),
        };
        // A temporary file renamed over the learner's: a kill at any moment leaves the old
        // text or the new, never an empty file, and a symlink is replaced, never written
        // through to its target (which may lie outside the workspace).
        ensure_inside(&self.root, &path)?;
        replace_file(&path, starter.as_bytes()).map_err(|e| PuzzleError::io("write", &path, e))?;
        Ok(backup)
    }

    /// Write `contents` (the text of the learner's `original`) to a fresh
    /// `.gpuzzle/backup/<file>.<timestamp>[-N]`: first whole into a temporary file beside it
    /// (with `write`), then renamed, so a disk that fills midway leaves no empty or partial
    /// backup, and the error says that the learner's file was kept.
    fn back_up(
        &self,
        original: &Path,
        file: &str,
        contents: &[u8],
        write: impl Fn(&Path, &[u8]) -> std::io::Result<()>,
    ) -> Result<PathBuf, PuzzleError> {
        let dir = self.state_dir().join("backup");
        let stamp = utc_timestamp(SystemTime::now());
        let mut path = dir.join(format!("{file}.{stamp}"));
        let failed = |backup: &Path, cause| PuzzleError::BackupFailed {
            file: original.to_path_buf(),
            backup: backup.to_path_buf(),
            cause,
        };
        std::fs::create_dir_all(&dir).map_err(|e| failed(&path, e))?;
        let mut n = 1;
        while path.symlink_metadata().is_ok() {
            path = dir.join(format!("{file}.{stamp}-{n}"));
            n += 1;
        }
        ensure_inside(&self.root, &path)?;
        let tmp = dir.join(format!(
            ".{file}.{stamp}.gpuzzle-{}.tmp",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&tmp);
        let written = write(&tmp, contents).and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(failed(&path, e));
        }
        Ok(path)
    }
}

/// Refuse to write `path` when its folder, symlinks resolved, is not inside `root`: a symlinked
/// `puzzles/` or `.gpuzzle/backup/` must not lead gpuzzle's writes elsewhere.
fn ensure_inside(root: &Path, path: &Path) -> Result<(), PuzzleError> {
    let (Some(parent), Ok(root)) = (path.parent(), root.canonicalize()) else {
        return Ok(());
    };
    match parent.canonicalize() {
        Ok(real) if !real.starts_with(&root) => Err(PuzzleError::io(
            "write",
            path,
            std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "its folder leads outside the workspace (to {}); gpuzzle writes only inside {}",
                    real.display(),
                    root.display()
                ),
            ),
        )),
        _ => Ok(()),
    }
}

/// Create `path`, failing if anything (a file, a symlink, even a dangling one) is there.
fn write_new(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(contents)?;
    f.sync_all()
}

/// Replace `path` with `contents` atomically: a fresh temporary file beside it, then a rename.
fn replace_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.gpuzzle-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = write_new(&tmp, contents).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Whether `dir` holds a `*.toml` file; stops at the first (discovery runs on every command).
fn has_toml(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.map_while(Result::ok).any(|entry| {
        let path = entry.path();
        path.extension().is_some_and(|x| x == "toml") && path.is_file()
    })
}

/// `p` made absolute (and canonical where possible), so ancestors and parents are meaningful.
fn absolute(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir()
        .map(|d| d.join(p))
        .unwrap_or_else(|_| p.to_path_buf())
}

/// `20250314-092653` (UTC): sorts in time order, safe in file names everywhere.
fn utc_timestamp(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The slug nearest to a mistyped query (`poolng`, `hillis-steel-scan`), if within a few edits
/// of it, as `9 pooling`.
fn closest_slug(puzzles: &[Puzzle], query: &str) -> Option<String> {
    let q = query.to_lowercase();
    let (best, dist) = puzzles
        .iter()
        .map(|p| (p, edit_distance(&q, &p.slug)))
        .min_by_key(|&(_, d)| d)?;
    // A third of the name may be wrong, and at least one character.
    let allowed = (best.slug.chars().count() / 3).max(1);
    (dist <= allowed).then(|| format!("{} {}", best.id, best.slug))
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (up + 1).min(row[j] + 1).min(diag + usize::from(ca != cb));
            diag = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn fresh() -> (tempfile::TempDir, Workspace) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::init(&tmp.path().join("course")).unwrap();
        (tmp, ws)
    }

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "19700101-000000");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3661); // 2000-02-29 01:01:01
        assert_eq!(utc_timestamp(t), "20000229-010101");
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_599); // 2024-12-31 23:59:59
        assert_eq!(utc_timestamp(t), "20241231-235959");
    }

    #[test]
    fn init_writes_the_puzzles_but_not_the_solutions() {
        let (_tmp, ws) = fresh();
        assert!(ws.puzzles_dir.join("09_pooling.toml").is_file());
        assert!(ws.puzzles_dir.join("09_pooling.cu").is_file());
        assert!(
            !ws.solutions_dir.exists(),
            "solutions are not in plain view"
        );
        let puzzles = ws.load_puzzles().unwrap();
        assert_eq!(
            puzzles.len(),
            crate::puzzle::embedded_puzzles().unwrap().len()
        );
        // The reference comes from the pack...
        assert_eq!(
            ws.reference(&puzzles[8]),
            Some(Reference::BuiltIn {
                name: "solutions/09_pooling.cu".into(),
                text: pack::embedded_solution("09_pooling.cu").unwrap(),
            })
        );
        // ...unless the workspace has its own `solutions/` file.
        std::fs::create_dir_all(&ws.solutions_dir).unwrap();
        std::fs::write(ws.solutions_dir.join("09_pooling.cu"), "// mine").unwrap();
        assert_eq!(
            ws.reference(&puzzles[8]),
            Some(Reference::File(ws.solutions_dir.join("09_pooling.cu")))
        );
        // An instructor's own puzzle without a solutions/ file has none.
        let mut own = puzzles[8].clone();
        own.slug = "my-pooling".into();
        own.kernel_file = "40_my_pooling.cu".into();
        assert_eq!(ws.reference(&own), None);
    }

    #[test]
    fn init_with_writes_extra_files_and_refuses_them_too() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("course");
        let extra = || {
            vec![(
                PathBuf::from(".github/workflows/x.yml"),
                b"on: push\n".to_vec(),
            )]
        };
        Workspace::init_with(&root, extra()).unwrap();
        assert_eq!(
            std::fs::read(root.join(".github/workflows/x.yml")).unwrap(),
            b"on: push\n"
        );
        std::fs::remove_dir_all(root.join("puzzles")).unwrap();
        let e = Workspace::init_with(&root, extra())
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.yml"), "{e}");
        assert!(
            !root.join("puzzles").exists(),
            "a refused init writes nothing"
        );
    }

    #[test]
    fn find_gives_a_broken_files_own_error() {
        let (_tmp, ws) = fresh();
        let toml = ws.puzzles_dir.join("03_guard.toml");
        let text = std::fs::read_to_string(&toml).unwrap();
        std::fs::write(&toml, text.replacen("title", "titel", 1)).unwrap();
        let c = ws.load_catalog().unwrap();
        assert_eq!(c.broken.len(), 1);
        assert!(c.puzzles.iter().all(|p| p.id != 3));
        for q in ["3", "guard", "03_guard"] {
            let e = ws.find(&c.puzzles, q).unwrap_err().to_string();
            assert!(
                e.contains("03_guard.toml:") && e.contains("titel"),
                "{q}: {e}"
            );
        }
        assert_eq!(ws.find(&c.puzzles, "4").unwrap().slug, "map-2d");
    }

    #[test]
    fn init_refuses_to_overwrite_and_names_the_files() {
        let (_tmp, ws) = fresh();
        let before = std::fs::read(ws.puzzles_dir.join("01_map.cu")).unwrap();
        std::fs::write(ws.puzzles_dir.join("01_map.cu"), "my work").unwrap();
        let e = Workspace::init(&ws.root).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, PuzzleError::WouldOverwrite { .. }));
        assert!(msg.contains("01_map.cu"), "{msg}");
        assert_eq!(
            std::fs::read(ws.puzzles_dir.join("01_map.cu")).unwrap(),
            b"my work"
        );
        assert_ne!(before, b"my work");
        // Every file of the pack exists: a count, the first three, and the way to add CI.
        let total = pack::pack_files().len();
        assert!(
            msg.starts_with(&format!("refusing to overwrite {total} existing files: ")),
            "{msg}"
        );
        assert!(msg.contains(&format!(" and {} more\n", total - 3)), "{msg}");
        assert!(msg.contains("--ci-only"), "{msg}");
        assert!(msg.lines().all(|l| l.len() < 300), "{msg}");
    }

    #[test]
    fn write_files_adds_files_to_a_workspace_all_or_nothing() {
        let (_tmp, ws) = fresh();
        let files = vec![
            (PathBuf::from("ci/a.yml"), b"a".to_vec()),
            (PathBuf::from("ci/b.yml"), b"b".to_vec()),
        ];
        Workspace::write_files(&ws.root, files.clone()).unwrap();
        assert_eq!(std::fs::read(ws.root.join("ci/b.yml")).unwrap(), b"b");
        std::fs::remove_file(ws.root.join("ci/a.yml")).unwrap();
        let e = Workspace::write_files(&ws.root, files).unwrap_err();
        assert!(e.to_string().contains("1 existing file: "), "{e}");
        assert!(!ws.root.join("ci/a.yml").exists(), "nothing written");
    }

    #[test]
    fn reset_puzzle_file_backs_up_a_broken_toml_and_restores_the_packs() {
        let (_tmp, ws) = fresh();
        let path = ws.puzzles_dir.join("05_broadcast.toml");
        let original = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, "id = 5\ntitle = \"unterminated\n").unwrap();
        let catalog = ws.load_catalog().unwrap();
        let broken = catalog
            .broken
            .iter()
            .find(|b| b.matches("5"))
            .expect("puzzle 5 is broken");
        let backup = ws.reset_puzzle_file(broken).unwrap().expect("a backup");
        assert!(backup.starts_with(ws.root.join(".gpuzzle/backup")));
        assert!(std::fs::read_to_string(&backup)
            .unwrap()
            .contains("unterminated"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        assert!(ws.load_catalog().unwrap().broken.is_empty());
        // A file the pack does not have is left alone.
        let own = ws.puzzles_dir.join("77_mine.toml");
        std::fs::write(&own, "id = ").unwrap();
        let catalog = ws.load_catalog().unwrap();
        let mine = catalog.broken.iter().find(|b| b.matches("77")).unwrap();
        assert!(ws.reset_puzzle_file(mine).is_err());
        assert_eq!(std::fs::read_to_string(&own).unwrap(), "id = ");
    }

    #[test]
    fn discover_walks_up_from_a_subfolder() {
        let (_tmp, ws) = fresh();
        let deep = ws.root.join("notes/week1");
        std::fs::create_dir_all(&deep).unwrap();
        let found = Workspace::discover(&deep, None).unwrap();
        assert_eq!(found.root, ws.root.canonicalize().unwrap());
        let from_puzzles = Workspace::discover(&ws.puzzles_dir, None).unwrap();
        assert_eq!(from_puzzles.root, found.root);
    }

    #[test]
    fn discover_without_puzzles_says_to_run_init() {
        let tmp = tempfile::tempdir().unwrap();
        let e = Workspace::discover(tmp.path(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gpuzzle init DIR"), "{e}");
    }

    #[test]
    fn discover_honours_an_override_dir_or_root() {
        let (tmp, ws) = fresh();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let by_dir = Workspace::discover(&elsewhere, Some(&ws.puzzles_dir)).unwrap();
        assert_eq!(by_dir.puzzles_dir, ws.puzzles_dir.canonicalize().unwrap());
        assert_eq!(by_dir.root, ws.root.canonicalize().unwrap());
        let by_root = Workspace::discover(&elsewhere, Some(&ws.root)).unwrap();
        assert_eq!(by_root, by_dir);
        let e = Workspace::discover(&ws.root, Some(&elsewhere)).unwrap_err();
        assert!(matches!(e, PuzzleError::NoPuzzlesIn { .. }), "{e}");
    }

    #[test]
    fn find_by_number_padded_number_slug_or_stem() {
        let (_tmp, ws) = fresh();
        let ps = ws.load_puzzles().unwrap();
        for q in ["9", "09", "pooling", "09_pooling"] {
            assert_eq!(ws.find(&ps, q).unwrap().slug, "pooling", "{q}");
        }
        let e = ws.find(&ps, "poolin").unwrap_err().to_string();
        assert!(
            e.contains("no puzzle `poolin`") && e.contains("9 pooling"),
            "{e}"
        );
    }

    #[test]
    fn reset_backs_up_the_learners_file_then_restores_the_starter() {
        let (_tmp, ws) = fresh();
        let ps = ws.load_puzzles().unwrap();
        let p = ws.find(&ps, "pooling").unwrap();
        let path = ws.kernel_path(p, false);
        let starter = std::fs::read_to_string(&path).unwrap();

        // Untouched: nothing to back up.
        assert_eq!(ws.reset(p).unwrap(), None);

        std::fs::write(&path, "half-done work").unwrap();
        let backup = ws.reset(p).unwrap().expect("a backup");
        assert!(backup.starts_with(ws.root.join(".gpuzzle/backup")));
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "half-done work");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), starter);

        // A second reset within the same second keeps both backups.
        std::fs::write(&path, "second try").unwrap();
        let b2 = ws.reset(p).unwrap().unwrap();
        assert_ne!(b2, backup);
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "half-done work");

        // A deleted file is simply restored.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(ws.reset(p).unwrap(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), starter);
    }

    #[test]
    fn a_disk_that_fills_while_backing_up_leaves_no_backup_and_the_learners_file() {
        let (_tmp, ws) = fresh();
        let ps = ws.load_puzzles().unwrap();
        let p = ws.find(&ps, "pooling").unwrap();
        let path = ws.kernel_path(p, false);
        std::fs::write(&path, "half-done work").unwrap();
        // The disk fills after the file is created and the first bytes are in.
        let full_disk = |tmp: &Path, contents: &[u8]| {
            std::fs::write(tmp, &contents[..4])?;
            Err(std::io::Error::from_raw_os_error(28))
        };
        let e = ws.reset_writing_backup_with(p, full_disk).unwrap_err();
        assert!(matches!(e, PuzzleError::BackupFailed { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("cannot write the backup"), "{msg}");
        assert!(
            msg.contains(&format!(
                "kept: your {} is untouched (the starter was not put back), and no backup was made",
                path.display()
            )),
            "{msg}"
        );
        assert!(msg.contains("free some disk space"), "{msg}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "half-done work");
        let left: Vec<_> = std::fs::read_dir(ws.root.join(".gpuzzle/backup"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{left:?}");

        // With room again, the same reset backs the file up whole.
        let backup = ws.reset(p).unwrap().expect("a backup");
        assert_eq!(std::fs::read_to_string(backup).unwrap(), "half-done work");
    }

    #[test]
    fn reset_of_an_unknown_puzzle_refuses_and_keeps_the_file() {
        let (_tmp, ws) = fresh();
        let ps = ws.load_puzzles().unwrap();
        let mut p = ws.find(&ps, "map").unwrap().clone();
        p.slug = "my-own-map".into();
        let path = ws.kernel_path(&p, false);
        std::fs::write(&path, "mine").unwrap();
        let e = ws.reset(&p).unwrap_err();
        assert!(matches!(e, PuzzleError::NoStarter { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
    }

    #[cfg(unix)]
    #[test]
    fn reset_replaces_a_symlink_and_never_writes_through_it() {
        let (tmp, ws) = fresh();
        let ps = ws.load_puzzles().unwrap();
        let p = ws.find(&ps, "map").unwrap();
        let path = ws.kernel_path(p, false);
        let outside = tmp.path().join("outside.cu");
        std::fs::write(&outside, "precious, not the workspace's").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        let backup = ws.reset(p).unwrap().expect("the linked text is backed up");
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "precious, not the workspace's"
        );
        assert_eq!(
            std::fs::read_to_string(backup).unwrap(),
            "precious, not the workspace's"
        );
        assert!(!path.symlink_metadata().unwrap().file_type().is_symlink());
        let leftovers: Vec<_> = std::fs::read_dir(&ws.puzzles_dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "no temporary file left behind");
    }

    #[cfg(unix)]
    #[test]
    fn init_refuses_a_dangling_symlink_and_creates_nothing_outside() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        std::fs::create_dir_all(root.join("puzzles")).unwrap();
        let target = tmp.path().join("elsewhere.cu");
        std::os::unix::fs::symlink(&target, root.join("puzzles/01_map.cu")).unwrap();
        let e = Workspace::init(&root).unwrap_err();
        assert!(matches!(e, PuzzleError::WouldOverwrite { .. }), "{e}");
        assert!(!target.exists());

        // A `puzzles/` that is a symlink out of the workspace is not written through either.
        let root2 = tmp.path().join("ws2");
        let away = tmp.path().join("away");
        std::fs::create_dir_all(&root2).unwrap();
        std::fs::create_dir_all(&away).unwrap();
        std::os::unix::fs::symlink(&away, root2.join("puzzles")).unwrap();
        let e = Workspace::init(&root2).unwrap_err();
        assert!(e.to_string().contains("outside the workspace"), "{e}");
        assert_eq!(std::fs::read_dir(&away).unwrap().count(), 0);
    }

    #[test]
    fn a_mistyped_puzzle_name_gets_the_nearest_one() {
        let (_tmp, ws) = fresh();
        let puzzles = ws.load_puzzles().unwrap();
        let e = ws.find(&puzzles, "poolng").unwrap_err().to_string();
        assert!(e.contains("did you mean `9 pooling`?"), "{e}");
        let e = ws
            .find(&puzzles, "hillis-steel-scan")
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean `19 hillis-steele-scan`?"), "{e}");
        let e = ws.find(&puzzles, "quicksort").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
