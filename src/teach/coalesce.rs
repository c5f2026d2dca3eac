//! Sectors per access over budget: which global access on the worst line has neighbouring
//! lanes apart, and by how much. Each global array subscript on the line is evaluated for
//! lanes 0 and 1 of the first warp (threadIdx.x 0 and 1, the loops around the line at their
//! first round); the distance between the two addresses is the premise. A strided access
//! beside a contiguous one on the same line is a transpose, which only a tile staged in
//! `__shared__` memory makes coalesced on both sides; a strided access alone needs its index
//! to step by one element from lane to lane. Where no access on the line evaluates as
//! strided, the rule says nothing (`perf::general` stands).

use super::eval::{self, Env};
use super::source::{uses_in, Source};

/// One global access on the line, as lanes 0 and 1 of the first warp make it.
struct Access {
    name: String,
    index: String,
    write: bool,
    /// Bytes between lane 0's address and lane 1's.
    step: i64,
    /// Bytes of one element.
    bytes: i64,
}

impl Access {
    fn text(&self) -> String {
        format!("`{}[{}]`", self.name, self.index)
    }

    fn verb(&self) -> &'static str {
        if self.write {
            "write"
        } else {
            "read"
        }
    }

    fn contiguous(&self) -> bool {
        self.step == self.bytes
    }

    fn strided(&self) -> bool {
        self.step.abs() > self.bytes
    }
}

/// The help for line `line`'s sectors over budget, or `None` where no global access on it is
/// seen to put neighbouring lanes more than one element apart.
pub fn help(src: &Source, line: u32, values: &[(String, i64)], block: [u32; 3]) -> Option<String> {
    let accesses = accesses_on(src, line, values, block);
    let strided = accesses.iter().find(|a| a.strided())?;
    // The other side of the copy, on this line or another of the function.
    let start = src.function_of(line).map(|f| f.0);
    let others: Vec<Access> = (1..=src.lines())
        .filter(|&l| l != line && src.function_of(l).map(|f| f.0) == start)
        .flat_map(|l| accesses_on(src, l, values, block))
        .collect();
    let apart = apart(strided);
    // The other side of the copy (another array, read where this is written or the other way
    // round) already runs along a row: a transpose.
    if let Some(other) = accesses.iter().chain(&others).find(|a| {
        a.contiguous()
            && a.write != strided.write
            && a.name != strided.name
            && transposed(strided, a)
    }) {
        return Some(format!(
            "on line {line}, the {} {} puts neighbouring lanes (threadIdx.x) {apart}, so a warp's 32 {}s touch up to 32 sectors, while the {} {} runs along a row (lanes one element apart). Swapping which thread takes which element only moves the stride to the other side: stage the block's tile in a `__shared__` array instead. Each thread reads its element along a row into `tile[threadIdx.y][threadIdx.x]`, `__syncthreads()`, then writes along a row of the output from `tile[threadIdx.x][threadIdx.y]` (the transposed element), with the block's tile coordinates swapped for the write",
            strided.verb(),
            strided.text(),
            strided.verb(),
            other.verb(),
            other.text(),
        ));
    }
    let per = strided.step / strided.bytes;
    Some(format!(
        "on line {line}, the {} {} puts neighbouring lanes (threadIdx.x) {apart}, {} elements of {} bytes from one lane to the next lane, so part of every 32-byte sector a warp touches goes unused. Give consecutive lanes consecutive elements: an index that grows by one from lane to lane (threadIdx.x not multiplied), and for more work per thread, a second element a whole grid of threads further on (`+ blockDim.x * gridDim.x`) rather than the one beside it",
        strided.verb(),
        strided.text(),
        per,
        strided.bytes,
    ))
}

/// Whether two row-major indices swap their parts: `c * rows + r` against `r * cols + c`
/// (a gather `a[2 * i]` beside `out[i]` is not a transpose).
fn transposed(strided: &Access, along: &Access) -> bool {
    let (Some((r1, _, c1)), Some((r2, _, c2))) = (
        eval::row_major(&strided.index),
        eval::row_major(&along.index),
    ) else {
        return false;
    };
    let names = |e: &str| {
        let mut v = eval::names(e);
        v.sort();
        v
    };
    names(&r1) != names(&r2) && names(&c1) != names(&c2)
}

/// The global accesses of line `line` whose lanes 0 and 1 evaluate.
fn accesses_on(src: &Source, line: u32, values: &[(String, i64)], block: [u32; 3]) -> Vec<Access> {
    let code = src.line(line);
    super::restore::arrays(src, false)
        .into_iter()
        .flat_map(|name| {
            uses_in(code, &name)
                .into_iter()
                .filter(|u| u.dims.len() == 1)
                .filter_map(|u| {
                    let index = u.dims[0].clone();
                    let bytes = src.pointee_bytes(&name)? as i64;
                    let at =
                        |lane: i64| eval::eval(&index, &lane_env(src, line, values, block, lane));
                    let step = (at(1)? - at(0)?) * bytes;
                    Some(Access {
                        name: name.clone(),
                        index,
                        write: u.write,
                        step,
                        bytes,
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn apart(a: &Access) -> String {
    format!("{} bytes apart", a.step.abs())
}

/// Lane `lane` of the first warp of block 0 at `line`: the loops around the line at their
/// first round, the locals before it evaluated in order.
fn lane_env(src: &Source, line: u32, values: &[(String, i64)], block: [u32; 3], lane: i64) -> Env {
    let mut env = Env::default();
    for (n, v) in values {
        env.set(n.clone(), *v);
    }
    for (i, a) in ["x", "y", "z"].iter().enumerate() {
        env.set(format!("threadIdx.{a}"), if i == 0 { lane } else { 0 });
        env.set(format!("blockIdx.{a}"), 0);
        env.set(format!("blockDim.{a}"), block[i] as i64);
    }
    let start = src.function_of(line).map_or(1, |f| f.0);
    let mut from = start;
    for h in start..line {
        let Some(head) = src.loop_header(h).filter(|x| x.line == h) else {
            continue;
        };
        if !src.loop_body(h).contains(&line) {
            continue;
        }
        env = src.locals_between(from, h, &env);
        let init = head.init.as_deref().unwrap_or("");
        if let (Some(var), Some((_, value))) = (super::index::loop_var(init), init.split_once('='))
        {
            match eval::eval(value.trim(), &env) {
                Some(v) => env.set(var, v),
                None => env.set_unknown(var),
            }
        }
        from = h + 1;
    }
    src.locals_between(from, line, &env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help_at(text: &str, line: u32, block: [u32; 3]) -> Option<String> {
        help(&Source::new(text), line, &[("N".into(), 32)], block)
    }

    #[test]
    fn a_strided_write_beside_a_contiguous_read_is_a_transpose_through_a_shared_tile() {
        // Other names and a 2D block, the write's stride a scalar's value.
        let k = "__global__ void flip(double* dst, const double* src, int h, int w) {\n    int x = blockIdx.x * N + threadIdx.x;\n    int y = blockIdx.y * N + threadIdx.y;\n    if (x < w && y < h) dst[x * h + y] = src[y * w + x];\n}\n";
        let s = Source::new(k);
        let a = help(
            &s,
            4,
            &[("N".into(), 32), ("h".into(), 50), ("w".into(), 40)],
            [32, 32, 1],
        )
        .unwrap();
        assert!(
            a.contains("`dst[x * h + y]`") && a.contains("400 bytes apart"),
            "{a}"
        );
        assert!(a.contains("write") && a.contains("`src[y * w + x]`"), "{a}");
        assert!(a.contains("__shared__") && a.contains("tile"), "{a}");
        // The read strided on its own line, the write contiguous on the next: the read is named.
        let k = "__global__ void flip(float* dst, const float* src, int h, int w) {\n    int p = threadIdx.y;\n    int x = threadIdx.x;\n    float v = src[x * w + p];\n    dst[p * h + x] = v;\n}\n";
        let a = help(
            &Source::new(k),
            4,
            &[("w".into(), 8), ("h".into(), 6)],
            [32, 1, 1],
        )
        .unwrap();
        assert!(
            a.contains("the read `src[x * w + p]`") && a.contains("32 bytes apart"),
            "{a}"
        );
        assert!(a.contains("`dst[p * h + x]`") && a.contains("tile"), "{a}");
    }

    #[test]
    fn a_strided_gather_beside_a_contiguous_write_is_no_transpose() {
        let k = "__global__ void evens(float* dst, const float* src) {\n    int x = threadIdx.x;\n    dst[x] = src[2 * x];\n}\n";
        let a = help(&Source::new(k), 3, &[], [32, 1, 1]).unwrap();
        assert!(
            a.contains("the read `src[2 * x]`") && a.contains("8 bytes apart"),
            "{a}"
        );
        assert!(
            a.contains("consecutive lanes consecutive elements") && !a.contains("tile"),
            "{a}"
        );
    }

    #[test]
    fn lanes_two_vectors_apart_are_told_to_take_neighbouring_elements() {
        let k = "__global__ void sum4(float* o, const float* p) {\n    const float2* p2 = reinterpret_cast<const float2*>(p);\n    int g = threadIdx.x + blockIdx.x * blockDim.x;\n    for (int k = 3 * g; k < 3 * g + 3; ++k) {\n        float2 v = p2[k];\n        o[k] = v.x + v.y;\n    }\n}\n";
        let a = help_at(k, 5, [64, 1, 1]).unwrap();
        assert!(a.contains("`p2[k]`") && a.contains("24 bytes apart"), "{a}");
        assert!(a.contains("3 elements of 8 bytes"), "{a}");
        assert!(a.contains("consecutive lanes consecutive elements"), "{a}");
        assert!(!a.contains("tile"), "{a}");
    }

    #[test]
    fn contiguous_or_unknown_accesses_leave_it_silent() {
        // Every lane one element after the other: nothing strided to name.
        let k = "__global__ void add(float* o, const float* a) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    o[i] = a[i] + 1.0f;\n}\n";
        assert_eq!(help_at(k, 3, [64, 1, 1]), None);
        // An index read from memory: its step is unknown.
        let k = "__global__ void gather(float* o, const float* a, const int* at) {\n    int i = threadIdx.x;\n    o[i] = a[at[i]];\n}\n";
        assert_eq!(help_at(k, 3, [64, 1, 1]), None);
    }
}
