// expect: fail
// kind: wrong-output
// why: two shared arrays, but every round reads `src` and writes `dst`: the roles never swap, so each round starts from the input again.
// help-has: swap
// help-has: src
// help-not: guard the access
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float src[TPB];
    __shared__ float dst[TPB];
    int t = threadIdx.x;
    src[t] = t < size ? a[t] : 0.0f;
    __syncthreads();
    for (int off = 1; off < TPB; off <<= 1) {
        dst[t] = t >= off ? src[t] + src[t - off] : src[t];
        __syncthreads();
    }
    if (t < size) {
        out[t] = dst[t];
    }
}
