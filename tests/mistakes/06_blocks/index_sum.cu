// expect: fail
// kind: global-race
// line: @bug
// help-has: blockIdx.x * blockDim.x
// help-not: atomicAdd
// help-not: __syncthreads()
// why: adds block and thread numbers: blocks overlap, the tail is never written.
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x + threadIdx.x;
    if (i < size) {
        out[i] = a[i] + 10.0f;  // @bug
    }
}
