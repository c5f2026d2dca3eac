// expect: fail
// kind: wrong-output
// why: every block sums row 0.
// help-has: row * | blockIdx | row offset | first row | row 0
// help-not: __syncthreads()
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    cache[local_i] = local_i < size ? a[local_i] : 0.0f;
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
