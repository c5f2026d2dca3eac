// lazy: reads every output's source straight from global memory, no tiles and no copies
extern "C" __global__ void reverse_tiles(float* out, const float* a, int size) {
    const int tile_len = 4 * TPB;
    for (int i = blockIdx.x * TPB + threadIdx.x; i < size; i += gridDim.x * TPB) {
        int t = i / tile_len, r = i % tile_len;
        int src = t * tile_len + tile_len - 1 - r;
        out[i] = src < size ? 2.0f * a[src] : 0.0f;
    }
}
