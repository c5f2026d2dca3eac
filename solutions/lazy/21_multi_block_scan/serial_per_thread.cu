// lazy: in scan_blocks every thread adds up the slice up to its own element (O(n^2) work, no rounds)
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    cache[local_i] = v;
    __syncthreads();
    v = 0.0f;
    for (int k = 0; k <= local_i; k++) {
        v += cache[k];
    }
    if (i < size) {
        out[i] = v;
    }
    if (local_i == TPB - 1) {
        block_sums[blockIdx.x] = v;
    }
}

extern "C" __global__ void scan_block_sums(float* block_sums, int num_blocks) {
    __shared__ float cache[MAX_BLOCKS];
    int local_i = threadIdx.x;
    float v = local_i < num_blocks ? block_sums[local_i] : 0.0f;
    cache[local_i] = v;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float add = local_i >= offset ? cache[local_i - offset] : 0.0f;
        __syncthreads();
        v += add;
        cache[local_i] = v;
        __syncthreads();
    }
    if (local_i < num_blocks) {
        block_sums[local_i] = v;
    }
}

extern "C" __global__ void add_offsets(float* out, float* block_sums, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size && blockIdx.x > 0) {
        out[i] += block_sums[blockIdx.x - 1];
    }
}
