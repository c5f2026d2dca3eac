//! The Python wheel's definition (`pyproject.toml`) and the release workflow agree with the
//! crate: one binary named `gpuzzle`, its version from Cargo.toml, NVIDIA's wheels as the
//! dependencies the README and `.ci/run` install. (Building a wheel needs maturin and a
//! release build, minutes: it is done by the release workflow, not here.)

use std::path::Path;

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_wheel_is_the_binary_with_nvidias_compiler_as_dependencies() {
    let py: toml::Table = toml::from_str(&repo_file("pyproject.toml")).unwrap();
    assert_eq!(
        py["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
    let project = &py["project"];
    assert_eq!(project["name"].as_str(), Some("gpuzzle"));
    // The version is Cargo's, so the wheel and `gpuzzle --version` never disagree.
    let dynamic: Vec<&str> = (project["dynamic"].as_array().unwrap().iter())
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(dynamic, ["version"]);
    assert!(project.get("version").is_none());
    assert_eq!(py["tool"]["maturin"]["bindings"].as_str(), Some("bin"));
    let deps: Vec<&str> = (project["dependencies"].as_array().unwrap().iter())
        .filter_map(|v| v.as_str())
        .collect();
    let readme = repo_file("README.md");
    let ci = repo_file(".ci/run");
    for dep in &deps {
        assert!(
            readme.contains(dep),
            "{dep} is not in the README's install line"
        );
        assert!(ci.contains(dep), "{dep} is not installed by .ci/run");
    }
    assert!(deps.contains(&"nvidia-cuda-nvrtc-cu12"), "{deps:?}");
}

#[test]
fn the_release_workflow_builds_and_publishes_the_wheels() {
    let yaml = repo_file(".github/workflows/release.yml");
    for needed in [
        "tags: [\"v*\"]",
        "uses: PyO3/maturin-action@v1",
        "command: sdist",
        "uses: pypa/gh-action-pypi-publish@release/v1",
        "id-token: write",
        "gh release create",
    ] {
        assert!(yaml.contains(needed), "missing {needed:?}");
    }
}
