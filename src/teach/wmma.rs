//! WMMA (`mma.h`) calls that broke a rule of the API: a lane of the warp missing from a
//! warp-wide call (the `if` on the thread index around it, a block that is not whole warps),
//! a leading dimension that is not a multiple of 16 bytes, a tile pointer not aligned to 32.

use super::{eval, index, Case};
use crate::emu::facts::{Facts, LaneState, WmmaFacts};

/// An element out of bounds on a line that loads or stores a fragment: the tile's rows
/// (`ldm` apart) or its pointer went past the matrix. Names the matrix's row length when
/// the buffer is a matrix of known shape and `ldm` is something else.
pub fn bounds_help(c: &Case) -> Option<String> {
    let Facts::Bounds {
        element: Some(e),
        misaligned_to: None,
        ..
    } = &c.d.facts
    else {
        return None;
    };
    let code = c.code();
    let (call, load) = if code.contains("load_matrix_sync") {
        ("load_matrix_sync", true)
    } else if code.contains("store_matrix_sync") {
        ("store_matrix_sync", false)
    } else {
        return None;
    };
    let args = call_args(code, call)?;
    let (ptr, ldm) = (args.get(if load { 1 } else { 0 })?, args.get(2)?);
    let short = e.name.rsplit("::").next().unwrap_or(&e.name);
    let verb = if load { "reads" } else { "writes" };
    let what = format!(
        "{call} {verb} a whole tile from `{ptr}` on, its rows (or columns) `{ldm}` elements apart, and reached {short}[{}] of {}",
        e.index, e.len
    );
    let width = c
        .scene
        .shapes
        .iter()
        .find(|(n, _)| n == short)
        .map(|(_, [_, cols])| *cols as i64);
    let env = c.env();
    let ldm_value = eval::eval(ldm, &env);
    if let (Some(cols), Some(v)) = (width, ldm_value) {
        if cols != v {
            // The row length as the pointer's own `row * length` writes it, else a name of
            // that value.
            let offset = ptr
                .strip_prefix(short)
                .map_or(ptr.as_str(), |r| r.trim_start().trim_start_matches('+'));
            let name = eval::row_major(offset.trim())
                .map(|(_, stride, _)| stride)
                .filter(|s| eval::eval(s, &env) == Some(cols))
                .unwrap_or_else(|| index::name_of_near(c, cols, ptr));
            return Some(format!(
                "{what}: ldm is the row length of the matrix in memory, and {short}'s rows are {cols} elements long (`{name}`), not {v}: pass `{name}` as ldm, and point at the tile's first element (its row times `{name}` plus its column)"
            ));
        }
    }
    Some(format!(
        "{what}: check ldm, the row length of the matrix {short} as it lies in memory (its number of columns when stored row by row), and that the pointer is the tile's first element (its row times ldm plus its column) with the whole 16 x 16 tile inside the matrix"
    ))
}

/// The top-level arguments of the first call to `name` on `code` (trimmed).
fn call_args(code: &str, name: &str) -> Option<Vec<String>> {
    let rest = &code[code.find(name)? + name.len()..];
    let rest = rest.trim_start().strip_prefix('(')?;
    let (mut depth, mut args, mut cur) = (0i32, Vec::new(), String::new());
    for ch in rest.chars() {
        match ch {
            '(' | '[' | '<' => depth += 1,
            ')' if depth == 0 => {
                args.push(cur.trim().to_string());
                return Some(args);
            }
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    None
}

pub fn help(c: &Case, f: &WmmaFacts) -> String {
    match f {
        WmmaFacts::LaneMissing { threads, .. } if *threads < 32 => format!(
            "a fragment belongs to a whole warp, and this warp has {threads} threads: make the block a multiple of 32 threads (a warp per tile) and give lanes without work of their own nothing else to do, but let them call the wmma functions with the others"
        ),
        WmmaFacts::LaneMissing {
            lane, lane_state, ..
        } => {
            let guard = c
                .line
                .and_then(|l| c.src.guards(l).into_iter().find(|g| !g.returns));
            if let Some(g) = guard {
                return format!(
                    "the call is inside `if ({})` (line {}), which lane {lane} does not enter: every wmma call is made by all 32 lanes of the warp together, so a condition around it must be the same for the whole warp (on the warp's index or the tile's position, not on threadIdx.x alone)",
                    g.cond, g.line
                );
            }
            match lane_state {
                LaneState::Exited => format!("lane {lane} returned before the call: a lane without a tile of its own must still take part; guard what it would compute, not the call"),
                LaneState::AtBarrier => format!("lane {lane} waits at a __syncthreads() instead: the warp's lanes must reach each wmma call together"),
                LaneState::AtOtherWarpOp | LaneState::Elsewhere => format!("lane {lane} is at another call: the 32 lanes must make the same wmma calls in the same order; do not put them in branches that split the warp"),
            }
        }
        WmmaFacts::LeadingDimension {
            elements,
            elem_bytes,
        } => {
            let per = 16 / (*elem_bytes).max(1);
            format!(
                "the last argument of load_matrix_sync/store_matrix_sync (ldm, {elements} here) is the row length of the whole matrix in memory, in elements, and must be a multiple of {per} for this type (16 bytes): pad the rows of the matrix (or of the shared tile) to a multiple of {per}"
            )
        }
        WmmaFacts::UnsetAccumulator => "start the accumulator before the loop: `wmma::fill_fragment(acc, 0.0f);` (or load_matrix_sync it from memory when adding to an existing matrix), on every path that reaches mma_sync".to_string(),
        WmmaFacts::Pointer { .. } => "a tile must start 32 bytes aligned: with 16-bit elements, the offset of the tile's first element (row * ldm + column) must be a multiple of 16; step the tile by whole 16 x 16 tiles and keep ldm a multiple of 16".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{explain, Scene};
    use crate::emu::facts::{Facts, LaneState, WmmaFacts};
    use crate::emu::result::{DiagKind, Diagnostic, Severity};

    fn help(src: &str, line: u32, facts: WmmaFacts) -> String {
        let scene = Scene {
            source: src,
            file_name: "k.cu",
            module: None,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            values: Vec::new(),
            shapes: Vec::new(),
            cooperative: false,
        };
        let mut v = vec![Diagnostic {
            kind: DiagKind::WarpSync,
            severity: Severity::Error,
            message: String::new(),
            help: None,
            facts: Facts::Wmma(facts),
            file: Some("k.cu".into()),
            line: Some(line),
            other_line: None,
            block: [0; 3],
            thread: [0; 3],
        }];
        explain(&mut v, &scene);
        v[0].help.clone().unwrap_or_default()
    }

    #[test]
    fn a_call_inside_a_lane_guard_names_the_guard() {
        let src = "__global__ void k(float* c) {\n    if (threadIdx.x < 16) {\n        wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);\n    }\n}\n";
        let f = WmmaFacts::LaneMissing {
            lane: 16,
            lane_state: LaneState::Exited,
            threads: 32,
        };
        let h = help(src, 3, f);
        assert!(
            h.contains("`if (threadIdx.x < 16)`") && h.contains("lane 16"),
            "{h}"
        );
    }

    #[test]
    fn a_partial_warp_asks_for_whole_warps() {
        let f = WmmaFacts::LaneMissing {
            lane: 16,
            lane_state: LaneState::Exited,
            threads: 16,
        };
        let h = help("", 1, f);
        assert!(h.contains("multiple of 32"), "{h}");
    }

    #[test]
    fn call_arguments_are_split_at_the_top_level() {
        assert_eq!(
            super::call_args(
                "wmma::load_matrix_sync(a_frag, a + (r * K) + k0, min(K, N));",
                "load_matrix_sync"
            ),
            Some(vec![
                "a_frag".to_string(),
                "a + (r * K) + k0".to_string(),
                "min(K, N)".to_string()
            ])
        );
    }

    #[test]
    fn a_leading_dimension_says_how_many_elements() {
        let f = WmmaFacts::LeadingDimension {
            elements: 12,
            elem_bytes: 2,
        };
        let h = help("", 1, f);
        assert!(h.contains("12 here") && h.contains("multiple of 8"), "{h}");
    }
}
