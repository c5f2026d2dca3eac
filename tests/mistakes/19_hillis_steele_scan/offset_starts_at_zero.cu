// expect: fail
// kind: step-limit
// line: @bug
// help-has: = 1 | at 1 | from 1
// help-not: change the condition
// why: starts the offset at 0, and 0 doubled stays 0: the rounds never end.
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
// Check with `gpuzzle run 19`; stuck? `gpuzzle hint 19`.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float ping[2][TPB];
    int me = threadIdx.x;
    ping[0][me] = me < size ? a[me] : 0.0f;
    __syncthreads();
    int cur = 0;
    for (int off = 0; off < TPB; off *= 2) {  // @bug
        float x = ping[cur][me];
        if (me >= off) {
            x += ping[cur][me - off];
        }
        ping[1 - cur][me] = x;
        __syncthreads();
        cur = 1 - cur;
    }
    if (me < size) {
        out[me] = ping[cur][me];
    }
}
