// Shared memory: a tree reduction, dynamic `extern __shared__`, a warp-synchronous final stage,
// and a 2D tile (transpose) with padding.

#ifndef TPB
#define TPB 256
#endif

extern "C" __global__ void reduce_tree(float* out, const float* in, int n) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Tree reduction down to one warp, then shuffles (no barrier needed inside a warp).
extern "C" __global__ void reduce_warp_tail(float* out, const float* in) {
    extern __shared__ float sdata[];
    int t = threadIdx.x;
    sdata[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 32; stride /= 2) {
        if (t < stride) sdata[t] += sdata[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = sdata[t];
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// The classic volatile warp-synchronous tail, made correct with __syncwarp between steps.
extern "C" __global__ void reduce_syncwarp_tail(int* out, const int* in) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    if (t < 64) s[t] += s[t + 64];
    __syncthreads();
    if (t < 32) {
        int v = s[t];
        for (int off = 32; off > 0; off /= 2) {
            v += s[t + off];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}

// Two dynamic shared arrays carved out of one extern buffer of `--shared` bytes.
extern "C" __global__ void dyn_two_arrays(int* out, int n) {
    extern __shared__ int dyn[];
    int* first = dyn;
    float* second = (float*)&dyn[n];
    int t = threadIdx.x;
    first[t] = t * 3;
    second[t] = t * 0.5f;
    __syncthreads();
    out[t] = first[n - 1 - t] + (int)(second[(t + 1) % n] * 4.0f);
}

#define TILE 8
extern "C" __global__ void transpose(float* out, const float* in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
