// Thread-block clusters with distributed shared memory (tests/exec_grid.rs, --arch sm_90):
// clusters of 4 blocks; each block loads its tile into shared memory, the cluster syncs, and
// each thread adds the element at its own position of the NEXT block's tile (rank + 1, around
// the cluster) through `map_shared_rank`. Also: the cluster registers as cg reports them, and
// an elected lane per warp.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_ring(const float* in, float* out, unsigned* info, int n) {
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ float tile[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : 0.0f;
    cluster.sync();
    unsigned rank = cluster.block_rank();
    unsigned next = (rank + 1) % cluster.num_blocks();
    float* theirs = cluster.map_shared_rank(tile, next);
    if (i < n) out[i] = tile[t] + theirs[t]; // @dsmem
    if (t == 0) {
        info[4 * blockIdx.x + 0] = rank;
        info[4 * blockIdx.x + 1] = cluster.num_blocks();
        info[4 * blockIdx.x + 2] = blockIdx.x / 4;
    }
    unsigned lane;
    asm volatile("{ .reg .pred p; elect.sync %0|p, 0xffffffff; }" : "=r"(lane));
    if (t == 32) info[4 * blockIdx.x + 3] = lane;
    // No block may leave while another still reads its shared memory.
    cluster.sync();
}

// Block 1 of each cluster returns before the cluster barrier: the others wait forever.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_early_return(float* out) {
    cg::cluster_group cluster = cg::this_cluster();
    if (blockIdx.x % 4 == 1) return;
    if (threadIdx.x == 0) out[blockIdx.x] = 1.0f;
    cluster.sync(); // @cluster_dead
}
