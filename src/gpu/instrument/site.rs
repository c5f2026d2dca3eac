//! One instruction at a time: what it is to the instrumenter (a global/generic access to check, a
//! shared or constant access to count, a backward branch to meter) and the PTX that replaces it.

use super::helpers::{COUNT, FAULT, GENERIC, GLOBAL, SHARED, STEP, UNSUPPORTED};
use super::scan::{type_size, Instr, RegWidths};
use super::InstrumentError;
use crate::gpu::ctl::FaultKind;
use crate::gpu::ctl::{Access, AccessKind};
use std::collections::HashMap;

/// The state space an access resolves to at instrumentation time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    /// No space given: classified at run time with `isspacep`.
    Generic,
    Shared,
    /// `ld.const`: counted as a global read, as the emulator does, but not bounds-checked (constant
    /// memory is its own space; ptxas range-checks constant bank indices itself).
    Const,
}

/// What a skipped (illegal) access does instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fail {
    /// Stores and reductions: nothing.
    Nothing,
    /// Loads: the same load from the control block's zero area, so every destination becomes 0.
    ReloadZero,
    /// Atomics: the old-value destination becomes 0.
    Zero { dst: String, bits: u32 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemOp {
    pub space: Space,
    pub access: Access,
    /// Index of the `[address]` operand.
    pub addr_idx: usize,
    pub fail: Fail,
}

/// How a symbol used as an address base must be converted to a generic address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymKind {
    Global,
    Const,
    Shared,
    Local,
}

/// Classify a memory instruction; `Ok(None)` for everything the instrumenter leaves alone.
pub fn mem_op(i: &Instr, line: usize) -> Result<Option<MemOp>, InstrumentError> {
    let parts = i.parts();
    let base = parts[0];
    let unsupported = |what: &str| {
        Err(InstrumentError::Unsupported {
            line,
            what: what.to_string(),
        })
    };
    // `cp.async` copies are checked by `async_site.rs` and mbarrier operations by
    // `mbarrier.rs` before they get here; groups and waits touch nothing checked; the bulk
    // copies move memory the helpers cannot check (the parser marks them unsupported, so they
    // become run-time faults before they get here: this guards against the parser learning
    // them). `st.async`/`red.async` (which the parser runs as a store and a reduction on shared memory)
    // are checked like those: their first `[address]` is the shared one written.
    if base == "cp" {
        // Copies are `async_site.rs`'s; the rest of the family touches nothing checked.
        if i.opcode.starts_with("cp.async") && !i.opcode.contains("bulk") {
            return Ok(None);
        }
        return unsupported(&i.opcode);
    }
    if !matches!(base, "ld" | "ldu" | "st" | "atom" | "red") {
        return Ok(None);
    }
    let mut space = Space::Generic;
    for m in &parts[1..] {
        match *m {
            "global" => space = Space::Global,
            "const" => space = Space::Const,
            "local" | "param" => return Ok(None),
            m if m == "shared" || m.starts_with("shared::") => space = Space::Shared,
            _ => {}
        }
    }
    let Some(elem) = parts[1..].iter().rev().find_map(|m| type_size(m)) else {
        return Err(InstrumentError::Malformed {
            line,
            message: format!("`{}` has no type", i.opcode),
        });
    };
    let n = parts[1..]
        .iter()
        .find_map(|m| match *m {
            "v2" => Some(2),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        })
        .unwrap_or(1);
    let Some(addr_idx) = i.operands.iter().position(|o| o.starts_with('[')) else {
        return Err(InstrumentError::Malformed {
            line,
            message: format!("`{}` has no `[address]` operand", i.opcode),
        });
    };
    let shared = space == Space::Shared;
    let (access, fail) = match base {
        "ld" | "ldu" => (
            Access {
                kind: AccessKind::Read,
                elem_bytes: elem,
                n,
                shared,
            },
            Fail::ReloadZero,
        ),
        "st" => (
            Access {
                kind: AccessKind::Write,
                elem_bytes: elem,
                n,
                shared,
            },
            Fail::Nothing,
        ),
        _ => {
            // A vector atomic (sm_90 `atomicAdd(float4*)`) is one atomic per element, as the
            // emulator runs it and as vector loads and stores count.
            let access = Access {
                kind: AccessKind::Atomic,
                elem_bytes: elem,
                n,
                shared,
            };
            let fail = match (base, i.operands.first()) {
                ("atom", Some(d)) if d != "_" && !d.starts_with('[') => Fail::Zero {
                    dst: d.clone(),
                    bits: elem * n * 8,
                },
                _ => Fail::Nothing,
            };
            (access, fail)
        }
    };
    Ok(Some(MemOp {
        space,
        access,
        addr_idx,
        fail,
    }))
}

/// `[%rd4+-8]` → (`%rd4`, -8); `[weights+16]` → (`weights`, 16); `[%rd1]` → (`%rd1`, 0).
pub fn parse_address(op: &str) -> Option<(String, i64)> {
    let inner: String = op
        .strip_prefix('[')?
        .strip_suffix(']')?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let split = inner
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '+' || c == '-')
        .map(|(i, _)| i)
        .unwrap_or(inner.len());
    let base = inner[..split].to_string();
    if base.is_empty() {
        return None;
    }
    let mut off: i64 = 0;
    let mut rest = &inner[split..];
    while !rest.is_empty() {
        let mut neg = false;
        while let Some(c) = rest.chars().next().filter(|c| *c == '+' || *c == '-') {
            neg ^= c == '-';
            rest = &rest[1..];
        }
        let end = rest.find(['+', '-']).unwrap_or(rest.len());
        let v = parse_int(&rest[..end])?;
        off = if neg {
            off.wrapping_sub(v)
        } else {
            off.wrapping_add(v)
        };
        rest = &rest[end..];
    }
    Some((base, off))
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim_end_matches(['U', 'u']);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok().map(|v| v as i64)
    } else {
        s.parse::<u64>().ok().map(|v| v as i64)
    }
}

/// Builds the replacement text of one function's sites, numbering its labels.
pub struct SiteWriter<'a> {
    pub regs: &'a RegWidths,
    pub symbols: &'a HashMap<String, SymKind>,
    pub next_label: u32,
}

/// Lines joined for splicing in place of a statement that was indented with one tab.
pub fn join(lines: &[String]) -> String {
    let mut s = String::new();
    for (k, l) in lines.iter().enumerate() {
        if k > 0 {
            s.push('\n');
            if !l.ends_with(':') {
                s.push('\t');
            }
        }
        s.push_str(l);
    }
    s
}

/// The guard that skips when `guard` (as written after `@`) is false.
pub(super) fn skip_guard(guard: &str) -> String {
    match guard.strip_prefix('!') {
        Some(p) => format!("@{p}"),
        None => format!("@!{guard}"),
    }
}

impl<'a> SiteWriter<'a> {
    pub(super) fn label(&mut self) -> u32 {
        self.next_label += 1;
        self.next_label
    }

    /// The effective address of `[base+off]` in `%gz_rd0`: a global, generic or shared-window
    /// address, as the instruction's space says.
    pub(super) fn address(
        &self,
        op: &str,
        space: Space,
        line: usize,
    ) -> Result<Vec<String>, InstrumentError> {
        let Some((base, off)) = parse_address(op) else {
            return Err(InstrumentError::Malformed {
                line,
                message: format!("cannot read the address `{op}`"),
            });
        };
        let mut v = Vec::new();
        if base.starts_with('%') {
            if self.regs.bits(&base) == Some(32) {
                v.push(format!("cvt.u64.u32 %gz_rd0, {base};"));
            } else if off == 0 {
                v.push(format!("mov.b64 %gz_rd0, {base};"));
            } else {
                v.push(format!("add.s64 %gz_rd0, {base}, {off};"));
                return Ok(v);
            }
        } else if base.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let a = parse_int(&base).ok_or_else(|| InstrumentError::Malformed {
                line,
                message: format!("cannot read the address `{op}`"),
            })?;
            v.push(format!("mov.u64 %gz_rd0, {};", a.wrapping_add(off)));
            return Ok(v);
        } else {
            v.push(format!("mov.u64 %gz_rd0, {base};"));
            if space == Space::Generic {
                let cvta = match self.symbols.get(&base) {
                    Some(SymKind::Global) => "global",
                    Some(SymKind::Const) => "const",
                    Some(SymKind::Shared) => "shared",
                    Some(SymKind::Local) => "local",
                    None => {
                        return Err(InstrumentError::Unsupported {
                            line,
                            what: format!("a generic access through the symbol `{base}`"),
                        })
                    }
                };
                v.push(format!("cvta.{cvta}.u64 %gz_rd0, %gz_rd0;"));
            }
        }
        if off != 0 {
            v.push(format!("add.s64 %gz_rd0, %gz_rd0, {off};"));
        }
        Ok(v)
    }

    /// A checked access (global, generic or shared): call the helper, run the original
    /// instruction only when it is legal, and otherwise do what `Fail` says.
    pub fn checked(
        &mut self,
        i: &Instr,
        orig: &str,
        m: &MemOp,
        loc: u32,
        line: usize,
    ) -> Result<String, InstrumentError> {
        let n = self.label();
        let shared = m.space == Space::Shared;
        let helper = match m.space {
            Space::Generic => GENERIC,
            Space::Shared => SHARED,
            _ => GLOBAL,
        };
        let mut l = Vec::new();
        if let Some(g) = &i.guard {
            l.push(format!("{} bra $gz_E{n};", skip_guard(g)));
        }
        l.extend(self.address(&i.operands[m.addr_idx], m.space, line)?);
        // The global and generic helpers return 0 or the zero area's address; the shared one
        // returns 1 (legal) or 0.
        let (ret_decl, ret_load, failed) = if shared {
            (
                ".param .b32 gz_ret;",
                "ld.param.b32 %gz_r0, [gz_ret];",
                "setp.eq.u32 %gz_p0, %gz_r0, 0;",
            )
        } else {
            (
                ".param .b64 gz_ret;",
                "ld.param.b64 %gz_rd1, [gz_ret];",
                "setp.ne.u64 %gz_p0, %gz_rd1, 0;",
            )
        };
        l.extend([
            "{".to_string(),
            ".param .b64 gz_arg0;".into(),
            ".param .b32 gz_arg1;".into(),
            ".param .b32 gz_arg2;".into(),
            ret_decl.into(),
            "st.param.b64 [gz_arg0], %gz_rd0;".into(),
            format!("mov.u32 %gz_r0, {};", m.access.pack()),
            "st.param.b32 [gz_arg1], %gz_r0;".into(),
            format!("mov.u32 %gz_r0, {loc};"),
            "st.param.b32 [gz_arg2], %gz_r0;".into(),
            format!("call (gz_ret), {helper}, (gz_arg0, gz_arg1, gz_arg2);"),
            ret_load.into(),
            "}".into(),
            failed.into(),
        ]);
        let fail_text: Vec<String> = match &m.fail {
            Fail::Nothing => Vec::new(),
            Fail::ReloadZero if shared => self.zero_destinations(&i.operands[0], line)?,
            Fail::ReloadZero => {
                let mut ops = i.operands.clone();
                ops[m.addr_idx] = "[%gz_rd1]".into();
                vec![format!("{} {};", i.opcode, ops.join(", "))]
            }
            // A vector's old values: each register of the braces.
            Fail::Zero { dst, .. } if dst.starts_with('{') => self.zero_destinations(dst, line)?,
            Fail::Zero { dst, bits } => vec![format!("mov.b{bits} {dst}, 0;")],
        };
        if fail_text.is_empty() {
            l.push(format!("@%gz_p0 bra $gz_E{n};"));
            l.push(orig.to_string());
        } else {
            l.push(format!("@%gz_p0 bra $gz_F{n};"));
            l.push(orig.to_string());
            l.push(format!("bra $gz_E{n};"));
            l.push(format!("$gz_F{n}:"));
            l.extend(fail_text);
        }
        l.push(format!("$gz_E{n}:"));
        Ok(join(&l))
    }

    /// `mov.bN reg, 0` for each destination of a load (`%f1` or `{%f1, %f2, _, _}`), with N the
    /// register's declared width (a load may widen into a larger register).
    pub(super) fn zero_destinations(
        &self,
        dst: &str,
        line: usize,
    ) -> Result<Vec<String>, InstrumentError> {
        let mut v = Vec::new();
        for r in dst
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty() && *r != "_")
        {
            let bits = self
                .regs
                .bits(r)
                .ok_or_else(|| InstrumentError::Unsupported {
                    line,
                    what: format!("a load into `{r}`, whose declaration gpuzzle cannot find"),
                })?;
            v.push(format!("mov.b{bits} {r}, 0;"));
        }
        Ok(v)
    }

    /// A counted-only access (`ld.const`, counted as a global read): count, then the original.
    pub fn counted(&mut self, i: &Instr, whole: &str, m: &MemOp) -> String {
        let which = if m.space == Space::Shared { 1 } else { 0 };
        let guard = i
            .guard
            .as_ref()
            .map(|g| format!("@{g} "))
            .unwrap_or_default();
        join(&[
            "{".to_string(),
            ".param .b32 gz_arg0;".into(),
            ".param .b32 gz_arg1;".into(),
            format!("mov.u32 %gz_r0, {which};"),
            "st.param.b32 [gz_arg0], %gz_r0;".into(),
            format!("mov.u32 %gz_r0, {};", m.access.pack()),
            "st.param.b32 [gz_arg1], %gz_r0;".into(),
            format!("{guard}call {COUNT}, (gz_arg0, gz_arg1);"),
            "}".into(),
            whole.to_string(),
        ])
    }

    /// An instruction gpuzzle does not support, in place of `whole`: a thread that reaches it
    /// (its guard true) records `site` and exits, and the host reports the instruction as the
    /// emulator does when it reaches one. The instruction itself is gone, so the GPU never runs
    /// what the emulator cannot; it stays as a comment for whoever reads the PTX.
    pub fn unsupported(&mut self, guard: Option<&str>, whole: &str, site: usize) -> String {
        let n = self.label();
        let was: String = whole.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut l = vec![format!(
            "// gpuzzle: not supported, a run-time fault instead: {was}"
        )];
        if let Some(g) = guard {
            l.push(format!("{} bra $gz_E{n};", skip_guard(g)));
        }
        l.extend([
            "{".to_string(),
            ".param .b32 gz_arg0;".into(),
            format!("mov.u32 %gz_r0, {site};"),
            "st.param.b32 [gz_arg0], %gz_r0;".into(),
            format!("call {UNSUPPORTED}, (gz_arg0);"),
            "}".into(),
            "exit;".into(),
        ]);
        if guard.is_some() {
            l.push(format!("$gz_E{n}:"));
        }
        join(&l)
    }

    /// `trap` in place of `whole`: record a trap fault and exit the thread (as the emulator
    /// does), rather than abort the kernel and lose the CUDA context.
    pub fn trap(&mut self, guard: Option<&str>, whole: &str, loc: u32) -> String {
        let mut l = vec![format!(
            "// gpuzzle: {}",
            whole.split_whitespace().collect::<Vec<_>>().join(" ")
        )];
        l.extend(self.fault(guard, FaultKind::Trap, loc, "0", &["exit;".to_string()]));
        join(&l)
    }

    /// Before `brx.idx index, tlist` (a jump table of `len` targets): an index past the table
    /// records a fault (length and index in its address) and the thread exits, as the
    /// emulator stops it; within it the branch runs as written.
    pub fn brx_check(&mut self, guard: Option<&str>, index: &str, len: usize, loc: u32) -> String {
        let n = self.label();
        let mut l = vec![format!(
            "// gpuzzle: the jump table's index checked (it has {len} targets)"
        )];
        if let Some(g) = guard {
            l.push(format!("{} bra $gz_B{n};", skip_guard(g)));
        }
        l.extend([
            format!("setp.lt.u32 %gz_p0, {index}, {len};"),
            format!("@%gz_p0 bra $gz_B{n};"),
            format!("cvt.u64.u32 %gz_rd0, {index};"),
            format!("or.b64 %gz_rd0, %gz_rd0, {};", (len as u64) << 32),
        ]);
        l.extend(self.fault(
            None,
            FaultKind::BranchIndex,
            loc,
            "%gz_rd0",
            &["exit;".to_string()],
        ));
        l.push(format!("$gz_B{n}:"));
        join(&l)
    }

    /// A call to `__assertfail` in place of `whole`: record a failed assert (`message`: the
    /// operand that holds its message's address) and go on, as the emulator does; the real
    /// function would trap.
    pub fn assert_fail(
        &mut self,
        guard: Option<&str>,
        whole: &str,
        loc: u32,
        message: &str,
    ) -> String {
        let was = whole.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut l = vec![format!("// gpuzzle: {was}")];
        l.extend(self.fault(guard, FaultKind::Assert, loc, message, &[]));
        join(&l)
    }

    fn fault(
        &mut self,
        guard: Option<&str>,
        kind: FaultKind,
        loc: u32,
        addr: &str,
        then: &[String],
    ) -> Vec<String> {
        let n = self.label();
        let mut l = Vec::new();
        if let Some(g) = guard {
            l.push(format!("{} bra $gz_E{n};", skip_guard(g)));
        }
        l.extend([
            "{".to_string(),
            ".param .b32 gz_arg0;".into(),
            ".param .b32 gz_arg1;".into(),
            ".param .b64 gz_arg2;".into(),
            format!("mov.u32 %gz_r0, {};", kind as u32),
            "st.param.b32 [gz_arg0], %gz_r0;".into(),
            format!("mov.u32 %gz_r0, {loc};"),
            "st.param.b32 [gz_arg1], %gz_r0;".into(),
            format!("st.param.b64 [gz_arg2], {addr};"),
            format!("call {FAULT}, (gz_arg0, gz_arg1, gz_arg2);"),
            "}".into(),
        ]);
        l.extend(then.iter().cloned());
        if guard.is_some() {
            l.push(format!("$gz_E{n}:"));
        }
        l
    }

    /// A backward branch: count a step when it is taken, and exit when the helper says so.
    pub fn back_branch(&mut self, i: &Instr, whole: &str, loc: u32) -> String {
        let mut l = Vec::new();
        let n = self.label();
        if let Some(g) = &i.guard {
            l.push(format!("{} bra $gz_E{n};", skip_guard(g)));
        }
        l.extend(step(loc));
        if i.guard.is_some() {
            l.push(format!("$gz_E{n}:"));
        }
        l.push(whole.to_string());
        join(&l)
    }
}

/// Count one step at `loc` and exit when the helper says the thread is past its budget (or
/// another thread stopped the launch).
pub fn step(loc: u32) -> Vec<String> {
    vec![
        "{".to_string(),
        ".param .b32 gz_arg0;".into(),
        ".param .b32 gz_ret;".into(),
        format!("mov.u32 %gz_r0, {loc};"),
        "st.param.b32 [gz_arg0], %gz_r0;".into(),
        format!("call (gz_ret), {STEP}, (gz_arg0);"),
        "ld.param.b32 %gz_r0, [gz_ret];".into(),
        "}".into(),
        "setp.ne.u32 %gz_p0, %gz_r0, 0;".into(),
        "@%gz_p0 exit;".into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instr(opcode: &str, ops: &[&str]) -> Instr {
        Instr {
            guard: None,
            opcode: opcode.into(),
            operands: ops.iter().map(|s| s.to_string()).collect(),
            start: 0,
        }
    }

    #[test]
    fn classifies_spaces_sizes_and_failure_actions() {
        let m = mem_op(
            &instr("ld.global.nc.v4.f32", &["{%f1, %f2, %f3, %f4}", "[%rd1]"]),
            1,
        )
        .unwrap()
        .unwrap();
        assert_eq!(m.space, Space::Global);
        assert_eq!((m.access.n, m.access.elem_bytes), (4, 4));
        assert_eq!(m.fail, Fail::ReloadZero);
        let m = mem_op(&instr("st.shared.u32", &["[%rd3]", "%r1"]), 1)
            .unwrap()
            .unwrap();
        assert_eq!((m.space, m.addr_idx), (Space::Shared, 0));
        let m = mem_op(
            &instr("atom.global.cas.b32", &["%r4", "[%rd2]", "%r1", "%r2"]),
            1,
        )
        .unwrap()
        .unwrap();
        assert_eq!(m.access.kind, AccessKind::Atomic);
        assert_eq!(
            m.fail,
            Fail::Zero {
                dst: "%r4".into(),
                bits: 32
            }
        );
        let m = mem_op(
            &instr(
                "atom.global.add.v4.f32",
                &["{%f1, %f2, %f3, %f4}", "[%rd9]", "{%f5, %f6, %f7, %f8}"],
            ),
            1,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (m.access.kind, m.access.n, m.access.elem_bytes),
            (AccessKind::Atomic, 4, 4)
        );
        let m = mem_op(&instr("red.add.u64", &["[%rd2]", "%rd1"]), 1)
            .unwrap()
            .unwrap();
        assert_eq!((m.space, m.fail.clone()), (Space::Generic, Fail::Nothing));
        let m = mem_op(&instr("ld.shared::cta.u8", &["%rs1", "[%r2]"]), 1)
            .unwrap()
            .unwrap();
        assert_eq!((m.space, m.access.elem_bytes), (Space::Shared, 1));
        assert_eq!(
            mem_op(&instr("ld.param.u64", &["%rd1", "[p]"]), 1).unwrap(),
            None
        );
        assert_eq!(
            mem_op(
                &instr("st.local.v4.f32", &["[%rd1]", "{%f1,%f1,%f1,%f1}"]),
                1
            )
            .unwrap(),
            None
        );
        assert_eq!(
            mem_op(&instr("add.s32", &["%r1", "%r2", "1"]), 1).unwrap(),
            None
        );
        assert!(matches!(
            mem_op(
                &instr(
                    "cp.async.bulk.shared::cluster.global",
                    &["[%r1]", "[%rd1]", "16", "[%r2]"]
                ),
                7
            ),
            Err(InstrumentError::Unsupported { line: 7, .. })
        ));
        assert!(mem_op(&instr("ld.global", &["%r1", "[%rd1]"]), 1).is_err());
        // The emulator runs st.async and red.async as a shared store and reduction: so are they
        // checked, at their first address (the second is the mbarrier's).
        for (op, kind) in [
            (
                "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32",
                AccessKind::Write,
            ),
            (
                "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32",
                AccessKind::Atomic,
            ),
        ] {
            let m = mem_op(&instr(op, &["[%r1]", "%r2", "[%r3]"]), 1)
                .unwrap()
                .unwrap();
            assert_eq!(
                (m.space, m.access.kind, m.addr_idx),
                (Space::Shared, kind, 0)
            );
            assert_eq!(m.fail, Fail::Nothing);
        }
    }

    #[test]
    fn reads_every_address_form() {
        assert_eq!(parse_address("[%rd4]"), Some(("%rd4".into(), 0)));
        assert_eq!(parse_address("[%rd4+-8]"), Some(("%rd4".into(), -8)));
        assert_eq!(parse_address("[%rd4 + 16]"), Some(("%rd4".into(), 16)));
        assert_eq!(parse_address("[%rd4-4]"), Some(("%rd4".into(), -4)));
        assert_eq!(
            parse_address("[weights+0x10]"),
            Some(("weights".into(), 16))
        );
        assert_eq!(parse_address("[$str]"), Some(("$str".into(), 0)));
        assert_eq!(parse_address("[4096]"), Some(("4096".into(), 0)));
        assert_eq!(parse_address("%rd1"), None);
        assert_eq!(parse_address("[]"), None);
    }

    #[test]
    fn guarded_load_skips_when_the_guard_is_false_and_reloads_zero_when_illegal() {
        let regs = RegWidths::default();
        let syms = HashMap::new();
        let mut w = SiteWriter {
            regs: &regs,
            symbols: &syms,
            next_label: 0,
        };
        let mut i = instr("ld.global.f32", &["%f1", "[%rd5+4]"]);
        i.guard = Some("!%p2".into());
        let m = mem_op(&i, 1).unwrap().unwrap();
        let text = w
            .checked(&i, "ld.global.f32 \t%f1, [%rd5+4];", &m, 77, 1)
            .unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        assert_eq!(lines[0], "@%p2 bra $gz_E1;");
        assert_eq!(lines[1], "add.s64 %gz_rd0, %rd5, 4;");
        assert!(lines.contains(&"call (gz_ret), __gpuzzle_global, (gz_arg0, gz_arg1, gz_arg2);"));
        assert!(lines.contains(&"mov.u32 %gz_r0, 77;"));
        assert!(lines.contains(&"ld.global.f32 \t%f1, [%rd5+4];"));
        assert!(lines.contains(&"ld.global.f32 %f1, [%gz_rd1];"));
        assert_eq!(*lines.last().unwrap(), "$gz_E1:");
        assert!(text.contains("\n$gz_F1:\n"), "labels start their line");
    }

    #[test]
    fn generic_access_through_a_symbol_converts_it_to_a_generic_address() {
        let regs = RegWidths::default();
        let mut syms = HashMap::new();
        syms.insert("tile".to_string(), SymKind::Shared);
        let mut w = SiteWriter {
            regs: &regs,
            symbols: &syms,
            next_label: 4,
        };
        let i = instr("st.u32", &["[tile+8]", "%r1"]);
        let m = mem_op(&i, 1).unwrap().unwrap();
        let text = w.checked(&i, "st.u32 [tile+8], %r1;", &m, 0, 1).unwrap();
        assert!(text.contains("mov.u64 %gz_rd0, tile;\n\tcvta.shared.u64 %gz_rd0, %gz_rd0;\n\tadd.s64 %gz_rd0, %gz_rd0, 8;"));
        assert!(text.contains("__gpuzzle_generic"));
        assert!(text.contains("@%gz_p0 bra $gz_E5;"));
        let unknown = instr("st.u32", &["[nowhere]", "%r1"]);
        assert!(w.checked(&unknown, "", &m, 0, 3).is_err());
    }
}
