// expect: fail
// kind: wrong-output
// help-has: twice | part[t + w] + part[t + w]
// why: held-out (stop 43): each tree step adds the partner's value twice (126 for 28).
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float part[TPB];
    int t = threadIdx.x;
    int gi = blockIdx.x * TPB + t;
    part[t] = (gi < size) ? a[gi] : 0.0f;
    __syncthreads();
    for (int w = TPB / 2; w >= 1; w /= 2) {
        if (t < w) part[t] = part[t] + part[t + w] + part[t + w];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = part[0];
}
