// lazy: drops the tensor core: each lane computes its four elements of c with plain dot products
#include <cuda_fp16.h>
extern "C" __global__ void frag_matmul(float* c, const __half* a, const __half* b, int m, int n, int k) {
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    for (int i = 0; i < 4; i++) {
        int row = row0 + g + 8 * (i / 2), col = col0 + 2 * t + i % 2;
        if (row < m && col < n) {
            float s = 0.0f;
            for (int x = 0; x < k; x++) {
                s += __half2float(a[row * k + x]) * __half2float(b[x * n + col]);
            }
            c[row * n + col] = s;
        }
    }
}
