//! Raw accesses (addresses) → element-level events (`a[3]` read on line 7), per thread.

use crate::emu::trace::{Access, AccessTrace, TraceAlloc};
use crate::ptx::Module;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    Global,
    Shared,
}

/// One element: a global allocation or shared variable (index into `LaunchTrace::globals` or
/// `::shared`) and the element's index in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub space: Space,
    pub var: usize,
    pub index: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Read,
    Write,
    /// A read-modify-write (`atomicAdd`): counted as a read and a write.
    Atomic,
}

impl EventKind {
    pub fn reads(self) -> bool {
        self != EventKind::Write
    }
    pub fn writes(self) -> bool {
        self != EventKind::Read
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub cell: Cell,
    pub kind: EventKind,
    /// Source line of the instruction (0 when the PTX has no line information).
    pub line: u32,
    /// The instruction: (function, index in its body), to group a warp's lanes as the
    /// hardware does (one instruction, its n-th execution).
    pub site: (u32, u32),
    /// False for the 2nd, 3rd… element of one vector access (`float4`): same instruction.
    pub first: bool,
}

/// An access the emulator refused and reported (out of bounds, or misaligned): it names the
/// nearest array's element, which may lie before or past its end (`a[4]` of a 4-element `a`,
/// `cache[-1]`). Never performed or counted, so never among `ThreadEvents::events`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedAccess {
    pub space: Space,
    /// Index into `LaunchTrace::globals` or `::shared`.
    pub var: usize,
    pub index: i64,
    pub kind: EventKind,
    pub line: u32,
    pub site: (u32, u32),
}

/// One thread's events in program order.
#[derive(Clone, Debug, Default)]
pub struct ThreadEvents {
    pub tid: [u32; 3],
    pub events: Vec<Event>,
    /// The accesses it made that failed (only a traced run records them), in order.
    pub failed: Vec<FailedAccess>,
}

impl ThreadEvents {
    /// Global reads, global writes, shared reads, shared writes (as `Counters` counts them).
    pub fn counts(&self) -> [u64; 4] {
        let mut c = [0u64; 4];
        for e in &self.events {
            let base = if e.cell.space == Space::Global { 0 } else { 2 };
            if e.kind.reads() {
                c[base] += 1;
            }
            if e.kind.writes() {
                c[base + 1] += 1;
            }
        }
        c
    }
}

/// A named array the trace refers to, in elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    /// Byte address (global) or offset in the block's shared memory (shared).
    pub base: u64,
    pub elem_size: u64,
    pub len: usize,
}

/// One traced launch, resolved.
#[derive(Clone, Debug, Default)]
pub struct LaunchTrace {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub globals: Vec<Var>,
    pub shared: Vec<Var>,
    /// (block coordinates, its threads in linear order).
    pub blocks: Vec<([u32; 3], Vec<ThreadEvents>)>,
    /// False when the emulator's cap left accesses out.
    pub complete: bool,
}

impl LaunchTrace {
    pub fn var(&self, c: Cell) -> &Var {
        match c.space {
            Space::Global => &self.globals[c.var],
            Space::Shared => &self.shared[c.var],
        }
    }

    /// `a[3]`.
    pub fn name_of(&self, c: Cell) -> String {
        format!("{}[{}]", self.var(c).name, c.index)
    }

    /// `a[4]` for an access that failed, inside its array or not.
    pub fn failed_name(&self, f: &FailedAccess) -> String {
        let var = match f.space {
            Space::Global => self.globals.get(f.var),
            Space::Shared => self.shared.get(f.var),
        };
        format!("{}[{}]", var.map_or("?", |v| v.name.as_str()), f.index)
    }

    /// Index of the global allocation called `name` (a buffer parameter).
    pub fn global_named(&self, name: &str) -> Option<usize> {
        self.globals.iter().position(|v| v.name == name)
    }

    pub fn block(&self, b: [u32; 3]) -> Option<&[ThreadEvents]> {
        self.blocks
            .iter()
            .find(|(at, _)| *at == b)
            .map(|(_, t)| t.as_slice())
    }
}

fn vars(allocs: &[TraceAlloc]) -> Vec<Var> {
    allocs
        .iter()
        .map(|a| Var {
            name: a.name.clone(),
            base: a.base,
            elem_size: a.elem_size.max(1),
            len: (a.len / a.elem_size.max(1)) as usize,
        })
        .collect()
}

/// Which allocation holds `addr`, and the element index (`None` outside every one; the
/// emulator refuses such accesses before logging, so this is only defence).
fn locate(allocs: &[TraceAlloc], addr: u64) -> Option<(usize, u64)> {
    allocs
        .iter()
        .position(|a| addr >= a.base && addr < a.base + a.len)
        .map(|i| (i, (addr - allocs[i].base) / allocs[i].elem_size.max(1)))
}

/// The allocation nearest `addr` (as the emulator's message names it) and the element index
/// there, negative before its start: where a refused access went. A shared offset below 0
/// wraps as the emulator's do, so it is read as signed.
fn nearest(allocs: &[TraceAlloc], addr: u64, shared: bool) -> Option<(usize, i64)> {
    let at = if shared {
        addr as i64 as i128
    } else {
        addr as i128
    };
    let distance = |a: &TraceAlloc| {
        let (start, end) = (a.base as i128, a.base as i128 + a.len as i128);
        if at < start {
            start - at
        } else if at >= end {
            at - end + 1
        } else {
            0
        }
    };
    let (i, a) = allocs.iter().enumerate().min_by_key(|(_, a)| distance(a))?;
    let index = (at - a.base as i128).div_euclid(a.elem_size.max(1) as i128);
    Some((i, index.clamp(i64::MIN as i128, i64::MAX as i128) as i64))
}

fn line_of(module: &Module, a: &Access) -> u32 {
    module
        .functions
        .get(a.func as usize)
        .and_then(|f| f.body.get(a.pc as usize))
        .map(|i| i.line)
        .unwrap_or(0)
}

/// Resolve a launch's raw trace into element events. A vector access (`float4`) becomes one
/// event per element it covers.
pub fn resolve(
    module: &Module,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    trace: &AccessTrace,
) -> LaunchTrace {
    // PTX declares most shared arrays as bytes (`.b8 cache[32]`): their element size is the
    // smallest access the kernel makes to them.
    let mut shared_allocs = trace.shared.clone();
    for s in shared_allocs.iter_mut().filter(|s| s.elem_size <= 1) {
        let smallest = (trace.blocks.iter())
            .flat_map(|b| b.threads.iter().flatten())
            .filter(|a| a.shared && !a.failed && a.addr >= s.base && a.addr < s.base + s.len)
            .map(|a| a.size as u64)
            .min();
        if let Some(size) = smallest {
            s.elem_size = size;
        }
    }
    let mut out = LaunchTrace {
        kernel: kernel.to_string(),
        grid,
        block,
        globals: vars(&trace.globals),
        shared: vars(&shared_allocs),
        blocks: Vec::new(),
        complete: trace.complete,
    };
    for b in &trace.blocks {
        let threads = b
            .threads
            .iter()
            .enumerate()
            .map(|(linear, log)| {
                let l = linear as u32;
                let tid = [
                    l % block[0],
                    (l / block[0]) % block[1],
                    l / (block[0] * block[1]),
                ];
                let mut events = Vec::with_capacity(log.len());
                let mut failed = Vec::new();
                for a in log {
                    let (space, allocs) = if a.shared {
                        (Space::Shared, &shared_allocs)
                    } else {
                        (Space::Global, &trace.globals)
                    };
                    let kind = match (a.atomic, a.write) {
                        (true, _) => EventKind::Atomic,
                        (false, true) => EventKind::Write,
                        (false, false) => EventKind::Read,
                    };
                    let line = line_of(module, a);
                    if a.failed {
                        if let Some((var, index)) = nearest(allocs, a.addr, a.shared) {
                            failed.push(FailedAccess {
                                space,
                                var,
                                index,
                                kind,
                                line,
                                site: (a.func, a.pc),
                            });
                        }
                        continue;
                    }
                    let Some((var, first)) = locate(allocs, a.addr) else {
                        continue;
                    };
                    let elem = allocs[var].elem_size.max(1);
                    for k in 0..(a.size as u64).div_ceil(elem).max(1) {
                        events.push(Event {
                            cell: Cell {
                                space,
                                var,
                                index: (first + k) as usize,
                            },
                            kind,
                            line,
                            site: (a.func, a.pc),
                            first: k == 0,
                        });
                    }
                }
                ThreadEvents {
                    tid,
                    events,
                    failed,
                }
            })
            .collect();
        out.blocks.push((b.block, threads));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::trace::BlockTrace;

    fn access(addr: u64, size: u32, shared: bool, write: bool) -> Access {
        Access {
            pc: 1,
            func: 0,
            addr,
            size,
            shared,
            write,
            atomic: false,
            failed: false,
        }
    }

    fn alloc(name: &str, base: u64, len: u64, elem_size: u64) -> TraceAlloc {
        TraceAlloc {
            name: name.into(),
            base,
            len,
            elem_size,
        }
    }

    #[test]
    fn addresses_become_elements_and_vectors_one_per_element() {
        let raw = AccessTrace {
            blocks: vec![BlockTrace {
                block: [0, 0, 0],
                threads: vec![
                    // a float4 load of a[4..8], then a store to cache (a .b8 array) and out[1].
                    vec![
                        access(0x1010, 16, false, false),
                        access(8, 4, true, true),
                        access(0x2004, 4, false, true),
                    ],
                    vec![access(0x1000, 4, false, false)],
                ],
            }],
            globals: vec![alloc("a", 0x1000, 64, 4), alloc("out", 0x2000, 32, 4)],
            shared: vec![alloc("cache", 0, 32, 1)],
            complete: true,
        };
        let t = resolve(&Module::default(), "k", [1, 1, 1], [2, 1, 1], &raw);
        assert_eq!(
            t.shared[0].elem_size, 4,
            "the smallest access sizes a byte array"
        );
        let (_, threads) = &t.blocks[0];
        let names: Vec<String> = threads[0]
            .events
            .iter()
            .map(|e| t.name_of(e.cell))
            .collect();
        assert_eq!(
            names,
            ["a[4]", "a[5]", "a[6]", "a[7]", "cache[2]", "out[1]"]
        );
        let firsts: Vec<bool> = threads[0].events.iter().map(|e| e.first).collect();
        assert_eq!(firsts, [true, false, false, false, true, true]);
        assert_eq!(threads[0].counts(), [4, 1, 0, 1]);
        assert_eq!(threads[1].tid, [1, 0, 0]);
        assert_eq!(t.name_of(threads[1].events[0].cell), "a[0]");
        assert!(threads[0].failed.is_empty());
    }

    #[test]
    fn refused_accesses_name_the_element_outside_the_nearest_array() {
        let failed = |addr: u64, shared: bool, write: bool| Access {
            failed: true,
            ..access(addr, 4, shared, write)
        };
        let raw = AccessTrace {
            blocks: vec![BlockTrace {
                block: [0, 0, 0],
                threads: vec![vec![
                    access(0x1000, 4, false, false),
                    // a[16] (just past a's 64 bytes), out[-1], cache[-1] (offset -4, wrapped).
                    failed(0x1040, false, false),
                    failed(0x1ffc, false, true),
                    failed(4u64.wrapping_neg(), true, false),
                    failed(32, true, true),
                ]],
            }],
            globals: vec![alloc("a", 0x1000, 64, 4), alloc("out", 0x2000, 32, 4)],
            shared: vec![alloc("cache", 0, 32, 4)],
            complete: true,
        };
        let t = resolve(&Module::default(), "k", [1, 1, 1], [1, 1, 1], &raw);
        let th = &t.blocks[0].1[0];
        // Refused accesses are not events: not counted, not drawn as reads or writes.
        assert_eq!(th.events.len(), 1);
        assert_eq!(th.counts(), [1, 0, 0, 0]);
        let names: Vec<String> = th.failed.iter().map(|f| t.failed_name(f)).collect();
        assert_eq!(names, ["a[16]", "out[-1]", "cache[-1]", "cache[8]"]);
        let kinds: Vec<EventKind> = th.failed.iter().map(|f| f.kind).collect();
        use EventKind::*;
        assert_eq!(kinds, [Read, Write, Read, Write]);
        assert_eq!(th.failed[2].space, Space::Shared);
    }
}
