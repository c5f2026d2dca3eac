//! Bank conflicts of an interleaved tree over a one-dimensional shared array: `k = 2 * stride
//! * t; if (k < N) s[k] += s[k + stride];` puts the active threads `2 * stride` words apart,
//! so lanes of a warp meet in one bank, more of them at each step. Said where the source shows
//! it: the line touches a 1D `__shared__` array at an index (directly or through a local) that
//! is a product of the thread's index and the enclosing loop's variable. The fix is
//! sequential addressing: the first `stride` threads add the element `stride` above their own.

use super::eval::{canonical, split_top};
use super::source::{find_word, Source};
use super::wrong::{depends_on, in_loop};

/// The advice for a bank conflict on `line`, or `None` where the premise does not hold.
pub fn advice(src: &Source, line: u32) -> Option<String> {
    let code = src.line(line);
    let h = in_loop(src, line)?;
    let head = src.loop_header(h)?;
    let var = head
        .init
        .as_deref()
        .and_then(|i| i.split_once('='))
        .and_then(|(d, _)| d.split_whitespace().last().map(str::to_string))?;
    for (name, dims) in src.shared_arrays() {
        if dims.len() != 1 || find_word(code, &name).is_none() {
            continue;
        }
        for sub in src.subscripts(line, &name) {
            let Some(first) = sub.first() else {
                continue;
            };
            // The index, or the local it names (`s[k]`, `int k = 2 * stride * t;`).
            let idx = canonical(first);
            let idx = split_top(&idx, '+').first().cloned().unwrap_or_default();
            let (shown, expr) = match src.definition(line, &idx) {
                Some((_, v)) => (format!("`{idx} = {}`", v.trim()), v),
                None => (format!("`{idx}`"), idx.clone()),
            };
            let factors = split_top(&canonical(&expr), '*');
            if factors.len() < 2 || !factors.iter().any(|f| f == &var) {
                continue;
            }
            let threaded = factors.iter().any(|f| {
                f != &var
                    && depends_on(src, line, f)
                        .iter()
                        .any(|n| n.starts_with("threadIdx"))
            });
            if !threaded {
                continue;
            }
            let t = factors
                .iter()
                .find(|f| *f != &var && !f.chars().all(|c| c.is_ascii_digit()))
                .cloned()
                .unwrap_or_else(|| "t".into());
            return Some(format!(
                "the interleaved index {shown} on line {line} puts the threads that work {} words apart in `{name}`, so lanes of a warp meet in the same bank, more of them as `{var}` grows. Use sequential addressing, conflict-free: the first `{var}` threads add the element `{var}` above their own, `if ({t} < {var}) {name}[{t}] += {name}[{t} + {var}];`, with `{var}` halving from half the block down to 1",
                factors
                    .iter()
                    .filter(|f| !depends_on(src, line, f)
                        .iter()
                        .any(|n| n.starts_with("threadIdx")))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" * ")
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interleaved_tree_gets_sequential_addressing() {
        // Another shape than the suite's: the index written inline, `lane` and `gap`.
        let src = Source::new("__global__ void r(float* o) {\n    __shared__ float part[128];\n    int lane = threadIdx.x;\n    for (int gap = 1; gap < 128; gap *= 2) {\n        if (lane * 2 * gap < 128) part[lane * 2 * gap] += part[lane * 2 * gap + gap];\n        __syncthreads();\n    }\n}\n");
        let a = advice(&src, 5).unwrap_or_default();
        assert!(
            a.contains("`part`")
                && a.contains("2 * gap words apart")
                && a.contains("if (lane < gap) part[lane] += part[lane + gap];"),
            "{a}"
        );
    }

    #[test]
    fn silent_for_sequential_addressing_or_a_2d_tile() {
        let src = Source::new("__global__ void r(float* o) {\n    __shared__ float part[128];\n    int lane = threadIdx.x;\n    for (int gap = 64; gap > 0; gap /= 2) {\n        if (lane < gap) part[lane] += part[lane + gap];\n        __syncthreads();\n    }\n}\n");
        assert_eq!(advice(&src, 5), None);
        let src = Source::new("__global__ void r(float* o) {\n    __shared__ float tile[32][32];\n    for (int k = 0; k < 32; k++) {\n        o[k] = tile[threadIdx.x * k][0];\n    }\n}\n");
        assert_eq!(advice(&src, 4), None);
    }
}
