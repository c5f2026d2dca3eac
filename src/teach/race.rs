//! Races: the help follows the cause the facts and the source show, one small rule each.
//!
//! - `warp_slot`: two writes through a slot counted from a ballot (see `ballot`).
//! - `atomic_and_plain`: a plain store or read of an element others update atomically.
//! - `across_cluster`: two blocks of a cluster touching one element of a block's shared
//!   memory (`map_shared_rank`) with no `cluster.sync()` between.
//! - `across_blocks`: blocks writing one element (a block-independent index such as
//!   `out[threadIdx.x]` gets the global index; one element for all, atomics or a partial per
//!   block), or a block reading what another writes (a second launch).
//! - `same_line`: one statement both threads run: a read-modify-write of one element by many
//!   threads (`hist[b]++`: atomicAdd, no barrier fixes it), or an in-place update reading a
//!   neighbour the neighbour writes (`s[i] += s[i - d]`: register, barrier, write).
//! - `collide`: two writes of one element (one writer per block, or an index that does not
//!   tell the threads apart).
//! - `ordering`: a write and a read on different lines: the barrier between them, or, when one
//!   is already there inside a loop, the barrier after the reads at the end of the loop body.

use super::eval::{self, canonical, Env};
use super::source::{uses_in, Use};
use super::Case;
use crate::emu::facts::{Access, Element, Facts, Hazard, Space};

pub fn help(c: &Case) -> String {
    let Facts::Race {
        hazard,
        element,
        across_blocks,
        mine,
        theirs,
        space,
        ..
    } = &c.d.facts
    else {
        return "two threads touch one element with nothing ordering them: give each thread its own element, or order the accesses with __syncthreads()".into();
    };
    let Some(e) = element else {
        return "two threads touch one element with nothing ordering them: give each thread its own element, or order the accesses with __syncthreads()".into();
    };
    let short = e.name.rsplit("::").next().unwrap_or(&e.name).to_string();
    // The name the line indexes: the array, or a pointer into it.
    let short = match c.line {
        Some(l) => c.src.name_on_line(l, &short),
        None => short,
    };
    let r = Race {
        c,
        e,
        short,
        mine: *mine,
        theirs: *theirs,
        space: *space,
    };
    if *hazard == Hazard::AtomicAndPlain {
        return r.atomic_and_plain();
    }
    if *hazard == Hazard::WriteAfterWrite {
        if let Some(m) = r.warp_slot() {
            return m;
        }
    }
    if *across_blocks && *space == Space::Shared {
        return r.across_cluster();
    }
    if *across_blocks {
        return r.across_blocks();
    }
    if c.d.line.is_some() && c.d.line == c.d.other_line {
        return r.same_line();
    }
    if *hazard == Hazard::WriteAfterWrite {
        return r.collide();
    }
    r.ordering()
}

struct Race<'a> {
    c: &'a Case<'a>,
    e: &'a Element,
    short: String,
    mine: Access,
    theirs: Access,
    space: Space,
}

impl Race<'_> {
    fn other(&self) -> ([u32; 3], [u32; 3]) {
        match &self.c.d.facts {
            Facts::Race {
                other_thread,
                other_block,
                ..
            } => (
                other_thread.unwrap_or(self.c.d.thread),
                other_block.unwrap_or(self.c.d.block),
            ),
            _ => (self.c.d.thread, self.c.d.block),
        }
    }

    fn uses(&self, line: Option<u32>) -> Vec<Use> {
        line.map(|l| uses_in(self.c.src.line(l), &self.short))
            .unwrap_or_default()
    }

    /// The subscript (as written) of a use of the element on `line`, preferring one whose value
    /// for `env` is the element's index, and a write when `write`.
    fn subscript(&self, line: Option<u32>, env: &Env, write: bool) -> Option<String> {
        let uses: Vec<Use> = self
            .uses(line)
            .into_iter()
            .filter(|u| u.dims.len() == 1)
            .collect();
        let hit = uses
            .iter()
            .find(|u| u.write == write && eval::eval(&u.dims[0], env) == Some(self.e.index as i64))
            .or_else(|| uses.iter().find(|u| u.write == write))
            .or(uses.first())?;
        Some(hit.dims[0].clone())
    }

    /// Two writes through a slot counted from a ballot: the lane's own bit counted, or the
    /// count used without the warp's start (`ballot`).
    fn warp_slot(&self) -> Option<String> {
        let expr = self.subscript(self.c.line, &self.c.env(), true)?;
        let (ot, ob) = self.other();
        // Lanes of one warp get different counts: a count missing the warp's start collides
        // only across warps.
        let same_warp = matches!(
            self.c.d.facts,
            Facts::Race {
                same_warp: true,
                ..
            }
        );
        super::ballot::own_bit(self.c, &expr).or_else(|| {
            if same_warp {
                return super::ballot::whole_ballot(self.c, &expr);
            }
            super::ballot::rank_without_offset(
                self.c,
                &self.short,
                &expr,
                &self.c.who(ot, ob),
                self.e.index,
            )
        })
    }

    fn line_env(&self, line: Option<u32>, thread: [u32; 3], block: [u32; 3]) -> Env {
        let mut env = Env::default();
        for (n, v) in &self.c.scene.values {
            env.set(n.clone(), *v);
        }
        for (i, a) in ["x", "y", "z"].iter().enumerate() {
            env.set(format!("threadIdx.{a}"), thread[i] as i64);
            env.set(format!("blockIdx.{a}"), block[i] as i64);
            env.set(format!("blockDim.{a}"), self.c.scene.block[i] as i64);
            env.set(format!("gridDim.{a}"), self.c.scene.grid[i] as i64);
        }
        match line {
            Some(l) => self.c.src.locals_before(l, &env),
            None => env,
        }
    }

    /// Whether `expr` on `line` changes with the block (Some(false): the same element for every
    /// block), and with the thread.
    fn depends(&self, line: Option<u32>, expr: &str) -> (Option<bool>, Option<bool>) {
        let t = self.c.d.thread;
        let b = self.c.d.block;
        let at = |thread: [u32; 3], block: [u32; 3]| {
            eval::eval(expr, &self.line_env(line, thread, block))
        };
        let base = at(t, b);
        let other_block = [b[0] + 1, b[1] + 1, b[2]];
        let other_thread = [t[0] + 1, t[1] + 1, t[2]];
        let by_block = base.zip(at(t, other_block)).map(|(x, y)| x != y);
        let by_thread = base.zip(at(other_thread, b)).map(|(x, y)| x != y);
        (by_block, by_thread)
    }

    fn total_threads(&self) -> u64 {
        let sc = self.c.scene;
        sc.grid.iter().chain(&sc.block).map(|&x| x as u64).product()
    }

    /// Whether the buffer has an element for every thread but those of the last block: then
    /// a per-thread (global) index is what the blocks lack; otherwise they must share it.
    fn room_for_every_thread(&self) -> bool {
        let block: u64 = self.c.scene.block.iter().map(|&x| x as u64).product();
        self.e.len > self.total_threads().saturating_sub(block)
    }

    /// Whether the line also reads another array at the same subscript (`out[k] = a[k] + 1`):
    /// an element-wise map, whose blocks need their own elements, not a shared total.
    fn maps_elementwise(&self, expr: &str) -> bool {
        let code = self.c.code();
        let want = canonical(expr);
        code.split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .filter(|w| !w.is_empty() && *w != self.short)
            // A per-block partial in shared memory copied out is no map: blocks must combine.
            .filter(|w| self.c.src.shared_dims(w).is_none())
            .any(|w| {
                uses_in(code, w)
                    .iter()
                    .any(|u| !u.write && u.dims.len() == 1 && canonical(&u.dims[0]) == want)
            })
    }

    fn first_thread(&self) -> String {
        let b = self.c.scene.block;
        if b[1] > 1 || b[2] > 1 {
            return "threadIdx.x == 0 && threadIdx.y == 0".into();
        }
        // A per-warp element (`out[i / 32]`) or a block of one warp: the learner's lane.
        let lane = self.c.line.and_then(|l| {
            [
                "threadIdx.x % 32",
                "threadIdx.x & 31",
                "i % 32",
                "threadIdx.x % warpSize",
            ]
            .iter()
            .find_map(|v| self.c.src.locals_named_for(l, v).into_iter().next())
            .or_else(|| {
                // In a block of one warp, a `lane` that is threadIdx.x.
                (self.c.scene.block[0] <= 32)
                    .then(|| self.c.src.locals_named_for(l, "threadIdx.x"))
                    .and_then(|v| v.into_iter().find(|n| n.contains("lane")))
            })
        });
        match lane {
            Some(lane) => format!("{lane} == 0"),
            None => "threadIdx.x == 0".into(),
        }
    }

    /// A block coordinate the index ignores while the two racing blocks differ in it.
    fn ignored_block_axis(&self, line: Option<u32>, expr: &str) -> Option<&'static str> {
        let (_, ob) = self.other();
        let b = self.c.d.block;
        let t = self.c.d.thread;
        let base = eval::eval(expr, &self.line_env(line, t, b))?;
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            if ob[k] == b[k] || self.c.scene.grid[k] < 2 {
                continue;
            }
            let mut moved = b;
            moved[k] = ob[k];
            if eval::eval(expr, &self.line_env(line, t, moved)) == Some(base) && k > 0 {
                return Some(axis);
            }
        }
        None
    }

    /// Every block writes one and the same element.
    fn one_element_for_all_blocks(&self, expr: &str) -> String {
        let s = &self.short;
        let idx = self.e.index;
        // The same array updated atomically elsewhere: the store wipes those updates.
        let atomic_line = (1..=self.c.src.lines()).find(|&l| {
            let t = self.c.src.line(l);
            t.contains("atomic") && t.contains(&format!("&{s}["))
        });
        if let Some(a) = atomic_line {
            return format!("every block stores to {s}[{expr}] (line {}), which the blocks also add into atomically (line {a}): a block's store can land after other blocks' additions and wipe them. Do not clear it in the kernel: the output starts at 0 (or clear it in a separate launch before this one)", self.c.line.unwrap_or(0));
        }
        let blocks: u64 = self.c.scene.grid.iter().map(|&x| x as u64).product();
        if self.e.len >= blocks {
            let own = if self.c.scene.grid[1] > 1 {
                "blockIdx.y * gridDim.x + blockIdx.x"
            } else {
                "blockIdx.x"
            };
            return format!("every block writes {s}[{expr}] ({s}[{idx}]), and blocks run in any order, so only one block's value is left: give each block its own element, `{s}[{own}]` ({s} has room for all {blocks})");
        }
        format!("every block writes {s}[{expr}] ({s}[{idx}]), and blocks run in any order, so one block's value is left: add each block's total with atomicAdd(&{s}[{expr}], total) from one thread per block, or write one partial result per block and combine them in a second launch")
    }

    /// A loop around the line whose variable alone makes the index, started the same way by
    /// every thread (a CPU-style loop over the whole array).
    fn whole_array_loop(&self, expr: &str) -> Option<super::source::LoopHeader> {
        let l = self.c.line?;
        let start = self.c.src.function_of(l).map_or(1, |f| f.0);
        (start..=l).rev().find_map(|h| {
            let hdr = self.c.src.loop_header(h).filter(|x| x.line == h)?;
            let init = hdr.init.clone()?;
            let (lhs, rhs) = init.split_once('=')?;
            let var = lhs.split_whitespace().last()?;
            let thread_free = !rhs.contains("threadIdx") && !rhs.contains("blockIdx");
            (self.c.src.loop_body(h).contains(&l) && canonical(expr) == var && thread_free)
                .then_some(hdr)
        })
    }

    fn global_index_short(&self) -> &'static str {
        if self.c.scene.block[1] > 1 || self.c.scene.grid[1] > 1 {
            "the row and column from blockIdx and threadIdx"
        } else {
            "blockIdx.x * blockDim.x + threadIdx.x"
        }
    }

    fn global_index(&self) -> &'static str {
        let b = self.c.scene.block;
        let g = self.c.scene.grid;
        if b[1] > 1 || g[1] > 1 {
            "the global coordinates (`blockIdx.x * blockDim.x + threadIdx.x` for the column, `blockIdx.y * blockDim.y + threadIdx.y` for the row)"
        } else {
            "the global index `blockIdx.x * blockDim.x + threadIdx.x`"
        }
    }

    fn line_of_other(&self) -> String {
        match self.c.d.other_line {
            Some(l) if l > 0 => format!("line {l}"),
            _ => "another line".into(),
        }
    }

    fn atomic_and_plain(&self) -> String {
        let s = &self.short;
        let idx = self.e.index;
        let (plain, plain_line) = if self.mine == Access::Atomic {
            (self.theirs, self.line_of_other())
        } else {
            (self.mine, format!("line {}", self.c.d.line.unwrap_or(0)))
        };
        if plain == Access::Read {
            let wait = if self.space == Space::Shared {
                "after a __syncthreads() that follows every update"
            } else {
                "after every update is done: after __syncthreads() if only this block updates it, in a later launch if other blocks do"
            };
            return format!("the plain read of {s}[{idx}] on {plain_line} runs while other threads are still updating it atomically, so it sees a value in the middle of the updates: read it only {wait}");
        }
        let across = matches!(
            self.c.d.facts,
            Facts::Race {
                across_blocks: true,
                ..
            }
        );
        let lines = (self.c.d.line.unwrap_or(0), self.c.d.other_line.unwrap_or(0));
        let (store, update) = if self.mine == Access::Atomic {
            (lines.1, lines.0)
        } else {
            lines
        };
        if !across && store > 0 && update > 0 {
            return if store < update {
                format!("the store to {s}[{idx}] on line {store} and the atomic updates on line {update} have no __syncthreads() between them, so a thread can add into {s}[{idx}] before it is set, and the store then wipes that addition: put __syncthreads() after line {store} and before line {update}, where every thread of the block reaches it")
            } else {
                format!("the plain store to {s}[{idx}] on line {store} can overwrite other threads' atomic updates of it (line {update}): put __syncthreads() after the updates and before the store, or make the store atomic too")
            };
        }
        format!("the plain store to {s}[{idx}] on {plain_line} can land before or after other blocks' atomic updates of it and wipe them, and nothing orders blocks. Touch {s}[{idx}] only with atomics inside the kernel; to start it at 0, rely on the buffer starting zeroed, or set it in a separate launch before the one that adds into it")
    }

    /// Two blocks of a cluster touch one element of a block's shared memory (distributed
    /// shared memory, `map_shared_rank`), one writing, with no cluster barrier between.
    fn across_cluster(&self) -> String {
        let s = &self.short;
        let idx = self.e.index;
        let (ot, ob) = self.other();
        let other = self.c.who(ot, ob);
        let at = |l: Option<u32>| l.map_or("the other access".to_string(), |l| format!("line {l}"));
        let (mine, theirs) = (at(self.c.d.line), at(self.c.d.other_line));
        let (first, then) = match (self.mine, self.theirs) {
            (Access::Read, _) => (
                format!("the write ({theirs})"),
                format!("the read ({mine})"),
            ),
            (_, Access::Read) => (
                format!("the write ({mine})"),
                format!("the read ({theirs})"),
            ),
            _ => (
                format!("one write ({theirs})"),
                format!("the other ({mine})"),
            ),
        };
        format!("{s}[{idx}] lives in one block's shared memory and another block of the cluster touches it too ({other}); nothing orders two blocks but the cluster barrier: call `cluster.sync()` (`cg::this_cluster().sync()`) in every thread of every block of the cluster after {first} and before {then}, and once more before any block exits while others may still use its shared memory")
    }

    fn across_blocks(&self) -> String {
        let s = &self.short;
        let idx = self.e.index;
        let (ot, ob) = self.other();
        let other = self.c.who(ot, ob);
        if let Some(call) = self
            .update_call(self.c.line)
            .or_else(|| self.update_call(self.c.d.other_line))
        {
            return format!("blocks add into {s}[{idx}] at the same time ({other} too), and nothing orders blocks: each reads the old value and one block's addition is lost. Make the update atomic: {call}");
        }
        if (self.mine == Access::Read || self.theirs == Access::Read) && self.c.scene.cooperative {
            return format!("one block reads {s}[{idx}] and another writes it ({other} is one of them), and nothing makes the reader wait for the writer: in this cooperative launch every block can wait for the others, so call `grid.sync()` (`cg::grid_group grid = cg::this_grid();`) after the writes and before the reads, in every thread of every block");
        }
        if self.mine == Access::Read || self.theirs == Access::Read {
            return format!("a block reads {s}[{idx}] that another block ({other}) writes in the same launch, but blocks run in any order and cannot wait for each other: let each block read only what it wrote itself, or move the reads into a second kernel launched after this one");
        }
        let line = self.c.line;
        let env = self.c.env();
        let expr = self.subscript(line, &env, true);
        let Some(expr) = expr else {
            return format!("several blocks write {s}[{idx}]: give each block its own elements, for example through {}", self.global_index());
        };
        if let Some(axis) = self.ignored_block_axis(line, &expr) {
            let linear = "blockIdx.y * gridDim.x + blockIdx.x";
            return format!("`{s}[{expr}]` does not change with blockIdx.{axis}, so the blocks that differ only in {axis} write the same elements ({other} wrote {s}[{idx}] too): number the blocks over the whole grid, e.g. `{linear}` for one element per block, or use the global row and column for one per thread");
        }
        let (by_block, by_thread) = self.depends(line, &expr);
        match (by_block, by_thread) {
            (Some(false), Some(true)) if !self.room_for_every_thread() && !self.maps_elementwise(&expr) => {
                let value = self
                    .c
                    .line
                    .map(|l| self.c.src.line(l))
                    .and_then(|t| t.split_once('=').map(|(_, v)| v.trim().trim_end_matches(';').trim().to_string()))
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| "value".into());
                format!("every block writes `{s}[{expr}]`, and {s} has only {} elements for {} threads, so the blocks share its elements and the last block's value is left ({other} wrote {s}[{idx}] too): add each block's value instead, `atomicAdd(&{s}[{expr}], {value})`, or write one partial result per block and combine them in a second launch", self.e.len, self.total_threads())
            }
            (Some(false), Some(true)) => {
                // The learner's own global index, if the kernel computes one.
                let own = line.and_then(|l| {
                    ["blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x + blockIdx.x * blockDim.x", "blockDim.x * blockIdx.x + threadIdx.x"]
                        .iter()
                        .find_map(|v| self.c.src.locals_named_for(l, v).into_iter().next())
                });
                match own {
                    Some(i) => format!("`{s}[{expr}]` names the same element in every block, so the blocks overwrite each other ({other} wrote {s}[{idx}] too): index with the global index the kernel already computes, `{s}[{i}]`"),
                    None => format!("`{s}[{expr}]` names the same element in every block, so the blocks overwrite each other ({other} wrote {s}[{idx}] too): index with {} instead", self.global_index()),
                }
            }
            (Some(false), Some(false)) => self.one_element_for_all_blocks(&expr),
            _ if super::index::row_stride(self.c, s, &expr).is_some() => {
                let stride = super::index::row_stride(self.c, s, &expr).unwrap_or_default();
                format!("{other} and this thread, in different blocks, both write {s}[{idx}] through `{s}[{expr}]`: {stride}")
            }
            _ => match self.c.spill(&expr, &env, None) {
                Some(spill) => format!("{other} and this thread, in different blocks, both write {s}[{idx}] through `{s}[{expr}]`: {spill}"),
                None => format!("{other} and this thread, in different blocks, both write {s}[{idx}] through `{s}[{expr}]`: every element must have one writer; check that the index includes the block's offset ({})", self.global_index()),
            },
        }
    }

    /// The atomic that replaces the statement on `line` when it updates the element in place
    /// (`x[e] += v`, `x[e]++`, `x[e] = x[e] + v`); `None` for a plain store or a read.
    fn update_call(&self, line: Option<u32>) -> Option<String> {
        let l = line.filter(|&l| l > 0)?;
        let full = self.c.src.line(l);
        let uses = uses_in(full, &self.short);
        let w = uses.iter().find(|u| {
            u.write
                && (u.update
                    || uses.iter().any(|r| {
                        !r.write && canonical(&r.dims.join("][")) == canonical(&u.dims.join("]["))
                    }))
        })?;
        let sub = w.dims.join("][");
        Some(atomic_call(
            full[..w.end].trim_start(),
            &full[w.end..],
            &self.short,
            &sub,
        ))
    }

    fn same_line(&self) -> String {
        let s = &self.short;
        let idx = self.e.index;
        let line = self.c.line;
        let l = line.unwrap_or(0);
        if self.mine == Access::Write && self.theirs == Access::Write {
            return self.collide();
        }
        let uses = self.uses(line);
        let writes: Vec<&Use> = uses.iter().filter(|u| u.write).collect();
        let reads: Vec<&Use> = uses.iter().filter(|u| !u.write).collect();
        let env = self.c.env();
        let (ot, ob) = self.other();
        let other_env = self.line_env(line, ot, ob);
        // Both threads write the very element they read: a read-modify-write by many.
        let written_by_both = writes.iter().any(|w| {
            w.dims.len() == 1
                && eval::eval(&w.dims[0], &env) == Some(idx as i64)
                && eval::eval(&w.dims[0], &other_env) == Some(idx as i64)
        });
        let neighbour_read = writes.iter().any(|w| {
            reads
                .iter()
                .any(|r| canonical(&r.dims.join("][")) != canonical(&w.dims.join("][")))
        });
        let call = self.update_call(line);
        if call.is_some() && (written_by_both || !neighbour_read) {
            let call = call.unwrap_or_default();
            // One element for the whole block (not a data-dependent bin): a block sum first.
            let per_block = writes
                .first()
                .filter(|w| w.dims.len() == 1)
                .is_some_and(|w| self.depends(line, &w.dims[0]).1 == Some(false));
            let shared_way = if self.space == Space::Global && (self.e.len == 1 || per_block) {
                format!("; or, with one global write per block, add the values up in shared memory first (each thread stores its value in a `__shared__` array; after __syncthreads() one thread sums them) and write the total to {s}[{idx}] once")
            } else {
                String::new()
            };
            return format!("several threads run line {l} on {s}[{idx}] at once: each reads it, changes it and writes it back, so they read the same old value and all but one change is lost. A barrier cannot fix this (the threads are in the same statement); make the update atomic: {call}{shared_way}");
        }
        if neighbour_read {
            let w = writes[0].dims.join("][");
            let r = reads
                .iter()
                .find(|r| canonical(&r.dims.join("][")) != canonical(&w))
                .map(|r| r.dims.join("]["))
                .unwrap_or_default();
            // Inside `if (t < 32)` the wait is the warp's; inside another `if` a block
            // barrier would be skipped by the threads that do not enter.
            let (sync, note) = match self.enclosing_if(l) {
                Some((g, true)) => ("__syncwarp()", format!(" (the line is inside `if ({g})`, one warp, so the warp's own barrier orders it; a __syncthreads() there would not be reached by every thread)")),
                Some((g, false)) => ("__syncthreads()", format!(" (outside the `if ({g})` around the line, so every thread reaches the barriers: test the condition again for the read and for the write)")),
                None => ("__syncthreads()", String::new()),
            };
            return format!("on line {l} a thread reads {s}[{r}] while the thread that owns that element writes it ({s}[{w}]) in the same statement, so the read may see the old or the new value; a barrier between rounds cannot order two parts of one statement. Read into a register, wait, then write: `float v = {s}[{r}]; {sync}; {s}[{w}] += v; {sync};`{note}, or read from one buffer and write to another, swapping them each round");
        }
        format!("two threads run line {l} on {s}[{idx}], one reading while the other writes, with nothing ordering them: give each thread its own element, or split the statement with a __syncthreads() between its read and its write")
    }

    fn collide(&self) -> String {
        let s = &self.short;
        let idx = self.e.index;
        let line = self.c.line;
        let env = self.c.env();
        let (ot, ob) = self.other();
        let other = self.c.who(ot, ob);
        let me = self.c.who(self.c.d.thread, self.c.d.block);
        let Some(expr) = self.subscript(line, &env, true) else {
            return format!("{me} and {other} both write {s}[{idx}]: give each thread its own element, or let one thread write it");
        };
        if let Some(call) = self.update_call(line) {
            return format!("several threads add into {s}[{idx}] (`{s}[{expr}]`) at once, so additions are lost: make the update atomic: {call}");
        }
        // A one-writer test inside a wider guard (`lane == 0 && i < size`) letting one lane of
        // each warp write the same slot: the slot, numbered by the warp.
        if let Some((cond, at)) = line.and_then(|l| {
            self.c.src.guards(l).into_iter().find_map(|g| {
                let part = g
                    .cond
                    .split("&&")
                    .map(str::trim)
                    .find(|p| one_writer_guard(p))?;
                (!g.returns && g.cond.contains("&&")).then(|| (part.to_string(), g.line))
            })
        }) {
            let mut one = self.first_thread();
            if canonical(&one) == canonical(&cond) {
                one = "threadIdx.x == 0".into();
            }
            if let Some(m) = self.slot_per_warp(&cond, at, &expr, &one) {
                return m;
            }
        }
        // A one-writer guard is already there and lets both threads through: the guard, not
        // a missing one, is the cause.
        if let Some(g) = line.and_then(|l| {
            self.c
                .src
                .guards(l)
                .into_iter()
                .find(|g| !g.returns && one_writer_guard(&g.cond))
        }) {
            let mut one = self.first_thread();
            if canonical(&one) == canonical(&g.cond) {
                one = if self.c.scene.block[1] > 1 {
                    "threadIdx.x == 0 && threadIdx.y == 0".into()
                } else {
                    "threadIdx.x == 0".into()
                };
            }
            if let Some(m) = self.slot_per_warp(&g.cond, g.line, &expr, &one) {
                return m;
            }
            return format!("the write of {s}[{expr}] is already inside `if ({})` (line {}), meant for one writer, but {me} and {other} both pass it and both write {s}[{idx}]: the condition holds for more than one thread (check what it tests: a lane or a thread of each warp, or of each block, is one per warp or per block); for one writer in the block test the thread itself, `if ({one})`", g.cond, g.line);
        }
        let (_, by_thread) = self.depends(line, &expr);
        match by_thread {
            // A map (the line reads another array at the same index, `out[k] = a[k] * 2`):
            // each thread's own element is the fix, never one writer.
            Some(false) if self.maps_elementwise(&expr) => format!("every thread writes {s}[{expr}] (here {s}[{idx}]), so one element has many writers and only one value is left; the line maps another array element by element, so {s} needs an element for each thread: index it with {}", if self.space == Space::Shared { "the thread's own index (`threadIdx.x`)" } else { self.global_index() }),
            Some(false) => format!("every thread writes {s}[{expr}] (here {s}[{idx}]), so one element has many writers and only one value is left. If each thread should write its own element, index with the thread (`threadIdx.x`, or {}); if it holds one result per block, combine the threads' values first and let one thread write it: `if ({})`", self.global_index(), self.first_thread()),
            Some(true) if super::index::row_stride(self.c, s, &expr).is_some() => {
                let stride = super::index::row_stride(self.c, s, &expr).unwrap_or_default();
                format!("`{s}[{expr}]` gives {me} and {other} the same element, {s}[{idx}]: {stride}")
            }
            Some(true) => {
                let other_env = self.line_env(line, ot, ob);
                let values = |e: &Env| {
                    eval::names(&expr)
                        .into_iter()
                        .filter(|n| !n.contains('.'))
                        .filter_map(|n| eval::eval(&n, e).map(|v| format!("{n} = {v}")))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let (mine_v, theirs_v) = (values(&env), values(&other_env));
                let seen = if mine_v.is_empty() {
                    String::new()
                } else {
                    format!(" ({mine_v} for one, {theirs_v} for the other)")
                };
                if let Some(spill) = self.c.spill(&expr, &env, None).or_else(|| self.c.spill(&expr, &other_env, None)) {
                    return format!("`{s}[{expr}]` gives {me} and {other} the same element, {s}[{idx}]{seen}: {spill}");
                }
                let b = self.c.scene.block;
                let two_d = if b[1] > 1 {
                    " In a 2D block the index must use both threadIdx.x and threadIdx.y (e.g. `row * width + col`)."
                } else {
                    ""
                };
                format!("`{s}[{expr}]` gives {me} and {other} the same element, {s}[{idx}]{seen}: the index must be different for every thread that writes. Check the expression (its stride, or rows for columns).{two_d}")
            }
            None => match self.whole_array_loop(&expr) {
                Some(h) => format!("every thread runs the loop on line {} (`{}`) over the whole of {s}, so all threads write every element: on a GPU each thread handles its own element; drop the loop and index with the thread (`{}`)", h.line, h.cond, self.global_index_short()),
                None => format!("{me} and {other} both write {s}[{idx}] through `{s}[{expr}]`: every element needs one writer; check that the index tells the threads apart, or, if they add into it, use atomicAdd"),
            },
        }
    }

    /// A one-writer guard that lets one thread of each warp through (the two writers are in
    /// different warps of the block), writing an array of several elements at an index that is
    /// the same for every writer (`totals[lane]` under `lane == 0`): each warp's writer needs
    /// its own slot, numbered by its warp.
    fn slot_per_warp(&self, cond: &str, at: u32, expr: &str, one: &str) -> Option<String> {
        let (ot, ob) = self.other();
        let mine = self.c.d.thread;
        let b = self.c.scene.block;
        let flat = |t: [u32; 3]| t[0] + b[0] * (t[1] + b[1] * t[2]);
        if ob != self.c.d.block || flat(ot) / 32 == flat(mine) / 32 || self.e.len < 2 {
            return None;
        }
        // The index names only what the guard fixes (the lane, the rank in the tile): the
        // same value for every writer.
        let guard_lhs = canonical(cond.split("==").next().unwrap_or(""));
        if canonical(expr) != guard_lhs && !expr.trim().chars().all(|ch| ch.is_ascii_digit()) {
            return None;
        }
        let s = &self.short;
        // Cooperative groups name the warp's number in the block on the tile.
        let warp = match cond.split_once(".thread_rank") {
            Some((tile, _)) if !tile.trim().is_empty() => {
                format!("{}.meta_group_rank()", tile.trim())
            }
            // A global array of one slot per warp of the grid: the warp's number in the grid,
            // from the kernel's global index where it has one.
            _ if self.space == Space::Global && self.c.scene.grid.iter().product::<u32>() > 1 => {
                let global = self
                    .c
                    .line
                    .map(|l| self.c.src.locals_mentioning(l, "blockIdx"))
                    .unwrap_or_default()
                    .into_iter()
                    .find(|n| {
                        super::wrong::is_global_index(self.c.src, at, n)
                            .is_some_and(|v| v.contains("threadIdx"))
                    });
                match global {
                    Some(g) => format!("{g} / 32"),
                    None => "(blockIdx.x * blockDim.x + threadIdx.x) / 32".to_string(),
                }
            }
            _ => "threadIdx.x / 32".to_string(),
        };
        Some(format!("`if ({cond})` (line {at}) lets one thread of each warp through, and every one of them writes {s}[{expr}], the same element for all: `{expr}` is what the `if` fixes. If each warp should leave its own value in {s}, index with the warp's number, `{s}[{warp}]`; if one value for the whole block is meant, test the thread itself, `if ({one})`"))
    }

    fn ordering(&self) -> String {
        let s = &self.short;
        let (Some(mine), Some(theirs)) = (self.c.line, self.c.d.other_line.filter(|&l| l > 0))
        else {
            return format!("one thread writes {s}[{}] while another reads it, with nothing ordering them: put __syncthreads() between the write and the read, where every thread of the block reaches it", self.e.index);
        };
        let (w, r) = if self.mine == Access::Read {
            (theirs, mine)
        } else {
            (mine, theirs)
        };
        let who = (self.writer(), self.reader());
        if let Some(m) = super::double_buffer::help(self.c, (w, r), s, (&who.0, &who.1)) {
            return m;
        }
        if let Some(m) = super::read_side::help(self.c, (w, r), s) {
            return m;
        }
        if let Some(m) = self.across_calls(w, r) {
            return m;
        }
        let (lo, hi) = (w.min(r), w.max(r));
        let barrier = (lo + 1..hi).find(|&l| self.c.src.line(l).contains("__syncthreads"));
        let in_loop = self.common_loop(lo, hi);
        let fence = if self.space == Space::Global {
            " (for a global buffer this orders the threads of one block only)"
        } else {
            ""
        };
        // The write came first in time although it stands below the read: the read belongs
        // to a later pass of the loop around both (a prefetch for the next pass).
        let write_first = matches!(
            self.c.d.facts,
            Facts::Race {
                hazard: Hazard::ReadAfterWrite,
                ..
            }
        );
        // A barrier after the write, still inside the loop, already ends each pass: then the
        // write that landed first belongs to the read's own pass, and the barrier that is
        // missing stands between this pass's reads and its write.
        let pass_end = in_loop.and_then(|end| {
            (w + 1..end).find(|&l| {
                let t = self.c.src.line(l);
                t.contains("__syncthreads") && self.c.src.guards(l).iter().all(|g| g.line < lo)
            })
        });
        if let (true, None, true, Some(b)) = (w > r, barrier, write_first, pass_end) {
            return format!("the __syncthreads() on line {b} already ends each pass of the loop, so line {w}'s write of {s}[{}] and line {r}'s read of it are in the same pass: another thread wrote it before this one read it. Read what the pass needs into registers first, then put __syncthreads() after the reads and before the write (line {w}), where every thread reaches it{fence}", self.e.index);
        }
        if w > r && barrier.is_none() && write_first {
            return match in_loop {
                Some(end) => format!("line {w} writes {s}[{}] for the next pass of the loop, and line {r} reads it in that pass, with no barrier between the write and the end of the pass: put a __syncthreads() after line {w}, at the end of the loop body (before line {end}'s closing brace), reached by every thread, so each pass's writes are done before the next pass reads them{fence}", self.e.index),
                None => format!("{} wrote {s}[{}] on line {w} and {} read it on line {r}, with nothing ordering them: the write must be done before the read, so put a __syncthreads() between them in the order the kernel runs them, where every thread of the block reaches it{fence}", self.writer(), self.e.index, self.reader()),
            };
        }
        // Both accesses inside one `if` that not every thread enters: a __syncthreads() there
        // would itself be skipped.
        if barrier.is_none() {
            if let Some(m) = self.loop_without_barrier(w, r) {
                return m;
            }
            if let Some(m) = self.inside_one_if(w, r) {
                return m;
            }
        }
        match (w < r, barrier, in_loop) {
            (true, None, _) => {
                // A write inside an `if` the read is not in: the barrier goes after that if.
                let after = self
                    .c
                    .src
                    .guards(w)
                    .into_iter()
                    .find(|g| {
                        !g.returns && !self.c.src.guards(r).iter().any(|o| o.line == g.line)
                    })
                    .map(|g| (g.cond.clone(), *self.c.src.loop_body(g.line).end()))
                    .filter(|&(_, end)| end > w && end < r)
                    .map_or(format!("after line {w}"), |(cond, end)| {
                        format!("after the `if ({cond})` that holds the write (after line {end})")
                    });
                format!("line {r} reads {}, which another thread writes on line {w}, with no barrier between: put __syncthreads() {after} and before line {r}, where every thread of the block reaches it (not inside an if){fence}", self.element())
            }
            (true, Some(b), Some(end)) => format!("a __syncthreads() (line {b}) already orders line {w}'s write before line {r}'s read within one loop pass; the race is between passes: a thread that finishes its reads starts the next pass and overwrites {s} (line {w}) while slower threads still read it (line {r}). Add a second __syncthreads() at the end of the loop body, after the reads (before line {end}'s closing brace), so every thread finishes a pass before any starts the next"),
            (true, Some(b), None) => self.barrier_between_not_shared(b, w, r),
            (false, None, _) => format!("the read of {s}[{}] on line {r} and another thread's write of it on line {w} have nothing between them, so the write may land first: put __syncthreads() after the reads and before the write (line {w}), where every thread reaches it{fence}", self.e.index),
            (false, Some(_), Some(end)) => format!("the write on line {w} and the read on line {r} come from different loop passes: a thread reaches the next pass's read before another thread has finished this pass's write; put a __syncthreads() at the end of the loop body (before line {end}'s closing brace), reached by every thread"),
            (false, Some(b), None) => self.barrier_between_not_shared(b, w, r),
        }
    }

    /// Both accesses inside one `if` within a loop whose body has no barrier at all, the read
    /// first in the program: a pass's read meets another thread's write of another pass. The
    /// barrier goes at the end of the loop body, after the if, where every thread reaches it.
    fn loop_without_barrier(&self, w: u32, r: u32) -> Option<String> {
        if r > w {
            return None;
        }
        let src = self.c.src;
        let g = src.guards(r).into_iter().find(|g| !g.returns)?;
        if !src.guards(w).iter().any(|o| o.line == g.line && !o.returns) {
            return None;
        }
        let start = src.function_of(r).map_or(1, |f| f.0);
        let h = (start..g.line).rev().find_map(|l| {
            let h = src.loop_header(l).filter(|h| h.line == l)?;
            src.loop_body(l).contains(&g.line).then_some(h)
        })?;
        let body = src.loop_body(h.line);
        if body.clone().any(|l| src.line(l).contains("__syncthreads")) {
            return None;
        }
        let end = *body.end();
        Some(format!("the read on line {r} and the write on line {w} are inside `if ({})` (line {}), in the loop on line {} (`{}`) whose body has no __syncthreads(): a thread that finishes one pass starts the next and reads what another thread is still writing in the pass before (or the other way round). Put a __syncthreads() at the end of the loop body, after the if (before line {end}'s closing brace), reached by every thread, so each pass's writes are done before the next pass reads", g.cond, g.line, h.line, h.cond))
    }

    /// The innermost `if` (not an early return) around line `l`: its condition, and whether
    /// it admits one warp only (`t < 32`).
    fn enclosing_if(&self, l: u32) -> Option<(String, bool)> {
        let g = self.c.src.guards(l).into_iter().find(|g| !g.returns)?;
        let one = one_warp_guard(&g.cond);
        Some((g.cond, one))
    }

    /// The write (line `w`) and the read (line `r`) inside one `if` (not an early return):
    /// the barrier cannot go between them. One warp's `if` gets `__syncwarp()`; another gets
    /// the if split around the barrier.
    fn inside_one_if(&self, w: u32, r: u32) -> Option<String> {
        let gw = self.c.src.guards(w);
        let g = self
            .c
            .src
            .guards(r)
            .into_iter()
            .find(|g| !g.returns && gw.iter().any(|o| o.line == g.line && !o.returns))?;
        let one_warp = one_warp_guard(&g.cond);
        let (first, second) = (w.min(r), w.max(r));
        Some(if one_warp {
            format!("the write (line {w}) and the read (line {r}) are both inside `if ({})` (line {}), which only the first warp enters, so a __syncthreads() there would not be reached by every thread of the block: order the lanes of that warp with `__syncwarp()` after line {first} and before line {second}", g.cond, g.line)
        } else {
            format!("the write (line {w}) and the read (line {r}) are both inside `if ({})` (line {}), which not every thread enters, so a __syncthreads() there would not be reached by every thread of the block: end the if after line {first}, put the __syncthreads() there, outside it, between the write and the read, and test the condition again for line {second}", g.cond, g.line)
        })
    }

    /// A barrier (line `b`) stands between the write (`w`) and the read (`r`), yet they raced.
    /// Only when an `if` or an early return keeps threads from it is that the cause; else say
    /// what was seen: the accesses came from different passes (or calls) around the barrier.
    fn barrier_between_not_shared(&self, b: u32, w: u32, r: u32) -> String {
        let s = &self.short;
        let bar = self.c.src.line(b).trim().trim_end_matches(';').to_string();
        if let Some(g) = self.c.src.guards(b).into_iter().next() {
            return if g.returns {
                format!("the `{bar}` on line {b} stands between the write (line {w}) and the read (line {r}), but the threads that leave at `if ({}) return;` (line {}) never reach it: instead of returning early, put the work inside an if and keep the barrier outside it", g.cond, g.line)
            } else {
                format!("the `{bar}` on line {b} stands between the write (line {w}) and the read (line {r}), but it is inside `if ({})` (line {}), which not every thread enters: move it out of the if so every thread of the block reaches it", g.cond, g.line)
            };
        }
        format!("{} wrote {s}[{}] on line {w} and {} read it on line {r}; the `{bar}` on line {b} stands between those lines and every thread reaches it, so the two accesses came from different passes of a loop (or calls of a function) around it: one thread is already in the next pass while the other is still in this one. Put a __syncthreads() where one pass ends and the next begins, reached by every thread", self.writer(), self.e.index, self.reader())
    }

    /// The element as the learner declared it: `avg` for a `__shared__` scalar, `s[3]` else.
    fn element(&self) -> String {
        let s = &self.short;
        let scalar = self.space == Space::Shared
            && self.e.len == 1
            && self.c.src.shared_dims(s).is_none()
            && self.c.src.extern_shared(s).is_none();
        if scalar {
            s.to_string()
        } else {
            format!("{s}[{}]", self.e.index)
        }
    }

    /// The thread that wrote (`thread 3 of block 0`).
    fn writer(&self) -> String {
        let (ot, ob) = self.other();
        if self.mine == Access::Read {
            self.c.who(ot, ob)
        } else {
            self.c.who(self.c.d.thread, self.c.d.block)
        }
    }

    /// The thread that read.
    fn reader(&self) -> String {
        let (ot, ob) = self.other();
        if self.mine == Access::Read {
            self.c.who(self.c.d.thread, self.c.d.block)
        } else {
            self.c.who(ot, ob)
        }
    }

    /// A write (line `w`) and a read (line `r`) where a `__device__` helper holds one or both:
    /// the order that counts is the kernel's, at the helper's calls. Both in one helper that
    /// orders them with its own barrier and runs more than once: the race is between calls.
    fn across_calls(&self, w: u32, r: u32) -> Option<String> {
        let src = self.c.src;
        let s = &self.short;
        let fw = src.function_of(w)?;
        let fr = src.function_of(r)?;
        if fw.1 && fr.1 {
            return None;
        }
        let is_barrier = |l: u32| src.line(l).contains("__syncthreads");
        if fw == fr {
            let name = src.function_name(fw.0)?;
            // Calls from the kernel first (a wrapper helper's call is not where order is set).
            let all = src.calls_of(&name);
            let from_kernel: Vec<u32> = all
                .iter()
                .copied()
                .filter(|&k| src.function_of(k).is_some_and(|f| f.1))
                .collect();
            let calls = if from_kernel.is_empty() {
                all
            } else {
                from_kernel
            };
            let (lo, hi) = (w.min(r), w.max(r));
            let b = (lo + 1..hi).find(|&l| is_barrier(l))?;
            let between = match calls.as_slice() {
                [a, b, ..] => format!("lines {a} and {b} call it, so"),
                [a] if self.common_loop(*a, *a).is_some() => {
                    format!("line {a} calls it inside a loop, so")
                }
                _ => return None,
            };
            let after = calls.first().copied().unwrap_or(0);
            return Some(format!("the write (line {w}) and the read (line {r}) of {s} are both in `{name}()`, whose __syncthreads() on line {b} orders them within one call; {between} the race is between two calls: a thread that is done with one call starts the next and writes {s} while slower threads still read it from the one before. End `{name}()` with a __syncthreads() after its last read of {s} (read a value it returns into a local before that barrier), or put one between the calls (after line {after}), where every thread of the block reaches it"));
        }
        // One side in a helper: place it at its call (the helper's first call).
        let place = |l: u32, f: (u32, bool)| -> Option<(u32, String)> {
            if f.1 {
                return Some((l, format!("line {l}")));
            }
            let name = src.function_name(f.0)?;
            let call = *src.calls_of(&name).first()?;
            Some((
                call,
                format!("line {l} (in `{name}()`, called on line {call})"),
            ))
        };
        let (pw, tw) = place(w, fw)?;
        let (pr, tr) = place(r, fr)?;
        if pw == pr {
            return None;
        }
        let (lo, hi) = (pw.min(pr), pw.max(pr));
        if (lo + 1..hi).any(is_barrier) {
            return None;
        }
        Some(if pw < pr {
            format!("the read of {s}[{}] at {tr} runs after another thread's write at {tw}, with no barrier between: put a __syncthreads() after line {pw} and before line {pr}, where every thread of the block reaches it", self.e.index)
        } else {
            format!("the write of {s}[{}] at {tw} runs after another thread's read at {tr}, with no barrier between, so it may land before the read: put a __syncthreads() after line {pr} and before line {pw}, where every thread of the block reaches it", self.e.index)
        })
    }

    /// The last line of the innermost loop whose body holds both lines.
    fn common_loop(&self, lo: u32, hi: u32) -> Option<u32> {
        let start = self.c.src.function_of(lo).map_or(1, |f| f.0);
        (start..=lo).rev().find_map(|l| {
            let h = self.c.src.loop_header(l).filter(|h| h.line == l)?;
            let body = self.c.src.loop_body(h.line);
            (body.contains(&lo) && body.contains(&hi)).then_some(*body.end())
        })
    }
}

/// `t < 32`, `threadIdx.x <= 31`, `lane < warpSize`: an `if` only the first warp enters.
fn one_warp_guard(cond: &str) -> bool {
    let c = canonical(cond);
    ["<32", "<=31", "<warpSize"].iter().any(|b| c.ends_with(b))
        && !c.contains("&&")
        && !c.contains("||")
}

/// `t == 0`, `lane == 0`, `threadIdx.x == 0`, `warp.thread_rank() == 0`: a guard written to
/// let one thread through (a name, not an expression such as `i % 2 == 0`).
pub(super) fn one_writer_guard(cond: &str) -> bool {
    let c = canonical(cond);
    let Some(lhs) = c.strip_suffix("==0") else {
        return false;
    };
    !lhs.is_empty()
        && lhs
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.' || ch == '(' || ch == ')')
}

/// The atomic call that replaces a read-modify-write of `name[sub]`, from the statement's text
/// before and after the element (`++hist[b]`, `hist[b] += v`).
fn atomic_call(before: &str, after: &str, name: &str, sub: &str) -> String {
    let target = format!("&{name}[{sub}]");
    let after = after.trim_start();
    let value = |op: &str| {
        after
            .strip_prefix(op)
            .map(|v| v.trim().trim_end_matches(';').trim().to_string())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "value".into())
    };
    if after.starts_with("++") || before.starts_with("++") {
        format!("`atomicAdd({target}, 1)`")
    } else if after.starts_with("--") || before.starts_with("--") {
        format!("`atomicSub({target}, 1)`")
    } else if after.starts_with("+=") {
        format!("`atomicAdd({target}, {})`", value("+="))
    } else if after.starts_with("-=") {
        format!("`atomicSub({target}, {})`", value("-="))
    } else if after.starts_with("|=") {
        format!("`atomicOr({target}, {})`", value("|="))
    } else {
        format!("an atomic such as `atomicAdd({target}, value)` (or atomicMax, atomicOr, ...)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_atomic_names_the_statement_s_operator_and_value() {
        assert_eq!(
            atomic_call("hist[a[i]]", "++;", "hist", "a[i]"),
            "`atomicAdd(&hist[a[i]], 1)`"
        );
        assert_eq!(
            atomic_call("if (i < n) out[0]", " += a[i] * b[i];", "out", "0"),
            "`atomicAdd(&out[0], a[i] * b[i])`"
        );
        assert!(atomic_call("out[0]", " = out[0] + x;", "out", "0")
            .contains("atomicAdd(&out[0], value)"));
    }
}
