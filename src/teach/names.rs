//! Shared elements named as the learner declared them: `tile[4][0]` for the flat `tile[40]`
//! of a `__shared__ float tile[8][10]`, in the message and the facts' element.

use super::eval::{self, Env};
use super::source::Source;
use crate::emu::facts::{Facts, Space};
use crate::emu::result::Diagnostic;

/// Rewrite the flat shared element a diagnostic names into its declared dimensions.
pub fn rename(d: &mut Diagnostic, src: &Source, values: &[(String, i64)]) {
    let element = match &d.facts {
        Facts::Bounds {
            space: Space::Shared,
            element: Some(e),
            ..
        }
        | Facts::Race {
            space: Space::Shared,
            element: Some(e),
            ..
        }
        | Facts::Uninitialized { element: Some(e) } => e.clone(),
        // An async copy's shared destination (its global source is a buffer, named flat).
        Facts::AsyncCopy(f) if f.hazard != crate::emu::facts::AsyncHazard::SourceOverwritten => {
            match &f.element {
                Some(e) => e.clone(),
                None => return,
            }
        }
        _ => return,
    };
    let short = element.name.rsplit("::").next().unwrap_or(&element.name);
    let Some(dims) = src.shared_dims(short) else {
        return;
    };
    if dims.len() < 2 {
        return;
    }
    let mut env = Env::default();
    for (n, v) in values {
        env.set(n.clone(), *v);
    }
    let Some(sizes) = dims
        .iter()
        .map(|x| eval::eval(x, &env).filter(|&v| v > 0))
        .collect::<Option<Vec<i64>>>()
    else {
        return;
    };
    let (index, len) = in_declared_units(element.index, element.len, &sizes);
    let Some(multi) = unflatten(index, &sizes) else {
        return;
    };
    let flat = format!("{}[{}]", element.name, element.index);
    let named = format!(
        "{}{}",
        element.name,
        multi.iter().map(|i| format!("[{i}]")).collect::<String>()
    );
    d.message = d.message.replace(&flat, &named);
    let shape = sizes
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" × ");
    let count = format!("{} has {} elements", element.name, element.len);
    d.message = d.message.replace(
        &count,
        &format!("{} has {len} elements ({shape})", element.name),
    );
}

/// A flat index and length counted in the checker's units (4-byte words for an `ldmatrix`
/// row of halves) turned into the declaration's elements, where the declaration holds a whole
/// number of them per unit (`sw[8][72]` of halves: 576 elements, 288 words); else as they are.
fn in_declared_units(index: i128, len: u64, sizes: &[i64]) -> (i128, u64) {
    let declared: i64 = sizes.iter().product();
    let declared = declared.max(0) as u64;
    if len == 0 || declared <= len || !declared.is_multiple_of(len) {
        return (index, len);
    }
    let k = declared / len;
    (index * k as i128, declared)
}

/// A help text with the diagnostic's flat shared element (`tile[32]`) named as declared
/// (`tile[1][0]`), as `rename` does for the message: the rules' templates index flat.
pub fn in_help(help: &str, d: &Diagnostic, src: &Source, values: &[(String, i64)]) -> String {
    let e = match &d.facts {
        Facts::Bounds {
            space: Space::Shared,
            element: Some(e),
            ..
        }
        | Facts::Race {
            space: Space::Shared,
            element: Some(e),
            ..
        }
        | Facts::Uninitialized { element: Some(e) } => e,
        _ => return help.to_string(),
    };
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    let flat = format!("{short}[{}]", e.index);
    let named = shown(e, src, values);
    if named == flat {
        return help.to_string();
    }
    // Only the whole element: not `tile[32]` inside `tile[32][33]` or `xtile[32]`.
    let mut out = String::with_capacity(help.len());
    let mut rest = help;
    while let Some(at) = rest.find(&flat) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + flat.len()..].chars().next();
        let whole = !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after != Some('[');
        out.push_str(&rest[..at]);
        out.push_str(if whole { &named } else { &flat });
        rest = &rest[at + flat.len()..];
    }
    out.push_str(rest);
    // The length in the checker's units said in the declaration's (`288 elements` of words
    // for a tile of 576 halves).
    let Some(sizes) = sizes_of(short, src, values) else {
        return out;
    };
    let (_, len) = in_declared_units(e.index, e.len, &sizes);
    if len == e.len {
        return out;
    }
    let words = format!(
        "{short} has {} elements ({short}[0] to {short}[{}])",
        e.len,
        e.len as i128 - 1
    );
    let shape = sizes
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" × ");
    out.replace(&words, &format!("{short} has {len} elements ({shape})"))
}

/// The declared sizes of shared array `short`, evaluated with `values`.
fn sizes_of(short: &str, src: &Source, values: &[(String, i64)]) -> Option<Vec<i64>> {
    let dims = src.shared_dims(short).filter(|d| d.len() >= 2)?;
    let mut env = Env::default();
    for (n, v) in values {
        env.set(n.clone(), *v);
    }
    dims.iter()
        .map(|x| eval::eval(x, &env).filter(|&v| v > 0))
        .collect()
}

/// The indices of a shared element as declared (`[4, 0]` for `tile[40]` of `tile[8][10]`;
/// `[40]` for a one-dimensional array), when the declaration can be read.
pub fn indices(
    e: &crate::emu::facts::Element,
    src: &Source,
    values: &[(String, i64)],
) -> Option<Vec<i128>> {
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    let dims = src.shared_dims(short)?;
    if dims.len() < 2 {
        return Some(vec![e.index]);
    }
    let mut env = Env::default();
    for (n, v) in values {
        env.set(n.clone(), *v);
    }
    let sizes: Vec<i64> = dims
        .iter()
        .map(|x| eval::eval(x, &env).filter(|&v| v > 0))
        .collect::<Option<Vec<i64>>>()?;
    unflatten(e.index, &sizes)
}

/// `name[i][j]` for a shared element of a multi-dimensional declaration, `name[index]` else.
pub fn shown(e: &crate::emu::facts::Element, src: &Source, values: &[(String, i64)]) -> String {
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    let flat = format!("{short}[{}]", e.index);
    let Some(dims) = src.shared_dims(short).filter(|d| d.len() >= 2) else {
        return flat;
    };
    let mut env = Env::default();
    for (n, v) in values {
        env.set(n.clone(), *v);
    }
    let sizes: Option<Vec<i64>> = dims
        .iter()
        .map(|x| eval::eval(x, &env).filter(|&v| v > 0))
        .collect();
    match sizes.and_then(|s| unflatten(in_declared_units(e.index, e.len, &s).0, &s)) {
        Some(multi) => format!(
            "{short}{}",
            multi.iter().map(|i| format!("[{i}]")).collect::<String>()
        ),
        None => flat,
    }
}

/// The indices of flat element `index` in an array of dimensions `sizes` (row-major); the
/// first index may run past its dimension (an overflow by whole rows), never below 0.
fn unflatten(index: i128, sizes: &[i64]) -> Option<Vec<i128>> {
    if index < 0 {
        return None;
    }
    let mut rest = index;
    let mut out = vec![0i128; sizes.len()];
    for k in (1..sizes.len()).rev() {
        let s = sizes[k] as i128;
        out[k] = rest % s;
        rest /= s;
    }
    out[0] = rest;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::facts::Element;
    use crate::emu::result::{DiagKind, Severity};

    #[test]
    fn an_index_in_wider_units_is_counted_in_the_declared_elements() {
        // Words over a tile of halves, `h[4][72]`: 144 words, 288 halves; word 150 is half 300.
        assert_eq!(in_declared_units(150, 144, &[4, 72]), (300, 288));
        assert_eq!(unflatten(300, &[4, 72]), Some(vec![4, 12]));
        // The same units, an unknown length, or no whole number per unit: as they are.
        assert_eq!(in_declared_units(40, 80, &[8, 10]), (40, 80));
        assert_eq!(in_declared_units(40, 0, &[8, 10]), (40, 0));
        assert_eq!(in_declared_units(40, 30, &[8, 10]), (40, 30));
    }

    #[test]
    fn a_flat_index_becomes_the_declared_dimensions() {
        assert_eq!(unflatten(40, &[8, 10]), Some(vec![4, 0]));
        assert_eq!(unflatten(87, &[8, 10]), Some(vec![8, 7]));
        assert_eq!(unflatten(-1, &[8, 10]), None);
        let src = Source::new("#define T 10\n__shared__ float tile[8][T];\n");
        let mut d = Diagnostic {
            kind: DiagKind::SharedRace,
            severity: Severity::Error,
            message: "thread 1 read shared tile[40] (line 5)".into(),
            help: None,
            facts: Facts::Race {
                space: Space::Shared,
                hazard: crate::emu::facts::Hazard::ReadAfterWrite,
                element: Some(Element {
                    name: "tile".into(),
                    index: 40,
                    len: 80,
                }),
                other_thread: None,
                other_block: None,
                across_blocks: false,
                same_warp: true,
                block_threads: 32,
                mine: crate::emu::facts::Access::Read,
                theirs: crate::emu::facts::Access::Write,
            },
            file: None,
            line: Some(5),
            block: [0; 3],
            thread: [1, 0, 0],
            other_line: None,
        };
        rename(&mut d, &src, &[("T".into(), 10)]);
        assert_eq!(d.message, "thread 1 read shared tile[4][0] (line 5)");
    }

    #[test]
    fn an_out_of_bounds_word_of_a_half_tile_is_named_and_counted_in_halves() {
        // Another shape than the suite's: `hs[4][W]` of halves, W = 40: 160 halves, 80 words;
        // word 80 (just past the end) is half 160, `hs[4][0]`.
        let src = Source::new(
            "__shared__ __half hs[4][W];
",
        );
        let e = Element {
            name: "hs".into(),
            index: 80,
            len: 80,
        };
        let mut d = Diagnostic {
            kind: DiagKind::OutOfBounds,
            severity: Severity::Error,
            message: "thread 3 read shared hs[80] (line 9), but hs has 80 elements".into(),
            help: None,
            facts: Facts::Bounds {
                space: Space::Shared,
                access: crate::emu::facts::Access::Read,
                element: Some(e),
                bytes: 16,
                misaligned_to: None,
                address: 0,
            },
            file: None,
            line: Some(9),
            block: [0; 3],
            thread: [3, 0, 0],
            other_line: None,
        };
        let vals = [("W".to_string(), 40)];
        let help = in_help(
            "hs has 80 elements (hs[0] to hs[79]) and thread 3 reached hs[80]: look",
            &d,
            &src,
            &vals,
        );
        assert_eq!(
            help,
            "hs has 160 elements (4 × 40) and thread 3 reached hs[4][0]: look"
        );
        rename(&mut d, &src, &vals);
        assert_eq!(
            d.message,
            "thread 3 read shared hs[4][0] (line 9), but hs has 160 elements (4 × 40)"
        );
        // Counted in the declaration's own elements already: the length is left as it is.
        let same = Element {
            name: "hs".into(),
            index: 161,
            len: 160,
        };
        d.facts = Facts::Bounds {
            space: Space::Shared,
            access: crate::emu::facts::Access::Read,
            element: Some(same),
            bytes: 2,
            misaligned_to: None,
            address: 0,
        };
        let help = in_help("hs has 160 elements (hs[0] to hs[159])", &d, &src, &vals);
        assert_eq!(help, "hs has 160 elements (hs[0] to hs[159])");
    }
}
