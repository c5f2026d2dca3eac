//! What fixes a performance figure over budget, read from the learner's source at the worst
//! line (the figures count a warp's accesses per source line, `emu::perf`): for bank conflicts, the shared array's real row width (a `[32][34]` tile
//! conflicts 2 ways, since 34 and 32 share the factor 2: an odd width fixes it); for sectors,
//! the index along which a warp's lanes step.

use super::eval::{self, Env};
use super::source::Source;
use crate::judge::outcome::PerfFigure;
use crate::puzzle::PerfKind;

/// The fix for `p` in the learner's words, read from the source after the preprocessor
/// (`values`: the defines and scalars; `block`: the launch's block shape, for the lanes of a
/// warp), or `None` where the source does not show the access (`general` then stands).
pub fn advice(
    p: &PerfFigure,
    source: &str,
    values: &[(String, i64)],
    block: [u32; 3],
) -> Option<String> {
    let line = p.line?;
    let src = Source::preprocessed(source, values);
    let mut env = Env::default();
    for (n, v) in src.defines().iter().chain(values) {
        env.set(n.clone(), *v);
    }
    match p.kind {
        PerfKind::BankWays => bank_advice(p, &src, line, &env),
        PerfKind::SectorsPerAccess => {
            let mut known = src.defines();
            known.extend(values.iter().cloned());
            super::coalesce::help(&src, line, &known, block)
        }
    }
}

/// What fixes `kind` over budget when `advice` cannot read the access from the source.
pub fn general(kind: PerfKind) -> &'static str {
    match kind {
        PerfKind::SectorsPerAccess => "coalesce it: consecutive threads (threadIdx.x) should read or write consecutive addresses. To transpose, stage a tile in shared memory so that both the global read and the global write run along rows.",
        PerfKind::BankWays => "lanes of a warp hit the same bank: when a warp reads a column of a 2D shared tile whose row width shares a factor with 32, make the width odd, e.g. `__shared__ float tile[32][33];` instead of `[32][32]`",
    }
}

/// Whether the statement ending at `line` is an `ldmatrix`/`stmatrix` written as inline PTX
/// (NVRTC puts a multi-line `asm` statement's location on its last line).
fn matrix_move_at(src: &Source, line: u32) -> bool {
    for l in (line.saturating_sub(4).max(1)..=line).rev() {
        let code = src.line(l);
        if code.contains("ldmatrix") || code.contains("stmatrix") {
            return true;
        }
        if l != line && code.trim_end().ends_with(';') {
            return false;
        }
    }
    false
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

fn bank_advice(p: &PerfFigure, src: &Source, line: u32, env: &Env) -> Option<String> {
    if matrix_move_at(src, line) {
        let measured = p.value.round() as i64;
        // The learner's tiles of 2-byte elements whose rows are a multiple of 128 bytes: each
        // named with its padded declaration (`sa[16][TK + 8]`).
        let padded: Vec<String> = src
            .shared_arrays()
            .into_iter()
            .filter(|(n, d)| d.len() == 2 && half_array(src, n))
            .filter(|(_, d)| eval::eval(&d[1], env).is_some_and(|w| w > 0 && (w * 2) % 128 == 0))
            .map(|(n, d)| format!("`{n}[{}][{} + 8]`", d[0].trim(), d[1].trim()))
            .collect();
        let example = if padded.is_empty() {
            "e.g. `__half tile[16][64 + 8]`".to_string()
        } else {
            format!("here {}", padded.join(" and "))
        };
        return Some(format!("ldmatrix (and stmatrix) move one 8x8 matrix at a time, eight 16-byte rows: rows a multiple of 128 bytes apart start in the same bank ({measured}-way on line {line}). Pad each row of the tile by 8 halves (16 bytes, so every row stays 16-byte aligned, as ldmatrix needs), {example}, or store each row's 16-byte chunk c at chunk `c ^ (row % 8)` and give ldmatrix the same swizzled address"));
    }
    if let Some(a) = super::interleaved::advice(src, line) {
        return Some(a);
    }
    let code = src.line(line);
    // The two-dimensional shared arrays this line touches, with their row width.
    let (name, dims) = src
        .shared_arrays()
        .into_iter()
        .filter(|(n, d)| d.len() == 2 && super::source::find_word(code, n).is_some())
        .find_map(|(n, d)| Some((n, d.clone(), eval::eval(&d[1], env)?)))
        .map(|(n, d, w)| (n, (d, w)))?;
    let (decl, width) = dims;
    let ways = gcd(width, 32);
    let measured = p.value.round() as i64;
    let rows = &decl[0];
    if ways <= 1 {
        return Some(format!("`{name}` rows are {width} words wide (odd), so a column read is conflict-free; the {measured}-way conflict on line {line} comes from another access pattern there: check which index the lanes (threadIdx.x) step along"));
    }
    let lanes = 32 / ways;
    let same = if lanes == 1 {
        "all 32 lanes land in the same bank".to_string()
    } else {
        format!("lanes {lanes} apart land in the same bank")
    };
    // A pad on the row count (`[TILE + 1][TILE]`) adds a row, and a column still sits in one
    // bank: the pad belongs on the row length.
    if let Some((base, _)) = rows
        .rsplit_once('+')
        .filter(|(_, k)| k.trim().parse::<i64>().is_ok())
    {
        return Some(format!("`{name}` is declared `[{rows}][{}]`: the `+` on the first size adds a row, but the rows stay {width} words wide, and {width} and the 32 banks share the factor {ways}, so a warp walking down a column still meets in one bank ({measured}-way on line {line}). The pad belongs on the row length: `__shared__ float {name}[{}][{}];`", decl[1], base.trim(), odd_width(&decl[1], width)));
    }
    Some(format!("`{name}` is declared `[{rows}][{}]`, so its rows are {width} words wide; {width} and the 32 banks share the factor {ways}, so when a warp walks down a column, {same} ({ways}-way{}). Make the row width odd to spread a column over all 32 banks: `__shared__ float {name}[{rows}][{}];`", decl[1], if measured == ways { String::new() } else { format!("; {measured}-way measured on line {line}") }, odd_width(&decl[1], width)))
}

/// The declared width as written, changed to the nearest odd width (`TILE + 1` for
/// `TILE + 2`, 33 for 34, `TILE + 1` for `TILE`).
fn odd_width(written: &str, width: i64) -> String {
    let t = written.trim();
    if width % 2 != 0 {
        return t.to_string();
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        return (width + 1).to_string();
    }
    if let Some((base, k)) = t.rsplit_once('+') {
        if let Ok(k) = k.trim().parse::<i64>() {
            let k = if k > 1 { k - 1 } else { k + 1 };
            return format!("{} + {k}", base.trim());
        }
    }
    format!("{t} + 1")
}

/// Whether the `__shared__` array `name` is declared with a 2-byte element type (`__half`).
fn half_array(src: &Source, name: &str) -> bool {
    (1..=src.lines()).any(|l| {
        let t = src.line(l);
        t.contains("__shared__")
            && super::source::find_word(t, name).is_some()
            && t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| super::source::type_bytes(w) == Some(2))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(value: f64, line: u32) -> PerfFigure {
        PerfFigure {
            kind: PerfKind::BankWays,
            kernel: String::new(),
            value,
            budget: Some(1),
            file: None,
            line: Some(line),
            accesses: 8,
            note: None,
            help: None,
        }
    }

    #[test]
    fn a_width_sharing_a_factor_with_32_names_its_ways_and_an_odd_width() {
        let src = "#define TILE 32\n__global__ void t(float* o) {\n    __shared__ float tile[TILE][34];\n    o[0] = tile[threadIdx.x][0];\n}\n";
        let a = advice(&figure(2.0, 4), src, &[], [32, 1, 1]).unwrap();
        assert!(a.contains("rows are 34 words wide"), "{a}");
        assert!(a.contains("2-way"), "{a}");
        assert!(a.contains("lanes 16 apart"), "{a}");
        assert!(a.contains("tile[TILE][35]"), "{a}");
        assert_eq!(odd_width("TILE + 2", 34), "TILE + 1");
        assert!(!a.contains("all 32 lanes"), "{a}");
        let src = "__global__ void t(float* o) {\n    __shared__ float tile[TILE][TILE];\n    o[0] = tile[threadIdx.x][0];\n}\n";
        let a = advice(&figure(32.0, 3), src, &[("TILE".into(), 32)], [32, 1, 1]).unwrap();
        assert!(
            a.contains("32-way") && a.contains("tile[TILE][TILE + 1]"),
            "{a}"
        );
    }

    #[test]
    fn an_ldmatrix_line_gets_padding_by_16_bytes_not_an_odd_width() {
        let src = "__global__ void t() {\n    __shared__ __half sa[16][64];\n    unsigned r, a = 0;\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\"\n                 : \"=r\"(r) : \"r\"(a));\n}\n";
        let a = advice(&figure(8.0, 5), src, &[], [32, 1, 1]).unwrap();
        assert!(a.contains("8-way") && a.contains("8 halves"), "{a}");
        assert!(a.contains("here `sa[16][64 + 8]`"), "{a}");
        assert!(!a.contains("odd"), "{a}");
        // Other names, the width a define: each tile of 128-byte rows is named, a padded one not.
        let src = "__global__ void t() {\n    __shared__ __align__(16) __half xs[8][KW];\n    __shared__ __half ys[8][KW + 8];\n    unsigned r, a = 0;\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\"\n                 : \"=r\"(r) : \"r\"(a));\n}\n";
        let a = advice(&figure(8.0, 6), src, &[("KW".into(), 128)], [32, 1, 1]).unwrap();
        assert!(
            a.contains("here `xs[8][KW + 8]`") && !a.contains("ys["),
            "{a}"
        );
        // A statement before it that ends does not make a later line an ldmatrix.
        let src = "__global__ void t(float* o) {\n    asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(r) : \"r\"(a));\n    __shared__ float tile[32][32];\n    o[0] = tile[threadIdx.x][0];\n}\n";
        let a = advice(&figure(32.0, 4), src, &[], [32, 1, 1]).unwrap();
        assert!(a.contains("tile[32][33]"), "{a}");
    }

    #[test]
    fn a_pad_on_the_row_count_moves_to_the_row_length() {
        // Another shape than the suite's: `[W + 2][W]` on a define of 64 and a read down a column.
        let src = "__global__ void t(float* o) {\n    __shared__ float grid2[W + 2][W];\n    o[0] = grid2[threadIdx.x][1];\n}\n";
        let a = advice(&figure(32.0, 3), src, &[("W".into(), 64)], [32, 1, 1]).unwrap();
        assert!(
            a.contains("adds a row") && a.contains("`__shared__ float grid2[W][W + 1];`"),
            "{a}"
        );
        // Padded on the row length already, nothing is said about the row count.
        let src = "__global__ void t(float* o) {\n    __shared__ float grid2[W + 2][W + 1];\n    o[0] = grid2[threadIdx.x][1];\n}\n";
        let a = advice(&figure(2.0, 3), src, &[("W".into(), 64)], [32, 1, 1]).unwrap();
        assert!(!a.contains("adds a row"), "{a}");
    }

    #[test]
    fn an_odd_width_says_the_conflict_comes_from_elsewhere() {
        let src = "__global__ void t(float* o) {\n    __shared__ float tile[32][33];\n    o[0] = tile[0][threadIdx.x * 2];\n}\n";
        let a = advice(&figure(2.0, 3), src, &[], [32, 1, 1]).unwrap();
        assert!(
            a.contains("conflict-free") && a.contains("another access pattern"),
            "{a}"
        );
    }
}
