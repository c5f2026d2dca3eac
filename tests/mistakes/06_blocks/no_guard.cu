// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-not: atomicAdd
// why: the last block sticks out past the end and is not guarded.
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] + 10.0f;  // @bug
}
