// lazy: scan_block_sums has thread 0 walk the block totals one by one in global memory
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    cache[local_i] = v;
    __syncthreads();
    for (int offset = 1; offset < TPB; offset *= 2) {
        float add = local_i >= offset ? cache[local_i - offset] : 0.0f;
        __syncthreads();
        v += add;
        cache[local_i] = v;
        __syncthreads();
    }
    if (i < size) {
        out[i] = v;
    }
    if (local_i == TPB - 1) {
        block_sums[blockIdx.x] = v;
    }
}

extern "C" __global__ void scan_block_sums(float* block_sums, int num_blocks) {
    if (threadIdx.x == 0) {
        for (int j = 1; j < num_blocks; j++) {
            block_sums[j] += block_sums[j - 1];
        }
    }
}

extern "C" __global__ void add_offsets(float* out, float* block_sums, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size && blockIdx.x > 0) {
        out[i] += block_sums[blockIdx.x - 1];
    }
}
