// A TMA copy (`cp.async.bulk.tensor`, from <cuda/ptx>), which gpuzzle's emulator does not run:
// refused by name at the learner's line when a thread reaches it (`go` = 1), and no obstacle
// to running the file otherwise (tests/exec_grid.rs).
#include <cuda/ptx>

extern "C" __global__ void tma_copy(float* out, const void* tensor_map, int go) {
    __shared__ alignas(128) float tile[64];
    __shared__ alignas(8) unsigned long long bar;
    if (threadIdx.x == 0 && go) {
        int at[2] = {0, 0};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_shared, cuda::ptx::space_global, tile, tensor_map, at, &bar); // @tma
    }
    out[threadIdx.x] = 1.0f;
}
