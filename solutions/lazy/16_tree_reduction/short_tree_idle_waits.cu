// lazy: four tree steps only (strides 32 to 4), then thread 0 adds the last 4 partial sums itself; two __syncthreads() with nothing between them make up the barrier count, so only the barriers that order something (5 of the 6 a full tree has) tell it apart
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float part[TPB];
    int me = threadIdx.x;
    int at = blockIdx.x * 2 * TPB + me;
    float x = (at < size ? a[at] : 0.0f) + (at + TPB < size ? a[at + TPB] : 0.0f);
    part[me] = x;
    __syncthreads();
    for (int half = TPB / 2; half >= 4; half /= 2) {
        if (me < half) part[me] += part[me + half];
        __syncthreads();
    }
    for (int k = 0; k < 2; k++) __syncthreads();
    if (me == 0) {
        out[blockIdx.x] = part[0] + part[1] + part[2] + part[3];
    }
}
