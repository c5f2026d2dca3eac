// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: round | each step | every step | loop
// help-not: atomicAdd
// why: the up-sweep runs its rounds without a barrier between them.
// Puzzle 20 · Blelloch scan: out[i] = a[0] + ... + a[i - 1] (exclusive), in one block.
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    // Two elements per thread: the block scans up to N = 2 * TPB values.
    __shared__ float s[N];
    int t = threadIdx.x;
    s[t] = t < size ? a[t] : 0.0f;
    s[t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < N; stride *= 2) {
        int right = (t + 1) * 2 * stride - 1;
        if (right < N) {
            s[right] += s[right - stride];  // @bug
        }
    }
    if (t == 0) {
        s[N - 1] = 0.0f;
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
