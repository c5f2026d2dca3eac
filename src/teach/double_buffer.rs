//! A shared race in a double-buffered `cp.async` loop whose end-of-loop `__syncthreads()` is
//! missing: the copy that the next pass starts lands in the buffer this pass still computes
//! from. Given only when the source (after the preprocessor) shows that structure: the write is
//! an async copy (in the kernel or in a helper the loop calls), the read and the copy's start
//! are in one loop of the kernel, and no barrier stands between the read and the end of the
//! loop body nor between the body's start and the copy (either would order the passes).

use super::Case;

/// The calls that start an async copy into shared memory, in every interface gpuzzle runs.
const COPIES: [&str; 5] = [
    "__pipeline_memcpy_async",
    "memcpy_async",
    "cp.async",
    "cp_async",
    "__cp_async",
];

/// The help for a write on line `w` (an async copy) and a read on line `r` of `short`, by
/// `writer` and `reader`; `None` when the source does not show a double-buffered loop with
/// its end-of-loop barrier missing.
pub fn help(
    c: &Case,
    (w, r): (u32, u32),
    short: &str,
    (writer, reader): (&str, &str),
) -> Option<String> {
    let src = c.src;
    if !COPIES.iter().any(|k| src.line(w).contains(k)) {
        return None;
    }
    let (kernel, is_kernel) = src.function_of(r)?;
    if !is_kernel {
        return None;
    }
    // Where the kernel starts the copy: the line itself, or the calls of its helper.
    let (fw, w_in_kernel) = src.function_of(w)?;
    let (sites, via) = if w_in_kernel {
        (vec![w], String::new())
    } else {
        let name = src.function_name(fw)?;
        let calls: Vec<u32> = src
            .calls_of(&name)
            .into_iter()
            .filter(|&l| src.function_of(l).is_some_and(|f| f.0 == kernel))
            .collect();
        (calls, format!(" (in `{name}()`)"))
    };
    // The innermost loop of the kernel around the read that also starts a copy.
    let (header, body, copy) = (kernel..=r).rev().find_map(|l| {
        let h = src.loop_header(l).filter(|h| h.line == l)?;
        let body = src.loop_body(l);
        let copy = sites
            .iter()
            .copied()
            .find(|s| body.contains(s) && *s != r)?;
        body.contains(&r).then_some((h, body, copy))
    })?;
    let barrier = |l: u32| src.line(l).contains("__syncthreads");
    let end = *body.end();
    // From the read to the next copy the kernel runs: the rest of this pass to the copy
    // below it, or to the end of the body and round to the copy at the top.
    let ordered = if copy > r {
        (r + 1..copy).any(barrier)
    } else {
        (r + 1..=end).any(barrier) || (header.line..copy).any(barrier)
    };
    if ordered {
        return None;
    }
    // The compute ends with the innermost loop around the read inside this one.
    let after = (header.line + 1..=r)
        .rev()
        .filter_map(|l| src.loop_header(l).filter(|h| h.line == l))
        .map(|h| *src.loop_body(h.line).end())
        .find(|&e| e >= r && e < end)
        .unwrap_or(r);
    Some(format!(
        "{writer} copied into {short} with an async copy on line {w}{via} while {reader} still read it on line {r}: the loop on line {} (`{}`) is double-buffered, and the copy its next pass starts (line {copy}) goes into the buffer this pass computes from; nothing holds a thread that is done computing from starting that copy while slower threads still read the buffer. Put a `__syncthreads()` at the end of the loop body, after the compute (after line {after}) and before the next pass's copy (line {copy}), reached by every thread",
        header.line, header.cond
    ))
}
