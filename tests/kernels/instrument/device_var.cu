// A module-level __device__ array read through a computed pointer, and a printf.
__device__ float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
extern "C" __global__ void device_var(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        const float* w = weights + (i % 4);
        out[i] = a[i] * *w;
    }
    if (i == 0) {
        printf("first weight %f\n", weights[0]);
    }
}
