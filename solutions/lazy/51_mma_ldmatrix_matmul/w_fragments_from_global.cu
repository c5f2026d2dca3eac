// lazy: ldmatrix for A's tile only; each lane gathers its W fragment (4 halves a step) straight from global memory, no shared tile for W
#include <cuda_fp16.h>
__device__ void ldmatrix_x4(unsigned (&r)[4], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ unsigned pack(const __half* w, int row, int col, int n, int k) {
    __half lo = row < n && col < k ? w[row * k + col] : __float2half(0.0f);
    __half hi = row < n && col + 1 < k ? w[row * k + col + 1] : __float2half(0.0f);
    return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}
extern "C" __global__ void mma_matmul(float* c, const __half* a, const __half* w, int m, int n, int k) {
    __shared__ __align__(16) __half sa[16][TK + 8];
    int lane = threadIdx.x, row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += TK) {
        for (int e = lane; e < 16 * TK; e += 32) {
            int r = e / TK, x = e % TK;
            bool inside = row0 + r < m && k0 + x < k;
            sa[r][x] = inside ? a[(row0 + r) * k + k0 + x] : __float2half(0.0f);
        }
        __syncwarp();
        for (int ks = 0; ks < TK; ks += 16) {
            unsigned fa[4], fb[2];
            ldmatrix_x4(fa, &sa[lane % 16][ks + (lane / 16) * 8]);
            int kk = k0 + ks + (lane % 4) * 2;
            fb[0] = pack(w, col0 + lane / 4, kk, n, k);
            fb[1] = pack(w, col0 + lane / 4, kk + 8, n, k);
            mma_16x8x16(acc, fa, fb);
        }
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) c[row * n + col] = acc[i];
    }
}
