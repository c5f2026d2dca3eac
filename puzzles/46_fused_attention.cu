// Puzzle 46 · Fused attention: out = softmax(q k^T / sqrt(D)) v, one key tile at a time with the
// online softmax, never writing the scores out. Check with `gpuzzle run 46`; stuck? `gpuzzle hint 46`.
#include <math_constants.h>  // CUDART_INF_F

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    // FILL ME IN (roughly 50 lines). A start, to uncomment:
    //     __shared__ float4 ks[TILE][D / 4];  // this key tile's rows of k, 4 floats at a time
    //     __shared__ float4 vs[TILE][D / 4];  // and of v
    //     int t = threadIdx.x;
    //     int i = blockIdx.x * TILE + t;  // this thread's query row
    //     float4 qi[D / 4];               // the query row, in registers
    //     float4 acc[D / 4];              // running sum of exp(score - m) * v[j]
    //     float m = -CUDART_INF_F;        // running maximum of the scores
    //     float l = 0.0f;                 // running sum of exp(score - m)
}
