//! A global read counter over budget because one thread reads the same element twice:
//! `s = f(a[i]); d = g(a[i]);`. Each read is one the budget counts; the fix is a register that
//! holds the value from the first read. Read from the source after the preprocessor: two reads
//! of one array with the same subscript in one function, with nothing in the subscript assigned
//! and the array not stored in between (else they can be two elements, or a new value). Where
//! there are none, the rule stays silent.

use super::eval;
use super::source::{find_word, uses_in, Source};

/// The help for `counter` over budget, when the source reads one global element twice.
pub fn help(counter: &str, src: &Source) -> Option<String> {
    if counter != "global_reads" {
        return None;
    }
    for name in super::restore::arrays(src, false) {
        // (line, subscript as written) of every read, an update (`+=`) counted as a read.
        let mut reads: Vec<(u32, String)> = Vec::new();
        let mut stores: Vec<u32> = Vec::new();
        for l in 1..=src.lines() {
            for u in uses_in(src.line(l), &name) {
                if u.write {
                    stores.push(l);
                }
                if !u.write || u.update {
                    reads.push((l, u.dims.join("][")));
                }
            }
        }
        for (i, (l1, d1)) in reads.iter().enumerate() {
            let again = reads[i + 1..].iter().find(|(l2, d2)| {
                eval::canonical(d1) == eval::canonical(d2)
                    && src.function_of(*l1) == src.function_of(*l2)
                    && !stores.iter().any(|s| (l1..=l2).contains(&s))
                    && !assigned(src, *l1..=*l2, d1)
            });
            if let Some((l2, _)) = again {
                let ty = pointee_type(src, &name).unwrap_or_else(|| "auto".into());
                let first = if l1 == l2 {
                    format!("twice on line {l1}")
                } else {
                    format!("on line {l1} and again on line {l2}")
                };
                return Some(format!(
                    "`{name}[{d1}]` is read {first}: the same element, fetched from global memory \
                     twice by one thread, and each read counts against the budget. Read it once \
                     into a register before its first use (`{ty} v = {name}[{d1}];`) and use `v` \
                     in both places"
                ));
            }
        }
    }
    None
}

/// Whether a name of the subscript `dims` is assigned on one of `lines` (`c = t` of a new
/// loop, `i += stride`): then the same text reads another element.
fn assigned(src: &Source, lines: std::ops::RangeInclusive<u32>, dims: &str) -> bool {
    let names = eval::names(dims);
    lines.into_iter().any(|l| {
        let t = src.line(l);
        names.iter().any(|n| {
            let mut from = 0;
            while let Some(rel) = find_word(&t[from..], n) {
                let at = from + rel;
                let after = t[at + n.len()..].trim_start();
                let before = t[..at].trim_end();
                let compound = [
                    "+=", "-=", "*=", "/=", "^=", "|=", "&=", "++", "--", "<<=", ">>=",
                ];
                if (after.starts_with('=') && !after.starts_with("=="))
                    || compound.iter().any(|o| after.starts_with(o))
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

/// The type `name` points at, as declared (`const float* a` gives `float`).
fn pointee_type(src: &Source, name: &str) -> Option<String> {
    (1..=src.lines()).find_map(|l| {
        let t = src.line(l);
        let at = find_word(t, name)?;
        let before = t[..at].trim_end().strip_suffix('*')?.trim_end();
        let ty = before
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()?;
        (!ty.is_empty()).then(|| ty.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_element_read_on_two_lines_is_kept_in_a_register() {
        // Other names, another shape: a double, read in a condition and then in a sum.
        let k = "__global__ void clip(double* res, const double* vals, int n) {\n\
                 int k = blockIdx.x * blockDim.x + threadIdx.x;\n\
                 if (k >= n) return;\n\
                 double lo = vals[k] < 0.0 ? 0.0 : 1.0;\n\
                 res[k] = lo * vals[k];\n\
                 }\n";
        let h = help("global_reads", &Source::new(k)).unwrap_or_default();
        assert!(
            h.contains("`vals[k]` is read on line 4 and again on line 5"),
            "{h}"
        );
        assert!(h.contains("`double v = vals[k];`"), "{h}");
        assert!(help("global_writes", &Source::new(k)).is_none());
        // Twice on one line.
        let k = "__global__ void sq(float* o, const float* p) {\n\
                 int j = threadIdx.x;\n\
                 o[j] = p[j] * p[j];\n\
                 }\n";
        let h = help("global_reads", &Source::new(k)).unwrap_or_default();
        assert!(h.contains("`p[j]` is read twice on line 3"), "{h}");
    }

    #[test]
    fn reads_of_other_elements_or_after_a_store_say_nothing() {
        // The subscript's variable moves between the reads: two elements.
        let k = "__global__ void f(float* o, const float* p, int n) {\n\
                 int j = threadIdx.x;\n\
                 float s = p[j];\n\
                 j += 32;\n\
                 s += p[j];\n\
                 o[threadIdx.x] = s;\n\
                 }\n";
        assert!(help("global_reads", &Source::new(k)).is_none());
        // Two passes, each loop declaring its own variable.
        let k = "__global__ void f(float* o, const float* p, int n) {\n\
                 float m = 0.0f, s = 0.0f;\n\
                 for (int c = threadIdx.x; c < n; c += 32) m = fmaxf(m, p[c]);\n\
                 for (int c = threadIdx.x; c < n; c += 32) s += p[c] - m;\n\
                 o[threadIdx.x] = s;\n\
                 }\n";
        assert!(help("global_reads", &Source::new(k)).is_none());
        // Read, stored, read again: the second read sees the new value.
        let k = "__global__ void f(float* o, int n) {\n\
                 int j = threadIdx.x;\n\
                 float a = o[j];\n\
                 o[j] = a * 2.0f;\n\
                 o[j + 1] += o[j];\n\
                 }\n";
        assert!(help("global_reads", &Source::new(k)).is_none());
    }
}
