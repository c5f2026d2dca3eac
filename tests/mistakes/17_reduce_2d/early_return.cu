// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: return
// help-not: atomicAdd
// why: threads outside the matrix return, though the text says they take part in every barrier.
// Puzzle 17 · 2D reduction: out[blockIdx.y * gridDim.x + blockIdx.x] = sum of this block's tile of a.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    __shared__ float s[TPB_Y * TPB_X];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.y * TPB_X + threadIdx.x;
    s[t] = 0.0f;
    if (row >= rows || col >= cols) return;
    s[t] = a[row * cols + col];
    __syncthreads();  // @bug
    for (int stride = TPB_X * TPB_Y / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.y * gridDim.x + blockIdx.x] = s[0];
    }
}
