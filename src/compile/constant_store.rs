//! A store to `__constant__` memory. NVRTC accepts it with only a warning ("Cannot store to
//! pointer that points to constant memory space") and compiles the kernel that does it into a
//! lone `trap;` without line information, so a run could only say "a trap instruction" with no
//! line. Constant memory is read-only on the device, so gpuzzle makes that warning the error
//! it is, at the learner's line, before anything runs.

use super::messages::{CompilerMessage, MessageSeverity};
use super::CompileError;

/// NVRTC's words for the store (CUDA 12 and 13).
const NVRTC_WORDS: &str = "Cannot store to pointer that points to constant memory space";

/// What the learner reads instead.
const OURS: &str = "a store to `__constant__` memory: constant memory is read-only in a kernel (NVRTC replaces the kernel with a trap). Fill it before the launch (`cudaMemcpyToSymbol`, or `--symbol NAME=TYPE:VALUE` with `gpuzzle exec`), or write to a `__device__` variable or a buffer instead";

/// The compile as an error when its `log` reports a store to constant memory in `file`: NVRTC
/// writes it as `warning: k.cu(5): Warning: Cannot store ...`, a form of its own (so the
/// log's lines are read here, not the parsed warnings).
pub(super) fn refuse(file: &str, log: &str) -> Result<(), CompileError> {
    let stores: Vec<CompilerMessage> = log
        .lines()
        .filter(|l| l.contains(NVRTC_WORDS))
        .map(|l| CompilerMessage {
            file: file.to_string(),
            line: line_in(l, file),
            column: None,
            severity: MessageSeverity::Error,
            code: None,
            message: OURS.to_string(),
            notes: Vec::new(),
        })
        .collect();
    if stores.is_empty() {
        return Ok(());
    }
    Err(CompileError::Compilation {
        file: file.to_string(),
        log: log.to_string(),
        messages: stores,
    })
}

/// `5` of `warning: k.cu(5): Warning: ...` for `file` k.cu.
fn line_in(text: &str, file: &str) -> Option<u32> {
    let at = text.find(&format!("{file}("))? + file.len() + 1;
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_to_constant_memory_is_an_error_at_its_line() {
        let log = "warning: k.cu(5): Warning: Cannot store to pointer that points to constant memory space\n\
                   k.cu(2): warning #177-D: variable \"x\" was declared but never referenced\n";
        let Err(CompileError::Compilation { messages, .. }) = refuse("k.cu", log) else {
            panic!("not refused")
        };
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].line, Some(5));
        assert_eq!(messages[0].severity, MessageSeverity::Error);
        assert!(messages[0].message.contains("`__constant__`"));
        assert!(refuse("k.cu", "k.cu(2): warning #177-D: unused\n").is_ok());
    }
}
