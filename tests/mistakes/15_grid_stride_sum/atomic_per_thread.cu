// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: register
// why: fixes the race with one atomicAdd per thread into `out`, which starts as garbage (as
// cudaMalloc leaves it): the atomic reads an output no thread wrote (issue 34), the output is
// wrong, and it is over the read budget too.
// Puzzle 15 · Grid-stride sum: out[blockIdx.x] = this block's share of the sum of a.
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (int i = gid; i < size; i += stride) {
        sum += a[i];
    }
    atomicAdd(&out[blockIdx.x], sum);  // @bug
}
