// expect: fail
// kind: wrong-output
// why: forgets to clear the root before the down-sweep.
// help-has: root | = 0 | clear | identity
// help-not: guard the access
// Puzzle 20 · Blelloch scan: out[i] = a[0] + ... + a[i - 1] (exclusive), in one block.
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    // Two elements per thread: the block scans up to N = 2 * TPB values.
    __shared__ float s[N];
    int t = threadIdx.x;
    s[t] = t < size ? a[t] : 0.0f;
    s[t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
    for (int stride = 1; stride < N; stride *= 2) {
        __syncthreads();
        int right = (t + 1) * 2 * stride - 1;
        if (right < N) {
            s[right] += s[right - stride];
        }
    }
    for (int stride = N / 2; stride > 0; stride /= 2) {
        __syncthreads();
        int right = (t + 1) * 2 * stride - 1;
        if (right < N) {
            float left_sum = s[right - stride];
            s[right - stride] = s[right];
            s[right] += left_sum;
        }
    }
    __syncthreads();
    if (t < size) {
        out[t] = s[t];
    }
    if (t + TPB < size) {
        out[t + TPB] = s[t + TPB];
    }
}
