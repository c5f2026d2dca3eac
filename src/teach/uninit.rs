//! Reads of shared memory no thread wrote. The help finds the writes of the array in the
//! source: none at all (fill it first); halo past the elements the threads write one each
//! (let some threads load the extra elements); a thread reading back the very element it
//! stores itself, after skipping that store (`own_element`: the read's index is wrong, a
//! transpose reads `tile[threadIdx.x][threadIdx.y]`); a write inside an `if` (store a neutral
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
    if halo {
        return format!("{shown} lies past the elements the block's threads write one each (line {w}): it is halo that no thread loads, yet line {r} reads it. Let some threads load the extra elements too (e.g. the first threads also store `{short}[local_i + TPB]`, or a loop over the whole tile), then __syncthreads()");
    }
    if let Some(own) = own_element(c, short, &writes) {
        return own;
    }
    if let Some(g) = c.src.guards(w).into_iter().find(|g| !g.returns) {
        return format!("line {w} writes `{short}` only inside `if ({})` (line {}), so the threads that skip it leave their element holding garbage, and line {r} reads {shown}: store 0.0f when the condition fails (`{short}[..] = {} ? ... : 0.0f;`), so the element holds a neutral value", g.cond, g.line, g.cond);
    }
    format!("no thread wrote {shown} before this read; line {w} writes `{short}`, but not this element before it is read: check that the writes cover every element the reads use (each thread its own, for every thread of the block, with any padding set to 0), with __syncthreads() between the writes and the reads")
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
    Some(format!("{seen}. A thread that reads back only its own element passes nothing through {short}: if the read should take another thread's element, fix its index; if its own, keep its value in a register instead, under the store's condition"))
}

#[cfg(test)]
mod tests {
    use super::super::{explain, Scene};
    use crate::emu::facts::{Element, Facts};
    use crate::emu::result::{DiagKind, Diagnostic, Severity};

    fn help(src: &str, line: u32, thread: [u32; 3], index: i128) -> String {
        let scene = Scene {
            source: src,
            file_name: "k.cu",
            module: None,
            grid: [3, 3, 1],
            block: [8, 8, 1],
            values: vec![("T".into(), 8)],
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
                    name: "t".into(),
                    index,
                    len: 64,
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
    }

    #[test]
    fn another_thread_s_skipped_element_still_gets_a_neutral_value() {
        // The read takes a neighbour's element: the store's condition is the cause.
        let src = "__global__ void k(float* o, const float* a, int n) {\n    __shared__ float t[T][T];\n    int i = threadIdx.x;\n    if (i < n) t[0][i] = a[i];\n    __syncthreads();\n    o[i] = t[0][i] + t[0][(i + 1) % T];\n}\n";
        let h = help(src, 6, [1, 0, 0], 2);
        assert!(h.contains("store 0.0f when the condition fails"), "{h}");
    }
}
