// expect: fail
// kind: out-of-bounds
// line: @mark
// help-has: TPB / 2
// why: held-out (stop 44): the tree starts at stride TPB, so its first step reads cache[local_i + TPB] past the cache
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;  // past the end: adds nothing
    __syncthreads();
    for (int stride = TPB; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];  // @mark
        }
        __syncthreads();
    }
    // One atomic per block: other blocks add into out[0] at any moment, and a plain
    // read-add-write could lose their updates.
    if (local_i == 0) {
        atomicAdd(&out[0], cache[0]);
    }
}
