// expect: fail
// kind: wrong-output
// why: the global index steps by two blocks' worth (`blockIdx.x * 2 * blockDim.x + tid`), but each thread loads only a[first]: the upper half of the slice is never added.
// help-has: second half | blockDim.x
// help-not: guard the access
// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float partial[TPB];
    unsigned int tid = threadIdx.x;
    unsigned int first = blockIdx.x * 2 * blockDim.x + tid;
    float x = 0.0f;
    if (first < size) x = a[first];
    partial[tid] = x;
    __syncthreads();
    for (unsigned int offset = blockDim.x / 2; offset > 0; offset >>= 1) {
        if (tid < offset) {
            partial[tid] += partial[tid + offset];
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
