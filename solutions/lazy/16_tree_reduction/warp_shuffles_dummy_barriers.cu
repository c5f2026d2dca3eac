// lazy: each warp folds its values with __shfl_down_sync, thread 0 adds the two warp totals from shared memory; six idle __syncthreads() make up the barrier count
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) v += a[base + t + TPB];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (t % 32 == 0) s[t / 32] = v;
    for (int k = 0; k < 6; k++) __syncthreads();
    if (t == 0) {
        float total = 0.0f;
        for (int w = 0; w < TPB / 32; w++) total += s[w];
        out[blockIdx.x] = total;
    }
}
