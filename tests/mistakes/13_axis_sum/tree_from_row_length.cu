// expect: fail
// kind: wrong-output
// help-has: TPB / 2 | blockDim.x / 2
// why: the tree starts at size / 2 instead of TPB / 2: for a row length that is not a power of
// why: two, elements past 2 * (size / 2) ... are never added. The fix starts at TPB / 2 (the
// why: padding is already 0).
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float part[TPB];
    int r = blockIdx.y;
    int t = threadIdx.x;
    part[t] = t < size ? a[r * size + t] : 0.0f;
    __syncthreads();
    for (int half = size / 2; half > 0; half /= 2) {  // @bug
        if (t < half) {
            part[t] += part[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[r] = part[0];
    }
}
