//! The PTX helper functions every instrumented module gets, generated from the control-block
//! offsets in `ctl::CtlLayout` so the layout is written down once.
//!
//! Access sites in the learner's code call these instead of carrying the logic inline: one
//! reviewed copy of the bounds check, the counters and the fault record. They find the control
//! block through the module variable `__gpuzzle_ctl_ptr`, which each kernel thread sets from its
//! `__gpuzzle_ctl` parameter at entry; that is how device functions (`.func`) reach it without any
//! change to their signatures or call sites. (Consequence: two launches of the same loaded module
//! must not run concurrently with different control blocks; gpuzzle launches one at a time.)
//!
//! - `__gpuzzle_count(which, access)`: add an access to this thread's counters (which 0 = global,
//!   1 = shared); used for `ld.const`, which counts as a global read without a check.
//! - `__gpuzzle_global(addr, access, loc) -> b64`: bounds- and alignment-check a global access
//!   against the buffer table; count it and return 0 when it is legal, else record the fault and
//!   return the address of the control block's zero area (the site then skips the access, and a
//!   skipped load reads its zeros there).
//! - `__gpuzzle_shared(addr, access, loc) -> b32`: the same against the shared table, for a
//!   shared-window address; returns 1 when legal (counted), 0 when skipped (the site zeroes the
//!   destinations itself: there is no zero area in shared memory).
//! - `__gpuzzle_shared_check(addr, access, loc) -> b32`: the same check, counting nothing: an
//!   mbarrier object (8 bytes, 8-byte aligned, inside one shared variable), which the emulator
//!   checks but does not count as an access.
//! - `__gpuzzle_generic(addr, access, loc) -> b64`: classify a generic address with `isspacep`:
//!   global → as `__gpuzzle_global`; shared → as `__gpuzzle_shared`; anything else (local) →
//!   nothing. Returns 0 or the zero area as above.
//! - `__gpuzzle_fault(kind, loc, addr)`: record a fault that is no access: a `trap` (the site
//!   then exits the thread, where a GPU would abort the whole kernel and lose the context) or a
//!   failed `assert()` (the site replaces the call to `__assertfail`, which would trap too;
//!   `addr` is the message's address). The emulator treats both so.
//! - `__gpuzzle_fault_with(kind, loc, addr, access)`: the same with an access code, for a
//!   fault about an access that is no bounds check's (a WMMA pointer or leading dimension that
//!   breaks the API's alignment rules).
//! - `__gpuzzle_unsupported(site)`: a thread reached an instruction gpuzzle does not support
//!   (the instrumenter put this call and an `exit` in its place): keep the first such site in
//!   the control block and raise the stop flag, so every other thread exits at its next backward
//!   branch, as the emulator ends the launch there. Nothing is kept once the launch is stopping
//!   (a step-limit fault came first, and the emulator would have stopped at that).
//! - `__gpuzzle_malloc(size) -> ptr`, `__gpuzzle_free(ptr, loc)`: the device heap's calls,
//!   keeping its blocks in the heap table; a free of no live block's start is a fault, skipped.
//! - `__gpuzzle_step(loc) -> b32`: one backward branch taken; returns 1 when the thread must exit
//!   (its budget is spent, recorded as a step-limit fault, or another thread's step-limit fault
//!   set the stop flag).

use crate::gpu::ctl::{Access, CtlLayout as L, FaultKind};

/// Name of the module variable holding the control block's address.
pub const CTL_PTR: &str = "__gpuzzle_ctl_ptr";
/// Name of the kernel parameter added to every entry.
pub const CTL_PARAM: &str = "__gpuzzle_ctl";
pub const COUNT: &str = "__gpuzzle_count";
pub const GLOBAL: &str = "__gpuzzle_global";
pub const GENERIC: &str = "__gpuzzle_generic";
pub const SHARED: &str = "__gpuzzle_shared";
/// The shared check without the count (mbarrier operands).
pub const SHARED_CHECK: &str = "__gpuzzle_shared_check";
pub const STEP: &str = "__gpuzzle_step";
pub const UNSUPPORTED: &str = "__gpuzzle_unsupported";
pub const FAULT: &str = "__gpuzzle_fault";
pub const FAULT_WITH: &str = "__gpuzzle_fault_with";
pub const MALLOC: &str = "__gpuzzle_malloc";
pub const FREE: &str = "__gpuzzle_free";

const DECLS: &str = "\t.reg .b64 %gz_a<12>;\n\t.reg .b32 %gz_b<12>;\n\t.reg .pred %gz_q<4>;\n\
\t.reg .b32 %gz_t<8>;\n\t.reg .b64 %gz_u<3>;\n\t.reg .b32 %gz_c<4>;\n\t.reg .b64 %gz_d<3>;\n";

/// The record address of the calling thread into `dst`, given the control block's address in `ctl`.
fn slot(ctl: &str, dst: &str) -> String {
    format!(
        "\tmov.u32 %gz_t0, %tid.x;
\tmov.u32 %gz_t1, %tid.y;
\tmov.u32 %gz_t2, %tid.z;
\tmov.u32 %gz_t3, %ntid.x;
\tmov.u32 %gz_t4, %ntid.y;
\tmov.u32 %gz_t5, %ntid.z;
\tmad.lo.u32 %gz_t6, %gz_t2, %gz_t4, %gz_t1;
\tmad.lo.u32 %gz_t6, %gz_t6, %gz_t3, %gz_t0;
\tmul.lo.u32 %gz_t7, %gz_t3, %gz_t4;
\tmul.lo.u32 %gz_t7, %gz_t7, %gz_t5;
\tmov.u32 %gz_t0, %ctaid.x;
\tmov.u32 %gz_t1, %ctaid.y;
\tmov.u32 %gz_t2, %ctaid.z;
\tmov.u32 %gz_t3, %nctaid.x;
\tmov.u32 %gz_t4, %nctaid.y;
\tmul.wide.u32 %gz_u0, %gz_t2, %gz_t4;
\tcvt.u64.u32 %gz_u1, %gz_t1;
\tadd.s64 %gz_u0, %gz_u0, %gz_u1;
\tcvt.u64.u32 %gz_u1, %gz_t3;
\tmul.lo.s64 %gz_u0, %gz_u0, %gz_u1;
\tcvt.u64.u32 %gz_u1, %gz_t0;
\tadd.s64 %gz_u0, %gz_u0, %gz_u1;
\tcvt.u64.u32 %gz_u1, %gz_t7;
\tcvt.u64.u32 %gz_u2, %gz_t6;
\tmad.lo.s64 %gz_u0, %gz_u0, %gz_u1, %gz_u2;
\tld.global.u64 %gz_u1, [{ctl}+{records}];
\tadd.s64 %gz_u1, %gz_u1, {ctl};
\tmad.lo.s64 {dst}, %gz_u0, {rec}, %gz_u1;
",
        records = L::RECORDS_OFF,
        rec = L::RECORD_BYTES,
    )
}

/// Add the packed access in `acc` to the read, write and atomic counters of one space at
/// `[rec]`, `[rec+8]`, `[rec+16]`. Atomics count one read, one write and one atomic per
/// element; loads and stores one per 4-byte word of each element, rounded up (`emu::technique::
/// words`: a float4 counts 4, a double 2), as on the emulator.
fn count(rec: &str, acc: &str) -> String {
    format!(
        "\tand.b32 %gz_c0, {acc}, 255;
\tshr.u32 %gz_c1, {acc}, 16;
\tand.b32 %gz_c1, %gz_c1, 255;
\tshr.u32 %gz_c2, {acc}, 8;
\tand.b32 %gz_c2, %gz_c2, 255;
\tadd.u32 %gz_c2, %gz_c2, 3;
\tshr.u32 %gz_c2, %gz_c2, 2;
\tmax.u32 %gz_c2, %gz_c2, 1;
\tsetp.ne.u32 %gz_q3, %gz_c1, 2;
\t@%gz_q3 mul.lo.u32 %gz_c0, %gz_c0, %gz_c2;
\tcvt.u64.u32 %gz_d0, %gz_c0;
\tsetp.eq.u32 %gz_q3, %gz_c1, 2;
\t@%gz_q3 ld.global.u64 %gz_d1, [{rec}+{atomics}];
\t@%gz_q3 add.s64 %gz_d1, %gz_d1, %gz_d0;
\t@%gz_q3 st.global.u64 [{rec}+{atomics}], %gz_d1;
\tsetp.ne.u32 %gz_q3, %gz_c1, 1;
\t@%gz_q3 ld.global.u64 %gz_d1, [{rec}];
\t@%gz_q3 add.s64 %gz_d1, %gz_d1, %gz_d0;
\t@%gz_q3 st.global.u64 [{rec}], %gz_d1;
\tsetp.ne.u32 %gz_q3, %gz_c1, 0;
\t@%gz_q3 ld.global.u64 %gz_d1, [{rec}+{writes}];
\t@%gz_q3 add.s64 %gz_d1, %gz_d1, %gz_d0;
\t@%gz_q3 st.global.u64 [{rec}+{writes}], %gz_d1;
",
        atomics = L::REC_ATOMICS,
        writes = L::REC_WRITES,
    )
}

/// Count the fault, and record it if it is the first (atom.cas on the flag).
fn record(ctl: &str, kind: &str, loc: &str, acc: &str, addr: &str) -> String {
    let mut s = format!(
        "\tatom.global.add.u64 %gz_d2, [{ctl}+{count}], 1;
\tmov.u32 %gz_c2, 0;
\tmov.u32 %gz_c3, 1;
\tatom.global.cas.b32 %gz_c2, [{ctl}+{flag}], %gz_c2, %gz_c3;
\tsetp.ne.u32 %gz_q3, %gz_c2, 0;
\t@%gz_q3 bra $gz_kept;
\tst.global.u32 [{ctl}+{kind_off}], {kind};
",
        count = L::FAULT_COUNT,
        flag = L::FAULT_FLAG,
        kind_off = L::FAULT_KIND,
    );
    for (i, sreg) in ["%ctaid.x", "%ctaid.y", "%ctaid.z"].iter().enumerate() {
        s += &format!(
            "\tmov.u32 %gz_c2, {sreg};\n\tst.global.u32 [{ctl}+{}], %gz_c2;\n",
            L::FAULT_BLOCK + 4 * i
        );
    }
    for (i, sreg) in ["%tid.x", "%tid.y", "%tid.z"].iter().enumerate() {
        s += &format!(
            "\tmov.u32 %gz_c2, {sreg};\n\tst.global.u32 [{ctl}+{}], %gz_c2;\n",
            L::FAULT_THREAD + 4 * i
        );
    }
    s += &format!(
        "\tst.global.u32 [{ctl}+{}], {loc};
\tst.global.u32 [{ctl}+{}], {acc};
\tst.global.u64 [{ctl}+{}], {addr};
$gz_kept:
",
        L::FAULT_LOC,
        L::FAULT_ACCESS,
        L::FAULT_ADDR,
    );
    s
}

/// Load the helper's arguments (address, access, loc) and the control block, and work out the
/// access's size: %gz_a0 address, %gz_b0 access, %gz_b1 loc, %gz_a1 control block, %gz_b4/%gz_a2
/// bytes. `extra` runs right after the arguments are loaded.
fn check_prefix(extra: &str) -> String {
    format!(
        "\tld.param.u64 %gz_a0, [gz_addr];
\tld.param.u32 %gz_b0, [gz_access];
\tld.param.u32 %gz_b1, [gz_loc];
{extra}\tld.global.u64 %gz_a1, [{CTL_PTR}];
\tand.b32 %gz_b2, %gz_b0, 255;
\tshr.u32 %gz_b3, %gz_b0, 8;
\tand.b32 %gz_b3, %gz_b3, 255;
\tmul.lo.u32 %gz_b4, %gz_b2, %gz_b3;
\tcvt.u64.u32 %gz_a2, %gz_b4;
"
    )
}

/// Scan a table of `%gz_b5` (base, len) entries starting at `%gz_a3` for one holding
/// `[%gz_a0, %gz_a0 + %gz_a2)`; then check alignment. Falls through when the access is legal,
/// jumps to `$gz_fault` with the fault kind in `%gz_b7` otherwise.
fn check_scan() -> String {
    check_scan_or("$gz_fault")
}

/// `check_scan`, but when no entry holds the access it jumps to `exhausted` instead of
/// faulting (with `%gz_b7` already the out-of-bounds kind).
fn check_scan_or(exhausted: &str) -> String {
    check_scan_with(exhausted, "")
}

/// `check_scan_or`, with `base_fix` applied to each entry's base (`%gz_a4`) as it is read.
fn check_scan_with(exhausted: &str, base_fix: &str) -> String {
    format!(
        "\tmov.u32 %gz_b6, 0;
\tmov.u32 %gz_b7, {oob};
$gz_scan:
\tsetp.ge.u32 %gz_q0, %gz_b6, %gz_b5;
\t@%gz_q0 bra {exhausted};
\tld.global.u64 %gz_a4, [%gz_a3];
{base_fix}\tld.global.u64 %gz_a5, [%gz_a3+8];
\tsub.s64 %gz_a6, %gz_a0, %gz_a4;
\tsub.s64 %gz_a7, %gz_a5, %gz_a6;
\tsetp.lt.u64 %gz_q1, %gz_a6, %gz_a5;
\tsetp.ge.and.u64 %gz_q1, %gz_a7, %gz_a2, %gz_q1;
\t@%gz_q1 bra $gz_inside;
\tadd.s64 %gz_a3, %gz_a3, {entry};
\tadd.s32 %gz_b6, %gz_b6, 1;
\tbra $gz_scan;
$gz_inside:
\tmin.u32 %gz_b8, %gz_b4, 16;
\tsub.s32 %gz_b8, %gz_b8, 1;
\tcvt.u64.u32 %gz_a8, %gz_b8;
\tand.b64 %gz_a8, %gz_a0, %gz_a8;
\tsetp.ne.u64 %gz_q0, %gz_a8, 0;
\tmov.u32 %gz_b7, {misaligned};
\t@%gz_q0 bra $gz_fault;
",
        entry = L::ENTRY_BYTES,
        oob = FaultKind::OutOfBounds as u32,
        misaligned = FaultKind::Misaligned as u32,
    )
}

/// Put the heap table's address into `%gz_a3` and its entries in use into `%gz_b5`, for the
/// control block at `%gz_a1` (the table follows the shared table: `ctl::CtlLayout::heap_offset`).
fn heap_table() -> String {
    format!(
        "\tld.global.u32 %gz_b5, [%gz_a1+{len}];
\tmin.u32 %gz_b5, %gz_b5, {cap};
\tld.global.u64 %gz_a3, [%gz_a1+{off}];
\tld.global.u32 %gz_b6, [%gz_a1+{slen}];
\tmul.wide.u32 %gz_a4, %gz_b6, {entry};
\tadd.s64 %gz_a3, %gz_a3, %gz_a4;
\tadd.s64 %gz_a3, %gz_a3, %gz_a1;
",
        len = L::HEAP_LEN,
        cap = L::HEAP_CAP,
        off = L::SHARED_OFF,
        slen = L::SHARED_LEN,
        entry = L::ENTRY_BYTES,
    )
}

/// The global check's second chance, for modules that call `malloc`: an access in no buffer
/// may lie in a live block of the device heap (`__gpuzzle_malloc` keeps them in the heap
/// table). Found: on to the alignment check at `$gz_inside`; not found: `$gz_fault`.
fn heap_scan() -> String {
    format!(
        "$gz_heap:
{table}\tmov.u32 %gz_b6, 0;
$gz_hscan:
\tsetp.ge.u32 %gz_q0, %gz_b6, %gz_b5;
\t@%gz_q0 bra $gz_fault;
\tld.global.u64 %gz_a4, [%gz_a3];
\tld.global.u64 %gz_a5, [%gz_a3+8];
\tsub.s64 %gz_a6, %gz_a0, %gz_a4;
\tsub.s64 %gz_a7, %gz_a5, %gz_a6;
\tsetp.lt.u64 %gz_q1, %gz_a6, %gz_a5;
\tsetp.ge.and.u64 %gz_q1, %gz_a7, %gz_a2, %gz_q1;
\t@%gz_q1 bra $gz_inside;
\tadd.s64 %gz_a3, %gz_a3, {entry};
\tadd.s32 %gz_b6, %gz_b6, 1;
\tbra $gz_hscan;
",
        table = heap_table(),
        entry = L::ENTRY_BYTES,
    )
}

/// `__gpuzzle_malloc(size) -> ptr`, put in place of every call to `malloc` (same signature):
/// the real `malloc`, and its block kept in the heap table. Emitted after the module's own
/// declaration of `malloc`, which it calls.
pub fn malloc_helper() -> String {
    let mut s = format!("\n.func (.param .b64 gz_ret) {MALLOC}(\n\t.param .b64 gz_size\n)\n{{\n");
    s += DECLS;
    s += &format!(
        "\tld.param.u64 %gz_a0, [gz_size];
\t{{
\t.param .b64 gz_p;
\t.param .b64 gz_r;
\tst.param.b64 [gz_p], %gz_a0;
\tcall.uni (gz_r), malloc, (gz_p);
\tld.param.b64 %gz_a2, [gz_r];
\t}}
\tsetp.eq.u64 %gz_q0, %gz_a2, 0;
\t@%gz_q0 bra $gz_done;
\tld.global.u64 %gz_a1, [{CTL_PTR}];
\tatom.global.add.u32 %gz_b0, [%gz_a1+{len}], 1;
\tsetp.ge.u32 %gz_q0, %gz_b0, {cap};
\t@%gz_q0 bra $gz_done;
{table}\tmul.wide.u32 %gz_a4, %gz_b0, {entry};
\tadd.s64 %gz_a3, %gz_a3, %gz_a4;
\tst.global.u64 [%gz_a3], %gz_a2;
\tst.global.u64 [%gz_a3+8], %gz_a0;
\tmembar.gl;
$gz_done:
\tst.param.b64 [gz_ret], %gz_a2;
\tret;
}}
",
        len = L::HEAP_LEN,
        cap = L::HEAP_CAP,
        table = heap_table(),
        entry = L::ENTRY_BYTES,
    );
    s
}

/// `__gpuzzle_free(ptr, loc)`, put in place of every call to `free` (the site adds its
/// location): the block's heap-table entry gets the `HEAP_FREED` bit in its address (so no
/// access matches it, and a use after free is out of bounds, still named by its block) and
/// the free's location in the high 32 bits of its length, then the real `free`. A pointer that
/// starts no live block is refused as the emulator refuses it, and the real `free` is skipped
/// (on a GPU it would corrupt the heap or abort the kernel): a double free when a freed block
/// starts there (the last such entry, since `malloc` may hand an address out again), else a
/// bad free, naming the block it points into if any. The fault's access word is 1 + that
/// entry. When the table overflowed (`HEAP_CAP`), an unknown pointer may be a block it does
/// not hold: it is freed as asked. `free(NULL)` does nothing. Emitted after the module's own
/// declaration of `free`.
pub fn free_helper() -> String {
    let mut s = format!("\n.func {FREE}(\n\t.param .b64 gz_ptr,\n\t.param .b32 gz_loc\n)\n{{\n");
    s += DECLS;
    s += &format!(
        "\tld.param.u64 %gz_a0, [gz_ptr];
\tld.param.u32 %gz_b1, [gz_loc];
\tsetp.eq.u64 %gz_q0, %gz_a0, 0;
\t@%gz_q0 bra $gz_call;
\tld.global.u64 %gz_a1, [{CTL_PTR}];
{table}\tmov.u64 %gz_a8, %gz_a3;
\tld.global.u32 %gz_b8, [%gz_a1+{len}];
\tor.b64 %gz_a9, %gz_a0, {freed};
\tmov.u32 %gz_b6, 0;
$gz_scan:
\tsetp.ge.u32 %gz_q0, %gz_b6, %gz_b5;
\t@%gz_q0 bra $gz_missing;
\tld.global.u64 %gz_a4, [%gz_a3];
\tsetp.eq.u64 %gz_q1, %gz_a4, %gz_a0;
\t@%gz_q1 bra $gz_found;
\tadd.s64 %gz_a3, %gz_a3, {entry};
\tadd.s32 %gz_b6, %gz_b6, 1;
\tbra $gz_scan;
$gz_found:
\tatom.global.cas.b64 %gz_a6, [%gz_a3], %gz_a0, %gz_a9;
\tsetp.ne.u64 %gz_q1, %gz_a6, %gz_a0;
\t@%gz_q1 bra $gz_missing;
\tst.global.u32 [%gz_a3+12], %gz_b1;
\tbra $gz_call;
$gz_missing:
\tsetp.gt.u32 %gz_q0, %gz_b8, {cap};
\t@%gz_q0 bra $gz_call;
\tmov.u32 %gz_b7, {bad};
\tmov.u32 %gz_b9, 0;
\tmov.u64 %gz_a3, %gz_a8;
\tmov.u32 %gz_b6, 0;
$gz_why:
\tsetp.ge.u32 %gz_q0, %gz_b6, %gz_b5;
\t@%gz_q0 bra $gz_refuse;
\tadd.s32 %gz_b10, %gz_b6, 1;
\tld.global.u64 %gz_a4, [%gz_a3];
\tsetp.eq.u64 %gz_q1, %gz_a4, %gz_a9;
\t@%gz_q1 mov.u32 %gz_b9, %gz_b10;
\t@%gz_q1 mov.u32 %gz_b7, {double};
\t@%gz_q1 bra $gz_next;
\tand.b64 %gz_a4, %gz_a4, {addr_mask};
\tld.global.u32 %gz_b11, [%gz_a3+8];
\tcvt.u64.u32 %gz_a5, %gz_b11;
\tsub.s64 %gz_a6, %gz_a0, %gz_a4;
\tsetp.lt.u64 %gz_q2, %gz_a6, %gz_a5;
\tsetp.eq.and.u32 %gz_q2, %gz_b7, {bad}, %gz_q2;
\t@%gz_q2 mov.u32 %gz_b9, %gz_b10;
$gz_next:
\tadd.s64 %gz_a3, %gz_a3, {entry};
\tadd.s32 %gz_b6, %gz_b6, 1;
\tbra $gz_why;
$gz_refuse:
{record}\tret;
$gz_call:
\t{{
\t.param .b64 gz_p;
\tst.param.b64 [gz_p], %gz_a0;
\tcall.uni free, (gz_p);
\t}}
\tret;
}}
",
        table = heap_table(),
        len = L::HEAP_LEN,
        cap = L::HEAP_CAP,
        entry = L::ENTRY_BYTES,
        freed = L::HEAP_FREED,
        addr_mask = !L::HEAP_FREED,
        bad = FaultKind::BadFree as u32,
        double = FaultKind::DoubleFree as u32,
        record = record("%gz_a1", "%gz_b7", "%gz_b1", "%gz_b9", "%gz_a0"),
    );
    s
}

/// An access wholly inside the shared memory the CUDA runtime reserves for itself (cooperative
/// groups' tiles of more than 32 threads keep their scratch and barrier there, found through
/// `%reserved_smem_offset_*`) is legal and counted, as on the emulator: jump past the table
/// scan to `$gz_reserved`. Only emitted for modules that read those registers.
const RESERVED_WINDOW: &str = "\tmov.u32 %gz_b10, %reserved_smem_offset_begin;
\tmov.u32 %gz_b11, %reserved_smem_offset_end;
\tcvt.u64.u32 %gz_a10, %gz_b10;
\tcvt.u64.u32 %gz_a11, %gz_b11;
\tadd.s64 %gz_a8, %gz_a0, %gz_a2;
\tsetp.ge.u64 %gz_q2, %gz_a0, %gz_a10;
\tsetp.le.and.u64 %gz_q2, %gz_a8, %gz_a11, %gz_q2;
\t@%gz_q2 bra $gz_reserved;
";

/// A global access wholly inside a cooperative launch's grid workspace (`{ size, barrier }` at
/// the address the driver puts in `%envreg1:%envreg2`, 0 in a plain launch), where cooperative
/// groups' grid sync counts arrivals: the library's, so legal and not counted, as on the
/// emulator (`emu/cooperative.rs`): jump to `$gz_library`. Only emitted for modules with a grid
/// sync.
const GRID_WORKSPACE: &str = "\tmov.u32 %gz_b10, %envreg1;
\tmov.u32 %gz_b11, %envreg2;
\tmov.b64 %gz_a10, {%gz_b11, %gz_b10};
\tsetp.ne.u64 %gz_q2, %gz_a10, 0;
\tsub.s64 %gz_a11, %gz_a0, %gz_a10;
\tsetp.lt.and.u64 %gz_q2, %gz_a11, 8, %gz_q2;
\t@%gz_q2 bra $gz_library;
";

/// In a module with clusters, shared offsets are taken within a 16 MiB slice: the hardware
/// gives each block of a cluster its own slice of the shared window (an H200 placed a block's
/// own variables, and another's reached through `mapa`, 16 and 32 MiB apart), and the emulator
/// puts another block's shared memory `(rank + 1) << 28` away. Every block has the same
/// variables at the same place in its slice, so checking the offset within its slice against
/// this block's variables checks another block's access too: legal and counted, or out of
/// bounds. Applied to the address here and to each table entry's base in the scan.
const CLUSTER_SLICE: &str = "\tand.b64 %gz_a0, %gz_a0, 16777215;
";
const CLUSTER_SLICE_BASE: &str = "\tand.b64 %gz_a4, %gz_a4, 16777215;
";

/// `__gpuzzle_shared(addr, access, loc) -> b32` (`counted`), or `__gpuzzle_shared_check`, the
/// same check that counts nothing (an mbarrier operation, which the emulator does not count
/// as an access).
fn shared_helper(name: &str, counted: bool, reserved_smem: bool, clusters: bool) -> String {
    let mut s = format!(
        ".func (.param .b32 gz_ret) {name}(\n\t.param .b64 gz_addr,\n\t.param .b32 gz_access,\n\t.param .b32 gz_loc\n)\n{{\n"
    );
    s += DECLS;
    s += &check_prefix(&format!(
        "\tor.b32 %gz_b0, %gz_b0, {};\n",
        Access::SHARED_BIT
    ));
    s += &format!(
        "\tld.global.u32 %gz_b5, [%gz_a1+{len}];\n\tld.global.u64 %gz_a3, [%gz_a1+{off}];\n\tadd.s64 %gz_a3, %gz_a3, %gz_a1;\n",
        len = L::SHARED_LEN,
        off = L::SHARED_OFF,
    );
    if reserved_smem {
        s += RESERVED_WINDOW;
    }
    if clusters {
        s += CLUSTER_SLICE;
        s += &check_scan_with("$gz_fault", CLUSTER_SLICE_BASE);
    } else {
        s += &check_scan();
    }
    if reserved_smem {
        s += "$gz_reserved:\n";
    }
    if counted {
        s += &slot("%gz_a1", "%gz_a9");
        s += &format!("\tadd.s64 %gz_a9, %gz_a9, {};\n", L::REC_SHARED_READS);
        s += &count("%gz_a9", "%gz_b0");
    }
    s += "\tmov.u32 %gz_b9, 1;\n\tst.param.b32 [gz_ret], %gz_b9;\n\tret;\n$gz_fault:\n";
    s += &record("%gz_a1", "%gz_b7", "%gz_b1", "%gz_b0", "%gz_a0");
    s += "\tmov.u32 %gz_b9, 0;\n\tst.param.b32 [gz_ret], %gz_b9;\n\tret;\n}\n\n";
    s
}

/// The module-level text inserted after the header: the pointer variable and the helpers.
/// `reserved_smem`: the module reads `%reserved_smem_offset_*`, so the shared helper also
/// accepts the runtime's reserved shared memory. `heap`: the module calls `malloc`, so the
/// global check also accepts live heap blocks. `grid_sync`: the module syncs a grid, so the
/// global helper also accepts the grid workspace. `clusters`: a kernel runs in clusters, so the
/// shared helper also accepts other blocks' shared memory.
pub fn module_text(reserved_smem: bool, heap: bool, grid_sync: bool, clusters: bool) -> String {
    let mut s = String::new();
    s += "\n// ---- gpuzzle instrumentation: helpers for the counters, bounds checks and step limit\n";
    s += "// (generated by src/gpu/instrument/helpers.rs; the learner's code starts after them)\n";
    s += &format!(".global .align 8 .u64 {CTL_PTR};\n\n");

    // __gpuzzle_count(which, access)
    s += &format!(".func {COUNT}(\n\t.param .b32 gz_which,\n\t.param .b32 gz_access\n)\n{{\n");
    s += DECLS;
    s += &format!(
        "\tld.param.u32 %gz_b0, [gz_which];
\tld.param.u32 %gz_b1, [gz_access];
\tld.global.u64 %gz_a0, [{CTL_PTR}];
"
    );
    s += &slot("%gz_a0", "%gz_a1");
    s += &format!(
        "\tmul.wide.u32 %gz_a2, %gz_b0, {};\n\tadd.s64 %gz_a1, %gz_a1, %gz_a2;\n",
        L::REC_SPACE_BYTES
    );
    s += &count("%gz_a1", "%gz_b1");
    s += "\tret;\n}\n\n";

    // __gpuzzle_global(addr, access, loc) -> b64
    s += &format!(
        ".func (.param .b64 gz_ret) {GLOBAL}(\n\t.param .b64 gz_addr,\n\t.param .b32 gz_access,\n\t.param .b32 gz_loc\n)\n{{\n"
    );
    s += DECLS;
    s += &check_prefix(if grid_sync { GRID_WORKSPACE } else { "" });
    s += &format!(
        "\tld.global.u32 %gz_b5, [%gz_a1+{table_len}];\n\tadd.s64 %gz_a3, %gz_a1, {table};\n",
        table_len = L::TABLE_LEN,
        table = L::TABLE,
    );
    if heap {
        s += &check_scan_or("$gz_heap");
        s += "\tbra $gz_legal;\n";
        s += &heap_scan();
        s += "$gz_legal:\n";
    } else {
        s += &check_scan();
    }
    s += &slot("%gz_a1", "%gz_a9");
    s += &count("%gz_a9", "%gz_b0");
    if grid_sync {
        s += "$gz_library:\n";
    }
    s += "\tmov.u64 %gz_a10, 0;\n\tst.param.b64 [gz_ret], %gz_a10;\n\tret;\n$gz_fault:\n";
    s += &record("%gz_a1", "%gz_b7", "%gz_b1", "%gz_b0", "%gz_a0");
    s += &format!(
        "\tadd.s64 %gz_a10, %gz_a1, {zero};\n\tst.param.b64 [gz_ret], %gz_a10;\n\tret;\n}}\n\n",
        zero = L::ZERO
    );

    // __gpuzzle_shared(addr, access, loc) -> b32, and the same check without the count.
    s += &shared_helper(SHARED, true, reserved_smem, clusters);
    s += &shared_helper(SHARED_CHECK, false, reserved_smem, clusters);

    // __gpuzzle_generic(addr, access, loc) -> b64
    s += &format!(
        ".func (.param .b64 gz_ret) {GENERIC}(\n\t.param .b64 gz_addr,\n\t.param .b32 gz_access,\n\t.param .b32 gz_loc\n)\n{{\n"
    );
    s += DECLS;
    s += &format!(
        "\tld.param.u64 %gz_a0, [gz_addr];
\tld.param.u32 %gz_b0, [gz_access];
\tld.param.u32 %gz_b1, [gz_loc];
\tmov.u64 %gz_a1, 0;
\tisspacep.global %gz_q0, %gz_a0;
\t@%gz_q0 bra $gz_global;
\tisspacep.shared %gz_q0, %gz_a0;
\t@!%gz_q0 bra $gz_done;
\tcvta.to.shared.u64 %gz_a2, %gz_a0;
\t{{
\t.param .b64 gz_arg0;
\t.param .b32 gz_arg1;
\t.param .b32 gz_arg2;
\t.param .b32 gz_r;
\tst.param.b64 [gz_arg0], %gz_a2;
\tst.param.b32 [gz_arg1], %gz_b0;
\tst.param.b32 [gz_arg2], %gz_b1;
\tcall (gz_r), {SHARED}, (gz_arg0, gz_arg1, gz_arg2);
\tld.param.b32 %gz_b2, [gz_r];
\t}}
\tsetp.ne.u32 %gz_q0, %gz_b2, 0;
\t@%gz_q0 bra $gz_done;
\tld.global.u64 %gz_a3, [{CTL_PTR}];
\tadd.s64 %gz_a1, %gz_a3, {zero};
\tbra $gz_done;
$gz_global:
\t{{
\t.param .b64 gz_arg0;
\t.param .b32 gz_arg1;
\t.param .b32 gz_arg2;
\t.param .b64 gz_r;
\tst.param.b64 [gz_arg0], %gz_a0;
\tst.param.b32 [gz_arg1], %gz_b0;
\tst.param.b32 [gz_arg2], %gz_b1;
\tcall (gz_r), {GLOBAL}, (gz_arg0, gz_arg1, gz_arg2);
\tld.param.b64 %gz_a1, [gz_r];
\t}}
$gz_done:
\tst.param.b64 [gz_ret], %gz_a1;
\tret;
}}

",
        zero = L::ZERO
    );

    // __gpuzzle_fault(kind, loc, addr)
    s += &format!(
        ".func {FAULT}(\n\t.param .b32 gz_kind,\n\t.param .b32 gz_loc,\n\t.param .b64 gz_addr\n)\n{{\n"
    );
    s += DECLS;
    s += &format!(
        "\tld.param.u32 %gz_b7, [gz_kind];
\tld.param.u32 %gz_b1, [gz_loc];
\tld.param.u64 %gz_a0, [gz_addr];
\tld.global.u64 %gz_a1, [{CTL_PTR}];
\tmov.u32 %gz_b0, 0;
"
    );
    s += &record("%gz_a1", "%gz_b7", "%gz_b1", "%gz_b0", "%gz_a0");
    s += "\tret;\n}\n\n";

    // __gpuzzle_fault_with(kind, loc, addr, access)
    s += &format!(
        ".func {FAULT_WITH}(\n\t.param .b32 gz_kind,\n\t.param .b32 gz_loc,\n\t.param .b64 gz_addr,\n\t.param .b32 gz_access\n)\n{{\n"
    );
    s += DECLS;
    s += &format!(
        "\tld.param.u32 %gz_b7, [gz_kind];
\tld.param.u32 %gz_b1, [gz_loc];
\tld.param.u64 %gz_a0, [gz_addr];
\tld.param.u32 %gz_b0, [gz_access];
\tld.global.u64 %gz_a1, [{CTL_PTR}];
"
    );
    s += &record("%gz_a1", "%gz_b7", "%gz_b1", "%gz_b0", "%gz_a0");
    s += "\tret;\n}\n\n";

    // __gpuzzle_unsupported(site)
    s += &format!(".func {UNSUPPORTED}(\n\t.param .b32 gz_site\n)\n{{\n");
    s += DECLS;
    s += &format!(
        "\tld.param.u32 %gz_b0, [gz_site];
\tld.global.u64 %gz_a1, [{CTL_PTR}];
\tld.volatile.global.u32 %gz_b2, [%gz_a1+{stop}];
\tsetp.ne.u32 %gz_q0, %gz_b2, 0;
\t@%gz_q0 bra $gz_out;
\tadd.s32 %gz_b0, %gz_b0, 1;
\tmov.u32 %gz_b2, 0;
\tatom.global.cas.b32 %gz_b2, [%gz_a1+{site}], %gz_b2, %gz_b0;
\tmov.u32 %gz_b9, 1;
\tst.volatile.global.u32 [%gz_a1+{stop}], %gz_b9;
$gz_out:
\tret;
}}

",
        stop = L::STOP,
        site = L::UNSUPPORTED,
    );

    // __gpuzzle_step(loc) -> b32
    s += &format!(".func (.param .b32 gz_ret) {STEP}(\n\t.param .b32 gz_loc\n)\n{{\n");
    s += DECLS;
    s += &format!(
        "\tld.param.u32 %gz_b1, [gz_loc];
\tld.global.u64 %gz_a1, [{CTL_PTR}];
\tmov.u32 %gz_b9, 1;
\tld.volatile.global.u32 %gz_b2, [%gz_a1+{stop}];
\tsetp.ne.u32 %gz_q0, %gz_b2, 0;
\t@%gz_q0 bra $gz_out;
",
        stop = L::STOP
    );
    s += &slot("%gz_a1", "%gz_a9");
    s += &format!(
        "\tld.global.u64 %gz_a3, [%gz_a9+{steps}];
\tadd.s64 %gz_a3, %gz_a3, 1;
\tst.global.u64 [%gz_a9+{steps}], %gz_a3;
\tld.global.u64 %gz_a4, [%gz_a1+{budget}];
\tmov.u32 %gz_b9, 0;
\tsetp.le.u64 %gz_q0, %gz_a3, %gz_a4;
\t@%gz_q0 bra $gz_out;
\tmov.u32 %gz_b7, {step_limit};
\tmov.u32 %gz_b0, 0;
\tmov.u64 %gz_a0, 0;
",
        steps = L::REC_STEPS,
        budget = L::STEP_BUDGET,
        step_limit = FaultKind::StepLimit as u32,
    );
    s += &record("%gz_a1", "%gz_b7", "%gz_b1", "%gz_b0", "%gz_a0");
    s += &format!(
        "\tmov.u32 %gz_b9, 1;
\tst.volatile.global.u32 [%gz_a1+{stop}], %gz_b9;
$gz_out:
\tst.param.b32 [gz_ret], %gz_b9;
\tret;
}}
// ---- end of gpuzzle instrumentation helpers

",
        stop = L::STOP
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_parse_as_ptx_and_define_every_function() {
        for (reserved_smem, heap, grid_sync, clusters) in [
            (false, false, false, false),
            (true, false, false, false),
            (false, true, false, false),
            (false, false, true, false),
            (false, false, false, true),
            (true, true, true, true),
        ] {
            let decls = if heap {
                ".extern .func (.param .b64 r) malloc(.param .b64 n);\n.extern .func free(.param .b64 p);\n".to_string()
            } else {
                String::new()
            };
            let heap_fns = if heap {
                format!("{}{}", malloc_helper(), free_helper())
            } else {
                String::new()
            };
            let text = format!(
                ".version 8.8\n.target sm_80\n.address_size 64\n{}{decls}{heap_fns}",
                module_text(reserved_smem, heap, grid_sync, clusters)
            );
            let m = crate::ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(m.uses_reserved_smem, reserved_smem);
            let mut names = vec![
                COUNT,
                GLOBAL,
                SHARED,
                SHARED_CHECK,
                GENERIC,
                STEP,
                UNSUPPORTED,
                FAULT,
                FAULT_WITH,
            ];
            if heap {
                names.extend([MALLOC, FREE]);
            }
            for name in names {
                let (_, f) = m.function(name).unwrap();
                assert!(!f.body.is_empty(), "{name}");
                assert!(!f
                    .body
                    .iter()
                    .any(|i| matches!(i.op, crate::ptx::ir::Op::Unsupported { .. })));
            }
            assert!(m.globals.iter().any(|g| g.name == CTL_PTR && g.size == 8));
        }
    }
}
