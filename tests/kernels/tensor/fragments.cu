// The other mma.sync forms with fragments built by hand from row-major matrices, by the PTX ISA's
// layouts (g = lane / 4, t = lane % 4), and the 8x8 matrix moves (ldmatrix .trans, movmatrix,
// stmatrix .trans), each giving the transpose of one matrix.
#include <cuda_bf16.h>

// D (16x8) = A (16x8, tf32 by cvt.rna) * B (8x8) + C
extern "C" __global__ void mma_tf32(float* d, const float* a, const float* b, const float* c) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    unsigned ar[4], br[2];
    for (int i = 0; i < 4; i++) {
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ar[i]) : "f"(a[(g + 8 * (i % 2)) * 8 + t + 4 * (i / 2)]));
    }
    for (int i = 0; i < 2; i++) {
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(br[i]) : "f"(b[(t + 4 * i) * 8 + g]));
    }
    float acc[4];
    for (int i = 0; i < 4; i++) acc[i] = c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
    for (int i = 0; i < 4; i++) d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = acc[i];
}

// D (16x8) = A (16x32, s8) * B (32x8, s8) + C, saturating
extern "C" __global__ void mma_s8(int* d, const signed char* a, const signed char* b, const int* c) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    unsigned ar[4] = {0, 0, 0, 0}, br[2] = {0, 0};
    for (int i = 0; i < 16; i++) {
        int r = g + 8 * ((i / 4) % 2), col = 4 * t + i % 4 + 16 * (i / 8);
        ar[i / 4] |= (unsigned)(unsigned char)a[r * 32 + col] << (8 * (i % 4));
    }
    for (int i = 0; i < 8; i++) {
        int r = 4 * t + i % 4 + 16 * (i / 4);
        br[i / 4] |= (unsigned)(unsigned char)b[r * 8 + g] << (8 * (i % 4));
    }
    int acc[4];
    for (int i = 0; i < 4; i++) acc[i] = c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                 : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
    for (int i = 0; i < 4; i++) d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = acc[i];
}

// D (8x8) = A (8x4) * B (4x8) + C in f64
extern "C" __global__ void mma_f64(double* d, const double* a, const double* b, const double* c) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    double ar = a[g * 4 + t], br = b[t * 8 + g];
    double d0 = c[g * 8 + 2 * t], d1 = c[g * 8 + 2 * t + 1];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d0), "+d"(d1) : "d"(ar), "d"(br));
    d[g * 8 + 2 * t] = d0;
    d[g * 8 + 2 * t + 1] = d1;
}

// D (16x8) = A (16x16, bf16) * B (16x8, bf16) + C
extern "C" __global__ void mma_bf16(float* d, const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    unsigned ar[4] = {0, 0, 0, 0}, br[2] = {0, 0};
    for (int i = 0; i < 8; i++) {
        int r = g + 8 * ((i / 2) % 2), col = 2 * t + i % 2 + 8 * (i / 4);
        ar[i / 2] |= (unsigned)__bfloat16_as_ushort(a[r * 16 + col]) << (16 * (i % 2));
    }
    for (int i = 0; i < 4; i++) {
        int r = 2 * t + i % 2 + 8 * (i / 2);
        br[i / 2] |= (unsigned)__bfloat16_as_ushort(b[r * 8 + g]) << (16 * (i % 2));
    }
    float acc[4];
    for (int i = 0; i < 4; i++) acc[i] = c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
    for (int i = 0; i < 4; i++) d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = acc[i];
}

// t1, t2, t3: the transpose of the 8x8 matrix m, by ldmatrix .trans, movmatrix and
// stmatrix .trans
extern "C" __global__ void transposes(unsigned short* t1, unsigned short* t2, unsigned short* t3, const unsigned short* m) {
    __shared__ __align__(16) unsigned short s[8][8];
    __shared__ __align__(16) unsigned short o[8][8];
    int lane = threadIdx.x;
    for (int e = lane; e < 64; e += 32) s[e / 8][e % 8] = m[e];
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[lane % 8][0]);
    unsigned x, y, z;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(y) : "r"(addr));
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(z) : "r"(x));
    int r = lane / 4, c0 = 2 * (lane % 4);
    t1[r * 8 + c0] = y & 0xffff;
    t1[r * 8 + c0 + 1] = y >> 16;
    t2[r * 8 + c0] = z & 0xffff;
    t2[r * 8 + c0 + 1] = z >> 16;
    unsigned oaddr = (unsigned)__cvta_generic_to_shared(&o[lane % 8][0]);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(oaddr), "r"(x) : "memory");
    __syncwarp();
    for (int e = lane; e < 64; e += 32) t3[e] = o[e / 8][e % 8];
}

// Only the first 16 lanes reach the mma: a warp-sync error at that line.
extern "C" __global__ void half_warp(float* d) {
    int lane = threadIdx.x;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    unsigned one = 0x3c003c00u;
    if (lane < 16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%4, %4}, {%0, %1, %2, %3};"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "r"(one));
    }
    d[lane] = acc[0];
}
