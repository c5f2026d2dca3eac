// expect: fail
// kind: async-copy
// line: @bug
// help-has: commit
// help-has: before
// why: the wait comes before the commit: wait_group 1 leaves one committed group in flight, and
// why: that is this tile's (the next tile's copies are not committed yet). Commit first, then wait.
// Puzzle 49 · Debug: a missing wait_group. Each tile of 4 * TPB floats, reversed and doubled.
// Tiles of 4 * TPB floats, each reversed and doubled: out[t + r] = 2 * a[t + 4 * TPB - 1 - r].

// Start a 16-byte copy of a[i .. i + 3] into `dst`; past `size`, the missing floats are zeros.
__device__ void copy4(float* dst, const float* a, int i, int size) {
    int left = size - i;
    int bytes = left >= 4 ? 16 : (left > 0 ? 4 * left : 0);
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(s), "l"(bytes > 0 ? a + i : a), "r"(bytes) : "memory");
}

__device__ void commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Wait until at most N of this thread's groups are still in flight.
template <int N>
__device__ void wait_group() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

extern "C" __global__ void reverse_tiles(float* out, const float* a, int size) {
    __shared__ __align__(16) float buf[2][4 * TPB];
    const int tile_len = 4 * TPB;
    int j = threadIdx.x;
    int tiles = (size + tile_len - 1) / tile_len;
    int t = blockIdx.x;
    if (t < tiles) copy4(&buf[0][4 * j], a, t * tile_len + 4 * j, size);
    commit_group();
    for (int k = 0; t < tiles; k++, t += gridDim.x) {
        int next = t + gridDim.x;
        if (next < tiles) copy4(&buf[(k + 1) % 2][4 * j], a, next * tile_len + 4 * j, size);
        wait_group<1>();
        commit_group();
        __syncthreads();
        for (int q = 0; q < 4; q++) {
            int r = j + q * TPB;
            int i = t * tile_len + r;
            if (i < size) out[i] = 2.0f * buf[k % 2][tile_len - 1 - r]; // @bug
        }
        __syncthreads();
    }
}
