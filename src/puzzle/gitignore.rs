//! The workspace's `.gitignore`: what gpuzzle writes into a workspace that belongs to this
//! machine only (the state lock, the index of absolute paths and inodes, pictures, backups,
//! temporary files) and must not be committed to a classroom repository. `init` adds the
//! missing lines to an existing `.gitignore` and never removes or rewrites the learner's own.

use std::io::Write;
use std::path::Path;

/// The file's name in the workspace root.
pub const GITIGNORE: &str = ".gitignore";

/// The lines gpuzzle needs, each a pattern relative to the workspace root.
pub const IGNORED: &[&str] = &[
    ".gpuzzle/state.lock",
    ".gpuzzle/index.json",
    ".gpuzzle/pictures/",
    ".gpuzzle/backup/",
    ".gpuzzle/*.corrupt",
    ".gpuzzle/*.tmp",
    ".gpuzzle/.*.tmp",
    ".*.gpuzzle-*.tmp",
];

const HEADER: &str = "# Written by gpuzzle: local to this machine, not to be committed.";

/// What [`ensure`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// There was none: one was written.
    Created,
    /// The learner's file lacked these lines; they were appended.
    Appended(Vec<&'static str>),
    /// The learner's file already held every line.
    Complete,
    /// `.gitignore` is a symlink or not a file: left alone.
    LeftAlone,
}

/// Make `<root>/.gitignore` hold every line of [`IGNORED`], keeping whatever it has.
pub fn ensure(root: &Path) -> std::io::Result<Outcome> {
    let path = root.join(GITIGNORE);
    let existing = match path.symlink_metadata() {
        Ok(meta) if !meta.file_type().is_file() => return Ok(Outcome::LeftAlone),
        Ok(_) => Some(std::fs::read_to_string(&path)?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let Some(text) = existing else {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        file.write_all(format!("{HEADER}\n{}\n", IGNORED.join("\n")).as_bytes())?;
        return Ok(Outcome::Created);
    };
    let present: Vec<&str> = text.lines().map(str::trim).collect();
    let missing: Vec<&'static str> = IGNORED
        .iter()
        .copied()
        .filter(|line| !present.contains(line))
        .collect();
    if missing.is_empty() {
        return Ok(Outcome::Complete);
    }
    let mut block = String::new();
    if !text.is_empty() && !text.ends_with('\n') {
        block.push('\n');
    }
    block.push_str(&format!("\n{HEADER}\n{}\n", missing.join("\n")));
    let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
    file.write_all(block.as_bytes())?;
    Ok(Outcome::Appended(missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_workspace_gets_every_line() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(ensure(dir.path()).unwrap(), Outcome::Created);
        let text = std::fs::read_to_string(dir.path().join(GITIGNORE)).unwrap();
        for line in IGNORED {
            assert!(text.lines().any(|l| l == *line), "{line} in {text}");
        }
        assert_eq!(ensure(dir.path()).unwrap(), Outcome::Complete);
    }

    #[test]
    fn the_learners_lines_are_kept_and_only_the_missing_ones_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(GITIGNORE);
        std::fs::write(&path, "target/\n.gpuzzle/index.json").unwrap();
        let Outcome::Appended(added) = ensure(dir.path()).unwrap() else {
            panic!("lines were missing");
        };
        assert!(!added.contains(&".gpuzzle/index.json"), "{added:?}");
        assert!(added.contains(&".gpuzzle/state.lock"), "{added:?}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("target/\n.gpuzzle/index.json\n\n# Written by gpuzzle"));
        assert_eq!(text.matches(".gpuzzle/index.json").count(), 1, "{text}");
        assert_eq!(ensure(dir.path()).unwrap(), Outcome::Complete);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_gitignore_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("elsewhere");
        std::fs::write(&outside, "mine\n").unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join(GITIGNORE)).unwrap();
        assert_eq!(ensure(&ws).unwrap(), Outcome::LeftAlone);
        assert_eq!(std::fs::read_to_string(outside).unwrap(), "mine\n");
    }
}
