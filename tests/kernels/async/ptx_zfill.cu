// cp.async in inline PTX, 16 bytes per thread with the source-size operand: the tail past n
// is zero-filled. out[i] = tile[i] for the block's 4*blockDim floats.
__global__ void zfill(const float* in, float* out, int n) {
    extern __shared__ float4 tile4[];
    float* tile = reinterpret_cast<float*>(tile4);
    int base = blockIdx.x * blockDim.x * 4;
    int i = base + threadIdx.x * 4;
    int left = n - i;
    int bytes = left >= 4 ? 16 : (left > 0 ? left * 4 : 0);
    const float* src = bytes > 0 ? in + i : in;
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&tile4[threadIdx.x]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(bytes) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    for (int k = 0; k < 4; ++k) {
        int j = threadIdx.x + k * blockDim.x;
        out[base + j] = tile[j];
    }
}
