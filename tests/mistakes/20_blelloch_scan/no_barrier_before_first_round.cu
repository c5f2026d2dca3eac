// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: before the | after the loads | after the stores | start of | top of | after line 13
// help-not: __syncwarp
// why: the up-sweep puts its barrier at the end of each round, so nothing orders the loads of
// why: s[] before the first round reads them. The fix: a barrier before each round (or after the loads).
// Puzzle 20 · Blelloch scan: out[i] = a[0] + ... + a[i - 1] (exclusive), in one block.
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    __shared__ float s[N];
    int t = threadIdx.x;
    s[t] = t < size ? a[t] : 0.0f;
    s[t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
    for (int stride = 1; stride < N; stride *= 2) {
        int right = (t + 1) * 2 * stride - 1;
        if (right < N) {
            s[right] += s[right - stride];  // @bug
        }
        __syncthreads();
    }
    if (t == 0) {
        s[N - 1] = 0.0f;
    }
    for (int stride = N / 2; stride > 0; stride /= 2) {
        __syncthreads();
        int right = (t + 1) * 2 * stride - 1;
        if (right < N) {
            float left_sum = s[right - stride];
            float node = s[right];
            s[right - stride] = node;
            s[right] = node + left_sum;
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
