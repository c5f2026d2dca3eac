// lazy: no grid sync: every block adds up the whole array itself with 8-byte loads (two floats at a time) and never waits for the others
extern "C" __global__ void center(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int t = threadIdx.x;
    const unsigned long long* pairs = reinterpret_cast<const unsigned long long*>(a);
    float sum = 0.0f;
    for (int p = t; p < size / 2; p += TPB) {
        unsigned long long w = pairs[p];
        sum += __uint_as_float((unsigned int)(w & 0xffffffffull)) + __uint_as_float((unsigned int)(w >> 32));
    }
    if (t == 0 && size % 2 == 1) {
        sum += a[size - 1];
    }
    cache[t] = sum;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s >>= 1) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
    float mean = cache[0] / size;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        out[i] = a[i] - mean;
    }
}
