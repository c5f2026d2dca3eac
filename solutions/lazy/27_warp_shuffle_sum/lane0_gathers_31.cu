// lazy: no fold: lane 0 fetches the 31 other lanes' values one shuffle at a time
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < size ? a[i] : 0.0f;
    float sum = v;
    for (int src = 1; src < 32; src++) {
        sum += __shfl_sync(0xffffffff, v, src);
    }
    if (lane == 0 && i < size) {
        out[i / 32] = sum;
    }
}
