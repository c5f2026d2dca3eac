//! Registers of packed pairs that overlap: in `for (r ..) { x = base + 2 * t + r; reg[r] =
//! pack(at(x), at(x + 1)); }` each register packs elements `x` and `x + 1`, so register 1
//! starts at register 0's second element: the registers overlap, and the elements a group
//! further on are never read. Said where the source shows the loop (from 0, step 1), the local
//! with `2 * t` and the bare loop variable as terms, and a line of the body that reads at both
//! `x` and `x + 1`. Where another local of the function steps its pairs by `N * (...)`, the fix
//! names that step (`8 * r`).

use super::eval::{canonical, split_top};
use super::source::find_word;
use super::wrong::{loop_body_code, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    let src = w.src;
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|lh| lh.line == h) else {
            continue;
        };
        let Some(r) = head.init.as_deref().and_then(super::index::loop_var) else {
            continue;
        };
        let start = head
            .init
            .as_deref()
            .and_then(|i| i.split_once('='))
            .map(|x| canonical(x.1));
        let step = head.step.as_deref().map(canonical);
        let ones = [format!("{r}++"), format!("++{r}"), format!("{r}+=1")];
        if start.as_deref() != Some("0") || !step.is_some_and(|s| ones.contains(&s)) {
            continue;
        }
        let body = loop_body_code(src, h);
        for (l, code) in &body {
            // `x = ... + 2 * t + r` among the declarations of the line.
            for decl in split_top(code.trim().trim_end_matches(';'), ',') {
                let Some((lhs, rhs)) = decl.split_once('=') else {
                    continue;
                };
                let Some(x) = lhs.split_whitespace().last() else {
                    continue;
                };
                let terms: Vec<String> = split_top(&canonical(rhs), '+');
                let bare = terms.contains(&r);
                let pair = terms.iter().any(|t| t.starts_with("2*") && !t.contains(&r));
                if !bare || !pair {
                    continue;
                }
                // A line of the body reads at `x` and at `x + 1`.
                let both = body.iter().any(|(_, c)| {
                    find_word(c, x).is_some() && canonical(c).contains(&format!("{x}+1"))
                });
                if !both {
                    continue;
                }
                let shown = rhs.trim();
                // Another local of the function that steps its pairs by `N * (...)`.
                let f = src.function_of(*l).map_or(1, |f| f.0);
                let sibling = (f..=src.lines())
                    .filter(|&s| s != *l && src.function_of(s).map_or(1, |f| f.0) == f)
                    .find_map(|s| {
                        let c = canonical(src.line(s));
                        let at = c.find("2*")?;
                        let rest = &c[at..];
                        let n = split_top(rest.trim_end_matches(';'), '+')
                            .into_iter()
                            .skip(1)
                            .find_map(|t| t.split_once('*').map(|(n, _)| n.to_string()))?;
                        (n.chars().all(|ch| ch.is_ascii_digit()) && n != "1").then_some((s, n))
                    });
                let fix = match sibling {
                    Some((s, n)) => format!(" Step the registers apart by a whole group, as line {s} does: `{n} * {r}` in place of `{r}`."),
                    None => " Step the registers apart by a whole group of the layout, not by 1.".to_string(),
                };
                return Some(format!(
                    "Line {l} sets `{x} = {shown}`, and each register packs the elements at `{x}` and `{x} + 1`: register `{r}` = 1 starts at register 0's second element, so the registers overlap and the elements a group further on are never read.{fix}"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    // Another shape than the suite's: pairs of a row `v`, lane pair index `q`, step 4 elsewhere.
    const PACK: &str = "__device__ unsigned two(float a, float b) { return 0u; }\n__global__ void k(unsigned* o, const float* v) {\n    int q = threadIdx.x % 4;\n    unsigned ra[2], rb[2];\n    for (int i = 0; i < 2; i++) {\n        int e = 2 * q + 4 * i;\n        ra[i] = two(v[e], v[e + 1]);\n    }\n    for (int j = 0; j < 2; j++) {\n        int y = 16 + 2 * q + j;\n        rb[j] = two(v[y], v[y + 1]);\n    }\n    o[threadIdx.x] = ra[0] + rb[1];\n}\n";

    #[test]
    fn overlapping_pair_registers_get_the_group_step() {
        let sc = scene(PACK, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]).unwrap_or_default();
        assert!(
            h.contains("Line 10 sets `y = 16 + 2 * q + j`")
                && h.contains("as line 6 does: `4 * j` in place of `j`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_registers_a_group_apart() {
        let right = PACK.replace("16 + 2 * q + j", "16 + 2 * q + 4 * j");
        let sc = scene(&right, [1, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "o", &[1.0, 2.0], &[2.0, 1.0]), None);
    }
}
