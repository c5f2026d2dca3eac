//! Global atomics over budget where the budget is built for fewer, read from the atomics'
//! lines (the census's, so only atomics the kernel compiles) in the source after the
//! preprocessor:
//! - `histogram`: one global atomic per element, into a bin the element's value picks
//!   (`atomicAdd(&hist[a[i]], 1)`): a block's private histogram in `__shared__` memory takes
//!   the counts, and only its bins go to global memory;
//! - `block_total`: each block's total added atomically into one fixed element that every block
//!   reads back after `grid.sync()`: a slot per block, `sums[blockIdx.x] = total;`, needs no
//!   atomic, and after the sync each block adds the slots up.
//!
//! Where the atomics' targets do not have that shape, each rule stays silent.

use super::eval;
use super::source::{find_word, Source};

/// The first argument of every `atomic...(` call on a line, as written (`&hist[a[i]]`).
fn targets(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = code[from..].find("atomic") {
        let at = from + rel;
        let after = &code[at..];
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let rest = after[name_end..].trim_start();
        if let Some(args) = rest.strip_prefix('(') {
            if let Some(first) = eval::split_top(args, ',').into_iter().next() {
                out.push(first.trim().trim_start_matches('&').trim().to_string());
            }
        }
        from = at + name_end.max(1);
    }
    out
}

/// `name[sub]` split, for a target with one subscript.
fn indexed(target: &str) -> Option<(String, String)> {
    let open = target.find('[')?;
    let sub = target[open + 1..].strip_suffix(']')?;
    let name = target[..open].trim();
    (!name.is_empty()).then(|| (name.to_string(), sub.trim().to_string()))
}

/// The help for a block over its global atomics when every atomic goes to a bin that a value
/// read from memory picks.
pub fn histogram(src: &Source, atomic_lines: &[u32]) -> Option<String> {
    let mut bins: Vec<(u32, String, String)> = Vec::new();
    for &l in atomic_lines {
        for t in targets(src.line(l)) {
            let (name, sub) = indexed(&t)?;
            if !read_from_memory(src, l, &sub) {
                return None;
            }
            bins.push((l, name, sub));
        }
    }
    let (line, name, sub) = bins.first()?.clone();
    // A `__shared__` array already declared and never counted into: name it.
    let declared = src.shared_names().into_iter().find(|n| {
        // Its declaration is the only line that names it.
        (1..=src.lines())
            .filter(|&u| find_word(src.line(u), n).is_some())
            .count()
            == 1
    });
    let (shared, private) = match &declared {
        Some(n) => (
            n.clone(),
            format!("`{n}`, which your kernel declares and never uses"),
        ),
        None => (
            format!("s_{name}"),
            format!("a `__shared__` array with one slot per bin of `{name}` (say `s_{name}`)"),
        ),
    };
    Some(format!(
        "every element makes its own global atomic (`{name}[{sub}]` on line {line}), so a \
         block makes as many as it has elements, and the atomics of all blocks queue on the \
         same few bins. Count into the block's private histogram in shared memory instead, \
         {private}: zero it, `__syncthreads()`, `atomicAdd(&{shared}[{sub}], 1)` into shared \
         memory for each element, `__syncthreads()`, then let thread b add bin b of the block's \
         histogram to `{name}[b]` with one global atomic (skipping empty bins)"
    ))
}

/// Whether the subscript `sub` of an atomic on line `line` is a value read from memory: it
/// holds a subscript itself (`a[i]`), or is a local set from one (`int v = a[i];`).
fn read_from_memory(src: &Source, line: u32, sub: &str) -> bool {
    if sub.contains('[') {
        return true;
    }
    let names = eval::names(sub);
    names.iter().any(|n| {
        src.definition(line, n)
            .is_some_and(|(_, value)| value.contains('['))
    })
}

/// The help for global atomics over a budget of none, when each block adds its total into one
/// fixed element and reads it after a grid-wide sync.
pub fn block_total(src: &Source, atomic_lines: &[u32]) -> Option<String> {
    let mut found: Option<(u32, String, String)> = None;
    for &l in atomic_lines {
        for t in targets(src.line(l)) {
            let (name, sub) = indexed(&t).unwrap_or((t.clone(), String::new()));
            if !(sub.is_empty() || sub.chars().all(|c| c.is_ascii_digit())) {
                return None;
            }
            found.get_or_insert((l, name, sub));
        }
    }
    let (line, name, sub) = found?;
    // The grid-wide sync after the atomic, and a read of the same element after it.
    let sync = (line + 1..=src.lines()).find(|&l| grid_sync(src, src.line(l)))?;
    let whole = if sub.is_empty() {
        name.clone()
    } else {
        format!("{name}[{sub}]")
    };
    let read = (sync + 1..=src.lines()).find(|&l| find_word(src.line(l), &name).is_some())?;
    let slot = if sub.is_empty() {
        format!(
            "make `{name}` an array with a slot per block and write `{name}[blockIdx.x] = total;`"
        )
    } else {
        format!("give each block its own slot, `{name}[blockIdx.x] = total;`")
    };
    Some(format!(
        "your kernel adds its partial sums into `{whole}` with an atomic (line {line}) before \
         the grid sync (line {sync}) and reads it after (line {read}), where the puzzle allows \
         no atomic. Without atomics: add up the block's values first, so that one thread holds \
         the block's total; {slot}, written by that thread, and after `grid.sync()` let each \
         block add the `gridDim.x` slots up, every block seeing all of them"
    ))
}

/// Whether a line calls a grid-wide sync: `grid.sync()` on a `grid_group`, or
/// `this_grid().sync()`.
fn grid_sync(src: &Source, code: &str) -> bool {
    if code.contains("this_grid().sync()") {
        return true;
    }
    let Some(at) = code.find(".sync()") else {
        return false;
    };
    let obj = code[..at]
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    !obj.is_empty()
        && (1..=src.lines()).any(|l| {
            let t = src.line(l);
            t.contains("grid_group") && find_word(t, obj).is_some()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_global_atomic_per_element_into_a_bin_gets_a_private_shared_histogram() {
        // Other names: the bin a local read from memory, a strided loop, no shared array yet.
        let k = "__global__ void tally(int* counts, const unsigned char* px, int total) {\n\
                 for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < total; p += 4096) {\n\
                 int level = px[p] / 16;\n\
                 atomicAdd(&counts[level], 1);\n\
                 }\n\
                 }\n";
        let h = histogram(&Source::new(k), &[4]).unwrap_or_default();
        assert!(h.contains("`counts[level]` on line 4"), "{h}");
        assert!(h.contains("private histogram in shared memory"), "{h}");
        assert!(h.contains("one slot per bin of `counts`"), "{h}");
        // A declared, unused shared array is named.
        let k2 = k.replace("for (int p", "__shared__ int mine[16];\nfor (int p");
        let h = histogram(&Source::new(&k2), &[5]).unwrap_or_default();
        assert!(h.contains("`mine`, which your kernel declares"), "{h}");
    }

    #[test]
    fn atomics_into_bins_the_thread_picks_or_one_total_are_no_histogram() {
        let k = "__global__ void f(int* out, const int* a) {\n\
                 atomicAdd(&out[threadIdx.x % 4], a[threadIdx.x]);\n\
                 atomicAdd(out, 1);\n\
                 }\n";
        assert_eq!(histogram(&Source::new(k), &[2]), None);
        assert_eq!(histogram(&Source::new(k), &[3]), None);
    }

    #[test]
    fn a_block_total_added_atomically_before_a_grid_sync_gets_a_slot_per_block() {
        let k = "__device__ double partial[64];\n\
                 __global__ void norm(double* y, const double* x, int n) {\n\
                 cooperative_groups::grid_group g = cooperative_groups::this_grid();\n\
                 double s = x[threadIdx.x];\n\
                 if (threadIdx.x == 0) atomicAdd(partial, s);\n\
                 g.sync();\n\
                 y[threadIdx.x] = x[threadIdx.x] / partial[0];\n\
                 }\n";
        let h = block_total(&Source::new(k), &[5]).unwrap_or_default();
        assert!(
            h.contains("sums into `partial` with an atomic (line 5)"),
            "{h}"
        );
        assert!(
            h.contains("grid sync (line 6) and reads it after (line 7)"),
            "{h}"
        );
        assert!(
            h.contains("make `partial` an array") && h.contains("`partial[blockIdx.x] = total;`"),
            "{h}"
        );
    }

    #[test]
    fn atomics_without_a_grid_sync_or_into_moving_slots_are_no_block_total() {
        // No grid sync: another launch or another design, not this rule's.
        let k = "__global__ void f(float* out, const float* a) {\n\
                 atomicAdd(&out[0], a[threadIdx.x]);\n\
                 }\n";
        assert_eq!(block_total(&Source::new(k), &[2]), None);
        // A slot per block already (the atomic is another matter).
        let k = "__global__ void f(float* sums, const float* a) {\n\
                 atomicAdd(&sums[blockIdx.x], a[threadIdx.x]);\n\
                 this_grid().sync();\n\
                 float t = sums[0];\n\
                 }\n";
        assert_eq!(block_total(&Source::new(k), &[2]), None);
    }
}
