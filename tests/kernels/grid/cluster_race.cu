// Distributed shared memory races (tests/exec_grid.rs, --arch sm_90): clusters of 2 blocks;
// each thread writes its input into the OTHER block's `inbox` through `map_shared_rank`, then
// its block reads its own inbox. With `sync` 1 a cluster.sync() orders the writes before the
// reads; with 0 nothing does: block A's write into block B's inbox and B's read of the same
// element race.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) dsmem_push(const float* in, float* out, int sync) {
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ float inbox[64];
    int t = threadIdx.x;
    unsigned other = (cluster.block_rank() + 1) % 2;
    float* theirs = cluster.map_shared_rank(inbox, other);
    cluster.sync();
    theirs[t] = in[blockIdx.x * blockDim.x + t]; // @push
    if (sync) cluster.sync();
    out[blockIdx.x * blockDim.x + t] = inbox[t]; // @pull
    // No block may leave while another still writes its shared memory.
    cluster.sync();
}
