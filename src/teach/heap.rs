//! Device-heap mistakes: an access past a malloc'd block's end, a use after free, a double or
//! bad `free`. The help quotes the `malloc` (or `free`) line the block came from, so the fix
//! is named where it goes: the size passed to `malloc`, or the `free` that came too early.

use super::Case;
use crate::emu::facts::{HeapFacts, HeapProblem};

pub fn help(c: &Case, f: &HeapFacts) -> String {
    let who = c.who(c.d.thread, c.d.block);
    let malloc = quote(c, f.malloc_line);
    let freed = quote(c, f.freed_line.unwrap_or(0));
    match f.problem {
        HeapProblem::PastEnd => {
            let size = f.bytes.max(1) as u64;
            let holds = if f.block_size.is_multiple_of(size) {
                format!(
                    " (room for {} elements of {size} bytes)",
                    f.block_size / size
                )
            } else {
                String::new()
            };
            format!(
                "{malloc} asked for {} bytes{holds}, and {who}'s access reaches byte {} of the block: pass malloc the size of everything you store in it (`malloc(n * sizeof(float))` for n floats), or keep the index below the count you allocated",
                f.block_size,
                (f.offset + f.bytes as i128 - 1).max(0)
            )
        }
        HeapProblem::AfterFree => format!(
            "the block from {malloc} was freed by {freed} before this access: move the free (or delete) after the block's last use, or stop using the pointer once it is freed"
        ),
        HeapProblem::DoubleFree => format!(
            "each block is freed once: the block from {malloc} was already freed by {freed}. Remove one of the frees, or set the pointer to nullptr after freeing it (free(nullptr) does nothing)"
        ),
        HeapProblem::BadFree if f.block_size > 0 => format!(
            "free (and delete) take the pointer malloc (or new) returned, unchanged: this one points {} bytes into the block from {malloc}. Keep the original pointer and free that",
            f.offset
        ),
        HeapProblem::BadFree => "free (and delete) take only a pointer malloc (or new) returned: not a buffer passed to the kernel, a shared or local array, or a pointer moved after malloc".into(),
        HeapProblem::NoBlock => "the address is in the device heap, but malloc returned no block there: check the pointer arithmetic on the malloc'd pointer".into(),
        HeapProblem::NoLiveBlock => "the address is in the device heap, but in no block that was live when it ran: either the index went past the size passed to malloc (pass it the size of everything you store, `malloc(n * sizeof(float))` for n floats), or the block was freed before this access (move the free after the block's last use)".into(),
    }
}

/// "`code` (line L)" for a line of the learner's file, "line L" where its code is unknown,
/// "a call" where the line is.
fn quote(c: &Case, line: u32) -> String {
    if line == 0 {
        return "a call".into();
    }
    let code = c.src.line(line).trim();
    if code.is_empty() {
        format!("line {line}")
    } else {
        format!("`{code}` (line {line})")
    }
}
