//! The PTX instrumenter for the GPU backend: rewrites NVRTC's PTX so that a kernel counts its own
//! memory accesses per thread, bounds-checks every global access against the launch's buffers
//! (skipping an illegal one so the CUDA context survives), and stops runaway loops.
//!
//! It works on the text, so the output is ordinary PTX for NVIDIA's `ptxas` and for gpuzzle's own
//! parser and emulator alike (that is how it is tested without a GPU: `gpu::via_emu`). Untouched
//! text, `.loc` lines included, is copied through verbatim.
//!
//! What changes:
//! - every kernel (`.entry`) gets one trailing parameter `.param .u64 __gpuzzle_ctl`, the address
//!   of the control block (`gpu::ctl`); at entry each thread stores it in the module variable
//!   `__gpuzzle_ctl_ptr` (so device functions find it without new parameters) and writes the table
//!   entries of the module variables the code takes the address of (`__device__` arrays, `$str`);
//! - every `ld`/`ldu`/`st`/`atom`/`red` on `.global` (including `ld.global.nc`) and every generic
//!   one (no space: classified at run time with `isspacep`) calls a checking helper first and runs
//!   only when the access lies inside one table entry and is aligned; otherwise the first such
//!   fault is recorded and the access is skipped (a skipped load or atomic leaves 0);
//! - every `ld`/`st`/`atom`/`red` on `.shared` (and every generic one that lands in shared memory)
//!   is counted and checked the same way against the module's shared variables, one slot each,
//!   the dynamic one sized by `%dynamic_smem_size`; each function fills the slots of the shared
//!   variables it declares (kernels also the module-level ones). A shared index past the block's
//!   allocation would kill the context as surely as a wild global pointer, and the emulator
//!   checks shared bounds per variable too, so the two report the same thing;
//! - every `wmma.load`/`wmma.store` (WMMA, `mma.h`) checks and counts each element of each
//!   lane's fragment through the same helpers (`wmma.rs`); the warp skips the instruction
//!   together when any lane found an illegal element (a skipped load leaves zeros);
//! - every `mbarrier.*` operation (and `cp.async.mbarrier.arrive`) checks its 8-byte barrier
//!   object against the shared variables, without counting it (`mbarrier.rs`), and is skipped
//!   when it is illegal;
//! - `ld.const` counts as a global read (as in the emulator) without a check; `.local` and
//!   `.param` accesses are left alone;
//! - every taken backward branch (`bra` to an earlier label), and every entry into a device
//!   function (so recursion is metered too), counts a step; past the budget the
//!   thread records a step-limit fault, raises the stop flag, and exits; every other thread exits
//!   at its next backward branch. Exited threads count as arrived at `bar.sync`, so no block hangs.
//!
//! - `trap` and calls to `__assertfail` (a failed `assert()`), which on a GPU abort the kernel
//!   and lose the CUDA context, record a fault instead (its kind, the `.loc` in force, and for an
//!   assert its message's address, which the host finds among the module strings); the trapping
//!   thread exits and the asserting one goes on, as on the emulator.
//!
//! Device functions (`.func`) are instrumented like kernels, with unchanged signatures and call
//! sites: the helpers reach the control block through `__gpuzzle_ctl_ptr`. (So two launches of
//! one loaded module must not overlap with different control blocks; gpuzzle launches one at a
//! time.) The helpers themselves are in `helpers.rs`. Every kernel of the module is instrumented
//! (kernels may share device functions); `kernel` names the one the caller means to launch.
//!
//! Instructions gpuzzle does not support (those the parser marks `Op::Unsupported`: bulk
//! copies `cp.async.bulk`, textures, ...) are not refused up front: the emulator minds one
//! only when a thread reaches it, so each is replaced by a run-time fault. A thread that reaches
//! the site records its index (`ctl::CtlLayout::UNSUPPORTED`) and exits, the stop flag ends the
//! others at their next backward branch, and the host names the instruction from the site table
//! (`Instrumented::unsupported`) with the emulator's own message and error. So a kernel whose
//! unsupported instruction is never reached runs instrumented with the emulator's outputs.
//!
//! In a module that reads `%reserved_smem_offset_*`, the shared check also accepts the
//! runtime's reserved window `[begin, end)`, counted as the emulator counts it, so cooperative
//! groups' tiles of more than 32 threads are not false out-of-bounds on the GPU.
//!
//! `st.async`/`red.async`, which the parser runs as a shared store and reduction, are checked as
//! those; a `cp.async` copy is checked as a global read and a shared write (`async_site.rs`).
//! The indirect branch `brx.idx` runs as written when every target of its `.branchtargets`
//! table lies ahead of it (NVRTC's `switch`; an index past the table is the GPU's to fault on,
//! where the emulator names it). Still refused (`Unsupported`) when the launched kernel can
//! reach them: a `brx.idx` that jumps back (a loop the step meter would not count);
//! `cp.async.bulk*`, should the parser ever learn to run it, which the helpers cannot check; and
//! a generic access through a symbol that is no variable (NVRTC never writes one). Recursion is
//! metered by its calls, not its depth, so recursion deeper than the GPU stack still overflows it.

mod async_site;
mod helpers;
mod matrix;
mod mbarrier;
mod scan;
mod site;
mod wmma;

pub use helpers::{CTL_PARAM, CTL_PTR};

use crate::gpu::ctl::{pack_loc, CtlLayout, ModuleVar, SharedVar};
use crate::ptx::ir::{demangle_var, Inst, Op, Space as IrSpace, Variable};
use scan::{RegWidths, StmtKind};
use site::{SiteWriter, Space, SymKind};
use std::collections::{HashMap, HashSet};

/// What to instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrumentOptions {
    /// Meter backward branches (the step limit). Off only for trusted, loop-free kernels.
    pub step_limit: bool,
}

impl Default for InstrumentOptions {
    fn default() -> Self {
        InstrumentOptions { step_limit: true }
    }
}

/// How many sites of each kind were rewritten (for tests and `--verbose`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SiteCounts {
    pub global: usize,
    pub generic: usize,
    pub shared: usize,
    pub constant: usize,
    pub branches: usize,
    /// Device functions whose entry is metered.
    pub calls: usize,
    /// Unsupported instructions replaced by a run-time fault.
    pub unsupported: usize,
    /// `trap`s and calls to `__assertfail` replaced by a recorded fault.
    pub traps: usize,
    /// Calls to `malloc`/`free` routed through the heap-table helpers.
    pub heap: usize,
    /// WMMA loads and stores whose fragment elements are checked and counted.
    pub wmma: usize,
    /// mbarrier operations whose barrier object is checked (not counted).
    pub mbarrier: usize,
}

/// An instruction gpuzzle does not support, replaced by a run-time fault: what the host needs to
/// report it as the emulator does when a thread reaches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedSite {
    /// The instruction as the emulator names it (`cp.async.bulk…`).
    pub what: String,
    /// Its line in the kernel's PTX (1-based).
    pub ptx_line: usize,
    /// Index into the module's `.file` names, and the source line, as the emulator has them
    /// (0: unknown).
    pub file: u32,
    pub line: u32,
}

/// The rewritten module.
#[derive(Clone, Debug)]
pub struct Instrumented {
    pub ptx: String,
    /// The kernel's PTX name (mangled when it is not `extern "C"`), for loading it by name.
    pub entry: String,
    pub layout: CtlLayout,
    pub sites: SiteCounts,
    /// The unsupported-instruction sites, by the index the control block reports.
    pub unsupported: Vec<UnsupportedSite>,
}

#[derive(Debug, thiserror::Error)]
pub enum InstrumentError {
    #[error("the kernel's PTX could not be parsed: {0}")]
    Parse(#[from] crate::ptx::ParseError),
    #[error("no kernel named `{name}` in the compiled module (kernels found: {found})")]
    NoSuchKernel { name: String, found: String },
    #[error("PTX line {line}: {message}; gpuzzle cannot instrument this PTX for the GPU (run it on the emulator instead)")]
    Malformed { line: usize, message: String },
    #[error("PTX line {line}: {what} cannot be instrumented for the GPU yet; run this kernel on the emulator instead")]
    Unsupported { line: usize, what: String },
    #[error("the PTX already uses the name `{name}`, which gpuzzle's instrumentation reserves")]
    NameClash { name: String },
}

/// Instrument every kernel of `ptx`; `kernel` (C name or PTX name) must be one of them.
pub fn instrument(
    ptx: &str,
    kernel: &str,
    opts: &InstrumentOptions,
) -> Result<Instrumented, InstrumentError> {
    check_reserved_names(ptx)?;
    let module = crate::ptx::parse(ptx)?;
    let Some((_, entry)) = module.find_entry(kernel) else {
        let found: Vec<String> = module.entries().map(|f| demangle_var(&f.name)).collect();
        return Err(InstrumentError::NoSuchKernel {
            name: kernel.to_string(),
            found: if found.is_empty() {
                "none".into()
            } else {
                found.join(", ")
            },
        });
    };
    let scanned = scan::scan(ptx).map_err(|e| InstrumentError::Malformed {
        line: e.line,
        message: e.message,
    })?;

    // Module variables the code takes the address of: legal targets of global accesses.
    let module_vars: Vec<ModuleVar> = module
        .globals
        .iter()
        .filter(|g| g.size > 0 && scanned.referenced.contains(&g.name))
        .map(|g| ModuleVar {
            name: g.name.clone(),
            size: g.size,
            elem_size: g.elem_size.max(1),
            constant: g.space == IrSpace::Const,
        })
        .collect();
    let mut module_syms: HashMap<String, SymKind> = HashMap::new();
    for g in &module.globals {
        let k = if g.space == IrSpace::Const {
            SymKind::Const
        } else {
            SymKind::Global
        };
        module_syms.insert(g.name.clone(), k);
    }
    for (v, _) in &module.shared {
        module_syms.insert(v.name.clone(), SymKind::Shared);
    }
    // One shared-table slot per shared variable of the module. A function fills the slots of the
    // variables it can name: those declared in its body, and for a kernel the module-level ones.
    let in_bodies: Vec<&String> = scanned
        .functions
        .iter()
        .flat_map(|f| &f.shared_decls)
        .collect();
    let shared_slots_of = |f: &scan::FunctionText| -> Vec<(usize, &Variable)> {
        module
            .shared
            .iter()
            .map(|(v, _)| v)
            .enumerate()
            .filter(|(_, v)| {
                f.shared_decls.contains(&v.name) || (f.is_entry && !in_bodies.contains(&&v.name))
            })
            .collect()
    };
    let shared_vars: Vec<SharedVar> = module
        .shared
        .iter()
        .map(|(v, _)| SharedVar {
            name: v.name.clone(),
            elem_size: v.elem_size.max(1),
            dynamic: v.dynamic,
        })
        .collect();

    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // Device `malloc`/`free` (and `new`/`delete`, which call them): each call goes through a
    // helper that keeps the heap's live blocks in the control block, so accesses to them are
    // legal as on the emulator. The helpers call the real functions, so they follow the
    // module's own declarations of them.
    let malloc_decl = extern_decl_end(ptx, "malloc");
    let heap = malloc_decl.is_some();
    edits.push((
        scanned.header_end,
        scanned.header_end,
        helpers::module_text(
            module.uses_reserved_smem,
            heap,
            !module.group_sync_aborts.is_empty(),
            !module.cluster_dims.is_empty(),
        ),
    ));
    if let Some(at) = malloc_decl {
        edits.push((at, at, helpers::malloc_helper()));
    }
    if let Some(at) = extern_decl_end(ptx, "free") {
        edits.push((at, at, helpers::free_helper()));
    }
    let mut sites = SiteCounts::default();
    let mut unsupported: Vec<UnsupportedSite> = Vec::new();
    let launched = reachable(&scanned.functions, &entry.name);
    for f in &scanned.functions {
        let mut symbols = module_syms.clone();
        if let Some((_, irf)) = module.function(&f.name) {
            for (v, _) in &irf.local_vars {
                symbols.insert(v.name.clone(), SymKind::Local);
            }
        }
        let ir_of = ir_by_stmt(&module, f, ptx)?;
        let regs = RegWidths::from_stmts(&f.stmts);
        let mut w = SiteWriter {
            regs: &regs,
            symbols: &symbols,
            next_label: 0,
        };
        if f.is_entry {
            let at = ptx[..f.params_close].trim_end().len();
            let text = if f.params_empty {
                format!("\n\t.param .u64 {CTL_PARAM}\n")
            } else {
                format!(",\n\t.param .u64 {CTL_PARAM}")
            };
            edits.push((at, at, text));
        }
        // Declarations and the prologue go before the first instruction or label, at the
        // body's own level: before a `{` block that holds the first instruction (a call
        // sequence), whose declarations end at its `}` (PTX's scoping).
        let first = f.stmts.iter().find(|s| {
            matches!(
                s.kind,
                StmtKind::Instr(_) | StmtKind::Label(_) | StmtKind::Open
            )
        });
        if let Some(first) = first {
            let mut lines = vec![
                "// gpuzzle instrumentation registers".to_string(),
                ".reg .b64 %gz_rd<3>;".into(),
                ".reg .b32 %gz_r<1>;".into(),
                ".reg .pred %gz_p<1>;".into(),
            ];
            lines.extend(prologue(f.is_entry, &module_vars, &shared_slots_of(f)));
            // A call is the other way to run without end (recursion): each entry of a device
            // function counts a step, at the function's first line.
            if !f.is_entry && opts.step_limit {
                lines.extend(site::step(first_loc(&f.stmts)));
                sites.calls += 1;
            }
            let mut text = site::join(&lines);
            text.push_str("\n\t");
            edits.push((first.span.start, first.span.start, text));
        }
        let labels: HashMap<&str, usize> = f
            .stmts
            .iter()
            .enumerate()
            .filter_map(|(k, s)| match &s.kind {
                StmtKind::Label(l) => Some((l.as_str(), k)),
                _ => None,
            })
            .collect();
        let mut loc = 0u32;
        for (k, s) in f.stmts.iter().enumerate() {
            let whole = &ptx[s.span.clone()];
            // What the emulator cannot run becomes a fault where it stands.
            if let Some(Inst {
                op: Op::Unsupported { text },
                line,
                file,
                ..
            }) = ir_of[k]
            {
                let guard = match &s.kind {
                    StmtKind::Instr(i) => i.guard.as_deref(),
                    _ => None,
                };
                edits.push((
                    s.span.start,
                    s.span.end,
                    w.unsupported(guard, whole, unsupported.len()),
                ));
                unsupported.push(UnsupportedSite {
                    what: text.clone(),
                    ptx_line: s.line,
                    file: *file,
                    line: *line,
                });
                sites.unsupported += 1;
                continue;
            }
            let i = match &s.kind {
                StmtKind::Loc { file, line } => {
                    if *line > 0 {
                        loc = pack_loc(*file, *line);
                    }
                    continue;
                }
                StmtKind::Instr(i) => i,
                _ => continue,
            };
            let base = i.opcode.split('.').next().unwrap_or("");
            if base == "brx" {
                // A jump table whose targets all lie ahead (a `switch`) makes no loop the step
                // meter would miss: it runs as written. One that jumps back is refused.
                // Its index is checked against the table first, as the emulator checks it.
                let pc = ir_of[..k].iter().filter(|x| x.is_some()).count() as u32;
                let table = match ir_of[k] {
                    Some(Inst {
                        op: Op::Brx { targets, .. },
                        ..
                    }) => Some(targets),
                    _ => None,
                };
                let forward = table.is_some_and(|t| t.iter().all(|&t| t > pc));
                if forward {
                    if let (Some(t), Some(index)) = (table, i.operands.first()) {
                        let check = w.brx_check(i.guard.as_deref(), index, t.len(), loc);
                        edits.push((s.span.start, s.span.start, format!("{check}\n\t")));
                    }
                    continue;
                }
                if !launched.contains(f.name.as_str()) {
                    continue;
                }
                return Err(InstrumentError::Unsupported {
                    line: s.line,
                    what: format!("the indirect branch `{}` back into a loop", i.opcode),
                });
            }
            // A trap would abort the kernel and take the CUDA context with it; the emulator
            // stops the thread and reports it. So does the instrumented kernel.
            if base == "trap" {
                let text = w.trap(i.guard.as_deref(), whole, loc);
                edits.push((s.span.start, s.span.end, text));
                sites.traps += 1;
                continue;
            }
            if base == "call" {
                let callee = i.operands.iter().find_map(|o| match o.trim() {
                    "malloc" => Some(("malloc", helpers::MALLOC)),
                    "free" => Some(("free", helpers::FREE)),
                    _ => None,
                });
                if let Some((name, helper)) = callee {
                    let text = if name == "free" {
                        // At the learner's line the emulator names.
                        let at = ir_of[k].map_or(loc, |inst| pack_loc(inst.file, inst.line));
                        free_call(whole, at)
                    } else {
                        replace_word(whole, name, helper)
                    };
                    if let Some(text) = text {
                        edits.push((s.span.start, s.span.end, text));
                        sites.heap += 1;
                        continue;
                    }
                }
            }
            if base == "call" && i.operands.first().map(String::as_str) == Some("__assertfail") {
                let message = assert_message(&f.stmts[..k], i);
                let text = w.assert_fail(i.guard.as_deref(), whole, loc, &message);
                edits.push((s.span.start, s.span.end, text));
                sites.traps += 1;
                continue;
            }
            if base == "bra" {
                let backward = i
                    .operands
                    .first()
                    .and_then(|t| labels.get(t.as_str()))
                    .is_some_and(|&t| t <= k);
                if backward && opts.step_limit {
                    edits.push((s.span.start, s.span.end, w.back_branch(i, whole, loc)));
                    sites.branches += 1;
                }
                continue;
            }
            // WMMA loads and stores: each lane's fragment elements, checked and counted.
            if let Some(Inst {
                op: Op::Wmma(op),
                line,
                file,
                ..
            }) = ir_of[k]
            {
                let orig = &ptx[i.start..s.span.end];
                if let Some(text) = wmma::site(&mut w, i, orig, op, pack_loc(*file, *line), s.line)?
                {
                    sites.wmma += 1;
                    edits.push((s.span.start, s.span.end, text));
                }
                continue;
            }
            // mbarrier operations: the 8-byte barrier object checked, not counted (`mbarrier.rs`).
            if mbarrier::is_mbarrier_op(i) {
                let orig = &ptx[i.start..s.span.end];
                let at = ir_of[k].map_or(loc, |inst| pack_loc(inst.file, inst.line));
                match mbarrier::checked(&mut w, i, orig, at, s.line) {
                    Ok(text) => {
                        sites.mbarrier += 1;
                        edits.push((s.span.start, s.span.end, text));
                    }
                    Err(_) if !launched.contains(f.name.as_str()) => {}
                    Err(e) => return Err(e),
                }
                continue;
            }
            if async_site::is_copy(i) {
                let orig = &ptx[i.start..s.span.end];
                // At the learner's line the emulator names (the copy is inlined from NVIDIA's
                // headers, whose `.loc` the parser follows out to the caller).
                let at = ir_of[k].map_or(loc, |inst| pack_loc(inst.file, inst.line));
                let text = w.async_copy(i, orig, at, s.line)?;
                edits.push((s.span.start, s.span.end, text));
                sites.global += 1;
                sites.shared += 1;
                continue;
            }
            // `ldmatrix`/`stmatrix`: each lane's 16-byte row checked and counted (`matrix.rs`).
            if matrix::is_matrix_move(base) {
                let orig = &ptx[i.start..s.span.end];
                match matrix::checked(&mut w, i, orig, loc, s.line) {
                    Ok(text) => {
                        sites.shared += 1;
                        edits.push((s.span.start, s.span.end, text));
                    }
                    Err(_) if !launched.contains(f.name.as_str()) => {}
                    Err(e) => return Err(e),
                }
                continue;
            }
            let m = match site::mem_op(i, s.line) {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                // Code this launch cannot reach stays as it is, like the emulator, which minds
                // an instruction it cannot run only when it runs it.
                Err(InstrumentError::Unsupported { .. }) if !launched.contains(f.name.as_str()) => {
                    continue
                }
                Err(e) => return Err(e),
            };
            let text = match m.space {
                Space::Global | Space::Generic | Space::Shared => {
                    match m.space {
                        Space::Global => sites.global += 1,
                        Space::Generic => sites.generic += 1,
                        _ => sites.shared += 1,
                    }
                    let orig = &ptx[i.start..s.span.end];
                    match w.checked(i, orig, &m, loc, s.line) {
                        Ok(text) => text,
                        Err(InstrumentError::Unsupported { .. })
                            if !launched.contains(f.name.as_str()) =>
                        {
                            continue
                        }
                        Err(e) => return Err(e),
                    }
                }
                Space::Const => {
                    sites.constant += 1;
                    w.counted(i, whole, &m)
                }
            };
            edits.push((s.span.start, s.span.end, text));
        }
    }

    Ok(Instrumented {
        ptx: apply(ptx, edits),
        entry: entry.name.clone(),
        layout: CtlLayout {
            module_vars,
            shared_vars,
            heap,
        },
        sites,
        unsupported,
    })
}

/// Directives the parser reads as declarations inside a body (`.callprototype`: an indirect
/// call's signature; `.branchtargets`: a jump table); it reads any other directive there as
/// an instruction, unsupported, and so do we.
const BODY_DECLARATIONS: &[&str] = &[
    ".pragma",
    ".reg",
    ".param",
    ".local",
    ".shared",
    ".global",
    ".const",
    ".callprototype",
    ".branchtargets",
];

/// The parsed instruction of each statement of `f` (None for labels, `.loc`, declarations), so
/// the instrumenter can ask what the emulator makes of it. The parser has one instruction per
/// instruction statement, in the same order, and one `ret`/`exit` more at the end; two readings
/// that disagree are a gpuzzle bug.
fn ir_by_stmt<'m>(
    module: &'m crate::ptx::Module,
    f: &scan::FunctionText,
    ptx: &str,
) -> Result<Vec<Option<&'m Inst>>, InstrumentError> {
    let is_instruction = |s: &scan::Stmt| match &s.kind {
        StmtKind::Instr(_) => true,
        StmtKind::Decl => {
            let word = ptx[s.span.clone()]
                .split(|c: char| c.is_whitespace() || c == ';')
                .next()
                .unwrap_or("");
            !BODY_DECLARATIONS.contains(&word) && !word.starts_with(".reg.")
        }
        _ => false,
    };
    let Some((_, irf)) = module.function(&f.name) else {
        return Ok(vec![None; f.stmts.len()]);
    };
    let mut body = irf.body.iter();
    let mut out = Vec::with_capacity(f.stmts.len());
    let mut agree = true;
    for s in &f.stmts {
        if !is_instruction(s) {
            out.push(None);
            continue;
        }
        let ir = body.next();
        agree &= match (ir.map(|i| &i.op), &s.kind) {
            (None, _) => false,
            (Some(Op::Unsupported { text }), StmtKind::Instr(i)) => *text == i.opcode,
            (Some(Op::Unsupported { text }), _) => ptx[s.span.clone()].starts_with(text.as_str()),
            // A declaration the parser reads as an instruction is one it cannot run.
            (Some(_), StmtKind::Decl) => false,
            _ => true,
        };
        out.push(ir);
    }
    // The parser's closing `ret`/`exit`.
    agree &= body.len() == 1;
    if !agree {
        return Err(InstrumentError::Malformed {
            line: f.stmts.first().map_or(0, |s| s.line),
            message: format!(
                "gpuzzle's two readings of `{}` disagree on its instructions (a gpuzzle bug: please report it)",
                f.name
            ),
        });
    }
    Ok(out)
}

/// The operand that `call __assertfail, (param0, ...)` passes as its message (`param0`): the
/// value the call sequence stored there (`st.param.b64 [param0+0], %rd6;`), or `0` when it
/// cannot be found (the host then reports the assert without its text).
fn assert_message(before: &[scan::Stmt], call: &scan::Instr) -> String {
    let Some(first) = call.operands.get(1).and_then(|args| {
        args.trim_start_matches('(')
            .split(',')
            .next()
            .map(|a| a.trim().trim_end_matches(')').trim().to_string())
    }) else {
        return "0".into();
    };
    for s in before.iter().rev() {
        match &s.kind {
            // The call sequence's block starts here: nothing before it is its argument.
            StmtKind::Open => break,
            StmtKind::Instr(i) if i.opcode.starts_with("st.param") => {
                let to = i.operands.first().and_then(|a| site::parse_address(a));
                if to.is_some_and(|(base, off)| base == first && off == 0) {
                    if let Some(v) = i.operands.get(1) {
                        return v.clone();
                    }
                }
            }
            _ => {}
        }
    }
    "0".into()
}

/// The functions a launch of `entry` can run: it and every function it calls, transitively.
fn reachable<'a>(functions: &'a [scan::FunctionText], entry: &str) -> HashSet<&'a str> {
    let by_name: HashMap<&str, &scan::FunctionText> =
        functions.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut todo: Vec<&str> = by_name
        .get_key_value(entry)
        .map(|(k, _)| *k)
        .into_iter()
        .collect();
    while let Some(name) = todo.pop() {
        if !seen.insert(name) {
            continue;
        }
        let Some(f) = by_name.get(name) else { continue };
        for s in &f.stmts {
            if let StmtKind::Instr(i) = &s.kind {
                if i.opcode.split('.').next() == Some("call") {
                    // `call (ret), name, (args)`: the callee is the operand that names a function.
                    todo.extend(
                        i.operands
                            .iter()
                            .filter_map(|o| by_name.get_key_value(o.as_str()).map(|(k, _)| *k)),
                    );
                }
            }
        }
    }
    seen
}

/// The packed location of the first `.loc` with a line in `stmts` (0 when there is none).
fn first_loc(stmts: &[scan::Stmt]) -> u32 {
    stmts
        .iter()
        .find_map(|s| match s.kind {
            StmtKind::Loc { file, line } if line > 0 => Some(pack_loc(file, line)),
            _ => None,
        })
        .unwrap_or(0)
}

/// The prologue. A kernel publishes the control block's address and fills the table entries of
/// the module variables; every function fills the shared-table slots of the shared variables it
/// can name. Every thread stores the same values, so the racing stores are harmless, and each
/// thread's own stores come before its own checks.
fn prologue(is_entry: bool, vars: &[ModuleVar], shared: &[(usize, &Variable)]) -> Vec<String> {
    let mut l = Vec::new();
    if is_entry {
        l.push(format!("ld.param.u64 %gz_rd0, [{CTL_PARAM}];"));
        l.push("cvta.to.global.u64 %gz_rd0, %gz_rd0;".into());
        l.push(format!("st.global.u64 [{CTL_PTR}], %gz_rd0;"));
        for (k, v) in vars.iter().enumerate() {
            let at = CtlLayout::TABLE + CtlLayout::ENTRY_BYTES * k;
            let space = if v.constant { "const" } else { "global" };
            l.push(format!("mov.u64 %gz_rd1, {};", v.name));
            l.push(format!("cvta.{space}.u64 %gz_rd1, %gz_rd1;"));
            l.push(format!("st.global.u64 [%gz_rd0+{at}], %gz_rd1;"));
            l.push(format!("mov.u64 %gz_rd1, {};", v.size));
            l.push(format!("st.global.u64 [%gz_rd0+{}], %gz_rd1;", at + 8));
        }
    } else if !shared.is_empty() {
        l.push(format!("ld.global.u64 %gz_rd0, [{CTL_PTR}];"));
    }
    if shared.is_empty() {
        return l;
    }
    l.push(format!(
        "ld.global.u64 %gz_rd2, [%gz_rd0+{}];",
        CtlLayout::SHARED_OFF
    ));
    l.push("add.s64 %gz_rd2, %gz_rd2, %gz_rd0;".into());
    for &(slot, v) in shared {
        let at = CtlLayout::ENTRY_BYTES * slot;
        l.push(format!("mov.u64 %gz_rd1, {};", v.name));
        l.push(format!("st.global.u64 [%gz_rd2+{at}], %gz_rd1;"));
        if v.dynamic {
            l.push("mov.u32 %gz_r0, %dynamic_smem_size;".into());
            l.push("cvt.u64.u32 %gz_rd1, %gz_r0;".into());
        } else {
            l.push(format!("mov.u64 %gz_rd1, {};", v.size));
        }
        l.push(format!("st.global.u64 [%gz_rd2+{}], %gz_rd1;", at + 8));
    }
    l
}

/// Refuse input that already uses the names the instrumentation adds.
fn check_reserved_names(ptx: &str) -> Result<(), InstrumentError> {
    if ptx.contains("__gpuzzle") {
        return Err(InstrumentError::NameClash {
            name: "__gpuzzle…".into(),
        });
    }
    let b = ptx.as_bytes();
    for (i, _) in ptx.match_indices("gz_") {
        let starts_token = i == 0 || {
            let c = b[i - 1];
            !(c.is_ascii_alphanumeric() || c == b'_')
        };
        if starts_token {
            let end = ptx[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map(|e| i + e)
                .unwrap_or(ptx.len());
            return Err(InstrumentError::NameClash {
                name: ptx[i..end].to_string(),
            });
        }
    }
    Ok(())
}

/// Apply (start, end, replacement) edits; insertions at the same place keep their order.
/// Where the module's `.extern .func` declaration of `name` ends (just past its `;`).
fn extern_decl_end(ptx: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = ptx[from..].find(".extern .func") {
        let start = from + k;
        let end = start + ptx[start..].find(';')? + 1;
        let decl = &ptx[start..end];
        let named = decl.match_indices(name).any(|(at, _)| {
            let before = decl[..at].chars().next_back();
            let after = decl[at + name.len()..].trim_start().chars().next();
            before.is_some_and(|c| c.is_whitespace() || c == ')') && after == Some('(')
        });
        if named {
            return Some(end);
        }
        from = end;
    }
    None
}

/// `text` with the first whole-word `word` (not part of a longer name) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> Option<String> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let (at, _) = text.match_indices(word).find(|&(at, _)| {
        !text[..at].chars().next_back().is_some_and(ident)
            && !text[at + word.len()..].chars().next().is_some_and(ident)
    })?;
    Some(format!("{}{with}{}", &text[..at], &text[at + word.len()..]))
}

/// A call to `free` made a call to the free helper, with the call's location as a second
/// argument: `call.uni free, (p);` becomes, in a scope of its own,
/// `st.param.b32 [gz_free_loc], loc; call.uni __gpuzzle_free, (p, gz_free_loc);`.
fn free_call(whole: &str, loc: u32) -> Option<String> {
    let called = replace_word(whole, "free", helpers::FREE)?;
    let close = called.rfind(')')?;
    Some(format!(
        "{{\n\t.param .b32 gz_free_loc;\n\tst.param.b32 [gz_free_loc], {loc};\n\t{}, gz_free_loc{}\n\t}}",
        &called[..close],
        &called[close..]
    ))
}

fn apply(text: &str, mut edits: Vec<(usize, usize, String)>) -> String {
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(text.len() * 3);
    let mut at = 0;
    for (s, e, t) in edits {
        // Edits never overlap: each statement is edited at most once, insertions sit between them.
        let s = s.max(at);
        out.push_str(&text[at..s]);
        out.push_str(&t);
        at = e.max(s);
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"
.version 8.8
.target sm_80
.address_size 64

.global .align 4 .b8 weights[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};

.visible .entry map(
	.param .u64 map_param_0,
	.param .u64 map_param_1,
	.param .u32 map_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<8>;
	.shared .align 4 .b8 tile[16];
	.loc	1 2 0
	ld.param.u64 	%rd1, [map_param_0];
	ld.param.u64 	%rd2, [map_param_1];
	ld.param.u32 	%r2, [map_param_2];
	.loc	1 4 5
	mov.u32 	%r1, %tid.x;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_3;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	mov.u32 	%r3, 0;
$L__BB0_2:
	.loc	1 5 9
	ld.global.f32 	%f1, [%rd4];
	ld.global.f32 	%f2, [weights+4];
	st.shared.f32 	[tile], %f1;
	add.s32 	%r3, %r3, 1;
	setp.lt.s32 	%p2, %r3, 3;
	@%p2 bra 	$L__BB0_2;
	add.s64 	%rd5, %rd1, %rd3;
	.loc	1 6 9
	st.global.f32 	[%rd5], %f1;
$L__BB0_3:
	ret;
}
"#;

    #[test]
    fn adds_the_control_parameter_helpers_and_sites() {
        let out = instrument(MAP, "map", &InstrumentOptions::default()).unwrap();
        assert_eq!(out.entry, "map");
        assert_eq!(
            out.sites,
            SiteCounts {
                global: 3,
                generic: 0,
                shared: 1,
                constant: 0,
                branches: 1,
                calls: 0,
                unsupported: 0,
                traps: 0,
                heap: 0,
                wmma: 0,
                mbarrier: 0
            }
        );
        assert_eq!(out.layout.module_vars.len(), 1);
        assert_eq!(out.layout.module_vars[0].name, "weights");
        assert!(out
            .ptx
            .contains(".param .u32 map_param_2,\n\t.param .u64 __gpuzzle_ctl\n)"));
        assert!(out.ptx.contains("mov.u64 %gz_rd1, weights;"));
        // `.loc` lines survive, and the helpers come after the header.
        assert_eq!(out.ptx.matches(".loc\t1 5 9").count(), 1);
        let helpers_at = out.ptx.find(".func __gpuzzle_count").unwrap();
        assert!(out.ptx.find(".address_size 64").unwrap() < helpers_at);
        // The loop's branch is metered (line 5), the forward branch is not.
        assert!(out
            .ptx
            .contains(&format!("mov.u32 %gz_r0, {};", pack_loc(1, 5))));
        assert_eq!(out.ptx.matches("call (gz_ret), __gpuzzle_step").count(), 1);
        // The result parses, and the kernel takes one more parameter.
        let m = crate::ptx::parse(&out.ptx).unwrap_or_else(|e| panic!("{e}\n{}", out.ptx));
        let (_, k) = m.find_entry("map").unwrap();
        assert_eq!(k.params.len(), 4);
        assert_eq!(k.params[3].name, CTL_PARAM);
    }

    #[test]
    fn step_limit_can_be_left_out() {
        let out = instrument(MAP, "map", &InstrumentOptions { step_limit: false }).unwrap();
        assert_eq!(out.sites.branches, 0);
        assert!(!out.ptx.contains("call (gz_ret), __gpuzzle_step"));
    }

    #[test]
    fn unknown_kernels_and_reserved_names_are_errors() {
        assert!(matches!(
            instrument(MAP, "nope", &InstrumentOptions::default()),
            Err(InstrumentError::NoSuchKernel { found, .. }) if found == "map"
        ));
        let clash = MAP.replace("%r3", "%gz_r3");
        assert!(matches!(
            instrument(&clash, "map", &InstrumentOptions::default()),
            Err(InstrumentError::NameClash { name }) if name == "gz_r3"
        ));
        // Names that merely contain the letters are fine.
        let fine = MAP.replace("tile", "tilegz_1");
        assert!(instrument(&fine, "map", &InstrumentOptions::default()).is_ok());
        assert!(matches!(
            instrument("garbage {", "map", &InstrumentOptions::default()),
            Err(InstrumentError::Parse(_))
        ));
    }

    /// `map` with an indirect branch (NVRTC's jump table for a `switch`) whose targets both
    /// lie ahead of it.
    fn with_brx() -> String {
        MAP.replace(
            "\tmul.wide.s32 \t%rd3, %r1, 4;",
            "\t.loc\t1 7 3\n\t$L_brx_0: .branchtargets $L__BB0_3, $L__BB0_2;\n\tbrx.idx \t%r1, $L_brx_0;\n\tmul.wide.s32 \t%rd3, %r1, 4;",
        )
    }

    #[test]
    fn an_indirect_branch_ahead_runs_as_written() {
        let ptx = with_brx();
        let m = crate::ptx::parse(&ptx).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.entries().any(|f| f
            .body
            .iter()
            .any(|i| matches!(&i.op, Op::Brx { targets, .. } if targets.len() == 2))));
        let out = instrument(&ptx, "map", &InstrumentOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.sites.unsupported, 0);
        assert!(out.unsupported.is_empty());
        // Its index is checked against the table's two targets first.
        assert!(
            out.ptx.contains("setp.lt.u32 %gz_p0, %r1, 2;"),
            "{}",
            out.ptx
        );
        assert!(out.ptx.contains(&format!(
            "mov.u32 %gz_r0, {};",
            crate::gpu::ctl::FaultKind::BranchIndex as u32
        )));
        // The table and the branch are kept as they were, and read the same again.
        assert!(out
            .ptx
            .contains("$L_brx_0: .branchtargets $L__BB0_3, $L__BB0_2;"));
        assert!(out.ptx.contains("\tbrx.idx \t%r1, $L_brx_0;"));
        let again = crate::ptx::parse(&out.ptx).unwrap_or_else(|e| panic!("{e}\n{}", out.ptx));
        assert!(again
            .functions
            .iter()
            .any(|f| f.body.iter().any(|i| matches!(i.op, Op::Brx { .. }))));
        assert!(!again.functions.iter().any(|f| f
            .body
            .iter()
            .any(|i| matches!(i.op, Op::Unsupported { .. }))));
    }

    #[test]
    fn an_indirect_branch_back_into_a_loop_is_refused_by_name() {
        // Jumping back to the loop's head: a loop the step meter would not count.
        let ptx = MAP.replace(
            "\tadd.s32 \t%r3, %r3, 1;",
            "\tadd.s32 \t%r3, %r3, 1;\n\t$L_brx_0: .branchtargets $L__BB0_2, $L__BB0_3;\n\tbrx.idx \t%r3, $L_brx_0;",
        );
        assert!(ptx.contains("brx.idx"));
        match instrument(&ptx, "map", &InstrumentOptions::default()) {
            Err(InstrumentError::Unsupported { what, .. }) => {
                assert!(
                    what.contains("brx.idx") && what.contains("back into a loop"),
                    "{what}"
                )
            }
            other => panic!("{:?}", other.map(|o| o.ptx)),
        }
    }

    /// A second kernel with an instruction gpuzzle does not support, reached through a device
    /// function.
    const OTHER: &str = "
.func copy_async(
\t.param .b64 copy_async_param_0
)
{
\t.reg .b32 \t%r<2>;
\t.reg .b64 \t%rd<2>;
\t.reg .pred \t%p<2>;
\tld.param.u64 \t%rd1, [copy_async_param_0];
\tsetp.eq.u64 \t%p1, %rd1, 0;
\t@!%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r1];
\tret;
}

.visible .entry other(
\t.param .u64 other_param_0
)
{
\t.reg .b64 \t%rd<2>;
\tld.param.u64 \t%rd1, [other_param_0];
\t{
\t.param .b64 param0;
\tst.param.b64 [param0], %rd1;
\tcall.uni copy_async, (param0);
\t}
\tret;
}
";

    #[test]
    fn a_bulk_copy_becomes_a_run_time_fault_under_its_guard() {
        let ptx = format!("{MAP}{OTHER}");
        for kernel in ["map", "other"] {
            let out = instrument(&ptx, kernel, &InstrumentOptions::default())
                .unwrap_or_else(|e| panic!("{kernel}: {e}"));
            assert_eq!(out.unsupported.len(), 1, "{kernel}");
            assert_eq!(
                out.unsupported[0].what,
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
            );
            // Only threads whose guard holds reach the fault.
            let at = out.ptx.find("// gpuzzle: not supported").unwrap();
            let site: Vec<&str> = out.ptx[at..].lines().take(3).collect();
            assert_eq!(site[1].trim(), "@%p1 bra $gz_E1;", "{}", site.join("\n"));
            assert!(crate::ptx::parse(&out.ptx).is_ok());
        }
    }

    /// What the emulator runs is instrumented: it runs `st.async` as a shared store.
    #[test]
    fn an_async_store_the_emulator_runs_is_checked_like_a_shared_store() {
        let ptx = MAP.replace(
            "\tst.shared.f32 \t[tile], %f1;",
            "\tst.shared.f32 \t[tile], %f1;\n\tst.async.shared::cluster.mbarrier::complete_tx::bytes.u32 \t[tile+4], %r3, [tile+8];",
        );
        let m = crate::ptx::parse(&ptx).unwrap();
        let (_, k) = m.find_entry("map").unwrap();
        assert!(!k
            .body
            .iter()
            .any(|i| matches!(i.op, Op::Unsupported { .. })));
        let out = instrument(&ptx, "map", &InstrumentOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((out.sites.shared, out.sites.unsupported), (2, 0));
    }

    #[test]
    fn an_asserts_message_is_the_value_its_call_sequence_passes_first() {
        let text = "
.version 8.8
.target sm_80
.address_size 64
.extern .func __assertfail
(
\t.param .b64 __assertfail_param_0,
\t.param .b64 __assertfail_param_1
)
;
.global .align 1 .b8 $str[4] = {111, 107, 63, 0};
.visible .entry k()
{
\t.reg .b64 \t%rd<3>;
\tmov.u64 \t%rd1, $str;
\tcvta.global.u64 \t%rd2, %rd1;
\t{ // callseq 0, 0
\t.param .b64 param0;
\tst.param.b64 \t[param0+0], %rd2;
\t.param .b64 param1;
\tst.param.b64 \t[param1+0], %rd2;
\tcall.uni
\t__assertfail,
\t(
\tparam0,
\tparam1
\t);
\t} // callseq 0
\ttrap;
\tret;
}
";
        let out =
            instrument(text, "k", &InstrumentOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.sites.traps, 2);
        assert!(
            out.ptx.contains("st.param.b64 [gz_arg2], %rd2;"),
            "{}",
            out.ptx
        );
        assert!(out.ptx.contains(&format!(
            "mov.u32 %gz_r0, {};",
            crate::gpu::ctl::FaultKind::Assert as u32
        )));
        assert!(crate::ptx::parse(&out.ptx).is_ok());
    }

    /// PTX's blocks scope what they declare (`ptx/parse_scope.rs`, and `ptxas`): the
    /// instrumentation's registers are declared at the body's own level even where the body's
    /// first instruction lies inside a `{ ... }` block (a call sequence), so the sites after the
    /// block still name them.
    #[test]
    fn instrumentation_registers_are_declared_outside_a_leading_block() {
        let ptx = ".version 8.8\n.target sm_80\n.address_size 64\n\n\
                   .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<2>;\n\
                   \t{\n\t.reg .b32 temp_param_reg;\n\tmov.u32 %r1, 1;\n\t}\n\
                   \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
                   \tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";
        let out = instrument(ptx, "k", &InstrumentOptions::default()).unwrap();
        let text = &out.ptx;
        let decl = text.find(".reg .b64 %gz_rd<3>;").expect("declared");
        let open = text
            .find("\t{\n\t.reg .b32 temp_param_reg;")
            .expect("the block");
        assert!(decl < open, "{text}");
        crate::ptx::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }

    #[test]
    fn malloc_and_free_go_through_the_heap_helpers_declared_after_them() {
        let ptx = ".version 8.8\n.target sm_80\n.address_size 64\n\n.extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 malloc_param_0\n)\n;\n.extern .func free\n(\n\t.param .b64 free_param_0\n)\n;\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 %rd<4>;\n\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], 16;\n\t.param .b64 retval0;\n\tcall.uni (retval0), \n\tmalloc, \n\t(\n\tparam0\n\t);\n\tld.param.b64 %rd1, [retval0+0];\n\t}\n\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], %rd1;\n\tcall.uni \n\tfree, \n\t(\n\tparam0\n\t);\n\t}\n\tret;\n}\n";
        let out = instrument(ptx, "k", &InstrumentOptions::default()).unwrap();
        assert!(out.layout.heap);
        assert_eq!(out.sites.heap, 2);
        let text = &out.ptx;
        assert!(
            text.contains(" malloc_param_0\n)\n;\n.func (.param .b64 gz_ret) __gpuzzle_malloc("),
            "{text}"
        );
        assert!(
            text.contains("call.uni (retval0), \n\t__gpuzzle_malloc, "),
            "{text}"
        );
        assert!(text.contains("call.uni \n\t__gpuzzle_free, "), "{text}");
        // The free passes its location (none here: the module has no `.loc`).
        assert!(
            text.contains("st.param.b32 [gz_free_loc], 0;\n\tcall.uni \n\t__gpuzzle_free, \n\t(\n\tparam0\n\t, gz_free_loc);"),
            "{text}"
        );
        assert_eq!(
            free_call("@%p1 call.uni free, (param0);", pack_loc(1, 9)).as_deref(),
            Some("{\n\t.param .b32 gz_free_loc;\n\tst.param.b32 [gz_free_loc], 16777225;\n\t@%p1 call.uni __gpuzzle_free, (param0, gz_free_loc);\n\t}")
        );
        // The helpers themselves still call the real functions.
        assert!(text.contains("call.uni (gz_r), malloc, (gz_p);"));
        assert!(text.contains("call.uni free, (gz_p);"));
        crate::ptx::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            replace_word("x mallocs malloc", "malloc", "m"),
            Some("x mallocs m".into())
        );
        assert_eq!(extern_decl_end(ptx, "realloc"), None);
    }

    #[test]
    fn apply_splices_in_order() {
        let out = apply(
            "abcdef",
            vec![(3, 3, "X".into()), (1, 2, "B".into()), (3, 3, "Y".into())],
        );
        assert_eq!(out, "aBcXYdef");
    }
}
