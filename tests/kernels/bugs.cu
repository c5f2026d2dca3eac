// Planted bugs, one kernel per diagnostic kind. `// @name` marks the line each test expects.

extern "C" __global__ void oob_write(float* out, const float* a, int size) {
    int i = threadIdx.x;
    out[i] = a[i % size] + 1.0f; // @oob-write
}

extern "C" __global__ void oob_negative(float* out, const float* a) {
    int i = threadIdx.x;
    out[i] = a[i - 1]; // @oob-negative
}

extern "C" __global__ void oob_shared(int* out) {
    __shared__ int s[8];
    int t = threadIdx.x;
    s[t] = t; // @oob-shared
    __syncthreads();
    out[t] = s[t % 8];
}

extern "C" __global__ void oob_pointer(int* out, long long bad) {
    int* p = (int*)bad;
    out[threadIdx.x] = *p; // @oob-wild
}

extern "C" __global__ void race_missing_sync(float* out, const float* a) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = a[t]; // @race-write
    float v = s[(t + 1) % 64]; // @race-read
    out[t] = v;
}

extern "C" __global__ void race_war(int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int v = s[63 - t]; // @war-read
    s[t] = v * 2; // @war-write
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void uninit_read(int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 16) s[t] = t;
    __syncthreads();
    out[t] = s[t]; // @uninit
}

extern "C" __global__ void barrier_in_if(int* out) {
    __shared__ int s[8];
    int t = threadIdx.x;
    s[t] = t;
    if (t < 4) {
        __syncthreads(); // @bar-if
    }
    out[t] = s[t];
}

extern "C" __global__ void barrier_after_return(int* out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = t;
    __syncthreads(); // @bar-return
    out[t] = s[(t + 1) % n];
}

extern "C" __global__ void barrier_if_else(int* out) {
    int t = threadIdx.x;
    if (t % 2 == 0) {
        __syncthreads(); // @bar-even
        out[t] = 1;
    } else {
        __syncthreads(); // @bar-odd
        out[t] = 2;
    }
}

extern "C" __global__ void spin_forever(int* out) {
    if (threadIdx.x == 0) out[0] = 1;
    while (true) {} // @spin
}

extern "C" __global__ void stuck_counter(int* out, int n, int step) {
    int s = 0;
    for (int i = 0; i < n; i += step) { // @stuck
        s += out[i] + 1;
        out[threadIdx.x + 1] = s;
    }
}

extern "C" __global__ void misaligned(float* out, const char* bytes) {
    const float* f = (const float*)(bytes + 1);
    out[threadIdx.x] = f[threadIdx.x]; // @misaligned
}

extern "C" __global__ void misaligned_float4(float4* out, const float* in) {
    const float4* v = (const float4*)(in + 1);
    out[threadIdx.x] = v[threadIdx.x]; // @misaligned4
}

// Lanes 16..31 are named in the mask but wait at the barrier instead of shuffling.
extern "C" __global__ void shfl_absent_lanes(int* out) {
    int t = threadIdx.x;
    int v = t;
    if (t < 16) {
        v = __shfl_down_sync(0xffffffff, v, 1); // @shfl-absent
    }
    __syncthreads(); // @shfl-absent-bar
    out[t] = v;
}

// Exited lanes named in the mask are fine (PTX waits for non-exited lanes only).
extern "C" __global__ void shfl_exited_lanes(int* out) {
    int t = threadIdx.x;
    if (t >= 16) return;
    out[t] = __shfl_down_sync(0xffffffff, t, 1);
}

// Half the warp shuffles at one instruction, half at another: not the same collective.
extern "C" __global__ void shfl_split(int* out, const int* in) {
    int t = threadIdx.x;
    int v = in[t];
    if (v > 0) {
        v = __shfl_xor_sync(0xffffffff, v, 1); // @shfl-split-a
    } else {
        v = __ballot_sync(0xffffffff, v == 0); // @shfl-split-b
    }
    out[t] = v;
}

extern "C" __global__ void shfl_not_in_mask(int* out) {
    int t = threadIdx.x;
    out[t] = __shfl_sync(0x0000ffff, t, 0); // @shfl-self
}

extern "C" __global__ void failing_assert(const int* v) {
    int t = threadIdx.x;
    assert(v[t] != 3); // @assert
}

extern "C" __global__ void trap_kernel(int* out) {
    if (threadIdx.x == 2) __trap(); // @trap
    out[threadIdx.x] = 1;
}

// No bugs: nothing may be reported.
extern "C" __global__ void clean_reduction(float* out, const float* in) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (int stride = 128; stride >= 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t];
        v += __shfl_xor_sync(0xffffffff, v, 16);
        v += __shfl_xor_sync(0xffffffff, v, 8);
        s[t] = v;
        __syncwarp();
        v = s[t ^ 4] + v;
        __syncwarp();
        s[t] = v;
        __syncwarp();
        v = s[t ^ 2] + s[t ^ 1] * 0.0f + v;
        __syncwarp();
        v += __shfl_xor_sync(0xffffffff, v, 1);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// Beyond what a GPU allows: refused before running, with the limit named.
extern "C" __global__ void too_much_shared(float* out) {
    __shared__ float big[20000];
    big[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = big[(threadIdx.x + 1) % blockDim.x];
}

__device__ __noinline__ int fib(const int* p, int n) {
    if (n < 2) return p[n & 1];
    return fib(p, n - 1) + fib(p, n - 2);
}

extern "C" __global__ void deep_recursion(int* out, int n) {
    out[threadIdx.x] = fib(out, n);
}

// Every block writes the same elements (the block offset is missing): the last block wins.
extern "C" __global__ void blocks_overwrite(int* out, const int* in) {
    int i = threadIdx.x;
    out[i] = in[i] + blockIdx.x; // @overwrite
}

// Each block reads what the block before it wrote: only defined in a sequential order.
extern "C" __global__ void blocks_chain(int* data, int n) {
    int b = blockIdx.x;
    if (threadIdx.x == 0 && b > 0) data[b] = data[b - 1] + 1;
}

// Counting into shared bins nobody cleared: every bin gets several atomic hits, and the first
// hit of each still reads never-written memory (other threads' atomics do not explain it).
extern "C" __global__ void bins_never_cleared(unsigned* out) {
    __shared__ unsigned bins[4];
    atomicAdd(&bins[threadIdx.x % 4], 1u); // @bins
    __syncthreads();
    if (threadIdx.x < 4) out[threadIdx.x] = bins[threadIdx.x];
}
