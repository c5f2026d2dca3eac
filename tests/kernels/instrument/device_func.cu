// A __noinline__ device function taking a generic pointer, called with a global pointer and with
// a shared pointer, with a loop of its own (a backward branch inside a .func).
__device__ __noinline__ float window_sum(const float* p, int n) {
    float s = 0.0f;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        s += p[k];
    }
    return s;
}

extern "C" __global__ void device_func(float* out, const float* a, int size, int width) {
    __shared__ float tile[32 + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    int w = width < 3 ? width : 3;
    tile[t] = i < size ? a[i] : 0.0f;
    if (t < 2) {
        tile[32 + t] = (i + 32) < size ? a[i + 32] : 0.0f;
    }
    __syncthreads();
    if (i + w - 1 < size) {
        out[i] = window_sum(tile + t, w) + window_sum(a + i, w);
    }
}
