// expect: fail
// kind: wrong-output
// why: a flat index over the 2D block, but the tree starts at blockDim.x / 2, half of one row: the rows below the first are never folded in.
// help-has: first row | whole block | all rows
// help-not: guard the access
// Puzzle 17 · 2D reduction: out[blockIdx.y * gridDim.x + blockIdx.x] = sum of this block's tile of a.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    __shared__ float part[TPB_Y * TPB_X];
    int r = blockIdx.y * TPB_Y + threadIdx.y;
    int c = blockIdx.x * TPB_X + threadIdx.x;
    int flat = threadIdx.x + threadIdx.y * blockDim.x;
    float v = 0.0f;
    if (r < rows && c < cols) {
        v = a[r * cols + c];
    }
    part[flat] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (flat < half) {
            part[flat] += part[flat + half];
        }
        __syncthreads();
    }
    if (flat == 0) {
        out[blockIdx.y * gridDim.x + blockIdx.x] = part[0];
    }
}
