// lazy: the row maximum and sum gathered with shared atomics (atomicMax on the float's int bits, atomicAdd for the sum), no reduction tree
#include <cfloat>
__device__ int ordered(float f) { int i = __float_as_int(f); return i >= 0 ? i : i ^ 0x7fffffff; }
__device__ float unordered(int i) { return __int_as_float(i >= 0 ? i : i ^ 0x7fffffff); }
extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ int mbits;
    __shared__ float total;
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;
    if (t == 0) { mbits = ordered(-FLT_MAX); total = 0.0f; }
    __syncthreads();
    float m = -FLT_MAX;
    for (int c = t; c < cols; c += TPB) m = fmaxf(m, xr[c]);
    atomicMax(&mbits, ordered(m));
    __syncthreads();
    m = unordered(mbits);
    float s = 0.0f;
    for (int c = t; c < cols; c += TPB) s += expf(xr[c] - m);
    atomicAdd(&total, s);
    __syncthreads();
    float sum = total;
    for (int c = t; c < cols; c += TPB) outr[c] = expf(xr[c] - m) / sum;
}
