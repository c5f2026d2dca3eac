//! `gpuzzle init --ci github|classroom50|classroom`: what grades a classroom repository.
//!
//! - `github`: `templates/github-workflow.yml` (annotations, a summary, JUnit).
//! - `classroom50`: Classroom 50's `autograder.py` and `runtime.json`, written under
//!   `classroom50/` for the teacher's `classroom50` configuration repository (Classroom 50 adds
//!   its own caller workflow to each student's repository at accept time, so the student-side
//!   starter is the workspace itself).
//! - `classroom`: `templates/classroom-workflow.yml`, GitHub Classroom's autograding (legacy:
//!   GitHub Classroom has been sunset, its grading reporter is deprecated).
//!
//! Each installs, in this order: NVIDIA's wheels that the pack needs ([`NVIDIA_WHEELS`]), then
//! gpuzzle prebuilt (the release wheel of a pinned version, `GPUZZLE_VERSION`, set once for the
//! organisation), then, only when no such release exists, `cargo install` of `GPUZZLE_INSTALL`.

use crate::report::classroom50::{iso_utc, Identity, IDENTITY_VARS};
use anyhow::{bail, Result};
use clap::ValueEnum;
use std::path::{Path, PathBuf};

/// The CI services `init --ci` can write for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Ci {
    /// GitHub Actions: annotations at the learner's lines, a summary table, a JUnit artifact.
    Github,
    /// Classroom 50: an autograder.py and a runtime.json for the classroom50 repository
    /// (under classroom50/), scoring each puzzle's points.
    Classroom50,
    /// GitHub Classroom autograding (legacy: GitHub Classroom has been sunset).
    Classroom,
}

/// NVIDIA's wheels every puzzle of the built-in pack needs, as `pip` names them: NVRTC itself,
/// the runtime's headers (`cuda_fp16.h`, `cooperative_groups.h`, `mma.h`...), CCCL's, and the
/// compiler wheel, the only one with `crt/mma.h` (WMMA's `#include <mma.h>`, puzzle 50).
pub const NVIDIA_WHEELS: [&str; 4] = [
    "nvidia-cuda-nvrtc-cu12",
    "nvidia-cuda-runtime-cu12",
    "nvidia-cuda-cccl-cu12",
    "nvidia-cuda-nvcc-cu12",
];

const GITHUB_WORKFLOW: &str = include_str!("templates/github-workflow.yml");
/// Where the workflow goes in the new workspace.
pub const GITHUB_WORKFLOW_PATH: &str = ".github/workflows/gpuzzle.yml";
const CLASSROOM_WORKFLOW: &str = include_str!("templates/classroom-workflow.yml");
/// Where the Classroom workflow goes in the new workspace (the name Classroom's docs use).
pub const CLASSROOM_WORKFLOW_PATH: &str = ".github/workflows/classroom.yml";
const AUTOGRADER: &str = include_str!("templates/classroom50-autograder.py");
/// Where Classroom 50's autograder goes in the new workspace.
pub const AUTOGRADER_PATH: &str = "classroom50/autograder.py";
const RUNTIME: &str = include_str!("templates/classroom50-runtime.json");
/// Where Classroom 50's runtime block goes in the new workspace.
pub const RUNTIME_PATH: &str = "classroom50/runtime.json";

const INSTALL_SLOT: &str = "@GPUZZLE_INSTALL@";
const VERSION_SLOT: &str = "@GPUZZLE_VERSION@";
const WHEELS_SLOT: &str = "@NVIDIA_WHEELS@";

/// The release CI installs unless told otherwise: this gpuzzle's own version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The files `ci` needs (path relative to the workspace root, contents).
pub fn files(ci: Ci, install: Option<&str>) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let install = install.map(str::trim).unwrap_or_default();
    check_install(install)?;
    let fill = |template: &str| {
        template
            .replace(INSTALL_SLOT, install)
            .replace(VERSION_SLOT, VERSION)
            .replace(WHEELS_SLOT, &NVIDIA_WHEELS.join(" "))
            .into_bytes()
    };
    Ok(match ci {
        Ci::Github => vec![(PathBuf::from(GITHUB_WORKFLOW_PATH), fill(GITHUB_WORKFLOW))],
        Ci::Classroom => vec![(
            PathBuf::from(CLASSROOM_WORKFLOW_PATH),
            fill(CLASSROOM_WORKFLOW),
        )],
        Ci::Classroom50 => vec![
            (PathBuf::from(AUTOGRADER_PATH), fill(AUTOGRADER)),
            (PathBuf::from(RUNTIME_PATH), fill(RUNTIME)),
        ],
    })
}

/// `--ci-install` goes inside a single-quoted YAML string of a GitHub expression and a
/// double-quoted Python string: it must stay one line and hold nothing that ends either or
/// starts an expression.
fn check_install(install: &str) -> Result<()> {
    if install.contains(['\'', '"', '\n', '\r', '\\', '$', '`', '{', '}']) {
        bail!(
            "--ci-install `{install}`: give plain `cargo install` arguments (no quotes, `$`, `{{`, backslashes or line breaks), e.g. --ci-install \"--git https://github.com/you/gpuzzle --rev 1a2b3c4 gpuzzle\""
        );
    }
    Ok(())
}

/// What `init` says after writing the CI files.
pub fn next_steps(ci: Ci, install: Option<&str>) -> String {
    let fallback = match install.map(str::trim).filter(|s| !s.is_empty()) {
        Some(args) => format!("`cargo install --locked {args}`"),
        None => match ci {
            Ci::Classroom50 => "`cargo install` of GPUZZLE_INSTALL (empty: set it at the top of \
                                the autograder to build gpuzzle where no release exists)"
                .to_string(),
            _ => "`cargo install` of GPUZZLE_INSTALL (unset: set the organisation variable \
                  GPUZZLE_INSTALL, or its value in the workflow, to build gpuzzle where no \
                  release exists)"
                .to_string(),
        },
    };
    let pinned_by = match ci {
        Ci::Classroom50 => "GPUZZLE_VERSION at the top of the autograder pins another",
        _ => "the organisation variable GPUZZLE_VERSION pins another",
    };
    let install = format!(
        "NVIDIA's wheels ({}), then gpuzzle {VERSION} prebuilt (`pip install gpuzzle=={VERSION}`; \
         {pinned_by}), else {fallback}",
        NVIDIA_WHEELS.join(", ")
    );
    match ci {
        Ci::Github => format!(
            "Wrote {GITHUB_WORKFLOW_PATH}: on each push it installs {install}, then runs \
             `gpuzzle check --all --format github` (failures annotated at the learner's lines) \
             and keeps `--format junit` as an artifact. Commit the workspace to a GitHub \
             repository to start; docs/classroom.md says more."
        ),
        Ci::Classroom => format!(
            "Wrote {CLASSROOM_WORKFLOW_PATH} (GitHub Classroom autograding, legacy: GitHub \
             Classroom has been sunset; Classroom 50 is its successor, `--ci classroom50`): on \
             each push it installs {install}, then runs `gpuzzle check --all --format classroom` \
             and Classroom's grading reporter. docs/classroom.md says more."
        ),
        Ci::Classroom50 => format!(
            "Wrote {AUTOGRADER_PATH} and {RUNTIME_PATH} for Classroom 50. The autograder uses \
             the gpuzzle on PATH, or installs {install}; it grades with `gpuzzle check --all \
             --pack builtin --format classroom50` and writes ./result.json. Install them in \
             your organisation's classroom50 repository (ORG, CLASSROOM and ASSIGNMENT are \
             yours; push this workspace, without classroom50/, as the assignment's template \
             repository ORG/TEMPLATE):\n  gh extension install foundation50/gh-teacher\n  gh \
             teacher autograder set-default ORG CLASSROOM --from {AUTOGRADER_PATH}\n  gh teacher \
             assignment add ORG CLASSROOM ASSIGNMENT --name \"GPU puzzles\" --template \
             ORG/TEMPLATE --runtime {RUNTIME_PATH}\n(For this assignment only, commit \
             {AUTOGRADER_PATH} as CLASSROOM/autograders/ASSIGNMENT/autograder.py in the \
             classroom50 repository instead of set-default.) docs/classroom.md says more."
        ),
    }
}

/// The submission's identity for `check --format classroom50`, from the runner's environment;
/// an error naming what is missing (an infrastructure error: exit 2, no result).
pub fn classroom50_identity() -> Result<Identity> {
    Identity::from_env(|name| std::env::var(name).ok()).map_err(|missing| {
        anyhow::anyhow!(
            "--format classroom50 needs the Classroom 50 runner's environment: {} not set\n  \
             help: it is set when Classroom 50 runs the autograder; to try it elsewhere, set \
             {} (REVIEW_URL is optional)",
            missing.join(", "),
            IDENTITY_VARS[..5].join(", ")
        )
    })
}

/// The submission instant, UTC ISO 8601: the committer date of the checkout's `HEAD` (the
/// graded commit, the same on every regrade), else now when `root` is not a git checkout.
pub fn submission_instant(root: &Path) -> String {
    let committed = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["log", "-1", "--format=%ct", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<i64>().ok());
    let secs = committed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    });
    iso_utc(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(ci: Ci, install: Option<&str>) -> Vec<(PathBuf, String)> {
        files(ci, install)
            .unwrap()
            .into_iter()
            .map(|(p, c)| (p, String::from_utf8(c).unwrap()))
            .collect()
    }

    #[test]
    fn the_slots_are_filled_and_nothing_else_changes() {
        let args = "--git https://example.org/gpuzzle --rev 1a2b3c4 gpuzzle";
        for (ci, templates) in [
            (Ci::Github, vec![GITHUB_WORKFLOW]),
            (Ci::Classroom, vec![CLASSROOM_WORKFLOW]),
            (Ci::Classroom50, vec![AUTOGRADER, RUNTIME]),
        ] {
            let written = text(ci, Some(args));
            assert_eq!(written.len(), templates.len());
            for ((_, t), template) in written.iter().zip(templates) {
                assert!(
                    !t.contains("@GPUZZLE_") && !t.contains("@NVIDIA_"),
                    "a slot left in {t}"
                );
                let back = t
                    .replace(args, INSTALL_SLOT)
                    .replace(&NVIDIA_WHEELS.join(" "), WHEELS_SLOT)
                    .replace(&format!("'{VERSION}'"), &format!("'{VERSION_SLOT}'"))
                    .replace(&format!("\"{VERSION}\""), &format!("\"{VERSION_SLOT}\""));
                assert_eq!(back, template, "only the slots change");
            }
        }
        let github = &text(Ci::Github, Some(args))[0];
        assert_eq!(github.0, PathBuf::from(".github/workflows/gpuzzle.yml"));
        assert!(github
            .1
            .contains(&format!("vars.GPUZZLE_INSTALL || '{args}'")));
        assert!(github
            .1
            .contains(&format!("vars.GPUZZLE_VERSION || '{VERSION}'")));
        let empty = &text(Ci::Github, None)[0].1;
        assert!(empty.contains("vars.GPUZZLE_INSTALL || ''"));
        let paths: Vec<PathBuf> = text(Ci::Classroom50, None)
            .into_iter()
            .map(|f| f.0)
            .collect();
        assert_eq!(
            paths,
            vec![
                PathBuf::from("classroom50/autograder.py"),
                PathBuf::from("classroom50/runtime.json")
            ]
        );
    }

    #[test]
    fn an_install_source_that_would_break_the_files_is_refused() {
        for bad in ["x' || 'y", "a\nb", "${{ secrets.X }}", "a \"b\"", "a\\b"] {
            for ci in [Ci::Github, Ci::Classroom, Ci::Classroom50] {
                assert!(files(ci, Some(bad)).is_err(), "{bad:?}");
            }
        }
    }

    #[test]
    fn the_runtime_block_is_json_with_the_fields_classroom_50_reads() {
        let runtime = &text(Ci::Classroom50, None)[1].1;
        let v: serde_json::Value = serde_json::from_str(runtime).expect("valid JSON");
        assert_eq!(v["runs-on"], "ubuntu-latest");
        assert!(v["python"].is_string() && v["rust"].is_string(), "{v}");
    }

    #[test]
    fn the_next_steps_name_the_commands_and_the_install() {
        let args = "--git https://example.org/gpuzzle --rev 1a2b3c4 gpuzzle";
        let said = next_steps(Ci::Classroom50, Some(args));
        assert!(said.contains(
            "gh teacher autograder set-default ORG CLASSROOM --from classroom50/autograder.py"
        ));
        assert!(said.contains("--runtime classroom50/runtime.json"));
        assert!(said.contains(args) && said.contains("nvidia-cuda-nvcc-cu12"));
        assert!(next_steps(Ci::Classroom, None).contains("sunset"));
    }
}
