// expect: fail
// kind: out-of-bounds
// line: @w
// help-has: k < size
// why: held-out (stop 43): the load into stash is guarded, the write to out is not; other names (stash, k).
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    __shared__ float stash[TPB];
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < size) stash[threadIdx.x] = a[k];
    __syncthreads();
    out[k] = stash[threadIdx.x] + 10.0f;  // @w
}
