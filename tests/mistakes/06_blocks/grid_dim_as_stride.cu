// expect: fail
// kind: global-race
// line: @bug
// help-has: blockDim.x
// help-not: atomicAdd
// why: multiplies the block index by gridDim.x instead of blockDim.x: blocks overlap and leave gaps.
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
// Check with `gpuzzle run 6`; stuck? `gpuzzle hint 6`.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int idx = blockIdx.x * gridDim.x + threadIdx.x;
    if (idx < size) {
        out[idx] = a[idx] + 10.0f;  // @bug
    }
}
