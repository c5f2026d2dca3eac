// lazy: the tree with __syncwarp() where a block barrier is needed.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) {
        v += a[base + t + TPB];
    }
    s[t] = v;
    __syncwarp();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncwarp();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
