//! A wrong output in words: the pattern the judge found in the diff (`judge::pattern`), said in
//! the learner's names (the output's parameter name, its elements as `out[5]`, rows where the
//! buffer is a matrix), with what to check; then the puzzle's first `wrong-output` mistake hint
//! where one fits.

use crate::judge::pattern::{OutputPattern, Unit};
use crate::puzzle::show_number;

/// The plain facts about one wrong output.
pub struct WrongOutput<'a> {
    /// The output buffer's name, as the kernel's parameter is called.
    pub name: &'a str,
    /// `[rows, cols]` when it is a matrix.
    pub shape: Option<[usize; 2]>,
    /// The spec's values (for the finite value an inf or NaN replaced).
    pub expected: &'a [f64],
    pub pattern: Option<&'a OutputPattern>,
    /// The run also reported an error (a race, an access out of bounds): the wrong values may
    /// be its doing, so a pattern read from them (a shift, a factor) is not said; elements no
    /// thread wrote and values that are not finite are facts and still are.
    pub after_error: bool,
}

/// The puzzle's hint for a wrong output, to show its first rung.
pub struct MistakeRung<'a> {
    pub puzzle: u32,
    pub hint: &'a str,
}

/// The help for one wrong output, or None when there is nothing to say beyond the diff.
pub fn help(w: &WrongOutput, rung: Option<&MistakeRung>) -> Option<String> {
    let mut parts: Vec<String> = w
        .pattern
        .filter(|p| {
            !w.after_error
                || matches!(
                    p,
                    OutputPattern::Unwritten { .. } | OutputPattern::NonFinite { .. }
                )
        })
        .map(|p| pattern(w, p))
        .into_iter()
        .collect();
    if let Some(r) = rung {
        parts.push(format!(
            "The puzzle's hint for a wrong output (rung 1; `gpuzzle hint {}` has more): {}",
            r.puzzle,
            r.hint.trim()
        ));
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// A warp's `__match_any_sync` whose lanes past the data pass a key that is also a real value
/// (`v = i < n ? a[i] : 0`): they join the group of that value, and a count of the group
/// (`__popc` of the mask) counts them too. Said only where the source shows the fill and the
/// output shows its trace: the wrong elements of `name` are exactly the fill value's own
/// element, and too large there.
pub fn match_fill(
    scene: &super::Scene,
    name: &str,
    (expected, got): (&[f64], &[f64]),
    mismatches: &[usize],
) -> Option<String> {
    let [only] = mismatches else {
        return None;
    };
    if got.get(*only)? <= expected.get(*only)? {
        return None;
    }
    let src = super::source::Source::preprocessed(scene.source, &scene.values);
    for l in 1..=src.lines() {
        let code = src.line(l);
        let Some(at) = code.find("__match_any_sync(") else {
            continue;
        };
        let args = super::eval::split_top(&code[at + "__match_any_sync(".len()..], ',');
        let key = args
            .get(1)?
            .trim()
            .trim_end_matches([')', ';'])
            .trim()
            .to_string();
        let (def_line, value) = src.definition(l, &key)?;
        // `cond ? x : LIT`: the literal lanes that fail `cond` take.
        let (cond, rest) = value.split_once('?')?;
        let (_, fill) = rest.rsplit_once(':')?;
        let fill = fill.trim();
        let lit = fill.trim_end_matches(['u', 'U']);
        let v: i64 = lit.parse().ok()?;
        if v as usize != *only {
            continue;
        }
        // The learner's name for the group's mask (`unsigned same = __match_any_sync(..)`).
        let mask = code[..at]
            .trim_end()
            .strip_suffix('=')
            .and_then(|lhs| lhs.split_whitespace().last())
            .filter(|n| n.chars().all(|ch| ch.is_alphanumeric() || ch == '_'))
            .unwrap_or("peers");
        return Some(format!(
            "Only {name}[{only}] is wrong, and too large: the lanes that fail `{}` pass `{key}` = {fill} to `__match_any_sync` (line {l}, `{key}` set on line {def_line}), and {fill} is also a real value, so they join the group of the lanes that hold {fill} and are counted with it. Give them a key no element has (`0xffffffffu`), or take them out of the group: `{mask} &= __ballot_sync(0xffffffff, {});`",
            cond.trim(),
            cond.trim()
        ));
    }
    None
}

/// The help for a wrong output `o` (named `name`) that the source explains: a collective's
/// fill value that is a real key (`match_fill`), a packed pair of two different halves
/// (`pair_halves`) or an exponent shifted in the sum but not in the output (`shift`), then
/// what the difference's pattern says; else the rules of
/// `teach::wrong` (a padding, a loop's range, a window's guard, a tree, ...), said before the
/// pattern's help and the puzzle's hint; `None` when the source explains nothing (the
/// pattern's help and the puzzle's hint stand as they are).
pub fn explained(
    scene: &super::Scene,
    name: &str,
    o: &crate::judge::outcome::OutputCompare,
    after_error: bool,
) -> Option<String> {
    let fill = match_fill(scene, name, (&o.expected, &o.got), &o.mismatches)
        .or_else(|| pair_halves(scene, name, o.expected.len(), &o.mismatches))
        .or_else(|| {
            // Elements never written by a loop that stores every pass at one element.
            let unwritten = !after_error
                && matches!(
                    o.pattern,
                    Some(crate::judge::pattern::OutputPattern::Unwritten { .. })
                );
            unwritten
                .then(|| {
                    let src = super::source::Source::preprocessed(scene.source, &scene.values);
                    super::loop_store::explain(&src, name)
                })
                .flatten()
        })
        .or_else(|| {
            // An exponent shifted in the sum, not in the output (often inf: before the pattern).
            let shifted = !after_error && !o.mismatches.is_empty();
            shifted
                .then(|| {
                    let src = super::source::Source::preprocessed(scene.source, &scene.values);
                    super::shift::explain(&src, name)
                })
                .flatten()
        });
    let Some(fill) = fill else {
        let rule = super::wrong::explain(scene, name, o, after_error)?;
        return Some(match &o.help {
            Some(rest) => format!("{rule}\n{rest}"),
            None => rule,
        });
    };
    let pattern = help(
        &WrongOutput {
            name,
            shape: o.shape,
            expected: &o.expected,
            pattern: o.pattern.as_ref(),
            after_error,
        },
        None,
    );
    Some(match pattern {
        Some(p) => format!("{fill}\n{p}"),
        None => fill,
    })
}

/// A packed pair built with two different halves (`__halves2half2(a, __float2half(0.f))`)
/// where only the elements of one half are wrong: the half that differs is the suspect. Said
/// only where every wrong element has the same parity (so every element of the other half is
/// right) and the source builds a pair from two different values.
pub fn pair_halves(
    scene: &super::Scene,
    name: &str,
    len: usize,
    mismatches: &[usize],
) -> Option<String> {
    let first = *mismatches.first()?;
    let parity = first % 2;
    // Every wrong element in one half (the other half's elements, all right, exist).
    if len < 2 || mismatches.len() < 2 || mismatches.iter().any(|i| i % 2 != parity) {
        return None;
    }
    let src = super::source::Source::preprocessed(scene.source, &scene.values);
    for l in 1..=src.lines() {
        let code = src.line(l);
        for f in ["__halves2half2(", "make_half2(", "__floats2half2_rn("] {
            let Some(at) = code.find(f) else {
                continue;
            };
            let args = call_args(&code[at + f.len()..]);
            let (Some(lo), Some(hi)) = (args.first(), args.get(1)) else {
                continue;
            };
            let (lo, hi) = (lo.trim(), hi.trim());
            if lo == hi {
                continue;
            }
            let (which, half) = if parity == 1 {
                ("odd", "high")
            } else {
                ("even", "low")
            };
            let call = f.trim_end_matches('(');
            return Some(format!(
                "Only the {which} elements of `{name}` are wrong: the {half} half of each pair. Line {l} builds a pair from two different halves, `{call}({lo}, {hi})`, so the {half} halves are computed with `{}`: if both halves should hold the same value, build the pair from one (`__float2half2_rn(x)` from a float, `__halves2half2(h, h)` from a `__half`)",
                if parity == 1 { hi } else { lo }
            ));
        }
    }
    None
}

/// The arguments of a call, from the text just after its `(` up to its matching `)`.
fn call_args(after_open: &str) -> Vec<String> {
    let mut depth = 0i32;
    let mut end = after_open.len();
    for (i, ch) in after_open.char_indices() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' if depth == 0 => {
                end = i;
                break;
            }
            ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    super::eval::split_top(&after_open[..end], ',')
}

/// `out[13]`, with its row and column where the output is a matrix.
fn element(w: &WrongOutput, i: usize) -> String {
    match w.shape {
        Some([_, cols]) if cols > 0 => {
            format!("{}[{i}] (row {}, column {})", w.name, i / cols, i % cols)
        }
        _ => format!("{}[{i}]", w.name),
    }
}

fn pattern(w: &WrongOutput, p: &OutputPattern) -> String {
    let name = w.name;
    match p {
        OutputPattern::Unwritten { first, count } => {
            let named: Vec<String> = first.iter().map(|&i| element(w, i)).collect();
            let more = count.saturating_sub(first.len());
            let (list, verb, it) = match (named.len(), more) {
                (1, 0) => (named[0].clone(), "was", "it"),
                (_, 0) => (and_list(&named), "were", "they"),
                _ => (
                    format!("{}, and {more} more elements", named.join(", ")),
                    "were",
                    "they",
                ),
            };
            // After an error, the stores may have gone elsewhere (out of bounds, onto an
            // element another thread owns): a missing guard is then a guess.
            if w.after_error {
                return format!(
                    "{list} {verb} never written: on a GPU {it} would hold whatever was in \
                     memory. This run also reports an error: fix it first, since a store that \
                     lands out of bounds, or on an element another thread writes, leaves its \
                     own element unwritten."
                );
            }
            format!(
                "{list} {verb} never written: on a GPU {it} would hold whatever was in memory. \
                 Every element of `{name}` needs a store from some thread (an element that is \
                 0 too; `{name}[i] += ...` only adds to the garbage: sum in a register and \
                 store once). Find the thread that owns {} and check that its `if` or loop \
                 bound lets it write.",
                element(w, first[0])
            )
        }
        OutputPattern::NonFinite { index, got } => {
            let what = if got.is_nan() { "NaN" } else { "inf" };
            let want = w
                .expected
                .get(*index)
                .map_or(String::new(), |e| format!(" ({})", show_number(*e)));
            format!(
                "{} is {what} where the spec's value is finite{want}: an intermediate \
                 overflowed or was undefined. `expf` of a value above 88 is inf in a float \
                 (subtract the maximum first), a sum of large values can pass 3.4e38, \
                 0 / 0, inf - inf and `sqrtf` of a negative are NaN, and so is anything \
                 computed from an output element read before a thread wrote it (outputs start \
                 as garbage).",
                element(w, *index)
            )
        }
        OutputPattern::Shifted { by } => {
            let places = if by.abs() == 1 {
                "1 place".to_string()
            } else {
                format!("{} places", by.abs())
            };
            let (sign, k) = if *by < 0 { ("+", -by) } else { ("-", *by) };
            format!(
                "The values in `{name}` are right but {places} off: {name}[i] holds what \
                 belongs in {name}[i {sign} {k}]. Check the index of the store and of the \
                 reads for an off-by-one (an inclusive result where an exclusive one is \
                 asked, `i - 1` for `i`)."
            )
        }
        OutputPattern::Permuted => format!(
            "`{name}` holds the right values at the wrong places: each value is computed \
             right, but the index it is stored at is not (rows and columns swapped, a thread \
             mapped to another element than the spec's)."
        ),
        OutputPattern::Factor { factor } => format!(
            "Every wrong element of `{name}` is {} times the spec's: something is counted \
             that many times (every thread adding the same total, a loop that runs too \
             often), or a scale or divisor is missing.",
            show_number(*factor)
        ),
        OutputPattern::OnlyFirst {
            unit,
            units_right,
            unit_len,
        } => {
            let end = units_right * unit_len;
            let (what, fix) = match (unit, units_right) {
                (Unit::Row, 1) => (
                    "the first row".to_string(),
                    "the row's offset (`row * cols`) is probably missing from an index, or only one row is handled",
                ),
                (Unit::Row, n) => (
                    format!("the first {n} rows"),
                    "the later rows are indexed or reached wrongly: check the row's offset (`row * cols`) and the loop over rows",
                ),
                (Unit::Block, _) => (
                    format!("the first {end} elements (one block is {unit_len} threads)"),
                    "the later blocks write to the wrong place or not at all: include `blockIdx.x * blockDim.x` in the index, and launch-wide sizes in the bounds",
                ),
            };
            format!(
                "Only {what} of `{name}` ({name}[0] to {name}[{}]) came out right; most of the \
                 rest is wrong: {fix}.",
                end - 1
            )
        }
        OutputPattern::GrowsWithMagnitude { largest_wrong } => format!(
            "The wrong elements of `{name}` are the large ones ({} among them): the error grows \
             with the values' magnitude. Look for rounding in a long float sum, a difference of \
             two large, nearly equal numbers (it cancels), or an integer too narrow for the \
             total.",
            element(w, *largest_wrong)
        ),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(super) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(name: &str, shape: Option<[usize; 2]>, p: OutputPattern) -> String {
        let expected = [1.5; 64];
        let w = WrongOutput {
            name,
            shape,
            expected: &expected,
            pattern: Some(&p),
            after_error: false,
        };
        let text = help(&w, None).unwrap_or_default();
        // No empty names or placeholders in any template.
        assert!(
            !text.contains("``") && !text.contains("{}") && !text.contains("[]"),
            "{text}"
        );
        text
    }

    #[test]
    fn an_element_never_written_is_named_as_the_learner_calls_it() {
        let one = OutputPattern::Unwritten {
            first: vec![0],
            count: 1,
        };
        let text = said("out", None, one.clone());
        assert!(
            text.starts_with(
                "out[0] was never written: on a GPU it would hold whatever was in memory."
            ),
            "{text}"
        );
        let text = said("prefix", None, one);
        assert!(text.starts_with("prefix[0] was never written"), "{text}");
        assert!(text.contains("`prefix`") && !text.contains("out"), "{text}");
        let many = OutputPattern::Unwritten {
            first: vec![3, 8, 9],
            count: 5,
        };
        let text = said("hist", Some([4, 5]), many);
        assert!(
            text.starts_with("hist[3] (row 0, column 3), hist[8] (row 1, column 3), hist[9] (row 1, column 4), and 2 more elements were never written: on a GPU they would"),
            "{text}"
        );
        let two = OutputPattern::Unwritten {
            first: vec![1, 2],
            count: 2,
        };
        assert!(said("y", None, two).starts_with("y[1] and y[2] were never written"));
    }

    #[test]
    fn each_pattern_is_said_in_the_outputs_own_name() {
        let cases = [
            (
                OutputPattern::NonFinite {
                    index: 2,
                    got: f64::INFINITY,
                },
                "is inf where the spec's value is finite (1.5)",
            ),
            (
                OutputPattern::NonFinite {
                    index: 2,
                    got: f64::NAN,
                },
                "is NaN where",
            ),
            (OutputPattern::Shifted { by: -1 }, "1 place off"),
            (OutputPattern::Shifted { by: 3 }, "3 places off"),
            (OutputPattern::Permuted, "right values at the wrong places"),
            (
                OutputPattern::Factor { factor: 32.0 },
                "32 times the spec's",
            ),
            (
                OutputPattern::OnlyFirst {
                    unit: Unit::Row,
                    units_right: 1,
                    unit_len: 8,
                },
                "Only the first row of",
            ),
            (
                OutputPattern::OnlyFirst {
                    unit: Unit::Row,
                    units_right: 2,
                    unit_len: 8,
                },
                "Only the first 2 rows of",
            ),
            (
                OutputPattern::OnlyFirst {
                    unit: Unit::Block,
                    units_right: 1,
                    unit_len: 64,
                },
                "Only the first 64 elements (one block is 64 threads)",
            ),
            (
                OutputPattern::GrowsWithMagnitude { largest_wrong: 7 },
                "the error grows",
            ),
        ];
        for (p, words) in cases {
            for name in ["out", "scores"] {
                let text = said(name, None, p.clone());
                assert!(text.contains(words), "{name}: {text}");
                assert!(text.contains(name), "{name}: {text}");
                if name == "scores" {
                    assert!(!text.contains("out["), "{text}");
                }
            }
        }
        let shifted = said("sums", None, OutputPattern::Shifted { by: -1 });
        assert!(
            shifted.contains("sums[i] holds what belongs in sums[i + 1]"),
            "{shifted}"
        );
        let shifted = said("c", None, OutputPattern::Shifted { by: 2 });
        assert!(
            shifted.contains("c[i] holds what belongs in c[i - 2]"),
            "{shifted}"
        );
        let rows = said(
            "y",
            Some([3, 8]),
            OutputPattern::OnlyFirst {
                unit: Unit::Row,
                units_right: 1,
                unit_len: 8,
            },
        );
        assert!(rows.contains("(y[0] to y[7])"), "{rows}");
    }

    #[test]
    fn a_wrong_output_hint_is_shown_as_its_first_rung() {
        let p = OutputPattern::Permuted;
        let w = WrongOutput {
            name: "out",
            shape: None,
            expected: &[],
            pattern: Some(&p),
            after_error: false,
        };
        let rung = MistakeRung {
            puzzle: 20,
            hint: "This scan is exclusive.",
        };
        let text = help(&w, Some(&rung)).unwrap_or_default();
        assert!(
            text.ends_with("The puzzle's hint for a wrong output (rung 1; `gpuzzle hint 20` has more): This scan is exclusive."),
            "{text}"
        );
        let rung = MistakeRung {
            puzzle: 39,
            hint: " Rescale d. ",
        };
        let w = WrongOutput {
            name: "out",
            shape: None,
            expected: &[],
            pattern: None,
            after_error: false,
        };
        assert_eq!(
            help(&w, Some(&rung)).as_deref(),
            Some("The puzzle's hint for a wrong output (rung 1; `gpuzzle hint 39` has more): Rescale d.")
        );
        assert_eq!(help(&w, None), None);
    }

    #[test]
    fn after_an_error_only_facts_about_the_output_are_said() {
        let shifted = OutputPattern::Shifted { by: 9 };
        let w = |p| WrongOutput {
            name: "hist",
            shape: None,
            expected: &[],
            pattern: Some(p),
            after_error: true,
        };
        // A shift read from values a race produced is a guess: not said.
        assert_eq!(help(&w(&shifted), None), None);
        let factor = OutputPattern::Factor { factor: 2.0 };
        assert_eq!(help(&w(&factor), None), None);
        // Elements no thread wrote are a fact: still said, in the output's name.
        let unwritten = OutputPattern::Unwritten {
            first: vec![1028],
            count: 2,
        };
        let text = help(&w(&unwritten), None).unwrap_or_default();
        assert!(
            text.contains("never written") && text.contains("hist[1028]"),
            "{text}"
        );
        // Where the stores went is the error's to say, not a guard's: no guard is advised.
        assert!(
            text.contains("fix it first") && !text.contains("loop bound"),
            "{text}"
        );
        let text = help(
            &WrongOutput {
                after_error: false,
                ..w(&unwritten)
            },
            None,
        )
        .unwrap_or_default();
        assert!(text.contains("loop bound"), "{text}");
    }

    fn scene(source: &str) -> super::super::Scene<'_> {
        super::super::Scene {
            source,
            file_name: "k.cu",
            module: None,
            grid: [1, 1, 1],
            block: [64, 1, 1],
            values: Vec::new(),
            shapes: Vec::new(),
            cooperative: false,
        }
    }

    #[test]
    fn a_match_fill_that_is_a_real_key_is_named_where_only_its_element_is_too_large() {
        let src = "__global__ void h(unsigned int* hist, const unsigned int* a, int n) {\n    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n    unsigned int key = gid < n ? a[gid] : 0u;\n    unsigned int same = __match_any_sync(0xffffffffu, key);\n    if (gid < n && (threadIdx.x & 31) == __ffs(same) - 1) atomicAdd(&hist[key], __popc(same));\n}\n";
        let (e, g) = ([5.0, 2.0, 1.0], [9.0, 2.0, 1.0]);
        let h = match_fill(&scene(src), "hist", (&e, &g), &[0]).unwrap_or_default();
        assert!(
            h.contains("fail `gid < n` pass `key` = 0u")
                && h.contains("`same &= __ballot_sync(0xffffffff, gid < n);`"),
            "{h}"
        );
        // Another shape: other names, a fill of 3, a bare-int key.
        let src = "__global__ void bins(int* counts, const int* vals, int len) {\n    int idx = threadIdx.x;\n    int k = idx < len ? vals[idx] : 3;\n    unsigned grp = __match_any_sync(0xffffffff, k);\n    if (idx < len && (idx % 32) == __ffs(grp) - 1) atomicAdd(&counts[k], __popc(grp));\n}\n";
        let (e, g) = ([1.0, 1.0, 1.0, 2.0], [1.0, 1.0, 1.0, 30.0]);
        let h = match_fill(&scene(src), "counts", (&e, &g), &[3]).unwrap_or_default();
        assert!(h.contains("`k` = 3") && h.contains("`grp &= "), "{h}");
        // Another element wrong, or too small, or a fill no value has: not this cause.
        assert_eq!(match_fill(&scene(src), "counts", (&e, &g), &[2]), None);
        let low = [1.0, 1.0, 1.0, 1.0];
        assert_eq!(match_fill(&scene(src), "counts", (&e, &low), &[3]), None);
        let none = src.replace(": 3;", ": -1;");
        assert_eq!(match_fill(&scene(&none), "counts", (&e, &g), &[3]), None);
    }

    #[test]
    fn a_pair_of_two_different_halves_is_named_where_only_one_half_is_wrong() {
        let src = "__global__ void ax(__half* out, const __half* x, const __half* y, float alpha, int size) {\n    int p = threadIdx.x;\n    __half2 scale = __halves2half2(__float2half(alpha), __float2half(0.0f));\n    reinterpret_cast<__half2*>(out)[p] = __hfma2(scale, reinterpret_cast<const __half2*>(x)[p], reinterpret_cast<const __half2*>(y)[p]);\n}\n";
        let h = pair_halves(&scene(src), "out", 8, &[1, 3, 5, 7]).unwrap_or_default();
        assert!(
            h.contains("Only the odd elements of `out`")
                && h.contains("computed with `__float2half(0.0f)`")
                && h.contains("`__float2half2_rn(x)`"),
            "{h}"
        );
        // Another shape: other names, the low half taken from another value.
        let src = "__global__ void sc(__half* dst, const __half* v, float k) {\n    __half hk = __float2half(k);\n    __half2 kk = make_half2(__float2half(1.0f), hk);\n    reinterpret_cast<__half2*>(dst)[threadIdx.x] = __hmul2(kk, reinterpret_cast<const __half2*>(v)[threadIdx.x]);\n}\n";
        let h = pair_halves(&scene(src), "dst", 6, &[0, 2, 4]).unwrap_or_default();
        assert!(
            h.contains("Only the even elements of `dst`")
                && h.contains("computed with `__float2half(1.0f)`"),
            "{h}"
        );
        // Mixed parities, a single element, or a pair of one value: not this cause.
        assert_eq!(pair_halves(&scene(src), "dst", 6, &[0, 1]), None);
        assert_eq!(pair_halves(&scene(src), "dst", 6, &[4]), None);
        let same = src.replace("make_half2(__float2half(1.0f), hk)", "make_half2(hk, hk)");
        assert_eq!(pair_halves(&scene(&same), "dst", 6, &[0, 2, 4]), None);
    }
}
