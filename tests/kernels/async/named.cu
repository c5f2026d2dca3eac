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
