//! Running the blocks of a cooperative launch (or of a cluster) together, in slices round
//! and round, and telling a grid sync that can never complete (see `cooperative.rs`).

use crate::emu::context::Launch;

/// Run every block of a cooperative launch, all resident at once, in slices round and round
/// (see the module docs): each block's output in block order, stopping at the first block
/// whose slice stops the launch (the blocks not done then are dropped), and whether the launch
/// was stopped with blocks not done.
pub(in crate::emu) fn run_blocks(
    launch: &Launch<'_>,
    members: &[usize],
) -> (Vec<(crate::emu::block::BlockOutput, [u32; 3])>, bool) {
    use crate::emu::block::Block;
    use crate::emu::context::block_idx;
    let cfg = &launch.cfg;
    let nblocks = members.len();
    let mut blocks: Vec<Block> = members
        .iter()
        .map(|&i| Block::new(launch, block_idx(cfg, i)))
        .collect();
    // In clusters, a block's shared memory rests where the others can reach it while it does
    // not run (`cluster.rs`).
    for (block, &m) in blocks.iter_mut().zip(members) {
        crate::emu::cluster::swap(launch, m, block.shared_mut());
    }
    let mut slices: Vec<_> = blocks.iter().map(Block::start_slices).collect();
    let mut done: Vec<Option<Option<String>>> = vec![None; nblocks];
    let mut left = nblocks;
    let mut stopped = false;
    while left > 0 && !stopped {
        let stuck = grid_sync_deadlock(launch, members, &done, left)
            .or_else(|| crate::emu::cluster::barrier_deadlock(launch, members, &done, left));
        if let Some((i, msg, facts)) = stuck {
            // Every block still running waits at the grid sync for blocks that have returned:
            // reported where the first of them waits, as the step limit a GPU would run into.
            // Where a returned block got there by leaving part of its threads out of the
            // sync's own `__syncthreads()` (half a block skipped `grid.sync()`), that
            // `barrier-divergence` is the fault, reported already, and the wait follows from
            // it: the launch stops without a second kind for the same fault.
            let partly = (0..nblocks).any(|b| done[b].is_some() && blocks[b].diverged());
            if !partly {
                blocks[i].report_stuck(msg, facts);
            }
            launch.abort();
            done[i] = Some(Some(STEP_LIMIT.to_string()));
            left -= 1;
            break;
        }
        for i in 0..nblocks {
            if done[i].is_some() {
                continue;
            }
            crate::emu::cluster::swap(launch, members[i], blocks[i].shared_mut());
            let slice = blocks[i].run_slice(&mut slices[i]);
            crate::emu::cluster::swap(launch, members[i], blocks[i].shared_mut());
            if let Some(fatal) = slice {
                stopped |= fatal.is_some() || launch.aborted();
                done[i] = Some(fatal);
                left -= 1;
            } else if launch.aborted() || launch.over_limits() {
                // The step limit is reported by the block whose turn crossed it; a launch
                // over its deadline between slices stops the blocks where they are.
                stopped = true;
            }
            if stopped {
                break;
            }
        }
    }
    let mut out = Vec::with_capacity(nblocks);
    for (i, (block, s)) in blocks.iter_mut().zip(slices).enumerate() {
        crate::emu::cluster::swap(launch, members[i], block.shared_mut());
        if let Some(fatal) = done[i].take() {
            out.push((block.finish_slices(s, fatal), block_idx(cfg, members[i])));
        }
    }
    (out, left > 0)
}

/// What `launch.rs` calls a launch stopped at its step limit.
const STEP_LIMIT: &str = "step limit";

/// When every block still running has arrived at the grid sync and some blocks have
/// returned without arriving (so the sync can never complete): the first waiting block, and
/// the message and facts saying so (at the learner's line of the sync, where it waits).
fn grid_sync_deadlock(
    launch: &Launch<'_>,
    members: &[usize],
    done: &[Option<Option<String>>],
    left: usize,
) -> Option<(usize, String, crate::emu::facts::Facts)> {
    let ws = launch.grid_workspace.as_ref()?;
    if left == done.len() || ws.waiting() as usize != left {
        return None;
    }
    let first_waiting = done.iter().position(Option::is_none)?;
    let returned: Vec<String> = (0..done.len())
        .filter(|&i| done[i].is_some())
        .take(4)
        .map(|i| {
            launch
                .namer
                .block(crate::emu::context::block_idx(&launch.cfg, members[i]))
        })
        .collect();
    let gone = done.len() - left;
    let message = format!(
        "the grid-wide sync (`this_grid().sync()`) never completes: {left} of the grid's {} blocks wait there for the other {gone}, which returned without reaching it ({}{})",
        done.len(),
        returned.join(", "),
        if gone > returned.len() { ", ..." } else { "" }
    );
    let facts = crate::emu::facts::Facts::GridSyncNeverCompletes {
        waiting: left as u64,
        returned: gone as u64,
        cluster: false,
    };
    Some((first_waiting, message, facts))
}
