// expect: fail
// kind: wrong-output
// help-has: blockDim.x * gridDim.x | gridDim.x * blockDim.x | threads in the grid | whole grid
// why: the loop steps by gridDim.x (the number of blocks) instead of the number of threads in the
// why: grid: threads re-add elements their neighbours already added.
// Puzzle 15 · Grid-stride sum: out[blockIdx.x] = this block's share of the sum of a.
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    __shared__ float partial[TPB];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float mine = 0.0f;
    for (int i = gid; i < size; i += gridDim.x) {  // @bug
        mine += a[i];
    }
    partial[threadIdx.x] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < TPB; k++) {
            total += partial[k];
        }
        out[blockIdx.x] = total;
    }
}
