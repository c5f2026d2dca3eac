//! A small cache of what a puzzle directory holds, so that a command about one puzzle
//! (`run 9`, `hint 9`) parses that puzzle's file and not all of them: parsing the whole pack
//! is most of a warm `run`.
//!
//! `.gpuzzle/index.json` records, for the directory, every `*.toml` file's stamp (name, size,
//! modification and change times, inode) and which puzzles loaded from them (id, slug, title,
//! file). It is trusted only when the directory's stamps today are exactly those, and it was
//! written by this very gpuzzle binary; anything else (an edited, added, removed or renamed
//! file, a newer gpuzzle, an unreadable index) sends the caller to the full load, which writes
//! a fresh index. It names only the puzzles that loaded: a query that none of them answers
//! (a broken file, a typo) goes to the full load too, so every message stays the full load's.

use super::load::Catalog;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The index file inside `.gpuzzle/`.
pub const INDEX_FILE: &str = "index.json";
/// Bumped when the layout below changes.
const FORMAT: u32 = 1;
/// A file changed this recently could change again within the same tick of the file system's
/// clock (up to 2 s on FAT) and keep its stamp; an index is written only once every file is
/// older than this, so that an edit always shows in the stamp.
pub const SETTLE: Duration = Duration::from_secs(2);

/// What the stat of one puzzle file says; any change to the file changes it (the change time
/// is set by the kernel on every write, rename or `touch`, and cannot be set back).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    name: String,
    len: u64,
    modified_ns: u64,
    changed_ns: u64,
    inode: u64,
}

/// A puzzle that loaded, as the index remembers it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: u32,
    pub slug: String,
    pub title: String,
    /// The file name inside the puzzle directory (`09_pooling.toml`).
    pub file: String,
}

impl Entry {
    /// `09_pooling` for `09_pooling.toml`, as `Puzzle::file_stem`.
    fn file_stem(&self) -> &str {
        self.file.strip_suffix(".toml").unwrap_or(&self.file)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Index {
    format: u32,
    /// The gpuzzle that wrote it (`gpuzzle_id`): another may judge the files differently.
    gpuzzle: String,
    /// The puzzle directory it describes (several may share one `.gpuzzle/`).
    dir: PathBuf,
    files: Vec<Stamp>,
    /// The puzzles that loaded, sorted by id (as `Catalog::puzzles`).
    pub puzzles: Vec<Entry>,
}

impl Index {
    /// The index of `dir` as the full load found it: `stamps` were taken (`scan`) before
    /// `catalog` was read, so a file changed meanwhile has a newer stamp and the index is stale
    /// on the next run. `None` when a file changed less than `SETTLE` before `now`.
    pub fn build(
        dir: &Path,
        stamps: Vec<Stamp>,
        catalog: &Catalog,
        now: SystemTime,
    ) -> Option<Index> {
        let settled = nanos(now.checked_sub(SETTLE)?)?;
        if stamps.iter().any(|s| s.changed_ns >= settled) {
            return None;
        }
        let puzzles = catalog
            .puzzles
            .iter()
            .map(|p| {
                Some(Entry {
                    id: p.id,
                    slug: p.slug.clone(),
                    title: p.title.clone(),
                    file: p.toml_path.file_name()?.to_str()?.to_string(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Index {
            format: FORMAT,
            gpuzzle: gpuzzle_id(),
            dir: dir.to_path_buf(),
            files: stamps,
            puzzles,
        })
    }

    /// The index in `state_dir` when it describes `dir` exactly as `stamps` show it now.
    pub fn read_fresh(state_dir: &Path, dir: &Path, stamps: &[Stamp]) -> Option<Index> {
        let text = std::fs::read(state_dir.join(INDEX_FILE)).ok()?;
        let index: Index = serde_json::from_slice(&text).ok()?;
        index.describes(dir, stamps).then_some(index)
    }

    /// Whether this index was written by this gpuzzle for `dir` with exactly these files.
    pub fn describes(&self, dir: &Path, stamps: &[Stamp]) -> bool {
        self.format == FORMAT
            && self.dir == dir
            && self.files == stamps
            && self.gpuzzle == gpuzzle_id()
    }

    /// Write it to `state_dir` (made if missing): a temporary file renamed over the old index, so
    /// a reader sees one whole index or the other. A workspace that cannot be written (read-only)
    /// only goes without the index.
    pub fn write(&self, state_dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        std::fs::create_dir_all(state_dir)?;
        let tmp = state_dir.join(format!(".{INDEX_FILE}.{}.tmp", std::process::id()));
        let written = std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, state_dir.join(INDEX_FILE)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// The puzzle `query` names, as `Workspace::find` picks it among the puzzles that loaded:
    /// the first in id order whose id (`9`, `09`), slug or file stem it is.
    pub fn find(&self, query: &str) -> Option<&Entry> {
        let q = query.trim();
        let by_id = q.parse::<u32>().ok();
        self.puzzles
            .iter()
            .find(|e| Some(e.id) == by_id || e.slug == q || e.file_stem() == q)
    }

    /// The puzzle after `id` in id order (for "Next: gpuzzle run 10").
    pub fn next_after(&self, id: u32) -> Option<&Entry> {
        self.puzzles.iter().find(|e| e.id > id)
    }
}

/// The stamps of the `*.toml` files directly in `dir` (the files `load_catalog` reads), sorted
/// by name: one directory listing and one stat per file. `None` when the directory cannot be
/// listed or a name is not UTF-8 (the full load then says what is wrong, or copes).
pub fn scan(dir: &Path) -> Option<Vec<Stamp>> {
    let mut stamps = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        // Followed through a symlink, as `toml_files` does with `is_file`.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        stamps.push(Stamp {
            name: path.file_name()?.to_str()?.to_string(),
            len: meta.len(),
            modified_ns: nanos(meta.modified().ok()?)?,
            changed_ns: changed_ns(&meta)?,
            inode: inode(&meta),
        });
    }
    stamps.sort_by(|a, b| a.name.cmp(&b.name));
    Some(stamps)
}

/// This gpuzzle binary: its version and its file's size and modification time, so that a
/// rebuilt gpuzzle (whose checks may differ) never trusts an older one's index.
fn gpuzzle_id() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .ok()
        .map(|m| (m.len(), m.modified().ok().and_then(nanos)));
    match exe {
        Some((len, Some(modified))) => {
            format!("{} {len} {modified}", env!("CARGO_PKG_VERSION"))
        }
        // Never equal to itself across runs: no index is trusted.
        _ => format!(
            "{} unknown {}",
            env!("CARGO_PKG_VERSION"),
            std::process::id()
        ),
    }
}

fn nanos(t: SystemTime) -> Option<u64> {
    u64::try_from(t.duration_since(UNIX_EPOCH).ok()?.as_nanos()).ok()
}

#[cfg(unix)]
fn changed_ns(meta: &std::fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let secs = u64::try_from(meta.ctime()).ok()?;
    let ns = u64::try_from(meta.ctime_nsec()).ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// Without a change time, the modification time stands in for it.
#[cfg(not(unix))]
fn changed_ns(meta: &std::fs::Metadata) -> Option<u64> {
    nanos(meta.modified().ok()?)
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::load::load_catalog;
    use crate::puzzle::Workspace;

    use crate::puzzle::load::tests::titled_puzzle_text as puzzle_text;

    /// A workspace root with puzzles 1 `one`, 2 `two` and 10 `ten`.
    fn workspace() -> (tempfile::TempDir, Workspace) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::at_root(tmp.path());
        std::fs::create_dir_all(&ws.puzzles_dir).unwrap();
        for (id, slug) in [(1, "one"), (2, "two"), (10, "ten")] {
            write(
                &ws,
                &format!("{id:02}_{slug}.toml"),
                &puzzle_text(id, slug, "T"),
            );
        }
        (tmp, ws)
    }

    fn write(ws: &Workspace, name: &str, text: &str) {
        std::fs::write(ws.puzzles_dir.join(name), text).unwrap();
    }

    /// Index the directory as the full load does, as if every file had long settled.
    fn index(ws: &Workspace) -> Index {
        let stamps = scan(&ws.puzzles_dir).unwrap();
        let catalog = load_catalog(&ws.puzzles_dir).unwrap();
        let later = SystemTime::now() + Duration::from_secs(3600);
        let index = Index::build(&ws.puzzles_dir, stamps, &catalog, later).unwrap();
        index.write(&ws.state_dir()).unwrap();
        index
    }

    fn fresh(ws: &Workspace) -> Option<Index> {
        let stamps = scan(&ws.puzzles_dir).unwrap();
        Index::read_fresh(&ws.state_dir(), &ws.puzzles_dir, &stamps)
    }

    #[test]
    fn an_untouched_directory_reads_back_its_index() {
        let (_tmp, ws) = workspace();
        std::fs::write(ws.puzzles_dir.join("notes.txt"), "not a puzzle").unwrap();
        let written = index(&ws);
        assert_eq!(fresh(&ws), Some(written.clone()));
        let ids: Vec<u32> = written.puzzles.iter().map(|e| e.id).collect();
        assert_eq!(ids, [1, 2, 10]);
        // Another directory sharing the `.gpuzzle/` is not described by it.
        let other = ws.root.join("other");
        std::fs::create_dir_all(&other).unwrap();
        let stamps = scan(&ws.puzzles_dir).unwrap();
        assert_eq!(Index::read_fresh(&ws.state_dir(), &other, &stamps), None);
    }

    #[test]
    fn queries_are_answered_as_workspace_find_answers_them() {
        let (_tmp, ws) = workspace();
        let index = index(&ws);
        let id_of = |q: &str| index.find(q).map(|e| e.id);
        assert_eq!(id_of("2"), Some(2));
        assert_eq!(id_of("02"), Some(2));
        assert_eq!(id_of(" ten "), Some(10));
        assert_eq!(id_of("10_ten"), Some(10));
        assert_eq!(id_of("three"), None);
        assert_eq!(index.next_after(2).map(|e| e.id), Some(10));
        assert_eq!(index.next_after(10), None);
        assert_eq!(
            index.find("ten").map(|e| e.file.as_str()),
            Some("10_ten.toml")
        );
    }

    #[test]
    fn an_edited_file_makes_the_index_stale_even_at_the_same_size_and_mtime() {
        let (_tmp, ws) = workspace();
        index(&ws);
        let path = ws.puzzles_dir.join("02_two.toml");
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        // Let the clock move on: the change time is what tells the edit.
        std::thread::sleep(Duration::from_millis(20));
        write(&ws, "02_two.toml", &puzzle_text(2, "two", "U"));
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        assert_eq!(fresh(&ws), None);
        // Indexed again, it has the new title.
        let again = index(&ws);
        assert_eq!(again.find("2").map(|e| e.title.as_str()), Some("U"));
        assert!(fresh(&ws).is_some());
    }

    #[test]
    fn a_new_or_removed_file_makes_the_index_stale() {
        let (_tmp, ws) = workspace();
        index(&ws);
        write(&ws, "03_three.toml", &puzzle_text(3, "three", "T"));
        assert_eq!(fresh(&ws), None);
        assert_eq!(index(&ws).find("three").map(|e| e.id), Some(3));
        std::fs::remove_file(ws.puzzles_dir.join("01_one.toml")).unwrap();
        assert_eq!(fresh(&ws), None);
        assert_eq!(index(&ws).find("1"), None);
    }

    #[test]
    fn a_broken_file_is_not_indexed_so_its_query_falls_back() {
        let (_tmp, ws) = workspace();
        write(&ws, "04_four.toml", "id = 4\nslug = \"four\n");
        // Same slug as puzzle 1: broken by the check across files.
        write(&ws, "05_dup.toml", &puzzle_text(5, "one", "T"));
        let index = index(&ws);
        let ids: Vec<u32> = index.puzzles.iter().map(|e| e.id).collect();
        assert_eq!(ids, [1, 2, 10]);
        assert_eq!(index.find("4"), None);
        assert_eq!(index.find("5"), None);
        assert_eq!(index.find("one").map(|e| e.id), Some(1));
    }

    #[test]
    fn recently_changed_files_are_not_indexed_yet() {
        let (_tmp, ws) = workspace();
        let stamps = scan(&ws.puzzles_dir).unwrap();
        let catalog = load_catalog(&ws.puzzles_dir).unwrap();
        assert_eq!(
            Index::build(&ws.puzzles_dir, stamps, &catalog, SystemTime::now()),
            None
        );
    }

    #[test]
    fn a_damaged_or_foreign_index_is_not_trusted() {
        let (_tmp, ws) = workspace();
        let mut written = index(&ws);
        std::fs::write(ws.state_dir().join(INDEX_FILE), "{ not json").unwrap();
        assert_eq!(fresh(&ws), None);
        written.gpuzzle = "0.0.1 another build".to_string();
        written.write(&ws.state_dir()).unwrap();
        assert_eq!(fresh(&ws), None);
    }

    #[test]
    fn an_index_that_cannot_be_written_is_an_error_not_a_panic() {
        let (_tmp, ws) = workspace();
        let written = index(&ws);
        let blocked = ws.root.join("blocked");
        std::fs::write(&blocked, "a file where the folder would be").unwrap();
        assert!(written.write(&blocked).is_err());
    }

    #[test]
    fn the_workspace_loads_an_indexed_puzzle_only_while_its_file_agrees() {
        let (_tmp, ws) = workspace();
        ws.load_catalog().unwrap();
        // Files just written are not indexed yet.
        assert_eq!(ws.fresh_index(), None);
        let index = index(&ws);
        let entry = index.find("two").unwrap();
        let puzzle = ws.load_indexed(entry).unwrap();
        assert_eq!(puzzle.toml_path, ws.puzzles_dir.join("02_two.toml"));
        let full = load_catalog(&ws.puzzles_dir).unwrap();
        assert_eq!(Some(&puzzle), full.puzzles.iter().find(|p| p.id == 2));
        write(&ws, "02_two.toml", &puzzle_text(2, "two", "Changed"));
        assert_eq!(ws.load_indexed(entry), None);
    }
}
