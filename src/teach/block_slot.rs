//! A block's result stored at a thread's global index: the output has one element per block,
//! one thread of each block stores (`if (lane == 0) out[i] = total;`), and the index counts
//! threads (`i = blockIdx.x * blockDim.x + threadIdx.x`), so every block past the first
//! writes past the end. Said where the source and the facts show each part: a store, an output
//! exactly as long as the grid has blocks, a guard around the store that lets one thread
//! through (`== 0`), and an index whose value uses both the block's and the thread's index.
//! The fix is the block's slot, not a guard that would drop those blocks' results.

use super::Case;
use crate::emu::facts::Access;

pub fn help(c: &Case, access: Access, short: &str, expr: &str, len: u64) -> Option<String> {
    if access != Access::Write {
        return None;
    }
    let blocks: u64 = c.scene.grid.iter().map(|&g| g as u64).product();
    if blocks < 2 || len != blocks {
        return None;
    }
    let line = c.line?;
    let guard = c
        .src
        .guards(line)
        .into_iter()
        .find(|g| !g.returns && super::eval::canonical(&g.cond).ends_with("==0"))?;
    // The index's value, as written or through the local it names.
    let value = match c.src.definition(line, expr) {
        Some((_, v)) => v,
        None => expr.to_string(),
    };
    let thread = super::wrong::thread_names(c.src, line, 'x');
    let counts_threads = value.contains("blockIdx")
        && (value.contains("thread_rank")
            || thread
                .iter()
                .any(|t| super::source::find_word(&value, t).is_some()));
    if !counts_threads {
        return None;
    }
    let how = if value == expr {
        String::new()
    } else {
        format!(" (`{value}`)")
    };
    Some(format!(
        "{short} has one element per block ({blocks} blocks), and only the thread that passes `if ({})` (line {}) stores to it, once per block; but `{expr}`{how} counts threads, not blocks: store the block's value at `{short}[blockIdx.x]`. A guard on `{expr}` would only drop the other blocks' results",
        guard.cond, guard.line
    ))
}
