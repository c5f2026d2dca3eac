// lazy: float4 loads of both arrays, but the four sums written back with four scalar stores
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int s = 4 * g;
    if (s + 3 < size) {
        float4 u = reinterpret_cast<const float4*>(a)[g];
        float4 v = reinterpret_cast<const float4*>(b)[g];
        out[s] = u.x + v.x;
        out[s + 1] = u.y + v.y;
        out[s + 2] = u.z + v.z;
        out[s + 3] = u.w + v.w;
    } else {
        for (int k = s; k < size; k++) out[k] = a[k] + b[k];
    }
}
