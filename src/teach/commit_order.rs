//! A wait placed before the commit of the copies it should cover: in a loop body
//! `copy(next); wait_group 1; commit;` the wait counts only committed groups, so the copies
//! of this pass are in none yet and `wait_group 1` lets the newest committed group (the tile
//! about to be read) stay in flight. Said where the source shows a commit call after the wait
//! in the same loop body, with no commit between the loop's start and the wait. The fix is the
//! order: commit, then wait.

use super::source::{find_word, Source};
use super::wrong::in_loop;

/// A call of `word` on line `l`: code, not a comment or the helper that wraps the PTX.
fn calls(src: &Source, l: u32, word: &str) -> bool {
    let t = src.line(l);
    let code = t.trim_start();
    !code.starts_with("//")
        && !code.contains("asm")
        && !code.contains("__device__")
        && find_word(t, word).is_some()
}

/// What to say about the wait on line `wait` when the source commits after it (`commit`: the
/// commit call's name), or `None`.
pub fn help(src: &Source, wait: u32, commit: &str) -> Option<String> {
    let h = in_loop(src, wait)?;
    let body: Vec<u32> = src.loop_body(h).collect();
    let before = body
        .iter()
        .any(|&l| l > h && l < wait && calls(src, l, commit));
    if before {
        return None;
    }
    let after = body
        .iter()
        .copied()
        .find(|&l| l > wait && calls(src, l, commit))?;
    Some(format!(
        ". The wait on line {wait} comes before the commit on line {after}: a wait counts only committed groups, so the copies this pass started are in no group yet, and the newest committed group (the one this read needs) may stay in flight. Commit first, then wait: move line {after} (`{}`) above line {wait}",
        src.line(after).trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Another shape than the suite's: the pipeline primitives, a `while` loop, names `p` and `q`.
    const LOOP: &str = "__global__ void k(float* o, const float* g) {\n    __shared__ float st[2][64];\n    int p = 0;\n    while (p < 8) {\n        __pipeline_memcpy_async(&st[(p + 1) % 2][threadIdx.x], g + p * 64, 4);\n        __pipeline_wait_prior(1);\n        __pipeline_commit();\n        __syncthreads();\n        o[p * 64 + threadIdx.x] = st[p % 2][threadIdx.x];\n        p++;\n    }\n}\n";

    #[test]
    fn a_wait_before_its_commit_gets_the_order() {
        let h = help(&Source::new(LOOP), 6, "__pipeline_commit").unwrap_or_default();
        assert!(
            h.contains("The wait on line 6 comes before the commit on line 7")
                && h.contains("move line 7 (`__pipeline_commit();`) above line 6"),
            "{h}"
        );
    }

    #[test]
    fn silent_where_the_commit_comes_first() {
        let right = LOOP.replace(
            "        __pipeline_wait_prior(1);\n        __pipeline_commit();\n",
            "        __pipeline_commit();\n        __pipeline_wait_prior(1);\n",
        );
        assert_eq!(help(&Source::new(&right), 7, "__pipeline_commit"), None);
        // A commit earlier in the body and another after the wait: the first one counts.
        let both = LOOP.replace(
            "        __pipeline_wait_prior(1);\n",
            "        __pipeline_commit();\n        __pipeline_wait_prior(1);\n",
        );
        assert_eq!(help(&Source::new(&both), 7, "__pipeline_commit"), None);
    }
}
