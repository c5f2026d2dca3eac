//! What can go wrong between a learner's `.cu` file and its PTX.

use super::messages::{CompilerMessage, MessageSeverity};

/// The command that fixes a missing NVRTC on almost any machine (CUDA 12,
/// what gpuzzle is tested against; see [`INSTALL_HINT_13`]).
pub const INSTALL_HINT: &str = "pip install nvidia-cuda-nvrtc-cu12";

/// The CUDA 13 package (`libnvrtc.so.13`), also found.
pub const INSTALL_HINT_13: &str = "pip install nvidia-cuda-nvrtc";

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// No usable libnvrtc anywhere gpuzzle looks (or `GPUZZLE_NVRTC` points at
    /// something that is not one). `searched` holds one line per place tried.
    #[error("{}", missing_message(searched))]
    NvrtcMissing { searched: Vec<String> },

    /// NVRTC rejected the learner's code. `messages` is `log` parsed into
    /// file/line/severity entries (warnings included, in NVRTC's order).
    #[error("{}", compilation_message(file, log, messages))]
    Compilation {
        file: String,
        log: String,
        messages: Vec<CompilerMessage>,
    },

    /// NVRTC failed for a reason other than the learner's code: a bad option,
    /// out of memory, a broken installation.
    #[error("NVRTC failed: {0}")]
    Nvrtc(String),

    /// The request itself cannot be given to NVRTC (a define that is not an
    /// identifier, a NUL byte in an option). The puzzle file is at fault.
    #[error("invalid compile request: {0}")]
    BadRequest(String),

    /// Reserved for callers that read kernel sources from disk before
    /// compiling; the compiler itself treats every cache I/O failure as a miss.
    /// Transparent: `{:#}` of a wrapper that also showed the OS error would print it twice.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The one message a learner sees when NVRTC cannot be found: what to run,
/// the alternatives, and where gpuzzle looked.
fn missing_message(searched: &[String]) -> String {
    // `libnvrtc.so.12`; Windows: `nvrtc64_120_0.dll`.
    let library = super::layout::HOST.nvrtc_files[0];
    let mut text = format!(
        "NVRTC not found: {INSTALL_HINT}\n\
         (CUDA 13: {INSTALL_HINT_13}; or install the CUDA toolkit, \
         or set GPUZZLE_NVRTC=/path/to/{library})\n\
         gpuzzle compiles kernels with NVIDIA's NVRTC library; it needs no GPU."
    );
    if !searched.is_empty() {
        text.push_str("\nLooked in:");
        for place in searched {
            text.push_str("\n  ");
            text.push_str(place);
        }
    }
    text
}

fn compilation_message(file: &str, log: &str, messages: &[CompilerMessage]) -> String {
    let errors: Vec<&CompilerMessage> = messages
        .iter()
        .filter(|m| m.severity == MessageSeverity::Error)
        .collect();
    let mut text = format!("{file} does not compile");
    if errors.is_empty() {
        // Nothing parsed: show NVIDIA's own words rather than nothing.
        let log = log.trim();
        if !log.is_empty() {
            text.push_str(":\n");
            text.push_str(log);
        }
    } else {
        for message in errors {
            text.push_str("\n  ");
            text.push_str(&message.to_string());
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_message_names_the_fix_and_every_place_searched() {
        let err = CompileError::NvrtcMissing {
            searched: vec![
                "CUDA_PATH, CUDA_HOME: not set".to_string(),
                "/usr/local/cuda*/lib64: none".to_string(),
            ],
        };
        let text = err.to_string();
        assert!(
            text.starts_with("NVRTC not found: pip install nvidia-cuda-nvrtc-cu12\n"),
            "{text}"
        );
        assert!(
            text.contains("GPUZZLE_NVRTC=/path/to/libnvrtc.so.12"),
            "{text}"
        );
        assert!(text.contains("CUDA toolkit"), "{text}");
        assert!(text.contains("\n  CUDA_PATH, CUDA_HOME: not set"), "{text}");
        assert!(text.contains("\n  /usr/local/cuda*/lib64: none"), "{text}");
    }

    #[test]
    fn compilation_message_lists_errors_not_warnings() {
        let messages = vec![
            CompilerMessage {
                file: "p.cu".into(),
                line: Some(2),
                column: None,
                severity: MessageSeverity::Warning,
                code: Some("177-D".into()),
                message: "variable \"i\" was declared but never referenced".into(),
                notes: vec![],
            },
            CompilerMessage {
                file: "p.cu".into(),
                line: Some(3),
                column: Some(12),
                severity: MessageSeverity::Error,
                code: None,
                message: "identifier \"x\" is undefined".into(),
                notes: vec![],
            },
        ];
        let err = CompileError::Compilation {
            file: "p.cu".into(),
            log: String::new(),
            messages,
        };
        let text = err.to_string();
        assert!(text.starts_with("p.cu does not compile"), "{text}");
        assert!(
            text.contains("p.cu:3:12: error: identifier \"x\" is undefined"),
            "{text}"
        );
        assert!(!text.contains("never referenced"), "{text}");
    }

    #[test]
    fn compilation_message_falls_back_to_the_raw_log() {
        let err = CompileError::Compilation {
            file: "p.cu".into(),
            log: "something odd\n".into(),
            messages: vec![],
        };
        assert_eq!(err.to_string(), "p.cu does not compile:\nsomething odd");
    }
}
