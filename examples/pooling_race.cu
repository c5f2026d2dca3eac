// A kernel with a planted bug, for trying `gpuzzle exec`:
//   gpuzzle exec examples/pooling_race.cu --kernel pooling --grid 1 --block 8 \
//       --arg out=f32[8]:zeros --arg a=f32[8]:arange --arg size=i32:8
// Each output sums its input and the two before it, read from shared memory. The missing
// __syncthreads() between the store and the loads is a race: gpuzzle names the line and threads.
#define TPB 8

extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) cache[local_i] = a[i];
    // __syncthreads();   <- uncomment to fix the race
    if (i < size) {
        float sum = cache[local_i];
        if (local_i >= 1) sum += cache[local_i - 1];
        if (local_i >= 2) sum += cache[local_i - 2];
        out[i] = sum;
    }
    if (i == 0) printf("block %d: out[0] = %f\n", blockIdx.x, out[0]);
}
