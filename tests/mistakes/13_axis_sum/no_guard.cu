// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: local_i < size
// help-not: atomicAdd
// why: 8 threads for rows of 6: threads 6 and 7 read the next row, or past the end.
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    cache[local_i] = a[row * size + local_i];  // @bug
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
