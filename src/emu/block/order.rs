//! What orders the lanes of one warp for the race checkers (`shadow.rs`, `race.rs`): a warp
//! collective (`__syncwarp(mask)`, `__shfl_sync`, `__ballot_sync`, ...) orders the lanes that
//! took part in it (those of its mask that arrived), and no other lane.
//!
//! Each warp counts its completed collectives (`sync`), and an access remembers its warp's
//! count when it ran. While every collective since the last `__syncthreads()` was joined by
//! every thread of the warp (`full`), the count alone says it: lanes of the warp are ordered
//! iff a collective completed between their accesses. The first collective that leaves a lane
//! out (a partial mask, a lane that returned, `if (lane == 0) __syncwarp(1)`) switches the warp
//! to per-lane knowledge, a vector clock: `know[b][a]` is the latest collective lane `a` took
//! part in that is ordered before lane `b`'s present point (directly, or through lanes that
//! met both). An access of lane `a` made at count `t` is ordered before lane `b`'s access iff
//! `know[b][a] > t`: a collective after it, which `a` joined, reached `b`. The answer depends
//! only on which lanes met at which collectives, never on the order the scheduler ran them in,
//! so lockstep and one-thread-at-a-time runs agree. A `__syncthreads()` orders everyone and
//! makes every warp `full` again.
//!
//! Cost: nothing beyond the count on the common path; the clocks (32 numbers per thread) are
//! allocated at the first partial collective of a `Block` and touched only at collectives.

/// The ordering state of a block's warps.
#[derive(Default)]
pub(in crate::emu) struct WarpOrder {
    /// Per warp, its completed collectives (since the block started).
    sync: Vec<u32>,
    /// Per warp: every collective since the last barrier had every thread of the warp.
    full: Vec<bool>,
    /// Per thread, 32 numbers: `know[t * 32 + a]` (see the module doc); valid only for threads
    /// of warps that are not `full`.
    know: Vec<u32>,
    /// Threads in the block.
    threads: usize,
}

impl WarpOrder {
    pub(in crate::emu) fn new(threads: usize) -> WarpOrder {
        let warps = threads.div_ceil(32);
        WarpOrder {
            sync: vec![0; warps],
            full: vec![true; warps],
            know: Vec::new(),
            threads,
        }
    }

    /// A new block: no collective yet.
    pub(in crate::emu) fn reset(&mut self) {
        self.sync.fill(0);
        self.full.fill(true);
    }

    /// A `__syncthreads()`: every thread is ordered after everything before it.
    pub(in crate::emu) fn barrier(&mut self) {
        self.full.fill(true);
    }

    /// The collective count of thread `me`'s warp (what an access records).
    #[inline(always)]
    pub(in crate::emu) fn sync_of(&self, me: u32) -> u32 {
        self.sync[(me / 32) as usize]
    }

    /// What thread `me` knows of its warp's lanes (see `ordered_by`): empty while its warp is
    /// `full`, when the count says it all.
    #[inline(always)]
    pub(in crate::emu) fn row(&self, me: u32) -> &[u32] {
        if self.full[(me / 32) as usize] {
            &[]
        } else {
            let at = me as usize * 32;
            &self.know[at..at + 32]
        }
    }

    /// Whether thread `other`'s access, made at count `other_sync`, is ordered before thread
    /// `me`'s present point.
    #[inline(always)]
    pub(in crate::emu) fn ordered(&self, me: u32, other: u32, other_sync: u32) -> bool {
        ordered_by(me, self.sync_of(me), self.row(me), other, other_sync)
    }

    /// A collective of warp `warp` completed with the lanes in `present` (a mask of lanes).
    pub(in crate::emu) fn collective(&mut self, warp: usize, present: u32) {
        let base = warp * 32;
        let lanes = self.threads.saturating_sub(base).min(32);
        let all = if lanes == 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        let done = self.sync[warp].wrapping_add(1);
        if present & all == all {
            // Everyone met: the count says it all again.
            self.sync[warp] = done;
            self.full[warp] = true;
            return;
        }
        if self.full[warp] {
            // Until now every lane knew every other up to the count.
            if self.know.is_empty() {
                self.know = vec![0; self.threads * 32];
            }
            let now = self.sync[warp];
            self.know[base * 32..(base + lanes) * 32].fill(now);
            self.full[warp] = false;
        }
        self.sync[warp] = done;
        let present = present & all;
        let members = || (0..lanes).filter(move |l| present & (1 << l) != 0);
        let mut joined = [0u32; 32];
        for l in members() {
            let row = &self.know[(base + l) * 32..(base + l) * 32 + 32];
            for (j, &k) in joined.iter_mut().zip(row) {
                *j = (*j).max(k);
            }
        }
        for l in members() {
            joined[l] = done;
        }
        for l in members() {
            self.know[(base + l) * 32..(base + l) * 32 + 32].copy_from_slice(&joined);
        }
    }
}

/// Whether thread `other`'s access made at count `other_sync` is ordered before thread `me`'s
/// present point, given `me`'s warp count `sync` and what `me` knows (`WarpOrder::row`).
#[inline(always)]
pub(in crate::emu) fn ordered_by(
    me: u32,
    sync: u32,
    row: &[u32],
    other: u32,
    other_sync: u32,
) -> bool {
    other / 32 == me / 32
        && match row.get((other % 32) as usize) {
            None => sync != other_sync,
            Some(&k) => k > other_sync,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_warp_is_ordered_by_any_collective_and_other_warps_never() {
        let mut o = WarpOrder::new(64);
        let t = o.sync_of(5);
        assert!(!o.ordered(0, 5, t));
        o.collective(0, u32::MAX);
        assert!(o.ordered(0, 5, t));
        assert!(!o.ordered(40, 5, t), "another warp");
        assert!(o.row(0).is_empty(), "no clocks while every lane joins");
    }

    #[test]
    fn a_partial_collective_orders_only_the_lanes_that_met() {
        let mut o = WarpOrder::new(8);
        let t = o.sync_of(1);
        // `if (lane == 0) __syncwarp(1)`: lane 0 alone; lane 1's earlier write stays unordered.
        o.collective(0, 1);
        assert!(!o.ordered(0, 1, t));
        // Lanes 0 and 1 meet: now it is ordered, for both of them; lane 2 is still out.
        o.collective(0, 0b11);
        assert!(o.ordered(0, 1, t) && o.ordered(1, 0, t));
        assert!(!o.ordered(2, 0, t) && !o.ordered(0, 2, t));
        // An access made after that meeting is not ordered by it.
        let later = o.sync_of(1);
        assert!(!o.ordered(0, 1, later));
    }

    #[test]
    fn ordering_passes_through_a_lane_that_met_both() {
        let mut o = WarpOrder::new(32);
        let t = o.sync_of(0);
        o.collective(0, 0b011); // lanes 0 and 1
        o.collective(0, 0b110); // lanes 1 and 2: lane 2 now knows lane 0's earlier access
        assert!(o.ordered(2, 0, t));
        assert!(
            !o.ordered(0, 2, t),
            "lane 0 met no one who met lane 2 since"
        );
    }

    #[test]
    fn the_order_of_meetings_not_of_the_scheduler_decides() {
        // Lane 3 exited: the collective of the other 31 lanes does not order its accesses.
        let mut o = WarpOrder::new(32);
        let t = o.sync_of(3);
        o.collective(0, !(1 << 3));
        assert!(!o.ordered(0, 3, t));
        assert!(o.ordered(0, 4, t));
        // Everyone meeting again makes the warp full, and a barrier does too.
        o.collective(0, u32::MAX);
        assert!(o.ordered(0, 3, t) && o.row(0).is_empty());
        o.collective(0, 1);
        assert!(!o.row(0).is_empty());
        o.barrier();
        assert!(o.row(0).is_empty());
    }

    #[test]
    fn a_partial_last_warp_is_full_when_all_its_threads_meet() {
        let mut o = WarpOrder::new(40);
        let t = o.sync_of(33);
        o.collective(1, 0xff);
        assert!(o.ordered(39, 33, t) && o.row(39).is_empty());
    }
}
