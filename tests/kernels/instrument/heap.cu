// Device malloc/free and new/delete: the instrumented kernel keeps the heap's live blocks, so
// its accesses to them are as legal as the emulator's.
struct Pair {
    float x;
    float y;
};

extern "C" __global__ void heap(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    float* tmp = (float*)malloc(4 * sizeof(float));
    if (tmp == nullptr) return;
    for (int k = 0; k < 4; k++) tmp[k] = a[i] + k;
    Pair* p = new Pair;
    p->x = tmp[1];
    p->y = tmp[3];
    out[i] = p->x * p->y;
    delete p;
    free(tmp);
}
