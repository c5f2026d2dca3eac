//! A shared race in a double buffer whose pass reads from the half it writes: `buf[1 - in][j]`
//! read while the same pass writes `buf[1 - in][i]`, where the pass's other reads take
//! `buf[in]`. Said where the source shows it: the read and the write on the race's lines name
//! one half (the same first subscript), another read in the same loop names another half, and
//! a barrier in the loop ends each pass (so the halves are already ordered between passes).
//! The fix is the half, not another barrier.

use super::source::uses_in;
use super::wrong::in_loop;
use super::Case;

/// The help for a race between the write on line `w` and the read on line `r` of `short`;
/// `None` when the source does not show a pass reading the half it writes.
pub fn help(c: &Case, (w, r): (u32, u32), short: &str) -> Option<String> {
    let src = c.src;
    let canon = super::eval::canonical;
    let written = uses_in(src.line(w), short)
        .into_iter()
        .find(|u| u.write && u.dims.len() == 2)?;
    let side = canon(&written.dims[0]);
    let read = uses_in(src.line(r), short)
        .into_iter()
        .find(|u| !u.write && u.dims.len() == 2 && canon(&u.dims[0]) == side)?;
    let header = in_loop(src, r)?;
    if in_loop(src, w) != Some(header) {
        return None;
    }
    let body: Vec<u32> = src.loop_body(header).collect();
    if !body
        .iter()
        .any(|&l| src.line(l).contains("__syncthreads()"))
    {
        return None;
    }
    // Another read in the pass, from the other half.
    let (other_line, other) = body.iter().find_map(|&l| {
        uses_in(src.line(l), short)
            .into_iter()
            .find(|u| !u.write && u.dims.len() == 2 && canon(&u.dims[0]) != side)
            .map(|u| (l, u.dims[0].clone()))
    })?;
    let (half, index) = (&written.dims[0], &read.dims[1]);
    Some(format!(
        "line {r} reads `{short}[{half}][{index}]` from the half of `{short}` this pass writes (line {w}, `{}`), while the pass's other read takes `{short}[{other}]` (line {other_line}): read `{short}[{other}][{index}]` there. The barrier at the end of each pass already orders the two halves; another barrier is not the fix.",
        src.line(w).trim()
    ))
}
