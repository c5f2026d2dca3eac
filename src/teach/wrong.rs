//! The rules that explain a wrong output from the source: one dispatcher, each rule in its own
//! module. A rule speaks only where its premise holds twice over: the source (as compiled,
//! `Source::preprocessed`) shows the cause, and the difference fits it (which elements are
//! wrong, what they hold). Every rule that holds is said, the root causes in the order below;
//! none holds: `None`, and the pattern and the puzzle's hint speak alone.
//!
//! - `fill`: a padding that is not the neutral value of what reads it (0 for a maximum or a
//!   sort);
//! - `loop_range`: a loop whose start or bound drops the first or last element it sums;
//! - `window`: a neighbour's guard on the block's own index, or one off by one;
//! - `tree`: a tree that starts below half the block, or a block that covers twice its
//!   threads' elements and reads one each;
//! - `block_writer`: one thread of the grid (`i == 0`, global) where one of each block is meant;
//! - `ping_pong`: a double buffer read and written at fixed sides, never swapped;
//! - `tile_load`: a tile filled from a read that does not depend on the tile's column;
//! - `ballot_rank`: a rank that counts the lanes above instead of below;
//! - `warp_writer`: one thread of a block of several warps hands on one warp's folded total;
//! - `unread_tree`: a tree over a `__shared__` array whose total is never read back;
//! - `half_swap`: an exchange of two shared elements that stores only one side;
//! - `rescale`: a running sum left out of the rescale its loop gives the other running values;
//! - `butterfly`: a warp fold by shuffles that starts below 16;
//! - `whole_tiles`: a tile loop over whole tiles only, whose body pads a partial one;
//! - `tile_pairs`: blocks that take two tiles each but start one tile apart;
//! - `unread_shared`: a `__shared__` array filled, never read, while the output gets a constant;
//! - `reset_in_loop`: an accumulator reset inside the loop that adds into it;
//! - `repeated_arg`: a call with one name twice where a sibling call passes two;
//! - `short_step`: a loop over whole steps whose condition `v + S < B` skips the last one;
//! - `block_step`: a loop from a grid-wide index that steps by one block's width;
//! - `after_swap`: a double buffer read after its loop on the side the last swap left behind;
//! - `same_rescale`: two running sums merged with one maximum's factor for both;
//! - `last_merge`: a merge network whose doubling loop stops before the whole tile;
//! - `mean_divisor`: a mean divided by the threads that share a loop, not its element count;
//! - `scan_total`: a block's total taken from thread 0 after an inclusive scan;
//! - `tile_transposed`: the second tile of a tiled product read with the thread's column as its row;
//! - `pair_overlap`: registers of packed pairs stepped by one element, so they overlap.

use super::source::{closing, find_word, Source};
use super::Scene;
use crate::judge::outcome::OutputCompare;
use crate::judge::pattern::OutputPattern;

/// What a rule reads: the source as compiled, the launch, and the wrong output.
pub struct Seen<'a> {
    pub src: &'a Source,
    pub scene: &'a Scene<'a>,
    /// The output's name, as the kernel's parameter is called.
    pub name: &'a str,
    pub expected: &'a [f64],
    pub got: &'a [f64],
    pub mismatches: &'a [usize],
    pub pattern: Option<&'a OutputPattern>,
}

impl Seen<'_> {
    /// Threads per block along x (the elements a block covers in a 1D launch).
    pub fn block_x(&self) -> usize {
        self.scene.block[0] as usize
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.scene.grid.iter().map(|&d| d as u64).product()
    }

    /// Threads in one block.
    pub fn threads(&self) -> u64 {
        self.scene.block.iter().map(|&d| d as u64).product()
    }

    /// An environment with the defines, integer scalars and the launch's shape.
    pub fn env(&self) -> super::eval::Env {
        let mut env = super::eval::Env::default();
        for (axis, (b, g)) in ["x", "y", "z"]
            .iter()
            .zip(self.scene.block.iter().zip(&self.scene.grid))
        {
            env.set(format!("blockDim.{axis}"), *b as i64);
            env.set(format!("gridDim.{axis}"), *g as i64);
        }
        for (n, v) in &self.scene.values {
            env.set(n.clone(), *v);
        }
        for (n, v) in self.src.defines() {
            env.set(n, v);
        }
        env
    }
}

/// The help for output `name` that the source explains, or `None`. Only for a clean run whose
/// every element was written: elements never written, or values gone to inf or NaN, have their
/// own words, and after an error the values may be the error's doing.
pub fn explain(scene: &Scene, name: &str, o: &OutputCompare, after_error: bool) -> Option<String> {
    if after_error
        || o.mismatches.is_empty()
        || matches!(
            o.pattern,
            Some(OutputPattern::Unwritten { .. } | OutputPattern::NonFinite { .. })
        )
    {
        return None;
    }
    let src = Source::preprocessed(scene.source, &scene.values);
    let seen = Seen {
        src: &src,
        scene,
        name,
        expected: &o.expected,
        got: &o.got,
        mismatches: &o.mismatches,
        pattern: o.pattern.as_ref(),
    };
    let rules: [fn(&Seen) -> Option<String>; 27] = [
        super::fill::explain,
        super::loop_range::explain,
        super::window::explain,
        super::tree::explain,
        super::block_writer::explain,
        super::ping_pong::explain,
        super::tile_load::explain,
        super::ballot_rank::explain,
        super::warp_writer::explain,
        super::unread_tree::explain,
        super::half_swap::explain,
        super::rescale::explain,
        super::butterfly::explain,
        super::whole_tiles::explain,
        super::tile_pairs::explain,
        super::unread_shared::explain,
        super::reset_in_loop::explain,
        super::repeated_arg::explain,
        super::short_step::explain,
        super::block_step::explain,
        super::after_swap::explain,
        super::same_rescale::explain,
        super::last_merge::explain,
        super::mean_divisor::explain,
        super::scan_total::explain,
        super::tile_transposed::explain,
        super::pair_overlap::explain,
    ];
    let said: Vec<String> = rules.iter().filter_map(|r| r(&seen)).collect();
    (!said.is_empty()).then(|| said.join("\n"))
}

/// The statements of the source, each with its line (a `for` header's parts are not split).
pub fn statements(src: &Source) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for l in 1..=src.lines() {
        let code = src.line(l);
        if find_word(code, "for").is_some() {
            out.push((l, code.to_string()));
            continue;
        }
        out.extend(
            code.split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| (l, s.to_string())),
        );
    }
    out
}

/// Every `name[...]` indexed on a line (the first subscript of each), in order.
pub fn indexed(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, ch) in code.char_indices() {
        if ch != '[' {
            continue;
        }
        let before = code[..i].trim_end();
        // A second dimension (`tile[1][tx]`) belongs to the first.
        if before.ends_with(']') {
            continue;
        }
        let name = before
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let mut depth = 0;
        for (j, c) in code[i..].char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((name.to_string(), code[i + 1..i + j].trim().to_string()));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The names that mean thread `axis`'s index in its block (`threadIdx.x`, and the locals set
/// to it before line `n`: `int local_i = threadIdx.x;`).
pub fn thread_names(src: &Source, n: u32, axis: char) -> Vec<String> {
    let own = format!("threadIdx.{axis}");
    let mut out = src.locals_named_for(n, &own);
    out.push(own);
    out
}

/// Whether `name` is a global index before line `n`: a local whose value uses `blockIdx`.
pub fn is_global_index(src: &Source, n: u32, name: &str) -> Option<String> {
    src.definition(n, name)
        .map(|(_, v)| v)
        .filter(|v| v.contains("blockIdx"))
}

/// Whether some line names both `name` (the output) and `what` (the value a rule blames): the
/// output is made from it (`out[row] = sum;`, `atomicAdd(&out[0], cache[0]);`). A rule about
/// a value says nothing for an output the value never reaches.
pub fn reaches(src: &Source, name: &str, what: &str) -> bool {
    (1..=src.lines()).any(|l| {
        let code = src.line(l);
        find_word(code, name).is_some() && find_word(code, what).is_some()
    })
}

/// Whether line `l` is inside a loop's body (a `for` or `while` above it whose body holds it).
pub fn in_loop(src: &Source, l: u32) -> Option<u32> {
    let start = src.function_of(l).map_or(1, |f| f.0);
    (start..l).rev().find(|&h| {
        src.loop_header(h).is_some_and(|lh| lh.line == h) && src.loop_body(h).contains(&l)
    })
}

/// The lines of the body of the loop whose header is on line `h`, each with its code; the
/// header's own line counts with what follows its `)` (`for (..) sum += a[k];`).
pub fn loop_body_code(src: &Source, h: u32) -> Vec<(u32, String)> {
    src.loop_body(h)
        .filter_map(|l| {
            let code = src.line(l);
            if l != h {
                return Some((l, code.to_string()));
            }
            let at = ["for", "while"].iter().find_map(|k| find_word(code, k))?;
            let open = at + code[at..].find('(')?;
            let close = closing(code, open)?;
            let rest = code[close + 1..].trim();
            (!rest.is_empty()).then(|| (l, rest.to_string()))
        })
        .collect()
}

/// The names an expression depends on, through the locals declared before line `n` (two
/// levels: `col` is `blockIdx.x * TPB + tx`, `tx` is `threadIdx.x`).
pub fn depends_on(src: &Source, n: u32, expr: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut todo: Vec<(String, u32)> = super::eval::names(expr)
        .into_iter()
        .map(|x| (x, 0))
        .collect();
    while let Some((x, depth)) = todo.pop() {
        if out.contains(&x) {
            continue;
        }
        if depth < 3 {
            if let Some((_, v)) = src.definition(n, &x) {
                todo.extend(super::eval::names(&v).into_iter().map(|y| (y, depth + 1)));
            }
        }
        out.push(x);
    }
    out
}

/// An integer or float literal's value (`0`, `0.0f`, `-1`, `3u`).
pub fn literal(text: &str) -> Option<f64> {
    let t = text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let t = t.trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L']);
    t.parse::<f64>().ok()
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A scene for a rule's unit test.
    pub fn scene<'a>(source: &'a str, grid: [u32; 3], block: [u32; 3]) -> Scene<'a> {
        Scene {
            source,
            file_name: "k.cu",
            module: None,
            grid,
            block,
            values: Vec::new(),
            shapes: Vec::new(),
            cooperative: false,
        }
    }

    /// The rule `rule` on `source` with these outputs (the mismatches computed exactly).
    pub fn said(
        rule: fn(&Seen) -> Option<String>,
        scene: &Scene,
        name: &str,
        expected: &[f64],
        got: &[f64],
    ) -> Option<String> {
        let src = Source::preprocessed(scene.source, &scene.values);
        let mismatches: Vec<usize> = (0..expected.len())
            .filter(|&i| expected[i] != got[i])
            .collect();
        let pattern = crate::judge::pattern::find(
            expected,
            got,
            &mismatches,
            &[],
            None,
            0,
            &crate::puzzle::Tolerance { abs: 0.0, rel: 0.0 },
        );
        let seen = Seen {
            src: &src,
            scene,
            name,
            expected,
            got,
            mismatches: &mismatches,
            pattern: pattern.as_ref(),
        };
        let text = rule(&seen);
        if let Some(t) = &text {
            assert!(
                !t.contains("``") && !t.contains("{}") && !t.contains("[]"),
                "{t}"
            );
        }
        text
    }

    #[test]
    fn helpers_read_the_source() {
        let src = Source::new("__global__ void k(float* o, const float* a) {\n    __shared__ float tile[4][8];\n    __shared__ int bins[32];\n    int tx = threadIdx.x;\n    int col = blockIdx.x * 8 + tx;\n    o[col] = tile[1][tx] + a[col * 2];\n}\n");
        assert_eq!(src.shared_names(), ["tile", "bins"]);
        assert_eq!(
            indexed(src.line(6)),
            [
                ("o".to_string(), "col".to_string()),
                ("tile".to_string(), "1".to_string()),
                ("a".to_string(), "col * 2".to_string())
            ]
        );
        assert_eq!(thread_names(&src, 6, 'x'), ["tx", "threadIdx.x"]);
        assert!(is_global_index(&src, 6, "col").is_some());
        assert!(is_global_index(&src, 6, "tx").is_none());
        assert!(depends_on(&src, 6, "col + 1").contains(&"threadIdx.x".to_string()));
        assert_eq!(literal("0.0f"), Some(0.0));
        assert_eq!(literal("-1"), Some(-1.0));
        assert_eq!(literal("x"), None);
    }
}
