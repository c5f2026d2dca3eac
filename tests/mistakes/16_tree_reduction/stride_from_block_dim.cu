// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: blockDim.x / 2
// help-not: if (i < size)
// help-not: tid + offset < TPB
// why: the tree's first offset is the whole block (blockDim.x), so it reads past the shared array.
// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float partial[TPB];
    unsigned int tid = threadIdx.x;
    unsigned int first = blockIdx.x * 2 * blockDim.x + tid;
    float x = 0.0f;
    if (first < size) x += a[first];
    if (first + blockDim.x < size) x += a[first + blockDim.x];
    partial[tid] = x;
    __syncthreads();
    for (unsigned int offset = blockDim.x; offset > 0; offset >>= 1) {
        if (tid < offset) {
            partial[tid] += partial[tid + offset];  // @bug
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
