// lazy: the partial group read as the float4 that ends at the array's end (a[size-4..size-1]), so no scalar tail
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    if (i >= size) return;
    if (i + 3 < size) {
        float4 x = reinterpret_cast<const float4*>(a)[j];
        float4 y = reinterpret_cast<const float4*>(b)[j];
        reinterpret_cast<float4*>(out)[j] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    } else {
        float4 x = *reinterpret_cast<const float4*>(a + size - 4);
        float4 y = *reinterpret_cast<const float4*>(b + size - 4);
        float s[4] = {x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w};
        for (int k = i; k < size; k++) out[k] = s[k - (size - 4)];
    }
}
