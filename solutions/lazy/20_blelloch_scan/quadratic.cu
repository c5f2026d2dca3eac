// lazy: every thread adds up all the elements before each of its two from shared memory (O(n^2) work)
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    __shared__ float s[N];
    int t = threadIdx.x;
    s[t] = t < size ? a[t] : 0.0f;
    s[t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < t; k++) {
        sum += s[k];
    }
    if (t < size) {
        out[t] = sum;
    }
    for (int k = t; k < t + TPB; k++) {
        sum += s[k];
    }
    if (t + TPB < size) {
        out[t + TPB] = sum;
    }
}
