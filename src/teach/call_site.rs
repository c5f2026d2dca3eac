//! Where a diagnostic's line is inside one of the learner's `__device__` helpers, the
//! addresses it touches come from the calls: the help names the helper and the lines that call
//! it, so a learner whose mistake is an argument (`fetch(tile[s % 2], ...)`, `&sw[lane % 16]`)
//! looks there too. Facts only: said for bounds and async-copy diagnostics (an address), where
//! the source shows the helper and at least one call of it; silent in a kernel's own body.

use super::source::Source;

/// The sentence to add to a help about line `line`, or `None`.
pub fn note(src: &Source, line: u32) -> Option<String> {
    let (start, kernel) = src.function_of(line)?;
    if kernel {
        return None;
    }
    let name = src.function_name(start)?;
    let calls = src.calls_of(&name);
    let list: Vec<String> = calls.iter().map(u32::to_string).collect();
    let (word, lines) = match list.as_slice() {
        [] => return None,
        [one] => ("line", one.clone()),
        more => ("lines", more.join(", ")),
    };
    Some(format!(
        " Line {line} is inside `{name}`, called on {word} {lines}: the address it uses comes from the arguments there, so check what each call passes."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "__device__ void put(float* dst, int k) {\n    dst[k] = 1.0f;\n}\n__global__ void k(float* o) {\n    __shared__ float s[8];\n    put(s, threadIdx.x + 8);\n    o[threadIdx.x] = s[0];\n}\n";

    #[test]
    fn a_line_inside_a_helper_names_its_calls() {
        let n = note(&Source::new(SRC), 2).unwrap_or_default();
        assert!(
            n.contains("Line 2 is inside `put`, called on line 6"),
            "{n}"
        );
    }

    #[test]
    fn silent_in_the_kernel_or_for_a_helper_never_called() {
        assert_eq!(note(&Source::new(SRC), 7), None);
        let uncalled = SRC.replace("    put(s, threadIdx.x + 8);\n", "");
        assert_eq!(note(&Source::new(&uncalled), 2), None);
    }
}
