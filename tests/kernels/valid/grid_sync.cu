// Grid-wide synchronisation: refused by name at the marked line (tests/engine_valid_cuda.rs).

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync(int* out) {
    out[threadIdx.x] = 1;
    cg::this_grid().sync(); // @grid_sync
    out[threadIdx.x] += 1;
}
