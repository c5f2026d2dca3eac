// lazy: the partial group handles one or two leftover elements and drops the third
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    if (i + 3 < size) {
        float4 x = reinterpret_cast<const float4*>(a)[j];
        float4 y = reinterpret_cast<const float4*>(b)[j];
        reinterpret_cast<float4*>(out)[j] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    } else if (i < size) {
        out[i] = a[i] + b[i];
        if (i + 1 < size) {
            out[i + 1] = a[i + 1] + b[i + 1];
        }
    }
}
