// expect: fail
// kind: global-race
// line: @bug
// help-has: row | blockIdx.y
// help-not: atomicAdd
// help-not: __threadfence
// why: writes out[blockIdx.x], which is 0 for every block of this 1 x 4 grid.
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    cache[local_i] = local_i < size ? a[row * size + local_i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[blockIdx.x] = cache[0];  // @bug
    }
}
