// expect: fail
// kind: wrong-output
// why: overwrites the left child before saving its old sum.
// help-has: save | temp | old value | before overwrit | before you overwrite | left = s[
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
    if (t == 0) {
        s[N - 1] = 0.0f;
    }
    for (int stride = N / 2; stride > 0; stride /= 2) {
        __syncthreads();
        int right = (t + 1) * 2 * stride - 1;
        if (right < N) {
            s[right - stride] = s[right];
            s[right] += s[right - stride];
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
