// lazy: an interleaved tree: thread t adds s[2 * stride * t + stride] into s[2 * stride * t], so the active threads' slots spread over the array and share banks
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) {
        v += a[base + t + TPB];
    }
    s[t] = v;
    __syncthreads();
    for (int stride = 1; stride < TPB; stride *= 2) {
        int index = 2 * stride * t;
        if (index < TPB) {
            s[index] += s[index + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
