// lazy: lane 0 walks its warp's 32 elements and packs the positive ones itself, no ballot
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        int kept = 0;
        for (int k = i; k < i + 32 && k < size; k++) {
            if (a[k] > 0.0f) {
                out[i + kept] = a[k];
                kept++;
            }
        }
        counts[blockIdx.x] = kept;
    }
}
