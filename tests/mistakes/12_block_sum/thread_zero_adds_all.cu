// expect: fail
// kind: over-budget
// counter: shared_reads
// why: right sums, but thread 0 reads all TPB slots instead of the tree (64 reads in the tests with blocks of 64).
// help-has: tree | halv | stride
// help-not: guard the access
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[blockIdx.x] = sum;
    }
}
