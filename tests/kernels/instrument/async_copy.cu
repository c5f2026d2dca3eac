// Asynchronous copies from global to shared memory (`cp.async`, sm_80) in inline assembly:
// 4 bytes a thread, and a second copy of 16 bytes whose source size stops at `size` (the rest
// zero-filled). Each copy counts its 4-byte words read and written (1 and 4) on both
// executors, and an access past `a` is skipped and reported alike.
extern "C" __global__ void async_copy(float* out, const float* a, int size, int reach) {
    __shared__ __align__(16) float tile[64];
    __shared__ __align__(16) float wide[64 * 4];
    int i = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[i]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(a + i + reach) : "memory");
    int left = size - 4 * i;
    int bytes = left >= 4 ? 16 : (left > 0 ? 4 * left : 0);
    unsigned wdst = (unsigned)__cvta_generic_to_shared(&wide[4 * i]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(wdst), "l"(bytes > 0 ? a + 4 * i : a), "r"(bytes) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    out[i] = tile[blockDim.x - 1 - i] * 2.0f + wide[4 * i + 1];
}
