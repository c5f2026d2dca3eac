// Global-memory races: planted bugs (`// @name` marks the line each test expects) and correct
// kernels that must stay clean.

// Every thread adds into out[0]: updates are lost on a GPU (puzzle 10's classic mistake).
extern "C" __global__ void dot_racy(float* out, const float* a, const float* b, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[0] += a[i] * b[i]; // @dot-racy
}

// Each block writes out[threadIdx.x]: two blocks write the same elements.
extern "C" __global__ void blocks_overwrite(int* out) {
    out[threadIdx.x] = blockIdx.x; // @blocks-overwrite
}

// Each thread writes its element, then reads its neighbour's without a barrier.
extern "C" __global__ void read_neighbour_early(int* out, int* res, int n) {
    int t = threadIdx.x;
    out[t] = t * 10; // @early-write
    res[t] = out[(t + 1) % n]; // @early-read
}

// Thread 0 writes, the others read after a barrier: ordered.
extern "C" __global__ void write_sync_read(int* out, int* res) {
    if (threadIdx.x == 0) out[0] = 42;
    __syncthreads();
    res[threadIdx.x] = out[0];
}

// Each thread rewrites its own element many times, reading it back in between.
extern "C" __global__ void own_element(float* out, const float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 0.0f;
        for (int k = 0; k < 8; k++) out[i] += a[i] * k;
    }
    __syncthreads();
    if (i < n) out[i] = out[i] * 2.0f;
}

// A grid-stride loop: every element is owned by one thread of one block.
extern "C" __global__ void grid_stride(float* out, const float* a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[i] = a[i] * 2.0f + 1.0f;
    }
}

// A histogram with global atomics.
extern "C" __global__ void histogram(unsigned int* bins, const int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] % 16], 1u);
}

// The last-block reduction (CUDA sample threadFenceReduction): every block writes its partial
// sum, fences, and counts itself done; the block that finishes last adds up the partial sums.
__device__ unsigned int retirement_count = 0;

extern "C" __global__ void last_block_sum(float* partial, float* total, const float* in, int n) {
    __shared__ float s[64];
    __shared__ bool am_last;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
    __threadfence();
    if (t == 0) {
        unsigned int ticket = atomicInc(&retirement_count, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last) {
        float sum = 0.0f;
        for (int b = t; b < gridDim.x; b += blockDim.x) sum += partial[b];
        s[t] = sum;
        __syncthreads();
        for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
            if (t < stride) s[t] += s[t + stride];
            __syncthreads();
        }
        if (t == 0) {
            total[0] = s[0];
            retirement_count = 0;
        }
    }
}

// The same without the __threadfence(): the partial sums may not be visible yet.
__device__ unsigned int unfenced_count = 0;

extern "C" __global__ void last_block_unfenced(float* partial, float* total, const float* in) {
    int t = threadIdx.x;
    if (t == 0) partial[blockIdx.x] = in[blockIdx.x];
    __shared__ bool am_last;
    if (t == 0) am_last = atomicInc(&unfenced_count, gridDim.x) == gridDim.x - 1;
    __syncthreads();
    if (am_last && t == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; b++) sum += partial[b]; // @unfenced-read
        total[0] = sum;
    }
}

// Blocks add into one total with atomicAdd: fine.
extern "C" __global__ void atomic_total(float* total, const float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&total[0], a[i]);
}

// Lanes of one warp ordered by __syncwarp(): lane 0 writes, the others read.
extern "C" __global__ void warp_ordered(int* out, int* res) {
    int t = threadIdx.x;
    if (t % 32 == 0) out[t / 32] = t + 1;
    __syncwarp();
    res[t] = out[t / 32];
}

// Thread 0 resets the counter while the others already add to it: no barrier between.
extern "C" __global__ void reset_while_adding(unsigned int* count) {
    if (threadIdx.x == 0) count[0] = 0; // @plain-reset
    atomicAdd(&count[0], 1u); // @atomic-add
}
