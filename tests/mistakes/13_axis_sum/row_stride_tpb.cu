// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row * size
// help-not: add a bounds check
// why: rows are TPB apart in the learner's head, but size (6) apart in memory.
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    cache[local_i] = local_i < size ? a[row * TPB + local_i] : 0.0f;  // @bug
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[row] = cache[0];
    }
}
