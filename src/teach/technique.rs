//! Help for a run that skipped the puzzle's technique, or used one the puzzle forbids: a block
//! under a family's `require`, or a thread over a family's budget (`forbid` is a budget of 0),
//! and, for a memory counter over its budget, what the budget is built for. The facts are the
//! counters (`emu::technique`), the puzzle's `[technique]` and the census of the learner's
//! lines (`ptx::census`); each sentence is said only where the census shows its premise (the
//! lines that multiply bytes one by one, the lines that keep an array in local memory), and
//! otherwise the help says what was counted.

use crate::emu::result::Counters;
use crate::emu::technique::Family;
use crate::ptx::census::{Census, Work};
use crate::puzzle::Technique;
use crate::teach::source::{find_word, Source};

/// What was broken: a block under `require`, or a thread over the budget (`forbidden`: the
/// budget is `forbid`'s 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Miss {
    /// Under `require` (a block's total), or `warp_require` (`warp`: a warp's total over its
    /// lanes, in a warp with work).
    Required { used: u64, min: u64, warp: bool },
    OverBudget {
        used: u64,
        limit: u64,
        forbidden: bool,
    },
    /// A block over a family's `block_budget` (its total over its threads).
    BlockOverBudget { used: u64, limit: u64 },
}

/// What the puzzle and the learner's code give a rule.
pub struct Context<'a> {
    pub puzzle_id: u32,
    pub technique: Option<&'a Technique>,
    pub census: &'a Census,
    /// The learner's source, for what a line says (a `double` literal).
    pub source: &'a str,
    /// The test's defines and scalars with integer values, and its block's shape: what a rule
    /// needs to evaluate a loop's bound or a tile's row pitch.
    pub values: &'a [(String, i64)],
    pub block: [u32; 3],
}

/// The help for `counter` (an index into `Counters::NAMES`) missed as `miss`, or `None` when
/// there is nothing to add to the counts the report already shows.
pub fn help(counter: usize, miss: Miss, cx: &Context) -> Option<String> {
    let Some(family) = Counters::family(counter) else {
        if let Miss::BlockOverBudget { limit, .. } = miss {
            return atomics_over(counter, limit, cx);
        }
        return memory_budget(counter, miss, cx);
    };
    let asks = asks_for(family, counter, cx);
    match miss {
        Miss::Required { used, min, warp } => Some(required(family, (used, min, warp), &asks, cx)),
        Miss::OverBudget {
            used,
            limit,
            forbidden,
        } => Some(over(family, used, limit, forbidden, cx)),
        Miss::BlockOverBudget { limit, .. } => block_over(family, limit, cx),
    }
}

/// A block over a family's `block_budget`: where the census shows the cause, the lines and
/// the instruction that does the same work in fewer; otherwise nothing beyond the counts.
fn block_over(family: Family, limit: u64, cx: &Context) -> Option<String> {
    let c = cx.census;
    // The counts are in the table above the help; without them the help reads the same for
    // every test and is said once.
    let head = format!(
        "puzzle {} allows {limit} {} per block, and a block of your kernel ran more",
        cx.puzzle_id,
        family.label(),
    );
    if family == Family::SharedWriteWarps {
        let stores = c.lines(Work::SharedStore);
        let at = if stores.is_empty() {
            String::new()
        } else {
            format!(" (its shared stores: {})", lines(&stores))
        };
        return Some(format!(
            "puzzle {} allows {limit} warp-steps that write shared memory per block (each barrier interval, each warp with a lane that writes), and a block of your kernel kept more warps busy{at}: choose the active threads side by side, `if (t < stride)` with stride halving from TPB / 2, so that whole warps have nothing to do and skip the step; `if (t % (2 * stride) == 0)` leaves most lanes idle but keeps every warp busy.",
            cx.puzzle_id
        ));
    }
    if matches!(family, Family::F32 | Family::F16) {
        return Some(scalar_math_over(family, &head, cx));
    }
    let (narrow, wide) = match family {
        Family::GlobalLoadInstrs => (
            c.lines(Work::GlobalNarrowLoad),
            "one 16-byte load (`float4 x = reinterpret_cast<const float4*>(a)[j];`) moves four floats in one instruction",
        ),
        Family::GlobalStoreInstrs => (
            c.lines(Work::GlobalNarrowStore),
            "one 16-byte store (`reinterpret_cast<float4*>(out)[j] = v;`) moves four floats in one instruction",
        ),
        _ => return None,
    };
    let kind = if family == Family::GlobalLoadInstrs {
        "loads"
    } else {
        "stores"
    };
    Some(if narrow.is_empty() {
        format!("{head}: {wide}.")
    } else {
        format!(
            "{head}: it {kind} global memory in pieces of less than 16 bytes, scalars or pairs ({}), where {wide}; narrow {kind} are for the few elements left over at the end.",
            lines(&narrow)
        )
    })
}

/// A counter as a message names it: its family's label, else its key with spaces.
fn counter_label(counter: usize) -> String {
    match Counters::family(counter) {
        Some(f) => f.label(),
        None => Counters::NAMES[counter],
    }
    .replace('_', " ")
}

/// A required counter met only by work whose result is dropped (`judge`'s liveness check): it
/// does not count, and the help says where.
pub fn unfed(puzzle_id: u32, counter: usize, dead_lines: &[u32]) -> String {
    let label = counter_label(counter);
    format!(
        "puzzle {puzzle_id} requires {label} that feed the result, and your kernel's {label} ({}) are never used afterwards: a value read or computed and then dropped (a `volatile` read into a variable nothing reads) does not count. Use what they give in the computation",
        lines(dead_lines)
    )
}

/// A required counter whose results, all changed (`judge`'s re-run of the
/// test), changed no output: they reach the result only through something that cancels them
/// (`& 0` at run time, `* 0.0f`, `| ~0u`), so they do not count. `work_lines`: the learner's
/// lines with that work (may be empty when the census cannot place them); where there is one,
/// its code is quoted, so the learner can follow the value it makes to where it is cancelled.
pub fn unfed_results(
    puzzle_id: u32,
    counter: usize,
    work_lines: &[u32],
    (test, gate): (&str, crate::ptx::perturb::Gate),
    src: &Source,
) -> String {
    let label = counter_label(counter);
    let at = match work_lines {
        [] => String::new(),
        [one] => format!(" (line {one}: `{}`)", src.line(*one).trim()),
        more => format!(" ({})", lines(more)),
    };
    use crate::ptx::perturb::Gate;
    match gate {
        // `judge::feeds` flips packed halves lane by lane: one lane of them fed nothing.
        Gate::All if Counters::family(counter) == Some(Family::F16x2) => format!(
            "puzzle {puzzle_id} requires {label} whose two halves both feed the result, and in your kernel's {label}{at} one half does not: gpuzzle ran test \"{test}\" again with one half of every packed result changed (the high halves, then the low ones), and not one output changed. An instruction that computes one element beside a dummy (`__hfma2` on `(h, 0)`) is one element per instruction in a packed coat. Put two elements in each `__half2` and compute both at once."
        ),
        Gate::All => format!(
            "puzzle {puzzle_id} requires {label} that feed the result, and your kernel's {label}{at} do not reach it: gpuzzle ran test \"{test}\" again with every one of their results changed (one bit flipped, a high one, then the lowest), and not one output changed. A result combined with something that cancels it (ANDed with a value that is 0 at run time, multiplied by 0.0f, ORed with all ones, a branch never taken) does not count. Compute the output from what they give."
        ),
        Gate::NotLane0 => format!(
            "puzzle {puzzle_id} requires {label} that feed the result in every lane, and your kernel's {label}{at} reach it only through each warp's lane 0: gpuzzle ran test \"{test}\" again with their results changed in every other lane (a high bit, then the lowest), and not one output changed: only lane 0 of each warp uses them. Let every lane compute its own share from them."
        ),
        Gate::Late(n) => format!(
            "puzzle {puzzle_id} requires {label} that feed the result in every step, and your kernel's later {label}{at} do not reach it: gpuzzle ran test \"{test}\" again with the results of each thread's {label} after its first {n} changed (a high bit, then the lowest), and not one output changed, though changing all of them does change it: only the first steps use them. The later steps compute their share some other way and run them only to be counted. Use them in every step."
        ),
        Gate::Block(b) => format!(
            "puzzle {puzzle_id} requires {label} that feed the result in every block, and in block {b} of test \"{test}\" your kernel's {label}{at} do not reach it: gpuzzle ran the test again with their results changed in that block alone (one bit flipped, a high one and the lowest), and the output did not change as it does in another block. That block computes its share some other way and runs them only to be counted. Let every block compute its share from what they give."
        ),
        Gate::Warp(w) => format!(
            "puzzle {puzzle_id} requires {label} that feed the result in every warp, and in warp {w} of each block (threads {} to {}) your kernel's {label}{at} do not reach it: gpuzzle ran test \"{test}\" again with their results changed in that warp alone (one bit flipped, a high one, then the lowest), and not one output changed, though they do feed it in another warp. That warp computes its share some other way and runs them only to be counted. Let every warp compute its share from what they give.",
            w * 32,
            w * 32 + 31
        ),
    }
}

/// "puzzle 42 asks for `__dp4a`": the puzzle's own name for its technique when the counter is
/// one of its counters, else the family's CUDA spelling.
fn asks_for(family: Family, counter: usize, cx: &Context) -> String {
    let named = cx
        .technique
        .filter(|t| t.counters.contains(&counter))
        .map(|t| t.name.clone());
    format!(
        "puzzle {} asks for {}",
        cx.puzzle_id,
        named.unwrap_or_else(|| family.spelled().to_string())
    )
}

fn required(
    family: Family,
    (used, min, warp): (u64, u64, bool),
    asks: &str,
    cx: &Context,
) -> String {
    let c = cx.census;
    let counted = match (warp, used) {
        (false, 0) => format!("a block of your kernel ran no {}", family.label()),
        (false, _) => format!(
            "a block of your kernel ran {used} {} where every block needs at least {min}",
            family.label()
        ),
        (true, 0) => format!(
            "a warp of your kernel with work (it reads or writes global memory) ran no {}",
            family.label()
        ),
        (true, _) => format!(
            "a warp of your kernel with work (it reads or writes global memory) ran {used} {} (its lanes together) where every such warp needs at least {min}",
            family.label()
        ),
    };
    if warp {
        if let Some(skipped) = warp_skips_its_own(family, used, cx) {
            return format!("{asks}: {counted}, {skipped}.");
        }
    }
    let instead: Option<String> = match family {
        Family::Dp4a => {
            let bytes = c.lines(Work::ByteExtract);
            let muls: Vec<u32> = c
                .lines(Work::IntMul)
                .into_iter()
                .chain(c.lines(Work::FloatMulAdd))
                .collect();
            if !bytes.is_empty() && !muls.is_empty() {
                // Lines that both take bytes and multiply are the byte products; a multiply
                // elsewhere (`4 * word`, an address) is named only when no line does both.
                let both: Vec<u32> = muls.iter().copied().filter(|l| bytes.contains(l)).collect();
                let all = if both.is_empty() {
                    let mut all = bytes;
                    all.extend(muls);
                    all
                } else {
                    both
                };
                Some(format!(
                    "your kernel takes the bytes apart and multiplies them one by one ({}): `__dp4a(a, b, c)` multiplies the four byte pairs of two 32-bit words and adds them to c in one instruction",
                    lines(&all)
                ))
            } else {
                None
            }
        }
        Family::Mma | Family::Wmma => {
            let fmas = c.lines(Work::FloatMulAdd);
            (!fmas.is_empty()).then(|| {
                format!(
                    "your kernel computes the products with scalar multiply-adds ({}), one per thread per step, where one {} multiplies a whole tile for the warp",
                    lines(&fmas),
                    family.spelled()
                )
            })
        }
        Family::Ldmatrix => {
            let from = if c.any(Work::Mma) {
                let shared = c.lines(Work::SharedLoad);
                let global = c.lines(Work::GlobalLoad);
                if !shared.is_empty() {
                    Some(format!(
                        "your kernel gathers the fragments with scalar shared loads ({})",
                        lines(&shared)
                    ))
                } else if !global.is_empty() {
                    Some(format!(
                        "your kernel feeds the mma from global memory ({}) without staging tiles in shared memory",
                        lines(&global)
                    ))
                } else {
                    None
                }
            } else {
                None
            };
            from.map(|f| format!("{f}: `ldmatrix` loads a warp's fragments from shared memory rows in one instruction"))
        }
        Family::Shuffles | Family::WarpReduces => {
            let through: Vec<u32> = c
                .lines(Work::SharedLoad)
                .into_iter()
                .chain(c.lines(Work::SharedStore))
                .collect();
            let atomics = c.lines(Work::SharedAtomic);
            if !atomics.is_empty() {
                Some(format!(
                    "your kernel combines the warp's values with shared atomics ({}): a warp's lanes can exchange registers directly with `__shfl_down_sync`",
                    lines(&atomics)
                ))
            } else if !through.is_empty() {
                Some(format!(
                    "your kernel exchanges the warp's values through shared memory ({}): a warp's lanes can read each other's registers directly with `__shfl_down_sync`, no shared memory and no barrier",
                    lines(&through)
                ))
            } else {
                None
            }
        }
        Family::Matches => {
            let votes = c.lines(Work::Vote);
            (!votes.is_empty()).then(|| {
                format!(
                    "your kernel finds the lanes with the same key with ballots ({}), a loop of votes; `__match_any_sync(mask, key)` gives each lane the mask of the lanes holding its key in one instruction",
                    lines(&votes)
                )
            })
        }
        Family::F16x2 => {
            let to_float = c.lines(Work::HalfToFloat);
            let scalar = c.lines(Work::HalfScalar);
            if !to_float.is_empty() {
                Some(format!(
                    "your kernel converts the halves to float and computes in float ({}): `__half2` arithmetic (`__hfma2`, `__hadd2`) computes both halves of a 32-bit word in one instruction",
                    lines(&to_float)
                ))
            } else if !scalar.is_empty() {
                Some(format!(
                    "your kernel computes one `__half` at a time ({}): `__half2` arithmetic computes two per instruction",
                    lines(&scalar)
                ))
            } else {
                None
            }
        }
        Family::CpAsync => {
            let copies = c.lines_with_all(&[Work::GlobalLoad, Work::SharedStore]);
            let loads = c.lines(Work::GlobalLoad);
            let shown = if copies.is_empty() { loads } else { copies };
            (!shown.is_empty()).then(|| {
                format!(
                    "your kernel copies through registers, a global load then a shared store ({}): an async copy (`__pipeline_memcpy_async`) moves the bytes to shared memory without a register, while the thread goes on",
                    lines(&shown)
                )
            })
        }
        Family::CpAsyncOverlap => {
            let all = c.lines(Work::WaitAll);
            let some = c.lines(Work::WaitSome);
            if !c.any(Work::CpAsync) {
                Some("your kernel makes no async copy at all".to_string())
            } else if !some.is_empty() {
                // A wait that leaves groups in flight is there; the count says that none of
                // them was both loading while the thread computed and read afterwards (nothing
                // in flight, a copy nobody reads, or one a second wait drained at once).
                Some(format!(
                    "your kernel waits for all but the newest groups ({}), but no copy left in flight there both kept loading while the thread computed (it read shared memory before its next wait) and brought data the block read afterwards: a copy into a slot nobody reads, or one the next wait drains before any work, overlaps nothing. Start the next tile's copies into the other buffer, wait for all but that group, compute on this tile, and compute on the other buffer in the next step",
                    lines(&some)
                ))
            } else if !all.is_empty() {
                Some(format!(
                    "your kernel waits for every copy before it computes ({}), so no copy overlaps the work: start the next tile's copies before computing on this one, and wait for all but the newest group (`__pipeline_wait_prior(1)`, `cp.async.wait_group 1`)",
                    lines(&all)
                ))
            } else {
                // The counter counts a group in flight at a wait only once the block reads
                // what it copied: either no wait found a later copy in flight, or the copies
                // it found brought nothing the block used.
                Some("no wait of your kernel went on while a copy whose data the block then read was still in flight (a copy counts as overlap only when it brings data the block computes on after a later wait): start the next tile's copies (into the other buffer) before waiting for this one, and compute on that buffer after the next wait".to_string())
            }
        }
        Family::GridSyncs => {
            // The learner's global writes: the per-block results a sync would publish.
            let mut writes = c.lines(Work::GlobalStore);
            writes.extend(c.lines(Work::GlobalAtomic));
            Some(if writes.is_empty() {
                "your kernel writes no global memory that another block could read, and a block that never calls `grid.sync()` cannot use what the other blocks wrote: write each block's result to global memory, call `grid.sync()`, then read the others' results".to_string()
            } else {
                format!(
                    "your kernel writes global memory ({}) and no block waits for the others: a block that never calls `grid.sync()` cannot use what the other blocks wrote. Call `grid.sync()` (on `cg::this_grid()`, every thread of every block) after the write of the per-block values and before any block reads them",
                    lines(&writes)
                )
            })
        }
        Family::Barriers => barriers_instead(c),
        Family::OrderingBarriers => ordering_instead(c),
        Family::Popc => {
            // A ballot whose bits are counted some other way (a loop of shifts and masks).
            let votes = c.lines(Work::Vote);
            (!votes.is_empty()).then(|| {
                format!(
                    "your kernel takes ballots ({}) and counts their bits without `__popc`: `__popc(ballot & mask)` counts the set bits of a word in one instruction (for the lanes below this one, `mask = (1u << lane) - 1`)",
                    lines(&votes)
                )
            })
        }
        Family::Votes => votes_instead(c),
        Family::LocalReads
        | Family::LocalWrites
        | Family::F64
        | Family::GlobalLoadInstrs
        | Family::GlobalStoreInstrs
        | Family::SharedWriteWarps
        | Family::Activemask
        | Family::F32
        | Family::F16 => None,
    };
    match instead {
        Some(i) => format!("{asks}: {i}."),
        None => format!("{asks}: {counted}."),
    }
}

/// A warp with work short of a warp-wide family that the kernel does have: its lines, and what
/// keeps a warp from them where the source shows it (the `if` around the first of them, an
/// early return before it, or the loop it runs in), plus the ballots the kernel runs when the
/// family is another (a sum or a maximum through votes). `None` when the census has none of
/// the family's instructions: then the help says what the kernel does instead, as for a block.
fn warp_skips_its_own(family: Family, used: u64, cx: &Context) -> Option<String> {
    let c = cx.census;
    let work = match family {
        Family::Shuffles => Work::Shuffle,
        Family::Votes => Work::Vote,
        Family::Matches => Work::Match,
        Family::Mma => Work::Mma,
        Family::Wmma => Work::Wmma,
        Family::Ldmatrix => Work::Ldmatrix,
        Family::CpAsync => Work::CpAsync,
        Family::Dp4a => Work::Dp4a,
        _ => return None,
    };
    let at = c.lines(work);
    if at.is_empty() {
        return None;
    }
    let votes = c.lines(Work::Vote);
    let also = if family != Family::Votes && !votes.is_empty() {
        format!(
            ". Your kernel also runs ballots ({}): a sum or a maximum taken through votes does without them",
            lines(&votes)
        )
    } else {
        String::new()
    };
    Some(format!(
        "though your kernel has them ({}): {}. Every warp with work does its own share with {}{also}",
        lines(&at),
        what_keeps_a_warp_from(at[0], used, cx),
        family.spelled()
    ))
}

/// Why a warp ran less of line `first`'s instruction than the others, from the source: the
/// innermost `if` around it, else a loop around it whose count can differ, else an early
/// `if (...) return;` before it; else what usually does it, in general words.
fn what_keeps_a_warp_from(first: u32, used: u64, cx: &Context) -> String {
    let src = Source::preprocessed(cx.source, cx.values);
    let guards = src.guards(first);
    if let Some(g) = guards.iter().find(|g| !g.returns) {
        let never = if used == 0 { "not" } else { "not every time" };
        return format!(
            "they run only inside `if ({})` (line {}), which that warp does {never} take",
            g.cond.trim(),
            g.line
        );
    }
    let around = src
        .loop_header(first)
        .filter(|h| h.line == first || src.loop_body(h.line).contains(&first));
    if let Some(h) = around {
        return format!(
            "they run in the loop on line {} (`{}`), which that warp runs fewer times than the others",
            h.line,
            h.cond.trim()
        );
    }
    if let Some(g) = guards.iter().find(|g| g.returns) {
        return format!(
            "that warp leaves at `if ({}) return;` (line {}) before them",
            g.cond.trim(),
            g.line
        );
    }
    "a branch or a loop bound that differs between warps keeps that warp from them".to_string()
}

/// What a kernel short of block barriers does instead, where the census shows it: part of the
/// work finished inside a warp (shuffles, warp reduces, `__syncwarp()`), shared memory written
/// and read back with no barrier at all, or no shared memory at all.
/// A block short of barriers that order shared memory: where the census shows barriers, they
/// ran with nothing to order between them (the count says so: each one that ordered a write
/// before another thread's access counted), so the kernel did its exchanges in fewer steps
/// than the lesson's; where it shows none, `barriers_instead`'s reasons apply.
fn ordering_instead(c: &Census) -> Option<String> {
    let mut bars = c.lines(Work::Barrier);
    bars.extend(c.lines(Work::BarrierCount));
    if bars.is_empty() {
        return barriers_instead(c);
    }
    Some(format!(
        "a barrier counts here only when, after it, a thread reads or overwrites a shared element another thread wrote just before it (or overwrites one another thread read): your kernel's `__syncthreads()` ({}) ran more often than its shared memory needed ordering, so it exchanged values between threads in fewer steps than the lesson's. Do the lesson's steps in shared memory, each writing what the next one reads, with one `__syncthreads()` after each",
        lines(&bars)
    ))
}

fn barriers_instead(c: &Census) -> Option<String> {
    let shuffles = c.lines(Work::Shuffle);
    let reduces = c.lines(Work::WarpReduce);
    let warp_syncs = c.lines(Work::WarpSync);
    let mut warp_parts: Vec<String> = Vec::new();
    if !shuffles.is_empty() {
        warp_parts.push(format!("shuffles on {}", lines(&shuffles)));
    }
    if !reduces.is_empty() {
        warp_parts.push(format!("warp reduces on {}", lines(&reduces)));
    }
    if !warp_syncs.is_empty() {
        warp_parts.push(format!("`__syncwarp()` on {}", lines(&warp_syncs)));
    }
    if !warp_parts.is_empty() {
        return Some(format!(
            "your kernel does part of the work inside one warp ({}), where the puzzle's lesson is the block-wide step: do every step in shared memory, each followed by a `__syncthreads()` that every thread of the block reaches (outside any `if`)",
            warp_parts.join(", ")
        ));
    }
    let stores = c.lines(Work::SharedStore);
    let loads = c.lines(Work::SharedLoad);
    if stores.is_empty() && loads.is_empty() {
        return Some("your kernel shares nothing through shared memory, so its threads never wait for each other: each thread combines only what it read itself. Store each thread's partial result in a `__shared__` array, call `__syncthreads()`, and combine the partial results in steps, with a `__syncthreads()` after each".to_string());
    }
    if c.lines(Work::Barrier).is_empty() && !stores.is_empty() && !loads.is_empty() {
        return Some(format!(
            "your kernel stores to shared memory ({}) and reads it back ({}) with no `__syncthreads()` anywhere: a thread may read an element before the thread that owns it has stored it. Put a `__syncthreads()`, reached by every thread, between each store and the reads of what other threads stored",
            lines(&stores),
            lines(&loads)
        ));
    }
    None
}

/// What a kernel with no warp votes does instead, where the census shows it: `__activemask()`
/// (which lanes run, not what they vote), a block-wide `__syncthreads_count`, atomics or
/// shuffles or shared memory gathering the lanes' flags.
fn votes_instead(c: &Census) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    let active = c.lines(Work::ActiveMask);
    if !active.is_empty() {
        seen.push(format!(
            "`__activemask()` ({}) tells which lanes are running at that point, not which of them keep their element: a lane that left early is missing from it, and so would a lane that is only late",
            lines(&active)
        ));
    }
    let counts = c.lines(Work::BarrierCount);
    if !counts.is_empty() {
        seen.push(format!(
            "`__syncthreads_count` ({}) counts the whole block at a barrier and gives no lane its place among the others",
            lines(&counts)
        ));
    }
    let atomics: Vec<u32> = c
        .lines(Work::SharedAtomic)
        .into_iter()
        .chain(c.lines(Work::GlobalAtomic))
        .collect();
    if !atomics.is_empty() {
        seen.push(format!(
            "your kernel counts the kept lanes with atomics ({}), which hand out places in whatever order the lanes arrive",
            lines(&atomics)
        ));
    }
    let shuffles = c.lines(Work::Shuffle);
    if !shuffles.is_empty() {
        seen.push(format!(
            "your kernel gathers the other lanes' flags with shuffles ({}), one lane at a time",
            lines(&shuffles)
        ));
    }
    if seen.is_empty() {
        let through: Vec<u32> = c
            .lines(Work::SharedStore)
            .into_iter()
            .chain(c.lines(Work::SharedLoad))
            .collect();
        if through.is_empty() {
            return None;
        }
        seen.push(format!(
            "your kernel exchanges the lanes' flags through shared memory ({})",
            lines(&through)
        ));
    }
    Some(format!(
        "{}. `__ballot_sync(0xffffffff, keep)`, called by every lane of the warp before any of them leaves, gives each lane the 32 flags as one mask: `__popc` of the bits below a lane is its place",
        seen.join("; ")
    ))
}

fn over(family: Family, used: u64, limit: u64, forbidden: bool, cx: &Context) -> String {
    let c = cx.census;
    let head = if forbidden {
        format!(
            "puzzle {} forbids {}, and your kernel ran {used} per thread",
            cx.puzzle_id,
            family.spelled()
        )
    } else {
        format!(
            "{used} {} per thread where puzzle {} allows {limit}",
            family.label(),
            cx.puzzle_id
        )
    };
    let why: Option<String> = match family {
        Family::LocalReads | Family::LocalWrites => {
            let at: Vec<u32> = c
                .lines(Work::LocalLoad)
                .into_iter()
                .chain(c.lines(Work::LocalStore))
                .collect();
            (!at.is_empty()).then(|| {
                format!(
                    "a per-thread array whose index is only known at run time lives in local memory, off the chip ({}): index it only with compile-time constants (a loop with constant bounds and `#pragma unroll`) so it stays in registers, or keep it in shared memory",
                    lines(&at)
                )
            })
        }
        Family::F64 => {
            let at = c.lines(Work::F64Math);
            // The compiler may place the double arithmetic on other lines than the literal
            // that caused it: any line of the source as compiled with one, where double math
            // ran.
            let src = Source::new(cx.source);
            // A variable, cast or function of type `double` makes the arithmetic double however
            // its literals are written: the type is what to change.
            let typed: Vec<u32> = (1..=src.lines())
                .filter(|&l| find_word(src.line(l), "double").is_some())
                .collect();
            let found: Vec<(u32, String)> = (1..=src.lines())
                .filter_map(|l| double_literal(src.line(l)).map(|lit| (l, lit)))
                .collect();
            if let Some(&first) = typed.first() {
                let also = if found.is_empty() {
                    String::new()
                } else {
                    let at: Vec<u32> = found.iter().map(|(l, _)| *l).collect();
                    format!(
                        ", and give the literals on {} their `f` suffix (`{}f`)",
                        lines(&at),
                        found[0].1
                    )
                };
                Some(format!(
                    "{} {} the type `double` (`{}`), and every operation on a `double` is double arithmetic: declare it `float`{also}",
                    lines(&typed),
                    if typed.len() == 1 { "uses" } else { "use" },
                    src.line(first).trim()
                ))
            } else if let Some((_, first)) = found.first() {
                let at: Vec<u32> = found.iter().map(|(l, _)| *l).collect();
                Some(format!(
                    "{} {} a floating literal without the `f` suffix (`{first}`), which is a `double` and makes the arithmetic around it double: write `{first}f`",
                    lines(&at),
                    if at.len() == 1 { "has" } else { "have" }
                ))
            } else {
                (!at.is_empty()).then(|| format!("it computes in `double` on {}", lines(&at)))
            }
        }
        Family::Shuffles => {
            let at = c.lines(Work::Shuffle);
            // The fold's count is advice only where the budget leaves room for a fold; under
            // `forbid` (or a budget below 5) it would tell the learner how to keep what must go.
            (!at.is_empty()).then(|| {
                if !forbidden && limit >= 5 {
                    format!(
                        "the shuffles are on {}: a fold that halves the distance each step (16, 8, 4, 2, 1) needs log2(32) = 5",
                        lines(&at)
                    )
                } else {
                    format!("the shuffles are on {}", lines(&at))
                }
            })
        }
        Family::Barriers => {
            let at = c.lines(Work::Barrier);
            (!at.is_empty()).then(|| {
                format!(
                    "the barriers are on {} (`__syncthreads_count` and its kin are barriers too)",
                    lines(&at)
                )
            })
        }
        Family::Activemask => {
            let at = c.lines(Work::ActiveMask);
            (!at.is_empty()).then(|| {
                format!(
                    "`__activemask()` ({}) says which lanes are running at that point, not what they vote: inside an `if` it names the lanes that took the branch only because they happen to run together",
                    lines(&at)
                )
            })
        }
        _ => None,
    };
    // A forbidden family is a shortcut past the puzzle's own technique: say what that is,
    // where the puzzle declares it (and the family is not the technique itself).
    let instead = cx
        .technique
        .filter(|t| {
            forbidden
                && !t
                    .counters
                    .iter()
                    .any(|&i| Counters::family(i) == Some(family))
        })
        .map(|t| match &t.budget_for {
            Some(b) => format!(" The puzzle asks for {}: {b}.", t.name),
            None => format!(" The puzzle asks for {}.", t.name),
        })
        .unwrap_or_default();
    match why {
        Some(w) => format!("{head}: {w}.{instead}"),
        None => format!("{head}.{instead}"),
    }
}

/// A block over its `block_budget` of scalar `f32` or `f16` arithmetic: the lines that compute
/// one element per instruction where the census shows them (halves converted to float, float
/// multiply-adds, scalar `__half` arithmetic), `__half2` named only where the kernel works on
/// halves, and the puzzle's declared technique.
fn scalar_math_over(family: Family, head: &str, cx: &Context) -> String {
    let c = cx.census;
    let to_float = c.lines(Work::HalfToFloat);
    let seen = if family == Family::F32 {
        let math = c.lines(Work::FloatMulAdd);
        match (to_float.is_empty(), math.is_empty()) {
            (false, false) => Some(format!(
                "converts halves to float ({}) and computes in float ({})",
                lines(&to_float),
                lines(&math)
            )),
            (false, true) => Some(format!(
                "converts halves to float ({}) and computes in float",
                lines(&to_float)
            )),
            (true, false) => Some(format!("computes in float ({})", lines(&math))),
            (true, true) => None,
        }
    } else {
        let scalar = c.lines(Work::HalfScalar);
        (!scalar.is_empty())
            .then(|| format!("computes one `__half` at a time ({})", lines(&scalar)))
    };
    let halves = !to_float.is_empty() || c.any(Work::HalfScalar);
    let mut out = match seen {
        Some(seen) => format!("{head}: your kernel {seen}, one element per instruction"),
        None => head.to_string(),
    };
    if halves {
        let packed = c.lines(Work::F16x2);
        if !packed.is_empty() {
            out.push_str(&format!(
                "; its packed instruction ({}) does not make the rest packed",
                lines(&packed)
            ));
        }
        out.push_str(". `__half2` arithmetic (`__hfma2`, `__hadd2`) computes both halves of a pair in one instruction; scalar arithmetic is for an element left without a partner");
    }
    if let Some(t) = cx.technique {
        out.push_str(&format!(". The puzzle asks for {}", t.name));
    }
    out.push('.');
    out
}

/// A block over its budget of global atomics: where the census shows the atomics and what
/// combines the values before them (a warp's shuffles or reduce, shared memory), the step that
/// is missing so that fewer threads make one.
fn atomics_over(counter: usize, limit: u64, cx: &Context) -> Option<String> {
    if Counters::NAMES[counter] != "global_atomics" {
        return None;
    }
    let c = cx.census;
    let atomics = c.lines(Work::GlobalAtomic);
    if atomics.is_empty() {
        return None;
    }
    // Only atomics that add into one element (a total): a histogram's atomics go to bins that
    // an index picks, and summing before them would mix the bins (a block's private
    // histogram is what takes them, `teach::atomics`).
    let src = Source::preprocessed(cx.source, cx.values);
    if !atomics.iter().all(|&l| one_target(src.line(l))) {
        return crate::teach::atomics::histogram(&src, &atomics);
    }
    let warp: Vec<u32> = c
        .lines(Work::Shuffle)
        .into_iter()
        .chain(c.lines(Work::WarpReduce))
        .collect();
    let head = format!(
        "puzzle {} allows {limit} global atomic{} per block",
        cx.puzzle_id,
        if limit == 1 { "" } else { "s" }
    );
    Some(if warp.is_empty() {
        format!(
            "{head}, and your kernel makes one for each thread's own value ({}): add the values up inside the block first, a warp's with `__reduce_add_sync(0xffffffff, v)` or a `__shfl_down_sync` fold{}, and let one lane make the atomic with the sum",
            lines(&atomics),
            if limit == 1 {
                " and the warps' sums through shared memory after a `__syncthreads()`"
            } else {
                ""
            }
        )
    } else {
        format!(
            "{head}, and your kernel sums each warp ({}) but lets every warp make its own atomic ({}): store the warps' sums in a `__shared__` array, call `__syncthreads()`, and let one thread of the block add them up and make the block's atomic",
            lines(&warp),
            lines(&atomics)
        )
    })
}

/// Whether every `atomic...(` call on a line targets one fixed element: `out`, `&out[0]`,
/// `total` (no subscript, or a constant one).
fn one_target(code: &str) -> bool {
    let mut found = false;
    let mut rest = code;
    while let Some(at) = rest.find("atomic") {
        let after = &rest[at..];
        let Some(open) = after.find('(') else {
            break;
        };
        let args = &after[open + 1..];
        let first = crate::teach::eval::split_top(args, ',')
            .into_iter()
            .next()
            .unwrap_or_default();
        let subscripts: Vec<&str> = first.split('[').skip(1).collect();
        let constant = subscripts.iter().all(|s| {
            s.split(']')
                .next()
                .is_some_and(|i| i.trim().chars().all(|ch| ch.is_ascii_digit()))
        });
        if !constant {
            return false;
        }
        found = true;
        rest = args;
    }
    found
}

/// For a memory counter over its budget: what the budget is built for, from `[technique]`.
fn memory_budget(counter: usize, miss: Miss, cx: &Context) -> Option<String> {
    if let Miss::Required { used, .. } = miss {
        return unstaged_tiles(counter, used, cx);
    }
    let Miss::OverBudget { used, limit, .. } = miss else {
        return None;
    };
    // A block's total added atomically where a slot per block and the grid sync do it.
    if Counters::NAMES[counter] == "global_atomics" {
        let src = Source::preprocessed(cx.source, cx.values);
        let atomics = cx.census.lines(Work::GlobalAtomic);
        if let Some(h) = crate::teach::atomics::block_total(&src, &atomics) {
            return Some(h);
        }
    }
    let built = cx.technique.and_then(|t| Some((t, t.budget_for.as_ref()?)));
    if let Some((t, built)) = built {
        return Some(format!("the budget is built for {}: {built}", t.name));
    }
    // No declared technique: a write counter can still be explained by one element stored
    // twice (a read counter by one element read twice), which the source shows (after the
    // preprocessor, so a dead `#if` branch is out).
    let src = crate::teach::source::Source::preprocessed(cx.source, cx.values);
    let name = Counters::NAMES[counter];
    // A round no thread works in comes first: its stores are the extra ones, not a register's.
    crate::teach::rounds::help(name, &src, cx.values, cx.block)
        .or_else(|| crate::teach::restore::help(name, &src))
        .or_else(|| crate::teach::staging::help(name, &src))
        .or_else(|| crate::teach::lone::help(name, &src))
        .or_else(|| crate::teach::passes::help(name, &src, used, limit))
        // Every thread walking the same global elements (weights) where a shared copy is meant.
        .or_else(|| crate::teach::broadcast_read::help(name, &src))
        // Last: a second read of one element is a smaller matter than a loop done alone.
        .or_else(|| crate::teach::reread::help(name, &src))
}

/// A block under its required shared writes whose tensor-core work the census shows fed from
/// global memory: the tiles were never staged in shared memory, whatever reads it (a blank row
/// for `ldmatrix`). Silent for any other counter, or where no line both loads global memory and
/// runs `mma`/`ldmatrix` in the kernel.
fn unstaged_tiles(counter: usize, used: u64, cx: &Context) -> Option<String> {
    let c = cx.census;
    if Counters::NAMES[counter] != "shared_writes"
        || !(c.any(Work::Mma) || c.any(Work::Wmma) || c.any(Work::Ldmatrix))
    {
        return None;
    }
    let global = c.lines(Work::GlobalLoad);
    if global.is_empty() {
        return None;
    }
    let stores = c.lines(Work::SharedStore);
    let stored = if stores.is_empty() {
        String::new()
    } else {
        format!(" (its shared stores: {})", lines(&stores))
    };
    let asks = cx
        .technique
        .map(|t| format!("puzzle {} asks for {}", cx.puzzle_id, t.name))
        .unwrap_or_else(|| format!("puzzle {} stages its tiles in shared memory", cx.puzzle_id));
    Some(format!(
        "{asks}: a block of your kernel made only {used} shared writes{stored}, so the matrices reach the tensor cores from global memory (loads on {}), not from staged tiles. Copy each tile of both matrices into shared memory first, then load the fragments from there.",
        lines(&global)
    ))
}

/// The first floating literal without an `f` suffix on a line of code (comments already
/// removed, `Source::line`), which C makes a `double`: `0.5`, `1e-3`, `2.`.
fn double_literal(code: &str) -> Option<String> {
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            // Skip a string.
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            i += 1;
            continue;
        }
        let starts =
            c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()));
        let after_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !starts || after_ident {
            i += 1;
            continue;
        }
        let hex = c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X'));
        let mut j = i;
        let mut float = false;
        while j < b.len() {
            match b[j] {
                b'0'..=b'9' => j += 1,
                b'.' => {
                    float = true;
                    j += 1;
                }
                b'e' | b'E' if !hex => {
                    float = true;
                    j += 1;
                    if matches!(b.get(j), Some(b'-' | b'+')) {
                        j += 1;
                    }
                }
                _ => break,
            }
        }
        if float && !hex && !matches!(b.get(j), Some(b'f' | b'F')) {
            return Some(code[i..j].to_string());
        }
        i = j.max(i + 1);
    }
    None
}

/// `line 7`, `lines 7-9`, `lines 4, 7-9 and 12`: sorted, without repeats, runs joined.
pub fn lines(ls: &[u32]) -> String {
    let mut v = ls.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for l in v {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == l => *end = l,
            _ => runs.push((l, l)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let single = runs.len() == 1 && runs[0].0 == runs[0].1;
    let word = if single { "line" } else { "lines" };
    match parts.as_slice() {
        [] => "no line".to_string(),
        [one] => format!("{word} {one}"),
        [init @ .., last] => format!("{word} {} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_join_runs_and_say_line_for_one() {
        assert_eq!(lines(&[7]), "line 7");
        assert_eq!(lines(&[9, 7, 8, 8]), "lines 7-9");
        assert_eq!(lines(&[12, 4, 7, 8, 9]), "lines 4, 7-9 and 12");
        assert_eq!(lines(&[3, 5]), "lines 3 and 5");
        assert_eq!(lines(&[]), "no line");
    }

    /// A kernel of `body` (PTX instructions, `.loc 1 L 0` lines of "k.cu" among them).
    fn census_of(body: &str) -> Census {
        let text = format!(
            ".version 7.8\n.target sm_80\n.address_size 64\n.file 1 \"k.cu\"\n.visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<3>;\n.reg .f32 %f<9>;\n.reg .b32 %r<9>;\nld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
        );
        let module = crate::ptx::parse(&text).expect("the PTX parses");
        Census::of(&module, "k.cu")
    }

    /// Popcounts under their minimum: with a ballot in the code, the help names its line;
    /// without one, it says only what was counted.
    #[test]
    fn missing_popcounts_name_the_ballot_they_would_count() {
        let popc = Counters::index("popc").expect("a counter");
        let miss = Miss::Required {
            used: 0,
            min: 1,
            warp: true,
        };
        let voted = census_of(".reg .pred %q<2>;\n.loc 1 17 0\nvote.sync.ballot.b32 %r1, %q1, -1;\n.loc 1 18 0\nshr.u32 %r2, %r1, 1;");
        let cx = Context {
            puzzle_id: 28,
            technique: None,
            census: &voted,
            source: "",
            values: &[],
            block: [32, 1, 1],
        };
        let h = help(popc, miss, &cx).expect("help");
        assert!(h.contains("takes ballots (line 17)"), "{h}");
        assert!(h.contains("`__popc(ballot & mask)`"), "{h}");
        let plain = census_of(".loc 1 4 0\nld.global.f32 %f1, [%rd1];");
        let cx = Context {
            census: &plain,
            ..cx
        };
        let h = help(popc, miss, &cx).expect("help");
        assert!(!h.contains("ballot"), "{h}");
    }

    /// Overlap under its minimum: a kernel that leaves groups in flight at a partial wait is
    /// told its in-flight copies brought nothing it read (not that none was in flight); one
    /// that waits for everything is told where it does; one with no copy, that.
    #[test]
    fn missing_overlap_names_the_learners_waits() {
        let overlap = Counters::index("cp_async_overlap").expect("a counter");
        let miss = Miss::Required {
            used: 0,
            min: 128,
            warp: false,
        };
        let copy = "cp.async.cg.shared.global [%r1], [%rd1], 16;";
        let partial = census_of(&format!(
            ".loc 1 9 0\n{copy}\n.loc 1 10 0\ncp.async.commit_group;\n.loc 1 12 0\ncp.async.wait_group 1;\n.loc 1 14 0\ncp.async.wait_group 0;"
        ));
        let cx = Context {
            puzzle_id: 48,
            technique: None,
            census: &partial,
            source: "",
            values: &[],
            block: [256, 1, 1],
        };
        let h = help(overlap, miss, &cx).expect("help");
        assert!(
            h.contains("waits for all but the newest groups (line 12)"),
            "{h}"
        );
        assert!(h.contains("brought data the block read afterwards"), "{h}");
        // Another shape: the copies of line 21 waited for in full on line 23, no partial wait.
        let full = census_of(&format!(
            ".loc 1 21 0\n{copy}\n.loc 1 22 0\ncp.async.commit_group;\n.loc 1 23 0\ncp.async.wait_all;"
        ));
        let cx = Context {
            census: &full,
            ..cx
        };
        let h = help(overlap, miss, &cx).expect("help");
        assert!(
            h.contains("waits for every copy before it computes (line 23)"),
            "{h}"
        );
        assert!(!h.contains("newest groups"), "{h}");
        let none = census_of(".loc 1 3 0\nld.global.f32 %f1, [%rd1];");
        let cx = Context {
            census: &none,
            ..cx
        };
        let h = help(overlap, miss, &cx).expect("help");
        assert!(h.contains("makes no async copy at all"), "{h}");
    }

    #[test]
    fn required_shared_writes_name_tensor_core_operands_loaded_from_global_memory() {
        let shared_writes = Counters::index("shared_writes").expect("a counter");
        let miss = Miss::Required {
            used: 8,
            min: 768,
            warp: false,
        };
        let technique = Technique {
            name: "`ldmatrix` from shared tiles".to_string(),
            counters: vec![],
            budget_for: None,
        };
        // Operands loaded from global memory on lines 5 and 6 feed an mma on line 7.
        let fed = census_of(
            ".loc 1 5 0\nld.global.u32 %r1, [%rd1];\n.loc 1 6 0\nld.global.u32 %r5, [%rd1+4];\n.loc 1 7 0\nmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r1, %r1, %r1}, {%r5, %r5}, {%f1, %f2, %f3, %f4};\n.loc 1 8 0\nst.global.f32 [%rd1], %f1;",
        );
        let cx = Context {
            puzzle_id: 51,
            technique: Some(&technique),
            census: &fed,
            source: "",
            values: &[],
            block: [32, 1, 1],
        };
        let h = help(shared_writes, miss, &cx).expect("help for unstaged tiles");
        assert!(
            h.starts_with("puzzle 51 asks for `ldmatrix` from shared tiles"),
            "{h}"
        );
        assert!(h.contains("made only 8 shared writes"), "{h}");
        assert!(h.contains("loads on lines 5-6"), "{h}");
        // Another counter under its requirement, or no tensor-core work: nothing to say.
        let reads = Counters::index("shared_reads").expect("a counter");
        assert_eq!(help(reads, miss, &cx), None);
        let scalar = census_of(
            ".loc 1 3 0\nld.global.f32 %f1, [%rd1];\n.loc 1 4 0\nmul.f32 %f2, %f1, %f1;\nst.global.f32 [%rd1], %f2;",
        );
        let cx = Context {
            census: &scalar,
            ..cx
        };
        assert_eq!(help(shared_writes, miss, &cx), None);
    }

    #[test]
    fn a_double_literal_is_found_and_a_float_one_is_not() {
        let src = Source::new(
            "float x = a * 0.5;\nfloat y = a * 0.5f;\nint k = 10; // 0.5\nfloat z = 1e-3 * w;\nint h = 0xE0;\nfloat q = v2.x;",
        );
        assert_eq!(double_literal(src.line(1)).as_deref(), Some("0.5"));
        assert_eq!(double_literal(src.line(2)), None);
        assert_eq!(double_literal(src.line(3)), None, "a comment's literal");
        assert_eq!(double_literal(src.line(4)).as_deref(), Some("1e-3"));
        assert_eq!(double_literal(src.line(5)), None, "hex");
        assert_eq!(double_literal(src.line(6)), None, "a member after a name");
        assert_eq!(double_literal(src.line(99)), None);
    }
}
