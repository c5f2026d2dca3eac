//! WMMA (`mma.h`) calls that broke a rule of the API: a lane of the warp missing from a
//! warp-wide call (the `if` on the thread index around it, a block that is not whole warps),
//! a leading dimension that is not a multiple of 16 bytes, a tile pointer not aligned to 32.

use super::Case;
use crate::emu::facts::{LaneState, WmmaFacts};

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
    fn a_leading_dimension_says_how_many_elements() {
        let f = WmmaFacts::LeadingDimension {
            elements: 12,
            elem_bytes: 2,
        };
        let h = help("", 1, f);
        assert!(h.contains("12 here") && h.contains("multiple of 8"), "{h}");
    }
}
