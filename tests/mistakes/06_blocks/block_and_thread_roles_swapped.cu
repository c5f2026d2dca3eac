// expect: fail
// kind: wrong-output
// help-has: blockIdx.x * blockDim.x + threadIdx.x
// why: held-out (stop 44): the global index multiplies the thread by the block size and adds the block: some elements are never reached
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x + threadIdx.x * blockDim.x;
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
}
