// Bug on purpose: with non-negative input the loop never ends (the whole loop is on one line).
extern "C" __global__ void infinite_loop(int* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = 0;
    while (a[k] >= 0.0f) { k = (k + 1) % size; }
    out[i] = k;
}
