//! Thread-block clusters (sm_90, `__cluster_dims__`): the blocks of a cluster run together and
//! can reach each other's shared memory (distributed shared memory), and `elect.sync`.
//!
//! A kernel declared with `.reqnctapercluster X, Y, Z` launches in clusters of X x Y x Z
//! blocks (the grid must be a multiple of it; at most 8 blocks, the portable cluster size).
//! The blocks of one cluster are all made at once and run in slices like a cooperative launch
//! (`cooperative::run::run_blocks`), cluster after cluster, so a block can wait for the others.
//!
//! - Special registers: `%clusterid` (which cluster), `%nclusterid`, `%cluster_ctaid` (the
//!   block's place in its cluster), `%cluster_nctaid` (the cluster's shape),
//!   `%cluster_ctarank`/`%cluster_nctarank` (the same, linear, x fastest) and
//!   `%is_explicit_cluster` (1). Without a cluster shape each block is a cluster of one.
//! - `barrier.cluster.arrive` counts the thread in at its next phase; `barrier.cluster.wait`
//!   spins (gives way, like a spin-wait) until every thread of the cluster arrived at the
//!   thread's phase, then waits at a block barrier with the rest of its block, so the shared
//!   memory checkers see the block's threads ordered by it as by `__syncthreads()`.
//! - `mapa` maps the address of this block's shared variable to the same variable in block
//!   `rank` of the cluster: the shared-window offset with `(rank + 1) << 28` added
//!   (`DSMEM_BIT`), as a generic address or a `shared::cluster` one. Loads, stores and atomics
//!   at such an address go to that block's shared memory (`remote`): the blocks of the
//!   running cluster keep their shared memory in `ClusterRun::smem` while they do not run, and
//!   take it back for their turn (`swap_in`/`swap_out`). They count as shared reads and writes
//!   of the thread. With the checkers on, every access to a block's shared memory in a
//!   cluster launch (its own and other blocks') is also kept per 4-byte word (`dsmem_access`):
//!   two accesses by threads of different blocks, one of them a write, are a `shared-race`
//!   unless a cluster barrier orders them (the thread of the later one completed a
//!   `barrier.cluster.wait` that needed the other thread's arrival after its access); a word
//!   another block wrote is not uninitialised for its owner (`dsmem_written`). A block's own
//!   threads are checked against each other by the shared checkers as always.
//! - `elect.sync d|p, mask`: every lane of `mask` executes it together (`.sync`), so the
//!   leader is the mask's lowest lane, as on hardware.
//!
//! This file works on the launch (`ClusterRun` is kept in `context.rs`, which the blocks
//! hold); the instructions, which work on a block, are `cluster/instrs.rs`.

use super::context::{Barrier, ClusterRun, Launch};
use super::LaunchConfig;
use crate::ptx::ir::{Module, Special};
use std::sync::Mutex;

pub(super) mod instrs;

/// Shared-window offsets at or above this name another block's shared memory: `(rank + 1)`
/// times it, plus the offset there. Above any block's shared memory (at most 64 MiB).
pub const DSMEM_BIT: u64 = 1 << 28;

/// The most blocks a cluster may have (CUDA's portable limit).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// The cluster shape `entry` was declared with, if any.
pub fn declared(module: &Module, entry: u32) -> Option<[u32; 3]> {
    module
        .cluster_dims
        .iter()
        .find(|(f, _)| *f == entry)
        .map(|&(_, d)| d)
}

/// The launch's clusters, or a message saying why the grid cannot be cut into them.
pub fn plan(module: &Module, entry: u32, cfg: &LaunchConfig) -> Result<Option<ClusterRun>, String> {
    let Some(dims) = declared(module, entry) else {
        return Ok(None);
    };
    let size: u32 = dims.iter().product();
    if size > MAX_CLUSTER_BLOCKS {
        return Err(format!(
            "`__cluster_dims__` asks for clusters of {size} blocks ({} x {} x {}); a cluster has at most {MAX_CLUSTER_BLOCKS} blocks (CUDA's portable cluster size)",
            dims[0], dims[1], dims[2]
        ));
    }
    if (0..3).any(|d| !cfg.grid[d].is_multiple_of(dims[d])) {
        return Err(format!(
            "the grid {:?} is not a whole number of clusters of {} x {} x {} blocks (`__cluster_dims__`): each grid dimension must be a multiple of the cluster's",
            cfg.grid, dims[0], dims[1], dims[2]
        ));
    }
    let blocks: usize = cfg.grid.iter().map(|&d| d as usize).product();
    Ok(Some(ClusterRun {
        dims,
        barrier: Mutex::new(Barrier::default()),
        smem: (0..blocks).map(|_| Mutex::new(Vec::new())).collect(),
        dsmem: Mutex::new((0, std::collections::HashMap::new())),
    }))
}

/// The launch-order indices of the blocks of each cluster, cluster after cluster.
pub fn clusters(cfg: &LaunchConfig, dims: [u32; 3]) -> Vec<Vec<usize>> {
    let n = [
        cfg.grid[0] / dims[0],
        cfg.grid[1] / dims[1],
        cfg.grid[2] / dims[2],
    ];
    let mut out = Vec::new();
    for cz in 0..n[2] {
        for cy in 0..n[1] {
            for cx in 0..n[0] {
                let mut members = Vec::new();
                for z in 0..dims[2] {
                    for y in 0..dims[1] {
                        for x in 0..dims[0] {
                            let b = [cx * dims[0] + x, cy * dims[1] + y, cz * dims[2] + z];
                            members.push(linear(b, cfg.grid) as usize);
                        }
                    }
                }
                out.push(members);
            }
        }
    }
    out
}

fn linear(b: [u32; 3], dims: [u32; 3]) -> u32 {
    b[0] + dims[0] * (b[1] + dims[1] * b[2])
}

/// The value of a cluster special register for block `block` (`None`: not one of them).
/// Without clusters, each block is a cluster of one.
pub fn special(launch: &Launch<'_>, block: [u32; 3], s: Special) -> Option<u64> {
    let one = [1, 1, 1];
    let dims = launch.cluster.as_ref().map_or(one, |c| c.dims);
    let grid = launch.cfg.grid;
    let d = |i: u8| i as usize;
    Some(match s {
        Special::ClusterId(i) => (block[d(i)] / dims[d(i)]) as u64,
        Special::NClusterId(i) => (grid[d(i)] / dims[d(i)]) as u64,
        Special::ClusterCtaId(i) => (block[d(i)] % dims[d(i)]) as u64,
        Special::ClusterNCtaId(i) => dims[d(i)] as u64,
        Special::ClusterCtaRank => rank_of(block, dims) as u64,
        Special::ClusterNCtaRank => dims.iter().product::<u32>() as u64,
        Special::IsExplicitCluster => launch.cluster.is_some() as u64,
        _ => return None,
    })
}

/// A block's rank in its cluster (x fastest).
fn rank_of(block: [u32; 3], dims: [u32; 3]) -> u32 {
    linear(
        [block[0] % dims[0], block[1] % dims[1], block[2] % dims[2]],
        dims,
    )
}

/// The launch-order index of the block of rank `rank` in `block`'s cluster, if there is one.
fn block_of_rank(launch: &Launch<'_>, block: [u32; 3], rank: u32) -> Option<u32> {
    let dims = launch.cluster.as_ref()?.dims;
    if rank >= dims.iter().product::<u32>() {
        return None;
    }
    let within = [
        rank % dims[0],
        (rank / dims[0]) % dims[1],
        rank / (dims[0] * dims[1]),
    ];
    let b = [
        block[0] / dims[0] * dims[0] + within[0],
        block[1] / dims[1] * dims[1] + within[1],
        block[2] / dims[2] * dims[2] + within[2],
    ];
    Some(linear(b, launch.cfg.grid))
}

/// The cluster `block` belongs to, as one number.
fn cluster_of(launch: &Launch<'_>, block: [u32; 3]) -> u32 {
    let dims = launch.cluster.as_ref().map_or([1, 1, 1], |c| c.dims);
    let n = [launch.cfg.grid[0] / dims[0], launch.cfg.grid[1] / dims[1]];
    let c = [block[0] / dims[0], block[1] / dims[1], block[2] / dims[2]];
    c[0] + n[0] * (c[1] + n[1] * c[2])
}

/// `barrier.cluster.arrive` by thread `thread` of `block`.
pub fn arrive(launch: &Launch<'_>, block: [u32; 3], thread: u32) {
    let cluster = cluster_of(launch, block);
    let index = launch.block_index(block);
    let Some(run) = launch.cluster.as_ref() else {
        return;
    };
    let mut b = run.barrier.lock().unwrap_or_else(|e| e.into_inner());
    let phase = {
        let t = b.thread.entry((index, thread)).or_default();
        t.0 += 1;
        t.0 - 1
    };
    *b.arrived.entry((cluster, phase)).or_default() += 1;
}

/// `barrier.cluster.wait` by thread `thread` of `block`: true when every thread of the cluster
/// arrived at this thread's phase (the wait is then over for it), false to wait on. A launch
/// without clusters is a cluster of one block: its threads' arrivals are all that count.
pub fn wait_over(launch: &Launch<'_>, block: [u32; 3], thread: u32) -> bool {
    let threads: u32 = launch.cfg.block.iter().product();
    let Some(run) = launch.cluster.as_ref() else {
        return true;
    };
    let cluster = cluster_of(launch, block);
    let index = launch.block_index(block);
    let size: u32 = run.dims.iter().product();
    let mut b = run.barrier.lock().unwrap_or_else(|e| e.into_inner());
    let phase = b.thread.get(&(index, thread)).map_or(0, |t| t.1);
    let arrived = b.arrived.get(&(cluster, phase)).copied().unwrap_or(0);
    if arrived < size * threads {
        return false;
    }
    if let Some(t) = b.thread.get_mut(&(index, thread)) {
        t.1 += 1;
    }
    true
}

/// When every thread of every block of the cluster still running waits at the cluster
/// barrier and some blocks of the cluster have returned (so it can never complete): the first
/// waiting block, and the message and facts saying so, as for a grid sync
/// (`cooperative::run::grid_sync_deadlock`).
pub(super) fn barrier_deadlock(
    launch: &Launch<'_>,
    members: &[usize],
    done: &[Option<Option<String>>],
    left: usize,
) -> Option<(usize, String, super::facts::Facts)> {
    let run = launch.cluster.as_ref()?;
    if left == done.len() || left == 0 {
        return None;
    }
    let threads: u32 = launch.cfg.block.iter().product();
    let b = run.barrier.lock().unwrap_or_else(|e| e.into_inner());
    let waiting = |m: usize| {
        (0..threads).all(|t| {
            b.thread
                .get(&(m as u32, t))
                .is_some_and(|(arrived, waited)| arrived > waited)
        })
    };
    let running: Vec<usize> = (0..done.len()).filter(|&i| done[i].is_none()).collect();
    if !running.iter().all(|&i| waiting(members[i])) {
        return None;
    }
    let name = |i: usize| {
        launch
            .namer
            .block(super::context::block_idx(&launch.cfg, members[i]))
    };
    let returned: Vec<String> = (0..done.len())
        .filter(|&i| done[i].is_some())
        .map(name)
        .collect();
    let message = format!(
        "the cluster barrier (`cluster.sync()`, `barrier.cluster.wait`) never completes: {left} of the cluster's {} blocks wait there for the other {}, which returned without reaching it ({})",
        done.len(),
        returned.len(),
        returned.join(", ")
    );
    let facts = super::facts::Facts::GridSyncNeverCompletes {
        waiting: left as u64,
        returned: returned.len() as u64,
        cluster: true,
    };
    Some((running[0], message, facts))
}

/// `mapa`: the address `a` (this block's shared memory, generic or a shared-window offset)
/// mapped into the shared memory of block `rank` of the cluster. An address that is no shared
/// one, or a rank past the cluster, maps to one no block has (the access then faults).
pub fn mapa(launch: &Launch<'_>, block: [u32; 3], a: u64, rank: u32, generic: bool) -> u64 {
    use super::memory::{classify, Window, SHARED_WINDOW};
    let off = if generic {
        match classify(a) {
            Window::Shared(o) => o,
            _ => return a,
        }
    } else {
        a
    };
    let local = off % DSMEM_BIT;
    let size = launch
        .cluster
        .as_ref()
        .map_or(1, |c| c.dims.iter().product::<u32>());
    let _ = block;
    let mapped = if rank < size {
        (rank as u64 + 1) * DSMEM_BIT + local
    } else {
        // Past the cluster: an offset no block's shared memory reaches.
        (size as u64 + 1) * DSMEM_BIT + local
    };
    if generic {
        SHARED_WINDOW + mapped
    } else {
        mapped
    }
}

/// Where a shared-window offset at or above `DSMEM_BIT` lands: this block's own memory
/// (`Local(offset)`), another block's (`Remote(block index, offset)`), or nowhere.
pub enum Target {
    Local(u64),
    Remote(u32, u64),
    Nowhere,
}

pub fn target(launch: &Launch<'_>, block: [u32; 3], off: u64) -> Target {
    let rank = (off / DSMEM_BIT).saturating_sub(1) as u32;
    let local = off % DSMEM_BIT;
    match block_of_rank(launch, block, rank) {
        Some(b) if b == launch.block_index(block) => Target::Local(local),
        Some(b) => Target::Remote(b, local),
        None => Target::Nowhere,
    }
}

/// Read or write `len` bytes at `off` of block `b`'s shared memory (resting in `smem` while
/// `b` does not run) with `f`; `None` when the bytes are not there.
pub fn remote<R>(
    launch: &Launch<'_>,
    b: u32,
    off: u64,
    len: u64,
    f: impl FnOnce(&mut [u8]) -> R,
) -> Option<R> {
    let run = launch.cluster.as_ref()?;
    let mut mem = run
        .smem
        .get(b as usize)?
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let end = off.checked_add(len)?;
    let bytes = mem.get_mut(off as usize..end as usize)?;
    Some(f(bytes))
}

/// Lay block `b`'s shared memory to rest while it does not run (`shared` is left empty), or
/// take it back for its turn (`back`).
pub fn swap(launch: &Launch<'_>, b: usize, shared: &mut Vec<u8>) {
    if let Some(slot) = launch.cluster.as_ref().and_then(|c| c.smem.get(b)) {
        std::mem::swap(&mut *slot.lock().unwrap_or_else(|e| e.into_inner()), shared);
    }
}

/// `elect.sync`'s leader among the lanes of `mask`: the lowest (32 when the mask is empty).
pub fn leader(mask: u32) -> u32 {
    mask.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_list_their_blocks_in_launch_order() {
        let cfg = LaunchConfig {
            grid: [4, 2, 1],
            block: [32, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        let c = clusters(&cfg, [2, 1, 1]);
        assert_eq!(c, vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]);
        let c = clusters(&cfg, [2, 2, 1]);
        assert_eq!(c, vec![vec![0, 1, 4, 5], vec![2, 3, 6, 7]]);
        assert_eq!(rank_of([3, 1, 0], [2, 2, 1]), 3);
        assert_eq!(leader(0b1011_0000), 4);
    }
}
