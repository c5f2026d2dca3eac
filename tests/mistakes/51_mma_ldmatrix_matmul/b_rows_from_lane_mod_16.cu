// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: lane % 8
// help-not: if (row < m
// why: W's tile has 8 rows, but the learner copied A's address pattern (lane % 16) for its
// why: ldmatrix: lanes 8..15 point past sw. The x2 load of W takes its 8 row addresses from lanes 0..15
// why: as &sw[lane % 8][...].
// Puzzle 51 · mma.sync + ldmatrix matmul: c = a * w^T on tensor cores, fragments loaded with
// ldmatrix from shared tiles free of bank conflicts. Check with `gpuzzle run 51`; stuck?
// `gpuzzle hint 51`.
#include <cuda_fp16.h>

// Four 8x8 matrices of halves from shared memory into r[0..3]: lanes 8i..8i+7 each give the
// address of one 16-byte row of matrix i.
__device__ void ldmatrix_x4(unsigned (&r)[4], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// Two 8x8 matrices into r[0..1]: lanes 0-7 give the rows of the first, 8-15 of the second.
__device__ void ldmatrix_x2(unsigned (&r)[2], const __half* row) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
}

// acc += A * B for the warp's fragments: A 16x16 (a[0..3]), B 16x8 (b[0..1]), acc 16x8.
__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

extern "C" __global__ void mma_matmul(float* c, const __half* a, const __half* w, int m, int n, int k) {
    // Rows padded by 8 halves: 144 bytes apart, so the eight rows of an 8x8 matrix start in
    // banks 0, 4, ..., 28 and ldmatrix reads them without a conflict.
    __shared__ __align__(16) __half sa[16][TK + 8];
    __shared__ __align__(16) __half sw[8][TK + 8];
    int lane = threadIdx.x, row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += TK) {
        for (int e = lane; e < 16 * TK; e += 32) {
            int r = e / TK, x = e % TK;
            bool inside = row0 + r < m && k0 + x < k;
            sa[r][x] = inside ? a[(row0 + r) * k + k0 + x] : __float2half(0.0f);
        }
        for (int e = lane; e < 8 * TK; e += 32) {
            int r = e / TK, x = e % TK;
            bool inside = col0 + r < n && k0 + x < k;
            sw[r][x] = inside ? w[(col0 + r) * k + k0 + x] : __float2half(0.0f);
        }
        __syncwarp();
        for (int ks = 0; ks < TK; ks += 16) {
            unsigned fa[4], fb[2];
            ldmatrix_x4(fa, &sa[lane % 16][ks + (lane / 16) * 8]);
            ldmatrix_x2(fb, &sw[lane % 16][ks + ((lane / 16) % 2) * 8]);  // @bug
            mma_16x8x16(acc, fa, fb);
        }
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) {
            c[row * n + col] = acc[i];
        }
    }
}
