// Warp-level primitives: shuffles of every mode and width, votes, the active mask,
// __syncwarp, and block-wide barrier reductions.

extern "C" __global__ void shuffles(int* out, const int* in) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int* o = out + t * 8;
    o[0] = __shfl_down_sync(0xffffffff, v, 3);
    o[1] = __shfl_up_sync(0xffffffff, v, 5);
    o[2] = __shfl_xor_sync(0xffffffff, v, 6);
    o[3] = __shfl_sync(0xffffffff, v, (threadIdx.x * 7) & 31);
    o[4] = __shfl_down_sync(0xffffffff, v, 3, 16);
    o[5] = __shfl_up_sync(0xffffffff, v, 5, 16);
    o[6] = __shfl_xor_sync(0xffffffff, v, 9, 16);
    o[7] = __shfl_sync(0xffffffff, v, 13, 8);
}

extern "C" __global__ void float_shuffle(float* out, const float* in) {
    int t = threadIdx.x;
    float v = in[t];
    out[t] = __shfl_xor_sync(0xffffffff, v, 1) + __shfl_sync(0xffffffff, v, 0);
    double d = (double)v * 3.0;
    out[32 + t] = (float)__shfl_down_sync(0xffffffff, d, 1);
}

extern "C" __global__ void votes(unsigned* out, const int* in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;   // the last warp is partial: some lanes have exited
    int v = in[t];
    unsigned* o = out + t * 5;
    o[0] = __ballot_sync(__activemask(), v > 0);
    o[1] = __any_sync(__activemask(), v > 90);
    o[2] = __all_sync(__activemask(), v > -100);
    o[3] = __activemask();
    o[4] = __all_sync(__activemask(), v > 0);
}

// __activemask in a divergent branch names the lanes that took the branch.
extern "C" __global__ void active_in_branch(unsigned* out, int* sums) {
    int t = threadIdx.x;
    unsigned m = 0;
    int s = t;
    if ((t & 3) == 1) {
        m = __activemask();
        for (int off = 4; off < 32; off *= 2) s += __shfl_xor_sync(m, s, off);
    }
    out[t] = m;
    sums[t] = s;
}

// Warp reduction with shuffles, no cooperative groups; lane 0 writes each warp's sum.
extern "C" __global__ void warp_reduce(float* out, const float* in) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[t];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
    if ((threadIdx.x & 31) == 0) out[t / 32] = v;
}

// Warp-synchronous shared exchange ordered by __syncwarp.
extern "C" __global__ void syncwarp_exchange(int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * t;
    __syncwarp();
    int v = s[t ^ 1];
    __syncwarp();
    s[t] = v + 1;
    __syncwarp();
    out[t] = s[(t + 1) & 31 | (t & 32)];
}

extern "C" __global__ void barrier_reductions(int* out, const int* in) {
    int t = threadIdx.x;
    int v = in[t];
    int c = __syncthreads_count(v > 10);
    int a = __syncthreads_and(v >= 0);
    int o = __syncthreads_or(v > 98);
    if (t == 0) {
        out[0] = c;
        out[1] = a;
        out[2] = o;
    }
}

// sm_80 warp reductions and matches.
extern "C" __global__ void warp_reduce_intrinsics(unsigned* out, const unsigned* in) {
    int t = threadIdx.x;
    unsigned v = in[t];
    unsigned* o = out + t * 7;
    o[0] = __reduce_add_sync(0xffffffff, v);
    o[1] = __reduce_min_sync(0xffffffff, v);
    o[2] = __reduce_max_sync(0xffffffff, v);
    o[3] = __reduce_or_sync(0xffffffff, v);
    o[4] = __match_any_sync(0xffffffff, v % 4);
    int pred;
    o[5] = __match_all_sync(0xffffffff, v / 1000, &pred) | (pred ? 1u << 31 : 0u);
    o[6] = __match_all_sync(0xffffffff, v / 500, &pred) | (pred ? 1u << 31 : 0u);
}

// A partial-mask __syncwarp inside a divergent branch orders the half-warp's accesses.
extern "C" __global__ void half_warp_exchange(int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 16) {
        s[t] = t * 10;
        __syncwarp(0x0000ffff);
        out[t] = s[15 - t];
    } else {
        out[t] = -1;
    }
}

// Lanes spin on a flag that lane 0 sets after its __activemask(): legal with independent
// thread scheduling; the active mask there is lane 0 alone.
extern "C" __global__ void activemask_then_flag(unsigned* out) {
    __shared__ volatile int flag;
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t == 0) {
        out[0] = __activemask();
        flag = 1;
    } else {
        while (flag == 0) {
        }
        out[t] = 7;
    }
}
