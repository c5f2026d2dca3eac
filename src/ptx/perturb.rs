//! The learner's PTX with the results of some instruction kinds changed: after each such
//! instruction, one bit of its destination registers is flipped (a predicate result is
//! negated; a `dp4a` sum gets the bit's value added, which a sum of many cannot cancel), only
//! in one warp or one block where a `Gate` says so. `judge` runs a test again on this text: when no output changes, those results fed
//! nothing the kernel wrote (a `__dp4a` ANDed with a run-time 0, a shuffle multiplied by 0.0f,
//! a match ORed with all ones), so a requirement on them is not met.
//!
//! Which bit (`Flip`): `High`, one high in a float's mantissa (bit 20 of 32, 8 of 16, 49 of
//! 64), moves a float by an eighth or more of its power of two, which no rounding hides (the
//! lowest alone, one unit in the last place, `cache[i] + 10.0f` of a small whole number rounds
//! away), an integer by about a million and a mask by one lane. `Low`, the lowest bit, moves an
//! integer by 1, which survives a mask of its low bits (`& 31`) that hides the high one. A
//! result that changes no output under either feeds nothing. One bit, not both at once: two
//! flipped lanes of a ballot can leave its population count as it was. Text, not IR, so the re-run goes through the same
//! reader as the learner's kernel; `dest_registers` reads NVRTC's one-instruction-per-line form
//! (`op.types d, a, ...;`, `d|p`, `{d0, d1, ...}`), and inline assembly written that way.

/// The instruction kinds a requirement may be checked on, by the opcode's first words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Shuffle,
    Vote,
    Match,
    WarpReduce,
    Mma,
    Wmma,
    Ldmatrix,
    Dp4a,
    /// Population counts (`popc`).
    Popc,
    /// Packed half arithmetic (`add/sub/mul/fma/min/max/neg/abs` on `.f16x2`/`.bf16x2`).
    F16x2,
    /// Loads from shared memory (`ld.shared`, and `ld` of a shared window is not seen: NVRTC
    /// emits `ld.shared` for `__shared__` arrays).
    SharedLoad,
}

impl Kind {
    /// Whether the instruction whose opcode (first token, with its `.` qualifiers) is `op` is
    /// of this kind.
    fn matches(self, op: &str) -> bool {
        let has = |q: &str| op.split('.').any(|p| p == q);
        match self {
            Kind::Shuffle => op.starts_with("shfl."),
            Kind::Vote => op.starts_with("vote."),
            Kind::Match => op.starts_with("match."),
            Kind::WarpReduce => op.starts_with("redux."),
            Kind::Mma => op.starts_with("mma."),
            Kind::Wmma => op.starts_with("wmma.mma."),
            Kind::Ldmatrix => op.starts_with("ldmatrix."),
            Kind::Dp4a => op.starts_with("dp4a."),
            Kind::Popc => op.starts_with("popc."),
            Kind::F16x2 => {
                let arith = ["add", "sub", "mul", "fma", "min", "max", "neg", "abs"];
                arith.contains(&op.split('.').next().unwrap_or(""))
                    && (has("f16x2") || has("bf16x2"))
            }
            Kind::SharedLoad => op.starts_with("ld.") && has("shared"),
        }
    }
}

/// Which bit of a result is flipped (see the module's note).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flip {
    High,
    Low,
    /// A high bit of a 32-bit word's low half (bit 8: a half's mantissa), where `High` (bit
    /// 20) is in its high half: a packed `__half2` result flipped in one lane at a time.
    LowHalf,
}

/// `text` with every result of the `kinds` changed by `bit`, and how many instructions were
/// changed (0: the text has none of them, and the copy is the same).
pub fn results_of(text: &str, kinds: &[Kind], bit: Flip) -> (String, usize) {
    results_in(text, kinds, bit, Gate::All)
}

/// Registers the warp gate declares (names no NVRTC output uses).
const GATE_REGS: &str = ".reg .b32 %gpzw<4>;\n.reg .pred %gpzp<2>;";

/// Where a flip happens: everywhere, in one warp of every block (its index in the block), in
/// every thread of one block (its linear index in the grid), or in each thread's executions
/// of the instructions after its first `n` (`Late`: the later steps of a loop, where a kernel
/// that runs its technique in every step may use it only in the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    All,
    Warp(u32),
    Block(u32),
    Late(u32),
    /// Every lane but lane 0 of its warp: results a warp uses only in its first lane (a
    /// count) while the other lanes do their share without them.
    NotLane0,
}

/// The instructions that leave in `%gpzw2` the linear index of `(index.x, index.y, index.z)`
/// in a box of `extent.x` by `extent.y` (x fastest): `("tid", "ntid")` gives a thread's index in
/// its block, `("ctaid", "nctaid")` a block's in the grid.
fn linear_index(index: &str, extent: &str) -> String {
    format!(
        "mov.u32 %gpzw0, %{extent}.x;\nmov.u32 %gpzw1, %{extent}.y;\nmul.lo.u32 %gpzw1, %gpzw0, %gpzw1;\nmov.u32 %gpzw2, %{index}.z;\nmov.u32 %gpzw3, %{index}.y;\nmul.lo.u32 %gpzw2, %gpzw2, %gpzw1;\nmad.lo.u32 %gpzw2, %gpzw3, %gpzw0, %gpzw2;\nmov.u32 %gpzw3, %{index}.x;\nadd.u32 %gpzw2, %gpzw2, %gpzw3;\n"
    )
}

/// The instructions, at the start of a function body, that set `%gpzp0` in the threads the
/// gate picks: warp `w` of each block (the block's linear thread index over 32), block `b`
/// (x, then y, then z, as the grid numbers blocks), every lane but 0; for `Late`, the count
/// its flips test.
fn gate_code(gate: Gate) -> String {
    let (pick, test) = match gate {
        Gate::Warp(w) => (
            linear_index("tid", "ntid"),
            format!("shr.u32 %gpzw2, %gpzw2, 5;\nsetp.eq.u32 %gpzp0, %gpzw2, {w};\n"),
        ),
        Gate::Block(b) => (
            linear_index("ctaid", "nctaid"),
            format!("setp.eq.u32 %gpzp0, %gpzw2, {b};\n"),
        ),
        Gate::NotLane0 => (
            linear_index("tid", "ntid"),
            "and.b32 %gpzw2, %gpzw2, 31;\nsetp.ne.u32 %gpzp0, %gpzw2, 0;\n".to_string(),
        ),
        // A count of the thread's executions of the chosen instructions, from 0.
        Gate::Late(_) => (
            String::new(),
            ".reg .b32 %gpzc;\nmov.u32 %gpzc, 0;\n".to_string(),
        ),
        Gate::All => return String::new(),
    };
    format!("{GATE_REGS}\n{pick}{test}")
}

/// `results_of`, changing the results only where `gate` says: a result some warps (or blocks)
/// use and others compute only to be counted is found warp by warp (block by block). A `Late`
/// gate counts executions per call of a function: with a chosen instruction in a `.func` (not
/// inlined), whose count starts over at each call, the text is left unchanged (0 changed: no
/// verdict), rather than flip nothing and claim the results feed nothing.
pub fn results_in(text: &str, kinds: &[Kind], bit: Flip, gate: Gate) -> (String, usize) {
    let gated = gate != Gate::All;
    let mut out = String::with_capacity(text.len() + 1024);
    let mut changed = 0;
    // Brace depth outside function bodies is 0: a `{` line there opens a body, where the
    // gate goes first.
    let mut depth = 0usize;
    let mut in_func = false;
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        let body = line.trim();
        if depth == 0 && (body.contains(".entry") || body.contains(".func")) {
            in_func = !body.contains(".entry");
        }
        if gated {
            if body == "{" && depth == 0 {
                out.push_str(&gate_code(gate));
            }
            depth += body.matches('{').count();
            depth = depth.saturating_sub(body.matches('}').count());
        }
        // A predicated instruction (`@%p1 shfl...`) changes its result only where it ran: the
        // flip takes the same guard.
        let (guard, body) = match body.strip_prefix('@') {
            Some(rest) => match rest.split_once(char::is_whitespace) {
                Some((p, after)) => (format!("@{p} "), after.trim_start()),
                None => continue,
            },
            None => (String::new(), body),
        };
        // The headers' inline assembly opens a brace block on the instruction's own line
        // (`{fma.rn.f16x2 %r14,%r5,%r11,%r13;` in cuda_fp16.h): the flip goes inside it.
        let body = body.trim_start_matches('{').trim_start();
        let Some((op, operands)) = body.split_once(char::is_whitespace) else {
            continue;
        };
        if !kinds.iter().any(|k| k.matches(op)) {
            continue;
        }
        let dests = dest_registers(operands);
        if dests.is_empty() {
            continue;
        }
        changed += 1;
        if let Gate::Late(n) = gate {
            if in_func {
                return (text.to_string(), 0);
            }
            // Count this execution (where it runs), then open the gate past the first `n`.
            out.push_str(&format!(
                "\t{guard}add.u32 %gpzc, %gpzc, 1;\n\tsetp.gt.u32 %gpzp0, %gpzc, {n};\n"
            ));
        }
        // Only where the gate picks: the gate, and the instruction's own guard with it.
        let guard = match (gated, guard.is_empty()) {
            (false, _) => guard,
            (true, true) => "@%gpzp0 ".to_string(),
            (true, false) => {
                let own = guard.trim().trim_start_matches('@');
                let (neg, own) = match own.strip_prefix('!') {
                    Some(p) => ("!", p),
                    None => ("", own),
                };
                let mut both = format!("\tand.pred %gpzp1, %gpzp0, {own};\n");
                if !neg.is_empty() {
                    both =
                        format!("\tnot.pred %gpzp1, {own};\n\tand.pred %gpzp1, %gpzp0, %gpzp1;\n");
                }
                out.push_str(&both);
                "@%gpzp1 ".to_string()
            }
        };
        for d in dests {
            // A dot product's integer sum gets the bit added, not flipped: a flip adds to some
            // results and takes from others, which a sum of them can cancel exactly.
            let change = if op.starts_with("dp4a.") {
                add(&d, bit)
            } else if op.starts_with("mma.") || op.starts_with("wmma.mma.") {
                scale(&d, bit)
            } else {
                flip(&d, bit)
            };
            out.push_str(&format!("\t{guard}{change}\n"));
        }
    }
    (out, changed)
}

/// The registers the instruction writes: its first operand, a register, a `{...}` list of
/// them, or `d|p` (the first only: `p` is a shuffle's in-range flag).
fn dest_registers(operands: &str) -> Vec<String> {
    let operands = operands.trim_start();
    let first = if let Some(rest) = operands.strip_prefix('{') {
        match rest.split_once('}') {
            Some((list, _)) => list,
            None => return Vec::new(),
        }
    } else {
        operands.split(',').next().unwrap_or("")
    };
    first
        .split(',')
        .map(|r| {
            r.split('|')
                .next()
                .unwrap_or("")
                .trim()
                .trim_end_matches(';')
        })
        .filter(|r| r.starts_with('%') && r.len() > 1)
        .map(str::to_string)
        .collect()
}

/// The instruction that flips `bit` of register `r`, by the width NVRTC's register names give
/// (`%p` predicates, `%rd`/`%fd` 64 bits, `%rs`/`%h` 16 bits, else 32).
/// The instruction that scales float register `r` by 1 + 2^-3 (`High`) or 1 + 2^-23 (`Low`):
/// a tensor-core accumulator carried through steps whose products are 0 (a zero-padded tile)
/// keeps a scale, where two flips of one bit would undo each other (`flip` for others).
fn scale(r: &str, bit: Flip) -> String {
    let name = r.trim_start_matches('%');
    if !name.starts_with('f') || name.starts_with("fd") {
        return flip(r, bit);
    }
    let by = match bit {
        Flip::Low => "0f3F800001",
        _ => "0f3F900000",
    };
    format!("mul.f32 {r}, {r}, {by};")
}

/// The instruction that adds `bit`'s value to 32-bit integer register `r` (`flip` for others).
fn add(r: &str, bit: Flip) -> String {
    let name = r.trim_start_matches('%');
    if !name.starts_with('r') || name.starts_with("rd") || name.starts_with("rs") {
        return flip(r, bit);
    }
    let v = match bit {
        Flip::High => 1u32 << 20,
        Flip::Low => 1,
        Flip::LowHalf => 1 << 8,
    };
    format!("add.s32 {r}, {r}, {v};")
}

fn flip(r: &str, bit: Flip) -> String {
    let name = r.trim_start_matches('%');
    let prefix: String = name
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let pick = |high: u64| match bit {
        Flip::High => high,
        Flip::Low => 1,
        Flip::LowHalf => 1 << 8,
    };
    match prefix.as_str() {
        "p" => format!("not.pred {r}, {r};"),
        "rd" | "fd" => format!("xor.b64 {r}, {r}, {};", pick(1u64 << 49)),
        "rs" | "h" => format!("xor.b16 {r}, {r}, {};", pick(1 << 8)),
        _ => format!("xor.b32 {r}, {r}, {};", pick(1 << 20)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// (An mma's float accumulators are scaled instead: see `scale`.)
    fn each_result_of_a_chosen_kind_gets_its_lowest_bit_flipped() {
        let ptx = "\tshfl.sync.down.b32 \t%r10|%p1, %r5, %r7, %r8, %r9;\n\tadd.s32 %r11, %r10, 1;\n\tdp4a.s32.s32 %r12, %r4, %r5, %r14;\n\t@%p2 vote.sync.any.pred %p3, %p4, -1;\n\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};\n";
        let (out, n) = results_of(ptx, &[Kind::Shuffle, Kind::Vote, Kind::Mma], Flip::High);
        assert_eq!(n, 3);
        let lines: Vec<&str> = out.lines().map(str::trim).collect();
        assert_eq!(lines[1], "xor.b32 %r10, %r10, 1048576;");
        assert_eq!(lines[2], "add.s32 %r11, %r10, 1;");
        // dp4a was not chosen.
        assert_eq!(lines[4], "@%p2 vote.sync.any.pred %p3, %p4, -1;");
        assert_eq!(lines[5], "@%p2 not.pred %p3, %p3;");
        assert_eq!(
            lines[7..11],
            [
                "mul.f32 %f1, %f1, 0f3F900000;",
                "mul.f32 %f2, %f2, 0f3F900000;",
                "mul.f32 %f3, %f3, 0f3F900000;",
                "mul.f32 %f4, %f4, 0f3F900000;"
            ]
        );
        assert_eq!(out.lines().count(), 11);
        let (same, none) = results_of(ptx, &[Kind::Ldmatrix], Flip::High);
        assert_eq!((same.as_str(), none), (ptx, 0));
    }

    /// In one warp: each function body starts with the gate, and each flip takes it, ANDed
    /// with the instruction's own guard (negated where the guard is).
    #[test]
    fn a_warp_alone_gets_its_results_flipped_behind_a_gate() {
        let ptx = ".visible .entry k(\n.param .u64 p\n)\n{\n.reg .b32 %r<9>;\n.reg .pred %p<3>;\n\tshfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n\t@!%p2 dp4a.s32.s32 %r3, %r4, %r5, %r6;\n\t{\n\t.reg .pred %p1;\n\t}\n\tret;\n}\n";
        let (out, n) = results_in(ptx, &[Kind::Shuffle, Kind::Dp4a], Flip::High, Gate::Warp(3));
        assert_eq!(n, 2);
        // One gate, at the body's start, not in the inner brace block.
        assert_eq!(out.matches("setp.eq.u32 %gpzp0, %gpzw2, 3;").count(), 1);
        let body = out.split_once("{\n").expect("a body").1;
        assert!(body.starts_with(".reg .b32 %gpzw<4>;"), "{out}");
        assert!(
            out.contains("\t@%gpzp0 xor.b32 %r1, %r1, 1048576;"),
            "{out}"
        );
        assert!(out.contains("\tnot.pred %gpzp1, %p2;\n\tand.pred %gpzp1, %gpzp0, %gpzp1;\n\t@%gpzp1 add.s32 %r3, %r3, 1048576;"), "{out}");
        // The text still reads.
        crate::ptx::parse(&out).expect("the gated text parses");
        let (all, _) = results_in(ptx, &[Kind::Shuffle], Flip::Low, Gate::All);
        assert!(!all.contains("gpzp"), "{all}");
        // Late: each execution counted (under its own guard), the flip past the first 2.
        let (late, _) = results_in(ptx, &[Kind::Shuffle], Flip::High, Gate::Late(2));
        assert!(late.contains("mov.u32 %gpzc, 0;"), "{late}");
        assert!(late.contains("\tadd.u32 %gpzc, %gpzc, 1;\n\tsetp.gt.u32 %gpzp0, %gpzc, 2;\n\t@%gpzp0 xor.b32 %r1, %r1, 1048576;"), "{late}");
        crate::ptx::parse(&late).expect("the late-gated text parses");
        let (lanes, _) = results_in(ptx, &[Kind::Shuffle], Flip::High, Gate::NotLane0);
        assert!(lanes.contains("and.b32 %gpzw2, %gpzw2, 31;\nsetp.ne.u32 %gpzp0, %gpzw2, 0;"));
        crate::ptx::parse(&lanes).expect("the lane-gated text parses");
        let (block, _) = results_in(ptx, &[Kind::Shuffle], Flip::High, Gate::Block(2));
        assert!(block.contains("%ctaid.x") && block.contains("setp.eq.u32 %gpzp0, %gpzw2, 2;"));
        crate::ptx::parse(&block).expect("the block-gated text parses");
    }

    #[test]
    fn kinds_are_told_by_their_opcode() {
        assert!(Kind::F16x2.matches("fma.rn.f16x2"));
        assert!(Kind::F16x2.matches("add.rn.bf16x2"));
        assert!(!Kind::F16x2.matches("cvt.rn.f16x2.f32"));
        assert!(!Kind::F16x2.matches("fma.rn.f16"));
        assert!(Kind::SharedLoad.matches("ld.shared.v4.f32"));
        // cuda_fp16.h's inline assembly: the brace block opens on the instruction's line.
        let (out, n) = results_of(
            "\t{fma.rn.f16x2 %r14,%r5,%r11,%r13;\n}\n",
            &[Kind::F16x2],
            Flip::High,
        );
        assert_eq!(n, 1);
        assert!(out.contains("xor.b32 %r14, %r14, 1048576;"), "{out}");
        assert!(!Kind::SharedLoad.matches("ld.global.f32"));
        assert!(Kind::Wmma.matches("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32"));
        assert!(!Kind::Wmma.matches("wmma.load.a.sync.aligned.row.m16n16k16.global.f16"));
        assert_eq!(
            flip("%rd4", Flip::High),
            "xor.b64 %rd4, %rd4, 562949953421312;"
        );
        assert_eq!(flip("%rd4", Flip::Low), "xor.b64 %rd4, %rd4, 1;");
        assert_eq!(flip("%r4", Flip::Low), "xor.b32 %r4, %r4, 1;");
        assert_eq!(flip("%r4", Flip::LowHalf), "xor.b32 %r4, %r4, 256;");
        // A dot product's result is added to, so a sum of them cannot cancel the change.
        let (dp, _) = results_of(
            "\tdp4a.s32.s32 %r12, %r4, %r5, %r14;\n",
            &[Kind::Dp4a],
            Flip::Low,
        );
        assert!(dp.contains("add.s32 %r12, %r12, 1;"), "{dp}");
        assert_eq!(flip("%rs2", Flip::High), "xor.b16 %rs2, %rs2, 256;");
        assert_eq!(dest_registers(" {%r1,%r2}, [%r5];"), ["%r1", "%r2"]);
    }
}
