// Producer/consumer warps on named barriers: warp 0 fills a buffer of 32 (barrier 1 "full"),
// warp 1 reads it reversed and writes it out, then frees it (barrier 2 "empty"); ROUNDS rounds.
#define ROUNDS 4
__device__ void bar_sync(int id, int n) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory"); }
__device__ void bar_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(n) : "memory"); }
__global__ void relay(const float* in, float* out) {
    __shared__ float buf[32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int r = 0; r < ROUNDS; ++r) {
        if (warp == 0) {
            if (r > 0) bar_sync(2, 64);
            buf[lane] = in[r * 32 + lane] * 2.0f;
            bar_arrive(1, 64);
        } else {
            bar_sync(1, 64);
            out[r * 32 + lane] = buf[31 - lane];
            bar_arrive(2, 64);
        }
    }
}

// The producer warp's upper lanes have nothing to produce and return early: the warp still
// arrives as a whole (the hardware counts 32 per warp, however many lanes run bar.arrive), so
// `bar.sync 1, 64` releases the consumer warp once both warps came. out = 3 in, and 0 where no
// producer wrote.
__global__ void half_producer(const float* in, float* out, int n) {
    __shared__ float buf[32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) {
        buf[lane] = 0.0f;
        if (lane >= n) return;
        buf[lane] = in[lane] * 3.0f;
        bar_arrive(1, 64);
    } else {
        bar_sync(1, 64);
        out[lane] = buf[lane];
    }
}
