// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: return
// help-has: 0.0f | zero | 0 instead
// why: threads past the row return before the barriers the others wait at.
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    if (local_i >= size) return;
    cache[local_i] = a[row * size + local_i];
    __syncthreads();  // @bug
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride && local_i + stride < size) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[row] = cache[0];
    }
}
