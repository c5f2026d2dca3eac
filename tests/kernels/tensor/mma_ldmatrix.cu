// C (m x n, f32) = A (m x k, f16, row-major) * W^T (W: n x k, f16, row-major), one warp per
// 16 x 8 tile of C, through shared tiles read with ldmatrix and multiplied with mma.sync, as
// hand-written tensor-core kernels do. PAD (in halves) sets the tiles' row padding: 0 gives
// rows 128 bytes apart (8-way bank conflicts at the ldmatrix), 8 gives conflict-free rows.
#include <cuda_fp16.h>
#ifndef PAD
#define PAD 8
#endif
#define TK 64
extern "C" __global__ void mma_matmul(float* c, const __half* a, const __half* w, int m, int n, int k) {
    __shared__ __align__(16) __half sa[16][TK + PAD];
    __shared__ __align__(16) __half sw[8][TK + PAD];
    int lane = threadIdx.x;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += TK) {
        for (int e = lane; e < 16 * TK; e += 32) {
            int r = e / TK, kk = e % TK;
            bool in = row0 + r < m && k0 + kk < k;
            sa[r][kk] = in ? a[(row0 + r) * k + k0 + kk] : __float2half(0.0f);
        }
        for (int e = lane; e < 8 * TK; e += 32) {
            int r = e / TK, kk = e % TK;
            bool in = col0 + r < n && k0 + kk < k;
            sw[r][kk] = in ? w[(col0 + r) * k + k0 + kk] : __float2half(0.0f);
        }
        __syncwarp();
        for (int ks = 0; ks < TK; ks += 16) {
            unsigned a0, a1, a2, a3, b0, b1;
            unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[lane % 16][ks + (lane / 16) * 8]);
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
            unsigned pw = (unsigned)__cvta_generic_to_shared(&sw[lane % 8][ks + ((lane / 8) % 2) * 8]);
            asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                         : "=r"(b0), "=r"(b1) : "r"(pw));
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        int r = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (r < m && col < n) {
            c[r * n + col] = acc[i];
        }
    }
}
