//! A read counter over budget because one thread does the block's whole reduction: a loop
//! under `if (t == 0)` that walks every slot of a shared array (or a row in global memory)
//! while the other threads wait. The budget is built for the work shared out: a tree in
//! shared memory, or each thread reading its own share. Read from the source after the
//! preprocessor; the rule speaks only when it finds such a loop, with the guard's thread
//! index traced to `threadIdx`.

use super::restore::arrays;
use super::source::{find_word, uses_in, Source};

/// The help for `counter` (`shared_reads` or `global_reads`) over budget.
pub fn help(counter: &str, src: &Source) -> Option<String> {
    let shared = match counter {
        "shared_reads" => true,
        "global_reads" => false,
        _ => return None,
    };
    let names = arrays(src, shared);
    for h in 1..=src.lines() {
        let Some(head) = src.loop_header(h).filter(|x| x.line == h) else {
            continue;
        };
        let Some(var) = head.init.as_deref().and_then(super::index::loop_var) else {
            continue;
        };
        let Some(guard) = src
            .guards(h)
            .into_iter()
            .find(|g| !g.returns && thread_zero(src, g.line, &g.cond).is_some())
        else {
            continue;
        };
        let body = src.loop_body(h);
        let read = names.iter().find(|n| {
            body.clone().any(|l| {
                uses_in(src.line(l), n).iter().any(|u| {
                    (!u.write || u.update) && u.dims.iter().any(|d| find_word(d, &var).is_some())
                })
            })
        });
        let Some(name) = read else {
            continue;
        };
        let cond = guard.cond.trim();
        // The learner's name of the thread's index, for the tree's code.
        let t = thread_zero(src, guard.line, cond).unwrap_or_else(|| "threadIdx.x".to_string());
        let g = guard.line;
        // A copy (the global read stored into a shared array): spread it over the threads.
        if !shared {
            if let Some(h) = copy_help(src, h, &var, name, cond, g, &t) {
                return Some(h);
            }
        }
        return Some(if shared {
            format!(
                "one thread (`if ({cond})` on line {g}) reads every slot of `{name}` in the loop \
                 on line {h} while the block's other threads wait. The budget is built for a \
                 tree: all threads add pairs and the active half shrinks each round (`for (int \
                 s = blockDim.x / 2; s > 0; s /= 2) {{ if ({t} < s) {name}[{t}] += {name}[{t} + s]; \
                 __syncthreads(); }}`), and the total ends in `{name}[0]`"
            )
        } else {
            format!(
                "one thread (`if ({cond})` on line {g}) reads all of `{name}` in the loop on \
                 line {h} while the block's other threads wait. The budget is built for the \
                 work shared out: each thread reads its own elements (starting at its index in \
                 the block, stepping by `blockDim.x`), and the partial sums are combined \
                 together, a tree in shared memory or shuffles"
            )
        });
    }
    None
}

/// One thread copying global `name` into a shared array in the loop on line `h` (variable
/// `var`, under `if (cond)` on line `g`): each thread should copy one element instead.
fn copy_help(
    src: &Source,
    h: u32,
    var: &str,
    name: &str,
    cond: &str,
    g: u32,
    t: &str,
) -> Option<String> {
    let head = src.loop_header(h)?;
    let bound = super::eval::canonical(&head.cond);
    let bound = bound.strip_prefix(&format!("{var}<"))?;
    if bound.starts_with('=') {
        return None;
    }
    let bound = head.cond.split_once('<')?.1.trim().to_string();
    let shared = arrays(src, true);
    let body = super::wrong::loop_body_code(src, h);
    let (l, dest, dims) = body.iter().find_map(|(l, code)| {
        let l = *l;
        if uses_in(code, name).is_empty() {
            return None;
        }
        shared.iter().find_map(|s| {
            uses_in(code, s)
                .into_iter()
                .find(|u| u.write && !u.update)
                .map(|u| (l, s.clone(), u.dims.join("][")))
        })
    })?;
    let into = format!("{dest}[{dims}]").replace(var, t);
    Some(format!(
        "one thread (`if ({cond})` on line {g}) copies all of `{name}` into `{dest}` in the loop on line {h} (line {l}), one element after another, while the block's other threads wait: its global reads are the whole copy's. Let each thread copy one element: `if ({t} < {bound}) {into} = {name}[{t}];`, with the `__syncthreads()` after it as before"
    ))
}

/// Whether `cond` is `X == 0` (or `0 == X`) with `X` the thread's index in the block:
/// `threadIdx.x` or a local set from it before line `at`. Gives `X` as written.
fn thread_zero(src: &Source, at: u32, cond: &str) -> Option<String> {
    let (l, r) = cond.split_once("==")?;
    let (l, r) = (l.trim(), r.trim());
    let x = match (l, r) {
        (x, "0") | ("0", x) => x,
        _ => return None,
    };
    if x.starts_with("threadIdx.") {
        return Some(x.to_string());
    }
    let ident = !x.is_empty() && x.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // `threadIdx.x`, or the block's flat index (`threadIdx.y * W + threadIdx.x`): no block
    // index in it, so 0 is one thread of each block.
    let from_tid = ident
        && src.definition(at, x).is_some_and(|(_, v)| {
            let v = v.trim();
            (v.starts_with("threadIdx.") && !v.contains('+'))
                || (v.contains("threadIdx.") && !v.contains("blockIdx") && !v.contains('-'))
        });
    from_tid.then(|| x.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_zero_walking_a_shared_array() {
        let k = "__global__ void bsum(double *res, const double *v) {\n\
                 __shared__ double part[128];\n\
                 int me = threadIdx.x;\n\
                 part[me] = v[blockIdx.x * 128 + me];\n\
                 __syncthreads();\n\
                 if (0 == me) {\n\
                 double acc = 0;\n\
                 for (int w = 0; w < 128; ++w) acc += part[w];\n\
                 res[blockIdx.x] = acc;\n\
                 }\n\
                 }\n";
        let h = help("shared_reads", &Source::new(k)).unwrap_or_default();
        assert!(h.contains("`if (0 == me)` on line 6"), "{h}");
        assert!(
            h.contains("every slot of `part` in the loop on line 8"),
            "{h}"
        );
        assert!(h.contains("if (me < s) part[me] += part[me + s]"), "{h}");
    }

    #[test]
    fn thread_zero_copying_a_table_alone_gets_one_element_per_thread() {
        // Another shape than the suite's: a flat index over a 2D block, a 1D table `lut`.
        let k = "__global__ void remap(int* o, const int* lut, const int* v) {\n\
                 __shared__ int tab[16];\n\
                 int me = threadIdx.y * 8 + threadIdx.x;\n\
                 if (me == 0) {\n\
                 for (int e = 0; e < 16; e++) tab[e] = lut[e];\n\
                 }\n\
                 __syncthreads();\n\
                 o[me] = tab[v[me]];\n\
                 }\n";
        let h = help("global_reads", &Source::new(k)).unwrap_or_default();
        assert!(
            h.contains("copies all of `lut` into `tab` in the loop on line 5")
                && h.contains("`if (me < 16) tab[me] = lut[me];`"),
            "{h}"
        );
        // Summed, not copied: the reduction's help, not the copy's.
        let sum = k.replace("tab[e] = lut[e];", "o[0] += lut[e];");
        let h = help("global_reads", &Source::new(&sum)).unwrap_or_default();
        assert!(!h.contains("copies all"), "{h}");
        // A thread of one block only (`blockIdx` in the index) is not this premise.
        let grid = k.replace(
            "int me = threadIdx.y * 8 + threadIdx.x;",
            "int me = blockIdx.x * 64 + threadIdx.y * 8 + threadIdx.x;",
        );
        assert_eq!(help("global_reads", &Source::new(&grid)), None);
    }

    #[test]
    fn thread_zero_walking_a_global_row() {
        let k = "__global__ void rn(float* y, const float* m, int n) {\n\
                 const float* row = m + blockIdx.x * n;\n\
                 if (threadIdx.x == 0) {\n\
                 for (int j = 0; j < n; j++) {\n\
                 y[blockIdx.x] += row[j];\n\
                 }\n\
                 }\n\
                 }\n";
        let h = help("global_reads", &Source::new(k)).unwrap_or_default();
        assert!(
            h.contains("reads all of `row` in the loop on line 4"),
            "{h}"
        );
    }

    #[test]
    fn other_guards_or_a_thread_strided_loop_say_nothing() {
        // A guard on the global index is not one thread of the block.
        let k = "__global__ void f(float* o, const float* p, int n) {\n\
                 __shared__ float s[64];\n\
                 int g = blockIdx.x * 64 + threadIdx.x;\n\
                 if (g == 0) {\n\
                 for (int j = 0; j < 64; j++) o[0] += s[j];\n\
                 }\n\
                 for (int j = threadIdx.x; j < n; j += 64) o[j] = s[j % 64];\n\
                 }\n";
        assert!(help("shared_reads", &Source::new(k)).is_none());
        assert!(help("shared_writes", &Source::new(k)).is_none());
    }
}
