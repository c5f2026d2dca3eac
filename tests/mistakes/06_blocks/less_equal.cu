// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: <=
// help-not: add a bounds check
// why: off-by-one guard.
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= size) {
        out[i] = a[i] + 10.0f;  // @bug
    }
}
