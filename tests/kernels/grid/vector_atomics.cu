// sm_90's vector atomics (tests/exec_grid.rs, --arch sm_90): atomicAdd on a float2 and a
// float4, each element its own atomic.
extern "C" __global__ void vector_atomics(float2* acc2, float4* acc4, float4* first, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(acc2, make_float2(x[i], 2.0f * x[i]));
        float4 old = atomicAdd(acc4, make_float4(x[i], 1.0f, -x[i], 0.5f));
        // The old values are returned: whoever saw the counter at 0 was first.
        if (old.y == 0.0f) *first = old;
    }
}
