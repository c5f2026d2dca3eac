// An asynchronous copy from global to shared memory (`cp.async`, sm_80), which gpuzzle does not
// run, written as inline assembly. Only threads past `size` reach it: with every thread inside,
// the kernel runs on both executors with the same outputs; with one outside, both fail with the
// same "not supported" message at line 10.
extern "C" __global__ void async_copy(float* out, const float* a, int size) {
    __shared__ float tile[64];
    int i = threadIdx.x;
    if (i >= size) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[i]);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(a) : "memory");
        return;
    }
    tile[i] = a[i];
    __syncthreads();
    out[i] = tile[size - 1 - i] * 2.0f;
}
