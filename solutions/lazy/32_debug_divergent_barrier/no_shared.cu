// lazy: no shared array and no barrier: thread 0 reads the block's elements straight from global memory
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    int start = blockIdx.x * TPB;
    if (threadIdx.x == 0) {
        int count = min(TPB, size - start);
        float best = a[start];
        for (int k = 1; k < count; k++) {
            best = fmaxf(best, a[start + k]);
        }
        out[blockIdx.x] = best;
    }
}
