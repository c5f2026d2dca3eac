// expect: pass
// why: one buffer instead of two: each tile's copy is started, waited for in full (wait_group 0)
// why: and read, and the end barrier keeps the next copy from overwriting it early. No overlap,
// why: but correct, and the copies stay async: a fix the hints allow.
// Puzzle 49 · Debug: a missing wait_group.
__device__ void copy4(float* dst, const float* a, int i, int size) {
    int left = size - i;
    int bytes = left >= 4 ? 16 : (left > 0 ? 4 * left : 0);
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(s), "l"(bytes > 0 ? a + i : a), "r"(bytes) : "memory");
}

__device__ void commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int N>
__device__ void wait_group() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }

extern "C" __global__ void reverse_tiles(float* out, const float* a, int size) {
    __shared__ __align__(16) float buf[4 * TPB];
    const int tile_len = 4 * TPB;
    int j = threadIdx.x;
    int tiles = (size + tile_len - 1) / tile_len;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        copy4(&buf[4 * j], a, t * tile_len + 4 * j, size);
        commit_group();
        wait_group<0>();
        __syncthreads();
        for (int q = 0; q < 4; q++) {
            int r = j + q * TPB;
            int i = t * tile_len + r;
            if (i < size) out[i] = 2.0f * buf[tile_len - 1 - r];
        }
        __syncthreads();
    }
}
