// lazy: a shared-memory tree per warp (puzzle 16's reduction) instead of shuffles
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    __shared__ float cache[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    cache[threadIdx.x] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = 16; stride > 0; stride /= 2) {
        if (lane < stride) {
            cache[threadIdx.x] += cache[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (lane == 0 && i < size) {
        out[i / 32] = cache[threadIdx.x];
    }
}
