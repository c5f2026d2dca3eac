// lazy: each group moved as two 8-byte doubles reinterpreted as float pairs (two loads per array, two stores), not one 16-byte vector
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    if (i + 3 < size) {
        const double* ad = reinterpret_cast<const double*>(a) + 2 * j;
        const double* bd = reinterpret_cast<const double*>(b) + 2 * j;
        double* od = reinterpret_cast<double*>(out) + 2 * j;
        for (int h = 0; h < 2; h++) {
            double x = ad[h], y = bd[h];
            float2 xf = *reinterpret_cast<float2*>(&x), yf = *reinterpret_cast<float2*>(&y);
            float2 r = make_float2(xf.x + yf.x, xf.y + yf.y);
            od[h] = *reinterpret_cast<double*>(&r);
        }
    } else {
        for (int k = i; k < size; k++) out[k] = a[k] + b[k];
    }
}
