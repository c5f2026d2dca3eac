// Several threads read one word in a barrier interval, then one of them writes it. Thread 0's
// own read is ordered before its write by the __syncwarp; thread 1's read is not.
extern "C" __global__ void shared_reader_after_syncwarp(float* out, const float* a, int size) {
    __shared__ float w;
    if (threadIdx.x == 0) w = a[0];
    __syncthreads();
    float v = 0.0f;
    if (threadIdx.x == 0) out[3] = w;
    __syncwarp();
    if (threadIdx.x == 1) out[4] = w; // @read
    if (threadIdx.x == 0) w = 5.0f; // @write
    out[threadIdx.x] = v;
}

// The same in global memory.
extern "C" __global__ void global_reader_after_syncwarp(float* out, const float* a, int size) {
    if (threadIdx.x == 0) out[2] = out[4];
    __syncwarp();
    if (threadIdx.x == 1) out[3] = out[4]; // @gread
    if (threadIdx.x == 0) out[4] = 5.0f; // @gwrite
    out[threadIdx.x] = a[threadIdx.x];
}

// Correct: every read is ordered before the write by the __syncwarp.
extern "C" __global__ void readers_then_syncwarp_then_write(float* out, const float* a, int size) {
    __shared__ float w;
    if (threadIdx.x == 0) w = a[0];
    __syncthreads();
    if (threadIdx.x < 2) out[2 + threadIdx.x] = w;
    __syncwarp();
    if (threadIdx.x == 0) w = 5.0f;
    out[threadIdx.x] = a[threadIdx.x];
}

// The same in global memory.
extern "C" __global__ void global_readers_then_syncwarp_then_write(float* out, const float* a, int size) {
    if (threadIdx.x < 2) out[2 + threadIdx.x] = out[4];
    __syncwarp();
    if (threadIdx.x == 0) out[4] = 5.0f;
    out[threadIdx.x] = a[threadIdx.x];
}
