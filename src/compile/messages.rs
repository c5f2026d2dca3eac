//! NVRTC's log, parsed into messages that point at the learner's file.
//!
//! NVRTC 12.9 writes EDG-style diagnostics, one record per message, records
//! separated by blank lines:
//!
//! ```text
//! puzzles/09_pooling.cu(3): error: identifier "x" is undefined
//!     out[i] = x;            <- the source line, indented by two spaces
//!              ^             <- caret under the offending column
//!
//! p.cu(2): warning #177-D: variable "unused" was declared but never referenced
//! ...
//! 1 error detected in the compilation of "puzzles/09_pooling.cu".
//! ```
//!
//! Other shapes seen: `catastrophic error` (missing include, `#error`), text
//! continued on indented lines before the source echo ("argument types are:
//! ..."), `Note #3322-D: ...` and `detected during instantiation ...` lines after
//! the caret, `p.cu(1): note #3196-D: ...` records that belong to the message
//! before them, `At end of source: error: ...`, `Command-line error: ...` (a bad
//! `-D`), and `nvrtc: error: ...` (a bad option). The trailer lines ("N errors
//! detected", "Remark: The warnings can be suppressed ...", "Compilation
//! terminated.") carry nothing and are dropped.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageSeverity {
    Error,
    Warning,
}

impl fmt::Display for MessageSeverity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MessageSeverity::Error => "error",
            MessageSeverity::Warning => "warning",
        })
    }
}

/// One NVRTC diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompilerMessage {
    /// The file NVRTC names: the request's `file_name` for the learner's code.
    pub file: String,
    /// 1-based line; `None` for messages about options or the command line.
    pub line: Option<u32>,
    /// 1-based column in characters, from NVRTC's caret, only when the source
    /// line NVRTC echoed matches the learner's file (so it can be trusted).
    pub column: Option<u32>,
    pub severity: MessageSeverity,
    /// NVIDIA's diagnostic number, e.g. `177-D` (warnings have one).
    pub code: Option<String>,
    /// The message; continuation lines are joined with `\n`.
    pub message: String,
    /// Trailing context: candidate overloads, template instantiation points,
    /// related locations (`p.cu:1: to match this "{"`).
    pub notes: Vec<String>,
}

impl fmt::Display for CompilerMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}: {}", self.severity, self.message)
    }
}

/// How a record's first line classifies it.
enum Header {
    Message(CompilerMessage),
    /// A located `note` that belongs to the message before it.
    Note(String),
}

/// Parses a whole NVRTC log. `file_name`/`source` are the learner's: used for
/// the location of file-less messages and to check NVRTC's caret columns.
pub fn parse_log(log: &str, file_name: &str, source: &str) -> Vec<CompilerMessage> {
    let source_lines: Vec<&str> = source.lines().collect();
    let mut messages: Vec<CompilerMessage> = Vec::new();
    // Body lines of the record being read; `None` between records.
    let mut body: Option<Vec<&str>> = None;

    let finish = |messages: &mut Vec<CompilerMessage>, body: Option<Vec<&str>>| {
        if let (Some(body), Some(last)) = (body, messages.last_mut()) {
            apply_body(last, &body, file_name, &source_lines);
        }
    };

    for line in log.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(header) = parse_header(line, file_name, source_lines.len()) {
            finish(&mut messages, body.take());
            match header {
                Header::Message(message) => {
                    messages.push(message);
                    body = Some(Vec::new());
                }
                Header::Note(note) => {
                    if let Some(last) = messages.last_mut() {
                        last.notes.push(note);
                    }
                    // The note's own source echo is not the message's.
                    body = None;
                }
            }
        } else if line.trim().is_empty() || is_trailer(line) {
            finish(&mut messages, body.take());
        } else if let Some(body) = body.as_mut() {
            body.push(line);
        } else if let Some(last) = messages.last_mut() {
            // Unknown text between records: keep it rather than lose it,
            // unless it is the echo of a note's source line.
            if !is_caret(line) && !line.starts_with("  ") {
                last.notes.push(line.trim().to_string());
            }
        }
    }
    finish(&mut messages, body.take());
    for message in &mut messages {
        if message.file == file_name {
            move_to_the_line_that_needs_it(message, &source_lines);
        }
    }
    messages
}

/// What NVRTC says is missing when the token that ends a statement or a
/// parenthesis was left off.
const EXPECTED_SEMICOLON: &str = "expected a \";\"";
const EXPECTED_PAREN: &str = "expected a \")\"";

/// NVRTC reports a missing `;` (or `)`) at the token after it: the first
/// token of the next code line, often a `}` after a blank line. When the
/// caret is at the start of its line's code and the code line before it
/// clearly lacks that token at its end (no `;`/`{`/`}`/`,`/`:` at the end
/// for a `;`, more `(` than `)` for a `)`), the message moves to the end of
/// that line, and NVRTC's own place is kept as a continuation line.
fn move_to_the_line_that_needs_it(message: &mut CompilerMessage, source: &[&str]) {
    if message.severity != MessageSeverity::Error {
        return;
    }
    let wanted = match message.message.as_str() {
        EXPECTED_SEMICOLON => ';',
        EXPECTED_PAREN => ')',
        _ => return,
    };
    let (Some(line), Some(column)) = (message.line, message.column) else {
        return;
    };
    let Some(index) = usize::try_from(line).ok().and_then(|l| l.checked_sub(1)) else {
        return;
    };
    let Some(reported) = source.get(index) else {
        return;
    };
    let indent = reported.chars().take_while(|c| c.is_whitespace()).count();
    if usize::try_from(column).ok() != Some(indent + 1) {
        return;
    }
    let Some((previous, code)) = (0..index)
        .rev()
        .find_map(|i| Some((i, code_part(source.get(i)?)?)))
    else {
        return;
    };
    let lacks_it = match wanted {
        ';' => !code.ends_with([';', '{', '}', ',', ':', '\\', '(', '[']),
        _ => code.matches('(').count() > code.matches(')').count(),
    };
    if !lacks_it || code.trim_start().starts_with('#') || code.ends_with("*/") {
        return;
    }
    let (Ok(new_line), Ok(new_column)) = (
        u32::try_from(previous + 1),
        u32::try_from(code.chars().count() + 1),
    ) else {
        return;
    };
    message.message = format!(
        "{} at the end of this line\nNVRTC reported it at {line}:{column}, at the next token",
        message.message
    );
    message.line = Some(new_line);
    message.column = Some(new_column);
}

/// A source line's code without a trailing `//` comment or trailing blanks;
/// `None` for a line with no code (blank, or only a `//` comment). A line
/// with a string literal is taken whole (a `//` may be inside the string).
fn code_part(line: &str) -> Option<&str> {
    let line = line.trim_end_matches('\r');
    let code = match line.find("//") {
        Some(at) if !line.contains('"') && !line.contains('\'') => &line[..at],
        _ => line,
    };
    let code = code.trim_end();
    (!code.trim().is_empty()).then_some(code)
}

/// Lines NVRTC prints after the messages; they repeat what the messages say.
fn is_trailer(line: &str) -> bool {
    line.starts_with("Remark: The warnings can be suppressed")
        || line.starts_with("Compilation terminated.")
        || (line.contains(" detected in the compilation of ")
            && line.starts_with(|c: char| c.is_ascii_digit()))
}

fn is_caret(line: &str) -> bool {
    line.trim() == "^"
}

/// Recognises the first line of a record, in any of NVRTC's shapes.
fn parse_header(line: &str, file_name: &str, source_line_count: usize) -> Option<Header> {
    if let Some(rest) = line.strip_prefix("nvrtc: ") {
        let (severity, code, text) = split_severity(rest)?;
        return Some(Header::Message(message(
            file_name, None, severity?, code, text,
        )));
    }
    if let Some(text) = line.strip_prefix("Command-line error: ") {
        let text = format!("command-line error: {text}");
        return Some(Header::Message(message(
            file_name,
            None,
            MessageSeverity::Error,
            None,
            &text,
        )));
    }
    if let Some(rest) = line.strip_prefix("At end of source: ") {
        let (severity, code, text) = split_severity(rest)?;
        let last_line = u32::try_from(source_line_count.max(1)).ok();
        let text = format!("at end of file: {text}");
        return Some(Header::Message(message(
            file_name, last_line, severity?, code, &text,
        )));
    }
    let (file, line_number, rest) = split_location(line)?;
    let (severity, code, text) = split_severity(rest)?;
    Some(match severity {
        Some(severity) => Header::Message(message(file, Some(line_number), severity, code, text)),
        None => Header::Note(format!("{file}:{line_number}: {text}")),
    })
}

fn message(
    file: &str,
    line: Option<u32>,
    severity: MessageSeverity,
    code: Option<String>,
    text: &str,
) -> CompilerMessage {
    CompilerMessage {
        file: file.to_string(),
        line,
        column: None,
        severity,
        code,
        message: text.trim().to_string(),
        notes: Vec::new(),
    }
}

/// `FILE(LINE): rest` → (FILE, LINE, rest). The file name may itself contain
/// parentheses, so look for the first `(digits): `.
fn split_location(line: &str) -> Option<(&str, u32, &str)> {
    let mut search_from = 0;
    while let Some(offset) = line[search_from..].find('(') {
        let open = search_from + offset;
        let after = &line[open + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            if let Some(rest) = after[digits..].strip_prefix("): ") {
                if open > 0 {
                    if let Ok(number) = after[..digits].parse::<u32>() {
                        return Some((&line[..open], number, rest));
                    }
                }
            }
        }
        search_from = open + 1;
    }
    None
}

/// `error: text`, `warning #177-D: text`, `catastrophic error: text`,
/// `note #3196-D: text` → (severity, or None for a note; code; text).
fn split_severity(rest: &str) -> Option<(Option<MessageSeverity>, Option<String>, &str)> {
    const KINDS: [(&str, Option<MessageSeverity>); 5] = [
        ("catastrophic error", Some(MessageSeverity::Error)),
        ("error", Some(MessageSeverity::Error)),
        ("warning", Some(MessageSeverity::Warning)),
        ("remark", Some(MessageSeverity::Warning)),
        ("note", None),
    ];
    for (word, severity) in KINDS {
        let Some(after) = rest.strip_prefix(word) else {
            continue;
        };
        let (code, after) = match after.strip_prefix(" #") {
            Some(coded) => {
                let end = coded.find(':')?;
                (Some(coded[..end].trim().to_string()), &coded[end..])
            }
            None => (None, after),
        };
        // NVRTC has printed both `warning: x` and `warning : x`.
        let text = after.trim_start().strip_prefix(':')?;
        return Some((severity, code, text.trim_start()));
    }
    None
}

/// Folds a record's remaining lines into its message: text before the source
/// echo continues the message, the caret gives the column, lines after it
/// are notes.
fn apply_body(message: &mut CompilerMessage, body: &[&str], file_name: &str, source: &[&str]) {
    let caret = body.iter().position(|line| is_caret(line));
    let (before, after) = match caret {
        // The line before the caret is NVRTC's echo of the source line.
        Some(index) if index > 0 => (&body[..index - 1], &body[index + 1..]),
        Some(index) => (&body[..index], &body[index + 1..]),
        None => (body, &body[body.len()..]),
    };
    for line in before {
        let line = line.trim();
        if !line.is_empty() {
            message.message.push('\n');
            message.message.push_str(line);
        }
    }
    for line in after {
        let line = line.trim();
        if !line.is_empty() {
            message.notes.push(line.to_string());
        }
    }
    if let Some(index) = caret.filter(|&index| index > 0) {
        if message.file == file_name {
            message.column = caret_column(body[index - 1], body[index], message.line, source);
        }
    }
}

/// NVRTC echoes the source line indented by two spaces and puts `^` under
/// the column (tabs are echoed as tabs, so counting characters works). The
/// column is only trusted when the echo is exactly the learner's line.
fn caret_column(echo: &str, caret: &str, line: Option<u32>, source: &[&str]) -> Option<u32> {
    let index = usize::try_from(line?).ok()?.checked_sub(1)?;
    let source_line = source.get(index)?.trim_end_matches('\r');
    if echo.strip_prefix("  ")? != source_line {
        return None;
    }
    let before_caret = caret.chars().take_while(|&c| c != '^').count();
    let column = before_caret.checked_sub(2)? + 1;
    if column > source_line.chars().count() + 1 {
        return None;
    }
    u32::try_from(column).ok()
}

/// Math functions that nvcc's host headers overload for integers, and that
/// NVRTC declares only for `float` and `double`.
const MATH_FUNCTIONS: [&str; 16] = [
    "pow", "sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "floor", "ceil", "round",
    "fabs", "fmin", "fmax", "fmod",
];

/// Host-only C++ headers: nothing in them can be used by device code.
const HOST_ONLY_HEADERS: [&str; 12] = [
    "vector",
    "algorithm",
    "string",
    "map",
    "fstream",
    "sstream",
    "chrono",
    "thread",
    "memory",
    "random",
    "numeric",
    "iomanip",
];

/// Adds one line to the messages where NVRTC refuses what nvcc accepts, or
/// where an include is missing, saying why and what to do instead; then the
/// fixes of `teach::compile_fix`'s table (a Hopper feature on an older
/// `arch`, half types mixed up), each fix once per log.
/// `headers_install`: the command that installs CUDA's headers, when gpuzzle
/// found none for the NVRTC in use.
pub(crate) fn add_hints(
    messages: &mut [CompilerMessage],
    headers_install: Option<&str>,
    arch: Option<&str>,
) {
    let mut given: Vec<String> = Vec::new();
    for message in messages.iter_mut() {
        if message.severity != MessageSeverity::Error {
            continue;
        }
        let hint = hint_for(&message.message, headers_install)
            .or_else(|| crate::teach::compile_fix::fix(&message.message, arch));
        // The same fix for another name (three cluster names on sm_80) is said once.
        let Some(hint) = hint else { continue };
        let key = without_first_name(&hint);
        if !given.contains(&key) {
            message.message.push('\n');
            message.message.push_str(&hint);
            given.push(key);
        }
    }
}

/// A hint without its first quoted name (`hint: \`this_cluster\` needs ...` → `hint:  needs
/// ...`), to tell one fix said for several names.
fn without_first_name(hint: &str) -> String {
    let mut parts = hint.splitn(3, '`');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(a), Some(_), Some(c)) => format!("{a}{c}"),
        _ => hint.to_string(),
    }
}

/// The target an NVRTC option list compiles for (`--gpu-architecture=sm_80` → `sm_80`).
pub(crate) fn target_of(options: &[String]) -> Option<&str> {
    options
        .iter()
        .rev()
        .find_map(|o| o.strip_prefix("--gpu-architecture="))
}

/// Functions the learner's `source` declares and the `ptx` only declares (`.extern .func`):
/// each call of one is a link error on a GPU, so it is reported as a compile error at the
/// first line that calls it (with the fix from `teach::compile_fix`). CUDA's own externs
/// (`vprintf`, `malloc`, the device runtime) are not the learner's and are left alone.
pub(crate) fn undefined_functions(
    ptx: &str,
    file_name: &str,
    source: &str,
) -> Vec<CompilerMessage> {
    let mut out = Vec::new();
    for name in extern_function_names(ptx) {
        let name = demangled(name);
        if out
            .iter()
            .any(|m: &CompilerMessage| m.message.starts_with(&format!("`{name}`")))
        {
            continue;
        }
        let Some(line) = first_call(source, name) else {
            continue;
        };
        out.push(CompilerMessage {
            file: file_name.to_string(),
            line: Some(line),
            column: None,
            severity: MessageSeverity::Error,
            code: None,
            message: crate::teach::compile_fix::undefined_function(name),
            notes: Vec::new(),
        });
    }
    out
}

/// The names of a PTX module's `.extern .func` declarations
/// (`.extern .func  (.param .b64 func_retval0) malloc` → `malloc`).
fn extern_function_names(ptx: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".extern .func") {
        rest = &rest[at + ".extern .func".len()..];
        let mut head = rest.trim_start();
        // A return value's parameter list comes first.
        if head.starts_with('(') {
            head = head[head.find(')').map_or(head.len(), |c| c + 1)..].trim_start();
        }
        let end = head
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(head.len());
        if end > 0 {
            names.push(&head[..end]);
        }
    }
    names
}

/// A C++ name as PTX spells it (`_Z6squaref`) → the name the learner wrote (`square`); an
/// `extern "C"` name is its own.
fn demangled(name: &str) -> &str {
    let Some(rest) = name.strip_prefix("_Z") else {
        return name;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match rest[..digits].parse::<usize>() {
        Ok(n) if digits > 0 && rest.len() >= digits + n => &rest[digits..digits + n],
        _ => name,
    }
}

/// The first line of `source` that calls `name` (the name followed by `(`) and is not its
/// declaration (a line that says `__device__` or ends in `;` right after the parameter list).
fn first_call(source: &str, name: &str) -> Option<u32> {
    let declared = source.lines().any(|l| {
        let code = l.split("//").next().unwrap_or("");
        code.contains("__device__") && calls(code, name)
    });
    if !declared {
        return None;
    }
    source.lines().enumerate().find_map(|(i, l)| {
        let code = l.split("//").next().unwrap_or("");
        (calls(code, name) && !code.contains("__device__"))
            .then(|| u32::try_from(i + 1).ok())
            .flatten()
    })
}

/// Whether `code` holds `name(` as a whole word.
fn calls(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].trim_start();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('(')
    })
}

/// `#include <mma.h>` without `crt/mma.h` (the runtime wheel's `mma.h` includes it, and only
/// the compiler's wheel has it): the message names the package, not the learner's `-I`.
pub(crate) fn add_wmma_hint(messages: &mut [CompilerMessage], install: Option<&str>) {
    let Some(install) = install else {
        return;
    };
    for message in messages.iter_mut() {
        if quoted_after(&message.message, "source file \"") == Some("crt/mma.h") {
            // Replaces the generic "-I DIR" hint, which does not apply to a CUDA header.
            if let Some(at) = message.message.find("\nhint: ") {
                message.message.truncate(at);
            }
            message.message.push_str(&format!(
                "\nhint: <mma.h> (WMMA) needs crt/mma.h, which NVIDIA ships with the compiler, \
                 not with the runtime headers; install it with: {install} (`gpuzzle doctor` \
                 shows where gpuzzle looks)"
            ));
        }
    }
}

fn hint_for(text: &str, headers_install: Option<&str>) -> Option<String> {
    if let Some(name) = quoted_after(text, "more than one instance of overloaded function \"") {
        let function = name.rsplit("::").next().unwrap_or(name);
        if MATH_FUNCTIONS.contains(&function) {
            let (float_args, double_args) = if matches!(function, "pow" | "fmin" | "fmax" | "fmod")
            {
                ("(float)a, (float)b", "(double)a, b")
            } else {
                ("(float)a", "(double)a")
            };
            return Some(format!(
                "hint: nvcc accepts {function}() on integers through the host compiler's C++ \
                 overloads; NVRTC has only the float and double ones: cast, e.g. \
                 {function}f({float_args}) or {function}({double_args})"
            ));
        }
        return None;
    }
    let name = quoted_after(text, "cannot open source file \"")
        .or_else(|| quoted_after(text, "could not open source file \""))?;
    if HOST_ONLY_HEADERS.contains(&name) {
        return Some(format!(
            "hint: <{name}> is a host C++ header: device code cannot use it and gpuzzle compiles \
             only the kernels, so remove this #include"
        ));
    }
    let cuda_header = name.starts_with("cuda")
        || name.starts_with("cooperative_groups")
        || name.starts_with("cub/")
        || name.starts_with("thrust/")
        || name.starts_with("nv/")
        || name.starts_with("sm_")
        || name.starts_with("device_");
    match headers_install {
        Some(install) if cuda_header => Some(format!(
            "hint: gpuzzle found no CUDA headers for this NVRTC; install them with: {install} \
             (`gpuzzle doctor` shows where it looks)"
        )),
        _ if cuda_header => None,
        _ => Some(format!(
            "hint: gpuzzle looks for \"{name}\" beside the .cu file and in the folders given \
             with -I DIR (e.g. gpuzzle exec -I include ...)"
        )),
    }
}

/// The text between `prefix` and the next `"`.
fn quoted_after<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('"')?])
}

/// Real NVRTC: each entry of `teach::compile_fix`'s table on a small kernel, and again on a
/// second kernel with other names and another shape of the same mistake.
#[cfg(test)]
mod fixes_from_nvrtc {
    use super::MessageSeverity;
    use crate::compile::{CompileError, CompileRequest, PtxCompiler};

    /// The error messages (with their hints) of compiling `source` as `file`.
    fn errors(file: &str, source: &str, options: &[String]) -> Vec<String> {
        let compiler = PtxCompiler::new(None);
        let req = CompileRequest {
            extra_options: options,
            ..CompileRequest::new(file, source)
        };
        match compiler.compile(&req) {
            Err(CompileError::Compilation { messages, .. }) => messages
                .into_iter()
                .filter(|m| m.severity == MessageSeverity::Error)
                .map(|m| format!("{}: {}", m.line.unwrap_or(0), m.message))
                .collect(),
            Err(e) => panic!("not a compile error: {e}"),
            Ok(_) => panic!("compiled: {source}"),
        }
    }

    fn hints(errors: &[String]) -> Vec<&str> {
        errors
            .iter()
            .filter_map(|e| e.split_once("\nhint: ").map(|(_, h)| h))
            .collect()
    }

    #[test]
    fn cluster_features_on_sm_80_name_arch_sm_90_once() {
        let e = errors(
            "k.cu",
            "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\nextern \"C\" __global__ void __cluster_dims__(2, 1, 1) k(float* out) {\n    cg::cluster_group cluster = cg::this_cluster();\n    out[threadIdx.x] = cluster.block_rank();\n}\n",
            &[],
        );
        let h = hints(&e);
        assert_eq!(h.len(), 1, "{e:#?}");
        assert!(
            h[0].starts_with("`__cluster_dims__` needs a Hopper GPU"),
            "{e:#?}"
        );
        assert!(
            h[0].contains("compiled for sm_80") && h[0].contains("--arch sm_90"),
            "{e:#?}"
        );
        assert!(h[0].contains("`arch` key"), "{e:#?}");
        // Another kernel, other names, no attribute: the cluster API alone.
        let e = errors(
            "gather.cu",
            "#include <cooperative_groups.h>\nextern \"C\" __global__ void gather(int* dst) {\n    auto c = cooperative_groups::this_cluster();\n    c.sync();\n    dst[blockIdx.x] = 1;\n}\n",
            &["--gpu-architecture=compute_86".to_string()],
        );
        let h = hints(&e);
        assert!(
            h.first()
                .is_some_and(|h| h.starts_with("`this_cluster` needs a Hopper GPU")
                    && h.contains("compiled for sm_86")),
            "{e:#?}"
        );
    }

    #[test]
    fn half_pairs_stored_as_halves_name_the_conversion() {
        let e = errors(
            "k.cu",
            "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(const __half2* in, __half* out) {\n    int i = threadIdx.x;\n    __half2 v = __hadd2(in[i], in[i]);\n    out[i] = v;\n}\n",
            &[],
        );
        assert!(e[0].starts_with("5: "), "{e:#?}");
        assert!(
            e[0].contains("`__low2half(v)` or `__high2half(v)`"),
            "{e:#?}"
        );
        // Another shape: a pair read into a float; and floats made into a pair.
        let e = errors(
            "dot.cu",
            "#include <cuda_fp16.h>\nextern \"C\" __global__ void dot(const __half2* xs, float* acc) {\n    float lo = xs[blockIdx.x];\n    acc[0] = lo;\n}\n",
            &[],
        );
        assert!(
            e[0].starts_with("3: ") && e[0].contains("`__low2float(v)`"),
            "{e:#?}"
        );
        let e = errors(
            "pack.cu",
            "#include <cuda_fp16.h>\nextern \"C\" __global__ void pack(const float* a, __half2* p) {\n    __half2 two = a[threadIdx.x];\n    p[threadIdx.x] = two;\n}\n",
            &[],
        );
        assert!(e[0].contains("`__floats2half2_rn(a, b)`"), "{e:#?}");
    }

    #[test]
    fn a_declared_and_never_defined_device_function_is_a_compile_error_at_its_call() {
        let e = errors(
            "k.cu",
            "__device__ float square(float x);\nextern \"C\" __global__ void k(float* out) {\n    int i = threadIdx.x;\n    out[i] = square(out[i]);\n}\n",
            &[],
        );
        assert_eq!(e.len(), 1, "{e:#?}");
        assert!(
            e[0].starts_with("4: `square` is declared but never defined"),
            "{e:#?}"
        );
        assert!(!e[0].contains("limit of gpuzzle"), "{e:#?}");
        // `extern "C"`, another name, called from a helper.
        let e = errors(
            "clamp.cu",
            "extern \"C\" __device__ int clamp_index(int i, int n);\n__device__ int pick(int i, int n) {\n    return clamp_index(i, n);\n}\nextern \"C\" __global__ void clamp(int* out, int n) {\n    out[threadIdx.x] = pick(threadIdx.x, n);\n}\n",
            &[],
        );
        assert!(
            e[0].starts_with("3: `clamp_index` is declared but never defined"),
            "{e:#?}"
        );
        assert!(e[0].contains("give `clamp_index` its body"), "{e:#?}");
    }

    #[test]
    fn a_helper_without_device_gets_it() {
        let e = errors(
            "k.cu",
            "float scale(float x) { return 2.0f * x; }\nextern \"C\" __global__ void k(float* out) {\n    out[threadIdx.x] = scale(out[threadIdx.x]);\n}\n",
            &[],
        );
        assert!(
            e[0].contains("write `__device__` before this function's return type"),
            "{e:#?}"
        );
        let e = errors(
            "twice.cu",
            "int twice(int v) {\n    return v + v;\n}\nextern \"C\" __global__ void twice_all(int* xs) {\n    xs[threadIdx.x] = twice(xs[threadIdx.x]);\n}\n",
            &[],
        );
        assert!(
            e[0].starts_with("1: ") && e[0].contains("`__device__`"),
            "{e:#?}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "puzzles/09_pooling.cu";

    // Logs below are verbatim NVRTC 12.9.86 output for the sources beside them.

    #[test]
    fn missing_crt_mma_names_the_compiler_package() {
        let mut messages = vec![CompilerMessage {
            file: "k.cu".into(),
            line: Some(1),
            column: None,
            severity: MessageSeverity::Error,
            code: None,
            message: "cannot open source file \"crt/mma.h\"".into(),
            notes: Vec::new(),
        }];
        add_hints(&mut messages, None, None);
        add_wmma_hint(&mut messages, Some("pip install nvidia-cuda-nvcc-cu12"));
        let text = &messages[0].message;
        assert!(text.contains("pip install nvidia-cuda-nvcc-cu12"), "{text}");
        assert!(!text.contains("-I DIR"), "{text}");
    }

    #[test]
    fn undefined_identifier() {
        let source = "extern \"C\" __global__ void k(float* out){\n  int i = threadIdx.x;\n  out[i] = x;\n}\n";
        let log = "puzzles/09_pooling.cu(3): error: identifier \"x\" is undefined\n    out[i] = x;\n             ^\n\n1 error detected in the compilation of \"puzzles/09_pooling.cu\".\n";
        let messages = parse_log(log, FILE, source);
        assert_eq!(
            messages,
            vec![CompilerMessage {
                file: FILE.into(),
                line: Some(3),
                column: Some(12),
                severity: MessageSeverity::Error,
                code: None,
                message: "identifier \"x\" is undefined".into(),
                notes: vec![],
            }]
        );
        assert_eq!(
            messages[0].to_string(),
            "puzzles/09_pooling.cu:3:12: error: identifier \"x\" is undefined"
        );
    }

    #[test]
    fn errors_and_warnings_in_one_log() {
        let source = "extern \"C\" __global__ void k(float* out){\n  int i = threadIdx.x\n  out[i] = y;\n  foo();\n}\n";
        let log = "puzzles/09_pooling.cu(3): error: expected a \";\"\n    out[i] = y;\n    ^\n\npuzzles/09_pooling.cu(4): error: identifier \"foo\" is undefined\n    foo();\n    ^\n\npuzzles/09_pooling.cu(2): warning #177-D: variable \"i\" was declared but never referenced\n    int i = threadIdx.x\n        ^\n\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n2 errors detected in the compilation of \"puzzles/09_pooling.cu\".\n";
        let messages = parse_log(log, FILE, source);
        let summary: Vec<_> = messages
            .iter()
            .map(|m| (m.line, m.column, m.severity, m.code.as_deref()))
            .collect();
        assert_eq!(
            summary,
            vec![
                // NVRTC's 3:3 is the token after the missing `;`: the end of line 2.
                (Some(2), Some(22), MessageSeverity::Error, None),
                (Some(4), Some(3), MessageSeverity::Error, None),
                (Some(2), Some(7), MessageSeverity::Warning, Some("177-D")),
            ]
        );
        assert_eq!(
            messages[2].message,
            "variable \"i\" was declared but never referenced"
        );
        assert!(messages.iter().all(|m| m.notes.is_empty()));
    }

    /// NVRTC 12.9's log for `source`, whose only error is `message` at
    /// `line:column`.
    fn one_error(line: u32, column: usize, message: &str, source: &str) -> CompilerMessage {
        let echo = source.lines().nth(line as usize - 1).unwrap_or_default();
        let log = format!(
            "p.cu({line}): error: {message}\n  {echo}\n  {}^\n\n1 error detected in the compilation of \"p.cu\".\n",
            " ".repeat(column - 1)
        );
        let mut messages = parse_log(&log, "p.cu", source);
        assert_eq!(messages.len(), 1, "{messages:?}");
        messages.remove(0)
    }

    #[test]
    fn a_missing_semicolon_is_at_the_end_of_the_line_that_needs_it() {
        // NVRTC 12.9: `7:1: error: expected a ";"` at the `}` after a blank line.
        let source = "// Puzzle 1\n// x\nextern \"C\" __global__ void map(float* out, const float* a) {\n    int local_i = threadIdx.x;\n    out[local_i] = a[local_i] + 10.0f\n\n}\n";
        let m = one_error(7, 1, "expected a \";\"", source);
        assert_eq!((m.line, m.column), (Some(5), Some(38)));
        assert_eq!(
            m.to_string(),
            "p.cu:5:38: error: expected a \";\" at the end of this line\nNVRTC reported it at 7:1, at the next token"
        );
        // The next line's first token, past a comment line and a trailing comment.
        let source = "{\n    __syncthreads()  // wait\n    // then write\n    out[0] = 1;\n}\n";
        let m = one_error(4, 5, "expected a \";\"", source);
        assert_eq!((m.line, m.column), (Some(2), Some(20)));
    }

    #[test]
    fn a_missing_parenthesis_is_at_the_end_of_the_line_that_opened_it() {
        // NVRTC 12.9: `4:9: error: expected a ")"` for `if (i < 4` on line 3.
        let source = "{\n    int i = threadIdx.x;\n    if (i < 4\n        out[i] = 1;\n}\n";
        let m = one_error(4, 9, "expected a \")\"", source);
        assert_eq!((m.line, m.column), (Some(3), Some(14)));
        assert!(m
            .message
            .starts_with("expected a \")\" at the end of this line\n"));
    }

    #[test]
    fn expected_tokens_stay_where_the_previous_line_is_not_clearly_the_place() {
        // The caret is inside its line: the fix is there.
        let source = "{\n    int i = 0;\n    out[i = 1;\n}\n";
        let m = one_error(3, 14, "expected a \";\"", source);
        assert_eq!((m.line, m.column), (Some(3), Some(14)));
        // The line before ends its statement already.
        let source = "{\n    int i = 0;\n    out i;\n}\n";
        let m = one_error(3, 5, "expected a \";\"", source);
        assert_eq!((m.line, m.column), (Some(3), Some(5)));
        assert_eq!(m.message, "expected a \";\"");
        // A `)` whose line before has its parentheses balanced.
        let source = "{\n    int i = f(0)\n    + 1);\n}\n";
        let m = one_error(3, 5, "expected a \")\"", source);
        assert_eq!(m.line, Some(3));
        // A preprocessor line before it, and other messages, are left alone.
        let source = "#define N 4\nint x;\n";
        assert_eq!(one_error(2, 1, "expected a \";\"", source).line, Some(2));
        let source = "{\n    return\n}\n";
        assert_eq!(
            one_error(3, 1, "expected an expression", source).line,
            Some(3)
        );
    }

    #[test]
    fn continuation_lines_and_overload_notes() {
        let source = "extern \"C\" __global__ void k(float* out){\n  int i = threadIdx.x;\n  out[i] = max(\"a\", 2, 3);\n}\n";
        let log = "puzzles/09_pooling.cu(3): error: no instance of overloaded function \"max\" matches the argument list\n            argument types are: (const char [2], int, int)\n    out[i] = max(\"a\", 2, 3);\n             ^\nNote #3322-D: number of parameters of function \"max(int, int)\" does not match the call\nNote #3322-D: number of parameters of function \"max(float, float)\" does not match the call\n\n1 error detected in the compilation of \"puzzles/09_pooling.cu\".\n";
        let messages = parse_log(log, FILE, source);
        assert_eq!(messages.len(), 1);
        assert_eq!(
            messages[0].message,
            "no instance of overloaded function \"max\" matches the argument list\nargument types are: (const char [2], int, int)"
        );
        assert_eq!(messages[0].column, Some(12));
        assert_eq!(messages[0].notes.len(), 2);
        assert!(messages[0].notes[1].contains("max(float, float)"));
    }

    #[test]
    fn template_instantiation_note() {
        let source = "template<typename T> __device__ T f(T a){ return a.foo; }\nextern \"C\" __global__ void k(float* out){\n  out[0] = f(1.0f);\n}\n";
        let log = "puzzles/09_pooling.cu(1): error: expression must have class type but it has type \"float\"\n  template<typename T> __device__ T f(T a){ return a.foo; }\n                                                   ^\n          detected during instantiation of \"T f(T) [with T=float]\" at line 3\n\n1 error detected in the compilation of \"puzzles/09_pooling.cu\".\n";
        let messages = parse_log(log, FILE, source);
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].line, Some(1));
        assert_eq!(messages[0].column, Some(50));
        assert_eq!(
            messages[0].notes,
            vec!["detected during instantiation of \"T f(T) [with T=float]\" at line 3"]
        );
    }

    #[test]
    fn tabs_are_counted_as_one_column() {
        let source = "extern \"C\" __global__ void k(float* out){\n\tint i = threadIdx.x;\n\tout[i] =\tzz;\n}\n";
        let log = "puzzles/09_pooling.cu(3): error: identifier \"zz\" is undefined\n  \tout[i] =\tzz;\n  \t        \t^\n\n1 error detected in the compilation of \"puzzles/09_pooling.cu\".\n";
        let messages = parse_log(log, FILE, source);
        assert_eq!(messages[0].column, Some(11));
        let source_line = source.lines().nth(2).unwrap_or_default();
        assert_eq!(source_line.chars().nth(10), Some('z'));
    }

    #[test]
    fn column_dropped_when_echo_does_not_match_the_file() {
        let log = "puzzles/09_pooling.cu(3): error: identifier \"x\" is undefined\n    out[i] = x;\n             ^\n\n";
        let messages = parse_log(log, FILE, "a\nb\nsomething else\n");
        assert_eq!(messages[0].line, Some(3));
        assert_eq!(messages[0].column, None);
    }

    #[test]
    fn catastrophic_error() {
        let source = "#include \"nothere.h\"\nextern \"C\" __global__ void k(float* out){}\n";
        let log = "puzzles/09_pooling.cu(1): catastrophic error: cannot open source file \"nothere.h\"\n  #include \"nothere.h\"\n                      ^\n\n1 catastrophic error detected in the compilation of \"puzzles/09_pooling.cu\".\nCompilation terminated.\n";
        let messages = parse_log(log, FILE, source);
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].severity, MessageSeverity::Error);
        assert_eq!(messages[0].message, "cannot open source file \"nothere.h\"");
        assert_eq!(messages[0].line, Some(1));
    }

    #[test]
    fn end_of_source_with_located_note() {
        let source = "extern \"C\" __global__ void k(float* out){\n  out[0] = 1;\n";
        let log = "At end of source: error: expected a \"}\"\np.cu(1): note #3196-D: to match this \"{\"\n  extern \"C\" __global__ void k(float* out){\n                                          ^\n\n1 error detected in the compilation of \"p.cu\".\n";
        let messages = parse_log(log, "p.cu", source);
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].file, "p.cu");
        assert_eq!(messages[0].line, Some(2));
        assert_eq!(messages[0].message, "at end of file: expected a \"}\"");
        assert_eq!(messages[0].notes, vec!["p.cu:1: to match this \"{\""]);
    }

    #[test]
    fn option_and_command_line_errors_have_no_line() {
        let log = "nvrtc: error: unrecognized option --bogus found\n";
        let messages = parse_log(log, "p.cu", "");
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].file, "p.cu");
        assert_eq!(messages[0].line, None);
        assert_eq!(messages[0].message, "unrecognized option --bogus found");
        assert_eq!(
            messages[0].to_string(),
            "p.cu: error: unrecognized option --bogus found"
        );

        let log = "Command-line error: invalid macro definition: 1X\n\n1 catastrophic error detected in the compilation of \"p.cu\".\nCompilation terminated.\n";
        let messages = parse_log(log, "p.cu", "");
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].severity, MessageSeverity::Error);
        assert_eq!(
            messages[0].message,
            "command-line error: invalid macro definition: 1X"
        );

        let log = "nvrtc: warning: \"--gpu-architecture(-arch)=80\" followed by \"--gpu-architecture(-arch)=75\"\n";
        let messages = parse_log(log, "p.cu", "");
        assert_eq!(messages[0].severity, MessageSeverity::Warning);
    }

    #[test]
    fn file_names_with_parentheses() {
        let log =
            "my (copy).cu(7): warning #549-D: variable \"q\" is used before its value is set\n";
        let messages = parse_log(log, "my (copy).cu", "");
        assert_eq!(messages[0].file, "my (copy).cu");
        assert_eq!(messages[0].line, Some(7));
        assert_eq!(messages[0].code.as_deref(), Some("549-D"));
    }

    #[test]
    fn empty_and_unknown_logs() {
        assert!(parse_log("", FILE, "").is_empty());
        assert!(parse_log("\n", FILE, "").is_empty());
        assert!(parse_log("some banner nobody expected\n", FILE, "").is_empty());
    }

    #[test]
    fn hints_for_what_nvcc_accepts_and_missing_includes() {
        let log = "p.cu(3): error: more than one instance of overloaded function \"pow\" matches the argument list:\n            function \"pow(double, double) noexcept\"\n            argument types are: (int, int)\n    int y = pow(x, 2);\n            ^\n\n";
        let mut messages = parse_log(log, "p.cu", "\n\n    int y = pow(x, 2);\n");
        add_hints(&mut messages, None, None);
        assert!(
            messages[0].message.contains("powf((float)a, (float)b)"),
            "{}",
            messages[0].message
        );
        let hint = |name: &str, install: Option<&str>| {
            let mut messages = vec![CompilerMessage {
                file: "p.cu".to_string(),
                line: Some(1),
                column: None,
                severity: MessageSeverity::Error,
                code: None,
                message: format!("cannot open source file \"{name}\""),
                notes: Vec::new(),
            }];
            add_hints(&mut messages, install, None);
            messages[0].message.clone()
        };
        let install = "pip install nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12";
        assert!(hint("cooperative_groups.h", Some(install)).contains(install));
        assert!(!hint("cooperative_groups.h", None).contains("hint"));
        assert!(hint("vector", None).contains("host C++ header"));
        assert!(hint("my_util.h", None).contains("-I DIR"));
        // Messages without a known cause are left alone.
        let mut plain = parse_log(
            "p.cu(1): error: identifier \"x\" is undefined\n",
            "p.cu",
            "",
        );
        add_hints(&mut plain, Some(install), None);
        assert_eq!(plain[0].message, "identifier \"x\" is undefined");
    }
}
