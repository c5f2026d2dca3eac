//! The multi-launch part of a puzzle file: `[[kernels]]`, `[[launch]]` and `[scratch]`. Checks
//! every name a launch uses, then computes each test's launch shapes and scratch sizes from its
//! scalars and the numeric defines (with the test's own values, `[[test]] defines`), so that
//! the judge only runs concrete launches.

use super::error::PuzzleError;
use super::expr;
use super::model::{
    merge_defines, ArgSource, BufferSpec, Init, KernelDef, LaunchStep, Param, ParamKind, TestCase,
};
use super::parse::{is_c_identifier, Ctx, MAX_BUFFER_LEN, TYPE_HELP};
use super::schema::{RawKernel, RawLaunch, RawPuzzle, RawScratch};
use crate::emu::value::ElemType;
use crate::puzzle::{BlockLimits, Budget};

/// The top-level limits, which a `[[kernels]]` table without its own inherits.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TopLimits {
    pub budget: Budget,
    pub block_budget: BlockLimits,
    pub require: BlockLimits,
}
use std::collections::BTreeMap;
use std::ops::Range;
use std::str::FromStr;
use toml::Spanned;

/// Most dynamic shared memory a launch may ask for (the largest GPUs have 227 KiB per block).
pub(super) const MAX_SHARED_BYTES: i64 = 227 * 1024;

const EXPR_HELP: &str = "write a number or arithmetic over the test's scalars and the numeric defines, e.g. \"(size + TPB - 1) / TPB\" (`/` rounds down, as in C)";

/// The checked multi-launch part: the kernels, and per test (in order) its scratch buffers and
/// its launches.
pub(super) struct MultiLaunch {
    pub kernels: Vec<KernelDef>,
    pub per_test: Vec<(BTreeMap<String, BufferSpec>, Vec<LaunchStep>)>,
}

/// A number or an expression, as written.
enum Amount {
    Fixed(i64),
    Expr(String),
}

impl Amount {
    fn eval(&self, vars: &BTreeMap<String, f64>) -> Result<i64, String> {
        match self {
            Amount::Fixed(v) => Ok(*v),
            Amount::Expr(e) => expr::eval_int(e, vars),
        }
    }

    fn text(&self) -> String {
        match self {
            Amount::Fixed(v) => v.to_string(),
            Amount::Expr(e) => format!("\"{e}\""),
        }
    }
}

/// What a launch binds a parameter to, before a test gives the values.
#[derive(Clone)]
enum Bind {
    Buffer(String),
    /// A spec scalar, by name.
    Scalar(String),
    Expr(String),
}

/// What a kernel parameter turned out to be, from its first launch.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Buffer { ty: ElemType, writable: bool },
    Scalar,
}

struct Launch<'a> {
    kernel: usize,
    grid: Vec<Amount>,
    block: Vec<Amount>,
    shared: Amount,
    binds: Vec<Bind>,
    raw: &'a Spanned<RawLaunch>,
}

struct Scratch<'a> {
    name: &'a str,
    ty: ElemType,
    len: Amount,
    raw: &'a Spanned<RawScratch>,
}

/// Check `[[kernels]]`, `[[launch]]` and `[scratch]` against the spec's parameters, and shape
/// every test's launches. `None` when something is wrong (pushed to `errs`).
pub(super) fn parse_multi(
    cx: &Ctx,
    raw: &RawPuzzle,
    spec_params: &[Param],
    tests: &[(Range<usize>, &str, &TestCase)],
    top: TopLimits,
    defines: &[(String, Option<String>)],
    errs: &mut Vec<PuzzleError>,
) -> Option<MultiLaunch> {
    let before = errs.len();
    let scratch = scratch_decls(cx, raw, spec_params, errs);
    let mut kernels: Vec<(KernelDef, Vec<Option<ElemType>>)> = Vec::new();
    for (i, k) in raw.kernels.iter().enumerate() {
        if let Some(def) = kernel_decl(cx, k, i, top, &kernels, errs) {
            kernels.push(def);
        }
    }
    if raw.launches.is_empty() {
        errs.push(cx.err(
            &(0..0),
            "launch",
            "the puzzle lists [[kernels]] but no [[launch]]",
            "add one [[launch]] table per launch, in order: kernel, grid, block (and args)",
        ));
    }
    // A launch may name any numeric define, the puzzle's or one a test gives a number.
    let mut numeric_names = numeric_defines(defines);
    for (_, _, t) in tests {
        numeric_names.extend(numeric_defines(&t.defines));
    }
    let mut kinds: Vec<Vec<Option<Kind>>> = kernels
        .iter()
        .map(|(k, _)| vec![None; k.params.len()])
        .collect();
    let mut launches = Vec::new();
    for (i, l) in raw.launches.iter().enumerate() {
        let field = format!("launch[{i}]");
        let names: Vec<&str> = kernels.iter().map(|(k, _)| k.name.as_str()).collect();
        let Some(ki) = names
            .iter()
            .position(|n| *n == l.get_ref().kernel.get_ref())
        else {
            errs.push(cx.err(
                &l.get_ref().kernel.span(),
                format!("{field}.kernel"),
                format!("unknown kernel `{}`", l.get_ref().kernel.get_ref()),
                format!(
                    "launch one of the [[kernels]] by name: {}",
                    if names.is_empty() {
                        "none is declared".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
            continue;
        };
        let binds = launch_binds(
            cx,
            l,
            &field,
            &kernels[ki].0,
            spec_params,
            &scratch,
            &numeric_names,
            &mut kinds[ki],
            errs,
        );
        let dims = |v: &Spanned<Vec<toml::Value>>, what: &str, errs: &mut Vec<PuzzleError>| {
            let f = format!("{field}.{what}");
            if v.get_ref().is_empty() || v.get_ref().len() > 3 {
                errs.push(cx.err(
                    &v.span(),
                    &f,
                    format!("has {} dimensions", v.get_ref().len()),
                    format!(
                        "give 1 to 3 numbers or expressions (x, y, z), e.g. {what} = [\"TPB\"]"
                    ),
                ));
                return Vec::new();
            }
            v.get_ref()
                .iter()
                .filter_map(|d| amount(cx, d, &v.span(), &f, errs))
                .collect()
        };
        let grid = dims(&l.get_ref().grid, "grid", errs);
        let block = dims(&l.get_ref().block, "block", errs);
        let shared = match &l.get_ref().shared_bytes {
            None => Some(Amount::Fixed(0)),
            Some(s) => amount(
                cx,
                s.get_ref(),
                &s.span(),
                &format!("{field}.shared_bytes"),
                errs,
            ),
        };
        if let (Some(binds), Some(shared)) = (binds, shared) {
            launches.push(Launch {
                kernel: ki,
                grid,
                block,
                shared,
                binds,
                raw: l,
            });
        }
    }
    for (ki, (k, _)) in kernels.iter().enumerate() {
        // Named by a launch, even one with other mistakes (reported on their own).
        let launched = raw
            .launches
            .iter()
            .any(|l| *l.get_ref().kernel.get_ref() == k.name);
        if !raw.launches.is_empty() && !launched {
            errs.push(cx.err(
                &raw.kernels[ki].span(),
                format!("kernels[{ki}]"),
                format!("kernel `{}` is never launched", k.name),
                "add a [[launch]] with kernel = \"...\" for it, or remove it",
            ));
        }
    }
    // Each parameter's kind comes from its launches; a declared type must agree.
    let kernels: Vec<KernelDef> = kernels
        .into_iter()
        .zip(&kinds)
        .enumerate()
        .map(|(ki, ((mut k, declared), kinds))| {
            for ((p, kind), ty) in k.params.iter_mut().zip(kinds).zip(declared) {
                (p.kind, p.output) = match kind {
                    Some(Kind::Buffer { ty: bty, writable }) => {
                        if let Some(d) = ty.filter(|d| d != bty) {
                            errs.push(cx.err(
                                &raw.kernels[ki].span(),
                                format!("kernels[{ki}].params"),
                                format!(
                                    "parameter `{}` of `{}` is declared {d} but receives a buffer of {bty}",
                                    p.name, k.name
                                ),
                                "make them agree, or leave the type out (it follows from the buffer)",
                            ));
                        }
                        (ParamKind::Buffer(*bty), *writable)
                    }
                    _ => (ParamKind::Scalar(ty.unwrap_or(ElemType::I32)), false),
                };
            }
            k
        })
        .collect();
    if errs.len() > before {
        return None;
    }

    let mut per_test = Vec::new();
    for (_, tfield, t) in tests {
        // The test's own define values (`[[test]] defines`) shape its launches.
        let mut vars = numeric_defines(&merge_defines(defines, &t.defines));
        vars.extend(t.scalars.iter().map(|(k, v)| (k.clone(), *v)));
        let here = |what: String| format!("{what} (in {tfield}, \"{}\")", t.name);
        let mut scratch_specs = BTreeMap::new();
        for s in &scratch {
            let field = format!("scratch.{}.len", s.name);
            match s.len.eval(&vars) {
                Ok(n) if (1..=MAX_BUFFER_LEN as i64).contains(&n) => {
                    scratch_specs.insert(
                        s.name.to_string(),
                        BufferSpec {
                            ty: s.ty,
                            len: n as usize,
                            init: Init::Zeros,
                            zeroed: false,
                            output: false,
                            shape: None,
                            fixed: false,
                        },
                    );
                }
                Ok(n) => errs.push(cx.err(
                    &s.raw.get_ref().len.span(),
                    field,
                    here(format!("{} is {n} elements", s.len.text())),
                    format!("a scratch buffer holds 1 to {MAX_BUFFER_LEN} (2^28) elements; size it from the test's scalars"),
                )),
                Err(problem) => errs.push(cx.err(
                    &s.raw.get_ref().len.span(),
                    field,
                    here(format!("cannot compute {}: {problem}", s.len.text())),
                    EXPR_HELP,
                )),
            }
        }
        let mut steps = Vec::new();
        for (li, l) in launches.iter().enumerate() {
            let lf = format!("launch[{li}]");
            let k = &kernels[l.kernel];
            let mut eval_dims = |ds: &[Amount], what: &str| -> Option<[u32; 3]> {
                let mut d = [1u32; 3];
                for (j, a) in ds.iter().enumerate() {
                    match a.eval(&vars) {
                        Ok(v) if (1..=i64::from(u32::MAX)).contains(&v) => d[j] = v as u32,
                        Ok(v) => {
                            errs.push(cx.err(
                                &l.raw.span(),
                                format!("{lf}.{what}"),
                                here(format!("{} is {v}", a.text())),
                                format!("every dimension of the {what} must be at least 1"),
                            ));
                            return None;
                        }
                        Err(problem) => {
                            errs.push(cx.err(
                                &l.raw.span(),
                                format!("{lf}.{what}"),
                                here(format!("cannot compute {}: {problem}", a.text())),
                                EXPR_HELP,
                            ));
                            return None;
                        }
                    }
                }
                Some(d)
            };
            let grid = eval_dims(&l.grid, "grid");
            let block = eval_dims(&l.block, "block");
            if let Some(b) = block {
                let threads: u64 = b.iter().map(|&x| x as u64).product();
                if b[0] > 1024 || b[1] > 1024 || b[2] > 64 || threads > 1024 {
                    errs.push(cx.err(
                        &l.raw.span(),
                        format!("{lf}.block"),
                        here(format!("{threads} threads per block is beyond CUDA's limits")),
                        "a block has at most 1024 threads (x, y <= 1024, z <= 64); use more blocks instead",
                    ));
                }
            }
            if let Some(g) = grid {
                if g[1] > 65535 || g[2] > 65535 {
                    errs.push(cx.err(
                        &l.raw.span(),
                        format!("{lf}.grid"),
                        here("the grid's y or z is above 65535".to_string()),
                        "CUDA allows at most 65535 blocks in y and z; put the large dimension in x",
                    ));
                }
            }
            let shared = match l.shared.eval(&vars) {
                Ok(v) if (0..=MAX_SHARED_BYTES).contains(&v) => Some(v as u32),
                Ok(v) => {
                    errs.push(cx.err(
                        &l.raw.span(),
                        format!("{lf}.shared_bytes"),
                        here(format!("{} is {v} bytes", l.shared.text())),
                        format!("dynamic shared memory is 0 to {MAX_SHARED_BYTES} bytes"),
                    ));
                    None
                }
                Err(problem) => {
                    errs.push(cx.err(
                        &l.raw.span(),
                        format!("{lf}.shared_bytes"),
                        here(format!("cannot compute {}: {problem}", l.shared.text())),
                        EXPR_HELP,
                    ));
                    None
                }
            };
            let mut args = Vec::new();
            for (p, b) in k.params.iter().zip(&l.binds) {
                let value = match b {
                    Bind::Buffer(name) => {
                        args.push(ArgSource::Buffer(name.clone()));
                        continue;
                    }
                    Bind::Scalar(name) => Ok(t.scalars.get(name).copied().unwrap_or(0.0)),
                    Bind::Expr(e) if p.elem_type().is_float() => expr::eval(e, &vars),
                    Bind::Expr(e) => expr::eval_int(e, &vars).map(|v| v as f64),
                };
                match value {
                    Ok(v) => args.push(ArgSource::Scalar(v)),
                    Err(problem) => errs.push(cx.err(
                        &l.raw.span(),
                        format!("{lf}.args.{}", p.name),
                        here(format!(
                            "cannot compute the value of `{}`: {problem}",
                            p.name
                        )),
                        EXPR_HELP,
                    )),
                }
            }
            if let (Some(grid), Some(block), Some(shared)) = (grid, block, shared) {
                steps.push(LaunchStep {
                    kernel: l.kernel,
                    grid,
                    block,
                    shared_bytes: shared,
                    args,
                });
            }
        }
        per_test.push((scratch_specs, steps));
    }
    if errs.len() > before {
        return None;
    }
    Some(MultiLaunch { kernels, per_test })
}

/// The defines that are numbers (`TPB = 8`), as expression variables.
pub(super) fn numeric_defines(defines: &[(String, Option<String>)]) -> BTreeMap<String, f64> {
    defines
        .iter()
        .filter_map(|(n, v)| Some((n.clone(), v.as_deref()?.trim().parse::<f64>().ok()?)))
        .collect()
}

/// A dimension or size as written: a whole number or an expression string.
fn amount(
    cx: &Ctx,
    v: &toml::Value,
    span: &Range<usize>,
    field: &str,
    errs: &mut Vec<PuzzleError>,
) -> Option<Amount> {
    match v {
        toml::Value::Integer(i) => Some(Amount::Fixed(*i)),
        toml::Value::String(s) if !s.trim().is_empty() => Some(Amount::Expr(s.trim().to_string())),
        _ => {
            errs.push(cx.err(
                span,
                field,
                "must be a whole number or an expression string",
                EXPR_HELP,
            ));
            None
        }
    }
}

fn scratch_decls<'a>(
    cx: &Ctx,
    raw: &'a RawPuzzle,
    spec_params: &[Param],
    errs: &mut Vec<PuzzleError>,
) -> Vec<Scratch<'a>> {
    let mut out = Vec::new();
    for (name, s) in &raw.scratch {
        let field = format!("scratch.{name}");
        if !is_c_identifier(name) {
            errs.push(cx.err(
                &s.span(),
                &field,
                format!("`{name}` is not a valid buffer name"),
                "use letters, digits and _, starting with a letter: block_sums",
            ));
            continue;
        }
        if spec_params.iter().any(|p| p.name == *name) {
            errs.push(cx.err(
                &s.span(),
                &field,
                format!("`{name}` is also a parameter of the spec"),
                "a scratch buffer is neither input nor output: give it its own name",
            ));
            continue;
        }
        let ty = match &s.get_ref().ty {
            None => ElemType::F32,
            Some(t) => match ElemType::from_str(t.get_ref()) {
                Ok(ty) => ty,
                Err(e) => {
                    errs.push(cx.err(&t.span(), format!("{field}.type"), e, TYPE_HELP));
                    continue;
                }
            },
        };
        let len_span = s.get_ref().len.span();
        let Some(len) = amount(
            cx,
            s.get_ref().len.get_ref(),
            &len_span,
            &format!("{field}.len"),
            errs,
        ) else {
            continue;
        };
        out.push(Scratch {
            name,
            ty,
            len,
            raw: s,
        });
    }
    out
}

/// One `[[kernels]]` table: its name, its parameters (kinds come from the launches) and the
/// declared types, for the launches to check against.
fn kernel_decl(
    cx: &Ctx,
    k: &Spanned<RawKernel>,
    i: usize,
    top: TopLimits,
    seen: &[(KernelDef, Vec<Option<ElemType>>)],
    errs: &mut Vec<PuzzleError>,
) -> Option<(KernelDef, Vec<Option<ElemType>>)> {
    let field = format!("kernels[{i}]");
    let raw = k.get_ref();
    let name = raw.name.get_ref();
    if !is_c_identifier(name) || name == super::model::SPEC_KERNEL {
        errs.push(cx.err(
            &raw.name.span(),
            format!("{field}.name"),
            format!("`{name}` cannot be a kernel's name"),
            "give the name of an `extern \"C\" __global__` function in the .cu file: letters, digits and _",
        ));
        return None;
    }
    if seen.iter().any(|(d, _)| d.name == *name) {
        errs.push(cx.err(
            &raw.name.span(),
            format!("{field}.name"),
            format!("kernel `{name}` is declared twice"),
            "declare each kernel once; launch it as often as needed with [[launch]]",
        ));
        return None;
    }
    if raw.params.get_ref().is_empty() {
        errs.push(cx.err(
            &raw.params.span(),
            format!("{field}.params"),
            "the kernel has no parameters",
            "list the kernel's parameters in order, e.g. params = [\"out\", \"a\", \"size\"]",
        ));
    }
    let mut params: Vec<Param> = Vec::new();
    let mut types = Vec::new();
    for (j, p) in raw.params.get_ref().iter().enumerate() {
        let (pname, ty) = match p.get_ref().split_once(':') {
            Some((n, t)) => (n.trim(), Some(t.trim())),
            None => (p.get_ref().trim(), None),
        };
        let pfield = format!("{field}.params[{j}]");
        if !is_c_identifier(pname) || params.iter().any(|q| q.name == pname) {
            errs.push(cx.err(
                &p.span(),
                pfield,
                format!("`{pname}` is not a valid parameter name, or is listed twice"),
                "write each C parameter name once, optionally with a type: \"size\" or \"size: u32\"",
            ));
            continue;
        }
        let ty = match ty.map(ElemType::from_str) {
            None => None,
            Some(Ok(t)) => Some(t),
            Some(Err(e)) => {
                errs.push(cx.err(&p.span(), pfield, e, TYPE_HELP));
                None
            }
        };
        params.push(Param {
            name: pname.to_string(),
            kind: ParamKind::Scalar(ty.unwrap_or(ElemType::I32)),
            output: false,
        });
        types.push(ty);
    }
    let budget = raw.budget.as_ref().map_or(top.budget, |b| *b.get_ref());
    let block_budget = (raw.block_budget.as_ref()).map_or(top.block_budget, |b| *b.get_ref());
    let require = raw.require.as_ref().map_or(top.require, |b| *b.get_ref());
    Some((
        KernelDef {
            name: name.clone(),
            params,
            budget,
            block_budget,
            require,
        },
        types,
    ))
}

/// What each parameter of `kernel` receives in launch `l`, checked against what it received
/// in earlier launches (`kinds`).
#[allow(clippy::too_many_arguments)]
fn launch_binds(
    cx: &Ctx,
    l: &Spanned<RawLaunch>,
    field: &str,
    kernel: &KernelDef,
    spec_params: &[Param],
    scratch: &[Scratch],
    defines: &BTreeMap<String, f64>,
    kinds: &mut [Option<Kind>],
    errs: &mut Vec<PuzzleError>,
) -> Option<Vec<Bind>> {
    let before = errs.len();
    let args = &l.get_ref().args;
    for (pname, v) in args {
        if !kernel.params.iter().any(|p| p.name == *pname) {
            errs.push(cx.err(
                &v.span(),
                format!("{field}.args.{pname}"),
                format!("`{pname}` is not a parameter of kernel `{}`", kernel.name),
                format!(
                    "name one of its parameters: {}",
                    kernel.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    let mut binds = Vec::new();
    let mut buffers_here: Vec<String> = Vec::new();
    for (j, p) in kernel.params.iter().enumerate() {
        let (source, span) = match args.get(&p.name) {
            Some(v) => (v.get_ref().trim(), v.span()),
            None => (p.name.as_str(), l.span()),
        };
        let afield = format!("{field}.args.{}", p.name);
        let (bind, kind) = if let Some(sp) = spec_params.iter().find(|s| s.name == source) {
            match sp.kind {
                ParamKind::Buffer(ty) => (
                    Bind::Buffer(source.to_string()),
                    Kind::Buffer {
                        ty,
                        writable: sp.output,
                    },
                ),
                ParamKind::Scalar(_) => (Bind::Scalar(source.to_string()), Kind::Scalar),
            }
        } else if let Some(s) = scratch.iter().find(|s| s.name == source) {
            (
                Bind::Buffer(source.to_string()),
                Kind::Buffer {
                    ty: s.ty,
                    writable: true,
                },
            )
        } else if is_c_identifier(source) && !defines.contains_key(source) {
            let mut names: Vec<&str> = spec_params.iter().map(|p| p.name.as_str()).collect();
            names.extend(scratch.iter().map(|s| s.name));
            errs.push(cx.err(
                &span,
                afield,
                format!(
                    "`{source}` is not a buffer, scratch buffer or scalar of the puzzle (for parameter `{}` of `{}`)",
                    p.name, kernel.name
                ),
                format!(
                    "pass one of: {}; or declare it under [scratch] with a type and len, or bind the parameter with args = {{ {} = \"name\" }}",
                    names.join(", "),
                    p.name
                ),
            ));
            continue;
        } else {
            (Bind::Expr(source.to_string()), Kind::Scalar)
        };
        if let Bind::Buffer(b) = &bind {
            if buffers_here.contains(b) {
                errs.push(cx.err(
                    &span,
                    afield,
                    format!("buffer `{b}` is passed twice to one launch"),
                    "give each pointer parameter its own buffer (gpuzzle keeps buffers apart)",
                ));
                continue;
            }
            buffers_here.push(b.clone());
        }
        match kinds[j] {
            None => kinds[j] = Some(kind),
            Some(first) if first != kind => {
                errs.push(cx.err(
                    &span,
                    afield,
                    format!(
                        "parameter `{}` of `{}` gets {} here but {} in an earlier launch",
                        p.name,
                        kernel.name,
                        describe(kind),
                        describe(first)
                    ),
                    "a parameter has one C type: pass it the same kind of argument in every launch",
                ));
                continue;
            }
            Some(_) => {}
        }
        binds.push(bind);
    }
    (errs.len() == before).then_some(binds)
}

fn describe(k: Kind) -> String {
    match k {
        Kind::Buffer { ty, writable: true } => format!("a writable buffer of {ty}"),
        Kind::Buffer {
            ty,
            writable: false,
        } => format!("an input buffer of {ty}"),
        Kind::Scalar => "a value".to_string(),
    }
}
