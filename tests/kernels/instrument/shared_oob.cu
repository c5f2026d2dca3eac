// Bug on purpose: each thread adds its right neighbour, so the last thread reads cache[TPB].
#define TPB 8
extern "C" __global__ void shared_oob(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = threadIdx.x;
    cache[i] = a[i];
    __syncthreads();
    out[i] = cache[i] + cache[i + 1];
}
