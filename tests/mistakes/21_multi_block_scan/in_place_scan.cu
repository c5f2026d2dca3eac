// expect: fail
// kind: shared-race
// line: @bug
// help-has: register | two buffers | double buffer
// help-not: atomicAdd
// why: scan_blocks adds in place, one barrier per round (puzzle 19's trap again).
// Puzzle 21 · Multi-block scan: out[i] = a[0] + ... + a[i], in three launches.
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < TPB; offset *= 2) {
        if (local_i >= offset) {
            cache[local_i] += cache[local_i - offset];  // @bug
        }
        __syncthreads();
    }
    if (i < size) {
        out[i] = cache[local_i];
    }
    if (local_i == TPB - 1) {
        block_sums[blockIdx.x] = cache[local_i];
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
