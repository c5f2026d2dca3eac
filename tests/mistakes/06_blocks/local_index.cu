// expect: fail
// kind: global-race
// line: @bug
// help-has: blockIdx.x * blockDim.x + threadIdx.x | out[i]
// help-not: atomicAdd
// help-not: __threadfence
// why: uses threadIdx.x as in puzzle 3: every block writes out[0..3].
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < size) {
        out[threadIdx.x] = a[threadIdx.x] + 10.0f;  // @bug
    }
}
