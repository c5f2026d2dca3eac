// Puzzle 21 · Multi-block scan: out[i] = a[0] + ... + a[i], in three launches.
// Check with `gpuzzle run 21`; stuck? `gpuzzle hint 21`.

// Launch 1: scan each block's slice of `a` into `out`; the block's total into block_sums.
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    // FILL ME IN (roughly 18 lines). Start from these, uncommented:
    //   __shared__ float cache[TPB];
    //   int i = blockIdx.x * blockDim.x + threadIdx.x;
    //   int local_i = threadIdx.x;
}

// Launch 2: one block of MAX_BLOCKS threads scans the num_blocks entries of block_sums in place.
extern "C" __global__ void scan_block_sums(float* block_sums, int num_blocks) {
    // FILL ME IN (roughly 15 lines). Start from these, uncommented:
    //   __shared__ float cache[MAX_BLOCKS];
    //   int local_i = threadIdx.x;
}

// Launch 3: add the total of the blocks before this one to every element.
extern "C" __global__ void add_offsets(float* out, float* block_sums, int size) {
    // FILL ME IN (roughly 4 lines). Start from this, uncommented:
    //   int i = blockIdx.x * blockDim.x + threadIdx.x;
}
