//! Cooperative launches (`cudaLaunchCooperativeKernel`, `gpuzzle exec --cooperative`,
//! `cooperative = true` in a puzzle): every block of the grid is resident at once, so blocks
//! may wait for each other, which `cg::this_grid().sync()` does.
//!
//! What the kernel sees is what the driver gives it: `%envreg1:%envreg2` (high and low halves)
//! hold the address of the grid's workspace, `{ u32 size; u32 barrier; }`, which cooperative
//! groups' headers read (`get_grid_workspace`) and sync on: each block's first thread adds to
//! the barrier word with `atom.add.release.gpu` (block 0 adds `0x80000000 - (blocks - 1)`, the
//! others 1, so the top bit flips when the last block arrives) and spins with
//! `ld.acquire.gpu` until it sees the flip. In a plain launch the registers read 0, and the
//! headers `trap` at the learner's `sync()`, which the emulator reports there
//! ([`not_cooperative`]).
//!
//! How the emulator runs it: all blocks are made at once and run in slices, in block order,
//! round and round (`run.rs`): a block runs until a pass over its threads leaves one of
//! them ready (the spin-wait above, or any long loop) and then gives way, so every block gets
//! to the sync and the flip is seen. The workspace lives outside every allocation
//! (`WORKSPACE_BASE`), in words of its own: its accesses are the library's, so they are not
//! counted against the learner's budgets, logged, or race-checked. When the barrier flips,
//! everything every block did before the sync is ordered before everything after it, so the
//! global race checker forgets what it saw (`GlobalMem::forget_races`). The blocks of a
//! thread-block cluster run the same way (`cluster.rs`).
//!
//! A sync that can never complete (every block still running has arrived, the others have
//! returned) is found between rounds and reported as the step limit a GPU would run into, at
//! the learner's `sync()` where the first waiting block waits, naming the blocks that returned
//! (`Facts::GridSyncNeverCompletes`); any other endless wait ends at the step limit.
//!
//! The grid must fit on the GPU at once: the emulator models the flagship of the module's
//! target (`modelled`; sm_80, the default: an A100, 108 SMs, each holding at most 32 blocks,
//! 2048 threads and 164 KiB of shared memory; sm_86 an RTX 3090, sm_89 an RTX 4090, sm_90 an
//! H100; registers are not modelled, PTX does not say how many a thread needs) and refuses a
//! larger grid, naming that limit ([`co_resident_limit`]). On a GPU the backend asks the device (its SM count times the
//! kernel's occupancy, `gpu/driver.rs`).

use super::LaunchConfig;
use std::sync::atomic::{AtomicU32, Ordering};

pub(super) mod run;

/// Where the grid workspace lies: in the global part of the address space, far above every
/// allocation (`memory.rs` puts them 128 GiB apart from 128 GiB) and below function
/// addresses (`ptx::ir::FUNCTION_ADDRESS_BASE`).
pub const WORKSPACE_BASE: u64 = 0x0000_6000_0000_0000;

/// The grid workspace of a cooperative launch: `{ size, barrier }`.
pub struct Workspace {
    words: [AtomicU32; 2],
    /// Blocks that arrived at the barrier since it last flipped.
    arrived: AtomicU32,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            words: [AtomicU32::new(8), AtomicU32::new(0)],
            arrived: AtomicU32::new(0),
        }
    }
}

impl Workspace {
    /// The word an access of `size` bytes at `addr` touches, if it is one of the workspace's.
    fn word(addr: u64, size: u32) -> Option<usize> {
        let off = addr.checked_sub(WORKSPACE_BASE)?;
        (off < 8 && off % 4 == 0 && size == 4).then_some(off as usize / 4)
    }

    /// Whether `addr` falls in the workspace at all (a misaligned or wide access is refused).
    pub fn contains(addr: u64) -> bool {
        (WORKSPACE_BASE..WORKSPACE_BASE + 8).contains(&addr)
    }

    /// A load of the workspace: its value, or `None` when the access is not one of its words.
    pub fn load(&self, addr: u64, size: u32) -> Option<u64> {
        Self::word(addr, size).map(|w| self.words[w].load(Ordering::SeqCst) as u64)
    }

    /// A store into the workspace; false when the access is not one of its words.
    pub fn store(&self, addr: u64, size: u32, v: u64) -> bool {
        match Self::word(addr, size) {
            Some(w) => {
                self.words[w].store(v as u32, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// An atomic on the workspace computing the new value from the old with `combine`: the old
    /// value, and whether the barrier's top bit flipped (the last block arrived), or `None`
    /// when the access is not one of its words.
    pub fn atomic(
        &self,
        addr: u64,
        size: u32,
        combine: impl Fn(u64) -> u64,
    ) -> Option<(u64, bool)> {
        let w = Self::word(addr, size)?;
        let old = self.words[w].load(Ordering::SeqCst);
        let new = combine(old as u64) as u32;
        self.words[w].store(new, Ordering::SeqCst);
        let flipped = w == 1 && (old ^ new) & 0x8000_0000 != 0;
        if flipped {
            self.arrived.store(0, Ordering::SeqCst);
        } else if w == 1 {
            self.arrived.fetch_add(1, Ordering::SeqCst);
        }
        Some((old as u64, flipped))
    }

    /// Whether an atomic at `addr` is a block's arrival at the grid barrier (what
    /// `technique::Family::GridSyncs` counts).
    pub fn is_arrival(addr: u64, size: u32) -> bool {
        Self::word(addr, size) == Some(1)
    }

    /// Blocks waiting at the grid barrier for the others.
    pub fn waiting(&self) -> u32 {
        self.arrived.load(Ordering::SeqCst)
    }
}

/// `%envreg<i>` in this launch: the workspace's address in 1 (high half) and 2 (low half) of
/// a cooperative launch; 0 otherwise, as the driver leaves them for a plain launch.
pub fn envreg(cfg: &LaunchConfig, i: u8) -> u64 {
    if !cfg.cooperative {
        return 0;
    }
    match i {
        1 => WORKSPACE_BASE >> 32,
        2 => WORKSPACE_BASE & 0xffff_ffff,
        _ => 0,
    }
}

/// A GPU the emulator models for co-residency: per SM, the blocks, threads and shared memory
/// (bytes) it holds at once, and how many SMs it has.
struct Gpu {
    name: &'static str,
    arch: &'static str,
    sms: u64,
    blocks: u64,
    threads: u64,
    shared: u64,
}

/// The GPU modelled for a module compiled for `target` (its `.target`): the datacenter or
/// flagship part of each architecture gpuzzle compiles for; an A100 for anything else.
fn modelled(target: &str) -> Gpu {
    const KIB: u64 = 1024;
    match target.split(',').next().unwrap_or("").trim() {
        "sm_90" | "sm_90a" => Gpu {
            name: "an H100",
            arch: "sm_90",
            sms: 132,
            blocks: 32,
            threads: 2048,
            shared: 228 * KIB,
        },
        "sm_89" => Gpu {
            name: "an RTX 4090",
            arch: "sm_89",
            sms: 128,
            blocks: 24,
            threads: 1536,
            shared: 100 * KIB,
        },
        "sm_86" => Gpu {
            name: "an RTX 3090",
            arch: "sm_86",
            sms: 82,
            blocks: 16,
            threads: 1536,
            shared: 100 * KIB,
        },
        _ => Gpu {
            name: "an A100",
            arch: "sm_80",
            sms: 108,
            blocks: 32,
            threads: 2048,
            shared: 164 * KIB,
        },
    }
}

/// How many blocks of `threads` threads and `shared` bytes of shared memory (static plus
/// dynamic) can be resident at once on the GPU the emulator models for `target`, and a
/// sentence saying why.
pub fn co_resident_limit(target: &str, threads: u64, shared: u64) -> (u64, String) {
    let gpu = modelled(target);
    // A block occupies whole warps.
    let warps_threads = threads.div_ceil(32) * 32;
    let by_threads = gpu.threads / warps_threads.max(1);
    let by_shared = gpu.shared.checked_div(shared).unwrap_or(gpu.blocks);
    let per_sm = gpu.blocks.min(by_threads).min(by_shared);
    let (why, per) = if per_sm == by_shared && by_shared < gpu.blocks.min(by_threads) {
        (
            format!("{shared} bytes of shared memory per block"),
            format!("{} KiB of shared memory", gpu.shared / 1024),
        )
    } else if per_sm == by_threads && by_threads < gpu.blocks {
        (
            format!("{threads} threads per block"),
            format!("{} threads", gpu.threads),
        )
    } else {
        (
            "its block size".to_string(),
            format!("{} blocks", gpu.blocks),
        )
    };
    let all = gpu.sms * per_sm;
    (
        all,
        format!(
            "gpuzzle's emulator models {} ({}): {} SMs, each holding at most {per}; at {why} that is {per_sm} blocks per SM, {all} in all",
            gpu.name, gpu.arch, gpu.sms
        ),
    )
}

/// Refuse a cooperative launch whose blocks could not all be resident at once.
pub fn check_co_resident(
    cfg: &LaunchConfig,
    target: &str,
    static_shared: u64,
) -> Result<(), String> {
    if !cfg.cooperative {
        return Ok(());
    }
    let blocks: u64 = cfg.grid.iter().map(|&d| d as u64).product();
    let threads: u64 = cfg.block.iter().map(|&d| d as u64).product();
    let (limit, why) =
        co_resident_limit(target, threads, static_shared + cfg.dynamic_shared as u64);
    if blocks > limit {
        return Err(format!(
            "a cooperative launch needs every block resident on the GPU at once, and a grid of {blocks} blocks is too large: {why}. Launch at most {limit} blocks and loop over the data (a grid-stride loop), as `cudaOccupancyMaxActiveBlocksPerMultiprocessor` times the SM count would tell you on a GPU"
        ));
    }
    Ok(())
}

/// The message for `this_grid().sync()` reached in a plain launch, where CUDA aborts the
/// kernel; `at` names the learner's line (`" (from kernel.cu:13)"`).
pub fn not_cooperative(at: &str) -> String {
    format!(
        "grid-wide synchronisation (`this_grid().sync()`){at} needs a cooperative launch, where every block is resident at once: `cudaLaunchCooperativeKernel` (in gpuzzle: `exec --cooperative`, or `cooperative = true` in a puzzle file). In a plain launch CUDA aborts the kernel at this call"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envregs_hold_the_workspace_address_in_a_cooperative_launch_only() {
        let mut cfg = LaunchConfig {
            grid: [4, 1, 1],
            block: [32, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        assert_eq!(envreg(&cfg, 1), 0);
        assert_eq!(envreg(&cfg, 2), 0);
        cfg.cooperative = true;
        assert_eq!((envreg(&cfg, 1) << 32) | envreg(&cfg, 2), WORKSPACE_BASE);
        assert_eq!(envreg(&cfg, 0), 0);
    }

    #[test]
    fn the_barrier_flips_when_the_last_block_arrives() {
        let ws = Workspace::default();
        assert_eq!(ws.load(WORKSPACE_BASE, 4), Some(8));
        let blocks = 3u64;
        let master = 0x8000_0000 - (blocks - 1);
        let add = |n: u64| move |old: u64| old.wrapping_add(n);
        assert_eq!(ws.atomic(WORKSPACE_BASE + 4, 4, add(1)), Some((0, false)));
        assert_eq!(
            ws.atomic(WORKSPACE_BASE + 4, 4, add(master)),
            Some((1, false))
        );
        let (_, flipped) = ws.atomic(WORKSPACE_BASE + 4, 4, add(1)).unwrap_or_default();
        assert!(flipped);
        assert_eq!(ws.load(WORKSPACE_BASE + 2, 4), None);
        assert_eq!(ws.load(WORKSPACE_BASE + 4, 8), None);
    }

    #[test]
    fn the_co_resident_limit_names_what_bounds_it() {
        let (n, why) = co_resident_limit("sm_80", 256, 1024);
        assert_eq!(n, 108 * 8);
        assert!(why.contains("256 threads per block"), "{why}");
        let (n, why) = co_resident_limit("sm_80", 32, 0);
        assert_eq!(n, 108 * 32);
        assert!(why.contains("32 blocks"), "{why}");
        let (n, why) = co_resident_limit("sm_80", 64, 48 * 1024);
        assert_eq!(n, 108 * 3);
        assert!(why.contains("shared memory"), "{why}");
        // The target picks the GPU: an H100 for sm_90, an RTX 3090 for sm_86.
        let (n, why) = co_resident_limit("sm_90", 256, 1024);
        assert_eq!(n, 132 * 8);
        assert!(why.contains("H100"), "{why}");
        let (n, _) = co_resident_limit("sm_86", 1024, 0);
        assert_eq!(n, 82);
    }
}
