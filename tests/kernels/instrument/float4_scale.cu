// 16-byte vector loads and stores: each counts as four elements.
extern "C" __global__ void float4_scale(float4* out, const float4* a, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = a[i];
        out[i] = make_float4(v.x * 2.0f, v.y + 1.0f, v.z - v.w, v.w);
    }
}
