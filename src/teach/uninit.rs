//! Reads of shared memory no thread wrote. The help finds the writes of the array in the
//! source: none at all (fill it first); halo past the elements the threads write one each
//! (let some threads load the extra elements); a thread reading back the very element it
//! stores itself, after skipping that store (`own_element`: the read's index is wrong, a
//! transpose reads `tile[threadIdx.x][threadIdx.y]`); the own slot moved forward (`moved`:
//! a neighbour's slot, a window reading forward); a write inside an `if` (store a neutral
//! value when the condition fails); otherwise what was seen.

use super::source::{self, uses_in};
use super::{eval, names, Case};
use crate::emu::facts::Facts;

/// A read of an output no thread had written (it starts as poison, as `cudaMalloc`'d memory
/// holds garbage): the value must be built in a register and stored, not added into the
/// output.
pub fn output_help(c: &Case) -> String {
    let Facts::UnwrittenOutput { element: Some(e) } = &c.d.facts else {
        return "an output starts as whatever was in memory, not 0: write each element before any thread reads it".into();
    };
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    format!("`{short}` is an output, and on a GPU it starts as whatever was in memory (here NaN, or 0xdeadbeef for integers), not 0: reading it before this kernel writes it (`{short}[i] += ...`, an atomic add into it) builds on garbage. Start the value in a register (`float acc = 0.0f;`), add into that, and store it once: `{short}[i] = acc;`")
}

/// A read of shared memory no thread wrote.
pub fn help(c: &Case) -> String {
    let Facts::Uninitialized {
        element: Some(e), ..
    } = &c.d.facts
    else {
        return "shared memory starts out holding garbage: write every element before any thread reads it, with __syncthreads() between the writes and the reads".into();
    };
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    let writes: Vec<u32> = (1..=c.src.lines())
        .filter(|&l| {
            !c.src.line(l).contains("__shared__")
                && source::uses_in(c.src.line(l), short)
                    .iter()
                    .any(|u| u.write)
        })
        .collect();
    let Some(&w) = writes.first() else {
        return format!("nothing in the kernel writes `{short}` before this read: shared memory starts out holding garbage, so fill it first (e.g. `{short}[threadIdx.x] = 0;` for counters, or the values it should hold), then __syncthreads(), then read");
    };
    let shown = names::shown(e, c.src, &c.scene.values);
    let r = c.line.unwrap_or(0);
    // Past the elements the block's threads write one each: the halo nobody loads.
    let b = c.scene.block;
    let halo = match names::indices(e, c.src, &c.scene.values).as_deref() {
        Some([row, col]) => *row >= b[1] as i128 || *col >= b[0] as i128,
        Some([i]) => *i >= (b[0] * b[1] * b[2]) as i128,
        _ => false,
    };
    // Which thread's store (line `w`, its guard aside) lands on the element read, if the
    // store's index can be evaluated for the block's threads.
    let reach = names::indices(e, c.src, &c.scene.values).and_then(|at| {
        let mut none = Some(None);
        for &l in writes.iter().filter(|&&l| l < r) {
            match store_reaches(c, short, l, &at) {
                Some(Some(t)) => return Some(Some((l, t))),
                Some(None) => {}
                None => none = None,
            }
        }
        none
    });
    // One writer per group (`lane == 0`): a 0 from the others would land on the same
    // element, so the zero-fill does not fit; the read goes past what the writers stored.
    if let Some(g) = c
        .src
        .guards(w)
        .into_iter()
        .find(|g| !g.returns && super::race::one_writer_guard(&g.cond))
    {
        return one_writer_gap(c, short, &shown, w, (&g.cond, g.line));
    }
    if halo || reach == Some(None) {
        return past_the_loads(c, short, &shown, w, &writes, halo);
    }
    if let Some(own) = own_element(c, short, &writes) {
        return own;
    }
    // The thread's own slot moved forward (`s[t + 1]`): the index, not a zero-fill.
    if let Some(m) = super::moved::help(c, short, &writes) {
        return m;
    }
    if let Some(g) = c.src.guards(w).into_iter().find(|g| !g.returns) {
        // Zero-fill fits only a slot whose own store the guard skipped.
        let skipped = match reach {
            Some(Some((l, t))) if l == w => {
                match eval::eval(&g.cond, &c.env_on_line(w, t, c.d.block)) {
                    Some(0) => Some(format!(
                        " (for {}, whose store lands on it, the condition is false)",
                        c.who(t, c.d.block)
                    )),
                    Some(_) => None,
                    None => Some(String::new()),
                }
            }
            _ => Some(String::new()),
        };
        if let Some(whose) = skipped {
            // The value that leaves line r's result unchanged, in the array's own type.
            let n = super::padding::neutral(c.src, short, Some(r));
            let v = n.split(" (from").next().unwrap_or(&n);
            return format!("line {w} writes `{short}` only inside `if ({})` (line {}), so the threads that skip it leave their element holding garbage{whose}, and line {r} reads {shown}: store {n} when the condition fails (`{short}[..] = {} ? ... : {v};`), so the element holds a neutral value", g.cond, g.line, g.cond);
        }
    }
    format!("no thread wrote {shown} before this read; line {w} writes `{short}`, but not this element before it is read: check that the writes cover every element the reads use (each thread its own, for every thread of the block, with any padding set to 0), with __syncthreads() between the writes and the reads")
}

/// A read past the elements the block's threads write one each (line `w`). Halo (a stencil's
/// neighbours past the block's own elements) only when the kernel has a second, halo store or
/// the read is the thread's element and an offset; a tree or scan loop (its step doubles or
/// halves) that reads the whole array needs every element loaded: that is what it is told.
fn past_the_loads(
    c: &Case,
    short: &str,
    shown: &str,
    w: u32,
    writes: &[u32],
    outside: bool,
) -> String {
    let r = c.line.unwrap_or(0);
    let b = c.scene.block;
    let threads = b[0] * b[1] * b[2];
    let own = uses_in(c.src.line(w), short)
        .into_iter()
        .find(|u| u.write)
        .map(|u| u.dims.join("]["))
        .unwrap_or_else(|| "threadIdx.x".into());
    // The innermost loop around the read and whether its step doubles or halves.
    let start = c.src.function_of(r).map_or(1, |f| f.0);
    let tree = (start..=r).rev().find_map(|l| {
        let h = c.src.loop_header(l).filter(|h| h.line == l)?;
        c.src.loop_body(l).contains(&r).then_some(h)
    });
    // A halo store: before that loop (or the read), a store of another element than the
    // thread's own one (`s[t + TPB]`, `s[t - 1]`).
    let before = tree.as_ref().map_or(r, |h| h.line);
    let own_key = eval::canonical(&own);
    let halo_store = writes
        .iter()
        .filter(|&&l| l < before)
        .flat_map(|&l| uses_in(c.src.line(l), short))
        .any(|u| u.write && eval::canonical(&u.dims.join("][")) != own_key);
    let tree = tree.filter(|h| {
        h.step.as_deref().is_some_and(|st| {
            ["*=", "/=", "<<=", ">>="].iter().any(|op| st.contains(op))
                || st.contains("* 2")
                || st.contains("/ 2")
        })
    });
    if let (Some(h), false) = (tree, halo_store) {
        // A halving loop that starts at or past what the threads wrote: its first round
        // reads the unwritten half. Start it at half the elements written.
        let halves = h
            .step
            .as_deref()
            .is_some_and(|st| st.contains("/=") || st.contains(">>=") || st.contains("/ 2"));
        let start_at = h.init.as_deref().and_then(|i| {
            let (var, v) = i.split_once('=')?;
            let var = var.split_whitespace().last()?.to_string();
            Some((var, eval::eval(v.trim(), &c.env())?))
        });
        if let Some((var, v)) = start_at.filter(|(_, v)| halves && *v >= threads as i64) {
            return format!("{shown} lies past the {threads} elements the block's threads write one each (line {w}, `{short}[{own}]`), and the halving loop on line {} starts at `{var}` = {v}, so its first round reads it (line {r}): start the loop at half of what was written, `{var} = blockDim.x / 2`, so each round adds the upper half of the elements still in play to the lower", h.line);
        }
        let len = c
            .src
            .shared_dims(short)
            .filter(|d| d.len() == 1)
            .and_then(|d| eval::eval(&d[0], &c.env()));
        let each = match len {
            Some(n) if threads > 0 && n > threads as i64 && n % threads as i64 == 0 => {
                let k = n / threads as i64;
                let mut each: Vec<String> = (0..k)
                    .map(|j| match j {
                        0 => format!("`{short}[{own}]`"),
                        1 => format!("`{short}[{own} + blockDim.x]`"),
                        _ => format!("`{short}[{own} + {j} * blockDim.x]`"),
                    })
                    .collect();
                let last = each.pop().unwrap_or_default();
                format!("{short} holds {n} elements for {threads} threads, so each thread loads {k}: {} and {last} (0 for those past the data)", each.join(", "))
            }
            _ => format!("load every element of {short} the loop reads (a loop over the whole array, each thread stepping by blockDim.x, 0 past the data)"),
        };
        return format!("{shown} lies past the elements the block's threads write one each (line {w}, `{short}[{own}]`), and line {r} reads it in the loop on line {} (`{}`), whose step doubles or halves: a tree over the whole of {short}, not a stencil's neighbours. Every element it reads must be loaded before the loop: {each}, then __syncthreads()", h.line, h.step.as_deref().unwrap_or(""));
    }
    // A stencil: the read's index steps through a loop's taps (`j++`), or the line reads
    // several neighbours of the array.
    let code = c.src.line(r);
    let reads: Vec<String> = uses_in(code, short)
        .into_iter()
        .filter(|u| !u.write)
        .map(|u| eval::canonical(&u.dims.join("][")))
        .collect();
    let taps = (start..=r).any(|l| {
        c.src.loop_header(l).is_some_and(|h| {
            h.line == l
                && c.src.loop_body(l).contains(&r)
                && h.init
                    .as_deref()
                    .and_then(super::index::loop_var)
                    .is_some_and(|v| {
                        reads
                            .iter()
                            .flat_map(|x| x.split("]["))
                            .any(|d| eval::names(d).contains(&v))
                    })
        })
    });
    let neighbours = reads
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        > 1;
    if outside && (halo_store || taps || neighbours) {
        return format!("{shown} lies past the elements the block's threads write one each (line {w}, `{short}[{own}]`): it is halo that no thread loads, yet line {r} reads it. Let some threads load the extra elements too (e.g. the first threads also store `{short}[{own} + blockDim.x]`, or a loop over the whole tile), then __syncthreads()");
    }
    // No store of any thread lands there, and nothing shows a halo: the read's index.
    let read = uses_in(code, short)
        .into_iter()
        .find(|u| !u.write)
        .map(|u| format!(" through `{short}[{}]`", u.dims.join("][")))
        .unwrap_or_default();
    format!("no thread of the block stores {shown}: the store on line {w}, `{short}[{own}]`, gives each thread its own element and none of them is this one, yet line {r} reads it{read}. The read's index is wrong (a 0 stored there, or a wider guard, would only hide it): make it name an element a thread stored, for a tile usually the store's own index with the axes as the computation needs them")
}

/// The store on line `w` has one writer per group (`if (lane == 0)`, line `gl`), and the
/// read takes an element none of them stored: say so, and where the read is the first round
/// of a halving loop, start it at half the number written.
fn one_writer_gap(c: &Case, short: &str, shown: &str, w: u32, (cond, gl): (&str, u32)) -> String {
    let r = c.line.unwrap_or(0);
    let start = c.src.function_of(r).map_or(1, |f| f.0);
    let halving = (start..=r).rev().find_map(|l| {
        let h = c.src.loop_header(l).filter(|h| h.line == l)?;
        if !c.src.loop_body(l).contains(&r) {
            return None;
        }
        let st = h.step.as_deref()?;
        if !(st.contains("/=") || st.contains(">>=") || st.contains("/ 2")) {
            return None;
        }
        let (var, v) = h.init.as_deref()?.split_once('=')?;
        let var = var.split_whitespace().last()?.to_string();
        Some((h.line, var, v.trim().to_string()))
    });
    let fix = match halving {
        Some((l, var, v)) => format!(": the halving loop on line {l} starts at `{var} = {v}`, so its first round reads elements past the stored ones; start it at half the number of elements stored (`{var} = ({v}) / 2` when {v} of them are stored)"),
        None => ": read only the elements the writers stored (check the read's index and its loop's bound)".into(),
    };
    format!("line {w} writes `{short}` only inside `if ({cond})` (line {gl}), one writer per group, so only the elements those writers store hold values; line {r} reads {shown}, which none of them stored. A 0 stored by the other threads would not help, since they would all write the writer's element{fix}")
}

/// Whether a thread of the diagnostic's block stores the element `at` (its indices, by
/// dimension) on line `w`, its guard aside: `Some(Some(thread))` the first that does,
/// `Some(None)` none does, `None` when the store's index cannot be evaluated for every thread.
fn store_reaches(c: &Case, short: &str, w: u32, at: &[i128]) -> Option<Option<[u32; 3]>> {
    let stores: Vec<Vec<String>> = uses_in(c.src.line(w), short)
        .into_iter()
        .filter(|u| u.write && u.dims.len() == at.len())
        .map(|u| u.dims)
        .collect();
    if stores.is_empty() {
        return None;
    }
    let b = c.scene.block;
    for z in 0..b[2] {
        for y in 0..b[1] {
            for x in 0..b[0] {
                let env = c.env_on_line(w, [x, y, z], c.d.block);
                for dims in &stores {
                    let v: Vec<i128> = dims
                        .iter()
                        .map(|d| eval::eval(d, &env).map(i128::from))
                        .collect::<Option<_>>()?;
                    if v == at {
                        return Some(Some([x, y, z]));
                    }
                }
            }
        }
    }
    Some(None)
}

/// The read's subscript is the very one a store of the array uses, and it names this thread's
/// element: the thread reads back what it stores itself, but it skipped that store (an `if`
/// around the store that the read does not share). No shared memory is needed for that, so
/// the read's index is what is wrong. A kernel that moves the block to its transposed place
/// (a row taken from `blockIdx.x` with `threadIdx.y`) reads the tile transposed.
fn own_element(c: &Case, short: &str, writes: &[u32]) -> Option<String> {
    let r = c.line?;
    let Facts::Uninitialized {
        element: Some(e), ..
    } = &c.d.facts
    else {
        return None;
    };
    let at = names::indices(e, c.src, &c.scene.values)?;
    let env = c.env();
    let read = uses_in(c.src.line(r), short).into_iter().find(|u| {
        !u.write
            && u.dims.len() == at.len()
            && u.dims
                .iter()
                .zip(&at)
                .all(|(d, &v)| eval::eval(d, &env).map(i128::from) == Some(v))
    })?;
    let key = |dims: &[String]| dims.iter().map(|d| eval::canonical(d)).collect::<Vec<_>>();
    let w = *writes.iter().find(|&&w| {
        w < r
            && uses_in(c.src.line(w), short)
                .iter()
                .any(|u| u.write && key(&u.dims) == key(&read.dims))
    })?;
    // The store's `if`, which the read is not inside.
    let read_guards: Vec<String> = c
        .src
        .guards(r)
        .iter()
        .map(|g| eval::canonical(&g.cond))
        .collect();
    let g = c
        .src
        .guards(w)
        .into_iter()
        .find(|g| !g.returns && !read_guards.contains(&eval::canonical(&g.cond)))?;
    let written = format!("{short}[{}]", read.dims.join("]["));
    let seen = format!("line {r} reads `{written}`, the very element this thread stores itself on line {w}, but this thread skipped that store (`if ({})` on line {} was false for it), so the element holds garbage", g.cond, g.line);
    // `threadIdx.{a}` or a local that is exactly it (`int ty = threadIdx.y;`).
    let axis = |d: &str, a: &str| {
        let t = format!("threadIdx.{a}");
        d == t || c.src.locals_named_for(r, &t).iter().any(|n| n == d)
    };
    // A local made of the block's `b` coordinate and the thread's `a` one (`int out_row =
    // blockIdx.x * TILE + threadIdx.y;`): the block moved to its transposed place.
    let moved = |b: &str, a: &str| {
        c.src.locals_mentioning(r, b).iter().any(|n| {
            c.src
                .definition(r, n)
                .is_some_and(|(_, v)| eval::names(&v).iter().any(|x| axis(x, a)))
        })
    };
    let transposed = read.dims.len() == 2
        && axis(&eval::canonical(&read.dims[0]), "y")
        && axis(&eval::canonical(&read.dims[1]), "x")
        && (moved("blockIdx.x", "y") || moved("blockIdx.y", "x"));
    if transposed {
        let swapped = format!("{short}[{}][{}]", read.dims[1], read.dims[0]);
        return Some(format!("{seen}. A thread that reads back its own element passes nothing through the tile: this kernel writes the block to its transposed place, so each thread reads the element its transposed partner stored: swap the indices, `{swapped}`"));
    }
    Some(format!("{seen}. If the read should take another thread's element, fix its index; if its own, read it under the store's condition too (`if ({})`, as on line {}), so that a thread that stored nothing reads nothing", g.cond, g.line))
}

#[cfg(test)]
mod tests {
    use super::super::{explain, Scene};
    use crate::emu::facts::{Element, Facts};
    use crate::emu::result::{DiagKind, Diagnostic, Severity};

    fn help(src: &str, line: u32, thread: [u32; 3], index: i128) -> String {
        let at = Read {
            name: "t",
            len: 64,
            block: [8, 8, 1],
            values: &[("T", 8)],
        };
        help_in(src, &at, line, thread, index)
    }

    /// The shared array read, its length, the launch's block and the defines and scalars.
    struct Read<'a> {
        name: &'a str,
        len: u64,
        block: [u32; 3],
        values: &'a [(&'a str, i64)],
    }

    fn help_in(src: &str, at: &Read, line: u32, thread: [u32; 3], index: i128) -> String {
        let scene = Scene {
            source: src,
            file_name: "k.cu",
            module: None,
            grid: [3, 3, 1],
            block: at.block,
            values: at.values.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            shapes: Vec::new(),
            cooperative: false,
        };
        let d = Diagnostic {
            kind: DiagKind::UninitializedRead,
            severity: Severity::Error,
            message: String::new(),
            help: None,
            facts: Facts::Uninitialized {
                element: Some(Element {
                    name: at.name.into(),
                    index,
                    len: at.len,
                }),
            },
            file: Some("k.cu".into()),
            line: Some(line),
            block: [2, 0, 0],
            thread,
            other_line: None,
        };
        let mut v = vec![d];
        explain(&mut v, &scene);
        v[0].help.clone().unwrap_or_default()
    }

    const TRANSPOSE: &str = "__global__ void k(float* o, const float* a, int h, int w) {\n    __shared__ float t[T][T];\n    int tx = threadIdx.x;\n    int ty = threadIdx.y;\n    int x = blockIdx.x * T + tx;\n    int y = blockIdx.y * T + ty;\n    if (x < w && y < h) t[ty][tx] = a[y * w + x];\n    __syncthreads();\n    int ox = blockIdx.y * T + tx;\n    int oy = blockIdx.x * T + ty;\n    if (ox < h && oy < w) o[oy * h + ox] = t[ty][tx];\n}\n";

    #[test]
    fn a_transpose_reading_its_own_skipped_element_gets_the_transposed_read() {
        let h = help(TRANSPOSE, 11, [5, 0, 0], 5);
        assert!(
            h.contains("skipped that store") && h.contains("`t[tx][ty]`"),
            "{h}"
        );
        assert!(!h.contains("0.0f") && !h.contains("__syncthreads"), "{h}");
    }

    #[test]
    fn reading_back_an_own_skipped_element_elsewhere_says_what_was_seen() {
        // No transposed block: the read's index is named as the suspect, without a guess.
        let src = TRANSPOSE
            .replace("blockIdx.y * T + tx", "blockIdx.x * T + tx")
            .replace("blockIdx.x * T + ty", "blockIdx.y * T + ty");
        let h = help(&src, 11, [5, 0, 0], 5);
        assert!(h.contains("fix its index"), "{h}");
        assert!(!h.contains("t[tx][ty]") && !h.contains("0.0f"), "{h}");
        // The read's own guard bounds the other coordinates: the store's is named.
        assert!(h.contains("`if (x < w && y < h)`, as on line 7"), "{h}");
    }

    #[test]
    fn an_unguarded_read_of_an_own_skipped_element_gets_the_store_s_condition() {
        // Another shape: 1D, the store guarded, the read (and the output's write) not at all.
        // Keeping the value in a register would drop the shared array the kernel is about.
        let src = "__global__ void twice(float* res, const float* v, int n) {\n    __shared__ float s[32];\n    int g = blockIdx.x * 32 + threadIdx.x;\n    if (g < n) s[threadIdx.x] = v[g];\n    __syncthreads();\n    res[g] = s[threadIdx.x] * 2.0f;\n}\n";
        let at = Read {
            name: "s",
            len: 32,
            block: [32, 1, 1],
            values: &[("n", 40)],
        };
        let h = help_in(src, &at, 6, [10, 0, 0], 10);
        assert!(
            h.contains("skipped that store") && h.contains("`if (g < n)`, as on line 4"),
            "{h}"
        );
        assert!(!h.contains("register"), "{h}");
    }

    #[test]
    fn another_thread_s_skipped_element_still_gets_a_neutral_value() {
        // The read takes a neighbour's element: the store's condition is the cause.
        let src = "__global__ void k(float* o, const float* a, int n) {\n    __shared__ float t[T][T];\n    int i = threadIdx.x;\n    if (i < n) t[0][i] = a[i];\n    __syncthreads();\n    o[i] = t[0][i] + t[0][(i + 1) % T];\n}\n";
        let h = help(src, 6, [1, 0, 0], 2);
        assert!(h.contains("store 0.0f when the condition fails"), "{h}");
    }

    #[test]
    fn a_tree_over_slots_no_thread_loads_gets_every_element_loaded_not_a_halo() {
        // An up-sweep over 128 slots, 64 threads storing one each.
        let src = "__global__ void up(float* o, const float* a, int n) {\n    __shared__ float buf[N];\n    int lane = threadIdx.x;\n    buf[lane] = lane < n ? a[lane] : 0.0f;\n    for (int d = 1; d < N; d <<= 1) {\n        __syncthreads();\n        int hi = (lane + 1) * 2 * d - 1;\n        if (hi < N) buf[hi] += buf[hi - d];\n    }\n    o[lane] = buf[lane];\n}\n";
        let at = Read {
            name: "buf",
            len: 128,
            block: [64, 1, 1],
            values: &[("N", 128), ("n", 128)],
        };
        let h = help_in(src, &at, 8, [32, 0, 0], 64);
        assert!(
            h.contains("each thread loads 2") && h.contains("`buf[lane + blockDim.x]`"),
            "{h}"
        );
        assert!(!h.contains("halo that no thread loads"), "{h}");
        // Another shape: a halving reduction over 96 slots, 32 threads.
        let src = "__global__ void fold(float* o, const float* x) {\n    __shared__ float acc[96];\n    int k = threadIdx.x;\n    acc[k] = x[k];\n    __syncthreads();\n    for (int half = 48; half > 0; half /= 2) {\n        if (k < half) acc[k] += acc[k + half];\n        __syncthreads();\n    }\n    if (k == 0) o[0] = acc[0];\n}\n";
        let at = Read {
            name: "acc",
            len: 96,
            block: [32, 1, 1],
            values: &[],
        };
        let h = help_in(src, &at, 7, [0, 0, 0], 48);
        assert!(
            h.contains("starts at `half` = 48") && h.contains("`half = blockDim.x / 2`"),
            "{h}"
        );
        assert!(!h.contains("halo"), "{h}");
        // The start named by a define, the step a shift.
        let named = src.replace(
            "int half = 48; half > 0; half /= 2",
            "int half = HALF; half > 0; half >>= 1",
        );
        let at2 = Read {
            values: &[("HALF", 48)],
            ..at
        };
        let h = help_in(&named, &at2, 7, [0, 0, 0], 48);
        assert!(h.contains("`half = blockDim.x / 2`"), "{h}");
        // A doubling loop over three times the threads: each loads three.
        let src = src
            .replace(
                "int half = 48; half > 0; half /= 2",
                "int half = 1; half < 96; half *= 2",
            )
            .replace("acc[k + half]", "acc[2 * half * k + half]");
        let h = help_in(&src, &at, 7, [0, 0, 0], 48);
        assert!(
            h.contains("each thread loads 3") && h.contains("`acc[k + 2 * blockDim.x]`"),
            "{h}"
        );
    }

    #[test]
    fn a_stencil_past_the_block_still_gets_the_halo() {
        let src = "__global__ void blur(float* o, const float* x) {\n    __shared__ float win[40];\n    int p = threadIdx.x;\n    win[p] = x[blockIdx.x * 32 + p];\n    __syncthreads();\n    float s = 0.0f;\n    for (int j = 0; j < 3; j++) s += win[p + j];\n    o[p] = s;\n}\n";
        let at = Read {
            name: "win",
            len: 40,
            block: [32, 1, 1],
            values: &[],
        };
        let h = help_in(src, &at, 7, [31, 0, 0], 32);
        assert!(
            h.contains("halo that no thread loads") && h.contains("`win[p + blockDim.x]`"),
            "{h}"
        );
    }

    #[test]
    fn a_tile_read_where_no_store_lands_gets_the_index_not_a_zero_fill() {
        // A padded tile (T + 1 columns), stored guarded; the read's column runs into the pad.
        let src = "__global__ void tr(float* o, const float* a, int h, int w) {\n    __shared__ float tile[T][T + 1];\n    int x = blockIdx.x * T + threadIdx.x;\n    int y = blockIdx.y * T + threadIdx.y;\n    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = a[y * w + x];\n    __syncthreads();\n    o[x * h + y] = tile[threadIdx.x][threadIdx.y + 1];\n}\n";
        let at = Read {
            name: "tile",
            len: 72,
            block: [8, 8, 1],
            values: &[("T", 8), ("h", 24), ("w", 24)],
        };
        let h = help_in(src, &at, 7, [0, 7, 0], 8);
        assert!(
            h.contains("no thread of the block stores tile[0][8]"),
            "{h}"
        );
        assert!(
            h.contains("index is wrong") && !h.contains("store 0.0f"),
            "{h}"
        );
        assert!(!h.contains("halo"), "{h}");
        // A strided store: odd slots belong to no thread, whatever its guard.
        let src = "__global__ void pairs(float* o, const float* v, int n) {\n    __shared__ float sv[16];\n    int q = threadIdx.x;\n    if (q < n) sv[2 * q] = v[q];\n    __syncthreads();\n    o[q] = sv[q];\n}\n";
        let at = Read {
            name: "sv",
            len: 16,
            block: [8, 1, 1],
            values: &[("n", 8)],
        };
        let h = help_in(src, &at, 6, [3, 0, 0], 3);
        assert!(
            h.contains("no thread of the block stores sv[3]") && h.contains("`sv[q]`"),
            "{h}"
        );
        assert!(!h.contains("0.0f when the condition fails"), "{h}");
        // The same store read at a slot whose thread the guard skipped: the zero-fill fits.
        let h = help_in(
            src,
            &Read {
                values: &[("n", 2)],
                ..at
            },
            6,
            [4, 0, 0],
            4,
        );
        assert!(
            h.contains("store 0.0f when the condition fails") && h.contains("thread (2,0,0)"),
            "{h}"
        );
    }

    #[test]
    fn a_one_writer_store_read_past_its_elements_gets_no_zero_fill() {
        // Warp leaders store one total each; the halving loop starts at their number.
        let src = "__global__ void bs(float* out, const float* a) {\n    __shared__ float tot[16];\n    int lane = threadIdx.x % 32;\n    float v = a[threadIdx.x];\n    if (lane == 0) tot[threadIdx.x / 32] = v;\n    __syncthreads();\n    for (int span = 8; span > 0; span /= 2) {\n        if (threadIdx.x < span) tot[threadIdx.x] += tot[threadIdx.x + span];\n        __syncthreads();\n    }\n    out[0] = tot[0];\n}\n";
        let at = Read {
            name: "tot",
            len: 16,
            block: [256, 1, 1],
            values: &[],
        };
        let h = help_in(src, &at, 8, [0, 0, 0], 8);
        assert!(
            h.contains("one writer per group") && h.contains("`span = (8) / 2`"),
            "{h}"
        );
        assert!(!h.contains("0.0f") && !h.contains("halo"), "{h}");
        // One writer for the block, read at another slot, no loop: the read is named.
        let src = "__global__ void one(float* out, const float* a) {\n    __shared__ float cell[4];\n    if (threadIdx.x == 0) cell[0] = a[0];\n    __syncthreads();\n    out[threadIdx.x] = cell[1];\n}\n";
        let at = Read {
            name: "cell",
            len: 4,
            block: [32, 1, 1],
            values: &[],
        };
        let h = help_in(src, &at, 5, [3, 0, 0], 1);
        assert!(
            h.contains("reads cell[1], which none of them stored"),
            "{h}"
        );
        assert!(!h.contains("0.0f;"), "{h}");
    }
}
