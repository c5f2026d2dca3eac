//! `cp.async` for the GPU: the copy is one global read and one shared write, so the
//! instrumented kernel checks (and counts) its source with the global helper and its
//! destination with the shared helper, as the emulator does, and issues the copy only when
//! both are legal (an illegal one is skipped, so the context survives). The source check
//! covers the bytes actually read: the source-size operand (an immediate or a register; 0
//! reads nothing, so nothing is checked or counted) or the `ignore-src` predicate (true:
//! nothing read). `commit_group` and `wait_group` touch no memory and run as they are; the
//! mbarrier operations (`mbarrier.*`, `cp.async.mbarrier.arrive`) have their barrier object
//! checked by `mbarrier.rs`; the bulk (TMA) copies the parser leaves unsupported become run-time faults
//! before they get here.

use super::helpers::{GLOBAL, SHARED};
use super::scan::Instr;
use super::site::{join, SiteWriter, Space};
use super::InstrumentError;
use crate::gpu::ctl::{Access, AccessKind};

/// Whether `i` is a `cp.async` copy from global to shared memory (`cp.async.ca|cg.shared…global`).
pub fn is_copy(i: &Instr) -> bool {
    let parts = i.parts();
    parts.first() == Some(&"cp")
        && parts.get(1) == Some(&"async")
        && parts.iter().any(|p| *p == "ca" || *p == "cg")
        && !parts.contains(&"bulk")
}

impl SiteWriter<'_> {
    /// The replacement of `orig`, a `cp.async` copy: both checks, then the copy.
    pub fn async_copy(
        &mut self,
        i: &Instr,
        orig: &str,
        loc: u32,
        line: usize,
    ) -> Result<String, InstrumentError> {
        let malformed = |message: String| InstrumentError::Malformed { line, message };
        let size: u32 = i
            .operands
            .get(2)
            .and_then(|s| s.parse().ok())
            .filter(|s| matches!(s, 4 | 8 | 16))
            .ok_or_else(|| malformed(format!("`{}` needs a copy size of 4, 8 or 16", i.opcode)))?;
        let (Some(dst), Some(src)) = (i.operands.first(), i.operands.get(1)) else {
            return Err(malformed(format!("`{}` needs two addresses", i.opcode)));
        };
        let hinted = i.opcode.contains("L2::cache_hint");
        let fourth = i
            .operands
            .get(3)
            .filter(|_| !(hinted && i.operands.len() == 4));
        let dst_space = if i.parts().iter().any(|p| p.starts_with("shared")) {
            Space::Shared
        } else {
            Space::Generic
        };
        let n = self.label();
        let mut l = Vec::new();
        if let Some(g) = &i.guard {
            l.push(format!("{} bra $gz_E{n};", skip(g)));
        }
        // The source: `size` bytes, or as many as the source-size operand says (none: no check).
        let read = |bytes: u32| {
            Access {
                kind: AccessKind::Read,
                elem_bytes: bytes,
                n: 1,
                shared: false,
            }
            .pack()
        };
        let src_access = match fourth.map(String::as_str) {
            None => Some(format!("mov.u32 %gz_r0, {};", read(size))),
            Some(p) if p.starts_with("%p") || p.starts_with("!%p") => {
                // ignore-src: true reads nothing.
                let (pred, neg) = match p.strip_prefix('!') {
                    Some(q) => (q, true),
                    None => (p, false),
                };
                let when_ignored = if neg {
                    format!("@!{pred}")
                } else {
                    format!("@{pred}")
                };
                l.push(format!("{when_ignored} bra $gz_S{n};"));
                Some(format!("mov.u32 %gz_r0, {};", read(size)))
            }
            Some(s) if s.starts_with('%') => {
                // A register: its value (at most `size`) is the bytes read; 0 skips the check.
                l.push(format!("min.u32 %gz_r0, {s}, {size};"));
                l.push("setp.eq.u32 %gz_p0, %gz_r0, 0;".into());
                l.push(format!("@%gz_p0 bra $gz_S{n};"));
                l.push("shl.b32 %gz_r0, %gz_r0, 8;".into());
                Some(format!("or.b32 %gz_r0, %gz_r0, {};", read(0)))
            }
            Some(s) => {
                let bytes: u32 = s
                    .parse()
                    .map_err(|_| malformed(format!("cannot read the source size `{s}`")))?;
                (bytes > 0).then(|| format!("mov.u32 %gz_r0, {};", read(bytes.min(size))))
            }
        };
        if let Some(access) = src_access {
            l.extend(self.address(src, Space::Global, line)?);
            l.extend(call(GLOBAL, &access, loc, false));
            l.push(format!("@%gz_p0 bra $gz_E{n};"));
        }
        l.push(format!("$gz_S{n}:"));
        let write = Access {
            kind: AccessKind::Write,
            elem_bytes: size,
            n: 1,
            shared: dst_space == Space::Shared,
        }
        .pack();
        l.extend(self.address(dst, dst_space, line)?);
        let helper = if dst_space == Space::Shared {
            SHARED
        } else {
            super::helpers::GENERIC
        };
        l.extend(call(
            helper,
            &format!("mov.u32 %gz_r0, {write};"),
            loc,
            dst_space == Space::Shared,
        ));
        l.push(format!("@%gz_p0 bra $gz_E{n};"));
        l.push(orig.to_string());
        l.push(format!("$gz_E{n}:"));
        Ok(join(&l))
    }
}

/// The guard that skips when `guard` (as written after `@`) is false.
fn skip(guard: &str) -> String {
    match guard.strip_prefix('!') {
        Some(p) => format!("@{p}"),
        None => format!("@!{guard}"),
    }
}

/// Call a checking helper on the address in `%gz_rd0` with the access `set_access` puts in
/// `%gz_r0`; `%gz_p0` is true when the access was illegal (and recorded).
fn call(helper: &str, set_access: &str, loc: u32, shared: bool) -> Vec<String> {
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
    vec![
        "{".to_string(),
        ".param .b64 gz_arg0;".into(),
        ".param .b32 gz_arg1;".into(),
        ".param .b32 gz_arg2;".into(),
        ret_decl.into(),
        "st.param.b64 [gz_arg0], %gz_rd0;".into(),
        set_access.into(),
        "st.param.b32 [gz_arg1], %gz_r0;".into(),
        format!("mov.u32 %gz_r0, {loc};"),
        "st.param.b32 [gz_arg2], %gz_r0;".into(),
        format!("call (gz_ret), {helper}, (gz_arg0, gz_arg1, gz_arg2);"),
        ret_load.into(),
        "}".into(),
        failed.into(),
    ]
}
