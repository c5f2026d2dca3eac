// expect: fail
// kind: over-budget
// counter: block_budget:global_load_instrs
// why: gives each thread four elements, but loads them one float at a time.
// help-has: float4
// help-not: guard the access
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int quad = blockIdx.x * blockDim.x + threadIdx.x;
    for (int e = 0; e < 4; e++) {
        int idx = quad * 4 + e;
        if (idx < size) {
            out[idx] = a[idx] + b[idx];
        }
    }
}
