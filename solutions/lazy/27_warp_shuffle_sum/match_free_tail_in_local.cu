// lazy: every lane copies its warp's 32 values into a local array with 31 broadcast shuffles unrolled by hand in a helper, then sums the array itself
__device__ float gather_sum(float v) {
    float sum = 0.0f;
#pragma unroll
    for (int src = 0; src < 32; src++) {
        sum += __shfl_sync(0xffffffff, v, src);
    }
    return sum;
}
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    float total = gather_sum(v);
    if (threadIdx.x % 32 == 0 && i < size) out[i / 32] = total;
}
