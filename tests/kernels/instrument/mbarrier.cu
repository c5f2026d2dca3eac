// Two cuda::barrier objects in shared memory, four threads on each: out[i] = 2 i once both
// phases complete. With `extra` >= 0, thread 2 also initialises a barrier `extra` bytes past the
// start of `bars`: 16 is past the array (out of bounds), 4 is inside it but not 8-byte aligned.
// Both executors check the barrier object, skip the illegal init and report it at its line.
#include <cuda/barrier>
using barrier = cuda::barrier<cuda::thread_scope_block>;
extern "C" __global__ void mbarrier(float* out, int extra) {
    __shared__ barrier bars[2];
    int i = threadIdx.x;
    if (i < 2) init(&bars[i], blockDim.x / 2);
    if (i == 2 && extra >= 0) init(reinterpret_cast<barrier*>(reinterpret_cast<char*>(bars) + extra), 1);
    __syncthreads();
    bars[i % 2].arrive_and_wait();
    out[i] = 2.0f * i;
}
