// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: bi < N
// help-not: ai < N
// why: the up-sweep names its two nodes ai and bi (as in GPU Gems) but never checks that bi is inside s.
// Puzzle 20 · Blelloch scan: out[i] = a[0] + ... + a[i - 1] (exclusive), in one block.
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    __shared__ float s[N];
    int t = threadIdx.x;
    s[2 * t] = 2 * t < size ? a[2 * t] : 0.0f;
    s[2 * t + 1] = 2 * t + 1 < size ? a[2 * t + 1] : 0.0f;
    for (int offset = 1; offset < N; offset *= 2) {
        __syncthreads();
        int ai = offset * (2 * t + 1) - 1;
        int bi = offset * (2 * t + 2) - 1;
        s[bi] += s[ai];  // @bug
    }
    __syncthreads();
    if (t == 0) {
        s[N - 1] = 0.0f;
    }
    for (int offset = N / 2; offset > 0; offset /= 2) {
        __syncthreads();
        int ai = offset * (2 * t + 1) - 1;
        int bi = offset * (2 * t + 2) - 1;
        if (bi < N) {
            float left = s[ai];
            s[ai] = s[bi];
            s[bi] += left;
        }
    }
    __syncthreads();
    if (2 * t < size) out[2 * t] = s[2 * t];
    if (2 * t + 1 < size) out[2 * t + 1] = s[2 * t + 1];
}
