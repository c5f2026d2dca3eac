// expect: fail
// kind: over-budget
// counter: require:shared_writes
// why: builds the mma fragments straight from global memory and runs ldmatrix on one row of
// why: zeros it wrote to shared memory, adding those zeros into the fragments.
// help-has: made only
// help-has: shared memory first
// Puzzle 51 · mma.sync + ldmatrix matmul.
#include <cuda_fp16.h>

__device__ void ldmatrix_x4(unsigned (&r)[4], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ void ldmatrix_x2(unsigned (&r)[2], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
}

__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ unsigned two_halves(const __half* p, int r, int x, int rows, int cols) {
    unsigned lo = r < rows && x < cols ? __half_as_ushort(p[r * cols + x]) : 0u;
    unsigned hi = r < rows && x + 1 < cols ? __half_as_ushort(p[r * cols + x + 1]) : 0u;
    return lo | (hi << 16);
}

extern "C" __global__ void mma_matmul(float* c, const __half* a, const __half* w, int m, int n, int k) {
    __shared__ __align__(16) __half zeros[8];
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    if (lane < 8) zeros[lane] = __float2half(0.0f);
    __syncwarp();
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += 16) {
        unsigned za[4], zb[2], fa[4], fb[2];
        ldmatrix_x4(za, zeros);
        ldmatrix_x2(zb, zeros);
        for (int r = 0; r < 4; r++) {
            fa[r] = two_halves(a, row0 + g + 8 * (r % 2), k0 + 2 * t + 8 * (r / 2), m, k) | za[r];
        }
        for (int r = 0; r < 2; r++) {
            fb[r] = two_halves(w, col0 + g, k0 + 2 * t + 8 * r, n, k) | zb[r];
        }
        mma_16x8x16(acc, fa, fb);
    }
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) c[row * n + col] = acc[i];
    }
}
