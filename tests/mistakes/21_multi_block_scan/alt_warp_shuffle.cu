// expect: pass
// why: scan_blocks scans each warp with shuffles; only the warps' totals go through shared memory.
// Puzzle 21 · Multi-block scan: out[i] = a[0] + ... + a[i], in three launches.
extern "C" __global__ void scan_blocks(float* out, const float* a, float* block_sums, int size) {
    __shared__ float warp_totals[TPB / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    int lane = local_i % 32;
    int warp = local_i / 32;
    // Each warp of 32 lanes scans its 32 values in registers.
    float v = i < size ? a[i] : 0.0f;
    for (int offset = 1; offset < 32; offset *= 2) {
        float up = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += up;
    }
    if (lane == 31) {
        warp_totals[warp] = v;
    }
    __syncthreads();
    // Then adds the totals of the warps before it.
    for (int w = 0; w < warp; w++) {
        v += warp_totals[w];
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
