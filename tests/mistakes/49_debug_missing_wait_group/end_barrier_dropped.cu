// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: before the next pass | end of the loop body
// help-not: inside `if
// why: waits for its tile and syncs before reading, but drops the barrier after the reads, so the copy of the tile after next lands in the buffer others still read.
// Puzzle 49 · Debug: the missing wait_group

__device__ void fetch16(float* dst, const float* a, int i, int size) {
    int left = size - i;
    int bytes = left >= 4 ? 16 : (left > 0 ? 4 * left : 0);
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(s), "l"(bytes > 0 ? a + i : a), "r"(bytes) : "memory");
}

__device__ void commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int N>
__device__ void wait_group() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

extern "C" __global__ void reverse_tiles(float* out, const float* a, int size) {
    __shared__ __align__(16) float stage[2][4 * TPB];
    const int len = 4 * TPB;
    int me = threadIdx.x;
    int count = (size + len - 1) / len;
    int tile = blockIdx.x;
    if (tile < count) fetch16(&stage[0][4 * me], a, tile * len + 4 * me, size);
    commit_group();
    for (int it = 0; tile < count; it++, tile += gridDim.x) {
        int after = tile + gridDim.x;
        if (after < count) fetch16(&stage[(it + 1) % 2][4 * me], a, after * len + 4 * me, size);
        commit_group();
        wait_group<1>();
        __syncthreads();
        for (int q = 0; q < 4; q++) {
            int r = me + q * TPB;
            int i = tile * len + r;
            if (i < size) out[i] = 2.0f * stage[it % 2][len - 1 - r];  // @bug
        }
    }
}
