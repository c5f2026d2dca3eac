// Map, zip, 2D and 3D launches, templates, structs by value, device functions, float4,
// local arrays: the everyday shapes of a learner's kernel.

extern "C" __global__ void map_guard(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        out[i] = a[i] * 2.0f + 1.0f;
    }
}

extern "C" __global__ void zip_guard(float* out, const float* a, const float* b, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    out[i] = a[i] - 3.0f * b[i];
}

// out = a + b for an rows x cols matrix, 2D grid of 2D blocks with guards on both axes.
extern "C" __global__ void add_2d(float* out, const float* a, const float* b, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[r * cols + c] = a[r * cols + c] + b[r * cols + c];
    }
}

// Every thread of a 3D grid of 3D blocks records who it is.
extern "C" __global__ void ids_3d(int* out) {
    int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int per_block = blockDim.x * blockDim.y * blockDim.z;
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int g = bx * per_block + t;
    int* o = out + g * 8;
    o[0] = threadIdx.x;
    o[1] = threadIdx.y;
    o[2] = threadIdx.z;
    o[3] = blockIdx.x;
    o[4] = blockIdx.y;
    o[5] = blockIdx.z;
    o[6] = blockDim.x * 100 + blockDim.y * 10 + blockDim.z;
    o[7] = gridDim.x * 100 + gridDim.y * 10 + gridDim.z;
}

// A C++ (mangled) kernel and a template with two instantiations.
__global__ void plain_cpp(int* out, int v) {
    out[threadIdx.x] = v + threadIdx.x;
}

template <int N>
__global__ void tmpl(int* out) {
    out[threadIdx.x] = N * threadIdx.x;
}
template __global__ void tmpl<3>(int*);
template __global__ void tmpl<128>(int*);

template <typename T>
__global__ void tscale(T* out, const T* in, T k) {
    out[threadIdx.x] = in[threadIdx.x] * k;
}
template __global__ void tscale<float>(float*, const float*, float);
template __global__ void tscale<double>(double*, const double*, double);

namespace geo {
__global__ void shift(int* out, int by) { out[threadIdx.x] += by; }
}

struct Affine {
    char tag;
    double offset;
    float scale;
    int n;
};

extern "C" __global__ void affine(float* out, const float* a, Affine p) {
    int i = threadIdx.x;
    if (i < p.n) {
        out[i] = a[i] * p.scale + (float)p.offset + (float)p.tag;
    }
}

// Non-inlined device functions: a return value, and pointer arguments that point into
// shared memory in one call and global memory in another (generic addressing).
__device__ __noinline__ float poly(float x, int k) {
    float r = 0.0f;
    for (int j = 0; j <= k; j++) r = r * x + (float)(j + 1);
    return r;
}

__device__ __noinline__ void accumulate(float* dst, const float* src, int n) {
    for (int j = 0; j < n; j++) *dst += src[j];
}

__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

extern "C" __global__ void devfuncs(float* out, float* partial, const float* a, int* facts) {
    __shared__ float acc[32];
    __shared__ float vals[4];
    int i = threadIdx.x;
    acc[i] = 0.0f;
    if (i < 4) vals[i] = (float)(i + 1);
    __syncthreads();
    accumulate(&acc[i], vals, 4);           // shared → shared
    accumulate(&partial[i], a + i, 2);      // global → global
    accumulate(&partial[i], &acc[i], 1);    // shared → global
    out[i] = poly(a[i], i % 4);
    facts[i] = fact(i % 8);
}

// float4 loads and stores, plus a float2 pair.
extern "C" __global__ void vec4(float4* out, const float4* a, float2* pair) {
    int i = threadIdx.x;
    float4 v = a[i];
    out[i] = make_float4(v.w, v.z * 2.0f, v.y + 1.0f, v.x - v.w);
    float2 p = pair[i];
    pair[i] = make_float2(p.x + p.y, p.x * p.y);
}

// A per-thread array indexed by data: lives in local memory.
extern "C" __global__ void local_array(int* out, const int* idx, int n) {
    int buf[16];
    int i = threadIdx.x;
    for (int j = 0; j < 16; j++) buf[j] = i * 100 + j;
    for (int j = 0; j < n; j++) {
        int k = idx[(i + j) % n] & 15;
        buf[k] += j;
    }
    int s = 0;
    for (int j = 0; j < 16; j++) s += buf[(j * 7 + i) & 15] * (j + 1);
    out[i] = s;
}

// A pointer to the caller's local array, filled by a non-inlined function with its own locals.
__device__ __noinline__ void fill_squares(int* dst, int n, int salt) {
    int tmp[8];
    for (int j = 0; j < 8; j++) tmp[j] = j * j + salt;
    for (int j = 0; j < n; j++) dst[j] = tmp[(j * 3 + salt) & 7];
}

extern "C" __global__ void local_through_calls(int* out, const int* salt) {
    int mine[8];
    int t = threadIdx.x;
    fill_squares(mine, 8, salt[t]);
    int s = 0;
    for (int j = 0; j < 8; j++) s += mine[(j + t) & 7] * (j + 1);
    out[t] = s;
}
