// The math library (libdevice expansions and fast intrinsics), double precision, and integers.

extern "C" __global__ void mathf(float* out, const float* x, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float* o = out + i * 14;
    o[0] = expf(a);
    o[1] = logf(fabsf(a) + 0.5f);
    o[2] = sinf(a * 10.0f);
    o[3] = cosf(a * 10.0f);
    o[4] = powf(fabsf(a) + 0.1f, b * 3.0f);
    o[5] = sqrtf(fabsf(a));
    o[6] = rsqrtf(fabsf(a) + 0.01f);
    o[7] = fminf(a, b);
    o[8] = fmaxf(a, b);
    o[9] = floorf(a * 7.0f);
    o[10] = fabsf(b);
    o[11] = __expf(a);
    o[12] = __fdividef(a, b + 2.0f);
    o[13] = a / (b + 2.0f);
}

extern "C" __global__ void mathd(double* out, const double* x, const double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    double* o = out + i * 8;
    o[0] = a * b + 1.0;
    o[1] = a / (b + 3.0);
    o[2] = sqrt(fabs(a));
    o[3] = exp(a);
    o[4] = log(fabs(b) + 1.0);
    o[5] = sin(a);
    o[6] = fmin(a, b);
    o[7] = (double)(float)a + (double)(int)(b * 1000.0);
}

extern "C" __global__ void ints(int* out, unsigned* uout, const int* x, const int* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = x[i], b = y[i];
    unsigned ua = (unsigned)a, ub = (unsigned)b;
    int* o = out + i * 16;
    o[0] = a / b;
    o[1] = a % b;
    o[2] = a / 7;
    o[3] = a % 7;
    o[4] = a / -3;
    o[5] = a >> (b & 31);
    o[6] = a << (b & 15);
    o[7] = min(a, b);
    o[8] = max(a, b);
    o[9] = (a < b) + 2 * (ua < ub);
    o[10] = __popc(a);
    o[11] = __clz(a);
    o[12] = __ffs(a);
    o[13] = abs(a);
    o[14] = __mulhi(a, b);
    o[15] = (int)__brev((unsigned)a);
    unsigned* u = uout + i * 6;
    u[0] = ua / ub;
    u[1] = ua % ub;
    u[2] = ua / 10u;
    u[3] = ua >> (ub & 31);
    u[4] = min(ua, ub);
    u[5] = max(ua, ub);
}

extern "C" __global__ void longs(long long* out, const long long* x, const long long* y, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    long long a = x[i], b = y[i];
    long long* o = out + i * 8;
    o[0] = a / b;
    o[1] = a % b;
    o[2] = a * b;
    o[3] = __popcll(a);
    o[4] = __clzll(a);
    o[5] = __ffsll(a);
    o[6] = (long long)((unsigned long long)a >> 3);
    o[7] = __mul64hi(a, b);
}
