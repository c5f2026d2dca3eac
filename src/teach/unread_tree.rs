//! A tree over a `__shared__` array whose result is never read back: each thread stores its
//! part (`red[t] = d;`), the tree folds the parts into `red[0]`, and the code after it goes on
//! with the thread's own `d`. Said where the source shows each step: the store of a register
//! into the array at the thread's index, a loop that reads `red[t + s]` and ends each step with
//! a barrier (so `red[0]` is ready after it), no read of a fixed element (`red[0]`) after the
//! loop, and a use of the register after it.

use super::source::find_word;
use super::wrong::{in_loop, indexed, thread_names, Seen};

pub fn explain(w: &Seen) -> Option<String> {
    for (array, _) in w.src.shared_arrays() {
        if let Some(h) = unread(w, &array) {
            return Some(h);
        }
    }
    None
}

fn unread(w: &Seen, array: &str) -> Option<String> {
    let lines = w.src.lines();
    // `array[t] = v;` with `t` the thread's index and `v` a plain name.
    let (store, value) = (1..=lines).find_map(|l| {
        let code = w.src.line(l).trim();
        let (lhs, rhs) = code.split_once('=')?;
        if rhs.starts_with('=') || lhs.ends_with(['<', '>', '!', '+', '-', '*', '/']) {
            return None;
        }
        let [(name, index)] = indexed(lhs).try_into().ok()?;
        if name != array || !thread_names(w.src, l, 'x').contains(&index) {
            return None;
        }
        let v = rhs.trim().trim_end_matches(';').trim();
        let plain = !v.is_empty() && v.chars().all(|c| c.is_alphanumeric() || c == '_');
        (plain && !v.starts_with(|c: char| c.is_ascii_digit())).then(|| (l, v.to_string()))
    })?;
    // The tree: a loop after the store that reads `array[x + s]`, with a barrier in its body.
    let (header, step) = (store + 1..=lines).find_map(|l| {
        let reads_partner = indexed(w.src.line(l))
            .iter()
            .any(|(n, i)| n == array && i.contains('+'));
        let h = in_loop(w.src, l)?;
        reads_partner.then_some((h, l))
    })?;
    let end = *w.src.loop_body(header).end();
    if !w
        .src
        .loop_body(header)
        .any(|b| w.src.line(b).contains("__syncthreads()"))
    {
        return None;
    }
    // After the tree: no fixed element of the array is read, and the register is used.
    let after = end + 1..=lines;
    let reads_result = after.clone().any(|l| {
        indexed(w.src.line(l))
            .iter()
            .any(|(n, i)| n == array && i.chars().all(|c| c.is_ascii_digit()))
    });
    if reads_result {
        return None;
    }
    let used = after.clone().find(|&l| {
        let code = w.src.line(l);
        find_word(code, &value).is_some()
            && !super::seen::assigning_lines(w.src, l + 1, &value).contains(&l)
    })?;
    Some(format!(
        "The tree over `{array}` (each thread stores `{value}` into it on line {store}, the step on line {step}) leaves the block's result in `{array}[0]`, but no line after it reads `{array}[0]`: line {used} (`{}`) still uses this thread's own `{value}`. Read the result back after the tree (`{value} = {array}[0];`).",
        w.src.line(used).trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const MEAN: &str = "__global__ void center(float* y, const float* x, int cols) {\n    __shared__ float part[32];\n    int lane = threadIdx.x;\n    float mine = 0.0f;\n    for (int c = lane; c < cols; c += 32) mine += x[blockIdx.x * cols + c];\n    part[lane] = mine;\n    __syncthreads();\n    for (int h = 16; h >= 1; h >>= 1) {\n        if (lane < h) part[lane] += part[lane + h];\n        __syncthreads();\n    }\n    float mean = mine / cols;\n    for (int c = lane; c < cols; c += 32) y[blockIdx.x * cols + c] = x[blockIdx.x * cols + c] - mean;\n}\n";

    #[test]
    fn a_tree_whose_total_is_never_read_back_is_named() {
        // Another shape: a mean by a tree of 32 threads, the register used in a division.
        let sc = scene(MEAN, [2, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "y", &[1.0, -1.0], &[0.5, -0.25]).unwrap_or_default();
        for part in [
            "The tree over `part` (each thread stores `mine` into it on line 6, the step on line 9)",
            "no line after it reads `part[0]`",
            "line 12 (`float mean = mine / cols;`)",
            "`mine = part[0];`",
        ] {
            assert!(h.contains(part), "missing {part:?} in: {h}");
        }
    }

    #[test]
    fn silent_where_the_total_is_read_back_or_no_barrier_ends_a_step() {
        let read_back = MEAN.replace(
            "    float mean = mine / cols;",
            "    mine = part[0];\n    float mean = mine / cols;",
        );
        let sc = scene(&read_back, [2, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "y", &[1.0, -1.0], &[0.5, -0.25]), None);
        let no_barrier = MEAN.replace("        __syncthreads();\n    }", "    }");
        let sc = scene(&no_barrier, [2, 1, 1], [32, 1, 1]);
        assert_eq!(said(explain, &sc, "y", &[1.0, -1.0], &[0.5, -0.25]), None);
    }
}
