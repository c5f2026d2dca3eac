// expect: fail
// kind: wrong-output
// help-has: 8 * r | 8 rows | eight rows
// why: the learner fixed B to pair two k rows of column g, but steps the second register by one
// why: row (x = k0 + 2t + r) instead of 8 (k0 + 2t + 8r): b[1] repeats rows of b[0].
// Puzzle 52 · Debug: a wrong fragment layout. c = a * b on tensor cores, fragments built by hand.
#include <cuda_fp16.h>

// The half at row r, column x of a rows x cols row-major matrix; 0 outside it.
__device__ __half at(const __half* p, int r, int x, int rows, int cols) {
    return r < rows && x < cols ? p[r * cols + x] : __float2half(0.0f);
}

// Two halves in one 32-bit register, `lo` in the low 16 bits.
__device__ unsigned pack(__half lo, __half hi) {
    return (unsigned)__half_as_ushort(lo) | (unsigned)__half_as_ushort(hi) << 16;
}

// acc += A * B for the warp's fragments: A 16x16 (a[0..3]), B 16x8 (b[0..1]), acc 16x8.
__device__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

extern "C" __global__ void frag_matmul(float* c, const __half* a, const __half* b, int m, int n, int k) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < k; k0 += 16) {
        unsigned fa[4], fb[2];
        // A (16 x 16): register r holds row g + 8 * (r % 2), columns 2t and 2t + 1, 8 further
        // on for r >= 2.
        for (int r = 0; r < 4; r++) {
            int row = row0 + g + 8 * (r % 2), x = k0 + 2 * t + 8 * (r / 2);
            fa[r] = pack(at(a, row, x, m, k), at(a, row, x + 1, m, k));
        }
        // B (16 x 8): register r holds row g + 8 * r, columns 2t and 2t + 1.
        for (int r = 0; r < 2; r++) {
            int x = k0 + 2 * t + r, col = col0 + g;  // @bug
            fb[r] = pack(at(b, x, col, k, n), at(b, x + 1, col, k, n));
        }
        mma_16x8x16(acc, fa, fb);
    }
    // C (16 x 8): acc[i] is row g + 8 * (i / 2), column 2t + i % 2.
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) {
            c[row * n + col] = acc[i];
        }
    }
}
