// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: win[local_i + 3] | local_i + 3
// help-not: if (i < size)
// why: the window of out[i] is cache[local_i .. local_i + 2]; the learner shifted it one slot
// why: right, so the block's last thread reads cache[TPB + 2], past the shared array.
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float win[TPB + 2];
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    win[local_i + 2] = gi < size ? a[gi] : 0.0f;
    if (local_i < 2) {
        win[local_i] = gi >= 2 ? a[gi - 2] : 0.0f;
    }
    __syncthreads();
    if (gi < size) {
        out[gi] = win[local_i + 1] + win[local_i + 2] + win[local_i + 3];  // @bug
    }
}
