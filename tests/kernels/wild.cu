// Planted wild global accesses: `out` has 4 floats, `a` follows it. Each kernel writes (or
// reads) past `out`; none may touch `a`, and each must be named as `out[...]`.
extern "C" __global__ void out_100(float* out, const float* a) {
    if (threadIdx.x == 0) out[100] = 1.0f;
}
extern "C" __global__ void out_200(float* out, const float* a) {
    if (threadIdx.x == 0) out[200] = 1.0f;
}
extern "C" __global__ void out_320(float* out, const float* a) {
    if (threadIdx.x == 0) out[320] = 1.0f;
}
extern "C" __global__ void out_stride(float* out, const float* a) {
    out[threadIdx.x * 320] = a[threadIdx.x] + 10.0f;
}
extern "C" __global__ void out_negative(float* out, const float* a) {
    if (threadIdx.x == 0) out[-3] = 1.0f;
}
extern "C" __global__ void a_negative_into_out(float* out, const float* a) {
    float* w = (float*)a;
    if (threadIdx.x == 0) w[-250] = 1.0f;
}
extern "C" __global__ void out_huge(float* out, const float* a) {
    if (threadIdx.x == 0) out[2147483647] = 1.0f;
}
extern "C" __global__ void read_320(float* out, const float* a) {
    if (threadIdx.x == 0) out[0] = out[320];
}
