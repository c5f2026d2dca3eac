// lazy: the same pieces of 4 floats as the cp.async version, but through float4 loads and stores
extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float a_tile[TPB][TPB];
    __shared__ __align__(16) float b_tile[TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TPB + tx;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        float4 z = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (tid < 64) {
            int r = tid / 4, c = (tid % 4) * 4, gr = blockIdx.y * TPB + r;
            *reinterpret_cast<float4*>(&a_tile[r][c]) =
                gr < M && t0 + c < K ? *reinterpret_cast<const float4*>(a + gr * K + t0 + c) : z;
        } else if (tid < 128) {
            int r = (tid - 64) / 4, c = ((tid - 64) % 4) * 4, gc = blockIdx.x * TPB + c;
            *reinterpret_cast<float4*>(&b_tile[r][c]) =
                t0 + r < K && gc < N ? *reinterpret_cast<const float4*>(b + (t0 + r) * N + gc) : z;
        }
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
