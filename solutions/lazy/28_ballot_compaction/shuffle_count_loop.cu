// lazy: no ballot: each lane counts the kept lanes below it by fetching their flags in a loop of shuffles
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    int keep = (i < size && v > 0.0f) ? 1 : 0;
    int below = 0;
    int total = 0;
    for (int src = 0; src < 32; src++) {
        int k = __shfl_sync(0xffffffff, keep, src);
        if (src < lane) {
            below += k;
        }
        total += k;
    }
    if (keep) {
        out[blockIdx.x * 32 + below] = v;
    }
    if (lane == 0) {
        counts[blockIdx.x] = total;
    }
}
