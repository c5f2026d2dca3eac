//! The puzzle file as written: serde structs that mirror the TOML, with spans kept for error
//! lines. `parse` checks them and turns them into `model` types. Unknown fields are rejected
//! everywhere, so a misspelt key is an error, not a silently ignored setting.
//! CONTRIBUTING.md documents these fields one by one; keep the two in step.

use crate::judge::outcome::Budget;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPuzzle {
    pub id: Spanned<u32>,
    pub slug: Spanned<String>,
    pub title: Spanned<String>,
    pub part: Spanned<String>,
    pub kernel: Spanned<String>,
    /// `"name"` or `"name: type"`, in kernel order.
    pub params: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub defines: BTreeMap<String, Spanned<toml::Value>>,
    pub description: Spanned<String>,
    pub spec: Spanned<String>,
    #[serde(default)]
    pub hints: Vec<Spanned<String>>,
    #[serde(default)]
    pub budget: Option<Spanned<Budget>>,
    #[serde(default)]
    pub tolerance: Option<Spanned<RawTolerance>>,
    /// `[[test]]` tables. Optional here so that a file without any gets a helpful message.
    #[serde(rename = "test", default)]
    pub tests: Option<Spanned<Vec<Spanned<RawTest>>>>,
    #[serde(default)]
    pub bench: Option<Spanned<RawTest>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTolerance {
    #[serde(default)]
    pub abs: f64,
    #[serde(default)]
    pub rel: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTest {
    #[serde(default)]
    pub name: Option<Spanned<String>>,
    pub grid: Spanned<Vec<u32>>,
    pub block: Spanned<Vec<u32>>,
    #[serde(default)]
    pub shared_bytes: u32,
    #[serde(default)]
    pub scalars: BTreeMap<String, Spanned<f64>>,
    #[serde(default)]
    pub buffers: BTreeMap<String, Spanned<RawBuffer>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBuffer {
    #[serde(rename = "type", default)]
    pub ty: Option<Spanned<String>>,
    #[serde(default)]
    pub len: Option<Spanned<usize>>,
    #[serde(default)]
    pub shape: Option<Spanned<Vec<usize>>>,
    #[serde(default)]
    pub init: Option<Spanned<String>>,
    #[serde(default)]
    pub fill: Option<Spanned<f64>>,
    #[serde(default)]
    pub values: Option<Spanned<Vec<f64>>>,
    #[serde(default)]
    pub seed: Option<Spanned<u64>>,
    #[serde(default)]
    pub output: bool,
    #[serde(default)]
    pub fixed: bool,
}
