//! Collects diagnostics during a launch: one report per (kind, severity, line, other line), with a count
//! of the other threads that did the same, and messages in a learner's words.

use super::facts::{Element, Facts};
use super::result::{DiagKind, Diagnostic, Severity};
use std::collections::HashMap;

#[derive(Default)]
pub struct Diags {
    list: Vec<Diagnostic>,
    /// Threads that hit each report after the first.
    extra: Vec<u64>,
    /// The last thread counted for each report: a thread that hits the same report again (in a
    /// loop, or reading and writing on one line) is counted once.
    last: Vec<([u32; 3], [u32; 3])>,
    /// (kind, is an error, line, other line) → index in `list`.
    index: HashMap<Key, usize>,
    /// The same keys in `list`'s order: a launch makes few reports, and scanning them is much
    /// cheaper than hashing for `repeat`, which a racing launch asks at nearly every access.
    keys: Vec<Key>,
    /// The index `repeat` found last: a racing launch asks about one or two reports again and
    /// again, so it is tried before the scan.
    hot: usize,
}

/// What tells reports apart: (kind, is an error, line, other line).
type Key = (DiagKind, bool, u32, u32);

/// Up to how many reports `repeat` scans `keys` instead of hashing.
const SCAN_KEYS: usize = 32;

/// How to name threads and blocks: `thread 5 of block 1` for 1D launches, tuples otherwise.
#[derive(Clone, Copy)]
pub struct Namer {
    pub one_d: bool,
}

impl Namer {
    pub fn thread(&self, t: [u32; 3]) -> String {
        if self.one_d {
            format!("thread {}", t[0])
        } else {
            format!("thread ({},{},{})", t[0], t[1], t[2])
        }
    }

    pub fn block(&self, b: [u32; 3]) -> String {
        if self.one_d {
            format!("block {}", b[0])
        } else {
            format!("block ({},{},{})", b[0], b[1], b[2])
        }
    }

    pub fn who(&self, t: [u32; 3], b: [u32; 3]) -> String {
        format!("{} of {}", self.thread(t), self.block(b))
    }
}

/// The message for an instruction the emulator does not run, `at` naming where it came from
/// (` (from k.cu:4)`): a refusal by name, at the learner's line, never a request to report a
/// bug. Textures get their own answer (a feature left out, with a plain-pointer way around
/// it), named barriers theirs (`__syncthreads()` is barrier 0), and a word that is no PTX
/// instruction at all (inline `asm` a GPU's assembler would refuse) is called that.
pub fn unsupported_instruction(text: &str, at: &str) -> String {
    let texture = ["tex.", "tld4.", "txq.", "suld.", "sust.", "sured.", "suq."]
        .iter()
        .any(|p| text.starts_with(p));
    let base = text.split('.').next().unwrap_or(text);
    if texture {
        format!(
            "textures are not supported by the emulator: `{text}`{at} reads a texture or surface; \
             pass the data as a plain pointer (`const float* __restrict__ in`) and index it \
             (gpuzzle has no way to create a texture object either)"
        )
    } else if text.starts_with('%') {
        format!(
            "the special register `{text}`{at} is not supported by gpuzzle's emulator yet (a \
             limit of gpuzzle, not a mistake in your kernel)"
        )
    } else if matches!(base, "bar" | "barrier") {
        format!(
            "named barriers are not supported by gpuzzle's emulator yet: `{text}`{at} waits at a \
             barrier by number or for a thread count (`bar.sync 1, 64`, `bar.arrive`); the \
             emulator runs `__syncthreads()`, barrier 0 for every thread of the block"
        )
    } else if !text.starts_with('.') && !PTX_OPCODES.contains(&base) {
        format!(
            "`{text}`{at} is not a PTX instruction: the text of an `asm(...)` statement must be \
             PTX, and a GPU's assembler (ptxas) would refuse this kernel"
        )
    } else {
        format!(
            "the instruction `{text}`{at} is not supported by gpuzzle's emulator yet (a limit of \
             gpuzzle, not a mistake in your kernel)"
        )
    }
}

/// The message for a call to a function the emulator does not provide (`name` as PTX calls
/// it), `at` as for [`unsupported_instruction`].
pub fn unsupported_call(name: &str, at: &str) -> String {
    if name.starts_with("cudaLaunchDevice") || name.starts_with("cudaGetParameterBuffer") {
        format!(
            "launching a kernel from a kernel (dynamic parallelism, `{name}`){at} is not \
             supported by gpuzzle's emulator"
        )
    } else {
        format!(
            "a call to `{name}`{at} is not supported by gpuzzle's emulator yet (a limit of \
             gpuzzle, not a mistake in your kernel)"
        )
    }
}

/// The first word of every instruction in the PTX ISA (9.x), so that inline `asm` holding
/// something else is told apart from PTX the emulator does not run.
const PTX_OPCODES: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "alloca",
    "and",
    "applypriority",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "bra",
    "brev",
    "brkpt",
    "brx",
    "call",
    "clz",
    "clusterlaunchcontrol",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "createpolicy",
    "cvt",
    "cvta",
    "discard",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "exit",
    "fence",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "membar",
    "min",
    "mma",
    "mov",
    "movmatrix",
    "mul",
    "mul24",
    "multimem",
    "nanosleep",
    "neg",
    "not",
    "or",
    "pmevent",
    "popc",
    "prefetch",
    "prefetchu",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setmaxnreg",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "st",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "sub",
    "subc",
    "suld",
    "suq",
    "sured",
    "sust",
    "szext",
    "tanh",
    "tcgen05",
    "tensormap",
    "testp",
    "tex",
    "tld4",
    "trap",
    "txq",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vavrg2",
    "vavrg4",
    "vmad",
    "vmax",
    "vmax2",
    "vmax4",
    "vmin",
    "vmin2",
    "vmin4",
    "vote",
    "vset",
    "vset2",
    "vset4",
    "vshl",
    "vshr",
    "vsub",
    "vsub2",
    "vsub4",
    "wgmma",
    "wmma",
    "xor",
];

/// A shared variable as the launch lays it out: (name, offset, element size, size in bytes).
pub type SharedVar = (String, u64, u64, u64);

/// A shared offset as the kernel computed it: shared offsets are small, so one past 2^63 is a
/// negative index that wrapped around (`cache[-1]` at offset 0 is offset 2^64 - 4).
fn signed_offset(off: u64) -> i128 {
    off as i64 as i128
}

/// The shared variable an offset belongs to, overflows from or underflows into: the one whose
/// bytes are nearest (an access in the red zone between two arrays is named after the closer
/// one, so `b[-1]` is not reported as `a[n + 15]`).
pub fn nearest_shared_var(vars: &[SharedVar], off: u64) -> Option<&SharedVar> {
    let o = signed_offset(off);
    vars.iter().min_by_key(|v| {
        let (start, end) = (v.1 as i128, v.1 as i128 + v.3 as i128);
        if o < start {
            start - o
        } else {
            (o - end + 1).max(0)
        }
    })
}

/// The element index an offset names in `var` (negative below its start).
pub fn shared_index(var: &SharedVar, off: u64, access_size: u32) -> i128 {
    let elem = if var.2 > 1 { var.2 } else { access_size as u64 };
    (signed_offset(off) - var.1 as i128).div_euclid(elem.max(1) as i128)
}

/// The element an offset names in shared variable `var`, as facts.
pub fn shared_element(var: &SharedVar, off: u64, access_size: u32) -> Element {
    let elem = if var.2 > 1 {
        var.2
    } else {
        access_size.max(1) as u64
    };
    Element {
        name: var.0.clone(),
        index: shared_index(var, off, access_size),
        len: var.3 / elem,
    }
}

/// The message for a shared access outside every shared array, and the element it names
/// (`cache[-1]`, `partial_sum[256]`).
pub fn shared_oob_message(
    vars: &[SharedVar],
    off: u64,
    access_size: u32,
    who: &str,
    verb: &str,
    at_line: &str,
) -> (String, Option<Element>) {
    let Some(var) = nearest_shared_var(vars, off) else {
        return (
            format!(
                "{who} {verb} shared memory at offset {}{at_line}, outside every shared array",
                signed_offset(off)
            ),
            None,
        );
    };
    let e = shared_element(var, off, access_size);
    let (name, idx, n) = (&e.name, e.index, e.len);
    (
        format!("{who} {verb} shared {name}[{idx}]{at_line}, but {name} has {n} elements"),
        Some(e),
    )
}

pub struct Site {
    pub file: Option<String>,
    pub line: u32,
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

impl Diags {
    /// Record a problem unless the same kind at the same lines was already reported; `message`
    /// and `help` are only built for the first report.
    pub fn report(
        &mut self,
        kind: DiagKind,
        severity: Severity,
        site: Site,
        other_line: Option<u32>,
        message: impl FnOnce() -> (String, Facts),
    ) {
        if self.repeat(
            kind,
            severity,
            site.line,
            other_line,
            site.block,
            site.thread,
        ) {
            return;
        }
        let key = (
            kind,
            severity == Severity::Error,
            site.line,
            other_line.unwrap_or(0),
        );
        let who = (site.block, site.thread);
        let (message, facts) = message();
        self.last.push(who);
        self.index.insert(key, self.list.len());
        self.keys.push(key);
        self.list.push(Diagnostic {
            kind,
            severity,
            message,
            help: None,
            facts,
            file: site.file,
            line: (site.line > 0).then_some(site.line),
            block: site.block,
            thread: site.thread,
            other_line,
        });
        self.extra.push(0);
    }

    /// What `report` does for a report of `kind` at these lines already made (count the thread
    /// when it is another than the last one counted), returning true; false, changing nothing,
    /// when no such report was made yet. A hot path that would report the same race again and
    /// again (every access of a racing launch) asks this first and builds its message (names,
    /// the element, the site's file) only when it is new.
    pub fn repeat(
        &mut self,
        kind: DiagKind,
        severity: Severity,
        line: u32,
        other_line: Option<u32>,
        block: [u32; 3],
        thread: [u32; 3],
    ) -> bool {
        let Some(i) = self.index_of(kind, severity, line, other_line) else {
            return false;
        };
        self.count_at(i, block, thread);
        true
    }

    /// Where the report of `kind` at these lines is in the list, if it was made. An index
    /// stays valid for the life of these reports (the list only grows).
    pub(super) fn index_of(
        &mut self,
        kind: DiagKind,
        severity: Severity,
        line: u32,
        other_line: Option<u32>,
    ) -> Option<usize> {
        let key = (
            kind,
            severity == Severity::Error,
            line,
            other_line.unwrap_or(0),
        );
        let found = if self.keys.get(self.hot) == Some(&key) {
            Some(self.hot)
        } else if self.keys.len() <= SCAN_KEYS {
            self.keys.iter().position(|k| *k == key)
        } else {
            self.index.get(&key).copied()
        };
        if let Some(i) = found {
            self.hot = i;
        }
        found
    }

    /// `repeat` of the report at index `i` (`index_of`): count `thread` of `block` when it is
    /// another than the last one counted.
    #[inline(always)]
    pub(super) fn count_at(&mut self, i: usize, block: [u32; 3], thread: [u32; 3]) {
        if let Some(last) = self.last.get_mut(i) {
            if *last != (block, thread) {
                *last = (block, thread);
                self.extra[i] += 1;
            }
        }
    }

    /// Whether any report is of another kind than `kind`.
    /// Whether a report of `kind` was made.
    pub fn has(&self, kind: DiagKind) -> bool {
        self.list.iter().any(|d| d.kind == kind)
    }

    pub fn any_but(&self, kind: DiagKind) -> bool {
        self.list.iter().any(|d| d.kind != kind)
    }

    /// Count one more thread for the report of `kind` at these lines (one already made).
    pub fn count_another(&mut self, kind: DiagKind, line: u32, other_line: u32) {
        if let Some(&i) = self.index.get(&(kind, true, line, other_line)) {
            self.extra[i] += 1;
        }
    }

    /// Merge another block's reports after this one's (block order keeps runs deterministic).
    pub fn merge(&mut self, other: Diags) {
        for (d, extra) in other.list.into_iter().zip(other.extra) {
            let key = (
                d.kind,
                d.severity == Severity::Error,
                d.line.unwrap_or(0),
                d.other_line.unwrap_or(0),
            );
            if let Some(&i) = self.index.get(&key) {
                self.extra[i] += 1 + extra;
            } else {
                self.index.insert(key, self.list.len());
                self.keys.push(key);
                self.last.push((d.block, d.thread));
                self.list.push(d);
                self.extra.push(extra);
            }
        }
    }

    /// The final list, each message ending with how many other threads did the same.
    pub fn finish(self) -> Vec<Diagnostic> {
        self.list
            .into_iter()
            .zip(self.extra)
            .map(|(mut d, extra)| {
                if extra == 1 {
                    d.message.push_str(" (1 other thread did the same)");
                } else if extra > 1 {
                    d.message
                        .push_str(&format!(" ({extra} other threads did the same)"));
                }
                d
            })
            .collect()
    }
}

/// Where the shared-memory race reports `shared_found` met last are in the reports, as
/// (line, other line, index in `Diags` + 1; 0 for an empty slot): a racing launch meets one or
/// two of them at nearly every access, and counting its thread at a known index
/// (`Diags::count_at`) skips the lookup and every name. Two, for a loop that races on two
/// lines in turn. Valid for the `Diags` of one block (its indices never move).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RaceMemo {
    slots: [(u32, u32, u32); 2],
    /// The slot the next report takes.
    next: usize,
}

impl RaceMemo {
    /// The index of the report at (`line`, `other_line`), if it is remembered.
    #[inline(always)]
    pub(super) fn index(&self, line: u32, other_line: u32) -> Option<usize> {
        // Two compares written out: `contains` on the array was an out-of-line call.
        let [a, b] = self.slots;
        if a.0 == line && a.1 == other_line && a.2 != 0 {
            Some(a.2 as usize - 1)
        } else if b.0 == line && b.1 == other_line && b.2 != 0 {
            Some(b.2 as usize - 1)
        } else {
            None
        }
    }

    /// The report at (`line`, `other_line`) is at `index`.
    #[inline(always)]
    pub(super) fn remember(&mut self, line: u32, other_line: u32, index: usize) {
        let Ok(i) = u32::try_from(index + 1) else {
            return;
        };
        self.slots[self.next] = (line, other_line, i);
        self.next ^= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_race_memo_counts_threads_as_repeat_does() {
        let report = |d: &mut Diags, other: u32| {
            d.report(
                DiagKind::SharedRace,
                Severity::Error,
                site(7, 0),
                Some(other),
                || (format!("race with line {other}"), Facts::None),
            )
        };
        let (mut fast, mut slow) = (Diags::default(), Diags::default());
        for d in [&mut fast, &mut slow] {
            report(d, 5);
            report(d, 6);
        }
        let mut memo = RaceMemo::default();
        assert_eq!(memo.index(7, 5), None, "nothing remembered yet");
        for other in [5, 6] {
            let i = fast.index_of(DiagKind::SharedRace, Severity::Error, 7, Some(other));
            memo.remember(7, other, i.expect("reported"));
        }
        // Threads meeting the two races in turn, some again: counted once per change of thread.
        for t in [1, 1, 2, 1, 3, 3, 0] {
            for other in [5, 6] {
                let i = memo.index(7, other).expect("remembered");
                fast.count_at(i, [0; 3], [t, 0, 0]);
                slow.repeat(
                    DiagKind::SharedRace,
                    Severity::Error,
                    7,
                    Some(other),
                    [0; 3],
                    [t, 0, 0],
                );
            }
        }
        let words = |d: Diags| {
            d.finish()
                .into_iter()
                .map(|d| d.message)
                .collect::<Vec<_>>()
        };
        let (f, s) = (words(fast), words(slow));
        assert_eq!(f, s);
        assert!(f[0].ends_with("(5 other threads did the same)"), "{f:?}");
        // A third report takes the older slot; a report at other lines is not found.
        memo.remember(9, 5, 1);
        assert_eq!(memo.index(7, 5), None);
        assert_eq!(memo.index(7, 6), Some(1));
        assert_eq!(memo.index(9, 5), Some(1));
        assert_eq!(memo.index(9, 6), None);
    }

    fn site(line: u32, t: u32) -> Site {
        Site {
            file: None,
            line,
            block: [0; 3],
            thread: [t, 0, 0],
        }
    }

    #[test]
    fn textures_are_named_as_textures() {
        let m = unsupported_instruction("tex.1d.v4.f32.s32", " (from k.cu:4)");
        assert!(
            m.starts_with(
                "textures are not supported by the emulator: `tex.1d.v4.f32.s32` (from k.cu:4)"
            ),
            "{m}"
        );
        let m = unsupported_instruction("suld.b.2d.b32.trap", "");
        assert!(m.starts_with("textures are not supported"), "{m}");
        let m = unsupported_instruction("wgmma.fence", " (from k.cu:9)");
        assert!(
            m.contains("`wgmma.fence` (from k.cu:9) is not supported by gpuzzle's emulator yet"),
            "{m}"
        );
    }

    /// Valid CUDA is refused by name, never with a request to report a gpuzzle bug.
    #[test]
    fn refusals_name_what_they_refuse() {
        for (text, want) in [
            ("bar.sync", "named barriers are not supported"),
            ("barrier.sync.aligned", "named barriers are not supported"),
            ("bar.arrive", "named barriers are not supported"),
            (
                "foo.bar",
                "`foo.bar` (from k.cu:3) is not a PTX instruction",
            ),
            ("cp.async.ca.shared.global", "not a mistake in your kernel"),
            (
                ".branchtargets",
                "`.branchtargets` (from k.cu:3) is not supported",
            ),
        ] {
            let m = unsupported_instruction(text, " (from k.cu:3)");
            assert!(m.contains(want), "{text}: {m}");
            assert!(!m.contains("report"), "{text}: {m}");
        }
        let m = unsupported_call("cudaLaunchDeviceV2", "");
        assert!(m.contains("dynamic parallelism"), "{m}");
        assert!(!unsupported_call("foo", "").contains("report"));
    }

    fn vars() -> Vec<SharedVar> {
        vec![
            ("PMPP::CUDA::partial_sum".into(), 0, 4, 1024),
            ("cache".into(), 1088, 4, 256),
        ]
    }

    #[test]
    fn a_negative_shared_index_is_named_as_negative() {
        let v = vars();
        // cache[-1] in the red zone after partial_sum: the nearer array is cache.
        let (m, e) = shared_oob_message(&v, 1084, 4, "thread 0", "wrote", "");
        assert_eq!(
            m,
            "thread 0 wrote shared cache[-1], but cache has 64 elements"
        );
        assert_eq!(e.map(|e| (e.index, e.len)), Some((-1, 64)));
        // Below the first array the offset wraps around.
        let (m, e) = shared_oob_message(&v, 0u64.wrapping_sub(4), 4, "thread 0", "read", "");
        assert_eq!(
            m,
            "thread 0 read shared PMPP::CUDA::partial_sum[-1], but PMPP::CUDA::partial_sum has 256 elements"
        );
        assert_eq!(e.map(|e| e.index), Some(-1));
    }

    #[test]
    fn an_index_past_the_end_is_named_after_the_array_it_overflows() {
        let v = vars();
        let (m, e) = shared_oob_message(&v, 1024, 4, "thread 255", "wrote", " (line 5)");
        assert_eq!(
            m,
            "thread 255 wrote shared PMPP::CUDA::partial_sum[256] (line 5), but PMPP::CUDA::partial_sum has 256 elements"
        );
        assert_eq!(e.map(|e| (e.index, e.len)), Some((256, 256)));
        assert_eq!(shared_index(&v[1], 1088 + 256, 4), 64);
    }

    #[test]
    fn deduplicates_by_kind_and_line_and_counts_threads() {
        let mut d = Diags::default();
        for t in 0..3 {
            d.report(
                DiagKind::OutOfBounds,
                Severity::Error,
                site(7, t),
                None,
                || ("first".into(), Facts::None),
            );
        }
        d.report(
            DiagKind::OutOfBounds,
            Severity::Error,
            site(8, 0),
            None,
            || ("second".into(), Facts::None),
        );
        // The same thread again is not another thread.
        d.report(
            DiagKind::OutOfBounds,
            Severity::Error,
            site(7, 2),
            None,
            || ("first".into(), Facts::None),
        );
        let v = d.finish();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].message, "first (2 other threads did the same)");
        assert_eq!(v[0].thread, [0, 0, 0]);
        assert_eq!(v[1].line, Some(8));
    }
}
