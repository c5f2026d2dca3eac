// expect: fail
// kind: wrong-output
// help-has: 2 * TPB
// why: held-out (stop 44): each block sums two tiles of TPB but blocks start only TPB apart (base = blockIdx.x * TPB): tiles are summed twice and the last ones never
// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * TPB;
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
