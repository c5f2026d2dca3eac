//! Turns a decoded control block into the shared result types: per-thread counters into a
//! `CounterSummary`, the first fault into a `Diagnostic` worded like the emulator's, so the judge
//! and the reports cannot tell which executor ran.

use crate::emu::facts::{Access, Element, Facts, Space, WmmaFacts};
use crate::emu::result::{
    BlockTotals, CounterSummary, Counters, DiagKind, Diagnostic, Severity, ThreadId, WarpLeast,
};
use crate::emu::LaunchConfig;
use crate::gpu::ctl::{AccessKind, CtlState, Fault, FaultKind};

/// A buffer-table entry as learners know it (module variables first, then buffers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableName {
    pub name: String,
    pub elem_size: u64,
    /// A module string's text up to its NUL (`$str`, what `assert()` passes as its message).
    pub text: Option<String>,
}

/// Block and thread of a linear global thread id (block linear id × threads per block + thread).
pub fn thread_of(linear: u64, cfg: &LaunchConfig) -> ThreadId {
    let [bx, by, bz] = cfg.block.map(u64::from);
    let [gx, gy, _] = cfg.grid.map(u64::from);
    let tpb = (bx * by * bz).max(1);
    let (b, t) = (linear / tpb, linear % tpb);
    let gx = gx.max(1);
    let gy = gy.max(1);
    let bx = bx.max(1);
    let by = by.max(1);
    ThreadId {
        block: [b % gx, (b / gx) % gy, b / (gx * gy)].map(|v| v as u32),
        thread: [t % bx, (t / bx) % by, t / (bx * by)].map(|v| v as u32),
    }
}

/// Maximum, total and first arg-max per counter, threads taken in block then thread order; and
/// the extremes of the block totals (records are in block order, a block's threads together).
pub fn counter_summary(per_thread: &[Counters], cfg: &LaunchConfig) -> CounterSummary {
    let mut s = CounterSummary::default();
    let tpb = (cfg.block.iter().map(|&d| d.max(1) as usize)).product::<usize>();
    for (b, block) in per_thread.chunks(tpb.max(1)).enumerate() {
        let mut block_total = Counters::default();
        for (t, c) in block.iter().enumerate() {
            let lin = b * tpb + t;
            for k in 0..Counters::N {
                if lin == 0 || c.get(k) > s.max_per_thread.get(k) {
                    *s.max_per_thread.get_mut(k) = c.get(k);
                    s.argmax[k] = thread_of(lin as u64, cfg);
                }
            }
            block_total.add(c);
        }
        s.total.add(&block_total);
        let at = thread_of((b * tpb) as u64, cfg).block;
        s.merge_blocks(&Some(BlockTotals::of_block(at, &block_total)));
        s.merge_warps(&WarpLeast::of_block(at, block));
    }
    s
}

fn one_d(cfg: &LaunchConfig) -> bool {
    cfg.grid[1] == 1 && cfg.grid[2] == 1 && cfg.block[1] == 1 && cfg.block[2] == 1
}

fn who(f: &Fault, cfg: &LaunchConfig) -> String {
    if one_d(cfg) {
        format!("thread {} of block {}", f.thread[0], f.block[0])
    } else {
        let [tx, ty, tz] = f.thread;
        let [bx, by, bz] = f.block;
        format!("thread ({tx},{ty},{tz}) of block ({bx},{by},{bz})")
    }
}

/// The table entry nearest to `addr`, and how far outside it `addr` is (0 inside).
fn nearest<'n>(
    addr: u64,
    table: &[(u64, u64)],
    names: &'n [TableName],
) -> Option<(u64, u64, &'n TableName, u64)> {
    table
        .iter()
        .zip(names)
        .map(|(&(base, len), n)| {
            let dist = if addr < base {
                base - addr
            } else if addr >= base + len {
                addr - (base + len) + 1
            } else {
                0
            };
            (base, len, n, dist)
        })
        .min_by_key(|e| e.3)
}

/// A fault at `addr` in or just past a block the kernel malloc'd (the heap table), in words.
/// The table is read after the launch, when blocks may have been freed or not yet allocated
/// at the moment of the fault, so the message says only what is certain: the address is in
/// the device heap, outside every block that was live when the access ran.
fn heap_fault(
    addr: u64,
    heap: &[(u64, u64)],
    who: &str,
    verb: &str,
    size: u32,
    at_line: &str,
) -> Option<String> {
    let freed = crate::gpu::ctl::CtlLayout::HEAP_FREED;
    let near_a_block = heap.iter().any(|&(base, len)| {
        let base = base & !freed;
        base <= addr && addr - base < len.saturating_add(1 << 20)
    });
    near_a_block.then(|| {
        format!(
            "{who} {verb} {size} bytes at address {addr:#x}{at_line}, in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran: past the end of a block, or a block used after free"
        )
    })
}

/// A `free` the instrumented kernel refused (and skipped), in the emulator's words
/// (`emu::heap::free_message`). The heap-table entry the helper saw gives the block's size and
/// where it was freed; where `malloc` was called is not kept on the GPU, so it goes unsaid.
fn refused_free(f: &Fault, state: &CtlState, who: &str, at_line: &str) -> (String, Facts) {
    use crate::emu::heap::{free_facts, free_message, BlockInfo, FreeError};
    let p = f.addr;
    let entry = f.heap_entry.and_then(|i| {
        let &(addr, size) = state.heap.get(i)?;
        let freed_at = state.heap_freed_at.get(i).copied().unwrap_or(0) & 0x00ff_ffff;
        let base = addr & !crate::gpu::ctl::CtlLayout::HEAP_FREED;
        let info = BlockInfo {
            size,
            malloc_line: 0,
            freed_line: (addr != base).then_some(freed_at),
        };
        Some((base, info))
    });
    let error = match (f.kind, entry) {
        (FaultKind::DoubleFree, Some((_, b))) => FreeError::Twice(b),
        (FaultKind::DoubleFree, None) => {
            // The block's entry did not come back: say only what the helper saw.
            let message = format!(
                "{who} called free (or delete) on {p:#x}{at_line}, but it was already freed"
            );
            let facts = crate::emu::facts::HeapFacts {
                problem: crate::emu::facts::HeapProblem::DoubleFree,
                offset: 0,
                bytes: 0,
                block_size: 0,
                malloc_line: 0,
                freed_line: None,
            };
            return (message, Facts::Heap(facts));
        }
        (_, within) => FreeError::NotAllocated { within },
    };
    (
        format!(
            "{who} called free (or delete) on {p:#x}{at_line}, but {}",
            free_message(&error)
        ),
        Facts::Heap(free_facts(&error, p)),
    )
}

/// The shared variable an offset belongs to or overflows from, as the emulator picks it: the
/// last one starting at or before it, else the first. Its element size is the declaration's, or
/// the access's when the declaration is bytes (NVRTC's `.b8 name[N]`).
fn nearest_shared<'n>(
    off: u64,
    table: &[(u64, u64)],
    names: &'n [TableName],
    access_elem: u32,
) -> Option<(u64, u64, &'n str, u64)> {
    let entries = table
        .iter()
        .zip(names)
        .filter(|(e, _)| e.0 != crate::gpu::ctl::UNWRITTEN);
    let (&(base, len), n) = entries
        .clone()
        .filter(|(e, _)| e.0 <= off)
        .max_by_key(|(e, _)| e.0)
        .or_else(|| entries.min_by_key(|(e, _)| e.0))?;
    let elem = if n.elem_size > 1 {
        n.elem_size
    } else {
        access_elem.max(1) as u64
    };
    Some((base, len, n.name.as_str(), elem))
}

/// The first fault as a learner-facing diagnostic. `names` label the table's entries (module
/// variables, then buffers), `shared` the shared table's; `files` are the module's `.file` names
/// by index.
pub fn fault_diagnostic(
    state: &CtlState,
    names: &[TableName],
    shared: &[TableName],
    files: &[String],
    cfg: &LaunchConfig,
) -> Option<Diagnostic> {
    let f = state.fault.as_ref()?;
    let who = who(f, cfg);
    let at_line = if f.line > 0 {
        format!(" (line {})", f.line)
    } else {
        String::new()
    };
    let more = match state.fault_count {
        0 | 1 => String::new(),
        2 => " (1 more fault after this one)".to_string(),
        n => format!(" ({} more faults after this one)", n - 1),
    };
    let (kind, message, facts) = match (f.kind, f.access) {
        // Worded as the emulator words them.
        (FaultKind::Trap, _) => (
            DiagKind::Assert,
            format!("{who} executed a trap instruction, which aborts the kernel"),
            Facts::None,
        ),
        (FaultKind::Assert, _) => {
            let text = state
                .table
                .iter()
                .zip(names)
                .find(|(&(base, _), _)| base == f.addr)
                .and_then(|(_, n)| n.text.as_deref());
            let message = match text {
                Some(t) => format!("assertion `{t}` failed in {who}"),
                None => format!("an assertion failed in {who}"),
            };
            (DiagKind::Assert, message, Facts::None)
        }
        (FaultKind::BranchIndex, _) => {
            let (len, index) = (f.addr >> 32, f.addr & 0xffff_ffff);
            (
                DiagKind::OutOfBounds,
                format!(
                    "{who} took an indirect branch (brx.idx){at_line} with index {index}, but its jump table has {len} entries (0 to {}); on a GPU the jump lands anywhere",
                    len as i64 - 1
                ),
                Facts::None,
            )
        }
        (FaultKind::DoubleFree | FaultKind::BadFree, _) => {
            let (message, facts) = refused_free(f, state, &who, &at_line);
            (DiagKind::OutOfBounds, message, facts)
        }
        (FaultKind::StepLimit, _) | (_, None) => (
            DiagKind::StepLimit,
            format!(
                "the kernel was stopped: {who} took more than {} loop iterations and was still running line {}",
                state.step_budget, f.line
            ),
            Facts::StepLimit { in_loop: true },
        ),
        // Worded as `emu/tensor/wmma.rs` words them; the access says which call and where
        // (`gpu/instrument/wmma.rs`: `n` 1 for a global pointer, 0 for a generic one).
        (FaultKind::WmmaPointer | FaultKind::WmmaStride, Some(acc)) => {
            let call = match acc.kind {
                AccessKind::Write => "store_matrix_sync",
                _ => "load_matrix_sync",
            };
            let size = acc.elem_bytes.max(1);
            let a = f.addr;
            let (message, facts) = if f.kind == FaultKind::WmmaStride {
                (
                    format!("{who} called wmma::{call} with a leading dimension of {a} elements ({} bytes); WMMA needs a multiple of 16 bytes ({} elements of this type)", a.wrapping_mul(size as u64), 16 / size),
                    WmmaFacts::LeadingDimension { elements: a, elem_bytes: size },
                )
            } else {
                let space = match (acc.shared, acc.n) {
                    (true, _) => "shared ",
                    (false, 1) => "global ",
                    _ => "",
                };
                (
                    format!("{who} called wmma::{call} with a {space}pointer ({a:#x}) that is not aligned to 32 bytes, as WMMA needs"),
                    WmmaFacts::Pointer { address: a },
                )
            };
            (DiagKind::Misaligned, message, Facts::Wmma(facts))
        }
        (fk, Some(acc)) => {
            let verb = match acc.kind {
                AccessKind::Read => "read",
                AccessKind::Write => "wrote",
                AccessKind::Atomic => "atomically updated",
                AccessKind::Barrier => "used an mbarrier at",
            };
            let a = f.addr;
            let size = acc.elem_bytes;
            let total = acc.total_bytes();
            let align = total.min(16);
            let access = match acc.kind {
                AccessKind::Read => Access::Read,
                AccessKind::Write => Access::Write,
                AccessKind::Atomic | AccessKind::Barrier => Access::Atomic,
            };
            let facts = |space: Space, element: Option<Element>, misaligned: bool| Facts::Bounds {
                space,
                access,
                element,
                address: a,
                bytes: total,
                misaligned_to: misaligned.then_some(align),
            };
            if acc.shared {
                let near = nearest_shared(a, &state.shared_table, shared, size);
                let idx = |base: u64, elem: u64| (a as i128 - base as i128).div_euclid(elem as i128);
                let element = |base: u64, len: u64, name: &str, elem: u64| Element {
                    name: name.to_string(),
                    index: idx(base, elem),
                    len: len / elem.max(1),
                };
                let (kind, message, facts) = match (fk, near) {
                    // Worded as `emu/async_copy` words it.
                    (FaultKind::Misaligned, Some((base, len, name, elem)))
                        if acc.kind == AccessKind::Barrier =>
                    {
                        (
                            DiagKind::Misaligned,
                            format!("{who} used an mbarrier at shared {name}[{}]{at_line}, {} bytes past an 8-byte boundary: an mbarrier must be aligned to 8 bytes", idx(base, elem), a % 8),
                            facts(Space::Shared, Some(element(base, len, name, elem)), true),
                        )
                    }
                    (FaultKind::Misaligned, Some((base, len, name, elem))) => (
                        DiagKind::Misaligned,
                        format!("{who} {verb} {total} bytes at {name}[{}]{at_line}, which is not aligned to {align} bytes", idx(base, elem)),
                        facts(Space::Shared, Some(element(base, len, name, elem)), true),
                    ),
                    (_, Some((base, len, name, elem))) => (
                        DiagKind::OutOfBounds,
                        format!("{who} {verb} shared {name}[{}]{at_line}, but {name} has {} elements", idx(base, elem), len / elem),
                        facts(Space::Shared, Some(element(base, len, name, elem)), false),
                    ),
                    (_, None) => (
                        DiagKind::OutOfBounds,
                        format!("{who} {verb} shared memory at offset {a}{at_line}, outside every shared array"),
                        facts(Space::Shared, None, false),
                    ),
                };
                return Some(diagnostic(f, kind, message + &more, facts, files));
            }
            // Far from every buffer, the nearest one still names the index the kernel computed
            // (a null pointer's small address names none).
            let near = nearest(a, &state.table, names).filter(|_| a >= 1 << 16);
            // An overrun of a malloc'd block, or a use after free, is about that block.
            let far_from_buffers = near.is_none_or(|(_, _, _, dist)| dist > 1 << 20);
            if let Some(message) = far_from_buffers
                .then(|| heap_fault(a, &state.heap, &who, verb, size, &at_line))
                .flatten()
            {
                // Which block, and whether it was overrun or freed, is not known here.
                let facts = Facts::Heap(crate::emu::facts::HeapFacts {
                    problem: crate::emu::facts::HeapProblem::NoLiveBlock,
                    offset: 0,
                    bytes: total,
                    block_size: 0,
                    malloc_line: 0,
                    freed_line: None,
                });
                return Some(diagnostic(f, DiagKind::OutOfBounds, message + &more, facts, files));
            }
            let element = |base: u64, n: &TableName| {
                (a as i128 - base as i128).div_euclid(n.elem_size.max(1) as i128)
            };
            let fact_element = |base: u64, len: u64, n: &TableName| Element {
                name: n.name.clone(),
                index: element(base, n),
                len: len / n.elem_size.max(1),
            };
            if fk == FaultKind::Misaligned {
                let what = match near {
                    Some((base, _, n, _)) => format!("{}[{}]", n.name, element(base, n)),
                    None => format!("address {a:#x}"),
                };
                let e = near.map(|(base, len, n, _)| fact_element(base, len, n));
                (
                    DiagKind::Misaligned,
                    format!("{who} {verb} {total} bytes at {what}{at_line}, which is not aligned to {align} bytes"),
                    facts(Space::Global, e, true),
                )
            } else {
                match near {
                    None => {
                        let null = if a < 1 << 16 { " (a null pointer?)" } else { "" };
                        (
                            DiagKind::OutOfBounds,
                            format!("{who} {verb} {size} bytes at address {a:#x}{at_line}, which is not inside any buffer{null}"),
                            facts(Space::Global, None, false),
                        )
                    }
                    Some((base, len, n, dist)) => {
                        let idx = element(base, n);
                        let count = len / n.elem_size.max(1);
                        let name = &n.name;
                        let far = if dist > 1 << 20 {
                            " and is far from every other buffer"
                        } else {
                            ""
                        };
                        (
                            DiagKind::OutOfBounds,
                            format!(
                                "{who} {verb} {name}[{idx}]{at_line}, but {name} has {count} elements ({name}[0] to {name}[{}]){far}",
                                count as i128 - 1
                            ),
                            facts(Space::Global, Some(fact_element(base, len, n)), false),
                        )
                    }
                }
            }
        }
    };
    Some(diagnostic(f, kind, message + &more, facts, files))
}

fn diagnostic(
    f: &Fault,
    kind: DiagKind,
    message: String,
    facts: Facts,
    files: &[String],
) -> Diagnostic {
    Diagnostic {
        kind,
        severity: Severity::Error,
        message,
        help: None,
        file: files
            .get(f.file as usize)
            .filter(|s| !s.is_empty())
            .cloned(),
        line: (f.line > 0).then_some(f.line),
        block: f.block,
        thread: f.thread,
        other_line: None,
        facts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::ctl::Access;

    fn cfg(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            dynamic_shared: 0,
            cooperative: false,
        }
    }

    #[test]
    fn linear_ids_map_back_to_block_and_thread() {
        let c = cfg([2, 3, 1], [4, 2, 1]);
        assert_eq!(
            thread_of(0, &c),
            ThreadId {
                block: [0, 0, 0],
                thread: [0, 0, 0]
            }
        );
        // Block linear 3 = (1,1,0); thread linear 5 = (1,1,0).
        assert_eq!(
            thread_of(3 * 8 + 5, &c),
            ThreadId {
                block: [1, 1, 0],
                thread: [1, 1, 0]
            }
        );
    }

    #[test]
    fn summary_takes_the_first_thread_reaching_the_maximum() {
        let c = cfg([2, 1, 1], [2, 1, 1]);
        let t = |r| Counters {
            global_reads: r,
            global_writes: 1,
            ..Counters::default()
        };
        let s = counter_summary(&[t(1), t(3), t(2), t(3)], &c);
        assert_eq!(s.max_per_thread.global_reads, 3);
        assert_eq!(s.total.global_reads, 9);
        // Block 0 reads 4 in all, block 1 reads 5: the most in block 1, the least in block 0.
        let b = s.blocks.expect("two blocks");
        assert_eq!((b.most.global_reads, b.most_at[0]), (5, [1, 0, 0]));
        assert_eq!((b.least.global_reads, b.least_at[0]), (4, [0, 0, 0]));
        // Equal totals: the first block.
        assert_eq!((b.most.global_writes, b.most_at[1]), (2, [0, 0, 0]));
        assert_eq!(s.total.global_writes, 4);
        assert_eq!(s.argmax[0].thread, [1, 0, 0]);
        assert_eq!(s.argmax[1].thread, [0, 0, 0]);
        assert_eq!(s.argmax[2], ThreadId::default());
    }

    fn state(kind: FaultKind, addr: u64, access: Option<Access>) -> CtlState {
        CtlState {
            fault: Some(Fault {
                kind,
                block: [0, 0, 0],
                thread: [8, 0, 0],
                file: 1,
                line: 4,
                access,
                addr,
                heap_entry: None,
            }),
            fault_count: 3,
            step_budget: 1000,
            table: vec![(0x1_0000_1000, 32), (0x1_0000_2000, 32)],
            ..CtlState::default()
        }
    }

    fn names() -> Vec<TableName> {
        ["a", "out"]
            .iter()
            .map(|n| TableName {
                name: n.to_string(),
                elem_size: 4,
                text: None,
            })
            .collect()
    }

    #[test]
    fn a_fault_in_the_device_heap_carries_heap_facts() {
        let acc = Access {
            kind: AccessKind::Read,
            elem_bytes: 4,
            n: 1,
            shared: false,
        };
        let mut st = state(FaultKind::OutOfBounds, 0x7_0000_0010, Some(acc));
        st.heap = vec![(0x7_0000_0000, 16)];
        let c = cfg([1, 1, 1], [10, 1, 1]);
        let d = fault_diagnostic(&st, &names(), &[], &[], &c).unwrap();
        assert_eq!(d.kind, DiagKind::OutOfBounds);
        assert!(
            d.message.contains("in malloc'd memory (the device heap) but in no block that was allocated and not yet freed when it ran"),
            "{}",
            d.message
        );
        assert!(matches!(
            d.facts,
            Facts::Heap(crate::emu::facts::HeapFacts {
                problem: crate::emu::facts::HeapProblem::NoLiveBlock,
                bytes: 4,
                ..
            })
        ));
    }

    #[test]
    fn a_jump_table_index_past_the_table_is_worded_like_the_emulator() {
        let c = cfg([1, 1, 1], [10, 1, 1]);
        let st = state(FaultKind::BranchIndex, (3 << 32) | 5, None);
        let d = fault_diagnostic(&st, &names(), &[], &[], &c).unwrap();
        assert_eq!(d.kind, DiagKind::OutOfBounds);
        assert_eq!(
            d.message,
            "thread 8 of block 0 took an indirect branch (brx.idx) (line 4) with index 5, but its jump table has 3 entries (0 to 2); on a GPU the jump lands anywhere (2 more faults after this one)"
        );
    }

    #[test]
    fn out_of_bounds_names_the_element_like_the_emulator() {
        let acc = Access {
            kind: AccessKind::Write,
            elem_bytes: 4,
            n: 1,
            shared: false,
        };
        let files = vec![String::new(), "oob.cu".to_string()];
        let c = cfg([1, 1, 1], [10, 1, 1]);
        let d = fault_diagnostic(
            &state(FaultKind::OutOfBounds, 0x1_0000_2020, Some(acc)),
            &names(),
            &[],
            &files,
            &c,
        )
        .unwrap();
        assert_eq!(d.kind, DiagKind::OutOfBounds);
        assert_eq!(
            d.message,
            "thread 8 of block 0 wrote out[8] (line 4), but out has 8 elements (out[0] to out[7]) (2 more faults after this one)"
        );
        assert_eq!(d.file.as_deref(), Some("oob.cu"));
        assert_eq!(d.line, Some(4));
        let d = fault_diagnostic(
            &state(FaultKind::OutOfBounds, 0x10, Some(acc)),
            &names(),
            &[],
            &files,
            &c,
        )
        .unwrap();
        assert!(d
            .message
            .contains("not inside any buffer (a null pointer?)"));
        let d = fault_diagnostic(
            &state(FaultKind::OutOfBounds, 0x1_0000_0ffc, Some(acc)),
            &names(),
            &[],
            &files,
            &c,
        )
        .unwrap();
        assert!(d.message.contains("a[-1]"), "{}", d.message);
    }

    #[test]
    fn shared_faults_name_the_shared_variable() {
        let c = cfg([1, 1, 1], [8, 1, 1]);
        let mut st = state(
            FaultKind::OutOfBounds,
            32,
            Some(Access {
                kind: AccessKind::Read,
                elem_bytes: 4,
                n: 1,
                shared: true,
            }),
        );
        st.shared_table = vec![(0, 32), (crate::gpu::ctl::UNWRITTEN, 0), (96, 16)];
        let shared = vec![
            TableName {
                name: "cache".into(),
                elem_size: 1,
                text: None,
            },
            TableName {
                name: "unwritten".into(),
                elem_size: 1,
                text: None,
            },
            TableName {
                name: "other".into(),
                elem_size: 4,
                text: None,
            },
        ];
        let d = fault_diagnostic(&st, &names(), &shared, &[], &c).unwrap();
        assert_eq!(d.kind, DiagKind::OutOfBounds);
        assert!(
            d.message.starts_with(
                "thread 8 of block 0 read shared cache[8] (line 4), but cache has 8 elements"
            ),
            "{}",
            d.message
        );
    }

    #[test]
    fn traps_and_failed_asserts_are_worded_as_the_emulator_words_them() {
        let c = cfg([1, 1, 1], [10, 1, 1]);
        let d = fault_diagnostic(&state(FaultKind::Trap, 0, None), &names(), &[], &[], &c).unwrap();
        assert_eq!(d.kind, DiagKind::Assert);
        assert_eq!(
            d.message,
            "thread 8 of block 0 executed a trap instruction, which aborts the kernel (2 more faults after this one)"
        );
        // The message is the module string the assert passed, found by its address.
        let mut n = names();
        n[0].text = Some("v[t] != 3".into());
        let d = fault_diagnostic(
            &state(FaultKind::Assert, 0x1_0000_1000, None),
            &n,
            &[],
            &[],
            &c,
        )
        .unwrap();
        assert_eq!(d.kind, DiagKind::Assert);
        assert!(
            d.message
                .starts_with("assertion `v[t] != 3` failed in thread 8 of block 0"),
            "{}",
            d.message
        );
        let d = fault_diagnostic(&state(FaultKind::Assert, 0, None), &n, &[], &[], &c).unwrap();
        assert!(
            d.message.starts_with("an assertion failed in thread 8"),
            "{}",
            d.message
        );
    }

    #[test]
    fn step_limit_and_misaligned_have_their_kinds() {
        let c = cfg([1, 1, 1], [10, 2, 1]);
        let d = fault_diagnostic(
            &state(FaultKind::StepLimit, 0, None),
            &names(),
            &[],
            &[],
            &c,
        )
        .unwrap();
        assert_eq!(d.kind, DiagKind::StepLimit);
        assert!(d
            .message
            .contains("thread (8,0,0) of block (0,0,0) took more than 1000"));
        assert_eq!(d.file, None);
        let acc = Access {
            kind: AccessKind::Read,
            elem_bytes: 4,
            n: 4,
            shared: false,
        };
        let d = fault_diagnostic(
            &state(FaultKind::Misaligned, 0x1_0000_1004, Some(acc)),
            &names(),
            &[],
            &[],
            &c,
        )
        .unwrap();
        assert_eq!(d.kind, DiagKind::Misaligned);
        assert!(d.message.contains("read 16 bytes at a[1]"), "{}", d.message);
        assert!(fault_diagnostic(&CtlState::default(), &names(), &[], &[], &c).is_none());
    }

    #[test]
    fn refused_frees_are_worded_like_the_emulator() {
        use crate::emu::facts::{HeapFacts, HeapProblem};
        use crate::gpu::ctl::{pack_loc, CtlLayout};
        let c = cfg([1, 1, 1], [1, 1, 1]);
        let mut st = state(FaultKind::DoubleFree, 0x7_0000_0000, None);
        st.fault_count = 1;
        st.heap = vec![
            (0x7_0000_0000 | CtlLayout::HEAP_FREED, 4),
            (0x7_0000_0100, 8),
        ];
        st.heap_freed_at = vec![pack_loc(1, 7), 0];
        st.fault.as_mut().unwrap().heap_entry = Some(0);
        let d = fault_diagnostic(&st, &names(), &[], &[], &c).unwrap();
        assert_eq!(d.kind, DiagKind::OutOfBounds);
        assert_eq!(d.line, Some(4));
        assert_eq!(
            d.message,
            "thread 8 of block 0 called free (or delete) on 0x700000000 (line 4), but it was already freed at line 7 (the block of 4 bytes malloc'd)"
        );
        assert!(matches!(
            d.facts,
            Facts::Heap(HeapFacts {
                problem: HeapProblem::DoubleFree,
                block_size: 4,
                freed_line: Some(7),
                ..
            })
        ));
        // Without its entry, only what was seen.
        st.fault.as_mut().unwrap().heap_entry = None;
        let d = fault_diagnostic(&st, &names(), &[], &[], &c).unwrap();
        assert!(
            d.message.ends_with("(line 4), but it was already freed"),
            "{}",
            d.message
        );
        // A pointer 4 bytes into the live block of entry 1.
        let f = st.fault.as_mut().unwrap();
        f.kind = FaultKind::BadFree;
        f.addr = 0x7_0000_0104;
        f.heap_entry = Some(1);
        let d = fault_diagnostic(&st, &names(), &[], &[], &c).unwrap();
        assert_eq!(
            d.message,
            "thread 8 of block 0 called free (or delete) on 0x700000104 (line 4), but its address was never returned by malloc or new: it points into the block of 8 bytes malloc'd, which starts at 0x700000100"
        );
        assert!(matches!(
            d.facts,
            Facts::Heap(HeapFacts {
                problem: HeapProblem::BadFree,
                offset: 4,
                block_size: 8,
                ..
            })
        ));
        // Into no block.
        st.fault.as_mut().unwrap().heap_entry = None;
        let d = fault_diagnostic(&st, &names(), &[], &[], &c).unwrap();
        assert!(
            d.message
                .ends_with("(line 4), but its address was never returned by malloc or new"),
            "{}",
            d.message
        );
    }
}
