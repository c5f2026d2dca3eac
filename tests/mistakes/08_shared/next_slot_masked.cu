// expect: fail
// kind: uninitialized-read
// line: @bug
// why: reads the slot after its own (masked to wrap), so each output gets its neighbour's
// why: element; in the partly full last block the slot after the last element was never stored.
// help-has: stage[t] | its own slot
// help-not: when the condition fails
// help-not: 0.0f
// Puzzle 8 · Shared memory: out[i] = a[i] + 10, through a shared array.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    __shared__ float stage[TPB];
    int t = threadIdx.x;
    int g = blockIdx.x * TPB + t;
    if (g < size) stage[t] = a[g];
    __syncthreads();
    if (g >= size) return;
    out[g] = 10.0f + stage[(t + 1) & (TPB - 1)];  // @bug
}
