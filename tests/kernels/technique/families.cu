// Each instruction family counted once per execution by the thread that executed it (issue 34).
// One warp of 32 threads.
#include <cuda_fp16.h>
extern "C" __global__ void warp_families(int* out, const int* keys) {
    int lane = threadIdx.x;
    int v = keys[lane];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);  // 5 shuffles
    unsigned b = __ballot_sync(0xffffffffu, keys[lane] > 0);                           // 1 vote
    unsigned same = __match_any_sync(0xffffffffu, keys[lane] & 3);                     // 1 match
    int total = __reduce_add_sync(0xffffffffu, keys[lane]);                             // 1 redux
    __syncthreads();                                                                    // 1 barrier
    int evens = __syncthreads_count(lane % 2 == 0);                                     // 1 barrier
    out[lane] = v + (int)__popc(b) + (int)__popc(same) + total + evens;
}

// dp4a, packed half arithmetic and double arithmetic, one of each a thread.
extern "C" __global__ void math_families(float* out, const int* a, const int* b, const __half2* h, const double* d) {
    int t = threadIdx.x;
    int dot = __dp4a(a[t], b[t], 0);
    __half2 y = __hfma2(h[t], h[t], h[t]);
    double z = d[t] * 3.0;
    out[t] = (float)dot + __low2float(y) + __high2float(y) + (float)z;
}

// The same kernel with the bytes multiplied one by one in float (NVRTC turns an integer
// byte-by-byte dot product into dp4a itself), floats instead of half2 and float instead of
// double: none of the three families.
extern "C" __global__ void math_plain(float* out, const int* a, const int* b, const __half2* h, const double* d) {
    int t = threadIdx.x;
    float dot = 0.0f;
    for (int k = 0; k < 4; k++) dot += (float)(signed char)(a[t] >> (8 * k)) * (float)(signed char)(b[t] >> (8 * k));
    float lo = __low2float(h[t]), hi = __high2float(h[t]);
    const float* df = reinterpret_cast<const float*>(d);
    out[t] = (float)dot + (lo * lo + lo) + (hi * hi + hi) + df[2 * t] * 3.0f;
}

// Float arithmetic packed into a __half2 at the end (`cvt.rn.f16x2.f32`): a conversion, not
// packed half arithmetic, so no f16x2.
extern "C" __global__ void math_packed_floats(float* out, const int* a, const int* b, const __half2* h, const double* d) {
    int t = threadIdx.x;
    float lo = __low2float(h[t]), hi = __high2float(h[t]);
    __half2 packed = __floats2half2_rn(lo * lo + lo, hi * hi + hi);
    out[t] = __low2float(packed) + __high2float(packed);
}

// A per-thread array indexed at run time lives in local memory: 8 local writes and 8 reads.
extern "C" __global__ void local_array(float* out, const float* a, const int* idx) {
    int t = threadIdx.x;
    float arr[8];
    for (int k = 0; k < 8; k++) arr[(k + idx[t]) & 7] = a[t] * k;
    float s = 0.0f;
    for (int k = 0; k < 8; k++) s += arr[(k * 3 + idx[t]) & 7];
    out[t] = s;
}

// The same array with indexes the compiler knows: registers, no local memory.
extern "C" __global__ void register_array(float* out, const float* a, const int* idx) {
    int t = threadIdx.x;
    float vals[8];
#pragma unroll
    for (int k = 0; k < 8; k++) vals[k] = a[t] * k;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; k++) s += vals[k];
    out[t] = s + (float)(idx[t] & 0);
}

// Async copies: tile by tile, waiting for each before the next is issued (no overlap), or
// with the next tile in flight while the current one is summed (double buffering), or (2) the
// same with the in-flight tile drained by a second wait at once (no overlap after all).
extern "C" __global__ void copies(float* out, const float* a, int tiles, int overlap) {
    __shared__ __align__(16) float buf[2][32 * 4];
    int t = threadIdx.x;
    float s = 0.0f;
    unsigned dst0 = (unsigned)__cvta_generic_to_shared(&buf[0][4 * t]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst0), "l"(a + 4 * t) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    for (int k = 0; k < tiles; k++) {
        int cur = k % 2;
        if (overlap && k + 1 < tiles) {
            unsigned dst = (unsigned)__cvta_generic_to_shared(&buf[1 - cur][4 * t]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(a + (k + 1) * 128 + 4 * t) : "memory");
            asm volatile("cp.async.commit_group;" ::: "memory");
            asm volatile("cp.async.wait_group 1;" ::: "memory");
            if (overlap == 2) asm volatile("cp.async.wait_group 0;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        s += buf[cur][(4 * t + 5) % 128];
        __syncthreads();
        if (!overlap && k + 1 < tiles) {
            unsigned dst = (unsigned)__cvta_generic_to_shared(&buf[1 - cur][4 * t]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(a + (k + 1) * 128 + 4 * t) : "memory");
            asm volatile("cp.async.commit_group;" ::: "memory");
        }
    }
    out[t] = s;
}

// One buffer waited for in full, and per step a second copy, into `side`, kept in flight at
// the wait: `use` 0 never reads `side`, 1 overwrites the copied word with a plain store before
// reading it, 2 reads what the copy brought. Only 2 overlaps anything.
extern "C" __global__ void side_copies(float* out, const float* a, int tiles, int use) {
    __shared__ __align__(16) float tile[32 * 4];
    __shared__ __align__(16) float side[32 * 4];
    int t = threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k < tiles; k++) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[4 * t]);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(a + k * 128 + 4 * t) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        unsigned extra = (unsigned)__cvta_generic_to_shared(&side[4 * t]);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(extra), "l"(a + 4 * t) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncthreads();
        s += tile[(4 * t + 5) % 128];
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        if (use == 1) side[4 * t] = 1.0f;
        __syncthreads();
        if (use != 0) s += side[4 * t];
        __syncthreads();
    }
    out[t] = s;
}

// Shared exchanges: `steps` rounds, each reading the neighbour's element (written before the
// last barrier) and, after a barrier, overwriting its own; then `idle` barriers with nothing
// between them. Each barrier but the idle ones orders a write before another thread's access.
extern "C" __global__ void exchanges(int* out, const int* a, int steps, int idle) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = a[t];
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        int v = s[(t + 1) % 32];
        __syncthreads();
        s[t] = v + 1;
        __syncthreads();
    }
    for (int k = 0; k < idle; k++) __syncthreads();
    out[t] = s[(t + 3) % 32];
}

// A shuffle per lane: `own` 1 reads each lane's own value (moves nothing), 0 the neighbour's.
extern "C" __global__ void own_shuffle(float* out, const float* a, int own) {
    int lane = threadIdx.x % 32;
    float v = a[threadIdx.x];
    float w = own ? __shfl_sync(0xffffffffu, v, lane) : __shfl_xor_sync(0xffffffffu, v, 1);
    out[threadIdx.x] = w;
}

// The kept lanes below each lane: with `__popc` (one per lane), or bit by bit in a loop.
extern "C" __global__ void lanes_below(int* out, const int* a, int popc) {
    int lane = threadIdx.x % 32;
    unsigned kept = __ballot_sync(0xffffffffu, a[threadIdx.x] > 0);
    unsigned below = kept & ((1u << lane) - 1);
    int n = 0;
    if (popc) {
        n = __popc(below);
    } else {
        for (int b = 0; b < lane; b++) n += (below >> b) & 1;
    }
    out[threadIdx.x] = n;
}

// `__activemask()` in the lanes whose key is positive: once per running lane.
extern "C" __global__ void active_lanes(int* out, const int* keys) {
    int lane = threadIdx.x;
    int r = 0;
    if (keys[lane] > 0) {
        unsigned running = __activemask();
        r = __popc(running & ((1u << lane) - 1u));
    }
    out[lane] = r;
}

// The same places from a ballot of the flag: a vote, no activemask.
extern "C" __global__ void voted_lanes(int* out, const int* keys) {
    int lane = threadIdx.x;
    unsigned kept = __ballot_sync(0xffffffffu, keys[lane] > 0);
    out[lane] = keys[lane] > 0 ? __popc(kept & ((1u << lane) - 1u)) : 0;
}

// Scalar float arithmetic (a multiply-add, a subtraction, a division, a maximum) and scalar
// half arithmetic (__hfma, __hadd): f32 and f16, no f16x2.
extern "C" __global__ void scalar_math(float* out, const float* a, const __half* h) {
    int t = threadIdx.x;
    float x = a[t];
    float y = fmaf(x, 3.0f, 1.0f);
    float z = fmaxf((y - x) / (x + 2.0f), 0.5f);
    __half p = __hadd(__hfma(h[t], h[t], h[t]), h[t]);
    out[t] = z + __half2float(p);
}

// The same with the halves packed (__hfma2, __hadd2 on a pair) and the floats converted only:
// f16x2, and one float add for the output.
extern "C" __global__ void packed_math(float* out, const float* a, const __half* h) {
    int t = threadIdx.x;
    __half2 q = __half2half2(h[t]);
    __half2 p = __hadd2(__hfma2(q, q, q), q);
    out[t] = __low2float(p) + a[t];
}

// Float arithmetic under a short `if`, and a loop whose trip count differs by lane: a
// lockstep run counts f32 for the lanes that ran it only, as one thread at a time does.
extern "C" __global__ void divergent_floats(float* out, const float* a) {
    int t = threadIdx.x;
    float x = a[t];
    if (t % 3 == 0) x = x * 2.0f - 1.0f;
    for (int k = 0; k < t % 4; k++) x = x * x + 0.5f;
    out[t] = x;
}
