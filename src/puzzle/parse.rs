//! From TOML text to a checked `Puzzle`. Every mistake becomes a `PuzzleError` naming the file,
//! the line and the field, with a fix; independent mistakes in one file are all reported.

use super::error::{line_of, PuzzleError};
use super::generators::Generator;
use super::limits::{Budget, Minimum, ScaledMinima};
use super::model::{
    BenchFlops, BufferSpec, Init, Mistake, MistakeKind, Param, ParamKind, Puzzle, Teach, TestCase,
    Tolerance, Unseen, WrongElements, SPEC_KERNEL,
};
use super::schema::{RawBuffer, RawPuzzle, RawTest};
use crate::emu::result::Counters;
use crate::emu::value::ElemType;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use toml::Spanned;

/// A parsed puzzle plus the lines a directory-level check (duplicates, missing starter) points at.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub puzzle: Puzzle,
    pub id_line: usize,
    pub slug_line: usize,
    pub kernel_line: usize,
}

/// Most elements in one buffer, as `gpuzzle exec` allows (`emu::spec`): a typo such as
/// `len = 10000000000` is an error at its line, not an allocation failure.
pub(super) const MAX_BUFFER_LEN: usize = 1 << 28;

pub(super) const TYPE_HELP: &str = "use one of f32 (float), f64 (double), i32 (int), i64 (long long), u32 (unsigned int), u64, i8, i16, u8, u16";
const FORMAT_HELP: &str = "docs/puzzle-format.md documents every field of a puzzle file";

/// Where we are: the file and its text, to turn spans into lines.
pub(super) struct Ctx<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Ctx<'_> {
    fn line(&self, span: &Range<usize>) -> usize {
        line_of(self.text, span.start)
    }

    pub(super) fn err(
        &self,
        span: &Range<usize>,
        field: impl Into<String>,
        problem: impl Into<String>,
        help: impl Into<String>,
    ) -> PuzzleError {
        PuzzleError::invalid(self.path, Some(self.line(span)), field, problem, help)
    }

    /// A TOML syntax error or a serde mismatch (unknown field, missing field, wrong type), at
    /// the line of the key it is about, in the words of the puzzle format (`a whole number`,
    /// not `usize`), with the nearest allowed name for a misspelt field.
    fn toml_error(&self, e: &toml::de::Error) -> PuzzleError {
        let span = e.span().unwrap_or(0..0);
        let msg = e.message().trim().to_string();
        let prefix = self.table_prefix(span.start);
        let (field, problem, help) = if let Some(name) = backticked_after(&msg, "unknown field") {
            let allowed = backticked_list(&msg);
            let problem = match super::error::closest(&name, &allowed) {
                Some(near) => format!("unknown field `{name}`; did you mean `{near}`?"),
                None => format!("unknown field `{name}`"),
            };
            let help = if allowed.is_empty() {
                "remove it or fix its spelling".to_string()
            } else {
                format!(
                    "remove it or fix its spelling; the fields allowed here: {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            (self.field_at(span.start, &name), problem, help)
        } else if let Some(name) = backticked_after(&msg, "missing field") {
            (
                format!("{prefix}{name}"),
                format!("missing field `{name}`"),
                format!("add `{name} = ...` here; {FORMAT_HELP}"),
            )
        } else if msg.contains("expected one of `f32`") || msg.contains("unknown variant") {
            (self.key_at(span.start), msg, TYPE_HELP.to_string())
        } else if let Some(problem) = schema_words(&msg) {
            (
                self.value_key_at(span.start),
                problem,
                format!("give this field a value of the expected kind; {FORMAT_HELP}"),
            )
        } else {
            (
                "(TOML syntax)".to_string(),
                msg,
                "fix the TOML at this line: strings need quotes, multi-line text goes in \"\"\" or ''' and tests start with [[test]]".to_string(),
            )
        };
        PuzzleError::invalid(self.path, Some(self.line(&span)), field, problem, help)
    }

    /// The table a position lies in, as a field path prefix: `test[1].`, `bench.`,
    /// `kernels[0].`, `budget.`; "" at the top level.
    fn table_prefix(&self, offset: usize) -> String {
        let before = &self.text[..offset.min(self.text.len())];
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut current = String::new();
        // Include the line that starts at `offset` (a missing-field span is the table header).
        let upto = self.text[before.len()..]
            .find('\n')
            .map_or(self.text.len(), |n| before.len() + n);
        for line in self.text[..upto].lines() {
            let t = line.trim();
            if let Some(name) = t.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
                let name = name.trim().to_string();
                let k = counts.entry(name.clone()).or_insert(0);
                current = format!("{name}[{k}].");
                *k += 1;
            } else if let Some(name) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
                current = format!("{}.", name.trim());
            }
        }
        current
    }

    /// The key written on the line of `offset` (`id`, `buffers.a`), with its table prefix.
    fn key_at(&self, offset: usize) -> String {
        format!("{}{}", self.table_prefix(offset), self.line_key(offset))
    }

    /// The full path of field `name` found at `offset`: inside an inline table
    /// (`buffers.a = { outptu = true }`) the line's key comes before it.
    fn field_at(&self, offset: usize, name: &str) -> String {
        let key = self.line_key(offset);
        if key.is_empty() || key == name || key.starts_with('[') {
            format!("{}{name}", self.table_prefix(offset))
        } else {
            format!("{}{key}.{name}", self.table_prefix(offset))
        }
    }

    /// The key of the value at `offset`: inside an inline table (`buffers.out = { len = 4.5 }`)
    /// the inner key joins the line's (`buffers.out.len`).
    fn value_key_at(&self, offset: usize) -> String {
        let offset = offset.min(self.text.len());
        let start = self.text[..offset].rfind('\n').map_or(0, |n| n + 1);
        let inner = self.text[start..offset]
            .rsplit_once('=')
            .map(|(k, _)| k.rsplit(['{', ',']).next().unwrap_or(k).trim())
            .unwrap_or("");
        let key = self.line_key(offset);
        if inner.is_empty() || inner == key {
            self.key_at(offset)
        } else {
            format!("{}{key}.{inner}", self.table_prefix(offset))
        }
    }

    /// The key before `=` on the line of `offset`.
    fn line_key(&self, offset: usize) -> &str {
        let start = self.text[..offset.min(self.text.len())]
            .rfind('\n')
            .map_or(0, |n| n + 1);
        let line = self.text[start..].lines().next().unwrap_or("");
        match line.split_once('=') {
            Some((key, _)) => key.trim(),
            None => "",
        }
    }
}

/// Every `backticked` word after `expected` in a serde message (the allowed field names).
fn backticked_list(msg: &str) -> Vec<String> {
    let Some((_, rest)) = msg.split_once("expected") else {
        return Vec::new();
    };
    rest.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// serde's `invalid type: string "three", expected u32` in the puzzle format's words:
/// `expected a whole number (0 or more), found the string "three"`.
fn schema_words(msg: &str) -> Option<String> {
    let rest = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let expected = match expected.trim() {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)".to_string(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a sequence" => "an array, e.g. [8] or [4, 4]".to_string(),
        "a map" => "a table, e.g. { len = 8 }".to_string(),
        other if other.starts_with("struct ") => "a table, e.g. { len = 8 }".to_string(),
        other => other.to_string(),
    };
    let found = found
        .replace("floating point", "the number")
        .replace("integer", "the number")
        .replace("string", "the string")
        .replace("sequence", "an array")
        .replace("map", "a table")
        .replace("boolean", "the value");
    Some(format!("expected {expected}, found {found}"))
}

/// The first `backticked` word of a message that starts with `lead`.
fn backticked_after(msg: &str, lead: &str) -> Option<String> {
    let rest = msg.strip_prefix(lead)?;
    let start = rest.find('`')? + 1;
    let len = rest[start..].find('`')?;
    Some(rest[start..start + len].to_string())
}

pub(crate) fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The 1-based line where the first line of a string value's content sits: a multi-line
/// string's content starts on the next line when the opening quotes end their line.
fn content_line(text: &str, span: &Range<usize>) -> usize {
    let line = line_of(text, span.start);
    let rest = text.get(span.start..).unwrap_or("");
    for q in ["\"\"\"", "'''"] {
        if let Some(after) = rest.strip_prefix(q) {
            if after.starts_with('\n') || after.starts_with("\r\n") {
                return line + 1;
            }
        }
    }
    line
}

/// A declared parameter: `"name"` or `"name: type"`.
pub(super) struct Decl {
    pub name: String,
    pub ty: Option<ElemType>,
}

/// What the tests say a parameter is (from the first test that has it).
#[derive(Clone, Copy, PartialEq)]
enum Seen {
    Buffer { ty: ElemType, output: bool },
    Scalar,
}

/// Parse and check one puzzle file. `path` names it in errors and becomes `toml_path`.
pub(crate) fn parse_puzzle(text: &str, path: &Path) -> Result<Parsed, PuzzleError> {
    let cx = Ctx { text, path };
    let raw: RawPuzzle = toml::from_str(text).map_err(|e| cx.toml_error(&e))?;
    let mut errs = Vec::new();

    if *raw.id.get_ref() == 0 {
        errs.push(cx.err(
            &raw.id.span(),
            "id",
            "puzzle ids start at 1",
            "use the puzzle's number in the course: 1, 2, 3, ...",
        ));
    }
    if !is_slug(raw.slug.get_ref()) {
        errs.push(cx.err(
            &raw.slug.span(),
            "slug",
            format!("`{}` is not a valid slug", raw.slug.get_ref()),
            "use lowercase letters, digits and single hyphens, like \"dot-product\"",
        ));
    }
    for (field, value) in [
        ("title", &raw.title),
        ("part", &raw.part),
        ("description", &raw.description),
        ("spec", &raw.spec),
    ] {
        if value.get_ref().trim().is_empty() {
            errs.push(cx.err(
                &value.span(),
                field,
                "is empty",
                format!("write the puzzle's {field}; {FORMAT_HELP}"),
            ));
        }
    }
    let multi = !raw.kernels.is_empty() || !raw.launches.is_empty();
    let (kernel, kernel_span) = kernel_name(&cx, &raw, multi, &mut errs);
    for (i, hint) in raw.hints.iter().enumerate() {
        if hint.get_ref().trim().is_empty() {
            errs.push(cx.err(
                &hint.span(),
                format!("hints[{i}]"),
                "is empty",
                "write the hint or remove it",
            ));
        }
    }

    let mistakes = parse_mistakes(&cx, &raw, &mut errs);
    let defines = parse_defines(&cx, &raw, &mut errs);
    let include_dirs = parse_include_dirs(&cx, &raw, &mut errs);
    let tolerance = match &raw.tolerance {
        None => Tolerance::default(),
        Some(t) => {
            let tol = Tolerance {
                abs: t.get_ref().abs,
                rel: t.get_ref().rel,
            };
            if !(tol.abs.is_finite() && tol.abs >= 0.0 && tol.rel.is_finite() && tol.rel >= 0.0) {
                errs.push(cx.err(
                    &t.span(),
                    "tolerance",
                    "abs and rel must be finite and not negative",
                    "use e.g. tolerance = { abs = 0.0, rel = 1e-5 }; leave it out for exact comparison",
                ));
            }
            tol
        }
    };

    let decls = parse_params(&cx, &raw, &mut errs);

    let mut tests = Vec::new();
    match &raw.tests {
        Some(ts) if !ts.get_ref().is_empty() => {
            let mut names = BTreeSet::new();
            for (i, t) in ts.get_ref().iter().enumerate() {
                let field = format!("test[{i}]");
                let defines =
                    test_defines(&cx, &t.get_ref().defines, &field, &raw.defines, &mut errs);
                if let Some(mut tc) = parse_test(&cx, t, &field, &decls, multi, false, &mut errs) {
                    tc.defines = defines;
                    if !names.insert(tc.name.clone()) {
                        errs.push(cx.err(
                            &t.span(),
                            format!("test[{i}].name"),
                            format!("another test is already called \"{}\"", tc.name),
                            "give every test its own name",
                        ));
                    }
                    tests.push((t.span(), format!("test[{i}]"), tc));
                }
            }
        }
        _ => errs.push(cx.err(
            &(0..0),
            "test",
            "the puzzle has no tests",
            "add at least one [[test]] table with name, grid, block, scalars and buffers",
        )),
    }
    let bench = raw.bench.as_ref().and_then(|b| {
        if multi {
            errs.push(cx.err(
                &b.span(),
                "bench",
                "`gpuzzle bench` times one launch; this puzzle has several",
                "remove [bench] from a multi-launch puzzle",
            ));
            return None;
        }
        let defines = test_defines(&cx, &b.get_ref().defines, "bench", &raw.defines, &mut errs);
        parse_test(&cx, b, "bench", &decls, false, true, &mut errs)
            .map(|tc| (b.span(), TestCase { defines, ..tc }))
    });
    let bench_flops = bench_flops(&cx, &raw, bench.as_ref().map(|(_, t)| t), &mut errs);
    let mut unseen = parse_unseen(&cx, &raw, &defines, &decls, multi, &mut errs);
    let teaches = parse_teaches(&cx, &raw, &mut errs);
    let points = parse_points(&cx, &raw, &mut errs);
    let step_limit = parse_step_limit(&cx, &raw, &mut errs);
    let arch = parse_arch(&cx, &raw, &mut errs);

    let mut budget = raw
        .budget
        .as_ref()
        .map(|b| *b.get_ref())
        .unwrap_or_default();
    let forbidden = parse_forbid(&cx, &raw, &mut errs);
    forbid(&mut budget, forbidden);
    let technique = parse_technique(&cx, &raw, &mut errs);
    let block_budget = (raw.block_budget.as_ref()).map_or_else(Default::default, |b| *b.get_ref());
    let require = (raw.require.as_ref()).map_or_else(Default::default, |b| b.get_ref().fixed);
    let require_scaled = parse_require_scaled(&cx, &raw, multi, &mut errs);
    let warp_require = parse_warp_require(&cx, &raw, &mut errs);
    let mut kernels = Vec::new();
    let params = if errs.is_empty() {
        let mut all: Vec<(Range<usize>, &str, &TestCase)> = tests
            .iter()
            .map(|(s, f, t)| (s.clone(), f.as_str(), t))
            .collect();
        // The unseen test right after the tests (the multi-launch shapes come back in order).
        if let Some((s, u)) = &unseen {
            all.push((s.clone(), "unseen", &u.test));
        }
        if let Some((s, t)) = &bench {
            all.push((s.clone(), "bench", t));
        }
        let params = resolve_params(&cx, &decls, &all, &mut errs);
        let top = super::launches::TopLimits {
            budget,
            block_budget,
            require,
        };
        if multi && errs.is_empty() {
            let m =
                super::launches::parse_multi(&cx, &raw, &params, &all, top, &defines, &mut errs);
            if let Some(m) = m {
                let unseen_test = unseen.as_mut().map(|(_, u)| &mut u.test);
                let shaped = tests.iter_mut().map(|(_, _, t)| t).chain(unseen_test);
                for (t, (scratch, launches)) in shaped.zip(m.per_test) {
                    t.scratch = scratch;
                    if let Some(first) = launches.first() {
                        (t.grid, t.block, t.shared_bytes) =
                            (first.grid, first.block, first.shared_bytes);
                    }
                    t.launches = launches;
                }
                kernels = m.kernels;
                for k in &mut kernels {
                    forbid(&mut k.budget, forbidden);
                }
            }
        }
        params
    } else {
        Vec::new()
    };
    PuzzleError::collect(errs)?;
    let kernel = match (multi, kernels.first()) {
        (true, Some(k)) => k.name.clone(),
        _ => kernel,
    };

    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let puzzle = Puzzle {
        id: *raw.id.get_ref(),
        slug: raw.slug.get_ref().clone(),
        title: raw.title.get_ref().trim().to_string(),
        part: raw.part.get_ref().trim().to_string(),
        kernel,
        params,
        kernels,
        defines,
        include_dirs,
        description: raw.description.get_ref().trim_end().to_string(),
        spec: raw.spec.get_ref().clone(),
        spec_line: content_line(text, &raw.spec.span()),
        hints: raw.hints.iter().map(|h| h.get_ref().clone()).collect(),
        mistakes,
        budget,
        block_budget,
        require,
        tolerance,
        tests: tests.into_iter().map(|(_, _, t)| t).collect(),
        bench: bench.map(|(_, t)| t),
        bench_flops,
        toml_path: path.to_path_buf(),
        kernel_file: format!("{stem}.cu"),
        unseen: unseen.map(|(_, u)| u),
        teaches,
        points,
        step_limit,
        cooperative: raw.cooperative.as_ref().is_some_and(|c| *c.get_ref()),
        arch,
        technique,
        warp_require,
        require_scaled,
    };
    check_warp_minima(&cx, &raw, &puzzle)?;
    Ok(Parsed {
        puzzle,
        id_line: cx.line(&raw.id.span()),
        slug_line: cx.line(&raw.slug.span()),
        kernel_line: cx.line(&kernel_span),
    })
}

/// The single kernel's name (`kernel = "..."`), or for a multi-launch puzzle the first of
/// `[[kernels]]`; with the span a directory-level check points at.
fn kernel_name(
    cx: &Ctx,
    raw: &RawPuzzle,
    multi: bool,
    errs: &mut Vec<PuzzleError>,
) -> (String, Range<usize>) {
    match (&raw.kernel, multi) {
        (Some(k), true) => {
            errs.push(cx.err(
                &k.span(),
                "kernel",
                "`kernel` names the one kernel of a single-launch puzzle, but this file has [[kernels]] or [[launch]]",
                "remove `kernel = ...` and list every kernel as a [[kernels]] table (name, params)",
            ));
            (k.get_ref().clone(), k.span())
        }
        (Some(k), false) => {
            let name = k.get_ref();
            if !is_c_identifier(name) || name == SPEC_KERNEL {
                errs.push(cx.err(
                    &k.span(),
                    "kernel",
                    format!("`{name}` cannot be the kernel's name"),
                    format!("give the name of the `extern \"C\" __global__` function in the .cu file: letters, digits and _ (not `{SPEC_KERNEL}`, which gpuzzle uses for the spec)"),
                ));
            }
            if !raw.scratch.is_empty() {
                errs.push(cx.err(
                    &k.span(),
                    "scratch",
                    "[scratch] buffers are shared between launches, and this puzzle has one",
                    "make the buffer a test buffer, or list the kernels as [[kernels]] with [[launch]] tables",
                ));
            }
            (name.clone(), k.span())
        }
        (None, true) => match raw.kernels.first() {
            Some(k) => (k.get_ref().name.get_ref().clone(), k.span()),
            None => {
                errs.push(cx.err(
                    &(0..0),
                    "kernels",
                    "the puzzle has [[launch]] tables but no [[kernels]]",
                    "declare each kernel the launches use as a [[kernels]] table (name, params)",
                ));
                (String::new(), 0..0)
            }
        },
        (None, false) => {
            errs.push(cx.err(
                &(0..0),
                "kernel",
                "missing field `kernel`",
                format!("add `kernel = ...` with the name of the `extern \"C\" __global__` function the learner writes (or [[kernels]] and [[launch]] tables for several); {FORMAT_HELP}"),
            ));
            (String::new(), 0..0)
        }
    }
}

/// `[[mistake]]` tables: a known `kind`, a `line` only where a diagnostic has a line, a hint.
fn parse_mistakes(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> Vec<Mistake> {
    let mut out = Vec::new();
    for (i, m) in raw.mistakes.iter().enumerate() {
        let m = m.get_ref();
        let field = |f: &str| format!("mistake[{i}].{f}");
        let before = errs.len();
        let written = m.kind.get_ref().trim();
        let kind = MistakeKind::from_name(written);
        if kind.is_none() {
            let valid = MistakeKind::valid_names();
            let problem = match super::error::closest(written, &valid) {
                Some(near) => format!("unknown kind `{written}`; did you mean `{near}`?"),
                None => format!("unknown kind `{written}`"),
            };
            errs.push(cx.err(
                &m.kind.span(),
                field("kind"),
                problem,
                format!("use one of: {}", valid.join(", ")),
            ));
        }
        let line = m
            .line
            .as_ref()
            .map(|l| (l.span(), l.get_ref().trim().to_string()));
        if let Some((span, text)) = &line {
            if text.is_empty() {
                errs.push(cx.err(
                    span,
                    field("line"),
                    "is empty",
                    "give text the diagnostic's source line contains, e.g. line = \"+=\", or remove `line` to match any line",
                ));
            } else if matches!(kind, Some(k) if !matches!(k, MistakeKind::Diag(_))) {
                errs.push(cx.err(
                    span,
                    field("line"),
                    format!("`{written}` has no source line to match"),
                    "remove `line`: only a diagnostic kind (shared-race, out-of-bounds, ...) is reported at a line",
                ));
            }
        }
        let wrong = m.wrong.as_ref().and_then(|w| {
            let text = w.get_ref().trim();
            let parsed = WrongElements::from_name(text);
            if parsed.is_none() {
                errs.push(cx.err(
                    &w.span(),
                    field("wrong"),
                    format!("unknown value `{text}`"),
                    format!("use one of: {}", WrongElements::NAMES.join(", ")),
                ));
            } else if matches!(kind, Some(k) if k != MistakeKind::WrongOutput) {
                errs.push(cx.err(
                    &w.span(),
                    field("wrong"),
                    format!("`{written}` has no wrong elements to match"),
                    "remove `wrong`: only a `wrong-output` mistake is about which elements are wrong",
                ));
            }
            parsed
        });
        if m.hint.get_ref().trim().is_empty() {
            errs.push(cx.err(
                &m.hint.span(),
                field("hint"),
                "is empty",
                "write the hint: what this mistake is and how to fix it",
            ));
        }
        if let (Some(kind), true) = (kind, errs.len() == before) {
            out.push(Mistake {
                kind,
                line: line.map(|(_, t)| t),
                wrong,
                hint: m.hint.get_ref().trim().to_string(),
            });
        }
    }
    out
}

/// `[unseen]`: drawn into a plain test (`unseen::concretize`) and checked like the others.
fn parse_unseen(
    cx: &Ctx,
    raw: &RawPuzzle,
    defines: &[(String, Option<String>)],
    decls: &[Decl],
    multi: bool,
    errs: &mut Vec<PuzzleError>,
) -> Option<(Range<usize>, Unseen)> {
    let u = raw.unseen.as_ref()?;
    let own = parse_define_table(cx, &u.get_ref().defines, "unseen.defines", errs);
    let mut vars = super::launches::numeric_defines(defines);
    vars.extend(super::launches::numeric_defines(&own));
    let is_float = |name: &str| {
        decls
            .iter()
            .any(|d| d.name == name && d.ty.is_some_and(|t| t.is_float()))
    };
    let c = super::unseen::concretize(
        cx,
        u,
        *raw.id.get_ref(),
        raw.slug.get_ref(),
        &vars,
        &is_float,
        multi,
        errs,
    )?;
    let mut test = parse_test(cx, &c.test, "unseen", decls, multi, false, errs)?;
    // Compiled like a test's own defines (`Puzzle::defines_for`).
    test.defines = own.clone();
    Some((
        u.span(),
        Unseen {
            test,
            drawn: c.drawn,
            defines: own,
        },
    ))
}

/// `points = N`: what the puzzle is worth in `check --format classroom`; 1 when absent.
fn parse_points(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> u32 {
    let Some(p) = &raw.points else { return 1 };
    let n = *p.get_ref();
    if n > super::model::MAX_POINTS {
        errs.push(cx.err(
            &p.span(),
            "points",
            format!("{n} is more than {}", super::model::MAX_POINTS),
            format!(
                "give what the puzzle is worth in the classroom grade, 0 to {}; leave it out for 1",
                super::model::MAX_POINTS
            ),
        ));
        return 1;
    }
    n
}

/// `forbid = [...]`: counter names, as a bit set over `Counters::NAMES`.
fn parse_forbid(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> u32 {
    let Some(list) = &raw.forbid else { return 0 };
    let mut bits = 0u32;
    for name in list.get_ref() {
        match Counters::index(name.get_ref()) {
            Some(i)
                if raw
                    .budget
                    .as_ref()
                    .and_then(|b| b.get_ref().get(i))
                    .is_some() =>
            {
                errs.push(cx.err(
                    &name.span(),
                    "forbid",
                    format!("`{}` is also in `budget`", name.get_ref()),
                    "a forbidden counter's budget is 0: keep it in one of the two",
                ))
            }
            Some(i) => bits |= 1 << i,
            None => errs.push(cx.err(
                &name.span(),
                "forbid",
                format!("`{}` is not a counter", name.get_ref()),
                format!("name one of: {}", Counters::NAMES.join(", ")),
            )),
        }
    }
    bits
}

/// `warp_require = { mma = "K / 16 * 32", ldmatrix = 64 }`: each key a counter, each value a
/// whole number or an expression over the test's scalars (checked per test once the tests
/// are read: `check_warp_minima`).
fn parse_warp_require(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> ScaledMinima {
    let mut out = ScaledMinima::default();
    let Some(table) = &raw.warp_require else {
        return out;
    };
    for (name, value) in table.get_ref() {
        let field = format!("warp_require.{name}");
        let Some(i) = Counters::index(name) else {
            errs.push(cx.err(
                &table.span(),
                field,
                format!("`{name}` is not a counter"),
                format!("name one of: {}", Counters::NAMES.join(", ")),
            ));
            continue;
        };
        let min = match value {
            toml::Value::Integer(v) if *v >= 0 => Minimum::Fixed(*v as u64),
            toml::Value::String(e) if !e.trim().is_empty() => Minimum::Expr(e.trim().to_string()),
            other => {
                errs.push(cx.err(
                    &table.span(),
                    field,
                    format!("`{other}` is not a minimum"),
                    "write a whole number of 0 or more, or arithmetic over the test's scalars in quotes (\"K / 16 * 32\": a warp-wide instruction counts once per lane, 32 for the warp)",
                ));
                continue;
            }
        };
        out.minima.push((i, min));
    }
    out
}

/// Every test's `warp_require` minima can be computed (an expression names only the test's
/// scalars and numeric defines, and is not negative), so judging never meets a bad one.
fn check_warp_minima(cx: &Ctx, raw: &RawPuzzle, p: &Puzzle) -> Result<(), PuzzleError> {
    let spans = [
        ("warp_require", raw.warp_require.as_ref().map(|t| t.span())),
        ("require", raw.require.as_ref().map(|t| t.span())),
    ];
    for (table, span) in spans {
        let Some(span) = span else {
            continue;
        };
        let tests = p.tests.iter().chain(p.unseen.iter().map(|u| &u.test));
        for t in tests.chain(p.bench.iter()) {
            let worked = match table {
                "warp_require" => p.warp_minima(t),
                _ => p.require_minima(t),
            };
            if let Err(why) = worked {
                return Err(cx.err(
                    &span,
                    table,
                    format!("{why} (in the test \"{}\")", t.name),
                    "use the test's scalars and numeric defines, with whole-number arithmetic that stays at 0 or more",
                ));
            }
        }
    }
    Ok(())
}

/// The expressions of `require` (`require = { cp_async = "K / 16 * 128" }`): a single-launch
/// puzzle's only; a multi-launch puzzle's kernels each take the whole numbers.
fn parse_require_scaled(
    cx: &Ctx,
    raw: &RawPuzzle,
    multi: bool,
    errs: &mut Vec<PuzzleError>,
) -> ScaledMinima {
    let Some(r) = &raw.require else {
        return ScaledMinima::default();
    };
    if multi && !r.get_ref().scaled.is_empty() {
        errs.push(cx.err(
            &r.span(),
            "require",
            "an expression in `require` is for single-launch puzzles",
            "give each kernel's minimum as a whole number, in its `[[kernels]]` table",
        ));
        return ScaledMinima::default();
    }
    ScaledMinima {
        minima: (r.get_ref().scaled.iter())
            .map(|(i, e)| (*i, Minimum::Expr(e.clone())))
            .collect(),
    }
}

/// A budget of 0 for each counter in `forbidden`, marked as forbidden.
fn forbid(budget: &mut Budget, forbidden: u32) {
    for i in (0..Counters::N).filter(|&i| forbidden & (1 << i) != 0) {
        if let Some(slot) = budget.slot(i) {
            *slot = Some(0);
        }
    }
    budget.forbidden |= forbidden;
}

/// `[technique]`: a name, at least one counter (each a counter name), what the budget is for.
fn parse_technique(
    cx: &Ctx,
    raw: &RawPuzzle,
    errs: &mut Vec<PuzzleError>,
) -> Option<super::limits::Technique> {
    let t = raw.technique.as_ref()?.get_ref();
    let name = t.name.get_ref().trim().to_string();
    if name.is_empty() {
        errs.push(cx.err(
            &t.name.span(),
            "technique.name",
            "is empty",
            "say what the puzzle teaches as a message would name it: name = \"`__dp4a`\"",
        ));
    }
    let mut counters = Vec::new();
    for c in t.counters.get_ref() {
        match Counters::index(c.get_ref()) {
            Some(i) => counters.push(i),
            None => errs.push(cx.err(
                &c.span(),
                "technique.counters",
                format!("`{}` is not a counter", c.get_ref()),
                format!("name one of: {}", Counters::NAMES.join(", ")),
            )),
        }
    }
    if t.counters.get_ref().is_empty() {
        errs.push(cx.err(
            &t.counters.span(),
            "technique.counters",
            "is empty",
            "name the counters that show a kernel uses the technique (counters = [\"dp4a\"]), and require them",
        ));
    }
    Some(super::limits::Technique {
        name,
        counters,
        budget_for: t
            .budget_for
            .as_ref()
            .map(|b| b.get_ref().trim().to_string()),
    })
}

/// `step_limit = N`: between a million (less would stop correct kernels of any size) and ten
/// billion (more would let a loop that never ends run for minutes).
fn parse_step_limit(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> Option<u64> {
    let s = raw.step_limit.as_ref()?;
    let n = *s.get_ref();
    if !(1_000_000..=10_000_000_000).contains(&n) {
        errs.push(cx.err(
            &s.span(),
            "step_limit",
            format!("{n} is outside 1_000_000 to 10_000_000_000"),
            "give the thread-instructions the largest test needs, with room to spare (the default is 20_000_000); leave it out for the default",
        ));
        return None;
    }
    Some(n)
}

/// `arch = "sm_90"`: a target gpuzzle compiles for.
fn parse_arch(
    cx: &Ctx,
    raw: &RawPuzzle,
    errs: &mut Vec<PuzzleError>,
) -> Option<crate::compile::Arch> {
    let a = raw.arch.as_ref()?;
    let arch = crate::compile::Arch::parse(a.get_ref());
    if arch.is_none() {
        errs.push(cx.err(
            &a.span(),
            "arch",
            format!("`{}` is not a target gpuzzle compiles for", a.get_ref()),
            format!(
                "give {}, or leave `arch` out for sm_80",
                crate::compile::ARCH_NAMES
            ),
        ));
    }
    arch
}

/// `teaches = ["bounds", ...]`: known tags, each once.
fn parse_teaches(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> Vec<Teach> {
    let Some(list) = &raw.teaches else {
        return Vec::new();
    };
    let valid: Vec<String> = Teach::ALL.iter().map(|t| t.name().to_string()).collect();
    let mut out = Vec::new();
    for (i, tag) in list.get_ref().iter().enumerate() {
        let written = tag.get_ref().trim();
        match Teach::from_name(written) {
            Some(t) if out.contains(&t) => errs.push(cx.err(
                &tag.span(),
                format!("teaches[{i}]"),
                format!("`{written}` is listed twice"),
                "list each tag once",
            )),
            Some(t) => out.push(t),
            None => {
                let problem = match super::error::closest(written, &valid) {
                    Some(near) => format!("unknown tag `{written}`; did you mean `{near}`?"),
                    None => format!("unknown tag `{written}`"),
                };
                errs.push(cx.err(
                    &tag.span(),
                    format!("teaches[{i}]"),
                    problem,
                    format!(
                        "use {} (docs/classroom.md says what `gpuzzle lint` checks for each)",
                        valid.join(", ")
                    ),
                ));
            }
        }
    }
    out
}

/// `include_dirs = ["include"]`: each folder resolved against the puzzle file's folder, and
/// there (a missing folder would only show up as NVRTC's "cannot open source file").
fn parse_include_dirs(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> Vec<PathBuf> {
    let Some(dirs) = &raw.include_dirs else {
        return Vec::new();
    };
    let base = cx.path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for (i, dir) in dirs.get_ref().iter().enumerate() {
        let written = dir.get_ref();
        let resolved = base.join(written);
        if written.trim().is_empty() || !resolved.is_dir() {
            errs.push(cx.err(
                &dir.span(),
                format!("include_dirs[{i}]"),
                format!("the folder \"{written}\" does not exist (looked for {})", resolved.display()),
                "give a folder relative to this puzzle file's folder (where its .cu is), e.g. include_dirs = [\"include\"], or create it",
            ));
            continue;
        }
        out.push(resolved);
    }
    out
}

fn parse_defines(
    cx: &Ctx,
    raw: &RawPuzzle,
    errs: &mut Vec<PuzzleError>,
) -> Vec<(String, Option<String>)> {
    parse_define_table(cx, &raw.defines, "defines", errs)
}

/// A table of defines (top level, a test's, `unseen.defines`), sorted by name: a number or
/// string is `-DNAME=VALUE`, `true` a bare `-DNAME`; anything else is an error at its line.
pub(super) fn parse_define_table(
    cx: &Ctx,
    table: &BTreeMap<String, Spanned<toml::Value>>,
    prefix: &str,
    errs: &mut Vec<PuzzleError>,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (name, value) in table {
        let field = format!("{prefix}.{name}");
        if !is_c_identifier(name) {
            errs.push(cx.err(
                &value.span(),
                &field,
                format!("`{name}` is not a valid macro name"),
                "use letters, digits and _, starting with a letter: TPB, MAX_CONV",
            ));
            continue;
        }
        let v = match value.get_ref() {
            toml::Value::Integer(i) => Some(i.to_string()),
            toml::Value::Float(f) => Some(format!("{f:?}")),
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Boolean(true) => None,
            _ => {
                errs.push(cx.err(
                    &value.span(),
                    &field,
                    "a define must be a number, a string or `true`",
                    "write e.g. TPB = 8, EXPR = \"(TPB + 4)\", or DEBUG = true for a bare -DDEBUG",
                ));
                continue;
            }
        };
        out.push((name.clone(), v));
    }
    out
}

/// The define of `known` a misspelt `name` most likely means: near in spelling (case aside), or
/// the same letters in another order (`TBP` for `TPB`).
fn nearest_define<'a>(name: &str, known: &'a [String]) -> Option<&'a str> {
    let lower: Vec<String> = known.iter().map(|k| k.to_lowercase()).collect();
    if let Some(near) = super::error::closest(name, &lower) {
        let at = lower.iter().position(|l| l == near)?;
        return known.get(at).map(String::as_str);
    }
    let letters = |s: &str| {
        let mut v: Vec<char> = s.to_lowercase().chars().collect();
        v.sort_unstable();
        v
    };
    known
        .iter()
        .find(|k| letters(k) == letters(name))
        .map(String::as_str)
}

/// `defines = { TPB = 64 }` in a `[[test]]` or `[bench]` (`field`): new values for defines
/// the puzzle has (`top`, the top-level table as written), with the same value rules. A name
/// the puzzle does not define is an error: a misspelt override would otherwise leave the
/// test on the puzzle's value without a word.
pub(super) fn test_defines(
    cx: &Ctx,
    table: &BTreeMap<String, Spanned<toml::Value>>,
    field: &str,
    top: &BTreeMap<String, Spanned<toml::Value>>,
    errs: &mut Vec<PuzzleError>,
) -> Vec<(String, Option<String>)> {
    let field = format!("{field}.defines");
    let known: Vec<String> = top.keys().cloned().collect();
    let mut checked = BTreeMap::new();
    for (name, value) in table {
        if top.contains_key(name) || !is_c_identifier(name) {
            checked.insert(name.clone(), value.clone());
            continue;
        }
        let problem = match nearest_define(name, &known) {
            Some(near) => {
                format!("`{name}` is not one of the puzzle's defines; did you mean `{near}`?")
            }
            None if known.is_empty() => {
                format!("`{name}` is not one of the puzzle's defines: it has none")
            }
            None => format!(
                "`{name}` is not one of the puzzle's defines ({})",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        errs.push(cx.err(
            &value.span(),
            format!("{field}.{name}"),
            problem,
            format!(
                "a test only changes the value of a top-level define: fix the name, or add `{name}` to the top-level `defines` with the value the other tests use"
            ),
        ));
    }
    parse_define_table(cx, &checked, &field, errs)
}

fn parse_params(cx: &Ctx, raw: &RawPuzzle, errs: &mut Vec<PuzzleError>) -> Vec<Decl> {
    let mut decls: Vec<Decl> = Vec::new();
    if raw.params.get_ref().is_empty() {
        errs.push(cx.err(
            &raw.params.span(),
            "params",
            "the kernel has no parameters",
            "list the kernel's parameters in order, e.g. params = [\"out\", \"a\", \"size\"]",
        ));
    }
    for (i, p) in raw.params.get_ref().iter().enumerate() {
        let field = format!("params[{i}]");
        let (name, ty) = match p.get_ref().split_once(':') {
            Some((n, t)) => (n.trim(), Some(t.trim())),
            None => (p.get_ref().trim(), None),
        };
        // A bad name or type is reported, but the name is still declared, so that the tests
        // using it do not add a cascade of "not a kernel parameter" errors.
        if !is_c_identifier(name) {
            errs.push(cx.err(
                &p.span(),
                &field,
                format!("`{name}` is not a valid parameter name"),
                "write the C name of the parameter, optionally with a type: \"size\" or \"size: u32\"",
            ));
        }
        let ty = match ty.map(ElemType::from_str) {
            None => None,
            Some(Ok(t)) => Some(t),
            Some(Err(e)) => {
                errs.push(cx.err(&p.span(), &field, e, TYPE_HELP));
                None
            }
        };
        if decls.iter().any(|d| d.name == name) {
            errs.push(cx.err(
                &p.span(),
                &field,
                format!("parameter `{name}` is listed twice"),
                "list every kernel parameter once, in the kernel's order",
            ));
            continue;
        }
        decls.push(Decl {
            name: name.to_string(),
            ty,
        });
    }
    decls
}

/// `[bench] flops`, evaluated over the bench's scalars; `flops` in a `[[test]]` is an error.
fn bench_flops(
    cx: &Ctx,
    raw: &RawPuzzle,
    bench: Option<&TestCase>,
    errs: &mut Vec<PuzzleError>,
) -> Option<BenchFlops> {
    let tests = raw
        .tests
        .as_ref()
        .map(|t| t.get_ref().as_slice())
        .unwrap_or(&[]);
    for (i, t) in tests.iter().enumerate() {
        if let Some(f) = &t.get_ref().flops {
            errs.push(cx.err(
                &f.span(),
                format!("test[{i}].flops"),
                "`flops` belongs in the [bench] table",
                "move it to [bench] (tests are judged, not timed)",
            ));
        }
    }
    let f = raw.bench.as_ref()?.get_ref().flops.as_ref()?;
    let bench = bench?;
    let expr = f.get_ref().trim().to_string();
    match super::expr::eval(&expr, &bench.scalars) {
        Ok(value) if value.is_finite() && value >= 0.0 => Some(BenchFlops { expr, value }),
        Ok(value) => {
            errs.push(cx.err(
                &f.span(),
                "bench.flops",
                format!("`{expr}` is {value}"),
                "give the number of floating-point operations of the launch, e.g. \"2 * size * size * size\" for a matrix product",
            ));
            None
        }
        Err(problem) => {
            errs.push(cx.err(
                &f.span(),
                "bench.flops",
                problem,
                "write arithmetic over the bench's scalars, e.g. \"2 * size * size * size\"",
            ));
            None
        }
    }
}

/// Check one `[[test]]` (or `[bench]`); `None` when it has errors (pushed to `errs`).
pub(super) fn parse_test(
    cx: &Ctx,
    raw: &Spanned<RawTest>,
    field: &str,
    decls: &[Decl],
    multi: bool,
    is_bench: bool,
    errs: &mut Vec<PuzzleError>,
) -> Option<TestCase> {
    let before = errs.len();
    let t = raw.get_ref();
    let name = match &t.name {
        Some(n) if !n.get_ref().trim().is_empty() => n.get_ref().trim().to_string(),
        None if is_bench => "bench".to_string(),
        Some(n) => {
            errs.push(cx.err(
                &n.span(),
                format!("{field}.name"),
                "is empty",
                "name the test after what it checks, e.g. \"two blocks\"",
            ));
            String::new()
        }
        None => {
            errs.push(cx.err(
                &raw.span(),
                format!("{field}.name"),
                "the test has no name",
                "add name = \"...\" (it is shown in every report)",
            ));
            String::new()
        }
    };
    let mut shape = |dims: &Option<Spanned<Vec<u32>>>, what: &str, is_block: bool| {
        let f = format!("{field}.{what}");
        match (dims, multi) {
            (Some(d), false) => launch_dims(cx, d, &f, is_block, errs),
            (None, false) => {
                errs.push(cx.err(
                    &raw.span(),
                    f,
                    format!("missing field `{what}`"),
                    format!("add `{what} = [...]`: the launch's {what} (1 to 3 numbers)"),
                ));
                [1; 3]
            }
            (Some(d), true) => {
                errs.push(cx.err(
                    &d.span(),
                    f,
                    format!("this puzzle has several launches: each [[launch]] gives its own {what}"),
                    format!("remove `{what}` from the test; shape the launches with expressions of the test's scalars"),
                ));
                [1; 3]
            }
            (None, true) => [1; 3],
        }
    };
    let grid = shape(&t.grid, "grid", false);
    let block = shape(&t.block, "block", true);
    if t.shared_bytes as i64 > super::launches::MAX_SHARED_BYTES {
        errs.push(cx.err(
            &raw.span(),
            format!("{field}.shared_bytes"),
            format!(
                "{} bytes of dynamic shared memory is more than a GPU has",
                t.shared_bytes
            ),
            format!(
                "dynamic shared memory is 0 to {} bytes (227 KiB)",
                super::launches::MAX_SHARED_BYTES
            ),
        ));
    }
    if multi && t.shared_bytes != 0 {
        errs.push(cx.err(
            &raw.span(),
            format!("{field}.shared_bytes"),
            "this puzzle has several launches: each [[launch]] gives its own shared_bytes",
            "remove `shared_bytes` from the test",
        ));
    }

    let mut buffers = BTreeMap::new();
    for (bname, b) in &t.buffers {
        let bfield = format!("{field}.buffers.{bname}");
        let decl = decls.iter().find(|d| d.name == *bname);
        if decl.is_none() {
            errs.push(cx.err(
                &b.span(),
                &bfield,
                format!("`{bname}` is not a kernel parameter"),
                format!("add \"{bname}\" to `params` in the kernel's order, or remove this buffer"),
            ));
            continue;
        }
        if t.scalars.contains_key(bname) {
            errs.push(cx.err(
                &b.span(),
                &bfield,
                format!("`{bname}` is given both as a buffer and as a scalar"),
                "a parameter is either a pointer (buffer) or a value (scalar): remove one",
            ));
            continue;
        }
        if let Some(spec) = parse_buffer(cx, b, &bfield, decl.and_then(|d| d.ty), errs) {
            buffers.insert(bname.clone(), spec);
        }
    }
    let mut symbols = BTreeMap::new();
    for (vname, b) in &t.symbols {
        let vfield = format!("{field}.symbols.{vname}");
        if multi {
            errs.push(cx.err(
                &b.span(),
                &vfield,
                "symbols are set before a single launch, and this puzzle has several",
                "set the variable from a kernel of the first launch instead",
            ));
            continue;
        }
        if b.get_ref().output {
            errs.push(cx.err(
                &b.span(),
                &vfield,
                "a symbol is an input: it is set before the launch and not compared",
                "remove `output = true`, and have the kernel write its result to an output buffer",
            ));
            continue;
        }
        if let Some(spec) = parse_buffer(cx, b, &vfield, None, errs) {
            symbols.insert(vname.clone(), spec);
        }
    }
    let mut scalars = BTreeMap::new();
    for (sname, v) in &t.scalars {
        let Some(decl) = decls.iter().find(|d| d.name == *sname) else {
            errs.push(cx.err(
                &v.span(),
                format!("{field}.scalars.{sname}"),
                format!("`{sname}` is not a kernel parameter"),
                if field == "unseen" {
                    format!("add \"{sname}\" to `params` in the kernel's order, remove this scalar, or name it `_{sname}`: a helper that serves the other scalars' expressions and reaches no kernel")
                } else {
                    format!("add \"{sname}\" to `params` in the kernel's order, or remove this scalar")
                },
            ));
            continue;
        };
        let sfield = format!("{field}.scalars.{sname}");
        if let Some(x) = scalar_value(cx, v, &sfield, decl, errs) {
            scalars.insert(sname.clone(), x);
        }
    }
    if errs.len() > before {
        return None;
    }
    Some(TestCase {
        name,
        grid,
        block,
        shared_bytes: t.shared_bytes,
        scalars,
        buffers,
        symbols,
        scratch: BTreeMap::new(),
        launches: Vec::new(),
        defines: Vec::new(),
    })
}

/// 1 to 3 positive numbers within CUDA's limits, padded with 1s.
fn launch_dims(
    cx: &Ctx,
    dims: &Spanned<Vec<u32>>,
    field: &str,
    is_block: bool,
    errs: &mut Vec<PuzzleError>,
) -> [u32; 3] {
    let what = if is_block { "block" } else { "grid" };
    let v = dims.get_ref();
    if v.is_empty() || v.len() > 3 {
        errs.push(cx.err(
            &dims.span(),
            field,
            format!("has {} dimensions", v.len()),
            format!("give 1 to 3 numbers (x, y, z), e.g. {what} = [8] or {what} = [3, 3]"),
        ));
        return [1; 3];
    }
    let mut d = [1u32; 3];
    d[..v.len()].copy_from_slice(v);
    if d.contains(&0) {
        errs.push(cx.err(
            &dims.span(),
            field,
            "a dimension is 0",
            format!("every dimension of the {what} must be at least 1"),
        ));
    } else if is_block {
        let threads: u64 = d.iter().map(|&x| x as u64).product();
        if d[0] > 1024 || d[1] > 1024 || d[2] > 64 || threads > 1024 {
            errs.push(cx.err(
                &dims.span(),
                field,
                format!("{threads} threads per block is beyond CUDA's limits"),
                "a block has at most 1024 threads (x, y <= 1024, z <= 64); use more blocks instead",
            ));
        }
    } else if d[1] > 65535 || d[2] > 65535 {
        errs.push(cx.err(
            &dims.span(),
            field,
            "the grid's y or z is above 65535",
            "CUDA allows at most 65535 blocks in y and z; put the large dimension in x",
        ));
    }
    d
}

fn parse_buffer(
    cx: &Ctx,
    b: &Spanned<RawBuffer>,
    field: &str,
    declared: Option<ElemType>,
    errs: &mut Vec<PuzzleError>,
) -> Option<BufferSpec> {
    let before = errs.len();
    let raw = b.get_ref();
    let here = b.span();

    let ty = match &raw.ty {
        None => declared.unwrap_or(ElemType::F32),
        Some(t) => match ElemType::from_str(t.get_ref()) {
            Ok(ty) => {
                if let Some(d) = declared.filter(|&d| d != ty) {
                    errs.push(cx.err(
                        &t.span(),
                        format!("{field}.type"),
                        format!("the buffer is {ty} but `params` declares it {d}"),
                        "make them agree, or give the type in one place only",
                    ));
                }
                ty
            }
            Err(e) => {
                errs.push(cx.err(&t.span(), format!("{field}.type"), e, TYPE_HELP));
                ElemType::F32
            }
        },
    };

    let shape = match &raw.shape {
        None => None,
        Some(s) => match s.get_ref().as_slice() {
            &[rows, cols] if rows > 0 && cols > 0 => Some([rows, cols]),
            _ => {
                errs.push(cx.err(
                    &s.span(),
                    format!("{field}.shape"),
                    "a shape is two positive numbers",
                    "write shape = [rows, cols]; the buffer holds rows * cols elements, row by row",
                ));
                None
            }
        },
    };

    let len = match (&raw.len, shape, &raw.values) {
        (Some(l), Some([r, c]), _) if *l.get_ref() != r.saturating_mul(c) => {
            errs.push(cx.err(
                &l.span(),
                format!("{field}.len"),
                format!(
                    "len is {} but shape is {r} x {c} = {}",
                    l.get_ref(),
                    r.saturating_mul(c)
                ),
                "give only the shape (len follows from it), or make them agree",
            ));
            0
        }
        (Some(l), _, _) => *l.get_ref(),
        (None, Some([r, c]), _) => r.saturating_mul(c),
        (None, None, Some(v)) => v.get_ref().len(),
        (None, None, None) => {
            if raw.shape.is_none() {
                errs.push(cx.err(
                    &here,
                    format!("{field}.len"),
                    "the buffer has no size",
                    "add len = N (or shape = [rows, cols] for a matrix)",
                ));
            }
            0
        }
    };
    if len > MAX_BUFFER_LEN {
        errs.push(cx.err(
            &raw.len.as_ref().map_or(here.clone(), |l| l.span()),
            format!("{field}.len"),
            format!("{len} elements is more than gpuzzle allows in one buffer"),
            format!("a buffer holds at most {MAX_BUFFER_LEN} (2^28) elements, as in `gpuzzle exec`; puzzle tests are small: use a few hundred"),
        ));
        return None;
    }
    if len == 0 && errs.len() == before {
        errs.push(cx.err(
            &raw.len.as_ref().map_or(here.clone(), |l| l.span()),
            format!("{field}.len"),
            "a buffer needs at least 1 element",
            "give len = 1 or more (CUDA has no empty allocations)",
        ));
    }

    let given: Vec<&str> = [
        raw.init.as_ref().map(|_| "init"),
        raw.fill.as_ref().map(|_| "fill"),
        raw.values.as_ref().map(|_| "values"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if given.len() > 1 {
        errs.push(cx.err(
            &here,
            field,
            format!("both {} are given", given.join(" and ")),
            "give the contents one way only: init = \"arange\", fill = 2.5 or values = [...]",
        ));
    }

    let mut init = Init::Zeros;
    if let Some(s) = &raw.init {
        init = match s.get_ref().as_str() {
            "zeros" => Init::Zeros,
            "ones" => Init::Ones,
            "arange" => Init::Arange,
            "random" => Init::Random {
                seed: raw.seed.as_ref().map_or(0, |s| *s.get_ref()),
            },
            other => match Generator::from_name(other) {
                Some(generator) => {
                    if let Some(why) = generator.refuses(ty) {
                        errs.push(cx.err(
                            &s.span(),
                            format!("{field}.init"),
                            format!("init `{other}` cannot fill a buffer of {ty}"),
                            why,
                        ));
                    }
                    Init::Generated {
                        generator,
                        seed: raw.seed.as_ref().map_or(0, |s| *s.get_ref()),
                    }
                }
                None => {
                    errs.push(cx.err(
                        &s.span(),
                        format!("{field}.init"),
                        format!("unknown init `{other}`"),
                        "use \"zeros\", \"ones\", \"arange\", \"random\", or a generator: \"full-range\", \"large\", \"max-not-last\", \"offset\" (or fill = x, values = [...])",
                    ));
                    Init::Zeros
                }
            },
        };
    }
    if let Some(f) = &raw.fill {
        init = Init::Fill(*f.get_ref());
        check_integral(cx, &f.span(), field, "fill", ty, &[*f.get_ref()], errs);
    }
    if let Some(v) = &raw.values {
        if v.get_ref().len() != len && len != 0 {
            errs.push(cx.err(
                &v.span(),
                format!("{field}.values"),
                format!(
                    "{} values for a buffer of {len} elements",
                    v.get_ref().len()
                ),
                "give exactly one value per element (matrices row by row)",
            ));
        }
        check_integral(cx, &v.span(), field, "values", ty, v.get_ref(), errs);
        init = Init::Values(v.get_ref().clone());
    }
    if let Some(s) = &raw.seed {
        if !matches!(init, Init::Random { .. } | Init::Generated { .. }) {
            errs.push(cx.err(
                &s.span(),
                format!("{field}.seed"),
                "a seed only makes sense with init = \"random\" or a generator",
                "remove the seed, or set init = \"random\" (or \"full-range\", \"large\", ...)",
            ));
        }
    }
    if raw.output {
        if init != Init::Zeros {
            errs.push(cx.err(
                &here,
                field,
                "an output buffer cannot have initial contents",
                "outputs start as garbage (or zeros with `zeroed = true`): remove init/fill/values, or drop `output = true` if the kernel only reads it",
            ));
        }
        if raw.fixed {
            errs.push(cx.err(
                &here,
                format!("{field}.fixed"),
                "`fixed` applies to inputs only",
                "remove `fixed = true` from the output buffer",
            ));
        }
    } else if raw.zeroed {
        errs.push(cx.err(
            &here,
            format!("{field}.zeroed"),
            "`zeroed` applies to outputs only",
            "remove `zeroed = true`: an input's contents are its init, fill or values",
        ));
    }
    if errs.len() > before {
        return None;
    }
    Some(BufferSpec {
        ty,
        len,
        init,
        output: raw.output,
        zeroed: raw.zeroed,
        shape,
        fixed: raw.fixed,
    })
}

fn check_integral(
    cx: &Ctx,
    span: &Range<usize>,
    field: &str,
    key: &str,
    ty: ElemType,
    values: &[f64],
    errs: &mut Vec<PuzzleError>,
) {
    if ty.is_float() {
        return;
    }
    if let Some(v) = values.iter().find(|v| v.fract() != 0.0 || !v.is_finite()) {
        errs.push(cx.err(
            span,
            format!("{field}.{key}"),
            format!("{v} is not a whole number, but the buffer holds {ty}"),
            "use whole numbers, or a float type (f32) for the buffer",
        ));
    }
}

/// Decide each parameter's kind from the tests: the same kind, type and direction everywhere.
fn resolve_params(
    cx: &Ctx,
    decls: &[Decl],
    tests: &[(Range<usize>, &str, &TestCase)],
    errs: &mut Vec<PuzzleError>,
) -> Vec<Param> {
    let mut params = Vec::new();
    for d in decls {
        let mut seen: Option<(Seen, &str)> = None;
        for (span, field, t) in tests {
            let now = if let Some(b) = t.buffers.get(&d.name) {
                Seen::Buffer {
                    ty: b.ty,
                    output: b.output,
                }
            } else if t.scalars.contains_key(&d.name) {
                Seen::Scalar
            } else {
                errs.push(cx.err(
                    span,
                    format!("{field}.{}", d.name),
                    format!("parameter `{}` has no value in this test", d.name),
                    format!(
                        "add `scalars = {{ {n} = ... }}` or `buffers.{n} = {{ len = ... }}` to the test",
                        n = d.name
                    ),
                ));
                continue;
            };
            match seen {
                None => seen = Some((now, field)),
                Some((first, first_field)) if first != now => {
                    errs.push(cx.err(
                        span,
                        format!("{field}.{}", d.name),
                        format!(
                            "parameter `{}` is {} here but {} in {first_field}",
                            d.name,
                            describe(now),
                            describe(first)
                        ),
                        "a parameter has one C type: give it the same kind, type and `output` in every test",
                    ));
                }
                Some(_) => {}
            }
        }
        let Some((seen, _)) = seen else { continue };
        let (kind, output) = match seen {
            Seen::Buffer { ty, output } => (ParamKind::Buffer(ty), output),
            Seen::Scalar => {
                // Each value was checked against this type where it is written (`scalar_value`).
                let ty = d.ty.unwrap_or(ElemType::I32);
                (ParamKind::Scalar(ty), false)
            }
        };
        params.push(Param {
            name: d.name.clone(),
            kind,
            output,
        });
    }
    params
}

fn describe(s: Seen) -> String {
    match s {
        Seen::Buffer { ty, output: true } => format!("an output buffer of {ty}"),
        Seen::Buffer { ty, output: false } => format!("an input buffer of {ty}"),
        Seen::Scalar => "a scalar".to_string(),
    }
}

/// A scalar's value as the parameter's type (`i32` unless `params` declares another): a number
/// that fits it exactly (8.5 is no `int`); anything else is an error at the scalar's line.
fn scalar_value(
    cx: &Ctx,
    v: &Spanned<toml::Value>,
    field: &str,
    d: &Decl,
    errs: &mut Vec<PuzzleError>,
) -> Option<f64> {
    let ty = d.ty.unwrap_or(ElemType::I32);
    let declare = format!(
        "declare the type in params (\"{}: f32\") for a fractional value",
        d.name
    );
    let x = match v.get_ref() {
        toml::Value::Integer(i) => *i as f64,
        toml::Value::Float(f) => *f,
        other => {
            errs.push(cx.err(
                &v.span(),
                field,
                format!("expected {ty}, found {}", toml_kind(other)),
                format!("write a number, e.g. `{} = 8`", d.name),
            ));
            return None;
        }
    };
    if !ty.is_float() {
        let mut bytes = Vec::new();
        ty.encode(x, &mut bytes);
        if ty.decode(&bytes) != x {
            errs.push(cx.err(
                &v.span(),
                field,
                format!(
                    "expected {ty}, found {x}, which does not fit parameter `{}`",
                    d.name
                ),
                format!("use a whole number in range, or {declare}"),
            ));
            return None;
        }
    }
    Some(x)
}

/// A TOML value's kind as an error names it.
fn toml_kind(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string \"{s}\""),
        toml::Value::Boolean(b) => format!("`{b}`"),
        toml::Value::Array(_) => "an array".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
        toml::Value::Datetime(_) => "a date".to_string(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::error::Invalid;
    use crate::puzzle::model::Init;
    use crate::puzzle::Budget;

    const GOOD: &str = r#"id = 9
slug = "pooling"
title = "Pooling"
part = "Shared memory"
kernel = "pooling"
params = ["out", "a", "size"]
defines = { TPB = 8, EXPR = "(TPB + 1)", DEBUG = true }
description = "Sum the last three."
spec = """
for (int i = 0; i < size; i++) {
    out[i] = a[i];
}
"""
hints = ["one", "two", "three"]
budget = { global_reads = 1, global_writes = 1 }

[[test]]
name = "one block"
grid = [1]
block = [8]
scalars = { size = 8 }
buffers.a = { len = 8, init = "arange" }
buffers.out = { len = 8, output = true }

[[test]]
name = "two blocks"
grid = [2]
block = [8]
scalars = { size = 16 }
buffers.a = { shape = [4, 4], init = "random", seed = 3 }
buffers.out = { len = 16, output = true }
"#;

    fn parse(text: &str) -> Result<Puzzle, PuzzleError> {
        parse_puzzle(text, Path::new("puzzles/09_pooling.toml")).map(|p| p.puzzle)
    }

    /// 1-based line of the first line of `text` containing `needle` (the n-th with `nth`).
    fn line_with(text: &str, needle: &str, nth: usize) -> usize {
        text.lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .nth(nth)
            .map(|(i, _)| i + 1)
            .unwrap_or_else(|| panic!("`{needle}` not in text"))
    }

    /// Parse `text`, expect exactly one located error, check its line and field, return it.
    fn one_error(text: &str, line: usize, field: &str) -> Invalid {
        let e = parse(text).expect_err("should be rejected");
        let all = e.invalids();
        assert_eq!(all.len(), 1, "expected one error, got: {e}");
        let inv = all[0].clone();
        assert_eq!(inv.line, Some(line), "line, in: {e}");
        assert_eq!(inv.field, field, "field, in: {e}");
        assert!(!inv.help.is_empty(), "a fix is suggested: {e}");
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!("puzzles/09_pooling.toml:{line}: `{field}`")),
            "{shown}"
        );
        inv
    }

    #[test]
    fn a_good_file_parses_into_the_model() {
        let p = parse(GOOD).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.id, 9);
        assert_eq!(p.kernel_file, "09_pooling.cu");
        assert_eq!(
            p.params,
            vec![
                Param {
                    name: "out".into(),
                    kind: ParamKind::Buffer(ElemType::F32),
                    output: true
                },
                Param {
                    name: "a".into(),
                    kind: ParamKind::Buffer(ElemType::F32),
                    output: false
                },
                Param {
                    name: "size".into(),
                    kind: ParamKind::Scalar(ElemType::I32),
                    output: false
                },
            ]
        );
        assert_eq!(
            p.defines,
            vec![
                ("DEBUG".to_string(), None),
                ("EXPR".to_string(), Some("(TPB + 1)".to_string())),
                ("TPB".to_string(), Some("8".to_string())),
            ]
        );
        assert_eq!(p.define_flags(), ["-DDEBUG", "-DEXPR=(TPB + 1)", "-DTPB=8"]);
        assert_eq!(p.spec_line, line_with(GOOD, "for (int i", 0));
        assert_eq!(p.budget.global_reads, Some(1));
        assert_eq!(p.budget.shared_reads, None);
        assert!(p.tolerance.is_exact());
        assert_eq!(p.tests.len(), 2);
        let t = &p.tests[1];
        assert_eq!(t.grid, [2, 1, 1]);
        assert_eq!(t.block, [8, 1, 1]);
        assert_eq!(t.scalars["size"], 16.0);
        assert_eq!(t.buffers["a"].len, 16);
        assert_eq!(t.buffers["a"].shape, Some([4, 4]));
        assert_eq!(t.buffers["a"].init, Init::Random { seed: 3 });
        assert!(p.bench.is_none());
    }

    #[test]
    fn a_test_changes_the_puzzles_defines_for_itself() {
        let text = GOOD.replacen(
            "name = \"two blocks\"",
            "name = \"two blocks\"\ndefines = { TPB = 64, EXPR = \"(TPB + 2)\", DEBUG = true }",
            1,
        ) + "\n[bench]\ngrid = [1]\nblock = [256]\ndefines = { TPB = 256.0 }\nscalars = { size = 256 }\nbuffers.a = { len = 256 }\nbuffers.out = { len = 256, output = true }\n";
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.tests[0].defines.is_empty());
        assert_eq!(p.defines_for(&p.tests[0]), p.defines);
        assert_eq!(
            p.tests[1].defines,
            [
                ("DEBUG".to_string(), None),
                ("EXPR".to_string(), Some("(TPB + 2)".to_string())),
                ("TPB".to_string(), Some("64".to_string())),
            ]
        );
        assert_eq!(p.defines_for(&p.tests[1]), p.tests[1].defines);
        // The puzzle's own stay as written: the test's are its own.
        assert_eq!(p.define_flags(), ["-DDEBUG", "-DEXPR=(TPB + 1)", "-DTPB=8"]);
        let bench = p.bench.as_ref().expect("a bench");
        assert_eq!(
            p.defines_for(bench),
            [
                ("DEBUG".to_string(), None),
                ("EXPR".to_string(), Some("(TPB + 1)".to_string())),
                ("TPB".to_string(), Some("256.0".to_string())),
            ]
        );
    }

    #[test]
    fn a_test_define_the_puzzle_lacks_or_a_bad_value_is_rejected_at_its_line() {
        // A misspelt name: the nearest define is named.
        let text = GOOD.replacen(
            "name = \"two blocks\"",
            "name = \"two blocks\"\ndefines = { TBP = 64 }",
            1,
        );
        let inv = one_error(&text, line_with(&text, "TBP", 0), "test[1].defines.TBP");
        assert!(
            inv.problem.contains("did you mean `TPB`"),
            "{}",
            inv.problem
        );
        assert!(inv.help.contains("top-level `defines`"), "{}", inv.help);
        // No near name: the puzzle's are listed.
        let text = GOOD.replacen(
            "name = \"one block\"",
            "name = \"one block\"\ndefines = { WIDTH = 64 }",
            1,
        );
        let inv = one_error(&text, line_with(&text, "WIDTH", 0), "test[0].defines.WIDTH");
        assert!(
            inv.problem.contains("(`DEBUG`, `EXPR`, `TPB`)"),
            "{}",
            inv.problem
        );
        // A puzzle with no defines at all.
        let text = GOOD
            .replace(
                "defines = { TPB = 8, EXPR = \"(TPB + 1)\", DEBUG = true }\n",
                "",
            )
            .replacen(
                "name = \"one block\"",
                "name = \"one block\"\ndefines = { TPB = 64 }",
                1,
            );
        let inv = one_error(
            &text,
            line_with(&text, "TPB = 64", 0),
            "test[0].defines.TPB",
        );
        assert!(inv.problem.contains("it has none"), "{}", inv.problem);
        // The value rules of the top-level table: not an array, not `false`.
        let text = GOOD.replacen(
            "name = \"two blocks\"",
            "name = \"two blocks\"\ndefines = { TPB = [64] }",
            1,
        );
        let inv = one_error(
            &text,
            line_with(&text, "TPB = [64]", 0),
            "test[1].defines.TPB",
        );
        assert!(
            inv.problem.contains("number, a string or `true`"),
            "{}",
            inv.problem
        );
        let text = GOOD.to_string()
            + "\n[bench]\ngrid = [1]\nblock = [8]\ndefines = { DEBUG = false }\nscalars = { size = 8 }\nbuffers.a = { len = 8 }\nbuffers.out = { len = 8, output = true }\n";
        one_error(
            &text,
            line_with(&text, "DEBUG = false", 0),
            "bench.defines.DEBUG",
        );
        // A test with other mistakes still has its define checked.
        let text = GOOD
            .replacen(
                "name = \"two blocks\"",
                "name = \"two blocks\"\ndefines = { TBP = 64 }",
                1,
            )
            .replacen("scalars = { size = 16 }", "scalars = { size = \"x\" }", 1);
        let e = parse(&text).expect_err("two mistakes");
        let fields: Vec<String> = e.invalids().into_iter().map(|i| i.field.clone()).collect();
        assert!(fields.contains(&"test[1].defines.TBP".to_string()), "{e}");
        assert!(fields.contains(&"test[1].scalars.size".to_string()), "{e}");
    }

    #[test]
    fn spec_source_wraps_the_body_with_the_kernel_params() {
        let p = parse(GOOD).unwrap();
        let src = p.spec_source();
        assert!(src.contains(
            "extern \"C\" __global__ void gpuzzle_spec(float* out, const float* a, int size) {"
        ));
        assert!(src.contains(&format!(
            "#line {} \"puzzles/09_pooling.toml\"\nfor (int i = 0;",
            p.spec_line
        )));
        assert!(src.trim_end().ends_with('}'));
    }

    #[test]
    fn a_spec_over_halves_includes_their_headers() {
        let half = GOOD.replace(
            r#"["out", "a", "size"]"#,
            r#"["out: f16", "a: f16", "size"]"#,
        );
        let src = parse(&half).unwrap_or_else(|e| panic!("{e}")).spec_source();
        assert!(src.contains("#include <cuda_fp16.h>\n"), "{src}");
        assert!(!src.contains("cuda_bf16.h"), "{src}");
        let bf = GOOD.replace(r#"["out", "a", "size"]"#, r#"["out: bf16", "a", "size"]"#);
        let src = parse(&bf).unwrap_or_else(|e| panic!("{e}")).spec_source();
        assert!(src.contains("#include <cuda_bf16.h>\n"), "{src}");
        assert!(!parse(GOOD).unwrap().spec_source().contains("#include"));
    }

    #[test]
    fn declared_types_and_the_bench_are_used() {
        let text = GOOD
            .replace(r#"["out", "a", "size"]"#, r#"["out: f64", "a: f64", "size: u32"]"#)
            + "\n[bench]\ngrid = [64]\nblock = [256]\nscalars = { size = 16384 }\nbuffers.a = { len = 16384, init = \"random\" }\nbuffers.out = { len = 16384, output = true }\n";
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.params[0].kind, ParamKind::Buffer(ElemType::F64));
        assert_eq!(p.params[2].kind, ParamKind::Scalar(ElemType::U32));
        assert!(p.spec_source().contains("unsigned int size"));
        let bench = p.bench.unwrap();
        assert_eq!(bench.name, "bench");
        assert_eq!(bench.buffers["a"].ty, ElemType::F64);
        assert_eq!(bench.buffers["a"].init, Init::Random { seed: 0 });
    }

    #[test]
    fn bench_flops_are_evaluated_over_the_bench_scalars() {
        let bench = "\n[bench]\ngrid = [64]\nblock = [256]\nscalars = { size = 16384 }\nbuffers.a = { len = 16384 }\nbuffers.out = { len = 16384, output = true }\n";
        let p = parse(&(GOOD.to_string() + bench + "flops = \"3 * size\"\n")).unwrap();
        let f = p.bench_flops.unwrap();
        assert_eq!(f.expr, "3 * size");
        assert_eq!(f.value, 49152.0);
        assert!(parse(&(GOOD.to_string() + bench))
            .unwrap()
            .bench_flops
            .is_none());

        let text = GOOD.to_string() + bench + "flops = \"3 * n\"\n";
        let inv = one_error(&text, line_with(&text, "flops =", 0), "bench.flops");
        assert!(
            inv.problem.contains("`n` is not a scalar"),
            "{}",
            inv.problem
        );

        let text = GOOD.replacen(
            "scalars = { size = 8 }",
            "scalars = { size = 8 }\nflops = \"size\"",
            1,
        );
        let inv = one_error(&text, line_with(&text, "flops =", 0), "test[0].flops");
        assert!(inv.problem.contains("[bench]"), "{}", inv.problem);
    }

    #[test]
    fn malformed_toml_points_at_the_line() {
        let text = GOOD.replace("title = \"Pooling\"", "title = \"Pooling");
        let inv = one_error(&text, line_with(&text, "title =", 0), "(TOML syntax)");
        assert!(inv.help.contains("quotes"), "{}", inv.help);
    }

    #[test]
    fn a_missing_required_field_is_named() {
        let text = GOOD.replace("kernel = \"pooling\"\n", "");
        let inv = one_error(&text, 1, "kernel");
        assert!(inv.problem.contains("missing field `kernel`"));
        assert!(inv.help.contains("add `kernel = ...`"));
    }

    #[test]
    fn a_missing_field_in_a_test_names_the_test() {
        let text = GOOD.replace("grid = [2]\n", "");
        let inv = one_error(&text, line_with(&text, "[[test]]", 1), "test[1].grid");
        assert!(inv.problem.contains("missing field `grid`"));
    }

    #[test]
    fn an_unknown_field_is_rejected() {
        let text = GOOD.replace("hints = [", "hint = [");
        let inv = one_error(&text, line_with(&text, "hint = [", 0), "hint");
        assert!(
            inv.problem.contains("unknown field `hint`"),
            "{}",
            inv.problem
        );
        assert!(
            inv.problem.ends_with("did you mean `hints`?"),
            "{}",
            inv.problem
        );
        // Inside an inline table: the full path, and the nearest allowed name.
        let text = GOOD.replace("{ len = 8, init", "{ lenght = 8, init");
        let inv = one_error(
            &text,
            line_with(&text, "lenght", 0),
            "test[0].buffers.a.lenght",
        );
        assert!(
            inv.problem.ends_with("did you mean `len`?"),
            "{}",
            inv.problem
        );
        assert!(inv.help.contains("`output`"), "{}", inv.help);
        let text = GOOD.replace("global_reads = 1,", "global_read = 1,");
        let inv = one_error(
            &text,
            line_with(&text, "global_read", 0),
            "budget.global_read",
        );
        assert!(inv.problem.ends_with("did you mean `global_reads`?"));
        // Nothing near: no guess.
        let text = GOOD.replace("hints = [", "zzzzzz = [");
        let inv = one_error(&text, line_with(&text, "zzzzzz", 0), "zzzzzz");
        assert!(!inv.problem.contains("did you mean"), "{}", inv.problem);
    }

    /// Type mismatches use the puzzle format's words and the parameter's type, at the key's
    /// own line (not the table's).
    #[test]
    fn type_errors_name_the_schema_type_at_the_key() {
        let text = GOOD.replace("scalars = { size = 8 }", "scalars = { size = \"eight\" }");
        let inv = one_error(&text, line_with(&text, "eight", 0), "test[0].scalars.size");
        assert_eq!(inv.problem, "expected i32, found the string \"eight\"");
        let text = GOOD
            .replace(r#""size"]"#, r#""size: u32"]"#)
            .replace("scalars = { size = 8 }", "scalars = { size = -1 }");
        let inv = one_error(&text, line_with(&text, "-1", 0), "test[0].scalars.size");
        assert!(
            inv.problem.starts_with("expected u32, found -1"),
            "{}",
            inv.problem
        );
        let text = GOOD.replace("{ len = 8, init", "{ len = 8.5, init");
        let inv = one_error(&text, line_with(&text, "8.5", 0), "test[0].buffers.a.len");
        assert_eq!(
            inv.problem,
            "expected a whole number (0 or more), found the number `8.5`"
        );
        assert!(!inv.problem.contains("usize") && !inv.problem.contains("f64"));
        let inv = one_error(&GOOD.replace("id = 9", "id = \"nine\""), 1, "id");
        assert!(
            inv.problem.starts_with("expected a whole number"),
            "{}",
            inv.problem
        );
    }

    #[test]
    fn a_bad_type_name_is_rejected() {
        let text = GOOD.replace("{ len = 8, init", "{ type = \"float\", len = 8, init");
        let inv = one_error(
            &text,
            line_with(&text, "float", 0),
            "test[0].buffers.a.type",
        );
        assert!(
            inv.problem.contains("unknown type `float`"),
            "{}",
            inv.problem
        );
        assert!(inv.help.contains("f32 (float)"));
        let text = GOOD.replace(r#""size"]"#, r#""size: int"]"#);
        one_error(&text, line_with(&text, "params", 0), "params[2]");
    }

    #[test]
    fn a_buffer_type_must_agree_with_its_declaration() {
        let text = GOOD
            .replace(r#""a", "size"]"#, r#""a: f32", "size"]"#)
            .replace("{ len = 8, init", "{ type = \"i32\", len = 8, init");
        let inv = one_error(&text, line_with(&text, "i32", 0), "test[0].buffers.a.type");
        assert!(inv.problem.contains("declares it f32"), "{}", inv.problem);
    }

    #[test]
    fn grid_and_block_need_one_to_three_positive_dims() {
        let t0 = line_with(GOOD, "grid = [1]", 0);
        one_error(&GOOD.replace("grid = [1]", "grid = []"), t0, "test[0].grid");
        let inv = one_error(
            &GOOD.replace("grid = [1]", "grid = [1, 1, 1, 1]"),
            t0,
            "test[0].grid",
        );
        assert!(inv.problem.contains("4 dimensions"));
        let inv = one_error(
            &GOOD.replace("grid = [1]", "grid = [1, 0]"),
            t0,
            "test[0].grid",
        );
        assert!(inv.problem.contains("is 0"));
        let b0 = line_with(GOOD, "block = [8]", 0);
        let inv = one_error(
            &GOOD.replacen("block = [8]", "block = [64, 32]", 1),
            b0,
            "test[0].block",
        );
        assert!(inv.problem.contains("2048 threads"), "{}", inv.problem);
    }

    #[test]
    fn a_test_buffer_must_be_a_param() {
        let text = GOOD.replacen(
            "buffers.out = { len = 8, output = true }",
            "buffers.out = { len = 8, output = true }\nbuffers.b = { len = 8 }",
            1,
        );
        let inv = one_error(&text, line_with(&text, "buffers.b", 0), "test[0].buffers.b");
        assert!(inv.help.contains("add \"b\" to `params`"));
        let text = GOOD.replacen("scalars = { size = 8 }", "scalars = { size = 8, n = 2 }", 1);
        one_error(&text, line_with(&text, "n = 2", 0), "test[0].scalars.n");
    }

    #[test]
    fn every_param_needs_a_value_in_every_test() {
        let text = GOOD.replace("scalars = { size = 16 }\n", "");
        let inv = one_error(&text, line_with(&text, "[[test]]", 1), "test[1].size");
        assert!(
            inv.problem.contains("`size` has no value"),
            "{}",
            inv.problem
        );
    }

    #[test]
    fn a_param_keeps_its_kind_across_tests() {
        let text = GOOD.replace(
            "buffers.out = { len = 16, output = true }",
            "buffers.out = { len = 16 }",
        );
        let inv = one_error(&text, line_with(&text, "[[test]]", 1), "test[1].out");
        assert!(inv.problem.contains("an input buffer"), "{}", inv.problem);
    }

    #[test]
    fn a_buffer_needs_at_least_one_element() {
        let text = GOOD.replace("{ len = 8, init", "{ len = 0, init");
        let inv = one_error(
            &text,
            line_with(&text, "len = 0", 0),
            "test[0].buffers.a.len",
        );
        assert!(inv.problem.contains("at least 1"));
        let text = GOOD.replace("{ len = 8, init = \"arange\" }", "{ init = \"arange\" }");
        let inv = one_error(
            &text,
            line_with(&text, "buffers.a", 0),
            "test[0].buffers.a.len",
        );
        assert!(inv.problem.contains("no size"));
    }

    #[test]
    fn values_must_match_the_length() {
        let text = GOOD.replace(
            "{ len = 8, init = \"arange\" }",
            "{ len = 8, values = [1, 2, 3] }",
        );
        let inv = one_error(
            &text,
            line_with(&text, "values", 0),
            "test[0].buffers.a.values",
        );
        assert!(
            inv.problem.contains("3 values for a buffer of 8"),
            "{}",
            inv.problem
        );
        let text = GOOD.replace("shape = [4, 4]", "shape = [4, 4], len = 15");
        one_error(
            &text,
            line_with(&text, "len = 15", 0),
            "test[1].buffers.a.len",
        );
    }

    #[test]
    fn contents_are_given_one_way_and_outputs_start_at_zero() {
        let text = GOOD.replace(
            "{ len = 8, init = \"arange\" }",
            "{ len = 8, init = \"arange\", fill = 2 }",
        );
        let inv = one_error(&text, line_with(&text, "fill", 0), "test[0].buffers.a");
        assert!(inv.problem.contains("init and fill"));
        let text = GOOD.replace(
            "{ len = 8, output = true }",
            "{ len = 8, output = true, init = \"ones\" }",
        );
        one_error(&text, line_with(&text, "ones", 0), "test[0].buffers.out");
        let text = GOOD.replace("init = \"arange\" }", "init = \"arange\", seed = 4 }");
        one_error(
            &text,
            line_with(&text, "seed = 4", 0),
            "test[0].buffers.a.seed",
        );
        let text = GOOD.replace("init = \"arange\" }", "init = \"iota\" }");
        one_error(&text, line_with(&text, "iota", 0), "test[0].buffers.a.init");
    }

    #[test]
    fn generators_are_named_in_init_and_outputs_may_start_zeroed() {
        let text = GOOD.replace("init = \"arange\" }", "init = \"max-not-last\", seed = 4 }");
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            p.tests[0].buffers["a"].init,
            Init::Generated {
                generator: Generator::MaxNotLast,
                seed: 4
            }
        );
        // A generator that cannot fill the buffer's type says which can.
        let text = GOOD.replace("init = \"arange\" }", "init = \"full-range\" }");
        let inv = one_error(
            &text,
            line_with(&text, "full-range", 0),
            "test[0].buffers.a.init",
        );
        assert!(inv.help.contains("\"large\""), "{}", inv.help);
        // `zeroed` on an output; refused on an input.
        let text = GOOD.replace(
            "{ len = 8, output = true }",
            "{ len = 8, output = true, zeroed = true }",
        );
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.tests[0].buffers["out"].zeroed);
        assert!(!p.tests[1].buffers["out"].zeroed);
        let text = GOOD.replace("init = \"arange\" }", "init = \"arange\", zeroed = true }");
        one_error(
            &text,
            line_with(&text, "zeroed", 0),
            "test[0].buffers.a.zeroed",
        );
    }

    #[test]
    fn integer_values_must_be_whole() {
        let text = GOOD.replace("scalars = { size = 8 }", "scalars = { size = 8.5 }");
        let inv = one_error(
            &text,
            line_with(&text, "size = 8.5", 0),
            "test[0].scalars.size",
        );
        assert!(
            inv.problem
                .contains("expected i32, found 8.5, which does not fit"),
            "{}",
            inv.problem
        );
        let text = GOOD.replace(
            "{ len = 8, init = \"arange\" }",
            "{ type = \"i32\", len = 2, values = [1, 2.5] }",
        );
        one_error(
            &text,
            line_with(&text, "2.5", 0),
            "test[0].buffers.a.values",
        );
    }

    #[test]
    fn header_fields_are_checked() {
        one_error(&GOOD.replace("id = 9", "id = 0"), 1, "id");
        one_error(
            &GOOD.replace("\"pooling\"\ntitle", "\"Pooling!\"\ntitle"),
            2,
            "slug",
        );
        let text = GOOD.replace("kernel = \"pooling\"", "kernel = \"pool ing\"");
        one_error(&text, line_with(&text, "kernel =", 0), "kernel");
        let text = GOOD.replace(r#"["out", "a", "size"]"#, r#"["out", "a", "a", "size"]"#);
        one_error(&text, line_with(&text, "params", 0), "params[2]");
        let text = GOOD.replace("DEBUG = true", "DEBUG = [1]");
        one_error(&text, line_with(&text, "DEBUG", 0), "defines.DEBUG");
        let text = GOOD.replace("hints = [\"one\",", "hints = [\"\",");
        one_error(&text, line_with(&text, "hints", 0), "hints[0]");
        let text = GOOD.replace("budget =", "tolerance = { rel = -1.0 }\nbudget =");
        one_error(&text, line_with(&text, "tolerance", 0), "tolerance");
    }

    const MISTAKES: &str = r#"
[[mistake]]
kind = "shared-race"
line = "cache[local_i] ="
hint = "Store, then __syncthreads(), then read."

[[mistake]]
kind = "over-budget:global_reads"
hint = "Load each value once into shared memory."

[[mistake]]
kind = "wrong-output"
hint = "Check the first two outputs."
"#;

    #[test]
    fn mistake_hints_are_read_in_file_order() {
        let p = parse(&format!("{GOOD}{MISTAKES}")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            p.mistakes,
            [
                Mistake {
                    kind: MistakeKind::Diag(crate::emu::result::DiagKind::SharedRace),
                    line: Some("cache[local_i] =".into()),
                    wrong: None,
                    hint: "Store, then __syncthreads(), then read.".into(),
                },
                Mistake {
                    kind: MistakeKind::OverBudget(Some("global_reads")),
                    line: None,
                    wrong: None,
                    hint: "Load each value once into shared memory.".into(),
                },
                Mistake {
                    kind: MistakeKind::WrongOutput,
                    line: None,
                    wrong: None,
                    hint: "Check the first two outputs.".into(),
                },
            ]
        );
        assert!(parse(GOOD).is_ok_and(|p| p.mistakes.is_empty()));
        // Every kind gpuzzle reports is accepted, spelt as in its reports.
        for k in crate::emu::result::DiagKind::ALL {
            let text = format!("{GOOD}{MISTAKES}")
                .replace("\"shared-race\"", &format!("\"{}\"", k.as_str()));
            assert!(parse(&text).is_ok(), "{}", k.as_str());
        }
    }

    #[test]
    fn a_mistake_of_an_unknown_kind_names_the_valid_ones() {
        let text = format!("{GOOD}{MISTAKES}").replace("\"shared-race\"", "\"shared-races\"");
        let inv = one_error(
            &text,
            line_with(&text, "shared-races", 0),
            "mistake[0].kind",
        );
        assert!(
            inv.problem
                .contains("unknown kind `shared-races`; did you mean `shared-race`?"),
            "{inv}"
        );
        for valid in [
            "out-of-bounds",
            "global-race",
            "over-budget:bank_ways",
            "wrong-output",
        ] {
            assert!(inv.help.contains(valid), "{inv}");
        }
        let text = format!("{GOOD}{MISTAKES}").replace("global_reads\"", "global_read\"");
        let inv = one_error(
            &text,
            line_with(&text, "global_read\"", 0),
            "mistake[1].kind",
        );
        assert!(inv.problem.contains("over-budget:global_reads"), "{inv}");
    }

    #[test]
    fn a_wrong_output_mistake_can_ask_for_its_wrong_elements() {
        let text = format!("{GOOD}{MISTAKES}").replace(
            "kind = \"wrong-output\"",
            "kind = \"wrong-output\"\nwrong = \"last\"",
        );
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.mistakes[2].wrong, Some(WrongElements::Last));
        assert_eq!(p.mistakes[0].wrong, None);
        // An unknown value, or `wrong` on a kind that has no wrong elements.
        let bad = text.replace("wrong = \"last\"", "wrong = \"tail\"");
        let inv = one_error(&bad, line_with(&bad, "\"tail\"", 0), "mistake[2].wrong");
        assert!(inv.help.contains("last"), "{inv}");
        let text = format!("{GOOD}{MISTAKES}").replace(
            "kind = \"over-budget:global_reads\"",
            "kind = \"over-budget:global_reads\"\nwrong = \"last\"",
        );
        let inv = one_error(&text, line_with(&text, "wrong = ", 0), "mistake[1].wrong");
        assert!(inv.help.contains("remove `wrong`"), "{inv}");
        // Only the last element wrong fits `last`.
        assert!(WrongElements::Last.fits(5, &[4]));
        assert!(!WrongElements::Last.fits(5, &[3, 4]));
        assert!(!WrongElements::Last.fits(5, &[0]));
    }

    #[test]
    fn a_mistake_with_an_unknown_field_or_a_misplaced_line_is_rejected() {
        let text = format!("{GOOD}{MISTAKES}").replace("line = ", "lines = ");
        let inv = one_error(&text, line_with(&text, "lines = ", 0), "mistake[0].lines");
        assert!(inv.problem.contains("did you mean `line`?"), "{inv}");
        assert!(
            inv.help.contains("`kind`, `line`, `wrong`, `hint`"),
            "{inv}"
        );
        // A budget or wrong output has no source line.
        let text = format!("{GOOD}{MISTAKES}").replace(
            "kind = \"wrong-output\"",
            "kind = \"wrong-output\"\nline = \"out[i]\"",
        );
        let inv = one_error(&text, line_with(&text, "out[i]\"", 0), "mistake[2].line");
        assert!(inv.help.contains("remove `line`"), "{inv}");
        // Empty hint or line; missing hint.
        let text = format!("{GOOD}{MISTAKES}")
            .replace("hint = \"Check the first two outputs.\"", "hint = \" \"");
        one_error(
            &text,
            line_with(&text, "hint = \" \"", 0),
            "mistake[2].hint",
        );
        let text =
            format!("{GOOD}{MISTAKES}").replace("line = \"cache[local_i] =\"", "line = \"\"");
        one_error(&text, line_with(&text, "line = \"\"", 0), "mistake[0].line");
        let text =
            format!("{GOOD}{MISTAKES}").replace("hint = \"Check the first two outputs.\"", "");
        let e = parse(&text).expect_err("a mistake needs a hint");
        assert!(e.to_string().contains("`mistake[2].hint`"), "{e}");
    }

    #[test]
    fn test_names_are_required_and_unique() {
        let text = GOOD.replace("name = \"two blocks\"\n", "");
        one_error(&text, line_with(&text, "[[test]]", 1), "test[1].name");
        let text = GOOD.replace("\"two blocks\"", "\"one block\"");
        one_error(&text, line_with(&text, "[[test]]", 1), "test[1].name");
    }

    #[test]
    fn a_puzzle_without_tests_is_rejected() {
        let cut = GOOD.find("[[test]]").unwrap();
        let inv = one_error(&GOOD[..cut], 1, "test");
        assert!(inv.help.contains("[[test]]"));
    }

    #[test]
    fn independent_mistakes_are_all_reported() {
        let text = GOOD
            .replace("id = 9", "id = 0")
            .replace("grid = [2]", "grid = []");
        let e = parse(&text).unwrap_err();
        assert_eq!(e.invalids().len(), 2, "{e}");
    }

    const MULTI: &str = r#"id = 21
slug = "multi-block-scan"
title = "Scan"
part = "Scans"
params = ["out", "a", "size"]
defines = { TPB = 8 }
description = "Scan."
spec = "out[0] = a[0];"
hints = ["one", "two", "three"]

[scratch]
sums = { type = "f32", len = "(size + TPB - 1) / TPB" }

[[kernels]]
name = "scan_blocks"
params = ["out", "a", "sums", "size"]
budget = { global_reads = 1, sectors_per_access = 4 }

[[kernels]]
name = "add_offsets"
params = ["out", "sums", "n"]

[[launch]]
kernel = "scan_blocks"
grid = ["(size + TPB - 1) / TPB"]
block = ["TPB"]

[[launch]]
kernel = "add_offsets"
grid = ["(size + TPB - 1) / TPB"]
block = [8]
args = { n = "size" }

[[test]]
name = "15 elements"
scalars = { size = 15 }
buffers.a = { len = 15, init = "arange" }
buffers.out = { len = 15, output = true }

[[test]]
name = "100 elements"
scalars = { size = 100 }
buffers.a = { len = 100, init = "arange" }
buffers.out = { len = 100, output = true }
"#;

    #[test]
    fn forbid_and_technique_limit_instruction_families_and_name_a_bad_key() {
        let text = GOOD.replace(
            "budget = {",
            "forbid = [\"f64\", \"local_reads\"]\nrequire = { shuffles = 5 }\n[technique]\nname = \"a shuffle fold\"\ncounters = [\"shuffles\"]\nbudget_for = \"five shuffles a warp\"\n\n[budget_table_moved]\nbudget = {",
        )
        .replace("[budget_table_moved]\n", "");
        // `budget = {...}` now follows `[technique]`: move it to the top instead.
        let (head, rest) = text.split_at(text.find("forbid =").expect("inserted"));
        let budget_line = rest
            .lines()
            .find(|l| l.starts_with("budget = {"))
            .expect("a budget line")
            .to_string();
        let text = format!(
            "{head}{budget_line}\n{}",
            rest.replacen(&budget_line, "", 1)
        );
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let f64 = Counters::index("f64").expect("a counter");
        let local = Counters::index("local_reads").expect("a counter");
        let shuffles = Counters::index("shuffles").expect("a counter");
        assert_eq!(p.budget.get(f64), Some(0));
        assert!(p.budget.forbids(f64) && p.budget.forbids(local));
        assert!(!p.budget.forbids(shuffles));
        assert_eq!(p.budget.global_reads, Some(1), "the budget is kept beside");
        assert_eq!(p.require.get(shuffles), Some(5));
        let t = p.technique.as_ref().expect("a technique");
        assert_eq!(t.name, "a shuffle fold");
        assert_eq!(t.counters, vec![shuffles]);
        assert_eq!(t.budget_for.as_deref(), Some("five shuffles a warp"));
        // A name that is no counter is an error at its line, naming the counters.
        let bad = text.replace("\"local_reads\"]", "\"local_read\"]");
        let at = line_of(&bad, "forbid =");
        let inv = one_error(&bad, at, "forbid");
        assert!(inv.problem.contains("local_read"), "{inv}");
        assert!(inv.help.contains("local_reads"), "{inv}");
        let bad = text.replace("counters = [\"shuffles\"]", "counters = [\"shuffle\"]");
        one_error(&bad, line_of(&bad, "counters = ["), "technique.counters");
        // Forbidding a counter the budget also limits is one error.
        let bad = text.replace("forbid = [\"f64\"", "forbid = [\"global_reads\"");
        one_error(&bad, line_of(&bad, "forbid ="), "forbid");
    }

    /// The 1-based line of the first line of `text` that starts with `prefix`.
    fn line_of(text: &str, prefix: &str) -> usize {
        text.lines()
            .position(|l| l.starts_with(prefix))
            .expect("a line with the prefix")
            + 1
    }

    #[test]
    fn block_budget_and_require_limit_block_totals_and_name_a_bad_key() {
        let text = GOOD.replace(
            "budget = {",
            "block_budget = { global_atomics = 1 }\nrequire = { shared_writes = 2 }\nbudget = { global_atomics = 3,",
        );
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.block_budget.global_atomics, Some(1));
        assert_eq!(p.block_budget.global_reads, None);
        assert_eq!(p.require.shared_writes, Some(2));
        assert!(p.require.any() && p.block_budget.any());
        assert_eq!(p.budget.global_atomics, Some(3));
        // The steps carry them to the judge.
        let step = &p.steps(&p.tests[0])[0];
        assert_eq!(
            (step.block_budget, step.require),
            (p.block_budget, p.require)
        );
        // Without them: no limit at all.
        let plain = parse(GOOD).unwrap_or_else(|e| panic!("{e}"));
        assert!(!plain.block_budget.any() && !plain.require.any());
        // A misspelt counter, a perf figure (a block has none) and a negative count.
        let text = GOOD.replace("budget =", "require = { shared_write = 1 }\nbudget =");
        let inv = one_error(
            &text,
            line_with(&text, "shared_write", 0),
            "require.shared_write",
        );
        assert!(
            inv.problem.ends_with("did you mean `shared_writes`?"),
            "{inv}"
        );
        let text = GOOD.replace("budget =", "block_budget = { bank_ways = 1 }\nbudget =");
        let at = line_with(&text, "bank_ways", 0);
        one_error(&text, at, "block_budget.bank_ways");
        let text = GOOD.replace("budget =", "block_budget = { global_reads = -2 }\nbudget =");
        let at = line_with(&text, "-2", 0);
        let inv = one_error(&text, at, "block_budget.global_reads");
        assert!(inv.problem.contains("whole number"), "{inv}");
    }

    #[test]
    fn warp_require_takes_numbers_and_expressions_over_each_test_s_scalars() {
        let text = GOOD.replace(
            "budget = {",
            "warp_require = { shuffles = \"size / 8 * 32\", votes = 2 }\nbudget = {",
        );
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        let (shuffles, votes) = (Counters::index("shuffles"), Counters::index("votes"));
        let (shuffles, votes) = (shuffles.expect("a counter"), votes.expect("a counter"));
        assert!(p.warp_require.names(shuffles) && !p.warp_require.names(0));
        // Per test: size 8, then 16.
        let minima = |t: usize| {
            let mut m = p.warp_minima(&p.tests[t]).unwrap_or_else(|e| panic!("{e}"));
            m.sort();
            m
        };
        assert_eq!(minima(0), [(shuffles, 32), (votes, 2)]);
        assert_eq!(minima(1), [(shuffles, 64), (votes, 2)]);
        assert!(!parse(GOOD)
            .unwrap_or_else(|e| panic!("{e}"))
            .warp_require
            .any());
        // A name that is no counter, a value that is no minimum, an expression over a name no
        // test has: each an error at the key's line, naming the fix.
        let bad = |table: &str, field: &str, says: &str| {
            let text = GOOD.replace(
                "budget = {",
                &format!("warp_require = {table}\nbudget = {{"),
            );
            let inv = one_error(&text, line_with(&text, "warp_require", 0), field);
            assert!(inv.problem.contains(says), "{inv}");
        };
        bad("{ shufles = 1 }", "warp_require.shufles", "not a counter");
        bad("{ mma = -1 }", "warp_require.mma", "not a minimum");
        bad("{ mma = 1.5 }", "warp_require.mma", "not a minimum");
        bad("{ mma = \"K / 16\" }", "warp_require", "K");
        bad("{ mma = \"size - 100\" }", "warp_require", "below 0");
    }

    #[test]
    fn require_takes_expressions_worked_out_per_test_beside_its_numbers() {
        let text = GOOD.replace(
            "budget = {",
            "require = { shuffles = \"size / 8 * 32\", votes = 2 }\nbudget = {",
        );
        let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
        let (shuffles, votes) = (Counters::index("shuffles"), Counters::index("votes"));
        let (shuffles, votes) = (shuffles.expect("a counter"), votes.expect("a counter"));
        assert_eq!(
            (p.require.get(shuffles), p.require.get(votes)),
            (None, Some(2))
        );
        // Size 8, then 16: the step of each test carries its own minimum.
        for (t, want) in [(0, 32), (1, 64)] {
            let r = p.require_for(&p.tests[t]);
            assert_eq!((r.get(shuffles), r.get(votes)), (Some(want), Some(2)));
            assert_eq!(p.steps(&p.tests[t])[0].require, r);
        }
        // An expression over a name no test has, or below 0: an error at the key's line.
        for (table, says) in [
            ("{ mma = \"K / 16\" }", "K"),
            ("{ mma = \"size - 100\" }", "below 0"),
        ] {
            let text = GOOD.replace("budget = {", &format!("require = {table}\nbudget = {{"));
            let inv = one_error(&text, line_with(&text, "require", 0), "require");
            assert!(inv.problem.contains(says), "{inv}");
        }
        // Multi-launch puzzles take whole numbers only.
        let text = MULTI.replace(
            "hints = [\"one\", \"two\", \"three\"]",
            "hints = [\"one\", \"two\", \"three\"]\nrequire = { global_reads = \"n\" }",
        );
        let e = parse(&text).expect_err("an expression in a multi-launch puzzle");
        assert!(e.to_string().contains("single-launch"), "{e}");
    }

    #[test]
    fn a_kernel_sets_its_own_block_limits_or_takes_the_top_level_ones() {
        let text = MULTI
            .replace(
                "hints = [\"one\", \"two\", \"three\"]",
                "hints = [\"one\", \"two\", \"three\"]\nrequire = { global_reads = 1 }",
            )
            .replace(
                "budget = { global_reads = 1, sectors_per_access = 4 }",
                "budget = { global_reads = 1, sectors_per_access = 4 }\nrequire = { shared_writes = 1 }\nblock_budget = { global_atomics = 0 }",
            );
        let p = parse_multi(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.kernels[0].require.shared_writes, Some(1));
        assert_eq!(p.kernels[0].require.global_reads, None);
        assert_eq!(p.kernels[0].block_budget.global_atomics, Some(0));
        assert_eq!(p.kernels[1].require.global_reads, Some(1));
        assert!(!p.kernels[1].block_budget.any());
        let steps = p.steps(&p.tests[0]);
        assert_eq!(steps[1].require.global_reads, Some(1));
    }

    fn parse_multi(text: &str) -> Result<Puzzle, PuzzleError> {
        parse_puzzle(text, Path::new("puzzles/21_multi_block_scan.toml")).map(|p| p.puzzle)
    }

    /// Like `one_error`, for the multi-launch file.
    fn one_multi_error(text: &str, line: usize, field: &str) -> Invalid {
        let e = parse_multi(text).expect_err("should be rejected");
        let all = e.invalids();
        assert_eq!(all.len(), 1, "expected one error, got: {e}");
        let inv = all[0].clone();
        assert_eq!((inv.line, inv.field.as_str()), (Some(line), field), "{inv}");
        inv
    }

    #[test]
    fn a_multi_launch_file_shapes_each_test() {
        let p = parse_multi(MULTI).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.is_multi_launch());
        assert_eq!(p.kernel, "scan_blocks");
        assert_eq!(
            p.signatures(),
            [
                "extern \"C\" __global__ void scan_blocks(float* out, const float* a, float* sums, int size)",
                "extern \"C\" __global__ void add_offsets(float* out, float* sums, int n)",
            ]
        );
        assert_eq!(p.kernels[0].budget.sectors_per_access, Some(4));
        assert_eq!(p.kernels[1].budget, Budget::default());
        let t = &p.tests[1];
        assert_eq!(t.scratch["sums"].len, 13);
        assert!(!t.scratch["sums"].output);
        let steps = p.steps(t);
        assert_eq!(steps.len(), 2);
        assert_eq!((steps[0].grid, steps[0].block), ([13, 1, 1], [8, 1, 1]));
        assert_eq!(steps[1].kernel, "add_offsets");
        assert_eq!(steps[1].args[2], crate::puzzle::ArgSource::Scalar(100.0));
        assert_eq!(
            steps[1].args[1],
            crate::puzzle::ArgSource::Buffer("sums".into())
        );
        assert_eq!((t.grid, t.block), ([13, 1, 1], [8, 1, 1]));
        // The spec takes the test's buffers and scalars only, not the scratch.
        assert!(p
            .spec_source()
            .contains("(float* out, const float* a, int size)"));
    }

    #[test]
    fn a_multi_launch_test_shapes_its_launches_with_its_own_defines() {
        let text = MULTI.replacen(
            "name = \"100 elements\"",
            "name = \"100 elements\"\ndefines = { TPB = 64 }",
            1,
        );
        let p = parse_multi(&text).unwrap_or_else(|e| panic!("{e}"));
        // The first test keeps TPB = 8: two blocks of 8 for 15 elements.
        let steps = p.steps(&p.tests[0]);
        assert_eq!((steps[0].grid, steps[0].block), ([2, 1, 1], [8, 1, 1]));
        // The second: blocks of 64, so 2 of them, and a scratch of 2.
        let t = &p.tests[1];
        let steps = p.steps(t);
        assert_eq!((steps[0].grid, steps[0].block), ([2, 1, 1], [64, 1, 1]));
        assert_eq!(steps[1].grid, [2, 1, 1]);
        assert_eq!(t.scratch["sums"].len, 2);
        assert_eq!((t.grid, t.block), ([2, 1, 1], [64, 1, 1]));
        // A test's TPB that makes a launch impossible is named with the test.
        let text = MULTI.replacen(
            "name = \"100 elements\"",
            "name = \"100 elements\"\ndefines = { TPB = 2048 }",
            1,
        );
        let inv = one_multi_error(
            &text,
            line_with(&text, "kernel = \"scan_blocks\"", 0) - 1,
            "launch[0].block",
        );
        assert!(inv.problem.contains("\"100 elements\""), "{}", inv.problem);
    }

    #[test]
    fn a_launch_of_an_unknown_kernel_is_rejected() {
        let text = MULTI.replacen("kernel = \"add_offsets\"", "kernel = \"add_offset\"", 1);
        let e = parse_multi(&text).unwrap_err();
        let all = e.invalids();
        let inv = all[0];
        assert_eq!(inv.field, "launch[1].kernel");
        assert_eq!(
            inv.line,
            Some(line_with(&text, "kernel = \"add_offset\"", 0))
        );
        assert!(inv.problem.contains("unknown kernel `add_offset`"), "{inv}");
        assert!(inv.help.contains("scan_blocks, add_offsets"), "{inv}");
        // And the kernel no launch names is reported too.
        assert_eq!(all.len(), 2, "{e}");
        assert!(
            all[1].problem.contains("`add_offsets` is never launched"),
            "{e}"
        );
    }

    #[test]
    fn a_launch_argument_that_is_no_buffer_is_rejected() {
        let text = MULTI.replace(
            "args = { n = \"size\" }",
            "args = { sums = \"totals\", n = \"size\" }",
        );
        let inv = one_multi_error(&text, line_with(&text, "args =", 0), "launch[1].args.sums");
        assert!(
            inv.problem
                .contains("`totals` is not a buffer, scratch buffer or scalar"),
            "{inv}"
        );
        assert!(inv.help.contains("out, a, size, sums"), "{inv}");
        // A parameter without args gets the buffer of its own name, which must exist too.
        let text = MULTI.replace(
            "params = [\"out\", \"sums\", \"n\"]",
            "params = [\"out\", \"partial\", \"n\"]",
        );
        let inv = one_multi_error(
            &text,
            line_with(&text, "[[launch]]", 1),
            "launch[1].args.partial",
        );
        assert!(inv.problem.contains("`partial`"), "{inv}");
        // Args may only name the kernel's parameters.
        let text = MULTI.replace(
            "args = { n = \"size\" }",
            "args = { n = \"size\", m = \"size\" }",
        );
        let inv = one_multi_error(&text, line_with(&text, "args =", 0), "launch[1].args.m");
        assert!(
            inv.problem
                .contains("not a parameter of kernel `add_offsets`"),
            "{inv}"
        );
    }

    #[test]
    fn a_scratch_size_that_cannot_be_computed_is_rejected() {
        let text = MULTI.replace("(size + TPB - 1) / TPB\" }", "(n + TPB - 1) / TPB\" }");
        let e = parse_multi(&text).unwrap_err();
        let all = e.invalids();
        // Once per test, each naming the test, at the line of `len`.
        assert_eq!(all.len(), 2, "{e}");
        let line = line_with(&text, "sums = {", 0);
        assert_eq!(
            (all[0].line, all[0].field.as_str()),
            (Some(line), "scratch.sums.len")
        );
        assert!(all[0].problem.contains("cannot compute"), "{}", all[0]);
        assert!(all[0].problem.contains("`n` is not a scalar"), "{}", all[0]);
        assert!(all[0].problem.contains("\"15 elements\""), "{}", all[0]);
        // A size past the cap is an error too, not an allocation failure.
        let text = MULTI.replace("(size + TPB - 1) / TPB\" }", "size * 10000000\" }");
        let e = parse_multi(&text).unwrap_err();
        assert!(e.to_string().contains("1 to 268435456"), "{e}");
    }

    #[test]
    fn a_launch_shape_that_cannot_be_computed_is_rejected() {
        let text = MULTI.replace("block = [8]", "block = [\"TBP\"]");
        let e = parse_multi(&text).unwrap_err();
        let inv = e.invalids()[0].clone();
        assert_eq!(inv.field, "launch[1].block");
        assert_eq!(inv.line, Some(line_with(&text, "[[launch]]", 1)));
        assert!(inv.problem.contains("`TBP` is not a scalar"), "{inv}");
        let text = MULTI.replace("block = [8]", "block = [\"size * 100\"]");
        let e = parse_multi(&text).unwrap_err();
        assert!(e.to_string().contains("beyond CUDA's limits"), "{e}");
    }

    #[test]
    fn single_and_multi_launch_fields_do_not_mix() {
        let text = MULTI.replace(
            "params = [\"out\", \"a\", \"size\"]\n",
            "kernel = \"scan\"\nparams = [\"out\", \"a\", \"size\"]\n",
        );
        one_multi_error(&text, line_with(&text, "kernel = \"scan\"", 0), "kernel");
        let text = MULTI.replacen(
            "scalars = { size = 15 }",
            "grid = [2]\nscalars = { size = 15 }",
            1,
        );
        one_multi_error(&text, line_with(&text, "grid = [2]", 0), "test[0].grid");
        let cut = MULTI.find("[[launch]]").unwrap();
        let tests = MULTI.find("[[test]]").unwrap();
        let text = format!("{}{}", &MULTI[..cut], &MULTI[tests..]);
        let e = parse_multi(&text).unwrap_err();
        assert!(e.to_string().contains("no [[launch]]"), "{e}");
        let text = MULTI.replace("kernel = \"add_offsets\"", "kernel = \"scan_blocks\"");
        let e = parse_multi(&text).unwrap_err();
        assert!(
            e.to_string().contains("`add_offsets` is never launched"),
            "{e}"
        );
        let text = GOOD.replace("hints =", "scratch.tmp = { len = 4 }\nhints =");
        let e = parse(&text).unwrap_err();
        assert!(e.to_string().contains("[scratch]"), "{e}");
    }

    #[test]
    fn a_huge_buffer_is_rejected_at_its_line() {
        let text = GOOD.replace(
            "buffers.a = { len = 8, init = \"arange\" }",
            "buffers.a = { len = 10000000000, init = \"arange\" }",
        );
        let inv = one_error(
            &text,
            line_with(&text, "10000000000", 0),
            "test[0].buffers.a.len",
        );
        assert!(inv.problem.contains("10000000000 elements"), "{inv}");
        assert!(inv.help.contains("268435456"), "{inv}");
        let text = GOOD.replacen("block = [8]", "block = [8]\nshared_bytes = 4000000000", 1);
        let inv = one_error(
            &text,
            line_with(&text, "[[test]]", 0),
            "test[0].shared_bytes",
        );
        assert!(inv.problem.contains("more than a GPU has"), "{inv}");
        let text = GOOD.replace("shape = [4, 4]", "shape = [100000, 100000]");
        let e = parse(&text).unwrap_err();
        assert!(e.to_string().contains("more than gpuzzle allows"), "{e}");
    }

    #[test]
    fn include_dirs_resolve_against_the_puzzle_files_folder() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let puzzles = dir.path().join("puzzles");
        std::fs::create_dir_all(puzzles.join("inc")).unwrap_or_else(|e| panic!("{e}"));
        let path = puzzles.join("09_pooling.toml");
        let text = format!("include_dirs = [\"inc\", \".\"]\n{GOOD}");
        let p = parse_puzzle(&text, &path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            p.puzzle.include_dirs,
            vec![puzzles.join("inc"), puzzles.join(".")]
        );
        assert!(parse(GOOD)
            .map(|p| p.include_dirs.is_empty())
            .unwrap_or(false));

        let text = format!("include_dirs = [\"inc\", \"missing\"]\n{GOOD}");
        let e = parse_puzzle(&text, &path).expect_err("a missing folder is rejected");
        let all = e.invalids();
        assert_eq!(all.len(), 1, "{e}");
        assert_eq!(all[0].field, "include_dirs[1]");
        assert_eq!(all[0].line, Some(1));
        let shown = e.to_string();
        assert!(shown.contains("09_pooling.toml:1"), "{shown}");
        assert!(shown.contains("\"missing\" does not exist"), "{shown}");
        assert!(
            shown.contains(&puzzles.join("missing").display().to_string()),
            "{shown}"
        );
    }

    #[test]
    fn a_step_limit_is_optional_and_bounded() {
        assert_eq!(
            parse(GOOD).unwrap_or_else(|e| panic!("{e}")).step_limit,
            None
        );
        let big = GOOD.replace("hints = [", "step_limit = 60_000_000\nhints = [");
        assert_eq!(
            parse(&big).unwrap_or_else(|e| panic!("{e}")).step_limit,
            Some(60_000_000)
        );
        let small = GOOD.replace("hints = [", "step_limit = 500\nhints = [");
        let inv = one_error(&small, line_with(&small, "step_limit =", 0), "step_limit");
        assert!(inv.problem.contains("outside 1_000_000"), "{inv:?}");
    }

    #[test]
    fn points_default_to_one_and_are_bounded() {
        assert_eq!(parse(GOOD).unwrap_or_else(|e| panic!("{e}")).points, 1);
        let three = GOOD.replace("hints = [", "points = 3\nhints = [");
        assert_eq!(parse(&three).unwrap_or_else(|e| panic!("{e}")).points, 3);
        let zero = GOOD.replace("hints = [", "points = 0\nhints = [");
        assert_eq!(parse(&zero).unwrap_or_else(|e| panic!("{e}")).points, 0);
        let big = GOOD.replace("hints = [", "points = 5000\nhints = [");
        let inv = one_error(&big, line_with(&big, "points =", 0), "points");
        assert!(inv.problem.contains("5000"), "{}", inv.problem);
        let negative = GOOD.replace("hints = [", "points = -2\nhints = [");
        let e = parse(&negative).expect_err("negative points are rejected");
        assert!(e.to_string().contains("points"), "{e}");
    }

    #[test]
    fn arch_and_cooperative_are_read_and_checked() {
        let plain = parse(GOOD).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((plain.arch, plain.cooperative), (None, false));
        let hopper = GOOD.replace(
            "hints = [",
            "arch = \"sm_90\"\ncooperative = true\nhints = [",
        );
        let p = parse(&hopper).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.arch, Some(crate::compile::Arch::Sm90));
        assert!(p.cooperative);
        let turing = GOOD.replace("hints = [", "arch = \"sm_75\"\nhints = [");
        let inv = one_error(&turing, line_with(&turing, "arch =", 0), "arch");
        assert!(inv.problem.contains("sm_75"), "{}", inv.problem);
        assert!(inv.help.contains("sm_90"), "{}", inv.help);
    }
}
