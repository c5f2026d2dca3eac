// expect: pass
// why: a grid-stride loop: works for any launch size.
// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += blockDim.x * gridDim.x) {
        out[i] = a[i] + 10.0f;
    }
}
