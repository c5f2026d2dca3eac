// Puzzle 47 · Grid-synchronised reduction: out[i] = a[i] - mean(a), in ONE cooperative launch.
// Check with `gpuzzle run 47`; stuck? `gpuzzle hint 47`.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// One total per block, written before the grid sync and read after it.
__device__ float block_sums[1024];

extern "C" __global__ void center(float* out, const float* a, int size) {
    // FILL ME IN (roughly 20 lines). A start:
    //     cg::grid_group grid = cg::this_grid();
    //     __shared__ float cache[TPB];
    //     __shared__ float mean;
    //     int stride = gridDim.x * blockDim.x;
}
