// Control flow and small types: switch tables, loops with break/continue, bytes and shorts,
// __ldg / __restrict__, bools, and a barrier after an early exit of the whole block.

extern "C" __global__ void switcher(int* out, const int* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r;
    switch (v & 15) {
        case 0: r = 10; break;
        case 1: r = v * 3; break;
        case 2: r = v - 7; break;
        case 3: r = -v; break;
        case 4: r = v << 2; break;
        case 5: r = v ^ 0x55; break;
        case 6: r = v / 3; break;
        case 7: r = 42; break;
        case 9: r = v % 5; break;
        case 11: r = v + 100; break;
        default: r = -1; break;
    }
    out[i] = r;
}

extern "C" __global__ void loops(int* out, const int* in, int n) {
    int i = threadIdx.x;
    int s = 0;
    for (int k = 0; k < n; k++) {
        int v = in[(i + k) % n];
        if (v % 3 == 0) continue;
        if (v > 90) break;
        s += v;
    }
    int j = 0;
    do {
        s ^= j * i;
        j++;
    } while (j < i % 5);
    while (s > 1000) s -= 999;
    out[i] = s;
}

extern "C" __global__ void bytes(unsigned char* out, const unsigned char* in, short* sout,
                                 const short* sin, bool* flags, int n) {
    int i = threadIdx.x;
    if (i < n) {
        out[i] = (unsigned char)(in[i] * 3 + 1);
        sout[i] = (short)(sin[i] * -2);
        flags[i] = in[i] > 100;
    }
}

extern "C" __global__ void ldg(float* __restrict__ out, const float* __restrict__ in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(&in[i]) * 2.0f + __ldg(&in[(i + 1) % n]);
}

// Grid-stride loop, and a barrier inside a loop every thread runs the same number of times.
extern "C" __global__ void grid_stride(float* out, const float* in, int n) {
    __shared__ float tile[64];
    for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
        int i = base + threadIdx.x;
        tile[threadIdx.x] = i < n ? in[i] : 0.0f;
        __syncthreads();
        if (i < n) out[i] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();
    }
}
