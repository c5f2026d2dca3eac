// A bulk (TMA) copy, which gpuzzle does not run, written as inline assembly. Only threads past
// `size` reach it: with every thread inside, the kernel runs on both executors with the same
// outputs; with one outside, both fail with the same "not supported" message at line 10.
extern "C" __global__ void bulk_copy(float* out, const float* a, int size) {
    __shared__ __align__(16) float tile[64];
    __shared__ unsigned long long bar;
    int i = threadIdx.x;
    if (i >= size) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[0]), b = (unsigned)__cvta_generic_to_shared(&bar);
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];" ::"r"(dst), "l"(a), "r"(b) : "memory");
        return;
    }
    tile[i] = a[i];
    __syncthreads();
    out[i] = tile[size - 1 - i] * 2.0f;
}
