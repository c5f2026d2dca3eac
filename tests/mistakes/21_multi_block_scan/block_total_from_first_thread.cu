// expect: fail
// kind: wrong-output
// help-has: TPB - 1 | last thread | blockDim.x - 1
// why: after the inclusive scan the block's total is in its LAST thread's v; thread 0 holds only
// why: the first element. The fix stores block_sums[blockIdx.x] from local_i == TPB - 1.
// Puzzle 21 · Multi-block scan: out[i] = a[0] + ... + a[i], in three launches.
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float sh[TPB];
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    int li = threadIdx.x;
    float run = gi < size ? a[gi] : 0.0f;
    sh[li] = run;
    __syncthreads();
    for (int off = 1; off < TPB; off <<= 1) {
        float left = li >= off ? sh[li - off] : 0.0f;
        __syncthreads();
        run += left;
        sh[li] = run;
        __syncthreads();
    }
    if (gi < size) {
        out[gi] = run;
    }
    if (li == 0) {
        block_sums[blockIdx.x] = run;  // @bug
    }
}

extern "C" __global__ void scan_block_sums(float* block_sums, int num_blocks) {
    __shared__ float sh[MAX_BLOCKS];
    int li = threadIdx.x;
    float run = li < num_blocks ? block_sums[li] : 0.0f;
    sh[li] = run;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        float left = li >= off ? sh[li - off] : 0.0f;
        __syncthreads();
        run += left;
        sh[li] = run;
        __syncthreads();
    }
    if (li < num_blocks) {
        block_sums[li] = run;
    }
}

extern "C" __global__ void add_offsets(float* out, float* block_sums, int size) {
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    if (gi < size && blockIdx.x > 0) {
        out[gi] += block_sums[blockIdx.x - 1];
    }
}
