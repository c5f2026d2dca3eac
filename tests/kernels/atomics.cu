// Atomics on global and shared memory, of every operation and width.

extern "C" __global__ void histogram(int* bins, const int* data, int n, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] % nbins], 1);
}

// Per-block histogram in shared memory, then one flush per bin.
extern "C" __global__ void histogram_shared(unsigned* bins, const int* data, int n) {
    __shared__ unsigned local[16];
    int t = threadIdx.x;
    if (t < 16) local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] & 15], 1u);
    __syncthreads();
    if (t < 16) atomicAdd(&bins[t], local[t]);
}

// One slot of `g` per operation; every thread applies every operation.
extern "C" __global__ void all_ops(int* g, unsigned* u, float* f, double* d,
                                   unsigned long long* ull, int* olds) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&g[0], t);
    atomicSub(&g[1], t);
    atomicMin(&g[2], 1000 - t * 3);
    atomicMax(&g[3], t * 7 - 50);
    atomicAnd(&g[4], ~(1 << (t % 31)));
    atomicOr(&g[5], 1 << (t % 29));
    atomicXor(&g[6], t * 0x01010101);
    olds[t] = atomicExch(&g[7], t + 1);
    atomicInc(&u[0], 9u);
    atomicDec(&u[1], 6u);
    atomicMin(&u[2], 5000u - t);
    atomicMax(&u[3], (unsigned)t * 3u);
    atomicAdd(&f[0], (float)t);
    atomicAdd(&d[0], (double)t * 0.5);
    atomicAdd(&ull[0], 1ull << 33);
    atomicCAS(&g[8], t, t + 1);   // only the thread whose t matches advances it
}

// The same in shared memory, folded into global by thread 0.
extern "C" __global__ void shared_ops(int* g, float* f) {
    __shared__ int s[8];
    __shared__ float sf;
    int t = threadIdx.x;
    if (t == 0) {
        s[0] = 0; s[1] = 1 << 30; s[2] = -(1 << 30); s[3] = -1; s[4] = 0; s[5] = 0; s[6] = 0; s[7] = 0;
        sf = 0.0f;
    }
    __syncthreads();
    atomicAdd(&s[0], t);
    atomicMin(&s[1], t * 5 + 3);
    atomicMax(&s[2], t * 5 + 3);
    atomicAnd(&s[3], ~(1 << t));
    atomicOr(&s[4], 1 << (t % 17));
    atomicXor(&s[5], t);
    atomicInc((unsigned*)&s[6], 4u);
    atomicExch(&s[7], 42);
    atomicAdd(&sf, 0.25f);
    __syncthreads();
    if (t < 8) g[t] = s[t];
    if (t == 0) f[0] = sf;
}

// Float max built from atomicCAS, the classic pattern.
__device__ float atomic_max_float(float* addr, float v) {
    int* p = (int*)addr;
    int old = *p, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(p, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void cas_max(float* result, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_max_float(result, x[i]);
}
