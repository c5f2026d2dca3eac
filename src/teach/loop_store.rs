//! Elements never written because a loop stores every pass at one element: inside `for (k ..)`
//! the store `out[r * cols + lane] = v[k] / sum` has an index that does not change with `k`,
//! so each pass overwrites the same element and the elements the other passes own are never
//! written. Said where the source shows it (the store's index, through its locals, does not
//! depend on the loop variable, while the stored value or the store's guard does) and the
//! output has elements no thread wrote. Where the guard names the element's position
//! (`lane + 32 * k < cols`), the help puts that position in the index.

use super::eval::{canonical, names, split_top};
use super::source::{uses_in, Source};
use super::wrong::{depends_on, in_loop};

/// The help for output `name` with elements never written, or `None`.
pub fn explain(src: &Source, name: &str) -> Option<String> {
    for l in 1..=src.lines() {
        let code = src.line(l);
        let Some(u) = uses_in(code, name)
            .into_iter()
            .find(|u| u.write && !u.update && u.dims.len() == 1)
        else {
            continue;
        };
        let Some(h) = in_loop(src, l) else {
            continue;
        };
        let Some(var) = src
            .loop_header(h)
            .and_then(|lh| lh.init)
            .and_then(|i| super::index::loop_var(&i))
        else {
            continue;
        };
        let idx = u.dims[0].trim().to_string();
        if depends_on(src, l, &idx).contains(&var) {
            continue;
        }
        // The value stored changes with the loop (`v[k]`), or the guard does.
        let value = code[u.end..].split_once('=').map(|(_, v)| v).unwrap_or("");
        let value_moves = depends_on(src, l, value).contains(&var);
        let guard = src
            .guards(l)
            .into_iter()
            .filter(|g| g.line > h)
            .find(|g| names(&g.cond).contains(&var));
        if !value_moves && guard.is_none() {
            continue;
        }
        // The guard's position (`lane + 32 * k` of `lane + 32 * k < cols`), put in the index
        // in place of the name it extends.
        let fixed = guard.as_ref().and_then(|g| {
            let pos = g.cond.split_once('<')?.0.trim().to_string();
            let terms = split_top(&canonical(&pos), '+');
            let base = terms.iter().find(|t| !names(t).contains(&var))?;
            let idx_terms = split_top(&canonical(&idx), '+');
            idx_terms.contains(base).then(|| {
                let extra: Vec<String> = split_top(&pos, '+')
                    .into_iter()
                    .map(|t| t.trim().to_string())
                    .filter(|t| canonical(t) != *base)
                    .collect();
                format!("{idx} + {}", extra.join(" + "))
            })
        });
        let advice = match (&guard, fixed) {
            (Some(g), Some(f)) => format!(
                " The guard on line {} tests the element's position, `{}`: store at it, `{name}[{f}]`.",
                g.line,
                g.cond.split_once('<').map_or(g.cond.as_str(), |p| p.0).trim()
            ),
            _ => format!(" Make the index follow `{var}`, as the element each pass computes does."),
        };
        return Some(format!(
            "The store on line {l}, `{name}[{idx}]`, is inside the loop over `{var}` (line {h}), but its index does not change with `{var}`: every pass writes the same element, and the elements the other passes compute are never written.{advice}"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // Another shape than the suite's: four results per thread written at `t` in a `while` loop.
    const FOUR: &str = "__global__ void quad(float* res, const float* x, int n) {\n    int t = blockIdx.x * 64 + threadIdx.x;\n    for (int q = 0; q < 4; q++) {\n        if (t + 256 * q < n) {\n            res[t] = 2.0f * x[t + 256 * q];\n        }\n    }\n}\n";

    #[test]
    fn a_store_whose_index_ignores_the_loop_gets_the_guard_s_position() {
        let h = explain(&Source::new(FOUR), "res").unwrap_or_default();
        assert!(
            h.contains("The store on line 5, `res[t]`, is inside the loop over `q` (line 3)")
                && h.contains("`res[t + 256 * q]`"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_index_follows_the_loop_or_nothing_changes_with_it() {
        let right = FOUR.replace("res[t] =", "res[t + 256 * q] =");
        assert_eq!(explain(&Source::new(&right), "res"), None);
        // The same value each pass and no guard on the loop variable: not this cause.
        let same = "__global__ void k(float* res, const float* x) {\n    int t = threadIdx.x;\n    for (int q = 0; q < 4; q++) {\n        res[t] = x[t];\n    }\n}\n";
        assert_eq!(explain(&Source::new(same), "res"), None);
    }
}
