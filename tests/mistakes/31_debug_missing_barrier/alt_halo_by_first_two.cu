// expect: pass
// why: threads 0 and 1 load the two halo values (each still 2 global reads), then the barrier.
// Puzzle 31 · Debug: missing barrier. out[i] = a[i - 1] + a[i] + a[i + 1] (0 outside a).
extern "C" __global__ void sum3(float* out, const float* a, int size) {
    __shared__ float tile[TPB + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;  // tile[0] and tile[TPB + 1] hold the block's outer neighbours
    tile[t] = i < size ? a[i] : 0.0f;
    int block_start = blockIdx.x * blockDim.x;
    if (threadIdx.x == 0) {
        tile[0] = block_start > 0 && block_start - 1 < size ? a[block_start - 1] : 0.0f;
    }
    if (threadIdx.x == 1) {
        int right = block_start + TPB;
        tile[TPB + 1] = right < size ? a[right] : 0.0f;
    }
    __syncthreads();
    if (i < size) {
        out[i] = tile[t - 1] + tile[t] + tile[t + 1];
    }
}
