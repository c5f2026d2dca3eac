// Warps that write shared memory per barrier interval (issue 34): a tree whose active threads
// sit side by side keeps one warp busy per step, one spread by a modulo test keeps every warp
// busy. Blocks of 64 threads (two warps), one sum per block.

// Sequential addressing: the store (2 warps), then one warp per step of six: 8.
extern "C" __global__ void side_by_side(float* out, const float* a) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = a[blockIdx.x * 64 + t];
    __syncthreads();
    for (int stride = 32; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// The same sum with other names, the active threads spread by a modulo test: the store (2),
// then 2, 2, 2, 2, 2 and 1 for strides 1 to 32: 13.
extern "C" __global__ void spread(float* result, const float* x) {
    __shared__ float part[64];
    int me = threadIdx.x;
    part[me] = x[blockIdx.x * 64 + me];
    __syncthreads();
    for (int step = 1; step < 64; step *= 2) {
        if (me % (2 * step) == 0) part[me] += part[me + step];
        __syncthreads();
    }
    if (me == 0) result[blockIdx.x] = part[0];
}
