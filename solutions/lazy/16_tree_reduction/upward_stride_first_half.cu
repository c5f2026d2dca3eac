// lazy: strides grow 1, 2, 4, ... with the active threads packed at the front (t < TPB / (2 * stride)) reading s[2 * stride * t] and its neighbour: the interleaved tree written with a packed thread index
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) v += a[base + t + TPB];
    s[t] = v;
    __syncthreads();
    for (int stride = 1; stride < TPB; stride *= 2) {
        int idx = 2 * stride * t;
        if (idx + stride < TPB) s[idx] += s[idx + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
