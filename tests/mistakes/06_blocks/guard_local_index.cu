// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-not: add a bounds check
// why: guards with the index inside the block instead of the global one.
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < size) {
        out[i] = a[i] + 10.0f;  // @bug
    }
}
