// Puzzle 16 · Tree reduction: reference solution (two loads per thread, then a sequential-addressing tree).
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    int first = base + t;
    int second = base + t + TPB;
    float v = first < size ? a[first] : 0.0f;
    if (second < size) {
        v += a[second];
    }
    s[t] = v;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
