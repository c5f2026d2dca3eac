// Puzzle 21 · Multi-block scan: out[i] = a[0] + ... + a[i], in three launches.
// Check with `gpuzzle run 21`; stuck? `gpuzzle hint 21`.

// Launch 1: scan each block's slice of `a` into `out`; the block's total into block_sums.
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    // FILL ME IN (roughly 14 lines)
}

// Launch 2: one block of num_blocks threads scans block_sums in place.
extern "C" __global__ void scan_block_sums(float* block_sums, int num_blocks) {
    __shared__ float cache[MAX_BLOCKS];
    int local_i = threadIdx.x;
    // FILL ME IN (roughly 12 lines)
}

// Launch 3: add the total of the blocks before this one to every element.
extern "C" __global__ void add_offsets(float* out, float* block_sums, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // FILL ME IN (roughly 3 lines)
}
