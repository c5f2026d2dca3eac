//! `gpuzzle init --ci github|classroom`: the workflow that grades a classroom repository on each
//! push. The file is `templates/github-workflow.yml` (annotations, a summary, JUnit) or
//! `templates/classroom-workflow.yml` (GitHub Classroom's autograding: points per puzzle through
//! its grading reporter), with one value filled in: where CI installs gpuzzle from
//! (`--ci-install`, the arguments of `cargo install`).

use anyhow::{bail, Result};
use clap::ValueEnum;
use std::path::PathBuf;

/// The CI services `init --ci` can write a workflow for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Ci {
    /// GitHub Actions: annotations at the learner's lines, a summary table, a JUnit artifact.
    Github,
    /// GitHub Classroom autograding: each puzzle's points on the teacher's dashboard, through
    /// Classroom's grading reporter.
    Classroom,
}

const GITHUB_WORKFLOW: &str = include_str!("templates/github-workflow.yml");
/// Where the workflow goes in the new workspace.
pub const GITHUB_WORKFLOW_PATH: &str = ".github/workflows/gpuzzle.yml";
const CLASSROOM_WORKFLOW: &str = include_str!("templates/classroom-workflow.yml");
/// Where the Classroom workflow goes in the new workspace (the name Classroom's docs use).
pub const CLASSROOM_WORKFLOW_PATH: &str = ".github/workflows/classroom.yml";
const INSTALL_SLOT: &str = "@GPUZZLE_INSTALL@";

/// The workflow file for `ci` (path relative to the workspace root, contents).
pub fn workflow(ci: Ci, install: Option<&str>) -> Result<(PathBuf, Vec<u8>)> {
    let (template, path) = match ci {
        Ci::Github => (GITHUB_WORKFLOW, GITHUB_WORKFLOW_PATH),
        Ci::Classroom => (CLASSROOM_WORKFLOW, CLASSROOM_WORKFLOW_PATH),
    };
    let install = install.map(str::trim).unwrap_or_default();
    check_install(install)?;
    let text = template.replace(INSTALL_SLOT, install);
    Ok((PathBuf::from(path), text.into_bytes()))
}

/// `--ci-install` goes inside a single-quoted YAML string of a GitHub expression: it must stay
/// one line and hold nothing that ends the string or starts an expression.
fn check_install(install: &str) -> Result<()> {
    if install.contains(['\'', '"', '\n', '\r', '\\', '$', '`', '{', '}']) {
        bail!(
            "--ci-install `{install}`: give plain `cargo install` arguments (no quotes, `$`, `{{`, backslashes or line breaks), e.g. --ci-install \"--git https://github.com/you/gpuzzle --rev 1a2b3c4 gpuzzle\""
        );
    }
    Ok(())
}

/// What `init` says after writing the workflow.
pub fn next_steps(ci: Ci, install: Option<&str>) -> String {
    let source = match install.map(str::trim).filter(|s| !s.is_empty()) {
        Some(args) => format!("`cargo install --locked {args}`"),
        None => "the repository variable GPUZZLE_INSTALL (set it to the `cargo install` \
                 arguments for gpuzzle, e.g. `--git https://github.com/you/gpuzzle --rev \
                 1a2b3c4 gpuzzle`; or run init again with --ci-install)"
            .to_string(),
    };
    match ci {
        Ci::Github => {
            format!(
                "Wrote {GITHUB_WORKFLOW_PATH}: on each push it installs NVRTC, and gpuzzle from \
                 {source}, then runs `gpuzzle check --all --format github` (failures annotated at \
                 the learner's lines) and keeps `--format junit` as an artifact. Commit the \
                 workspace to a GitHub repository to start; docs/classroom.md \
                 says more."
            )
        }
        Ci::Classroom => format!(
            "Wrote {CLASSROOM_WORKFLOW_PATH} (GitHub Classroom autograding): on each push it \
             installs NVRTC, and gpuzzle from {source}, then runs `gpuzzle check --all --format \
             classroom` and Classroom's grading reporter, which gives each puzzle its `points` \
             (default 1) on the assignment's dashboard. Use this workspace as the assignment's \
             starter repository; docs/classroom.md says more."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_source_fills_its_slot_and_nothing_else_changes() {
        let args = "--git https://example.org/gpuzzle --rev 1a2b3c4 gpuzzle";
        let (path, text) = workflow(Ci::Github, Some(args)).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(path, PathBuf::from(".github/workflows/gpuzzle.yml"));
        assert!(text.contains(&format!("vars.GPUZZLE_INSTALL || '{args}'")));
        assert!(!text.contains(INSTALL_SLOT));
        assert_eq!(
            text.replace(args, INSTALL_SLOT),
            GITHUB_WORKFLOW,
            "only the slot changes"
        );
        let (_, empty) = workflow(Ci::Github, None).unwrap();
        assert!(String::from_utf8(empty)
            .unwrap()
            .contains("vars.GPUZZLE_INSTALL || ''"));
    }

    #[test]
    fn an_install_source_that_would_break_the_yaml_is_refused() {
        for bad in ["x' || 'y", "a\nb", "${{ secrets.X }}", "a \"b\""] {
            assert!(workflow(Ci::Github, Some(bad)).is_err(), "{bad:?}");
            assert!(workflow(Ci::Classroom, Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_classroom_workflow_fills_the_same_slot() {
        let args = "--git https://example.org/gpuzzle --rev 1a2b3c4 gpuzzle";
        let (path, text) = workflow(Ci::Classroom, Some(args)).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(path, PathBuf::from(".github/workflows/classroom.yml"));
        assert_eq!(text.replace(args, INSTALL_SLOT), CLASSROOM_WORKFLOW);
        assert!(next_steps(Ci::Classroom, Some(args)).contains(args));
    }
}
