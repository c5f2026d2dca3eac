//! A write counter over budget because one thread stores the same element more than once:
//! `out[i] = a[i]; out[i] += b[i];`, or `out[r * n + c] += ...` in a loop whose variable the
//! subscript does not use. Each store is a write the budget counts; the fix is a register that
//! holds the value until one store at the end. Read from the source after the preprocessor:
//! the rule speaks only when it finds such a store, else the report's counts stand alone.

use super::source::{uses_in, Source};

/// The help for `counter` (`global_writes` or `shared_writes`) over budget, when the source
/// stores one element of an array of that space twice.
pub fn help(counter: &str, src: &Source) -> Option<String> {
    let shared = match counter {
        "global_writes" => false,
        "shared_writes" => true,
        _ => return None,
    };
    for name in arrays(src, shared) {
        if let Some(text) = repeated(src, &name) {
            return Some(text);
        }
    }
    None
}

/// The arrays stored on some line: `__shared__` ones for shared memory, the others declared as
/// pointers (`float* out`) for global memory.
pub(super) fn arrays(src: &Source, shared: bool) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in 1..=src.lines() {
        let t = src.line(l);
        for name in indexed_names(t) {
            if names.contains(&name) {
                continue;
            }
            let is_shared = src.shared_dims(&name).is_some() || src.extern_shared(&name).is_some();
            let is_pointer = (1..=src.lines()).any(|d| declares_pointer(src.line(d), &name));
            if (shared && is_shared) || (!shared && !is_shared && is_pointer) {
                names.push(name);
            }
        }
    }
    names
}

/// The identifiers directly followed by `[` on a line.
fn indexed_names(t: &str) -> Vec<String> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if t[i..].trim_start().starts_with('[') {
                out.push(t[s..i].to_string());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a line declares `name` as a pointer (`float* name`, `const float *name`).
fn declares_pointer(t: &str, name: &str) -> bool {
    let mut from = 0;
    while let Some(rel) = super::source::find_word(&t[from..], name) {
        let at = from + rel;
        if t[..at].trim_end().ends_with('*') {
            return true;
        }
        from = at + name.len();
    }
    false
}

/// The help when one thread stores `name` at the same subscript twice: in a loop that does
/// not move the subscript (checked first: it names the rounds), or on two lines.
fn repeated(src: &Source, name: &str) -> Option<String> {
    let mut stores: Vec<(u32, String, bool)> = Vec::new();
    for l in 1..=src.lines() {
        for u in uses_in(src.line(l), name) {
            if u.write {
                stores.push((l, u.dims.join("]["), u.update));
            }
        }
    }
    // A store in a loop whose subscript does not use the loop's variable: one store a round.
    for (l, d, _) in &stores {
        for h in 1..*l {
            let Some(head) = src.loop_header(h).filter(|x| x.line == h) else {
                continue;
            };
            if !src.loop_body(h).contains(l) {
                continue;
            }
            let Some(var) = head.init.as_deref().and_then(super::index::loop_var) else {
                continue;
            };
            // The subscript names the same element every round only when nothing in it
            // changes in the loop (a double buffer's `1 - in` flips each round).
            if super::source::find_word(d, &var).is_none() && !changes(src, src.loop_body(h), d) {
                return Some(format!(
                    "`{name}[{d}]` is stored on line {l} in every round of the loop on line {h}, \
                     at a place that does not move with `{var}`: every round is another write \
                     the budget counts. Keep the running value in a local variable `v` (a register: \
                     set before the loop, `v += ...;` in it) and store `{name}[{d}] = v;` once after \
                     the loop"
                ));
            }
        }
    }
    // Two stores of one element on different lines.
    for (i, (l1, d1, _)) in stores.iter().enumerate() {
        let same = |l: &u32, d: &String| d == d1 && l != l1 && !changes(src, *l1..=*l, d1);
        if let Some((l2, _, upd)) = stores[i + 1..].iter().find(|(l, d, _)| same(l, d)) {
            let how = if *upd {
                " (the second reads it back)"
            } else {
                ""
            };
            return Some(format!(
                "`{name}[{d1}]` is stored on line {l1} and again on line {l2}{how}: every store \
                 is a write the budget counts. Build the value in a local variable `v` (a register), \
                 adding each term to `v`, and store `{name}[{d1}] = v;` once"
            ));
        }
    }
    None
}

/// Whether a name in the subscript `dims` is assigned on one of `lines` (`in = 1 - in;`,
/// `k += 2`, `++k`): then two stores with the same text can be different elements.
fn changes(src: &Source, lines: std::ops::RangeInclusive<u32>, dims: &str) -> bool {
    let names: Vec<&str> = dims
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
        .collect();
    lines.into_iter().any(|l| {
        let t = src.line(l);
        names.iter().any(|n| {
            let mut from = 0;
            while let Some(rel) = super::source::find_word(&t[from..], n) {
                let at = from + rel;
                let after = t[at + n.len()..].trim_start();
                let before = t[..at].trim_end();
                let ops = [
                    "+=", "-=", "*=", "/=", "^=", "|=", "&=", "++", "--", "<<=", ">>=",
                ];
                if (after.starts_with('=') && !after.starts_with("=="))
                    || ops.iter().any(|o| after.starts_with(o))
                    || before.ends_with("++")
                    || before.ends_with("--")
                {
                    return true;
                }
                from = at + n.len();
            }
            false
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_stores_of_one_element_name_both_lines() {
        let k = "__global__ void f(float *dst, const float *x, const float *y) {\n\
                 int t = threadIdx.x;\n\
                 dst[2 * t] = x[t];\n\
                 dst[2 * t] -= y[t];\n\
                 }\n";
        let h = help("global_writes", &Source::new(k)).unwrap_or_default();
        assert!(
            h.contains("`dst[2 * t]` is stored on line 3 and again on line 4"),
            "{h}"
        );
        assert!(h.contains("reads it back"), "{h}");
        assert!(help("shared_writes", &Source::new(k)).is_none());
    }

    #[test]
    fn a_store_in_a_loop_that_does_not_move_with_it() {
        let k = "__global__ void g(double* res, const double* m, int w) {\n\
                 __shared__ double part[64];\n\
                 part[threadIdx.x] = 0;\n\
                 for (int j = 0; j < w; ++j)\n\
                 \x20   part[threadIdx.x] += m[j];\n\
                 res[threadIdx.x] = part[threadIdx.x];\n\
                 }\n";
        let h = help("shared_writes", &Source::new(k)).unwrap_or_default();
        assert!(
            h.contains("line 5 in every round of the loop on line 4"),
            "{h}"
        );
        let k2 = "__global__ void g(double* res, const double* m, int w) {\n\
                  for (int j = 0; j < w; ++j) {\n\
                  res[blockIdx.x] += m[j];\n\
                  }\n\
                  }\n";
        let h2 = help("global_writes", &Source::new(k2)).unwrap_or_default();
        assert!(h2.contains("loop on line 2"), "{h2}");
        assert!(h2.contains("`j`"), "{h2}");
    }

    #[test]
    fn stores_that_move_with_the_loop_or_differ_say_nothing() {
        let k = "__global__ void h(int* o, const int* p, int n) {\n\
                 for (int s = 0; s < n; s++) {\n\
                 o[s] = p[s];\n\
                 }\n\
                 o[n] = 1;\n\
                 }\n";
        assert!(help("global_writes", &Source::new(k)).is_none());
        assert!(help("global_reads", &Source::new(k)).is_none());
        // A double buffer: the subscript flips each round, so each store is a new element.
        let k2 = "__global__ void scan(float* r, const float* q) {\n\
                  __shared__ float pp[2][64];\n\
                  int cur = 0;\n\
                  for (int step = 1; step < 64; step *= 2) {\n\
                  pp[1 - cur][threadIdx.x] = pp[cur][threadIdx.x];\n\
                  cur = 1 - cur;\n\
                  }\n\
                  }\n";
        assert!(help("shared_writes", &Source::new(k2)).is_none());
    }
}
