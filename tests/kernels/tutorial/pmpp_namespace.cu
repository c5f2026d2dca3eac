// Kernels the way the PMPP book's code keeps them: inside a namespace, with a
// block-wide shared array declared at namespace scope and a device counter.
namespace PMPP {
namespace CUDA {

constexpr int BLOCK = 256;

__shared__ float partial_sum[BLOCK];
__device__ unsigned int blocks_done;
__device__ int histogram[4];

// Each block sums its slice into partial_sum, then thread 0 writes the block's sum.
__global__ void block_sum(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial_sum[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            partial_sum[threadIdx.x] += partial_sum[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial_sum[0];
        atomicAdd(&blocks_done, 1u);
    }
}

// Planted bug: the slice is stored one place to the right, so the last thread writes past the end.
__global__ void block_sum_off_by_one(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial_sum[threadIdx.x + 1] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = partial_sum[1];
}

// Planted bug: a difference with the left neighbour, without guarding thread 0.
__global__ void left_difference(const float* x, float* out, int n) {
    int t = threadIdx.x;
    partial_sum[t] = x[t];
    __syncthreads();
    out[t] = partial_sum[t] - partial_sum[t - 1];
}

// Planted bug: values 0..4 land in a histogram of 4 bins.
__global__ void histogram_one_bin_short(const int* values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&histogram[values[i]], 1);
}

}  // namespace CUDA
}  // namespace PMPP
