// Module-scope variables (__device__, __constant__), device printf and assert.

__device__ int counter = 0;
__device__ int table[5] = {10, 20, 30, 40, 50};
__constant__ float coef[4] = {0.5f, -1.0f, 2.0f, 0.25f};
__constant__ int offsets[3] = {7, -7, 100};

extern "C" __global__ void globals(int* out, float* fout, const float* x) {
    int t = threadIdx.x;
    int ticket = atomicAdd(&counter, 1);
    table[t % 5] += 0;     // read-modify-write of a __device__ array
    __syncthreads();
    fout[t] = coef[0] + coef[1] * x[t] + coef[2] * x[t] * x[t] + coef[t % 4];
    out[t] = table[t % 5] + offsets[t % 3];
    if (t == 0) out[blockDim.x] = counter;
    out[blockDim.x + 1 + t] = ticket;
}

extern "C" __global__ void hello(const int* v, float f) {
    int t = threadIdx.x;
    printf("block %d thread %d: v=%d f=%f hex=%x s=%s\n", blockIdx.x, t, v[t], f * t, v[t], "ok");
    if (t == 1) printf("%5.2f|%-4d|%04d|%c|%u|%lld|%e\n", 3.14159, 7, 42, 'A', 4000000000u, -5ll, 12345.678);
}

extern "C" __global__ void checked(const int* v, int n) {
    int t = threadIdx.x;
    if (t < n) {
        assert(v[t] >= 0); // @assert
    }
}
