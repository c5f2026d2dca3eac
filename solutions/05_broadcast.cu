// Puzzle 5 · Broadcast: reference solution.
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size && col < size) {
        out[row * size + col] = a[row] + b[col];
    }
}
