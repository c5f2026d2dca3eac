// Reference solutions of the GPU-Puzzles shapes gpuzzle teaches (shared memory ones), as a
// learner would write them: they must run cleanly and count the memory operations exactly.

#define TPB 8
#define MAX_CONV 4

extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) cache[local_i] = a[i];
    __syncthreads();
    if (i < size) {
        float s = cache[local_i];
        if (local_i >= 1) s += cache[local_i - 1];
        if (local_i >= 2) s += cache[local_i - 2];
        out[i] = s;
    }
}

extern "C" __global__ void dot(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = threadIdx.x;
    cache[i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    if (i == 0) {
        float s = 0.0f;
        for (int k = 0; k < TPB; k++) s += cache[k];
        out[0] = s;
    }
}

extern "C" __global__ void conv(float* out, const float* a, const float* b, int a_size, int b_size) {
    __shared__ float sa[TPB + MAX_CONV];
    __shared__ float sb[MAX_CONV];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    sa[t] = i < a_size ? a[i] : 0.0f;
    if (t < MAX_CONV) {
        int j = i + TPB;
        sa[TPB + t] = j < a_size && t < b_size - 1 ? a[j] : 0.0f;
        sb[t] = t < b_size ? b[t] : 0.0f;
    }
    __syncthreads();
    if (i < a_size) {
        float s = 0.0f;
        for (int k = 0; k < b_size; k++) s += sa[t + k] * sb[k];
        out[i] = s;
    }
}

extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    cache[t] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < TPB; stride *= 2) {
        if (t % (2 * stride) == 0) cache[t] += cache[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = cache[0];
}

extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    int batch = blockIdx.y;
    cache[t] = i < size ? a[batch * size + i] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < TPB; stride *= 2) {
        if (t % (2 * stride) == 0) cache[t] += cache[t + stride];
        __syncthreads();
    }
    if (t == 0) out[batch] = cache[0];
}

#define MTPB 3
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int size) {
    __shared__ float a_sh[MTPB][MTPB];
    __shared__ float b_sh[MTPB][MTPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int li = threadIdx.x, lj = threadIdx.y;
    float acc = 0.0f;
    for (int k0 = 0; k0 < size; k0 += MTPB) {
        a_sh[li][lj] = (i < size && k0 + lj < size) ? a[i * size + k0 + lj] : 0.0f;
        b_sh[li][lj] = (j < size && k0 + li < size) ? b[(k0 + li) * size + j] : 0.0f;
        __syncthreads();
        for (int k = 0; k < MTPB; k++) acc += a_sh[li][k] * b_sh[k][lj];
        __syncthreads();
    }
    if (i < size && j < size) out[i * size + j] = acc;
}
