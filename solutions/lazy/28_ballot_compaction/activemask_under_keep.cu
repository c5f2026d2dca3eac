// lazy: the lanes that drop their element skip ahead; inside `if (keep)` the slot is a popcount of __activemask() (the lanes running that branch), and one ballot of every lane gives the count
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int idx = blockIdx.x * 32 + threadIdx.x;
    float value = idx < size ? a[idx] : -1.0f;
    unsigned lower = (1u << threadIdx.x) - 1u;
    if (value > 0.0f) {
        unsigned running = __activemask();
        out[blockIdx.x * 32 + __popc(running & lower)] = value;
    }
    unsigned all = __ballot_sync(0xffffffffu, value > 0.0f);
    if (threadIdx.x == 31) counts[blockIdx.x] = __popc(all);
}
