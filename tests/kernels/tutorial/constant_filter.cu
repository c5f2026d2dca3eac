// A 1D convolution with its filter in constant memory, the way the CUDA
// programming guide and PMPP (chapter 7) set it: the host copies the taps with
// cudaMemcpyToSymbol before the launch. A device counter reports how many
// outputs came out negative, read back with cudaMemcpyFromSymbol.
#define RADIUS 2
#define TAPS (2 * RADIUS + 1)

namespace filters {
__constant__ float taps[TAPS];
}

__device__ unsigned int negative_outputs;
__device__ float largest_output;

__global__ void convolve(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++) {
        int j = i + k;
        if (j >= 0 && j < n) sum += filters::taps[k + RADIUS] * in[j];
    }
    out[i] = sum;
    if (sum < 0.0f) atomicAdd(&negative_outputs, 1u);
    if (i == 0) largest_output = sum;
}
