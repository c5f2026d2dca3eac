//! `[unseen]`: the test `gpuzzle check` (and `gpuzzle lint`) adds to a puzzle, at a size the
//! learner cannot see in advance, so that a kernel with a hard-coded size fails.
//!
//! The table is written like a `[[test]]` whose numbers may be ranges and expressions:
//! a scalar is a number, `[lo, hi]` (whole numbers, inclusive: drawn) or an expression string
//! over the other scalars and the numeric defines; `grid`, `block`, `shared_bytes` and a buffer's
//! `len` or `shape` are numbers or expressions. A scalar whose name starts with `_` is a helper:
//! drawn or computed like the others and usable in their expressions, but no kernel parameter,
//! so it is left out of the test (`n = "256 * _blocks - 3"` draws a size that fills whole
//! blocks). This module turns it into a plain `RawTest`
//! (spans kept, so errors name the `[unseen]` lines), which `parse` then checks like any test.
//!
//! The draw is fixed by the pack version: a ranged scalar `NAME` of puzzle `ID` (`SLUG`) is
//! `lo + h % (hi - lo + 1)`, where `h` is FNV-1a (64-bit, then the SplitMix64 finaliser) of
//! `gpuzzle VERSION unseen ID SLUG scalar NAME`, VERSION being gpuzzle's `CARGO_PKG_VERSION`.
//! A `random` buffer without its own `seed` gets `h` of `... buffer NAME`. The same gpuzzle
//! draws the same test every time; a new release draws again.

use super::error::PuzzleError;
use super::expr;
use super::parse::Ctx;
use super::schema::{RawBuffer, RawTest, RawUnseen, RawUnseenBuffer};
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

const EXPR_HELP: &str = "write a number or arithmetic over the unseen test's scalars and the numeric defines, e.g. \"(size + TPB - 1) / TPB\" (`/` rounds down, as in C)";

const SCALAR_HELP: &str = "write a number (size = 100), a range to draw from (size = [40, 200], whole numbers, inclusive) or an expression over the other scalars and the numeric defines (size = \"2 * n\")";

/// The unseen test as a plain test, with what was drawn.
pub(super) struct Concrete {
    pub test: Spanned<RawTest>,
    /// The scalars drawn from a range, by name, with their values (helpers left out).
    pub drawn: Vec<(String, f64)>,
}

/// A helper scalar (`_blocks`): serves the other scalars' expressions, passed to no kernel.
pub(crate) fn is_helper(name: &str) -> bool {
    name.starts_with('_')
}

/// The key every draw of this puzzle starts from.
fn key(id: u32, slug: &str) -> String {
    format!("gpuzzle {} unseen {id} {slug}", env!("CARGO_PKG_VERSION"))
}

/// FNV-1a over `text`, then SplitMix64's finaliser (FNV's low bits alone are poorly mixed).
pub(super) fn hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The value drawn for scalar `name` in `lo..=hi`.
pub(super) fn draw(id: u32, slug: &str, name: &str, lo: i64, hi: i64) -> i64 {
    let span = (hi - lo) as u64 + 1;
    let h = hash(&format!("{} scalar {name}", key(id, slug)));
    lo + (h % span) as i64
}

/// The seed of an unseen `random` buffer that does not give its own.
fn buffer_seed(id: u32, slug: &str, name: &str) -> u64 {
    hash(&format!("{} buffer {name}", key(id, slug)))
}

/// A number as a test's name shows it: `137`, `2.5`.
pub fn show_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// `unseen size (size = 137)`: the drawn scalars, else every scalar.
pub(crate) fn test_name(drawn: &[(String, f64)], scalars: &BTreeMap<String, f64>) -> String {
    let shown: Vec<String> = if drawn.is_empty() {
        scalars
            .iter()
            .map(|(n, v)| format!("{n} = {}", show_number(*v)))
            .collect()
    } else {
        drawn
            .iter()
            .map(|(n, v)| format!("{n} = {}", show_number(*v)))
            .collect()
    };
    if shown.is_empty() {
        "unseen size".to_string()
    } else {
        format!("unseen size ({})", shown.join(", "))
    }
}

/// Evaluates a number or expression (value, its span, its field), pushing an error on failure.
type Amount<'a> =
    dyn Fn(&toml::Value, &Range<usize>, &str, &mut Vec<PuzzleError>) -> Option<i64> + 'a;

/// How one scalar is written.
enum Written {
    Value(f64),
    Range(i64, i64),
    Expr(String),
}

/// The `[unseen]` table as a plain test; `None` when it has errors (pushed to `errs`).
/// `vars` holds the numeric defines (the puzzle's, then the unseen test's own);
/// `is_float(name)` says whether a scalar parameter is declared a floating-point type.
#[allow(clippy::too_many_arguments)]
pub(super) fn concretize(
    cx: &Ctx,
    raw: &Spanned<RawUnseen>,
    id: u32,
    slug: &str,
    defines: &BTreeMap<String, f64>,
    is_float: &dyn Fn(&str) -> bool,
    multi: bool,
    errs: &mut Vec<PuzzleError>,
) -> Option<Concrete> {
    let before = errs.len();
    let u = raw.get_ref();
    let mut written = Vec::new();
    for (name, v) in &u.scalars {
        let field = format!("unseen.scalars.{name}");
        let w = match v.get_ref() {
            toml::Value::Integer(i) => Written::Value(*i as f64),
            toml::Value::Float(f) => Written::Value(*f),
            toml::Value::String(s) if !s.trim().is_empty() => Written::Expr(s.trim().to_string()),
            toml::Value::Array(a) => match a.as_slice() {
                [toml::Value::Integer(lo), toml::Value::Integer(hi)] if lo <= hi => {
                    Written::Range(*lo, *hi)
                }
                [toml::Value::Integer(lo), toml::Value::Integer(hi)] => {
                    errs.push(cx.err(
                        &v.span(),
                        field,
                        format!("the range [{lo}, {hi}] is empty"),
                        "write [lo, hi] with lo <= hi",
                    ));
                    continue;
                }
                _ => {
                    errs.push(cx.err(
                        &v.span(),
                        field,
                        "a range is two whole numbers, [lo, hi]",
                        SCALAR_HELP,
                    ));
                    continue;
                }
            },
            _ => {
                errs.push(cx.err(
                    &v.span(),
                    field,
                    "must be a number, a range or an expression",
                    SCALAR_HELP,
                ));
                continue;
            }
        };
        written.push((name.clone(), v.span(), w));
    }

    // Numbers and ranges first, then expressions in whatever order their names resolve.
    let mut vars = defines.clone();
    let mut scalars: BTreeMap<String, f64> = BTreeMap::new();
    let mut drawn = Vec::new();
    let mut exprs = Vec::new();
    for (name, span, w) in written {
        match w {
            Written::Value(v) => {
                scalars.insert(name.clone(), v);
            }
            Written::Range(lo, hi) => {
                let v = draw(id, slug, &name, lo, hi) as f64;
                drawn.push((name.clone(), v));
                scalars.insert(name.clone(), v);
            }
            Written::Expr(e) => {
                exprs.push((name, span, e));
                continue;
            }
        }
    }
    vars.extend(scalars.iter().map(|(k, v)| (k.clone(), *v)));
    let eval = |name: &str, e: &str, vars: &BTreeMap<String, f64>| {
        if is_float(name) {
            expr::eval(e, vars)
        } else {
            expr::eval_int(e, vars).map(|v| v as f64)
        }
    };
    while !exprs.is_empty() {
        let pending: Vec<String> = exprs.iter().map(|(n, _, _)| n.clone()).collect();
        // Ready when every name it uses is known by now.
        let ready = exprs.iter().position(|(n, _, e)| eval(n, e, &vars).is_ok());
        match ready {
            Some(i) => {
                let (name, _, e) = exprs.remove(i);
                if let Ok(v) = eval(&name, &e, &vars) {
                    scalars.insert(name.clone(), v);
                    vars.insert(name, v);
                }
            }
            None => {
                for (name, span, e) in exprs.drain(..) {
                    let problem = match eval(&name, &e, &vars) {
                        Err(p) if pending.iter().any(|q| e.contains(q.as_str())) => format!(
                            "cannot compute \"{e}\": {p}; or the scalars' expressions refer to each other in a circle"
                        ),
                        Err(p) => format!("cannot compute \"{e}\": {p}"),
                        Ok(_) => format!(
                            "cannot compute \"{e}\": it refers to a scalar whose expression refers back to it"
                        ),
                    };
                    errs.push(cx.err(&span, format!("unseen.scalars.{name}"), problem, EXPR_HELP));
                }
            }
        }
    }

    let amount = |v: &toml::Value,
                  span: &Range<usize>,
                  field: &str,
                  errs: &mut Vec<PuzzleError>|
     -> Option<i64> {
        let r = match v {
            toml::Value::Integer(i) => Ok(*i),
            toml::Value::String(s) if !s.trim().is_empty() => {
                expr::eval_int(s.trim(), &vars).map_err(|p| format!("cannot compute \"{s}\": {p}"))
            }
            _ => Err("must be a whole number or an expression string".to_string()),
        };
        r.map_err(|problem| errs.push(cx.err(span, field, problem, EXPR_HELP)))
            .ok()
    };
    let dims = |d: &Option<Spanned<Vec<toml::Value>>>, what: &str, errs: &mut Vec<_>| {
        let d = d.as_ref()?;
        let field = format!("unseen.{what}");
        let mut out = Vec::new();
        for v in d.get_ref() {
            let n = amount(v, &d.span(), &field, errs)?;
            match u32::try_from(n) {
                Ok(n) => out.push(n),
                Err(_) => {
                    errs.push(cx.err(
                        &d.span(),
                        &field,
                        format!("a dimension is {n}"),
                        format!("every dimension of the {what} must be at least 1"),
                    ));
                    return None;
                }
            }
        }
        Some(Spanned::new(d.span(), out))
    };
    let grid = dims(&u.grid, "grid", errs);
    let block = dims(&u.block, "block", errs);
    if !multi {
        for (what, d) in [("grid", &u.grid), ("block", &u.block)] {
            if d.is_none() {
                errs.push(cx.err(
                    &raw.span(),
                    format!("unseen.{what}"),
                    format!("missing field `{what}`"),
                    format!("add `{what} = [...]`: numbers or expressions of the scalars, e.g. {what} = [\"(size + TPB - 1) / TPB\"]"),
                ));
            }
        }
    }
    let shared_bytes = match &u.shared_bytes {
        None => 0,
        Some(s) => match amount(s.get_ref(), &s.span(), "unseen.shared_bytes", errs) {
            Some(n) => u32::try_from(n).unwrap_or_else(|_| {
                errs.push(cx.err(
                    &s.span(),
                    "unseen.shared_bytes",
                    format!("{n} bytes"),
                    "dynamic shared memory is 0 bytes or more",
                ));
                0
            }),
            None => 0,
        },
    };

    let mut buffers = BTreeMap::new();
    for (name, b) in &u.buffers {
        let field = format!("unseen.buffers.{name}");
        if let Some(rb) = buffer(cx, b, &field, id, slug, name, &amount, errs) {
            buffers.insert(name.clone(), Spanned::new(b.span(), rb));
        }
    }
    let mut symbols = BTreeMap::new();
    for (name, b) in &u.symbols {
        let field = format!("unseen.symbols.{name}");
        if let Some(rb) = buffer(cx, b, &field, id, slug, name, &amount, errs) {
            symbols.insert(name.clone(), Spanned::new(b.span(), rb));
        }
    }
    if errs.len() > before {
        return None;
    }
    drawn.retain(|(n, _)| !is_helper(n));
    scalars.retain(|n, _| !is_helper(n));
    let name = test_name(&drawn, &scalars);
    let scalars = u
        .scalars
        .iter()
        .filter_map(|(n, v)| {
            let x = *scalars.get(n)?;
            let value = if x.fract() == 0.0 && x.abs() < 9.0e15 {
                toml::Value::Integer(x as i64)
            } else {
                toml::Value::Float(x)
            };
            Some((n.clone(), Spanned::new(v.span(), value)))
        })
        .collect();
    let test = RawTest {
        name: Some(Spanned::new(raw.span(), name)),
        grid,
        block,
        shared_bytes,
        scalars,
        buffers,
        symbols,
        flops: None,
        defines: Default::default(),
    };
    Some(Concrete {
        test: Spanned::new(raw.span(), test),
        drawn,
    })
}

/// One `[unseen]` buffer as a test's buffer: `len` and `shape` computed.
#[allow(clippy::too_many_arguments)]
fn buffer(
    cx: &Ctx,
    b: &Spanned<RawUnseenBuffer>,
    field: &str,
    id: u32,
    slug: &str,
    name: &str,
    amount: &Amount,
    errs: &mut Vec<PuzzleError>,
) -> Option<RawBuffer> {
    let r = b.get_ref();
    let size = |v: &toml::Value, span: &Range<usize>, f: &str, errs: &mut Vec<PuzzleError>| {
        let n = amount(v, span, f, errs)?;
        usize::try_from(n)
            .map_err(|_| {
                errs.push(cx.err(
                    span,
                    f,
                    format!("the size is {n}"),
                    "a buffer's size is 1 or more",
                ))
            })
            .ok()
    };
    let len = match &r.len {
        None => None,
        Some(l) => Some(Spanned::new(
            l.span(),
            size(l.get_ref(), &l.span(), &format!("{field}.len"), errs)?,
        )),
    };
    let shape = match &r.shape {
        None => None,
        Some(s) => {
            let mut dims = Vec::new();
            for v in s.get_ref() {
                dims.push(size(v, &s.span(), &format!("{field}.shape"), errs)?);
            }
            Some(Spanned::new(s.span(), dims))
        }
    };
    // `random` and the generators draw from a seed: one of their own for each buffer.
    let random = r.init.as_ref().is_some_and(|i| {
        i.get_ref() == "random" || super::generators::Generator::from_name(i.get_ref()).is_some()
    });
    let seed = match (&r.seed, random) {
        (Some(s), _) => Some(s.clone()),
        (None, true) => Some(Spanned::new(b.span(), buffer_seed(id, slug, name))),
        (None, false) => None,
    };
    Some(RawBuffer {
        ty: r.ty.clone(),
        len,
        shape,
        init: r.init.clone(),
        fill: r.fill.clone(),
        values: r.values.clone(),
        seed,
        output: r.output,
        zeroed: r.zeroed,
        fixed: r.fixed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_in_range_stable_and_depend_on_the_puzzle() {
        let a = draw(9, "pooling", "size", 40, 200);
        assert!((40..=200).contains(&a));
        assert_eq!(a, draw(9, "pooling", "size", 40, 200));
        let others: Vec<i64> = (1..20)
            .map(|id| draw(id, "x", "size", 0, 1_000_000))
            .collect();
        let mut distinct = others.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 15, "{others:?}");
        assert_eq!(draw(3, "guard", "size", 7, 7), 7);
    }

    const BASE: &str = r#"id = 3
slug = "guard"
title = "Guard"
part = "Threads"
kernel = "guard"
params = ["out", "a", "size"]
defines = { TPB = 8 }
description = "Add 10."
spec = "for (int i = 0; i < size; i++) out[i] = a[i] + 10.0f;"

[[test]]
name = "t"
grid = [1]
block = [8]
scalars = { size = 4 }
buffers.a = { len = 4 }
buffers.out = { len = 4, output = true }
"#;

    fn parsed(unseen: &str) -> Result<crate::puzzle::Puzzle, PuzzleError> {
        crate::puzzle::parse_puzzle(
            &format!("{BASE}\n[unseen]\n{unseen}"),
            std::path::Path::new("puzzles/03_guard.toml"),
        )
    }

    #[test]
    fn an_unseen_table_becomes_a_test_at_the_drawn_size() {
        let p = parsed(
            "scalars = { size = [40, 200], half = \"size / 2\" }\ngrid = [\"(size + TPB - 1) / TPB\"]\nblock = [\"TPB\"]\ndefines = { TPB = 64 }\nbuffers.a = { len = \"size\", init = \"random\" }\nbuffers.out = { len = \"size\", output = true }\n",
        );
        // `half` is no parameter: the test is checked like any other.
        let e = p.unwrap_err().to_string();
        assert!(
            e.contains("unseen.scalars.half") && e.contains("not a kernel parameter"),
            "{e}"
        );
        let p = parsed(
            "scalars = { size = [40, 200] }\ngrid = [\"(size + TPB - 1) / TPB\"]\nblock = [\"TPB\"]\ndefines = { TPB = 64 }\nbuffers.a = { len = \"size\", init = \"random\" }\nbuffers.out = { len = \"size\", output = true }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let u = p.unseen.expect("unseen");
        let size = draw(3, "guard", "size", 40, 200);
        assert_eq!(u.drawn, [("size".to_string(), size as f64)]);
        assert_eq!(u.test.name, format!("unseen size (size = {size})"));
        assert_eq!(u.test.scalars["size"], size as f64);
        assert_eq!(
            u.test.block,
            [64, 1, 1],
            "its own TPB serves its expressions"
        );
        assert_eq!(u.test.grid[0] as i64, (size + 63) / 64);
        assert_eq!(u.test.buffers["a"].len, size as usize);
        assert!(matches!(
            u.test.buffers["a"].init,
            crate::puzzle::Init::Random { seed } if seed != 0
        ));
        assert_eq!(u.defines, [("TPB".to_string(), Some("64".to_string()))]);
    }

    #[test]
    fn a_helper_scalar_serves_the_expressions_and_reaches_no_kernel() {
        let table = "scalars = { _blocks = [2, 9], size = \"8 * _blocks - 3\" }\ngrid = [\"(size + 7) / 8\"]\nblock = [8]\nbuffers.a = { len = \"size\", init = \"random\" }\nbuffers.out = { len = \"size\", output = true }\n";
        let p = parsed(table).unwrap_or_else(|e| panic!("{e}"));
        let u = p.unseen.expect("unseen");
        let blocks = draw(3, "guard", "_blocks", 2, 9);
        let size = 8 * blocks - 3;
        assert_eq!(u.test.scalars.len(), 1, "{:?}", u.test.scalars);
        assert_eq!(u.test.scalars["size"], size as f64);
        assert_eq!(
            u.test.grid[0] as i64, blocks,
            "the last block holds 5 of its 8 elements"
        );
        // Only `size` is shown: the helper is how it was drawn, not a size of the test.
        assert!(u.drawn.is_empty());
        assert_eq!(u.test.name, format!("unseen size (size = {size})"));
        // Without the `_`, the name must be a parameter, and the help says how to make a helper.
        let e = parsed(&table.replace("_blocks", "blocks")).unwrap_err();
        let found = e
            .invalids()
            .into_iter()
            .find(|i| i.field == "unseen.scalars.blocks")
            .unwrap_or_else(|| panic!("{e}"));
        assert!(found.help.contains("`_blocks`"), "{}", found.help);
    }

    #[test]
    fn mistakes_in_unseen_name_the_line_and_field() {
        let cases = [
            ("scalars = { size = [9, 2] }\ngrid = [1]\nblock = [8]\nbuffers.a = { len = 4 }\nbuffers.out = { len = 4, output = true }\n", "unseen.scalars.size", "is empty", 20),
            ("scalars = { size = [4, 9] }\ngrid = [\"size / n\"]\nblock = [8]\nbuffers.a = { len = 4 }\nbuffers.out = { len = 4, output = true }\n", "unseen.grid", "`n` is not a scalar", 21),
            ("scalars = { size = 8 }\nblock = [8]\nbuffers.a = { len = 4 }\nbuffers.out = { len = 4, output = true }\n", "unseen.grid", "missing field `grid`", 19),
            ("scalars = { size = 8 }\ngrid = [1]\nblock = [2048]\nbuffers.a = { len = \"size - 9\" }\nbuffers.out = { len = 4, output = true }\n", "unseen.buffers.a.len", "the size is -1", 23),
            ("scalars = { size = \"size + 1\" }\ngrid = [1]\nblock = [8]\nbuffers.a = { len = 4 }\nbuffers.out = { len = 4, output = true }\n", "unseen.scalars.size", "cannot compute", 20),
        ];
        for (table, field, problem, line) in cases {
            let e = parsed(table).unwrap_err();
            let found = e
                .invalids()
                .into_iter()
                .find(|i| i.field == field)
                .unwrap_or_else(|| panic!("{field}: {e}"));
            assert!(
                found.problem.contains(problem),
                "{field}: {}",
                found.problem
            );
            assert_eq!(found.line, Some(line), "{field}: {e}");
        }
        // A block beyond CUDA's limits is found by the test's own checks, at [unseen]'s block.
        let e = parsed("scalars = { size = 8 }\ngrid = [1]\nblock = [\"TPB * 256\"]\nbuffers.a = { len = 4 }\nbuffers.out = { len = 4, output = true }\n")
            .unwrap_err();
        assert!(e.to_string().contains("unseen.block"), "{e}");
    }

    #[test]
    fn the_name_lists_the_drawn_scalars_else_all() {
        let scalars: BTreeMap<String, f64> =
            [("size".to_string(), 137.0), ("k".to_string(), 3.0)].into();
        assert_eq!(
            test_name(&[("size".into(), 137.0)], &scalars),
            "unseen size (size = 137)"
        );
        assert_eq!(test_name(&[], &scalars), "unseen size (k = 3, size = 137)");
        assert_eq!(test_name(&[], &BTreeMap::new()), "unseen size");
    }
}
