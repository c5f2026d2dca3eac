//! A wider view of an array indexed with the narrow element's index: `reinterpret_cast<const
//! int*>(a)[4 * w]` where `a` holds bytes. The view counts its own elements (4-byte words), so
//! word `4 * w` starts at byte `16 * w`, four words too far; the word of bytes `4w .. 4w + 3`
//! is `[w]`. A guard would only hide the data past the end. Said where the line casts `name` to
//! a type k times wider and the subscript (or the local it names) is `k * X` or `X * k`.

use super::eval::{canonical, split_top};
use super::source::{type_bytes, Source};

/// The help for an out-of-bounds access of `name` on `line`, or `None`.
pub fn help(src: &Source, line: u32, name: &str) -> Option<String> {
    let code = src.line(line);
    let narrow = src.pointee_bytes(name)?;
    let mut rest = code;
    while let Some(at) = rest.find("reinterpret_cast<") {
        let after = &rest[at + "reinterpret_cast<".len()..];
        let close = after.find('>')?;
        let ty = after[..close].replace("const", "").replace('*', "");
        let ty = ty.trim();
        let tail = &after[close + 1..];
        rest = tail;
        // `(name)[X]`
        let Some(inner) = tail.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(end) = inner.find(')') else {
            continue;
        };
        if inner[..end].trim() != name {
            continue;
        }
        let Some(sub) = inner[end + 1..].trim_start().strip_prefix('[') else {
            continue;
        };
        let Some(sub_end) = sub.find(']') else {
            continue;
        };
        let sub = sub[..sub_end].trim();
        let Some(wide) = type_bytes(ty) else {
            continue;
        };
        if wide <= narrow || wide % narrow != 0 {
            continue;
        }
        let k = (wide / narrow).to_string();
        // The subscript, or the local it names.
        let expr = src
            .definition(line, sub)
            .map(|(_, v)| v)
            .unwrap_or_else(|| sub.to_string());
        let factors = split_top(&canonical(&expr), '*');
        if factors.len() != 2 || !factors.contains(&k) {
            continue;
        }
        let Some(x) = factors.iter().find(|f| **f != k) else {
            continue;
        };
        let via = if expr.trim() == sub {
            String::new()
        } else {
            format!(" (`{sub}` is `{}`)", expr.trim())
        };
        return Some(format!(
            "`reinterpret_cast<{}*>({name})[{sub}]`{via} counts in `{ty}`s, {k} elements of `{name}` each: `{ty}` number `{sub}` starts at element `{k} * {sub}` of `{name}`, {k} times too far. The `{ty}` that holds elements `{k} * {x}` to `{k} * {x} + {}` is `[{x}]`: index the wide view with `{x}`, not `{sub}` (a guard would only drop the data past the end)",
            after[..close].trim().trim_end_matches('*').trim(),
            wide / narrow - 1
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_float4_view_indexed_by_the_float_index_gets_the_vector_index() {
        // Another shape than the suite's: floats read as float4 with the index written inline.
        let src = Source::new("__global__ void k(float* o, const float* x, int n) {\n    int v = blockIdx.x * blockDim.x + threadIdx.x;\n    float4 q = reinterpret_cast<const float4*>(x)[v * 4];\n    o[v] = q.x;\n}\n");
        let h = help(&src, 3, "x").unwrap_or_default();
        assert!(
            h.contains("counts in `float4`s, 4 elements of `x` each") && h.contains("is `[v]`"),
            "{h}"
        );
    }

    #[test]
    fn silent_for_the_right_index_or_a_same_width_cast() {
        let src = Source::new("__global__ void k(float* o, const float* x, int n) {\n    int v = blockIdx.x * blockDim.x + threadIdx.x;\n    float4 q = reinterpret_cast<const float4*>(x)[v];\n    int w = reinterpret_cast<const int*>(x)[v * 4];\n    o[v] = q.x + w;\n}\n");
        assert_eq!(help(&src, 3, "x"), None);
        // int over float: the same width, indexes agree.
        assert_eq!(help(&src, 4, "x"), None);
    }
}
