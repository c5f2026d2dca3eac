//! Global reads over budget while a `__shared__` array the kernel declares is never filled:
//! the starter's staging buffer (`cache`, `a_tile`) sits unused and every thread reads its
//! inputs from global memory, often the same element as its neighbours. The budget of such a
//! puzzle is built for the block copying its part into the shared array once and reading the
//! copy. Read from the source after the preprocessor; silent when every shared array is
//! stored somewhere (then the extra reads have another cause) or no global read is found.

use super::restore::arrays;
use super::source::{uses_in, Source};

/// The help for `counter` over budget (only `global_reads` is this rule's).
pub fn help(counter: &str, src: &Source) -> Option<String> {
    if counter != "global_reads" {
        return None;
    }
    let stored =
        |name: &str| (1..=src.lines()).any(|l| uses_in(src.line(l), name).iter().any(|u| u.write));
    let unused: Vec<String> = arrays(src, true)
        .into_iter()
        .filter(|n| !stored(n))
        .collect();
    if unused.is_empty() {
        return None;
    }
    // A shared array next to atomics is a private histogram or counter, not a copy of the
    // inputs: the fix is another one, which this rule does not name.
    if (1..=src.lines()).any(|l| src.line(l).contains("atomic")) {
        return None;
    }
    let shared = arrays(src, true);
    // A line that stores a shared array is a copy into it, not a read to replace.
    let copies = |l: u32| (shared.iter()).any(|n| uses_in(src.line(l), n).iter().any(|u| u.write));
    // The global inputs (arrays never stored) read outside the copies, and on which lines.
    let mut reads: Vec<(String, Vec<u32>)> = Vec::new();
    for name in arrays(src, false) {
        if stored(&name) {
            continue;
        }
        let lines: Vec<u32> = (1..=src.lines())
            .filter(|&l| !copies(l) && !uses_in(src.line(l), &name).is_empty())
            .collect();
        if !lines.is_empty() {
            reads.push((name, lines));
        }
    }
    if reads.is_empty() {
        return None;
    }
    let names = |v: &[String]| -> String {
        let q: Vec<String> = v.iter().map(|n| format!("`{n}`")).collect();
        join(&q)
    };
    let read_text: Vec<String> = reads
        .iter()
        .map(|(n, ls)| format!("`{n}` on {}", super::technique::lines(ls)))
        .collect();
    let (these, it) = if unused.len() == 1 {
        ("is", "it")
    } else {
        ("are", "them")
    };
    Some(format!(
        "{} {these} declared `__shared__` but no line stores into {it}, and every thread reads \
         its inputs straight from global memory ({}). The budget is built for the shared copy: \
         each block loads the elements it needs from global memory once (one read per thread, \
         a few more for the edge), `__syncthreads()`, and the computation reads the copy",
        names(&unused),
        join(&read_text)
    ))
}

/// `a`, `a and b`, `a, b and c`.
fn join(v: &[String]) -> String {
    match v {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfilled_tile_and_global_reads_in_a_loop() {
        let k = "__global__ void blur(float *dst, const float *src_img, int n) {\n\
                 __shared__ float strip[64][3];\n\
                 int p = blockIdx.x * 64 + threadIdx.x;\n\
                 float acc = 0;\n\
                 for (int q = 0; q < 3; q++)\n\
                 \x20   acc += src_img[p + q];\n\
                 dst[p] = acc;\n\
                 }\n";
        let h = help("global_reads", &Source::new(k)).unwrap_or_default();
        assert!(h.starts_with("`strip` is declared `__shared__`"), "{h}");
        assert!(h.contains("`src_img` on line 6"), "{h}");
        assert!(!h.contains("`dst`"), "{h}");
        assert!(help("global_writes", &Source::new(k)).is_none());
        // A copy line is not a read to replace; an atomic kernel's shared array is no copy.
        let k2 = "__global__ void c(float* y, const float* u, const float* w, int m) {\n\
                  __shared__ float us[128];\n\
                  __shared__ float ws[8];\n\
                  if (threadIdx.x < 8) ws[threadIdx.x] = w[threadIdx.x];\n\
                  __syncthreads();\n\
                  y[threadIdx.x] = u[threadIdx.x + 1] * ws[1] + u[threadIdx.x] * ws[0];\n\
                  }\n";
        let h2 = help("global_reads", &Source::new(k2)).unwrap_or_default();
        assert!(h2.contains("(`u` on line 6)"), "{h2}");
        assert!(h2.starts_with("`us` is"), "{h2}");
        let k3 = "__global__ void hst(unsigned* bins, const int* keys) {\n\
                  __shared__ unsigned priv[16];\n\
                  atomicAdd(&bins[keys[threadIdx.x]], 1u);\n\
                  }\n";
        assert!(help("global_reads", &Source::new(k3)).is_none());
    }

    #[test]
    fn a_filled_shared_array_or_none_at_all_says_nothing() {
        let filled = "__global__ void k(int* o, const int* v) {\n\
                      __shared__ int s[32];\n\
                      s[threadIdx.x] = v[threadIdx.x];\n\
                      __syncthreads();\n\
                      o[threadIdx.x] = s[31 - threadIdx.x] + v[0];\n\
                      }\n";
        assert!(help("global_reads", &Source::new(filled)).is_none());
        let none = "__global__ void k(int* o, const int* v) {\n\
                    o[threadIdx.x] = v[threadIdx.x] + v[0];\n\
                    }\n";
        assert!(help("global_reads", &Source::new(none)).is_none());
    }
}
