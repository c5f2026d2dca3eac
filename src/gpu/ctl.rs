//! The control block: the one region of global memory an instrumented kernel reports into.
//!
//! The instrumented kernel takes one extra, trailing parameter `.param .u64 __gpuzzle_ctl`, the
//! address of this block. Every offset the instrumentation code uses is defined here, once; the
//! PTX helpers in `instrument::helpers` are generated from these constants, and the host side
//! (`encode`, `decode`) reads them too. All values are little-endian.
//!
//! ```text
//! offset size  field
//!      0  u32  fault_flag    0 until the first fault; set 0→1 with atom.cas, so only the FIRST fault is kept
//!      4  u32  fault_kind    1 out-of-bounds, 2 step-limit, 3 misaligned, 4 trap, 5 failed assert,
//!                            … 9 double free, 10 bad free (`FaultKind`)
//!      8  u32×3 fault_block  %ctaid.x/y/z of the faulting thread
//!     20  u32×3 fault_thread %tid.x/y/z
//!     32  u32  fault_loc     file index << 24 | source line, from the `.loc` in force (0: unknown)
//!     36  u32  fault_access  the access, packed by `Access::pack` (0 for step-limit, trap, assert;
//!                            a refused free: 1 + the heap-table entry concerned, 0 for none)
//!     40  u64  fault_addr    the generic address accessed; the host maps it to `buffer[index]`
//!                            (a failed assert: its message's address, a module string)
//!     48  u64  fault_count   faulting accesses and step-limit stops over all threads
//!     56  u32  stop          set with a step-limit fault: every thread exits at its next backward branch
//!     60  u32  table_len     entries in the buffer table (module variables, then the launch's buffers)
//!     64  u64  step_budget   backward branches each thread may take (loop iterations)
//!     72  u64  records_off   byte offset of the per-thread records
//!     80  u64  shared_off    byte offset of the shared table
//!     88  u32  shared_len    entries in the shared table: one per shared variable of the module
//!     92  u32  unsupported   0, or 1 + the site index of the first instruction gpuzzle does not
//!                            support that a thread reached (atom.cas, so the first is kept); the
//!                            host names it from `Instrumented::unsupported`. Set with `stop`.
//!     96  32 B zero          never written: a skipped load reads its value (0) from here
//!    128       table         table_len × { u64 base, u64 len }: generic address and length in bytes
//!  shared_off  shared table  shared_len × { u64 offset, u64 len }: each shared variable's
//!                            shared-window address and size (dynamic shared: %dynamic_smem_size);
//!                            the host marks every slot unwritten (offset u64::MAX, len 0)
//! records_off  records       one 56-byte record per thread, indexed by the linear global thread id
//!                            (block linear id × threads per block + thread linear id, x fastest):
//!                            u64 global_reads, global_writes, global_atomics,
//!                                shared_reads, shared_writes, shared_atomics, steps
//!                            (one (reads, writes, atomics) triple per space, 24 bytes apart)
//! ```
//!
//! Table entries `0..module_vars.len()` are the module's `__device__` variables (and `$str`
//! constants) that the code takes the address of; the kernel fills them itself at entry, because
//! only the kernel can name them (`mov.u64 %rd, sym`). The launch's buffers follow, filled by the
//! host before the launch. A global access is legal when it lies entirely inside one entry.
//! The shared table has a fixed slot per shared variable of the module (`shared_vars` order).
//! Whoever can name a variable fills its slot at entry: a kernel fills the module-level ones and
//! those declared in its body, a device function those declared in its body (NVRTC moves a
//! `__shared__` of a `__device__` function into that `.func`). The addresses are the same in every
//! block. Slots of other kernels' variables stay unwritten and match nothing. A shared access is
//! legal when it lies entirely inside one variable, which is exactly the emulator's rule.

use crate::emu::result::Counters;

/// A module-level `.global`/`.const` variable whose address the code takes: a legal target of
/// global accesses, so it has an entry in the buffer table (filled by the kernel at entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleVar {
    /// The PTX name (`weights`, `$str`, `_ZZ4fooE1t`).
    pub name: String,
    pub size: u64,
    /// Element size for `name[i]` in messages.
    pub elem_size: u64,
    /// True for `.const` (its generic address comes from `cvta.const`).
    pub constant: bool,
}

/// What went wrong, as recorded in `fault_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    OutOfBounds = 1,
    StepLimit = 2,
    Misaligned = 3,
    /// `trap` (`__trap()`): the thread stops, as on the emulator, instead of the whole context.
    Trap = 4,
    /// `__assertfail` (a failed `assert()`): recorded, and the thread goes on, as on the emulator.
    Assert = 5,
    /// A WMMA load or store whose pointer is not 32-byte aligned (`addr`: the pointer; the
    /// access: load or store, element size, space).
    WmmaPointer = 6,
    /// A WMMA load or store whose leading dimension is not a multiple of 16 bytes (`addr`: the
    /// leading dimension in elements).
    WmmaStride = 7,
    /// `brx.idx` with an index past its `.branchtargets` list: the fault's address holds the
    /// list's length in its high 32 bits and the index in its low ones; the thread stops.
    BranchIndex = 8,
    /// `free` of a pointer whose block was freed already (`addr`: the pointer; the access
    /// word: 1 + the freed block's heap-table entry). The free is skipped.
    DoubleFree = 9,
    /// `free` of a pointer that is not the start of a block `malloc` returned and the kernel
    /// has not freed (`addr`: the pointer; the access word: 1 + the entry of a block it points
    /// into, 0 for none). The free is skipped.
    BadFree = 10,
}

impl FaultKind {
    pub fn from_code(c: u32) -> Option<FaultKind> {
        match c {
            1 => Some(FaultKind::OutOfBounds),
            2 => Some(FaultKind::StepLimit),
            3 => Some(FaultKind::Misaligned),
            4 => Some(FaultKind::Trap),
            5 => Some(FaultKind::Assert),
            6 => Some(FaultKind::WmmaPointer),
            7 => Some(FaultKind::WmmaStride),
            8 => Some(FaultKind::BranchIndex),
            9 => Some(FaultKind::DoubleFree),
            10 => Some(FaultKind::BadFree),
            _ => None,
        }
    }
}

/// Whether an access reads, writes or does both (atomics count as one read and one write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read = 0,
    Write = 1,
    Atomic = 2,
    /// An mbarrier operation on its 8-byte object: checked, never counted
    /// (`instrument/mbarrier.rs`); named so in a fault.
    Barrier = 3,
}

/// One memory access as the instrumentation passes it to its helpers: `n` elements of
/// `elem_bytes` each (a vector access has n > 1), to shared memory or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub kind: AccessKind,
    pub elem_bytes: u32,
    pub n: u32,
    pub shared: bool,
}

impl Access {
    /// Bit set in a packed access to shared memory (the shared helper sets it).
    pub const SHARED_BIT: u32 = 1 << 24;

    /// `n | elem_bytes << 8 | kind << 16 | shared << 24`: one 32-bit immediate per access site.
    pub fn pack(self) -> u32 {
        (self.n & 0xff)
            | (self.elem_bytes & 0xff) << 8
            | (self.kind as u32) << 16
            | if self.shared { Self::SHARED_BIT } else { 0 }
    }

    pub fn unpack(v: u32) -> Option<Access> {
        let kind = match (v >> 16) & 0xff {
            0 => AccessKind::Read,
            1 => AccessKind::Write,
            2 => AccessKind::Atomic,
            3 => AccessKind::Barrier,
            _ => return None,
        };
        if v >> 25 != 0 {
            return None;
        }
        Some(Access {
            kind,
            elem_bytes: (v >> 8) & 0xff,
            n: v & 0xff,
            shared: v & Self::SHARED_BIT != 0,
        })
    }

    pub fn total_bytes(self) -> u32 {
        self.elem_bytes * self.n
    }
}

/// Packs a source position the way `fault_loc` holds it.
pub fn pack_loc(file: u32, line: u32) -> u32 {
    (file.min(0xff) << 24) | line.min(0x00ff_ffff)
}

/// A shared variable of the instrumented kernel, in shared-table order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    /// The PTX name (`_ZZ13reduce_sharedE5cache`, `dyn`).
    pub name: String,
    /// Element size of the declaration (1 for NVRTC's `.b8 name[N]`).
    pub elem_size: u64,
    /// `extern __shared__`: sized at launch.
    pub dynamic: bool,
}

/// The layout of a control block for a module instrumented with these variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CtlLayout {
    /// The table's first entries, in order (filled by the kernel).
    pub module_vars: Vec<ModuleVar>,
    /// Every shared variable of the module, one shared-table slot each, in order.
    pub shared_vars: Vec<SharedVar>,
    /// The module calls `malloc` (device `malloc`/`new`): the block holds a heap table of
    /// [`CtlLayout::HEAP_CAP`] (address, length) entries after the shared table, filled as the
    /// kernel allocates, so accesses to malloc'd memory are legal (a freed entry's address has
    /// [`CtlLayout::HEAP_FREED`] set, and the high 32 bits of its length the packed location
    /// of the `free`).
    pub heap: bool,
}

/// Offset of a shared-table slot nobody wrote (it matches no address).
pub const UNWRITTEN: u64 = u64::MAX;

/// A control block that does not fit what it is decoded against (a gpuzzle bug).
#[derive(Debug, thiserror::Error)]
#[error("control block: {0}")]
pub struct CtlError(pub String);

/// The first fault, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub file: u32,
    pub line: u32,
    /// `None` for step-limit, trap and assert faults.
    pub access: Option<Access>,
    pub addr: u64,
    /// A refused free ([`FaultKind::DoubleFree`], [`FaultKind::BadFree`]): the heap-table entry
    /// of the block concerned, when there is one.
    pub heap_entry: Option<usize>,
}

/// Everything an instrumented launch reported, decoded from the control block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CtlState {
    pub fault: Option<Fault>,
    /// Faulting accesses and step-limit stops over all threads (the first one is `fault`).
    pub fault_count: u64,
    pub step_budget: u64,
    /// (base, len) per table entry: module variables first, then buffers.
    pub table: Vec<(u64, u64)>,
    /// (shared-window offset, len) per shared variable of the module (`UNWRITTEN` offset for
    /// the variables of kernels and functions that did not run).
    pub shared_table: Vec<(u64, u64)>,
    /// Per thread, in linear global thread order.
    pub counters: Vec<Counters>,
    /// Backward branches each thread took.
    pub steps: Vec<u64>,
    /// The unsupported-instruction site a thread reached (index into `Instrumented::unsupported`):
    /// the launch failed as the emulator's does when it meets an instruction it cannot run.
    pub unsupported: Option<u32>,
    /// (address, length) of each block the kernel malloc'd (the address with
    /// `CtlLayout::HEAP_FREED` set once freed), when the module calls `malloc`.
    pub heap: Vec<(u64, u64)>,
    /// Per heap-table entry, the packed location (`pack_loc`) of the `free` that freed it
    /// (0: not freed, or unknown).
    pub heap_freed_at: Vec<u32>,
}

impl CtlLayout {
    pub const FAULT_FLAG: usize = 0;
    pub const FAULT_KIND: usize = 4;
    pub const FAULT_BLOCK: usize = 8;
    pub const FAULT_THREAD: usize = 20;
    pub const FAULT_LOC: usize = 32;
    pub const FAULT_ACCESS: usize = 36;
    pub const FAULT_ADDR: usize = 40;
    pub const FAULT_COUNT: usize = 48;
    pub const STOP: usize = 56;
    pub const TABLE_LEN: usize = 60;
    pub const STEP_BUDGET: usize = 64;
    pub const RECORDS_OFF: usize = 72;
    pub const SHARED_OFF: usize = 80;
    pub const SHARED_LEN: usize = 88;
    pub const UNSUPPORTED: usize = 92;
    pub const ZERO: usize = 96;
    pub const ZERO_BYTES: usize = 32;
    /// Heap-table entries written so far (may pass `HEAP_CAP`: later allocations are not kept,
    /// and an access to them is reported out of bounds).
    pub const HEAP_LEN: usize = 128;
    pub const HEAP_CAP: usize = 4096;
    /// Set in a heap-table entry's address once its block is freed (no device address has it).
    pub const HEAP_FREED: u64 = 1 << 63;
    pub const TABLE: usize = 144;
    pub const ENTRY_BYTES: usize = 16;
    /// Per-thread record: per space (global, then shared) reads, writes and atomics, then steps.
    pub const RECORD_BYTES: usize = 56;
    pub const REC_GLOBAL_READS: usize = 0;
    pub const REC_GLOBAL_WRITES: usize = 8;
    pub const REC_GLOBAL_ATOMICS: usize = 16;
    pub const REC_SHARED_READS: usize = 24;
    pub const REC_SHARED_WRITES: usize = 32;
    pub const REC_SHARED_ATOMICS: usize = 40;
    pub const REC_STEPS: usize = 48;
    /// From one space's reads to the other's (the helpers' `which` × this).
    pub const REC_SPACE_BYTES: usize = 24;
    /// From a space's reads to its writes, and to its atomics.
    pub const REC_WRITES: usize = 8;
    pub const REC_ATOMICS: usize = 16;

    pub fn table_len(&self, buffers: usize) -> usize {
        self.module_vars.len() + buffers
    }

    /// Where the shared table starts, for a launch with `buffers` buffer arguments.
    pub fn shared_offset(&self, buffers: usize) -> usize {
        Self::TABLE + Self::ENTRY_BYTES * self.table_len(buffers)
    }

    /// Where the heap table starts (right after the shared table, so the helpers find it from
    /// the header's `SHARED_OFF` and `SHARED_LEN`).
    pub fn heap_offset(&self, buffers: usize) -> usize {
        self.shared_offset(buffers) + Self::ENTRY_BYTES * self.shared_vars.len()
    }

    /// Where the per-thread records start, for a launch with `buffers` buffer arguments.
    pub fn records_offset(&self, buffers: usize) -> usize {
        let heap = if self.heap { Self::HEAP_CAP } else { 0 };
        (self.heap_offset(buffers) + Self::ENTRY_BYTES * heap).div_ceil(64) * 64
    }

    /// Bytes of the whole block (a multiple of 8).
    pub fn size(&self, buffers: usize, threads: u64) -> usize {
        self.records_offset(buffers) + Self::RECORD_BYTES * threads as usize
    }

    /// A zeroed block with its header and the buffers' table entries filled in; `buffers` are the
    /// (device address, length in bytes) of the launch's buffer arguments, in argument order.
    pub fn encode(&self, step_budget: u64, buffers: &[(u64, u64)], threads: u64) -> Vec<u8> {
        let mut b = vec![0u8; self.size(buffers.len(), threads)];
        let put32 = |b: &mut Vec<u8>, at: usize, v: u32| {
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        };
        let put64 = |b: &mut Vec<u8>, at: usize, v: u64| {
            b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        };
        put32(
            &mut b,
            Self::TABLE_LEN,
            self.table_len(buffers.len()) as u32,
        );
        put64(&mut b, Self::STEP_BUDGET, step_budget);
        put64(
            &mut b,
            Self::RECORDS_OFF,
            self.records_offset(buffers.len()) as u64,
        );
        let so = self.shared_offset(buffers.len());
        put64(&mut b, Self::SHARED_OFF, so as u64);
        put32(&mut b, Self::SHARED_LEN, self.shared_vars.len() as u32);
        for i in 0..self.shared_vars.len() {
            put64(&mut b, so + Self::ENTRY_BYTES * i, UNWRITTEN);
        }
        for (i, &(base, len)) in buffers.iter().enumerate() {
            let at = Self::TABLE + Self::ENTRY_BYTES * (self.module_vars.len() + i);
            put64(&mut b, at, base);
            put64(&mut b, at + 8, len);
        }
        b
    }

    /// Read back a block after the launch.
    pub fn decode(&self, b: &[u8], buffers: usize, threads: u64) -> Result<CtlState, CtlError> {
        let need = self.size(buffers, threads);
        if b.len() < need {
            return Err(CtlError(format!(
                "{} bytes, but the layout needs {need}",
                b.len()
            )));
        }
        let get32 = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let get64 = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let fault = if get32(Self::FAULT_FLAG) != 0 {
            let code = get32(Self::FAULT_KIND);
            let kind = FaultKind::from_code(code)
                .ok_or_else(|| CtlError(format!("unknown fault kind {code}")))?;
            let loc = get32(Self::FAULT_LOC);
            let access = match kind {
                FaultKind::StepLimit
                | FaultKind::Trap
                | FaultKind::Assert
                | FaultKind::BranchIndex
                | FaultKind::DoubleFree
                | FaultKind::BadFree => None,
                _ => Some(Access::unpack(get32(Self::FAULT_ACCESS)).ok_or_else(|| {
                    CtlError(format!("bad access code {:#x}", get32(Self::FAULT_ACCESS)))
                })?),
            };
            Some(Fault {
                kind,
                block: [0, 1, 2].map(|i| get32(Self::FAULT_BLOCK + 4 * i)),
                thread: [0, 1, 2].map(|i| get32(Self::FAULT_THREAD + 4 * i)),
                file: loc >> 24,
                line: loc & 0x00ff_ffff,
                access,
                addr: get64(Self::FAULT_ADDR),
                heap_entry: match kind {
                    FaultKind::DoubleFree | FaultKind::BadFree => {
                        (get32(Self::FAULT_ACCESS) as usize).checked_sub(1)
                    }
                    _ => None,
                },
            })
        } else {
            None
        };
        let n = self.table_len(buffers);
        let table = (0..n)
            .map(|i| {
                let at = Self::TABLE + Self::ENTRY_BYTES * i;
                (get64(at), get64(at + 8))
            })
            .collect();
        let shared_len = (get32(Self::SHARED_LEN) as usize).min(self.shared_vars.len());
        let s0 = self.shared_offset(buffers);
        let shared_table = (0..shared_len)
            .map(|i| {
                let at = s0 + Self::ENTRY_BYTES * i;
                (get64(at), get64(at + 8))
            })
            .collect();
        // An entry's length is the size asked of `malloc` (the default device heap is 8 MiB,
        // so it fits 32 bits); its high 32 bits hold where the block was freed.
        let (heap, heap_freed_at) = if self.heap {
            let h0 = self.heap_offset(buffers);
            let used = (get32(Self::HEAP_LEN) as usize).min(Self::HEAP_CAP);
            (0..used)
                .map(|i| {
                    let at = h0 + Self::ENTRY_BYTES * i;
                    ((get64(at), u64::from(get32(at + 8))), get32(at + 12))
                })
                .unzip()
        } else {
            (Vec::new(), Vec::new())
        };
        let rec0 = self.records_offset(buffers);
        let mut counters = Vec::with_capacity(threads as usize);
        let mut steps = Vec::with_capacity(threads as usize);
        for t in 0..threads as usize {
            let at = rec0 + Self::RECORD_BYTES * t;
            counters.push(Counters {
                global_reads: get64(at + Self::REC_GLOBAL_READS),
                global_writes: get64(at + Self::REC_GLOBAL_WRITES),
                shared_reads: get64(at + Self::REC_SHARED_READS),
                shared_writes: get64(at + Self::REC_SHARED_WRITES),
                global_atomics: get64(at + Self::REC_GLOBAL_ATOMICS),
                shared_atomics: get64(at + Self::REC_SHARED_ATOMICS),
                // The instrumenter counts memory only (`RunResult::families_uncounted`).
                how: Default::default(),
            });
            steps.push(get64(at + Self::REC_STEPS));
        }
        Ok(CtlState {
            fault,
            fault_count: get64(Self::FAULT_COUNT),
            step_budget: get64(Self::STEP_BUDGET),
            table,
            shared_table,
            counters,
            steps,
            unsupported: get32(Self::UNSUPPORTED).checked_sub(1),
            heap,
            heap_freed_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> ModuleVar {
        ModuleVar {
            name: name.into(),
            size: 16,
            elem_size: 4,
            constant: false,
        }
    }

    fn shared(name: &str) -> SharedVar {
        SharedVar {
            name: name.into(),
            elem_size: 4,
            dynamic: false,
        }
    }

    #[test]
    fn access_packs_and_unpacks() {
        let a = Access {
            kind: AccessKind::Atomic,
            elem_bytes: 8,
            n: 1,
            shared: false,
        };
        assert_eq!(a.pack(), 0x2_08_01);
        assert_eq!(Access::unpack(a.pack()), Some(a));
        let v = Access {
            kind: AccessKind::Read,
            elem_bytes: 4,
            n: 4,
            shared: true,
        };
        assert_eq!(v.pack(), 0x0100_0404);
        assert_eq!(Access::unpack(v.pack()), Some(v));
        assert_eq!(Access::unpack(v.pack()).map(|a| a.total_bytes()), Some(16));
        let b = Access {
            kind: AccessKind::Barrier,
            elem_bytes: 8,
            n: 1,
            shared: true,
        };
        assert_eq!(Access::unpack(b.pack()), Some(b));
        assert_eq!(Access::unpack(4 << 16), None);
        assert_eq!(Access::unpack(1 << 25), None);
    }

    #[test]
    fn header_fields_do_not_overlap_and_records_follow_the_table() {
        // (offset, bytes, alignment its accesses need)
        let fields = [
            (CtlLayout::FAULT_FLAG, 4, 4),
            (CtlLayout::FAULT_KIND, 4, 4),
            (CtlLayout::FAULT_BLOCK, 12, 4),
            (CtlLayout::FAULT_THREAD, 12, 4),
            (CtlLayout::FAULT_LOC, 4, 4),
            (CtlLayout::FAULT_ACCESS, 4, 4),
            (CtlLayout::FAULT_ADDR, 8, 8),
            (CtlLayout::FAULT_COUNT, 8, 8),
            (CtlLayout::STOP, 4, 4),
            (CtlLayout::TABLE_LEN, 4, 4),
            (CtlLayout::STEP_BUDGET, 8, 8),
            (CtlLayout::RECORDS_OFF, 8, 8),
            (CtlLayout::SHARED_OFF, 8, 8),
            (CtlLayout::SHARED_LEN, 4, 4),
            (CtlLayout::UNSUPPORTED, 4, 4),
            (CtlLayout::ZERO, CtlLayout::ZERO_BYTES, 16),
            (CtlLayout::HEAP_LEN, 4, 4),
        ];
        for (i, &(a, la, align)) in fields.iter().enumerate() {
            assert_eq!(a % align, 0, "field at {a} is misaligned");
            assert!(a + la <= CtlLayout::TABLE);
            for &(b, lb, _) in &fields[i + 1..] {
                assert!(a + la <= b || b + lb <= a, "fields at {a} and {b} overlap");
            }
        }
        let mut l = CtlLayout {
            module_vars: vec![var("w")],
            shared_vars: vec![shared("s"), shared("t")],
            heap: false,
        };
        assert_eq!(l.table_len(3), 4);
        assert_eq!(l.shared_offset(3), CtlLayout::TABLE + 4 * 16);
        assert!(l.records_offset(3) >= l.shared_offset(3) + 2 * 16);
        assert_eq!(l.records_offset(3) % 64, 0);
        assert_eq!(l.size(3, 10), l.records_offset(3) + 560);
        // With the heap table, the records move past its entries.
        let without = l.records_offset(3);
        l.heap = true;
        assert_eq!(l.heap_offset(3), l.shared_offset(3) + 2 * 16);
        assert!(l.records_offset(3) >= l.heap_offset(3) + CtlLayout::HEAP_CAP * 16);
        assert!(l.records_offset(3) > without);
        // A record's counters: each space's reads, writes and atomics at the helpers' offsets.
        let rec = [
            (CtlLayout::REC_GLOBAL_READS, 0),
            (CtlLayout::REC_GLOBAL_WRITES, CtlLayout::REC_WRITES),
            (CtlLayout::REC_GLOBAL_ATOMICS, CtlLayout::REC_ATOMICS),
        ];
        for (at, from_reads) in rec {
            assert_eq!(at, CtlLayout::REC_GLOBAL_READS + from_reads);
        }
        let shared = CtlLayout::REC_GLOBAL_READS + CtlLayout::REC_SPACE_BYTES;
        assert_eq!(CtlLayout::REC_SHARED_READS, shared);
        assert_eq!(CtlLayout::REC_SHARED_WRITES, shared + CtlLayout::REC_WRITES);
        assert_eq!(
            CtlLayout::REC_SHARED_ATOMICS,
            shared + CtlLayout::REC_ATOMICS
        );
        const {
            assert!(CtlLayout::REC_STEPS >= CtlLayout::REC_SHARED_ATOMICS + 8);
            assert!(CtlLayout::REC_STEPS + 8 <= CtlLayout::RECORD_BYTES);
        }
    }

    #[test]
    fn encode_then_decode_round_trips() {
        let l = CtlLayout {
            module_vars: vec![var("w")],
            shared_vars: vec![shared("s"), shared("t")],
            heap: false,
        };
        let mut b = l.encode(500, &[(0x1000, 32), (0x2000, 8)], 4);
        let so = l.shared_offset(2);
        assert_eq!(
            b[CtlLayout::SHARED_OFF..CtlLayout::SHARED_OFF + 8],
            (so as u64).to_le_bytes()
        );
        assert_eq!(b[CtlLayout::SHARED_LEN], 2);
        // The kernel fills the first shared slot; the second stays unwritten.
        b[so..so + 8].copy_from_slice(&0u64.to_le_bytes());
        b[so + 8] = 64;
        assert_eq!(b.len(), l.size(2, 4));
        // What a kernel would write: the module variable's entry, a fault, thread 2's counters.
        let t = CtlLayout::TABLE;
        b[t..t + 8].copy_from_slice(&0x3000u64.to_le_bytes());
        b[t + 8..t + 16].copy_from_slice(&16u64.to_le_bytes());
        b[0] = 1;
        b[4] = 1;
        b[20] = 7;
        b[32..36].copy_from_slice(&pack_loc(1, 42).to_le_bytes());
        let acc = Access {
            kind: AccessKind::Write,
            elem_bytes: 4,
            n: 1,
            shared: false,
        };
        b[36..40].copy_from_slice(&acc.pack().to_le_bytes());
        b[40..48].copy_from_slice(&0x1020u64.to_le_bytes());
        b[48] = 3;
        let rec = l.records_offset(2) + 2 * CtlLayout::RECORD_BYTES;
        b[rec + CtlLayout::REC_SHARED_WRITES] = 5;
        b[rec + CtlLayout::REC_SHARED_ATOMICS] = 2;
        b[rec + CtlLayout::REC_STEPS] = 9;
        let s = l.decode(&b, 2, 4).unwrap();
        assert_eq!(s.table, vec![(0x3000, 16), (0x1000, 32), (0x2000, 8)]);
        assert_eq!(s.shared_table, vec![(0, 64), (UNWRITTEN, 0)]);
        assert_eq!(s.step_budget, 500);
        assert_eq!(s.fault_count, 3);
        let f = s.fault.unwrap();
        assert_eq!(f.kind, FaultKind::OutOfBounds);
        assert_eq!((f.file, f.line), (1, 42));
        assert_eq!(f.thread, [7, 0, 0]);
        assert_eq!(f.access, Some(acc));
        assert_eq!(f.addr, 0x1020);
        assert_eq!(s.counters[2].shared_writes, 5);
        assert_eq!(s.counters[2].shared_atomics, 2);
        assert_eq!(s.counters[2].global_atomics, 0);
        assert_eq!(s.steps[2], 9);
        assert_eq!(s.counters[1], Counters::default());
        assert_eq!(s.unsupported, None);
        // Site 3 reached: stored as 4, so 0 can mean none.
        b[CtlLayout::UNSUPPORTED] = 4;
        assert_eq!(l.decode(&b, 2, 4).unwrap().unsupported, Some(3));
        assert!(l.decode(&b[..100], 2, 4).is_err());
    }

    #[test]
    fn a_refused_free_names_its_heap_entry_and_freed_blocks_their_free() {
        let l = CtlLayout {
            heap: true,
            ..CtlLayout::default()
        };
        let mut b = l.encode(10, &[], 1);
        let h = l.heap_offset(0);
        b[CtlLayout::HEAP_LEN] = 2;
        // Entry 0: 8 bytes at 0x7000, freed at line 7 of file 1; entry 1: 4 bytes, live.
        b[h..h + 8].copy_from_slice(&(0x7000 | CtlLayout::HEAP_FREED).to_le_bytes());
        b[h + 8..h + 16].copy_from_slice(&(8 | u64::from(pack_loc(1, 7)) << 32).to_le_bytes());
        b[h + 16..h + 24].copy_from_slice(&0x7100u64.to_le_bytes());
        b[h + 24..h + 32].copy_from_slice(&4u64.to_le_bytes());
        b[CtlLayout::FAULT_FLAG] = 1;
        b[CtlLayout::FAULT_KIND] = FaultKind::DoubleFree as u8;
        b[CtlLayout::FAULT_ACCESS] = 1;
        b[CtlLayout::FAULT_ADDR..CtlLayout::FAULT_ADDR + 8]
            .copy_from_slice(&0x7000u64.to_le_bytes());
        let s = l.decode(&b, 0, 1).unwrap();
        assert_eq!(
            s.heap,
            vec![(0x7000 | CtlLayout::HEAP_FREED, 8), (0x7100, 4)]
        );
        assert_eq!(s.heap_freed_at, vec![pack_loc(1, 7), 0]);
        let f = s.fault.unwrap();
        assert_eq!(
            (f.kind, f.heap_entry, f.access),
            (FaultKind::DoubleFree, Some(0), None)
        );
        // A bad free into no block: no entry.
        b[CtlLayout::FAULT_KIND] = FaultKind::BadFree as u8;
        b[CtlLayout::FAULT_ACCESS] = 0;
        let f = l.decode(&b, 0, 1).unwrap().fault.unwrap();
        assert_eq!((f.kind, f.heap_entry), (FaultKind::BadFree, None));
    }
}
