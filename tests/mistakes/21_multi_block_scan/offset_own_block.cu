// expect: fail
// kind: wrong-output
// why: adds block j's own total instead of the total of the blocks before it.
// help-has: blocks before | j - 1 | exclusive | previous block | blockidx.x - 1
// help-not: __syncthreads()
// Puzzle 21 · Multi-block scan: out[i] = a[0] + ... + a[i], in three launches.
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
    if (i < size) {
        out[i] += block_sums[blockIdx.x];
    }
}
