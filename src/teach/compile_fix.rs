//! Fixes for common compile errors, in the learner's terms: NVRTC says what it refused, this
//! table says what to write instead. `compile::messages` parses NVRTC's log and appends the fix
//! a message gets here (as a `hint:` line); the text lives here because all help does.
//!
//! Each entry reads only the message's own words (the names and types NVRTC quotes), so the fix
//! names the learner's function and types, never a placeholder:
//! - a feature of Hopper (sm_90: thread-block clusters, `cp.async.bulk`, TMA) compiled for an
//!   older target: the `--arch sm_90` option, and the puzzle's `arch` key;
//! - `__half`, `__half2` and `float` mixed up in an assignment or a conversion: the intrinsic
//!   that converts (`__low2half`, `__half2float`, `__floats2half2_rn`, ...);
//! - a `__half` intrinsic given `__half2` operands (or the other way round): the paired one;
//! - a `__device__` function declared and never defined (a link error): see
//!   [`undefined_function`].

/// Names that exist only for sm_90 and later; NVRTC's headers leave them out for older targets,
/// so the message is "has no member" or "is undefined" rather than the architecture's.
const HOPPER_NAMES: &[&str] = &[
    "__cluster_dims__",
    "this_cluster",
    "cluster_group",
    "map_shared_rank",
    "__cluster_barrier_arrive",
    "__cluster_barrier_wait",
    "__clusterDim",
    "__clusterIdx",
    "__clusterRelativeBlockIdx",
    "__clusterGridDimInClusters",
    "__cluster_map_shared_rank",
    "__isCluster",
    "cp_async_bulk",
    "fence_proxy_async",
    "barrier_arrive_tx",
    "cp_async_bulk_tensor",
    "cp_async_bulk_commit_group",
    "cp_async_bulk_wait_group",
    "cp_async_bulk_wait_group_read",
];

/// The fix for one NVRTC error `message` (its continuation lines included), or `None` when the
/// table has none. `arch`: the target the kernel was compiled for (`sm_80`), when known.
pub fn fix(message: &str, arch: Option<&str>) -> Option<String> {
    hopper_only(message, arch)
        .or_else(|| half_conversion(message))
        .or_else(|| half_intrinsic(message))
        .or_else(|| host_function(message))
}

/// `calling a __host__ function("scale") from a __global__ function("k") is not allowed`: a
/// helper written without `__device__` is a CPU function.
fn host_function(message: &str) -> Option<String> {
    if message.starts_with("A function without execution space annotations") {
        return Some("hint: a function a kernel calls must be marked `__device__`: write `__device__` before this function's return type (`__host__ __device__` to keep it callable from the CPU too); the `-default-device` flag NVRTC names is not one of gpuzzle's options".into());
    }
    let rest = message.strip_prefix("calling a __host__ function(\"")?;
    let name = &rest[..rest.find('"')?];
    let name = name.split('(').next().unwrap_or(name).trim();
    let name = name.rsplit(' ').next().unwrap_or(name);
    if name.is_empty() {
        return None;
    }
    Some(format!("hint: `{name}` has no `__device__`, so it is a CPU (host) function and a kernel cannot call it: write `__device__` before its return type (`__host__ __device__` to keep it callable from the CPU too)"))
}

/// The message for a call of `name`, a function the learner's file declares and never defines:
/// NVRTC compiles the call and leaves the function to a linker, so on a GPU the kernel would
/// not load.
pub fn undefined_function(name: &str) -> String {
    format!(
        "`{name}` is declared but never defined: the kernel calls it, and no body for it is \
         compiled, so on a GPU the kernel would not link (\"unresolved extern function\")\n\
         hint: give `{name}` its body in this file (a `__device__` function: `__device__ ... \
         {name}(...) {{ ... }}`), or, if its body is there, check that its name and parameter \
         types match the declaration and that it is marked `__device__`"
    )
}

/// A Hopper-only feature (clusters, bulk async copies) used on an older target.
fn hopper_only(message: &str, arch: Option<&str>) -> Option<String> {
    let arch_said = message.contains("not supported for this GPU architecture")
        || message.contains("requires compute_90")
        || message.contains("requires sm_90");
    let quoted = quoted_names(message);
    let named = quoted
        .iter()
        .copied()
        .chain(message.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        .find(|w| HOPPER_NAMES.contains(w));
    if !arch_said && named.is_none() {
        return None;
    }
    // Already on sm_90 or later: the name is missing for another reason.
    let target = arch.map(|a| a.replace("compute_", "sm_"));
    if target
        .as_deref()
        .and_then(|t| t.strip_prefix("sm_"))
        .and_then(|n| n.trim_end_matches(['a', 'f']).parse::<u32>().ok())
        .is_some_and(|n| n >= 90)
    {
        return None;
    }
    let what = match named {
        Some(n) => format!("`{n}`"),
        None => "this feature".into(),
    };
    let compiled = match target {
        Some(t) => format!("this kernel was compiled for {t}"),
        None => "this kernel was compiled for an older GPU".into(),
    };
    Some(format!(
        "hint: {what} needs a Hopper GPU (sm_90: thread-block clusters, bulk async copies), and \
         {compiled}. With `gpuzzle exec`, add `--arch sm_90`; a puzzle sets its target with the \
         `arch` key of its TOML (`arch = \"sm_90\"`), and a puzzle without it is meant to be \
         solved without this feature"
    ))
}

/// `__half`, `__half2` and `float` mixed up: NVRTC says `operand types are: __half = __half2`
/// or `no suitable ... from "const __half2" to "float"`.
fn half_conversion(message: &str) -> Option<String> {
    let (from, to) = if let Some(ops) = after(message, "operand types are:") {
        let (to, from) = ops.split_once('=')?;
        (clean_type(from), clean_type(to))
    } else {
        let q = quoted_names(message);
        if !message.contains(" from ") || q.len() < 2 {
            return None;
        }
        (clean_type(q[0]), clean_type(q[1]))
    };
    let how = match (from.as_str(), to.as_str()) {
        ("__half2", "__half") => "a `__half2` holds two halves and a `__half` one: take the one you mean with `__low2half(v)` or `__high2half(v)` (or store the pair through a `__half2*`)",
        ("__half", "__half2") => "a `__half2` holds two halves: make one from a single `__half` with `__half2half2(h)` (both halves the same) or from two with `__halves2half2(lo, hi)`",
        ("float", "__half2") | ("double", "__half2") => "a `__half2` holds two halves: make one from floats with `__floats2half2_rn(a, b)`, or `__float2half2_rn(f)` for the same value twice",
        ("float2", "__half2") => "convert a `float2` to a `__half2` with `__float22half2_rn(f2)`",
        ("__half2", "float") | ("__half2", "double") => "a `__half2` holds two halves: take one as a float with `__low2float(v)` or `__high2float(v)`, or both with `__half22float2(v)` (a `float2`)",
        ("__half2", "float2") => "convert a `__half2` to a `float2` with `__half22float2(v)`",
        ("__half", "float") | ("__half", "int") | ("__half", "double") => "convert a `__half` with `__half2float(h)` (to `float`) first",
        ("float", "__half") | ("int", "__half") | ("double", "__half") => "convert to a `__half` with `__float2half(f)` (round to nearest: `__float2half_rn(f)`)",
        _ => return None,
    };
    Some(format!("hint: `{from}` where a `{to}` is wanted: {how}"))
}

/// A scalar half intrinsic given pairs, or a paired one given scalars:
/// `no instance of overloaded function "__hadd" matches the argument list` with
/// `argument types are: (__half2, __half2)`.
fn half_intrinsic(message: &str) -> Option<String> {
    let name = *quoted_names(message).first()?;
    if !name.starts_with("__h") {
        return None;
    }
    let args = after(message, "argument types are:")?;
    let types: Vec<String> = args
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(',')
        .map(clean_type)
        .collect();
    let pairs = types.iter().any(|t| t == "__half2");
    let singles = types.iter().any(|t| t == "__half");
    if let Some(scalar) = name.strip_suffix('2').filter(|_| singles && !pairs) {
        return Some(format!(
            "hint: `{name}` works on `__half2` pairs; for single `__half` values use `{scalar}`"
        ));
    }
    if pairs && !singles && !name.ends_with('2') {
        return Some(format!(
            "hint: `{name}` works on single `__half` values; for `__half2` pairs use `{name}2`"
        ));
    }
    None
}

/// The text after `label` up to the end of its line.
fn after<'t>(message: &'t str, label: &str) -> Option<&'t str> {
    let rest = &message[message.find(label)? + label.len()..];
    Some(rest.lines().next().unwrap_or(rest).trim())
}

/// The strings NVRTC quotes in `message`, in order.
fn quoted_names(message: &str) -> Vec<&str> {
    message.split('"').skip(1).step_by(2).collect()
}

/// `const __half2 &` → `__half2`.
fn clean_type(t: &str) -> String {
    t.split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "&" | "&&"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('&')
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hopper_features_name_the_option_and_the_key() {
        let f = fix(
            "__cluster_dims__ is not supported for this GPU architecture",
            Some("compute_80"),
        )
        .unwrap();
        assert!(f.contains("`__cluster_dims__` needs a Hopper GPU"), "{f}");
        assert!(f.contains("compiled for sm_80"), "{f}");
        assert!(
            f.contains("--arch sm_90") && f.contains("`arch` key"),
            "{f}"
        );
        let g = fix(
            "namespace \"cooperative_groups\" has no member \"this_cluster\"",
            Some("sm_86"),
        )
        .unwrap();
        assert!(g.contains("`this_cluster` needs a Hopper GPU"), "{g}");
        assert!(g.contains("compiled for sm_86"), "{g}");
        // On sm_90 the name is missing for another reason: no arch advice.
        assert_eq!(
            fix(
                "namespace \"cooperative_groups\" has no member \"this_cluster\"",
                Some("sm_90")
            ),
            None
        );
        assert_eq!(fix("identifier \"x\" is undefined", Some("sm_80")), None);
    }

    #[test]
    fn half_mismatches_name_the_conversion() {
        let f = fix(
            "no operator \"=\" matches these operands\noperand types are: __half = __half2",
            None,
        )
        .unwrap();
        assert!(
            f.contains("`__low2half(v)`") && f.contains("`__high2half(v)`"),
            "{f}"
        );
        let g = fix(
            "no suitable conversion function from \"const __half2\" to \"float\" exists",
            None,
        )
        .unwrap();
        assert!(
            g.starts_with("hint: `__half2` where a `float` is wanted"),
            "{g}"
        );
        assert!(g.contains("__low2float"), "{g}");
        let h = fix(
            "no suitable constructor exists to convert from \"float\" to \"__half2\"",
            None,
        )
        .unwrap();
        assert!(h.contains("__floats2half2_rn"), "{h}");
        assert_eq!(
            fix(
                "no suitable conversion function from \"A\" to \"B\" exists",
                None
            ),
            None
        );
    }

    #[test]
    fn half_intrinsics_name_their_pair() {
        let f = fix(
            "no instance of overloaded function \"__hmul\" matches the argument list\nargument types are: (__half2, __half2)",
            None,
        )
        .unwrap();
        assert!(f.contains("use `__hmul2`"), "{f}");
        let g = fix(
            "no instance of overloaded function \"__hfma2\" matches the argument list\nargument types are: (__half, __half, const __half)",
            None,
        )
        .unwrap();
        assert!(g.contains("use `__hfma`"), "{g}");
    }

    #[test]
    fn a_host_helper_gets_device() {
        let f = fix("calling a __host__ function(\"scale(float)\") from a __global__ function(\"k\") is not allowed", None).unwrap();
        assert!(f.starts_with("hint: `scale` has no `__device__`"), "{f}");
        let g = fix("A function without execution space annotations (__host__/__device__/__global__) is considered a host function, and host functions are not allowed in JIT mode. Consider using -default-device flag", None).unwrap();
        assert!(
            g.contains("write `__device__` before this function's return type"),
            "{g}"
        );
    }

    #[test]
    fn an_undefined_function_is_named_twice_over() {
        let m = undefined_function("clamp_index");
        assert!(
            m.starts_with("`clamp_index` is declared but never defined"),
            "{m}"
        );
        assert!(m.contains("clamp_index(...)"), "{m}");
        assert!(!m.contains("limit of gpuzzle"), "{m}");
    }
}
