// lazy: puzzle 19's double-buffered Hillis-Steele scan, two elements per thread, instead of Blelloch's tree
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    __shared__ float buf[2][N];
    int t = threadIdx.x;
    buf[0][t] = t < size ? a[t] : 0.0f;
    buf[0][t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
    __syncthreads();
    int in = 0;
    for (int d = 1; d < N; d *= 2) {
        for (int j = t; j < N; j += TPB) {
            float v = buf[in][j];
            if (j >= d) {
                v += buf[in][j - d];
            }
            buf[1 - in][j] = v;
        }
        __syncthreads();
        in = 1 - in;
    }
    // Inclusive to exclusive: the value one place back.
    if (t < size) {
        out[t] = t > 0 ? buf[in][t - 1] : 0.0f;
    }
    if (t + TPB < size) {
        out[t + TPB] = buf[in][t + TPB - 1];
    }
}
