// Racing kernels whose racy words are read again and again, by the thread that met the race
// and by others: tests/engine_race_shortcut.rs runs them with the checker's shortcut for reads
// that change no record (`SharedShadow::settled_read`) and without it, and wants the same
// JSON. Each has `(float* out, const float* in)`.

// A tile loop without its first barrier: every thread reads words of the tile its
// neighbours write in the same interval, two arrays in turn (two reports, counted per thread).
extern "C" __global__ void tile_no_barrier(float* out, const float* in) {
    __shared__ float xs[64];
    __shared__ float ys[64];
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int round = 0; round < 3; round++) {
        xs[t] = in[t] + round;
        ys[t] = in[63 - t] * round;
        for (int k = 0; k < 8; k++) acc += xs[(t + k) % 64] * ys[(t + 7 * k) % 64];
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = acc;
}

// Half a warp meets at a `__syncwarp(mask)`: its lanes are ordered among themselves, the
// other half is not, so the same read races for some lanes and not for others.
extern "C" __global__ void half_warp_sync(float* out, const float* in) {
    __shared__ float s[64];
    int t = threadIdx.x;
    int lane = t % 32;
    float acc = 0.0f;
    for (int round = 0; round < 2; round++) {
        s[t] = in[t] + round;
        if (lane < 16) __syncwarp(0xffff);
        for (int k = 1; k < 6; k++) acc += s[(t / 32) * 32 + (lane + k) % 32];
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = acc;
}

// A window read before the others wrote it, in a block of 48 threads (a partial last warp):
// each thread reads the words after its own, which the next threads write later, and its own.
extern "C" __global__ void window_early(float* out, const float* in) {
    __shared__ float s[56];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 8) s[48 + t] = 0.0f;
    float v = 0.0f;
    for (int k = 0; k < 8; k++) v += s[t + k] * (k + 1);
    out[blockIdx.x * 64 + t] = v;
}
