//! Which instructions NVIDIA's headers inlined into the learner's code are placed at the
//! learner's line that called them (the `.loc … inlined_at` chain's outermost location), so
//! that what a learner is told names a line of their own file:
//! - an instruction the emulator does not implement (`Op::Unsupported`), from any of NVIDIA's
//!   headers: it fails, if it runs, at the call (`wmma::mma_sync(...)`), not inside `mma.h`;
//! - the grid-wide sync of cooperative groups (`cooperative_groups/details/sync.h`) and the
//!   cluster barrier (`barrier.cluster.arrive/wait`, from `cluster.sync()`): a sync that never
//!   completes (a block that returned before it) is reported at the learner's `g.sync()`.
//!
//! Other header code keeps its own lines (a tile's shuffles inside `cg::reduce` are reported
//! where they are).

use super::ir::{ClusterOp, Inst, Module, Op};

/// Whether `name` is the path of one of NVIDIA's headers (a toolkit's or a pip wheel's
/// `include` folder, or NVRTC's built-in header).
pub(super) fn is_nvidia_header(name: &str) -> bool {
    if name.contains("__nv_nvrtc_builtin_header") {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    lower.contains("/include/")
        && (lower.contains("/nvidia/") || lower.contains("/cuda") || lower.contains("cccl"))
}

/// Whether `inst`, inlined from a header, is placed at the learner's line that called it.
pub(super) fn at_call_site(m: &Module, inst: &Inst) -> bool {
    let Some(name) = m.file_name(inst.file) else {
        return false;
    };
    if !is_nvidia_header(name) {
        return false;
    }
    matches!(
        inst.op,
        Op::Unsupported { .. } | Op::Cluster(ClusterOp::Arrive | ClusterOp::Wait)
    ) || name.ends_with("cooperative_groups/details/sync.h")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_nvidia_headers_from_the_learners_files() {
        assert!(is_nvidia_header(
            "/x/site-packages/nvidia/cuda_runtime/include/cooperative_groups/details/sync.h"
        ));
        assert!(is_nvidia_header(
            "/usr/local/cuda-12.9/targets/x86_64-linux/include/mma.h"
        ));
        assert!(is_nvidia_header("/usr/local/cuda/include/crt/mma.hpp"));
        assert!(!is_nvidia_header("/home/me/puzzles/09_pooling.cu"));
        assert!(!is_nvidia_header("/home/me/include/util.h"));
    }
}
