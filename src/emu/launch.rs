//! One kernel launch: argument checking against the PTX signature, memory set-up, running the
//! blocks (on several cores when that cannot change the result), and folding their results.
//!
//! Several cores: when no function of the module has a global atomic (`order_sensitive`),
//! block 0 runs first, then the others on `jobs` threads, and results are folded in block
//! order. Each global word remembers which block touched it (`GlobalMem::claim`, or the race
//! state when the checkers are on, which then tells blocks apart only up to `BLOCK_SPAN`:
//! larger grids run in order); if blocks read or overwrite each other's writes, or the step
//! limit is hit, the launch is run again in block order, so the result never depends on timing.
//!
//! Two more reruns, each only for a launch that went wrong: one run in lockstep that reported
//! anything but its step limit runs again one thread at a time (see `block/lockstep.rs`), so
//! every report names the thread and line it always did; and a race between blocks runs the
//! blocks before it again with a watch on the racing words, to name the other side
//! (`watch_rerun`).

use super::access::ACCESS_LOG_CAP;
use super::block::{Block, BlockOutput};
use super::context::{block_idx, reserved_smem_base, Launch, RESERVED_SMEM};
use super::diag::{Diags, Namer};
use super::fast;
use super::heap::{Heap, HEAP_NAME, REGION as HEAP_REGION};
use super::memory::{GlobalMem, MAX_CLAIM_BLOCKS};
use super::race::{self, CrossRace, Seen, Watch, BLOCK_SPAN};
use super::result::{
    BlockTotals, CounterSummary, Counters, PerfStats, RunResult, ThreadId, WarpLeast,
};
use super::trace::{AccessTrace, BlockTrace, TraceAlloc, TRACE_CAP};
use super::value::{Buffer, KernelArg};
use super::{EmuError, EmuOptions, LaunchConfig};
use crate::ptx::demangle::ParamKind;
use crate::ptx::ir::{demangle_var, Callee, EntryLookup, Module, Op, Space};
use crate::ptx::SHARED_RED_ZONE;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Blocks one launch may have on the emulator (a GPU allows far more; running them would take
/// hours here).
const MAX_BLOCKS: u64 = 1 << 24;

fn validate_config(cfg: &LaunchConfig) -> Result<(), EmuError> {
    if cfg.grid.contains(&0) || cfg.block.contains(&0) {
        return Err(EmuError::Launch(format!(
            "grid {:?} and block {:?} must have no zero dimension",
            cfg.grid, cfg.block
        )));
    }
    let threads: u64 = cfg.block.iter().map(|&d| d as u64).product();
    if threads > 1024 {
        return Err(EmuError::Launch(format!(
            "a block has at most 1024 threads; {:?} has {threads}",
            cfg.block
        )));
    }
    if cfg.block[2] > 64 {
        return Err(EmuError::Launch("block z dimension is at most 64".into()));
    }
    let blocks: u64 = cfg.grid.iter().map(|&d| d as u64).product();
    if blocks > MAX_BLOCKS {
        return Err(EmuError::Launch(format!(
            "a grid of {blocks} blocks is more than gpuzzle's emulator runs (at most {MAX_BLOCKS}); use fewer, larger blocks or a loop over the data"
        )));
    }
    if cfg.grid[0] > i32::MAX as u32 {
        return Err(EmuError::Launch(
            "grid x dimension is at most 2147483647".into(),
        ));
    }
    if cfg.grid[1] > 65535 || cfg.grid[2] > 65535 {
        return Err(EmuError::Launch(
            "grid y and z dimensions are at most 65535".into(),
        ));
    }
    if cfg.dynamic_shared > 227 * 1024 {
        return Err(EmuError::Launch(format!(
            "{} bytes of dynamic shared memory is more than a GPU has (227 KiB)",
            cfg.dynamic_shared
        )));
    }
    Ok(())
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
/// A GPU block's static shared memory limit, and its limit with dynamic shared memory (sm_80).
const STATIC_SHARED_MAX: u64 = 48 * KIB;
const SHARED_MAX: u64 = 227 * KIB;
/// Local memory per thread a GPU allows.
const LOCAL_MAX: u64 = 512 * KIB;
/// What the emulator is willing to allocate for global memory and for one block's threads.
/// Global memory: 512 MiB of buffers, since a launch holds them up to three times at its peak
/// (the caller's inputs, kept for a re-run one thread at a time; the emulator's copy; the
/// results), and one run must stay well under 2 GiB.
pub(crate) const GLOBAL_MAX: u64 = 512 * MIB;
const BLOCK_STATE_MAX: u64 = 1024 * MIB;

/// Refuse launches a GPU could not run, or that would exhaust the emulator's memory, with a
/// message saying which limit and why (rather than aborting on a failed allocation).
fn check_resources(
    module: &Module,
    entry: u32,
    cfg: &LaunchConfig,
    args: &[KernelArg],
) -> Result<(), EmuError> {
    let f = &module.functions[entry as usize];
    let name = f.display_name();
    let static_shared = module.static_shared_of(entry);
    if static_shared > STATIC_SHARED_MAX {
        return Err(EmuError::Launch(format!(
            "`{name}` declares {static_shared} bytes of __shared__ memory, but a block can have at most {STATIC_SHARED_MAX} bytes (48 KiB) of static shared memory; use smaller arrays, or `extern __shared__` with --shared"
        )));
    }
    if static_shared + cfg.dynamic_shared as u64 > SHARED_MAX {
        return Err(EmuError::Launch(format!(
            "`{name}` needs {static_shared} bytes of static and {} bytes of dynamic shared memory, more than a block can have ({SHARED_MAX} bytes, 227 KiB)",
            cfg.dynamic_shared
        )));
    }
    if module.static_shared_size > 64 * MIB {
        return Err(EmuError::Launch(format!(
            "the module declares {} bytes of __shared__ memory in all (its kernels together), more than gpuzzle's emulator supports (64 MiB)",
            module.static_shared_size
        )));
    }
    if f.local_size > LOCAL_MAX {
        return Err(EmuError::Launch(format!(
            "`{name}` uses {} bytes of local memory per thread (its local arrays), but a GPU thread has at most {LOCAL_MAX} bytes (512 KiB)",
            f.local_size
        )));
    }
    let threads: u64 = cfg.block.iter().map(|&d| d as u64).product();
    let per_thread = f.num_regs as u64 * 8 + f.local_size + f.param_area as u64;
    if threads * per_thread > BLOCK_STATE_MAX {
        return Err(EmuError::Launch(format!(
            "`{name}` needs {per_thread} bytes of registers and local memory per thread; {threads} threads are more than gpuzzle's emulator can hold"
        )));
    }
    let buffers: u64 = args
        .iter()
        .map(|a| match a {
            KernelArg::Buffer(b) => b.data.len() as u64,
            _ => 0,
        })
        .sum();
    let variables: u64 = module.globals.iter().map(|g| g.size).sum();
    if buffers + variables > GLOBAL_MAX {
        return Err(EmuError::Launch(format!(
            "the buffers ({buffers} bytes) and __device__/__constant__ variables ({variables} bytes) are more global memory than gpuzzle's emulator supports (512 MiB)"
        )));
    }
    Ok(())
}

/// Find `kernel` in `module` and check `args` against its parameters: the messages both the
/// emulator and the GPU backend give (the judge turns them into "keep the starter's parameters").
/// Whether a scalar of type `arg` cannot be what a parameter declared `param` holds: a float
/// for an integer parameter or the reverse. Untyped (`.b32`) parameters take either.
fn scalar_kind_differs(arg: crate::emu::value::ElemType, param: crate::ptx::ir::Ty) -> bool {
    use crate::ptx::ir::Ty;
    let param_float = match param {
        Ty::F16 | Ty::BF16 | Ty::F32 | Ty::F64 => true,
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 | Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64 => false,
        _ => return false,
    };
    arg.is_float() != param_float
}

pub fn check_args(module: &Module, kernel: &str, args: &[KernelArg]) -> Result<u32, EmuError> {
    let (entry, f) = match module.lookup_entry(kernel) {
        Ok(hit) => hit,
        Err(EntryLookup::Ambiguous(names)) => {
            return Err(EmuError::Launch(format!(
                "`{kernel}` names {} kernels: {}; give the one to run, e.g. `{}`",
                names.len(),
                names.join(", "),
                names[0]
            )))
        }
        Err(EntryLookup::Missing) => {
            let found: Vec<String> = module.entries().map(|f| f.display_name()).collect();
            return Err(EmuError::NoSuchKernel {
                name: kernel.to_string(),
                found: if found.is_empty() {
                    "none".into()
                } else {
                    found.join(", ")
                },
            });
        }
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if args.len() != f.params.len() {
        return Err(EmuError::Signature(format!(
            "kernel `{kernel}` takes {} parameter{}, but {} argument{} were given",
            f.params.len(),
            plural(f.params.len()),
            args.len(),
            plural(args.len())
        )));
    }
    // PTX declares a pointer and a 64-bit integer alike (`.u64`); the mangled name tells them
    // apart where the kernel has one (`extern "C"` kernels do not).
    let kinds = crate::ptx::demangle::param_kinds(&f.name).filter(|k| k.len() == f.params.len());
    for (i, (arg, p)) in args.iter().zip(&f.params).enumerate() {
        let n = i + 1;
        let declared = kinds.as_ref().and_then(|k| k.get(i));
        let pname = || {
            crate::ptx::demangle::kernel_name(&f.name)
                .map_or_else(|| kernel.to_string(), |_| f.display_name())
        };
        match (arg, declared) {
            (KernelArg::Buffer(b), Some(ParamKind::Scalar(ty))) => {
                return Err(EmuError::Signature(format!(
                    "argument {n} (`{}`) is a buffer, but parameter {n} of `{}` is a `{ty}`, a value and not a pointer: pass a scalar, e.g. {}={}:0",
                    b.name,
                    pname(),
                    b.name,
                    scalar_spelling(ty)
                )));
            }
            // A null pointer (`--arg NAME=null`): a 64-bit zero is what a GPU gets too.
            (KernelArg::Scalar(s), Some(ParamKind::Pointer(_)))
                if *s == super::value::null_pointer() => {}
            (KernelArg::Scalar(s), Some(ParamKind::Pointer(ty))) => {
                let ty = if ty.contains(crate::ptx::demangle::UNKNOWN) {
                    String::new()
                } else {
                    format!(" (`{ty}`)")
                };
                return Err(EmuError::Signature(format!(
                    "argument {n} is a {} scalar, but parameter {n} of `{}` is a pointer{ty}: pass a buffer, e.g. NAME=f32[8]:zeros, or NAME=null for a null pointer",
                    s.ty,
                    pname()
                )));
            }
            _ => {}
        }
        match arg {
            KernelArg::Buffer(b) if p.size != 8 || p.is_array => {
                return Err(EmuError::Signature(format!(
                    "argument {n} (`{}`) is a buffer, but parameter {n} of `{kernel}` is a {}-byte value, not a pointer",
                    b.name, p.size
                )));
            }
            // `__half` and `__nv_bfloat16` are structs: PTX passes them as 2-byte arrays.
            KernelArg::Scalar(s)
                if (p.is_array && !half_struct(s.ty)) || p.size != s.ty.size() as u32 =>
            {
                return Err(EmuError::Signature(format!(
                    "argument {n} is a {} scalar ({} bytes), but parameter {n} of `{kernel}` takes {} bytes{}",
                    s.ty,
                    s.ty.size(),
                    p.size,
                    if p.size == 8 && !p.is_array { " (a pointer or 64-bit value?)" } else { "" }
                )));
            }
            // Same size, other kind: PTX keeps a kernel parameter's type (`int` is `.u32`,
            // `float` is `.f32`), so `(int n, float alpha)` swapped against the declaration
            // is caught here instead of running with reinterpreted bits.
            KernelArg::Scalar(s) if scalar_kind_differs(s.ty, p.ty) => {
                return Err(EmuError::Signature(format!(
                    "argument {n} is {} {} scalar, but parameter {n} of `{kernel}` is declared {} (.{}): are two parameters swapped, or one declared with another type?",
                    if s.ty.is_float() { "a floating-point" } else { "an integer" },
                    s.ty,
                    if s.ty.is_float() { "an integer" } else { "floating-point" },
                    format!("{:?}", p.ty).to_lowercase()
                )));
            }
            KernelArg::Struct { bytes, .. } if !p.is_array || p.size as usize != bytes.len() => {
                return Err(EmuError::Signature(format!(
                    "argument {n} is a {}-byte struct, but parameter {n} of `{kernel}` is {} bytes{}",
                    bytes.len(),
                    p.size,
                    if p.is_array { "" } else { " and not a struct" }
                )));
            }
            _ => {}
        }
    }
    Ok(entry)
}

/// Whether a scalar of type `ty` is passed as a struct of its bytes (`__half`,
/// `__nv_bfloat16`: `.param .align 2 .b8 p[2]`).
fn half_struct(ty: crate::emu::value::ElemType) -> bool {
    use crate::emu::value::ElemType;
    matches!(ty, ElemType::F16 | ElemType::Bf16)
}

/// How `--arg` spells a scalar of C type `ty` (`long long` → `i64`).
fn scalar_spelling(ty: &str) -> &'static str {
    let ty = ty.trim_start_matches("const ");
    match ty {
        "float" => "f32",
        "double" => "f64",
        "__half" => "f16",
        "int" => "i32",
        "unsigned int" => "u32",
        "short" => "i16",
        "unsigned short" => "u16",
        "char" | "signed char" => "i8",
        "unsigned char" | "bool" => "u8",
        t if t.starts_with("unsigned") => "u64",
        _ => "i64",
    }
}

/// The entry's param area with the (already checked) arguments in place; buffers become the
/// addresses in `buf_addr`, in order.
fn param_image(module: &Module, entry: u32, args: &[KernelArg], buf_addr: &[u64]) -> Vec<u8> {
    let f = &module.functions[entry as usize];
    let mut image = vec![0u8; f.param_area as usize];
    let mut buffers = buf_addr.iter();
    for (arg, p) in args.iter().zip(&f.params) {
        let bytes: Vec<u8> = match arg {
            KernelArg::Buffer(_) => buffers.next().copied().unwrap_or(0).to_le_bytes().to_vec(),
            KernelArg::Scalar(s) => s.bytes(),
            KernelArg::Struct { bytes, .. } => bytes.clone(),
        };
        let o = p.offset as usize;
        if let Some(dst) = image.get_mut(o..o + bytes.len()) {
            dst.copy_from_slice(&bytes);
        }
    }
    image
}

/// Local memory (declared, whether touched or not) the blocks running at once may hold in
/// all: a kernel with large local arrays runs its blocks on fewer cores rather than taking
/// several times the memory of a run in order (`run` grades with every core, `check` with one
/// per puzzle; both should need about the same memory).
const PARALLEL_LOCAL_BUDGET: u64 = 64 * MIB;

/// The workers a launch of `entry` runs its blocks on: `jobs`, fewer when each block's
/// threads declare so much local memory that `jobs` blocks at once would pass
/// `PARALLEL_LOCAL_BUDGET`.
fn jobs_for_local_memory(jobs: usize, module: &Module, entry: u32, cfg: &LaunchConfig) -> usize {
    let threads: u64 = cfg.block.iter().map(|&d| d as u64).product();
    let per_block = threads.saturating_mul(module.functions[entry as usize].local_size);
    if per_block == 0 {
        return jobs;
    }
    jobs.min((PARALLEL_LOCAL_BUDGET / per_block) as usize)
        .max(1)
}

/// Whether the kernel can see other blocks' effects in ways that make order visible.
fn order_sensitive(module: &Module) -> bool {
    module.functions.iter().any(|f| {
        f.body
            .iter()
            .any(|i| matches!(&i.op, Op::Atom { space, .. } | Op::AtomVec { space, .. } if *space != Space::Shared))
    })
}

pub fn run(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    opts: &EmuOptions,
) -> Result<RunResult, EmuError> {
    run_full(module, kernel, cfg, args, &[], opts, Run::default()).map(|(r, _, _)| r)
}

/// `run`, with module variables set first (`symbols`, by name, as `cudaMemcpyToSymbol` would)
/// and every `__device__` variable's final value returned beside the result.
pub fn run_with_symbols(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[Buffer],
    opts: &EmuOptions,
) -> Result<(RunResult, Vec<Buffer>), EmuError> {
    run_full(module, kernel, cfg, args, symbols, opts, Run::default()).map(|(r, v, _)| (r, v))
}

/// `run`, keeping every thread's accesses when `trace` (see `trace::AccessTrace`).
pub fn run_maybe_traced(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    opts: &EmuOptions,
    trace: bool,
) -> Result<(RunResult, Option<AccessTrace>), EmuError> {
    let how = Run {
        trace,
        ..Run::default()
    };
    run_full(module, kernel, cfg, args, &[], opts, how).map(|(r, _, t)| (r, t))
}

/// `run` with module variables set from `symbols`, keeping the accesses of the blocks in
/// `blocks` only (the others run as usual, their logs dropped as each block ends): a thread's
/// accesses looked at after the fact (`judge`'s over-budget lines), whatever the grid's size.
pub fn run_traced_blocks(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[Buffer],
    opts: &EmuOptions,
    blocks: &[[u32; 3]],
) -> Result<(RunResult, AccessTrace), EmuError> {
    let how = Run {
        trace: true,
        trace_only: Some(blocks),
        ..Run::default()
    };
    run_full(module, kernel, cfg, args, symbols, opts, how)
        .map(|(r, _, t)| (r, t.unwrap_or_default()))
}

/// How a launch runs besides its options.
#[derive(Clone, Copy, Debug)]
pub(super) struct Run<'b> {
    /// Keep every thread's accesses (`emu::run_traced`).
    pub(super) trace: bool,
    /// With `trace`, keep only these blocks' accesses (`None`: every block's).
    pub(super) trace_only: Option<&'b [[u32; 3]]>,
    /// Run converged warps in lockstep (see `block/lockstep.rs`). A traced launch never does.
    pub(super) lockstep: bool,
}

impl Default for Run<'_> {
    /// Lockstep on, unless `GPUZZLE_LOCKSTEP=off` (to compare the two schedules' speed, or to
    /// rule lockstep out when looking for an emulator bug).
    fn default() -> Self {
        Run {
            trace: false,
            trace_only: None,
            lockstep: std::env::var_os("GPUZZLE_LOCKSTEP").is_none_or(|v| v != "off"),
        }
    }
}

/// `run`, also returning how many thread-instructions ran in lockstep (for tests of it).
#[cfg(test)]
pub(super) fn run_counting_lockstep(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    opts: &EmuOptions,
    how: Run<'_>,
) -> Result<(RunResult, u64), EmuError> {
    let counted = std::cell::Cell::new(0);
    let r = run_full_counting(module, kernel, cfg, args, &[], opts, how, &counted)?;
    Ok((r.0, counted.get()))
}

/// One launch: module variables set from `symbols` first; the result, every `__device__`
/// variable's final value, and each thread's accesses when `how.trace`.
#[allow(clippy::type_complexity)]
fn run_full(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[Buffer],
    opts: &EmuOptions,
    how: Run<'_>,
) -> Result<(RunResult, Vec<Buffer>, Option<AccessTrace>), EmuError> {
    let ignored = std::cell::Cell::new(0);
    run_full_counting(module, kernel, cfg, args, symbols, opts, how, &ignored)
}

/// `run_full`, adding the thread-instructions run in lockstep to `lockstep_ran` (of the run
/// whose result is returned).
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn run_full_counting(
    module: &Module,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[Buffer],
    opts: &EmuOptions,
    how: Run<'_>,
    lockstep_ran: &std::cell::Cell<u64>,
) -> Result<(RunResult, Vec<Buffer>, Option<AccessTrace>), EmuError> {
    let trace = how.trace;
    let entry = check_args(module, kernel, &args)?;
    let symbol_bytes = super::symbols::resolve(module, symbols)?;
    validate_config(cfg)?;
    check_resources(module, entry, cfg, &args)?;
    let nblocks = cfg.grid.iter().map(|&d| d as usize).product::<usize>();
    // With the checkers on, the race state does the claims' job, and tells blocks apart only
    // up to `BLOCK_SPAN`: larger grids run in order.
    let claimable = if opts.checkers {
        BLOCK_SPAN as usize
    } else {
        MAX_CLAIM_BLOCKS
    };
    let jobs = jobs_for_local_memory(opts.jobs, module, entry, cfg);
    let parallel = jobs > 1
        && nblocks > 2
        && nblocks <= claimable
        && !order_sensitive(module)
        && !cfg.cooperative;
    super::cooperative::check_co_resident(cfg, &module.target, module.static_shared_of(entry))
        .map_err(EmuError::Launch)?;
    let clustered = super::cluster::plan(module, entry, cfg).map_err(EmuError::Launch)?;
    let parallel = parallel && clustered.is_none();
    let inputs = Inputs {
        args: &args,
        symbols: &symbol_bytes,
    };
    let mut launch = prepare(module, entry, cfg, inputs, opts, parallel, Vec::new());
    launch.trace = trace;
    launch.trace_only = how.trace_only.map(<[_]>::to_vec);
    // Only with the checkers on: they report any race between lanes, which sends the launch
    // back to the one-thread-at-a-time schedule; off, a racy kernel (a starter missing its
    // `__syncthreads()`) would silently compute something else than it does today.
    launch.lockstep = how.lockstep && !trace && opts.checkers;

    let mut fold = Fold {
        trace_complete: true,
        ..Fold::default()
    };
    // Set by the first block run in lockstep that reports anything (`rerun_alone`).
    let solo = AtomicBool::new(false);
    if cfg.cooperative || launch.cluster.is_some() {
        // Every block resident at once (`cooperative.rs`), or the blocks of each cluster
        // together, cluster after cluster (`cluster.rs`), run in slices.
        let groups = match (&launch.cluster, cfg.cooperative) {
            (Some(c), false) => super::cluster::clusters(cfg, c.dims),
            _ => vec![(0..nblocks).collect()],
        };
        let mut finished = 0;
        for members in groups {
            let (outs, unfinished) = super::cooperative::run::run_blocks(&launch, &members);
            finished += outs.len();
            for (out, b) in outs {
                fold.add(summarise(&launch, out, b));
            }
            if unfinished || fold.fatal.is_some() {
                if fold.fatal.is_none() {
                    stop_between_blocks(&launch, &mut fold, finished as u64, nblocks);
                }
                break;
            }
        }
    } else {
        let mut block = Block::new(&launch, block_idx(cfg, 0));
        // Block 0 alone first: an endless loop is then reported the same way on every run.
        let first = summarise(&launch, block.run(), block_idx(cfg, 0));
        let mut stop = first.fatal.is_some() || rerun_alone(&first, &solo);
        fold.add(first);
        if !stop && nblocks > 1 && launch.over_limits() {
            stop_between_blocks(&launch, &mut fold, 1, nblocks);
            stop = true;
        }
        if !parallel {
            for i in 1..nblocks {
                if stop {
                    break;
                }
                block.reset(block_idx(cfg, i));
                let out = summarise(&launch, block.run(), block_idx(cfg, i));
                stop = out.fatal.is_some() || rerun_alone(&out, &solo);
                fold.add(out);
                if !stop && i + 1 < nblocks && launch.over_limits() {
                    // Blocks each far below the step batch never cross the limit inside one;
                    // the launch as a whole still stops at it (and at the deadline).
                    stop_between_blocks(&launch, &mut fold, i as u64 + 1, nblocks);
                    stop = true;
                }
            }
        } else if !stop {
            // Each worker makes its own block: block 0's state (its threads' local memory
            // above all) is not kept beside theirs.
            drop(block);
            let next = AtomicUsize::new(1);
            // Results are folded in block order as they become contiguous, so memory holds only
            // the blocks that finished ahead of a slower one.
            let ordered = Mutex::new(InOrder {
                next: 1,
                pending: BTreeMap::new(),
                fold: std::mem::take(&mut fold),
                stopped: false,
            });
            std::thread::scope(|s| {
                for _ in 0..jobs.min(nblocks - 1) {
                    s.spawn(|| {
                        let mut block: Option<Block> = None;
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= nblocks || launch.aborted() || solo.load(Ordering::Relaxed) {
                                break;
                            }
                            if launch.over_limits() {
                                // Where blocks running at once cross the limit depends on
                                // timing: stop, and rerun in order (below).
                                launch.abort();
                                break;
                            }
                            let b = match block.as_mut() {
                                Some(b) => {
                                    b.reset(block_idx(cfg, i));
                                    b
                                }
                                None => block.insert(Block::new(&launch, block_idx(cfg, i))),
                            };
                            let out = summarise(&launch, b.run(), block_idx(cfg, i));
                            rerun_alone(&out, &solo);
                            if let Ok(mut o) = ordered.lock() {
                                o.add(i, out);
                            }
                        }
                    });
                }
            });
            if let Ok(o) = ordered.into_inner() {
                fold = o.fold;
            }
            let conflict = launch.conflict.load(Ordering::Relaxed);
            let limit_hit = launch.aborted()
                && (fold.fatal.as_deref() == Some(STEP_LIMIT)
                    || (fold.fatal.is_none() && launch.over_limits()));
            if (conflict || limit_hit) && !solo.load(Ordering::Relaxed) {
                // Blocks that read each other's writes (or overwrite each other) give a result
                // that depends on their timing, and so does where blocks running at once cross
                // the step limit; the sequential order does not. Rerun in order.
                drop(launch);
                let sequential = EmuOptions {
                    jobs: 1,
                    ..opts.clone()
                };
                return run_full_counting(
                    module,
                    kernel,
                    cfg,
                    args,
                    symbols,
                    &sequential,
                    how,
                    lockstep_ran,
                );
            }
        }
    }
    if solo.load(Ordering::Relaxed)
        || (fold.lockstep > 0 && !launch.past_deadline() && reported_anything(&fold))
    {
        // What is reported, and where, is the one-thread-at-a-time schedule's: a race or any
        // other report may be found at another thread or line when lanes run in lockstep (a
        // racy kernel may even compute something else). Run it again that way. A launch that
        // only ran into its step limit keeps its result: lockstep stays away from the limit
        // (see `Block::lockstep_here`), so it is the one-at-a-time result already, and a
        // runaway kernel is not run twice. Past the deadline, a second run would stop at once.
        drop(launch);
        let one_at_a_time = Run {
            lockstep: false,
            ..how
        };
        return run_full_counting(
            module,
            kernel,
            cfg,
            args,
            symbols,
            opts,
            one_at_a_time,
            lockstep_ran,
        );
    }
    lockstep_ran.set(lockstep_ran.get() + fold.lockstep);
    if let Some(msg) = fold.fatal.clone() {
        if msg != STEP_LIMIT {
            return Err(EmuError::Unsupported(msg));
        }
    }
    if !fold.cross.is_empty() {
        let seen = watch_rerun(module, entry, cfg, &args, &symbol_bytes, opts, &fold.cross);
        let found = race::check::report_cross(&launch, launch.namer, &fold.cross, &seen);
        fold.diags.merge(found);
    }
    let mut buffers = Vec::new();
    let mut bi = 0;
    for a in args {
        if let KernelArg::Buffer(mut b) = a {
            // Free the input copy before the result copy is made (peak memory).
            b.data = Vec::new();
            b.data = launch.global.bytes(bi);
            bi += 1;
            buffers.push(b);
        }
    }
    let trace = trace.then(|| AccessTrace {
        globals: (launch.global.allocs.iter())
            .map(|a| TraceAlloc {
                name: a.name.clone(),
                base: a.base,
                len: a.len,
                elem_size: a.elem_size,
            })
            .collect(),
        shared: (launch.shared_vars.iter())
            .map(|(name, off, elem, size)| TraceAlloc {
                name: name.clone(),
                base: *off,
                len: *size,
                elem_size: *elem,
            })
            .collect(),
        blocks: std::mem::take(&mut fold.trace),
        complete: fold.trace_complete,
    });
    let nbuf = bi;
    let device_vars =
        super::symbols::device_values(module, symbols, |i| launch.global.bytes(nbuf + i));
    let result = RunResult {
        buffers,
        stdout: fold.stdout.into_text(),
        diagnostics: fold.diags.finish(),
        counters: fold.counters,
        perf: fold.perf,
        instructions: fold.instructions,
        families_uncounted: false,
    };
    Ok((result, device_vars, trace))
}

/// What a launch starts from: the kernel's arguments and the module variables set first.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    args: &'a [KernelArg],
    symbols: &'a super::symbols::SymbolBytes,
}

/// Global and shared memory laid out, symbols placed, code decoded: a launch ready to run.
fn prepare<'m>(
    module: &'m Module,
    entry: u32,
    cfg: &LaunchConfig,
    inputs: Inputs,
    opts: &EmuOptions,
    parallel: bool,
    watch: Vec<Watch>,
) -> Launch<'m> {
    let Inputs { args, symbols } = inputs;
    // Global memory: buffers first (in argument order), then module variables.
    // Borrowed, not cloned: the arguments stay as they are (a rerun starts from them again), so
    // a buffer is held twice during the launch, never three times.
    let mut items: Vec<(String, Cow<[u8]>, u64)> = Vec::new();
    for a in args {
        if let KernelArg::Buffer(b) = a {
            items.push((b.name.clone(), Cow::Borrowed(&b.data), b.ty.size() as u64));
        }
    }
    let nbuf = items.len();
    for (i, g) in module.globals.iter().enumerate() {
        let given = symbols
            .iter()
            .find(|(k, _)| *k == i)
            .map(|(_, b)| b.clone());
        let bytes = given
            .or_else(|| g.init.clone())
            .unwrap_or_else(|| vec![0; g.size as usize]);
        items.push((
            demangle_var(&g.name),
            Cow::Owned(bytes),
            module_var_elem_size(g),
        ));
    }
    // The device heap, last, when some function calls `malloc` (or `new`).
    let uses_heap = module.functions.iter().any(|f| {
        f.body.iter().any(|i| {
            matches!(
                i.op,
                Op::Call {
                    callee: Callee::Malloc,
                    ..
                }
            )
        })
    });
    if uses_heap {
        items.push((
            HEAP_NAME.to_string(),
            Cow::Owned(vec![0; HEAP_REGION as usize]),
            1,
        ));
    }
    let mut global = GlobalMem::new(&items);
    // The module variables' copies went into `global` too.
    drop(items);
    // A launch of one thread (a puzzle's spec) has no one to race with: no race state, whose
    // interval table would otherwise hold every word the thread touches (peak memory: a spec's
    // loop over a 400 MB input took GBs).
    let threads: u64 = (cfg.grid.iter().chain(&cfg.block))
        .map(|&d| d as u64)
        .product();
    if opts.checkers && threads > 1 {
        global.track_races();
    } else if parallel {
        global.track_claims();
    }
    let buf_addr: Vec<u64> = global.allocs[..nbuf].iter().map(|a| a.base).collect();
    // Outputs that start as poison, for the uninitialised-read checker (none: no cost).
    let outputs = if opts.checkers && !opts.poisoned.is_empty() {
        let bufs: Vec<(u64, &Buffer)> = (args.iter())
            .filter_map(|a| match a {
                KernelArg::Buffer(b) => Some(b),
                _ => None,
            })
            .zip(&buf_addr)
            .map(|(b, &at)| (at, b))
            .collect();
        super::shadow::OutputShadow::of(&bufs, &opts.poisoned)
    } else {
        super::shadow::OutputShadow::default()
    };
    let nvar = module.globals.len();
    let global_sym_addr: Vec<u64> = global.allocs[nbuf..nbuf + nvar]
        .iter()
        .map(|a| a.base)
        .collect();
    // Initialised pointers to module variables (`__device__ int* p = &x;`), now that the
    // variables have addresses; a variable the learner set with --symbol keeps their bytes.
    for (i, g) in module.globals.iter().enumerate() {
        if symbols.iter().any(|(k, _)| *k == i) {
            continue;
        }
        for r in &g.relocs {
            let (Some(&at), Some(&to)) = (
                global_sym_addr.get(i),
                global_sym_addr.get(r.target as usize),
            ) else {
                continue;
            };
            if r.offset % 8 == 0 && r.offset + 8 <= g.size {
                global.write(at + r.offset, 8, to.wrapping_add(r.addend));
            }
        }
    }
    let heap = uses_heap
        .then(|| global.allocs.get(nbuf + nvar).map(|a| Heap::new(a.base)))
        .flatten();
    let kernel_params = param_image(module, entry, args, &buf_addr);

    // Shared memory: static variables, then dynamic, then a red zone.
    let dyn_base = module.static_shared_size;
    let dynamic = cfg.dynamic_shared as u64;
    let reserved = reserved_smem_base(module, cfg);
    let shared_size = match reserved {
        Some(base) => base + RESERVED_SMEM + SHARED_RED_ZONE,
        None => dyn_base + dynamic + SHARED_RED_ZONE,
    };
    let mut shared_map = vec![0u32; shared_size as usize];
    let mut shared_vars = Vec::new();
    let mut dyn_named = false;
    for (v, off) in &module.shared {
        let (off, size) = if v.dynamic {
            (dyn_base, dynamic)
        } else {
            (*off, v.size)
        };
        if v.dynamic && dyn_named {
            continue;
        }
        dyn_named |= v.dynamic;
        shared_vars.push((demangle_var(&v.name), off, v.elem_size, size));
        let id = shared_vars.len() as u32;
        for b in off..(off + size).min(shared_size) {
            shared_map[b as usize] = id;
        }
    }
    if let Some(base) = reserved {
        shared_vars.push((
            "reserved shared memory (cooperative groups' scratch)".to_string(),
            base,
            1,
            RESERVED_SMEM,
        ));
        let id = shared_vars.len() as u32;
        shared_map[base as usize..(base + RESERVED_SMEM) as usize].fill(id);
    }
    let shared_sym_off: Vec<u64> = module
        .shared
        .iter()
        .map(|(v, off)| if v.dynamic { dyn_base } else { *off })
        .collect();

    let fast = fast::decode(
        &module.functions,
        &fast::Symbols {
            shared: &shared_sym_off,
            global: &global_sym_addr,
        },
    );
    let one_d = cfg.grid[1] == 1 && cfg.grid[2] == 1 && cfg.block[1] == 1 && cfg.block[2] == 1;
    let seen = Mutex::new(vec![Seen::default(); watch.len()]);
    // The perf figures group a warp's accesses by source line: built only when measured.
    let perf_lines = if opts.perf {
        super::perf::LineSites::of(module)
    } else {
        super::perf::LineSites::default()
    };
    Launch {
        module,
        perf_lines,
        entry,
        cfg: *cfg,
        opts: opts.clone(),
        global,
        global_sym_addr,
        shared_sym_off,
        shared_size,
        shared_map,
        shared_vars,
        // Cooperative groups order their scratch with their own barrier (atomics and acquire
        // loads the checkers do not follow) and expect it zeroed, as the hardware leaves it.
        unchecked_shared_from: reserved.unwrap_or(u64::MAX),
        kernel_params,
        namer: Namer { one_d },
        fast,
        steps: AtomicU64::new(0),
        aborted: AtomicBool::new(false),
        conflict: AtomicBool::new(false),
        parallel,
        published: Mutex::new(HashMap::new()),
        released: AtomicBool::new(false),
        watch,
        seen,
        trace: false,
        trace_only: None,
        // Only the launch itself sets it: a watch rerun (buggy kernels only) keeps the
        // one-thread-at-a-time schedule it retraces.
        lockstep: false,
        heap,
        grid_workspace: cfg.cooperative.then(super::cooperative::Workspace::default),
        cluster: super::cluster::plan(module, entry, cfg).ok().flatten(),
        outputs,
    }
}

/// Races between blocks at most reported per launch (each costs a watch in the rerun).
const MAX_CROSS_RACES: usize = 8;

/// The element size diagnostics index a module variable by: NVRTC declares arrays as bytes
/// (`.align 4 .b8 histogram[16]` for `int histogram[4]`), so a byte array aligned wider than a
/// byte is taken to hold elements of its alignment (`histogram[4]`, not `histogram[16]`).
fn module_var_elem_size(g: &crate::ptx::ir::Variable) -> u64 {
    if g.elem_size <= 1 && g.align > 1 && g.size.is_multiple_of(g.align) {
        g.align
    } else {
        g.elem_size.max(1)
    }
}

/// Run the blocks before the racing ones again, checkers off, watching the racing words, to
/// learn which thread of the other block touched each and on which line. Runs are
/// deterministic in block order, so the rerun does what the checked run did.
fn watch_rerun(
    module: &Module,
    entry: u32,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    symbols: &super::symbols::SymbolBytes,
    opts: &EmuOptions,
    races: &[CrossRace],
) -> Vec<Seen> {
    let together = cfg.cooperative || super::cluster::declared(module, entry).is_some();
    let watch: Vec<Watch> = races
        .iter()
        .map(|r| Watch {
            word: r.word,
            block: r.other_block,
            // Blocks that run together: the other side may come after the racing block.
            before: if together { u32::MAX } else { r.block_index },
            first: together,
        })
        .collect();
    let until = races.iter().map(|r| r.block_index).max().unwrap_or(0) as usize;
    let quiet = EmuOptions {
        checkers: false,
        jobs: 1,
        perf: false,
        ..opts.clone()
    };
    let launch = prepare(
        module,
        entry,
        cfg,
        Inputs { args, symbols },
        &quiet,
        false,
        watch,
    );
    if cfg.cooperative || launch.cluster.is_some() {
        // Blocks that wait for each other run together, as in the launch (`cooperative.rs`).
        let nblocks = cfg.grid.iter().map(|&d| d as usize).product::<usize>();
        let groups = match (&launch.cluster, cfg.cooperative) {
            (Some(c), false) => super::cluster::clusters(cfg, c.dims),
            _ => vec![(0..nblocks).collect()],
        };
        for members in groups {
            if super::cooperative::run::run_blocks(&launch, &members).1 {
                break;
            }
        }
        return launch.seen.into_inner().unwrap_or_else(|e| e.into_inner());
    }
    let mut block = Block::new(&launch, block_idx(cfg, 0));
    for i in 0..until {
        if i > 0 {
            block.reset(block_idx(cfg, i));
        }
        if block.run().fatal.is_some() {
            break;
        }
    }
    drop(block);
    launch.seen.into_inner().unwrap_or_else(|e| e.into_inner())
}

const STEP_LIMIT: &str = "step limit";

/// The launch ran past its step limit or deadline with `blocks_run` of its `blocks` blocks
/// done and none of them stopped inside: report it at the kernel's first line, naming the
/// limit and how far the grid got, and stop the launch there.
fn stop_between_blocks(launch: &Launch, fold: &mut Fold, blocks_run: u64, blocks: usize) {
    let f = &launch.module.functions[launch.entry as usize];
    let blocks = blocks as u64;
    // The clock is a runaway backstop: it stopped the launch only if the step limit did not.
    let by_time = launch.stopped_by_clock();
    let limit = match by_time {
        Some(d) => format!(
            "{} s on this machine, {} instructions run (its step limit is {}, which it had not reached)",
            super::config::seconds_said(d.elapsed()),
            launch.steps_run(),
            launch.opts.step_limit
        ),
        None => format!("its step limit ({} instructions)", launch.opts.step_limit),
    };
    let last = block_idx(&launch.cfg, blocks_run.saturating_sub(1) as usize);
    let site = super::diag::Site {
        file: f
            .body
            .iter()
            .find(|i| i.line == f.line && i.line > 0)
            .and_then(|i| launch.file_name(i.file)),
        line: f.line,
        block: last,
        thread: [0; 3],
    };
    let message = format!(
        "the launch was stopped {}{limit}: {blocks_run} of its {blocks} blocks ran, and the other {} never started",
        if by_time.is_some() { "after " } else { "at " },
        blocks - blocks_run
    );
    let mut diags = Diags::default();
    diags.report(
        super::result::DiagKind::StepLimit,
        super::result::Severity::Error,
        site,
        None,
        || {
            (
                message,
                super::facts::Facts::LaunchStopped {
                    blocks_run,
                    blocks,
                    by_time: by_time.is_some(),
                },
            )
        },
    );
    fold.diags.merge(diags);
    fold.fatal.get_or_insert_with(|| STEP_LIMIT.to_string());
}

/// Whether a launch reported anything but reaching its step limit: a diagnostic, a race with
/// another block, or a message that stops it.
/// A block that ran in lockstep and reported anything but its step limit: the launch will run
/// again one thread at a time (see `run_full_counting`), so the blocks after it need not run
/// now. Sets `solo` and says so. Without this a racing launch ran every block twice, the first
/// time for nothing.
fn rerun_alone(s: &Summary, solo: &AtomicBool) -> bool {
    let reported = s.diags.any_but(super::result::DiagKind::StepLimit)
        || !s.cross.is_empty()
        || s.fatal.as_deref().is_some_and(|m| m != STEP_LIMIT);
    if s.lockstep > 0 && reported {
        solo.store(true, Ordering::Relaxed);
    }
    s.lockstep > 0 && reported
}

fn reported_anything(fold: &Fold) -> bool {
    fold.diags.any_but(super::result::DiagKind::StepLimit)
        || !fold.cross.is_empty()
        || fold.fatal.as_deref().is_some_and(|m| m != STEP_LIMIT)
}

/// A block's results, reduced to what the launch keeps.
struct Summary {
    counters: CounterSummary,
    diags: Diags,
    stdout: super::printf::Output,
    instructions: u64,
    lockstep: u64,
    perf: PerfStats,
    fatal: Option<String>,
    cross: Vec<CrossRace>,
    trace: Option<BlockTrace>,
}

fn summarise(launch: &Launch, out: BlockOutput, block: [u32; 3]) -> Summary {
    let mut c = CounterSummary::default();
    for (t, tc) in out.counters.iter().enumerate() {
        let who = ThreadId {
            block,
            thread: launch.tid_of(t as u32),
        };
        for k in 0..Counters::N {
            if tc.get(k) > c.max_per_thread.get(k) || t == 0 {
                if tc.get(k) > c.max_per_thread.get(k)
                    || (t == 0 && c.argmax[k] == ThreadId::default())
                {
                    c.argmax[k] = who;
                }
                *c.max_per_thread.get_mut(k) = c.max_per_thread.get(k).max(tc.get(k));
            }
        }
        c.total.add(tc);
    }
    // The block's total is its threads' sum, just added up.
    c.blocks = Some(BlockTotals::of_block(block, &c.total));
    c.warps = WarpLeast::of_block(block, &out.counters);
    let perf = out.perf;
    Summary {
        counters: c,
        diags: out.diags,
        stdout: out.stdout,
        instructions: out.instructions,
        lockstep: out.lockstep,
        perf,
        fatal: out.fatal,
        cross: out.cross,
        trace: (out.trace)
            .filter(|_| {
                launch
                    .trace_only
                    .as_ref()
                    .is_none_or(|b| b.contains(&block))
            })
            .map(|threads| BlockTrace { block, threads }),
    }
}

/// Folds block results in block order while blocks finish in any order.
struct InOrder {
    next: usize,
    pending: BTreeMap<usize, Summary>,
    fold: Fold,
    /// A block stopped the launch: later results are not folded.
    stopped: bool,
}

impl InOrder {
    fn add(&mut self, i: usize, s: Summary) {
        if self.stopped {
            return;
        }
        self.pending.insert(i, s);
        while let Some(s) = self.pending.remove(&self.next) {
            self.next += 1;
            let stop = s.fatal.is_some();
            self.fold.add(s);
            if stop {
                self.stopped = true;
                self.pending.clear();
                return;
            }
        }
    }
}

#[derive(Default)]
struct Fold {
    counters: CounterSummary,
    diags: Diags,
    stdout: super::printf::Output,
    instructions: u64,
    /// Of `instructions`, those run in lockstep.
    lockstep: u64,
    perf: PerfStats,
    fatal: Option<String>,
    seen: bool,
    /// Races between blocks, one per (file, line, kind), in block order.
    cross: Vec<CrossRace>,
    /// A traced launch's blocks, in block order, up to `TRACE_CAP` accesses in all.
    trace: Vec<BlockTrace>,
    trace_kept: usize,
    /// No block was left out and no thread's log hit its cap.
    trace_complete: bool,
}

impl Fold {
    fn add(&mut self, s: Summary) {
        for k in 0..Counters::N {
            let v = s.counters.max_per_thread.get(k);
            if !self.seen || v > self.counters.max_per_thread.get(k) {
                *self.counters.max_per_thread.get_mut(k) = v;
                self.counters.argmax[k] = s.counters.argmax[k];
            }
        }
        self.seen = true;
        for r in s.cross {
            let room = self.cross.len() < MAX_CROSS_RACES;
            match self
                .cross
                .iter_mut()
                .find(|c| (c.file, c.line, c.kind) == (r.file, r.line, r.kind))
            {
                Some(c) => c.more += 1 + r.more,
                None if room => self.cross.push(r),
                None => {}
            }
        }
        self.counters.total.add(&s.counters.total);
        self.counters.merge_blocks(&s.counters.blocks);
        self.counters.merge_warps(&s.counters.warps);
        self.diags.merge(s.diags);
        self.stdout
            .append(&s.stdout, super::printf::LAUNCH_OUTPUT_CAP);
        self.instructions += s.instructions;
        self.lockstep += s.lockstep;
        self.perf.merge(&s.perf);
        if let Some(t) = s.trace {
            let per_thread_cap = ACCESS_LOG_CAP / t.threads.len().max(1);
            let n: usize = t.threads.iter().map(Vec::len).sum();
            if t.threads.iter().any(|l| l.len() >= per_thread_cap) {
                self.trace_complete = false;
            }
            if self.trace_kept + n > TRACE_CAP {
                self.trace_complete = false;
            } else {
                self.trace_kept += n;
                self.trace.push(t);
            }
        }
        if self.fatal.is_none() {
            self.fatal = s.fatal.map(|m| {
                if m == "step limit" {
                    STEP_LIMIT.to_string()
                } else {
                    m
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel of two instructions that declares `local` bytes of local memory per thread.
    fn module(local: u64) -> Module {
        crate::ptx::parse(&format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0)\n{{\n\
             .local .align 4 .b8 __local_depot0[{local}];\n\
             .reg .b32 %r<2>;\n\
             mov.u32 %r1, 1;\n\
             ret;\n}}\n"
        ))
        .expect("parses")
    }

    fn cfg(grid: u32, block: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        }
    }

    #[test]
    fn large_local_arrays_run_on_fewer_cores() {
        let small = module(16);
        assert_eq!(jobs_for_local_memory(8, &small, 0, &cfg(64, 256)), 8);
        // 400 KB per thread, 256 threads: 100 MB a block, more than the budget alone.
        let big = module(400_000);
        assert_eq!(jobs_for_local_memory(8, &big, 0, &cfg(64, 256)), 1);
        // 400 KB per thread, 32 threads: 12.8 MB a block, five at once.
        assert_eq!(jobs_for_local_memory(8, &big, 0, &cfg(64, 32)), 5);
    }

    #[test]
    fn a_launch_of_one_thread_keeps_no_race_state() {
        let m = module(0);
        let args = vec![KernelArg::Buffer(Buffer::from_values(
            "out",
            crate::emu::value::ElemType::F32,
            &[0.0; 64],
        ))];
        let symbols = super::super::symbols::resolve(&m, &[]).expect("no symbols");
        let prepared = |grid, block| {
            let inputs = Inputs {
                args: &args,
                symbols: &symbols,
            };
            let l = prepare(
                &m,
                0,
                &cfg(grid, block),
                inputs,
                &EmuOptions::default(),
                false,
                vec![],
            );
            l.global.races.len()
        };
        // Nothing can race with a single thread (a puzzle's spec): its loop over a large input
        // would fill the interval table with every word it touched.
        assert_eq!(prepared(1, 1), 0);
        assert_eq!(prepared(1, 2), 64);
        assert_eq!(prepared(2, 1), 64);
    }

    #[test]
    fn a_grid_of_short_blocks_stops_at_the_launchs_step_limit() {
        let m = module(0);
        let opts = EmuOptions {
            step_limit: 1000,
            ..EmuOptions::default()
        };
        let args = vec![KernelArg::Buffer(Buffer::from_values(
            "out",
            crate::emu::value::ElemType::F32,
            &[0.0],
        ))];
        // 100000 blocks of 2 instructions each: no block comes near its step batch.
        let r = run(&m, "k", &cfg(100_000, 1), args, &opts).expect("runs");
        let d = &r.diagnostics[0];
        assert_eq!(d.kind, super::super::result::DiagKind::StepLimit);
        assert!(
            d.message
                .starts_with("the launch was stopped at its step limit (1000 instructions): "),
            "{}",
            d.message
        );
        assert!(r.instructions < 1100, "{}", r.instructions);
    }

    /// A kernel that loops `n` times (its only parameter), one thread per block.
    fn counting_loop() -> Module {
        crate::ptx::parse(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u32 k_param_0)\n{\n\
             .reg .pred %p<2>;\n.reg .b32 %r<3>;\n\
             .loc 1 2 0\nld.param.u32 %r1, [k_param_0];\nmov.u32 %r2, 0;\n\
             $L_top:\n.loc 1 3 0\nadd.s32 %r2, %r2, 1;\nsetp.lt.s32 %p1, %r2, %r1;\n@%p1 bra $L_top;\n\
             .loc 1 4 0\nret;\n}\n.file 1 \"k.cu\"\n",
        )
        .expect("parses")
    }

    fn int(v: i32) -> Vec<KernelArg> {
        vec![KernelArg::Scalar(crate::emu::value::Scalar::from_f64(
            crate::emu::value::ElemType::I32,
            v as f64,
        ))]
    }

    /// The clock is a backstop, and says so: a launch it stops within the step limit is
    /// reported with how long and how far it ran, as `StoppedByClock`, never as the step limit's
    /// evidence of a loop (which `teach::loop_name` turns into "never ends").
    #[test]
    fn a_launch_the_clock_stops_says_how_far_it_ran_and_claims_no_endless_loop() {
        let m = counting_loop();
        let opts = EmuOptions {
            step_limit: 1_000_000_000,
            deadline: Some(crate::emu::Deadline::after(std::time::Duration::ZERO)),
            ..EmuOptions::default()
        };
        let r = run(&m, "k", &cfg(1, 1), int(50_000_000), &opts).expect("runs");
        let d = &r.diagnostics[0];
        assert_eq!(d.kind, super::super::result::DiagKind::StepLimit);
        let super::super::facts::Facts::StoppedByClock {
            steps,
            step_limit,
            in_loop,
            ..
        } = d.facts
        else {
            panic!("{:?}: {}", d.facts, d.message)
        };
        assert!(in_loop && step_limit == 1_000_000_000 && steps < step_limit);
        assert!(
            d.message.starts_with("the launch was stopped after ")
                && d.message.contains(" s on this machine, ")
                && d.message.contains(&format!("{steps} instructions run"))
                && d.message.contains("in the loop on line"),
            "{}",
            d.message
        );
        assert!(!d.message.contains("never"), "{}", d.message);

        // Between blocks, the same words.
        let m = module(0);
        let out = vec![KernelArg::Buffer(Buffer::from_values(
            "out",
            crate::emu::value::ElemType::F32,
            &[0.0],
        ))];
        let r = run(&m, "k", &cfg(100_000, 1), out, &opts).expect("runs");
        let d = &r.diagnostics[0];
        assert!(
            d.message.starts_with("the launch was stopped after ")
                && d.message.contains(" s on this machine, ")
                && d.message.contains("instructions run")
                && d.message.contains("blocks ran"),
            "{}",
            d.message
        );
    }

    /// Within the backstop, the count is the rule: "more than N instructions", with the loop.
    #[test]
    fn past_the_step_limit_the_count_is_the_reason() {
        let m = counting_loop();
        let opts = EmuOptions {
            step_limit: 10_000,
            deadline: Some(crate::emu::Deadline::after(std::time::Duration::from_secs(
                3600,
            ))),
            ..EmuOptions::default()
        };
        let r = run(&m, "k", &cfg(1, 1), int(1_000_000), &opts).expect("runs");
        let d = &r.diagnostics[0];
        assert!(
            matches!(
                d.facts,
                super::super::facts::Facts::StepLimit { in_loop: true }
            ),
            "{:?}",
            d.facts
        );
        assert!(
            d.message.contains("ran more than 10000 instructions"),
            "{}",
            d.message
        );
    }

    /// The backstop is far above what the step limit costs: a minute at least, and at the
    /// default limits many times the seconds the instructions take at the emulator's modest
    /// speed (4 million a second unoptimised, 40 million optimised).
    #[test]
    fn the_backstop_is_far_above_the_step_limits_cost() {
        if std::env::var_os("GPUZZLE_TIME_LIMIT").is_some() {
            return;
        }
        let modest = if cfg!(debug_assertions) { 4e6 } else { 4e7 };
        for limit in [1_000u64, 20_000_000, 60_000_000, 100_000_000, 1_000_000_000] {
            let d = crate::emu::Deadline::for_steps(limit).limit.as_secs_f64();
            assert!(d >= 60.0, "{limit}: {d}");
            assert!(d >= 50.0 * limit as f64 / modest, "{limit}: {d}");
        }
        assert_eq!(
            crate::emu::config::seconds_said(std::time::Duration::from_millis(1030)),
            "1"
        );
        assert_eq!(
            crate::emu::config::seconds_said(std::time::Duration::from_millis(520)),
            "0.5"
        );
        assert_eq!(
            crate::emu::config::seconds_said(std::time::Duration::from_millis(73_400)),
            "73"
        );
    }
}
