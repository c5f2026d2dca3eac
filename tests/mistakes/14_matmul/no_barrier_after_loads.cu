// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: before | after the loads | after the stores | between
// help-not: __syncwarp
// why: the barrier at the end of each step is there, but none between filling the tiles and
// why: reading them: a thread multiplies tile entries another thread has not stored yet.
// Puzzle 14 · Matrix multiply: out = a x b for size x size matrices stored row by row.
extern "C" __global__ void matmul(float* out, const float* a, const float* b, int size) {
    __shared__ float sa[TPB][TPB];
    __shared__ float sb[TPB][TPB];
    int x = threadIdx.x;
    int y = threadIdx.y;
    int c = blockIdx.x * TPB + x;
    int r = blockIdx.y * TPB + y;
    float acc = 0.0f;
    for (int base = 0; base < size; base += TPB) {
        sa[y][x] = (r < size && base + x < size) ? a[r * size + base + x] : 0.0f;
        sb[y][x] = (base + y < size && c < size) ? b[(base + y) * size + c] : 0.0f;
        for (int k = 0; k < TPB; k++) {
            acc += sa[y][k] * sb[k][x];  // @bug
        }
        __syncthreads();
    }
    if (r < size && c < size) {
        out[r * size + c] = acc;
    }
}
